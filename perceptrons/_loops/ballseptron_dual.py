r"""The Ballseptron in dual form with Mercer kernels, one pass per call.

The kernel form of :mod:`perceptrons._loops.ballseptron` (Shalev-Shwartz &
Singer 2005, Sec. 2, remark after Figure 2: w is a combination of the
instances, so every inner product may be a kernel value). Each weight vector
is ``w^k = s · Σ_p coef[k, p] φ(x_support[p])`` over the support set of
:mod:`perceptrons._loops.support` (append-only, one slot per example that
ever caused an update, kernel rows cached across epochs and computed in BLAS
blocks for dense input; one kernel row serves every class), passed as its
tuples ``data, kernel, support, cache``. The steps mirror the primal loops
test for test.

Binary (:func:`dual_ballseptron_epoch`). The margin-error update
``w ← (1 - r/‖w‖) w + y φ(x)`` rescales every coefficient; it is done in
O(1) with the global scale ``s`` (``s ← c s``, then ``coef[i] += y / s``),
so every step costs one kernel row against the support and O(1) more.
``s`` is multiplied into the coefficients (O(m)) when ``|s|`` leaves
``[1e-9, 1e9]`` or becomes 0, and at the end of every pass (the caller
always sees ``s = 1``). ``‖w‖²`` is updated in O(1) from
``‖c w + y φ(x)‖² = c²‖w‖² + 2 c y (w·φ(x)) + k(x, x)``, ``w·φ(x)`` known
from the prediction; it is recomputed exactly from the coefficients at the
start of a pass (``exact_start``) and when the formula cancels (below 1% of
its positive terms), as in the primal loop. The exact value costs one kernel
row per support vector (in BLAS blocks for dense input):
``‖w‖² = Σ_p coef[p] (w·φ(x_support[p]))``, O(m²) kernel values; the
estimator skips it for a ``partial_fit`` call shorter than the support
(a stream of single rows would otherwise cost O(m²) per row) and passes in
the value the previous call left in ``G``.

Multiclass (:func:`dual_ballseptron_prototype_epoch`), one coefficient row
per class. A mistake adds ``±1`` to the coefficients of x in rows y and ỹ.
A margin error moves both prototypes along ``w^ỹ - w^y``:
``w^y ← (1 - c) w^y + c w^ỹ + φ(x)``, ``w^ỹ ← c w^y + (1 - c) w^ỹ - φ(x)``
with ``c = r / ‖w^ỹ - w^y‖``, which mixes the two coefficient rows, O(m)
(less than the step's m kernel values). The norm comes from the Gram matrix
of the prototypes ``G = W Wᵀ``, updated in O(K) per update from the scores
(:func:`perceptrons._loops.ballseptron.prototype_gram_update`):
``‖w^ỹ - w^y‖² = G_yy + G_ỹỹ - 2 G_yỹ``. G is recomputed exactly at the start
of a pass (``exact_start``, as for the binary ‖w‖²), and whenever a candidate
margin error finds that difference below 1% of ``G_yy + G_ỹỹ`` (where its
rounding would matter).

Averaged hypothesis (``averaged=True``): ``coef_sum`` keeps the sum over
steps of the coefficients after each step, by slot, lazily exactly as the
primal loops keep ``Σ_t w_t`` (binary: ``coef_sum + β coef`` with the
fold at a factor 1e4 of the scale, at renormalisation and at the end of the
pass; multiclass: ``coef_sum + step · coef``); the online run is unchanged
bit for bit.

With ``r = 0`` no margin error can happen, the scale stays 1 and the
arithmetic is that of the dual perceptron (``KernelPerceptron`` with
``eta=1, theta_init=0, threshold_step=0``).

References
----------
S. Shalev-Shwartz and Y. Singer. A new perspective on an old perceptron
algorithm. COLT 2005, LNCS 3559, pp. 264-278.
"""

import numpy as np
from numba import njit

from ._common import FASTMATH, best_other
from .ballseptron import prototype_gram_update
from .support import (
    append_support,
    clear_kernel_block,
    new_kernel_block,
    support_scores,
)

__all__ = ["dual_ballseptron_epoch", "dual_ballseptron_prototype_epoch",
           "support_gram"]

_SCALE_MIN = 1e-9
_SCALE_MAX = 1e9
_CANCEL = 1e-2
_FILTER_SLACK = 1e-8
_FOLD = 1e4
# Placeholder for the running sums of the "last" hypothesis (never read).
_NO_SUM = np.zeros((0, 0))


@njit(cache=True, fastmath=FASTMATH)
def _fold(coef_sum, beta, coef, m):
    """``coef_sum[:, :m] += beta · coef[:, :m]``, the lazy sum made
    explicit (as :func:`perceptrons._loops.ballseptron._fold`)."""
    for k in range(coef.shape[0]):
        for p in range(m):
            coef_sum[k, p] += beta * coef[k, p]


