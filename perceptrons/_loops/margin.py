r"""Perceptrons with fixed and dynamic margin (Panagiotakopoulos & Tsampouka).

One binary problem at a time, in the augmented and reflected space of the
paper: pattern k is :math:`y_k = [l_k x_k,\ l_k \rho,\ l_k \Delta e_k]`, where
the last block is the extension of Sec. 5 (one extra coordinate per training
instance, :math:`e_k` the k-th unit vector; Δ = 0 switches it off). The
weight vector :math:`a = [w, b, a_{\mathrm{ext}}]` is never materialised in
full: the extension block equals :math:`l_k \Delta c_k` where :math:`c_k` is
the number of updates made on example k, so

.. math::

    a \cdot y_k = l_k (w \cdot x_k + b \rho) + \Delta^2 c_k, \qquad
    \|y_k\|^2 = \|x_k\|^2 + \rho^2 + \Delta^2,

and :math:`\|a\|^2` is kept incrementally,
:math:`\|a + \lambda y_k\|^2 = \|a\|^2 + 2\lambda\, a\cdot y_k + \lambda^2
\|y_k\|^2`. An update costs O(nnz(x_k)).

Two misclassification conditions share the loops (they differ in one scalar
threshold and in the λ of a multiple update, so one loop serves both rather
than duplicating the active-set driver): PDM, Eq. (8),
:math:`a_t \cdot y_k \le (1-\epsilon)\|a_t\|^2/t` (threshold 0 at t = 0),
and PFM, Eq. (7), :math:`a_t \cdot y_k \le \beta \|a_t\|`.

The active-set schedule of Sec. 4 (:func:`active_set_epoch`) is written once
for any pass with the signature of :func:`margin_pass`'s first four
arguments; ROMMA (:mod:`perceptrons._loops.romma`) uses it too.

References
----------
C. Panagiotakopoulos and P. Tsampouka. The perceptron with dynamic margin.
ALT 2011, LNCS 6925, pp. 204-218.
"""

import numpy as np
from numba import njit

from ._common import prefetch_ahead, row_axpy, row_dot

__all__ = ["RULE_PDM", "RULE_PFM", "active_set_epoch",
           "condition_threshold", "margin_epoch", "margin_pass",
           "n_multiple_updates"]

#: Condition (8) of the paper, parameter ε.
RULE_PDM = 0
#: Condition (7) of the paper, parameter β.
RULE_PFM = 1

# A multiple update never adds more than this many updates at once (guards
# the int64 counters against a degenerate quadratic).
_MAX_LAMBDA = 1 << 40


@njit(cache=True)
def condition_threshold(rule, param, sq_norm_a, t):
    """Right-hand side of the misclassification condition.

    Parameters
    ----------
    rule : int
        ``RULE_PDM`` or ``RULE_PFM``.
    param : float
        ε for PDM, β for PFM.
    sq_norm_a : float
        :math:`\\|a_t\\|^2`.
    t : int
        Updates made so far.

    Returns
    -------
    float
        :math:`(1-\\epsilon)\\|a_t\\|^2/t` (0 when t = 0) for PDM, Eq. (8);
        :math:`\\beta\\|a_t\\|` for PFM, Eq. (7).
    """
    if rule == RULE_PDM:
        if t == 0:
            return 0.0
        return (1.0 - param) * sq_norm_a / t
    return param * np.sqrt(sq_norm_a)


@njit(cache=True)
def n_multiple_updates(rule, param, ay, yy, sq_norm_a, t):
    """λ = [μ₊] + 1 of Sec. 4: updates on one pattern done at once.

    μ₊ is the smallest non-negative μ at which the pattern stops satisfying
    the condition after μ further updates with it. For PDM it is the
    non-negative root of
    ``(t+μ)(a·y + μ‖y‖²) - (1-ε)(‖a‖² + 2μ a·y + μ²‖y‖²) = 0``, i.e. of
    ``ε‖y‖² μ² + (t‖y‖² + (2ε-1) a·y) μ + (t a·y - (1-ε)‖a‖²) = 0``.
    For PFM it is the root of ``a·y + μ‖y‖² = β‖a + μy‖`` where the left
    side is non-negative: ``μ₊ = (-a·y + β √((‖y‖²‖a‖² - (a·y)²) /
    (‖y‖² - β²))) / ‖y‖²``.

    Parameters
    ----------
    rule : int
    param : float
        ε or β.
    ay, yy, sq_norm_a : float
        :math:`a_t\\cdot y_k`, :math:`\\|y_k\\|^2`, :math:`\\|a_t\\|^2`; the
        pattern satisfies the condition.
    t : int

    Returns
    -------
    int
        λ ≥ 1 (1 when the quadratic is degenerate: ‖y‖ = 0, or β ≥ ‖y‖).
    """
    if yy <= 0.0:
        return 1
    if rule == RULE_PDM:
        eps = param
        qa = eps * yy
        qb = t * yy + (2.0 * eps - 1.0) * ay
        qc = t * ay - (1.0 - eps) * sq_norm_a
        if qa <= 0.0 or qc >= 0.0:
            return 1
        root = np.sqrt(qb * qb - 4.0 * qa * qc)
        if qb >= 0.0:
            mu = -2.0 * qc / (qb + root)
        else:
            mu = (root - qb) / (2.0 * qa)
    else:
        beta = param
        gap = yy - beta * beta
        if gap <= 0.0:
            return 1
        s = yy * sq_norm_a - ay * ay
        if s < 0.0:
            s = 0.0
        mu = (beta * np.sqrt(s / gap) - ay) / yy
    if not mu >= 0.0:  # also catches NaN
        return 1
    if mu >= _MAX_LAMBDA:
        return _MAX_LAMBDA
    return int(mu) + 1


