"""The perceptron family of Khardon & Wachman (2007), Figure 2, in dual form."""

import numpy as np
import scipy.sparse as sp

from .._loops.mercer import KERNEL_LINEAR, KERNELS
from .._loops.perceptron_dual import (
    dual_prototype_perceptron_epoch,
    dual_threshold_perceptron_epoch,
)
from ..utils._param_validation import StrOptions
from ._family import ThresholdFamilyBase
from ._kernel import KernelMixin, linear_coef
from ._voted import _BLOCK_ROWS


class KernelPerceptron(KernelMixin, ThresholdFamilyBase):
    r"""Kernel perceptron with margin, λ-trick, α-bound and voting (dual form).

    The algorithm family of :class:`~perceptrons.Perceptron` (Khardon &
    Wachman [1]_, Figure 2) run in the dual form of Sec. 2.1: the weight
    vector of each problem is kept as ``w = Σ_j η y_j α_j φ(x_j)`` over the
    training examples that caused an update, and inner products are replaced
    by a Mercer kernel ``k(x, z) = <φ(x), φ(z)>``. Every option of
    ``Perceptron`` means the same here, in feature space; with
    ``kernel="linear"`` the two estimators make the same mistakes and
    predictions. The voted hypothesis is predicted incrementally from kernel
    values as in Freund & Schapire [2]_ (K&W Sec. 2.5).

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf"}, default="poly"
        The Mercer kernel: ``<x, z>``; ``(γ <x, z> + coef0)^degree``; or
        ``exp(-γ ‖x - z‖²)``. The default follows [1]_ (Table 7: degree-4
        polynomial kernels on USPS and MNIST) and [2]_ (polynomial kernels).
    degree : int, default=3
        Degree of the "poly" kernel.
    gamma : float or None, default=None
        γ of the "poly" and "rbf" kernels; None means ``1 / n_features``
        (as :func:`sklearn.metrics.pairwise.polynomial_kernel`).
    coef0 : float, default=1.0
        Additive constant of the "poly" kernel (≥ 0 keeps it a Mercer
        kernel; 1 includes every monomial up to ``degree``).
    eta : float, default=0.1
        Learning rate η of Figure 2 (K&W Sec. 3.2 use 0.1).
    theta_init : float or "auto", default="auto"
        Initial threshold θ_Init; "auto" is the average
        ``k(x, x) = ‖φ(x)‖²`` over the training set of the first
        ``fit``/``partial_fit`` call (the average ⟨x, x⟩ of ``Perceptron``
        for the linear kernel).
    threshold_step : float or "auto", default="auto"
        C of Figure 2: an update on label y moves θ by ``-η y C``. "auto"
        is the average ``k(x, x)``, as ``theta_init``.
    margin : float, default=0.0
        τ of Sec. 2.4, absolute: update when ``y(SUM - θ) <= margin``.
    tau : float or None, default=None
        τ of Sec. 2.4 in units of θ_Init, as K&W state it (Sec. 3.2 grid
        0, 0.125, ..., 4): the margin used is ``tau * theta_init_``, θ_Init
        resolved in ``fit`` (for "auto", from the training data of the
        call), so ``GridSearchCV`` can search it. None: use ``margin``.
        Setting both ``tau`` and a non-zero ``margin`` is an error.
    lam : float, default=0.0
        λ of the λ-trick, Eq. (1), with ``‖x‖²`` read in feature space:
        examples that already caused an update get ``y λ k(x, x)`` added
        to SUM when training.
    alpha_bound : int or None, default=None
        α-bound of Sec. 2.3: the most updates one example may cause (None:
        unbounded).
    hypothesis : {"last", "longest", "voted", "averaged"}, default="last"
        Final hypothesis (Sec. 2.5), as in ``Perceptron``.
    multiclass : {"ovr", "prototype"}, default="ovr"
        One-vs-rest, all problems trained in one pass and sharing each
        kernel evaluation (Sec. 2.7), or one prototype per class (dual
        coefficients per class), as in ``Perceptron``.
    max_iter : int, default=10
        Passes over the training data in ``fit``.
    shuffle : bool, default=True
        Present the rows in a fresh random order each pass.
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffling; the same seed gives the same model bit for bit.
    cache_size : float, default=200
        Memory (MB) for the kernel cache kept across the epochs of one
        call: up to ``cache_size / (8 n_samples)`` kernel values per
        training row, for the first support vectors; the others are
        recomputed when needed. The cache changes speed only, never a
        result. 0 disables it.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    support_ : ndarray of shape (n_support,), int64
        Training rows with a non-zero dual coefficient in the final
        hypothesis; for ``"voted"``, every row that ever caused an update.
        Indices into X for ``fit``; for ``partial_fit``, into the
        concatenation of the batches of all calls since the first.
    support_vectors_ : {ndarray, sparse matrix} of shape (n_support, n_features)
        Those rows (CSR when the training data was).
    dual_coef_ : ndarray of shape (n_problems, n_support)
        Coefficients ``η y α`` of the final hypothesis per problem (one row
        for two classes, one per class otherwise or with "prototype"):
        the last, longest-survivor or averaged ones; for ``"voted"``, the
        last hypothesis (prediction uses the vote).
    intercept_ : ndarray of shape (n_problems,)
        ``-θ`` of the final hypothesis.
    coef_ : ndarray of shape (n_problems, n_features)
        ``dual_coef_ @ support_vectors_``, for ``kernel="linear"`` only.
    gamma_ : float
        γ used, None resolved.
    theta_init_, threshold_step_ : float
        The θ_Init and C used, "auto" resolved.
    margin_ : float
        The absolute margin used: ``margin``, or ``tau * theta_init_``.
    n_mistakes_ : int
        Online prediction mistakes during training, ties counted as
        mistakes (as in ``Perceptron``).
    n_updates_ : int
        Updates made, summed over the one-vs-rest problems.
    mistakes_per_epoch_, updates_per_epoch_ : ndarray of shape (n_iter_,)
    n_iter_ : int
        Passes made (``partial_fit`` adds one per call).
    t_ : int
        Examples presented.
    n_features_in_ : int

    See Also
    --------
    Perceptron : the same family in primal form.
    sklearn.svm.SVC : the attribute names ``support_``, ``dual_coef_``.

    Notes
    -----
    One step on example (x_i, y_i) of Figure 2 in dual form, for each
    binary problem, with S the examples that caused an update:

    .. math::

        \mathrm{SUM} = \sum_{j \in S} c_j\, k(x_j, x_i)
            + I_{\alpha_i \neq 0}\, y_i \lambda\, k(x_i, x_i), \qquad
        \text{if } y_i(\mathrm{SUM} - \theta) \le \tau
        \text{ and } \alpha_i < \alpha\text{-bound}:\quad
        c_i \leftarrow c_i + \eta y_i,\;
        \theta \leftarrow \theta - \eta y_i C,\;
        \alpha_i \leftarrow \alpha_i + 1,

    so that ``c_j = η y_j α_j`` (Sec. 2.1). A training step costs one kernel
    evaluation per support vector, shared by all one-vs-rest problems, and
    the values are cached across epochs within ``cache_size``. With dense
    input the values are computed for blocks of 128 rows at a time by one
    BLAS product against the support held at the block's start (see
    :mod:`perceptrons._loops.support`); CSR input is never densified and gets
    its values row by row. The averaged
    hypothesis is kept lazily (``c - Σ (s-1) Δc_s / T``) and the longest
    survivor is a copy of the coefficients, taken once per new best run.
    Per-example state (α_i and the λ-trick's indicator) lives for one
    ``fit`` call; a ``partial_fit`` call starts its rows at zero and adds
    the rows that caused an update to the support vectors.

    ``KernelPerceptron(kernel="linear")`` is ``Perceptron`` with the same
    parameters (equal up to rounding in the order of summation).

    .. warning::
       As ``Perceptron``, we update the threshold by ``θ ← θ - η y C``,
       not ``θ ← θ + η y C`` as printed in Figures 1 and 2 of [1]_; see the
       first warning of :class:`~perceptrons.Perceptron` for why.

    .. warning::
       The vote includes the initial hypothesis (w = 0, θ = θ_Init) with
       its votes, as Freund & Schapire [2]_ do (Figure 2 of [1]_ loops over
       ``1..k``).

    References
    ----------
    .. [1] R. Khardon and G. Wachman. Noise tolerant variants of the
       perceptron algorithm. JMLR 8:227-248, 2007.
       https://www.jmlr.org/papers/v8/khardon07a.html
    .. [2] Y. Freund and R. E. Schapire. Large margin classification using
       the perceptron algorithm. Machine Learning 37(3):277-296, 1999.
       https://doi.org/10.1023/A:1007662407062
    .. [3] N. Cristianini and J. Shawe-Taylor. An Introduction to Support
       Vector Machines. Cambridge University Press, 2000 (Sec. 2.1.1, the
       dual perceptron).

    Examples
    --------
    >>> from sklearn.datasets import make_circles
    >>> from perceptrons import KernelPerceptron
    >>> X, y = make_circles(n_samples=200, factor=0.3, noise=0.05,
    ...                     random_state=0)
    >>> clf = KernelPerceptron(kernel="rbf", gamma=2.0, random_state=0)
    >>> clf.fit(X, y).score(X, y) > 0.95
    True
    >>> clf.dual_coef_.shape == (1, clf.support_.shape[0])
    True
    """

    _parameter_constraints = {
        **ThresholdFamilyBase._parameter_constraints,
        "kernel": [StrOptions(set(KERNELS))],
        **KernelMixin.KERNEL_CONSTRAINTS,
    }

    def __init__(self, *, kernel="poly", degree=3, gamma=None, coef0=1.0,
                 eta=0.1, theta_init="auto", threshold_step="auto",
                 margin=0.0, tau=None, lam=0.0, alpha_bound=None, hypothesis="last",
                 multiclass="ovr", max_iter=10, shuffle=True,
                 random_state=None, cache_size=200):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.eta = eta
        self.theta_init = theta_init
        self.threshold_step = threshold_step
        self.margin = margin
        self.tau = tau
        self.lam = lam
        self.alpha_bound = alpha_bound
        self.hypothesis = hypothesis
        self.multiclass = multiclass
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.cache_size = cache_size

    @classmethod
    def _test_params(cls):
        """Parameter sets the common estimator checks run with."""
        return [
            {},
            {"kernel": "rbf", "hypothesis": "voted"},
            {"kernel": "linear", "hypothesis": "averaged",
             "multiclass": "prototype"},
            {"kernel": "rbf", "hypothesis": "longest", "margin": 0.5,
             "lam": 0.5, "alpha_bound": 3, "cache_size": 0},
            {"hypothesis": "voted", "multiclass": "prototype", "eta": 1.0,
             "theta_init": 0.0, "threshold_step": 0.0},
        ]

    # ----------------------------------------------------------- state
    _model_state = ThresholdFamilyBase._model_state + (
        "gamma_", "_kernel_code", "support_", "support_vectors_",
        "dual_coef_", "_support_sq", "_pool_X", "_pool_sq", "_pool_index",
        "_pool_coef", "_pool_acc", "_pool_ls", "_n_rows_seen")

    _AUTO_AVERAGE = "k(x, x)"
    _AUTO_REMEDY = "scale the input or lower degree/gamma"

    def _auto_average(self, call):
        """Average ``k(x_i, x_i)`` over this call's rows, for "auto"."""
        # For the linear kernel, the average <x_i, x_i> itself: bit for bit
        # Perceptron's.
        if self._kernel_code == KERNEL_LINEAR:
            return call.mean_sq_norm
        return float(np.mean(self._kernel_diag(call.sq_norms)))

    def _allocate(self, call, n_classes):
        # The kernel is resolved first: "auto" averages k(x, x).
        self._resolve_kernel(call.X.shape[1])
        n_rows = self._allocate_family_state(call, n_classes)
        # The pool: every row that caused an update in an earlier call,
        # with its raw, accumulated and longest-survivor coefficients.
        self._pool_X = None
        self._pool_sq = np.zeros(0)
        self._pool_index = np.zeros(0, dtype=np.int64)
        self._pool_coef = np.zeros((n_rows, 0))
        self._pool_acc = np.zeros((n_rows, 0))
        self._pool_ls = np.zeros((n_rows, 0))
        self._n_rows_seen = 0
        if self.hypothesis == "voted":
            self._voted = self._new_voted_log()

    def _begin_call(self, call):
        dual = self._new_kernel_call(call.X, call.sq_norms, call.n_passes)
        # One column per row of this call: a support vector's slot.
        dual.coef, dual.coef_avg_acc, dual.coef_ls = self._zero_weights(
            self._theta.shape[0], call.X.shape[0])
        dual.base_scores = self._pool_scores(call.X)
        dual.best_tally_start = self._best_tally.copy()
        call.dual = dual
        super()._begin_call(call)

    def _pool_scores(self, X):
        """Score contributions of the earlier calls' support vectors."""
        n_rows = self._theta.shape[0]
        if self._pool_index.shape[0] == 0:
            return np.zeros((0, n_rows))
        out = np.empty((X.shape[0], n_rows))
        for lo in range(0, X.shape[0], _BLOCK_ROWS):
            hi = min(lo + _BLOCK_ROWS, X.shape[0])
            G = self._gram_block(X[lo:hi], self._pool_X, self._pool_sq)
            out[lo:hi] = G @ self._pool_coef.T
        return out

    def _run_epoch(self, call, targets, order):
        dual = call.dual
        head = (*dual.loop_args, targets, order, dual.base_scores, dual.coef,
                self._theta)
        return self._run_family_epoch(
            call, dual_threshold_perceptron_epoch,
            dual_prototype_perceptron_epoch, head, dual.coef_avg_acc,
            dual.coef_ls)

    def _state_is_finite(self, call):
        dual = call.dual
        return bool(np.isfinite(dual.coef[:, :dual.support_size]).all()
                    and np.isfinite(self._theta).all())

    def _end_call(self, call, targets):
        X, dual = call.X, call.dual
        m = dual.support_size
        slots = dual.support[:m]
        perm = np.argsort(slots, kind="stable")
        used = slots[perm]  # this call's new support vectors, by row index
        n_old = self._pool_index.shape[0]
        if self.hypothesis == "longest" and n_old:
            # A snapshot retaken during this call holds the old support
            # vectors' coefficients as they were (fixed during the call).
            renewed = self._best_tally > dual.best_tally_start
            if self._prototype:
                rows = np.arange(self._theta.shape[0] if renewed[0] else 0)
            else:
                rows = np.flatnonzero(renewed)
            self._pool_ls[rows] = self._pool_coef[rows]
        if m:
            new_X = X[used]
            if self._pool_X is None:
                self._pool_X = new_X
            elif sp.issparse(new_X):
                self._pool_X = sp.vstack([self._pool_X, new_X], format="csr")
            else:
                self._pool_X = np.vstack([self._pool_X, new_X])
            self._pool_sq = np.concatenate([self._pool_sq,
                                            dual.sq_norms[used]])
            self._pool_index = np.concatenate(
                [self._pool_index, self._n_rows_seen + used])
            self._pool_coef = np.hstack([self._pool_coef,
                                         dual.coef[:, :m][:, perm]])
            if self.hypothesis == "averaged":
                self._pool_acc = np.hstack(
                    [self._pool_acc, dual.coef_avg_acc[:, :m][:, perm]])
            if self.hypothesis == "longest":
                self._pool_ls = np.hstack([self._pool_ls,
                                           dual.coef_ls[:, :m][:, perm]])
        if self.hypothesis == "voted":
            # Pool slots n_old, n_old + 1, ... hold the rows of used.
            self._extend_voted(call, used, n_old, targets)
        self._n_rows_seen += X.shape[0]
        self._set_public()

    def _set_public(self):
        coef, self.intercept_ = self._final_hypothesis(
            self._pool_coef, self._pool_acc, self._pool_ls)
        if self.hypothesis == "voted":
            keep = np.ones(coef.shape[1], dtype=bool)
        else:
            keep = np.any(coef != 0.0, axis=0)
        self.support_ = self._pool_index[keep]
        self.dual_coef_ = np.ascontiguousarray(coef[:, keep])
        self._support_sq = self._pool_sq[keep]
        if self._pool_X is None:
            self.support_vectors_ = np.zeros((0, self.n_features_in_))
        elif keep.all():
            self.support_vectors_ = self._pool_X
        else:
            self.support_vectors_ = self._pool_X[np.flatnonzero(keep)]

    @property
    def coef_(self):
        """Primal weights ``dual_coef_ @ support_vectors_`` (linear kernel only)."""
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when kernel='linear'")
        if not hasattr(self, "dual_coef_"):
            raise AttributeError("coef_ is set by fit or partial_fit")
        return linear_coef(self.dual_coef_, self.support_vectors_)

    # ----------------------------------------------------------- prediction
    def _hypothesis_scores(self, X):
        scores = np.empty((X.shape[0], self.dual_coef_.shape[0]))
        if self.support_.shape[0] == 0:
            scores[:] = 0.0
        else:
            for lo in range(0, X.shape[0], _BLOCK_ROWS):
                hi = min(lo + _BLOCK_ROWS, X.shape[0])
                G = self._gram_block(X[lo:hi], self.support_vectors_,
                                     self._support_sq)
                scores[lo:hi] = G @ self.dual_coef_.T
        scores += self.intercept_
        return scores

    def _voted_support(self):
        # The vote replays updates against every pool row, zero or not.
        def gram(block):
            return self._gram_block(block, self._pool_X, self._pool_sq)

        return self._pool_index.shape[0], gram
