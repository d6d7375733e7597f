# saxpy through cuda.bindings: alpha goes as ctypes.c_float, matching the kernel's `float alpha`.
import ctypes

import lb_shared
import lb_variant
from _cuda_bindings_layer import DeviceMemory, launch
from cuda.bindings import driver


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.kernel = setup.session.kernel("saxpy", "saxpy", setup.cost)
        self.x, self.y = (DeviceMemory(self.n) for _ in range(2))

    def upload(self, problem, stream):
        self.alpha = float(problem.alpha)
        s = driver.CUstream(stream)
        self.x.upload(problem.inputs[0], s)
        self.y.upload(problem.output, s)

    def run(self, stream):
        args = ((self.alpha, self.x.ptr, self.y.ptr, self.n), (ctypes.c_float, None, None, ctypes.c_longlong))
        launch(self.kernel, lb_shared.flat_blocks(self.n), lb_shared.BLOCK, args, driver.CUstream(stream))

    def download(self, out, stream):
        self.y.download(out, driver.CUstream(stream))
