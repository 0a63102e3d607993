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
* :func:`almap_epoch` (any p >= 2, primal): θ over the features, the bias
  coordinate last, kept as ``θ = s u`` with ``S = Σ|u_j|^p`` and the
  link's direction ``z = sign(u)|u|^{p-1}`` (so ``w = f⁻¹(θ) =
  s z/S^{(p-2)/p}``); a trial and a correction cost O(nnz(x)) (power
  evaluations on the row's non-zeros), the exact S O(d) once per pass.

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

Averaged hypothesis (``averaged=True``): the loops also keep
``Σ_t w_t``, w after every step (skipped rows included), without an O(d)
step, the way the Ballseptron's loops do: as ``summed + β u`` for p = 2
(each step adds s to β; a correction ``u += a x̂`` takes ``β a x̂`` off
``summed``) and as ``summed + β z`` for p > 2 (each step adds
``s/S^{(p-2)/p}``; a change of z_j takes β times it off ``summed_j``),
folded in at the end of the pass, before u is multiplied out or z
recomputed, and when the per-step factor has moved by a factor 1e4 since
the last fold (bounding the rounding of the sum to about 1e4 eps). Folds
never touch u or z, so the corrections are those of ``averaged=False``
bit for bit.

Labels (:func:`~perceptrons._loops.targets.problem_sign`): one problem
reads ``targets[i] == 1`` as y = +1 (else -1); K problems (one-vs-rest)
read ``targets[i] == r`` as y = +1 in problem r; a multi-label y's labels
±1 (int8, one column per problem) are read as they are, ``targets[i, r]``
in problem r. The mistakes are counted per problem either way.

References
----------
C. Gentile. A new approximate maximal margin classification algorithm.
JMLR 2:213-242, 2001.
"""

import numpy as np
from numba import njit

from ._common import row_dot
from .lazy import CANCEL, FOLD, SCALE_MIN, fold_row, scale_row
from .storage import add_example, add_example_sum, admits, begin_pass, \
    norm_change, norm_factor, raw_scores, set_scale, settle_norms, \
    storage_loop
from .targets import problem_sign

__all__ = ["alma2_epoch", "almap_epoch", "augmented_p_norms"]

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
        scale_row(store, r, s)
        bias[r] *= s
        scale[r] = 1.0


@njit(cache=True, inline="always")
def _fold(store, bias, summed_bias, beta, r):
    """``Σ_t w_t = summed + β u`` made explicit: ``summed += β u``, β = 0."""
    b = beta[r]
    if b != 0.0:
        fold_row(store, r, b)
        summed_bias[r] += b * bias[r]
        beta[r] = 0.0


@storage_loop
def alma2_epoch(store, targets, order, weights, row_scale, bias_coord, bias,
                sq_norm, corrections, params, scores, scale, averaged,
                summed_bias, lazy):
    """One pass of ALMA_2(α; B, C) (Figure 1, p = 2) over ``order``.

    Parameters
    ----------
    store : PrimalStore or DualStore
        The feature part of each problem's w (:mod:`perceptrons._loops.storage`),
        one row per problem, updated in place; ``summed`` holds the
        running sum of the hypotheses (averaged only).
    targets : ndarray of shape (n_samples,) or (n_samples, n_problems)
        Class indices (int64), or a multi-label y's labels ±1 (int8)
        (module notes).
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
    averaged : bool
        Add the hypothesis after every step (skipped rows included) to
        ``store.summed`` and ``summed_bias``.
    summed_bias : ndarray of shape (n_problems,), float64
        The running sum of the bias coordinate (averaged only).
    lazy : ndarray of shape (2, n_problems), float64
        Work space of the lazy sum (module notes).

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
    # Averaged: Σ_t w_t = summed + β u, with w = s u; fold_at is s at the
    # last fold.
    beta, fold_at = lazy[0], lazy[1]
    for r in range(n_problems):
        beta[r] = 0.0
        fold_at[r] = 1.0
    ctx = begin_pass(store)
    for step in range(order.shape[0]):
        i = order[step]
        rs = row_scale[i]
        if rs == 0.0:
            if averaged:
                for r in range(n_problems):
                    beta[r] += scale[r]
            continue
        ctx = raw_scores(store, ctx, order, step, scores,
                         store.current.shape[0])
        bc = bias_coord[i]
        for r in range(n_problems):
            y = problem_sign(targets[i], r, n_problems)
            # y w_k·x̂, w = s (u, b).
            m = y * (scale[r] * (scores[r] * rs + bias[r] * bc))
            if m <= 0.0:
                n_mistakes += 1
            threshold, eta = _schedule(corrections[r] + 1, 2.0, alpha, B, C)
            if m <= threshold and admits(store, r, i):
                if weights.shape[0] != 0:
                    eta = eta * weights[i]
                # ‖w + η y x̂‖² = ‖w‖² + 2 η (y w·x̂) + η² (‖x̂‖ = 1).
                wsq = sq_norm[r] + 2.0 * eta * m + eta * eta
                norm = np.sqrt(wsq) if wsq > 0.0 else 0.0
                a = eta * y / scale[r]
                add_example(store, r, a * rs, i)
                bias[r] += a * bc
                if averaged:
                    # u += a x̂ leaves Σ_t w_t as it was: summed -= β a x̂.
                    add_example_sum(store, r, -beta[r] * (a * rs), i)
                    summed_bias[r] -= beta[r] * (a * bc)
                if norm > 1.0:
                    scale[r] = scale[r] / norm
                    wsq = wsq / (norm * norm)
                sq_norm[r] = wsq
                corrections[r] += 1
                n_updates += 1
                if scale[r] < SCALE_MIN:
                    if averaged:
                        _fold(store, bias, summed_bias, beta, r)
                        fold_at[r] = 1.0
                    _multiply_out(store, bias, scale, r)
                elif averaged and scale[r] * FOLD < fold_at[r]:
                    _fold(store, bias, summed_bias, beta, r)
                    fold_at[r] = scale[r]
                # A budget makes room (b follows the coefficients: the
                # bias coordinate is part of each support vector), and
                # ‖w‖² with it.
                set_scale(store, r, scale[r])
                if settle_norms(store):
                    f = norm_factor(store, r)
                    sq_norm[r] = (f * f * sq_norm[r] + scale[r] * scale[r]
                                  * norm_change(store, r, r))
            if averaged:
                beta[r] += scale[r]
    for r in range(n_problems):
        if averaged:
            _fold(store, bias, summed_bias, beta, r)
        _multiply_out(store, bias, scale, r)
    return n_mistakes, n_updates


@njit(cache=True, inline="always")
def _power_terms(v, p, z):
    """``Σ_j |v_j|^p``, with ``z_j = sign(v_j)|v_j|^{p-1}`` written."""
    total = 0.0
    for j in range(v.shape[0]):
        a = abs(v[j])
        t = a ** (p - 1.0)
        z[j] = t if v[j] >= 0.0 else -t
        total += t * a
    return total


@njit(cache=True, inline="always")
def _move(u, z, j, delta, p, averaged, summed, big_b):
    """``u_j += delta``, ``z_j`` refreshed (averaged: ``summed_j`` loses
    ``B`` times z_j's change); returns ``|u_j|^p`` before and after."""
    a = abs(u[j])
    before = a ** (p - 1.0) * a
    u[j] += delta
    a = abs(u[j])
    t = a ** (p - 1.0)
    zj = t if u[j] >= 0.0 else -t
    if averaged:
        summed[j] -= big_b * (zj - z[j])
    z[j] = zj
    return before, t * a


@njit(cache=True, inline="always")
def _explicit_scale(u, z, summed, r, p, averaged, scale, S, big_b, fold_at):
    """``u ← s u``, ``s ← 1``, S and z recomputed (averaged: the lazy sum
    folded in first, since z changes)."""
    if averaged:
        _fold_z(summed, z, big_b[r])
        big_b[r] = 0.0
        fold_at[r] = 0.0
    _multiply_out_theta(u, scale, r)
    S[r] = _power_terms(u, p, z)


@njit(cache=True, inline="always")
def _fold_z(summed, z, big_b):
    """``summed += B z`` (the lazy sum made explicit)."""
    if big_b != 0.0:
        for j in range(z.shape[0]):
            summed[j] += big_b * z[j]


@njit(cache=True)
def almap_epoch(X_data, X_indices, X_indptr, targets, order, weights,
                row_scale, bias_coord, theta, z, sq_norm, corrections, p,
                params, averaged, summed):
    """One pass of ALMA_p(α; B, C) (Figure 1, any p >= 2, primal form).

    ``θ = s u`` is kept as a scale times a vector, with
    ``S = Σ_j |u_j|^p`` and ``z_j = sign(u_j)|u_j|^{p-1}``, so that
    ``w = f⁻¹(θ) = s z / S^{(p-2)/p}`` (f⁻¹ is homogeneous) is never formed:
    a trial is ``w·x̂ = s (z·x̂)/S^{(p-2)/p}`` and a correction touches the
    row's non-zeros of u, z and S only, O(nnz(x)) power evaluations. S is
    recomputed in O(d) at the start of the pass and whenever its update
    cancels (below 1% of its terms); ``s`` is multiplied out when it falls
    below ``max(1e-9, 10^(-250/p))``, before a step that would take some
    ``|u_j|`` above ``10^(250/p)`` (keeping ``|u_j|^p`` below 1e250), and
    at the end of the pass.

    Parameters
    ----------
    X_data, X_indices, X_indptr : ndarray
        The rows (:mod:`perceptrons._loops._common`), n_features columns.
    targets, order, weights, row_scale, bias_coord, corrections
        As :func:`alma2_epoch`.
    theta : ndarray of shape (n_problems, n_features + 1), float64
        ``θ = f(w)`` of each problem, the bias coordinate last; updated in
        place (``s = 1`` on exit).
    z : ndarray of shape (n_problems, n_features + 1), float64
        Work space.
    sq_norm : ndarray of shape (n_problems,), float64
        ``‖w‖²_q = ‖θ‖²_p``, written after each correction.
    p : float
    params : tuple of float
        ``(alpha, B, C)``.
    averaged : bool
        Keep the running sum of the hypotheses ``w_t`` (after every step,
        skipped rows included) in ``summed``: lazily, as ``summed + Σβ z``
        with ``β = s/S^{(p-2)/p}`` per step; a change of z_j takes
        ``Σβ`` times it off ``summed_j``, and the sum is folded in when z
        is recomputed, when β has moved by a factor 1e4 and at the end of
        the pass.
    summed : ndarray of shape (n_problems, n_features + 1), float64
        The running sum of ``w`` (bias coordinate last); averaged only.

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
    s_min = max(SCALE_MIN, 10.0 ** (-250.0 / p))
    # |u_j| below this keeps |u_j|^p below 1e250.
    u_max = 10.0 ** (250.0 / p)
    e = (p - 2.0) / p
    scale = np.ones(n_problems)
    S = np.empty(n_problems)
    # Averaged: Σ_t w_t = summed + big_b z; fold_at is β at the last fold.
    big_b = np.zeros(n_problems)
    fold_at = np.zeros(n_problems)
    for r in range(n_problems):
        S[r] = _power_terms(theta[r], p, z[r])
    for step in range(order.shape[0]):
        i = order[step]
        rs = row_scale[i]
        bc = bias_coord[i]
        for r in range(n_problems):
            if rs == 0.0:
                if averaged and S[r] > 0.0:
                    big_b[r] += scale[r] / S[r] ** e
                continue
            y = problem_sign(targets[i], r, n_problems)
            zr, ur = z[r], theta[r]
            sr = summed[r] if averaged else zr
            m = 0.0
            if S[r] > 0.0:
                dot = (row_dot(zr, X_data, X_indices, X_indptr, i) * rs
                       + zr[d] * bc)
                m = y * (scale[r] * dot / S[r] ** e)
            if m <= 0.0:
                n_mistakes += 1
            threshold, eta = _schedule(corrections[r] + 1, p, alpha, B, C)
            if m <= threshold:
                if weights.shape[0] != 0:
                    eta = eta * weights[i]
                a = eta * y / scale[r]
                # The largest |u_j| the step could leave.
                reach = abs(ur[d]) + abs(a * bc)
                if X_data.ndim == 2:
                    for j in range(d):
                        xv = X_data[i, j]
                        if xv != 0.0:
                            v = abs(ur[j]) + abs(a * rs * xv)
                            if v > reach:
                                reach = v
                else:
                    for q in range(X_indptr[i], X_indptr[i + 1]):
                        v = abs(ur[X_indices[q]]) + abs(a * rs * X_data[q])
                        if v > reach:
                            reach = v
                if reach > u_max:
                    # The step would take some |u_j|^p out of range: make
                    # the scale explicit first (|u_j| <= ‖θ‖_p then).
                    _explicit_scale(ur, zr, sr, r, p, averaged, scale, S,
                                    big_b, fold_at)
                    a = eta * y
                bb = big_b[r]
                removed = 0.0
                added = 0.0
                if X_data.ndim == 2:
                    for j in range(d):
                        xv = X_data[i, j]
                        if xv != 0.0:
                            before, after = _move(ur, zr, j, a * rs * xv, p,
                                                  averaged, sr, bb)
                            removed += before
                            added += after
                else:
                    for q in range(X_indptr[i], X_indptr[i + 1]):
                        before, after = _move(ur, zr, X_indices[q],
                                              a * rs * X_data[q], p,
                                              averaged, sr, bb)
                        removed += before
                        added += after
                if bc != 0.0:
                    before, after = _move(ur, zr, d, a * bc, p, averaged, sr,
                                          bb)
                    removed += before
                    added += after
                total = S[r] - removed + added
                if total < CANCEL * (S[r] + added):
                    if averaged:
                        _fold_z(sr, zr, big_b[r])
                        big_b[r] = 0.0
                        fold_at[r] = 0.0
                    total = _power_terms(ur, p, zr)
                S[r] = total
                norm = scale[r] * total ** (1.0 / p)
                if norm > 1.0:
                    scale[r] = scale[r] / norm
                    norm = 1.0
                sq_norm[r] = norm * norm
                corrections[r] += 1
                n_updates += 1
                if scale[r] < s_min:
                    _explicit_scale(ur, zr, sr, r, p, averaged, scale, S,
                                    big_b, fold_at)
            if averaged and S[r] > 0.0:
                b = scale[r] / S[r] ** e
                if fold_at[r] == 0.0:
                    fold_at[r] = b
                elif b > FOLD * fold_at[r] or b * FOLD < fold_at[r]:
                    _fold_z(sr, zr, big_b[r])
                    big_b[r] = 0.0
                    fold_at[r] = b
                big_b[r] += b
    for r in range(n_problems):
        if averaged:
            _fold_z(summed[r], z[r], big_b[r])
        _multiply_out_theta(theta[r], scale, r)
    return n_mistakes, n_updates


@njit(cache=True, inline="always")
def _multiply_out_theta(u, scale, r):
    s = scale[r]
    if s != 1.0:
        for j in range(u.shape[0]):
            u[j] *= s
        scale[r] = 1.0
