"""Kernels of the dual estimators (not public).

:class:`KernelSpec` is the resolved Mercer kernel a dual model was trained
with (its ``gamma`` resolved from None), part of the model's state, so that
training and prediction always use one kernel whatever ``set_params`` does
later. It computes ``k(x, x)`` with its overflow check, the Gram blocks of
prediction and the scores of coefficients over support vectors.
:class:`KernelMixin` gives an estimator the kernel parameters (``kernel,
degree, gamma, coef0, cache_size``) and their constraints, resolves them
into a spec and starts a call's :class:`~perceptrons.models._support.KernelCall`.
"""

import dataclasses
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp

from .._loops.mercer import KERNELS, gram_block, kernel_diag
from ..utils._param_validation import Interval
from ..utils.parallel import effective_n_jobs
from ._state import State, scalar
from ._support import KernelCall

__all__ = ["KernelAlgorithm", "KernelMixin", "KernelParams", "KernelSpec",
           "linear_coef"]

#: Rows of test data per Gram block, at most: bounds a block's memory to
#: ``BLOCK_ROWS × n_support`` doubles.
BLOCK_ROWS = 512

#: Largest polynomial degree: past it a kernel value overflows or vanishes
#: for any row of other than unit scale, and each costs ``degree``
#: multiplications.
MAX_DEGREE = 100


def linear_coef(dual_coef, support_vectors):
    """Primal weights ``dual_coef @ support_vectors`` (linear kernel).

    Parameters
    ----------
    dual_coef : ndarray of shape (n_problems, n_support)
    support_vectors : {ndarray, CSR matrix} of shape (n_support, n_features)

    Returns
    -------
    ndarray of shape (n_problems, n_features)
    """
    if sp.issparse(support_vectors):
        return np.asarray((support_vectors.T @ dual_coef.T).T)
    return dual_coef @ support_vectors


@dataclasses.dataclass(frozen=True)
class KernelSpec(State):
    """A resolved Mercer kernel.

    Attributes
    ----------
    code : int
        ``KERNELS[name]`` (:mod:`perceptrons._loops.mercer`).
    degree : int
        Degree of the polynomial kernel.
    gamma : float
        γ of the polynomial and Gaussian kernels.
    coef0 : float
        Additive constant of the polynomial kernel.
    """

    code: int = scalar("int", choices=tuple(KERNELS.values()))
    degree: int = scalar("int", low=1, high=MAX_DEGREE + 1)
    gamma: float = scalar("float", low=0.0)
    coef0: float = scalar("float", low=0.0)

    @property
    def name(self):
        """The kernel's name (``"linear"``, ``"poly"``, ``"rbf"``)."""
        return next(k for k, v in KERNELS.items() if v == self.code)

    def args(self):
        """``(code, degree, gamma, coef0)`` as the loops take them."""
        return (self.code, self.degree, self.gamma, self.coef0)

    def diag(self, sq_norms):
        """``k(x_i, x_i)`` from the squared norms ``<x_i, x_i>``."""
        return kernel_diag(sq_norms, *self.args())

    def gram(self, A, B, sq_b=None):
        """Gram block ``k(a_s, b_t)``
        (:func:`~perceptrons._loops.mercer.gram_block`)."""
        return gram_block(A, B, *self.args(), sq_b=sq_b)

    def scores(self, X, support_vectors, coef, support_sq=None):
        """``Σ_j coef[k, j] k(x, s_j)`` for every row x of X.

        Computed in Gram blocks of :data:`BLOCK_ROWS` rows, so memory stays
        ``BLOCK_ROWS × n_support`` values.

        Parameters
        ----------
        X : {ndarray, CSR matrix} of shape (n_samples, n_features)
        support_vectors : {ndarray, CSR matrix} of shape (n_support, n_features)
        coef : ndarray of shape (n_rows, n_support)
        support_sq : ndarray of shape (n_support,), optional
            ``<s_j, s_j>`` (computed if needed and not given).

        Returns
        -------
        ndarray of shape (n_samples, n_rows)
        """
        out = np.zeros((X.shape[0], coef.shape[0]))
        if coef.shape[1] == 0:
            return out
        for lo in range(0, X.shape[0], BLOCK_ROWS):
            hi = min(lo + BLOCK_ROWS, X.shape[0])
            G = self.gram(X[lo:hi], support_vectors, support_sq)
            out[lo:hi] = G @ coef.T
        return out

    def checked_diag(self, sq_norms):
        """``k(x_i, x_i)``, refused when it overflows.

        Raises
        ------
        ValueError
            If ``k(x, x)`` overflows for some row.
        """
        diag = self.diag(sq_norms)
        if not np.isfinite(diag).all():
            # |k(x, z)| <= sqrt(k(x, x) k(z, z)) for a Mercer kernel, so
            # finite diagonal values keep every kernel value finite.
            raise ValueError(
                "k(x, x) overflows float64 for some rows; scale the input "
                "or lower degree/gamma")
        return diag


