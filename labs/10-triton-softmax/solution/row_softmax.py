"""Lab 10 reference solution: a row softmax in Triton for rows of any width."""
import triton
import triton.language as tl


@triton.jit
def row_softmax(x, y, m, n, BLOCK: tl.constexpr = 1024):
    # One program per row (the launch's grid is m programs of 256 threads, num_warps 8). The row's
    # first element in 64 bits: row * n overflows 32 bits beyond 2^31 elements.
    row = tl.program_id(0).to(tl.int64)
    x_row = x + row * n
    y_row = y + row * n
    # First pass: an online max and sum over the row, a block of BLOCK columns at a time. Each of
    # the BLOCK lanes keeps its own running max and its sum of exp(x - that max); when a lane's max
    # grows, its sum is rescaled by exp(old - new). The masked tail loads -inf, whose exp is 0: it
    # adds nothing to the sum and never wins the max.
    lane_max = tl.full([BLOCK], -float("inf"), tl.float32)
    lane_sum = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_row + cols, mask=cols < n, other=-float("inf"))
        new_max = tl.maximum(lane_max, v)
        # A lane that has seen only -inf keeps a sum of 0 (exp(-inf - -inf) would be NaN).
        scale = tl.where(new_max == -float("inf"), 0.0, tl.exp(lane_max - new_max))
        lane_sum = lane_sum * scale + tl.where(new_max == -float("inf"), 0.0, tl.exp(v - new_max))
        lane_max = new_max
    # The lanes joined: the row's max, and every lane's sum brought to it.
    top = tl.max(lane_max, axis=0)
    total = tl.sum(tl.where(lane_max == -float("inf"), 0.0, lane_sum * tl.exp(lane_max - top)), axis=0)
    inverse = 1.0 / total
    # Second pass: the row again (from L2 for rows that fit it), normalised.
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n
        v = tl.load(x_row + cols, mask=mask, other=-float("inf"))
        tl.store(y_row + cols, tl.exp(v - top) * inverse, mask=mask)
