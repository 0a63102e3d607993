"""A budget's projections: the inverse Gram matrix of a group's members
and the policies that project a leaving vector on the others.

``K⁻¹`` of a group is kept by rank-one updates as members join
(:func:`hinv_insert`, the Projectron's Eq. (9)) and by the downdate
``H_ab -= H_aP H_Pb / H_PP`` as one leaves (:func:`hinv_remove`); from it,
``d = K⁻¹ k`` and ``δ²`` (:func:`span_coefficients`), the Projectron's and
the projection policy's admission of a new member
(:func:`admit_to_span`), BSGD's projection / BPA-P (:func:`project_out`)
and BPA-S / BPA-NN (:func:`bpa`). See :mod:`perceptrons._loops.budget`.
"""

import numpy as np
from numba import njit

from .budget_groups import (SPAN_ROUNDING, aug_self, coef_sq, coord,
                            drop_member, group_rows, shift, trial_by_position)

__all__ = ["admit_to_span", "bpa", "hinv_insert", "hinv_remove",
           "project_example", "project_out", "span_coefficients"]


@njit(cache=True)
def span_coefficients(budget, g, kt, ktt, exclude, d):
    """``d = K⁻¹ k`` over group g's matrix positions and ``δ² = k(x, x) -
    kᵀd``, the squared distance of φ(x) to the span of the members.

    Parameters
    ----------
    budget : Budget
    g : int
    kt : ndarray of shape (>= n,), float64
        ``k(x, x_member)`` by matrix position.
    ktt : float
        ``k(x, x)``.
    exclude : int
        A matrix position to leave out (the new member itself), or -1.
    d : ndarray of shape (>= n,), float64
        Output, by matrix position (0 at ``exclude``).

    Returns
    -------
    float
        δ², at least 0.
    """
    c = budget.count[g]
    H = budget.hinv[g]
    s = 0.0
    for a in range(c):
        if a == exclude:
            d[a] = 0.0
            continue
        t = 0.0
        for b in range(c):
            if b != exclude:
                t += H[a, b] * kt[b]
        d[a] = t
        s += kt[a] * t
    dsq = ktt - s
    return dsq if dsq > 0.0 else 0.0


@njit(cache=True)
def project_example(budget, provider, support, g, i, kt, d):
    """Row i against group g's span: ``d = K⁻¹ k`` by matrix position and
    ``(δ², ‖φ(x_i)‖²)`` (bias coordinates included)."""
    trial_by_position(budget, support, g, budget.coord[i], kt)
    ktt = aug_self(budget, provider, i)
    return span_coefficients(budget, g, kt, ktt, -1, d), ktt


@njit(cache=True)
def hinv_insert(budget, g, P, d, dsq):
    """``K⁻¹`` with position P joined, ``d = K⁻¹ k``, ``dsq = δ²`` (the
    Projectron's Eq. (9): the rank-one update of the inverse)."""
    H = budget.hinv[g]
    c = budget.count[g]
    inv = 1.0 / dsq
    for a in range(c):
        if a == P:
            continue
        da = d[a] * inv
        for b in range(c):
            if b != P:
                H[a, b] += da * d[b]
        H[a, P] = -da
        H[P, a] = -da
    H[P, P] = inv


@njit(cache=True)
def hinv_remove(budget, g, P):
    """``K⁻¹`` of the members without position P (before P is refilled):
    ``H_ab -= H_aP H_Pb / H_PP``."""
    H = budget.hinv[g]
    c = budget.count[g]
    hpp = H[P, P]
    for a in range(c):
        if a == P:
            continue
        ha = H[a, P] / hpp
        for b in range(c):
            if b != P:
                H[a, b] -= ha * H[P, b]


# ------------------------------------------------------------ projections
@njit(cache=True)
def admit_to_span(budget, provider, support, current, summed, g, track, dG,
                   projectron):
    """Put the group's new member into ``K⁻¹``, unless it lies in the span
    of the others: δ ≤ η for the Projectron, δ² below the rounding
    (:data:`SPAN_ROUNDING`) for the projection policy. Such a member is
    projected at once: ``α_q += α_new d_q`` and it leaves. Returns whether
    it was."""
    c = budget.count[g]
    j = c - 1
    P = budget.pos[g, j]
    kt = budget.work[1]
    d = budget.work[2]
    p = budget.members[g, j]
    ktt = aug_self(budget, provider, support.rows[p])
    if not ktt > 0.0:
        # φ(x) = 0: it lies in every span and scores 0 against all.
        budget.stats[1] += 1
        drop_member(budget, support, current, summed, g, j,
                     current.shape[0])
        return True
    trial_by_position(budget, support, g, coord(budget, support, p), kt)
    dsq = span_coefficients(budget, g, kt, ktt, P, d) if c > 1 else ktt
    if projectron:
        inside = np.sqrt(dsq) <= budget.threshold
    else:
        inside = dsq <= SPAN_ROUNDING * ktt
    if inside:
        # The projected update: α_q += α_new d_q (nothing with no others).
        lo, hi = group_rows(budget, g, current.shape[0])
        for a in range(lo, hi):
            ca = current[a, p]
            sa = summed[a, p] if summed.shape[1] > 0 else 0.0
            for k in range(c - 1):
                dq = d[budget.pos[g, k]]
                shift(budget, support, current, summed, a,
                       budget.members[g, k], ca * dq, sa * dq)
        if track:
            for a in range(lo, hi):
                for b in range(lo, hi):
                    dG[a, b] -= current[a, p] * current[b, p] * dsq
        budget.stats[1] += 1
        drop_member(budget, support, current, summed, g, j,
                     current.shape[0])
        return True
    if c == 1:
        budget.hinv[g][P, P] = 1.0 / ktt
    else:
        hinv_insert(budget, g, P, d, dsq)
    return False


