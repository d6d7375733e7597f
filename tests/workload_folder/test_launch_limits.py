"""What a launch needs, checked before it runs (P30 items 3 and 5): the folders in launch_folders/
each hold one mistake (or none), and `workload_folder.py DIR` (the reader alone), `layerbench list
--workload-dir` and `layerbench run --workload-dir` (the binary, $LAYERBENCH_BINARY, without a GPU)
say the same one line and exit 2 for each mistake, naming the launch field, the kernel, the figure
and the limit, and whose limits they are (sm_90's here: no GPU is visible to these commands). A
folder within every limit, with __launch_bounds__, dynamic shared memory and its types through
#define, is accepted."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES, edit

FOLDERS = Path(__file__).resolve().parent / "launch_folders"
READER = Path(__file__).resolve().parents[2] / "workloads" / "folder" / "workload_folder.py"
NO_GPU = "the limits of sm_90 (no GPU found)"

# folder -> (the launch field, what the line must say)
REFUSED = {
    "above_launch_bounds": ("launch.block", "[256] is 256 threads; kernel saxpy_inout is declared __launch_bounds__(128) "
                                            "in kernels.cu: at most 128 a block"),
    "too_much_shared": ("launch.shared_bytes", "200000 bytes dynamic shared memory plus kernel saxpy_inout's 49152 static is "
                                               f"249152 bytes a block, above the 232448 a block can have even with the "
                                               f"kernel's limit raised: {NO_GPU}"),
    "dynamic_above_48k": ("launch.shared_bytes", "40000 bytes dynamic shared memory plus kernel saxpy_inout's 16384 static "
                                                 "is 56384 bytes a block, above the 49152 a block has unless the kernel's "
                                                 "limit is raised, which the cupy-raw, cuda-bindings, cuda-core and pycuda "
                                                 f"layers do not do: at most 32768 dynamic with this kernel; {NO_GPU}"),
    "too_many_registers": ("launch.block", "[1024] is 1024 threads; kernel saxpy_inout uses "),
}
ACCEPTED = ["within_limits", "typed_through_define"]


def nvrtc_here() -> str:
    try:
        import cuda.bindings.nvrtc  # noqa: F401
    except ImportError as e:
        return f"cuda.bindings does not import here ({e})"
    return ""


def reader(folder):
    return subprocess.run([sys.executable, str(READER), str(folder)], capture_output=True, text=True, timeout=300)


def assert_one_line(r, folder, field, words):
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert f"{folder / 'workload.json'}: {field}: {words}" in lines[0], lines[0]


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_the_reader_refuses_a_launch_that_would_fail(name):
    if why := nvrtc_here():
        pytest.skip(why)
    field, words = REFUSED[name]
    assert_one_line(reader(FOLDERS / name), FOLDERS / name, field, words)


def test_the_register_line_names_the_figures():
    if why := nvrtc_here():
        pytest.skip(why)
    r = reader(FOLDERS / "too_many_registers")
    line = r.stderr
    # the count is ptxas's (112 for sm_90 with CUDA 13's); whatever it is, it is above 64 a thread
    import re
    match = re.search(r"uses (\d+) registers a thread, (\d+) a block, above the 65536 a block can have "
                      r"\(a smaller block, or __launch_bounds__\(1024\) so the compiler keeps to it\): "
                      + re.escape(NO_GPU), line)
    assert match and int(match.group(1)) > 64 and int(match.group(2)) > 65536, (r.returncode, r.stdout, line)


@pytest.mark.parametrize("name", ACCEPTED)
def test_the_reader_accepts_a_launch_within_the_limits(name):
    if why := nvrtc_here():
        pytest.skip(why)
    r = reader(FOLDERS / name)
    assert r.returncode == 0, r.stderr
    assert name in r.stdout


def test_a_kernel_of_a_sequence_is_named_by_its_index(tmp_path):
    if why := nvrtc_here():
        pytest.skip(why)
    folder = tmp_path / "softmax_passes"
    shutil.copytree(EXAMPLES / "softmax_passes", folder, ignore=shutil.ignore_patterns("__pycache__"))
    edit(folder / "workload.json", '"arguments": ["x", "row_max", "row_sum", "m", "n"], "launch": {"block": [256]',
         '"arguments": ["x", "row_max", "row_sum", "m", "n"], "launch": {"block": [512]')
    assert_one_line(reader(folder), folder, "kernels[1].launch.block",
                    "[512] is 512 threads; kernel row_sum_pass is declared __launch_bounds__(256) in kernels.cu")


def test_static_shared_memory_above_48k_is_ptxas_s_error(tmp_path):
    """Above 48 KiB of static shared memory ptxas refuses the kernel: the compile for sm_90 says so,
    naming kernels.cu, where the compile to PTX alone passed it to fail at run."""
    if why := nvrtc_here():
        pytest.skip(why)
    folder = tmp_path / "big_static"
    shutil.copytree(FOLDERS / "too_much_shared", folder)
    edit(folder / "kernels.cu", "__shared__ float tile[12288];", "__shared__ float tile[16384];")
    r = reader(folder)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert (f"{folder / 'kernels.cu'}: does not compile for sm_90 (NVRTC's ptxas): Entry function 'saxpy_inout' uses "
            "too much shared data (0x10000 bytes, 0xc000 max)") in r.stderr


def test_a_gpus_limits_are_named(tmp_path):
    """With a GPU, the harness passes its limits (app/folder_checks.cpp); here, a smaller GPU's, as
    cudaGetDeviceProperties gives them for an sm_86 card (99 KiB a block with the opt-in)."""
    if why := nvrtc_here():
        pytest.skip(why)
    import dataclasses

    from workload_folder import WorkloadFolderError, load
    from workload_launch import check_launches
    w = load(FOLDERS / "within_limits")
    good = w.kernels[0]
    w.kernels[0] = dataclasses.replace(good, shared_bytes=100000)
    limits = {"name": "NVIDIA A10", "arch": "sm_86", "max_threads_per_block": 1024, "regs_per_block": 65536,
              "shared_per_block": 49152, "shared_per_block_optin": 101376}
    with pytest.raises(WorkloadFolderError, match=r"launch\.shared_bytes: 100000 bytes dynamic shared memory plus kernel "
                       r"saxpy_inout's 4096 static is 104096 bytes a block, above the 101376 a block can have even with "
                       r"the kernel's limit raised: the limits of the NVIDIA A10 \(sm_86\) found here"):
        check_launches(w, limits)
    w.kernels[0] = good
    check_launches(w, limits)


# --- #define'd parameter types ---------------------------------------------------------------------

def test_a_type_through_a_define_is_expanded():
    from workload_kernel import kernel_parameters
    text = ('#define T float\n#define P T*\n#undef Q\n'
            'extern "C" __global__ void k(T a, const P __restrict__ x, P y, long long n) {}\n')
    assert kernel_parameters(text, "k", Path("kernels.cu")) == (
        4, [("float", "a"), ("const float* __restrict__", "x"), ("float*", "y"), ("long long", "n")])


def test_a_define_after_the_kernel_or_in_a_dropped_block_is_not_its_type():
    from workload_kernel import kernel_parameters
    text = '#if 0\n#define T float\n#endif\nextern "C" __global__ void k(T a) {}\n#define T float\n'
    assert kernel_parameters(text, "k", Path("kernels.cu"))[1] == [("T", "a")]


@pytest.mark.parametrize("define, words", [
    ("#if __CUDA_ARCH__ >= 800\n#define T float\n#endif\n",
     "kernel k parameter a: is typed through macro T, whose #define depends on a condition the signature reader "
     "cannot evaluate"),
    ("#define T(x) float\n", "kernel k parameter a: is typed through the function-like macro T(...)"),
])
def test_a_type_the_reader_cannot_expand_is_refused_saying_why(define, words):
    from workload_folder import WorkloadFolderError
    from workload_kernel import kernel_parameters
    with pytest.raises(WorkloadFolderError, match=r"kernels\.cu:\d+: " + words.replace("(", r"\(").replace(")", r"\)")
                       .replace(".", r"\.")):
        kernel_parameters(define + 'extern "C" __global__ void k(T a) {}\n', "k", Path("kernels.cu"))


# --- the binary: list and run ----------------------------------------------------------------------

BINARY = os.environ.get("LAYERBENCH_BINARY", "")


def layerbench(*args):
    if not BINARY or not os.access(BINARY, os.X_OK):
        pytest.skip("no layerbench binary ($LAYERBENCH_BINARY: ctest sets it)")
    if "Python layers: embedded Python" not in subprocess.run([BINARY, "list"], capture_output=True, text=True).stdout:
        pytest.skip("this build has no embedded Python")
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=300,
                          env=os.environ | {"CUDA_VISIBLE_DEVICES": ""})


@pytest.mark.parametrize("command", ["list", "run"])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_list_and_run_refuse_a_launch_that_would_fail(name, command, tmp_path):
    field, words = REFUSED[name]
    out = tmp_path / "out.json"
    r = layerbench(command, "--workload-dir", str(FOLDERS / name), *(["-o", str(out)] if command == "run" else []))
    assert_one_line(r, FOLDERS / name, field, words)
    assert r.stdout == "" and not out.exists()


@pytest.mark.parametrize("name", ACCEPTED)
def test_list_accepts_a_launch_within_the_limits(name):
    r = layerbench("list", "--workload-dir", str(FOLDERS / name))
    assert r.returncode == 0, r.stderr
    assert f"{name} " in r.stdout
