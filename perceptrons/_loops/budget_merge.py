"""A budget's merging (BSGD, Gaussian kernel): two members become one
point ``z = h x_m + (1 - h) x_n`` of the input space, written into a free
row of the loop's data (the call's spare rows), h found by BudgetedSVM's
golden-section search (:func:`golden_section`). See
:mod:`perceptrons._loops.budget`.
"""

import numpy as np
from numba import njit

from ._common import specialised
from .budget_groups import (GOLDEN_TOLERANCE, append_member, aug_self,
                            coef_sq, drop_member, group_rows, pair_values,
                            row_scores_at, shift)
from .support import _provides_gram, append_support

__all__ = ["golden_section", "merge"]


@njit(cache=True)
def _merge_objective(a1, a2, k12, h):
    """BudgetedSVM's ``evaluateMergingObjectiveFunc``: minus
    ``a1 k12^((1-h)²) + a2 k12^(h²)``."""
    return -(a1 * k12 ** ((1.0 - h) * (1.0 - h)) + a2 * k12 ** (h * h))


@njit(cache=True)
def golden_section(k12, a1, a2, lo, hi, tolerance):
    """BudgetedSVM's ``goldenSectionSearch``: the h in [lo, hi] that
    minimises :func:`_merge_objective`, to ``tolerance``."""
    gamma = (np.sqrt(5.0) - 1.0) / 2.0
    p = hi - gamma * (hi - lo)
    q = lo + gamma * (hi - lo)
    fp = _merge_objective(a1, a2, k12, p)
    fq = _merge_objective(a1, a2, k12, q)
    while hi - lo >= 2.0 * tolerance:
        if fp <= fq:
            hi = q
            q = p
            fq = fp
            p = hi - gamma * (hi - lo)
            fp = _merge_objective(a1, a2, k12, p)
        else:
            lo = p
            p = q
            fp = fq
            q = lo + gamma * (hi - lo)
            fq = _merge_objective(a1, a2, k12, q)
    return (lo + hi) / 2.0


