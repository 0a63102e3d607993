"""Khardon & Wachman's Figure 2 as the estimator driver runs it.

:class:`Figure2` is the algorithm of :class:`~perceptrons.Perceptron` (and
``KernelPerceptron``): its state type :class:`PerceptronState`, a fresh
state, one compiled pass (:func:`perceptrons._loops.perceptron.figure2_epoch`,
whatever the storage of the weights), the state after a call, the public
view of a state and its scores, parameter mixing, and the step of
``learn_one``. The thresholds, the final hypotheses' bookkeeping and the
vote log do not depend on the storage (:mod:`perceptrons.models._weights`).
"""

import dataclasses

import numpy as np
import scipy.sparse as sp

from .._loops.hypotheses import HYPOTHESES as _HYPOTHESES
from .._loops.hypotheses import PrototypeRule, threshold_rule
from .._loops.mercer import KERNEL_LINEAR
from .._loops.perceptron import figure2_epoch
from ..utils.parallel import effective_n_jobs
from ..utils.validation import linear_scores, refuse_underflow
from ._driver import Algorithm
from ._classes import RowGrowth
from ._driver.protocol import linear_row_scores, prototype_multilabel_refusal
from ._driver.mixing import mixed_rows_and_offset
from ._budget import BudgetAlgorithm
from ._driver.online import CompiledStep
from ._kernel import KernelAlgorithm, linear_coef
from ._ovr import compact_targets, ovr_epoch_in_threads, problem_signs
from ._state import FittedState, array, n_problems_of, scalar, sub
from ._support import SupportPool
from ._voted import VotedLog, longest_survivor, voted_decision
from ._weights import DualWeights, WeightRows

__all__ = ["Figure2", "PerceptronState"]


@dataclasses.dataclass(frozen=True)
class PerceptronState(FittedState):
    """The fitted state of :class:`Perceptron` (K&W Figure 2).

    Binds ``n_rows`` (weight vectors: one for two classes under one-vs-rest,
    else one per class) and ``n_counters`` (problems: 1 for prototypes).

    Attributes
    ----------
    theta_init, threshold_step, margin : float
        θ_Init, C and the absolute τ used ("auto" and ``tau`` resolved).
    hypothesis : str
        The final hypothesis the run keeps (its bookkeeping is below).
    prototype : bool
        One prototype per class (Eq. 18) rather than one-vs-rest.
    theta, theta_avg_acc, theta_ls : ndarray of shape (n_rows,)
        θ; Σ (s-1)·Δθ_s (averaged); the longest survivor's θ.
    tally, best_tally, ls_current, current_vote : ndarray of shape (n_counters,)
        The longest survivor's current and best runs, whether its snapshot
        holds the current weights, the current hypothesis's votes.
    n_updates_per_problem : ndarray of shape (n_counters,)
    weights : WeightRows or DualWeights
        w (primal form, or dual with a kernel), its averaged accumulator and
        its longest-survivor snapshot.
    voted : VotedLog or None
        Every update of a voted run.
    vote_rows : SupportPool or None
        Primal voted run: the rows its updates came from.
    """

    VERSION = 2  # 2: n_labels (multi-label models)

    theta_init: float = scalar("float")
    threshold_step: float = scalar("float", low=0.0)
    margin: float = scalar("float", low=0.0)
    hypothesis: str = scalar("str", choices=tuple(_HYPOTHESES))
    prototype: bool = scalar("bool")
    theta: np.ndarray = array("float", ("n_rows",))
    theta_avg_acc: np.ndarray = array("float", ("n_rows",))
    theta_ls: np.ndarray = array("float", ("n_rows",))
    tally: np.ndarray = array("int", ("n_counters",), low=0)
    best_tally: np.ndarray = array("int", ("n_counters",), low=0)
    ls_current: np.ndarray = array("int", ("n_counters",), low=0, high=2)
    current_vote: np.ndarray = array("int", ("n_counters",), low=0)
    n_updates_per_problem: np.ndarray = array("int", ("n_counters",), low=0)
    weights: object = sub(WeightRows, DualWeights)
    vote_rows: SupportPool = sub(SupportPool, optional=True)
    voted: VotedLog = sub(VotedLog, optional=True)

    def check(self, sizes, where):
        super().check(sizes, where)
        n_rows = (sizes["n_classes"] if self.prototype
                  else n_problems_of(self.classes, self.n_labels))
        if sizes["n_rows"] != n_rows:
            raise ValueError(f"{where} has {sizes['n_rows']} weight rows, "
                             f"{n_rows} expected")
        if sizes["n_counters"] != (1 if self.prototype else n_rows):
            raise ValueError(f"{where}: counters do not match the rule")
        weights = self.weights
        for name, keep in (("summed", self.hypothesis == "averaged"),
                           ("snapshot", self.hypothesis == "longest")):
            if weights.n_columns and keep != (
                    getattr(weights, name).shape[1] == weights.n_columns):
                raise ValueError(f"{where}.weights.{name} does not match "
                                 f"hypothesis={self.hypothesis!r}")
        voted = self.hypothesis == "voted"
        primal = isinstance(weights, WeightRows)
        if voted != (self.voted is not None) or (voted and primal) != (
                self.vote_rows is not None):
            raise ValueError(f"{where}: the vote log does not match "
                             f"hypothesis={self.hypothesis!r}")
        if voted:
            log = self.voted
            if log.n_counters != sizes["n_counters"]:
                raise ValueError(f"{where}.voted has {log.n_counters} "
                                 "counters")
            if self.prototype:
                n_classes = sizes["n_classes"]
                if log.other.shape != log.label.shape or (
                        log.label.size and (
                            log.label.max() >= n_classes
                            or log.label.min() < 0
                            or log.other.max() >= n_classes
                            or np.any(log.other == log.label))):
                    raise ValueError(f"{where}.voted: classes out of range")
            elif log.other.size or np.any(np.abs(log.label) != 1):
                raise ValueError(f"{where}.voted: labels must be ±1")


