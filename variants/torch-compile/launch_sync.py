# launch_sync from torch.compile: n times, launch and wait of a compiled out.add_(1) (see _torch_compile_layer.Launch).
from _torch_compile_layer import Launch


def Variant():
    return Launch(wait_each_time=True)