@njit(cache=True)
def merge(budget, provider, support, current, summed, g, track, dG):
    """BSGD's merging (Gaussian kernel): the member m of least ``‖α_m‖``
    (new one included) and its partner n of least degradation become
    ``z = h x_m + (1 - h) x_n``, ``α_z = α_m k(x_m, z) + α_n k(x_n, z)``."""
    n_rows = current.shape[0]
    lo, hi = group_rows(budget, g, n_rows)
    c = budget.count[g]
    # m: least ‖α‖² (BudgetedSVM's alphaNorm), the oldest among equals.
    m = 0
    best_v = 0.0
    for j in range(c):
        v = coef_sq(current, budget.members[g, j], lo, hi)
        if j == 0 or v < best_v:
            m = j
            best_v = v
    pm = budget.members[g, m]
    # k(x_m, x_j) for every member, by the row path.
    wrows = budget.iwork[0]
    for j in range(c):
        wrows[j] = support.rows[budget.members[g, j]]
    km = budget.work[1]
    pair_values(provider, support.rows[pm], wrows, c, km)
    # The search reads the Gaussian kernel itself: a normalised kernel's
    # values (ALMA: over ‖[φ(x), ρ]‖, the same for every row of the
    # Gaussian kernel) times the two norms.
    unit = _norm_product(provider, support.rows[pm])
    n = -1
    loss_min = 0.0
    h_best = 0.0
    kz1_best = 0.0
    kz2_best = 0.0
    for j in range(c):
        if j == m:
            continue
        pj = budget.members[g, j]
        k12 = km[j] * unit
        if k12 > 1.0:
            k12 = 1.0
        a1 = 0.0
        a2 = 0.0
        for a in range(lo, hi):
            s = current[a, pm] + current[a, pj]
            if s == 0.0:
                s = 0.0001
            a1 += current[a, pm] / s
            a2 += current[a, pj] / s
        if a1 * a2 > 0.0:
            h = golden_section(k12, a1, a2, 0.0, 1.0, GOLDEN_TOLERANCE)
        elif a1 > 0.0:
            h = golden_section(k12, a1, a2, 1.0, 6.0, GOLDEN_TOLERANCE)
        else:
            h = golden_section(k12, a1, a2, -5.0, 0.0, GOLDEN_TOLERANCE)
        kz1 = k12 ** ((1.0 - h) * (1.0 - h))
        kz2 = k12 ** (h * h)
        loss = 0.0
        for a in range(lo, hi):
            x1 = current[a, pm]
            x2 = current[a, pj]
            z = x1 * kz1 + x2 * kz2
            loss += x1 * x1 + x2 * x2 + 2.0 * k12 * x1 * x2 - z * z
        if n < 0 or loss < loss_min:
            n = j
            loss_min = loss
            h_best = h
            kz1_best = kz1
            kz2_best = kz2
    pn = budget.members[g, n]
    # z in a free synthetic row.
    n_free = budget.synth[0] - 1
    zrow = budget.synth[1 + n_free]
    budget.synth[0] = n_free
    _write_merged(provider, support.rows[pm], support.rows[pn], h_best, zrow)
    # z's bias coordinate: x_m's (a constant, or ALMA's ρ/‖[φ(x), ρ]‖, the
    # same for every point of the Gaussian kernel).
    cz = budget.coord[support.rows[pm]]
    budget.coord[zrow] = cz
    # Its kernel values against the members, for the Gram matrix and the
    # norms: by the row path, as every later value will be.
    kz = budget.work[3]
    pair_values(provider, zrow, wrows, c, kz)
    for j in range(c):
        kz[j] += cz * budget.coord[wrows[j]]
    if track:
        _merge_norm_change(budget, current, g, m, n, kz1_best, kz2_best, kz,
                           aug_self(budget, provider, zrow), lo, hi, dG)
    # Coefficients of z (computed before m and n leave).
    zc = budget.work[4]
    zs = budget.work[5]
    for a in range(lo, hi):
        zc[a - lo] = current[a, pm] * kz1_best + current[a, pn] * kz2_best
        if summed.shape[1] > 0:
            zs[a - lo] = summed[a, pm] * kz1_best + summed[a, pn] * kz2_best
    # z's kernel values by member slot, where its Gram row is read from
    # (the step's kernel row is put back afterwards).
    saved = budget.work[2]
    for j in range(c):
        saved[j] = budget.trial[budget.members[g, j]]
        budget.trial[budget.members[g, j]] = kz[j]
        wrows[j] = budget.members[g, j]
    first, second = (m, n) if m > n else (n, m)
    drop_member(budget, support, current, summed, g, first, n_rows)
    drop_member(budget, support, current, summed, g, second, n_rows)
    budget.stats[2] += 1
    # z joins as the newest member.
    pz = _join_synthetic(budget, provider, support, g, zrow)
    for j in range(c):
        budget.trial[wrows[j]] = saved[j]
    for a in range(lo, hi):
        shift(budget, support, current, summed, a, pz, zc[a - lo],
               zs[a - lo])


