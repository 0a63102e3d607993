"""A budget's groups, members and kernel values: what every room-making
policy of :mod:`perceptrons._loops.budget` reads and changes.

The :data:`Budget` of a store (its fields below), the policy codes, each
group's random stream (:func:`draw_index`), the kernel values of a row
against member rows by the row path (:func:`pair_values`), joining a group
(:func:`join_group`) and leaving it (:func:`drop_member`, which moves the
last matrix position into the freed one and frees a slot no group holds),
and the nearest members kept for BPA-NN. Every coefficient change goes
through :func:`shift`, which moves the row's threshold with it (the bias
coordinate of :mod:`perceptrons._loops.budget`'s notes).
"""

from collections import namedtuple

import numpy as np
from numba import njit

from ._common import specialised
from .mercer import (clear_row, fill_kernel_values, normalize_values,
                     scatter_row)
from .support import _provides_gram, append_support, remove_support

__all__ = ["BPA_NN", "BPA_S", "Budget", "FORGETRON", "GOLDEN_TOLERANCE",
           "MERGE", "OLDEST", "POLICIES", "PROJECT", "PROJECTRON", "RANDOM",
           "SMALLEST", "SPAN_ROUNDING", "STOP", "admits", "append_member",
           "aug_self", "coef_sq", "coord", "draw_index", "drop_member",
           "group_of", "group_rows", "join_group", "nn_insert",
           "pair_values", "row_scores_at", "self_value", "shift",
           "trial_by_position"]

STOP, RANDOM, OLDEST, FORGETRON, SMALLEST, PROJECT, MERGE, BPA_S, BPA_NN, \
    PROJECTRON = range(10)

#: The policies by the name ``budget_policy`` takes.
POLICIES = {"stop": STOP, "random": RANDOM, "oldest": OLDEST,
            "forgetron": FORGETRON, "smallest": SMALLEST, "project": PROJECT,
            "merge": MERGE, "bpa-s": BPA_S, "bpa-nn": BPA_NN}

#: Tolerance of the merging search on h (BudgetedSVM's ``computeKmax``).
GOLDEN_TOLERANCE = 1e-4
#: A new member whose squared distance to the span of the others is below
#: this fraction of its own ``k(x, x)`` lies in that span to rounding: it
#: is projected at once, never put into ``K⁻¹``. √ε (ε of float64): δ² =
#: k(x, x) - kᵀK⁻¹k is a difference whose rounding grows with K⁻¹'s
#: entries, and a member admitted at δ² puts 1/δ² into them, so below √ε
#: the next members' δ² would carry fewer correct digits than a half. At
#: 1e-12 the projection policy broke down on a9a (RBF γ = 0.01, kernel
#: values 0.76-1 between rows): B = 1,000 made 9,630 mistakes in a pass
#: where B = 500 made 6,883 and no budget 6,887; at √ε it makes 6,877.
SPAN_ROUNDING = 1.4901161193847656e-08

Budget = namedtuple("Budget", [
    "policy", "limit", "shared", "threshold", "members", "pos", "owner",
    "count", "local", "refs", "rng", "forget", "gram", "hinv", "nn", "nnd",
    "trial", "pending", "work", "iwork", "synth", "n_real", "stats", "gfac",
    "dG", "coord", "offsets", "offsets_sum", "factor", "scale"])
