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
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from sklearn.utils import check_random_state

from ..utils.parallel import effective_n_jobs
from ..utils.random import draw_order

__all__ = ["epochs_until_converged", "for_each_problem", "problem_seeds",
           "problem_signs"]


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
    targets : ndarray of shape (n_samples,), int64
        Class indices.
    k : int
        The problem: class k against the rest, or, with one problem for two
        classes, class 1 against class 0.
    n_problems : int

    Returns
    -------
    ndarray of shape (n_samples,), float64
    """
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
