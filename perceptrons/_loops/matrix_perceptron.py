"""The pass of the mistake-driven matrix perceptrons, whatever their form.

The Higher-order Perceptron of Brotto, Gentile & Vitale
(:mod:`perceptrons._loops.higher_order`) and the Second-order Perceptron of
Cesa-Bianchi, Conconi & Gentile (:mod:`perceptrons._loops.second_order`)
share a pass: for each presented row and each of one or more binary problems
(one-vs-rest shares each row, and in the dual form its kernel row), predict
``sign(wᵀx)`` and, on a mistake (``y wᵀx <= 0``: ties are mistakes), update
a matrix and the weights. What differs is the update, and how the weights,
the matrix and the row are stored; both are the *store*, one named tuple
per algorithm and form, on whose class numba specialises the helpers below
and the algorithm's :func:`on_mistake` when :func:`matrix_epoch` is compiled.

A primal store (fields ``X_data, X_indices, X_indptr, x, nz, w, ...``)
reads a row scattered into the dense work row ``x`` with the list ``nz`` of
its non-zeros (:func:`perceptrons._loops.matrix_rows.scatter_row_nz`) and
scores it against ``w[k]``. A dual store (fields ``data, kernel, support,
cache, coef, ...``, marked by
:func:`~perceptrons._loops.storage.kernel_store`) reads the row's kernel
values against the support set (:mod:`perceptrons._loops.support`) and
scores them against the coefficients ``coef[k]``; it compiles with the dual
loops' flags.

An algorithm registers, for each of its store classes, the function called
on a mistake (:func:`register_on_mistake`):
``on_mistake(store, trial, i, k, y, weight, count, stats) -> (store,
failed)``, with ``trial`` the row as read (the number of non-zeros in ``x``,
or the kernel values and the support size), ``weight`` the row's weight
``s_i > 0`` (its sample weight times its class weight; exactly 1.0 when
unweighted, which leaves every update's bits as they were), ``count`` the
problem's mistakes so far, this one included, and ``stats`` the pass's
counters; it returns the store
(reallocated when its storage grew) and whether the update failed (the
matrix lost its precision).
"""

from ._common import specialised
from .targets import problem_sign
from .matrix_rows import scatter_row_nz, sparse_dot, unscatter_row_nz
from .mercer import dot_n
from .storage import begin_pass, by_storage, storage_loop, store_class
from .support import trial_kernel_row

__all__ = ["matrix_epoch", "on_mistake", "register_on_mistake"]

# store class -> its algorithm's update on a mistake
_ON_MISTAKE = {}


def register_on_mistake(store_class, update):
    """Make ``update`` the :func:`on_mistake` of ``store_class``'s stores."""
    _ON_MISTAKE[store_class] = update


@specialised(lambda store, *args: _ON_MISTAKE.get(store_class(store)))
def on_mistake(store, trial, i, k, y, weight, count, stats):
    """The update of the store's algorithm on problem k's mistake on row i,
    of weight ``weight``."""


# ------------------------------------------------------------------ trials
def _primal_start(store, ctx, order, step):
    nnz = scatter_row_nz(store.X_data, store.X_indices, store.X_indptr,
                         order[step], store.x, store.nz)
    return ctx, nnz


def _dual_start(store, ctx, order, step):
    ctx, values, m = trial_kernel_row(store.provider, store.support, order,
                                      step, ctx)
    return ctx, (values, m)


@specialised(by_storage(_primal_start, _dual_start))
def start_trial(store, ctx, order, step):
    """Read row ``order[step]``: scattered into ``x`` (primal), or its kernel
    row against the support (dual).

    Returns
    -------
    ctx : object
        The pass context (:func:`~perceptrons._loops.storage.begin_pass`).
    trial : int or tuple
        Primal: the row's number of non-zeros listed in ``nz``. Dual:
        ``(values, m)``, ``values[p] = k(x_i, x_support[p])`` for ``p < m``.
    """


def _primal_margin(store, trial, k):
    return sparse_dot(store.w[k], store.x, store.nz, trial)


