"""What PDM, PFM, ROMMA and MPU share: their state, their parameters and
the algorithm base that runs them.

The estimators live in :mod:`perceptrons.models.margin` (PDM and PFM, with
their algorithms and the docstring fragments the family shares),
:mod:`perceptrons.models.romma` and :mod:`perceptrons.models.mpu`; each
names an algorithm derived from :class:`MarginAlgorithm` (here), whose
state is a :class:`MarginState` and whose per-call scratch is a
:class:`MarginWork`.

:class:`MarginAlgorithm` writes its own passes (the driver's
``fit_passes`` and ``partial_pass``): ``fit`` runs each one-vs-rest problem
on its own to convergence (:mod:`perceptrons.models._ovr`), each full epoch
followed by the passes over the nested active sets of PDM's Sec. 4
(:func:`~perceptrons._loops.margin.active_set_epoch`); ``partial_fit``
makes one plain pass, one presentation per row. Input validation, label
encoding, weights, warm starts and prediction are the driver's
(:mod:`perceptrons.models._driver`).

Why the default has an extension. Without one, on data that is not
separable in the augmented space, no run converges and the a left at
``max_iter`` can be anything, even an inverted hyperplane (training
accuracy 0.03 to 0.97 by seed on scikit-learn's standardised blobs).
The cause is the active sets of Sec. 4: each full epoch ends with up to
9 × 12 × 12 passes over the nested sets of patterns that satisfied the
condition in the pass before, i.e. those on the wrong side of the
current hyperplane or close to it. On inseparable data these are
mostly the overlapping and mislabelled patterns, and the perceptron
run on them alone fits *them*: a subset made of the patterns that the
bulk's separator gets wrong is best fitted by the opposite hyperplane.
On separable data this is harmless (every pattern of a subset is
separated by the full set's separator, so Theorem 3.2 holds for any
presentation order and the next full pass goes on from there), but
without a separator the last iterate is whatever the last sub-run
fitted. Plain full passes (``active_sets=False``) end between 0.89 and
0.97 on the same blobs, and with an extension every run converges.
"""

import dataclasses
import threading
from numbers import Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .._loops.margin import MarginRule, active_set_epoch, margin_pass
from ..utils._param_validation import Interval
from ..utils.validation import linear_scores, refuse_underflow
from ._classes import RowGrowth
from ._driver import Algorithm, OnlineClassifier
from ._ovr import (epochs_until_converged, for_each_problem, problem_seeds,
                   problem_signs)
from ._state import (FittedState, appended, array, check_problems,
                     n_problems_of, scalar)

__all__ = ["DEFAULT_EXTENSION", "MARGIN_CONSTRAINTS", "Diverged",
           "MarginAlgorithm", "MarginParams", "MarginState", "MarginWork",
           "check_problem_finite", "count_epoch", "grown_margin_state",
           "recorded_epochs", "unconverged_warnings"]

# Active-set constants of Sec. 4.
_C1, _C2, _C1_FIRST = 2.2, 1.1, 1.1
_N_EP1, _N_EP2, _N_EP3 = 9, 12, 12

#: The default Δ of PDM, PFM and ROMMA (see the ``extension`` parameter of
#: :class:`~perceptrons.PDM`).
DEFAULT_EXTENSION = 1.0

#: The constraints of the driver's parameters and of those the margin
#: estimators share (ROMMA has no ``multiple_updates``; MPU its own
#: ``extension`` and, instead of ``augmentation``, ``fit_intercept``).
MARGIN_CONSTRAINTS = {
    **OnlineClassifier._parameter_constraints,
    "augmentation": [Interval(Real, 0, None, closed="left")],
    "extension": [Interval(Real, 0, None, closed="neither"), None],
    "active_sets": ["boolean"],
    "multiple_updates": ["boolean"],
    "store_dual": ["boolean"],
}


class MarginParams:
    """An estimator's parameters ``augmentation, extension, active_sets,
    store_dual`` (its ``__init__`` passes them on; their constraints are in
    :data:`MARGIN_CONSTRAINTS`)."""

    def __init__(self, *, augmentation, extension, active_sets, store_dual,
                 **params):
        self.augmentation = augmentation
        self.extension = extension
        self.active_sets = active_sets
        self.store_dual = store_dual
        super().__init__(**params)


