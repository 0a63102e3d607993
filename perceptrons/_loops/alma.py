r"""Gentile's ALMA_p(α; B, C), one pass per call.

The rule (Figure 1 of Gentile, JMLR 2001), for one binary problem, with
instances normalised to ``‖x̂‖_p = 1``, ``w_1 = 0`` and ``k = 1``: on each
example, with ``γ_k = B √(p-1)/√k``,

    if  y w_k·x̂ <= (1 - α) γ_k:
        η_k = C / (√(p-1) √k),
        w' = f⁻¹(f(w_k) + η_k y x̂),
        w_{k+1} = w' / max(1, ‖w'‖_q),   k ← k + 1,

where ``q = p/(p-1)`` and ``f = ∇½‖·‖²_q`` is the p-norm link, whose
inverse is ``f⁻¹ = ∇½‖·‖²_p`` (:func:`~perceptrons._loops.higher_order.p_norm_gradient`,
the link of the p-norm Perceptron HO_p(0)).

Both loops keep the *dual* vector ``θ = f(w)`` instead of w. f is
homogeneous of degree 1 and ``‖f⁻¹(θ)‖_q = ‖θ‖_p``, so the step above is

    θ' = θ_k + η_k y x̂,   N = max(1, ‖θ'‖_p),   θ_{k+1} = θ'/N,
    w_{k+1} = f⁻¹(θ_{k+1}),

which is the paper's rule with f applied once, not at every step
(``tests/reference/alma.py`` transcribes the w-form line by line, and the
two agree to rounding).

* :func:`alma2_epoch` (p = 2, where f is the identity and w = θ), for
  either storage of :mod:`perceptrons._loops.storage`: weight rows, or
  coefficients over a support set with a Mercer kernel (the paper's kernel
  form of ALMA_2, Sec. 5: the normalisation by ``‖w'‖`` in feature space).
  ``w = s u`` is kept as a scale times a vector (scikit-learn's
  ``WeightVector.wscale``), and ``‖w'‖² = ‖w‖² + 2 η y w·x̂ + η² ‖x̂‖²``
  (``‖x̂‖ = 1``) is updated in O(1) from the trial's ``w·x̂``, so a
  correction costs what adding a row costs: O(nnz(x)) in the primal form,
  O(1) beyond the trial's kernel row in the dual form. ``s`` is multiplied
  out when it falls below 1e-9 and at the end of every pass.
* :func:`almap_epoch` (any p >= 2, primal): θ and ``w = f⁻¹(θ)`` over the
  features, the bias coordinate last; a correction costs O(d) (the norm
  ``‖θ'‖_p`` and the link change every coordinate of w), a trial O(nnz(x)).

The bias. A problem's vector has one more coordinate than the features,
``b``; row i's augmented instance is ``[x_i, ρ]`` and its normalised one
``x̂_i = [x_i, ρ]/‖[x_i, ρ]‖_p``. The loops read the rows as they are and
two per-row factors: ``row_scale[i]`` multiplies the row's inner products
(``1/‖[x_i, ρ]‖_p`` in the primal form; 1 in the dual form, whose kernel
values arrive normalised) and ``bias_coord[i] = ρ/‖[x_i, ρ]‖_p`` is x̂_i's
bias coordinate (0 without an intercept). A row with ``row_scale[i] = 0``
(an all-zero row without an intercept: x̂ is undefined) is skipped: no
trial, no correction, k unchanged.

Weighted rows: a row of weight s makes the same test and the step
``s η_k`` (k still grows by one per correction).

Labels: one problem reads ``targets[i] == 1`` as y = +1 (else -1); K
problems (one-vs-rest) read ``targets[i] == r`` as y = +1 in problem r.

References
----------
C. Gentile. A new approximate maximal margin classification algorithm.
JMLR 2:213-242, 2001.
"""

import numpy as np
from numba import njit

from ._common import row_axpy, row_dot
from .higher_order import p_norm_gradient
from .storage import add_example, begin_pass, n_columns, raw_scores, \
    storage_loop

__all__ = ["alma2_epoch", "almap_epoch", "augmented_p_norms", "p_norm"]

# The lazy scale s of alma2_epoch is multiplied out below this.
_SCALE_MIN = 1e-9