def _as_two_prototypes(value, ndim):
    """One row (``coef_`` or ``intercept_`` of two prototypes: their
    difference d) as the prototypes ``(-d/2, d/2)``; other shapes as given
    (for the shape check)."""
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        return value
    if arr.ndim == ndim - 1 or (arr.ndim == ndim and arr.shape[0] == 1):
        half = arr.reshape((1,) + arr.shape[arr.ndim - ndim + 1:]) / 2.0
        return np.concatenate([-half, half])
    return arr


_NO_SCORE_LOG = np.zeros((0, 0))


@dataclasses.dataclass(eq=False)
class Figure2Work:
    """Per-call scratch of :class:`Figure2`.

    Attributes
    ----------
    alpha_counts : ndarray of shape (n_counters, n_loop_rows), int64
        α_i per counter (updates each row caused; the λ-trick's indicator).
    vote_log, update_log : ndarray of shape (n_counters, n_samples), int64
        A voted run's votes of the retired hypotheses and the rows of its
        updates, in one pass (reused by the next).
    other_log : ndarray of shape (n_samples,) or (0,), int64
        A voted prototype run's decreased classes.
    epoch_logs : list
        Each pass's logged updates (voted).
    scores : ndarray of shape (n_rows,)
        The loop's work space.
    """

    alpha_counts: np.ndarray
    vote_log: np.ndarray
    update_log: np.ndarray
    other_log: np.ndarray
    epoch_logs: list
    scores: np.ndarray


def _grown_state(state, classes):
    """More classes: a prototype, or a one-vs-rest problem, per new
    class (w = 0, θ = θ_Init; its longest survivor that start, its
    counters zero). Two classes under one-vs-rest become a problem per
    class: class 1's the binary one, class 0's its negation (w, θ and
    their sums and snapshot negated, its counters copied: Figure 2's
    step on (-w, -θ, -y) is the binary one negated, so it predicts the
    same)."""
    s = state
    rows = RowGrowth(s.classes, classes,
                     not s.prototype and s.theta.shape[0] == 1)
    grown = {"classes": classes, "weights": rows.weights(s.weights),
             "theta": rows(s.theta, fill=s.theta_init),
             "theta_avg_acc": rows(s.theta_avg_acc),
             "theta_ls": rows(s.theta_ls, fill=s.theta_init)}
    if not s.prototype:
        for name in ("tally", "best_tally", "ls_current",
                     "current_vote", "n_updates_per_problem"):
            grown[name] = rows(getattr(s, name), negate=False, fill=0)
    return s.replace(**grown)