Budget.__doc__ = """The budget of a dual store's support set.

Fields
------
policy : int
    One of the policy codes (:data:`POLICIES`, :data:`PROJECTRON`).
limit : int
    B, the most members a group keeps (a large number for the Projectron).
shared : bool
    One group for every weight row (prototypes) rather than one per row.
threshold : float
    The Projectron's η (else unused).
members, pos : ndarray of shape (n_groups, capacity), int64
    Each group's members' slots in the order they joined, and their
    matrix positions.
owner : ndarray of shape (n_groups, capacity), int64
    The member (index into ``members``) at each matrix position.
count : ndarray of shape (n_groups,), int64
local : ndarray of shape (n_groups, n_slots), int64
    The member index of each slot in each group, -1 if not a member.
refs : ndarray of shape (n_slots,), int64
    Groups holding each slot (a slot no group holds leaves the support).
rng : ndarray of shape (n_groups,), uint64
    Each group's xorshift64 state (``RANDOM``).
forget : ndarray of shape (n_groups, 2), float64
    The Forgetron's Q and M per group (M counts every group's updates).
gram, hinv : ndarray of shape (n_groups, capacity, capacity) or (n_groups, 0, 0)
    The members' Gram matrix and its inverse, when the policy keeps them.
nn, nnd : ndarray of shape (n_groups, capacity) or (n_groups, 0)
    BPA-NN: each member's nearest member (matrix position) and their
    squared distance in feature space.
trial : ndarray of shape (n_slots,), float64
    The kernel row of the step's example against every slot
    (``k(x_i, x_support[p])``), copied when the scores are computed.
pending : ndarray of shape (n_groups + 1,), int64
    ``pending[0]`` groups that took a new member this step, then them.
work : ndarray of shape (6, capacity), float64
iwork : ndarray of shape (2, capacity), int64
    Work space.
synth : ndarray of shape (n_synthetic + 1,), int64
    ``MERGE``: the free rows for merged vectors (``synth[0]`` of them, in
    ``synth[1:]``); the loop's rows from ``n_real`` on are such rows.
n_real : int
    Rows below it are training rows.
stats : ndarray of shape (4,), int64
    Removals, projections, merges and refusals (Stoptron), counted.
gfac, dG : ndarray of shape (n_rows,) and (n_rows, n_rows), float64
    The change of the weight rows' Gram matrix made by the last
    :func:`settle_budget` that tracked it (module notes).
coord : ndarray of shape (n_slots,), float64
    Each row's bias coordinate (module notes: the feature vector of row
    j is ``[φ(x_j), coord_j]``; 0 without a bias).
offsets, offsets_sum : ndarray of shape (n_rows,), float64
    The weight rows' thresholds or intercepts and their running sums (or
    (0,)): ``offsets[a] += factor Σ_j Δc_aj coord_j`` follows every
    change of the coefficients.
factor : float
    See ``offsets``.
scale : ndarray of shape (n_rows,), float64
    The lazy scale of each weight row (``w = scale · current``) as the
    loop last told it (:func:`~perceptrons._loops.storage.set_scale`; 1
    for loops that keep none): the Forgetron's damage is measured on w.
"""

_XS_A = np.uint64(13)
_XS_B = np.uint64(7)
_XS_C = np.uint64(17)
_ONE = np.uint64(1)


# ------------------------------------------------------------ randomness
@njit(cache=True)
def draw_index(rng, g, n):
    """A uniform index in ``[0, n)`` from group g's xorshift64 stream
    (Marsaglia 2003, the (13, 7, 17) triple), ``n >= 1``: the state moves
    one step, and the index is ``(x >> 1) mod n``."""
    x = rng[g]
    x ^= x << _XS_A
    x ^= x >> _XS_B
    x ^= x << _XS_C
    rng[g] = x
    return np.int64((x >> _ONE) % np.uint64(n))


# ------------------------------------------------------------ kernel rows
def _computed_values(provider, j, rows, n, out):
    data, kernel, cache = provider
    dense_work = cache.dense_work
    if not data.is_dense:
        scatter_row(data.X_data, data.X_indices, data.X_indptr, j,
                    dense_work)
    fill_kernel_values(data.X_data, data.X_indices, data.X_indptr,
                       data.n_features, data.is_dense, data.sq_norms,
                       kernel.code, kernel.degree, kernel.gamma,
                       kernel.coef0, j, rows, 0, n, dense_work, out)
    if kernel.norms.shape[0] > 0:
        normalize_values(kernel.norms, j, rows, 0, n, out)
    if not data.is_dense:
        clear_row(data.X_indices, data.X_indptr, j, dense_work)


def _gram_values(provider, j, rows, n, out):
    for p in range(n):
        out[p] = provider.gram[j, rows[p]]
    if provider.norms.shape[0] > 0:
        normalize_values(provider.norms, j, rows, 0, n, out)


@specialised(lambda provider, j, rows, n, out: (
    _gram_values if _provides_gram(provider) else _computed_values))
def pair_values(provider, j, rows, n, out):
    """``out[p] = k(x_j, x_rows[p])`` for ``p < n``, by the row path (the
    bits of every path of :mod:`perceptrons._loops.support`)."""


# ------------------------------------------------------------ groups
@njit(cache=True, inline="always")
def group_of(budget, r):
    """The group of weight row r."""
    return 0 if budget.shared else r


