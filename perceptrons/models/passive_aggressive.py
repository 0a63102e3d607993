"""The Passive-Aggressive algorithms of Crammer et al. (JMLR 2006): PA,
PA-I and PA-II, primal or with a Mercer kernel, one estimator, one state.

The rule is :func:`perceptrons._loops.passive_aggressive.pa_epoch`
(binary, one-vs-rest or multi-prototype multiclass, the form and the
variant types its helpers are specialised on); how w is
stored (weight vectors, or coefficients over support vectors) is the
state's ``weights``, chosen once when the state is made
(:mod:`perceptrons.models._weights`).
"""

import dataclasses
from numbers import Real

import numpy as np
import scipy.sparse as sp

from .._loops.passive_aggressive import (RULES, OneVsRest, Prototypes,
                                         pa_epoch)
from ..utils._param_validation import Interval, StrOptions
from ._averaged import LastOrAveragedRows
from ._budget import (COMMON_POLICIES, budget_constraints,
                      with_budget_docs)
from ._classes import RowGrowth, split
from ._driver import Algorithm, OnlineClassifier
from ._driver.protocol import linear_row_scores, prototype_multilabel_refusal
from ._driver.mixing import mixed_rows_and_offset
from ._driver.online import CompiledStep
from ._kernel import KERNEL_NAMES, KernelAlgorithm, KernelParams
from ._sklearn_names import SklearnNames
from ._state import (FittedState, array, check_problems, n_problems_of,
                     scalar, sub)
from ._stopping import STOPPING_CONSTRAINTS, with_stopping_docs
from ._weights import DualWeights, WeightRows, check_kept_sum

__all__ = ["PassiveAggressive", "PassiveAggressiveRule",
           "PassiveAggressiveState", "SPARSE_INTERCEPT_DECAY", "pa_rule"]

#: The share of its step scikit-learn's intercept takes on sparse input
#: (``SPARSE_INTERCEPT_DECAY`` of ``sklearn.linear_model._base``), read by
#: ``intercept_update="sklearn"``.
SPARSE_INTERCEPT_DECAY = 0.01


def pa_rule(variant, C, fit_intercept, intercept_update, sparse):
    """The loop's rule of the parameters (:data:`~perceptrons._loops.
    passive_aggressive.PARule` and the others).

    Parameters
    ----------
    variant : {"PA", "PA-I", "PA-II"}
    C : float
    fit_intercept : bool
    intercept_update : {"constant", "sklearn"}
        How b is learnt (with ``fit_intercept``): as the weight of the
        constant feature 1 (τ from ``‖x‖² + 1``, b gains τy), or as
        scikit-learn does (τ from ``‖x‖²``, b gains τy, 0.01 τy on sparse
        input).
    sparse : bool
        Whether the call's rows are sparse (scikit-learn's step only).

    Returns
    -------
    PARule, PA1Rule or PA2Rule
    """
    if not fit_intercept:
        bias, step = False, False
    elif intercept_update == "constant":
        bias, step = True, True
    else:
        # A float share: the loop's scaled intercept step (a variant of
        # its own, compiled when first used).
        bias, step = False, SPARSE_INTERCEPT_DECAY if sparse else 1.0
    return RULES[variant](float(C), bias, step)


