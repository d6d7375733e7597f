"""The 1D 5-point stencil in float64: y[i] = sum_j w[j] x[i + j]."""
import numpy as np


def reference(inputs, scalars, size):
    x, w, n = inputs["x"], inputs["w"], size["n"]
    y = np.zeros(n)
    for j in range(5):
        y += w[j] * x[j:j + n]
    return {"y": y}


def tolerance(inputs, scalars, size):
    """Five products summed in float32 in order: each rounding errs by at most eps/2 of a partial
    sum, so |error| <= 5 eps * sum_j |w[j] x[i+j]|. The bound below is that with eps = 2^-23 and
    the scale is the sum of the terms' magnitudes, so cancellation cannot fail a correct result.
    The draws (|x|, |w| in [0.25, 1)) keep the terms' sum far from zero against a dropped term:
    losing one term (|w x| >= 1/16, scale <= 5) moves y by at least 1/80 of the scale, far above
    the bound."""
    x, w, n = inputs["x"], inputs["w"], size["n"]
    scale = np.zeros(n)
    for j in range(5):
        scale += np.abs(w[j] * x[j:j + n])
    return {"y": (scale, 5 * 2.0**-23)}