@njit(cache=True, fastmath=FASTMATH)
def support_gram(data, kernel, support, cache, coef, scores, G, block):
    """``G = V Vᵀ`` exactly, ``V^k = Σ_p coef[k, p] φ(x_support[p])``.

    One kernel row per support vector (through the cache, and BLAS blocks
    of support rows for dense input:
    :func:`perceptrons._loops.support.support_scores`), then
    ``G[a, b] = Σ_p coef[a, p] (V^b · φ(x_support[p]))``, symmetrised.

    Parameters
    ----------
    data, kernel, support, cache : tuple
        See :mod:`perceptrons._loops.support`.
    coef : ndarray of shape (n_classes, n_samples), float64
    scores : ndarray of shape (n_classes,), work space
    G : ndarray of shape (n_classes, n_classes), output
    block : tuple
        BLAS block state; emptied on entry and on return.

    Returns
    -------
    block : tuple
    """
    K = coef.shape[0]
    for a in range(K):
        for b in range(K):
            G[a, b] = 0.0
    slots, m = support[0], support[2][0]
    # Blocks of support rows only (a row of the caller's block would mix in
    # row-by-row values); the caller starts a new block afterwards.
    clear_kernel_block(block)
    for p in range(m):
        block = support_scores(data, kernel, support, cache, slots[:m], p,
                               coef, scores, block)
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


@njit(cache=True, fastmath=FASTMATH)
def dual_ballseptron_epoch(
    data, kernel, support, cache, targets, order, coef,
    radius, scores, G, exact_start, averaged=False, coef_sum=_NO_SUM,
):
    """One dual pass of Figure 2 over ``order``.

    Parameters
    ----------
    data, kernel, support, cache : tuple
        The rows with their norms, the kernel, the support set and the
        kernel-row cache, as in :mod:`perceptrons._loops.support`; the
        support set and the cache are updated in place.
    targets : ndarray of shape (n_samples,), int64
        1 for the positive class, 0 for the negative.
    order : ndarray of shape (n_steps,), int64
        Rows to present, in order.
    coef : ndarray of shape (1, n_samples), float64
        Dual coefficients by support slot (scale 1 on entry and exit).
    radius : float
        r >= 0.
    scores : ndarray of shape (1,), float64
        Work space.
    G : ndarray of shape (1, 1), float64
        ``‖w‖²``, written on exit; read on entry unless ``exact_start``.
    exact_start : bool
        Recompute ``‖w‖²`` exactly from the coefficients first (one kernel
        value per pair of support vectors); otherwise trust ``G``, as left
        by the previous pass over the same coefficients.
    averaged : bool, default=False
        Also add the coefficients after every step to ``coef_sum``.
    coef_sum : ndarray of shape (1, n_samples), float64
        ``Σ_t`` of the coefficients after each step presented so far, by
        slot, updated in place (averaged only; lazily, as the primal loop's
        ``w_sum``). Not read otherwise.

    Returns
    -------
    n_mistakes, n_margin_errors : int
        As :func:`perceptrons._loops.ballseptron.ballseptron_epoch`.
    """
    n_mistakes = 0
    n_margin_errors = 0
    track_norm = radius > 0.0
    diag = data[6]  # k(x_i, x_i) of the kernel in use
    block = new_kernel_block(data)
    if track_norm and exact_start:
        block = support_gram(data, kernel, support, cache, coef,
                             scores, G, block)
    wsq = G[0, 0]
    scale = 1.0
    positive = 0.0
    # Averaged: Σ_t coef_t = coef_sum + beta · coef (unscaled), folded when
    # the scale has moved by _FOLD since fold_scale (primal loop notes).
    beta = 0.0
    fold_scale = 1.0
    for step in range(order.shape[0]):
        i = order[step]
        y = 1.0 if targets[i] == 1 else -1.0
        block = support_scores(data, kernel, support, cache, order, step,
                               coef, scores, block)
        m = y * (scale * scores[0])
        if m <= 0.0:
            n_mistakes += 1
            c = 1.0
        elif track_norm and m <= radius * np.sqrt(wsq):
            n_margin_errors += 1
            c = 1.0 - radius / np.sqrt(wsq)
        else:
            if averaged:
                beta += scale
            continue
        if track_norm:
            positive = c * c * wsq + diag[i]
            wsq = positive + 2.0 * c * m
        if c != 1.0:
            scale *= c
            if averaged and (abs(scale) * _FOLD < abs(fold_scale)
                             or abs(scale) > _FOLD * abs(fold_scale)):
                if beta != 0.0:
                    _fold(coef_sum, beta, coef, support[2][0])
                    beta = 0.0
                fold_scale = scale
            if scale == 0.0:
                for p in range(support[2][0]):
                    coef[0, p] = 0.0
                scale = 1.0
                fold_scale = 1.0
            elif abs(scale) < _SCALE_MIN or abs(scale) > _SCALE_MAX:
                if averaged and beta != 0.0:
                    _fold(coef_sum, beta, coef, support[2][0])
                    beta = 0.0
                for p in range(support[2][0]):
                    coef[0, p] *= scale
                scale = 1.0
                fold_scale = 1.0
        pos = append_support(support, i)
        a = y / scale
        coef[0, pos] += a
        if averaged:
            coef_sum[0, pos] -= beta * a
            beta += scale
        if track_norm and wsq < _CANCEL * positive:
            block = support_gram(data, kernel, support, cache, coef,
                                 scores, G, block)
            wsq = scale * scale * G[0, 0]
    if averaged and beta != 0.0:
        _fold(coef_sum, beta, coef, support[2][0])
    if scale != 1.0:
        for p in range(support[2][0]):
            coef[0, p] *= scale
    G[0, 0] = wsq
    return n_mistakes, n_margin_errors


