"""Row-wise softmax in float64."""
import numpy as np


def reference(inputs, scalars, size):
    x = inputs["x"]
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"y": e / e.sum(axis=1, keepdims=True)}


def tolerance(inputs, scalars, size):
    """Relative to each element's own value (all positive, none cancels): __expf errs by at most
    2 ulp + a few ulp from its argument's rounding (|x - max| < 2 with the unit draw, so the
    argument is exact to 2^-23); the row sum of n positive terms, a per-thread sequential sum of
    n/256 terms then a 256-way tree, errs by at most (n/256 + 8) eps relatively; the reciprocal and
    the product add 2 ulp. Bound: (n/256 + 16) eps, with eps = 2^-23. A wrong max, a dropped
    element or an unnormalised row is off by far more (an element of a row of n is about 1/n of
    its sum, and dropping it changes every other by that fraction: above the bound for n up to 2^14,
    which covers the default sizes)."""
    n = size["n"]
    y = reference(inputs, scalars, size)["y"]
    return {"y": (y, (n / 256 + 16) * 2.0**-23)}
