# expect: past the end
# An off-by-one tail mask: `cols <= n` lets each row's last block load and store one column past the row's end. Row r writes y[(r + 1) * n], the next row's first element (a race with that row's own program), and the last row writes one float past the end of y, into the runner's guard zone, which the check reports at every size whose width is not a multiple of BLOCK (at 7x1024 and 257x4096 no block reaches past the row, and those pass).
import triton
import triton.language as tl


@triton.jit
def row_softmax(x, y, m, n, BLOCK: tl.constexpr = 1024):
    row = tl.program_id(0).to(tl.int64)
    lane_max = tl.full([BLOCK], -float("inf"), tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        lane_max = tl.maximum(lane_max, tl.load(x + row * n + cols, mask=cols <= n, other=-float("inf")))
    top = tl.max(lane_max, axis=0)
    lane_sum = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        lane_sum += tl.exp(tl.load(x + row * n + cols, mask=cols <= n, other=-float("inf")) - top)
    inverse = 1.0 / tl.sum(lane_sum, axis=0)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x + row * n + cols, mask=cols <= n, other=-float("inf"))
        tl.store(y + row * n + cols, tl.exp(v - top) * inverse, mask=cols <= n)
