r"""Support sets under a budget: how a kernel learner makes room.

A dual loop keeps its weights as coefficients over a support set
(:mod:`perceptrons._loops.support`); without a budget every example that
causes an update joins it for good. Under a budget of B support vectors
per *group* (the vectors one weight vector, or one set of prototypes,
may use: one group per one-vs-rest problem, one group for all prototypes)
a group that would hold B + 1 makes room by one of the policies below, the
moment its step is over (:func:`settle_budget`). The loops see none of
it: a budgeted store (:data:`~perceptrons._loops.storage.BudgetStore`)
joins the example to its group when the loop adds it
(:func:`join_group`), says whether the Stoptron still takes it
(:func:`admits`), and settles the group at the end of the step.

Policies (``Budget.policy``), the vector that leaves chosen among the
group's *old* members (the one that just joined stays) unless said:

``STOP``
    The Stoptron: a group with B members takes no new one; the step is
    not made (the loops ask :func:`admits` first).
``RANDOM``
    Cavallanti, Cesa-Bianchi & Gentile (2007): one old member, uniformly
    at random (a xorshift64 stream per group, :func:`draw_index`).
``OLDEST``
    The oldest member.
``FORGETRON``
    Dekel, Shalev-Shwartz & Singer (2008), self-tuned: shrink every
    coefficient of the group by the largest φ ≤ 1 with
    ``Q + Ψ(φ) ≤ 15/32 M`` (Q the damage so far, M the group's updates),
    then remove the oldest (:func:`forgetron_phi`).
``SMALLEST``
    Wang, Crammer & Vucetic (2012), removal: the member (the new one
    included) of least ``‖α_p‖ √k(x_p, x_p)``.
``PROJECT``
    Projection (BSGD; BPA-P for Passive-Aggressive): the old member p of
    least weight degradation ``‖α_p‖² ‖φ(x_p) - P φ(x_p)‖² = ‖α_p‖² /
    (K⁻¹)_pp`` leaves, its contribution projected onto the others
    (``α_q += α_p d_q``, ``d = -(K⁻¹)_{·p} / (K⁻¹)_pp``); ``K⁻¹`` of the
    group is kept by rank-one updates.
``MERGE``
    BSGD's merging (Gaussian kernel): the member m (new one included) of
    least ``‖α_m‖`` and the partner n of least degradation become one
    vector ``z = h x_m + (1 - h) x_n`` with ``α_z = α_m k(x_m, z) + α_n
    k(x_n, z)``, h found by golden-section search (BudgetedSVM's
    ``computeKmax``).
``BPA_S``, ``BPA_NN``
    Wang & Vucetic (2010): the old member r leaves, its contribution
    projected onto the new example (and onto r's nearest neighbour
    among the members, BPA-NN), r chosen by the smallest change of PA's
    objective, which reduces to ``‖α_r‖² ‖φ(x_r) - P_V φ(x_r)‖²``.
``PROJECTRON``
    Orabona, Keshet & Caputo (2009): no B; a new member whose distance δ
    to the span of the group's others is at most ``threshold`` (η) leaves
    at once, its coefficient projected onto that span (the Projectron's
    projected update).

Every change a policy makes is a linear map on the group's coefficient
columns; it is applied to ``current`` and, when kept, to ``summed`` (the
averaged hypothesis's running sum, whatever form the loop keeps it in), so
that the averaged model holds the same support vectors as the last one.

Thresholds and intercepts belong to the support vectors. Every loop's
threshold or intercept is, exactly, a sum over the support of each
vector's coefficient times a constant coordinate: Figure 2's
``θ = θ_Init - C Σ_j c_j`` (the coordinate ``√C``), Passive-Aggressive's
``b = Σ_j c_j`` (1), ALMA's bias coordinate ``ρ/‖[φ(x_j), ρ]‖``; so each
support vector is the vector ``[φ(x_j), coord_j]`` and the budget works in
that space: its kernel values are ``k(x_i, x_j) + coord_i coord_j``, and a
vector that leaves takes its part of the threshold with it (``offsets``
follow every change of the coefficients; their running sums
``offsets_sum`` follow the running sums').

Members are kept in the order they joined (``members[g, :count[g]]``,
their slots; removal shifts the later ones down: O(B)); ties between
candidates go to the oldest. Where a policy needs kernel values between
members, the group keeps their Gram matrix (``gram``) and, for
projections, its inverse (``hinv``), at *matrix positions* ``pos``
(removal moves the last position into the freed one: O(B) for the Gram
matrix, O(B²) for the inverse's downdate); ``owner[g, P]`` is the member
at position P.

Loops that keep ``‖w‖²`` up to date (the Ballseptron, ALMA) pass
``gfac`` and ``dG`` to :func:`settle_budget`: the Gram matrix of the
weight rows after the step is ``G_ab ← gfac_a gfac_b G_ab + dG_ab``
(in units of the stored coefficients), computed from the group's Gram
matrix in O(B) per change (O(1) for a projection).

References
----------
G. Cavallanti, N. Cesa-Bianchi and C. Gentile. Tracking the best hyperplane
with a simple budget Perceptron. Machine Learning 69:143-167, 2007.

O. Dekel, S. Shalev-Shwartz and Y. Singer. The Forgetron: a kernel-based
perceptron on a budget. SIAM J. Comput. 37(5):1342-1372, 2008.

F. Orabona, J. Keshet and B. Caputo. Bounded kernel-based online learning.
JMLR 10:2643-2666, 2009.

Z. Wang and S. Vucetic. Online passive-aggressive algorithms on a budget.
AISTATS 2010, JMLR W&CP 9:908-915.

Z. Wang, K. Crammer and S. Vucetic. Breaking the curse of kernelization:
budgeted stochastic gradient descent for large-scale SVM training. JMLR
13:3103-3131, 2012.
"""