def _absolute_margin(margin, tau, theta_init):
    """The absolute margin: ``margin``, or ``tau`` times θ_Init.

    Raises
    ------
    ValueError
        If both ``margin`` and ``tau`` are set.
    """
    if tau is None:
        return float(margin)
    if margin != 0:
        raise ValueError(
            f"margin={margin!r} and tau={tau!r} are both set; "
            "pass one: margin is absolute, tau is in units of theta_init")
    return float(tau) * theta_init


class Figure2(BudgetAlgorithm, KernelAlgorithm, Algorithm):
    """Khardon & Wachman's Figure 2 as the driver runs it (the algorithm
    of :class:`Perceptron`; see its docstring for the parameters)."""

    state_type = PerceptronState

    def needs_row_sq_norms(self):
        # Only the λ-trick reads ‖x_i‖² per row in the primal form; every
        # kernel value starts from ‖x‖² and ‖z‖².
        return self.kernel is not None or self.lam != 0

    def weights_refusal(self):
        return None

    def multilabel_refusal(self):
        return prototype_multilabel_refusal(
            getattr(self, "multiclass", "ovr"))

    def final_after_quiet_pass(self):
        # w and θ move only on an update; the other hypotheses go on
        # counting (average, votes, survival runs).
        return self.hypothesis == "last"

    # ----------------------------------------------------------- state
    def new_state(self, call, fitted):
        X = call.X
        prototype = self.multiclass == "prototype"
        n_rows = (fitted["classes"].shape[0] if prototype
                  else n_problems_of(fitted["classes"], fitted["n_labels"]))
        n_counters = 1 if prototype else n_rows
        kernel = (None if self.kernel is None
                  else self.kernel_spec(X.shape[1]))
        theta_init, threshold_step = self._resolve_thresholds(call, kernel)
        averaged = self.hypothesis == "averaged"
        longest = self.hypothesis == "longest"
        voted = self.hypothesis == "voted"
        # One-vs-rest problems keep a budget each; prototypes share one.
        budget = self.new_budget(n_rows, shared=prototype)
        if kernel is None:
            weights = WeightRows.zeros(n_rows, X.shape[1], averaged, longest)
        else:
            weights = DualWeights.empty(kernel, n_rows, X.shape[1],
                                        sp.issparse(X), budget)

        def counters():
            return np.zeros(n_counters, dtype=np.int64)

        return PerceptronState(
            **fitted, theta_init=theta_init, threshold_step=threshold_step,
            margin=_absolute_margin(self.margin, self.tau, theta_init),
            hypothesis=self.hypothesis, prototype=prototype,
            theta=np.full(n_rows, theta_init), theta_avg_acc=np.zeros(n_rows),
            theta_ls=np.full(n_rows, theta_init), tally=counters(),
            best_tally=counters(), ls_current=counters(),
            current_vote=counters(), n_updates_per_problem=counters(),
            weights=weights,
            vote_rows=(SupportPool.empty(X.shape[1], sp.issparse(X))
                       if voted and kernel is None else None),
            voted=VotedLog.empty(n_counters) if voted else None)

    def _resolve_thresholds(self, call, kernel):
        """θ_Init and C, "auto" resolved: the average ``<φ(x_i), φ(x_i)>``
        (K&W Sec. 3.2), computed only when a parameter asks for it.

        Raises
        ------
        ValueError
            If that average overflows float64.
        """
        avg = None
        if self.theta_init == "auto" or self.threshold_step == "auto":
            if kernel is None or kernel.code == KERNEL_LINEAR:
                # From column sums: the same bits for dense and CSR input,
                # and the linear kernel's bits are the primal form's.
                avg = float(call.mean_sq_norm)
            else:
                avg = float(np.mean(kernel.diag(call.sq_norms)))
            if avg == 0.0:
                # Rows that are all zero have no scale to read (a stream's
                # first example under river's StandardScaler): the unit, as
                # ALMA's intercept_scaling="auto".
                avg = 1.0
            if not np.isfinite(avg):
                what, remedy = (("squared norm", "scale the input")
                                if kernel is None else
                                ("k(x, x)",
                                 "scale the input or lower degree/gamma"))
                raise ValueError(
                    f"the average {what} of the rows overflows float64 "
                    "(needed for theta_init/threshold_step='auto'); "
                    f"{remedy}")
        theta_init = avg if self.theta_init == "auto" else float(
            self.theta_init)
        threshold_step = avg if self.threshold_step == "auto" else float(
            self.threshold_step)
        return theta_init, threshold_step

    def n_problems(self, state):
        # The prototype rule keeps one row per class, two classes included.
        return state.theta.shape[0]

    def initial_shapes(self, state, coef_init, intercept_init):
        # Two prototypes export their difference (coef_, intercept_): a
        # difference d starts them at -d/2 and d/2, the pair the rule keeps
        # (each update adds x to one and -x to the other).
        if state.prototype and state.classes.shape[0] == 2:
            return tuple(
                None if value is None else _as_two_prototypes(value, ndim)
                for value, ndim in ((coef_init, 2), (intercept_init, 1)))
        return coef_init, intercept_init

    def set_initial(self, state, coef, intercept):
        if not isinstance(state.weights, WeightRows):
            raise ValueError("coef_init/intercept_init start a primal weight "
                             "vector; with a kernel the weights are dual "
                             "coefficients (set kernel=None)")
        if state.hypothesis == "voted":
            raise ValueError("coef_init/intercept_init cannot start a voted "
                             "perceptron: its vote replays every hypothesis "
                             "from w = 0")
        # The initial hypothesis is also the first longest survivor.
        if coef is not None:
            state.weights.current[:] = coef
            if state.weights.snapshot.shape[1]:
                state.weights.snapshot[:] = coef
        if intercept is not None:
            state.theta[:] = -intercept
            state.theta_ls[:] = -intercept

    def feature_growth_refusal(self, state):
        # w = 0 and a support vector's value 0 for a new feature: no step
        # of Figure 2 moved them (the voted log's rows are padded too).
        return None

    def class_growth_refusal(self, state):
        refusal = self.budget_growth_refusal(state)
        if refusal:
            return refusal
        if state.hypothesis == "voted":
            return ("a voted run replays every hypothesis of the run from "
                    "w = 0 with the problems it had")
        return None

    def grow_classes(self, state, classes):
        return _grown_state(state, classes)

    # ----------------------------------------------------------- training
    @property
    def carried_scratch(self):
        # The α counts matter only to the λ-trick and the α-bound.
        active = self.lam != 0 or self.alpha_bound is not None
        return ("alpha_counts",) if active else ()

    def carry_out(self, call):
        # The α counts of the call's rows (a dual call's loops index the
        # pool's rows before them, and the next call's pool is another).
        if not self.carried_scratch:
            return {}
        n = call.X.shape[0]
        return {"alpha_counts": call.work.alpha_counts[:, -n:].copy()}

    def carry_in(self, call, carry):
        counts = carry["alpha_counts"]
        call.work.alpha_counts[:, -counts.shape[1]:] = counts

    def begin_call(self, call):
        """The call's α counters, vote logs and score work space, and the
        weights' per-call state."""
        refuse_underflow(call.loop_arrays[0], call.mean_sq_norm)
        s = call.state
        n = call.X.shape[0]
        n_counters = s.tally.shape[0]
        call.keep_summed = s.hypothesis == "averaged"
        call.keep_snapshot = s.hypothesis == "longest"
        s.weights.begin_call(self.new_kernel_call, call,
                             **_threshold_bias(s))
        # A dual call's loops index the pool's rows first.
        n_loop = n + (call.dual.n_pool if call.dual is not None else 0)
        # An epoch makes at most n updates per problem; only "voted" logs them.
        n_log = n if s.hypothesis == "voted" else 0
        call.work = Figure2Work(
            alpha_counts=np.zeros((n_counters, n_loop), dtype=np.int64),
            vote_log=np.zeros((n_counters, n_log), dtype=np.int64),
            update_log=np.zeros((n_counters, n_log), dtype=np.int64),
            other_log=np.zeros(n_log if s.prototype else 0, dtype=np.int64),
            epoch_logs=[], scores=np.zeros(s.theta.shape[0]))

    def _rule(self, state):
        """Figure 2's update rule for the loop (:mod:`perceptrons._loops.hypotheses`)."""
        rule = (PrototypeRule if state.prototype else threshold_rule(
            state.theta.shape[0],
            primal=isinstance(state.weights, WeightRows)))
        return rule(float(self.eta), float(state.threshold_step),
                    state.margin, float(self.lam),
                    -1 if self.alpha_bound is None else int(self.alpha_bound))

    def run_epoch(self, call, targets, order):
        s, work = call.state, call.work
        n_logged = np.zeros(s.tally.shape[0], dtype=np.int64)
        before = int(s.n_updates_per_problem.sum())
        final = _final(s, call.t)
        logs = _logs(s, work, n_logged)
        if isinstance(s.weights, WeightRows):
            # The primal loop's shuffled passes read targets at random rows
            # (the dual loop keeps int64 targets: a narrower type changes
            # how LLVM compiles its fast-math arithmetic).
            targets = compact_targets(call, targets)
        loop_targets, loop_order = s.weights.padded(call, targets, order)
        args = (s.weights.store(call, order), loop_targets, loop_order,
                s.weights.padded_weights(call), s.theta, self._rule(s), final,
                logs)
        n_threads = min(effective_n_jobs(self.n_jobs), s.theta.shape[0])
        if (n_threads > 1 and isinstance(s.weights, WeightRows)
                and not s.prototype):
            n_mistakes = ovr_epoch_in_threads(n_threads, *args)
        else:
            n_mistakes = figure2_epoch(*args)
        if s.hypothesis == "voted":
            # This epoch's logged updates; the logs are reused next epoch.
            work.epoch_logs.append(
                [(work.update_log[k, :n].copy(), work.vote_log[k, :n].copy(),
                  work.other_log[:n].copy() if s.prototype else None)
                 for k, n in enumerate(n_logged)])
        return n_mistakes, int(s.n_updates_per_problem.sum()) - before

    def is_finite(self, call):
        return (call.state.weights.is_finite(call)
                and bool(np.isfinite(call.state.theta).all()))

    def one_row_scores(self, state):
        if not isinstance(state.weights, WeightRows) or (
                state.hypothesis == "voted"):
            return None
        return linear_row_scores

    def online_step(self, state, row_arrays, sq_norm):
        # The primal form, but for a vote: its log grows with every call.
        if not isinstance(state.weights, WeightRows) or (
                state.hypothesis == "voted"):
            return None
        return _Figure2Step(state, self._rule(state), row_arrays, sq_norm)

    def end_call(self, call, targets):
        s = call.state
        # Each loop row's weight (None: every weight is 1), read before the
        # weights' end_call leaves the call's layout.
        row_weights = (s.weights.padded_weights(call)
                       if call.weights.shape[0] else None)
        weights = s.weights.end_call(call)
        if s.hypothesis != "voted":
            return s.replace(weights=weights)
        if isinstance(weights, DualWeights):
            # The logged rows index the call's rows after the old pool.
            slot_of_row, offset, vote_rows = call.slot_of_row, 0, None
            row_targets = call.dual.padded(targets, targets)[0]
        else:
            vote_rows, slot_of_row = _kept_vote_rows(s.vote_rows, call)
            offset, row_targets = 0, targets
        epochs = []
        for epoch in call.work.epoch_logs:
            per_counter = []
            for k, (rows, votes, other) in enumerate(epoch):
                label = (row_targets[rows] if s.prototype else
                         problem_signs(row_targets[rows], k,
                                       s.tally.shape[0]).astype(np.int64))
                per_counter.append((
                    slot_of_row[rows] + offset, label, votes, other,
                    None if row_weights is None else row_weights[rows]))
            epochs.append(per_counter)
        return s.replace(weights=weights, vote_rows=vote_rows,
                         voted=s.voted.extended(epochs))

    # ----------------------------------------------------------- results
    def final_hypothesis(self, state):
        """Weights and intercept of the final (non-voted) hypothesis: for
        "voted", the last one (prediction uses the vote).

        Returns
        -------
        weights : ndarray of shape (n_rows, n_columns)
        intercept : ndarray of shape (n_rows,)
            ``-θ``, a new array.
        """
        s = state
        w = s.weights
        if s.hypothesis == "averaged":
            # The loops accumulate Σ (s-1)·Δ over updates at step s, so the
            # average over t_ steps is the current value minus acc / t_.
            return (w.current - w.summed / s.t,
                    -(s.theta - s.theta_avg_acc / s.t))
        if s.hypothesis == "longest":
            return w.snapshot.copy(), -s.theta_ls
        return w.current.copy(), -s.theta

    def public(self, state):
        s = state
        weights, intercept = self.final_hypothesis(s)
        public = {"theta_init_": s.theta_init,
                  "threshold_step_": s.threshold_step, "margin_": s.margin}
        if s.hypothesis != "voted":
            # Two prototypes decide by their difference: one row.
            public["intercept_"] = _two_prototypes_as_one(s, intercept)
        w = s.weights
        if isinstance(w, WeightRows):
            if s.hypothesis != "voted":
                public["coef_"] = _two_prototypes_as_one(s, weights.T).T
            return public
        keep = (np.ones(weights.shape[1], dtype=bool)
                if s.hypothesis == "voted" else np.any(weights != 0.0, axis=0))
        pool = w.pool
        public["gamma_"] = w.kernel.gamma
        public["support_"] = w.support_index()[keep]
        public["dual_coef_"] = np.ascontiguousarray(weights[:, keep])
        public["support_vectors_"] = (pool.X if keep.all()
                                      else pool.X[np.flatnonzero(keep)])
        if w.kernel.code == KERNEL_LINEAR and s.hypothesis != "voted":
            # The primal weights the coefficients stand for.
            public["coef_"] = _two_prototypes_as_one(s, linear_coef(
                public["dual_coef_"], public["support_vectors_"]).T).T
        return public

    def no_coef_reason(self, state, view):
        if state.hypothesis == "voted":
            return ("hypothesis='voted' decides by a vote of every "
                    "hypothesis of the run, not by one weight vector; "
                    "decision_function(X, hypothesis='last') scores the last "
                    "one")
        return super().no_coef_reason(state, view)

    def decides_in_blocks(self, state, view):
        # The vote is scored in Gram blocks of BLOCK_ROWS test rows.
        return (state.hypothesis == "voted"
                or super().decides_in_blocks(state, view))

    def decision(self, state, view, X):
        s = state
        if s.hypothesis == "voted":
            return _two_prototypes_as_one(s, voted_decision(
                s, self.eta, X, _pool_gram(s)))
        if isinstance(s.weights, WeightRows):
            # coef_ and intercept_: one row for two prototypes.
            scores = linear_scores(X, view["coef_"])
        else:
            scores = _two_prototypes_as_one(s, s.weights.kernel.scores(
                X, view["support_vectors_"], view["dual_coef_"],
                support_index=view["support_"]))
        scores += view["intercept_"]
        return scores

    def derived_decision(self, state, X, hypothesis):
        """Scores of another final hypothesis of a voted run ("last", or
        "longest" in the primal one-vs-rest form) on validated X."""
        s = state
        if hypothesis == "last":
            # As a fit with hypothesis="last" scores (decision): two
            # prototypes by their difference, then the intercept.
            if isinstance(s.weights, WeightRows):
                scores = linear_scores(
                    X, _two_prototypes_as_one(s, s.weights.current.T).T)
            else:
                w = s.weights
                scores = _two_prototypes_as_one(s, w.scores(X, w.current))
            scores += _two_prototypes_as_one(s, -s.theta)
        else:
            # "longest": one-vs-rest only (Perceptron._check_derivable).
            W, intercept = longest_survivor(
                s.voted.binary_arrays(s.current_vote), s.vote_rows.X,
                float(self.eta), s.threshold_step, s.theta_init,
                s.n_features_in)
            scores = linear_scores(X, W) + intercept
        return scores[:, 0] if scores.shape[1] == 1 else scores

    # ----------------------------------------------------------- mixing
    def mixing_refusal(self):
        if self.kernel is not None:
            return self.kernel_mixing_refusal()
        if self.hypothesis in ("voted", "longest"):
            return (f"hypothesis={self.hypothesis!r} is a hypothesis of one "
                    "run (its votes or its longest survival); a mix of runs "
                    "has none: use 'last' or 'averaged'")
        return None

    def mix_arrays(self, start, states, mu, counted):
        """w and θ mixed by μ; the averaged hypothesis from the pooled sum
        of every hypothesis any shard visited (see ``ParameterMixing``)."""
        # The state keeps acc with  Σ_t w_t = t·w - acc  (_loops notes).
        return counted.replace(**mixed_rows_and_offset(
            start, states, mu, counted, counted.hypothesis == "averaged",
            "theta", "theta_avg_acc"))


