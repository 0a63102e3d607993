"""The margin perceptron with unlearning (MPU) of Panagiotakopoulos &
Tsampouka (ICML 2010), the fastest perceptron-like baseline of PDM's Table 2.

This module holds the estimator :class:`MPU` and its algorithm
:class:`MarginUnlearning`: the compiled pass
:func:`perceptrons._loops.mpu.mpu_pass`, driven by the PDM family's active
sets and run to convergence (one-vs-rest, extension bookkeeping, reported
margins) by :class:`~perceptrons.models._margin_family.MarginAlgorithm`.
"""

from numbers import Real

import numpy as np

from .._loops.mpu import MpuRule, mpu_pass
from ..utils._param_validation import Interval, StrOptions
from ..utils.validation import linear_scores
from ._driver import OnlineClassifier
from ._margin_family import (DEFAULT_EXTENSION, MARGIN_CONSTRAINTS,
                             MarginAlgorithm, grown_margin_state)

__all__ = ["MPU", "MarginUnlearning"]

# Active sets of PDM's Sec. 5 for MPU: c̄ = 1.01, Nep1 = Nep2 = 5 (two
# levels: the second is collected with the step condition's own scale).
_C_BAR = 1.01
_N_EP1, _N_EP2 = 5, 5

# scalars[k] = [b_a, ‖a‖², N = Σ I_k, t_- (unlearning steps), b, δb].
_B_A, _SQ, _NET, _UNLEARNED, _B, _GAP = range(6)


