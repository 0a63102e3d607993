"""Perceptrons with dynamic (PDM) and fixed (PFM) margin condition.

Panagiotakopoulos & Tsampouka (ALT 2011): approximate maximum-margin
hyperplanes by the classical perceptron update, run until a full pass over
the training set finds no pattern satisfying the misclassification condition.
The compiled loops are in :mod:`perceptrons._loops.margin`.
"""

import dataclasses
import threading
import warnings
from numbers import Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .._loops.margin import (
    RULE_PDM,
    RULE_PFM,
    MarginRule,
    active_set_epoch,
    pattern_pass,
)
from ..utils._param_validation import Interval, StrOptions
from ..utils.docstrings import with_doc_fragments
from ..utils.validation import linear_scores, refuse_underflow
from ._base import N_JOBS_DOC, BaseOnlinePerceptron
from ._ovr import (epochs_until_converged, for_each_problem, problem_seeds,
                   problem_signs)
from ._state import FittedState, appended, array, check_problems, scalar

# Active-set constants of Sec. 4.
_C1, _C2, _C1_FIRST = 2.2, 1.1, 1.1
_N_EP1, _N_EP2, _N_EP3 = 9, 12, 12

#: The default Δ of PDM, PFM and ROMMA (see :data:`_EXTENSION_DEFAULT_DOC`).
DEFAULT_EXTENSION = 1.0

_EXTENSION_DEFAULT_DOC = """    extension : float or None, default=1.0
        Δ of Sec. 5: each instance k gets its own extra coordinate of value
        ``l_k Δ`` (never stored), which makes any training set separable
        with margin at least ``Δ/√m``; the hard-margin problem is then the
        2-norm soft-margin SVM with penalty ``Δ^{-2} Σ ξ_i²``, i.e.
        scikit-learn's ``LinearSVC(loss="squared_hinge", C=1/(2Δ²),
        intercept_scaling=ρ)``. None: no extension, the paper's setting for
        separable data; the run then converges only if the data is
        separable in the augmented space.

        The default 1.0 is the paper's Δ for Adult, Web and Physics (with
        ρ = 1; Sec. 5 picks Δ ≈ R/10 to R/3 from {3, 1, 0.3, 0.1}, R the
        largest pattern norm), LinearSVC's problem at C = 0.5. It is a
        default a user can trust on any data: every run converges (no
        hard-margin run on inseparable data that never stops and whose last
        iterate is arbitrary), within seconds on USPS-sized data, to a model
        as accurate as LinearSVC on noisy data. It suits data of unit scale
        (standardised, or pixels in [0, 1]); scale Δ with the data, and
        lower it to fit the training set more closely (more updates).

        Sample weights (``sample_weight`` times ``class_weight``) act
        through the extension: a row of weight s gets its own
        ``Δ_s = Δ/√s``, so the problem solved is the weighted 2-norm
        soft-margin SVM ``‖[w, b]‖² + Δ^{-2} Σ s_i ξ_i²`` (LinearSVC's with
        the same ``sample_weight``); see the Notes. Without extension the
        hard-margin problem does not depend on positive weights, and
        weights other than 0 and 1 are refused.
"""

_WEIGHTS_DOC = r"""    Sample weights. A row's weight :math:`s_k > 0`
    (``sample_weight`` times ``class_weight``; a row of weight 0 is left
    out, as if absent) is its weight in the loss of the 2-norm soft-margin
    problem that the extension turns the run into:

    .. math::

        \min_{w, b, \xi}\ \|w\|^2 + b^2 + \frac{1}{\Delta^2}\sum_k s_k
        \xi_k^2 \quad\text{s.t.}\quad l_k (w\cdot x_k + b\rho) \ge
        1 - \xi_k,

    which is the hard-margin problem on the patterns
    :math:`y_k = [l_k x_k,\ l_k \rho,\ l_k \Delta_k e_k]` with a
    per-row extension

    .. math::

        \Delta_k = \Delta / \sqrt{s_k}, \qquad
        a\cdot y_k = l_k (w\cdot x_k + b\rho) + \Delta_k^2 c_k, \qquad
        \|y_k\|^2 = \|x_k\|^2 + \rho^2 + \Delta_k^2,

    and :math:`\|a\|^2` gains :math:`\sum_k \Delta_k^2 c_k^2`. The
    updates are the unweighted ones on these patterns (unit steps, integer
    counts c_k), so the condition, the multiple updates, the theorems and
    the reported ``directional_margin_``, ``margin_bound_`` and
    ``accuracy_estimate_`` hold as stated, for the weighted problem (their
    norms and margins are taken in that extended space). Without extension
    (the hard-margin problem) a positive weight cannot change the solution,
    the maximum-margin separator, and weights other than 0 and 1 are
    refused.
"""

