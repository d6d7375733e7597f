# Any workload folder's kernel (run --workload-dir) through cuda.bindings: the folder's kernels.cu
# compiled by nvrtcCompileProgram under its own path, one cuMemAlloc per buffer (exactly its
# bytes), and cuLaunchKernel with the arguments in workload.json's order (lb_folder.py), each with
# the exact C type of its parameter, which nothing checks for you: a device pointer (None), a
# scalar's ctypes type from its NumPy dtype, m/n/k as c_longlong.
import ctypes

import lb_folder
import lb_variant
import numpy as np
from _cuda_bindings_layer import DeviceMemory, launch, sm_count, threads_per_sm
from cuda.bindings import driver

C_TYPES = {np.dtype(np.float32): ctypes.c_float, np.dtype(np.float64): ctypes.c_double,
           np.dtype(np.int32): ctypes.c_int, np.dtype(np.int64): ctypes.c_longlong}


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        folder = setup.workload
        self.kernel = setup.session.kernel(folder.name, folder.kernel_name, setup.cost, lb_folder.kernel_text(folder))
        shapes = lb_folder.shapes(folder, size)
        # DeviceMemory counts floats: every element type is 4 or 8 bytes, so this is exactly the bytes.
        self.buffers = {b.name: DeviceMemory(int(np.prod(shapes[b.name])) * np.dtype(b.dtype).itemsize // 4)
                        for b in folder.buffers}
        self.grid, self.block = lb_folder.launch_shape(folder, size, sm_count(), threads_per_sm())
        values, types = [], []
        for kind, value in lb_folder.arguments(folder, size, self.buffers):
            values.append(value.ptr if kind == "buffer" else value.item())
            types.append(None if kind == "buffer" else C_TYPES[value.dtype])
        self.args = (tuple(values), tuple(types))
        self.shared_bytes = folder.shared_bytes

    def upload(self, problem, stream):
        s = driver.CUstream(stream)
        for name, host in (problem.inputs | problem.outputs).items():
            self.buffers[name].upload(host, s)

    def run(self, stream):
        launch(self.kernel, self.grid, self.block, self.args, driver.CUstream(stream), self.shared_bytes)

    def download(self, outputs, stream):
        s = driver.CUstream(stream)
        for name, host in outputs.items():
            self.buffers[name].download(host, s)