class MarginUnlearning(MarginAlgorithm):
    """MPU's learning and unlearning steps on the margin family's run, as
    the driver runs it (the algorithm of :class:`MPU`)."""

    _n_scalars = 6

    # ----------------------------------------------------------- setting
    def _rho(self):
        return float(self.intercept_scaling) if self.fit_intercept else 0.0

    def _delta(self):
        if isinstance(self.extension, str):
            return DEFAULT_EXTENSION if self.C is None else None
        return self.extension

    def weights_refusal(self):
        if self.C is not None:
            return None
        return super().weights_refusal()

    def _params_schedule(self, state):
        return [float(self.epsilon)]

    def begin_call(self, call):
        super().begin_call(call)
        s = call.state
        y_sq_norms = call.work.y_sq_norms
        if not np.any(s.scalars[:, _GAP]) and y_sq_norms.shape[0]:
            r_sq = float(y_sq_norms.max())
            gap = float(self.gap) * r_sq
            s.scalars[:, _GAP] = gap
            s.scalars[:, _B] = gap * (1.0 - self.epsilon) / self.epsilon

    def grow_classes(self, state, classes):
        # A fresh problem's b and δb are every problem's (the first call's
        # R fixed them): a model told of the class up front has them.
        fresh = self._initial_scalars(1)[0]
        fresh[[_B, _GAP]] = state.scalars[0, [_B, _GAP]]
        return grown_margin_state(state, classes, fresh)

    def _mpu_rule(self, state, k, multiple):
        b = float(state.scalars[k, _B])
        cap = 0.0 if self.C is None else float(self.C) * b
        return MpuRule(b, float(state.scalars[k, _GAP]), cap, int(multiple))

    # ----------------------------------------------------------- training
    def _epoch_rules(self, state, k, param, epoch):
        rule = self._mpu_rule(state, k, self.multiple_updates)
        return rule, rule, (_C_BAR, 1.0, _N_EP1, _N_EP2, 0)

    def _after_epoch(self, call, k, signs, epsilon, n_full):
        if (n_full and self.certified_stop
                and self._certificate(call, k, signs) <= epsilon):
            return 0
        return n_full

    def _plain_pass(self, call, k, order, signs):
        s = call.state
        n_steps, _, n_mistakes = mpu_pass(
            order, order.shape[0], 0.0, order, *call.loop_arrays, signs,
            call.work.y_sq_norms, s.rho, s.delta_sq, call.weights,
            self._mpu_rule(s, k, False), s.weights[k], s.scalars[k],
            s.n_updates_per_problem[k:k + 1], call.work.counts[k])
        return n_steps, n_mistakes

    # ----------------------------------------------------------- certificates
    def _problem_terms(self, call, k, signs):
        """``a·y_k`` over the call's rows and ‖a‖², computed afresh."""
        s = call.state
        w = s.weights[k]
        c = call.work.counts[k].astype(np.float64)
        ay = signs * (linear_scores(call.X, w[None, :])[:, 0]
                      + s.rho * s.scalars[k, _B_A])
        if s.delta_sq:
            ext_sq = call.work.ext_sq
            ay = ay + (s.delta_sq if ext_sq is None else ext_sq) * c
        sq = (float(w @ w) + s.scalars[k, _B_A] ** 2 + self._ext_sq(call, c)
              + s.retired_ext_sq[k])
        return ay, sq

    def _certificate(self, call, k, signs):
        """The accuracy the run certifies now (inf: none).

        Maximal margin: ``1 - γ'_d N / ‖a‖``, a bound on ``(γ_d - γ'_d) /
        γ_d``. 1-norm soft margin: the relative duality gap ``(P - D)/P``.
        """
        ay, sq = self._problem_terms(call, k, signs)
        s = call.state
        net = s.scalars[k, _NET]
        if self.C is None:
            if net <= 0 or sq <= 0:
                return np.inf
            return 1.0 - float(ay.min()) * net / sq
        return self._relative_gap(call, k, ay, sq)

    def _relative_gap(self, call, k, ay, sq):
        """``(P - D) / P`` of the 1-norm soft-margin problem at w = a/b,
        α = I/b (both scaled by b²: P b² = ‖a‖²/2 + b Σ C s_k (b - a·y_k)⁺,
        D b² = b Σ I_k - ‖a‖²/2)."""
        s = call.state
        b = s.scalars[k, _B]
        box = float(self.C) * (call.weights if call.weights.shape[0]
                               else 1.0)
        primal = 0.5 * sq + b * float(np.sum(box * np.maximum(b - ay, 0.0)))
        dual = b * float(call.work.counts[k].sum()) - 0.5 * sq
        if primal <= 0:
            return np.inf
        return (primal - dual) / primal

    # ----------------------------------------------------------- results
    def _margin_bound(self, call, k, norm):
        """``‖a‖ / N >= γ_d`` (inf before any contribution)."""
        net = call.state.scalars[k, _NET]
        return norm / net if net > 0 else np.inf

    def _finish(self, call, targets, converged, n_iter):
        # The gap reads this call's counts before _finish retires them.
        s = call.state
        gaps = None if self.C is None else np.array([
            self._relative_gap(call, k, *self._problem_terms(
                call, k, self._signs(s, targets, k)))
            for k in range(s.weights.shape[0])])
        super()._finish(call, targets, converged, n_iter)
        if gaps is not None:
            call.state = call.state.replace(accuracy_estimate=gaps)

    def public(self, state):
        public = super().public(state)
        s = state
        public.update(threshold_=s.scalars[:, _B].copy(),
                      gap_=s.scalars[:, _GAP].copy(),
                      n_unlearned_per_problem_=s.scalars[:, _UNLEARNED].astype(
                          np.int64))
        return public

    def mixing_refusal(self):
        return ("MPU's steps read the run's own dual variables I_k and its "
                "threshold: a weighted average of shards' runs has neither")