_COMMON_ATTRIBUTES = """    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_problems, n_features)
        w, the non-augmented part of the weight vector a of each binary
        problem (one row for two classes, one per class for one-vs-rest).
    intercept_ : ndarray of shape (n_problems,)
        ``ρ b``, b being the augmented coordinate of a, so that
        ``decision_function(x) = a·[x, ρ] = coef_·x + intercept_``.
    dual_coef_ : ndarray of shape (n_problems, n_support), float64
        Only with ``store_dual=True`` (it is sized by the training set).
        ``l_k c_k``: the number of updates c_k made on row ``support_[j]``,
        signed by its label l_k in each problem. Since ``a = Σ_k c_k y_k``,
        ``coef_ = dual_coef_ @ X[support_]``,
        ``intercept_ = ρ² dual_coef_.sum(axis=1)`` and the extension block of
        a is ``Δ dual_coef_``.
    support_ : ndarray of shape (n_support,), int64
        Only with ``store_dual=True``. Rows (of the last ``fit``/
        ``partial_fit`` call's X) updated at least once in some problem.
    directional_margin_ : ndarray of shape (n_problems,)
        γ'_d: the directional margin ``min_k a·y_k / ‖a‖`` of the final a on
        the whole training set of the last call, in the augmented (and, with
        ``extension``, extended) space of Eq. (1); computed afresh, not from
        the loop's running ‖a‖². Negative if a pattern is misclassified.
    geometric_margin_ : ndarray of shape (n_problems,)
        γ': the same minimum over ``‖a‖`` without its augmented coordinate,
        i.e. the geometric margin of the hyperplane ``coef_·x + intercept_
        = 0`` (extension coordinates included when ``extension`` is set).
    margin_bound_ : ndarray of shape (n_problems,)
        ``‖a_t‖ / t``, the upper bound (4) on the maximum directional margin
        γ_d (valid when every update came from the current training set).
    margin_fraction_ : ndarray of shape (n_problems,)
        ``γ'_d t / ‖a_t‖ = directional_margin_ / margin_bound_``: by Eq. (5) a lower
        bound on γ'_d / γ_d.
    accuracy_estimate_ : ndarray of shape (n_problems,)
        ``1 - margin_fraction_``, the after-run estimate (5) of the relative
        accuracy ``(γ_d - γ'_d) / γ_d``.
    converged_ : ndarray of shape (n_problems,), bool
        Whether a full pass found no pattern satisfying the condition (for
        ``partial_fit``: whether its single pass made no update).
    n_updates_ : int
        Updates t made, summed over problems (a multiple update counts λ).
    n_mistakes_ : int
        Online prediction mistakes while training, summed over problems and
        over every presentation (full and active passes): rows with
        ``l_k (w·x_k + bρ) <= 0`` when presented, before their update (ties
        are mistakes; the extension coordinate is not part of a prediction).
    mistakes_per_epoch_, updates_per_epoch_ : ndarray of shape (n_epochs,)
        Per epoch (a full pass and its active passes; a ``partial_fit``
        call adds one), summed over the problems' epochs of that index.
    n_updates_per_problem_ : ndarray of shape (n_problems,), int64
    n_iter_ : int
        Full epochs (passes over the whole training set) made by the
        problem that needed most; ``partial_fit`` adds one per call.
    n_iter_per_problem_ : ndarray of shape (n_problems,), int64
    n_active_passes_ : int
        Passes over the active sets of Sec. 4, summed over problems.
    t_ : int
        Examples presented (full and active passes), summed over problems.
    n_features_in_ : int

"""


_WEIGHT_PARAMETERS_DOC = """\
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying ``sample_weight`` as in
        scikit-learn ("balanced": inversely proportional to the class
        frequencies). A weight acts through the extension (Notes).
    warm_start : bool, default=False
        ``fit`` continues the fitted state instead of starting afresh.
""" + N_JOBS_DOC

_fill_doc = with_doc_fragments({"    %(attributes)s\n": _COMMON_ATTRIBUTES,
                                "    %(extension)s": _EXTENSION_DEFAULT_DOC,
                                "    %(weights)s\n": _WEIGHTS_DOC,
                                "    %(weight_parameters)s\n":
                                    _WEIGHT_PARAMETERS_DOC})


class _Diverged(Exception):
    """A problem's run stopped before its weights left float64's range.

    Raised by a model's epoch function (ROMMA's, whose ‖a‖ grows without
    bound on inseparable data) and caught by the driver, which keeps the
    last representable a and warns.
    """

    def __init__(self, epochs):
        super().__init__(epochs)
        self.epochs = epochs