@dataclasses.dataclass(frozen=True)
class PassiveAggressiveState(FittedState):
    """The fitted state of :class:`PassiveAggressive`.

    Binds ``n_rows`` (one weight vector for two classes, else one per
    class: one-vs-rest).

    Attributes
    ----------
    prototype : bool
        More than two classes run the multi-prototype update (else
        one-vs-rest, or the binary algorithm for two classes).
    averaged : bool
        Whether ``weights.summed`` and ``intercept_acc`` hold the averaged
        hypothesis's accumulators since the first call.
    intercept : ndarray of shape (n_rows,)
        b of each problem.
    intercept_acc : ndarray of shape (n_rows,)
        ``Σ_s (s-1) Δb_s`` (averaged; zeros otherwise).
    n_updates_per_problem : ndarray of shape (n_rows,), int64
    weights : WeightRows or DualWeights
        w (``current``) and its accumulator ``Σ_s (s-1) Δw_s``
        (``summed``, averaged).
    """

    VERSION = 2  # 2: n_labels (multi-label models)

    prototype: bool = scalar("bool")
    averaged: bool = scalar("bool")
    intercept: np.ndarray = array("float", ("n_rows",))
    intercept_acc: np.ndarray = array("float", ("n_rows",))
    n_updates_per_problem: np.ndarray = array("int", ("n_rows",), low=0)
    weights: object = sub(WeightRows, DualWeights)

    def check(self, sizes, where):
        super().check(sizes, where)
        check_problems(sizes, where, "n_rows", "weight rows",
                       n_labels=self.n_labels)
        w = self.weights
        check_kept_sum(w, self.averaged, where)
        if w.snapshot.shape[1]:
            raise ValueError(f"{where}.weights.snapshot is not kept")
        if self.prototype and sizes["n_classes"] == 2:
            raise ValueError(f"{where}: two classes run the binary "
                             "algorithm, not prototypes")



@dataclasses.dataclass(eq=False)
class PassiveAggressiveWork:
    """Per-call scratch of :class:`PassiveAggressiveRule`.

    Attributes
    ----------
    scores : ndarray of shape (n_rows,)
        The loops' work space.
    rule : PARule, PA1Rule or PA2Rule
        The variant's step size (:mod:`perceptrons._loops.passive_aggressive`).
    """

    scores: np.ndarray
    rule: tuple


