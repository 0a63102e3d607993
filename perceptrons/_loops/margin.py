r"""Perceptrons with fixed and dynamic margin (Panagiotakopoulos & Tsampouka).

One binary problem at a time, in the augmented and reflected space of the
paper: pattern k is :math:`y_k = [l_k x_k,\ l_k \rho,\ l_k \Delta e_k]`, where
the last block is the extension of Sec. 5 (one extra coordinate per training
instance, :math:`e_k` the k-th unit vector; Δ = 0 switches it off). The
weight vector :math:`a = [w, b, a_{\mathrm{ext}}]` is never materialised in
full: the extension block equals :math:`l_k \Delta c_k` where :math:`c_k` is
the number of updates made on example k, so

.. math::

    a \cdot y_k = l_k (w \cdot x_k + b \rho) + \Delta^2 c_k, \qquad
    \|y_k\|^2 = \|x_k\|^2 + \rho^2 + \Delta^2,

and :math:`\|a\|^2` is kept incrementally,
:math:`\|a + \lambda y_k\|^2 = \|a\|^2 + 2\lambda\, a\cdot y_k + \lambda^2
\|y_k\|^2`. An update costs O(nnz(x_k)).

Two misclassification conditions share the rule :data:`MarginRule` (they
differ in one scalar threshold and in the λ of a multiple update): PDM,
Eq. (8), :math:`a_t \cdot y_k \le (1-\epsilon)\|a_t\|^2/t` (threshold 0
at t = 0), and PFM, Eq. (7), :math:`a_t \cdot y_k \le \beta \|a_t\|`.

One pass serves every algorithm of this family (:func:`pattern_pass`): it
presents the patterns, counts the online mistakes, collects the next active
set and updates where the rule's condition holds; what a rule does is its
own, registered for its named-tuple class (:func:`register_rule`) and
inlined when the pass is compiled for that class. ROMMA
(:mod:`perceptrons._loops.romma`) is the other rule. The active-set schedule
of Sec. 4 (:func:`active_set_epoch`) drives the pass for any rule.

References
----------
C. Panagiotakopoulos and P. Tsampouka. The perceptron with dynamic margin.
ALT 2011, LNCS 6925, pp. 204-218.
"""

from collections import namedtuple
from types import SimpleNamespace

import numpy as np
from numba import njit

from ._common import prefetch_ahead, row_axpy, row_dot, specialised
from .storage import store_class

__all__ = ["MarginRule", "RULE_PDM", "RULE_PFM", "active_set_epoch",
           "condition_threshold", "n_multiple_updates", "pattern_pass",
           "register_rule"]

#: Condition (8) of the paper, parameter ε.
RULE_PDM = 0
#: Condition (7) of the paper, parameter β.
RULE_PFM = 1

# A multiple update never adds more than this many updates at once (guards
# the int64 counters against a degenerate quadratic).
_MAX_LAMBDA = 1 << 40

#: PDM/PFM: the condition (``RULE_PDM`` or ``RULE_PFM``), its parameter (ε
#: or β), whether to make multiple updates (1/0), and the state, updated in
#: place: ``w`` (n_features,), the non-augmented part of a;
#: ``st = [b, ‖a‖²]``, the augmented coordinate of a and the squared norm
#: of the whole (extended) a; ``t`` (1,), the updates made so far; and
#: ``counts`` (n_samples,), c_k, the updates made on each row.
MarginRule = namedtuple("MarginRule", [
    "kind", "param", "multiple", "w", "st", "t", "counts"])


# ------------------------------------------------------------ the rules
# rule class -> its implementations (register_rule)
_RULES = {}


def register_rule(rule_class, **impls):
    """Register the pieces of a rule for :func:`pattern_pass`.

    Parameters
    ----------
    rule_class : named-tuple class
    **impls : function
        ``third(rule)`` and ``set_third(rule, value)``: the rule's own scalar
        of the pass (after b and ‖a‖², which every rule keeps in
        ``rule.st[0]`` and ``rule.st[1]``); ``stopped(rule)``: whether the
        pass must not run; ``per_row(rule)``: the per-row array the pass
        reads (for prefetching); ``margin(rule, state, label_margin, i,
        delta_sq) -> a·y_k``; ``threshold(rule, state)``: the right-hand
        side of the condition; ``violated(rule, ay, threshold)``;
        ``update(rule, state, ay, i, X_data, X_indices, X_indptr, signs,
        y_sq_norms, rho) -> (state, n_updates, stop)``.
    """
    _RULES[rule_class] = SimpleNamespace(**impls)


