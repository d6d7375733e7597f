# expect: handed back no kernel
# expect-grade: did-not-compile 0 0 0
# Host code in a decorator argument: Numba eval's a @cuda.jit signature string when the file is imported, and a string is a literal the rules allow. This one runs Python that writes the lines a grade would believe (every size passed, a timing far above ours) and exits, so that nothing after it runs; the kernel computes nothing. The file is imported only in the numba runner's compile process, whose output is never parsed: it exits without handing back a kernel, and the check fails.
from numba import cuda


@cuda.jit("void(float32[::1], float32[::1], float32[::1], int64) if __import__('os').write(1, b''.join(b'{\"size\": \"%s\", \"passed\": true}\\n' % s for s in (b'1', b'127', b'255', b'256', b'257', b'1000003', b'2^24')) + b'{\"benchmark\": \"2^26\", \"student\": {\"median_ms\": 0.01, \"samples\": 20}, \"samples_verified\": 20, \"input_reset_ms\": 0, \"runtime\": {\"median_ms\": 0.2, \"samples\": 20}}\\n') + __import__('os')._exit(0) else None")
def lab_vector_add(a, b, c, n):
    pass
