# matmul with PyTorch as most users write it: torch.mm(a, b, out=c), TF32 off (lb_torch.precise_matmul): cuBLAS SGEMM underneath, as the vendor layer.
# The function is lb_torch.matmul (variants/python/lb_torch.py), shared with torch-compile.
import lb_torch


def Variant():
    return lb_torch.Call("matmul")
