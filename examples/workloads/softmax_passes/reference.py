"""Row-wise softmax in float64, with its two row statistics: the max and the sum of exp(x - max)."""
import numpy as np


def reference(inputs, scalars, size):
    x = inputs["x"]
    top = x.max(axis=1)
    e = np.exp(x - top[:, None])
    total = e.sum(axis=1)
    return {"row_max": top, "row_sum": total, "y": e / total[:, None]}


def tolerance(inputs, scalars, size):
    """row_max: a max of float32 values is one of them, exactly: any error is a wrong max, so the
    bound is far below one ulp (2^-40 of |max|; a rule must be positive). row_sum, relative to
    itself (n positive terms, none cancels): __expf errs by 2 ulp plus its argument's rounding
    (|x - max| < 2 with the unit draw: exact to 2^-23), and the sum, a sequential sum of n/256
    terms per thread then a 256-way tree, by (n/256 + 8) eps: bound (n/256 + 12) eps, eps = 2^-23.
    y, relative to itself: the sum's error, the numerator's __expf and the division: (n/256 + 16)
    eps. A dropped element, a wrong max (exp of a shifted argument changes the sum by a factor
    e^shift), an unnormalised row or a pass that ran on stale statistics is off by far more (an
    element is about 1/n of its row's sum: above the bound for n up to 2^14, the default sizes)."""
    n = size["n"]
    eps = 2.0**-23
    r = reference(inputs, scalars, size)
    return {"row_max": (np.abs(r["row_max"]), 2.0**-40),
            "row_sum": (r["row_sum"], (n / 256 + 12) * eps),
            "y": (r["y"], (n / 256 + 16) * eps)}
