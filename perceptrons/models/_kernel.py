"""Kernels of the dual estimators (not public).

:class:`KernelSpec` is the resolved Mercer kernel a dual model was trained
with (its ``gamma`` resolved from None), part of the model's state, so that
training and prediction always use one kernel whatever ``set_params`` does
later. It computes ``k(x, x)`` with its overflow check, the Gram blocks of
prediction and the scores of coefficients over support vectors.
:class:`KernelParams` gives an estimator the kernel parameters (``kernel,
degree, gamma, coef0, cache_size``) and their constraints;
:class:`KernelAlgorithm` gives its algorithm the spec they resolve to and a
call's :class:`~perceptrons.models._support.KernelCall`. A precomputed kernel
(``kernel="precomputed"``) is a spec too: X then holds kernel values.
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

__all__ = ["KERNEL_NAMES", "KERNEL_PRECOMPUTED", "KernelAlgorithm",
           "KernelParams", "KernelSpec", "linear_coef"]

#: The code of ``kernel="precomputed"``: X holds kernel values, a Gram
#: matrix of the training rows in ``fit`` and the test rows' values against
#: them in prediction (scikit-learn's ``SVC`` convention).
KERNEL_PRECOMPUTED = 3

#: Every kernel name an estimator may take, with its code: the Mercer
#: kernels the loops compute (:data:`perceptrons._loops.mercer.KERNELS`)
#: and "precomputed".
KERNEL_NAMES = {**KERNELS, "precomputed": KERNEL_PRECOMPUTED}

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
    """A resolved Mercer kernel, or a precomputed one.

    With ``kernel="precomputed"`` a row is its kernel values against the
    training rows, ``k(x, x_j)`` in column j: a support vector is then its
    row of the training Gram matrix, its ``k(x_j, x_j)`` the entry in the
    column of its own training row, and the kernel values of test rows
    against support vectors the test rows' columns of those rows
    (``support_index``).

    Attributes
    ----------
    code : int
        ``KERNEL_NAMES[name]``: a code of
        :data:`perceptrons._loops.mercer.KERNELS`, or
        :data:`KERNEL_PRECOMPUTED`.
    degree : int
        Degree of the polynomial kernel.
    gamma : float
        γ of the polynomial and Gaussian kernels.
    coef0 : float
        Additive constant of the polynomial kernel.
    """

    #: 2: "precomputed" (code 3) added (a file of version 1 holds one of
    #: the others, the same fields).
    VERSION = 2
    UPGRADES = {1: {}}

    code: int = scalar("int", choices=tuple(KERNEL_NAMES.values()))
    degree: int = scalar("int", low=1, high=MAX_DEGREE + 1)
    gamma: float = scalar("float", low=0.0)
    coef0: float = scalar("float", low=0.0)

    @property
    def name(self):
        """The kernel's name (``"linear"``, ``"poly"``, ``"rbf"``,
        ``"precomputed"``)."""
        return next(k for k, v in KERNEL_NAMES.items() if v == self.code)

    @property
    def precomputed(self):
        """Whether rows are kernel values (``kernel="precomputed"``)."""
        return self.code == KERNEL_PRECOMPUTED

    def args(self):
        """``(code, degree, gamma, coef0)`` as the loops take them."""
        return (self.code, self.degree, self.gamma, self.coef0)

    def diag(self, sq_norms):
        """``k(x_i, x_i)`` from the squared norms ``<x_i, x_i>`` (for a
        precomputed kernel, the Gram matrix's diagonal stands in for them:
        :meth:`KernelAlgorithm.row_sq_norms`)."""
        if self.precomputed:
            return np.array(sq_norms, dtype=np.float64)
        return kernel_diag(sq_norms, *self.args())

    def gram(self, A, B, sq_b=None, b_index=None):
        """Gram block ``k(a_s, b_t)``
        (:func:`~perceptrons._loops.mercer.gram_block`); precomputed: the
        columns ``b_index`` (the rows of B among the training rows) of A."""
        if self.precomputed:
            return np.ascontiguousarray(
                (A[:, b_index].toarray() if hasattr(A, "toarray")
                 else A[:, b_index]), dtype=np.float64)
        return gram_block(A, B, *self.args(), sq_b=sq_b)

    def scores(self, X, support_vectors, coef, support_sq=None,
               support_index=None):
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
        support_index : ndarray of shape (n_support,), optional
            The support vectors' training rows: a precomputed kernel's
            columns of X.

        Returns
        -------
        ndarray of shape (n_samples, n_rows)
        """
        out = np.zeros((X.shape[0], coef.shape[0]))
        if coef.shape[1] == 0:
            return out
        for lo in range(0, X.shape[0], BLOCK_ROWS):
            hi = min(lo + BLOCK_ROWS, X.shape[0])
            G = self.gram(X[lo:hi], support_vectors, support_sq,
                          support_index)
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


