r"""What the confidence-weighted estimators share (not public).

CW, AROW, SCW, NAROW and NHERD keep, for each binary problem (one for two
classes, one per class one-vs-rest), a Gaussian :math:`N(\mu, \Sigma)`
over the weights: the mean is the classifier, the covariance how sure the
model is of each direction. They run Passive-Aggressive's compiled pass,
:func:`perceptrons._loops.passive_aggressive.pa_epoch`, with their rule as
its rule's type and their covariances as its form
(:mod:`perceptrons._loops.confidence_weighted`); each estimator names its
rule (:meth:`GaussianAlgorithm.rule`) and
its parameters, and everything else is here: the one state type
(:class:`ConfidenceWeightedState`), the algorithm the driver runs
(:class:`GaussianAlgorithm`), the compiled step of ``learn_one``, the
parameters every member has and their documentation
(:class:`ConfidenceWeightedBase`, :data:`with_gaussian_docs`).

The covariance is kept whole (``covariance="full"``: one
:math:`(d+1)\times(d+1)` matrix per problem, O(d²) per update) or as its
diagonal (``"diagonal"``: O(nnz(x)) per update, the form for wide sparse
data), over :math:`[x, 1]`: the last coordinate is the intercept's, the
weight of a constant feature.
"""

import dataclasses
from numbers import Real

import numpy as np
from scipy.stats import norm

from .._loops.confidence_weighted import DiagonalGaussians, FullGaussians
from .._loops.passive_aggressive import pa_epoch
from ..utils._param_validation import Interval, StrOptions
from ..utils.docstrings import with_doc_fragments
from ._averaged import LastOrAveragedRows
from ._classes import RowGrowth
from ._features import inserted_coordinates, padded_state
from ._driver import N_JOBS_DOC, Algorithm, OnlineClassifier
from ._driver.protocol import linear_row_scores
from ._state import (FittedState, array, check_problems, n_problems_of,
                     scalar, sub)
from ._stopping import STOPPING_CONSTRAINTS, with_stopping_docs
from ._weights import WeightRows, check_kept_sum
from .passive_aggressive import PassiveAggressiveStep

__all__ = ["ConfidenceWeightedBase", "ConfidenceWeightedState",
           "GaussianAlgorithm", "confidence_constants", "documented",
           "stored"]

#: Largest memory of ``covariance="full"``'s matrices, in bytes.
FULL_COVARIANCE_LIMIT = 2 ** 31


def confidence_constants(eta):
    """``(φ, ψ, ζ)`` of a confidence η: :math:`\\phi = \\Phi^{-1}(\\eta)`,
    :math:`\\psi = 1 + \\phi^2/2`, :math:`\\zeta = 1 + \\phi^2`."""
    phi = float(norm.ppf(eta))
    return phi, 1.0 + phi * phi / 2.0, 1.0 + phi * phi


