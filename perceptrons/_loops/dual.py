"""K&W (2007) Figure 2 in dual form with Mercer kernels, one pass per call.

The weight vector of problem k is kept as ``w_k = Σ_j c_kj φ(x_j)`` with
``c_kj = η y_kj α_kj`` (K&W Sec. 2.1), so the score of example i is
``Σ_{j ∈ S} c_kj k(x_j, x_i) - θ_k`` over the support S (the examples that
caused an update). These loops mirror the primal ones of
:mod:`perceptrons._loops.perceptron` (one-vs-rest) and
:mod:`perceptrons._loops.multiclass` (prototypes) step for step: same margin,
λ-trick, α-bound, tie rules, counters and final-hypothesis bookkeeping.

Support and cache layout
------------------------
S is an append-only list within a call (``support[:n_support[0]]``, in order
of first update); ``position[i]`` is example i's slot in it, or -1. The dual
coefficients are stored by slot, ``coef[k, p]``, so a score is one
contiguous dot product ``coef[k, :m] · g`` with ``g[p] = k(x_i, x_support[p])``,
and one kernel row ``g`` serves every problem. ``cache[i, :cache_filled[i]]``
keeps the computed part of g for example i across epochs; because S only
grows, a row is completed by computing the new slots only. Slots past
``cache.shape[1]`` (the capacity the estimator derives from ``cache_size``)
are recomputed at each use.

Kernel values
-------------
CSR rows get their values one row at a time in numba
(:func:`perceptrons._loops.mercer.fill_kernel_values`). Dense input is
processed in blocks of ``BLOCK_ROWS`` presented rows: when a pass reaches a
row outside the current block, the values of the next ``BLOCK_ROWS`` rows
against the support held then (beyond each row's cache) are computed by one
BLAS product (:func:`perceptrons._loops.mercer.fill_kernel_block`); only the
values against support vectors added inside the block are computed row by
row, and all values of a block shorter than ``SHORT_BLOCK`` rows (the end of
a pass, a ``partial_fit`` call of a few rows), which would pay for a full
block's product. A pass thus costs about (support size × rows) kernel values at BLAS
speed (6.5x faster than row by row on MNIST, see BENCHMARKS.md), plus one
copy of the support vectors' rows (``n_support × n_features`` floats) and
``BLOCK_ROWS × n_support`` block values. Only block values enter the cache,
and a block gives a pair the same bits whatever the block (fixed row count,
see :mod:`perceptrons._loops.mercer`), so the results are bit for bit the
same for every cache size; dense and CSR input agree to rounding.
"""

from numba import njit

from ._common import FASTMATH, best_other
from .mercer import (
    BLOCK_ROWS,
    ROW_BY_ROW,
    clear_row,
    dot_n,
    fill_kernel_block,
    fill_kernel_values,
    in_kernel_block,
    kernel_block_values,
    new_kernel_block,
    scatter_row,
)
from .hypotheses import (
    HYPOTHESIS_AVERAGED,
    HYPOTHESIS_LONGEST,
    HYPOTHESIS_VOTED,
    count_update,
    extend_run,
    is_online_mistake,
    log_retired_vote,
    may_update,
    problem_sign,
)


@njit(cache=True, inline="always")
def _append_support(i, support, position, n_support):
    """Slot of example i, appending it to the support list if new."""
    pos = position[i]
    if pos < 0:
        pos = n_support[0]
        support[pos] = i
        position[i] = pos
        n_support[0] = pos + 1
    return pos


