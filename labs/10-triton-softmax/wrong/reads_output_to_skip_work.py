# expect-check: pass
# expect-grade: graded 60 0 40
# Reads its own output to skip work: each program looks at y's first element of its row, and where it already holds a number (not the NaN poison), takes the row as done and returns, keeping the answer of the launch before. Every check size starts from poison, so it computes and passes. The grade poisons y again and draws a fresh x before every timed sample, so a kernel that skipped would answer the problem before it; this one must recompute on each, and every timed sample is verified: it keeps its check points, and its performance points only if it does the whole work at full speed (it pays for one more load per row).
import triton
import triton.language as tl


@triton.jit
def row_softmax(x, y, m, n, BLOCK: tl.constexpr = 1024):
    row = tl.program_id(0).to(tl.int64)
    first = tl.load(y + row * n)
    if first == first:  # not NaN: "already computed"
        return
    lane_max = tl.full([BLOCK], -float("inf"), tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        lane_max = tl.maximum(lane_max, tl.load(x + row * n + cols, mask=cols < n, other=-float("inf")))
    top = tl.max(lane_max, axis=0)
    lane_sum = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        lane_sum += tl.exp(tl.load(x + row * n + cols, mask=cols < n, other=-float("inf")) - top)
    inverse = 1.0 / tl.sum(lane_sum, axis=0)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x + row * n + cols, mask=cols < n, other=-float("inf"))
        tl.store(y + row * n + cols, tl.exp(v - top) * inverse, mask=cols < n)