import numpy as np
from numba import njit

from .budget_groups import (BPA_NN, BPA_S, FORGETRON, MERGE, OLDEST,
                            POLICIES, PROJECT, PROJECTRON, RANDOM, SMALLEST,
                            SPAN_ROUNDING, STOP, Budget, admits, aug_self,
                            coef_sq, draw_index, drop_member, group_rows,
                            join_group, nn_insert, pair_values,
                            row_scores_at, shift)
from .budget_merge import golden_section, merge
from .budget_projections import (admit_to_span, bpa, hinv_insert,
                                 project_example, project_out,
                                 span_coefficients)

__all__ = ["BPA_NN", "BPA_S", "Budget", "FORGETRON", "MERGE", "OLDEST",
           "POLICIES", "PROJECT", "PROJECTRON", "RANDOM", "SMALLEST", "STOP",
           "admits", "draw_index", "forgetron_phi", "golden_section",
           "join_group", "project_example", "rebuild_groups",
           "settle_budget", "span_coefficients"]


# ------------------------------------------------------------ settling
@njit(cache=True)
def settle_budget(budget, provider, support, current, summed, track):
    """Make room in every group that took a member this step.

    Parameters
    ----------
    budget : Budget
    provider, support : tuple
        The store's kernel values and support set.
    current, summed : ndarray of shape (n_rows, n_slots), float64
        Coefficients and (or (n_rows, 0)) their running sum; changed in
        place by the same linear map.
    track : bool
        Also set ``gfac`` and ``dG`` to the change of the rows' Gram
        matrix (module notes); the group must keep its Gram matrix.

    Returns
    -------
    bool
        Whether a coefficient changed.
    """
    if track:
        for a in range(budget.gfac.shape[0]):
            budget.gfac[a] = 1.0
            for b in range(budget.gfac.shape[0]):
                budget.dG[a, b] = 0.0
    changed = False
    n_pending = budget.pending[0]
    for q in range(n_pending):
        if _settle_group(budget, provider, support, current, summed,
                         budget.pending[1 + q], track, budget.dG,
                         budget.gfac):
            changed = True
    budget.pending[0] = 0
    return changed


@njit(cache=True)
def _settle_group(budget, provider, support, current, summed, g, track, dG,
                  gfac):
    """Group g's room-making after its step; returns whether a coefficient
    changed."""
    policy = budget.policy
    c = budget.count[g]
    new = c - 1
    if policy == PROJECTRON or policy == PROJECT:
        if admit_to_span(budget, provider, support, current, summed, g,
                          track, dG, policy == PROJECTRON):
            return True
        c = budget.count[g]
    if c <= budget.limit:
        return False
    if policy == RANDOM:
        _remove(budget, provider, support, current, summed, g,
                draw_index(budget.rng, g, new), track, dG)
    elif policy == OLDEST:
        _remove(budget, provider, support, current, summed, g, 0, track, dG)
    elif policy == FORGETRON:
        _forget(budget, provider, support, current, summed, g, track, dG,
                gfac)
    elif policy == SMALLEST:
        _remove(budget, provider, support, current, summed, g,
                _smallest(budget, provider, support, current, g), track, dG)
    elif policy == PROJECT:
        project_out(budget, support, current, summed, g, track, dG)
    elif policy == MERGE:
        merge(budget, provider, support, current, summed, g, track, dG)
    elif policy == BPA_S or policy == BPA_NN:
        bpa(budget, provider, support, current, summed, g,
             policy == BPA_NN)
    return True


@njit(cache=True)
def _remove(budget, provider, support, current, summed, g, j, track, dG):
    """Member j leaves group g (a removal)."""
    p = budget.members[g, j]
    if track:
        lo, hi = group_rows(budget, g, current.shape[0])
        F = budget.work[0]
        P = budget.pos[g, j]
        row_scores_at(budget, current, g, P, lo, hi, F)
        kpp = budget.gram[g][P, P]
        for a in range(lo, hi):
            ca = current[a, p]
            for b in range(lo, hi):
                cb = current[b, p]
                dG[a, b] += -ca * F[b - lo] - cb * F[a - lo] + ca * cb * kpp
    budget.stats[0] += 1
    drop_member(budget, support, current, summed, g, j, current.shape[0])


