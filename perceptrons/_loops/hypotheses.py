"""Figure 2's update rules and per-step bookkeeping.

Khardon & Wachman (2007), Figure 2, keeps beside the weights: the update
counts α_i, the votes of the hypotheses (voted perceptron), the run of
correct predictions (longest survivor) and, in our averaged variant, the
running sums. These helpers hold that logic once; the one loop of
:mod:`perceptrons._loops.perceptron` says how a step goes, and the store of
:mod:`perceptrons._loops.storage` how the weights are kept.

Two update rules share that loop (the first in two classes, and a third,
the Projectron's, in :mod:`perceptrons._loops.projectron`), told apart by
the class of ``rule`` when it is compiled (:func:`~perceptrons._loops._common.specialised`):

``ThresholdRule(eta, threshold_step, margin, lam, alpha_bound)``
    One or more binary problems (K&W Sec. 2.7: one-vs-rest trains one per
    class in the same pass): problem k's label is ±1 and an update moves
    weight row k by ``η y x`` and θ_k by ``-η y C``.
``PrototypeRule(eta, threshold_step, margin, lam, alpha_bound)``
    One prototype per class (Shalev-Shwartz & Singer 2005, Eq. 18): the
    true class must score strictly above every other; an update moves the
    true class's row by ``+η x`` and the best other class's (lowest index
    among equals) by ``-η x``, and their thresholds against them.
``BinaryRule(eta, threshold_step, margin, lam, alpha_bound)``
    The threshold rule with exactly one problem (binary data). The same
    arithmetic, the same bits; its one weight row and one counter are
    constants of the compiled loop (:func:`rule_counts`), so the loop's
    per-row and per-counter loops fold away and its step stays in
    registers (a9a's epoch 0.74 → 0.57 ms).

The fields are η, C, τ (absolute) and λ of Figure 2 (λ-trick, Eq. 1), and
the α-bound (updates allowed per example and problem; negative: unbounded).

Below, ``n_counters`` is the number of counters: the problems of the
threshold rule, 1 for the prototype rule; ``n_rows`` is the number of weight
vectors (one per class for prototypes).

``final = (hypothesis, t_start, theta_avg_acc, theta_ls, tally, best_tally,
ls_current, current_vote)``, the final-hypothesis bookkeeping, kept across
calls; arrays updated in place (the weights' own running sum and snapshot
are the store's ``summed`` and ``snapshot``):
    ``hypothesis`` : int
        One of the ``HYPOTHESIS_*`` constants: which bookkeeping to keep.
    ``t_start`` : int
        Examples presented before this pass (for the running average).
    ``theta_avg_acc`` : ndarray of shape (n_rows,), float64
        Σ (s-1)·Δθ_s over updates at global step s (averaged only); the
        store's ``summed`` holds Σ (s-1)·Δw_s likewise, so the average after
        T steps is ``w - summed / T``.
    ``theta_ls`` : ndarray of shape (n_rows,), float64
        θ of the longest survivor (longest only).
    ``tally``, ``best_tally`` : ndarray of shape (n_counters,), int64
        Current and best run of correct predictions (longest only).
    ``ls_current`` : ndarray of shape (n_counters,), int64
        1 when the snapshot already holds the current w (spares repeated
        copies).
    ``current_vote`` : ndarray of shape (n_counters,), int64
        Vote of the current hypothesis (voted only).

``logs = (alpha_counts, vote_log, update_log, other_log, n_logged,
n_updates, scores, score_log)``, the counters and logs of one call; arrays
updated in place:
    ``alpha_counts`` : ndarray of shape (n_counters, n_samples), int64
        α_i of Figure 2 (updates made on example i).
    ``vote_log``, ``update_log`` : ndarray of shape (n_counters, n_samples) or (n_counters, 0), int64
        For each update made in this pass: the vote of the hypothesis it
        retired and the row that caused it (voted only).
    ``other_log`` : ndarray of shape (n_samples,) or (0,), int64
        Prototype rule, voted only: the class whose prototype each update
        decreased.
    ``n_logged`` : ndarray of shape (n_counters,), int64
        Entries written to the logs in this pass.
    ``n_updates`` : ndarray of shape (n_counters,), int64
        Updates made, incremented.
    ``scores`` : ndarray of shape (n_rows,), float64
        Work space.
    ``score_log`` : ndarray of shape (n_steps, n_rows) or (0, 0), float64
        Each step's ``SUM - θ`` per row, before the step's updates, when
        kept: a one-vs-rest pass split by problems across threads counts its
        online mistakes from them afterwards.
"""

