r"""The Ballseptron of Shalev-Shwartz & Singer (2005), one pass per call.

Two loops, one per update rule (STYLE habit 1):

* :func:`ballseptron_epoch`: the binary algorithm of Figure 2. A mistake
  (``y w·x <= 0``) adds ``y x``; a margin error
  (``0 < y w·x / ‖w‖ <= r``) adds ``y x̂`` with ``x̂ = x - y r w / ‖w‖``,
  that is ``w ← (1 - r/‖w‖) w + y x``.
* :func:`ballseptron_prototype_epoch`: the multiclass extension of Sec. 4,
  one prototype per class, the Eq. (18) update with ``x`` on a mistake and
  with ``x̂ = x + r (w^ỹ - w^y)/‖w^ỹ - w^y‖`` on a margin error.

Binary cost. ``w`` is stored as ``scale · v`` (scikit-learn's
``WeightVector.wscale``), so the margin-error shrink ``w ← c w`` is the O(1)
``scale ← c · scale`` and the whole step is O(nnz(x)); ``‖w‖²`` is kept up to
date in O(1) from ``‖c w + y x‖² = c²‖w‖² + 2 c y (w·x) + ‖x‖²``, with
``w·x`` already known from the prediction. ``v`` is multiplied out (O(d))
when ``|scale|`` leaves ``[1e-9, 1e9]`` or becomes 0 (``‖w‖ = r`` exactly),
and at the end of every pass, so the caller always sees ``scale = 1``.
``‖w‖²`` is recomputed from ``v`` (O(d)) at the start of every pass and
whenever the incremental formula cancels (the result below 1% of its
positive terms), so its relative error stays near machine precision.
With ``r = 0`` no margin error can happen, ``scale`` stays exactly 1 and the
arithmetic is the Perceptron's, bit for bit.

Multiclass cost. Scores are O(K nnz(x)) and a mistake's update O(nnz(x)).
The margin test needs ``‖w^ỹ - w^y‖``: the loop keeps the Gram matrix
``G = W Wᵀ`` (recomputed exactly, O(K² d), at the start of each pass and
updated in O(K) per update from the scores), and reads
``‖w^ỹ - w^y‖² = G_ỹỹ + G_yy - 2 G_yỹ`` as a *filter only*: a step is
certainly not a margin error when ``gap² > r² (that + 1e-8 (G_yy + G_ỹỹ))``.
Otherwise the norm is computed exactly from the two prototypes, O(d), and
the margin-error update, which moves both prototypes along
``w^ỹ - w^y`` (dense whatever x is), is O(d) as well. So steps are
O(K nnz(x)), except margin errors (and the rare candidates within the filter's
slack), which are O(d + K nnz(x)); for dense input that is no extra cost.
Measured on random CSR data (20 000 rows, d = 10⁵, 50 nonzeros per row,
5 passes; best of 3 on a loaded 2-core machine): 5 classes take 0.10 s at
r = 0 and 1.8-3.8 s at r = 0.5-0.1, where 25-55% of the steps are margin
errors; the binary loop takes 0.02 s at r = 0 and 0.04-0.08 s at r > 0.

Averaged hypothesis (``averaged=True``). The loops also keep the sum of
the weight vectors after every step, ``Σ_t w_t``, in ``w_sum`` (``W_sum``),
without an O(d) step. Binary: within a pass the sum is ``w_sum + β v``
with ``v`` the unscaled vector (``w = scale · v``); every step adds
``scale`` to β, and an update ``v += a x`` first takes ``β a x`` off
``w_sum`` (O(nnz(x))). ``β v`` is folded into ``w_sum`` (O(d)) at the end of
the pass, before ``v`` is multiplied out or zeroed, and whenever ``|scale|``
has moved by a factor ``_FOLD = 1e4`` since the last fold: between folds the
terms ``β a x`` grow like ``1/scale`` while the sum does not, so the fold
bounds the rounding of the sum to about ``1e4 eps`` relative. Folds never
touch ``v`` or ``scale``, so the online run is bit for bit that of
``averaged=False``. Multiclass: the sum is ``W_sum + step · W`` before a
step (step counted within the pass, as the Perceptron's ``(t-1)·Δw``
accumulator), so an update Δ of a prototype, sparse or dense, takes
``step · Δ`` off ``W_sum`` at the cost of the update itself, and
``n_steps · W`` is folded in at the end of the pass.

Why not a lazy form. The margin error maps the pair (w^y, w^ỹ) linearly,
``w^y ← (1-c) w^y + c w^ỹ + x``, ``w^ỹ ← c w^y + (1-c) w^ỹ - x`` with
``c = r/‖w^ỹ - w^y‖``, so ``W = A V`` with a K×K mixing matrix A (and its
inverse, to add ±x to V in O(K nnz(x))) would make it O(K nnz(x) + K²).
But each step multiplies A by a matrix of condition number ``1/|1 - 2c|``,
singular at ``‖w^ỹ - w^y‖ = 2r``; scores ``A (V x)`` then lose digits, and
A must be folded back into V (O(K² d)) whenever it degrades, which for r
comparable to the prototype distances is every few margin errors: worse
than the dense O(d) update, and the exact ‖w^ỹ - w^y‖ would cost O(K d).

References
----------
S. Shalev-Shwartz and Y. Singer. A new perspective on an old perceptron
algorithm. COLT 2005, LNCS 3559, pp. 264-278.
"""

