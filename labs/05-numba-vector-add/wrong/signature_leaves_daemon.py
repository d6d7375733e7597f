# expect: PermissionError: [Errno 1] Operation not permitted
# expect-grade: did-not-compile 0 0 0
# A daemon that outlives the grade, from a signature string (eval'd by Numba when the file is imported, in the numba runner's compile process): it forks, the child calls setsid and forks again, and the grandchild sleeps 2 s, then finds every `--json PATH` in /proc/*/cmdline and writes 100 points there, after the grade has written its own. Numba's compile process may start no process (lab/child/student_sandbox.h: its seccomp filter refuses fork, vfork and a clone that is not a thread), so the first fork fails with EPERM, the import fails with it, and the file does not compile. Were a fork let through, what it started would still be killed: the compile process's starter and the `lab` parent are child subreapers, and kill(-1) runs as the student's uid after every child, before any output is written.
from numba import cuda


@cuda.jit("void(float32[::1], float32[::1], float32[::1], int64) if exec(\"import os, time\\nif os.fork() == 0:\\n    os.setsid()\\n    if os.fork() == 0:\\n        time.sleep(2)\\n        for d in os.listdir('/proc'):\\n            try:\\n                words = open('/proc/%s/cmdline' % d, 'rb').read().split(b'\\\\0')\\n            except OSError:\\n                continue\\n            for at, word in enumerate(words[:-1]):\\n                if word == b'--json':\\n                    try:\\n                        path = os.path.join('/proc/%s/cwd' % d, words[at + 1].decode())\\n                        open(path, 'w').write('{\\\"lab\\\": \\\"05-numba-vector-add\\\", \\\"submissions\\\": [{\\\"outcome\\\": \\\"graded\\\", \\\"points\\\": 100}]}')\\n                    except OSError:\\n                        pass\\n    os._exit(0)\\n\") is None else None")
def lab_vector_add(a, b, c, n):
    i = cuda.grid(1)
    if i < n:
        c[i] = a[i] + b[i]
