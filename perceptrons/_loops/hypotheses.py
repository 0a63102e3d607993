"""Figure 2's per-step bookkeeping, shared by the primal and dual loops.

Khardon & Wachman (2007), Figure 2, keeps beside the weights: the update
counts α_i, the votes of the hypotheses (voted perceptron), the run of
correct predictions (longest survivor) and, in our averaged variant, the
running sums. These helpers hold that logic once; each loop only says how it
scores an example and how it applies an update to its representation
(weights in the primal, dual coefficients in the dual).

The four Figure 2 loops (:mod:`perceptrons._loops.perceptron`,
:mod:`perceptrons._loops.multiclass`, :mod:`perceptrons._loops.perceptron_dual`)
take, after their data and weights, the same three tuples, built once by
:meth:`perceptrons.models._family.ThresholdFamilyBase._family_loop_args`.
Below, ``n_problems`` is the number of counters: the problems of the
one-vs-rest loops, 1 for the prototype loops; ``n_rows`` is the number of
weight vectors (one per class for the prototype loops), and ``n_weights``
is ``n_features`` in the primal and ``n_samples`` (support slots) in the dual.

``rule = (eta, threshold_step, margin, lam, alpha_bound)``, Figure 2's update rule:
    ``eta, threshold_step, margin, lam`` : float
        η, C, τ (absolute) and λ of Figure 2 (λ-trick, Eq. 1).
    ``alpha_bound`` : int
        Updates allowed per example and problem; negative means unbounded.

``final = (hypothesis, t_start, W_avg_acc, theta_avg_acc, W_ls, theta_ls,
tally, best_tally, ls_current, current_vote)``, the final-hypothesis
bookkeeping, kept across calls; arrays updated in place:
    ``hypothesis`` : int
        One of the ``HYPOTHESIS_*`` constants: which bookkeeping to keep.
    ``t_start`` : int
        Examples presented before this pass (for the running average).
    ``W_avg_acc`` : ndarray of shape (n_rows, n_weights) or (n_rows, 0), float64
        Σ (s-1)·Δw_s over updates at global step s (averaged only; dual:
        Σ (s-1)·Δc_s by slot); the average after T steps is
        ``W - W_avg_acc / T``.
    ``theta_avg_acc`` : ndarray of shape (n_rows,), float64
        Σ (s-1)·Δθ_s likewise.
    ``W_ls``, ``theta_ls`` : ndarray of shape (n_rows, n_weights) or (n_rows, 0), and (n_rows,), float64
        Longest-survivor hypothesis (longest only).
    ``tally``, ``best_tally`` : ndarray of shape (n_problems,), int64
        Current and best run of correct predictions (longest only).
    ``ls_current`` : ndarray of shape (n_problems,), int64
        1 when ``W_ls`` already holds the current w (spares repeated copies).
    ``current_vote`` : ndarray of shape (n_problems,), int64
        Vote of the current hypothesis (voted only).

``logs = (alpha_counts, vote_log, update_log, other_log, n_logged,
n_updates, scores)``, the counters and logs of one call; arrays updated in
place:
    ``alpha_counts`` : ndarray of shape (n_problems, n_samples), int64
        α_i of Figure 2 (updates made on example i).
    ``vote_log``, ``update_log`` : ndarray of shape (n_problems, n_samples) or (n_problems, 0), int64
        For each update made in this pass: the vote of the hypothesis it
        retired and the row that caused it (voted only).
    ``other_log`` : ndarray of shape (n_samples,) or (0,), int64
        Prototype loops, voted only: the class whose prototype each update
        decreased; empty and unused for the one-vs-rest loops.
    ``n_logged`` : ndarray of shape (n_problems,), int64
        Entries written to the logs in this pass.
    ``n_updates`` : ndarray of shape (n_problems,), int64
        Updates made, incremented.
    ``scores`` : ndarray of shape (n_rows,), float64
        Work space.
"""

from numba import njit

HYPOTHESIS_LAST = 0
HYPOTHESIS_LONGEST = 1
HYPOTHESIS_VOTED = 2
HYPOTHESIS_AVERAGED = 3


@njit(cache=True, inline="always")
def problem_sign(target, k, n_problems):
    """Label ±1 of an example with class index ``target`` in problem k.

    One problem: class index 1 is positive. K problems (one-vs-rest):
    problem k's positive class is k.
    """
    positive = target == 1 if n_problems == 1 else target == k
    return 1.0 if positive else -1.0


@njit(cache=True, inline="always")
def is_online_mistake(scores, target, n_problems):
    """Whether the current hypothesis mispredicts, ties counted as mistakes.

    One problem: ``y (<w,x> - θ) <= 0``; one-vs-rest: the true class's
    score is not strictly above every other class's.
    """
    if n_problems == 1:
        return (1.0 if target == 1 else -1.0) * scores[0] <= 0.0
    for r in range(n_problems):
        if r != target and scores[r] >= scores[target]:
            return True
    return False


@njit(cache=True, inline="always")
def may_update(alpha_counts, k, i, alpha_bound):
    """Figure 2's α-bound: example i may update while ``α_i < α-bound``."""
    return alpha_bound < 0 or alpha_counts[k, i] < alpha_bound


@njit(cache=True, inline="always")
def log_retired_vote(k, i, current_vote, vote_log, update_log, n_logged):
    """Voted perceptron: log the vote of the hypothesis an update of row i
    retires, and start the new hypothesis at 0 votes.

    Callers guard it with ``hypothesis == HYPOTHESIS_VOTED`` (a guard inside
    this helper, with its early return, cost 60% on a9a once inlined).

    Returns
    -------
    int
        The log position used.
    """
    n = n_logged[k]
    vote_log[k, n] = current_vote[k]
    update_log[k, n] = i
    n_logged[k] = n + 1
    current_vote[k] = 0
    return n


@njit(cache=True, inline="always")
def count_update(k, i, alpha_counts, n_updates, tally, ls_current):
    """After an update: α_i += 1, the survivor's run ends (Figure 2)."""
    alpha_counts[k, i] += 1
    n_updates[k] += 1
    tally[k] = 0
    ls_current[k] = 0


@njit(cache=True, inline="always")
def extend_run(k, tally, best_tally, ls_current):
    """Longest survivor: ŷ = y extends the current hypothesis' run.

    Returns
    -------
    int
        0 if the longest survivor is unchanged; 1 if the current hypothesis
        is the new longest survivor and the snapshot already holds its
        weights (only θ need be copied); 2 if the weights must be copied too
        (once per run, not once per step).
    """
    tally[k] += 1
    snapshot = 0
    if tally[k] > best_tally[k]:
        best_tally[k] = tally[k]
        snapshot = 1 if ls_current[k] == 1 else 2
        ls_current[k] = 1
    return snapshot


@njit(cache=True, inline="always")
def survive(k, final):
    """ŷ = y: the current hypothesis of problem k survives one more example.

    Adds a vote and, for the longest survivor, extends its run.
    ``final`` is the loops' bookkeeping tuple (see the module docstring).

    Returns
    -------
    int
        The snapshot code of :func:`extend_run`; 0 unless ``hypothesis``
        is ``HYPOTHESIS_LONGEST``.
    """
    hypothesis, tally, best_tally, ls_current, current_vote = (
        final[0], final[6], final[7], final[8], final[9])
    current_vote[k] += 1
    snapshot = 0
    if hypothesis == HYPOTHESIS_LONGEST:
        snapshot = extend_run(k, tally, best_tally, ls_current)
    return snapshot
