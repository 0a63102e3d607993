"""One set of weight rows, returned as the last or the averaged hypothesis.

The Ballseptron and the Passive-Aggressive algorithms keep their model as
weight rows in either storage (:mod:`perceptrons.models._weights`: vectors
over the features, or coefficients over support vectors with a kernel), run
it online, and return either the last rows or their average over every
training step (``hypothesis="last"`` or ``"averaged"``), the running sum
kept in the storage's ``summed`` from the first call on.
:class:`LastOrAveragedRows` holds what such an algorithm does with its
rows whatever its rule: allocate them, start them from ``coef_init``, start
and end a call, check they stay finite, publish them, refuse parameter
mixing of the kernel form. Its state has the fields ``averaged`` (whether
``weights.summed`` holds the running sum since the first call) and
``weights``.
"""

import numpy as np
import scipy.sparse as sp

from .._loops.mercer import KERNEL_LINEAR
from ..utils.validation import refuse_underflow
from ._budget import BudgetAlgorithm
from ._kernel import linear_coef
from ._weights import DualWeights, WeightRows

__all__ = ["LastOrAveragedRows"]


class LastOrAveragedRows(BudgetAlgorithm):
    """Weight rows returned as the last or the averaged hypothesis.

    See the module notes; for a
    :class:`~perceptrons.models._kernel.KernelAlgorithm` algorithm with a
    ``hypothesis`` parameter.
    """

    def final_after_quiet_pass(self):
        # A pass without an update leaves the last rows as they are, for
        # ever; the average goes on counting.
        return self.hypothesis == "last"

    def new_weights(self, X, n_rows, shared=False):
        """Zero rows for ``X``: primal without a kernel, else an empty
        support set (under the parameters' budget: one group per row, or
        one for all with ``shared``); the running sum kept when
        ``hypothesis="averaged"``."""
        budget = self.new_budget(n_rows, shared)
        if self.kernel is None:
            return WeightRows.zeros(n_rows, X.shape[1],
                                    summed=self.hypothesis == "averaged")
        return DualWeights.empty(self.kernel_spec(X.shape[1]), n_rows,
                                 X.shape[1], sp.issparse(X), budget)


    @staticmethod
    def initial_rows(state):
        """The primal rows ``coef_init`` starts.

        Raises
        ------
        ValueError
            In the kernel form.
        """
        weights = state.weights
        if not isinstance(weights, WeightRows):
            raise ValueError("coef_init/intercept_init start a primal weight "
                             "vector; with a kernel the weights are dual "
                             "coefficients (set kernel=None)")
        return weights

    def _call_averaged(self, state):
        """Whether this call keeps the running sum, checked against
        ``hypothesis`` (it may have been changed by ``set_params`` between
        ``partial_fit`` calls)."""
        if self.hypothesis == "averaged" and not state.averaged:
            raise ValueError(
                "hypothesis='averaged' needs the running sum of every step "
                "since the first call, which was made with hypothesis="
                "'last'; call fit (or start partial_fit afresh)")
        return self.hypothesis == "averaged"

    def without_running_sums(self, state):
        """The state with its running sums dropped (a "last" call leaves
        them behind): the rows' and, where the state keeps one, the
        intercept's accumulator (``intercept_acc``)."""
        w = state.weights
        changes = {"averaged": False, "weights": w.replace(
            summed=np.zeros((w.current.shape[0], 0)))}
        if "intercept_acc" in vars(state):
            changes["intercept_acc"] = np.zeros_like(state.intercept_acc)
        return state.replace(**changes)

    def begin_rows_call(self, call, track_norms=False, budget_bias=None):
        """Start a call: ``call.keep_summed`` (whether the call keeps the
        running sum), the running sums dropped by a "last" call (so that a
        later switch back to "averaged" is refused, not silently wrong),
        and the weights' per-call state.

        Returns
        -------
        state : State
            ``call.state`` as the call starts.
        """
        refuse_underflow(call.loop_arrays[0], call.mean_sq_norm)
        averaged = self._call_averaged(call.state)
        if call.state.averaged and not averaged:
            call.state = self.without_running_sums(call.state)
        call.keep_summed, call.keep_snapshot = averaged, False
        if isinstance(call.state.weights, DualWeights):
            call.state.weights.begin_call(self.new_kernel_call, call,
                                          track_norms=track_norms,
                                          budget_bias=budget_bias)
        else:
            call.state.weights.begin_call(self.new_kernel_call, call)
        return call.state

    @staticmethod
    def final_rows(state):
        """Weights (by feature or support slot) and intercepts of the
        returned hypothesis, new arrays, for a state whose running sums are
        the accumulators ``A = Σ_s (s-1) Δ_s`` of the changes Δ_s of its
        rows (``weights.summed``) and of its ``intercept``
        (``intercept_acc``): the average of the T hypotheses after each
        step is ``w_T - A / T``."""
        w = state.weights
        if state.averaged:
            return (w.current - w.summed / state.t,
                    state.intercept - state.intercept_acc / state.t)
        return w.current.copy(), state.intercept.copy()

    @staticmethod
    def rows_are_finite(call):
        """Whether the rows and their running sum are finite."""
        w = call.state.weights
        if isinstance(w, DualWeights):
            kc = call.dual
            m = kc.support_size
            return bool(np.isfinite(kc.current[:, :m]).all()
                        and np.isfinite(kc.summed[:, :m]).all())
        return bool(np.isfinite(w.current).all()
                    and np.isfinite(w.summed).all())

    @staticmethod
    def rows_after_call(state, call):
        """``state`` with the weights after the call: in the kernel form the
        support vectors with a non-zero coefficient in the rows or (averaged)
        in their running sum."""
        w = state.weights
        if isinstance(w, WeightRows):
            return state
        return state.replace(weights=w.end_call(call, w.nonzero_slots(call)))

    @staticmethod
    def public_rows(state, weights):
        """The public attributes of the returned rows ``weights`` (by feature
        or by support slot): ``coef_``, or ``support_``,
        ``support_vectors_``, ``dual_coef_``, ``gamma_`` (and ``coef_`` for
        the linear kernel)."""
        w = state.weights
        if isinstance(w, WeightRows):
            return {"coef_": weights}
        public = {"support_": w.support_index(),
                  "support_vectors_": w.pool.X, "dual_coef_": weights,
                  "gamma_": w.kernel.gamma}
        if w.kernel.code == KERNEL_LINEAR:
            public["coef_"] = linear_coef(weights, w.pool.X)
        return public

    @staticmethod
    def rows_decision(state, view, X):
        """``X`` scored by the returned rows (no intercept)."""
        w = state.weights
        if isinstance(w, WeightRows):
            return w.scores(X, view["coef_"])
        return w.scores(X, view["dual_coef_"])

    def mixing_refusal(self):
        return self.kernel_mixing_refusal()