@njit(cache=True)
def margin_pass(rows, n_rows, collect_factor, collected, X_data, X_indices,
                X_indptr, signs, y_sq_norms, rho, delta_sq, rule, param,
                multiple, w, ab, t, counts):
    """Present ``rows[:n_rows]`` once, updating whenever the condition holds.

    The first four arguments are those that :func:`active_set_epoch`
    varies from pass to pass; the rest are passed through.

    Parameters
    ----------
    rows : ndarray of shape (>= n_rows,), int64
        Rows to present, in order.
    n_rows : int
    collect_factor : float
        c > 0: write to ``collected`` every row presented with
        ``a·y_k <= c * threshold`` (before its update), building the next
        active set (Sec. 4); 0: collect nothing.
    collected : ndarray of shape (>= n_rows,), int64
        Output of the collection (unused when ``collect_factor == 0``).
    X_data, X_indices, X_indptr
        The data matrix (see :mod:`perceptrons._loops._common`).
    signs : ndarray of shape (n_samples,), float64
        Label :math:`l_k \\in \\{-1, +1\\}` of each row.
    y_sq_norms : ndarray of shape (n_samples,), float64
        :math:`\\|y_k\\|^2 = \\|x_k\\|^2 + \\rho^2 + \\Delta^2`.
    rho, delta_sq : float
        Augmentation ρ and squared extension Δ².
    rule : int
        ``RULE_PDM`` (Eq. 8) or ``RULE_PFM`` (Eq. 7).
    param : float
        ε or β.
    multiple : int
        1: make λ = [μ₊] + 1 updates at once (Sec. 4); 0: one update.
    w : ndarray of shape (n_features,), float64
        Non-augmented part of a, updated in place.
    ab : ndarray of shape (2,), float64
        ``[b, ‖a‖²]``: the augmented coordinate of a and the squared norm
        of the whole (extended) a, updated in place.
    t : ndarray of shape (1,), int64
        Updates made so far, updated in place.
    counts : ndarray of shape (n_samples,), int64
        :math:`c_k`, updates made on each row, updated in place.

    Returns
    -------
    n_updates : int
        Updates made (a multiple update counts λ).
    n_collected : int
        Rows written to ``collected``.
    n_mistakes : int
        Rows presented that the hyperplane misclassified before their
        update, ``l_k (w·x_k + bρ) <= 0`` (ties are mistakes).
    """
    n_updates = 0
    n_collected = 0
    n_mistakes = 0
    b = ab[0]
    sq_norm_a = ab[1]
    tt = t[0]
    for step in range(n_rows):
        prefetch_ahead(rows, step, n_rows, X_data, X_indices, X_indptr,
                       signs, y_sq_norms, counts)
        i = rows[step]
        s = signs[i]
        # The prediction on x_k itself: its extension coordinate is not
        # part of a test point.
        label_margin = s * (row_dot(w, X_data, X_indices, X_indptr, i)
                            + b * rho)
        n_mistakes += label_margin <= 0.0
        ay = label_margin + delta_sq * counts[i]
        threshold = condition_threshold(rule, param, sq_norm_a, tt)
        if collect_factor > 0.0 and ay <= collect_factor * threshold:
            collected[n_collected] = i
            n_collected += 1
        if ay <= threshold:
            yy = y_sq_norms[i]
            lam = 1
            if multiple:
                lam = n_multiple_updates(rule, param, ay, yy, sq_norm_a, tt)
            step_size = s * lam
            row_axpy(w, step_size, X_data, X_indices, X_indptr, i)
            b += step_size * rho
            counts[i] += lam
            sq_norm_a += lam * (2.0 * ay + lam * yy)
            if sq_norm_a < 0.0:
                sq_norm_a = 0.0
            tt += lam
            n_updates += lam
    ab[0] = b
    ab[1] = sq_norm_a
    t[0] = tt
    return n_updates, n_collected, n_mistakes


