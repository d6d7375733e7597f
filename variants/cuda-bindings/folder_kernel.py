# Any workload folder's kernels (run --workload-dir) through cuda.bindings: the folder's kernels.cu
# compiled by nvrtcCompileProgram under its own path, one cuMemAlloc per buffer (exactly its
# bytes), and one cuLaunchKernel per kernel of the sequence, in order, with the arguments in
# workload.json's order (lb_folder.py), each with
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
        shapes = lb_folder.shapes(folder, size)
        # DeviceMemory counts floats: every element type is 4 or 8 bytes, so this is exactly the bytes.
        self.buffers = {b.name: DeviceMemory(int(np.prod(shapes[b.name])) * np.dtype(b.dtype).itemsize // 4)
                        for b in folder.buffers}
        self.launches = []  # (function, grid, block, (values, types), shared bytes) per kernel, in order
        for k in folder.kernels:
            function = setup.session.kernel(folder.name, k.name, setup.cost, lb_folder.kernel_text(folder))
            grid, block = lb_folder.launch_shape(k, size, sm_count(), threads_per_sm())
            values, types = [], []
            for kind, value in lb_folder.arguments(folder, k, size, self.buffers):
                values.append(value.ptr if kind == "buffer" else value.item())
                types.append(None if kind == "buffer" else C_TYPES[value.dtype])
            self.launches.append((function, grid, block, (tuple(values), tuple(types)), k.shared_bytes))

    def upload(self, problem, stream):
        s = driver.CUstream(stream)
        for name, host in (problem.inputs | problem.outputs).items():
            self.buffers[name].upload(host, s)

    def run(self, stream):
        s = driver.CUstream(stream)
        for function, grid, block, args, shared_bytes in self.launches:
            launch(function, grid, block, args, s, shared_bytes)

    def download(self, outputs, stream):
        s = driver.CUstream(stream)
        for name, host in outputs.items():
            self.buffers[name].download(host, s)