class PassiveAggressiveRule(LastOrAveragedRows, KernelAlgorithm, Algorithm):
    """PA, PA-I and PA-II as the driver runs them (the algorithm of
    :class:`PassiveAggressive`)."""

    state_type = PassiveAggressiveState

    def new_state(self, call, fitted):
        X = call.X
        n_rows = n_problems_of(fitted["classes"], fitted["n_labels"])
        prototype = self.multiclass == "prototype" and n_rows > 1
        return PassiveAggressiveState(
            **fitted, prototype=prototype,
            averaged=self.hypothesis == "averaged",
            intercept=np.zeros(n_rows), intercept_acc=np.zeros(n_rows),
            n_updates_per_problem=np.zeros(n_rows, dtype=np.int64),
            weights=self.new_weights(X, n_rows, shared=prototype))

    def set_initial(self, state, coef, intercept):
        rows = self.initial_rows(state)
        if coef is not None:
            rows.current[:] = coef
        if intercept is not None:
            state.intercept[:] = intercept

    def rule(self, sparse):
        """The loop's rule (:func:`pa_rule`) for rows sparse or not."""
        return pa_rule(self.variant, self.C, self.fit_intercept,
                       self.intercept_update, sparse)

    def weights_refusal(self):
        # A row's weight scales its C (class notes); PA has no C to scale.
        if self.variant != "PA":
            return None
        return ("variant='PA' takes no sample weights other than 0 and 1 "
                "(nor class_weight): its update meets the hard constraint "
                "of Eq. (2), which a weight cannot change; use 'PA-I' or "
                "'PA-II', where a row's weight scales its aggressiveness C")

    def multilabel_refusal(self):
        # One-vs-rest problems read a label's ±1 as they read a class's
        # (the loop's problem_sign); the prototypes compete for one class.
        return prototype_multilabel_refusal(self.multiclass)

    # ----------------------------------------------------------- training
    def feature_growth_refusal(self, state):
        # w = 0 for a new feature: no PA step moved it.
        return None

    def class_growth_refusal(self, state):
        return self.budget_growth_refusal(state)

    def grow_classes(self, state, classes):
        """More classes: a fresh row (w = 0, b = 0) per new class, one-vs-rest
        or prototype. Two classes (one problem, class 1 against class 0)
        become a row per class: one-vs-rest, class 1's the binary problem
        and class 0's its negation (PA's step on (-w, -b, -y) is the binary
        one negated); prototypes (``multiclass="prototype"``), the pair
        ``(-w/2, w/2)`` (and b), whose difference is the binary model, so
        that it predicts the same."""
        s = state
        grow = RowGrowth(s.classes, classes, s.intercept.shape[0] == 1)
        prototype = self.multiclass == "prototype"

        def rows(array, negate=True):
            if grow.binary and prototype and negate:
                return split(array / 2.0, grow.positions, grow.n_rows,
                             negate=True)
            return grow(array, negate)

        return s.replace(
            classes=classes, prototype=prototype,
            weights=grow.weights(s.weights, rows),
            intercept=rows(s.intercept), intercept_acc=rows(s.intercept_acc),
            n_updates_per_problem=rows(s.n_updates_per_problem,
                                       negate=False))

    def begin_call(self, call):
        # b = Σ_j c_j with a bias (the constant feature 1 of every support
        # vector), which a budget's changes move.
        s = self.begin_rows_call(call, budget_bias=lambda kc: (
            1.0 if self.fit_intercept else 0.0, 1.0, call.state.intercept,
            call.state.intercept_acc))
        call.work = PassiveAggressiveWork(
            scores=np.zeros(s.intercept.shape[0]),
            rule=self.rule(sp.issparse(call.X)))
        if s.prototype != (self.multiclass == "prototype"
                           and s.intercept.shape[0] > 1):
            raise ValueError(
                f"multiclass={self.multiclass!r}, but the model was trained "
                f"with multiclass={'prototype' if s.prototype else 'ovr'!r}: "
                "its rows are of the other rule; call fit (or start "
                "partial_fit afresh)")

    def run_epoch(self, call, targets, order):
        s, work = call.state, call.work
        before = int(s.n_updates_per_problem.sum())
        loop_targets, loop_order = s.weights.padded(call, targets, order)
        n_mistakes = pa_epoch(
            s.weights.store(call, order), loop_targets, loop_order,
            s.weights.padded_weights(call), work.rule, _form(s),
            s.intercept, s.intercept_acc, call.t, call.keep_summed,
            work.scores, s.n_updates_per_problem)
        return n_mistakes, int(s.n_updates_per_problem.sum()) - before

    def is_finite(self, call):
        s = call.state
        return (self.rows_are_finite(call)
                and bool(np.isfinite(s.intercept).all())
                and bool(np.isfinite(s.intercept_acc).all()))

    def one_row_scores(self, state):
        return (linear_row_scores if isinstance(state.weights, WeightRows)
                else None)

    def online_step(self, state, row_arrays, sq_norm):
        # The primal form, with the rule and running sums the state was
        # made with (else partial_fit says what changed).
        if (not isinstance(state.weights, WeightRows)
                or state.averaged != (self.hypothesis == "averaged")
                or state.prototype != (self.multiclass == "prototype"
                                       and state.intercept.shape[0] > 1)):
            return None
        # learn_one's row is dense.
        return PassiveAggressiveStep(state, self.rule(False), row_arrays,
                                     sq_norm)

    def end_call(self, call, targets):
        # Kernel form: the rows with a non-zero coefficient in w or in its
        # accumulator stay support vectors.
        return self.rows_after_call(call.state, call)

    # ----------------------------------------------------------- results
    def public(self, state):
        weights, intercept = self.final_rows(state)
        return {"intercept_": intercept,
                "n_updates_per_problem_": state.n_updates_per_problem,
                **self.public_rows(state, weights)}

    # ----------------------------------------------------------- mixing
    def mix_arrays(self, start, states, mu, counted):
        """w and b mixed by μ; the averaged hypothesis from the pooled sum
        of every hypothesis any shard visited (see ``ParameterMixing``)."""
        return counted.replace(**mixed_rows_and_offset(
            start, states, mu, counted, counted.averaged, "intercept",
            "intercept_acc"))

    # ----------------------------------------------------------- prediction
    def decision(self, state, view, X):
        return self.rows_decision(state, view, X) + view["intercept_"]


