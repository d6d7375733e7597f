"""What the kernel-text layers' variants of a workload folder share (variants/<layer>/
folder_kernel.py, `run --workload-dir`): the folder's kernel text, and for each kernel of its
sequence (folder.kernels, launched in order: one kernel, or several timed together) the launch shape
and the arguments bound in workload.json's order. Each layer then compiles, allocates and launches
its own way; the shape and the binding are said once, here, as the C++ driver layer says them
(workloads/folder/folder_workload.h, variants/driver/workload_folder.cpp).

`folder` is the WorkloadFolder (workloads/folder/workload_folder.py) the harness hands allocate()
as setup.workload."""
from __future__ import annotations

import lb_shared
import numpy as np


def kernel_text(folder) -> lb_shared.KernelText:
    """The folder's kernels.cu, under its own path (a compile error names the user's file)."""
    return lb_shared.KernelText(folder.name, folder.kernel_text, str((folder.path / "kernels.cu").resolve()))


def size_of(size) -> dict:
    """An lb_variant.Size as the folder's formulas take it."""
    return {"m": size.m, "n": size.n, "k": size.k}


def shapes(folder, size) -> dict[str, tuple[int, ...]]:
    """Each buffer's shape at `size`, by name."""
    s = size_of(size)
    return {b.name: b.shape(s) for b in folder.buffers}


def launch_shape(kernel, size, sm_count: int, threads_per_sm: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(grid, block) of one kernel of the sequence (a FolderKernel), each x, y, z. A grid-stride
    kernel gets as many blocks as the device holds threads for at once (grid_stride_blocks in
    folder_workload.h); else its grid formulas."""
    block = tuple(kernel.block) + (1,) * (3 - len(kernel.block))
    if kernel.grid is None:
        threads = block[0] * block[1] * block[2]
        return (sm_count * max(1, threads_per_sm // threads), 1, 1), block
    grid = kernel.grid_blocks(size_of(size))
    return tuple(grid) + (1,) * (3 - len(grid)), block


def arguments(folder, kernel, size, buffers: dict) -> list[tuple[str, object]]:
    """One kernel's arguments in order, each (kind, value): ("buffer", buffers[name]: the layer's
    device buffer), ("scalar", a NumPy scalar of the parameter's type) or ("size", np.int64: m, n,
    k are long long). A layer turns each into what its launch call takes."""
    scalars = {s.name: s for s in folder.scalars}
    bound = []
    for a in kernel.arguments:
        if a.kind == "scalar":
            bound.append(("scalar", scalars[a.name].typed))
        elif a.kind == "size":
            bound.append(("size", np.int64(getattr(size, a.name))))
        else:
            bound.append(("buffer", buffers[a.name]))
    return bound
