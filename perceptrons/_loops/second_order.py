"""Cesa-Bianchi, Conconi & Gentile's Second-order Perceptron: its update.

With S the past mistaken instances plus the current x and v the sum of
``y x`` over past mistakes, the rule predicts ``sign(vᵀ(aI + S Sᵀ)⁻¹ x)``;
on a mistake x stays in S and ``v += y x``. With ``A = aI + Σ x_s x_sᵀ``
over the past mistakes, Sherman–Morrison gives
``(A + x xᵀ)⁻¹ x = A⁻¹x / (1 + xᵀA⁻¹x)``, a positive multiple of ``A⁻¹x``:
the sign is that of ``vᵀA⁻¹x``, which a trial computes
(``y vᵀA⁻¹x <= 0`` is a mistake: ties are mistakes). The matrix changes on
mistakes only.

Weighted rows (sample_weight × class_weight, issue #23): a mistake on row i
of weight ``s = s_i > 0`` adds s times its terms to both statistics,
``A ← A + s x xᵀ`` and ``v ← v + s y x``: ``A = aI + X S Xᵀ`` and
``v = X S y`` over the mistaken instances X with their weights
``S = diag(s)`` (s = 1: the unweighted updates, bit for bit). The primal
downdate is Sherman–Morrison's
``(A + s x xᵀ)⁻¹ = A⁻¹ - s u uᵀ / (1 + s xᵀu)``, ``u = A⁻¹x``. In dual
form ``A⁻¹X = X(aI + SK)⁻¹``, so
``vᵀA⁻¹x = yᵀ(aS⁻¹ + K)⁻¹κ`` and, by Woodbury,
``xᵀA⁻¹x = (k(x, x) - κᵀ(aS⁻¹ + K)⁻¹κ)/a``: the dual keeps
``M = (aS⁻¹ + K)⁻¹``, the weight entering only as the diagonal ``a/s`` of a
new border, and ``β = M y`` and the scores are read as before. Prediction
does not read the weight (the trial's x enters the paper's
``(A + x xᵀ)⁻¹`` unweighted; its sign is that of ``vᵀA⁻¹x`` anyway).

The pass is :func:`perceptrons._loops.matrix_perceptron.matrix_epoch`; two
forms, two stores (named tuples, arrays updated in place):

``SOPrimalStore(X_data, X_indices, X_indptr, x, nz, w, A_inv, v, u)``
    Keeps ``A⁻¹`` (n_problems, n × n) and ``w = A⁻¹v``: a rank-one downdate
    of ``A⁻¹`` in O(n²) per mistake, never a solve; a trial is O(nnz(x)).
    The rows, work row ``x``, index list ``nz``, ``w`` and ``v`` are as in
    :data:`perceptrons._loops.higher_order.HOPrimalStore`; ``u`` is a work
    row.
``SODualStore(provider, support, coef, a, inverse, work)``
    Keeps, over the q mistaken instances of each problem,
    ``M = (aI + K)⁻¹`` (K their kernel matrix; ``(aS⁻¹ + K)⁻¹`` weighted)
    and ``β = M y``, so
    ``vᵀA⁻¹x = βᵀκ`` with ``κ`` the kernel values of x against them (from
    ``A⁻¹X = X(aI + XᵀX)⁻¹``); M is grown by bordering in O(q²) per mistake.
    ``coef`` is β by support slot (summed over repeated instances),
    ``inverse = (M, slots, signs, n_mistaken)``: problem k's ``M[k, :q, :q]``,
    the slots ``slots[k, :q]`` and labels ``signs[k, :q]`` of its mistaken
    instances, ``q = n_mistaken[k]`` (grown when full); ``work`` a work
    vector.

Flags as in :mod:`perceptrons._loops.higher_order`: none for the primal
form, :data:`perceptrons._loops._common.FASTMATH` for the dual one.
"""

from collections import namedtuple

import numpy as np

from .matrix_perceptron import register_on_mistake
from .matrix_rows import (add_and_reweigh, gather_slots, grow_cols,
                          grow_square, sparse_dot, square_times,
                          symmetric_times_row, work_for)
from .mercer import dot_n
from .storage import kernel_store
from .support import append_support, provider_diag

__all__ = ["SODualStore", "SOPrimalStore"]

SOPrimalStore = namedtuple("SOPrimalStore", [
    "X_data", "X_indices", "X_indptr", "x", "nz", "w", "A_inv", "v", "u"])
SODualStore = kernel_store(namedtuple("SODualStore", [
    "provider", "support", "coef", "a", "inverse", "work"]))


def _primal_mistake(store, trial, i, k, y, weight, count, stats):
    nnz = trial
    x, nz, v, u = store.x, store.nz, store.v, store.u
    n = v.shape[1]
    stats[1] += 1
    Ak = store.A_inv[k]
    # u = A⁻¹x; A⁻¹ ← A⁻¹ - s u uᵀ / (1 + s xᵀu) (Sherman–Morrison for
    # A + s x xᵀ, s the row's weight).
    symmetric_times_row(Ak, x, nz, nnz, u)
    d = 1.0 + weight * sparse_dot(u, x, nz, nnz)
    if not (d > 0.0 and d < np.inf):
        return store, True
    for r in range(n):
        ur = weight * u[r] / d
        for j in range(n):
            Ak[r, j] -= ur * u[j]
    add_and_reweigh(Ak, v[k], store.w[k], weight * y, x, nz, nnz)
    return store, False


register_on_mistake(SOPrimalStore, _primal_mistake)


def _dual_mistake(store, trial, i, k, y, weight, count, stats):
    """With ``κ`` the kernel values against the q mistaken instances,
    ``u = M κ`` and the Schur complement ``d = a/s + k(x, x) - κᵀu`` (s the
    row's weight) border M: ``M' = [[M + u uᵀ/d, -u/d], [-uᵀ/d, 1/d]]``,
    ``β' = M' y'``."""
    values, m = trial
    diag = provider_diag(store.provider)
    coef = store.coef
    stats[1] += 1
    M, slots, signs, n_mistaken = store.inverse
    q = n_mistaken[k]
    work = work_for(store.work, 3 * (q + 1))
    kappa = work[:q]
    u = work[q:2 * q]
    beta = work[2 * q:3 * q + 1]
    gather_slots(values, slots[k], q, kappa)
    square_times(M[k], kappa, q, u)
    d = store.a / weight + diag[i] - dot_n(kappa, u, q)
    if not (d > 0.0 and d < np.inf):
        return SODualStore(store.provider, store.support, coef, store.a,
                           store.inverse, work), True
    M = grow_square(M, q + 1)
    slots = grow_cols(slots, q + 1)
    signs = grow_cols(signs, q + 1)
    Mk = M[k]
    for r in range(q):
        ur = u[r] / d
        for s in range(q):
            Mk[r, s] += ur * u[s]
        Mk[r, q] = -ur
        Mk[q, r] = -ur
    Mk[q, q] = 1.0 / d
    slots[k, q] = append_support(store.support, i)
    signs[k, q] = y
    n_mistaken[k] = q + 1
    square_times(Mk, signs[k], q + 1, beta)
    for r in range(q + 1):
        coef[k, slots[k, r]] = 0.0
    for r in range(q + 1):
        coef[k, slots[k, r]] += beta[r]
    return SODualStore(store.provider, store.support, coef, store.a,
                       (M, slots, signs, n_mistaken), work), False


register_on_mistake(SODualStore, _dual_mistake)
