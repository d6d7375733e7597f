# reduce under torch.compile: lb_torch.reduce, the torch layer's function, compiled (see
# _torch_compile_layer: the compile at the first call, a recompile per shape, cold and warm caches).
from _torch_compile_layer import Call


def Variant():
    return Call("reduce")