@njit(cache=True, inline="always")
def dual_scores(X_data, X_indices, X_indptr, n_features, is_dense,
                kernel, degree, gamma, coef0, sq_norms,
                i, support, n_support, cache, cache_filled, kernel_work,
                dense_work, coef, theta, base_scores, scores, block):
    """``scores[k] = Σ_{p < m} coef[k, p] k(x_i, x_support[p]) + base - θ_k``.

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features, is_dense
        The data matrix of this call.
    kernel, degree, gamma, coef0
        See :func:`perceptrons._loops.mercer.kernel_from_dot`.
    sq_norms : ndarray of shape (n_samples,), float64
        ``<x_i, x_i>`` (from :func:`perceptrons._loops._common.row_sq_norms`).
    i : int
        The example.
    support : ndarray of shape (n_samples,), int64
        Support list; ``support[:n_support[0]]`` is in use.
    n_support : ndarray of shape (1,), int64
    cache : ndarray of shape (n_samples, capacity), float64
        Cached kernel rows (see the module docstring).
    cache_filled : ndarray of shape (n_samples,), int64
        Valid length of each cached row.
    kernel_work : ndarray of shape (n_samples,), float64
        Work row, used when the support outgrows the cache.
    dense_work : ndarray of shape (n_features,) for CSR input, else (0,)
        Zeroed work vector (zero again on return).
    coef : ndarray of shape (n_problems, n_samples), float64
        Dual coefficients by support slot.
    theta : ndarray of shape (n_problems,), float64
    base_scores : ndarray of shape (n_samples, n_problems) or (0, n_problems)
        Fixed score contributions of support vectors of earlier calls.
    scores : ndarray of shape (n_problems,), float64
        Output.
    block : tuple
        BLAS block state (:func:`perceptrons._loops.mercer.new_kernel_block`).
        With dense input the caller makes row i part of the block first
        (:func:`kernel_block_scores` does both).
    """
    m = n_support[0]
    if is_dense:
        values = _dense_kernel_values(
            X_data, X_indices, X_indptr, n_features, kernel, degree, gamma,
            coef0, sq_norms, i, support, m, cache, cache_filled, kernel_work,
            dense_work, block)
    else:
        capacity = cache.shape[1]
        filled = cache_filled[i]
        lim = m if m < capacity else capacity
        need = filled < lim or m > lim
        if need:
            scatter_row(X_data, X_indices, X_indptr, i, dense_work)
        if filled < lim:
            fill_kernel_values(X_data, X_indices, X_indptr, n_features,
                               is_dense, sq_norms, kernel, degree, gamma,
                               coef0, i, support, filled, lim, dense_work,
                               cache[i])
            cache_filled[i] = lim
        if m > lim:
            for p in range(lim):
                kernel_work[p] = cache[i, p]
            fill_kernel_values(X_data, X_indices, X_indptr, n_features,
                               is_dense, sq_norms, kernel, degree, gamma,
                               coef0, i, support, lim, m, dense_work,
                               kernel_work)
            values = kernel_work
        else:
            values = cache[i]
        if need:
            clear_row(X_indices, X_indptr, i, dense_work)
    has_base = base_scores.shape[0] > 0
    for k in range(coef.shape[0]):
        s = dot_n(coef[k], values, m)
        if has_base:
            s += base_scores[i, k]
        scores[k] = s - theta[k]


@njit(cache=True, inline="always")
def _dense_kernel_values(X_data, X_indices, X_indptr, n_features, kernel,
                         degree, gamma, coef0, sq_norms, i, support, m,
                         cache, cache_filled, kernel_work, dense_work, block):
    """Row i's kernel values against ``support[:m]``, dense input.

    Slots below ``cache_filled[i]`` come from the cache, the next ones up
    to the block's support size from the BLAS block (and join the cache),
    the rest, added inside the block, from the per-row path. Only block
    values are cached, so that a value never depends on the cache. A row of
    a short block gets every value from the per-row path.
    """
    capacity = cache.shape[1]
    filled = cache_filled[i]
    m_block = filled  # the block's values end here (>= filled)
    row_to_block, state = block[3], block[5]
    g = row_to_block[i]
    if g == ROW_BY_ROW:
        fill_kernel_values(X_data, X_indices, X_indptr, n_features, True,
                           sq_norms, kernel, degree, gamma, coef0,
                           i, support, 0, m, dense_work, kernel_work)
        return kernel_work
    if g >= 0 and g < BLOCK_ROWS:
        m_block = state[2]
        top = m_block if m_block < capacity else capacity
        if top > filled:
            kernel_block_values(block, i, filled, top, cache[i])
            cache_filled[i] = top
            filled = top
    if m <= filled:
        return cache[i]
    for p in range(filled):
        kernel_work[p] = cache[i, p]
    if m_block > filled:
        kernel_block_values(block, i, filled, m_block, kernel_work)
    else:
        # A no-op (m_block == filled here), but without it this function
        # compiles to a pass 15% slower (USPS, r = 0.1: 0.086 s -> 0.106 s).
        m_block = filled
    if m > m_block:
        fill_kernel_values(X_data, X_indices, X_indptr, n_features, True,
                           sq_norms, kernel, degree, gamma, coef0,
                           i, support, m_block, m, dense_work, kernel_work)
    return kernel_work


