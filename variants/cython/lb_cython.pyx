# cython: language_level=3
"""lb_cython: our CUDA C++ launchers (launchers.h, over the runtime layer's nvcc-built kernels)
wrapped for Python with Cython, as a project wraps its existing CUDA code.

- DeviceBuffer: cudaMalloc'd floats, cudaFree'd when the object goes; upload()/download() copy
  with cudaMemcpyAsync on the given stream, then wait for that stream.
- One function per launcher (vector_add, saxpy, reduce, matmul, transpose, launch_probe) and
  stream_synchronize: the stream is the harness's cudaStream_t as a Python int.
- Every CUDA return code is checked: cudaErrorMemoryAllocation raises MemoryError (the harness
  skips the case), any other error RuntimeError naming the call and CUDA's text.

Importing this module makes no CUDA call (it imports on a machine without a GPU): the first one is
the first DeviceBuffer, reduce_blocks() or runtime_version(). The CUDA runtime is the process's
shared libcudart, the one layerbench itself calls, so the device current on the harness's thread
and its primary context are the ones every launch here uses."""
cimport cython
from libc.stdint cimport uintptr_t


cdef extern from "cuda_runtime_api.h" nogil:
    ctypedef enum cudaError_t:
        cudaSuccess
        cudaErrorMemoryAllocation
    ctypedef enum cudaMemcpyKind:
        cudaMemcpyHostToDevice
        cudaMemcpyDeviceToHost
    ctypedef void* cudaStream_t  # struct CUstream_st* in C; the generated code names cudaStream_t

    cudaError_t cudaMalloc(void** ptr, size_t size)
    cudaError_t cudaFree(void* ptr)
    cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream)
    cudaError_t cudaStreamSynchronize(cudaStream_t stream)
    cudaError_t cudaGetLastError()
    cudaError_t cudaRuntimeGetVersion(int* version)
    const char* cudaGetErrorString(cudaError_t error)
    const char* cudaGetErrorName(cudaError_t error)


cdef extern from "variants/cython/launchers.h" nogil:
    cudaError_t lb_cython_reduce_blocks(long long n, unsigned* blocks)
    cudaError_t lb_cython_vector_add(const float* a, const float* b, float* c, long long n, cudaStream_t stream)
    cudaError_t lb_cython_saxpy(float alpha, const float* x, float* y, long long n, cudaStream_t stream)
    cudaError_t lb_cython_reduce(const float* x, long long n, float* partials, unsigned blocks, float* sum,
                                 cudaStream_t stream)
    cudaError_t lb_cython_matmul(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream)
    cudaError_t lb_cython_transpose(const float* a, float* b, int m, int n, cudaStream_t stream)
    cudaError_t lb_cython_launch_probe(float* out, float value, cudaStream_t stream)
    const char* lb_cython_cudart_path()


cdef int check(cudaError_t status, str call) except -1:
    """Raises for a CUDA error: MemoryError for an allocation that did not fit, else RuntimeError
    "<call>: <CUDA's text> (<error name>)". A non-sticky error is cleared first, as the C++ layers'
    LB_CUDA_CHECK does, so that the next case starts clean."""
    if status == cudaSuccess:
        return 0
    cudaGetLastError()
    message = f"{call}: {cudaGetErrorString(status).decode()} ({cudaGetErrorName(status).decode()})"
    if status == cudaErrorMemoryAllocation:
        raise MemoryError(message)
    raise RuntimeError(message)


cdef inline cudaStream_t as_stream(uintptr_t handle) noexcept nogil:
    return <cudaStream_t>handle


cdef class DeviceBuffer:
    """`count` floats of device memory (none for count 0), freed with the object."""
    cdef float* ptr
    cdef readonly Py_ssize_t size

    def __cinit__(self, Py_ssize_t count):
        if count < 0:
            raise ValueError(f"DeviceBuffer: count {count} < 0")
        self.ptr = NULL
        self.size = count
        if count > 0:
            check(cudaMalloc(<void**>&self.ptr, <size_t>count * sizeof(float)), f"cudaMalloc({count} floats)")

    def __dealloc__(self):
        if self.ptr != NULL:
            cudaFree(self.ptr)  # nothing can be raised from here; cudaFree waits for the device
            self.ptr = NULL

    @cython.boundscheck(False)  # &host[0] is taken only when host is not empty
    def upload(self, const float[::1] host, uintptr_t stream):
        """host -> device on `stream`, done when this returns (as the C++ layers' copy_and_wait)."""
        cdef size_t count = host.shape[0]
        if count > <size_t>self.size:
            raise ValueError(f"upload: {count} floats into a DeviceBuffer of {self.size}")
        cdef cudaError_t status = cudaSuccess
        cdef const char* call = "cudaMemcpyAsync"
        with nogil:
            if count:
                status = cudaMemcpyAsync(self.ptr, &host[0], count * sizeof(float), cudaMemcpyHostToDevice,
                                         as_stream(stream))
            if status == cudaSuccess:
                call = "cudaStreamSynchronize"
                status = cudaStreamSynchronize(as_stream(stream))
        check(status, f"upload: {call.decode()}")

    @cython.boundscheck(False)
    def download(self, float[::1] host, uintptr_t stream):
        """device -> host on `stream`, after the work enqueued before it; done when this returns."""
        cdef size_t count = host.shape[0]
        if count > <size_t>self.size:
            raise ValueError(f"download: {count} floats from a DeviceBuffer of {self.size}")
        cdef cudaError_t status = cudaSuccess
        cdef const char* call = "cudaMemcpyAsync"
        with nogil:
            if count:
                status = cudaMemcpyAsync(&host[0], self.ptr, count * sizeof(float), cudaMemcpyDeviceToHost,
                                         as_stream(stream))
            if status == cudaSuccess:
                call = "cudaStreamSynchronize"
                status = cudaStreamSynchronize(as_stream(stream))
        check(status, f"download: {call.decode()}")


