"""What the torch layer's variants share besides lb_torch: its session (PyTorch's CUDA start, and
what the results record about the allocator and TF32) and the launch-overhead variant."""
import lb_torch
import lb_variant
import torch


class Session(lb_torch.Session):
    def __init__(self, config: lb_variant.LayerConfig):
        super().__init__(config)
        self.unpaid += lb_torch.torch_cuda_start()

    def describe(self) -> dict:
        return lb_torch.framework_settings() | {"launch_equivalent": " ".join(Launch.__doc__.split())}


class Launch(lb_torch.Launch):
    """One launch from PyTorch is `out.fill_(i)` on a one-element tensor: PyTorch's fill kernel, one
    thread storing one value, with PyTorch's dispatcher (argument checks, dispatch keys, the current
    stream's lookup) in front of it."""

    def launch_once(self, value: int) -> None:
        self.out.fill_(value)