class Diverged(Exception):
    """A problem's run stopped before its weights left float64's range.

    Raised by an algorithm's epoch function (ROMMA's, whose ‖a‖ grows
    without bound on inseparable data) and caught by
    :meth:`MarginAlgorithm.fit_passes`, which keeps the last representable
    a and warns.
    """

    def __init__(self, epochs):
        super().__init__(epochs)
        self.epochs = epochs


@dataclasses.dataclass(frozen=True)
class MarginState(FittedState):
    """The fitted state of :class:`~perceptrons.PDM`,
    :class:`~perceptrons.PFM`, :class:`~perceptrons.ROMMA` and
    :class:`~perceptrons.MPU`.

    Binds ``n_problems`` (one for two classes, else one per class).

    Attributes
    ----------
    rho, delta_sq : float
        ρ and Δ² (0: no extension) the run was made with.
    weights : ndarray of shape (n_problems, n_features)
        w, the non-augmented part of a (ROMMA: u_w, a = s u).
    scalars : ndarray of shape (n_problems, n_scalars)
        ``[b, ‖a‖²]`` (ROMMA: ``[u_b, ‖a‖², s, Δ² Σ g² retired]``; MPU:
        ``[b_a, ‖a‖², N = Σ I_k, unlearning steps, threshold b, gap δb]``).
    n_updates_per_problem : ndarray of shape (n_problems,)
        t, the updates made.
    retired_ext_sq : ndarray of shape (n_problems,)
        Δ² Σ c_k² of the rows of finished calls, whose extension
        coordinates stay in a.
    converged, directional_margin, geometric_margin, margin_bound, \
margin_fraction, accuracy_estimate : ndarray of shape (n_problems,)
        What the last call found (the public attributes of the same names).
    n_active_passes : int
    n_iter_per_problem : ndarray of shape (n_problems,)
    support, dual_coef : ndarray or None
        With ``store_dual=True``: the last call's rows updated at least once
        and their signed update counts.
    beta : float or None
        PFM's β, resolved.
    """

    VERSION = 2  # 2: n_labels (multi-label models)

    rho: float = scalar("float", low=0.0)
    delta_sq: float = scalar("float", low=0.0)
    weights: np.ndarray = array("float", ("n_problems", "n_features"))
    scalars: np.ndarray = array("float", ("n_problems", None))
    n_updates_per_problem: np.ndarray = array("int", ("n_problems",), low=0)
    retired_ext_sq: np.ndarray = array("float", ("n_problems",), low=0.0)
    converged: np.ndarray = array("bool", ("n_problems",))
    directional_margin: np.ndarray = array("float", ("n_problems",))
    geometric_margin: np.ndarray = array("float", ("n_problems",))
    margin_bound: np.ndarray = array("float", ("n_problems",), low=0.0,
                                     finite=False)
    margin_fraction: np.ndarray = array("float", ("n_problems",))
    accuracy_estimate: np.ndarray = array("float", ("n_problems",))
    n_active_passes: int = scalar("int", low=0)
    n_iter_per_problem: np.ndarray = array("int", ("n_problems",), low=0)
    support: np.ndarray = array("int", ("n_support",), low=0,
                                optional=True)
    dual_coef: np.ndarray = array("float", ("n_problems", "n_support"),
                                  finite=False, optional=True)
    beta: float = scalar("float", low=0.0, optional=True)

    def check(self, sizes, where):
        super().check(sizes, where)
        check_problems(sizes, where, n_labels=self.n_labels)
        if (self.support is None) != (self.dual_coef is None):
            raise ValueError(f"{where}: support and dual_coef go together")
        if np.any(np.isnan(self.margin_bound)):
            raise ValueError(f"{where}.margin_bound holds NaN")
        if self.rho > 1e150 or self.delta_sq > 1e300:
            raise ValueError(f"{where}: ρ² + Δ² overflows float64")