@njit(inline="always")
def active_set_epoch(pass_fn, full_args, active_args, order, active_sets,
                     c1, c2, n_ep1, n_ep2, n_ep3, level1, level2, level3,
                     stats):
    """One full pass, then (optionally) the nested active-set rounds of Sec. 4.

    The driver shared by PDM/PFM (:func:`margin_epoch`) and ROMMA
    (:func:`perceptrons._loops.romma.romma_epoch`). It is inlined into
    them at numba's IR level, so ``pass_fn`` resolves to a direct call of a
    module-level loop and each caller is compiled and cached as a plain
    loop of arrays and scalars (a jitted function passed as a run-time
    argument would make the caller uncacheable).

    The full pass presents ``order`` and collects the first-level active set
    (``a·y <= c1 * threshold``). Up to ``n_ep1`` times, the first-level set
    is presented, collecting the second level (``c2``); after each such
    pass, up to ``n_ep2`` times the second level is presented, collecting
    the third (factor 1, the condition itself), which is then presented up
    to ``n_ep3`` times. A round whose pass makes no update ends its level
    early. The caller then starts the next full epoch; the run has converged
    when a full pass makes no update.

    Parameters
    ----------
    pass_fn : jitted function
        ``pass_fn(rows, n_rows, collect_factor, collected, *args) ->
        (n_updates, n_collected, n_mistakes)``: one pass over ``rows[:n_rows]``,
        writing the rows with ``a·y_k <= collect_factor * threshold`` to
        ``collected`` (nothing when ``collect_factor == 0``).
    full_args, active_args : tuple
        ``args`` of the full pass and of the active passes.
    order : ndarray of shape (n_samples,), int64
        Presentation order of the full pass.
    active_sets : int
        0: the full pass only (the plain algorithm).
    c1, c2 : float
        Factors of the first- and second-level sets (paper: 2.2 and 1.1).
    n_ep1, n_ep2, n_ep3 : int
        Rounds per level (paper: 9, 12, 12).
    level1, level2, level3 : ndarray of shape (n_samples,), int64
        Work space for the three active sets.
    stats : ndarray of shape (4,), int64
        Incremented in place: updates made in active passes, active passes
        made, rows presented in active passes, and mistakes (online
        prediction mistakes) in every pass, the full one included.

    Returns
    -------
    int
        Updates made in the full pass (0 means converged).
    """
    n = order.shape[0]
    collect = c1 if active_sets else 0.0
    full_updates, n1, m = pass_fn(order, n, collect, level1, *full_args)
    stats[3] += m
    if not active_sets or full_updates == 0:
        return full_updates
    for _r1 in range(n_ep1):
        u1, n2, m = pass_fn(level1, n1, c2, level2, *active_args)
        stats[3] += m
        stats[0] += u1
        stats[1] += 1
        stats[2] += n1
        if u1 == 0:
            break
        for _r2 in range(n_ep2):
            u2, n3, m = pass_fn(level2, n2, 1.0, level3, *active_args)
            stats[3] += m
            stats[0] += u2
            stats[1] += 1
            stats[2] += n2
            if u2 == 0:
                break
            for _r3 in range(n_ep3):
                u3, _, m = pass_fn(level3, n3, 0.0, level3, *active_args)
                stats[3] += m
                stats[0] += u3
                stats[1] += 1
                stats[2] += n3
                if u3 == 0:
                    break
    return full_updates


@njit(cache=True)
def margin_epoch(X_data, X_indices, X_indptr, signs, y_sq_norms, order,
                 rho, delta_sq, rule, param, multiple_full, multiple_active,
                 active_sets, c1, c2, n_ep1, n_ep2, n_ep3,
                 w, ab, t, counts, level1, level2, level3, stats):
    """One full epoch of PDM/PFM with the active sets of Sec. 4.

    :func:`active_set_epoch` over :func:`margin_pass`.

    Parameters
    ----------
    X_data, X_indices, X_indptr, signs, y_sq_norms, rho, delta_sq, rule, param
        As in :func:`margin_pass`.
    order : ndarray of shape (n_samples,), int64
        Presentation order of the full epoch.
    multiple_full, multiple_active : int
        Multiple updates (0/1) in the full pass and in the active passes.
    active_sets, c1, c2, n_ep1, n_ep2, n_ep3, level1, level2, level3, stats
        As in :func:`active_set_epoch`.
    w, ab, t, counts
        The state, as in :func:`margin_pass`.

    Returns
    -------
    int
        Updates made in the full pass (0 means converged).
    """
    data = (X_data, X_indices, X_indptr, signs, y_sq_norms, rho, delta_sq,
            rule, param)
    state = (w, ab, t, counts)
    return active_set_epoch(
        margin_pass, (*data, multiple_full, *state),
        (*data, multiple_active, *state), order, active_sets, c1, c2, n_ep1,
        n_ep2, n_ep3, level1, level2, level3, stats)
