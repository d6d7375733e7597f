"""y = a * x + y in float64, from the y the harness drew (an in/out buffer's drawn values are its
input here, and its result is what is checked)."""
import numpy as np


def reference(inputs, scalars, size):
    return {"y": float(scalars["a"]) * inputs["x"] + inputs["y"]}


def tolerance(inputs, scalars, size):
    """Relative to |a x| + |y| (the size of the terms, so a cancelling sum cannot fail a correct
    result): a * x + y in float32 rounds at most twice (the product, then the sum; once with an
    FMA), each by at most 2^-24 of that scale. Bound 2^-22. Catches what a saxpy goes wrong by: y
    not added (off by |y| >= 0.25 of a scale at most 3), y not written (off by |a x|), a wrong
    scalar or x and y swapped (off by a multiple of 0.7 |x| or |y|), an element skipped."""
    a = float(scalars["a"])
    return {"y": (np.abs(a * inputs["x"]) + np.abs(inputs["y"]), 2.0**-22)}
