"""Cesa-Bianchi, Conconi & Gentile's Second-order Perceptron, one pass per call.

With S the past mistaken instances plus the current x and v the sum of
``y x`` over past mistakes, the rule predicts ``sign(vᵀ(aI + S Sᵀ)⁻¹ x)``;
on a mistake x stays in S and ``v += y x``. With ``A = aI + Σ x_s x_sᵀ``
over the past mistakes, Sherman–Morrison gives
``(A + x xᵀ)⁻¹ x = A⁻¹x / (1 + xᵀA⁻¹x)``, a positive multiple of ``A⁻¹x``:
the sign is that of ``vᵀA⁻¹x``, which is what a trial computes
(``y vᵀA⁻¹x <= 0`` is a mistake: ties are mistakes). The matrix changes on
mistakes only.

* :func:`so_primal_epoch` keeps ``A⁻¹`` (n × n) and ``w = A⁻¹v``: a
  rank-one downdate of ``A⁻¹`` in O(n²) per mistake, never a solve; a trial
  is O(nnz(x)).
* :func:`so_dual_epoch` keeps, over the k mistaken instances,
  ``M = (aI + K)⁻¹`` (K their kernel matrix) and ``β = M y``, so
  ``vᵀA⁻¹x = βᵀκ`` with ``κ`` the kernel values of x against them (from
  ``A⁻¹X = X(aI + XᵀX)⁻¹``); M is grown by bordering in O(k²) per mistake.

Flags as in :mod:`perceptrons._loops.higher_order`: none for the primal
loop, :data:`perceptrons._loops._common.FASTMATH` for the dual one.
"""

import numpy as np
from numba import njit

from ._common import FASTMATH
from .hypotheses import problem_sign
from .matrix_rows import (
    gather_slots,
    grow_cols,
    grow_square,
    scatter_row_nz,
    sparse_dot,
    square_times,
    symmetric_times_row,
    unscatter_row_nz,
    work_for,
)
from .mercer import dot_n
from .support import append_support, new_kernel_block, trial_kernel_row

__all__ = ["so_dual_epoch", "so_primal_epoch"]


@njit(cache=True)
def so_primal_epoch(X_data, X_indices, X_indptr, targets, order, A_inv, v, w,
                    counts, stats, x, nz):
    """One pass of the Second-order Perceptron in primal form.

    Parameters
    ----------
    X_data, X_indices, X_indptr
        The rows (see :func:`perceptrons.utils.validation.as_loop_arrays`).
    targets : ndarray of shape (n_samples,), int64
    order : ndarray of shape (n_steps,), int64
    A_inv : ndarray of shape (n_problems, n_features, n_features), float64
        ``(aI + Σ x xᵀ)⁻¹`` over each problem's mistakes, updated in place.
    v, w : ndarray of shape (n_problems, n_features), float64
        v and ``w = A⁻¹ v``, updated in place.
    counts : ndarray of shape (n_problems,), int64
        Mistakes per problem, updated in place.
    stats : ndarray of shape (2,), int64
        Adds the pass's mistakes (summed over problems), and again in the
        second entry (every mistake updates the matrix).
    x, nz
        Work row (zeroed) and indices, as in
        :func:`perceptrons._loops.higher_order.ho_primal_epoch`.

    Returns
    -------
    int
        0, or 1 + the step where ``1 + xᵀA⁻¹x`` stopped being a positive
        finite number (the matrix has lost its precision).
    """
    n_problems, n = v.shape
    u = np.empty(n)
    for step in range(order.shape[0]):
        i = order[step]
        nnz = scatter_row_nz(X_data, X_indices, X_indptr, i, x, nz)
        for k in range(n_problems):
            y = problem_sign(targets[i], k, n_problems)
            if y * sparse_dot(w[k], x, nz, nnz) > 0.0:
                continue
            stats[0] += 1
            stats[1] += 1
            counts[k] += 1
            Ak = A_inv[k]
            # u = A⁻¹x; A⁻¹ ← A⁻¹ - u uᵀ / (1 + xᵀu).
            symmetric_times_row(Ak, x, nz, nnz, u)
            s = 1.0 + sparse_dot(u, x, nz, nnz)
            if not (s > 0.0 and s < np.inf):
                unscatter_row_nz(x, nz, nnz)
                return step + 1
            for r in range(n):
                ur = u[r] / s
                for j in range(n):
                    Ak[r, j] -= ur * u[j]
            for e in range(nnz):
                j = nz[e]
                v[k, j] += y * x[j]
            square_times(Ak, v[k], n, w[k])
        unscatter_row_nz(x, nz, nnz)
    return 0


@njit(cache=True, fastmath=FASTMATH)
def so_dual_epoch(data, kernel, support, cache, targets, order, a, coef,
                  inverse, counts, stats):
    """One pass of the Second-order Perceptron in dual form.

    On a mistake with kernel values ``κ`` against the k mistaken instances,
    ``u = M κ`` and the Schur complement ``d = a + k(x, x) - κᵀu`` border M:

        M' = [[M + u uᵀ/d, -u/d], [-uᵀ/d, 1/d]],   β' = M' y'.

    Parameters
    ----------
    data, kernel, support, cache : tuple
        As in :mod:`perceptrons._loops.support`.
    targets, order, counts, stats
        As in :func:`so_primal_epoch`.
    a : float
        a > 0.
    coef : ndarray of shape (n_problems, n_rows), float64
        β by support slot (summed over repeated instances), in place.
    inverse : tuple
        ``(M, slots, signs, n_mistaken)``: problem k's ``M[k, :q, :q]``,
        the slots ``slots[k, :q]`` and labels ``signs[k, :q]`` of its
        mistaken instances, ``q = n_mistaken[k]``. Grown when full.

    Returns
    -------
    inverse : tuple
        Reallocated if it had to grow.
    failed : int
        0, or 1 + the step where d stopped being a positive finite number.
    """
    n_problems = coef.shape[0]
    diag = data[6]
    block = new_kernel_block(data)
    work = np.empty(16)
    for step in range(order.shape[0]):
        i = order[step]
        block, values, m = trial_kernel_row(data, kernel, support, cache,
                                            order, step, block)
        for k in range(n_problems):
            y = problem_sign(targets[i], k, n_problems)
            if y * dot_n(coef[k], values, m) > 0.0:
                continue
            stats[0] += 1
            stats[1] += 1
            counts[k] += 1
            M, slots, signs, n_mistaken = inverse
            q = n_mistaken[k]
            work = work_for(work, 3 * (q + 1))
            kappa = work[:q]
            u = work[q:2 * q]
            beta = work[2 * q:3 * q + 1]
            gather_slots(values, slots[k], q, kappa)
            square_times(M[k], kappa, q, u)
            d = a + diag[i] - dot_n(kappa, u, q)
            if not (d > 0.0 and d < np.inf):
                return inverse, step + 1
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
            slots[k, q] = append_support(support, i)
            signs[k, q] = y
            n_mistaken[k] = q + 1
            inverse = (M, slots, signs, n_mistaken)
            square_times(Mk, signs[k], q + 1, beta)
            for r in range(q + 1):
                coef[k, slots[k, r]] = 0.0
            for r in range(q + 1):
                coef[k, slots[k, r]] += beta[r]
    return inverse, 0
