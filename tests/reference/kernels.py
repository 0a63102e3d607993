"""Mercer kernels for the dual-form references, from their definitions.

One pair at a time in plain Python: linear ``<x, z>``, polynomial
``(γ<x, z> + coef0)^degree`` and Gaussian ``exp(-γ‖x - z‖²)``. ``gamma=None``
is ``1 / n_features`` (the estimators' ``gamma_``). Nothing is imported from
``perceptrons``.
"""

import numpy as np
import scipy.sparse as sp

KERNELS = ("linear", "poly", "rbf")


def densify(X):
    """Dense float64 rows (CSR input is densified here, and only here)."""
    if sp.issparse(X):
        return np.asarray(X.toarray(), dtype=np.float64)
    return np.array(X, dtype=np.float64)


def kernel_value(x, z, kernel, degree=3, gamma=1.0, coef0=1.0):
    """k(x, z) for one pair: "linear", "poly" or "rbf", in plain Python."""
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}")
    dot = sum(float(a) * float(b) for a, b in zip(x, z))
    if kernel == "linear":
        return dot
    if kernel == "poly":
        return (gamma * dot + coef0) ** degree
    d2 = sum((float(a) - float(b)) ** 2 for a, b in zip(x, z))
    return float(np.exp(-gamma * d2))


def gram(A, B, kernel, *, degree=3, gamma=None, coef0=1.0):
    """Explicit Gram matrix ``[[k(a, b) for b in B] for a in A]``."""
    A, B = densify(A), densify(B)
    if gamma is None:
        gamma = 1.0 / A.shape[1]
    return np.array([[kernel_value(a, b, kernel, degree, gamma, coef0)
                      for b in B] for a in A]).reshape(A.shape[0], B.shape[0])
