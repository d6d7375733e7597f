# Any workload folder's kernels (run --workload-dir) through PyCUDA: the folder's kernels.cu
# compiled by SourceModule (nvcc; errors name the user's file through a #line), one mem_alloc per
# buffer (exactly its bytes), each kernel of the sequence prepared with each parameter's exact type
# ("P" a pointer, a scalar's NumPy dtype, np.int64 for m/n/k) in workload.json's order
# (lb_folder.py), launched in order by prepared_async_call behind the harness's stream (the layer's
# stream bridge).
import lb_folder
import lb_variant
import numpy as np
import pycuda.driver as cuda
from _pycuda_layer import pycuda_context, sm_count, threads_per_sm


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        folder = setup.workload
        shapes = lb_folder.shapes(folder, size)
        with pycuda_context():
            self.bridge = setup.session.bridge(setup.cost)
            self.buffers = {b.name: cuda.mem_alloc(int(np.prod(shapes[b.name])) * np.dtype(b.dtype).itemsize)
                            for b in folder.buffers}
            self.launches = []  # (function, grid, block, args, shared bytes) per kernel, in order
            for k in folder.kernels:
                bound = lb_folder.arguments(folder, k, size, self.buffers)
                types = ["P" if kind == "buffer" else value.dtype.type for kind, value in bound]
                function = setup.session.kernel(folder.name, k.name, types, setup.cost, lb_folder.kernel_text(folder))
                grid, block = lb_folder.launch_shape(k, size, sm_count(), threads_per_sm())
                args = tuple(int(value) if kind == "buffer" else value for kind, value in bound)
                self.launches.append((function, grid, block, args, k.shared_bytes))

    def upload(self, problem, stream):
        for name, host in (problem.inputs | problem.outputs).items():
            self.bridge.upload(host, self.buffers[name], stream)

    def run(self, stream):
        s = self.bridge.enter(stream)  # PyCUDA's stream, behind the harness's
        for function, grid, block, args, shared_bytes in self.launches:
            function.prepared_async_call(grid, block, s, *args, shared_size=shared_bytes)
        self.bridge.leave(stream)

    def download(self, outputs, stream):
        for name, host in outputs.items():
            self.bridge.download(self.buffers[name], host, stream)
