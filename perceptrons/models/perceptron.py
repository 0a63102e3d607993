"""The perceptron family of Khardon & Wachman (2007), Figure 2, primal or
dual (with a Mercer kernel): one estimator, one loop, one state.

The rule is :func:`perceptrons._loops.perceptron.figure2_epoch`, run by
the algorithm :class:`~perceptrons.models._figure2.Figure2`; how w is stored
(weight vectors, or coefficients over support vectors) is the state's
``weights``, chosen once when the state is made
(:mod:`perceptrons.models._weights`).
"""

from numbers import Integral, Real

from sklearn.utils.validation import check_is_fitted

from .._loops.hypotheses import HYPOTHESES as _HYPOTHESES
from ..utils._param_validation import Interval, StrOptions
from ._budget import budget_constraints, with_budget_docs
from ._driver import OnlineClassifier
from ._driver.prediction import validate_for_prediction
from ._figure2 import Figure2, PerceptronState
from ._kernel import KERNEL_NAMES, KernelParams
from ._stopping import STOPPING_CONSTRAINTS, with_stopping_docs
from ._weights import WeightRows

__all__ = ["Figure2", "Perceptron", "PerceptronState"]


@with_budget_docs
@with_stopping_docs
class Perceptron(KernelParams, OnlineClassifier):
    r"""Threshold perceptron with margin, λ-trick, α-bound and voting.

    The algorithm family of Khardon & Wachman [1]_, Figure 2: a weight vector
    w and threshold θ predict ``sign(<w, x> - θ)``; an example is an update
    when :math:`y(\mathrm{SUM} - \theta) \le \tau` (PAM, Sec. 2.4), where
    SUM adds the λ-trick term of Eq. (1), unless the example has already
    caused ``alpha_bound`` updates (Sec. 2.3). The final hypothesis is the
    last one, the longest survivor, the vote of all hypotheses [2]_, or their
    average [3]_. With ``theta_init=0, threshold_step=0, eta=1,
    hypothesis="last"`` it is Rosenblatt's perceptron through the origin
    [4]_. With a ``kernel`` it
    runs in the dual form of K&W Sec. 2.1, inner products replaced by a
    Mercer kernel ``k(x, z) = <φ(x), φ(z)>``; every other option means the
    same there, in feature space.

    Parameters
    ----------
    eta : float, default=0.1
        Learning rate η of Figure 2 (K&W Sec. 3.2 use 0.1).
    theta_init : float or "auto", default="auto"
        Initial threshold θ_Init; "auto" is the average ⟨x, x⟩ over the
        rows of the first ``fit``/``partial_fit`` call (Sec. 3.2); on a
        stream (``learn_one``, river), the first example's, frozen; 1 for
        zero rows (a first example under river's ``StandardScaler``).
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
    hypothesis : {"last", "longest", "voted", "averaged"}, default="averaged"
        Final hypothesis (Sec. 2.5): the last (w, θ); the longest survivor
        (the hypothesis with the longest run of training steps where Figure
        2's ŷ equalled y, i.e. outside the τ band, λ term included); the
        voted perceptron, each hypothesis voting ``sign(<w_k, x> - θ_k)``
        with as many votes as such steps; or w and θ averaged over every
        example presented, each taken after that example's step. A step
        whose update the α-bound blocks neither adds a vote nor ends a run
        (Figure 2).

        The default is "averaged": on noisy data the last hypothesis is
        whichever w the last few mistakes left, while the average (like the
        vote, K&W Sec. 3.3 and Tables 2-5, where both beat "last" on every
        noisy set) is within a point of LinearSVC (0.76 vs 0.77 on two
        classes of ``make_classification(flip_y=0.1)``, against 0.60-0.70
        for "last"), for the cost of one more vector and no extra pass.
        ``hypothesis="last"`` gives Figure 2's last hypothesis, Rosenblatt's
        perceptron with ``eta=1, theta_init=0, threshold_step=0``.
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
    %(stopping_parameters)s
    shuffle : bool or "blocks", default=True
        Present the rows in a fresh random order each pass.
        "blocks": a windowed shuffle for data larger than the cache
        (:func:`~perceptrons.utils.random.draw_order`).
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffling; the same seed gives the same model bit for bit.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes' rows, multiplied by ``sample_weight``
        (scikit-learn's meaning). Row i's weight s_i multiplies every step
        it causes in Figure 2: ``w ← w + η s_i y x_i``, ``θ ← θ - η s_i y C``
        (prototypes: ``w^y += η s_i x``, ``w^ỹ -= η s_i x``); the averaged,
        voted and longest-survivor hypotheses count it as one presentation.
        A row of weight 0 is absent.
    warm_start : bool, default=False
        ``fit`` continues the fitted state (weights, θ, running sums, votes,
        support vectors) for ``max_iter`` more passes.
    %(n_jobs)s
    kernel : {None, "linear", "poly", "rbf"}, default=None
        None: the primal form, w kept as a vector. A kernel name: the dual
        form, w kept as coefficients over the examples that caused an
        update, with the Mercer kernel ``<x, z>``;
        ``(γ <x, z> + coef0)^degree``; or ``exp(-γ ‖x - z‖²)`` (K&W Table 7
        uses degree-4 polynomial kernels). With ``kernel="linear"`` the two
        forms make the same mistakes and predictions, up to rounding.
    degree : int, default=3
        Degree of the "poly" kernel.
    gamma : float or None, default=None
        γ of the "poly" and "rbf" kernels; None means ``1 / n_features``
        (as :func:`sklearn.metrics.pairwise.polynomial_kernel`).
    coef0 : float, default=1.0
        Additive constant of the "poly" kernel (≥ 0 keeps it a Mercer
        kernel; 1 includes every monomial up to ``degree``).
    cache_size : float, default=200
        Dual form: memory (MB) for the kernel values kept across the epochs
        of one call, up to ``cache_size / (8 n_samples)`` values per row; it
        never changes a result.
    %(budget_parameters)s

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_problems, n_features)
        Weights of the final hypothesis, one row per one-vs-rest problem
        or per prototype, one row for two classes (two prototypes: their
        difference), so that ``decision_function(X) = X @ coef_.T +
        intercept_`` (raveled for two classes). ``hypothesis="voted"`` has
        no ``coef_`` or ``intercept_`` (the vote is not one weight vector;
        ``decision_function(X, hypothesis="last")`` scores the last one).
        In the dual form only for ``kernel="linear"``: ``dual_coef_ @
        support_vectors_``.
    support_ : ndarray of shape (n_support,), int64
        Dual form: the training rows (numbered across ``partial_fit``
        calls) that caused an update and keep a non-zero coefficient (all
        of them for "voted").
    support_vectors_ : {ndarray, CSR matrix} of shape (n_support, n_features)
        Dual form: those rows.
    dual_coef_ : ndarray of shape (n_problems, n_support)
        Dual form: the final hypothesis's coefficients ``c_j = η y_j α_j``.
    gamma_ : float
        Dual form: the γ used, None resolved.
    intercept_ : ndarray of shape (n_problems,)
        ``-θ`` of the final hypothesis (two prototypes: the difference).
    theta_init_, threshold_step_ : float
        The θ_Init and C used, "auto" resolved (in the dual form "auto" is
        the average ``k(x, x) = ‖φ(x)‖²``).
    margin_ : float
        The absolute margin used: ``margin``, or ``tau * theta_init_``.
    n_mistakes_ : int
        Online prediction mistakes during training, ties counted as
        mistakes: ``y(<w,x> - θ) <= 0`` for two classes under "ovr", the true
        class not scoring strictly highest otherwise (the λ term and τ are
        not part of this prediction).
    n_updates_ : int
        Updates made, summed over the one-vs-rest problems.
    mistakes_per_epoch_, updates_per_epoch_ : ndarray of shape (``n_iter_``,)
    n_iter_ : int
        Passes made (``partial_fit`` adds one per call).
    t_ : int
        Examples presented.
    n_features_in_ : int

    See Also
    --------
    KernelPerceptron : this class with ``kernel="poly"`` by default.
    sklearn.svm.SVC : the attribute names ``support_``, ``dual_coef_``.

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

    The dual form, with S the examples that caused an update:

    .. math::

        \mathrm{SUM} = \sum_{j \in S} c_j\, k(x_j, x_i)
            + I_{\alpha_i \neq 0}\, y_i \lambda\, k(x_i, x_i), \qquad
        c_i \leftarrow c_i + \eta y_i

    on an update (θ and α_i as above), so that ``c_j = η y_j α_j``
    (Sec. 2.1). A training step costs one kernel evaluation per support
    vector, shared by all one-vs-rest problems, cached across the epochs of
    a call within ``cache_size``; dense input gets its values for blocks of
    128 rows at a time from a tile kernel as fast as BLAS, every value the
    same fused multiply-add chain on every path
    (:mod:`perceptrons._loops.support`), CSR input row by row, never
    densified. The averaged hypothesis is kept lazily and the longest
    survivor is a copy of the coefficients, taken once per new best run;
    the voted hypothesis is predicted incrementally from kernel values as
    in Freund & Schapire [2]_ (K&W Sec. 2.5). ``partial_fit`` adds the rows
    that caused an update to the support vectors.

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

    The dual form, with a Gaussian kernel:

    >>> from sklearn.datasets import make_circles
    >>> X, y = make_circles(n_samples=200, factor=0.3, noise=0.05,
    ...                     random_state=0)
    >>> clf = Perceptron(kernel="rbf", gamma=2.0, random_state=0)
    >>> clf.fit(X, y).score(X, y) > 0.95
    True
    >>> clf.dual_coef_.shape == (1, clf.support_.shape[0])
    True
    """

    _parameter_constraints = {
        **OnlineClassifier._parameter_constraints,
        **STOPPING_CONSTRAINTS,
        "eta": [Interval(Real, 0, None, closed="neither")],
        "theta_init": [Interval(Real, None, None, closed="neither"),
                       StrOptions({"auto"})],
        "threshold_step": [Interval(Real, 0, None, closed="left"),
                           StrOptions({"auto"})],
        "margin": [Interval(Real, 0, None, closed="left")],
        "tau": [Interval(Real, 0, None, closed="left"), None],
        "lam": [Interval(Real, 0, None, closed="left")],
        "alpha_bound": [Interval(Integral, 1, None, closed="left"), None],
        "hypothesis": [StrOptions(set(_HYPOTHESES))],
        "multiclass": [StrOptions({"ovr", "prototype"})],
        "kernel": [StrOptions(set(KERNEL_NAMES)), None],
        **KernelParams.KERNEL_CONSTRAINTS,
        **budget_constraints(),
    }

    _algorithm = Figure2

    @classmethod
    def _test_params(cls):
        return [
            {},
            {"hypothesis": "voted"},
            {"hypothesis": "averaged", "multiclass": "prototype"},
            {"hypothesis": "longest", "margin": 1.0, "lam": 0.5,
             "alpha_bound": 3},
            {"hypothesis": "voted", "multiclass": "prototype",
             "eta": 1.0, "theta_init": 0.0, "threshold_step": 0.0},
            {"kernel": "rbf", "hypothesis": "voted"},
            {"kernel": "linear", "hypothesis": "averaged",
             "multiclass": "prototype"},
        ]

    def __init__(self, *, eta=0.1, theta_init="auto", threshold_step="auto",
                 margin=0.0, tau=None, lam=0.0, alpha_bound=None,
                 hypothesis="averaged", multiclass="ovr", max_iter=10,
                 tol=None, n_iter_no_change=5, early_stopping=False,
                 validation_fraction=0.1, shuffle=True, random_state=None,
                 class_weight=None, warm_start=False, n_jobs=None,
                 kernel=None, degree=3, gamma=None, coef0=1.0, cache_size=200,
                 budget=None, budget_policy="random"):
        self.eta = eta
        self.theta_init = theta_init
        self.threshold_step = threshold_step
        self.margin = margin
        self.tau = tau
        self.lam = lam
        self.alpha_bound = alpha_bound
        self.hypothesis = hypothesis
        self.multiclass = multiclass
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        super().__init__(
            kernel=kernel, degree=degree, gamma=gamma, coef0=coef0,
            cache_size=cache_size, budget=budget, budget_policy=budget_policy,
            max_iter=max_iter, shuffle=shuffle, random_state=random_state,
            class_weight=class_weight, warm_start=warm_start, n_jobs=n_jobs)

    def _xfail_checks(self):
        expected = super()._xfail_checks()
        if self.threshold_step == 0 and self.theta_init == 0:
            expected["check_class_weight_classifiers"] = (
                "a perceptron through the origin (θ fixed at 0) cannot move "
                "its boundary off the origin: weights only change how far "
                "each update goes, and the check's blobs need a threshold to "
                "predict class 0 almost everywhere (the default θ and C do; "
                "with them the check passes)")
        return expected

    def decision_function(self, X, hypothesis=None):
        """Raw scores; the predicted class has the largest.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        hypothesis : {"last", "longest", "voted", "averaged"} or None, \
                default=None
            The final hypothesis to score with; None: the fitted one
            (``hypothesis``). A fit with ``hypothesis="voted"`` keeps every
            hypothesis of its run, so it also gives "last" and, in the
            primal one-vs-rest form, "longest": K&W's three hypotheses from
            one training run (Sec. 3.2), each with the bits a separate fit
            with that ``hypothesis`` keeps. "averaged" needs its own fit
            (the log does not say which trials an α-bound skipped).

        Returns
        -------
        ndarray of shape (n_samples,) for two classes (positive favours
        ``classes_[1]``), else (n_samples, n_classes).

        Raises
        ------
        ValueError
            When this fit does not keep the hypothesis asked for.
        """
        if hypothesis is None or (hasattr(self, "state_")
                                  and hypothesis == self.state_.hypothesis):
            return super().decision_function(X)
        self._check_derivable(hypothesis)
        algo = self._algorithm_of_params(validate=False)
        X = validate_for_prediction(self, algo, X)
        return algo.derived_decision(self.state_, X, hypothesis)

    def predict(self, X, hypothesis=None):
        """Predicted labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        hypothesis : str or None, default=None
            As in :meth:`decision_function`.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from the scores, as without ``hypothesis``.
        """
        return self._labels(self.decision_function(X, hypothesis))

    def _check_derivable(self, hypothesis):
        check_is_fitted(self)
        if hypothesis not in _HYPOTHESES:
            raise ValueError(f"hypothesis must be one of "
                             f"{sorted(_HYPOTHESES)} or None, got "
                             f"{hypothesis!r}")
        s = self.state_
        refit = (f"fit with hypothesis={hypothesis!r} (this model was fitted "
                 f"with hypothesis={s.hypothesis!r})")
        if s.hypothesis != "voted" or hypothesis == "averaged":
            raise ValueError(f"only a voted fit keeps the other hypotheses "
                             f"of its run, and not 'averaged': {refit}")
        if hypothesis == "longest" and (
                s.prototype or not isinstance(s.weights, WeightRows)):
            raise ValueError("'longest' is replayed from a voted fit in the "
                             "primal one-vs-rest form only (no kernel, "
                             f"multiclass='ovr'): {refit}")
