"""Weights in either storage: the state of the primal and dual forms.

The Perceptron family and the Ballseptron keep the same three arrays of
weights whatever the form (:mod:`perceptrons._loops.storage`): the current
weight rows, a running sum for an averaged hypothesis and a snapshot for a
longest survivor. :class:`WeightRows` keeps them over the features (the
primal form), :class:`DualWeights` over the rows of a support-vector pool
with a Mercer kernel (the dual form). An estimator picks one when it
allocates its state (the primal form without a kernel, the dual form with
one) and from then on asks it, whatever it is, for the store of a call's
passes, for scores and for the state after a call: the choice is made once.
"""

import dataclasses

import numpy as np

from .._loops.storage import BudgetStore, DualStore, PrimalStore
from ..utils.validation import linear_scores
from ._budget import (BudgetState, loop_budget, needs_spare_rows,
                      state_after_call)
from ._kernel import KernelSpec, linear_coef
from ._features import padded
from ._state import State, array, sub
from ._support import PoolInFront, SupportPool

__all__ = ["DualWeights", "WeightRows", "check_kept_sum", "looks_in_order"]


def looks_in_order(order):
    """Whether ``order`` presents the rows in their order, judged from nine
    probes: it only decides whether the loops prefetch, never a result."""
    n = order.shape[0]
    probes = np.arange(9) * (n - 1) // 8 if n else order
    return bool(np.array_equal(order[probes], probes))


def check_kept_sum(weights, averaged, where):
    """ValueError unless ``weights`` keep the running sum exactly when the
    state says it is averaged (weights with no column yet say nothing)."""
    if weights.n_columns and averaged != (weights.summed.shape[1] > 0):
        raise ValueError(f"{where}.weights.summed does not match "
                         f"averaged={averaged}")


def _kept_widths(state, where, width):
    for name in ("summed", "snapshot"):
        n = getattr(state, name).shape[1]
        if n not in (0, width):
            raise ValueError(f"{where}.{name} has {n} columns: 0 (not kept) "
                             f"or {width}")


@dataclasses.dataclass(frozen=True)
class WeightRows(State):
    """Weight rows over the features (the primal form).

    Binds ``n_rows``.

    Attributes
    ----------
    current : ndarray of shape (n_rows, n_features)
        The weights w.
    summed : ndarray of shape (n_rows, n_features) or (n_rows, 0)
        The running sum of an averaged hypothesis (its meaning is the
        algorithm's), or no columns when not kept.
    snapshot : ndarray of shape (n_rows, n_features) or (n_rows, 0)
        A longest survivor's weights, or no columns when not kept.
    """

    current: np.ndarray = array("float", ("n_rows", "n_features"))
    summed: np.ndarray = array("float", ("n_rows", None))
    snapshot: np.ndarray = array("float", ("n_rows", None))

    @classmethod
    def zeros(cls, n_rows, n_features, summed=False, snapshot=False):
        """Zero weights; ``summed``/``snapshot``: whether to keep them."""
        return cls(np.zeros((n_rows, n_features)),
                   np.zeros((n_rows, n_features if summed else 0)),
                   np.zeros((n_rows, n_features if snapshot else 0)))

    def check(self, sizes, where):
        _kept_widths(self, where, sizes["n_features"])

    def grown_features(self, n_new, n_features):
        """The rows with ``n_new`` zero features appended (the sum and the
        snapshot too, where kept): :mod:`perceptrons.models._features`."""
        def grown(a):
            return padded(a, [1], n_new) if a.shape[1] == n_features else a
        return type(self)(grown(self.current), grown(self.summed),
                          grown(self.snapshot))

    def begin_call(self, new_kernel_call, call):
        """Nothing: the primal loops read the call's rows directly."""

    def store(self, call, order):
        """The loops' :data:`~perceptrons._loops.storage.PrimalStore`."""
        return self.store_of(call.loop_arrays, call.sq_norms,
                             not looks_in_order(order))

    def store_of(self, loop_arrays, sq_norms, prefetch):
        """The :data:`~perceptrons._loops.storage.PrimalStore` of rows
        (``loop_arrays``, their ``<x, x>``), prefetching or not."""
        return PrimalStore(*loop_arrays, sq_norms, prefetch, self.current,
                           self.summed, self.snapshot)

    def padded(self, call, targets, order):
        """The call's targets and order as the loops index them."""
        return targets, order

    def padded_weights(self, call):
        """The call's row weights as the loops index them."""
        return call.weights

    def end_call(self, call):
        """The weights after the call (updated in place: themselves)."""
        return self

    def is_finite(self, call):
        """Whether the current weights are finite."""
        return bool(np.isfinite(self.current).all())

    def scores(self, X, weights):
        """``<w_r, x>`` for every row of X and row of ``weights``."""
        return linear_scores(X, weights)

    def primal(self, weights):
        """The primal weights ``weights`` stand for: themselves."""
        return weights

    @property
    def n_columns(self):
        """Columns of the weight arrays: the features."""
        return self.current.shape[1]