@njit(cache=True)
def _smallest(budget, provider, support, current, g):
    """The member (new one included) of least ``‖α_p‖² k(x_p, x_p)``,
    the oldest among equals."""
    lo, hi = group_rows(budget, g, current.shape[0])
    best = 0
    best_v = 0.0
    for j in range(budget.count[g]):
        p = budget.members[g, j]
        v = coef_sq(current, p, lo, hi) * aug_self(budget, provider,
                                                      support.rows[p])
        if j == 0 or v < best_v:
            best = j
            best_v = v
    return best


# ------------------------------------------------------------ Forgetron
@njit(cache=True)
def forgetron_phi(a, b, c):
    """The largest φ in (0, 1] with ``a φ² + b φ + c <= 0`` (``c < 0``),
    as DOGMA's ``k_forgetron_st_train`` solves it.

    Parameters
    ----------
    a, b, c : float
        ``Ψ(φ) = a φ² + b φ`` (``a = ‖α_r‖² - 2⟨α_r, f'(x_r)⟩``,
        ``b = 2‖α_r‖``) and ``c = Q - 15/32 M``.
    """
    d = b * b - 4.0 * a * c
    if a > 0.0 or (a < 0.0 and d > 0.0
                   and (-b - np.sqrt(abs(d))) / (2.0 * a) > 1.0):
        phi = (-b + np.sqrt(d)) / (2.0 * a)
        return phi if phi < 1.0 else 1.0
    if a == 0.0 and b > 0.0:
        phi = -c / b
        return phi if phi < 1.0 else 1.0
    return 1.0


@njit(cache=True)
def _forget(budget, provider, support, current, summed, g, track, dG, gfac):
    """The self-tuned Forgetron's step (its Figure 3) once the group holds
    B + 1: shrink by φ, then remove the oldest member r."""
    n_rows = current.shape[0]
    lo, hi = group_rows(budget, g, n_rows)
    r = budget.members[g, 0]
    F = budget.work[0]
    row_scores_at(budget, current, g, budget.pos[g, 0], lo, hi, F)
    # σ_r and μ_r of the paper for one row (α_r = σ_r y_r): ‖α_r‖², ‖α_r‖
    # and ⟨α_r, f'(x_r)⟩ for the group's rows, on w = scale · current.
    a2 = 0.0
    af = 0.0
    for a in range(lo, hi):
        s = budget.scale[a]
        ca = s * current[a, r]
        a2 += ca * ca
        af += ca * (s * F[a - lo])
    a1 = np.sqrt(a2)
    Q = budget.forget[g, 0]
    M = budget.forget[g, 1]
    phi = forgetron_phi(a2 - 2.0 * af, 2.0 * a1, Q - 15.0 / 32.0 * M)
    if phi != 1.0:
        for j in range(budget.count[g]):
            p = budget.members[g, j]
            for a in range(lo, hi):
                ds = (phi - 1.0) * summed[a, p] if summed.shape[1] > 0 \
                    else 0.0
                shift(budget, support, current, summed, a, p,
                       (phi - 1.0) * current[a, p], ds)
        if track:
            for a in range(lo, hi):
                gfac[a] *= phi
    # Ψ(φσ, φμ) = (φσ)² + 2φσ - 2(φσ)(φμ), σ from the shrunk coefficients.
    e2 = phi * phi * a2
    budget.forget[g, 0] = Q + e2 + 2.0 * np.sqrt(e2) - 2.0 * phi * phi * af
    _remove(budget, provider, support, current, summed, g, 0, track, dG)


# ------------------------------------------------------------ a call's start
@njit(cache=True)
def rebuild_groups(budget, provider, support):
    """The members' Gram matrix, its inverse and nearest members, computed
    afresh (a call's start: the pool's members in ``members``, matrix
    position = joining order). The inverse is built by the same rank-one
    insertions, in joining order, as the members joined."""
    wrows = budget.iwork[0]
    kt = budget.work[1]
    d = budget.work[2]
    vals = budget.work[3]
    for g in range(budget.count.shape[0]):
        c = budget.count[g]
        for j in range(c):
            wrows[j] = support.rows[budget.members[g, j]]
        for j in range(c):
            pair_values(provider, wrows[j], wrows, j, vals)
            cj = budget.coord[wrows[j]]
            for q in range(j):
                vals[q] += cj * budget.coord[wrows[q]]
            ktt = aug_self(budget, provider, wrows[j])
            if budget.gram.shape[1] > 0:
                gram = budget.gram[g]
                for q in range(j):
                    gram[j, q] = vals[q]
                    gram[q, j] = vals[q]
                gram[j, j] = ktt
            if budget.hinv.shape[1] > 0:
                for q in range(j):
                    kt[q] = vals[q]
                budget.count[g] = j + 1
                if j == 0:
                    budget.hinv[g][0, 0] = 1.0 / ktt if ktt > 0.0 else 0.0
                else:
                    dsq = span_coefficients(budget, g, kt, ktt, j, d)
                    floor = SPAN_ROUNDING * ktt
                    hinv_insert(budget, g, j, d,
                                 dsq if dsq > floor else floor)
        budget.count[g] = c
        if budget.nn.shape[1] > 0:
            for j in range(c):
                nn_insert(budget, g, j)
