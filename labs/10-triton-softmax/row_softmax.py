"""Lab 10: a row softmax in Triton, y[r, c] = exp(x[r, c] - max_r) / sum_c exp(x[r, c] - max_r).

You write GPU code only: the @triton.jit function below. The runner compiles row_softmax with
Triton for the lab's argument types (x and y pointers to float32, m and n int64) and launches it
on a grid of m programs, one per row, each of num_warps = 8 warps (256 threads: the workload's
block). BLOCK, a tl.constexpr with a default, is the compile-time width of one block of columns;
the runner compiles with the default you give. Replace every #@@ line with code. As given, the
kernel writes nothing, and the check fails.

The rules: this file may hold imports of triton, triton.language and math, constants (BLOCK = 1024)
and functions decorated with @triton.jit (no arguments, no autotune), nothing else. No NumPy, no
torch, no host code, no calls at the top.
"""
import triton
import triton.language as tl


@triton.jit
def row_softmax(x, y, m, n, BLOCK: tl.constexpr = 1024):
    #@@ This program's row: tl.program_id(0), as int64 (row * n can pass 2^31).

    #@@ A row can be wider than BLOCK (the check has rows of 70000): loop over it a block at a time,
    #@@ for start in range(0, n, BLOCK), with cols = start + tl.arange(0, BLOCK).
    #@@ The last block runs past the row's end: load with mask=cols < n and an `other` that
    #@@ changes neither the max nor the sum (-inf: exp(-inf) is 0).
    #@@ Keep a running max and a running sum of exp(x - max) (rescale the sum when the max grows),
    #@@ or take two passes: the max first, then the sum.

    #@@ Then loop again: store exp(x - max) / sum into y, with the same mask.
    pass