@dataclasses.dataclass(eq=False)
class MarginWork:
    """Per-call scratch of a :class:`MarginAlgorithm`.

    Attributes
    ----------
    counts : ndarray of shape (n_problems, n_samples)
        c_k, the updates made on each row in each problem (int64; ROMMA:
        its real coefficients g_k, float64; MPU: its dual variables I_k).
    ext_sq : ndarray of shape (n_samples,) or None
        With weights and an extension, each row's own squared extension
        ``Δ_k² = Δ²/s_k``; None when every weight is 1 or Δ = 0.
    y_sq_norms : ndarray of shape (n_samples,)
        ‖y_k‖² = ‖x_k‖² + ρ² + Δ_k², the patterns' squared norms.
    diverged : list of int
        The problems stopped by :class:`Diverged`.
    stats_lock : threading.Lock
        Guards the counters problems running on threads add to.
    epoch_mistakes, epoch_updates : list of list of int
        Per problem, the mistakes and updates of each epoch (a full pass
        and its active passes).
    n_active_passes : int
        Passes over the active sets so far, this call's included.
    """

    counts: np.ndarray
    ext_sq: np.ndarray
    y_sq_norms: np.ndarray
    diverged: list
    stats_lock: object
    epoch_mistakes: list
    epoch_updates: list
    n_active_passes: int


