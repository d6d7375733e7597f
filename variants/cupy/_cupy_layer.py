"""What the cupy layer's variants share besides lb_cupy: the launch-overhead variant."""
import lb_cupy


class Launch(lb_cupy.Launch):
    """One launch from CuPy is one ndarray.fill of a one-element array: CuPy's fill kernel, with
    CuPy's Python-side argument handling in front of it."""

    def launch_once(self, value: int) -> None:
        self.out.fill(value)
