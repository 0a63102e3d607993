"""Figure 2's per-step bookkeeping, shared by the primal and dual loops.

Khardon & Wachman (2007), Figure 2, keeps beside the weights: the update
counts α_i, the votes of the hypotheses (voted perceptron), the run of
correct predictions (longest survivor) and, in our averaged variant, the
running sums. These helpers hold that logic once; each loop only says how it
scores an example and how it applies an update to its representation
(weights in the primal, dual coefficients in the dual).
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
