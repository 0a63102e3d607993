"""The support-vector pool of the dual (kernel) models and its per-call form.

Every dual model of the package (the kernel Perceptron, the kernel
Ballseptron, the dual Higher- and Second-order Perceptrons) keeps its weights
as coefficients over training rows. :class:`SupportPool` is those rows, part
of the model's state; its coefficients live with the algorithm, indexed by
pool slot. A ``fit``/``partial_fit`` call puts the pool's rows in front of
its own (:meth:`SupportPool.in_front_of`), so that the pool's slots
``0 .. n_pool - 1`` are the call's first support slots and every
coefficient array carries over unchanged; the call's loops append the rows
that join the support set after them (:class:`KernelCall`, the support set,
kernel-row cache and work space of :mod:`perceptrons._loops.support`); when
the call ends, the model keeps the slots it needs
(:meth:`SupportPool.kept`). One mechanism for every dual model, whatever its
algorithm does to old coefficients (the Perceptron leaves them alone, the
Ballseptron rescales them, the matrix perceptrons index them from their
matrices).

A ``KernelCall`` is created when a call starts and dropped when it ends:
nothing sized by the training set that is not part of the model stays on a
fitted estimator.
"""

import dataclasses
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

from .._loops.mercer import row_sq_norms_of
from .._loops.support import (ComputedKernel, GramKernel, Kernel,
                              KernelCache, Rows, SupportSet)
from ..utils.validation import as_flat_loop_arrays
from ._state import State, array, rows, scalar

__all__ = ["KernelCall", "PoolInFront", "SupportPool", "kernel_cache"]

_MB = 2 ** 20


@dataclasses.dataclass(frozen=True)
class SupportPool(State):
    """Training rows that carry coefficients, kept across calls.

    Binds ``n_pool`` (and checks ``n_features``).

    Attributes
    ----------
    X : {ndarray, CSR matrix} of shape (n_pool, n_features), float64
        The rows, in slot order; CSR when the training data was.
    n_rows_seen : int
        Rows presented by every call so far.
    index : ndarray of shape (n_pool,), int64
        Each row's number among all rows presented since the first call
        (``support_`` of the SVC API).
    """

    X: object = rows(("n_pool", "n_features"))
    n_rows_seen: int = scalar("int", low=0, binds="n_seen")
    index: np.ndarray = array("int", ("n_pool",), low=0, high="n_seen")

    def check(self, sizes, where):
        if not np.isfinite(self.sq_norms()).all():
            raise ValueError(f"{where}.X: the squares of a row overflow "
                             "float64")

    @classmethod
    def empty(cls, n_features, sparse):
        """A pool with no rows, CSR if ``sparse``."""
        X = (sp.csr_matrix((0, n_features)) if sparse
             else np.zeros((0, n_features)))
        return cls(X=X, n_rows_seen=0, index=np.zeros(0, dtype=np.int64))

    @property
    def size(self):
        """Rows in the pool."""
        return self.X.shape[0]

    def sq_norms(self):
        """``<x, x>`` of the pool's rows (the bits a call computes for them)."""
        return row_sq_norms_of(self.X)

    def kernel_diag(self, kernel):
        """``k(s_j, s_j)`` of the pool's rows for ``kernel`` (a
        :class:`~perceptrons.models._kernel.KernelSpec`): from their squared
        norms, or, for a precomputed kernel (the rows being the support
        vectors' rows of the training Gram matrix), the entry of each row's
        own column."""
        if not kernel.precomputed:
            return kernel.diag(self.sq_norms())
        rows = np.arange(self.size)
        values = self.X[rows, self.index]
        return np.array(np.ravel(values.toarray() if sp.issparse(values)
                                 else values), dtype=np.float64)

    def in_front_of(self, X, sq_norms):
        """The rows a call's loops index: the pool's, then the call's.

        Parameters
        ----------
        X : {ndarray, CSR matrix} of shape (n, n_features)
            The call's rows (validated, float64).
        sq_norms : ndarray of shape (n,)
            Their ``<x, x>``.

        Returns
        -------
        rows : {ndarray, CSR matrix} of shape (n_pool + n, n_features)
            In the call's format.
        sq_norms : ndarray of shape (n_pool + n,)
        """
        if self.size == 0:
            return X, sq_norms
        pool = self.X
        if sp.issparse(X):
            stacked = sp.vstack([sp.csr_matrix(pool), X], format="csr")
            stacked.sort_indices()
        else:
            stacked = np.vstack([pool.toarray() if sp.issparse(pool)
                                 else pool, X])
        return stacked, np.concatenate([self.sq_norms(), sq_norms])

    def kept(self, stacked, positions, n_call_rows, n_spare=0):
        """The pool after a call: the rows at ``positions`` of the call's
        stacked rows (:meth:`in_front_of`), in that order.

        Parameters
        ----------
        stacked : {ndarray, CSR matrix}
            The rows the call's loops indexed.
        positions : ndarray of int64
            Rows of ``stacked`` to keep, in their new slot order.
        n_call_rows : int
            Rows the call presented (after the pool's).
        n_spare : int, default=0
            Rows after the call's that hold merged vectors
            (:class:`KernelCall`'s ``n_spare``): their index is 0 (no
            training row; the budget's state marks them).

        Returns
        -------
        SupportPool
        """
        index = np.concatenate([self.index, self.n_rows_seen
                                + np.arange(n_call_rows, dtype=np.int64),
                                np.zeros(n_spare, dtype=np.int64)])
        # The model keeps float64 rows, whatever the call read.
        X = stacked[positions].astype(np.float64, copy=False)
        if n_spare and sp.issparse(X):
            # Merged vectors' rows store every feature; keep the non-zeros.
            X.eliminate_zeros()
        return SupportPool(X=X, index=index[positions],
                           n_rows_seen=self.n_rows_seen + n_call_rows)