@njit(cache=True)
def project_out(budget, support, current, summed, g, track, dG):
    """The old member of least ``‖α_p‖² / (K⁻¹)_pp`` leaves, projected
    onto the others."""
    n_rows = current.shape[0]
    lo, hi = group_rows(budget, g, n_rows)
    H = budget.hinv[g]
    c = budget.count[g]
    best = 0
    best_v = 0.0
    for j in range(c - 1):
        p = budget.members[g, j]
        P = budget.pos[g, j]
        v = coef_sq(current, p, lo, hi) / H[P, P]
        if j == 0 or v < best_v:
            best = j
            best_v = v
    p = budget.members[g, best]
    P = budget.pos[g, best]
    hpp = H[P, P]
    if track:
        for a in range(lo, hi):
            for b in range(lo, hi):
                dG[a, b] -= current[a, p] * current[b, p] / hpp
    for j in range(c):
        if j == best:
            continue
        q = budget.members[g, j]
        dq = -H[budget.pos[g, j], P] / hpp
        for a in range(lo, hi):
            sa = summed[a, p] * dq if summed.shape[1] > 0 else 0.0
            shift(budget, support, current, summed, a, q,
                   current[a, p] * dq, sa)
    hinv_remove(budget, g, P)
    budget.stats[1] += 1
    drop_member(budget, support, current, summed, g, best, n_rows)


# ------------------------------------------------------------ BPA
@njit(cache=True)
def bpa(budget, provider, support, current, summed, g, nearest):
    """BPA-S / BPA-NN: the old member r of least ``‖α_r‖² ‖φ_r - P_V
    φ_r‖²`` leaves, ``V = {new}`` or ``{new, nearest member of r}``, its
    contribution projected onto V."""
    n_rows = current.shape[0]
    lo, hi = group_rows(budget, g, n_rows)
    c = budget.count[g]
    t = c - 1
    pt = budget.members[g, t]
    ct = coord(budget, support, pt)
    ktt = aug_self(budget, provider, support.rows[pt])
    best = -1
    best_v = 0.0
    best_bt = 0.0
    best_bn = 0.0
    best_n = -1
    for j in range(c - 1):
        p = budget.members[g, j]
        krr = aug_self(budget, provider, support.rows[p])
        krt = budget.trial[p] + ct * coord(budget, support, p)
        bt = krt / ktt
        bn = 0.0
        res = krr - krt * bt
        n = -1
        if nearest:
            P = budget.pos[g, j]
            o = budget.nn[g, P]
            if o >= 0 and o != budget.pos[g, t]:
                gram = budget.gram[g]
                ktn = gram[budget.pos[g, t], o]
                knn = gram[o, o]
                krn = gram[P, o]
                det = ktt * knn - ktn * ktn
                if det > SPAN_ROUNDING * ktt * knn:
                    bt = (knn * krt - ktn * krn) / det
                    bn = (ktt * krn - ktn * krt) / det
                    res = krr - krt * bt - krn * bn
                    n = budget.owner[g, o]
        if res < 0.0:
            res = 0.0
        v = coef_sq(current, p, lo, hi) * res
        if best < 0 or v < best_v:
            best = j
            best_v = v
            best_bt = bt
            best_bn = bn
            best_n = n
    p = budget.members[g, best]
    pn = budget.members[g, best_n] if best_n >= 0 else -1
    for a in range(lo, hi):
        ca = current[a, p]
        sa = summed[a, p] if summed.shape[1] > 0 else 0.0
        shift(budget, support, current, summed, a, pt, ca * best_bt,
               sa * best_bt)
        if pn >= 0:
            shift(budget, support, current, summed, a, pn, ca * best_bn,
                   sa * best_bn)
    budget.stats[1] += 1
    drop_member(budget, support, current, summed, g, best, n_rows)


