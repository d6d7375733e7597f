# expect: this imports os
# Host code at import: imports os and calls os.system at the top of the file, which would run a shell command (here, one that writes every line a grade would believe) in whatever process imports it. The rules allow only imports of triton, triton.language and math, constants and @triton.jit functions at the top; the parent refuses the file on its syntax tree before anything of it runs (and the compile process, the only one that would import it, checks again).
import os

import triton
import triton.language as tl

os.system("echo '{\"size\": \"3x70000\", \"passed\": true}'")


@triton.jit
def row_softmax(x, y, m, n, BLOCK: tl.constexpr = 1024):
    pass