@njit(cache=True)
def _merge_norm_change(budget, current, g, m, n, kz1, kz2, kz, kzz, lo, hi,
                       dG):
    """dG of a merge: the rows change by ``-c_m φ_m - c_n φ_n + c_z φ_z``
    (``c_z = c_m kz1 + c_n kz2``), every product in the store's units
    (the Gram matrix, z's values ``kz`` against the members, ``kzz``)."""
    gram = budget.gram[g]
    Pm = budget.pos[g, m]
    Pn = budget.pos[g, n]
    pm = budget.members[g, m]
    pn = budget.members[g, n]
    Fm = budget.work[0]
    row_scores_at(budget, current, g, Pm, lo, hi, Fm)
    Fn = np.empty(hi - lo)
    row_scores_at(budget, current, g, Pn, lo, hi, Fn)
    Fz = np.empty(hi - lo)
    for a in range(lo, hi):
        s = 0.0
        for j in range(budget.count[g]):
            s += current[a, budget.members[g, j]] * kz[j]
        Fz[a - lo] = s
    kmm = gram[Pm, Pm]
    knn = gram[Pn, Pn]
    kmn = gram[Pm, Pn]
    kmz = kz[m]
    knz = kz[n]
    for a in range(lo, hi):
        da0 = -current[a, pm]
        da1 = -current[a, pn]
        da2 = current[a, pm] * kz1 + current[a, pn] * kz2
        for b in range(lo, hi):
            db0 = -current[b, pm]
            db1 = -current[b, pn]
            db2 = current[b, pm] * kz1 + current[b, pn] * kz2
            v = (da0 * Fm[b - lo] + da1 * Fn[b - lo] + da2 * Fz[b - lo]
                 + db0 * Fm[a - lo] + db1 * Fn[a - lo] + db2 * Fz[a - lo])
            v += da0 * (db0 * kmm + db1 * kmn + db2 * kmz)
            v += da1 * (db0 * kmn + db1 * knn + db2 * knz)
            v += da2 * (db0 * kmz + db1 * knz + db2 * kzz)
            dG[a, b] += v


def _computed_norms(provider, i):
    norms = provider.kernel.norms
    if norms.shape[0] == 0:
        return 1.0
    return norms[i] * norms[i]


def _gram_norms(provider, i):
    return 1.0


@specialised(lambda provider, i: (
    _gram_norms if _provides_gram(provider) else _computed_norms))
def _norm_product(provider, i):
    """The factor from a normalised kernel's values back to the Gaussian
    kernel's (``‖φ̂(x_i)‖²``, the same for every row; 1 unnormalised)."""


def _computed_write(provider, i, j, h, out_row):
    data = provider.rows
    d = data.n_features
    X, idx, ptr = data.X_data, data.X_indices, data.X_indptr
    work = provider.cache.dense_work
    if data.is_dense:
        base = out_row * d
        bi = i * d
        bj = j * d
        s = 0.0
        for f in range(d):
            v = h * X[bi + f] + (1.0 - h) * X[bj + f]
            X[base + f] = v
            s += v * v
    else:
        # Synthetic rows hold every feature (their CSR indices 0..d-1).
        base = ptr[out_row]
        for q in range(ptr[i], ptr[i + 1]):
            work[idx[q]] += h * X[q]
        for q in range(ptr[j], ptr[j + 1]):
            work[idx[q]] += (1.0 - h) * X[q]
        s = 0.0
        for f in range(d):
            v = work[f]
            X[base + f] = v
            s += v * v
            work[f] = 0.0
    data.sq_norms[out_row] = s
    # The Gaussian kernel: k(z, z) = 1 = k(x_i, x_i), so z's norm and
    # self-value in the kernel in use are row i's (normalised too).
    data.diag[out_row] = data.diag[i]
    if provider.kernel.norms.shape[0] > 0:
        provider.kernel.norms[out_row] = provider.kernel.norms[i]


def _gram_write(provider, i, j, h, out_row):
    # Merging needs the rows themselves (refused with a precomputed kernel).
    pass


@specialised(lambda provider, i, j, h, out_row: (
    _gram_write if _provides_gram(provider) else _computed_write))
def _write_merged(provider, i, j, h, out_row):
    """Write ``z = h x_i + (1 - h) x_j`` into row ``out_row`` of the loop's
    rows, with its squared norm and ``k(z, z) = 1``."""


@njit(cache=True)
def _join_synthetic(budget, provider, support, g, row):
    """A merged vector's row joins group g (as :func:`join_group`, its
    kernel values already in ``trial`` by member slot; no update counted,
    no settling)."""
    p = append_support(support, row)
    append_member(budget, provider, support, g, p, row, False)
    return p


