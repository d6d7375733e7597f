# expect: never written
# expect-grade: check-failed 30 0 0
# A Triton print forges the grade's lines: tl.static_print writes, while Triton compiles the kernel, a line per check size saying it passed and a benchmark line far faster than ours, and tl.device_print repeats one from every program on every launch. It computes one block of each row only (BLOCK = 1024, no loop), right at 1x1, 7x1024 and 1000x999, and leaves the rest of a wider row unwritten. The compile-time print reaches the compile process's output and the device print the child's standard output: both are the student's output, shown capped and never parsed, so the check fails at 2x1025, 257x4096 and 3x70000.
import triton
import triton.language as tl


@triton.jit
def row_softmax(x, y, m, n, BLOCK: tl.constexpr = 1024):
    tl.static_print('{"size": "2x1025", "passed": true}')
    tl.static_print('{"size": "257x4096", "passed": true}')
    tl.static_print('{"size": "3x70000", "passed": true}')
    tl.static_print('{"benchmark": "16384x1024", "student": {"median_ms": 0.01, "samples": 20}, "samples_verified": 20}')
    row = tl.program_id(0).to(tl.int64)
    tl.device_print('{"size": "3x70000", "passed": true} ', row)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    v = tl.load(x + row * n + cols, mask=mask, other=-float("inf"))
    e = tl.exp(v - tl.max(v, axis=0))
    tl.store(y + row * n + cols, e / tl.sum(e, axis=0), mask=mask)
