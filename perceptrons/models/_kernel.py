"""Kernel plumbing shared by the dual estimators (not public).

:class:`~perceptrons.KernelPerceptron` and the kernel form of
:class:`~perceptrons.Ballseptron` share, through :class:`KernelMixin`: the
kernel parameters (``kernel, degree, gamma, coef0, cache_size``) and their
constraints, ``gamma_``, ``k(x, x)`` with its overflow check, the Gram
blocks of prediction, the linear kernel's ``coef_``, and the per-call state
of the dual loops (:class:`KernelCall`): the support set, the kernel-row
cache and work space, and the tuples ``data, kernel, support, cache`` the
loops of :mod:`perceptrons._loops.support` read, built once per call.

A ``KernelCall`` is created when a ``fit``/``partial_fit`` call starts and
dropped when it ends: nothing sized by the training set that is not part of
the model stays on a fitted estimator.
"""

from numbers import Integral, Real
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

from .._loops.mercer import KERNELS, gram_block, kernel_diag
from ..utils._param_validation import Interval
from ..utils.validation import as_flat_loop_arrays
from ._voted import _BLOCK_ROWS

__all__ = ["KernelCall", "KernelMixin", "kernel_cache", "linear_coef"]

_MB = 2 ** 20


def kernel_cache(n, cache_size, n_passes):
    """The kernel-row cache of one call: ``(cache, cache_filled)``.

    Up to ``cache_size`` MB, at most n values per row. A call of one pass
    presents each row once, so it gets no cache: filling one would cost
    time and memory for little (5-13% of a pass on USPS and MNIST; only
    the Ballseptron's rare exact recomputation of its norms reads support
    rows again). The cache never changes a result.

    Parameters
    ----------
    n : int
        Rows the loops index (the call's rows and any pool before them).
    cache_size : float
        MB.
    n_passes : int
        Passes the call makes.

    Returns
    -------
    cache : ndarray of shape (n, capacity), float64, not initialised
    cache_filled : ndarray of shape (n,), int64, zeros
    """
    capacity = 0
    if n_passes > 1:
        capacity = min(n, int(float(cache_size) * _MB // (8 * n)))
    # np.empty: the pages are touched lazily, as the cache fills.
    return np.empty((n, capacity)), np.zeros(n, dtype=np.int64)


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


class KernelCall(SimpleNamespace):
    """Per-call state of the dual loops, never kept on the model.

    Parameters
    ----------
    X : {ndarray, CSR matrix} of shape (n, n_features)
        The rows the loops index (dense or sorted CSR, float64).
    sq_norms : ndarray of shape (n,), float64
        ``<x_i, x_i>``.
    diag : ndarray of shape (n,), float64
        ``k(x_i, x_i)`` of the kernel (before any normalisation).
    kernel : tuple
        ``(code, degree, gamma, coef0)``.
    cache_size : float
        MB for the kernel-row cache (see :func:`kernel_cache`).
    n_passes : int
        Passes the call makes.
    n_pool : int, default=0
        Leading rows of X that are support vectors already, in slots
        ``0 .. n_pool - 1``.
    normalized : bool, default=False
        Use the normalised kernel ``k(x, z) / sqrt(k(x, x) k(z, z))``
        (0 where ``k(x, x) = 0``).

    Attributes
    ----------
    X, sq_norms
        As given.
    diag : ndarray of shape (n,), float64
        ``k(x_i, x_i)`` of the kernel in use (normalised: 1, or 0).
    support, position, n_support : ndarray of int64
        The support set (:mod:`perceptrons._loops.support`).
    cache, cache_filled, kernel_work, dense_work : ndarray
        The kernel-row cache and work space.
    loop_args : tuple
        ``(data, kernel, support, cache)``, the tuples every dual loop
        takes first. A model adds its own per-call arrays (coefficients,
        ...) as further attributes.
    """

    def __init__(self, X, sq_norms, diag, kernel, cache_size, n_passes,
                 n_pool=0, normalized=False):
        n = X.shape[0]
        support = np.zeros(n, dtype=np.int64)
        support[:n_pool] = np.arange(n_pool)
        position = np.full(n, -1, dtype=np.int64)
        position[:n_pool] = np.arange(n_pool)
        n_support = np.array([n_pool], dtype=np.int64)
        cache, cache_filled = kernel_cache(n, cache_size, n_passes)
        kernel_work = np.empty(n)
        dense_work = np.zeros(X.shape[1] if sp.issparse(X) else 0)
        norms = np.zeros(0)
        if normalized:
            norms = np.sqrt(diag)
            diag = (diag > 0.0).astype(np.float64)
        super().__init__(
            X=X, sq_norms=sq_norms, diag=diag, support=support,
            position=position, n_support=n_support, cache=cache,
            cache_filled=cache_filled, kernel_work=kernel_work,
            dense_work=dense_work)
        self.loop_args = (
            (*as_flat_loop_arrays(X), sq_norms, diag),
            (*kernel, norms),
            (support, position, n_support),
            (cache, cache_filled, kernel_work, dense_work),
        )

    @property
    def support_size(self):
        """Slots in use, ``n_support[0]``."""
        return int(self.n_support[0])


class KernelMixin:
    """Kernel parameters, ``gamma_`` and the dual loops' per-call state.

    A class using it has the parameters ``kernel, degree, gamma, coef0,
    cache_size`` and adds :data:`KERNEL_CONSTRAINTS` (with its own
    ``kernel`` entry) to its ``_parameter_constraints``.
    """

    #: Constraints of ``degree, gamma, coef0, cache_size``.
    KERNEL_CONSTRAINTS = {
        "degree": [Interval(Integral, 1, None, closed="left")],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "coef0": [Interval(Real, 0, None, closed="left")],
        "cache_size": [Interval(Real, 0, None, closed="left")],
    }

    def _resolve_kernel(self, n_features):
        """Set ``_kernel_code`` and ``gamma_`` (None: ``1 / n_features``)."""
        self._kernel_code = KERNELS[self.kernel]
        self.gamma_ = (1.0 / n_features if self.gamma is None
                       else float(self.gamma))

    def _kernel_args(self):
        """``(code, degree, gamma, coef0)`` of the resolved kernel."""
        return (self._kernel_code, int(self.degree), float(self.gamma_),
                float(self.coef0))

    def _gram_block(self, A, B, sq_b=None):
        """Gram block ``k(a_s, b_t)`` (:func:`~perceptrons._loops.mercer.gram_block`)."""
        return gram_block(A, B, *self._kernel_args(), sq_b=sq_b)

    def _support_scores(self, X, support_vectors, support_sq, coef):
        """``Σ_j coef[k, j] k(x, s_j)`` for every row x of X.

        Computed in Gram blocks of ``_BLOCK_ROWS`` rows, so memory stays
        ``_BLOCK_ROWS × n_support`` values.

        Parameters
        ----------
        X : {ndarray, CSR matrix} of shape (n_samples, n_features)
        support_vectors : {ndarray, CSR matrix} of shape (n_support, n_features)
        support_sq : ndarray of shape (n_support,)
            ``<s_j, s_j>``.
        coef : ndarray of shape (n_rows, n_support)

        Returns
        -------
        ndarray of shape (n_samples, n_rows)
        """
        out = np.zeros((X.shape[0], coef.shape[0]))
        if coef.shape[1] == 0:
            return out
        for lo in range(0, X.shape[0], _BLOCK_ROWS):
            hi = min(lo + _BLOCK_ROWS, X.shape[0])
            G = self._gram_block(X[lo:hi], support_vectors, support_sq)
            out[lo:hi] = G @ coef.T
        return out

    def _kernel_diag(self, sq_norms):
        """``k(x_i, x_i)`` from the squared norms ``<x_i, x_i>``."""
        return kernel_diag(sq_norms, *self._kernel_args())

    def _new_kernel_call(self, X, sq_norms, n_passes, n_pool=0,
                         normalized=False):
        """The :class:`KernelCall` of this call, ``k(x, x)`` checked.

        Parameters
        ----------
        X : {ndarray, CSR matrix} of shape (n, n_features)
            The rows the loops index.
        sq_norms : ndarray of shape (n,), float64
        n_passes : int
            Passes the call makes (see :func:`kernel_cache`).
        n_pool : int, default=0
            See :class:`KernelCall`.
        normalized : bool, default=False
            See :class:`KernelCall`.

        Raises
        ------
        ValueError
            If ``k(x, x)`` overflows for some row.
        """
        diag = self._kernel_diag(sq_norms)
        if not np.isfinite(diag).all():
            # |k(x, z)| <= sqrt(k(x, x) k(z, z)) for a Mercer kernel, so
            # finite diagonal values keep every kernel value finite.
            raise ValueError(
                "k(x, x) overflows float64 for some rows; scale the input "
                "or lower degree/gamma")
        return KernelCall(X, sq_norms, diag, self._kernel_args(),
                          self.cache_size, n_passes, n_pool, normalized)