class MarginAlgorithm(Algorithm):
    """The run of PDM, PFM, ROMMA and MPU as the driver runs it (see the
    module notes): the run of each one-vs-rest problem to convergence
    (:meth:`fit_passes`), ``partial_fit``'s plain pass
    (:meth:`partial_pass`) and the reported margins.

    The model is a = [w, b, extension] per problem (:class:`MarginState`).
    The per-row update counts c_k are per-call scratch
    (:class:`MarginWork`): folded into ``retired_ext_sq`` when the call
    ends and kept only as ``dual_coef_`` with ``store_dual=True``. A
    subclass gives its condition (``_rule`` and :meth:`_params_schedule`)
    or its own epoch (:meth:`_problem_epoch`, :meth:`_plain_pass`).
    """

    state_type = MarginState
    takes_multilabel = True
    max_iter_is_a_cap = True

    # ----------------------------------------------------------- schedule
    _rule = None
    #: Columns of ``scalars``: [b, ‖a‖²] (ROMMA adds its own).
    _n_scalars = 2
    _counts_dtype = np.int64

    def _params_schedule(self, state):
        """Condition parameters of the successive runs (one run: one value)."""
        raise NotImplementedError

    def _first_epoch_plain(self):
        """True: the first full epoch uses c1 = 1.1 and single updates."""
        return False

    # ----------------------------------------------------------- state
    def needs_row_sq_norms(self):
        # ‖y_k‖² = ‖x_k‖² + ρ² + Δ² enters every update of a's norm.
        return True

    def check_state(self, state):
        if state.scalars.shape[1] != self._n_scalars:
            raise ValueError(f"{self.estimator_name}'s state keeps "
                             f"{self._n_scalars} scalars per problem, not "
                             f"{state.scalars.shape[1]}")

    def _ext_sq(self, call, c):
        """``Σ_k Δ_k² c_k² = Δ² Σ_k c_k² / s_k``, the squared norm of a's
        extension block (``Δ² Σ_k c_k²`` when every weight is 1).

        0 without extension whatever c holds: ROMMA's coefficients are not
        part of a then, and may have overflowed (0 · inf would be NaN).
        """
        delta_sq = call.state.delta_sq
        if not delta_sq:
            return 0.0
        if call.work.ext_sq is None:
            return delta_sq * float(c @ c)
        # Δ² times the sum: weights 4s at extension 2Δ give the same bits
        # as weights s at Δ (the same problem).
        return delta_sq * float(c @ (c / call.weights))

    def _rho(self):
        """ρ, the augmented coordinate of the patterns."""
        return float(self.augmentation)

    def _delta(self):
        """Δ of the extension, None without one."""
        return self.extension

    def weights_refusal(self):
        if self._delta() is None:
            return (f"{self.estimator_name} without extension solves the "
                    "hard-margin problem, whose solution (the maximum-margin "
                    "separator) no positive weight can change: sample "
                    "weights other than 0 and 1 (and class_weight) act "
                    "through the extension, a row of weight s getting its "
                    "own Δ/√s (its weight in the 2-norm soft-margin loss); "
                    "set extension")
        return None

    def new_state(self, call, fitted):
        n_problems = n_problems_of(fitted["classes"], fitted["n_labels"])

        def per_problem(dtype=np.float64):
            return np.zeros(n_problems, dtype=dtype)

        return MarginState(
            **fitted, rho=self._rho(),
            delta_sq=(0.0 if self._delta() is None
                      else float(self._delta()) ** 2),
            weights=np.zeros((n_problems, call.X.shape[1])),
            scalars=self._initial_scalars(n_problems),
            n_updates_per_problem=per_problem(np.int64),
            retired_ext_sq=per_problem(), converged=per_problem(bool),
            directional_margin=per_problem(), geometric_margin=per_problem(),
            margin_bound=per_problem(), margin_fraction=per_problem(),
            accuracy_estimate=per_problem(), n_active_passes=0,
            n_iter_per_problem=per_problem(np.int64), support=None,
            dual_coef=None, beta=self._resolve_beta(call))

    def _initial_scalars(self, n_problems):
        return np.zeros((n_problems, self._n_scalars))

    def _resolve_beta(self, call):
        """PFM's β ("auto" resolved); None for the other rules."""
        return None

    def feature_growth_refusal(self, state):
        # w = 0 for a new feature (the norms and margins unchanged): no update moved it.
        return None

    def class_growth_refusal(self, state):
        return None

    def grow_classes(self, state, classes):
        return grown_margin_state(state, classes, self._initial_scalars(1)[0])

    def begin_call(self, call):
        """The per-call scratch (:class:`MarginWork`): row norms ‖y_k‖² and
        update counts c_k; with weights, the rows' own squared extensions
        ``Δ_k² = Δ²/s_k`` (``ext_sq``; None when every weight is 1 or
        Δ = 0)."""
        refuse_underflow(call.loop_arrays[0], call.mean_sq_norm)
        s = call.state
        n_problems = s.weights.shape[0]
        ext_sq = None
        if call.weights.shape[0] and s.delta_sq:
            # The loops form the same quotient, delta_sq / weights[k].
            ext_sq = s.delta_sq / call.weights
            if not float(ext_sq.max()) <= 1e300:
                raise ValueError(
                    "a row's weight is too small for the extension: Δ²/s "
                    "(its own squared extension) overflows float64; use "
                    "larger weights or drop the row (weight 0)")
            y_sq_norms = call.sq_norms + (s.rho ** 2 + ext_sq)
        else:
            y_sq_norms = call.sq_norms + (s.rho ** 2 + s.delta_sq)
        call.work = MarginWork(
            counts=np.zeros((n_problems, call.X.shape[0]),
                            dtype=self._counts_dtype),
            ext_sq=ext_sq, y_sq_norms=y_sq_norms, diverged=[],
            stats_lock=threading.Lock(),
            # Per problem, the mistakes and updates of each epoch (full
            # pass and its active passes).
            epoch_mistakes=[[] for _ in range(n_problems)],
            epoch_updates=[[] for _ in range(n_problems)],
            n_active_passes=s.n_active_passes)
        call.t = s.t

    def set_initial(self, state, coef, intercept):
        s = state
        if coef is not None:
            s.weights[:] = coef
        if intercept is not None:
            if s.rho == 0 and np.any(intercept != 0):
                raise ValueError("intercept_init must be zero with "
                                 "augmentation=0 (no bias coordinate)")
            s.scalars[:, 0] = intercept / s.rho if s.rho else 0.0
        w, b = s.weights, s.scalars[:, 0]
        s.scalars[:, 1] = np.einsum("ij,ij->i", w, w) + b * b

    @staticmethod
    def _signs(state, targets, k):
        return problem_signs(targets, k, state.weights.shape[0])

    # ----------------------------------------------------------- training
    def fit_passes(self, call, targets):
        """Each one-vs-rest problem to convergence (or ``max_iter`` epochs)."""
        X = call.X
        self.begin_call(call)
        s = call.state
        n_problems = s.weights.shape[0]
        seeds = problem_seeds(self.random_state, n_problems)
        converged = np.zeros(n_problems, dtype=bool)
        n_iter = s.n_iter_per_problem

        def run_problem(k):
            try:
                return (*epochs_until_converged(
                    self._problem_epoch(call, k, self._signs(s, targets, k)),
                    self._params_schedule(s), self.max_iter, X.shape[0],
                    self.shuffle, np.random.RandomState(seeds[k])), False)
            except Diverged as stop:
                return stop.epochs, False, True

        for k, (epochs, converged[k], diverged) in enumerate(
                for_each_problem(run_problem, n_problems, self.n_jobs)):
            if diverged:
                call.work.diverged.append(k)
            n_iter[k] = epochs
            call.t += X.shape[0] * epochs
        self._finish(call, targets, converged, int(n_iter.max()))
        return unconverged_warnings(self.estimator_name, call.work.diverged,
                                    converged, self._delta() is None,
                                    self.max_iter)

    def _problem_epoch(self, call, k, signs):
        """Problem k's full epoch (with its active-set passes), for the driver.

        Returns
        -------
        callable
            ``run_epoch(order, param, epoch) -> n_updates_of_full_pass``.
        """
        s = call.state
        active = int(self.active_sets)
        n = signs.shape[0]
        levels = [np.empty(n, dtype=np.int64) for _ in range(3)]
        stats = np.zeros(4, dtype=np.int64)
        vector = (s.weights[k], s.scalars[k],
                  s.n_updates_per_problem[k:k + 1], call.work.counts[k])

        def run_epoch(order, param, epoch):
            full, active_rule, schedule = self._epoch_rules(s, k, param,
                                                            epoch)
            before = stats.copy()
            n_full = active_set_epoch(
                *call.loop_arrays, signs, call.work.y_sq_norms, order, s.rho,
                s.delta_sq, call.weights, full, active_rule, *vector, active,
                *schedule, *levels, stats)
            count_epoch(call, k, n_full, stats - before)
            check_problem_finite(s, k, epoch + 1)
            return self._after_epoch(call, k, signs, param, n_full)

        return run_epoch

    def _epoch_rules(self, state, k, param, epoch):
        """Rules and active-set schedule of problem k's full epoch.

        Returns
        -------
        full_rule, active_rule : named tuple
            The rules of the full pass and of the active passes.
        schedule : tuple
            ``(c1, c2, n_ep1, n_ep2, n_ep3)`` of
            :func:`~perceptrons._loops.margin.active_set_epoch`.
        """
        first = epoch == 0 and self._first_epoch_plain()
        multiple = int(self.multiple_updates)
        full = MarginRule(self._rule, float(param), 0 if first else multiple)
        return (full, full._replace(multiple=multiple),
                (_C1_FIRST if first else _C1, _C2, _N_EP1, _N_EP2, _N_EP3))

    def _after_epoch(self, call, k, signs, param, n_full):
        """What the driver takes as the epoch's full-pass updates (0 ends
        the run); a model may stop early here."""
        return n_full

    def partial_pass(self, call, targets):
        """One plain pass per problem: each row presented once.

        Single updates (a multiple update stands for repeated presentations),
        no active sets, the final condition parameter (the last ε of a
        successive-run schedule). The rows are new instances: with
        ``extension`` they get fresh extension coordinates, while those of
        earlier calls stay in ‖a‖².
        """
        X = call.X
        self.begin_call(call)
        order = np.arange(X.shape[0], dtype=np.int64)
        s = call.state
        n_problems = s.weights.shape[0]
        converged = np.zeros(n_problems, dtype=bool)
        for k in range(n_problems):
            n_upd, n_mistakes = self._plain_pass(call, k, order,
                                                 self._signs(s, targets, k))
            call.work.epoch_updates[k].append(n_upd)
            call.work.epoch_mistakes[k].append(n_mistakes)
            check_problem_finite(s, k, int(s.n_iter_per_problem[k]) + 1)
            converged[k] = n_upd == 0
        s.n_iter_per_problem[:] += 1
        call.t += n_problems * X.shape[0]
        self._finish(call, targets, converged, s.n_iter + 1)
        # One pass is not a run to convergence: only a divergence is news.
        return unconverged_warnings(self.estimator_name, call.work.diverged,
                                    np.ones(n_problems, dtype=bool),
                                    self._delta() is None, self.max_iter)

    def _plain_pass(self, call, k, order, signs):
        """Problem k's plain pass of ``partial_fit``.

        Returns
        -------
        n_updates, n_mistakes : int
        """
        s = call.state
        param = float(self._params_schedule(s)[-1])
        n_updates, _, n_mistakes = margin_pass(
            order, order.shape[0], 0.0, order, *call.loop_arrays, signs,
            call.work.y_sq_norms, s.rho, s.delta_sq, call.weights,
            MarginRule(self._rule, param, 0), s.weights[k], s.scalars[k],
            s.n_updates_per_problem[k:k + 1], call.work.counts[k])
        return n_updates, n_mistakes

    # ----------------------------------------------------------- results
    def _finish(self, call, targets, converged, n_iter):
        """The state after a call (``call.state``): counters, and the
        reported margins computed afresh from (w, b, c); this call's c
        retired."""
        s = call.state
        X = call.X
        work = call.work
        rho = s.rho
        scores = linear_scores(X, s.weights)
        scores = np.asarray(scores) + rho * s.scalars[:, 0]
        n_problems = s.weights.shape[0]
        margin = np.zeros(n_problems)
        geometric = np.zeros(n_problems)
        bound = np.zeros(n_problems)
        for k in range(n_problems):
            signs = self._signs(s, targets, k)
            c = work.counts[k].astype(np.float64)
            ay = signs * scores[:, k]
            if s.delta_sq:
                ay = ay + (s.delta_sq if work.ext_sq is None
                           else work.ext_sq) * c
            ext_sq = self._ext_sq(call, c) + s.retired_ext_sq[k]
            w_sq = float(s.weights[k] @ s.weights[k])
            b = s.scalars[k, 0]
            norm = np.sqrt(w_sq + b * b + ext_sq)
            norm_geo = np.sqrt(w_sq + ext_sq)
            low = float(ay.min())
            margin[k] = low / norm if norm > 0 else 0.0
            geometric[k] = low / norm_geo if norm_geo > 0 else 0.0
            bound[k] = self._margin_bound(call, k, norm)
        with np.errstate(divide="ignore", invalid="ignore"):
            fraction = np.where(np.isfinite(bound), margin / bound, 0.0)
        support, dual_coef = self._stored_dual(call, targets)
        call.state = s.replace(
            t=call.t, n_iter=n_iter, n_active_passes=work.n_active_passes,
            n_updates=int(s.n_updates_per_problem.sum()), converged=converged,
            directional_margin=margin, geometric_margin=geometric,
            margin_bound=bound, margin_fraction=fraction,
            accuracy_estimate=1.0 - fraction, support=support,
            dual_coef=dual_coef, retired_ext_sq=self._retired(call),
            **recorded_epochs(s, work.epoch_mistakes, work.epoch_updates))

    def _margin_bound(self, call, k, norm):
        """Upper bound (4) on γ_d: ``‖a_t‖ / t`` (inf before any update)."""
        t = call.state.n_updates_per_problem[k]
        return norm / t if t > 0 else np.inf

    def _stored_dual(self, call, targets):
        """``support_`` and ``dual_coef_`` of this call, if asked for."""
        if not self.store_dual:
            return None, None
        counts = call.work.counts
        support = np.flatnonzero((counts != 0).any(axis=0))
        signed = np.stack([self._signs(call.state, targets, k)
                           for k in range(counts.shape[0])])
        return (support.astype(np.int64),
                (signed * counts)[:, support].astype(np.float64))

    def _retired(self, call):
        """``retired_ext_sq`` with this call's extension coordinates.

        Rows of later calls are new instances: no later update touches
        these coordinates, so only their squared norm stays in ‖a‖².
        """
        s = call.state
        if not s.delta_sq:
            return s.retired_ext_sq
        c = call.work.counts.astype(np.float64)
        if call.work.ext_sq is None:
            return s.retired_ext_sq + s.delta_sq * np.einsum("ij,ij->i", c, c)
        return s.retired_ext_sq + s.delta_sq * np.einsum("ij,ij->i", c,
                                                         c / call.weights)

    def public(self, state):
        s = state
        public = {
            "coef_": s.weights.copy(), "intercept_": s.rho * s.scalars[:, 0],
            "converged_": s.converged,
            "directional_margin_": s.directional_margin,
            "geometric_margin_": s.geometric_margin,
            "margin_bound_": s.margin_bound,
            "margin_fraction_": s.margin_fraction,
            "accuracy_estimate_": s.accuracy_estimate,
            "n_active_passes_": s.n_active_passes,
            "n_iter_per_problem_": s.n_iter_per_problem,
            "n_updates_per_problem_": s.n_updates_per_problem.copy()}
        if s.support is not None:
            public.update(support_=s.support, dual_coef_=s.dual_coef)
        if s.beta is not None:
            public["beta_"] = s.beta
        return public

    # ----------------------------------------------------------- prediction
    def mixing_refusal(self):
        return (f"{self.estimator_name}'s margin condition and its active-set "
                "passes read the run's own history (the update count and "
                "‖w_t‖ of its dynamic margin, or the run's convergence): a "
                "weighted average of shards' runs has no such history")

    def decision(self, state, view, X):
        scores = linear_scores(X, view["coef_"])
        return np.asarray(scores) + view["intercept_"]


