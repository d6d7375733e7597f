# vector_add through cuda.bindings: the driver layer's lesson, line for line, from Python. Our
# kernel text compiled by cuda.bindings.nvrtc, loaded with cuModuleLoadData, launched with
# cuLaunchKernel on the harness's stream (a CUstream made from the integer handle).
import ctypes

import lb_shared
import lb_variant
from _cuda_bindings_layer import DeviceMemory, launch
from cuda.bindings import driver


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.kernel = setup.session.kernel("vector_add", "vector_add", setup.cost)
        self.a, self.b, self.c = (DeviceMemory(self.n) for _ in range(3))

    def upload(self, problem, stream):
        s = driver.CUstream(stream)
        self.a.upload(problem.inputs[0], s)
        self.b.upload(problem.inputs[1], s)
        self.c.upload(problem.output, s)

    def run(self, stream):
        args = ((self.a.ptr, self.b.ptr, self.c.ptr, self.n), (None, None, None, ctypes.c_longlong))
        launch(self.kernel, lb_shared.flat_blocks(self.n), lb_shared.BLOCK, args, driver.CUstream(stream))

    def download(self, out, stream):
        self.c.download(out, driver.CUstream(stream))