@njit(cache=True, inline="always")
def group_rows(budget, g, n_rows):
    """The weight rows of group g, ``[lo, hi)``."""
    if budget.shared:
        return 0, n_rows
    return g, g + 1


@njit(cache=True, inline="always")
def shift(budget, support, current, summed, a, p, dc, ds):
    """``c_ap += dc`` and (kept) ``s_ap += ds``; the row's offset and its
    sum follow (module notes)."""
    current[a, p] += dc
    w = budget.factor * budget.coord[support.rows[p]]
    budget.offsets[a] += w * dc
    if summed.shape[1] > 0:
        summed[a, p] += ds
        if budget.offsets_sum.shape[0] > 0:
            budget.offsets_sum[a] += w * ds


@njit(cache=True, inline="always")
def coord(budget, support, p):
    """The bias coordinate of slot p's row."""
    return budget.coord[support.rows[p]]


@njit(cache=True)
def admits(budget, support, r, i):
    """Whether row i may join (or is already in) the group of weight row r:
    always, but for the Stoptron's full groups."""
    if budget.policy != STOP:
        return True
    g = group_of(budget, r)
    if budget.count[g] < budget.limit:
        return True
    p = support.slot_of[i]
    if p >= 0 and budget.local[g, p] >= 0:
        return True
    budget.stats[3] += 1
    return False


@njit(cache=True)
def join_group(budget, provider, support, r, i):
    """Row i's slot, row i a member of the group of weight row r.

    A new member joins last (matrix position ``count``), its Gram row from
    the step's kernel row (``trial``), and its group is marked pending
    (:func:`settle_budget`). Every call counts one update of the group
    (the Forgetron's M).

    Returns
    -------
    int
        The slot.
    """
    g = group_of(budget, r)
    p = append_support(support, i)
    budget.forget[g, 1] += 1.0
    if budget.local[g, p] >= 0:
        return p
    append_member(budget, provider, support, g, p, i, True)
    n_pending = budget.pending[0]
    budget.pending[1 + n_pending] = g
    budget.pending[0] = n_pending + 1
    return p


@njit(cache=True)
def append_member(budget, provider, support, g, p, row, augment):
    """Slot p (holding ``row``) joins group g last, at matrix position
    ``count``: its Gram row from ``trial`` (the step's kernel row, bias
    coordinates added when ``augment``; a merged vector's values put there
    already augmented), its nearest member."""
    c = budget.count[g]
    budget.members[g, c] = p
    budget.pos[g, c] = c
    budget.owner[g, c] = c
    budget.local[g, p] = c
    budget.count[g] = c + 1
    budget.refs[p] += 1
    if budget.gram.shape[1] > 0:
        gram = budget.gram[g]
        ci = budget.coord[row] if augment else 0.0
        for q in range(c):
            s = budget.members[g, budget.owner[g, q]]
            v = budget.trial[s] + ci * coord(budget, support, s)
            gram[c, q] = v
            gram[q, c] = v
        gram[c, c] = aug_self(budget, provider, row)
        if budget.nn.shape[1] > 0:
            nn_insert(budget, g, c)


def _computed_self(provider, i):
    return provider.rows.diag[i]


def _gram_self(provider, i):
    return provider.diag[i]


@specialised(lambda provider, i: (
    _gram_self if _provides_gram(provider) else _computed_self))
def self_value(provider, i):
    """``k(x_i, x_i)`` of the kernel in use."""


@njit(cache=True, inline="always")
def aug_self(budget, provider, i):
    """``‖[φ(x_i), coord_i]‖²``."""
    c = budget.coord[i]
    return self_value(provider, i) + c * c