def _by_rule(name):
    return lambda rule, *args: getattr(_RULES[store_class(rule)], name)


@specialised(_by_rule("third"))
def _third(rule):
    """The rule's own scalar of the pass."""


@specialised(_by_rule("set_third"))
def _set_third(rule, value):
    """Write the rule's own scalar back."""


@njit(cache=True, inline="always")
def _load(rule):
    """The pass's scalars ``(b, ‖a‖², the rule's own)``, read from its
    arrays."""
    return rule.st[0], rule.st[1], _third(rule)


@njit(cache=True, inline="always")
def _save(rule, state):
    """Write the pass's scalars back."""
    rule.st[0] = state[0]
    rule.st[1] = state[1]
    _set_third(rule, state[2])


@specialised(_by_rule("stopped"))
def _stopped(rule):
    """Whether the pass must return at once."""


@specialised(_by_rule("per_row"))
def _per_row(rule):
    """The per-row array the pass reads at each row."""


@specialised(_by_rule("margin"))
def _margin(rule, state, label_margin, i, delta_sq):
    """``a·y_k`` from the pattern's label margin ``l_k (w·x_k + bρ)``."""


@specialised(_by_rule("threshold"))
def _threshold(rule, state):
    """The right-hand side of the update condition."""


@specialised(_by_rule("violated"))
def _violated(rule, ay, threshold):
    """Whether ``a·y_k`` meets the update condition."""


@specialised(_by_rule("update"))
def _update(rule, state, ay, i, X_data, X_indices, X_indptr, signs,
            y_sq_norms, rho):
    """The update on pattern k = i: ``(state, n_updates, stop)``."""


@njit(cache=True)
def condition_threshold(rule, param, sq_norm_a, t):
    """Right-hand side of the misclassification condition.

    Parameters
    ----------
    rule : int
        ``RULE_PDM`` or ``RULE_PFM``.
    param : float
        ε for PDM, β for PFM.
    sq_norm_a : float
        :math:`\\|a_t\\|^2`.
    t : int
        Updates made so far.

    Returns
    -------
    float
        :math:`(1-\\epsilon)\\|a_t\\|^2/t` (0 when t = 0) for PDM, Eq. (8);
        :math:`\\beta\\|a_t\\|` for PFM, Eq. (7).
    """
    if rule == RULE_PDM:
        if t == 0:
            return 0.0
        return (1.0 - param) * sq_norm_a / t
    return param * np.sqrt(sq_norm_a)


@njit(cache=True)
def n_multiple_updates(rule, param, ay, yy, sq_norm_a, t):
    """λ = [μ₊] + 1 of Sec. 4: updates on one pattern done at once.

    μ₊ is the smallest non-negative μ at which the pattern stops satisfying
    the condition after μ further updates with it. For PDM it is the
    non-negative root of
    ``(t+μ)(a·y + μ‖y‖²) - (1-ε)(‖a‖² + 2μ a·y + μ²‖y‖²) = 0``, i.e. of
    ``ε‖y‖² μ² + (t‖y‖² + (2ε-1) a·y) μ + (t a·y - (1-ε)‖a‖²) = 0``.
    For PFM it is the root of ``a·y + μ‖y‖² = β‖a + μy‖`` where the left
    side is non-negative: ``μ₊ = (-a·y + β √((‖y‖²‖a‖² - (a·y)²) /
    (‖y‖² - β²))) / ‖y‖²``.

    Parameters
    ----------
    rule : int
    param : float
        ε or β.
    ay, yy, sq_norm_a : float
        :math:`a_t\\cdot y_k`, :math:`\\|y_k\\|^2`, :math:`\\|a_t\\|^2`; the
        pattern satisfies the condition.
    t : int

    Returns
    -------
    int
        λ ≥ 1 (1 when the quadratic is degenerate: ‖y‖ = 0, or β ≥ ‖y‖).
    """
    if yy <= 0.0:
        return 1
    if rule == RULE_PDM:
        eps = param
        qa = eps * yy
        qb = t * yy + (2.0 * eps - 1.0) * ay
        qc = t * ay - (1.0 - eps) * sq_norm_a
        if qa <= 0.0 or qc >= 0.0:
            return 1
        root = np.sqrt(qb * qb - 4.0 * qa * qc)
        if qb >= 0.0:
            mu = -2.0 * qc / (qb + root)
        else:
            mu = (root - qb) / (2.0 * qa)
    else:
        beta = param
        gap = yy - beta * beta
        if gap <= 0.0:
            return 1
        s = yy * sq_norm_a - ay * ay
        if s < 0.0:
            s = 0.0
        mu = (beta * np.sqrt(s / gap) - ay) / yy
    if not mu >= 0.0:  # also catches NaN
        return 1
    if mu >= _MAX_LAMBDA:
        return _MAX_LAMBDA
    return int(mu) + 1


