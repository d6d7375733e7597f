# matmul through cuda.core: the grid (tiles, and splits of K along z) is a tuple in LaunchConfig.
import lb_shared
import lb_variant
import numpy as np
from _cuda_core_layer import allocate, download, sm_count, stream, upload
from cuda.core import LaunchConfig, launch


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.m, self.n, self.k = size.m, size.n, size.k
        self.stream = stream(setup.stream)
        self.kernel = setup.session.kernel("matmul", "matmul_tiled", setup.cost)
        self.a, self.b, self.c = (allocate(count, self.stream)
                                  for count in (self.m * self.k, self.k * self.n, self.m * self.n))
        self.config = LaunchConfig(grid=lb_shared.matmul_grid(self.m, self.n, self.k, sm_count()), block=lb_shared.MM_THREADS)

    def upload(self, problem, stream_handle):
        upload(problem.inputs[0], self.a, self.stream)
        upload(problem.inputs[1], self.b, self.stream)
        upload(problem.output, self.c, self.stream)

    def run(self, stream_handle):
        launch(self.stream, self.config, self.kernel, self.a, self.b, self.c,
               np.int32(self.m), np.int32(self.n), np.int32(self.k))

    def download(self, out, stream_handle):
        download(self.c, out, self.stream)