# ------------------------------------------------------------ members
@njit(cache=True)
def drop_member(budget, support, current, summed, g, j, n_rows):
    """Remove member j (index in join order) from group g: its
    coefficients (and running sums) zeroed, the later members shifted
    down, its matrix position refilled by the last one, its slot freed if
    no group holds it any more."""
    p = budget.members[g, j]
    lo, hi = group_rows(budget, g, n_rows)
    for a in range(lo, hi):
        ds = -summed[a, p] if summed.shape[1] > 0 else 0.0
        shift(budget, support, current, summed, a, p, -current[a, p], ds)
        # Exactly 0 (no rounding left by the shift).
        current[a, p] = 0.0
        if summed.shape[1] > 0:
            summed[a, p] = 0.0
    c = budget.count[g]
    P = budget.pos[g, j]
    last = c - 1
    # The last matrix position moves into P.
    if budget.gram.shape[1] > 0 or budget.hinv.shape[1] > 0:
        if budget.nn.shape[1] > 0:
            nn_remove(budget, g, P, c)
        if P != last:
            for M in (budget.gram, budget.hinv):
                if M.shape[1] > 0:
                    A = M[g]
                    for q in range(c):
                        A[P, q] = A[last, q]
                    for q in range(c):
                        A[q, P] = A[q, last]
                    A[P, P] = A[last, last]
            if budget.nn.shape[1] > 0:
                budget.nn[g, P] = budget.nn[g, last]
                budget.nnd[g, P] = budget.nnd[g, last]
                for q in range(c):
                    if budget.nn[g, q] == last:
                        budget.nn[g, q] = P
    k = budget.owner[g, last]
    budget.pos[g, k] = P
    budget.owner[g, P] = k
    # Later members move down one place in the join order.
    for q in range(j, last):
        s = budget.members[g, q + 1]
        budget.members[g, q] = s
        budget.pos[g, q] = budget.pos[g, q + 1]
        budget.local[g, s] = q
        budget.owner[g, budget.pos[g, q]] = q
    budget.count[g] = last
    budget.local[g, p] = -1
    budget.refs[p] -= 1
    if budget.refs[p] == 0:
        remove_support(support, p)
        row = support.rows[p]
        if row >= budget.n_real:
            n_free = budget.synth[0]
            budget.synth[1 + n_free] = row
            budget.synth[0] = n_free + 1


@njit(cache=True)
def coef_sq(current, p, lo, hi):
    """``‖α_p‖²``: the squares of slot p's coefficients over rows [lo, hi)."""
    s = 0.0
    for a in range(lo, hi):
        s += current[a, p] * current[a, p]
    return s


# ------------------------------------------------------------ nearest members
@njit(cache=True)
def _distance(gram, a, b):
    return gram[a, a] + gram[b, b] - 2.0 * gram[a, b]


@njit(cache=True)
def nn_insert(budget, g, c):
    """Nearest members after position c joined (its distances from the
    Gram matrix): c may become the nearest of the others; its own is the
    nearest of them, the oldest among equals."""
    gram = budget.gram[g]
    nn, nnd = budget.nn[g], budget.nnd[g]
    best = -1
    best_d = 0.0
    for j in range(c):
        q = budget.pos[g, j]
        d = _distance(gram, q, c)
        if nn[q] < 0 or d < nnd[q]:
            nn[q] = c
            nnd[q] = d
        if best < 0 or d < best_d:
            best = q
            best_d = d
    nn[c] = best
    nnd[c] = best_d


@njit(cache=True)
def nn_remove(budget, g, P, c):
    """Before position P leaves (c members now): the members whose nearest
    it was find theirs among the others (oldest among equals)."""
    gram = budget.gram[g]
    nn, nnd = budget.nn[g], budget.nnd[g]
    for j in range(c):
        q = budget.pos[g, j]
        if q == P or nn[q] != P:
            continue
        best = -1
        best_d = 0.0
        for k in range(c):
            o = budget.pos[g, k]
            if o == q or o == P:
                continue
            d = _distance(gram, q, o)
            if best < 0 or d < best_d:
                best = o
                best_d = d
        nn[q] = best
        nnd[q] = best_d



@njit(cache=True)
def trial_by_position(budget, support, g, ci, out):
    """``out[P]`` the step's example's kernel value against the member at
    matrix position P, from the step's kernel row (``ci`` the example's
    bias coordinate)."""
    for j in range(budget.count[g]):
        s = budget.members[g, j]
        out[budget.pos[g, j]] = budget.trial[s] + ci * coord(budget,
                                                               support, s)



@njit(cache=True)
def row_scores_at(budget, current, g, P, lo, hi, out):
    """``out[a] = w_a·φ(x_P)`` for rows [lo, hi) from the Gram matrix (P a
    matrix position)."""
    gram = budget.gram[g]
    for a in range(lo, hi):
        s = 0.0
        for j in range(budget.count[g]):
            s += current[a, budget.members[g, j]] * gram[P, budget.pos[g, j]]
        out[a - lo] = s


