"""One set of weight rows, returned as the last or the averaged hypothesis.

The Ballseptron and the Passive-Aggressive algorithms keep their model as
weight rows in either storage (:mod:`perceptrons.models._weights`: vectors
over the features, or coefficients over support vectors with a kernel), run
it online, and return either the last rows or their average over every
training step (``hypothesis="last"`` or ``"averaged"``), the running sum
kept in the storage's ``summed`` from the first call on.
:class:`LastOrAveragedMixin` holds what such an estimator does with its
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
from ._kernel import linear_coef
from ._weights import DualWeights, WeightRows

__all__ = ["LastOrAveragedMixin"]


class LastOrAveragedMixin:
    """Weight rows returned as the last or the averaged hypothesis.

    See the module notes; for a :class:`~perceptrons.models._kernel.KernelMixin`
    estimator with a ``hypothesis`` parameter.
    """

    def _final_after_quiet_pass(self):
        # A pass without an update leaves the last rows as they are, for
        # ever; the average goes on counting.
        return self.hypothesis == "last"

    def _new_weights(self, X, n_rows):
        """Zero rows for ``X``: primal without a kernel, else an empty
        support set; the running sum kept when ``hypothesis="averaged"``."""
        if self.kernel is None:
            return WeightRows.zeros(n_rows, X.shape[1],
                                    summed=self.hypothesis == "averaged")
        return DualWeights.empty(self._kernel_spec(X.shape[1]), n_rows,
                                 X.shape[1], sp.issparse(X))

    def _initial_rows(self):
        """The primal rows ``coef_init`` starts.

        Raises
        ------
        ValueError
            In the kernel form.
        """
        weights = self.state_.weights
        if not isinstance(weights, WeightRows):
            raise ValueError("coef_init/intercept_init start a primal weight "
                             "vector; with a kernel the weights are dual "
                             "coefficients (set kernel=None)")
        return weights

    def _call_averaged(self):
        """Whether this call keeps the running sum, checked against
        ``hypothesis`` (it may have been changed by ``set_params`` between
        ``partial_fit`` calls)."""
        if self.hypothesis == "averaged" and not self.state_.averaged:
            raise ValueError(
                "hypothesis='averaged' needs the running sum of every step "
                "since the first call, which was made with hypothesis="
                "'last'; call fit (or start partial_fit afresh)")
        return self.hypothesis == "averaged"

    def _without_running_sums(self, state):
        """The state with its running sums dropped (a "last" call leaves
        them behind)."""
        w = state.weights
        return state.replace(averaged=False, weights=w.replace(
            summed=np.zeros((w.current.shape[0], 0))))

    def _begin_rows_call(self, call):
        """Start a call: ``call.averaged``, the running sums dropped by a
        "last" call (so that a later switch back to "averaged" is refused,
        not silently wrong), and the weights' per-call state.

        Returns
        -------
        state : State
            ``state_`` as the call starts.
        """
        refuse_underflow(call.loop_arrays[0], call.mean_sq_norm)
        call.averaged = self._call_averaged()
        if self.state_.averaged and not call.averaged:
            self.state_ = self._without_running_sums(self.state_)
        call.keep_summed, call.keep_snapshot = call.averaged, False
        self.state_.weights.begin_call(self._new_kernel_call, call)
        return self.state_

    def _rows_are_finite(self, call):
        """Whether the rows and their running sum are finite."""
        w = self.state_.weights
        if isinstance(w, DualWeights):
            kc = call.dual
            m = kc.support_size
            return bool(np.isfinite(kc.current[:, :m]).all()
                        and np.isfinite(kc.summed[:, :m]).all())
        return bool(np.isfinite(w.current).all()
                    and np.isfinite(w.summed).all())

    def _rows_after_call(self, state, call):
        """``state`` with the weights after the call: in the kernel form the
        support vectors with a non-zero coefficient in the rows or (averaged)
        in their running sum."""
        w = state.weights
        if isinstance(w, WeightRows):
            return state
        return state.replace(weights=w.end_call(call, w.nonzero_slots(call)))

    def _public_rows(self, weights):
        """The public attributes of the returned rows ``weights`` (by feature
        or by support slot): ``coef_``, or ``support_``,
        ``support_vectors_``, ``dual_coef_``, ``gamma_`` (and ``coef_`` for
        the linear kernel)."""
        w = self.state_.weights
        if isinstance(w, WeightRows):
            return {"coef_": weights}
        public = {"support_": w.pool.index.copy(),
                  "support_vectors_": w.pool.X, "dual_coef_": weights,
                  "gamma_": w.kernel.gamma}
        if w.kernel.code == KERNEL_LINEAR:
            public["coef_"] = linear_coef(weights, w.pool.X)
        return public

    def _rows_decision(self, X):
        """``X`` scored by the returned rows (no intercept)."""
        w = self.state_.weights
        if isinstance(w, WeightRows):
            return w.scores(X, self.coef_)
        return w.kernel.scores(X, w.pool.X, self.dual_coef_,
                               w.pool.sq_norms())

    def _mixing_refusal(self):
        if self.kernel is not None:
            return (f"with kernel={self.kernel!r} the model is coefficients "
                    "over each shard's own support vectors, not a weight "
                    "vector the shards share")
        return None