cdef int fits(DeviceBuffer buffer, long long count, str what) except -1:
    if count < 0 or buffer.size < count:
        raise ValueError(f"{what}: needs {count} floats, the DeviceBuffer holds {buffer.size}")
    return 0


def reduce_blocks(long long n):
    """Blocks of reduce's first launch for n floats on the current device (the runtime layer's grid)."""
    cdef unsigned blocks = 0
    check(lb_cython_reduce_blocks(n, &blocks), "reduce_blocks (cudaGetDevice, cudaDeviceGetAttribute)")
    return blocks


def vector_add(DeviceBuffer a not None, DeviceBuffer b not None, DeviceBuffer c not None, long long n,
               uintptr_t stream):
    """c = a + b over n floats, enqueued on `stream`."""
    fits(a, n, "vector_add a"); fits(b, n, "vector_add b"); fits(c, n, "vector_add c")
    check(lb_cython_vector_add(a.ptr, b.ptr, c.ptr, n, as_stream(stream)), "vector_add launch")


def saxpy(float alpha, DeviceBuffer x not None, DeviceBuffer y not None, long long n, uintptr_t stream):
    """y = alpha*x + y over n floats, enqueued on `stream`."""
    fits(x, n, "saxpy x"); fits(y, n, "saxpy y")
    check(lb_cython_saxpy(alpha, x.ptr, y.ptr, n, as_stream(stream)), "saxpy launch")


def reduce(DeviceBuffer x not None, long long n, DeviceBuffer partials not None, unsigned blocks,
           DeviceBuffer total not None, uintptr_t stream):
    """total[0] = sum of x's n floats: reduce_sum over `blocks` blocks, one partial sum each in
    partials, which its last block adds; enqueued on `stream`."""
    fits(x, n, "reduce x"); fits(partials, blocks, "reduce partials"); fits(total, 1, "reduce total")
    check(lb_cython_reduce(x.ptr, n, partials.ptr, blocks, total.ptr, as_stream(stream)), "reduce launch")


def matmul(DeviceBuffer a not None, DeviceBuffer b not None, DeviceBuffer c not None, int m, int n, int k,
           uintptr_t stream):
    """C (m x n) = A (m x k) * B (k x n), row-major, enqueued on `stream`."""
    fits(a, <long long>m * k, "matmul A"); fits(b, <long long>k * n, "matmul B"); fits(c, <long long>m * n, "matmul C")
    check(lb_cython_matmul(a.ptr, b.ptr, c.ptr, m, n, k, as_stream(stream)), "matmul launch")


def transpose(DeviceBuffer a not None, DeviceBuffer b not None, int m, int n, uintptr_t stream):
    """B (n x m) = A (m x n) transposed, row-major, enqueued on `stream`."""
    fits(a, <long long>m * n, "transpose A"); fits(b, <long long>n * m, "transpose B")
    check(lb_cython_transpose(a.ptr, b.ptr, m, n, as_stream(stream)), "transpose launch")


def launch_probe(DeviceBuffer out not None, float value, uintptr_t stream):
    """One <<<1, 1>>> launch of launch_probe, writing `value` to out[0], enqueued on `stream`."""
    if out.size < 1:
        raise ValueError("launch_probe: out is empty")
    check(lb_cython_launch_probe(out.ptr, value, as_stream(stream)), "launch_probe launch")


def stream_synchronize(uintptr_t stream):
    """cudaStreamSynchronize(stream), without holding the GIL while it waits."""
    cdef cudaError_t status
    with nogil:
        status = cudaStreamSynchronize(as_stream(stream))
    check(status, "cudaStreamSynchronize")


def runtime_version():
    """cudaRuntimeGetVersion: the CUDA runtime this module calls, e.g. 13000 (no GPU needed)."""
    cdef int version = 0
    check(cudaRuntimeGetVersion(&version), "cudaRuntimeGetVersion")
    return version


def cudart_path():
    """The file of that CUDA runtime (the process's libcudart.so), or "" where it cannot be told."""
    return lb_cython_cudart_path().decode()