from collections import namedtuple

from numba import njit

from ._common import best_other, specialised
from .projectron import (ProjectronRule, projected_update,
                         projected_update_sum, takes_step)
from .storage import (add_example, add_example_sum, add_pair, add_pair_sum,
                      store_class)
from .targets import is_online_mistake, problem_sign

HYPOTHESIS_LAST = 0
HYPOTHESIS_LONGEST = 1
HYPOTHESIS_VOTED = 2
HYPOTHESIS_AVERAGED = 3
#: The final hypotheses by name, as the loops number them.
HYPOTHESES = {"last": HYPOTHESIS_LAST, "longest": HYPOTHESIS_LONGEST,
              "voted": HYPOTHESIS_VOTED, "averaged": HYPOTHESIS_AVERAGED}

ThresholdRule = namedtuple(
    "ThresholdRule", ["eta", "threshold_step", "margin", "lam", "alpha_bound"])
PrototypeRule = namedtuple(
    "PrototypeRule", ["eta", "threshold_step", "margin", "lam", "alpha_bound"])
BinaryRule = namedtuple(
    "BinaryRule", ["eta", "threshold_step", "margin", "lam", "alpha_bound"])


def _is_prototype(rule):
    return store_class(rule) is PrototypeRule


def threshold_rule(n_problems, *, primal):
    """The rule class of ``n_problems`` binary threshold problems: the
    :data:`BinaryRule` for one in the primal form, else the
    :data:`ThresholdRule`. A dual pass's cost is its kernel values, so it
    keeps the one compiled loop for any number of problems (each rule
    class is another compilation of the dual loop, its longest)."""
    return BinaryRule if n_problems == 1 and primal else ThresholdRule


# ------------------------------------------------------------ the rules
def by_rule(threshold, prototype, projectron=None):
    """The ``choose`` of :func:`~perceptrons._loops._common.specialised` for
    a helper of the rules: by the class of ``rule``, its first argument
    (the :data:`BinaryRule` is a threshold rule, and so is the
    Projectron's :data:`~perceptrons._loops.projectron.ProjectronRule`
    unless the helper gives ``projectron``)."""
    def choose(rule, *args):
        if _is_prototype(rule):
            return prototype
        if projectron is not None and store_class(rule) is ProjectronRule:
            return projectron
        return threshold

    return choose


def _binary_counts(rule, theta, alpha_counts):
    return 1, 1


def _threshold_counts(rule, theta, alpha_counts):
    return theta.shape[0], alpha_counts.shape[0]


def _prototype_counts(rule, theta, alpha_counts):
    return theta.shape[0], 1


@specialised(lambda rule, theta, alpha_counts: (
    _binary_counts if store_class(rule) is BinaryRule else
    _prototype_counts if _is_prototype(rule) else _threshold_counts))
def rule_counts(rule, theta, alpha_counts):
    """``(n_rows, n_counters)``: the weight rows (``theta``'s length) and
    the counters (``alpha_counts``' rows); constants where the rule fixes
    them (one and one for the binary rule, one counter for prototypes)."""


def _threshold_rival(rule, scores, target):
    return -1


def _prototype_rival(rule, scores, target):
    return best_other(scores, target)


@specialised(by_rule(_threshold_rival, _prototype_rival))
def rival(rule, scores, target):
    """The class an update would decrease: none (-1) under the threshold
    rule, the best other class under the prototype rule."""


def _threshold_mistake(rule, scores, target, other):
    return is_online_mistake(scores, target,
                             rule_counts(rule, scores, scores)[0])


def _prototype_mistake(rule, scores, target, other):
    return scores[target] - scores[other] <= 0.0


@specialised(by_rule(_threshold_mistake, _prototype_mistake))
def is_mistake(rule, scores, target, other):
    """Whether the current hypothesis mispredicts (ties are mistakes); for
    a multi-label example, the number of its labels mispredicted
    (:func:`is_online_mistake`)."""


def _threshold_margin(rule, scores, target, k, n_counters, other):
    return problem_sign(target, k, n_counters) * scores[k]


def _prototype_margin(rule, scores, target, k, n_counters, other):
    return scores[target] - scores[other]


@specialised(by_rule(_threshold_margin, _prototype_margin))
def signed_score(rule, scores, target, k, n_counters, other):
    """Counter k's ``y(SUM - θ)`` of Figure 2 before the λ term: the
    problem's label times its score, or the true class's score minus the
    best other's."""


