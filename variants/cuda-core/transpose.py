# transpose through cuda.core: a 2-D grid and a 2-D block are tuples in LaunchConfig; M and N are
# np.int32, the kernel's `int`.
import lb_shared
import lb_variant
import numpy as np
from _cuda_core_layer import allocate, download, stream, upload
from cuda.core import LaunchConfig, launch


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.m, self.n = size.m, size.n
        self.stream = stream(setup.stream)
        self.kernel = setup.session.kernel("transpose", "transpose", setup.cost)
        self.a, self.b = (allocate(self.m * self.n, self.stream) for _ in range(2))
        self.config = LaunchConfig(grid=lb_shared.transpose_grid(self.m, self.n), block=lb_shared.transpose_block())

    def upload(self, problem, stream_handle):
        upload(problem.inputs[0], self.a, self.stream)
        upload(problem.output, self.b, self.stream)

    def run(self, stream_handle):
        launch(self.stream, self.config, self.kernel, self.a, self.b, np.int32(self.m), np.int32(self.n))

    def download(self, out, stream_handle):
        download(self.b, out, self.stream)