def _form(state):
    """The multiclass form of
    :func:`~perceptrons._loops.passive_aggressive.pa_epoch` for ``state``'s
    rows."""
    n_rows = state.intercept.shape[0]
    return Prototypes(n_rows) if state.prototype else OneVsRest(n_rows)


class PassiveAggressiveStep(CompiledStep):
    """The pass of :meth:`PassiveAggressiveRule.run_epoch` on one row, its
    arguments made once (:meth:`PassiveAggressiveRule.online_step`); with
    ``form``, another of the pass's forms (the confidence-weighted family's
    Gaussians)."""

    def __init__(self, state, rule, row_arrays, sq_norm, form=None):
        super().__init__(pa_epoch.primal, state)
        self.store = state.weights.store_of(row_arrays, sq_norm,
                                            prefetch=False)
        self.form = _form(state) if form is None else form
        self.scores = np.zeros(state.intercept.shape[0])
        self.rule = rule

    def arguments(self, weights, t):
        s = self.state
        return (self.store, self.targets, self.order, weights, self.rule,
                self.form, s.intercept, s.intercept_acc, t, s.averaged,
                self.scores, s.n_updates_per_problem)

    def finite(self):
        s = self.state
        return (s.weights.current, s.weights.summed, s.intercept,
                s.intercept_acc)