@dataclasses.dataclass(frozen=True)
class ConfidenceWeightedState(FittedState):
    """The fitted state of CW, AROW, SCW, NAROW and NHERD.

    Binds ``n_rows`` (one problem for two classes, else one per class) and
    ``n_cov`` (``n_features + 1``: the features and the constant one).

    Attributes
    ----------
    averaged : bool
        Whether ``weights.summed`` and ``intercept_acc`` hold the averaged
        hypothesis's accumulators since the first call.
    covariance_form : {"diagonal", "full"}
    intercept, intercept_acc : ndarray of shape (n_rows,)
        The mean of b, and its accumulator (zeros when not averaged).
    n_updates_per_problem : ndarray of shape (n_rows,), int64
    weights : WeightRows
        The means μ (``current``) and their accumulator (``summed``).
    variances : ndarray of shape (n_rows, n_cov) or None
        The diagonal of each Σ (``covariance_form="diagonal"``).
    covariance : ndarray of shape (n_rows, n_cov, n_cov) or None
        Each Σ (``covariance_form="full"``), symmetric.
    """

    VERSION = 2  # 2: n_labels (multi-label models)

    averaged: bool = scalar("bool")
    covariance_form: str = scalar("str", choices=("diagonal", "full"))
    intercept: np.ndarray = array("float", ("n_rows",))
    intercept_acc: np.ndarray = array("float", ("n_rows",))
    n_updates_per_problem: np.ndarray = array("int", ("n_rows",), low=0)
    weights: object = sub(WeightRows)
    variances: np.ndarray = array("float", ("n_rows", "n_cov"),
                                  optional=True)
    covariance: np.ndarray = array("float", ("n_rows", "n_cov", "n_cov"),
                                   optional=True)

    def check(self, sizes, where):
        super().check(sizes, where)
        check_problems(sizes, where, "n_rows", n_labels=self.n_labels)
        w = self.weights
        check_kept_sum(w, self.averaged, where)
        if w.snapshot.shape[1]:
            raise ValueError(f"{where}.weights.snapshot is not kept")
        full = self.covariance_form == "full"
        kept, other = ((self.covariance, "variances") if full
                       else (self.variances, "covariance"))
        if kept is None or getattr(self, other) is not None:
            raise ValueError(f"{where}: covariance_form="
                             f"{self.covariance_form!r} keeps "
                             f"{'covariance' if full else 'variances'} only")
        if sizes["n_cov"] != sizes["n_features"] + 1:
            raise ValueError(f"{where}: the covariance is over "
                             f"{sizes['n_cov']} coordinates, not n_features"
                             " + 1")
        # A variance may underflow to 0 (CW on contradictory rows): a
        # direction known for certain, which no step moves again.
        diagonal = (np.diagonal(kept, axis1=1, axis2=2) if full else kept)
        if diagonal.size and not (diagonal >= 0).all():
            raise ValueError(f"{where}: a variance is negative")
        if full and not np.array_equal(kept, kept.transpose(0, 2, 1)):
            raise ValueError(f"{where}.covariance is not symmetric")


@dataclasses.dataclass(eq=False)
class GaussianWork:
    """Per-call scratch of :class:`GaussianAlgorithm`.

    Attributes
    ----------
    scores : ndarray of shape (n_rows,)
    u : ndarray of shape (n_features + 1,)
        :math:`\\Sigma x'` of the full form.
    rule : tuple
        The loop's rule (:mod:`perceptrons._loops.confidence_weighted`).
    """

    scores: np.ndarray
    u: np.ndarray
    rule: tuple