def grown_margin_state(state, classes, fresh_scalars):
    r"""``state`` with a problem per class of ``classes`` (the classes
    that arrive after the first call, :mod:`perceptrons.models._classes`).

    A new class's problem is a fresh one, what ``new_state`` makes: a = 0,
    the rule's initial ``scalars`` (``fresh_scalars``: ROMMA's scale
    s = 1; MPU's b and δb, which the first call's R fixes for every
    problem, those of the others), counters zero, not converged.

    Two classes (one problem: class 1 against class 0) become class 1's
    problem, the old one, and class 0's, its negation. Every rule of the
    family steps on the reflected patterns :math:`y_k = [l_k x_k,\ l_k
    \rho,\ l_k \Delta e_k]` (PDM's Eq. (1); ROMMA and MPU run on the same
    patterns) with a condition and a step size read from label-even
    quantities only: :math:`a\cdot y_k`, :math:`\|a\|^2`, t (PDM's (8),
    PFM's (7)), ROMMA's :math:`c, d` of :math:`A = \|a\|^2`, :math:`B =
    a\cdot y_k`, :math:`C = \|y_k\|^2`, MPU's :math:`a\cdot y_k` against
    b and b + δb with its :math:`I_k`. So the run on the labels
    :math:`-l_k` from :math:`-a` is the run from a negated, step for step,
    and with IEEE rounding symmetric in sign, bit for bit: a problem told
    of class 0 up front is the grown one (tests/models/test_new_classes.py;
    the reported margins, which a call recomputes from one product X Wᵀ
    over every problem, may differ in the last bit with the number of
    problems, and the totals over problems count the problems there were). What is odd in the label: w and
    the augmented coordinate (``scalars[:, 0]``: b, ROMMA's u_b, MPU's
    b_a), and ``dual_coef`` (``l_k c_k``); what is even is copied: ‖a‖²,
    ROMMA's scale s and retired Δ² Σ g², MPU's N = Σ I_k, unlearning
    count, b and δb, the update counts c_k (the extension block of a is
    :math:`\Delta \sum_k l_k c_k e_k`: its counts are even), t, the
    retired Δ² Σ c², the margins and bounds (ratios of even quantities),
    the convergence flags and epoch counts.
    """
    s = state
    rows = RowGrowth(s.classes, classes, s.weights.shape[0] == 1,
                     negate=False)
    scalars = rows(s.scalars, fill=fresh_scalars)
    if rows.binary:
        scalars[rows.positions[0], 0] = -s.scalars[0, 0]
    return s.replace(
        classes=classes, weights=rows(s.weights, negate=True),
        scalars=scalars,
        dual_coef=(None if s.dual_coef is None
                   else rows(s.dual_coef, negate=True)),
        **{name: rows(getattr(s, name)) for name in (
            "n_updates_per_problem", "retired_ext_sq", "converged",
            "directional_margin", "geometric_margin", "margin_bound",
            "margin_fraction", "accuracy_estimate", "n_iter_per_problem")})