@dataclasses.dataclass(frozen=True)
class MarginState(FittedState):
    """The fitted state of :class:`PDM`, :class:`PFM`, ROMMA and MPU.

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

    VERSION = 1

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
        check_problems(sizes, where)
        if (self.support is None) != (self.dual_coef is None):
            raise ValueError(f"{where}: support and dual_coef go together")
        if np.any(np.isnan(self.margin_bound)):
            raise ValueError(f"{where}.margin_bound holds NaN")
        if self.rho > 1e150 or self.delta_sq > 1e300:
            raise ValueError(f"{where}: ρ² + Δ² overflows float64")


class _MarginPerceptron(BaseOnlinePerceptron):
    """Shared driver of PDM, PFM, ROMMA and MPU (not public).

    ``fit`` runs each one-vs-rest problem on its own to convergence
    (:mod:`perceptrons.models._ovr`); ``partial_fit`` makes one plain pass,
    one presentation per row. Input validation, label encoding,
    ``decision_function`` and ``predict`` come from
    :class:`~perceptrons.models._base.BaseOnlinePerceptron`.

    The model is a = [w, b, extension] per problem (:class:`MarginState`).
    The per-row update counts c_k are per-call scratch: folded into
    ``retired_ext_sq`` when the call ends and kept only as ``dual_coef_``
    with ``store_dual=True``.

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

    _parameter_constraints = {
        **BaseOnlinePerceptron._parameter_constraints,
        "augmentation": [Interval(Real, 0, None, closed="left")],
        "extension": [Interval(Real, 0, None, closed="neither"), None],
        "active_sets": ["boolean"],
        "multiple_updates": ["boolean"],
        "store_dual": ["boolean"],
    }

    _state_type = MarginState

    def __init__(self, *, augmentation, extension, active_sets, store_dual,
                 **params):
        self.augmentation = augmentation
        self.extension = extension
        self.active_sets = active_sets
        self.store_dual = store_dual
        super().__init__(**params)

    # ----------------------------------------------------------- schedule
    _rule = None
    #: Columns of ``scalars``: [b, ‖a‖²] (ROMMA adds its own).
    _n_scalars = 2

    def _params_schedule(self):
        """Condition parameters of the successive runs (one run: one value)."""
        raise NotImplementedError

    def _first_epoch_plain(self):
        """True: the first full epoch uses c1 = 1.1 and single updates."""
        return False

    # ----------------------------------------------------------- state
    def _needs_row_sq_norms(self):
        # ‖y_k‖² = ‖x_k‖² + ρ² + Δ² enters every update of a's norm.
        return True

    def _check_state(self, state):
        if state.scalars.shape[1] != self._n_scalars:
            raise ValueError(f"{type(self).__name__}'s state keeps "
                             f"{self._n_scalars} scalars per problem, not "
                             f"{state.scalars.shape[1]}")

    def _ext_sq(self, call, c):
        """``Σ_k Δ_k² c_k² = Δ² Σ_k c_k² / s_k``, the squared norm of a's
        extension block (``Δ² Σ_k c_k²`` when every weight is 1).

        0 without extension whatever c holds: ROMMA's coefficients are not
        part of a then, and may have overflowed (0 · inf would be NaN).
        """
        delta_sq = self.state_.delta_sq
        if not delta_sq:
            return 0.0
        if call.ext_sq is None:
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

    def _weights_refusal(self):
        if self._delta() is None:
            return (f"{type(self).__name__} without extension solves the "
                    "hard-margin problem, whose solution (the maximum-margin "
                    "separator) no positive weight can change: sample "
                    "weights other than 0 and 1 (and class_weight) act "
                    "through the extension, a row of weight s getting its "
                    "own Δ/√s (its weight in the 2-norm soft-margin loss); "
                    "set extension")
        return None

    def _new_state(self, call, fitted):
        n_classes = fitted["classes"].shape[0]
        n_problems = 1 if n_classes == 2 else n_classes

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

    def _begin_call(self, call):
        """The per-call scratch: row norms ‖y_k‖² and update counts c_k;
        with weights, the rows' own squared extensions ``Δ_k² = Δ²/s_k``
        (``call.ext_sq``; None when every weight is 1 or Δ = 0)."""
        refuse_underflow(call.loop_arrays[0], call.mean_sq_norm)
        s = self.state_
        n_problems = s.weights.shape[0]
        call.diverged = []
        call.stats_lock = threading.Lock()
        call.counts = np.zeros((n_problems, call.X.shape[0]),
                               dtype=self._counts_dtype)
        call.ext_sq = None
        if call.weights.shape[0] and s.delta_sq:
            # The loops form the same quotient, delta_sq / weights[k].
            call.ext_sq = s.delta_sq / call.weights
            if not float(call.ext_sq.max()) <= 1e300:
                raise ValueError(
                    "a row's weight is too small for the extension: Δ²/s "
                    "(its own squared extension) overflows float64; use "
                    "larger weights or drop the row (weight 0)")
            call.y_sq_norms = call.sq_norms + (s.rho ** 2 + call.ext_sq)
        else:
            call.y_sq_norms = call.sq_norms + (s.rho ** 2 + s.delta_sq)
        # Per problem, the mistakes and updates of each epoch (full pass and
        # its active passes).
        call.epoch_mistakes = [[] for _ in range(n_problems)]
        call.epoch_updates = [[] for _ in range(n_problems)]
        call.t = s.t
        call.n_active_passes = s.n_active_passes

    _counts_dtype = np.int64

    def _set_initial(self, coef, intercept):
        s = self.state_
        if coef is not None:
            s.weights[:] = coef
        if intercept is not None:
            if s.rho == 0 and np.any(intercept != 0):
                raise ValueError("intercept_init must be zero with "
                                 "augmentation=0 (no bias coordinate)")
            s.scalars[:, 0] = intercept / s.rho if s.rho else 0.0
        w, b = s.weights, s.scalars[:, 0]
        s.scalars[:, 1] = np.einsum("ij,ij->i", w, w) + b * b

    def _signs(self, targets, k):
        return problem_signs(targets, k, self.state_.weights.shape[0])

    def _check_finite(self, k, epoch):
        s = self.state_
        if not (np.isfinite(s.weights[k]).all()
                and np.isfinite(s.scalars[k]).all()):
            raise ValueError(
                f"floating-point overflow at full epoch {epoch}: the weights "
                "are no longer finite; scale the input (e.g. StandardScaler)")

    # ----------------------------------------------------------- training
    def _fit_passes(self, call, targets):
        """Each one-vs-rest problem to convergence (or ``max_iter`` epochs)."""
        X = call.X
        self._begin_call(call)
        n_problems = self.state_.weights.shape[0]
        seeds = problem_seeds(self.random_state, n_problems)
        converged = np.zeros(n_problems, dtype=bool)
        n_iter = self.state_.n_iter_per_problem

        def run_problem(k):
            try:
                return (*epochs_until_converged(
                    self._problem_epoch(call, k, self._signs(targets, k)),
                    self._params_schedule(), self.max_iter, X.shape[0],
                    self.shuffle, np.random.RandomState(seeds[k])), False)
            except _Diverged as stop:
                return stop.epochs, False, True

        for k, (epochs, converged[k], diverged) in enumerate(
                for_each_problem(run_problem, n_problems, self.n_jobs)):
            if diverged:
                call.diverged.append(k)
            n_iter[k] = epochs
            call.t += X.shape[0] * epochs
        self._finish(call, targets, converged, int(n_iter.max()))
        self._warn_unconverged(call, converged)

    def _warn_unconverged(self, call, converged):
        """One ConvergenceWarning per call, naming the remedy.

        Parameters
        ----------
        call : TrainingCall
            With ``diverged``, the problems stopped by :class:`_Diverged`.
        converged : ndarray of shape (n_problems,), bool
        """
        name = type(self).__name__
        if call.diverged:
            warnings.warn(
                f"{name} stopped early on problems {call.diverged}: ‖a‖ "
                "grew past float64's safe range, which certifies that the "
                "training set is not separable in the augmented space "
                "(margin below 1e-100 times the pattern norm); the last "
                "representable a is kept. Set extension (Δ) to solve the "
                "2-norm soft-margin problem instead", ConvergenceWarning)
        stalled = np.flatnonzero(~converged).tolist()
        stalled = [k for k in stalled if k not in call.diverged]
        if not stalled:
            return
        if self._delta() is None:
            remedy = (
                "the training set may not be separable in the augmented "
                "space, and then the last a is arbitrary (the active-set "
                "passes fit it to the patterns still violating the "
                "condition; it can even be inverted): set extension (Δ) to "
                "solve the 2-norm soft-margin problem, or raise max_iter")
        else:
            remedy = ("raise max_iter (a larger extension converges in "
                      "fewer updates)")
        warnings.warn(
            f"{name} did not converge within max_iter={self.max_iter} full "
            f"epochs (problems {stalled}); {remedy}", ConvergenceWarning)

    def _problem_epoch(self, call, k, signs):
        """Problem k's full epoch (with its active-set passes), for the driver.

        Returns
        -------
        callable
            ``run_epoch(order, param, epoch) -> n_updates_of_full_pass``.
        """
        s = self.state_
        active = int(self.active_sets)
        n = signs.shape[0]
        levels = [np.empty(n, dtype=np.int64) for _ in range(3)]
        stats = np.zeros(4, dtype=np.int64)
        vector = (s.weights[k], s.scalars[k],
                  s.n_updates_per_problem[k:k + 1], call.counts[k])

        def run_epoch(order, param, epoch):
            full, active_rule, schedule = self._epoch_rules(k, param, epoch)
            before = stats.copy()
            n_full = active_set_epoch(
                *call.loop_arrays, signs, call.y_sq_norms, order, s.rho,
                s.delta_sq, call.weights, full, active_rule, *vector, active,
                *schedule, *levels, stats)
            self._add_stats(call, k, n_full, stats - before)
            self._check_finite(k, epoch + 1)
            return self._after_epoch(call, k, signs, param, n_full)

        return run_epoch

    def _epoch_rules(self, k, param, epoch):
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

    def _add_stats(self, call, k, n_full, stats):
        """Count one epoch of problem k: its active passes, presentations,
        updates (full pass ``n_full`` plus active ones) and mistakes."""
        with call.stats_lock:  # problems may run on threads (sums: any order)
            call.t += int(stats[2])
            call.n_active_passes += int(stats[1])
        call.epoch_updates[k].append(int(n_full + stats[0]))
        call.epoch_mistakes[k].append(int(stats[3]))

    def _record_epochs(self, call):
        """This call's epochs, summed over problems, appended to the
        counters: epoch e of the call adds the mistakes and updates of every
        problem's e-th epoch (problems converge after different numbers of
        epochs)."""
        s = self.state_
        out, totals = {}, {}
        for name, per_problem in (("mistakes_per_epoch", call.epoch_mistakes),
                                  ("updates_per_epoch", call.epoch_updates)):
            total = np.zeros(max(len(e) for e in per_problem), dtype=np.int64)
            for epochs in per_problem:
                total[:len(epochs)] += np.asarray(epochs, dtype=np.int64)
            totals[name] = total
            out[name] = appended(getattr(s, name), total)
        out["n_mistakes"] = (s.n_mistakes
                             + int(totals["mistakes_per_epoch"].sum()))
        return out

    def _partial_pass(self, call, targets):
        """One plain pass per problem: each row presented once.

        Single updates (a multiple update stands for repeated presentations),
        no active sets, the final condition parameter (the last ε of a
        successive-run schedule). The rows are new instances: with
        ``extension`` they get fresh extension coordinates, while those of
        earlier calls stay in ‖a‖².
        """
        X = call.X
        self._begin_call(call)
        order = np.arange(X.shape[0], dtype=np.int64)
        s = self.state_
        n_problems = s.weights.shape[0]
        converged = np.zeros(n_problems, dtype=bool)
        for k in range(n_problems):
            n_upd, n_mistakes = self._plain_pass(call, k, order,
                                                 self._signs(targets, k))
            call.epoch_updates[k].append(n_upd)
            call.epoch_mistakes[k].append(n_mistakes)
            self._check_finite(k, int(s.n_iter_per_problem[k]) + 1)
            converged[k] = n_upd == 0
        s.n_iter_per_problem[:] += 1
        call.t += n_problems * X.shape[0]
        self._finish(call, targets, converged, s.n_iter + 1)
        # One pass is not a run to convergence: only a divergence is news.
        self._warn_unconverged(call, np.ones(n_problems, dtype=bool))

    def _plain_pass(self, call, k, order, signs):
        """Problem k's plain pass of ``partial_fit``.

        Returns
        -------
        n_updates, n_mistakes : int
        """
        s = self.state_
        param = float(self._params_schedule()[-1])
        n_updates, _, n_mistakes = pattern_pass(
            order, order.shape[0], 0.0, order, *call.loop_arrays, signs,
            call.y_sq_norms, s.rho, s.delta_sq, call.weights,
            MarginRule(self._rule, param, 0), s.weights[k], s.scalars[k],
            s.n_updates_per_problem[k:k + 1], call.counts[k])
        return n_updates, n_mistakes

    # ----------------------------------------------------------- results
    def _finish(self, call, targets, converged, n_iter):
        """The state after a call: counters, and the reported margins
        computed afresh from (w, b, c); this call's c retired."""
        s = self.state_
        X = call.X
        rho = s.rho
        scores = linear_scores(X, s.weights)
        scores = np.asarray(scores) + rho * s.scalars[:, 0]
        n_problems = s.weights.shape[0]
        margin = np.zeros(n_problems)
        geometric = np.zeros(n_problems)
        bound = np.zeros(n_problems)
        for k in range(n_problems):
            signs = self._signs(targets, k)
            c = call.counts[k].astype(np.float64)
            ay = signs * scores[:, k]
            if s.delta_sq:
                ay = ay + (s.delta_sq if call.ext_sq is None
                           else call.ext_sq) * c
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
        self.state_ = s.replace(
            t=call.t, n_iter=n_iter, n_active_passes=call.n_active_passes,
            n_updates=int(s.n_updates_per_problem.sum()), converged=converged,
            directional_margin=margin, geometric_margin=geometric,
            margin_bound=bound, margin_fraction=fraction,
            accuracy_estimate=1.0 - fraction, support=support,
            dual_coef=dual_coef,
            retired_ext_sq=self._retired(call), **self._record_epochs(call))
        self._publish()

    def _margin_bound(self, call, k, norm):
        """Upper bound (4) on γ_d: ``‖a_t‖ / t`` (inf before any update)."""
        t = self.state_.n_updates_per_problem[k]
        return norm / t if t > 0 else np.inf

    def _stored_dual(self, call, targets):
        """``support_`` and ``dual_coef_`` of this call, if asked for."""
        if not self.store_dual:
            return None, None
        counts = call.counts
        support = np.flatnonzero((counts != 0).any(axis=0))
        signed = np.stack([self._signs(targets, k)
                           for k in range(counts.shape[0])])
        return (support.astype(np.int64),
                (signed * counts)[:, support].astype(np.float64))

    def _retired(self, call):
        """``retired_ext_sq`` with this call's extension coordinates.

        Rows of later calls are new instances: no later update touches
        these coordinates, so only their squared norm stays in ‖a‖².
        """
        s = self.state_
        if not s.delta_sq:
            return s.retired_ext_sq
        c = call.counts.astype(np.float64)
        if call.ext_sq is None:
            return s.retired_ext_sq + s.delta_sq * np.einsum("ij,ij->i", c, c)
        return s.retired_ext_sq + s.delta_sq * np.einsum("ij,ij->i", c,
                                                         c / call.weights)

    def _public_model(self):
        s = self.state_
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
    #: ``max_iter`` caps the epochs of a fit that stops at convergence (a
    #: streaming trainer, which cannot check convergence, runs one).
    _max_iter_is_a_cap = True

    def _mixing_refusal(self):
        return (f"{type(self).__name__}'s margin condition and its active-set "
                "passes read the run's own history (the update count and "
                "‖w_t‖ of its dynamic margin, or the run's convergence): a "
                "weighted average of shards' runs has no such history")

    def _decision(self, X):
        scores = linear_scores(X, self.coef_)
        return np.asarray(scores) + self.intercept_