class GaussianAlgorithm(LastOrAveragedRows, Algorithm):
    """A confidence-weighted rule as the driver runs it; a subclass gives
    :meth:`rule` (and, where its Σ₀ is scaled, ``a``)."""

    state_type = ConfidenceWeightedState
    # One Gaussian per problem, one-vs-rest: a label's ±1 is its problem's.
    takes_multilabel = True
    # The primal rows of LastOrAveragedRows, never a kernel.
    kernel = None
    new_kernel_call = None

    def rule(self):
        """The loop's rule tuple for the current parameters."""
        raise NotImplementedError

    def initial_variance(self):
        """The scale a of Σ₀ = aI (1 where the paper has none)."""
        return float(getattr(self, "a", 1.0))

    def needs_row_sq_norms(self):
        return False

    def weights_refusal(self):
        return None

    def new_state(self, call, fitted):
        n_rows = n_problems_of(fitted["classes"], fitted["n_labels"])
        n_cov = call.X.shape[1] + 1
        a = self.initial_variance()
        variances = covariance = None
        if self.covariance == "full":
            size = n_rows * n_cov * n_cov * 8
            if size > FULL_COVARIANCE_LIMIT:
                raise ValueError(
                    f"covariance='full' keeps {n_rows} matrices of "
                    f"{n_cov}² float64 ({size / 2 ** 30:.1f} GiB) for "
                    f"{n_cov - 1} features; use covariance='diagonal' "
                    "(O(nnz(x)) per update)")
            covariance = np.zeros((n_rows, n_cov, n_cov))
            covariance[:, np.arange(n_cov), np.arange(n_cov)] = a
        else:
            variances = np.full((n_rows, n_cov), a)
        return ConfidenceWeightedState(
            **fitted, averaged=self.hypothesis == "averaged",
            covariance_form=self.covariance, intercept=np.zeros(n_rows),
            intercept_acc=np.zeros(n_rows),
            n_updates_per_problem=np.zeros(n_rows, dtype=np.int64),
            weights=self.new_weights(call.X, n_rows), variances=variances,
            covariance=covariance)

    def set_initial(self, state, coef, intercept):
        if coef is not None:
            state.weights.current[:] = coef
        if intercept is not None:
            state.intercept[:] = intercept

    def class_growth_refusal(self, state):
        return None

    def feature_growth_refusal(self, state):
        return None

    def grow_features(self, state, n_new):
        """New features: μ = 0 and a fresh variance a for each (Σ = aI's
        entries, uncoupled: every step's Σx' is 0 on a coordinate whose
        value was always 0), inserted before the constant feature's last
        entry."""
        s, d = state, state.n_features_in
        a = self.initial_variance()
        overrides = {}
        for name in ("variances", "covariance"):
            value = getattr(s, name)
            if value is not None:
                overrides[name] = inserted_coordinates(value, d, n_new, a)
        return padded_state(s, n_new, d, overrides)

    def grow_classes(self, state, classes):
        """More classes: a fresh Gaussian per new class (μ = 0, b = 0,
        Σ = aI). Two classes (one problem, class 1 against class 0) become a
        problem per class: class 1's the binary one, class 0's its mean
        negated with the same Σ (every rule here steps on y·μ·x and x only,
        so its step on (-μ, -y) is the binary one negated)."""
        s = state
        rows = RowGrowth(s.classes, classes, s.intercept.shape[0] == 1)
        a = self.initial_variance()
        fresh = np.ones(rows.n_rows, dtype=bool)
        fresh[rows.positions] = False
        covariance = variances = None
        if s.covariance is not None:
            covariance = rows(s.covariance, negate=False)
            diagonal = np.arange(covariance.shape[1])
            covariance[np.flatnonzero(fresh)[:, None], diagonal, diagonal] = a
        else:
            variances = rows(s.variances, negate=False, fill=a)
        return s.replace(
            classes=classes, weights=rows.weights(s.weights),
            intercept=rows(s.intercept), intercept_acc=rows(s.intercept_acc),
            n_updates_per_problem=rows(s.n_updates_per_problem,
                                       negate=False),
            variances=variances, covariance=covariance)

    def mixing_refusal(self):
        return (f"{self.estimator_name}'s state holds a covariance updated "
                "multiplicatively on each step: a weighted average of "
                "shards' covariances is not a state the algorithm reaches")

    # ----------------------------------------------------------- training
    def begin_call(self, call):
        s = self.begin_rows_call(call)
        if s.covariance_form != self.covariance:
            raise ValueError(
                f"covariance={self.covariance!r}, but the model was trained "
                f"with covariance={s.covariance_form!r}; call fit (or start "
                "partial_fit afresh)")
        call.work = GaussianWork(scores=np.zeros(s.intercept.shape[0]),
                                 u=np.zeros(s.n_features_in + 1),
                                 rule=self.rule())

    def run_epoch(self, call, targets, order):
        s, work = call.state, call.work
        before = int(s.n_updates_per_problem.sum())
        n_mistakes = pa_epoch(
            s.weights.store(call, order), targets, order, call.weights,
            work.rule, _form(s, work.u), s.intercept, s.intercept_acc,
            call.t, call.keep_summed, work.scores, s.n_updates_per_problem)
        return n_mistakes, int(s.n_updates_per_problem.sum()) - before

    def is_finite(self, call):
        s = call.state
        return (self.rows_are_finite(call)
                and bool(np.isfinite(s.intercept).all())
                and bool(np.isfinite(s.intercept_acc).all())
                and bool(np.isfinite(_cov(s)).all()))

    def one_row_scores(self, state):
        return linear_row_scores

    def online_step(self, state, row_arrays, sq_norm):
        if (state.averaged != (self.hypothesis == "averaged")
                or state.covariance_form != self.covariance):
            return None
        return _GaussianStep(state, self.rule(), row_arrays)

    # ----------------------------------------------------------- results
    def public(self, state):
        weights, intercept = self.final_rows(state)
        return {"coef_": weights, "intercept_": intercept,
                "covariance_": _cov(state),
                "n_updates_per_problem_": state.n_updates_per_problem}

    def decision(self, state, view, X):
        return self.rows_decision(state, view, X) + view["intercept_"]