@dataclasses.dataclass(frozen=True)
class DualWeights(PoolInFront, State):
    """Coefficients over a support-vector pool (the dual form).

    Binds ``n_rows`` and ``n_pool``.

    Attributes
    ----------
    kernel : KernelSpec
    pool : SupportPool
    current, summed, snapshot : ndarray of shape (n_rows, n_pool)
        As :class:`WeightRows`, by pool slot (``summed``, ``snapshot``: or no
        columns when not kept).
    budget : BudgetState or None
        The pool's budget (:mod:`perceptrons.models._budget`), if it keeps
        one.
    """

    #: 2: ``budget`` added (a file of version 1 holds a pool without one).
    VERSION = 2
    UPGRADES = {1: {"budget": None}}

    kernel: KernelSpec = sub(KernelSpec)
    pool: SupportPool = sub(SupportPool)
    current: np.ndarray = array("float", ("n_rows", "n_pool"))
    summed: np.ndarray = array("float", ("n_rows", None))
    snapshot: np.ndarray = array("float", ("n_rows", None))
    budget: BudgetState = sub(BudgetState, optional=True)

    @classmethod
    def empty(cls, kernel, n_rows, n_features, sparse, budget=None):
        """No support vectors yet (``budget``: a :class:`BudgetState` with
        no members, or None)."""
        return cls(kernel, SupportPool.empty(n_features, sparse),
                   np.zeros((n_rows, 0)), np.zeros((n_rows, 0)),
                   np.zeros((n_rows, 0)), budget)

    def check(self, sizes, where):
        _kept_widths(self, where, sizes["n_pool"])
        if self.budget is not None and self.snapshot.shape[1]:
            raise ValueError(f"{where}: a budgeted pool keeps no snapshot")

    def begin_call(self, new_kernel_call, call, normalized=False,
                   track_norms=False, prepare=None, budget_bias=None):
        """Start the call's support set with the pool in front of its rows
        (:class:`~perceptrons.models._support.KernelCall`), and its
        coefficient arrays with the pool's coefficients in front;
        ``summed`` and ``snapshot`` get columns when ``call.keep_summed``
        and ``call.keep_snapshot`` ask for them (the algorithm's choice).
        ``new_kernel_call`` makes the call's kernel state
        (:meth:`~perceptrons.models._kernel.KernelAlgorithm.new_kernel_call`),
        ``prepare(kc)`` (optional) adjusts it before the budget reads any
        kernel value (ALMA's norms); ``track_norms``: the loop keeps
        ``‖w‖²``, so a budget keeps what it needs to follow it;
        ``budget_bias(kc)`` (optional) gives the budget the rows' bias
        coordinates and the thresholds that follow the coefficients
        (:func:`~perceptrons.models._budget.loop_budget`'s ``bias``).
        """
        rows, sq = self.pool.in_front_of(call.X, call.sq_norms)
        n_rows = self.current.shape[0]
        kc = new_kernel_call(self.kernel, rows, sq, call.n_passes,
                             self.pool.size, normalized,
                             needs_spare_rows(self.budget, n_rows))
        if prepare is not None:
            prepare(kc)
        n = kc.X.shape[0]

        def grown(array, keep):
            out = np.zeros((n_rows, n if keep else 0))
            out[:, :array.shape[1]] = array
            return out

        kc.current = grown(self.current, True)
        kc.summed = grown(self.summed, call.keep_summed)
        kc.snapshot = grown(self.snapshot, call.keep_snapshot)
        kc.budget = (None if self.budget is None else loop_budget(
            self.budget, kc, n_rows, track_norms,
            None if budget_bias is None else budget_bias(kc)))
        if kc.budget is not None:
            kc.loop_args = _writeable_rows(*kc.loop_args)
        call.dual = kc

    def store(self, call, order):
        """The loops' :data:`~perceptrons._loops.storage.DualStore`, or
        :data:`~perceptrons._loops.storage.BudgetStore` under a budget."""
        kc = call.dual
        if kc.budget is not None:
            return BudgetStore(*kc.loop_args, kc.current, kc.summed,
                               kc.snapshot, kc.budget)
        return DualStore(*kc.loop_args, kc.current, kc.summed, kc.snapshot)

    def nonzero_slots(self, call):
        """The call's support slots with a non-zero coefficient in the
        current rows or, when the call keeps it, in their running sum (the
        ``keep`` of :meth:`end_call` for a model of the last or averaged
        rows)."""
        kc = call.dual
        m = kc.support_size
        keep = np.any(kc.current[:, :m] != 0.0, axis=0)
        if kc.summed.shape[1]:
            keep |= np.any(kc.summed[:, :m] != 0.0, axis=0)
        return keep

    def end_call(self, call, keep=None):
        """The weights after the call.

        Parameters
        ----------
        call : TrainingCall
        keep : ndarray of bool, optional
            Which support slots to keep (default: all); the kept ones are
            ordered by row (the pool's first, then the call's by row index).

        Returns
        -------
        DualWeights
        """
        kc = call.dual
        m = kc.support_size
        order = kc.by_row()
        if kc.budget is not None:
            # The budget's members, every one (a zero coefficient too):
            # the slots it freed leave.
            keep = kc.live_slots()
        if keep is not None:
            order = order[keep[order]]
        call.slot_of_row = np.full(kc.X.shape[0], -1, dtype=np.int64)
        call.slot_of_row[kc.slots()[order]] = np.arange(order.shape[0])

        def kept(array):
            return (np.ascontiguousarray(array[:, :m][:, order])
                    if array.shape[1] else np.zeros((array.shape[0], 0)))

        pool = self.pool.kept(kc.X, kc.slots()[order],
                              call.X.shape[0], kc.n_spare)
        budget = (None if kc.budget is None else state_after_call(
            self.budget, kc.budget, kc, order, self.budget.merged))
        return DualWeights(self.kernel, pool, kept(kc.current),
                           kept(kc.summed), kept(kc.snapshot), budget)

    def support_index(self):
        """``support_``: each pool row's number among the rows presented,
        -1 for a vector made by merging."""
        index = self.pool.index.copy()
        if self.budget is not None:
            index[self.budget.merged] = -1
        return index

    def is_finite(self, call):
        """Whether the call's current coefficients are finite."""
        kc = call.dual
        return bool(np.isfinite(kc.current[:, :kc.support_size]).all())

    def scores(self, X, weights):
        """``Σ_j weights[r, j] k(x, s_j)`` for every row of X."""
        return self.kernel.scores(X, self.pool.X, weights,
                                  self.pool.sq_norms(), self.pool.index)

    def pool_diag(self):
        """``k(s_j, s_j)`` of every pool row
        (:meth:`~perceptrons.models._support.SupportPool.kernel_diag`)."""
        return self.pool.kernel_diag(self.kernel)

    def primal(self, weights):
        """The primal weights of the linear kernel (None for others)."""
        if self.kernel.name != "linear":
            return None
        return linear_coef(weights, self.pool.X)

    @property
    def n_columns(self):
        """Columns of the weight arrays: the pool's rows."""
        return self.current.shape[1]


def _writeable_rows(provider, support):
    """A budget's loop is compiled with its merging step, which writes a
    merged vector into the rows (spare rows only, so never the user's): a
    read-only X (a memmap) is copied, as numba types a write into it as an
    error whatever the policy."""
    rows = getattr(provider, "rows", None)
    if rows is not None and not rows.X_data.flags.writeable:
        provider = provider._replace(
            rows=rows._replace(X_data=rows.X_data.copy()))
    return provider, support

