# expect: expected
# Divides by the wrong sum: the sum's loads fill the masked tail with other=0.0 instead of -inf, so every column past the row's end adds exp(0 - max) to the sum (and the max pass, with the same 0.0, lets 0 win where the row is all negative). Only a row whose width is a multiple of BLOCK (7x1024) comes out right; at 1x1 the one element gets 1 / (1 + 1023 exp(-max)) instead of 1.
import triton
import triton.language as tl


@triton.jit
def row_softmax(x, y, m, n, BLOCK: tl.constexpr = 1024):
    row = tl.program_id(0).to(tl.int64)
    lane_max = tl.full([BLOCK], -float("inf"), tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        lane_max = tl.maximum(lane_max, tl.load(x + row * n + cols, mask=cols < n, other=0.0))
    top = tl.max(lane_max, axis=0)
    lane_sum = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        lane_sum += tl.exp(tl.load(x + row * n + cols, mask=cols < n, other=0.0) - top)
    inverse = 1.0 / tl.sum(lane_sum, axis=0)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x + row * n + cols, mask=cols < n, other=0.0)
        tl.store(y + row * n + cols, tl.exp(v - top) * inverse, mask=cols < n)
