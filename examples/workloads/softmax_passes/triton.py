"""Row-wise softmax and its row statistics in Triton, in one kernel where kernels.cu takes three:
one program per row holds the row in registers (BLOCK, the next power of two at or above n), so the
max, the sum of exp(x - max) and the division read the row from memory once; the row's max and sum
are stored beside it. Rows wider than 16384 would need a loop over blocks: this version refuses
them. Launched on PyTorch's current stream, made the harness's."""
import torch
import triton
import triton.language as tl

WIDEST = 16384


@triton.jit
def softmax_stats_kernel(x_ptr, max_ptr, sum_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=-float("inf"))
    top = tl.max(x, axis=0)
    e = tl.exp(x - top)
    total = tl.sum(e, axis=0)
    tl.store(max_ptr + row, top)
    tl.store(sum_ptr + row, total)
    tl.store(y_ptr + row * n + cols, e / total, mask=mask)


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
            self.row_max = torch.zeros(size.m, dtype=torch.float32, device="cuda")
            self.row_sum = torch.zeros(size.m, dtype=torch.float32, device="cuda")
            self.launch()  # the first launch compiles (Triton's JIT): here, not in a timed run
        self.stream.synchronize()

    def launch(self):
        softmax_stats_kernel[(self.m,)](self.x, self.row_max, self.row_sum, self.y, self.n, BLOCK=self.block)

    def upload(self, problem, stream):
        with torch.cuda.stream(self.stream):
            self.x.copy_(torch.from_numpy(problem.inputs["x"].copy()).reshape(self.m, self.n))
            for name in ("y", "row_max", "row_sum"):
                getattr(self, name).copy_(torch.from_numpy(problem.outputs[name]).reshape(getattr(self, name).shape))
        self.stream.synchronize()

    def run(self, stream):
        with torch.cuda.stream(self.stream):
            self.launch()

    def download(self, outputs, stream):
        with torch.cuda.stream(self.stream):
            for name in ("y", "row_max", "row_sum"):
                torch.from_numpy(outputs[name]).reshape(getattr(self, name).shape).copy_(getattr(self, name))
        self.stream.synchronize()
