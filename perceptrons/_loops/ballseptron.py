r"""The Ballseptron of Shalev-Shwartz & Singer (2005), one pass per call.

One entry point, :func:`ballseptron_epoch`, whose rule's type is the form
of the algorithm, each form compiled for either storage of the weights
(:mod:`perceptrons._loops.storage`: weight vectors, or coefficients over a
support set with a Mercer kernel, the remark after Figure 2 of the paper):

* :data:`BallRule`: the binary algorithm of Figure 2. A mistake
  (``y w·x <= 0``) adds ``y x``; a margin error
  (``0 < y w·x / ‖w‖ <= r``) adds ``y x̂`` with ``x̂ = x - y r w / ‖w‖``,
  that is ``w ← (1 - r/‖w‖) w + y x``.
* :data:`BallPrototypes`: the multiclass extension of Sec. 4, one prototype
  per class, the Eq. (18) update with ``x`` on a mistake and with
  ``x̂ = x + r (w^ỹ - w^y)/‖w^ỹ - w^y‖`` on a margin error.

The two forms keep different bookkeeping within a pass (a lazy scale of
one vector and its ``‖w‖²``; the prototypes' Gram matrix, see below), so
each is a compiled body of its own behind the entry point.

Row weights. A row of weight s_i makes the same tests (mistake, margin error:
the ball does not depend on s_i) and an update s_i times as long: binary
``w ← w + s_i y x̂``, that is ``w ← (1 - s_i r/‖w‖) w + s_i y x`` on a margin
error and ``w + s_i y x`` on a mistake; multiclass Eq. (18) with ``s_i x̂``
(``s_i x``). Every product with s_i is written so that s_i = 1 changes no
bit (a product by 1.0 is exact in any association), and an empty weights
array means s_i = 1 for every row. A large s_i may make the shrink factor
``1 - s_i r/‖w‖`` zero or negative, as a radius above ‖w‖ does unweighted:
the lazy scale below takes either (0 clears v; a negative scale stands for
-w, v unchanged).

Binary cost. ``w`` is stored as ``scale · v`` (scikit-learn's
``WeightVector.wscale``), so the margin-error shrink ``w ← c w`` is the O(1)
``scale ← c · scale`` and the whole step costs what adding ``y x`` costs:
O(nnz(x)) in the primal form, O(1) beyond the step's kernel row in the dual.
``‖w‖²`` is kept up to date in O(1) from
``‖c w + s y x‖² = c²‖w‖² + 2 c s y (w·x) + s²‖x‖²`` (``k(x, x)`` in the
dual form; s the row's weight), with ``w·x`` already known from the
prediction. ``v`` is multiplied out (O(d), or O(m) coefficients) when
``|scale|`` leaves ``[1e-9, 1e9]`` or becomes 0 (``‖w‖ = r`` exactly), and
at the end of every pass, so the caller always sees ``scale = 1``. ``‖w‖²`` is recomputed exactly at the start of a pass
(``exact_start``) and whenever the incremental formula cancels (the result
below 1% of its positive terms), so its relative error stays near machine
precision. With ``r = 0`` no margin error can happen, ``scale`` stays exactly
1 and the arithmetic is the Perceptron's, bit for bit.

Multiclass cost. Scores are O(K nnz(x)) (one kernel row in the dual form)
and a mistake's update O(nnz(x)). The margin test needs ``‖w^ỹ - w^y‖``: the
loop keeps the Gram matrix ``G = W Wᵀ`` (recomputed exactly at the start of a
pass and updated in O(K) per update from the scores), and reads
``‖w^ỹ - w^y‖² = G_ỹỹ + G_yy - 2 G_yỹ`` as a filter: a step is certainly not a
margin error when ``gap² > r² (that + 1e-8 (G_yy + G_ỹỹ))``. Otherwise the
norm is computed exactly (:func:`difference_sq`: from the two prototypes,
O(d), in the primal form; from G, recomputed when the difference falls below
1% of ``G_yy + G_ỹỹ``, in the dual form), and the margin-error update, which
moves both prototypes along ``w^ỹ - w^y``, costs O(d) (O(m) coefficients).
Measured on random CSR data (20 000 rows, d = 10⁵, 50 nonzeros per row,
5 passes; best of 3 on a loaded 2-core machine): 5 classes take 0.10 s at
r = 0 and 1.8-3.8 s at r = 0.5-0.1, where 25-55% of the steps are margin
errors; the binary loop takes 0.02 s at r = 0 and 0.04-0.08 s at r > 0.

In the dual form the exact ``‖w‖²`` (or G) costs one kernel row per support
vector: ``‖w‖² = Σ_p coef[p] (w·φ(x_support[p]))``, O(m²) kernel values
(:func:`support_gram`); the estimator skips it for a ``partial_fit`` call
shorter than the support (a stream of single rows would otherwise cost
O(m²) per row) and passes in the value the previous call left in ``G``.

Averaged hypothesis (``averaged=True``). The loops also keep the sum of
the weight vectors after every step, ``Σ_t w_t``, in the store's ``summed``,
without an O(d) step. Binary: within a pass the sum is ``summed + β v``
with ``v`` the unscaled vector (``w = scale · v``); every step adds
``scale`` to β, and an update ``v += a x`` first takes ``β a x`` off
``summed`` (O(nnz(x))). ``β v`` is folded into ``summed`` (O(d)) at the end of
the pass, before ``v`` is multiplied out or zeroed, and whenever ``|scale|``
has moved by a factor :data:`~perceptrons._loops.lazy.FOLD` since the last
fold: between folds the
terms ``β a x`` grow like ``1/scale`` while the sum does not, so the fold
bounds the rounding of the sum to about ``1e4 eps`` relative. Folds never
touch ``v`` or ``scale``, so the online run is bit for bit that of
``averaged=False``. Multiclass: the sum is ``summed + step · W`` before a
step (step counted within the pass, as the Perceptron's ``(t-1)·Δw``
accumulator), so an update Δ of a prototype, sparse or dense, takes
``step · Δ`` off ``summed`` at the cost of the update itself, and
``n_steps · W`` is folded in at the end of the pass.

Why not a lazy form for prototypes. The margin error maps the pair
(w^y, w^ỹ) linearly, ``w^y ← (1-c) w^y + c w^ỹ + x``,
``w^ỹ ← c w^y + (1-c) w^ỹ - x`` with ``c = r/‖w^ỹ - w^y‖``, so ``W = A V``
with a K×K mixing matrix A (and its inverse, to add ±x to V in
O(K nnz(x))) would make it O(K nnz(x) + K²). But each step multiplies A by
a matrix of condition number ``1/|1 - 2c|``, singular at
``‖w^ỹ - w^y‖ = 2r``; scores ``A (V x)`` then lose digits, and A must be
folded back into V (O(K² d)) whenever it degrades, which for r comparable to
the prototype distances is every few margin errors: worse than the dense
O(d) update, and the exact ‖w^ỹ - w^y‖ would cost O(K d).

References
----------
S. Shalev-Shwartz and Y. Singer. A new perspective on an old perceptron
algorithm. COLT 2005, LNCS 3559, pp. 264-278.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from ._common import FASTMATH, best_other, specialised
from .storage import (
    add_example,
    add_example_sum,
    add_pair,
    add_pair_sum,
    begin_pass,
    by_storage,
    n_columns,
    raw_scores,
    self_sq_norm,
    storage_loop,
    store_class,
)
from .lazy import CANCEL, FOLD, SCALE_MAX, SCALE_MIN, fold_row, scale_row, \
    zero_row
from .support import clear_kernel_block, support_scores

__all__ = ["BallPrototypes", "BallRule", "ballseptron_epoch",
           "prototype_gram_update", "support_gram"]

# Relative slack of the Gram-matrix filter of the multiclass margin test.
_FILTER_SLACK = 1e-8


# ------------------------------------------------------------ exact norms
@njit(cache=True)
def _gram(W, G):
    K = W.shape[0]
    for a in range(K):
        for b in range(a, K):
            s = 0.0
            for j in range(W.shape[1]):
                s += W[a, j] * W[b, j]
            G[a, b] = s
            G[b, a] = s


# Not cached on its own: it calls parallel code (see the note at
# mercer.panel_kernel_values_threaded).
@njit(cache=False, fastmath=FASTMATH)
def support_gram(provider, support, coef, scores, G, block):
    """``G = V Vᵀ`` exactly, ``V^k = Σ_p coef[k, p] φ(x_support[p])``.

    One kernel row per support vector (through the cache, and blocks of
    support rows for dense input:
    :func:`perceptrons._loops.support.support_scores`), then
    ``G[a, b] = Σ_p coef[a, p] (V^b · φ(x_support[p]))``, symmetrised.

    Parameters
    ----------
    provider, support : tuple
        The kernel values' provider and the support set
        (:mod:`perceptrons._loops.support`).
    coef : ndarray of shape (n_classes, n_samples), float64
    scores : ndarray of shape (n_classes,), work space
    G : ndarray of shape (n_classes, n_classes), output
    block : tuple
        Kernel block state; emptied on entry and on return.

    Returns
    -------
    block : tuple
    """
    K = coef.shape[0]
    for a in range(K):
        for b in range(K):
            G[a, b] = 0.0
    slots, m = support.rows, support.count[0]
    # Blocks of support rows only (a row of the caller's block would mix in
    # row-by-row values); the caller starts a new block afterwards.
    clear_kernel_block(block)
    for p in range(m):
        block = support_scores(provider, support, slots[:m], p, coef,
                               scores, block)
        for a in range(K):
            c = coef[a, p]
            if c != 0.0:
                for b in range(K):
                    G[a, b] += c * scores[b]
    for a in range(K):
        for b in range(a + 1, K):
            t = 0.5 * (G[a, b] + G[b, a])
            G[a, b] = t
            G[b, a] = t
    clear_kernel_block(block)
    return block


def _primal_exact_gram(store, ctx, work, G):
    _gram(store.current, G)
    return ctx


def _dual_exact_gram(store, ctx, work, G):
    return support_gram(store.provider, store.support, store.current, work,
                        G, ctx)


@specialised(by_storage(_primal_exact_gram, _dual_exact_gram))
def exact_gram(store, ctx, work, G):
    """``G = W Wᵀ`` computed exactly: from the weights (primal), from one
    kernel row per support vector (dual, :func:`support_gram`).

    Returns
    -------
    ctx : object
        The pass context (the dual form's kernel block is emptied).
    """


def _primal_difference_sq(store, ctx, work, G, y, o, approx):
    W = store.current
    dsq = 0.0
    for j in range(W.shape[1]):
        t = W[o, j] - W[y, j]
        dsq += t * t
    return ctx, dsq


def _dual_difference_sq(store, ctx, work, G, y, o, approx):
    if approx < CANCEL * (G[y, y] + G[o, o]):
        ctx = support_gram(store.provider, store.support, store.current,
                           work, G, ctx)
        approx = G[y, y] + G[o, o] - 2.0 * G[y, o]
    return ctx, approx


@specialised(by_storage(_primal_difference_sq, _dual_difference_sq))
def difference_sq(store, ctx, work, G, y, o, approx):
    """``‖w^o - w^y‖²`` for the margin test, given G's ``approx`` of it.

    Primal: computed from the two prototypes, O(d). Dual: ``approx``
    itself, unless it is below 1% of ``G_yy + G_oo`` (where its rounding
    would matter): G is then recomputed exactly and read again.

    Returns
    -------
    ctx : object
    dsq : float
    """


@njit(cache=True, inline="always")
def _start_pass(store, radius, exact_start, work, G):
    """Whether the pass tracks norms (r > 0), and its context, with G
    computed exactly first when asked (``exact_start``)."""
    track_norm = radius > 0.0
    ctx = begin_pass(store)
    if track_norm and exact_start:
        ctx = exact_gram(store, ctx, work, G)
    return track_norm, ctx


#: The binary rule of Figure 2: the radius r >= 0, whether the pass starts
#: by computing ``‖w‖²`` exactly (else it trusts ``G``, as the previous pass
#: over the same weights left it) and whether it keeps the running sum of
#: the averaged hypothesis.
BallRule = namedtuple("BallRule", ["radius", "exact_start", "averaged"])
#: The prototypes of Sec. 4, with the same fields (``G`` the prototypes'
#: Gram matrix).
BallPrototypes = namedtuple("BallPrototypes",
                            ["radius", "exact_start", "averaged"])


def ballseptron_epoch(store, targets, order, weights, rule, scores, G, wx):
    """One pass of the Ballseptron over ``order``, in the rule's form.

    Parameters
    ----------
    store : PrimalStore or DualStore
        The weights (:mod:`perceptrons._loops.storage`): one weight row
        (:data:`BallRule`) or one prototype per class
        (:data:`BallPrototypes`), updated in place.
    targets, order, weights
        As in :func:`_binary_epoch` and :func:`_prototype_epoch`.
    rule : BallRule or BallPrototypes
    scores, wx : ndarray of shape (n_rows,), float64
        Work space (``wx`` read by the prototypes only).
    G : ndarray of shape (n_rows, n_rows), float64
        ``‖w‖²`` or the prototypes' Gram matrix, kept up to date.

    Returns
    -------
    n_mistakes, n_margin_errors : int
    """
    if store_class(rule) is BallPrototypes:
        return _prototype_epoch(store, targets, order, weights, rule.radius,
                                scores, G, rule.exact_start, wx,
                                rule.averaged)
    return _binary_epoch(store, targets, order, weights, rule.radius, scores,
                         G, rule.exact_start, rule.averaged)


# ------------------------------------------------------------------ binary
@storage_loop
def _binary_epoch(store, targets, order, weights, radius, scores, G,
                  exact_start, averaged):
    """One pass of Figure 2 over ``order``.

    Parameters
    ----------
    store : PrimalStore or DualStore
        One weight row (:mod:`perceptrons._loops.storage`), updated in place
        (scale 1 on entry and on exit); ``summed`` holds ``Σ_t w_t`` over
        the steps presented so far (averaged only; lazily, see the module
        notes).
    targets : ndarray of shape (n_samples,), int64
        1 for the positive class (y = +1), 0 for the negative (y = -1).
    order : ndarray of shape (n_steps,), int64
        Rows to present, in order.
    weights : ndarray of shape (n_samples,) or (0,), float64
        Each row's weight s_i > 0, multiplying its update: ``w + s_i y x̂``
        (empty: every weight is 1).
    radius : float
        r >= 0 of Figure 2.
    scores : ndarray of shape (1,), float64
        Work space.
    G : ndarray of shape (1, 1), float64
        ``‖w‖²``, written on exit; read on entry unless ``exact_start``.
    exact_start : bool
        Compute ``‖w‖²`` exactly first; otherwise trust ``G``, as left by
        the previous pass over the same weights.
    averaged : bool
        Also add the weight vector after every step to ``summed``.

    Returns
    -------
    n_mistakes : int
        Steps with ``y w·x <= 0`` (ε of the paper).
    n_margin_errors : int
        Steps with ``0 < y w·x <= r ‖w‖`` (ε̃).
    """
    n_mistakes = 0
    n_margin_errors = 0
    track_norm, ctx = _start_pass(store, radius, exact_start, scores, G)
    wsq = G[0, 0]
    scale = 1.0
    positive = 0.0
    # Averaged: Σ_t w_t = summed + beta · v (v the unscaled w); see the
    # module notes. fold_scale is the scale at the last fold.
    beta = 0.0
    fold_scale = 1.0
    for step in range(order.shape[0]):
        i = order[step]
        y = 1.0 if targets[i] == 1 else -1.0
        ctx = raw_scores(store, ctx, order, step, scores,
                         store.current.shape[0])
        m = y * (scale * scores[0])
        if m <= 0.0:
            n_mistakes += 1
            weight = 1.0 if weights.shape[0] == 0 else weights[i]
            c = 1.0
        elif track_norm and m <= radius * np.sqrt(wsq):
            n_margin_errors += 1
            weight = 1.0 if weights.shape[0] == 0 else weights[i]
            # w + s y x̂ = w + s y x - s r w/‖w‖ (y² = 1).
            c = 1.0 - weight * radius / np.sqrt(wsq)
        else:
            if averaged:
                beta += scale
            continue
        if track_norm:
            # ‖c w + s y x‖²; s = 1 leaves the unweighted arithmetic.
            positive = c * c * wsq + weight * weight * self_sq_norm(store, i)
            wsq = positive + 2.0 * c * (weight * m)
        if c != 1.0:
            scale *= c
            if averaged and (abs(scale) * FOLD < abs(fold_scale)
                             or abs(scale) > FOLD * abs(fold_scale)):
                if beta != 0.0:
                    fold_row(store, 0, beta)
                    beta = 0.0
                fold_scale = scale
            if scale == 0.0:
                zero_row(store, 0)
                scale = 1.0
                fold_scale = 1.0
            elif abs(scale) < SCALE_MIN or abs(scale) > SCALE_MAX:
                if averaged and beta != 0.0:
                    fold_row(store, 0, beta)
                    beta = 0.0
                scale_row(store, 0, scale)
                scale = 1.0
                fold_scale = 1.0
        a = weight * y / scale
        add_example(store, 0, a, i)
        if averaged:
            # v += a x leaves Σ_t w_t unchanged: summed -= beta a x; then
            # w_t = scale · v joins the sum.
            add_example_sum(store, 0, -beta * a, i)
            beta += scale
        if track_norm and wsq < CANCEL * positive:
            ctx = exact_gram(store, ctx, scores, G)
            wsq = scale * scale * G[0, 0]
    if averaged and beta != 0.0:
        fold_row(store, 0, beta)
    if scale != 1.0:
        scale_row(store, 0, scale)
    G[0, 0] = wsq
    return n_mistakes, n_margin_errors


# ------------------------------------------------------------ multiclass
@njit(cache=True)
def prototype_gram_update(G, y, o, wx, q):
    """G after ``w^y += x̂``, ``w^o -= x̂``; ``wx[k] = w^k·x̂``, ``q = ‖x̂‖²``
    (a weighted step passes ``s x̂``: ``s wx`` and ``s² q``)."""
    for k in range(G.shape[0]):
        if k != y and k != o:
            G[k, y] += wx[k]
            G[y, k] = G[k, y]
            G[k, o] -= wx[k]
            G[o, k] = G[k, o]
    g_yy = G[y, y] + 2.0 * wx[y] + q
    g_oo = G[o, o] - 2.0 * wx[o] + q
    g_yo = G[y, o] - wx[y] + wx[o] - q
    G[y, y] = g_yy
    G[o, o] = g_oo
    G[y, o] = g_yo
    G[o, y] = g_yo


@njit(cache=True, inline="always")
def _move_pair(store, y, o, i, weight, averaged, beta):
    """Eq. (18) with the row's weight s: ``w^y += s φ(x_i)``,
    ``w^o -= s φ(x_i)``; averaged, the sum loses ``beta`` times that
    (``beta`` steps of the pass not yet folded)."""
    if weight == 1.0:
        # The constant step lets LLVM drop the product from the row update
        # (3% of a pass of 5 dense classes at r = 0.1, margin errors half
        # the steps); the same bits either way.
        add_pair(store, y, o, 1.0, i)
        if averaged:
            add_pair_sum(store, y, o, -beta, i)
    else:
        add_pair(store, y, o, weight, i)
        if averaged:
            add_pair_sum(store, y, o, -beta * weight, i)


@storage_loop
def _prototype_epoch(store, targets, order, weights, radius, scores, G,
                     exact_start, wx, averaged):
    """One pass of the multiclass Ballseptron (Sec. 4) over ``order``.

    Parameters
    ----------
    store : PrimalStore or DualStore
        Prototypes ``w^r``, one weight row per class, updated in place;
        ``summed`` holds ``Σ_t W_t`` over the steps presented so far
        (averaged only).
    targets : ndarray of shape (n_samples,), int64
        Class index y of each row.
    order : ndarray of shape (n_steps,), int64
        Rows to present, in order.
    weights : ndarray of shape (n_samples,) or (0,), float64
        Each row's weight s_i > 0, multiplying its update: Eq. (18) with
        ``s_i x`` or ``s_i x̂`` (empty: every weight is 1).
    radius : float
        r >= 0.
    scores, wx : ndarray of shape (n_classes,), float64
        Work space.
    G : ndarray of shape (n_classes, n_classes), float64
        The Gram matrix ``W Wᵀ`` of the prototypes (module notes), kept up
        to date; read on entry unless ``exact_start``.
    exact_start : bool
        Compute G exactly first.
    averaged : bool
        Also add the prototypes after every step to ``summed``.

    Returns
    -------
    n_mistakes : int
        Steps where the true class did not score strictly above every
        other (ties are mistakes); the update then subtracts x from the best
        other class ỹ (lowest index among equals).
    n_margin_errors : int
        Other steps with ``w^y·x̂ <= w^ỹ·x̂``, i.e.
        ``(w^y - w^ỹ)·x <= r ‖w^ỹ - w^y‖``.
    """
    K = store.current.shape[0]
    n_mistakes = 0
    n_margin_errors = 0
    track_norm, ctx = _start_pass(store, radius, exact_start, wx, G)
    for step in range(order.shape[0]):
        i = order[step]
        y = targets[i]
        # Averaged: Σ_t W_t = summed + step · W before this step (module
        # notes), so an update Δ of W takes step · Δ off summed.
        beta = float(step)
        ctx = raw_scores(store, ctx, order, step, scores,
                         store.current.shape[0])
        o = best_other(scores, y)
        gap = scores[y] - scores[o]
        if gap <= 0.0:
            n_mistakes += 1
            weight = 1.0 if weights.shape[0] == 0 else weights[i]
            if track_norm:
                # The step s x: w^k·(s x) and ‖s x‖².
                for k in range(K):
                    wx[k] = weight * scores[k]
                prototype_gram_update(G, y, o, wx, weight * weight
                                      * self_sq_norm(store, i))
            _move_pair(store, y, o, i, weight, averaged, beta)
            continue
        if not track_norm:
            continue
        approx = G[y, y] + G[o, o] - 2.0 * G[y, o]
        upper = approx + _FILTER_SLACK * (G[y, y] + G[o, o])
        if gap * gap > radius * radius * upper:
            continue
        ctx, dsq = difference_sq(store, ctx, wx, G, y, o, approx)
        # gap > 0, so w^y ≠ w^ỹ and dsq > 0 up to rounding.
        if dsq <= 0.0:
            continue
        norm = np.sqrt(dsq)
        # w^y·x̂ - w^ỹ·x̂ = gap - r ‖w^ỹ - w^y‖.
        if gap > radius * norm:
            continue
        n_margin_errors += 1
        weight = 1.0 if weights.shape[0] == 0 else weights[i]
        c = radius / norm
        # The step s x̂: w^k·(s x̂), ‖s x̂‖², and s r δ/‖δ‖ moves the pair.
        for k in range(K):
            wx[k] = weight * (scores[k] + c * (G[k, o] - G[k, y]))
        # ‖x̂‖² = ‖φ(x)‖² + r² + 2 (r/‖δ‖) δ·φ(x), δ·φ(x) = -gap.
        q = self_sq_norm(store, i) + radius * radius - 2.0 * c * gap
        prototype_gram_update(G, y, o, wx, weight * weight * q)
        sc = weight * c
        V = store.current
        if averaged:
            # One pass over both (V's arithmetic is that of the loop below).
            S = store.summed
            for p in range(n_columns(store)):
                t = sc * (V[o, p] - V[y, p])
                S[y, p] -= beta * t
                S[o, p] += beta * t
                V[y, p] += t
                V[o, p] -= t
        else:
            for p in range(n_columns(store)):
                t = sc * (V[o, p] - V[y, p])
                V[y, p] += t
                V[o, p] -= t
        _move_pair(store, y, o, i, weight, averaged, beta)
    if averaged:
        for r in range(K):
            fold_row(store, r, float(order.shape[0]))
    return n_mistakes, n_margin_errors
