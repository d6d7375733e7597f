# reduce with @cuda.reduce: sum_reduce = cuda.reduce(add) is a whole reduction, its kernels sized
# by Numba: at most 64 blocks of 128 threads (one more for a remainder), then one block over the
# partial sums; up to three launches.
# res= writes the sum into a device array (copied there, not added to it); without res= the call
# copies the sum to the host, on the legacy default stream, and waits. Each call allocates its partial sums
# and drops them; Numba's periodic flush of dropped memory (cuMemFree) waits for the device, and
# the harness holds the stream while run() enqueues, so run() defers it (lb_numba.deferred_frees).
import lb_numba
import lb_variant
from _numba_vectorize_layer import first_call, sum_reduce


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.stream = lb_numba.stream(setup.stream)
        self.x, self.sum = lb_numba.device_array(size.n), lb_numba.device_array(1)
        lb_numba.zero(self.stream, self.x, self.sum)
        first_call("@cuda.reduce add", sum_reduce, lambda: self.run(setup.stream), setup.cost)

    def upload(self, problem, stream_handle):
        lb_numba.upload(problem.inputs[0], self.x, self.stream)
        lb_numba.upload(problem.output, self.sum, self.stream)

    def run(self, stream_handle):
        with lb_numba.deferred_frees():
            sum_reduce(self.x, res=self.sum, stream=self.stream)

    def download(self, out, stream_handle):
        lb_numba.download(self.sum, out, self.stream)