def _threshold_bias(state):
    """The dual form's ``budget_bias`` of ``DualWeights.begin_call``:
    θ = θ_Init - C Σ_j c_j, so each support vector carries its part of θ
    (the coordinate √C), which a budget's changes move."""
    if not isinstance(state.weights, DualWeights):
        return {}
    root = np.sqrt(state.threshold_step)
    return {"budget_bias": lambda kc: (root, -root, state.theta,
                                       state.theta_avg_acc)}


def _final(state, t):
    """The final hypotheses' bookkeeping as the loop takes it
    (:mod:`perceptrons._loops.hypotheses`), ``t`` steps made before."""
    return (_HYPOTHESES[state.hypothesis], t, state.theta_avg_acc,
            state.theta_ls, state.tally, state.best_tally, state.ls_current,
            state.current_vote)


def _logs(state, work, n_logged):
    """The call's counters and logs as the loop takes them."""
    return (work.alpha_counts, work.vote_log, work.update_log,
            work.other_log, n_logged, state.n_updates_per_problem,
            work.scores, _NO_SCORE_LOG)


class _Figure2Step(CompiledStep):
    """:func:`~perceptrons._loops.perceptron.figure2_epoch` on one row, its
    arguments made once (:meth:`Figure2.online_step`): the arguments of
    :meth:`Figure2.run_epoch` for a ``partial_fit`` call of that row."""

    def __init__(self, state, rule, row_arrays, sq_norm):
        # The class index in the type the primal loop reads (compact_targets).
        super().__init__(figure2_epoch.primal, state, target_dtype=np.int8)
        n_counters = state.tally.shape[0]
        no_log = np.zeros((n_counters, 0), dtype=np.int64)
        self.work = Figure2Work(
            alpha_counts=np.zeros((n_counters, 1), dtype=np.int64),
            vote_log=no_log, update_log=no_log,
            other_log=np.zeros(0, dtype=np.int64), epoch_logs=[],
            scores=np.zeros(state.theta.shape[0]))
        self.store = state.weights.store_of(row_arrays, sq_norm,
                                            prefetch=False)
        self.rule = rule
        self.hypothesis = _HYPOTHESES[state.hypothesis]
        self.logs = _logs(state, self.work, np.zeros(n_counters,
                                                     dtype=np.int64))

    def arguments(self, weights, t):
        s = self.state
        # α_i of the call's one row starts at zero.
        self.work.alpha_counts.fill(0)
        return (self.store, self.targets, self.order, weights, s.theta,
                self.rule,
                (self.hypothesis, t, s.theta_avg_acc, s.theta_ls, s.tally,
                 s.best_tally, s.ls_current, s.current_vote), self.logs)

    def finite(self):
        return self.state.weights.current, self.state.theta


