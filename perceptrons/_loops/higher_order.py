"""Brotto, Gentile & Vitale's Higher-order Perceptron HO_p(c): its update.

Figure 1 of the paper, for one or more binary problems presented the same
rows (the pass is :func:`perceptrons._loops.matrix_perceptron.matrix_epoch`).
On the k-th mistake of a problem, with ``x`` the (normalised) instance and
``ρ_k = c/k``,

    B_k = B_{k-1} (I - ρ_k x g(x)ᵀ),    v_k = v_{k-1} + y x,

and a trial predicts ``sign(wᵀx)`` with ``w = B_kᵀ g(B_k v_k)``,
``g = ∇‖·‖²_p / 2``; ``y wᵀx <= 0`` is a mistake (ties are mistakes).
The sparse variant (Sec. 4) sets ``ρ_k = 0`` when ``y v_{k-1}ᵀx < 0``:
the mistake then updates v only. ``k`` counts a problem's mistakes over
all its passes; the pass's ``counts[k]`` carries it between calls.

Weighted rows (sample_weight × class_weight, issue #23): a mistake on row i
of weight ``s = s_i > 0`` adds s times its terms to both statistics,

    B_k = B_{k-1} (I - s ρ_k x g(x)ᵀ),    v_k = v_{k-1} + s y x,

the matrix step ``ρ_k`` and the label step ``y`` each multiplied by s (to
first order ``B_k ≈ I - Σ s ρ x g(x)ᵀ``, the weighted sum of the mistaken
instances' outer products). k still counts mistakes, one per mistake, and
the sparse gate still reads ``y v_{k-1}ᵀx``. Theorem 1 asks
``ρ_k <= (1 - c)/(1 + |v_{k-1}ᵀx|)`` of the step actually taken, here
``s ρ_k``: a large weight makes a large step (``s ρ_k > 2`` flips and
stretches B along x). Every form takes the same ``ρ = s ρ_k`` and
``s y``; with s = 1 they are the unweighted updates bit for bit.

Three forms of the same algorithm (Sec. 2), three stores:

* :data:`HOPrimalStore` (p = 2) keeps ``A = BᵀB`` (n × n) and ``w = A v``:
  O(n²) per mistake, O(nnz(x)) per trial;
* :data:`HOImplicitStore` (any p) keeps the factors ``(ρ_i, x_i, g(x_i))``
  of the matrix updates and recomputes ``w`` from them on a mistake, in
  O(Σ nnz(x_i)) (O(nk)); a trial is O(nnz(x));
* :data:`HODualStore` (p = 2, any kernel) keeps the paper's ``D, H, g``
  over the support set of :mod:`perceptrons._loops.support` (one kernel
  row per trial for every problem), O(q²) per mistake with q the matrix
  updates so far, O(support) per trial.

The instances arrive normalised: the primal forms read rows already divided
by their p-norm, the dual form the normalised kernel of the support layer.
The primal forms compile without fast-math flags: the symmetric rank-two
update of A then gives ``A[r, j]`` and ``A[j, r]`` the same bits. The dual
form takes the flags of the other dual loops
(:data:`perceptrons._loops._common.FASTMATH`): its O(q²) products with D
vectorise (the same bits on every run of a machine).

Stores (named tuples; arrays updated in place):

``HOPrimalStore(X_data, X_indices, X_indptr, x, nz, w, c, sparse, A, v, a)``
    The rows (unit 2-norm, as
    :func:`perceptrons.utils.validation.as_loop_arrays` gives them), the
    zeroed work row ``x`` and index list ``nz`` (n_features,), the weights
    ``w`` and ``v`` (n_problems, n_features), c and the sparse switch,
    ``A`` (n_problems, n_features, n_features) and a work row ``a``.
``HOImplicitStore(X_data, X_indices, X_indptr, x, nz, w, c, sparse, p, v,
factors, work)``
    As above with rows of unit p-norm, the norm p, and ``factors =
    (fx, fg, fi, fptr, frho, n_factors)``: problem k's matrix updates
    ``f < n_factors[k]`` have ``ρ = frho[k, f]`` and the non-zeros
    ``fx[k, e]`` of x, ``fg[k, e]`` of g(x) at columns ``fi[k, e]`` for
    ``fptr[k, f] <= e < fptr[k, f + 1]`` (grown when full); ``work`` holds
    three work rows (3, n_features).
``HODualStore(provider, support, coef, c, sparse, v_coef, matrix, work)``
    The support layer's provider of kernel values and support set
    (``provider_diag(provider)[i]`` is ``k(x_i, x_i)`` of the kernel in
    use, 1 when normalised), ``coef`` (w) and ``v_coef`` (v) by
    support slot (n_problems, n_rows), ``matrix = (D, slots, h, n_matrix)``:
    problem k's ``D[k, :q, :q]``, the slots of ``X_q`` in ``slots[k, :q]``,
    ``h[k, :q]``, ``q = n_matrix[k]`` (grown when full), and a work vector.
"""

from collections import namedtuple

from numba import njit

from ._common import FASTMATH
from .matrix_perceptron import register_on_mistake
from .matrix_rows import (add_and_reweigh, gather_slots, grow_cols,
                          grow_square, sparse_dot, square_times,
                          symmetric_times_row, work_for)
from .mercer import dot_n
from .storage import kernel_store
from .support import append_support, provider_diag

__all__ = ["HODualStore", "HOImplicitStore", "HOPrimalStore",
           "p_norm_gradient"]

HOPrimalStore = namedtuple("HOPrimalStore", [
    "X_data", "X_indices", "X_indptr", "x", "nz", "w", "c", "sparse", "A",
    "v", "a"])