@_fill_doc
class PDM(_MarginPerceptron):
    r"""Perceptron with dynamic margin (PDM), with successive runs (PDM-succ).

    The classical perceptron update :math:`a_{t+1} = a_t + y_k`, Eq. (2),
    on augmented and reflected patterns :math:`y_k = [l_k x_k, l_k \rho]`
    made whenever the dynamic margin condition (8) of Panagiotakopoulos &
    Tsampouka [1]_ holds; passes over the training set continue until a
    full pass finds no such pattern. On convergence the directional margin
    γ'_d of a is at least :math:`(1-\epsilon)\gamma_d`, γ_d being the
    maximum directional margin (1); Theorem 3.2 bounds the number of
    updates. With ``successive=η`` the run is PDM-succ (end of Sec. 3):
    successive runs with accuracies ε_0 = 1/2, ε_{n+1} = ε_n/η, the last
    one ε, each continuing where the previous one converged.

    Parameters
    ----------
    epsilon : float, default=0.01
        Accuracy ε of condition (8), 0 < ε ≤ 1.
    augmentation : float, default=1.0
        ρ of the augmented patterns ``[l x, l ρ]`` (Sec. 2); 0 gives
        hyperplanes through the origin. The paper's experiments use 1.
    %(extension)s    successive : float or None, default=None
        η > 1 of PDM-succ (the paper uses 8); None runs plain PDM.
    active_sets : bool, default=True
        Use the three nested active sets of Sec. 4 (c1 = 2.2, c2 = 1.1,
        Nep1 = 9, Nep2 = Nep3 = 12; c1 = 1.1 in the first full epoch of
        plain PDM). False gives the plain pseudo-code: full passes only.
    multiple_updates : bool, default=True
        On a pattern satisfying (8), make λ = [μ₊] + 1 updates at once so
        that it no longer does (Sec. 4); plain PDM starts doing so after the
        first full epoch.
    store_dual : bool, default=False
        Keep ``support_`` and ``dual_coef_``, the per-row update counts of
        the last call (arrays sized by the training set, saved with the
        model when kept), as scikit-learn's ``store_covariance``.
    max_iter : int, default=1000
        Most full epochs (passes over the whole training set; the active
        passes between them are not counted). On reaching it without
        convergence a :class:`~sklearn.exceptions.ConvergenceWarning` is
        issued and the last a is kept.
    shuffle : bool or "blocks", default=True
        Present every full epoch in a fresh random permutation (Sec. 4).
        "blocks": a windowed shuffle for data larger than the cache
        (:func:`~perceptrons.utils.random.draw_order`).
    random_state : int, RandomState instance or None, default=None
        Seeds the permutations (one seed per one-vs-rest problem).
    %(weight_parameters)s

    %(attributes)s
    See Also
    --------
    PFM : the same driver with the fixed margin condition (7).
    Perceptron : the perceptron family of Khardon & Wachman.

    Notes
    -----
    With :math:`t` updates made so far, pattern :math:`y_k` is updated when

    .. math::

        a_t \cdot y_k \le (1 - \epsilon) \frac{\|a_t\|^2}{t}
        \quad (\text{threshold } 0 \text{ at } t = 0), \qquad
        a_{t+1} = a_t + y_k,

    Eqs. (8) and (2). With ``extension=Δ`` the patterns are
    :math:`[l_k x_k, l_k \rho, l_k \Delta e_k]`; the extension block of a
    is kept as per-example update counts c_k (``dual_coef_``), so
    :math:`a\cdot y_k` gains :math:`\Delta^2 c_k` and :math:`\|a\|^2` gains
    :math:`\Delta^2 \sum_k c_k^2`, and each update costs O(nnz(x_k)).

    %(weights)s

    Multiple updates (Sec. 4): λ = [μ₊] + 1 where μ₊ is the non-negative
    root of :math:`(t+\mu)\,a_{t+\mu}\cdot y_k - (1-\epsilon)
    \|a_{t+\mu}\|^2 = 0`. They, the active sets and the permutations only
    change the order in which patterns are presented, so Theorem 3.2 and
    the guarantee :math:`\gamma'_d \ge (1-\epsilon)\gamma_d` still hold;
    and so does Theorem 3.2 at the final ε for PDM-succ.

    Multiclass data is handled one-vs-rest, each problem run to its own
    convergence. ``decision_function`` returns :math:`a \cdot [x, \rho]`.

    .. warning::
       The paper's pseudo-code is not reproduced in the text we follow; the
       loop transcribes Sec. 2-4: condition (8) is tested with ``<=`` on the
       state before the update, and an active set collects a pattern when
       ``a·y_k <= c (1-ε)‖a‖²/t`` before its update. Convergence is declared
       only by a full pass without updates.

    References
    ----------
    .. [1] C. Panagiotakopoulos and P. Tsampouka. The perceptron with
       dynamic margin. Algorithmic Learning Theory (ALT 2011), LNCS 6925,
       pp. 204-218, 2011. https://doi.org/10.1007/978-3-642-24412-4_18

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from perceptrons import PDM
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = PDM(epsilon=0.05, random_state=0).fit(X[y < 2], y[y < 2])
    >>> bool(clf.converged_[0]) and clf.score(X[y < 2], y[y < 2]) == 1.0
    True
    >>> bool(clf.accuracy_estimate_[0] <= 0.05)
    True
    """

    _parameter_constraints = {
        **_MarginPerceptron._parameter_constraints,
        "epsilon": [Interval(Real, 0, 1, closed="right")],
        "successive": [Interval(Real, 1, None, closed="neither"), None],
    }
    _rule = RULE_PDM

    @classmethod
    def _test_params(cls):
        return [
            {},
            {"extension": 1.0, "epsilon": 0.1},
            {"extension": 1.0, "epsilon": 0.1, "successive": 4.0},
            {"extension": 1.0, "epsilon": 0.3, "active_sets": False,
             "multiple_updates": False, "max_iter": 50000},
        ]

    def __init__(self, *, epsilon=0.01, augmentation=1.0,
                 extension=DEFAULT_EXTENSION, successive=None,
                 active_sets=True, multiple_updates=True, store_dual=False,
                 max_iter=1000, shuffle=True, random_state=None,
                 class_weight=None, warm_start=False, n_jobs=None):
        self.epsilon = epsilon
        self.successive = successive
        self.multiple_updates = multiple_updates
        super().__init__(augmentation=augmentation, extension=extension,
                         active_sets=active_sets, store_dual=store_dual,
                         max_iter=max_iter, shuffle=shuffle,
                         random_state=random_state,
                         class_weight=class_weight, warm_start=warm_start,
                         n_jobs=n_jobs)

    def _params_schedule(self):
        return epsilon_schedule(self.epsilon, self.successive)

    def _first_epoch_plain(self):
        return self.successive is None


