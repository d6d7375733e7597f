"""Row-wise softmax in Triton, the kernel of Triton's fused-softmax tutorial: one program per row,
the whole row in one block of registers (BLOCK, the next power of two at or above n), so the max,
the exponentials, their sum and the division are one pass over the row in memory, not five (the
CuPy version) or three (kernels.cu). Rows wider than 16384 would need a loop over blocks: this
version refuses them. Launched on PyTorch's current stream, made the harness's."""
import torch
import triton
import triton.language as tl

WIDEST = 16384


@triton.jit
def row_softmax_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n + cols, e / tl.sum(e, axis=0), mask=mask)


class Variant:
    run_waits = False

    def allocate(self, size, setup):
        if size.n > WIDEST:
            raise ValueError(f"rows of {size.n} elements: this Triton softmax holds a row in one block (at most {WIDEST})")
        self.stream = torch.cuda.ExternalStream(setup.stream)
        self.m, self.n = size.m, size.n
        self.block = triton.next_power_of_2(size.n)
        with torch.cuda.stream(self.stream):
            self.x = torch.zeros((size.m, size.n), dtype=torch.float32, device="cuda")
            self.y = torch.zeros((size.m, size.n), dtype=torch.float32, device="cuda")
            self.launch()  # the first launch compiles (Triton's JIT): here, not in a timed run
        self.stream.synchronize()

    def launch(self):
        row_softmax_kernel[(self.m,)](self.x, self.y, self.n, BLOCK=self.block)

    def upload(self, problem, stream):
        with torch.cuda.stream(self.stream):
            self.x.copy_(torch.from_numpy(problem.inputs["x"].copy()).reshape(self.m, self.n))
            self.y.copy_(torch.from_numpy(problem.outputs["y"]).reshape(self.m, self.n))
        self.stream.synchronize()

    def run(self, stream):
        with torch.cuda.stream(self.stream):
            self.launch()

    def download(self, outputs, stream):
        with torch.cuda.stream(self.stream):
            torch.from_numpy(outputs["y"]).reshape(self.m, self.n).copy_(self.y)
        self.stream.synchronize()