# --------------------------------------------------------------- PDM/PFM
def _updates_so_far(rule):
    return rule.t[0]


def _set_updates(rule, value):
    rule.t[0] = value


def _never_stopped(rule):
    return False


def _margin_per_row(rule):
    return rule.counts


def _margin_margin(rule, state, label_margin, i, delta_sq):
    return label_margin + delta_sq * rule.counts[i]


def _margin_threshold(rule, state):
    return condition_threshold(rule.kind, rule.param, state[1], state[2])


def _at_most(rule, ay, threshold):
    return ay <= threshold


def _margin_update(rule, state, ay, i, X_data, X_indices, X_indptr, signs,
                   y_sq_norms, rho):
    b, sq_norm_a, tt = state
    yy = y_sq_norms[i]
    lam = 1
    if rule.multiple:
        lam = n_multiple_updates(rule.kind, rule.param, ay, yy, sq_norm_a,
                                 tt)
    step_size = signs[i] * lam
    row_axpy(rule.w, step_size, X_data, X_indices, X_indptr, i)
    b += step_size * rho
    rule.counts[i] += lam
    sq_norm_a += lam * (2.0 * ay + lam * yy)
    if sq_norm_a < 0.0:
        sq_norm_a = 0.0
    return (b, sq_norm_a, tt + lam), lam, False


register_rule(MarginRule, third=_updates_so_far, set_third=_set_updates,
              stopped=_never_stopped, per_row=_margin_per_row,
              margin=_margin_margin, threshold=_margin_threshold,
              violated=_at_most, update=_margin_update)


# ------------------------------------------------------------------ pass
@njit(cache=True)
def pattern_pass(rows, n_rows, collect_factor, collected, X_data, X_indices,
                 X_indptr, signs, y_sq_norms, rho, delta_sq, rule):
    """Present ``rows[:n_rows]`` once, updating whenever the condition holds.

    Parameters
    ----------
    rows : ndarray of shape (>= n_rows,), int64
        Rows to present, in order.
    n_rows : int
    collect_factor : float
        c > 0: write to ``collected`` every row presented with
        ``a·y_k <= c * threshold`` (before its update), building the next
        active set (Sec. 4); 0: collect nothing.
    collected : ndarray of shape (>= n_rows,), int64
        Output of the collection (unused when ``collect_factor == 0``).
    X_data, X_indices, X_indptr
        The data matrix (see :mod:`perceptrons._loops._common`).
    signs : ndarray of shape (n_samples,), float64
        Label :math:`l_k \\in \\{-1, +1\\}` of each row.
    y_sq_norms : ndarray of shape (n_samples,), float64
        :math:`\\|y_k\\|^2 = \\|x_k\\|^2 + \\rho^2 + \\Delta^2`.
    rho, delta_sq : float
        Augmentation ρ and squared extension Δ².
    rule : named tuple
        The rule and its state (:data:`MarginRule`,
        :data:`perceptrons._loops.romma.RommaRule`), updated in place.

    Returns
    -------
    n_updates : int
        Updates made (a multiple update counts λ).
    n_collected : int
        Rows written to ``collected``.
    n_mistakes : int
        Rows presented that the hyperplane misclassified before their
        update, ``l_k (w·x_k + bρ) <= 0`` (ties are mistakes).
    """
    n_updates = 0
    n_collected = 0
    n_mistakes = 0
    if _stopped(rule):
        return n_updates, n_collected, n_mistakes
    state = _load(rule)
    per_row = _per_row(rule)
    w = rule.w
    for step in range(n_rows):
        prefetch_ahead(rows, step, n_rows, X_data, X_indices, X_indptr,
                       signs, y_sq_norms, per_row)
        i = rows[step]
        # The prediction on x_k itself: its extension coordinate is not
        # part of a test point.
        label_margin = signs[i] * (row_dot(w, X_data, X_indices, X_indptr, i)
                                   + state[0] * rho)
        n_mistakes += label_margin <= 0.0
        ay = _margin(rule, state, label_margin, i, delta_sq)
        threshold = _threshold(rule, state)
        if collect_factor > 0.0 and ay <= collect_factor * threshold:
            collected[n_collected] = i
            n_collected += 1
        if _violated(rule, ay, threshold):
            state, n, stop = _update(rule, state, ay, i, X_data, X_indices,
                                     X_indptr, signs, y_sq_norms, rho)
            n_updates += n
            if stop:
                break
    _save(rule, state)
    return n_updates, n_collected, n_mistakes


