"""What the primal and dual forms of Khardon & Wachman's Figure 2 share.

:class:`ThresholdFamilyBase` holds everything of the Figure 2 family that does
not depend on how the weight vectors are stored: the parameters and their
constraints, θ_Init and C resolved from "auto", the thresholds and the
bookkeeping of the final hypotheses (tallies, survivor runs, votes), the
per-call α counters and vote logs, the arguments every epoch loop takes after
its data and weight arguments, the voted log and the voted prediction.
:class:`~perceptrons.Perceptron` keeps w itself (primal), and
:class:`~perceptrons.KernelPerceptron` keeps dual coefficients over support
vectors; each supplies its weight arrays, loops and Gram blocks.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted, validate_data

from .._loops.perceptron import (
    HYPOTHESIS_AVERAGED,
    HYPOTHESIS_LAST,
    HYPOTHESIS_LONGEST,
    HYPOTHESIS_VOTED,
)
from ..utils._param_validation import Interval, StrOptions
from ._base import BaseOnlinePerceptron, mix, pooled_sum
from ._ovr import problem_signs
from ._voted import (VotedLog, longest_survivor, voted_binary_scores,
                     voted_prototype_scores)

_HYPOTHESES = {
    "last": HYPOTHESIS_LAST,
    "longest": HYPOTHESIS_LONGEST,
    "voted": HYPOTHESIS_VOTED,
    "averaged": HYPOTHESIS_AVERAGED,
}


class ThresholdFamilyBase(BaseOnlinePerceptron):
    """Figure 2 of Khardon & Wachman without the weight storage (not public).

    A subclass sets ``eta``, ``theta_init``, ``threshold_step``, ``margin``,
    ``tau``, ``lam``, ``alpha_bound``, ``hypothesis`` and ``multiclass`` in
    its ``__init__`` and supplies ``_form``, the storage of w, and
    ``_form_state_names``, the attributes of every form (cleared by a fresh
    start). A form is an object with ``needs_row_sq_norms``,
    ``auto_average`` (with ``auto_average_name`` and ``auto_remedy`` for
    its overflow message), ``allocate`` (calling
    :meth:`_allocate_family_state`, then creating its weights and, for
    "voted", the log from :meth:`_new_voted_log`), ``begin_call``,
    ``run_epoch`` (calling :meth:`_run_family_epoch` with its loops and
    leading arguments), ``state_is_finite``, ``end_call`` (using
    :meth:`_final_hypothesis` and, for "voted", :meth:`_extend_voted`),
    ``set_initial``, ``hypothesis_scores`` (the scores of a non-voted
    hypothesis) and ``voted_support`` (the number of support vectors and a
    ``fill`` of the transposed Gram blocks the vote needs on given test
    rows, as :func:`~perceptrons.models._voted.voted_binary_scores` takes
    it), each a function of the estimator.

    The state created here, shared by both forms: ``_prototype``,
    ``_hypothesis_code``, ``_theta``, ``_theta_avg_acc``, ``_theta_ls``, the
    per-counter ``_tally``, ``_best_tally``, ``_ls_current``,
    ``_current_vote`` and ``_n_updates_per_problem``; on the call's
    :class:`~perceptrons.models._base.TrainingCall`, the per-example
    ``alpha_counts``, the vote logs ``vote_log``, ``update_log``,
    ``other_log`` and ``epoch_logs``, and the work space ``scores``.
    """

    _parameter_constraints = {
        **BaseOnlinePerceptron._parameter_constraints,
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
    }

    _model_state = BaseOnlinePerceptron._model_state + (
        "intercept_", "theta_init_", "threshold_step_", "margin_",
        "_prototype", "_hypothesis_code", "_theta", "_theta_avg_acc",
        "_theta_ls", "_tally", "_best_tally", "_ls_current", "_current_vote",
        "_n_updates_per_problem", "_voted")

    # ----------------------------------------------------------- the form
    def _needs_row_sq_norms(self):
        return self._form.needs_row_sq_norms(self)

    def _allocate(self, call, n_classes):
        # A refit after set_params(kernel=...) keeps nothing of the other
        # form.
        for name in self._form_state_names:
            self.__dict__.pop(name, None)
        self._form.allocate(self, call, n_classes)

    def _begin_call(self, call):
        """The call's α counters, vote logs and score work space, then the
        form's per-call state."""
        n = call.X.shape[0]
        n_counters = self._tally.shape[0]
        call.alpha_counts = np.zeros((n_counters, n), dtype=np.int64)
        # An epoch makes at most n updates per problem; only "voted" logs them.
        n_log = n if self.hypothesis == "voted" else 0
        call.vote_log = np.zeros((n_counters, n_log), dtype=np.int64)
        call.update_log = np.zeros((n_counters, n_log), dtype=np.int64)
        call.other_log = np.zeros(n_log if self._prototype else 0,
                                  dtype=np.int64)
        call.epoch_logs = []
        call.scores = np.zeros(self._theta.shape[0])
        self._form.begin_call(self, call)

    def _run_epoch(self, call, targets, order):
        return self._form.run_epoch(self, call, targets, order)

    def _state_is_finite(self, call):
        return self._form.state_is_finite(self, call)

    def _end_call(self, call, targets):
        self._form.end_call(self, call, targets)

    def _set_initial(self, coef, intercept):
        self._form.set_initial(self, coef, intercept)

    def _n_problems(self):
        # The prototype rule keeps one row per class, two classes included.
        return self._theta.shape[0]

    # ----------------------------------------------------------- state
    def _resolve_thresholds(self, call):
        """Set ``theta_init_`` and ``threshold_step_``, "auto" resolved.

        "auto" is the form's average ``<φ(x_i), φ(x_i)>`` (K&W Sec. 3.2),
        computed only when a parameter asks for it.

        Raises
        ------
        ValueError
            If that average overflows float64.
        """
        avg = None
        if self.theta_init == "auto" or self.threshold_step == "auto":
            form = self._form
            avg = float(form.auto_average(self, call))
            if not np.isfinite(avg):
                raise ValueError(
                    f"the average {form.auto_average_name} of the rows "
                    "overflows float64 (needed for theta_init/threshold_step="
                    f"'auto'); {form.auto_remedy}")
        self.theta_init_ = avg if self.theta_init == "auto" else float(
            self.theta_init)
        self.threshold_step_ = avg if self.threshold_step == "auto" else float(
            self.threshold_step)
        self.margin_ = self._resolve_margin()

    def _resolve_margin(self):
        """The absolute margin: ``margin``, or ``tau`` times ``theta_init_``.

        Raises
        ------
        ValueError
            If both ``margin`` and ``tau`` are set.
        """
        if self.tau is None:
            return float(self.margin)
        if self.margin != 0:
            raise ValueError(
                f"margin={self.margin!r} and tau={self.tau!r} are both set; "
                "pass one: margin is absolute, tau is in units of theta_init")
        return float(self.tau) * self.theta_init_

    def _zero_weights(self, n_rows, n_columns):
        """Zero current, accumulated and longest-survivor weights.

        Parameters
        ----------
        n_rows, n_columns : int

        Returns
        -------
        tuple of three ndarray
            The first of shape (n_rows, n_columns); the other two too when
            the hypothesis keeps them ("averaged", "longest"), else with no
            columns, as the loops then never read them.
        """
        averaged = self.hypothesis == "averaged"
        longest = self.hypothesis == "longest"
        return (np.zeros((n_rows, n_columns)),
                np.zeros((n_rows, n_columns if averaged else 0)),
                np.zeros((n_rows, n_columns if longest else 0)))

    def _allocate_family_state(self, call, n_classes):
        """Resolve the thresholds and create the state of a fresh start.

        Parameters
        ----------
        call : TrainingCall
        n_classes : int

        Returns
        -------
        n_rows : int
            Weight vectors (and thresholds) to keep: one for two classes
            under "ovr", else one per class.
        """
        self._resolve_thresholds(call)
        self._prototype = self.multiclass == "prototype"
        n_rows = n_classes if (self._prototype or n_classes > 2) else 1
        # The prototype rule is one problem over all rows: one tally, one
        # vote, one update count.
        n_counters = 1 if self._prototype else n_rows
        self._hypothesis_code = _HYPOTHESES[self.hypothesis]
        self._theta = np.full(n_rows, self.theta_init_)
        self._theta_avg_acc = np.zeros(n_rows)
        self._theta_ls = np.full(n_rows, self.theta_init_)
        self._tally = np.zeros(n_counters, dtype=np.int64)
        self._best_tally = np.zeros(n_counters, dtype=np.int64)
        self._ls_current = np.zeros(n_counters, dtype=np.int64)
        self._current_vote = np.zeros(n_counters, dtype=np.int64)
        self._n_updates_per_problem = np.zeros(n_counters, dtype=np.int64)
        return n_rows

    def _new_voted_log(self):
        """An empty :class:`VotedLog` with one sequence per counter."""
        return VotedLog(self._tally.shape[0])

    # ----------------------------------------------------------- training
    def _family_loop_args(self, call, weights_avg_acc, weights_ls, n_logged):
        """The epoch loops' tuples ``rule, final, logs``.

        Their elements are described in :mod:`perceptrons._loops.hypotheses`.

        Parameters
        ----------
        call : TrainingCall
        weights_avg_acc, weights_ls : ndarray
            The form's accumulated and longest-survivor weights (w or dual
            coefficients), which sit in ``final``.
        n_logged : ndarray of shape (n_counters,), int64
            This epoch's log counts, which sit in ``logs``.

        Returns
        -------
        rule, final, logs : tuple
            Figure 2's update rule, the final-hypothesis bookkeeping and
            the call's counters and logs, in the loops' order.
        """
        rule = (float(self.eta), float(self.threshold_step_), self.margin_,
                float(self.lam),
                -1 if self.alpha_bound is None else int(self.alpha_bound))
        final = (self._hypothesis_code, self.t_,
                 weights_avg_acc, self._theta_avg_acc,
                 weights_ls, self._theta_ls, self._tally, self._best_tally,
                 self._ls_current, self._current_vote)
        logs = (call.alpha_counts, call.vote_log, call.update_log,
                call.other_log, n_logged, self._n_updates_per_problem,
                call.scores)
        return rule, final, logs

    def _run_family_epoch(self, call, threshold_epoch, prototype_epoch, head,
                          weights_avg_acc, weights_ls):
        """Run one compiled pass and log its votes.

        Parameters
        ----------
        call : TrainingCall
        threshold_epoch, prototype_epoch : numba dispatcher
            The form's loops for one-vs-rest (or binary) problems and for
            the prototype rule.
        head : tuple
            The loop's arguments before ``rule`` (data, targets, order,
            weights and the form's work space).
        weights_avg_acc, weights_ls : ndarray
            See :meth:`_family_loop_args`.

        Returns
        -------
        n_mistakes, n_updates : int
        """
        n_logged = np.zeros(self._tally.shape[0], dtype=np.int64)
        before = int(self._n_updates_per_problem.sum())
        epoch = prototype_epoch if self._prototype else threshold_epoch
        n_mistakes = epoch(*head, *self._family_loop_args(
            call, weights_avg_acc, weights_ls, n_logged))
        if self.hypothesis == "voted":
            self._collect_voted_epoch(call, n_logged)
        return n_mistakes, int(self._n_updates_per_problem.sum()) - before

    def _collect_voted_epoch(self, call, n_logged):
        """Keep this epoch's logged updates; the logs are reused next epoch.

        Parameters
        ----------
        call : TrainingCall
        n_logged : ndarray of shape (n_counters,), int64
            Entries the loop wrote to each problem's logs.
        """
        call.epoch_logs.append(
            [(call.update_log[k, :n].copy(), call.vote_log[k, :n].copy(),
              call.other_log[:n].copy() if self._prototype else None)
             for k, n in enumerate(n_logged)])

    def _voted_labels(self, update_targets, k):
        """Labels the voted log stores for problem k's updates.

        Parameters
        ----------
        update_targets : ndarray of int64
            Class index of the row behind each update.
        k : int
            The problem.

        Returns
        -------
        ndarray of int64
            The true class for the prototype rule; else ±1, +1 for class 1
            with one problem and for class k under one-vs-rest.
        """
        if self._prototype:
            return update_targets
        return problem_signs(update_targets, k,
                             self._tally.shape[0]).astype(np.int64)

    def _extend_voted(self, call, used, offset, targets):
        """Move this call's logged updates into the voted log.

        Parameters
        ----------
        call : TrainingCall
        used : ndarray of int64, sorted
            This call's rows that caused an update, in the order they were
            appended to the support vectors.
        offset : int
            Support vectors kept before this call: row ``used[j]`` is
            support vector ``offset + j``.
        targets : ndarray of shape (n_samples,), int64
        """
        for epoch in call.epoch_logs:
            for k, (upd_rows, votes, other) in enumerate(epoch):
                support = offset + np.searchsorted(used, upd_rows)
                label = self._voted_labels(targets[upd_rows], k)
                self._voted.extend(k, support, label, votes, other)

    def _final_hypothesis(self, weights, weights_avg_acc, weights_ls,
                          copy=False):
        """Weights and intercept of the final (non-voted) hypothesis.

        For "voted", the last hypothesis (prediction uses the vote).

        Parameters
        ----------
        weights, weights_avg_acc, weights_ls : ndarray
            The form's current, accumulated and longest-survivor weights.
        copy : bool, default=False
            Copy the weights when they are one of the arrays passed (the
            average is always new).

        Returns
        -------
        weights : ndarray
        intercept : ndarray of shape (n_rows,)
            ``-θ``, a new array.
        """
        if self.hypothesis == "averaged":
            # The loops accumulate Σ (s-1)·Δ over updates at step s, so the
            # average over t_ steps is the current value minus acc / t_.
            return (weights - weights_avg_acc / self.t_,
                    -(self._theta - self._theta_avg_acc / self.t_))
        if self.hypothesis == "longest":
            weights, theta = weights_ls, self._theta_ls
        else:
            theta = self._theta
        return (weights.copy() if copy else weights), -theta

    # ----------------------------------------------------------- mixing
    @property
    def _carried_scratch(self):
        # The α counts matter only to the λ-trick and the α-bound.
        active = self.lam != 0 or self.alpha_bound is not None
        return ("alpha_counts",) if active else ()

    def _mixing_refusal(self):
        if getattr(self, "kernel", None) is not None:
            return (f"with kernel={self.kernel!r} the model is dual "
                    "coefficients over each shard's own support vectors, "
                    "not a weight vector the shards share")
        if self.hypothesis in ("voted", "longest"):
            return (f"hypothesis={self.hypothesis!r} is a hypothesis of one "
                    "run (its votes or its longest survival); a mix of runs "
                    "has none: use 'last' or 'averaged'")
        return None

    def _mix_arrays(self, start, states, mu):
        """w and θ mixed by μ; the averaged hypothesis from the pooled sum
        of every hypothesis any shard visited (see ``ParameterMixing``)."""
        for name in ("_weights", "_theta"):
            setattr(self, name, mix([s[name] for s in states], mu))
        if self.hypothesis == "averaged":
            # The state keeps acc with  Σ_t w_t = t·w - acc  (_loops notes).
            for name, acc in (("_weights", "_weights_avg_acc"),
                              ("_theta", "_theta_avg_acc")):
                before = (start["t_"] * start[name] - start[acc]
                          if start else None)
                total = pooled_sum(before, [s["t_"] * s[name] - s[acc]
                                            for s in states])
                setattr(self, acc, self.t_ * getattr(self, name) - total)
        start_updates = start.get("_n_updates_per_problem", 0)
        self._n_updates_per_problem = pooled_sum(
            start_updates if start else None,
            [s["_n_updates_per_problem"] for s in states])
        self.coef_, self.intercept_ = self._final_hypothesis(
            self._weights, self._weights_avg_acc, self._weights_ls, copy=True)

    # ----------------------------------------------------------- prediction
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
        if hypothesis is None or hypothesis == self.hypothesis:
            return super().decision_function(X)
        self._check_derivable(hypothesis)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64,
                          order="C", reset=False)
        if hypothesis == "last":
            scores = self._form.hypothesis_scores(self, X)
        else:
            W, intercept = longest_survivor(
                self._voted.binary_arrays(self._current_vote),
                self._support_X, float(self.eta),
                float(self.threshold_step_), float(self.theta_init_),
                self.n_features_in_)
            scores = safe_sparse_dot(X, W.T, dense_output=True) + intercept
        scores = self._two_prototypes_as_one(scores)
        return scores[:, 0] if scores.shape[1] == 1 else scores

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
        refit = (f"fit with hypothesis={hypothesis!r} (this model was fitted "
                 f"with hypothesis={self.hypothesis!r})")
        if self.hypothesis != "voted" or hypothesis == "averaged":
            raise ValueError(f"only a voted fit keeps the other hypotheses "
                             f"of its run, and not 'averaged': {refit}")
        if hypothesis == "longest" and (self._prototype or getattr(
                self, "kernel", None) is not None):
            raise ValueError("'longest' is replayed from a voted fit in the "
                             "primal one-vs-rest form only (no kernel, "
                             f"multiclass='ovr'): {refit}")

    def _decision(self, X):
        if self.hypothesis == "voted":
            scores = self._voted_decision(X)
        else:
            scores = self._form.hypothesis_scores(self, X)
        return self._two_prototypes_as_one(scores)

    def _two_prototypes_as_one(self, scores):
        if self._prototype and scores.shape[1] == 2:
            # One column for two classes: positive favours classes_[1].
            return (scores[:, 1] - scores[:, 0])[:, None]
        return scores

    def _voted_decision(self, X):
        """Vote totals of the voted hypothesis (Freund & Schapire)."""
        n_support, fill = self._form.voted_support(self, X)
        # Every voter starts from the initial hypothesis (w = 0, θ_Init).
        theta_start = np.full(self._theta.shape[0], self.theta_init_)
        if self._prototype:
            arrays = self._voted.prototype_arrays(self._current_vote)
            scores = voted_prototype_scores
        else:
            arrays = self._voted.binary_arrays(self._current_vote)
            scores = voted_binary_scores
        return scores(fill, X, n_support, arrays, float(self.eta),
                      float(self.threshold_step_), theta_start)