@njit(cache=True, inline="always")
def kernel_block_scores(X_data, X_indices, X_indptr, n_features, is_dense,
                        kernel, degree, gamma, coef0, sq_norms,
                        order, step, support, n_support, cache,
                        cache_filled, kernel_work, dense_work, coef, theta,
                        base_scores, scores, block):
    """:func:`dual_scores` of row ``order[step]``, starting a BLAS block there
    (rows ``order[step:step + BLOCK_ROWS]``) if the row is not in one.

    Returns
    -------
    block : tuple
        The block state (see :func:`perceptrons._loops.mercer.fill_kernel_block`).
    """
    i = order[step]
    if not in_kernel_block(block, i):
        block = fill_kernel_block(block, X_data, n_features, kernel, degree,
                                  gamma, coef0, sq_norms, support, n_support,
                                  cache_filled, order, step, order.shape[0])
    dual_scores(X_data, X_indices, X_indptr, n_features, is_dense,
                kernel, degree, gamma, coef0, sq_norms,
                i, support, n_support, cache, cache_filled, kernel_work,
                dense_work, coef, theta, base_scores, scores, block)
    return block


@njit(cache=True, fastmath=FASTMATH)
def dual_threshold_perceptron_epoch(
    X_data, X_indices, X_indptr, n_features, is_dense,
    kernel, degree, gamma, coef0, sq_norms, diag,
    targets, order, base_scores,
    coef, theta, support, position, n_support,
    cache, cache_filled, kernel_work, dense_work,
    eta, threshold_step, margin, lam, alpha_bound,
    alpha_counts,
    hypothesis, t_start,
    coef_avg_acc, theta_avg_acc,
    coef_ls, theta_ls, tally, best_tally, ls_current,
    current_vote, vote_log, update_log, n_logged,
    n_updates, scores,
):
    """One dual pass of K&W Figure 2 over ``order``, for one or more binary problems.

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features, is_dense
        The data matrix (see :mod:`perceptrons._loops`).
    kernel, degree, gamma, coef0, sq_norms
        The Mercer kernel (see :func:`dual_scores`).
    diag : ndarray of shape (n_samples,), float64
        ``k(x_i, x_i) = ‖φ(x_i)‖²``, read only when ``lam != 0``.
    targets, order
        As in :func:`perceptrons._loops.perceptron.threshold_perceptron_epoch`.
    base_scores, coef, support, n_support, cache, cache_filled,
    kernel_work, dense_work
        See :func:`dual_scores`; ``coef``, the support list and the cache
        are updated in place.
    theta : ndarray of shape (n_problems,), float64
        Thresholds θ, updated in place.
    position : ndarray of shape (n_samples,), int64
        Support slot of each example, or -1; updated in place.
    eta, threshold_step, margin, lam, alpha_bound, alpha_counts,
    hypothesis, t_start
        As in the primal loop.
    coef_avg_acc : ndarray of shape (n_problems, n_samples) or (n_problems, 0)
        Σ (s-1)·Δc_s by slot (averaged only); the average after T steps is
        ``coef - coef_avg_acc / T``.
    theta_avg_acc : ndarray of shape (n_problems,), float64
    coef_ls : ndarray of shape (n_problems, n_samples) or (n_problems, 0)
        Longest-survivor coefficients by slot (longest only).
    theta_ls, tally, best_tally, ls_current, current_vote, vote_log,
    update_log, n_logged, n_updates, scores
        As in the primal loop.

    Returns
    -------
    n_mistakes : int
        Online prediction mistakes, with the primal loop's tie rule.
    """
    n_problems = coef.shape[0]
    n_mistakes = 0
    block = new_kernel_block(cache_filled.shape[0], n_features, is_dense)
    for step in range(order.shape[0]):
        i = order[step]
        t_global = t_start + step + 1
        target = targets[i]
        block = kernel_block_scores(
            X_data, X_indices, X_indptr, n_features, is_dense,
            kernel, degree, gamma, coef0, sq_norms, order, step,
            support, n_support, cache, cache_filled, kernel_work,
            dense_work, coef, theta, base_scores, scores, block)
        if is_online_mistake(scores, target, n_problems):
            n_mistakes += 1
        for k in range(n_problems):
            y = problem_sign(target, k, n_problems)
            # SUM - θ of Figure 2, with the λ-trick term of Eq. (1) in
            # feature space: ‖φ(x_i)‖² = k(x_i, x_i).
            s = scores[k]
            if lam != 0.0 and alpha_counts[k, i] != 0:
                s += y * lam * diag[i]
            if y * s <= margin:
                if may_update(alpha_counts, k, i, alpha_bound):
                    if hypothesis == HYPOTHESIS_VOTED:
                        log_retired_vote(k, i, current_vote, vote_log,
                                         update_log, n_logged)
                    a = eta * y
                    pos = _append_support(i, support, position, n_support)
                    coef[k, pos] += a
                    # θ moves against w (Cristianini & Shawe-Taylor).
                    theta[k] -= a * threshold_step
                    if hypothesis == HYPOTHESIS_AVERAGED:
                        c = float(t_global - 1)
                        coef_avg_acc[k, pos] += c * a
                        theta_avg_acc[k] -= c * a * threshold_step
                    count_update(k, i, alpha_counts, n_updates, tally,
                                 ls_current)
            else:
                current_vote[k] += 1
                snapshot = 0
                if hypothesis == HYPOTHESIS_LONGEST:
                    snapshot = extend_run(k, tally, best_tally, ls_current)
                if snapshot == 2:
                    # Slots past n_support hold 0 in both arrays.
                    for p in range(n_support[0]):
                        coef_ls[k, p] = coef[k, p]
                if snapshot:
                    theta_ls[k] = theta[k]
    return n_mistakes


