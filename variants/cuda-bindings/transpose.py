# transpose through cuda.bindings: a 2-D grid and a 2-D block are four of cuLaunchKernel's six
# numbers (launch() takes each as an (x, y) tuple). M and N are the kernel's `int`s: ctypes.c_int.
import ctypes

import lb_shared
import lb_variant
from _cuda_bindings_layer import DeviceMemory, launch
from cuda.bindings import driver


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.m, self.n = size.m, size.n
        self.kernel = setup.session.kernel("transpose", "transpose", setup.cost)
        self.a, self.b = DeviceMemory(self.m * self.n), DeviceMemory(self.n * self.m)

    def upload(self, problem, stream):
        s = driver.CUstream(stream)
        self.a.upload(problem.inputs[0], s)
        self.b.upload(problem.output, s)

    def run(self, stream):
        args = ((self.a.ptr, self.b.ptr, self.m, self.n), (None, None, ctypes.c_int, ctypes.c_int))
        launch(self.kernel, lb_shared.transpose_grid(self.m, self.n), lb_shared.transpose_block(), args,
               driver.CUstream(stream))

    def download(self, out, stream):
        self.b.download(out, driver.CUstream(stream))
