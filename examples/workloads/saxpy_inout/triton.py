"""y = a * x + y in Triton, in place: one program updates BLOCK elements of y, reading x and y once,
as kernels.cu does. Launched on PyTorch's current stream, made the harness's."""
import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def saxpy_inout_kernel(a, x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    tl.store(y_ptr + i, a * tl.load(x_ptr + i, mask=mask) + tl.load(y_ptr + i, mask=mask), mask=mask)


class Variant:
    run_waits = False

    def allocate(self, size, setup):
        self.stream = torch.cuda.ExternalStream(setup.stream)
        self.n = size.n
        self.a = 1.0
        with torch.cuda.stream(self.stream):
            self.x = torch.zeros(size.n, dtype=torch.float32, device="cuda")
            self.y = torch.zeros(size.n, dtype=torch.float32, device="cuda")
            self.launch()  # the first launch compiles (Triton's JIT): here, not in a timed run
        self.stream.synchronize()

    def launch(self):
        saxpy_inout_kernel[(triton.cdiv(self.n, BLOCK),)](self.a, self.x, self.y, self.n, BLOCK=BLOCK)

    def upload(self, problem, stream):
        self.a = float(problem.scalars["a"])
        with torch.cuda.stream(self.stream):
            self.x.copy_(torch.from_numpy(problem.inputs["x"].copy()))
            self.y.copy_(torch.from_numpy(problem.outputs["y"]))  # an in/out buffer starts as drawn
        self.stream.synchronize()

    def run(self, stream):
        with torch.cuda.stream(self.stream):
            self.launch()

    def download(self, outputs, stream):
        with torch.cuda.stream(self.stream):
            torch.from_numpy(outputs["y"]).copy_(self.y)
        self.stream.synchronize()
