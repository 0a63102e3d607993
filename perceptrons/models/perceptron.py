"""The perceptron family of Khardon & Wachman (2007), Figure 2, primal or
dual (with a Mercer kernel)."""

from .._loops.mercer import KERNELS
from ..utils._param_validation import StrOptions
from ..utils.validation import refuse_underflow
from ._family import ThresholdFamilyBase
from ._kernel import KernelMixin
from ._perceptron_forms import DUAL, PRIMAL


class Perceptron(KernelMixin, ThresholdFamilyBase):
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
    shuffle : bool or "blocks", default=True
        Present the rows in a fresh random order each pass.
        "blocks": a windowed shuffle for data larger than the cache
        (:func:`~perceptrons.utils.random.draw_order`).
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffling; the same seed gives the same model bit for bit.
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

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_problems, n_features)
        Weights of the final hypothesis, one row per one-vs-rest problem
        (one row for two classes) or per prototype. For ``"voted"``, the
        last hypothesis (prediction uses the vote). In the dual form only
        for ``kernel="linear"``: ``dual_coef_ @ support_vectors_``.
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
        ``-θ`` of the final hypothesis.
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
        **ThresholdFamilyBase._parameter_constraints,
        "kernel": [StrOptions(set(KERNELS)), None],
        **KernelMixin.KERNEL_CONSTRAINTS,
    }

    def __init__(self, *, eta=0.1, theta_init="auto", threshold_step="auto",
                 margin=0.0, tau=None, lam=0.0, alpha_bound=None,
                 hypothesis="averaged", multiclass="ovr", max_iter=10,
                 shuffle=True, random_state=None, kernel=None, degree=3,
                 gamma=None, coef0=1.0, cache_size=200):
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
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.cache_size = cache_size

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
            {"kernel": "rbf", "hypothesis": "voted"},
            {"kernel": "linear", "hypothesis": "averaged",
             "multiclass": "prototype"},
        ]

    # ----------------------------------------------------------- form
    _form_state_names = PRIMAL.model_state + DUAL.model_state
    _model_state = ThresholdFamilyBase._model_state + tuple(
        dict.fromkeys(_form_state_names))

    def _begin_call(self, call):
        refuse_underflow(call.loop_arrays[0], call.mean_sq_norm)
        super()._begin_call(call)

    @property
    def _form(self):
        """How w is stored, chosen here and nowhere else: the primal form
        without a kernel, the dual form with one."""
        return PRIMAL if self.kernel is None else DUAL