HOImplicitStore = namedtuple("HOImplicitStore", [
    "X_data", "X_indices", "X_indptr", "x", "nz", "w", "c", "sparse", "p",
    "v", "factors", "work"])
HODualStore = kernel_store(namedtuple("HODualStore", [
    "provider", "support", "coef", "c", "sparse", "v_coef", "matrix",
    "work"]))


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


@njit(cache=True, inline="always")
def _rho(c, k, sparse, y, v_dot_x):
    """ρ_k of Figure 1: c/k, or 0 in the sparse variant when ``y vᵀx < 0``."""
    if sparse and y * v_dot_x < 0.0:
        return 0.0
    return c / k


# ----------------------------------------------------------------- primal
def _primal_mistake(store, trial, i, k, y, weight, count, stats):
    nnz = trial
    x, nz, A, v, a = store.x, store.nz, store.A, store.v, store.a
    n = v.shape[1]
    rho = weight * _rho(store.c, count, store.sparse, y,
                        sparse_dot(v[k], x, nz, nnz))
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
    add_and_reweigh(Ak, v[k], store.w[k], weight * y, x, nz, nnz)
    return store, False


register_on_mistake(HOPrimalStore, _primal_mistake)


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
        _apply_factor(fg[k], fx[k], fi[k], fptr[k, f], fptr[k, f + 1],
                      frho[k, f], z)
    p_norm_gradient(z, p, w)
    for f in range(n_factors[k]):
        _apply_factor(fx[k], fg[k], fi[k], fptr[k, f], fptr[k, f + 1],
                      frho[k, f], w)


@njit(cache=True, inline="always")
def _apply_factor(a, b, columns, lo, hi, rho, u):
    """``u ← (I - ρ b aᵀ) u`` for the factor stored at ``[lo, hi)``: ``a``,
    ``b`` and ``columns`` hold its non-zeros (B applies ``I - ρ x g(x)ᵀ``,
    Bᵀ its transpose)."""
    d = 0.0
    for e in range(lo, hi):
        d += a[e] * u[columns[e]]
    d *= rho
    for e in range(lo, hi):
        u[columns[e]] -= d * b[e]


def _implicit_mistake(store, trial, i, k, y, weight, count, stats):
    nnz = trial
    x, nz, v, p = store.x, store.nz, store.v, store.p
    z, theta, gx = store.work[0], store.work[1], store.work[2]
    factors = store.factors
    rho = weight * _rho(store.c, count, store.sparse, y,
                        sparse_dot(v[k], x, nz, nnz))
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
    step = weight * y
    for e in range(nnz):
        j = nz[e]
        v[k, j] += step * x[j]
    _implicit_weights(factors, k, p, v[k], store.w[k], z)
    return HOImplicitStore(store.X_data, store.X_indices, store.X_indptr, x,
                           nz, store.w, store.c, store.sparse, p, v, factors,
                           store.work), False


register_on_mistake(HOImplicitStore, _implicit_mistake)


# ------------------------------------------------------------------- dual
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


def _dual_mistake(store, trial, i, k, y, weight, count, stats):
    """Sec. 2, 2): with ``X_q`` the q instances whose mistake updated the
    matrix, in order, ``A = I + X_q D X_qᵀ``, ``h = X_qᵀ v`` and
    ``w = A v = v + X_q D h``. On the k-th mistake, x with kernel values
    ``κ = X_qᵀ x``: if ρ_k > 0, ``b = D κ``, D grows by the row ``-ρ_k bᵀ``
    and the corner ``ρ_k² (κᵀb + k(x, x)) - 2ρ_k`` (the paper's
    ``d_kk = ρ² xᵀX b - 2ρ + ρ²`` for ``k(x, x) = 1``), h by
    ``vᵀx + y k(x, x)``; always ``h += y κ``, ``v += y x``, and the weights
    are rebuilt, ``coef = v_coef + (D h at the slots of X_q)``. A mistake
    that leaves the matrix alone still costs O(q²) (D h changes with h);
    the paper's point is that q, not the mistakes, sets the cost.

    Weighted (row weight s): ρ_k is ``s ρ_k`` throughout and y is ``s y``
    in h and v (``h += s y κ``, the new entry ``vᵀx + s y k(x, x)``,
    ``v_coef[slot] += s y``)."""
    values, m = trial
    diag = provider_diag(store.provider)
    coef, v_coef = store.coef, store.v_coef
    D, slots, h, n_matrix = store.matrix
    q = n_matrix[k]
    work = work_for(store.work, 2 * (q + 1))
    kappa = work[:q + 1]
    b = work[q + 1:2 * (q + 1)]
    gather_slots(values, slots[k], q, kappa)
    # Slots from m on were added in this trial: no value, no v part.
    v_dot_x = dot_n(v_coef[k], values, m)
    rho = weight * _rho(store.c, count, store.sparse, y, v_dot_x)
    step = weight * y
    pos = append_support(store.support, i)
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
        h[k, q] = v_dot_x + step * diag[i]
        n_matrix[k] = q + 1
    for r in range(q):
        h[k, r] += step * kappa[r]
    v_coef[k, pos] += step
    coef[k, pos] = v_coef[k, pos]
    _add_matrix_part(D[k], slots[k], h[k], n_matrix[k], v_coef[k], coef[k], b)
    return HODualStore(store.provider, store.support, coef, store.c,
                       store.sparse, v_coef, (D, slots, h, n_matrix),
                       work), False


register_on_mistake(HODualStore, _dual_mistake)
