# Any workload folder's kernel (run --workload-dir) through cuda.core: the folder's kernels.cu
# compiled by Program (NVRTC) under its own path, one Buffer per buffer (exactly its bytes), the
# arguments in workload.json's order (lb_folder.py: Buffers, NumPy scalars of the parameter's type,
# m/n/k as np.int64) and one launch() on the harness's stream.
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
        self.kernel = setup.session.kernel(folder.name, folder.kernel_name, setup.cost, lb_folder.kernel_text(folder))
        shapes = lb_folder.shapes(folder, size)
        self.buffers = {b.name: allocate(int(np.prod(shapes[b.name])), self.stream, np.dtype(b.dtype).itemsize)
                        for b in folder.buffers}
        grid, block = lb_folder.launch_shape(folder, size, sm_count(), threads_per_sm())
        self.config = LaunchConfig(grid=grid, block=block, shmem_size=folder.shared_bytes)
        self.args = [value for _kind, value in lb_folder.arguments(folder, size, self.buffers)]

    def upload(self, problem, stream_handle):
        for name, host in (problem.inputs | problem.outputs).items():
            upload(host, self.buffers[name], self.stream)

    def run(self, stream_handle):
        launch(self.stream, self.config, self.kernel, *self.args)

    def download(self, outputs, stream_handle):
        for name, host in outputs.items():
            download(self.buffers[name], host, self.stream)
