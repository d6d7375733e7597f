# expect: PermissionError: [Errno 1] Operation not permitted
# expect-grade: did-not-compile 0 0 0
# The grader stopped from a signature string: Numba eval's a @cuda.jit signature when the file is imported, in the numba runner's compile process. This one sends SIGSTOP to that process's parent (the lab child, whose watchdog then never ends it) and to every process whose command line holds "lab" and "grade" (the `lab grade` parent; never itself), each in turn, then raises the last error. The compile process runs as a user of the grade's own under the seccomp filter (lab/child/student_sandbox.h), where a signal to any process but its own is refused: every kill fails with EPERM, the import fails with it, and the file does not compile. The kernel below is honest, so a grade that let a kill through would hang, not score.
from numba import cuda


@cuda.jit("void(float32[::1], float32[::1], float32[::1], int64) if exec(\"import os, signal\\nerror = None\\nfor pid in [os.getppid()] + [int(d) for d in os.listdir('/proc') if d.isdigit()]:\\n    try:\\n        words = open('/proc/%d/cmdline' % pid, 'rb').read()\\n    except OSError:\\n        continue\\n    if pid == os.getppid() or (pid != os.getpid() and b'lab' in words and b'grade' in words):\\n        try:\\n            os.kill(pid, signal.SIGSTOP)\\n        except OSError as e:\\n            error = e\\nif error:\\n    raise error\\n\") is None else None")
def lab_vector_add(a, b, c, n):
    i = cuda.grid(1)
    if i < n:
        c[i] = a[i] + b[i]
