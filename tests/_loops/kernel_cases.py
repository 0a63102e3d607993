"""Kernel cases shared by the loop tests, and scikit-learn's Gram matrices
as the reference they are checked against."""

from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from perceptrons._loops.mercer import KERNEL_LINEAR, KERNEL_POLY, KERNEL_RBF

#: (name, code, degree, gamma, coef0)
KERNELS = [
    ("linear", KERNEL_LINEAR, 3, 0.2, 1.0),
    ("poly", KERNEL_POLY, 3, 0.2, 1.0),
    ("poly", KERNEL_POLY, 2, 0.5, 0.0),
    ("rbf", KERNEL_RBF, 3, 0.3, 1.0),
]


def sklearn_gram(name, A, B, degree, gamma, coef0):
    """scikit-learn's Gram matrix of the named kernel."""
    if name == "linear":
        return linear_kernel(A, B)
    if name == "poly":
        return polynomial_kernel(A, B, degree=degree, gamma=gamma,
                                 coef0=coef0)
    return rbf_kernel(A, B, gamma=gamma)