def check_problem_finite(state, k, epoch):
    """Refuse problem k's weights once they are no longer finite
    (ValueError, naming the full epoch and the remedy)."""
    if not (np.isfinite(state.weights[k]).all()
            and np.isfinite(state.scalars[k]).all()):
        raise ValueError(
            f"floating-point overflow at full epoch {epoch}: the weights "
            "are no longer finite; scale the input (e.g. StandardScaler)")


def count_epoch(call, k, n_full, stats):
    """Count one epoch of problem k in ``call.work``: its active passes,
    presentations, updates (full pass ``n_full`` plus active ones) and
    mistakes (``stats``: the epoch's counts of
    :func:`~perceptrons._loops.margin.active_set_epoch`)."""
    work = call.work
    with work.stats_lock:  # problems may run on threads (sums: any order)
        call.t += int(stats[2])
        work.n_active_passes += int(stats[1])
    work.epoch_updates[k].append(int(n_full + stats[0]))
    work.epoch_mistakes[k].append(int(stats[3]))


def recorded_epochs(state, epoch_mistakes, epoch_updates):
    """A call's epochs, summed over problems, appended to the state's
    counters: epoch e of the call adds the mistakes and updates of every
    problem's e-th epoch (problems converge after different numbers of
    epochs).

    Parameters
    ----------
    state : MarginState
        The state before the call's counters.
    epoch_mistakes, epoch_updates : list of list of int
        Per problem, each epoch's mistakes and updates
        (:class:`MarginWork`).

    Returns
    -------
    dict
        The replaced fields ``mistakes_per_epoch``, ``updates_per_epoch``
        and ``n_mistakes``.
    """
    s = state
    out, totals = {}, {}
    for name, per_problem in (("mistakes_per_epoch", epoch_mistakes),
                              ("updates_per_epoch", epoch_updates)):
        total = np.zeros(max(len(e) for e in per_problem), dtype=np.int64)
        for epochs in per_problem:
            total[:len(epochs)] += np.asarray(epochs, dtype=np.int64)
        totals[name] = total
        out[name] = appended(getattr(s, name), total)
    out["n_mistakes"] = (s.n_mistakes
                         + int(totals["mistakes_per_epoch"].sum()))
    return out