class KernelMixin:
    """Kernel parameters and the dual loops' per-call state.

    A class using it has the parameters ``kernel, degree, gamma, coef0,
    cache_size`` and adds :data:`KERNEL_CONSTRAINTS` (with its own
    ``kernel`` entry) to its ``_parameter_constraints``.
    """

    def __init__(self, *, kernel, degree, gamma, coef0, cache_size,
                 **params):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.cache_size = cache_size
        super().__init__(**params)

    #: Constraints of ``degree, gamma, coef0, cache_size``.
    KERNEL_CONSTRAINTS = {
        "degree": [Interval(Integral, 1, MAX_DEGREE, closed="both")],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "coef0": [Interval(Real, 0, None, closed="left")],
        "cache_size": [Interval(Real, 0, None, closed="left")],
    }

    def _kernel_spec(self, n_features):
        """The kernel of the parameters, ``gamma=None`` resolved to
        ``1 / n_features``."""
        return KernelSpec(code=KERNELS[self.kernel], degree=int(self.degree),
                          gamma=(1.0 / n_features if self.gamma is None
                                 else float(self.gamma)),
                          coef0=float(self.coef0))

    def _new_kernel_call(self, spec, X, sq_norms, n_passes, n_pool=0,
                         normalized=False):
        """The :class:`~perceptrons.models._support.KernelCall` of this
        call, ``k(x, x)`` checked.

        Parameters
        ----------
        spec : KernelSpec
        X : {ndarray, CSR matrix} of shape (n, n_features)
            The rows the loops index (a pool's rows first).
        sq_norms : ndarray of shape (n,), float64
        n_passes : int
            Passes the call makes (see
            :func:`~perceptrons.models._support.kernel_cache`).
        n_pool : int, default=0
        normalized : bool, default=False
            See :class:`~perceptrons.models._support.KernelCall`.
        """
        return KernelCall(X, sq_norms, spec.checked_diag(sq_norms),
                          spec.args(), self.cache_size, n_passes, n_pool,
                          normalized, effective_n_jobs(self.n_jobs))


class KernelParams:
    """An estimator's kernel parameters ``kernel, degree, gamma, coef0,
    cache_size`` (its ``__init__`` passes them on) and their constraints
    :data:`KERNEL_CONSTRAINTS` (a class adds its own ``kernel`` entry)."""

    def __init__(self, *, kernel, degree, gamma, coef0, cache_size,
                 **params):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.cache_size = cache_size
        super().__init__(**params)

    KERNEL_CONSTRAINTS = KernelMixin.KERNEL_CONSTRAINTS


class KernelAlgorithm:
    """The kernel of an algorithm's parameters, and its dual passes'
    per-call state (for an :class:`~perceptrons.models._driver.Algorithm`
    of an estimator with :class:`KernelParams`)."""

    def kernel_spec(self, n_features):
        """The kernel of the parameters, ``gamma=None`` resolved to
        ``1 / n_features``."""
        return KernelSpec(code=KERNELS[self.kernel], degree=int(self.degree),
                          gamma=(1.0 / n_features if self.gamma is None
                                 else float(self.gamma)),
                          coef0=float(self.coef0))

    def new_kernel_call(self, spec, X, sq_norms, n_passes, n_pool=0,
                        normalized=False):
        """The :class:`~perceptrons.models._support.KernelCall` of this
        call, ``k(x, x)`` checked.

        Parameters
        ----------
        spec : KernelSpec
        X : {ndarray, CSR matrix} of shape (n, n_features)
            The rows the loops index (a pool's rows first).
        sq_norms : ndarray of shape (n,), float64
        n_passes : int
            Passes the call makes (see
            :func:`~perceptrons.models._support.kernel_cache`).
        n_pool : int, default=0
        normalized : bool, default=False
            See :class:`~perceptrons.models._support.KernelCall`.
        """
        return KernelCall(X, sq_norms, spec.checked_diag(sq_norms),
                          spec.args(), self.cache_size, n_passes, n_pool,
                          normalized, effective_n_jobs(self.n_jobs))
