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
from .._loops.voted import csr_gram_t
from ._kernel import linear_coef
from ._voted import _BLOCK_ROWS, gram_t_from

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
        head = (*call.loop_arrays, _compact_targets(call, targets), order,
                not _looks_in_order(order), call.sq_norms, est._weights,
                est._theta)
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

    def voted_support(self, est, X):
        S = est._support_X
        if S is None:
            return 0, None
        if not (sp.issparse(X) and sp.issparse(S)):
            # BLAS may round a product differently for another block
            # shape: blocks of _BLOCK_ROWS rows, the same on every call.
            return est._n_support, gram_t_from(
                lambda block: safe_sparse_dot(block, S.T, dense_output=True),
                _BLOCK_ROWS)
        # scikit-learn's sparse product wants S.T as CSR: convert it once,
        # not once per block.
        ST = S.T.tocsr()
        if (X.has_canonical_format
                and _dense_block_is_cheaper(X, S, ST)):
            return est._n_support, _csr_gram_t_fill(S)
        return est._n_support, gram_t_from(
            lambda block: safe_sparse_dot(block, ST, dense_output=True))


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

    def voted_support(self, est, X):
        # The vote replays updates against every pool row, zero or not.
        return est._pool_index.shape[0], gram_t_from(
            lambda block: est._gram_block(block, est._pool_X, est._pool_sq),
            _BLOCK_ROWS)


def _looks_in_order(order):
    """Whether ``order`` presents the rows in their order, judged from nine
    probes: it only decides whether the loops prefetch, never a result."""
    n = order.shape[0]
    probes = np.linspace(0, n - 1, 9).astype(np.int64) if n else order
    return bool(np.array_equal(order[probes], probes))


def _compact_targets(call, targets):
    """The class indices as the smallest integer type that holds them, made
    once per call.

    A shuffled pass reads ``targets[i]`` at a random row: as int8 a
    4.9-million-row set's labels take 4.9 MB, which stay in the last-level
    cache, instead of 39 MB, each read a cache miss. The values, hence the
    results, are the same.
    """
    cached = getattr(call, "compact_targets", None)
    if cached is None or cached[0] is not targets:
        n_classes = int(targets.max(initial=0)) + 1
        cached = call.compact_targets = (
            targets, targets.astype(np.min_scalar_type(-n_classes)))
    return cached[1]


def _dense_block_is_cheaper(X, S, ST):
    """Whether :func:`~perceptrons._loops.voted.csr_gram_t` beats the
    sparse product for the Gram blocks of CSR test rows X and support
    vectors S.

    The sparse product costs one scattered multiply-add per pair of
    nonzeros in the same column (``Σ_j nnz_j(X) nnz_j(S)``); the dense block
    one in-register multiply-add per nonzero of S and test row
    (``n_samples · nnz(S)``), about ``_DENSE_BLOCK_SPEEDUP`` times cheaper
    each. On a9a's 16,281 test rows and 18,082 support vectors the dense
    block makes 2.2 times as many multiply-adds (4.1e9 against 1.9e9) and
    the whole prediction is 2.2 times faster; on real-sim-shaped rows
    (20,958 columns) the sparse product makes far fewer and wins.
    """
    per_column = np.bincount(X.indices, minlength=X.shape[1]).astype(
        np.float64)
    sparse_cost = float(per_column @ np.diff(ST.indptr).astype(np.float64))
    dense_cost = float(X.shape[0]) * S.nnz
    return dense_cost <= _DENSE_BLOCK_SPEEDUP * sparse_cost


#: Cost of a scattered multiply-add of the sparse product over one of the
#: dense block's (measured on a9a; see :func:`_dense_block_is_cheaper`).
_DENSE_BLOCK_SPEEDUP = 4.0


def _csr_gram_t_fill(S):
    """A ``fill`` for CSR test rows (canonical) and CSR support vectors S,
    with :func:`~perceptrons._loops.voted.csr_gram_t`."""
    work = {}

    def fill(X, lo, hi, GT):
        XT = work.get("XT")
        if XT is None or XT.shape[1] != GT.shape[1]:
            XT = work["XT"] = np.zeros((X.shape[1], GT.shape[1]))
        csr_gram_t(X.data, X.indices, X.indptr, lo, hi, S.data, S.indices,
                   S.indptr, XT, GT)

    return fill


PRIMAL = PrimalForm()
DUAL = DualForm()