def _dual_margin(store, trial, k):
    return dot_n(store.coef[k], trial[0], trial[1])


@specialised(by_storage(_primal_margin, _dual_margin))
def trial_margin(store, trial, k):
    """``wᵀx`` of problem k on the trial's row."""


def _primal_hold(store, trial, summed, k, times):
    w = store.w[k]
    for j in range(w.shape[0]):
        summed[k, j] += times * w[j]


def _dual_hold(store, trial, summed, k, times):
    # Slots at and beyond the support size m hold zeros.
    coef = store.coef[k]
    for j in range(trial[1]):
        summed[k, j] += times * coef[j]


@specialised(by_storage(_primal_hold, _dual_hold))
def add_held(store, trial, summed, k, times):
    """``summed[k] += times · w_k``: problem k's hypothesis, held unchanged
    over ``times`` trials, into its running sum (w by feature, or by
    support slot)."""


def _primal_end(store, trial):
    unscatter_row_nz(store.x, store.nz, trial)


def _dual_end(store, trial):
    pass


@specialised(by_storage(_primal_end, _dual_end))
def end_trial(store, trial):
    """Leave the work row zeroed again (primal)."""


# ------------------------------------------------------------------ pass
@storage_loop
def matrix_epoch(store, targets, order, weights, counts, stats, summed,
                 held_since, t_start):
    """One pass of a mistake-driven matrix perceptron over ``order``.

    Parameters
    ----------
    store : named tuple
        The algorithm's state in one of its forms (module notes), updated in
        place.
    targets : ndarray of shape (n_samples,), int64
        Class indices (see :func:`perceptrons._loops.targets.problem_sign`).
    order : ndarray of shape (n_steps,), int64
    weights : ndarray of shape (n_samples,) or (0,), float64
        Each row's weight s_i > 0, indexed like ``targets`` (empty: every
        weight is 1). A weighted mistake adds s_i times the row's terms to
        the algorithm's statistics (see its :func:`on_mistake`); the
        prediction, the mistake test and the count k do not read it.
    counts : ndarray of shape (n_problems,), int64
        Mistakes so far per problem (the k of ``ρ_k = c/k``), updated in
        place.
    stats : ndarray of shape (2,), int64
        Adds the pass's mistakes (summed over problems) and matrix updates.
    summed : ndarray of shape (n_problems, n_weights) or (0, 0), float64
        The averaged hypothesis's running sum, updated in place (empty: the
        last hypothesis only). Lazily: problem k's w changes on its mistakes
        only, so a mistake on trial τ first adds the outgoing w times the
        trials it was held, ``τ - held_since[k]``; with T trials in all,
        ``Σ_τ w_τ = summed + (T - held_since) w`` (w_τ the hypothesis after
        trial τ).
    held_since : ndarray of shape (n_problems,), int64
        The trial count when each problem's w last changed, updated in
        place.
    t_start : int
        Trials before this pass (the state's ``t``).

    Returns
    -------
    store : named tuple
        The store, reallocated if its storage had to grow.
    failed : int
        0, or 1 + the step where an update failed (the matrix lost its
        precision); the pass stops there.
    """
    n_problems = counts.shape[0]
    ctx = begin_pass(store)
    for step in range(order.shape[0]):
        i = order[step]
        ctx, trial = start_trial(store, ctx, order, step)
        weight = 1.0 if weights.shape[0] == 0 else weights[i]
        for k in range(n_problems):
            y = problem_sign(targets[i], k, n_problems)
            if y * trial_margin(store, trial, k) > 0.0:
                continue
            stats[0] += 1
            counts[k] += 1
            if summed.shape[0] != 0:
                tau = t_start + step
                add_held(store, trial, summed, k, float(tau - held_since[k]))
                held_since[k] = tau
            store, failed = on_mistake(store, trial, i, k, y, weight,
                                       counts[k], stats)
            if failed:
                end_trial(store, trial)
                return store, step + 1
        end_trial(store, trial)
    return store, 0