def _threshold_update(rule, store, target, k, n_counters, other, i, theta,
                      weight):
    a = rule.eta * weight * problem_sign(target, k, n_counters)
    add_example(store, k, a, i)
    # θ moves against w (Cristianini & Shawe-Taylor).
    theta[k] -= a * rule.threshold_step
    return a


def _prototype_update(rule, store, target, k, n_counters, other, i, theta,
                      weight):
    # The true class and the best other one move in opposite directions,
    # each product written once for both (under the dual form's
    # reassociation a product spelled twice may be rounded two ways).
    eta, threshold_step = rule.eta * weight, rule.threshold_step
    add_pair(store, target, other, eta, i)
    theta[target] -= eta * threshold_step
    theta[other] += eta * threshold_step
    return eta


@specialised(by_rule(_threshold_update, _prototype_update,
                     projected_update))
def update(rule, store, target, k, n_counters, other, i, theta, weight):
    """Figure 2's update of counter k on example i, its step η times the
    row's ``weight`` s_i: problem k's row gains ``η s_i y x`` and its θ
    ``-η s_i y C``; or the true class's row ``+η s_i x`` and the best
    other's ``-η s_i x``, their θ against them. Returns the step
    (``η s_i y``; ``η s_i`` for prototypes), for :func:`update_sum`."""


def _threshold_update_sum(rule, store, target, k, n_counters, other, i, a,
                          theta_avg_acc, t_global):
    # c defined here, after the update: the dual form's reassociation
    # orders a product's factors by where they are defined, and the loops
    # have always computed c here.
    c = float(t_global - 1)
    add_example_sum(store, k, c * a, i)
    theta_avg_acc[k] -= c * a * rule.threshold_step


def _prototype_update_sum(rule, store, target, k, n_counters, other, i, a,
                          theta_avg_acc, t_global):
    eta, threshold_step = a, rule.threshold_step
    c = float(t_global - 1)
    add_pair_sum(store, target, other, c * eta, i)
    theta_avg_acc[target] -= c * eta * threshold_step
    theta_avg_acc[other] += c * eta * threshold_step


@specialised(by_rule(_threshold_update_sum, _prototype_update_sum,
                     projected_update_sum))
def update_sum(rule, store, target, k, n_counters, other, i, a,
               theta_avg_acc, t_global):
    """The averaged hypothesis's share of :func:`update` (after it, ``a``
    its step): the running sums gain ``s - 1`` times the same move, s =
    ``t_global`` the global step. A helper of its own, called under the loop's branch: a
    branch inside :func:`update` would leave its references to the store
    unpruned (see :func:`~perceptrons._loops._common.inline_call`)."""


def _threshold_rows(rule, k, n_rows):
    return k, k + 1


def _prototype_rows(rule, k, n_rows):
    return 0, n_rows


@specialised(by_rule(_threshold_rows, _prototype_rows))
def rows_of(rule, k, n_rows):
    """The weight rows counter k's hypothesis holds: ``[lo, hi)``."""


def _threshold_log(rule, other_log, n, other):
    pass


def _prototype_log(rule, other_log, n, other):
    other_log[n] = other


@specialised(by_rule(_threshold_log, _prototype_log))
def log_rival(rule, other_log, n, other):
    """Voted prototypes: record the class update ``n`` decreased."""


def _always(rule, store, k, i, m):
    return True


@specialised(by_rule(_always, _always, takes_step))
def steps_inside(rule, store, k, i, m):
    """Whether counter k, its margin ``m <= τ``, steps on row i: always
    (Figure 2), or as the Projectron's rule says
    (:func:`~perceptrons._loops.projectron.takes_step`)."""


# ------------------------------------------------------------ bookkeeping
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
    """ŷ = y: the current hypothesis of counter k survives one more example.

    Adds a vote and, for the longest survivor, extends its run.
    ``final`` is the loops' bookkeeping tuple (see the module docstring).

    Returns
    -------
    int
        The snapshot code of :func:`extend_run`; 0 unless ``hypothesis``
        is ``HYPOTHESIS_LONGEST``.
    """
    hypothesis, tally, best_tally, ls_current, current_vote = (
        final[0], final[4], final[5], final[6], final[7])
    current_vote[k] += 1
    snapshot = 0
    if hypothesis == HYPOTHESIS_LONGEST:
        snapshot = extend_run(k, tally, best_tally, ls_current)
    return snapshot
