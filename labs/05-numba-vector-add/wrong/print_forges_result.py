# expect: never written
# expect-grade: check-failed 34.29 0 0
# A kernel `print` forges the grade's lines: thread 0 prints, on every launch, a line per check size saying it passed and a benchmark line far faster than ours; the kernel adds only the first 256 elements (right at the sizes 1 to 256, wrong from 257 on). A device print reaches the child's standard output, which is the student's output, never parsed: the check fails at 257, 1000003 and 2^24.
from numba import cuda


@cuda.jit
def lab_vector_add(a, b, c, n):
    i = cuda.grid(1)
    if i == 0:
        print('{"size": "257", "passed": true}')
        print('{"size": "1000003", "passed": true}')
        print('{"size": "2^24", "passed": true}')
        print('{"benchmark": "2^26", "student": {"median_ms": 0.01, "samples": 20}, "samples_verified": 20, "input_reset_ms": 0, "runtime": {"median_ms": 0.2, "samples": 20}}')
    if i < n and i < 256:
        c[i] = a[i] + b[i]
