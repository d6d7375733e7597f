"""stencil5 in CuPy, written the array way: five shifted slices, four adds. Each slice op is its own
kernel reading x again (no fusion), so this costs ~9 passes over memory: the lesson is what the
one-kernel version saves."""
import cupy as cp


class Variant:
    run_waits = False

    def allocate(self, size, setup):
        self.stream = cp.cuda.ExternalStream(setup.stream)
        self.n = size.n
        self.x = cp.empty(size.n + 4, dtype=cp.float32)
        self.w = cp.empty(5, dtype=cp.float32)
        self.y = cp.empty(size.n, dtype=cp.float32)

    def upload(self, problem, stream):
        with self.stream:
            self.x.set(problem.inputs["x"], stream=self.stream)
            self.w.set(problem.inputs["w"], stream=self.stream)
            self.y.set(problem.outputs["y"], stream=self.stream)
        self.stream.synchronize()

    def run(self, stream):
        with self.stream:
            n, x, w = self.n, self.x, self.w
            cp.multiply(x[0:n], w[0], out=self.y)
            for j in range(1, 5):
                self.y += x[j:j + n] * w[j]

    def download(self, outputs, stream):
        self.y.get(stream=self.stream, out=outputs["y"])
        self.stream.synchronize()