def _cov(state):
    """The covariance array: the diagonals or the matrices."""
    return (state.covariance if state.covariance_form == "full"
            else state.variances)


def _form(state, u):
    """The Gaussian form of
    :func:`~perceptrons._loops.passive_aggressive.pa_epoch` for ``state``'s
    covariances, ``u`` its work row."""
    if state.covariance_form == "full":
        return FullGaussians(state.covariance, u)
    return DiagonalGaussians(state.variances, u)


class _GaussianStep(PassiveAggressiveStep):
    """The pass of :meth:`GaussianAlgorithm.run_epoch` on one row, its
    arguments made once (:meth:`GaussianAlgorithm.online_step`)."""

    def __init__(self, state, rule, row_arrays):
        super().__init__(state, rule, row_arrays, np.zeros(0),
                         _form(state, np.zeros(state.n_features_in + 1)))

    def finite(self):
        return super().finite() + (_cov(self.state),)


#: The entries of the parameters, attributes and notes every member's
#: docstring shares (``%(gaussian_form_parameters)s``: the covariance and
#: the bias; ``%(gaussian_run_parameters)s``: stopping, order, weights,
#: warm start, threads; ``%(gaussian_attributes)s``, ``%(gaussian_notes)s``).
GAUSSIAN_FORM_DOC = """\
    covariance : {"diagonal", "full"}, default="diagonal"
        How Σ is kept. "full": the paper's matrix, one per problem over
        ``[x, 1]``, O(d²) memory and time per update. "diagonal": its
        diagonal only, O(nnz(x)) per update, the form the papers run on
        text (Notes: the diagonal form).
    fit_intercept : bool, default=True
        Learn b, the mean weight of a constant feature 1 with its own
        variance: the rule runs on :math:`x' = [x, 1]`. False: the paper's
        rule through the origin, b fixed (0, or ``intercept_init``).
"""

GAUSSIAN_RUN_DOC = """\
    %(stopping_parameters)s
    shuffle : bool or "blocks", default=True
        Present the rows in a fresh random order each pass ("blocks": a
        windowed shuffle, :func:`~perceptrons.utils.random.draw_order`).
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffling; the same seed gives the same model bit for bit.
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying ``sample_weight`` (Notes, weighted
        rows); "balanced": ``n_samples / (n_classes · count(y))`` (``fit``
        only).
    warm_start : bool, default=False
        ``fit`` continues the fitted state (means, covariances, running
        sums) instead of starting afresh.
    %(n_jobs)s
"""

GAUSSIAN_ATTRIBUTES_DOC = """\
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The mean μ of each problem (two classes: one row, positive favours
        ``classes_[1]``; one-vs-rest otherwise), averaged or last.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        The mean b of each problem (averaged or last).
    covariance_ : ndarray of shape (n_problems, n_features + 1) or \
(n_problems, n_features + 1, n_features + 1)
        Σ of each problem over ``[x, 1]`` (its last coordinate is the
        intercept's): the diagonal, or the matrix with
        ``covariance="full"``.
    n_mistakes_ : int
        Online mistakes before each step: ``y (μ·x + b) <= 0`` (a score of
        0 is a mistake) for two classes, else the true class not scoring
        strictly highest.
    n_updates_ : int
        Rounds whose weights changed, summed over the problems.
    n_updates_per_problem_ : ndarray of shape (n_problems,), int64
    mistakes_per_epoch_, updates_per_epoch_ : ndarray of shape (``n_iter_``,)
    n_iter_ : int
        Passes made (``partial_fit`` adds one per call).
    t_ : int
        Examples presented.
    n_features_in_ : int
"""