class MPU(OnlineClassifier):
    r"""Margin perceptron with unlearning (MPU).

    The perceptron with margin [1]_ on augmented and reflected patterns
    :math:`y_k = [l_k x_k,\ l_k \rho]` (optionally extended by
    :math:`l_k \Delta e_k`, PDM's Sec. 5 [2]_), with :math:`a = \sum_k I_k
    y_k` kept through integer dual variables :math:`I_k \ge 0`, and a
    mechanism of *unlearning*: a pattern that is "very well classified",
    beyond the margin threshold b by more than a gap δb, gives back one of
    its contributions. Passes continue until a full pass makes no step.

    Two targets. ``C=None`` (default): the maximal (directional) margin γ_d
    of the augmented (extended) space, with γ'_d ≥ (1-ε)γ_d on convergence.
    ``C`` > 0: the optimal 1-norm soft-margin solution, the dual variables
    boxed, :math:`I_k/b \le C`; it is LinearSVC's ``loss="hinge"``
    problem at the same C (the bias regularised as ``intercept_scaling``
    says).

    Parameters
    ----------
    epsilon : float, default=0.01
        Accuracy ε, 0 < ε < 1; the threshold is :math:`b = \delta b
        (1-\epsilon)/\epsilon` (Notes). The PDM paper runs MPU at 0.01.
    gap : float, default=3.0
        δb in units of R², R the largest pattern norm :math:`\max_k
        \|y_k\|` of the first training call: :math:`\delta b = \text{gap}
        \cdot R^2`. The PDM paper uses 3; finite convergence needs
        δb > R² (gap > 1).
    C : float or None, default=None
        None: the maximal-margin target. A positive float: the 1-norm
        soft-margin target with penalty C, i.e. the box :math:`I_k \le C b`
        (:math:`C s_k b` for a row of weight :math:`s_k`).
    fit_intercept : bool, default=True
        Augment the patterns with a constant coordinate ``intercept_scaling``
        (ρ of the paper) so that the hyperplane has a bias; False: the
        paper's rule through the origin (ρ = 0).
    intercept_scaling : float, default=1.0
        ρ > 0 (the paper's experiments use 1). The bias is ``ρ b_a``, b_a
        the augmented coordinate of a, regularised with the weights as in
        LinearSVC with the same ``intercept_scaling``.
    extension : float, None or "auto", default="auto"
        Δ of PDM's Sec. 5: each instance k gets its own extra coordinate
        ``l_k Δ`` (never stored), so that the hard-margin problem is the
        2-norm soft-margin SVM ``LinearSVC(loss="squared_hinge",
        C=1/(2Δ²))``; the run then converges on any data. "auto": 1.0 (the
        paper's Δ for Adult and Web; PDM's default) with ``C=None``, None
        with C (the 1-norm target needs no extension).
    active_sets : bool, default=True
        Active sets as the PDM paper runs MPU (c̄ = 1.01, Nep1 = Nep2 = 5):
        a full pass collects the patterns with :math:`a\cdot y_k \le
        \bar c\,(b+\delta b)`; this set is presented up to 5 times, each
        time collecting those with :math:`a\cdot y_k \le b+\delta b`, which
        are presented up to 5 times. A round without step ends its level.
    multiple_updates : bool, default=True
        Make a step λ times at once, as repeated presentations of the
        pattern would (Notes).
    certified_stop : bool, default=True
        The early stopping of the PDM paper's MPU runs: stop after a full
        epoch once the run certifies its accuracy, i.e. γ'_d ≥ (1-ε)‖a‖/N
        (maximal margin) or a relative duality gap ≤ ε (1-norm soft
        margin); False: run to convergence.
    store_dual : bool, default=False
        Keep ``support_`` and ``dual_coef_`` (``l_k I_k`` of the last call).
    max_iter : int, default=1000
        Most full epochs; on reaching it a ConvergenceWarning is issued.
    shuffle : bool or "blocks", default=True
        A fresh random permutation for every full epoch.
    random_state : int, RandomState instance or None, default=None
        Seeds the permutations (one seed per one-vs-rest problem).
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying ``sample_weight`` (Notes).
    warm_start : bool, default=False
        ``fit`` continues the fitted state instead of starting afresh.
    %(n_jobs)s

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_problems, n_features)
        w, the non-augmented part of a.
    intercept_ : ndarray of shape (n_problems,)
        ``ρ b_a``.
    dual_coef_, support_ : ndarray
        Only with ``store_dual=True``: ``l_k I_k`` for the rows with
        ``I_k > 0`` in some problem (``a = Σ_k I_k y_k``).
    threshold_, gap_ : ndarray of shape (n_problems,)
        b and δb the run used.
    n_unlearned_per_problem_ : ndarray of shape (n_problems,)
        Unlearning steps made (``n_updates_per_problem_`` counts both kinds).
    directional_margin_ : ndarray of shape (n_problems,)
        γ'_d, ``min_k a·y_k / ‖a‖`` on the last call's training set.
    geometric_margin_ : ndarray of shape (n_problems,)
        The same minimum over ‖a‖ without its augmented coordinate.
    margin_bound_ : ndarray of shape (n_problems,)
        ``‖a‖ / N`` with N = Σ_k I_k: an upper bound on γ_d (Notes).
    margin_fraction_ : ndarray of shape (n_problems,)
        ``directional_margin_ / margin_bound_``, a lower bound on γ'_d/γ_d.
    accuracy_estimate_ : ndarray of shape (n_problems,)
        Maximal margin: ``1 - margin_fraction_``. 1-norm soft margin: the
        relative duality gap ``(P - D)/P`` (Notes).
    converged_ : ndarray of shape (n_problems,), bool
        A full pass made no step, or (``certified_stop``) the accuracy was
        certified.
    n_updates_, n_mistakes_ : int
        As in :class:`~perceptrons.PDM`; a step (learning or unlearning)
        counts as an update.
    mistakes_per_epoch_, updates_per_epoch_ : ndarray of shape (n_epochs,)
    n_updates_per_problem_, n_iter_per_problem_ : ndarray of int64
        Per problem, shape (n_problems,).
    n_iter_, n_active_passes_, t_, n_features_in_ : int
        As in :class:`~perceptrons.PDM`.

    See Also
    --------
    PDM : the perceptron with dynamic margin, the same family's other
        approximate maximal-margin algorithm.

    Notes
    -----
    The rule. With :math:`a = \sum_k I_k y_k` (:math:`a_0 = 0`, I = 0),
    pattern k is presented and

    .. math::

        a\cdot y_k \le b\ (\text{and } I_k + 1 \le C s_k b)
        \;\Rightarrow\; a \leftarrow a + y_k,\ I_k \leftarrow I_k + 1
        \qquad \text{(learn)}

        a\cdot y_k > b + \delta b \text{ and } I_k > 0
        \;\Rightarrow\; a \leftarrow a - y_k,\ I_k \leftarrow I_k - 1
        \qquad \text{(unlearn)}

    With ``multiple_updates`` the step is made λ times at once, λ the
    number of repeated presentations that would make it: learning
    :math:`\lambda = \lfloor (b - a\cdot y_k)/\|y_k\|^2\rfloor + 1`
    (within the box), unlearning :math:`\lambda = \min(I_k, \lceil
    (a\cdot y_k - b - \delta b)/\|y_k\|^2\rceil)`.

    Maximal margin. On convergence every pattern has :math:`a\cdot y_k >
    b` and every pattern with :math:`I_k > 0` has :math:`a\cdot y_k \le b
    + \delta b`, so :math:`\|a\|^2 = \sum_k I_k a\cdot y_k \le (b+\delta b)
    N` with :math:`N = \sum_k I_k`, while :math:`\|a\| \ge u\cdot a \ge
    \gamma_d N` (u the optimal direction; :math:`I_k \ge 0`). Hence
    :math:`\gamma_d \le \|a\|/N` (``margin_bound_``), :math:`\|a\| \le
    (b+\delta b)/\gamma_d` and

    .. math::

        \gamma'_d > \frac{b}{\|a\|} \ge \frac{b}{b+\delta b}\gamma_d
        = (1-\epsilon)\gamma_d \quad\text{for}\quad
        b = \delta b\,\frac{1-\epsilon}{\epsilon}.

    Number of steps: with :math:`f = \|a\|^2 - 2bN`, a learning step
    raises f by at most :math:`R^2` and an unlearning step lowers it by more
    than :math:`2\delta b - R^2`, while :math:`f \ge \gamma_d^2 N^2 - 2bN`;
    so :math:`N \le (2b+R^2)/\gamma_d^2` and the unlearning steps number
    :math:`t_- \le (2b+R^2)^2 / (8\gamma_d^2(\delta b - R^2))`, and the
    steps :math:`t = N + 2t_-` are finite for δb > R².

    1-norm soft margin. Reading :math:`w = a/b` and :math:`\alpha_k =
    I_k/b`, the stopping conditions are the KKT conditions of
    :math:`\min \tfrac12\|w\|^2 + C\sum_k s_k \max(0, 1 - w\cdot y_k)`
    (dual: :math:`\max \sum_k\alpha_k - \tfrac12\|\sum_k \alpha_k
    y_k\|^2`, :math:`0 \le \alpha_k \le C s_k`) up to the gap δb/b and one
    unit 1/b of the box; the duality gap P - D at convergence is at most
    :math:`(\delta b/b) \sum_k \alpha_k + (1/b)\sum_{\text{boxed}}(1 -
    w\cdot y_k)^+`. The steps are finite: N is at most :math:`\sum_k C s_k
    b` and :math:`t_- \le (2b+R^2) N / (2(\delta b - R^2))`.

    Sample weights. A row's weight :math:`s_k > 0` is its weight in the
    loss of the target: in the extension (the 2-norm soft margin, as in
    :class:`~perceptrons.PDM`: its own :math:`\Delta_k = \Delta/\sqrt{s_k}`)
    and in the box (the 1-norm soft margin: :math:`C s_k`). The steps are
    those of the unweighted rule on these patterns and boxes, so the
    guarantees above hold for the weighted problem. With neither extension
    nor C (the hard-margin problem) weights other than 0 and 1 are
    refused.

    ``partial_fit`` makes one plain pass (single steps, no active sets); b
    and δb are fixed by the first call's R.

    .. warning::
       Only the abstract and the opening of the ICML 2010 paper were
       reachable when this was written (its equations could not be read,
       so they are not cited by number), and the rule is a reading of the
       abstract and of the PDM paper's description of MPU [2]_ (footnote 3
       and Sec. 5): learning and unlearning are the two steps above (their
       conditions are disjoint, so a presentation makes at most one kind);
       b comes from ε through the margin guarantee derived above (the
       reading b = δb/ε is ``epsilon=ε/(1+ε)`` here); ``C`` is a box
       :math:`I_k \le C b` on the dual variables; the active sets of PDM's
       Sec. 5 (c̄ = 1.01, Nep1 = Nep2 = 5) collect :math:`a\cdot y_k \le
       \bar c(b+\delta b)`, then :math:`a\cdot y_k \le b+\delta b`
       (plain cycling, ``active_sets=False``, reaches the same guarantee:
       the sets only reorder presentations); "early stopping" is
       ``certified_stop``. The convergence argument above is ours, not a
       transcription of the paper's theorem.

    References
    ----------
    .. [1] C. Panagiotakopoulos and P. Tsampouka. The margin perceptron with
       unlearning. ICML 2010, pp. 855-862.
    .. [2] C. Panagiotakopoulos and P. Tsampouka. The perceptron with
       dynamic margin. ALT 2011, LNCS 6925, pp. 204-218, 2011.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from perceptrons import MPU
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = MPU(extension=None, random_state=0).fit(X[y < 2], y[y < 2])
    >>> bool(clf.converged_[0]) and clf.score(X[y < 2], y[y < 2]) == 1.0
    True
    >>> bool(clf.accuracy_estimate_[0] <= 0.01)
    True
    """

    _parameter_constraints = {
        **{key: value
           for key, value in MARGIN_CONSTRAINTS.items()
           if key not in ("augmentation", "extension")},
        "epsilon": [Interval(Real, 0, 1, closed="neither")],
        "gap": [Interval(Real, 1, None, closed="neither")],
        "C": [Interval(Real, 0, None, closed="neither"), None],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(Real, 0, None, closed="neither")],
        "extension": [Interval(Real, 0, None, closed="neither"), None,
                      StrOptions({"auto"})],
        "certified_stop": ["boolean"],
    }
    _algorithm = MarginUnlearning

    @classmethod
    def _test_params(cls):
        return [
            {},
            {"C": 1.0},
            {"epsilon": 0.1, "gap": 1.5, "extension": 0.5},
            # Single steps are checked against the reference
            # (tests/models/test_mpu.py): the checks' max_iter=1000 is too
            # few for them at the checks' extreme class weights.
            {"epsilon": 0.1, "active_sets": False, "certified_stop": False},
        ]

    def __init__(self, *, epsilon=0.01, gap=3.0, C=None, fit_intercept=True,
                 intercept_scaling=1.0, extension="auto", active_sets=True,
                 multiple_updates=True, certified_stop=True, store_dual=False,
                 max_iter=1000, shuffle=True, random_state=None,
                 class_weight=None, warm_start=False, n_jobs=None):
        self.epsilon = epsilon
        self.gap = gap
        self.C = C
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.extension = extension
        self.active_sets = active_sets
        self.multiple_updates = multiple_updates
        self.certified_stop = certified_stop
        self.store_dual = store_dual
        super().__init__(max_iter=max_iter, shuffle=shuffle,
                         random_state=random_state, class_weight=class_weight,
                         warm_start=warm_start, n_jobs=n_jobs)