@njit(cache=True)
def p_norm(v, p):
    """``‖v‖_p`` (p >= 1), scaled by the largest ``|v_j|`` so that
    ``|v_j|^p`` cannot overflow.

    Parameters
    ----------
    v : ndarray of shape (n,), float64
    p : float

    Returns
    -------
    float
    """
    big = 0.0
    for j in range(v.shape[0]):
        a = abs(v[j])
        if a > big:
            big = a
    if big == 0.0:
        return 0.0
    total = 0.0
    for j in range(v.shape[0]):
        total += (abs(v[j]) / big) ** p
    return big * total ** (1.0 / p)


@njit(cache=True)
def augmented_p_norms(X_data, X_indices, X_indptr, n_rows, p, rho, out):
    """``out[i] = ‖[x_i, ρ]‖_p`` for every row, in float64.

    Scaled by the row's largest ``|x_ij|`` (and ρ), so that no power
    overflows. A CSR row sums the same non-zero terms in the same order as
    its dense twin (zeros add exactly nothing), so both give the same bits,
    and float32 rows give the bits of their float64 values.

    Parameters
    ----------
    X_data, X_indices, X_indptr : ndarray
        The rows (:mod:`perceptrons._loops._common`).
    n_rows : int
    p : float
    rho : float
        The constant coordinate (0: none).
    out : ndarray of shape (n_rows,), float64
        Output.
    """
    for i in range(n_rows):
        big = abs(rho)
        if X_data.ndim == 2:
            for j in range(X_data.shape[1]):
                a = abs(np.float64(X_data[i, j]))
                if a > big:
                    big = a
        else:
            for e in range(X_indptr[i], X_indptr[i + 1]):
                a = abs(np.float64(X_data[e]))
                if a > big:
                    big = a
        if big == 0.0:
            out[i] = 0.0
            continue
        total = 0.0
        if X_data.ndim == 2:
            for j in range(X_data.shape[1]):
                total += (abs(np.float64(X_data[i, j])) / big) ** p
        else:
            for e in range(X_indptr[i], X_indptr[i + 1]):
                total += (abs(np.float64(X_data[e])) / big) ** p
        if rho != 0.0:
            total += (abs(rho) / big) ** p
        out[i] = big * total ** (1.0 / p)


@njit(cache=True, inline="always")
def _label(targets, i, r, n_problems):
    """y of row i in problem r (module notes)."""
    if n_problems == 1:
        return 1.0 if targets[i] == 1 else -1.0
    return 1.0 if targets[i] == r else -1.0


@njit(cache=True, inline="always")
def _schedule(k, p, alpha, B, C):
    """``((1 - α) γ_k, η_k)`` of Figure 1 for the k-th correction."""
    root = np.sqrt(p - 1.0) if p != 2.0 else 1.0
    sk = np.sqrt(float(k))
    return (1.0 - alpha) * (B * root / sk), C / (root * sk)


@njit(cache=True, inline="always")
def _multiply_out(store, bias, scale, r):
    """``u_r ← s_r u_r``, ``s_r ← 1`` (the lazy scale made explicit)."""
    s = scale[r]
    if s != 1.0:
        for c in range(n_columns(store)):
            store.current[r, c] *= s
        bias[r] *= s
        scale[r] = 1.0