# ------------------------------------------------------------ active sets
@njit(cache=True, inline="always")
def _counted_pass(rows, n_rows, collect_factor, collected, data, rule,
                  stats):
    """One active pass, added to ``stats`` (see :func:`active_set_epoch`)."""
    n_updates, n_collected, n_mistakes = pattern_pass(
        rows, n_rows, collect_factor, collected, *data, rule)
    stats[0] += n_updates
    stats[1] += 1
    stats[2] += n_rows
    stats[3] += n_mistakes
    return n_updates, n_collected


@njit(cache=True)
def active_set_epoch(X_data, X_indices, X_indptr, signs, y_sq_norms, order,
                     rho, delta_sq, full_rule, active_rule, active_sets,
                     c1, c2, n_ep1, n_ep2, n_ep3, level1, level2, level3,
                     stats):
    """One full pass, then (optionally) the nested active-set rounds of Sec. 4.

    The full pass presents ``order`` and collects the first-level active set
    (``a·y <= c1 * threshold``). Up to ``n_ep1`` times, the first-level set
    is presented, collecting the second level (``c2``); after each such
    pass, up to ``n_ep2`` times the second level is presented, collecting
    the third (factor 1, the condition itself), which is then presented up
    to ``n_ep3`` times. A round whose pass makes no update ends its level
    early. The caller then starts the next full epoch; the run has converged
    when a full pass makes no update.

    Parameters
    ----------
    X_data, X_indices, X_indptr, signs, y_sq_norms, rho, delta_sq
        As in :func:`pattern_pass`.
    order : ndarray of shape (n_samples,), int64
        Presentation order of the full pass.
    full_rule, active_rule : named tuple
        The rule of the full pass and of the active passes (of the same
        class and state; PDM's differ in their multiple updates).
    active_sets : int
        0: the full pass only (the plain algorithm).
    c1, c2 : float
        Factors of the first- and second-level sets (paper: 2.2 and 1.1).
    n_ep1, n_ep2, n_ep3 : int
        Rounds per level (paper: 9, 12, 12).
    level1, level2, level3 : ndarray of shape (n_samples,), int64
        Work space for the three active sets.
    stats : ndarray of shape (4,), int64
        Incremented in place: updates made in active passes, active passes
        made, rows presented in active passes, and mistakes (online
        prediction mistakes) in every pass, the full one included.

    Returns
    -------
    int
        Updates made in the full pass (0 means converged).
    """
    data = (X_data, X_indices, X_indptr, signs, y_sq_norms, rho, delta_sq)
    n = order.shape[0]
    collect = c1 if active_sets else 0.0
    full_updates, n1, m = pattern_pass(order, n, collect, level1, *data,
                                       full_rule)
    stats[3] += m
    if not active_sets or full_updates == 0:
        return full_updates
    for _r1 in range(n_ep1):
        u1, n2 = _counted_pass(level1, n1, c2, level2, data, active_rule,
                               stats)
        if u1 == 0:
            break
        for _r2 in range(n_ep2):
            u2, n3 = _counted_pass(level2, n2, 1.0, level3, data,
                                   active_rule, stats)
            if u2 == 0:
                break
            for _r3 in range(n_ep3):
                u3, _ = _counted_pass(level3, n3, 0.0, level3, data,
                                      active_rule, stats)
                if u3 == 0:
                    break
    return full_updates