GAUSSIAN_NOTES_DOC = """\
    Bias. The papers' classifiers go through the origin
    (``fit_intercept=False``). With ``fit_intercept=True`` the rule runs on
    :math:`x' = [x, 1]`: b is the mean of the constant feature's weight,
    with its own variance (and, in the full form, covariances with the
    features), and every statement of the paper holds in that space.

    The diagonal form (``covariance="diagonal"``) keeps
    :math:`\\sigma_j = \\Sigma_{jj}`, uses :math:`v = \\sum_j \\sigma_j
    x_j^2` and :math:`\\Sigma x = (\\sigma_j x_j)_j`, and shrinks each
    :math:`\\sigma_j` of the row's non-zeros as the rule above says,
    O(nnz(x)) per step.

    Hypotheses. ``hypothesis="last"`` returns the final mean, the papers'
    classifier; ``"averaged"`` the average of the means after every
    training step, kept lazily (the Perceptron's and Passive-Aggressive's
    accumulator: one more O(nnz(x)) or O(d) step per update). Each
    estimator's default is the one that measured better on noisy data
    (its Notes). Ties: a score of exactly 0 predicts ``classes_[0]``;
    among equal one-vs-rest scores the lowest class index wins.

    .. warning::
       A round is passive when its loss is at most :math:`2^{-40}`, not 0
       (``perceptrons._loops.passive_aggressive.LOSS_ROUNDING``): an update
       that attains its constraint leaves, in float64, a loss of the order
       of the score's rounding when the row comes again.
"""

#: Class decorator: the shared docstring entries written in.
with_gaussian_docs = with_doc_fragments({
    "    %(gaussian_form_parameters)s\n": GAUSSIAN_FORM_DOC,
    "    %(gaussian_run_parameters)s\n": GAUSSIAN_RUN_DOC,
    "    %(gaussian_attributes)s\n": GAUSSIAN_ATTRIBUTES_DOC,
    "    %(gaussian_notes)s\n": GAUSSIAN_NOTES_DOC,
    "    %(n_jobs)s\n": N_JOBS_DOC,
})


def documented(cls):
    """The shared docstring entries, then the stopping rules', written
    into an estimator's docstring."""
    return with_stopping_docs(with_gaussian_docs(cls))


class ConfidenceWeightedBase(OnlineClassifier):
    """The parameters every confidence-weighted estimator has, their
    constraints and their storing ``__init__`` (an estimator's ``__init__``
    lists all its parameters, scikit-learn reads them there, and passes
    them on: ``super().__init__(**stored(locals()))``)."""

    _parameter_constraints = {
        **OnlineClassifier._parameter_constraints,
        **STOPPING_CONSTRAINTS,
        "covariance": [StrOptions({"diagonal", "full"})],
        "fit_intercept": ["boolean"],
        "hypothesis": [StrOptions({"last", "averaged"})],
    }

    #: The constraint of a confidence η (φ = Φ⁻¹(η) > 0).
    ETA_CONSTRAINT = [Interval(Real, 0.5, 1, closed="neither")]
    #: The constraint of a positive trade-off (r, b, C, a).
    POSITIVE = [Interval(Real, 0, None, closed="neither")]

    def _xfail_checks(self):
        expected = super()._xfail_checks()
        if not self.fit_intercept:
            expected["check_class_weight_classifiers"] = (
                "through the origin no hyperplane puts the check's test rows "
                "on class 0's side: with its weights (1000 for class 0) "
                "AROW, NAROW, NHERD, SCW and CW leave 0.46-0.58 of them "
                "there (2 classes) and 0.60-0.70 (3 classes), below its "
                "0.87; with fit_intercept=True AROW and SCW reach 1.00")
        return expected

    def __init__(self, **params):
        # Called by each estimator's __init__ with all its parameters
        # (``stored(locals())``): they are stored, nothing else.
        driver = {name: params.pop(name) for name in _DRIVER_PARAMS}
        for name, value in params.items():
            setattr(self, name, value)
        super().__init__(**driver)


#: The parameters :class:`OnlineClassifier` stores itself.
_DRIVER_PARAMS = ("max_iter", "shuffle", "random_state", "class_weight",
                  "warm_start", "n_jobs")


def stored(params):
    """An estimator's ``locals()`` in its ``__init__`` as the parameters
    :class:`ConfidenceWeightedBase` stores (``self`` and ``__class__``
    left out)."""
    return {name: value for name, value in params.items()
            if name not in ("self", "__class__")}
