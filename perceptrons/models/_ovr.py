"""Binary algorithms on several classes, and their run to convergence.

PDM, PFM and ROMMA (and, next, the higher- and second-order perceptrons)
learn one binary problem at a time; with more than two classes they run
one-vs-rest, each problem on its own, to its own convergence. Two pieces
serve them all:

* :func:`problem_seeds` draws one seed per problem before any work starts
  (scikit-learn's ``OneVsRestClassifier`` habit: no shared random state
  between problems, so a problem's result does not depend on the others and
  problems may run in any order or in parallel);
* :func:`epochs_until_converged` runs full epochs, one compiled call each,
  through a schedule of condition parameters (PDM-succ's successive ε; a
  single value otherwise) until an epoch makes no update or ``max_iter``
  epochs were run.

The per-problem epoch is the model's: a function ``run_epoch(order, param,
epoch) -> n_updates_of_full_pass`` closed over the problem's state.

The Perceptron trains its one-vs-rest problems in one pass over X instead
(K&W Sec. 2.7); :func:`ovr_epoch_in_threads` splits that pass's problems
across threads, bit for bit the single pass.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from sklearn.utils import check_random_state

from .._loops.hypotheses import threshold_rule
from .._loops.perceptron import figure2_epoch, ovr_rivals
from ..utils.parallel import contiguous_parts, effective_n_jobs
from ..utils.random import draw_order

__all__ = ["compact_targets", "epochs_until_converged", "for_each_problem",
           "ovr_epoch_in_threads", "problem_seeds", "problem_signs"]


def for_each_problem(run_problem, n_problems, n_jobs):
    """``[run_problem(k) for k in range(n_problems)]``, on ``n_jobs``
    threads (:func:`~perceptrons.utils.parallel.effective_n_jobs`).

    Problems share no state and draw no shared random numbers
    (:func:`problem_seeds`), and their compiled loops release the GIL, so
    they may run at once; each gives what it gives alone. The results come
    back in problem order, and the first problem's exception (in that
    order) is raised.
    """
    n_threads = min(effective_n_jobs(n_jobs), n_problems)
    if n_threads < 2:
        return [run_problem(k) for k in range(n_problems)]
    with ThreadPoolExecutor(n_threads) as pool:
        return list(pool.map(run_problem, range(n_problems)))


def problem_seeds(random_state, n_problems):
    """One seed per binary problem, drawn before any problem runs.

    Parameters
    ----------
    random_state : None, int or RandomState
    n_problems : int

    Returns
    -------
    ndarray of shape (n_problems,)
    """
    rng = check_random_state(random_state)
    return rng.randint(np.iinfo(np.int32).max, size=n_problems)


def problem_signs(targets, k, n_problems):
    """Labels ±1 of binary problem k.

    Parameters
    ----------
    targets : ndarray of shape (n_samples,) or (n_samples, n_problems)
        Class indices (int64); or a multi-label y's labels ±1 (int8), one
        column per problem.
    k : int
        The problem: class k against the rest, or, with one problem for two
        classes, class 1 against class 0; or label k on against off.
    n_problems : int

    Returns
    -------
    ndarray of shape (n_samples,), float64
    """
    if targets.ndim == 2:
        return targets[:, k].astype(np.float64)
    positive = 1 if n_problems == 1 else k
    return np.where(targets == positive, 1.0, -1.0)


def epochs_until_converged(run_epoch, schedule, max_iter, n_samples, shuffle,
                           rng):
    """Full epochs until one makes no update, for each schedule value.

    Parameters
    ----------
    run_epoch : callable
        ``run_epoch(order, param, epoch)``: one full epoch presenting the rows
        in ``order`` (int64) with condition parameter ``param``, ``epoch``
        being the number of epochs already run; returns the updates the
        full pass made (0 ends the current schedule value).
    schedule : sequence of float
        Condition parameters of the successive runs, each continuing where
        the previous one converged.
    max_iter : int
        Most epochs in all.
    n_samples : int
    shuffle : bool or "blocks"
        Present each epoch in a fresh order drawn from ``rng``
        (:func:`~perceptrons.utils.random.draw_order`).
    rng : RandomState

    Returns
    -------
    n_epochs : int
    converged : bool
        False when ``max_iter`` epochs ran out first.
    """
    identity = np.arange(n_samples, dtype=np.int64)
    epochs = 0
    for param in schedule:
        while True:
            if epochs >= max_iter:
                return epochs, False
            order = draw_order(rng, n_samples, shuffle) if shuffle \
                else identity
            n_full = run_epoch(order, param, epochs)
            epochs += 1
            if n_full == 0:
                break
    return epochs, True


#: Steps of a threaded one-vs-rest pass between two countings of its online
#: mistakes (its score log holds this many rows per problem).
_OVR_CHUNK_STEPS = 1 << 16


def ovr_epoch_in_threads(n_threads, store, targets, order, weights, theta,
                         rule, final, logs):
    """:func:`~perceptrons._loops.perceptron.figure2_epoch` of a primal
    one-vs-rest pass, its problems split across ``n_threads`` threads.

    One-vs-rest problems share nothing but the rows (K&W Sec. 2.7): each
    thread runs the compiled pass (which releases the GIL) over every row
    for a contiguous group of problems, on views of their weight rows,
    thresholds, counters and logs, so each problem makes the same steps in
    the same order as in one pass over all of them, bit for bit. A group
    of one problem sees the binary labels ``targets == k``, a larger group
    the class indices shifted to its first problem (the rule's label for
    its problem k is +1 where ``target == k``). The online mistakes
    compare every problem's score: each group's thread reduces its score
    log to its best rival's and the true class's score per step
    (:func:`~perceptrons._loops.perceptron.ovr_rivals`), and the groups'
    reductions are compared here (the pass is run in chunks of
    :data:`_OVR_CHUNK_STEPS` rows so that the logs stay small; a chunk
    continues where the previous one stopped, so chunks change nothing).

    Returns
    -------
    int
        Online mistakes of the pass, as the single-threaded pass counts
        them.
    """
    (hypothesis, t_start, theta_avg_acc, theta_ls, tally, best_tally,
     ls_current, current_vote) = final
    (alpha_counts, vote_log, update_log, other_log, n_logged, n_updates,
     _, _) = logs
    groups = contiguous_parts(theta.shape[0], n_threads)
    if targets.ndim == 2:
        # Multi-label: each group's columns of labels; the mistakes are
        # counted per problem, so the groups' counts add up.
        group_targets = [np.ascontiguousarray(targets[:, lo:hi])
                         for lo, hi in groups]
    else:
        group_targets = [(targets == lo).astype(targets.dtype)
                         if hi - lo == 1
                         else targets - targets.dtype.type(lo)
                         for lo, hi in groups]

    def run(g, c0, steps, best_other, true_score):
        lo, hi = groups[g]
        score_log = (np.empty((0, 0)) if targets.ndim == 2
                     else np.empty((steps.shape[0], hi - lo)))
        group_store = store._replace(current=store.current[lo:hi],
                                     summed=store.summed[lo:hi],
                                     snapshot=store.snapshot[lo:hi])
        group_final = (hypothesis, t_start + c0, theta_avg_acc[lo:hi],
                       theta_ls[lo:hi], tally[lo:hi], best_tally[lo:hi],
                       ls_current[lo:hi], current_vote[lo:hi])
        group_logs = (alpha_counts[lo:hi], vote_log[lo:hi],
                      update_log[lo:hi], other_log, n_logged[lo:hi],
                      n_updates[lo:hi], np.zeros(hi - lo), score_log)
        n_group = figure2_epoch(group_store, group_targets[g], steps,
                                weights, theta[lo:hi],
                                threshold_rule(hi - lo, primal=True)(*rule),
                                group_final, group_logs)
        if targets.ndim == 2:
            return n_group
        ovr_rivals(score_log, targets, steps, lo, best_other, true_score)
        return 0

    if targets.ndim == 2:
        with ThreadPoolExecutor(n_threads) as pool:
            return sum(pool.map(
                lambda g: run(g, 0, order, None, None), range(len(groups))))
    n_mistakes = 0
    with ThreadPoolExecutor(n_threads) as pool:
        for c0 in range(0, order.shape[0], _OVR_CHUNK_STEPS):
            steps = order[c0:c0 + _OVR_CHUNK_STEPS]
            # Per group and step: its best rival's score and the true
            # class's (ovr_rivals), reduced over the groups here.
            best_other = np.full((len(groups), steps.shape[0]), np.nan)
            true_score = np.full((len(groups), steps.shape[0]), np.nan)
            for future in [pool.submit(run, g, c0, steps, best_other[g],
                                       true_score[g])
                           for g in range(len(groups))]:
                future.result()
            n_mistakes += int(np.count_nonzero(
                np.fmax.reduce(best_other) >= np.fmax.reduce(true_score)))
    return n_mistakes


def compact_targets(call, targets):
    """The class indices as the smallest integer type that holds them, made
    once per call.

    A shuffled pass reads ``targets[i]`` at a random row: as int8 a
    4.9-million-row set's labels take 4.9 MB, which stay in the last-level
    cache, instead of 39 MB, each read a cache miss. The values, hence the
    results, are the same.
    """
    if targets.ndim == 2:
        return targets  # a multi-label y's labels ±1, int8 already
    cached = getattr(call, "compact_targets", None)
    if cached is None or cached[0] is not targets:
        n_classes = int(targets.max(initial=0)) + 1
        cached = call.compact_targets = (
            targets, targets.astype(np.min_scalar_type(-n_classes)))
    return cached[1]
