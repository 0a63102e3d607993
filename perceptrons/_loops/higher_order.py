"""Brotto, Gentile & Vitale's Higher-order Perceptron HO_p(c), one pass per call.

Figure 1 of the paper, for one or more binary problems presented the same
rows (one-vs-rest shares each row, and in the dual form its kernel row).
On the k-th mistake of a problem, with ``x`` the (normalised) instance and
``ρ_k = c/k``,

    B_k = B_{k-1} (I - ρ_k x g(x)ᵀ),    v_k = v_{k-1} + y x,

and a trial predicts ``sign(wᵀx)`` with ``w = B_kᵀ g(B_k v_k)``,
``g = ∇‖·‖²_p / 2``; ``y wᵀx <= 0`` is a mistake (ties are mistakes).
The sparse variant (Sec. 4) sets ``ρ_k = 0`` when ``y v_{k-1}ᵀx < 0``:
the mistake then updates v only. ``k`` counts a problem's mistakes over
all its passes; ``counts[k]`` carries it between calls.

Three forms of the same algorithm (Sec. 2):

* :func:`ho_primal_epoch` (p = 2) keeps ``A = BᵀB`` (n × n) and ``w = A v``:
  O(n²) per mistake, O(nnz(x)) per trial;
* :func:`ho_implicit_epoch` (any p) keeps the factors ``(ρ_i, x_i, g(x_i))``
  of the matrix updates and recomputes ``w`` from them on a mistake, in
  O(Σ nnz(x_i)) (O(nk)); a trial is O(nnz(x));
* :func:`ho_dual_epoch` (p = 2, any kernel) keeps the paper's ``D, H, g``
  over the support set of :mod:`perceptrons._loops.support` (one kernel
  row per trial for every problem), O(q²) per mistake with q the matrix
  updates so far, O(support) per trial.

The instances arrive normalised: the primal forms read rows already divided
by their p-norm, the dual form the normalised kernel of the support layer.
The primal loops are compiled without ``fastmath`` flags: the symmetric
rank-two update of A then gives ``A[r, j]`` and ``A[j, r]`` the same bits.
The dual loop takes the flags of the other dual loops
(:data:`perceptrons._loops._common.FASTMATH`): its O(q²) products with D
vectorise (the same bits on every run of a machine).
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

__all__ = ["ho_dual_epoch", "ho_implicit_epoch", "ho_primal_epoch",
           "p_norm_gradient"]


@njit(cache=True)
def p_norm_gradient(theta, p, out):
    """``out = g(θ) = ∇‖θ‖²_p / 2 = sign(θ)|θ|^{p-1} / ‖θ‖_p^{p-2}``.

    The identity for p = 2 (copied, so its bits are θ's); 0 at θ = 0.

    Parameters
    ----------
    theta : ndarray of shape (n,), float64
    p : float
        p >= 2.
    out : ndarray of shape (n,), float64
    """
    n = theta.shape[0]
    if p == 2.0:
        for j in range(n):
            out[j] = theta[j]
        return
    # Scale by the largest |θ_j| so that |θ_j|^p cannot overflow.
    big = 0.0
    for j in range(n):
        a = abs(theta[j])
        if a > big:
            big = a
    if big == 0.0:
        for j in range(n):
            out[j] = 0.0
        return
    total = 0.0
    for j in range(n):
        total += (abs(theta[j]) / big) ** p
    # ‖θ‖_p^{p-2} = big^{p-2} total^{(p-2)/p}
    denom = total ** ((p - 2.0) / p)
    for j in range(n):
        a = abs(theta[j]) / big
        val = big * a ** (p - 1.0) / denom
        out[j] = val if theta[j] >= 0.0 else -val


@njit(cache=True)
def _rho(c, k, sparse, y, v_dot_x):
    """ρ_k of Figure 1: c/k, or 0 in the sparse variant when ``y vᵀx < 0``."""
    if sparse and y * v_dot_x < 0.0:
        return 0.0
    return c / k


# ----------------------------------------------------------------- primal
@njit(cache=True)
def ho_primal_epoch(X_data, X_indices, X_indptr, targets, order, c, sparse,
                    A, v, w, counts, stats, x, nz):
    """One pass of HO₂(c) in primal form over ``order``.

    Parameters
    ----------
    X_data, X_indices, X_indptr
        Rows of unit Euclidean norm, as
        :func:`perceptrons.utils.validation.as_loop_arrays` gives them.
    targets : ndarray of shape (n_samples,), int64
        Class indices (see :func:`perceptrons._loops.hypotheses.problem_sign`).
    order : ndarray of shape (n_steps,), int64
    c : float
        ``ρ_k = c / k``.
    sparse : bool
        The sparse variant of Sec. 4.
    A : ndarray of shape (n_problems, n_features, n_features), float64
        ``B_kᵀ B_k`` per problem, updated in place.
    v, w : ndarray of shape (n_problems, n_features), float64
        ``v_k`` and ``w = A v``, updated in place.
    counts : ndarray of shape (n_problems,), int64
        Mistakes so far per problem (k), updated in place.
    stats : ndarray of shape (2,), int64
        Adds the pass's mistakes (summed over problems) and matrix updates.
    x : ndarray of shape (n_features,), float64
        Zeroed work row.
    nz : ndarray of shape (n_features,), int64
        Work indices.
    """
    n_problems, n = v.shape
    a = np.empty(n)
    for step in range(order.shape[0]):
        i = order[step]
        nnz = scatter_row_nz(X_data, X_indices, X_indptr, i, x, nz)
        for k in range(n_problems):
            y = problem_sign(targets[i], k, n_problems)
            if y * sparse_dot(w[k], x, nz, nnz) > 0.0:
                continue
            stats[0] += 1
            counts[k] += 1
            rho = _rho(c, counts[k], sparse, y, sparse_dot(v[k], x, nz, nnz))
            Ak = A[k]
            if rho > 0.0:
                stats[1] += 1
                # a = A x, s = xᵀ A x; then
                # A ← A - ρ a xᵀ - ρ x aᵀ + ρ² s x xᵀ (Sec. 2, 1)).
                symmetric_times_row(Ak, x, nz, nnz, a)
                s = sparse_dot(a, x, nz, nnz)
                rr = rho * rho * s
                for r in range(n):
                    ar, xr = a[r], x[r]
                    for j in range(n):
                        Ak[r, j] += (rr * (xr * x[j])
                                     - rho * (ar * x[j] + xr * a[j]))
            for e in range(nnz):
                j = nz[e]
                v[k, j] += y * x[j]
            square_times(Ak, v[k], n, w[k])
        unscatter_row_nz(x, nz, nnz)


# --------------------------------------------------------------- implicit
@njit(cache=True)
def _implicit_weights(factors, k, p, v, w, z):
    """``w = B_kᵀ g(B_k v)`` from problem k's factors (Sec. 2, 3)).

    ``B v`` applies the factors last to first, ``Bᵀ u`` first to last:
    ``B_k = B_{k-1}(I - ρ_k x_k g(x_k)ᵀ)``.
    """
    fx, fg, fi, fptr, frho, n_factors = factors
    n = v.shape[0]
    for j in range(n):
        z[j] = v[j]
    for f in range(n_factors[k] - 1, -1, -1):
        lo, hi = fptr[k, f], fptr[k, f + 1]
        d = 0.0
        for e in range(lo, hi):
            d += fg[k, e] * z[fi[k, e]]
        d *= frho[k, f]
        for e in range(lo, hi):
            z[fi[k, e]] -= d * fx[k, e]
    p_norm_gradient(z, p, w)
    for f in range(n_factors[k]):
        lo, hi = fptr[k, f], fptr[k, f + 1]
        d = 0.0
        for e in range(lo, hi):
            d += fx[k, e] * w[fi[k, e]]
        d *= frho[k, f]
        for e in range(lo, hi):
            w[fi[k, e]] -= d * fg[k, e]


@njit(cache=True)
def ho_implicit_epoch(X_data, X_indices, X_indptr, targets, order, c, p,
                      sparse, factors, v, w, counts, stats, x, nz):
    """One pass of HO_p(c) in implicit primal form over ``order``.

    Parameters
    ----------
    X_data, X_indices, X_indptr, targets, order, c, sparse, counts, stats, x, nz
        As in :func:`ho_primal_epoch`, with rows of unit p-norm.
    p : float
        The norm, p >= 2.
    factors : tuple
        ``(fx, fg, fi, fptr, frho, n_factors)``: problem k's matrix updates
        ``f < n_factors[k]`` have ``ρ = frho[k, f]`` and the non-zeros
        ``fx[k, e]`` of x, ``fg[k, e]`` of g(x) at columns ``fi[k, e]`` for
        ``fptr[k, f] <= e < fptr[k, f + 1]``. Grown when full.
    v, w : ndarray of shape (n_problems, n_features), float64
        ``v_k`` and ``w = B_kᵀ g(B_k v_k)``, updated in place.

    Returns
    -------
    factors : tuple
        The factors, reallocated if they had to grow.
    """
    n_problems, n = v.shape
    z = np.empty(n)
    theta = np.empty(n)
    gx = np.empty(n)
    for step in range(order.shape[0]):
        i = order[step]
        nnz = scatter_row_nz(X_data, X_indices, X_indptr, i, x, nz)
        for k in range(n_problems):
            y = problem_sign(targets[i], k, n_problems)
            if y * sparse_dot(w[k], x, nz, nnz) > 0.0:
                continue
            stats[0] += 1
            counts[k] += 1
            rho = _rho(c, counts[k], sparse, y, sparse_dot(v[k], x, nz, nnz))
            if rho > 0.0:
                stats[1] += 1
                fx, fg, fi, fptr, frho, n_factors = factors
                f = n_factors[k]
                lo = fptr[k, f]
                fx = grow_cols(fx, lo + nnz)
                fg = grow_cols(fg, lo + nnz)
                fi = grow_cols(fi, lo + nnz)
                fptr = grow_cols(fptr, f + 2)
                frho = grow_cols(frho, f + 1)
                # g(x) on the row's support (g keeps zeros at zero).
                for e in range(nnz):
                    theta[e] = x[nz[e]]
                p_norm_gradient(theta[:nnz], p, gx[:nnz])
                for e in range(nnz):
                    fx[k, lo + e] = theta[e]
                    fg[k, lo + e] = gx[e]
                    fi[k, lo + e] = nz[e]
                fptr[k, f + 1] = lo + nnz
                frho[k, f] = rho
                n_factors[k] = f + 1
                factors = (fx, fg, fi, fptr, frho, n_factors)
            for e in range(nnz):
                j = nz[e]
                v[k, j] += y * x[j]
            _implicit_weights(factors, k, p, v[k], w[k], z)
        unscatter_row_nz(x, nz, nnz)
    return factors


# ------------------------------------------------------------------- dual
@njit(cache=True, fastmath=FASTMATH)
def ho_dual_epoch(data, kernel, support, cache, targets, order, c, sparse,
                  coef, v_coef, matrix, counts, stats):
    """One pass of HO₂(c) in dual form over ``order`` (Sec. 2, 2)).

    With ``X_q`` the q instances whose mistake updated the matrix, in order,
    ``A = I + X_q D X_qᵀ``, ``h = X_qᵀ v`` and ``w = A v = v + X_q D h``.
    On the k-th mistake, x with kernel values ``κ = X_qᵀ x``:

    * if ρ_k > 0: ``b = D κ``, D grows by the row ``-ρ_k bᵀ`` and the
      corner ``ρ_k² (κᵀb + k(x, x)) - 2ρ_k`` (the paper's
      ``d_kk = ρ² xᵀX b - 2ρ + ρ²`` for ``k(x, x) = 1``), h by
      ``vᵀx + y k(x, x)``;
    * always: ``h += y κ``, ``v += y x``, and the weights are rebuilt,
      ``coef = v_coef + (D h at the slots of X_q)``.

    A mistake that leaves the matrix alone still costs O(q²) (D h changes
    with h); the paper's point is that q, not the mistakes, sets the cost.

    Parameters
    ----------
    data, kernel, support, cache : tuple
        As in :mod:`perceptrons._loops.support`; ``data[6][i]`` is
        ``k(x_i, x_i)`` of the kernel in use (1 when normalised).
    targets, order, c, sparse, counts, stats
        As in :func:`ho_primal_epoch`.
    coef : ndarray of shape (n_problems, n_rows), float64
        ``w`` by support slot, updated in place.
    v_coef : ndarray of shape (n_problems, n_rows), float64
        ``v`` by support slot (sums of labels), updated in place.
    matrix : tuple
        ``(D, slots, h, n_matrix)``: problem k's ``D[k, :q, :q]``, the
        slots of ``X_q`` in ``slots[k, :q]``, ``h[k, :q]``, with
        ``q = n_matrix[k]``. Grown when full.

    Returns
    -------
    matrix : tuple
        Reallocated if it had to grow.
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
            counts[k] += 1
            D, slots, h, n_matrix = matrix
            q = n_matrix[k]
            work = work_for(work, 2 * (q + 1))
            kappa = work[:q + 1]
            b = work[q + 1:2 * (q + 1)]
            gather_slots(values, slots[k], q, kappa)
            # Slots from m on were added in this trial: no value, no v part.
            v_dot_x = dot_n(v_coef[k], values, m)
            rho = _rho(c, counts[k], sparse, y, v_dot_x)
            pos = append_support(support, i)
            if rho > 0.0:
                stats[1] += 1
                D = grow_square(D, q + 1)
                slots = grow_cols(slots, q + 1)
                h = grow_cols(h, q + 1)
                square_times(D[k], kappa, q, b)
                kb = dot_n(kappa, b, q)
                for r in range(q):
                    D[k, q, r] = -rho * b[r]
                    D[k, r, q] = -rho * b[r]
                D[k, q, q] = rho * rho * (kb + diag[i]) - 2.0 * rho
                slots[k, q] = pos
                h[k, q] = v_dot_x + y * diag[i]
                n_matrix[k] = q + 1
                matrix = (D, slots, h, n_matrix)
            for r in range(q):
                h[k, r] += y * kappa[r]
            v_coef[k, pos] += y
            coef[k, pos] = v_coef[k, pos]
            _add_matrix_part(D[k], slots[k], h[k], n_matrix[k], v_coef[k],
                             coef[k], b)
    return matrix


@njit(cache=True, fastmath=FASTMATH)
def _add_matrix_part(D, slots, h, q, v_coef, coef, work):
    """``coef[slots[r]] = v_coef[slots[r]] + Σ (D h)_r`` over r < q.

    Elsewhere coef already equals v_coef. ``work`` holds at least q values.
    """
    square_times(D, h, q, work)
    for r in range(q):
        coef[slots[r]] = v_coef[slots[r]]
    for r in range(q):
        coef[slots[r]] += work[r]