import numpy as np
from numba import njit

from ._common import best_other, row_axpy, row_dot

__all__ = ["ballseptron_epoch", "ballseptron_prototype_epoch",
           "prototype_gram_update"]

# |scale| outside [_SCALE_MIN, _SCALE_MAX] is multiplied into v.
_SCALE_MIN = 1e-9
_SCALE_MAX = 1e9
# ‖w‖² is recomputed when the incremental value falls below this fraction of
# its positive terms (the relative error is then at most ~eps / fraction).
_CANCEL = 1e-2
# Relative slack of the Gram-matrix filter of the multiclass margin test.
_FILTER_SLACK = 1e-8
# Averaged binary loop: the lazy sum is folded into w_sum when the scale has
# moved by this factor since the last fold (bounds the rounding of the sum
# to about eps · _FOLD, relative).
_FOLD = 1e4
# Placeholder for the running sums of the "last" hypothesis (never read).
_NO_SUM = np.zeros(0)
_NO_SUM_2D = np.zeros((0, 0))


@njit(cache=True)
def _fold(w_sum, beta, v):
    """``w_sum += beta · v`` (the lazy sum made explicit), O(d)."""
    for j in range(v.shape[0]):
        w_sum[j] += beta * v[j]


@njit(cache=True)
def _sq_norm(v):
    s = 0.0
    for j in range(v.shape[0]):
        s += v[j] * v[j]
    return s


@njit(cache=True)
def ballseptron_epoch(X_data, X_indices, X_indptr, targets, order, sq_norms,
                      w, radius, averaged=False, w_sum=_NO_SUM):
    """One pass of Figure 2 over ``order``.

    Parameters
    ----------
    X_data, X_indices, X_indptr
        The data matrix (see :mod:`perceptrons._loops._common`).
    targets : ndarray of shape (n_samples,), int64
        1 for the positive class (y = +1), 0 for the negative (y = -1).
    order : ndarray of shape (n_steps,), int64
        Rows to present, in order.
    sq_norms : ndarray of shape (n_samples,), float64
        ``<x_i, x_i>``.
    w : ndarray of shape (n_features,), float64
        The weight vector, updated in place (scale 1 on entry and on exit).
    radius : float
        r >= 0 of Figure 2.
    averaged : bool, default=False
        Also add the weight vector after every step to ``w_sum``.
    w_sum : ndarray of shape (n_features,), float64
        ``Σ_t w_t`` over the steps presented so far, updated in place
        (averaged only; lazily, see the module notes). Not read otherwise.

    Returns
    -------
    n_mistakes : int
        Steps with ``y w·x <= 0`` (ε of the paper).
    n_margin_errors : int
        Steps with ``0 < y w·x <= r ‖w‖`` (ε̃).
    """
    n_mistakes = 0
    n_margin_errors = 0
    track_norm = radius > 0.0
    wsq = _sq_norm(w) if track_norm else 0.0
    scale = 1.0
    positive = 0.0
    # Averaged: Σ_t w_t = w_sum + beta · v (v the unscaled w); see the
    # module notes. fold_scale is the scale at the last fold.
    beta = 0.0
    fold_scale = 1.0
    for step in range(order.shape[0]):
        i = order[step]
        y = 1.0 if targets[i] == 1 else -1.0
        score = scale * row_dot(w, X_data, X_indices, X_indptr, i)
        m = y * score
        if m <= 0.0:
            n_mistakes += 1
            c = 1.0
        elif track_norm and m <= radius * np.sqrt(wsq):
            n_margin_errors += 1
            # w + y x̂ = w + y x - r w/‖w‖ (y² = 1).
            c = 1.0 - radius / np.sqrt(wsq)
        else:
            if averaged:
                beta += scale
            continue
        if track_norm:
            positive = c * c * wsq + sq_norms[i]
            wsq = positive + 2.0 * c * m
        if c != 1.0:
            scale *= c
            if averaged and (abs(scale) * _FOLD < abs(fold_scale)
                             or abs(scale) > _FOLD * abs(fold_scale)):
                if beta != 0.0:
                    _fold(w_sum, beta, w)
                    beta = 0.0
                fold_scale = scale
            if scale == 0.0:
                w[:] = 0.0
                scale = 1.0
                fold_scale = 1.0
            elif abs(scale) < _SCALE_MIN or abs(scale) > _SCALE_MAX:
                if averaged and beta != 0.0:
                    _fold(w_sum, beta, w)
                    beta = 0.0
                for j in range(w.shape[0]):
                    w[j] *= scale
                scale = 1.0
                fold_scale = 1.0
        a = y / scale
        row_axpy(w, a, X_data, X_indices, X_indptr, i)
        if averaged:
            # v += a x leaves Σ_t w_t unchanged: w_sum -= beta a x; then
            # w_t = scale · v joins the sum.
            row_axpy(w_sum, -beta * a, X_data, X_indices, X_indptr, i)
            beta += scale
        if track_norm and wsq < _CANCEL * positive:
            wsq = scale * scale * _sq_norm(w)
    if averaged and beta != 0.0:
        _fold(w_sum, beta, w)
    if scale != 1.0:
        for j in range(w.shape[0]):
            w[j] *= scale
    return n_mistakes, n_margin_errors


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


