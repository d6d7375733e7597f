"""Each launch of a folder against what its kernel needs, read from the NVRTC compile that checks
kernels.cu (workload_kernel.nvrtc_compile, for a real architecture with ptxas's verbose report),
and against a GPU's limits: `list` and `run` say no in one line where the launch would fail, not
at the launch.

What the compile gives, per kernel (extern "C", so its PTX and ptxas name it as written):
- its `__launch_bounds__` as the PTX's `.maxntid X, Y, Z` (the most threads a block may have: the
  product), and a required block size as `.reqntid`;
- its registers a thread and static shared memory, from ptxas's `Used N registers, ... B bytes smem`.
The limits: those the harness reads from its GPU (cudaGetDeviceProperties, app/folder_checks.cpp),
or sm_90's without one (SM90_LIMITS), named in the message either way."""
from __future__ import annotations

import math
import re

from workload_formula import WorkloadFolderError
from workload_kernel import nvrtc_compile

# sm_90's (H100, H200) limits, as CUDA's programming guide tables them: 1024 threads a block, 64 K
# 32-bit registers a block, 48 KiB of shared memory a block by default (static, plus dynamic up to
# what is left), and 227 KiB a block for a kernel whose dynamic limit is raised (the opt-in).
SM90_LIMITS = {"name": "", "arch": "sm_90", "max_threads_per_block": 1024, "regs_per_block": 65536,
               "shared_per_block": 48 * 1024, "shared_per_block_optin": 227 * 1024}
REGISTER_UNIT = 256   # registers are allocated to a warp 256 at a time (sm_50 on)
WARP = 32
# The kernel-text layers that launch a folder's kernels without raising the kernel's dynamic shared
# memory limit (cuFuncSetAttribute / cudaFuncSetAttribute: the driver and runtime layers do, as the
# lab's nvrtc runner does): a launch there has at most `shared_per_block` in all.
LAYERS_WITHOUT_OPT_IN = "cupy-raw, cuda-bindings, cuda-core and pycuda"


def which_limits(limits: dict) -> str:
    if limits.get("name"):
        return f"the limits of the {limits['name']} ({limits['arch']}) found here"
    return f"the limits of {limits['arch']} (no GPU found)"


def nvrtc_archs() -> set[str]:
    """The real architectures this NVRTC compiles for ({"sm_75", ..., "sm_90", ...}); empty if it cannot say."""
    try:
        from cuda.bindings import nvrtc
        err, archs = nvrtc.nvrtcGetSupportedArchs()
    except (ImportError, AttributeError):
        return set()
    return {f"sm_{a}" for a in archs} if err == nvrtc.nvrtcResult.NVRTC_SUCCESS else set()


def kernel_needs(ptx: str, log: str) -> dict[str, dict]:
    """name -> {"registers", "static_shared", "max_threads" (None: no __launch_bounds__),
    "required_block" (None, or .reqntid's (x, y, z))}, from the compile's PTX and ptxas's log."""
    needs: dict[str, dict] = {}
    current = None
    for line in log.splitlines():
        if match := re.search(r"Compiling entry function '([^']+)'", line):
            current = needs.setdefault(match.group(1), {"registers": 0, "static_shared": 0,
                                                        "max_threads": None, "required_block": None})
        elif current is not None and (match := re.search(r"Used (\d+) registers", line)):
            current["registers"] = int(match.group(1))
            smem = re.search(r"(\d+) bytes smem", line)
            current["static_shared"] = int(smem.group(1)) if smem else 0
    for entry in re.finditer(r"\.entry\s+([\w$]+)\s*\(", ptx):
        body = ptx.find("{", entry.end())
        head = ptx[entry.end():body if body >= 0 else len(ptx)]
        kernel = needs.setdefault(entry.group(1), {"registers": 0, "static_shared": 0,
                                                   "max_threads": None, "required_block": None})
        for directive in ("maxntid", "reqntid"):
            if match := re.search(rf"\.{directive}\s+(\d+)(?:\s*,\s*(\d+))?(?:\s*,\s*(\d+))?", head):
                dims = tuple(int(d) if d else 1 for d in match.groups())
                if directive == "maxntid":
                    kernel["max_threads"] = math.prod(dims)
                else:
                    kernel["required_block"] = dims
    return needs


