"""The Second-order Perceptron of Cesa-Bianchi, Conconi & Gentile (2005).

The compiled passes are in :mod:`perceptrons._loops.second_order`; forms,
normalisation, kernels and one-vs-rest are
:class:`~perceptrons.models._matrix_perceptron.MatrixPerceptronBase`'s.
"""

from numbers import Real

import numpy as np
import scipy.sparse as sp

from .._loops.second_order import so_dual_epoch, so_primal_epoch
from ..utils._param_validation import Interval, StrOptions
from ._matrix_perceptron import MatrixPerceptronBase, divide_rows

__all__ = ["SecondOrderPerceptron"]


class SecondOrderPerceptron(MatrixPerceptronBase):
    r"""Second-order Perceptron, Cesa-Bianchi, Conconi & Gentile [1]_.

    With S the matrix whose columns are the past mistaken instances and the
    current :math:`x_t`, and v the sum of :math:`y\,x` over the past
    mistakes, the prediction is

    .. math::

        \hat y_t = \mathrm{sign}\big(v^\top (aI + S S^\top)^{-1} x_t\big);

    on a mistake :math:`x_t` stays in S and :math:`v \leftarrow v + y_t
    x_t`; otherwise S forgets :math:`x_t`. By Sherman–Morrison
    :math:`(A + xx^\top)^{-1}x = A^{-1}x / (1 + x^\top A^{-1}x)` with
    :math:`A = aI + \sum x_s x_s^\top` over the past mistakes, so the sign
    is that of :math:`v^\top A^{-1} x_t`, which a trial computes in O(n)
    (primal, :math:`w = A^{-1}v` kept) or O(k) kernel values (dual,
    :math:`\beta = (aI + K)^{-1} y` kept). :math:`y\,v^\top A^{-1}x \le 0`
    is a mistake.

    The matrix changes on mistakes only (the paper's algorithm); a
    variant that adds every instance to the matrix is a different
    algorithm.

    Parameters
    ----------
    a : float, default=1.0
        The regulariser a > 0 of :math:`aI`.
    kernel : {None, "linear", "poly", "rbf"}, default=None
        None: the primal form; otherwise the dual form with this kernel.
    degree : int, default=3
    gamma : float or None, default=None
        Kernel γ; None means ``1 / n_features``.
    coef0 : float, default=0.0
    form : {"auto", "primal", "dual"}, default="auto"
        ``"primal"`` keeps :math:`A^{-1}` (n × n per problem),
        ``"dual"`` :math:`(aI + K)^{-1}` over the mistaken instances.
        ``"auto"``: dual with a kernel, else primal.
    normalize : bool, default=False
        Divide every instance by its Euclidean norm (with a kernel, use
        :math:`k(x,z)/\sqrt{k(x,x)k(z,z)}`), in training and prediction.
    cache_size : float, default=200
        MB of kernel rows kept between passes (dual form).
    max_iter : int, default=1
        Passes over the data.
    shuffle : bool or "blocks", default=True
        A fresh random order for each pass.
        "blocks": a windowed shuffle for data larger than the cache
        (:func:`~perceptrons.utils.random.draw_order`).
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    form_ : str
    coef_ : ndarray of shape (n_problems, n_features) or None
        :math:`w = A^{-1}v` (primal form and the linear kernel; None with
        other kernels). ``intercept_`` is zeros.
    intercept_ : ndarray of shape (n_problems,)
    support_vectors_ : ndarray or CSR matrix of shape (n_support, n_features) or None
        The mistaken instances (dual form).
    dual_coef_ : ndarray of shape (n_problems, n_support) or None
        β by support vector, summed over repeated instances.
    n_mistakes_ : int
        Summed over the one-vs-rest problems.
    n_mistakes_per_problem_ : ndarray of shape (n_problems,), int64
    n_matrix_updates_ : int
        Equal to ``n_mistakes_`` (every mistake updates the matrix).
    n_updates_, mistakes_per_epoch_, updates_per_epoch_, n_iter_, t_
        As for every estimator of the package.
    gamma_ : float or None
    n_features_in_ : int

    Notes
    -----
    ``decision_function`` returns the paper's margin
    :math:`v^\top(A + xx^\top)^{-1}x = v^\top A^{-1}x / (1 + x^\top
    A^{-1}x)`; in dual form :math:`x^\top A^{-1}x = (k(x,x) -
    \kappa^\top(aI+K)^{-1}\kappa)/a`. One-vs-rest predicts the class of
    largest margin.

    References
    ----------
    .. [1] N. Cesa-Bianchi, A. Conconi and C. Gentile. A second-order
       perceptron algorithm. SIAM Journal on Computing 34(3):640-668, 2005.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from perceptrons import SecondOrderPerceptron
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = SecondOrderPerceptron(a=1.0, random_state=0).fit(X / 16, y)
    >>> clf.form_
    'primal'
    """

    _parameter_constraints = {
        **MatrixPerceptronBase._parameter_constraints,
        "a": [Interval(Real, 0, None, closed="neither")],
        "form": [StrOptions({"auto", "primal", "dual"})],
    }

    _model_state = MatrixPerceptronBase._model_state + (
        "_v", "_A_inv", "_inverse", "_mistake_slots", "_mistake_signs",
        "_n_mistaken")

    def __init__(self, *, a=1.0, kernel=None, degree=3, gamma=None, coef0=0.0,
                 form="auto", normalize=False, cache_size=200, max_iter=1,
                 shuffle=True, random_state=None):
        self.a = a
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.form = form
        self.normalize = normalize
        self.cache_size = cache_size
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state

    @classmethod
    def _test_params(cls):
        """Parameter sets the common estimator checks run with."""
        return [{}, {"kernel": "rbf", "normalize": True, "max_iter": 2}]

    _precision_remedy = "raise a or normalise the input (normalize=True)"

    # ----------------------------------------------------------- state
    def _allocate_matrix(self, n_problems, n_features):
        self._v = self._A_inv = None
        self._inverse = self._mistake_slots = self._mistake_signs = None
        self._n_mistaken = None
        if self.form_ == "primal":
            self._v = np.zeros((n_problems, n_features))
            self._A_inv = np.repeat(np.eye(n_features)[None] / float(self.a),
                                    n_problems, axis=0)
        else:
            self._inverse = np.zeros((n_problems, 0, 0))
            self._mistake_slots = np.zeros((n_problems, 0), dtype=np.int64)
            self._mistake_signs = np.zeros((n_problems, 0))
            self._n_mistaken = np.zeros(n_problems, dtype=np.int64)

    def _begin_dual_matrix(self, dual):
        dual.inverse = (self._inverse.copy(), self._mistake_slots.copy(),
                        self._mistake_signs.copy(), self._n_mistaken.copy())

    def _end_dual_matrix(self, dual, m):
        M, slots, signs, n_mistaken = dual.inverse
        q = int(n_mistaken.max()) if n_mistaken.size else 0
        self._inverse = np.ascontiguousarray(M[:, :q, :q])
        self._mistake_slots = np.ascontiguousarray(slots[:, :q])
        self._mistake_signs = np.ascontiguousarray(signs[:, :q])
        self._n_mistaken = n_mistaken

    def _matrix_is_finite(self):
        arrays = [a for a in (self._v, self._A_inv, self._inverse)
                  if a is not None]
        return all(np.isfinite(a).all() for a in arrays)

    # ----------------------------------------------------------- passes
    def _primal_epoch(self, call, targets, order):
        return so_primal_epoch(*call.rows, targets, order, self._A_inv,
                               self._v, self.coef_, call.counts, call.stats,
                               call.x_work,
                               call.nz_work)

    def _dual_epoch(self, dual, order):
        dual.inverse, failed = so_dual_epoch(
            *dual.loop_args, dual.targets, order, float(self.a), dual.coef,
            dual.inverse, dual.counts, dual.stats)
        return failed

    # ----------------------------------------------------------- prediction
    def _primal_decision(self, X, norms):
        if norms is not None:
            X = divide_rows(X, np.where(norms > 0, norms, 1.0))
        raw = np.asarray(X @ self.coef_.T)
        out = np.empty_like(raw)
        for k in range(raw.shape[1]):
            XA = np.asarray(X @ self._A_inv[k])
            quad = (np.asarray(X.multiply(XA).sum(axis=1)).ravel()
                    if sp.issparse(X) else np.einsum("ij,ij->i", X, XA))
            out[:, k] = raw[:, k] / (1.0 + quad)
        return out

    def _dual_decision(self, X):
        n_problems = self.dual_coef_.shape[0]
        out = np.zeros((X.shape[0], n_problems))
        if self.dual_coef_.shape[1] == 0:
            return out
        a = float(self.a)
        for lo, hi, G in self._gram_blocks(X):
            raw = G @ self.dual_coef_.T
            diag = self._diag_of(X[lo:hi])
            for k in range(n_problems):
                q = self._n_mistaken[k]
                kappa = G[:, self._mistake_slots[k, :q]]
                M = self._inverse[k, :q, :q]
                quad = (diag - np.einsum("ij,ij->i", kappa @ M, kappa)) / a
                out[lo:hi, k] = raw[:, k] / (1.0 + quad)
        return out