def _two_prototypes_as_one(state, scores):
    """Columns (or, 1-D, entries) of the two prototypes as their
    difference: one for two classes, positive favours classes_[1]."""
    if state.prototype and scores.shape[-1] == 2:
        return scores[..., 1:] - scores[..., :1]
    return scores


def _pool_gram(state):
    """A dual voted run's kernel values of test rows against every pool
    row (the vote replays updates against them); None in the primal form
    (:func:`~perceptrons.models._voted.voted_decision`)."""
    if isinstance(state.weights, WeightRows):
        return None
    w = state.weights
    sq = w.pool.sq_norms()

    def gram(block):
        return w.kernel.gram(block, w.pool.X, sq, w.pool.index)

    gram.n_support = w.pool.size
    return gram


def _kept_vote_rows(pool, call):
    """Primal voted run: the rows this call's updates came from join
    the vote rows ``pool``, by row index after the earlier ones.

    Returns
    -------
    SupportPool
    slot_of_row : ndarray of int64
        The new slot of each of the call's rows (-1: not kept).
    """
    rows = [log[0] for epoch in call.work.epoch_logs for log in epoch]
    used = (np.unique(np.concatenate(rows)) if rows
            else np.zeros(0, dtype=np.int64))
    stacked, _ = pool.in_front_of(call.X, np.zeros(call.X.shape[0]))
    keep = np.concatenate([np.arange(pool.size), pool.size + used])
    slot_of_row = np.full(call.X.shape[0], -1, dtype=np.int64)
    slot_of_row[used] = pool.size + np.arange(used.shape[0])
    return pool.kept(stacked, keep, call.X.shape[0]), slot_of_row
