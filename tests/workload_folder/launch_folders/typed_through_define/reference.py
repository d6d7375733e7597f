"""y = a * x + y in float64 (examples/workloads/saxpy_inout's reference)."""
import numpy as np


def reference(inputs, scalars, size):
    return {"y": float(scalars["a"]) * inputs["x"] + inputs["y"]}


def tolerance(inputs, scalars, size):
    a = float(scalars["a"])
    return {"y": (np.abs(a * inputs["x"]) + np.abs(inputs["y"]), 2.0**-22)}