def unconverged_warnings(name, diverged, converged, no_extension, max_iter):
    """The call's ConvergenceWarnings, each naming the remedy (issued by the
    driver once the state is published).

    Parameters
    ----------
    name : str
        The estimator's class name.
    diverged : list of int
        The problems stopped by :class:`Diverged`.
    converged : ndarray of shape (n_problems,), bool
    no_extension : bool
        Whether the run had no extension (Δ None).
    max_iter : int

    Returns
    -------
    list of (str, type)
        Messages and categories: one for diverged problems, one for the
        others that did not converge.
    """
    out = []
    if diverged:
        out.append((
            f"{name} stopped early on problems {diverged}: ‖a‖ "
            "grew past float64's safe range, which certifies that the "
            "training set is not separable in the augmented space "
            "(margin below 1e-100 times the pattern norm); the last "
            "representable a is kept. Set extension (Δ) to solve the "
            "2-norm soft-margin problem instead", ConvergenceWarning))
    stalled = np.flatnonzero(~converged).tolist()
    stalled = [k for k in stalled if k not in diverged]
    if not stalled:
        return out
    if no_extension:
        remedy = (
            "the training set may not be separable in the augmented "
            "space, and then the last a is arbitrary (the active-set "
            "passes fit it to the patterns still violating the "
            "condition; it can even be inverted): set extension (Δ) to "
            "solve the 2-norm soft-margin problem, or raise max_iter")
    else:
        remedy = ("raise max_iter (a larger extension converges in "
                  "fewer updates)")
    out.append((
        f"{name} did not converge within max_iter={max_iter} full "
        f"epochs (problems {stalled}); {remedy}", ConvergenceWarning))
    return out