def epsilon_schedule(epsilon, ratio):
    """Accuracies of PDM-succ: ε_0 = 1/2, ε_{n+1} = ε_n / η, ending at ε.

    Parameters
    ----------
    epsilon : float
        Final accuracy ε.
    ratio : float or None
        The paper's η > 1 (``successive``); None gives the single run
        ``[epsilon]``.

    Returns
    -------
    list of float
        Decreasing; the last entry is ``epsilon`` (the step that would go
        below it is replaced by it, as in Sec. 5: 0.5, 0.0625, 0.01).
    """
    if ratio is None or epsilon >= 0.5:
        return [float(epsilon)]
    out = []
    e = 0.5
    while e > epsilon:
        out.append(e)
        e /= ratio
    out.append(float(epsilon))
    return out


@_fill_doc
class PFM(_MarginPerceptron):
    r"""Perceptron with fixed margin condition (PFM).

    The classical perceptron update :math:`a_{t+1} = a_t + y_k` on augmented
    and reflected patterns :math:`y_k = [l_k x_k, l_k \rho]`, made whenever
    the fixed normalized margin condition (7) of Panagiotakopoulos &
    Tsampouka [1]_ holds, until a full pass finds no such pattern. It
    converges when β < γ_d, the maximum directional margin (1), to a
    solution of directional margin at least β = (1-ε)γ_d; Theorem 3.1
    bounds its updates. ``PFM(beta=0, extension=None)`` is Rosenblatt's
    perceptron in the augmented space (ties count as mistakes).

    Parameters
    ----------
    beta : float or "auto", default="auto"
        β ≥ 0 of condition (7), in the units of the (augmented, extended)
        patterns; convergence needs β < γ_d. The paper sets it to the γ'_d
        found by PDM. "auto" is ``Δ / (2√m)``, m the rows of the first
        ``fit``/``partial_fit`` call (with weights, ``Σ s_k`` instead of
        m: see the Notes): half the margin ``Δ/√m`` that the
        extension alone guarantees (Sec. 5), so that β < γ_d always holds
        and the run converges (Theorem 3.1) with a margin of at least half
        that guarantee; 0 without extension (nothing is known of γ_d then).
        On noisy data it gains 3-4 points of test accuracy over β = 0, the
        perceptron's "any separator". The value used is ``beta_``.
    augmentation : float, default=1.0
        ρ of the augmented patterns ``[l x, l ρ]`` (Sec. 2).
    %(extension)s    active_sets : bool, default=True
        The three nested active sets of Sec. 4 with conditions
        ``a·y_k <= c β‖a‖`` (c1 = 2.2, c2 = 1.1, Nep1 = 9, Nep2 = Nep3 = 12).
    multiple_updates : bool, default=True
        λ = [μ₊] + 1 updates at once on a pattern satisfying (7), μ₊ the
        root of :math:`a_{t+\mu}\cdot y_k = \beta\|a_{t+\mu}\|` (Sec. 4),
        from the first epoch on.
    store_dual : bool, default=False
        Keep ``support_`` and ``dual_coef_``, the per-row update counts of
        the last call (arrays sized by the training set, saved with the
        model when kept), as scikit-learn's ``store_covariance``.
    max_iter : int, default=1000
        Most full epochs; see :class:`PDM`.
    shuffle : bool or "blocks", default=True
        A fresh random permutation for every full epoch.
        "blocks": a windowed shuffle for data larger than the cache
        (:func:`~perceptrons.utils.random.draw_order`).
    random_state : int, RandomState instance or None, default=None
        Seeds the permutations (one seed per one-vs-rest problem).
    %(weight_parameters)s

    %(attributes)s
    See Also
    --------
    PDM : the dynamic margin condition (8), which needs no knowledge of γ_d.

    Notes
    -----
    .. math::

        a_t \cdot y_k \le \beta \|a_t\| \;\Rightarrow\; a_{t+1} = a_t + y_k,

    Eqs. (7) and (2), with β = (1-ε)γ_d. The extension, multiple updates
    and the reported quantities are as in :class:`PDM`.

    %(weights)s

    With weights, β = "auto" is :math:`\Delta / (2\sqrt{\sum_k s_k})`:
    half the margin :math:`1/\sqrt{\sum_k \Delta_k^{-2}}` that the
    per-row extensions alone guarantee, so that β < γ_d still holds.

    References
    ----------
    .. [1] C. Panagiotakopoulos and P. Tsampouka. The perceptron with
       dynamic margin. ALT 2011, LNCS 6925, pp. 204-218, 2011.
       https://doi.org/10.1007/978-3-642-24412-4_18

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from perceptrons import PFM
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = PFM(beta=0.05, random_state=0).fit(X[y < 2], y[y < 2])
    >>> bool(clf.converged_[0]) and bool(clf.directional_margin_[0] >= 0.05)
    True
    """

    _parameter_constraints = {
        **_MarginPerceptron._parameter_constraints,
        "beta": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
    }
    _rule = RULE_PFM

    def __init__(self, *, beta="auto", augmentation=1.0,
                 extension=DEFAULT_EXTENSION,
                 active_sets=True, multiple_updates=True, store_dual=False,
                 max_iter=1000, shuffle=True, random_state=None,
                 class_weight=None, warm_start=False, n_jobs=None):
        self.beta = beta
        self.multiple_updates = multiple_updates
        super().__init__(augmentation=augmentation, extension=extension,
                         active_sets=active_sets, store_dual=store_dual,
                         max_iter=max_iter, shuffle=shuffle,
                         random_state=random_state,
                         class_weight=class_weight, warm_start=warm_start,
                         n_jobs=n_jobs)

    @classmethod
    def _test_params(cls):
        return [
            {},
            {"extension": 1.0, "beta": 0.01},
            {"beta": 0.0, "extension": 1.0, "active_sets": False,
             "multiple_updates": False, "max_iter": 20000},
        ]

    def _one_at_a_time_refusal(self):
        if self.beta == "auto" and self.extension is not None:
            return ("beta='auto' is Δ/(2√m) for m training rows, which one "
                    "example does not give: pass beta, or start with "
                    "partial_fit on a batch and go on with learn_one")
        return None

    def _resolve_beta(self, call):
        if self.beta != "auto":
            return float(self.beta)
        if self.extension is None:
            return 0.0
        if call.weights.shape[0]:
            # Δ_k = Δ/√s_k: the extension alone separates with margin
            # 1/√(Σ_k 1/Δ_k²) = Δ/√(Σ_k s_k).
            return 0.5 * float(self.extension) / np.sqrt(call.weights.sum())
        return 0.5 * float(self.extension) / np.sqrt(call.X.shape[0])

    def _params_schedule(self):
        return [self.state_.beta]