class PoolInFront:
    """The per-row arrays of a dual form's call as its loops index them:
    after the pool's rows (:meth:`SupportPool.in_front_of`), for every dual
    storage (the weights' and the matrix perceptrons')."""

    @staticmethod
    def padded(call, targets, order):
        """The call's targets and order as the loops index them (after the
        pool's rows)."""
        return call.dual.padded(targets, order)

    @staticmethod
    def padded_weights(call):
        """The call's row weights as the loops index them (after the pool's
        rows)."""
        return call.dual.padded_weights(call.weights)


def kernel_cache(n, cache_size, n_passes):
    """The kernel-row cache of one call: ``(cache, cache_filled)``.

    Up to ``cache_size`` MB, at most n values per row. A call of one pass
    presents each row once, so it gets no cache: filling one would cost
    time and memory for little (5-13% of a pass on USPS and MNIST; only
    the Ballseptron's rare exact recomputation of its norms reads support
    rows again). The cache never changes a result.

    Parameters
    ----------
    n : int
        Rows the loops index (the call's rows and any pool before them).
    cache_size : float
        MB.
    n_passes : int
        Passes the call makes.

    Returns
    -------
    cache : ndarray of shape (n, capacity), float64, not initialised
    cache_filled : ndarray of shape (n,), int64, zeros
    """
    capacity = 0
    if n_passes > 1:
        capacity = min(n, int(float(cache_size) * _MB // (8 * n)))
    # np.empty: the pages are touched lazily, as the cache fills.
    return np.empty((n, capacity)), np.zeros(n, dtype=np.int64)


def _with_spare_rows(X, sq_norms, diag, n_spare):
    """X with ``n_spare`` rows of zeros appended (CSR: each row holding
    every feature), and ``sq_norms``, ``diag`` with zeros for them."""
    n, d = X.shape
    if sp.issparse(X):
        data = np.concatenate([np.asarray(X.data, dtype=np.float64),
                               np.zeros(n_spare * d)])
        indices = np.concatenate([X.indices.astype(np.int64),
                                  np.tile(np.arange(d, dtype=np.int64),
                                          n_spare)])
        indptr = np.concatenate([X.indptr.astype(np.int64),
                                 X.indptr[-1] + d * np.arange(
                                     1, n_spare + 1, dtype=np.int64)])
        X = sp.csr_matrix((data, indices, indptr), shape=(n + n_spare, d))
    else:
        X = np.vstack([X, np.zeros((n_spare, d))])
    zeros = np.zeros(n_spare)
    return X, np.concatenate([sq_norms, zeros]), np.concatenate([diag, zeros])


class KernelCall(SimpleNamespace):
    """Per-call state of the dual loops, never kept on the model.

    Parameters
    ----------
    X : {ndarray, CSR matrix} of shape (n, n_features)
        The rows the loops index (dense or sorted CSR, float64): the pool's
        rows first, then the call's (:meth:`SupportPool.in_front_of`).
    sq_norms : ndarray of shape (n,), float64
        ``<x_i, x_i>``.
    diag : ndarray of shape (n,), float64
        ``k(x_i, x_i)`` of the kernel (before any normalisation).
    kernel : tuple
        ``(code, degree, gamma, coef0)``.
    cache_size : float
        MB for the kernel-row cache (see :func:`kernel_cache`).
    n_passes : int
        Passes the call makes.
    n_pool : int, default=0
        Leading rows of X that are support vectors already, in slots
        ``0 .. n_pool - 1``.
    normalized : bool, default=False
        Use the normalised kernel ``k(x, z) / sqrt(k(x, x) k(z, z))``
        (0 where ``k(x, x) = 0``).
    n_threads : int, default=1
        Threads a block's tiles may use.
    gram : bool, default=False
        X is a precomputed Gram matrix of the rows it holds (``kernel=
        "precomputed"``): the loops read its values
        (:data:`~perceptrons._loops.support.GramKernel`) instead of
        computing them.
    n_spare : int, default=0
        Rows of zeros appended to X, for the vectors a budget's merging
        makes (:mod:`perceptrons._loops.budget`); CSR input gets them with
        every feature stored, so that a merged vector is written in place.

    Attributes
    ----------
    X, sq_norms, n_pool, n_spare
        As given (X and sq_norms with the spare rows).
    diag : ndarray of shape (n,), float64
        ``k(x_i, x_i)`` of the kernel in use (normalised: 1, or 0).
    support : SupportSet
        The support set (:mod:`perceptrons._loops.support`).
    cache, cache_filled, kernel_work, dense_work : ndarray
        The kernel-row cache and work space.
    threads : ndarray of shape (1,), int64
        Threads the kernel tiles may use (``n_jobs``; 1: the serial code).
    loop_args : tuple
        ``(provider, support)``: the provider of kernel values (a
        :data:`~perceptrons._loops.support.ComputedKernel` or
        :data:`~perceptrons._loops.support.GramKernel`) and the support
        set, what every dual store holds first. A model adds its own
        per-call arrays (coefficients, ...) as further attributes.
    """

    def __init__(self, X, sq_norms, diag, kernel, cache_size, n_passes,
                 n_pool=0, normalized=False, n_threads=1, gram=False,
                 n_spare=0):
        if n_spare:
            X, sq_norms, diag = _with_spare_rows(X, sq_norms, diag, n_spare)
        n = X.shape[0]
        rows = np.zeros(n, dtype=np.int64)
        rows[:n_pool] = np.arange(n_pool)
        slot_of = np.full(n, -1, dtype=np.int64)
        slot_of[:n_pool] = np.arange(n_pool)
        count = np.array([n_pool, 0, 0], dtype=np.int64)
        support = SupportSet(rows, slot_of, count,
                             np.zeros(n, dtype=np.int64),
                             np.zeros(n, dtype=np.int64))
        cache, cache_filled = kernel_cache(n, cache_size, n_passes)
        kernel_work = np.empty(n)
        dense_work = np.zeros(X.shape[1] if sp.issparse(X) else 0)
        threads = np.array([n_threads], dtype=np.int64)
        norms = np.zeros(0)
        if normalized:
            norms = np.sqrt(diag)
            diag = (diag > 0.0).astype(np.float64)
        super().__init__(
            X=X, sq_norms=sq_norms, diag=diag, n_pool=n_pool, n_spare=n_spare,
            support=support, cache=cache, cache_filled=cache_filled,
            kernel_work=kernel_work, dense_work=dense_work, threads=threads,
            norms=norms)
        if gram:
            # X holds the kernel values: read, never computed.
            gram_matrix = np.ascontiguousarray(
                X.toarray() if sp.issparse(X) else X, dtype=np.float64)
            provider = GramKernel(gram_matrix, diag, norms, kernel_work)
        else:
            provider = ComputedKernel(
                Rows(*as_flat_loop_arrays(X), sq_norms, diag),
                Kernel(*kernel, norms),
                KernelCache(cache, cache_filled,
                            np.zeros(n, dtype=np.int64), kernel_work,
                            dense_work, threads))
        self.loop_args = (provider, support)

    def live_slots(self):
        """Which slots taken hold a support vector now (a budget frees
        some)."""
        rows = self.slots()
        return self.support.slot_of[rows] == np.arange(rows.shape[0])

    @property
    def support_size(self):
        """Slots taken, ``support.count[0]`` (free ones included)."""
        return int(self.support.count[0])

    def slots(self):
        """The rows (of ``X``) of the slots taken, in slot order."""
        return self.support.rows[:self.support_size]

    def by_row(self):
        """Slots in use ordered by row: the pool's first (in their order),
        then the call's new support vectors by row index."""
        slots = self.slots()
        return np.argsort(slots, kind="stable")

    def padded(self, targets, order):
        """``targets`` and ``order`` of the call's rows, as indices of ``X``
        (the pool's rows are never presented: their targets are never
        read)."""
        if self.n_pool == 0:
            return targets, order
        return self._after_pool(targets), order + self.n_pool

    def padded_weights(self, weights):
        """The call's row weights as the loops index them (the pool's are
        never read); empty (every weight 1) stays empty."""
        if self.n_pool == 0 or weights.shape[0] == 0:
            return weights
        return self._after_pool(weights)

    def _after_pool(self, values):
        """Per-row ``values`` of the call's rows behind zeros for the
        pool's."""
        return np.concatenate([np.zeros((self.n_pool, *values.shape[1:]),
                                        dtype=values.dtype), values])