class KernelParams:
    """An estimator's kernel parameters ``kernel, degree, gamma, coef0,
    cache_size`` and, where it takes one, its budget ``budget,
    budget_policy`` (its ``__init__`` passes them on), and their
    constraints :data:`KERNEL_CONSTRAINTS` (a class adds its own ``kernel``
    entry, from :data:`KERNEL_NAMES`, and
    :func:`~perceptrons.models._budget.budget_constraints`)."""

    def __init__(self, *, kernel, degree, gamma, coef0, cache_size,
                 **params):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.cache_size = cache_size
        # Only the estimators that take a budget (the Projectron bounds its
        # support by its own rule, the matrix perceptrons have none).
        for name in ("budget", "budget_policy"):
            if name in params:
                setattr(self, name, params.pop(name))
        super().__init__(**params)

    #: Constraints of ``degree, gamma, coef0, cache_size``.
    KERNEL_CONSTRAINTS = {
        "degree": [Interval(Integral, 1, MAX_DEGREE, closed="both")],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "coef0": [Interval(Real, 0, None, closed="left")],
        "cache_size": [Interval(Real, 0, None, closed="left")],
    }


#: Why a precomputed kernel cannot train on some X.
_PRECOMPUTED_ROWS = (
    "kernel='precomputed' trains on X[i, j] = k(x_i, x_j), the square Gram "
    "matrix of the rows a call trains on{got}; a continuation of a fitted "
    "model (partial_fit after the first call, warm_start) or rows left out "
    "of it (a weight of 0, early_stopping) cannot be expressed with it: fit "
    "afresh on the Gram matrix of all the rows to train on")


class KernelAlgorithm:
    """The kernel of an algorithm's parameters, and its dual passes'
    per-call state (for an :class:`~perceptrons.models._driver.Algorithm`
    of an estimator with :class:`KernelParams`)."""

    def kernel_spec(self, n_features, name=None):
        """The kernel of the parameters, ``gamma=None`` resolved to
        ``1 / n_features`` (``name``: another kernel than ``kernel``, with
        the other parameters)."""
        return KernelSpec(code=KERNEL_NAMES[self.kernel if name is None
                                            else name],
                          degree=int(self.degree),
                          gamma=(1.0 / n_features if self.gamma is None
                                 else float(self.gamma)),
                          coef0=float(self.coef0))

    def row_sq_norms(self, X, loop_arrays):
        """``<x_i, x_i>``; with ``kernel="precomputed"`` the Gram matrix's
        diagonal ``k(x_i, x_i)`` stands in for them, which every use of the
        squared norms (``k(x, x)``, θ_Init "auto") reads through
        :meth:`KernelSpec.diag`."""
        if self.kernel != "precomputed":
            return super().row_sq_norms(X, loop_arrays)
        if X.shape[0] != X.shape[1]:
            raise ValueError(_PRECOMPUTED_ROWS.format(
                got=f" (got X of shape {X.shape})"))
        return np.array(X.diagonal(), dtype=np.float64)

    def new_kernel_call(self, spec, X, sq_norms, n_passes, n_pool=0,
                        normalized=False, n_spare=0):
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
        n_spare : int, default=0
            See :class:`~perceptrons.models._support.KernelCall`.

        Raises
        ------
        ValueError
            With a precomputed kernel, for a continuation (a pool) or rows
            left out of the Gram matrix (weight 0, ``early_stopping``).
        """
        if spec.precomputed and (n_pool or X.shape[0] != X.shape[1]):
            raise ValueError(_PRECOMPUTED_ROWS.format(got=""))
        return KernelCall(X, sq_norms, spec.checked_diag(sq_norms),
                          spec.args(), self.cache_size, n_passes, n_pool,
                          normalized, effective_n_jobs(self.n_jobs),
                          gram=spec.precomputed, n_spare=n_spare)