@njit(cache=True)
def prototype_gram_update(G, y, o, wx, q):
    """G after ``w^y += x̂``, ``w^o -= x̂``; ``wx[k] = w^k·x̂``, ``q = ‖x̂‖²``."""
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


@njit(cache=True)
def ballseptron_prototype_epoch(X_data, X_indices, X_indptr, targets, order,
                                sq_norms, W, radius, G, scores, wx,
                                averaged=False, W_sum=_NO_SUM_2D):
    """One pass of the multiclass Ballseptron (Sec. 4) over ``order``.

    Parameters
    ----------
    X_data, X_indices, X_indptr
        The data matrix (see :mod:`perceptrons._loops._common`).
    targets : ndarray of shape (n_samples,), int64
        Class index y of each row.
    order : ndarray of shape (n_steps,), int64
        Rows to present, in order.
    sq_norms : ndarray of shape (n_samples,), float64
        ``<x_i, x_i>``.
    W : ndarray of shape (n_classes, n_features), float64
        Prototypes ``w^r``, updated in place.
    radius : float
        r >= 0.
    G : ndarray of shape (n_classes, n_classes), float64
        Work space: the Gram matrix ``W Wᵀ`` (module notes).
    scores, wx : ndarray of shape (n_classes,), float64
        Work space.
    averaged : bool, default=False
        Also add the prototypes after every step to ``W_sum``.
    W_sum : ndarray of shape (n_classes, n_features), float64
        ``Σ_t W_t`` over the steps presented so far, updated in place
        (averaged only). Not read otherwise.

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
    K = W.shape[0]
    d = W.shape[1]
    n_mistakes = 0
    n_margin_errors = 0
    track_norm = radius > 0.0
    if track_norm:
        _gram(W, G)
    for step in range(order.shape[0]):
        i = order[step]
        y = targets[i]
        # Averaged: Σ_t W_t = W_sum + step · W before this step (module
        # notes), so an update Δ of W takes step · Δ off W_sum.
        beta = float(step)
        for r in range(K):
            scores[r] = row_dot(W[r], X_data, X_indices, X_indptr, i)
        o = best_other(scores, y)
        gap = scores[y] - scores[o]
        if gap <= 0.0:
            n_mistakes += 1
            if track_norm:
                for k in range(K):
                    wx[k] = scores[k]
                prototype_gram_update(G, y, o, wx, sq_norms[i])
            row_axpy(W[y], 1.0, X_data, X_indices, X_indptr, i)
            row_axpy(W[o], -1.0, X_data, X_indices, X_indptr, i)
            if averaged:
                row_axpy(W_sum[y], -beta, X_data, X_indices, X_indptr, i)
                row_axpy(W_sum[o], beta, X_data, X_indices, X_indptr, i)
            continue
        if not track_norm:
            continue
        approx = G[y, y] + G[o, o] - 2.0 * G[y, o]
        upper = approx + _FILTER_SLACK * (G[y, y] + G[o, o])
        if gap * gap > radius * radius * upper:
            continue
        dsq = 0.0
        for j in range(d):
            t = W[o, j] - W[y, j]
            dsq += t * t
        norm = np.sqrt(dsq)
        # w^y·x̂ - w^ỹ·x̂ = gap - r ‖w^ỹ - w^y‖ (gap > 0, so norm > 0).
        if gap > radius * norm:
            continue
        n_margin_errors += 1
        c = radius / norm
        for k in range(K):
            wx[k] = scores[k] + c * (G[k, o] - G[k, y])
        # ‖x̂‖² = ‖x‖² + r² + 2 (r/‖δ‖) δ·x, δ·x = -gap.
        q = sq_norms[i] + radius * radius - 2.0 * c * gap
        prototype_gram_update(G, y, o, wx, q)
        if averaged:
            # One pass over both (W's arithmetic is that of the loop below).
            for j in range(d):
                t = c * (W[o, j] - W[y, j])
                W_sum[y, j] -= beta * t
                W_sum[o, j] += beta * t
                W[y, j] += t
                W[o, j] -= t
            row_axpy(W_sum[y], -beta, X_data, X_indices, X_indptr, i)
            row_axpy(W_sum[o], beta, X_data, X_indices, X_indptr, i)
        else:
            for j in range(d):
                t = c * (W[o, j] - W[y, j])
                W[y, j] += t
                W[o, j] -= t
        row_axpy(W[y], 1.0, X_data, X_indices, X_indptr, i)
        row_axpy(W[o], -1.0, X_data, X_indices, X_indptr, i)
    if averaged:
        n = float(order.shape[0])
        for k in range(K):
            _fold(W_sum[k], n, W[k])
    return n_mistakes, n_margin_errors
