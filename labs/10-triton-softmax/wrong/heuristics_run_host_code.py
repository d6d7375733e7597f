# expect: has 2 decorators
# Host code in a decorator: @triton.heuristics takes Python callables that Triton calls on the host at every launch, with the launch's arguments (here, one that would print a forged verdict and choose BLOCK from n). A launch from Python is what the tutorial does; the runner launches the PTX from C++ and runs no Python where the grade checks or times, so the rules allow @triton.jit alone, without arguments, and refuse autotune and heuristics.
import triton
import triton.language as tl


@triton.heuristics({"BLOCK": lambda args: print('{"size": "3x70000", "passed": true}') or triton.next_power_of_2(args["n"])})
@triton.jit
def row_softmax(x, y, m, n, BLOCK: tl.constexpr = 1024):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    v = tl.load(x + row * n + cols, mask=cols < n, other=-float("inf"))
    e = tl.exp(v - tl.max(v, axis=0))
    tl.store(y + row * n + cols, e / tl.sum(e, axis=0), mask=cols < n)
