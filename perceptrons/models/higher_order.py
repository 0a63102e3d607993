"""The Higher-order Perceptron HO_p(c) of Brotto, Gentile & Vitale (2006).

The compiled passes are in :mod:`perceptrons._loops.higher_order`; forms,
normalisation, kernels and one-vs-rest are
:class:`~perceptrons.models._matrix_perceptron.MatrixPerceptronBase`'s.
"""

from numbers import Real

import numpy as np

from .._loops.higher_order import ho_dual_epoch, ho_implicit_epoch, ho_primal_epoch
from ..utils._param_validation import Interval, StrOptions
from ._matrix_perceptron import MatrixPerceptronBase

__all__ = ["HigherOrderPerceptron"]

# form="auto" keeps A = BᵀB (n² floats per problem) up to this many features.
_PRIMAL_MAX_FEATURES = 1024


class HigherOrderPerceptron(MatrixPerceptronBase):
    r"""Higher-order Perceptron HO_p(c), Brotto, Gentile & Vitale [1]_.

    A Perceptron whose sum vector v is read through a product matrix B
    built from the mistaken instances. On the k-th mistake, with ``x`` the
    instance (normalised, as the paper assumes) and :math:`\rho_k = c/k`
    (Figure 1; Sec. 3 for p > 2):

    .. math::

        B_k = B_{k-1}(I - \rho_k\, x\, g(x)^\top), \qquad
        v_k = v_{k-1} + y\, x,

    and a trial predicts :math:`\mathrm{sign}(w^\top x)` with
    :math:`w = B_k^\top g(B_k v_k)`, :math:`g = \nabla\|\theta\|_p^2/2`
    (the identity for p = 2). ``c = 0`` is the p-norm Perceptron (FO for
    p = 2); :math:`y\, w^\top x \le 0` is a mistake (ties are mistakes, as
    everywhere in the package).

    Parameters
    ----------
    p : float, default=2
        The norm, p >= 2.
    c : float, default=0.4
        :math:`\rho_k = c/k`, 0 <= c < 1 (the paper tries 0 to 0.8; 0.4 is
        in the middle of its best settings).
    sparse : bool, default=False
        The sparse variant of Sec. 4: :math:`\rho_k = 0` (v updated, B
        not) when :math:`y\, v_{k-1}^\top x < 0`.
    kernel : {None, "linear", "poly", "rbf"}, default=None
        None: the primal forms; otherwise the dual form with this kernel
        (p = 2 only).
    degree : int, default=3
        Polynomial kernel :math:`(\gamma\langle x, z\rangle + c_0)^d`.
    gamma : float or None, default=None
        Kernel γ; None means ``1 / n_features``.
    coef0 : float, default=0.0
        :math:`c_0` of the polynomial kernel.
    form : {"auto", "primal", "dual", "implicit"}, default="auto"
        How B is kept (Sec. 2): ``"primal"`` keeps :math:`A = B^\top B`
        (n × n; p = 2), ``"implicit"`` the rank-one factors of B (any p),
        ``"dual"`` the paper's D, H, g over the mistaken instances (kernels;
        p = 2). ``"auto"``: dual with a kernel, primal for p = 2 and at
        most 1024 features, implicit otherwise. All forms make the same
        mistakes and predictions (to rounding).
    normalize : bool, default=True
        Divide every instance by its p-norm (with a kernel, use
        :math:`k(x,z)/\sqrt{k(x,x)k(z,z)}`), in training and prediction;
        the paper assumes :math:`\|x\| = 1`. A row of norm 0 is refused.
    cache_size : float, default=200
        MB of kernel rows kept between passes (dual form; never changes a
        result).
    max_iter : int, default=1
        Passes over the data (the paper's OCR runs make one).
    shuffle : bool or "blocks", default=True
        Present each pass in a fresh random order (one order for all
        one-vs-rest problems). The paper's runs use the file order
        (``shuffle=False``).
        "blocks": a windowed shuffle for data larger than the cache
        (:func:`~perceptrons.utils.random.draw_order`).
    random_state : int, RandomState instance or None, default=None
        Seeds the orders.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    form_ : str
        The form in use.
    coef_ : ndarray of shape (n_problems, n_features) or None
        w of each problem (primal forms and the linear kernel; None with
        other kernels). There is no
        threshold: ``intercept_`` is zeros.
    intercept_ : ndarray of shape (n_problems,)
    support_vectors_ : ndarray or CSR matrix of shape (n_support, n_features) or None
        The mistaken instances (dual form).
    dual_coef_ : ndarray of shape (n_problems, n_support) or None
        :math:`w = \sum_s` ``dual_coef_[k, s]`` :math:`\phi(s)` (normalised
        φ when ``normalize``); the paper's g of Sec. 2, 2), summed over
        repeated instances.
    n_mistakes_ : int
        Mistakes made while training, summed over the one-vs-rest problems
        (the paper's "Train" column).
    n_mistakes_per_problem_ : ndarray of shape (n_problems,), int64
        k of each problem.
    n_matrix_updates_ : int
        Mistakes with :math:`\rho_k > 0` (B updated), summed over problems.
    n_updates_ : int
        Updates of v: equal to ``n_mistakes_``.
    mistakes_per_epoch_, updates_per_epoch_ : ndarray of shape (n_epochs,)
    n_iter_, t_ : int
        Passes made; examples presented.
    gamma_ : float or None
        The kernel γ in use (dual form).
    n_features_in_ : int

    See Also
    --------
    SecondOrderPerceptron : the second-order baseline of [1]_.
    Perceptron : ``Perceptron(eta=1, theta_init=0, threshold_step=0,
        hypothesis="last")`` is HO₂(0) on rows of unit norm.

    Notes
    -----
    Dual form (Sec. 2, 2)): with :math:`X_q` the instances whose mistake
    updated B, :math:`A = I + X_q D X_q^\top`, :math:`h = X_q^\top v` and
    :math:`w = v + X_q D h`. On a mistake with :math:`\rho_k > 0` and
    :math:`\kappa = X_q^\top x`, :math:`b = D\kappa`, D is bordered by
    :math:`-\rho_k b` and
    :math:`d_{kk} = \rho_k^2(\kappa^\top b + k(x,x)) - 2\rho_k` (the paper's
    :math:`\rho^2 x^\top X b - 2\rho + \rho^2` at :math:`k(x,x) = 1`), and h
    by :math:`v_{k-1}^\top x + y\,k(x,x)`. Only instances with
    :math:`\rho_k > 0` enter D, so a mistake costs O(q²) in the matrix
    updates q, not in the mistakes.

    One-vs-rest: each class has its own B, v and k (so :math:`\rho_k =
    c/k` counts that problem's mistakes); a test row goes to the class of
    largest :math:`w^\top x`.

    References
    ----------
    .. [1] C. Brotto, C. Gentile and F. Vitale. On higher-order perceptron
       algorithms. NIPS 20, 2007.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from perceptrons import HigherOrderPerceptron
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = HigherOrderPerceptron(c=0.4, random_state=0).fit(X, y)
    >>> clf.form_, clf.n_mistakes_ == clf.n_matrix_updates_
    ('primal', True)
    """

    _parameter_constraints = {
        **MatrixPerceptronBase._parameter_constraints,
        "p": [Interval(Real, 2, None, closed="left")],
        "c": [Interval(Real, 0, 1, closed="left")],
        "sparse": ["boolean"],
        "form": [StrOptions({"auto", "primal", "dual", "implicit"})],
    }

    _forms = ("primal", "implicit", "dual")

    _model_state = MatrixPerceptronBase._model_state + (
        "_v", "_A", "_factors", "_v_coef", "_D", "_matrix_slots", "_h",
        "_n_matrix")

    def __init__(self, *, p=2.0, c=0.4, sparse=False, kernel=None, degree=3,
                 gamma=None, coef0=0.0, form="auto", normalize=True,
                 cache_size=200, max_iter=1, shuffle=True, random_state=None):
        self.p = p
        self.c = c
        self.sparse = sparse
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
        return [{}, {"p": 4.0, "sparse": True, "max_iter": 3},
                {"kernel": "rbf", "max_iter": 2}]

    _precision_remedy = "normalise the input (normalize=True) or lower c"

    # ----------------------------------------------------------- forms
    def _norm_p(self):
        return float(self.p)

    def _auto_form(self, n_features):
        if self.kernel is not None:
            return "dual"
        if self.p == 2 and n_features <= _PRIMAL_MAX_FEATURES:
            return "primal"
        return "implicit"

    def _resolve_form(self, n_features):
        form = super()._resolve_form(n_features)
        if form in ("primal", "dual") and self.p != 2:
            raise ValueError(f"form={form!r} needs p=2 (got p={self.p}); "
                             "the implicit form takes any p")
        return form

    # ----------------------------------------------------------- state
    def _allocate_matrix(self, n_problems, n_features):
        self._v = self._A = self._factors = None
        self._v_coef = self._D = self._matrix_slots = self._h = None
        self._n_matrix = None
        if self.form_ == "primal":
            self._v = np.zeros((n_problems, n_features))
            self._A = np.repeat(np.eye(n_features)[None], n_problems, axis=0)
        elif self.form_ == "implicit":
            self._v = np.zeros((n_problems, n_features))
            self._factors = (
                np.zeros((n_problems, 0)), np.zeros((n_problems, 0)),
                np.zeros((n_problems, 0), dtype=np.int64),
                np.zeros((n_problems, 1), dtype=np.int64),
                np.zeros((n_problems, 0)),
                np.zeros(n_problems, dtype=np.int64))
        else:
            self._v_coef = np.zeros((n_problems, 0))
            self._D = np.zeros((n_problems, 0, 0))
            self._matrix_slots = np.zeros((n_problems, 0), dtype=np.int64)
            self._h = np.zeros((n_problems, 0))
            self._n_matrix = np.zeros(n_problems, dtype=np.int64)

    def _begin_dual_matrix(self, dual):
        n_pool = dual.n_pool
        dual.v_coef = np.zeros_like(dual.coef)
        dual.v_coef[:, :n_pool] = self._v_coef
        dual.matrix = (self._D.copy(), self._matrix_slots.copy(),
                       self._h.copy(), self._n_matrix.copy())

    def _end_dual_matrix(self, dual, m):
        D, slots, h, n_matrix = dual.matrix
        q = int(n_matrix.max()) if n_matrix.size else 0
        self._v_coef = np.ascontiguousarray(dual.v_coef[:, :m])
        self._D = np.ascontiguousarray(D[:, :q, :q])
        self._matrix_slots = np.ascontiguousarray(slots[:, :q])
        self._h = np.ascontiguousarray(h[:, :q])
        self._n_matrix = n_matrix

    def _matrix_is_finite(self):
        arrays = [a for a in (self._v, self._A, self._D, self._h)
                  if a is not None]
        if self._factors is not None:
            arrays += [self._factors[0], self._factors[1], self._factors[4]]
        return all(np.isfinite(a).all() for a in arrays)

    # ----------------------------------------------------------- passes
    def _primal_epoch(self, call, targets, order):
        head = (*call.rows, targets, order, float(self.c))
        if self.form_ == "primal":
            ho_primal_epoch(*head, bool(self.sparse), self._A, self._v,
                            self.coef_, call.counts, call.stats, call.x_work,
                            call.nz_work)
        else:
            self._factors = ho_implicit_epoch(
                *head, float(self.p), bool(self.sparse), self._factors,
                self._v, self.coef_, call.counts, call.stats, call.x_work,
                call.nz_work)
        return 0

    def _dual_epoch(self, dual, order):
        dual.matrix = ho_dual_epoch(
            *dual.loop_args, dual.targets, order, float(self.c),
            bool(self.sparse), dual.coef, dual.v_coef, dual.matrix,
            dual.counts, dual.stats)
        return 0

    # ----------------------------------------------------------- prediction
    def _primal_decision(self, X, norms):
        scores = np.asarray(X @ self.coef_.T)
        if norms is not None:
            scores = np.divide(scores, norms[:, None],
                               out=np.zeros_like(scores),
                               where=norms[:, None] > 0)
        return scores

    def _dual_decision(self, X):
        out = np.zeros((X.shape[0], self.dual_coef_.shape[0]))
        if self.dual_coef_.shape[1] == 0:
            return out
        for lo, hi, G in self._gram_blocks(X):
            out[lo:hi] = G @ self.dual_coef_.T
        return out