def block_registers(registers: int, threads: int) -> int:
    """The registers a block of `threads` takes: each warp's share rounded up to REGISTER_UNIT."""
    per_warp = -(-registers * WARP // REGISTER_UNIT) * REGISTER_UNIT
    return -(-threads // WARP) * per_warp


def check_launches(w, limits: dict | None = None) -> None:
    """Each kernel's launch (workload.json's block and shared_bytes) against its `__launch_bounds__`,
    its registers and static shared memory (compiled for limits' arch), and `limits` (None: sm_90's).
    WorkloadFolderError naming the launch field, the kernel, the figure and the limit, for the first
    launch that would fail."""
    limits = dict(SM90_LIMITS) if limits is None else dict(SM90_LIMITS) | dict(limits)
    which = which_limits(limits)
    arch = limits["arch"]
    if arch != "sm_90" and arch not in nvrtc_archs():
        which += f"; registers and static shared memory as compiled for sm_90 (this NVRTC cannot compile for {arch})"
        arch = "sm_90"
    ptx, log = nvrtc_compile(w, arch)
    needs = kernel_needs(ptx, log)
    json_path = w.path / "workload.json"
    for k in w.kernels:
        prefix = "" if k.field == "kernel" else k.field + "."
        need = needs.get(k.name)
        if need is None:
            continue   # the signature check found it; a compile that names it otherwise is not ours to read
        block = tuple(k.block)
        threads = math.prod(block)
        field = f"{prefix}launch.block"
        shape = f"{list(block)} is {threads} threads"
        if need["max_threads"] is not None and threads > need["max_threads"]:
            raise WorkloadFolderError(json_path, field, f"{shape}; kernel {k.name} is declared "
                                      f"__launch_bounds__({need['max_threads']}) in kernels.cu: at most {need['max_threads']} a block")
        if need["required_block"] is not None and tuple(block) + (1,) * (3 - len(block)) != need["required_block"]:
            raise WorkloadFolderError(json_path, field, f"{list(block)}; kernel {k.name} requires a block of exactly "
                                      f"{list(need['required_block'])} in kernels.cu")
        if threads > limits["max_threads_per_block"]:
            raise WorkloadFolderError(json_path, field, f"{shape}, above the {limits['max_threads_per_block']} a block can have: {which}")
        registers = block_registers(need["registers"], threads)
        if registers > limits["regs_per_block"]:
            raise WorkloadFolderError(json_path, field, f"{shape}; kernel {k.name} uses {need['registers']} registers a thread, "
                                      f"{registers} a block, above the {limits['regs_per_block']} a block can have (a smaller "
                                      f"block, or __launch_bounds__({threads}) so the compiler keeps to it): {which}")
        static, dynamic = need["static_shared"], k.shared_bytes
        total = static + dynamic
        field = f"{prefix}launch.shared_bytes"
        shared = f"{dynamic} bytes dynamic shared memory plus kernel {k.name}'s {static} static is {total} bytes a block"
        if total > limits["shared_per_block_optin"]:
            raise WorkloadFolderError(json_path, field, f"{shared}, above the {limits['shared_per_block_optin']} a block can have "
                                      f"even with the kernel's limit raised: {which}")
        if total > limits["shared_per_block"]:
            raise WorkloadFolderError(json_path, field, f"{shared}, above the {limits['shared_per_block']} a block has unless the "
                                      f"kernel's limit is raised, which the {LAYERS_WITHOUT_OPT_IN} layers do not do: at most "
                                      f"{max(0, limits['shared_per_block'] - static)} dynamic with this kernel; {which}")
