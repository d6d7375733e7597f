# reduce through cuda.core: one Kernel, reduce_sum, whose last block adds the partial sums, with
# the runtime layer's grid.
import lb_shared
import lb_variant
import numpy as np
from _cuda_core_layer import allocate, download, sm_count, stream, upload
from cuda.core import LaunchConfig, launch


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.stream = stream(setup.stream)
        self.kernel = setup.session.kernel("reduce", "reduce_sum", setup.cost)
        self.blocks = lb_shared.grid_stride_blocks(self.n // 4, sm_count())
        self.x, self.partials, self.sum = (allocate(count, self.stream) for count in (self.n, self.blocks, 1))

    def upload(self, problem, stream_handle):
        upload(problem.inputs[0], self.x, self.stream)
        upload(problem.output, self.sum, self.stream)

    def run(self, stream_handle):
        launch(self.stream, LaunchConfig(grid=self.blocks, block=lb_shared.BLOCK), self.kernel,
               self.x, np.int64(self.n), self.partials, self.sum)

    def download(self, out, stream_handle):
        download(self.sum, out, self.stream)
