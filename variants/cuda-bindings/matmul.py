# matmul through cuda.bindings: the grid (tiles, and splits of K along z) is three numbers of
# cuLaunchKernel's six.
import ctypes

import lb_shared
import lb_variant
from _cuda_bindings_layer import DeviceMemory, launch, sm_count
from cuda.bindings import driver


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.m, self.n, self.k = size.m, size.n, size.k
        self.kernel = setup.session.kernel("matmul", "matmul_tiled", setup.cost)
        self.grid = lb_shared.matmul_grid(self.m, self.n, self.k, sm_count())
        self.a, self.b, self.c = (DeviceMemory(self.m * self.k), DeviceMemory(self.k * self.n),
                                  DeviceMemory(self.m * self.n))

    def upload(self, problem, stream):
        s = driver.CUstream(stream)
        self.a.upload(problem.inputs[0], s)
        self.b.upload(problem.inputs[1], s)
        self.c.upload(problem.output, s)

    def run(self, stream):
        args = ((self.a.ptr, self.b.ptr, self.c.ptr, self.m, self.n, self.k),
                (None, None, None, ctypes.c_int, ctypes.c_int, ctypes.c_int))
        launch(self.kernel, self.grid, lb_shared.MM_THREADS, args, driver.CUstream(stream))

    def download(self, out, stream):
        self.c.download(out, driver.CUstream(stream))
