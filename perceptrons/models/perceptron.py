"""The perceptron family of Khardon & Wachman (2007), Figure 2."""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.extmath import safe_sparse_dot

from .._loops.multiclass import prototype_perceptron_epoch
from .._loops.perceptron import threshold_perceptron_epoch
from ._family import ThresholdFamilyBase


class Perceptron(ThresholdFamilyBase):
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
        the text of Sec. 2.4 writes ``<``). K&W state τ in units of θ_Init:
        use ``tau`` to follow them.
    tau : float or None, default=None
        τ of Sec. 2.4 in units of θ_Init, as K&W state it (Sec. 3.2 grid
        0, 0.125, ..., 4): the margin used is ``tau * theta_init_``, θ_Init
        resolved in ``fit`` (for "auto", from the training data of the
        call), so ``GridSearchCV`` can search it. None: use ``margin``.
        Setting both ``tau`` and a non-zero ``margin`` is an error.
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
    margin_ : float
        The absolute margin used: ``margin``, or ``tau * theta_init_``.
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

    def __init__(self, *, eta=0.1, theta_init="auto", threshold_step="auto",
                 margin=0.0, tau=None, lam=0.0, alpha_bound=None, hypothesis="last",
                 multiclass="ovr", max_iter=10, shuffle=True,
                 random_state=None):
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

    def _needs_row_sq_norms(self):
        # Only the λ-trick reads ‖x_i‖² per row.
        return self.lam != 0

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
    _WEIGHT_NAMES = ("_weights", "_weights_avg_acc", "_weights_ls")
    _model_state = ThresholdFamilyBase._model_state + (
        "coef_", *_WEIGHT_NAMES, "_support_X", "_n_support")

    def _allocate(self, call, n_classes):
        self._allocate_family_state(call, n_classes,
                                    n_weight_columns=call.X.shape[1])
        if self.hypothesis == "voted":
            self._voted = self._new_voted_log()
            self._support_X = None
            self._n_support = 0

    def _n_problems(self):
        # The prototype rule keeps one row per class, two classes included.
        return self._theta.shape[0]

    def _set_initial(self, coef, intercept):
        if self.hypothesis == "voted":
            raise ValueError("coef_init/intercept_init cannot start a voted "
                             "perceptron: its vote replays every hypothesis "
                             "from w = 0")
        # The initial hypothesis is also the first longest survivor.
        if coef is not None:
            self._weights[:] = coef
            if self._weights_ls.shape[1]:
                self._weights_ls[:] = coef
        if intercept is not None:
            self._theta[:] = -intercept
            self._theta_ls[:] = -intercept

    def _run_epoch(self, call, targets, order):
        head = (*call.loop_arrays, targets, order, call.sq_norms,
                self._weights, self._theta)
        return self._run_family_epoch(
            call, threshold_perceptron_epoch, prototype_perceptron_epoch,
            head, self._weights_avg_acc, self._weights_ls)

    def _state_is_finite(self, call):
        return bool(np.isfinite(self._weights).all()
                    and np.isfinite(self._theta).all())

    def _end_call(self, call, targets):
        if self.hypothesis == "voted":
            self._store_voted(call, targets)
        self.coef_, self.intercept_ = self._final_hypothesis(
            self._weights, self._weights_avg_acc, self._weights_ls, copy=True)

    def _store_voted(self, call, targets):
        """Keep the rows that caused updates as support vectors."""
        rows = [log[0] for epoch in call.epoch_logs for log in epoch]
        used = np.unique(np.concatenate(rows)) if rows else np.zeros(0, int)
        offset = self._n_support
        if used.shape[0]:
            blocks = [call.X[used]]
            if self._support_X is not None:
                blocks.insert(0, self._support_X)
            self._n_support += used.shape[0]
            self._support_X = (sp.vstack(blocks, format="csr")
                               if sp.issparse(call.X) else np.vstack(blocks))
        self._extend_voted(call, used, offset, targets)

    # ----------------------------------------------------------- prediction
    def _hypothesis_scores(self, X):
        scores = safe_sparse_dot(X, self.coef_.T, dense_output=True)
        scores += self.intercept_
        return scores

    def _voted_support(self):
        def gram(block):
            return safe_sparse_dot(block, self._support_X.T, dense_output=True)

        return self._n_support, gram
