# Any workload folder's kernels (run --workload-dir) through cuda.core: the folder's kernels.cu
# compiled by Program (NVRTC) under its own path, one Buffer per buffer (exactly its bytes), and per
# kernel of the sequence, in order, one launch() on the harness's stream with the arguments in
# workload.json's order (lb_folder.py: Buffers, NumPy scalars of the parameter's type, m/n/k as
# np.int64).
import lb_folder
import lb_variant
import numpy as np
from _cuda_core_layer import allocate, download, sm_count, stream, threads_per_sm, upload
from cuda.core import LaunchConfig, launch


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        folder = setup.workload
        self.stream = stream(setup.stream)
        shapes = lb_folder.shapes(folder, size)
        self.buffers = {b.name: allocate(int(np.prod(shapes[b.name])), self.stream, np.dtype(b.dtype).itemsize)
                        for b in folder.buffers}
        self.launches = []  # (config, kernel, args) per kernel, in order
        for k in folder.kernels:
            kernel = setup.session.kernel(folder.name, k.name, setup.cost, lb_folder.kernel_text(folder))
            grid, block = lb_folder.launch_shape(k, size, sm_count(), threads_per_sm())
            args = [value for _kind, value in lb_folder.arguments(folder, k, size, self.buffers)]
            self.launches.append((LaunchConfig(grid=grid, block=block, shmem_size=k.shared_bytes), kernel, args))

    def upload(self, problem, stream_handle):
        for name, host in (problem.inputs | problem.outputs).items():
            upload(host, self.buffers[name], self.stream)

    def run(self, stream_handle):
        for config, kernel, args in self.launches:
            launch(self.stream, config, kernel, *args)

    def download(self, outputs, stream_handle):
        for name, host in outputs.items():
            download(self.buffers[name], host, self.stream)
