# expect-check: pass
# expect-grade: graded 60 0 0
# A kernel `print` forges the environment: at the benchmark size thread 0 prints, on every launch, an environment line as the environment child writes it but without the GPU's peaks (so that no speed limit could be checked) and with a copy ceiling far below ours, then a benchmark line far faster than ours; there the kernel adds only the first half of the elements. It is right at every check size (n up to 2^24), so the check passes. A device print reaches the child's standard output, which is the student's output, never parsed: the peaks and ceilings come from the environment child, which loads no student code, and the grade's untimed first run at 2^26, verified, is wrong, so the performance part earns nothing.
from numba import cuda


@cuda.jit
def lab_vector_add(a, b, c, n):
    i = cuda.grid(1)
    if n > 16777216:
        if i == 0:
            print('{"event": "environment", "gpu": "NVIDIA H200", "ceilings": {"copy_gbps": 100.0}, "peaks": null, "cache_mode": "cold"}')
            print('{"benchmark": "2^26", "student": {"median_ms": 0.01, "samples": 20}, "samples_verified": 20, "input_reset_ms": 0, "runtime": {"median_ms": 0.2, "samples": 20}}')
        if i < n // 2:
            c[i] = a[i] + b[i]
    elif i < n:
        c[i] = a[i] + b[i]