@storage_loop
def alma2_epoch(store, targets, order, weights, row_scale, bias_coord, bias,
                sq_norm, corrections, params, scores, scale):
    """One pass of ALMA_2(α; B, C) (Figure 1, p = 2) over ``order``.

    Parameters
    ----------
    store : PrimalStore or DualStore
        The feature part of each problem's w (:mod:`perceptrons._loops.storage`),
        one row per problem, updated in place.
    targets : ndarray of shape (n_samples,), int64
        Class indices (module notes).
    order : ndarray of shape (n_steps,), int64
        Rows to present, in order.
    weights : ndarray of shape (n_samples,) or (0,), float64
        Each row's weight s, multiplying its step (empty: every weight 1).
    row_scale, bias_coord : ndarray of shape (n_samples,), float64
        The normalisation of each row and its bias coordinate (module
        notes).
    bias : ndarray of shape (n_problems,), float64
        The bias coordinate b of each w, updated in place.
    sq_norm : ndarray of shape (n_problems,), float64
        ``‖w‖²`` of each problem, kept up to date.
    corrections : ndarray of shape (n_problems,), int64
        Corrections so far (``k - 1``), updated in place.
    params : tuple of float
        ``(alpha, B, C)``.
    scores, scale : ndarray of shape (n_problems,), float64
        Work space (``scale`` all ones on entry; ones on exit).

    Returns
    -------
    n_mistakes : int
        Trials with ``y w_k·x̂ <= 0``, summed over problems.
    n_updates : int
        Corrections, summed over problems.
    """
    alpha, B, C = params
    n_problems = bias.shape[0]
    n_mistakes = 0
    n_updates = 0
    ctx = begin_pass(store)
    for step in range(order.shape[0]):
        i = order[step]
        rs = row_scale[i]
        if rs == 0.0:
            continue
        ctx = raw_scores(store, ctx, order, step, scores)
        bc = bias_coord[i]
        for r in range(n_problems):
            y = _label(targets, i, r, n_problems)
            # y w_k·x̂, w = s (u, b).
            m = y * (scale[r] * (scores[r] * rs + bias[r] * bc))
            if m <= 0.0:
                n_mistakes += 1
            threshold, eta = _schedule(corrections[r] + 1, 2.0, alpha, B, C)
            if m > threshold:
                continue
            if weights.shape[0] != 0:
                eta = eta * weights[i]
            # ‖w + η y x̂‖² = ‖w‖² + 2 η (y w·x̂) + η² (‖x̂‖ = 1).
            wsq = sq_norm[r] + 2.0 * eta * m + eta * eta
            norm = np.sqrt(wsq) if wsq > 0.0 else 0.0
            a = eta * y / scale[r]
            add_example(store, r, a * rs, i)
            bias[r] += a * bc
            if norm > 1.0:
                scale[r] = scale[r] / norm
                wsq = wsq / (norm * norm)
            sq_norm[r] = wsq
            corrections[r] += 1
            n_updates += 1
            if scale[r] < _SCALE_MIN:
                _multiply_out(store, bias, scale, r)
    for r in range(n_problems):
        _multiply_out(store, bias, scale, r)
    return n_mistakes, n_updates


@njit(cache=True)
def almap_epoch(X_data, X_indices, X_indptr, targets, order, weights,
                row_scale, bias_coord, theta, w, sq_norm, corrections, p,
                params):
    """One pass of ALMA_p(α; B, C) (Figure 1, any p >= 2, primal form).

    Parameters
    ----------
    X_data, X_indices, X_indptr : ndarray
        The rows (:mod:`perceptrons._loops._common`), n_features columns.
    targets, order, weights, row_scale, bias_coord, corrections
        As :func:`alma2_epoch`.
    theta : ndarray of shape (n_problems, n_features + 1), float64
        ``θ = f(w)`` of each problem, the bias coordinate last; updated in
        place.
    w : ndarray of shape (n_problems, n_features + 1), float64
        ``w = f⁻¹(θ)``, kept equal to it.
    sq_norm : ndarray of shape (n_problems,), float64
        ``‖w‖²_q = ‖θ‖²_p``, written after each correction.
    p : float
    params : tuple of float
        ``(alpha, B, C)``.

    Returns
    -------
    n_mistakes, n_updates : int
        As :func:`alma2_epoch`.
    """
    alpha, B, C = params
    n_problems = theta.shape[0]
    d = theta.shape[1] - 1
    n_mistakes = 0
    n_updates = 0
    for step in range(order.shape[0]):
        i = order[step]
        rs = row_scale[i]
        if rs == 0.0:
            continue
        bc = bias_coord[i]
        for r in range(n_problems):
            y = _label(targets, i, r, n_problems)
            wr = w[r]
            m = y * (row_dot(wr, X_data, X_indices, X_indptr, i) * rs
                     + wr[d] * bc)
            if m <= 0.0:
                n_mistakes += 1
            threshold, eta = _schedule(corrections[r] + 1, p, alpha, B, C)
            if m > threshold:
                continue
            if weights.shape[0] != 0:
                eta = eta * weights[i]
            tr = theta[r]
            a = eta * y
            row_axpy(tr, a * rs, X_data, X_indices, X_indptr, i)
            tr[d] += a * bc
            norm = p_norm(tr, p)
            if norm > 1.0:
                for j in range(d + 1):
                    tr[j] = tr[j] / norm
                norm = 1.0
            sq_norm[r] = norm * norm
            p_norm_gradient(tr, p, wr)
            corrections[r] += 1
            n_updates += 1
    return n_mistakes, n_updates
