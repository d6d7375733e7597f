# expect: expected
# Triton's fused-softmax tutorial as it stands: the whole row in one block of BLOCK = 16384 columns, no loop. The tutorial's host code picks BLOCK = next_power_of_2(n) and refuses wider rows; here there is no host code (the runner compiles the kernel once, with the default), so a row of 70000 is computed from its first 16384 elements only: those are divided by the wrong sum and the rest are never written. Right at every check size up to 257x4096, wrong at 3x70000.
import triton
import triton.language as tl


@triton.jit
def row_softmax(x, y, m, n, BLOCK: tl.constexpr = 16384):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    v = tl.load(x + row * n + cols, mask=mask, other=-float("inf"))
    e = tl.exp(v - tl.max(v, axis=0))
    tl.store(y + row * n + cols, e / tl.sum(e, axis=0), mask=mask)
