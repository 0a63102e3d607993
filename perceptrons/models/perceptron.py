"""The perceptron family of Khardon & Wachman (2007), Figure 2."""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils.extmath import safe_sparse_dot

from .._loops.multiclass import prototype_perceptron_epoch
from .._loops.perceptron import (
    HYPOTHESIS_AVERAGED,
    HYPOTHESIS_LAST,
    HYPOTHESIS_LONGEST,
    HYPOTHESIS_VOTED,
    threshold_perceptron_epoch,
)
from ..utils._param_validation import Interval, StrOptions
from ._base import BaseOnlinePerceptron
from ._voted import VotedLog, voted_binary_scores, voted_prototype_scores

_HYPOTHESES = {
    "last": HYPOTHESIS_LAST,
    "longest": HYPOTHESIS_LONGEST,
    "voted": HYPOTHESIS_VOTED,
    "averaged": HYPOTHESIS_AVERAGED,
}


class Perceptron(BaseOnlinePerceptron):
    r"""Threshold perceptron with margin, λ-trick, α-bound and voting.

    The algorithm family of Khardon & Wachman [1]_, Figure 2: a weight vector
    w and threshold θ predict ``sign(<w, x> - θ)``; an example is an update
    when :math:`y(\mathrm{SUM} - \theta) \le \tau` (PAM, Sec. 2.4), where
    SUM adds the λ-trick term of Eq. (1), unless the example has already
    caused ``alpha_bound`` updates (Sec. 2.3). The final hypothesis is the
    last one, the longest survivor, the vote of all hypotheses [2]_, or their
    average [3]_. With ``theta_init=0, threshold_step=0, eta=1`` it is
    Rosenblatt's perceptron through the origin [4]_.

    Parameters
    ----------
    eta : float, default=0.1
        Learning rate η of Figure 2 (K&W Sec. 3.2 use 0.1).
    theta_init : float or "auto", default="auto"
        Initial threshold θ_Init; "auto" is the average ⟨x, x⟩ over the
        training set of the first ``fit``/``partial_fit`` call (Sec. 3.2).
    threshold_step : float or "auto", default="auto"
        C of Figure 2: an update on label y moves θ by ``-η y C``. "auto"
        is the average ⟨x, x⟩, as ``theta_init``.
    margin : float, default=0.0
        τ of Sec. 2.4, absolute: update when ``y(SUM - θ) <= margin``
        (Figure 2's band ``θ-τ <= SUM <= θ+τ`` predicts ŷ = 0, hence ``<=``;
        the text of Sec. 2.4 writes ``<``). K&W state τ in units of θ_Init;
        pass ``tau * theta_init`` to follow them.
    lam : float, default=0.0
        λ of the λ-trick, Eq. (1): while training, examples that already
        caused an update (Figure 2's indicator ``α_i ≠ 0``, which counts
        margin updates too) get ``y λ ‖x‖²`` added to SUM.
    alpha_bound : int or None, default=None
        α-bound of Sec. 2.3: the most updates one example may cause (None:
        unbounded). As in Figure 2 an example is updated only while
        ``α_i < alpha_bound``, α_i counting its updates.
    hypothesis : {"last", "longest", "voted", "averaged"}, default="last"
        Final hypothesis (Sec. 2.5): the last (w, θ); the longest survivor
        (the hypothesis with the longest run of training steps where Figure
        2's ŷ equalled y, i.e. outside the τ band, λ term included); the
        voted perceptron, each hypothesis voting ``sign(<w_k, x> - θ_k)``
        with as many votes as such steps; or w and θ averaged over every
        example presented, each taken after that example's step. A step
        whose update the α-bound blocks neither adds a vote nor ends a run
        (Figure 2).
    multiclass : {"ovr", "prototype"}, default="ovr"
        With more than two classes (or "prototype" with two): one-vs-rest,
        all classes trained in one pass (Sec. 2.7), predicting the largest
        raw score; or one prototype per class, predicting
        ``argmax_r <w^r, x> - θ_r`` and, on an update, adding ``η x`` to the
        true class and subtracting it from the best other class
        (Shalev-Shwartz & Singer [5]_, Eq. 18; ties are mistakes and the
        lowest index wins among equals).
    max_iter : int, default=10
        Passes over the training data in ``fit`` (K&W use 100).
    shuffle : bool, default=True
        Present the rows in a fresh random order each pass.
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffling; the same seed gives the same model bit for bit.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_problems, n_features)
        Weights of the final hypothesis, one row per one-vs-rest problem
        (one row for two classes) or per prototype. For ``"voted"``, the
        last hypothesis (prediction uses the vote).
    intercept_ : ndarray of shape (n_problems,)
        ``-θ`` of the final hypothesis.
    theta_init_, threshold_step_ : float
        The θ_Init and C used, "auto" resolved.
    n_mistakes_ : int
        Online prediction mistakes during training, ties counted as
        mistakes: ``y(<w,x> - θ) <= 0`` for two classes under "ovr", the true
        class not scoring strictly highest otherwise (the λ term and τ are
        not part of this prediction).
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
    KernelPerceptron : the same family in dual form with Mercer kernels.

    Notes
    -----
    One step on example (x_i, y_i) of Figure 2, for each binary problem:

    .. math::

        \mathrm{SUM} = \langle w, x_i \rangle
            + I_{\alpha_i \neq 0}\, y_i \lambda \|x_i\|^2, \qquad
        \text{if } y_i(\mathrm{SUM} - \theta) \le \tau
        \text{ and } \alpha_i < \alpha\text{-bound}:\quad
        w \leftarrow w + \eta y_i x_i,\;
        \theta \leftarrow \theta - \eta y_i C,\;
        \alpha_i \leftarrow \alpha_i + 1.

    ``decision_function`` returns ``<w, x> - θ`` per problem (one column
    for two classes under "ovr"); for "voted", the vote totals; for
    "prototype" with two classes, the score of ``classes_[1]`` minus that of
    ``classes_[0]``. A score of exactly 0 predicts ``classes_[0]``, and among
    equal scores the lowest class index wins (the paper leaves sign(0)
    open).

    Per-example state (α_i and the λ-trick's indicator) lives for one
    ``fit`` call, across its epochs; a ``partial_fit`` call cannot tell
    whether its rows were seen before, so it starts them at zero.

    .. warning::
       Figures 1 and 2 of [1]_ print the threshold update as
       ``θ ← θ + η y C``. With prediction ``sign(<w,x> - θ)`` that moves θ
       *with* w and, for C = avg ⟨x,x⟩, cancels the weight update on
       average. We follow Cristianini & Shawe-Taylor's rule
       ``θ ← θ - η y C``, which the text of [1]_ says it follows: the update
       then improves the example's score by ``η(‖x‖² + C)``.

    .. warning::
       Figure 2 loops over hypotheses ``1..k`` when voting; we include the
       initial hypothesis (w = 0, θ = θ_Init) with its votes, as Freund &
       Schapire [2]_ do.

    References
    ----------
    .. [1] R. Khardon and G. Wachman. Noise tolerant variants of the
       perceptron algorithm. JMLR 8:227-248, 2007.
       https://www.jmlr.org/papers/v8/khardon07a.html
    .. [2] Y. Freund and R. E. Schapire. Large margin classification using
       the perceptron algorithm. Machine Learning 37(3):277-296, 1999.
    .. [3] M. Collins. Discriminative training methods for hidden Markov
       models. EMNLP 2002.
    .. [4] F. Rosenblatt. The perceptron: a probabilistic model for
       information storage and organization in the brain. Psychological
       Review 65(6):386-408, 1958.
    .. [5] S. Shalev-Shwartz and Y. Singer. A new perspective on an old
       perceptron algorithm. COLT 2005.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from perceptrons import Perceptron
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = Perceptron(hypothesis="voted", random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.95
    True
    """

    _parameter_constraints = {
        **BaseOnlinePerceptron._parameter_constraints,
        "eta": [Interval(Real, 0, None, closed="neither")],
        "theta_init": [Interval(Real, None, None, closed="neither"),
                       StrOptions({"auto"})],
        "threshold_step": [Interval(Real, 0, None, closed="left"),
                           StrOptions({"auto"})],
        "margin": [Interval(Real, 0, None, closed="left")],
        "lam": [Interval(Real, 0, None, closed="left")],
        "alpha_bound": [Interval(Integral, 1, None, closed="left"), None],
        "hypothesis": [StrOptions(set(_HYPOTHESES))],
        "multiclass": [StrOptions({"ovr", "prototype"})],
    }

    def __init__(self, *, eta=0.1, theta_init="auto", threshold_step="auto",
                 margin=0.0, lam=0.0, alpha_bound=None, hypothesis="last",
                 multiclass="ovr", max_iter=10, shuffle=True,
                 random_state=None):
        self.eta = eta
        self.theta_init = theta_init
        self.threshold_step = threshold_step
        self.margin = margin
        self.lam = lam
        self.alpha_bound = alpha_bound
        self.hypothesis = hypothesis
        self.multiclass = multiclass
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state

    @classmethod
    def _test_params(cls):
        """Parameter sets the common estimator checks run with."""
        return [
            {},
            {"hypothesis": "voted"},
            {"hypothesis": "averaged", "multiclass": "prototype"},
            {"hypothesis": "longest", "margin": 1.0, "lam": 0.5,
             "alpha_bound": 3},
            {"hypothesis": "voted", "multiclass": "prototype",
             "eta": 1.0, "theta_init": 0.0, "threshold_step": 0.0},
        ]

    # ----------------------------------------------------------- state
    def _allocate(self, X, n_classes):
        avg = None
        if self.theta_init == "auto" or self.threshold_step == "auto":
            avg = float(np.mean(self._call_sq_norms))
            if not np.isfinite(avg):
                raise ValueError(
                    "the average squared norm of the rows overflows float64 "
                    "(needed for theta_init/threshold_step='auto'); scale "
                    "the input")
        self.theta_init_ = avg if self.theta_init == "auto" else float(
            self.theta_init)
        self.threshold_step_ = avg if self.threshold_step == "auto" else float(
            self.threshold_step)
        self._prototype = self.multiclass == "prototype"
        n_rows = n_classes if (self._prototype or n_classes > 2) else 1
        d = X.shape[1]
        self._hypothesis_code = _HYPOTHESES[self.hypothesis]
        self._W = np.zeros((n_rows, d))
        self._theta = np.full(n_rows, self.theta_init_)
        n_counters = 1 if self._prototype else n_rows
        averaged = self.hypothesis == "averaged"
        longest = self.hypothesis == "longest"
        self._W_avg_acc = np.zeros((n_rows, d) if averaged else (n_rows, 0))
        self._theta_avg_acc = np.zeros(n_rows)
        self._W_ls = np.zeros((n_rows, d) if longest else (n_rows, 0))
        self._theta_ls = np.full(n_rows, self.theta_init_)
        self._tally = np.zeros(n_counters, dtype=np.int64)
        self._best_tally = np.zeros(n_counters, dtype=np.int64)
        self._ls_current = np.zeros(n_counters, dtype=np.int64)
        self._current_vote = np.zeros(n_counters, dtype=np.int64)
        self._n_updates_per_problem = np.zeros(n_counters, dtype=np.int64)
        self._scores = np.zeros(n_rows)
        if self.hypothesis == "voted":
            self._voted = VotedLog(n_counters)
            self._support_blocks = []
            self._n_support = 0

    def _begin_call(self, X):
        n_counters = self._tally.shape[0]
        self._alpha_counts = np.zeros((n_counters, X.shape[0]), dtype=np.int64)
        voted = self.hypothesis == "voted"
        n_log = X.shape[0] if voted else 0
        self._vote_log = np.zeros((n_counters, n_log), dtype=np.int64)
        self._update_log = np.zeros((n_counters, n_log), dtype=np.int64)
        self._other_log = np.zeros(n_log if self._prototype else 0,
                                   dtype=np.int64)
        self._call_log = []

    def _run_epoch(self, X, loop_arrays, targets, order):
        n_logged = np.zeros(self._tally.shape[0], dtype=np.int64)
        before = int(self._n_updates_per_problem.sum())
        common = (
            *loop_arrays, targets, order,
            self._call_sq_norms,
            self._W, self._theta,
            float(self.eta), float(self.threshold_step_), float(self.margin),
            float(self.lam),
            -1 if self.alpha_bound is None else int(self.alpha_bound),
            self._alpha_counts, self._hypothesis_code, self.t_,
            self._W_avg_acc, self._theta_avg_acc,
            self._W_ls, self._theta_ls, self._tally, self._best_tally,
            self._ls_current, self._current_vote, self._vote_log,
            self._update_log,
        )
        if self._prototype:
            n_mistakes = prototype_perceptron_epoch(
                *common, self._other_log, n_logged,
                self._n_updates_per_problem, self._scores)
        else:
            n_mistakes = threshold_perceptron_epoch(
                *common, n_logged, self._n_updates_per_problem, self._scores)
        if self.hypothesis == "voted":
            self._call_log.append(
                [(self._update_log[k, :n].copy(), self._vote_log[k, :n].copy(),
                  self._other_log[:n].copy() if self._prototype else None)
                 for k, n in enumerate(n_logged)])
        return n_mistakes, int(self._n_updates_per_problem.sum()) - before

    def _state_is_finite(self):
        return bool(np.isfinite(self._W).all() and np.isfinite(self._theta).all())

    def _end_call(self, X, targets):
        if self.hypothesis == "voted":
            self._store_voted(X, targets)
        hypothesis = self.hypothesis
        if hypothesis == "averaged":
            self.coef_ = self._W - self._W_avg_acc / self.t_
            theta = self._theta - self._theta_avg_acc / self.t_
        elif hypothesis == "longest":
            self.coef_ = self._W_ls.copy()
            theta = self._theta_ls.copy()
        else:
            self.coef_ = self._W.copy()
            theta = self._theta.copy()
        self.intercept_ = -theta

    def _store_voted(self, X, targets):
        """Keep the rows that caused updates as support vectors."""
        rows = [log[0] for epoch in self._call_log for log in epoch]
        used = np.unique(np.concatenate(rows)) if rows else np.zeros(0, int)
        offset = self._n_support
        if used.shape[0]:
            self._support_blocks.append(X[used])
            self._n_support += used.shape[0]
            self._support_X = (sp.vstack(self._support_blocks, format="csr")
                               if sp.issparse(X)
                               else np.vstack(self._support_blocks))
            self._support_blocks = [self._support_X]
        for epoch in self._call_log:
            for k, (upd_rows, votes, other) in enumerate(epoch):
                support = offset + np.searchsorted(used, upd_rows)
                if self._prototype:
                    label = targets[upd_rows]
                elif self._tally.shape[0] == 1:
                    label = np.where(targets[upd_rows] == 1, 1, -1)
                else:
                    label = np.where(targets[upd_rows] == k, 1, -1)
                self._voted.extend(k, support, label, votes, other)
        self._call_log = []

    # ----------------------------------------------------------- prediction
    def _decision(self, X):
        if self.hypothesis == "voted":
            scores = self._voted_decision(X)
        else:
            scores = safe_sparse_dot(X, self.coef_.T, dense_output=True)
            scores += self.intercept_
        if self._prototype and scores.shape[1] == 2:
            return (scores[:, 1] - scores[:, 0])[:, None]
        return scores

    def _voted_decision(self, X):
        def gram(block):
            return safe_sparse_dot(block, self._support_X.T, dense_output=True)

        theta_start = np.full(self._W.shape[0], self.theta_init_)
        if self._prototype:
            return voted_prototype_scores(
                gram, X, self._n_support,
                self._voted.prototype_arrays(self._current_vote),
                float(self.eta), float(self.threshold_step_), theta_start)
        return voted_binary_scores(
            gram, X, self._n_support,
            self._voted.binary_arrays(self._current_vote),
            float(self.eta), float(self.threshold_step_), theta_start)