@njit(cache=True, fastmath=FASTMATH)
def dual_prototype_perceptron_epoch(
    X_data, X_indices, X_indptr, n_features, is_dense,
    kernel, degree, gamma, coef0, sq_norms, diag,
    targets, order, base_scores,
    coef, theta, support, position, n_support,
    cache, cache_filled, kernel_work, dense_work,
    eta, threshold_step, margin, lam, alpha_bound,
    alpha_counts,
    hypothesis, t_start,
    coef_avg_acc, theta_avg_acc,
    coef_ls, theta_ls, tally, best_tally, ls_current,
    current_vote, vote_log, update_log, other_log, n_logged,
    n_updates, scores,
):
    """One dual pass of the prototype rule over ``order``.

    Arguments are those of :func:`dual_threshold_perceptron_epoch`, with one
    problem as in :func:`perceptrons._loops.multiclass.prototype_perceptron_epoch`:
    ``coef`` holds one row of dual coefficients per class (an update adds
    ``η`` to the true class's coefficient of x_i and ``-η`` to the best other
    class's), and ``other_log`` records the decreased class of each update.

    Returns
    -------
    n_mistakes : int
        Steps whose true class did not score strictly above all others.
    """
    n_classes = coef.shape[0]
    n_mistakes = 0
    block = new_kernel_block(cache_filled.shape[0], n_features, is_dense)
    for step in range(order.shape[0]):
        i = order[step]
        t_global = t_start + step + 1
        y = targets[i]
        block = kernel_block_scores(
            X_data, X_indices, X_indptr, n_features, is_dense,
            kernel, degree, gamma, coef0, sq_norms, order, step,
            support, n_support, cache, cache_filled, kernel_work,
            dense_work, coef, theta, base_scores, scores, block)
        other = best_other(scores, y)
        gap = scores[y] - scores[other]
        if gap <= 0.0:
            n_mistakes += 1
        if lam != 0.0 and alpha_counts[0, i] != 0:
            gap += lam * diag[i]
        if gap <= margin:
            if may_update(alpha_counts, 0, i, alpha_bound):
                if hypothesis == HYPOTHESIS_VOTED:
                    n = log_retired_vote(0, i, current_vote, vote_log,
                                         update_log, n_logged)
                    other_log[n] = other
                pos = _append_support(i, support, position, n_support)
                coef[y, pos] += eta
                coef[other, pos] -= eta
                theta[y] -= eta * threshold_step
                theta[other] += eta * threshold_step
                if hypothesis == HYPOTHESIS_AVERAGED:
                    c = float(t_global - 1)
                    coef_avg_acc[y, pos] += c * eta
                    coef_avg_acc[other, pos] -= c * eta
                    theta_avg_acc[y] -= c * eta * threshold_step
                    theta_avg_acc[other] += c * eta * threshold_step
                count_update(0, i, alpha_counts, n_updates, tally, ls_current)
        else:
            current_vote[0] += 1
            snapshot = 0
            if hypothesis == HYPOTHESIS_LONGEST:
                snapshot = extend_run(0, tally, best_tally, ls_current)
            if snapshot == 2:
                m = n_support[0]
                for r in range(n_classes):
                    for p in range(m):
                        coef_ls[r, p] = coef[r, p]
            if snapshot:
                theta_ls[:] = theta
    return n_mistakes
