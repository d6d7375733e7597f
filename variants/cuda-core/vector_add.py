# vector_add through cuda.core: our kernel text compiled by Program, launched by launch() with a
# LaunchConfig on the harness's stream. Buffers pass as pointers; a scalar's C type is said with a
# NumPy scalar (np.int64 for `long long n`): cuda.core packs it as that type.
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
        self.kernel = setup.session.kernel("vector_add", "vector_add", setup.cost)
        self.a, self.b, self.c = (allocate(self.n, self.stream) for _ in range(3))
        self.config = LaunchConfig(grid=lb_shared.flat_blocks(self.n), block=lb_shared.BLOCK)

    def upload(self, problem, stream_handle):
        upload(problem.inputs[0], self.a, self.stream)
        upload(problem.inputs[1], self.b, self.stream)
        upload(problem.output, self.c, self.stream)

    def run(self, stream_handle):
        launch(self.stream, self.config, self.kernel, self.a, self.b, self.c, np.int64(self.n))

    def download(self, out, stream_handle):
        download(self.c, out, self.stream)
