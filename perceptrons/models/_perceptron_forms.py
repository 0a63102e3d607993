"""The two forms of Khardon & Wachman's Figure 2: primal and dual storage.

:class:`~perceptrons.Perceptron` runs one algorithm, Figure 2, with its
weight vectors kept in one of two forms, chosen once from its ``kernel``
parameter (:attr:`Perceptron._form`):

* :class:`PrimalForm` (``kernel=None``): w itself, ``(n_rows,
  n_features)`` arrays updated by the primal loops of
  :mod:`perceptrons._loops.perceptron` and ``.multiclass``;
* :class:`DualForm` (a kernel name): coefficients over support vectors
  (Sec. 2.1), updated by the dual loops of
  :mod:`perceptrons._loops.perceptron_dual` with kernel values from
  :mod:`perceptrons._loops.support`.

A form holds no state of its own: it is a set of functions of the estimator
(``est``) and the call's :class:`~perceptrons.models._base.TrainingCall`,
and lists in ``model_state`` the attributes it adds to the model. The
thresholds, hypotheses and vote logs, which do not depend on how w is
stored, are :class:`~perceptrons.models._family.ThresholdFamilyBase`'s.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.extmath import safe_sparse_dot

from .._loops.mercer import KERNEL_LINEAR
from .._loops.multiclass import prototype_perceptron_epoch
from .._loops.perceptron import threshold_perceptron_epoch
from .._loops.perceptron_dual import (
    dual_prototype_perceptron_epoch,
    dual_threshold_perceptron_epoch,
)
from ._kernel import linear_coef

__all__ = ["DualForm", "PrimalForm"]


class PrimalForm:
    """w kept as weight vectors, one row per problem or prototype."""

    #: What the form adds to the model (``_model_state``).
    model_state = ("coef_", "_weights", "_weights_avg_acc", "_weights_ls",
                   "_support_X", "_n_support")
    #: What "auto" averages, and the way out when the average overflows.
    auto_average_name = "squared norm"
    auto_remedy = "scale the input"

    def needs_row_sq_norms(self, est):
        # Only the λ-trick reads ‖x_i‖² per row.
        return est.lam != 0

    def auto_average(self, est, call):
        """The average ``<x_i, x_i>`` (from column sums: the same bits for
        dense and CSR input)."""
        return call.mean_sq_norm

    def allocate(self, est, call, n_classes):
        n_rows = est._allocate_family_state(call, n_classes)
        (est._weights, est._weights_avg_acc,
         est._weights_ls) = est._zero_weights(n_rows, call.X.shape[1])
        if est.hypothesis == "voted":
            est._voted = est._new_voted_log()
            est._support_X = None
            est._n_support = 0

    def begin_call(self, est, call):
        pass

    def set_initial(self, est, coef, intercept):
        if est.hypothesis == "voted":
            raise ValueError("coef_init/intercept_init cannot start a voted "
                             "perceptron: its vote replays every hypothesis "
                             "from w = 0")
        # The initial hypothesis is also the first longest survivor.
        if coef is not None:
            est._weights[:] = coef
            if est._weights_ls.shape[1]:
                est._weights_ls[:] = coef
        if intercept is not None:
            est._theta[:] = -intercept
            est._theta_ls[:] = -intercept

    def run_epoch(self, est, call, targets, order):
        head = (*call.loop_arrays, targets, order, call.sq_norms,
                est._weights, est._theta)
        return est._run_family_epoch(
            call, threshold_perceptron_epoch, prototype_perceptron_epoch,
            head, est._weights_avg_acc, est._weights_ls)

    def state_is_finite(self, est, call):
        return bool(np.isfinite(est._weights).all()
                    and np.isfinite(est._theta).all())

    def end_call(self, est, call, targets):
        if est.hypothesis == "voted":
            self._store_voted(est, call, targets)
        est.coef_, est.intercept_ = est._final_hypothesis(
            est._weights, est._weights_avg_acc, est._weights_ls, copy=True)

    def _store_voted(self, est, call, targets):
        """Keep the rows that caused updates as support vectors."""
        rows = [log[0] for epoch in call.epoch_logs for log in epoch]
        used = np.unique(np.concatenate(rows)) if rows else np.zeros(0, int)
        offset = est._n_support
        if used.shape[0]:
            blocks = [call.X[used]]
            if est._support_X is not None:
                blocks.insert(0, est._support_X)
            est._n_support += used.shape[0]
            est._support_X = (sp.vstack(blocks, format="csr")
                              if sp.issparse(call.X) else np.vstack(blocks))
        est._extend_voted(call, used, offset, targets)

    def hypothesis_scores(self, est, X):
        scores = safe_sparse_dot(X, est.coef_.T, dense_output=True)
        scores += est.intercept_
        return scores

    def voted_support(self, est):
        def gram(block):
            return safe_sparse_dot(block, est._support_X.T, dense_output=True)

        return est._n_support, gram


class DualForm:
    """w kept as coefficients over support vectors, in a kernel's space.

    The pool holds every row that caused an update in an earlier call, with
    its raw, accumulated and longest-survivor coefficients; a call's new
    support vectors join it when the call ends.
    """

    model_state = ("gamma_", "_kernel_code", "support_", "support_vectors_",
                   "dual_coef_", "_support_sq", "_pool_X", "_pool_sq",
                   "_pool_index", "_pool_coef", "_pool_acc", "_pool_ls",
                   "_n_rows_seen")
    auto_average_name = "k(x, x)"
    auto_remedy = "scale the input or lower degree/gamma"

    def needs_row_sq_norms(self, est):
        # Every kernel value k(x, z) starts from ‖x‖² and ‖z‖².
        return True

    def auto_average(self, est, call):
        """The average ``k(x_i, x_i)``."""
        # For the linear kernel, the average <x_i, x_i> itself: bit for bit
        # the primal form's.
        if est._kernel_code == KERNEL_LINEAR:
            return call.mean_sq_norm
        return float(np.mean(est._kernel_diag(call.sq_norms)))

    def allocate(self, est, call, n_classes):
        # The kernel is resolved first: "auto" averages k(x, x).
        est._resolve_kernel(call.X.shape[1])
        n_rows = est._allocate_family_state(call, n_classes)
        est._pool_X = None
        est._pool_sq = np.zeros(0)
        est._pool_index = np.zeros(0, dtype=np.int64)
        est._pool_coef = np.zeros((n_rows, 0))
        est._pool_acc = np.zeros((n_rows, 0))
        est._pool_ls = np.zeros((n_rows, 0))
        est._n_rows_seen = 0
        if est.hypothesis == "voted":
            est._voted = est._new_voted_log()

    def begin_call(self, est, call):
        dual = est._new_kernel_call(call.X, call.sq_norms, call.n_passes)
        # One column per row of this call: a support vector's slot.
        dual.coef, dual.coef_avg_acc, dual.coef_ls = est._zero_weights(
            est._theta.shape[0], call.X.shape[0])
        dual.base_scores = self._pool_scores(est, call.X)
        dual.best_tally_start = est._best_tally.copy()
        call.dual = dual

    def _pool_scores(self, est, X):
        """Score contributions of the earlier calls' support vectors."""
        if est._pool_index.shape[0] == 0:
            # No rows: the loops read no fixed contribution.
            return np.zeros((0, est._theta.shape[0]))
        return est._support_scores(X, est._pool_X, est._pool_sq,
                                   est._pool_coef)

    def set_initial(self, est, coef, intercept):
        raise ValueError("coef_init/intercept_init start a primal weight "
                         "vector; with a kernel the weights are dual "
                         "coefficients (set kernel=None)")

    def run_epoch(self, est, call, targets, order):
        dual = call.dual
        head = (*dual.loop_args, targets, order, dual.base_scores, dual.coef,
                est._theta)
        return est._run_family_epoch(
            call, dual_threshold_perceptron_epoch,
            dual_prototype_perceptron_epoch, head, dual.coef_avg_acc,
            dual.coef_ls)

    def state_is_finite(self, est, call):
        dual = call.dual
        return bool(np.isfinite(dual.coef[:, :dual.support_size]).all()
                    and np.isfinite(est._theta).all())

    def end_call(self, est, call, targets):
        X, dual = call.X, call.dual
        m = dual.support_size
        slots = dual.support[:m]
        perm = np.argsort(slots, kind="stable")
        used = slots[perm]  # this call's new support vectors, by row index
        n_old = est._pool_index.shape[0]
        if est.hypothesis == "longest" and n_old:
            # A snapshot retaken during this call holds the old support
            # vectors' coefficients as they were (fixed during the call).
            renewed = est._best_tally > dual.best_tally_start
            if est._prototype:
                rows = np.arange(est._theta.shape[0] if renewed[0] else 0)
            else:
                rows = np.flatnonzero(renewed)
            est._pool_ls[rows] = est._pool_coef[rows]
        if m:
            new_X = X[used]
            if est._pool_X is None:
                est._pool_X = new_X
            elif sp.issparse(new_X):
                est._pool_X = sp.vstack([est._pool_X, new_X], format="csr")
            else:
                est._pool_X = np.vstack([est._pool_X, new_X])
            est._pool_sq = np.concatenate([est._pool_sq, dual.sq_norms[used]])
            est._pool_index = np.concatenate(
                [est._pool_index, est._n_rows_seen + used])
            est._pool_coef = np.hstack([est._pool_coef,
                                        dual.coef[:, :m][:, perm]])
            if est.hypothesis == "averaged":
                est._pool_acc = np.hstack(
                    [est._pool_acc, dual.coef_avg_acc[:, :m][:, perm]])
            if est.hypothesis == "longest":
                est._pool_ls = np.hstack([est._pool_ls,
                                          dual.coef_ls[:, :m][:, perm]])
        if est.hypothesis == "voted":
            # Pool slots n_old, n_old + 1, ... hold the rows of used.
            est._extend_voted(call, used, n_old, targets)
        est._n_rows_seen += X.shape[0]
        self._set_public(est)

    def _set_public(self, est):
        coef, est.intercept_ = est._final_hypothesis(
            est._pool_coef, est._pool_acc, est._pool_ls)
        if est.hypothesis == "voted":
            keep = np.ones(coef.shape[1], dtype=bool)
        else:
            keep = np.any(coef != 0.0, axis=0)
        est.support_ = est._pool_index[keep]
        est.dual_coef_ = np.ascontiguousarray(coef[:, keep])
        est._support_sq = est._pool_sq[keep]
        if est._pool_X is None:
            est.support_vectors_ = np.zeros((0, est.n_features_in_))
        elif keep.all():
            est.support_vectors_ = est._pool_X
        else:
            est.support_vectors_ = est._pool_X[np.flatnonzero(keep)]
        if est.kernel == "linear":
            # The primal weights the coefficients stand for.
            est.coef_ = linear_coef(est.dual_coef_, est.support_vectors_)

    def hypothesis_scores(self, est, X):
        scores = est._support_scores(X, est.support_vectors_,
                                     est._support_sq, est.dual_coef_)
        scores += est.intercept_
        return scores

    def voted_support(self, est):
        # The vote replays updates against every pool row, zero or not.
        def gram(block):
            return est._gram_block(block, est._pool_X, est._pool_sq)

        return est._pool_index.shape[0], gram


PRIMAL = PrimalForm()
DUAL = DualForm()
