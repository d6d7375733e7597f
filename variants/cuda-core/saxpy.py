# saxpy through cuda.core: alpha goes as np.float32, the kernel's `float alpha`.
import lb_shared
import lb_variant
import numpy as np
from _cuda_core_layer import allocate, download, stream, upload
from cuda.core import LaunchConfig, launch


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.stream = stream(setup.stream)
        self.kernel = setup.session.kernel("saxpy", "saxpy", setup.cost)
        self.x, self.y = (allocate(self.n, self.stream) for _ in range(2))
        self.config = LaunchConfig(grid=lb_shared.flat_blocks(self.n), block=lb_shared.BLOCK)

    def upload(self, problem, stream_handle):
        self.alpha = np.float32(problem.alpha)
        upload(problem.inputs[0], self.x, self.stream)
        upload(problem.output, self.y, self.stream)

    def run(self, stream_handle):
        launch(self.stream, self.config, self.kernel, self.alpha, self.x, self.y, np.int64(self.n))

    def download(self, out, stream_handle):
        download(self.y, out, self.stream)