@with_budget_docs
@with_stopping_docs
class PassiveAggressive(SklearnNames, KernelParams, OnlineClassifier):
    r"""Passive-Aggressive classifier: PA, PA-I and PA-II.

    The online algorithms of Crammer, Dekel, Keshet, Shalev-Shwartz &
    Singer [1]_ (Figure 1). On each example the weight vector moves to the
    nearest point (in Euclidean norm) that attains the hinge loss's margin
    on it (PA, Eq. (2)), or trades the distance against the loss with an
    aggressiveness C (PA-I, Eq. (4); PA-II, Eq. (5)); an example with zero
    loss leaves it as it is (passive). Two classes run one binary problem;
    more classes one per class, one-vs-rest, all in the same pass, or the
    paper's multi-prototype multiclass update. With a
    ``kernel`` it runs in the kernel form of Sec. 3 of [1]_,
    :math:`w = \sum_i \tau_i y_i \phi(x_i)`.

    By default the model returned is the *average* of the hypotheses after
    every training step (``hypothesis="averaged"``); the online run itself
    (every update, ``n_mistakes_``) is the paper's either way, and
    ``hypothesis="last"`` returns the paper's final hypothesis.

    Parameters
    ----------
    variant : {"PA", "PA-I", "PA-II"}, default="PA-I"
        The step size τ_t of Eq. (3) (PA) or Eq. (6) (PA-I, PA-II). PA-I
        is the default: on noisy data it bounds the step of a mislabelled
        example by C, where PA's step is unbounded (Sec. 3 of [1]_); with
        the averaged hypothesis the three are within a point of each other
        at C = 1 on standardised data (Notes).
    C : float, default=1.0
        The aggressiveness parameter C > 0 of PA-I and PA-II (Eq. (4), (5));
        scikit-learn's default. Ignored by PA (C = ∞).
    fit_intercept : bool, default=True
        Learn a bias b, the weight of a constant feature 1: the rule runs on
        :math:`[x, 1]` (Notes). False: the paper's rule through the origin,
        b fixed (at 0, or at ``intercept_init``).
    intercept_update : {"constant", "sklearn"}, default="constant"
        How b is learnt with ``fit_intercept=True``. "constant": as the
        weight of the constant feature 1 (τ from :math:`\|x\|^2 + 1`, b
        gains :math:`\tau y`). "sklearn": scikit-learn's
        ``PassiveAggressiveClassifier`` step, τ from :math:`\|x\|^2` alone
        and b gaining :math:`\tau y` (0.01 τy on sparse input), to reproduce
        its ``fit_intercept=True`` models (Notes, "Bias"); it overshoots the
        margin the paper's step attains.
    multiclass : {"ovr", "prototype"}, default="ovr"
        More than two classes: one-vs-rest (one binary problem of Figure 1
        per class, as the issue asks and scikit-learn does), or one
        prototype per class with the multiclass update of [1]_'s multiclass
        section: with s the best class other than y, the loss
        :math:`\max\{0, 1 - (w^y\cdot x - w^s\cdot x)\}`,
        :math:`w^y \mathrel{+}= \tau x`, :math:`w^s \mathrel{-}= \tau x`,
        τ as in the variant with :math:`2\|x\|^2` for :math:`\|x\|^2`
        (Notes). Two classes always run the binary algorithm (two
        prototypes would be the binary update with C doubled).
    hypothesis : {"averaged", "last"}, default="averaged"
        The model returned. "averaged": the average of (w, b) after each of
        the ``t_`` training steps, a stable classifier on noisy data (Notes).
        "last": the final (w, b), the paper's algorithm exactly. It changes
        ``coef_``/``intercept_`` (``dual_coef_``) only; every update is the
        same. With ``partial_fit`` keep it fixed: the running sum starts
        with the first call (switching to "averaged" later is refused).
    max_iter : int, default=10
        Passes over the training data in ``fit``.
    %(stopping_parameters)s
    shuffle : bool or "blocks", default=True
        Present the rows in a fresh random order each pass.
        "blocks": a windowed shuffle for data larger than the cache
        (:func:`~perceptrons.utils.random.draw_order`).
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffling; the same seed gives the same model bit for bit.
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying ``sample_weight`` (``fit``,
        ``partial_fit``). A row of weight s has aggressiveness sC (Notes,
        "Weighted rows"); PA, which has no C, refuses weights other than 0
        and 1. A row of weight 0 is absent. "balanced": ``n_samples / (n_classes ·
        count(y))``, as in scikit-learn (``fit`` only).
    warm_start : bool, default=False
        ``fit`` continues the fitted state (weights, intercepts, running
        sums, support vectors) instead of starting from zero.
    %(n_jobs)s
    kernel : {None, "linear", "poly", "rbf"}, default=None
        None runs the primal algorithm on the features of X. A kernel runs
        the kernel form (Sec. 3 of [1]_): w is kept as coefficients
        :math:`\tau_i y_i` over the rows that caused an update, and every
        inner product is a Mercer kernel value, ``<x, z>``,
        ``(γ <x, z> + coef0)^degree`` or ``exp(-γ ‖x - z‖²)``; ``‖x‖²``
        in τ is ``k(x, x)``. ``kernel="linear"`` makes the primal
        algorithm's updates (up to rounding).
    degree : int, default=3
        Degree of the "poly" kernel.
    gamma : float or None, default=None
        γ of the "poly" and "rbf" kernels; None means ``1 / n_features``.
    coef0 : float, default=1.0
        Additive constant of the "poly" kernel.
    cache_size : float, default=200
        Memory (MB) for kernel values kept across the passes of one call; it
        changes speed only, never a result. Ignored when ``kernel=None``.
    %(budget_parameters)s

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        w of each problem (two classes: one row, positive favours
        ``classes_[1]``), averaged or last as ``hypothesis`` says. With a
        kernel only for ``kernel="linear"``: ``dual_coef_ @
        support_vectors_``.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        b of each problem (averaged or last).
    support_ : ndarray of shape (n_support,), int64
        With a kernel only: the training rows with a non-zero coefficient
        (numbered across ``partial_fit`` calls).
    support_vectors_ : {ndarray, sparse matrix} of shape (n_support, n_features)
        With a kernel only: those rows.
    dual_coef_ : ndarray of shape (n_problems, n_support)
        With a kernel only: :math:`\sum_t \tau_t y_t` of each support vector
        (averaged or last).
    gamma_ : float
        With a kernel only: γ used, None resolved.
    n_mistakes_ : int
        Online prediction mistakes during training, before each update: ``y
        (w·x + b) <= 0`` for two classes, else the true class not scoring
        strictly highest.
    n_updates_ : int
        Updates (steps with ℓ_t > 0), summed over the one-vs-rest problems.
    n_updates_per_problem_ : ndarray of shape (n_problems,), int64
        Updates of each problem (prototypes: counted at the true class).
    mistakes_per_epoch_, updates_per_epoch_ : ndarray of shape (``n_iter_``,)
    n_iter_ : int
        Passes made (``partial_fit`` adds one per call).
    t_ : int
        Examples presented.
    n_features_in_ : int

    See Also
    --------
    Perceptron : the update :math:`w + y x` on mistakes only.
    ROMMA : another margin-driven online algorithm with minimum-norm
        updates.

    Notes
    -----
    Figure 1 of [1]_, labels :math:`y_t \in \{-1, +1\}`, :math:`w_1 = 0`.
    With the hinge loss of Eq. (1),

    .. math::

        \ell_t = \max\{0,\ 1 - y_t (w_t \cdot x_t)\},

    the update is the solution of Eq. (2) (PA), (4) (PA-I) or (5) (PA-II),

    .. math::

        w_{t+1} = w_t + \tau_t y_t x_t,\qquad
        \tau_t = \frac{\ell_t}{\|x_t\|^2}\ \text{(PA, Eq. (3))},\quad
        \min\Bigl\{C, \frac{\ell_t}{\|x_t\|^2}\Bigr\}\ \text{(PA-I)},\quad
        \frac{\ell_t}{\|x_t\|^2 + \frac{1}{2C}}\ \text{(PA-II, Eq. (6))}.

    Multi-prototype multiclass (``multiclass="prototype"``, the paper's
    multiclass section with :math:`\Phi(x, r)` putting x in block r of
    :math:`[w^1, \dots, w^k]`): with :math:`s_t = \operatorname{argmax}_{r
    \ne y_t} w^r\cdot x_t` (lowest index among equals) and
    :math:`\ell_t = \max\{0, 1 - w^{y_t}\cdot x_t + w^{s_t}\cdot x_t\}`,
    the step is Figure 1's on :math:`\Phi(x_t, y_t) - \Phi(x_t, s_t)`,
    of squared norm :math:`2\|x_t\|^2`:

    .. math::

        w^{y_t} \leftarrow w^{y_t} + \tau_t x_t,\quad
        w^{s_t} \leftarrow w^{s_t} - \tau_t x_t,\qquad
        \tau_t = \frac{\ell_t}{2\|x_t\|^2},\
        \min\Bigl\{C, \frac{\ell_t}{2\|x_t\|^2}\Bigr\},\
        \frac{\ell_t}{2\|x_t\|^2 + \frac{1}{2C}};

    with the bias every prototype has its own :math:`b^r` and the norm is
    :math:`2(\|x_t\|^2 + 1)`; a weight scales C as below. A step is a
    mistake when the true class does not score strictly highest.

    Kernel form (Sec. 3): :math:`w_t = \sum_{i<t} \tau_i y_i \phi(x_i)`,
    so :math:`w_t\cdot\phi(x_t) = \sum_{i<t} \tau_i y_i k(x_i, x_t)` and
    :math:`\|\phi(x_t)\|^2 = k(x_t, x_t)`; an update adds
    :math:`\tau_t y_t` to the coefficient of :math:`x_t`.

    Bias. The paper's hypotheses go through the origin
    (``fit_intercept=False``). With ``fit_intercept=True`` the rule runs on
    the instance with a constant feature, :math:`x' = [x, 1]`,
    :math:`w' = [w, b]`: the score is :math:`w\cdot x + b`, the norm in τ
    is :math:`\|x\|^2 + 1` (:math:`k(x, x) + 1` with a kernel), and an
    update adds :math:`\tau_t y_t` to b. Every property of [1]_ then holds
    in the augmented space (the update is the minimum-norm change of
    (w, b), Theorem 2's R is the radius of the :math:`x'`).

    .. warning::
       scikit-learn's ``PassiveAggressiveClassifier`` (``SGDClassifier``
       with ``learning_rate="pa1"``/``"pa2"``) learns its intercept with τ
       computed from :math:`\|x\|^2` alone (and, on sparse input, adds
       only 0.01 of each step to b): that step overshoots the margin the
       paper's update attains. Here the intercept is the constant feature's
       weight, so ``fit_intercept=True`` equals scikit-learn's
       ``fit_intercept=False`` on ``[X, 1]``, and with
       ``fit_intercept=False`` PA-I and PA-II equal scikit-learn's
       ``loss="hinge"`` and ``"squared_hinge"`` (``shuffle=False,
       tol=None``) weight for weight. ``intercept_update="sklearn"`` takes
       scikit-learn's step instead, and then ``fit_intercept=True`` models
       equal scikit-learn's too (on rows that are not all zero: its PA-II
       moves b on a zero row, where here such a row is passive).
       :meth:`from_sklearn` translates scikit-learn's parameters.

    Weighted rows (``sample_weight`` × ``class_weight``). A row of weight
    :math:`s > 0` enters the paper's problems with the aggressiveness
    :math:`sC`: :math:`\tfrac12\|w - w_t\|^2 + sC\xi` (Eq. (4)) and
    :math:`\tfrac12\|w - w_t\|^2 + sC\xi^2` (Eq. (5)), hence

    .. math::

        \tau_t = \min\Bigl\{sC, \frac{\ell_t}{\|x_t\|^2}\Bigr\}\
        \text{(PA-I)},\qquad
        \tau_t = \frac{\ell_t}{\|x_t\|^2 + \frac{1}{2sC}}\ \text{(PA-II)},

    For PA-I an integer weight k is k consecutive presentations of the row.
    A row of weight 0 is absent, and unit weights are the unweighted run bit
    for bit. PA's update meets the hard constraint of Eq. (2), which no
    weight changes (C = ∞ scaled is ∞): rather than ignore them, PA refuses
    weights other than 0 and 1 (and ``class_weight``), naming PA-I and
    PA-II. (scikit-learn instead
    multiplies τ by s after the clipping, which for s ≠ 1 no longer
    attains the margin PA's step attains.)

    .. warning::
       A step is an update when :math:`\ell_t > 2^{-40}`, not
       :math:`\ell_t > 0`: an unclipped step leaves the margin at exactly 1
       in exact arithmetic, and in float64 an example met again at the
       margin shows a loss of ~1e-16, the rounding of its score. Counted as
       losses, these make steps of that size for ever on separable data
       (2 of 300 rows every pass, for 400 passes, measured), so that the
       last hypothesis never has a pass without an update and ``tol``
       cannot end it; below :math:`2^{-40}` the margin is taken as
       attained (``perceptrons._loops.passive_aggressive.LOSS_ROUNDING``).
       This changes w by less than :math:`2^{-40}/\|x\|` per such step.

    A row with :math:`x = 0` and no bias cannot move w (PA's τ is
    undefined there); it is passive. Ties: ``y (w·x + b) = 0`` counts as a
    mistake, a score of exactly 0 predicts ``classes_[0]``, and among equal
    one-vs-rest scores the lowest class index wins.

    Averaged hypothesis. On noisy data the last hypothesis is whichever w
    the last few steps left. Test accuracy on
    ``make_classification(600, 20 features, 6 informative, flip_y=0.1)``,
    60/40 split, 10 shuffled passes, ``random_state`` 0-4 (scikit-learn's
    PA on ``[X, 1]``, which is this rule): with two classes "last" gives
    0.60-0.68 at C = 1 (0.69-0.75 at C = 0.01) against LinearSVC's 0.73,
    "averaged" 0.74-0.77 for PA, PA-I and PA-II alike; with three classes
    "last" 0.43-0.55 against 0.60-0.65, "averaged" 0.58-0.64. The sum is
    kept lazily: :math:`\frac1T\sum_t w_t = w_T - \frac1T\sum_s (s-1)
    \Delta_s` over the updates :math:`\Delta_s` (the Perceptron's
    accumulator), at the cost of one more row operation per update.

    References
    ----------
    .. [1] K. Crammer, O. Dekel, J. Keshet, S. Shalev-Shwartz and Y.
       Singer. Online passive-aggressive algorithms. *Journal of Machine
       Learning Research* 7:551-585, 2006.
       https://www.jmlr.org/papers/v7/crammer06a.html

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from perceptrons import PassiveAggressive
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = PassiveAggressive(random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.95
    True

    The kernel form, on data no hyperplane separates:

    >>> from sklearn.datasets import make_circles
    >>> Xc, yc = make_circles(n_samples=200, factor=0.3, noise=0.05,
    ...                       random_state=0)
    >>> kclf = PassiveAggressive(kernel="rbf", gamma=2.0,
    ...                          random_state=0).fit(Xc, yc)
    >>> kclf.score(Xc, yc) > 0.95
    True
    """

    _parameter_constraints = {
        **OnlineClassifier._parameter_constraints,
        **STOPPING_CONSTRAINTS,
        "variant": [StrOptions(set(RULES))],
        "C": [Interval(Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "intercept_update": [StrOptions({"constant", "sklearn"})],
        "hypothesis": [StrOptions({"last", "averaged"})],
        "multiclass": [StrOptions({"ovr", "prototype"})],
        "kernel": [StrOptions(set(KERNEL_NAMES)), None],
        **KernelParams.KERNEL_CONSTRAINTS,
        **budget_constraints(COMMON_POLICIES + ("bpa-s", "bpa-nn")),
    }

    _algorithm = PassiveAggressiveRule

    @classmethod
    def _test_params(cls):
        # variant="PA" refuses weights (check_class_weight_classifiers);
        # it differs from PA-I only in τ (its own tests cover it).
        return [{}, {"variant": "PA-II", "C": 0.1},
                {"hypothesis": "last"},
                {"variant": "PA-II", "hypothesis": "last", "max_iter": 5},
                {"kernel": "rbf", "gamma": 0.5, "max_iter": 5,
                 "cache_size": 0.01},
                {"kernel": "rbf", "gamma": 0.5, "max_iter": 5,
                 "variant": "PA-II", "hypothesis": "last"},
                {"multiclass": "prototype"},
                {"multiclass": "prototype", "variant": "PA-II",
                 "hypothesis": "last", "kernel": "rbf", "gamma": 0.5,
                 "max_iter": 5},
                {"intercept_update": "sklearn"}]

    def _xfail_checks(self):
        expected = super()._xfail_checks()
        if self.variant == "PA-I":
            expected["test_balanced_class_weight_lifts_the_minority"] = (
                "a row's weight s scales the cap of τ = min(sC, ℓ/(‖x‖² + "
                "1)); on the test's rows (‖x‖² + 1 ≥ 6.5) the default C = 1 "
                "caps no step, so balanced weights change no bit of the "
                "model (minority recall 0.42, scikit-learn's balanced "
                "Perceptron 0.78)")
        return expected

    def __init__(self, *, variant="PA-I", C=1.0, fit_intercept=True,
                 intercept_update="constant",
                 multiclass="ovr", hypothesis="averaged", max_iter=10,
                 tol=None,
                 n_iter_no_change=5, early_stopping=False,
                 validation_fraction=0.1, shuffle=True, random_state=None,
                 class_weight=None, warm_start=False,
                 n_jobs=None, kernel=None, degree=3,
                 gamma=None, coef0=1.0, cache_size=200, budget=None,
                 budget_policy="random"):
        self.variant = variant
        self.C = C
        self.fit_intercept = fit_intercept
        self.intercept_update = intercept_update
        self.multiclass = multiclass
        self.hypothesis = hypothesis
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        super().__init__(kernel=kernel, degree=degree, gamma=gamma,
                         coef0=coef0, cache_size=cache_size, budget=budget,
                         budget_policy=budget_policy,
                         max_iter=max_iter, shuffle=shuffle,
                         random_state=random_state,
                         class_weight=class_weight, warm_start=warm_start,
                         n_jobs=n_jobs)