@njit(cache=True, fastmath=FASTMATH)
def dual_ballseptron_prototype_epoch(
    data, kernel, support, cache, targets, order, coef,
    radius, scores, G, exact_start, wx, averaged=False, coef_sum=_NO_SUM,
):
    """One dual pass of the multiclass Ballseptron (Sec. 4) over ``order``.

    Arguments are those of :func:`dual_ballseptron_epoch` with one
    coefficient row per class (``coef`` of shape (n_classes, n_samples)),
    class indices as ``targets``, work spaces ``scores, wx`` of shape (K,),
    and ``G`` the (K, K) Gram matrix of the
    prototypes, kept up to date (recomputed first if ``exact_start``);
    ``coef_sum`` of shape (n_classes, n_samples) when ``averaged``
    (``Σ_t coef_t = coef_sum + step · coef`` before a step, as in the
    primal loop).

    Returns
    -------
    n_mistakes, n_margin_errors : int
        As :func:`perceptrons._loops.ballseptron.ballseptron_prototype_epoch`.
    """
    K = coef.shape[0]
    n_mistakes = 0
    n_margin_errors = 0
    track_norm = radius > 0.0
    diag = data[6]  # k(x_i, x_i) of the kernel in use
    block = new_kernel_block(data)
    if track_norm and exact_start:
        block = support_gram(data, kernel, support, cache, coef,
                             wx, G, block)
    for step in range(order.shape[0]):
        i = order[step]
        y = targets[i]
        beta = float(step)
        block = support_scores(data, kernel, support, cache, order, step,
                               coef, scores, block)
        o = best_other(scores, y)
        gap = scores[y] - scores[o]
        if gap <= 0.0:
            n_mistakes += 1
            if track_norm:
                for k in range(K):
                    wx[k] = scores[k]
                prototype_gram_update(G, y, o, wx, diag[i])
            pos = append_support(support, i)
            coef[y, pos] += 1.0
            coef[o, pos] -= 1.0
            if averaged:
                coef_sum[y, pos] -= beta
                coef_sum[o, pos] += beta
            continue
        if not track_norm:
            continue
        dsq = G[y, y] + G[o, o] - 2.0 * G[y, o]
        upper = dsq + _FILTER_SLACK * (G[y, y] + G[o, o])
        if gap * gap > radius * radius * upper:
            continue
        if dsq < _CANCEL * (G[y, y] + G[o, o]):
            block = support_gram(data, kernel, support, cache, coef,
                                 wx, G, block)
            dsq = G[y, y] + G[o, o] - 2.0 * G[y, o]
        # gap > 0, so w^y ≠ w^ỹ and dsq > 0 up to rounding.
        if dsq <= 0.0:
            continue
        norm = np.sqrt(dsq)
        if gap > radius * norm:
            continue
        n_margin_errors += 1
        c = radius / norm
        for k in range(K):
            wx[k] = scores[k] + c * (G[k, o] - G[k, y])
        q = diag[i] + radius * radius - 2.0 * c * gap
        prototype_gram_update(G, y, o, wx, q)
        if averaged:
            for p in range(support[2][0]):
                t = c * (coef[o, p] - coef[y, p])
                coef_sum[y, p] -= beta * t
                coef_sum[o, p] += beta * t
                coef[y, p] += t
                coef[o, p] -= t
        else:
            for p in range(support[2][0]):
                t = c * (coef[o, p] - coef[y, p])
                coef[y, p] += t
                coef[o, p] -= t
        pos = append_support(support, i)
        coef[y, pos] += 1.0
        coef[o, pos] -= 1.0
        if averaged:
            coef_sum[y, pos] -= beta
            coef_sum[o, pos] += beta
    if averaged:
        _fold(coef_sum, float(order.shape[0]), coef, support[2][0])
    return n_mistakes, n_margin_errors
