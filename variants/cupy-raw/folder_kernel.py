# Any workload folder's kernels (run --workload-dir) through cp.RawModule: the folder's kernels.cu
# compiled by CuPy's NVRTC path, one CuPy array per buffer (its own dtype and shape), and per kernel
# of the sequence, in order, one RawKernel call on the harness's stream with the arguments in
# workload.json's order (lb_folder.py: arrays, NumPy scalars of the parameter's type, m/n/k as
# np.int64). A Python float for a `float` parameter
# would be packed as a double: the NumPy scalar's dtype is what makes the bytes right.
import cupy as cp
import lb_folder
import lb_variant
from _cupy_raw_layer import sm_count, threads_per_sm
from lb_cupy import to_device, to_host, wrap


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        folder = setup.workload
        self.stream = wrap(setup.stream)
        shapes = lb_folder.shapes(folder, size)
        self.buffers = {b.name: cp.empty(shapes[b.name], dtype=b.dtype) for b in folder.buffers}
        self.launches = []  # (kernel, grid, block, args, shared bytes) per kernel, in order
        for k in folder.kernels:
            kernel = setup.session.kernel(folder.name, k.name, setup.cost, lb_folder.kernel_text(folder))
            grid, block = lb_folder.launch_shape(k, size, sm_count(), threads_per_sm())
            args = tuple(value for _kind, value in lb_folder.arguments(folder, k, size, self.buffers))
            self.launches.append((kernel, grid, block, args, k.shared_bytes))

    def upload(self, problem, stream):
        for name, host in (problem.inputs | problem.outputs).items():
            to_device(host, self.buffers[name], self.stream)

    def run(self, stream):
        with self.stream:
            for kernel, grid, block, args, shared_bytes in self.launches:
                kernel(grid, block, args, shared_mem=shared_bytes)

    def download(self, outputs, stream):
        for name, host in outputs.items():
            to_host(self.buffers[name], host, self.stream)
