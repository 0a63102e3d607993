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

Each algorithm has its pass, which presents the patterns, counts the online
mistakes, collects the next active set and updates where its condition
holds: :func:`margin_pass` for PDM and PFM (rule :data:`MarginRule`),
:func:`perceptrons._loops.romma.romma_pass` for ROMMA. A rule's named tuple
holds its scalars and picks its pass (:func:`register_pass`,
:func:`_rule_pass`); the vector a pass updates comes as four arrays of its
own, ``w, st, cell, per_row``, laid out as the rule says. The active-set
schedule of Sec. 4 (:func:`active_set_epoch`) drives the pass of any rule.

Weights. A row's weight :math:`s_k > 0` (``sample_weight`` times
``class_weight``) is its weight in the loss of the problem the run solves.
With the extension, the hard-margin problem in the extended space is the
2-norm soft-margin problem :math:`\min \|[w, b]\|^2 + \sum_k
\xi_k^2/\Delta_k^2` subject to :math:`l_k (w\cdot x_k + b\rho) \ge 1 -
\xi_k` (the slack is :math:`\xi_k = \Delta_k^2 c_k`, :math:`l_k
\Delta_k` times a's k-th extension coordinate :math:`l_k \Delta_k c_k`).
A weighted loss :math:`\sum_k s_k \xi_k^2 / \Delta^2` is therefore
exactly a per-row extension

.. math::

    \Delta_k^2 = \Delta^2 / s_k, \qquad y_k = [l_k x_k,\ l_k \rho,\
    l_k \Delta_k e_k],

so a·y_k gains :math:`\Delta_k^2 c_k`, :math:`\|y_k\|^2 = \|x_k\|^2
+ \rho^2 + \Delta_k^2` and the extension block of a has squared norm
:math:`\sum_k \Delta_k^2 c_k^2`. The updates themselves are unchanged
(unit steps, integer counts c_k, t the number of updates): the run is the
unweighted algorithm on these patterns, so its conditions, multiple
updates, Theorems 3.1/3.2 and the bound :math:`\|a_t\|/t \ge \gamma_d`
hold as they are, for the weighted problem. The passes take the weights
(``weights``, empty when every weight is 1) and form
:math:`\Delta_k^2` = ``delta_sq / weights[k]`` where they read the
extension; ``y_sq_norms`` must hold the same :math:`\Delta_k^2`. Without
extension (Δ = 0) a weight cannot change the problem (the maximum-margin
separator does not depend on it) and the passes ignore it (the
estimators refuse such weights).

References
----------
C. Panagiotakopoulos and P. Tsampouka. The perceptron with dynamic margin.
ALT 2011, LNCS 6925, pp. 204-218.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from ._common import prefetch_ahead, row_axpy, row_dot, specialised
from .storage import store_class

__all__ = ["MarginRule", "RULE_PDM", "RULE_PFM", "active_set_epoch",
           "condition_threshold", "extended_margin", "margin_pass",
           "margin_step", "n_multiple_updates",
           "present", "register_pass"]

#: Condition (8) of the paper, parameter ε.
RULE_PDM = 0
#: Condition (7) of the paper, parameter β.
RULE_PFM = 1

# A multiple update never adds more than this many updates at once (guards
# the int64 counters against a degenerate quadratic).
_MAX_LAMBDA = 1 << 40

#: PDM/PFM: the condition (``RULE_PDM`` or ``RULE_PFM``), its parameter (ε
#: or β) and whether to make multiple updates (1/0). Its arrays, updated in
#: place: ``w`` (n_features,), the non-augmented part of a;
#: ``st = [b, ‖a‖²]``, the augmented coordinate of a and the squared norm
#: of the whole (extended) a; ``cell`` (1,), int64, t, the updates made so
#: far; and ``per_row`` (n_samples,), int64, c_k, the updates made on each
#: row.
MarginRule = namedtuple("MarginRule", ["kind", "param", "multiple"])


# ------------------------------------------------------------ the passes
# rule class -> the pass that presents patterns under it (register_pass)
_PASSES = {}


def register_pass(rule_class, pass_fn):
    """Make ``pass_fn`` the pass of the rules of ``rule_class``.

    :func:`_rule_pass` and :func:`active_set_epoch` then run it for such
    a rule; it takes :func:`_rule_pass`'s arguments.
    """
    def run(rows, n_rows, collect_factor, collected, X_data, X_indices,
            X_indptr, signs, y_sq_norms, rho, delta_sq, weights, rule, w, st,
            cell, per_row):
        return pass_fn(rows, n_rows, collect_factor, collected, X_data,
                       X_indices, X_indptr, signs, y_sq_norms, rho, delta_sq,
                       weights, rule, w, st, cell, per_row)

    _PASSES[rule_class] = run


def _pass_of(rows, n_rows, collect_factor, collected, X_data, X_indices,
             X_indptr, signs, y_sq_norms, rho, delta_sq, weights, rule, w, st,
             cell, per_row):
    return _PASSES[store_class(rule)]


@specialised(_pass_of)
def _rule_pass(rows, n_rows, collect_factor, collected, X_data, X_indices,
                 X_indptr, signs, y_sq_norms, rho, delta_sq, weights, rule, w,
                 st, cell, per_row):
    """Present ``rows[:n_rows]`` once with the pass of ``rule``'s class.

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
        :math:`\\|y_k\\|^2 = \\|x_k\\|^2 + \\rho^2 + \\Delta_k^2`
        (:math:`\\Delta_k^2 = \\Delta^2 / s_k`, see ``weights``).
    rho, delta_sq : float
        Augmentation ρ and squared extension Δ².
    weights : ndarray of shape (n_samples,) or (0,), float64
        Each row's weight :math:`s_k > 0` (empty: every weight is 1). It is
        the row's weight in the soft-margin loss, and enters only through
        the row's own extension :math:`\\Delta_k = \\Delta/\\sqrt{s_k}`
        (module notes: weights); without extension (Δ² = 0) it is unused.
    rule : named tuple
        The rule (:data:`MarginRule`,
        :data:`perceptrons._loops.romma.RommaRule`).
    w, st, cell, per_row : ndarray
        The rule's vector and counters (laid out as its docs say; ``w`` the
        weights over the features, ``st[:2] = [b, ‖a‖²]``, ``per_row`` of
        shape (n_samples,)), updated in place.

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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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
@njit(cache=True, inline="always")
def present(rows, step, n_rows, X_data, X_indices, X_indptr, signs,
            y_sq_norms, per_row, w, b, rho):
    """Pattern ``i = rows[step]`` presented to a pass: its label margin
    ``l_k (w·x_k + bρ)``, the prediction on x_k itself (its extension
    coordinate is not part of a test point); the rows a few steps on are
    prefetched.

    Returns
    -------
    i : int
    label_margin : float
    """
    prefetch_ahead(rows, step, n_rows, X_data, X_indices, X_indptr, signs,
                   y_sq_norms, per_row)
    i = rows[step]
    return i, signs[i] * (row_dot(w, X_data, X_indices, X_indptr, i)
                          + b * rho)


@njit(cache=True, inline="always")
def extended_margin(label_margin, delta_sq, weights, counts, i):
    """``a·y_k``: the label margin plus the extension's part, a weighted row
    having its own extension, :math:`(\\Delta^2/s_k)\\, c_k` (module notes:
    weights)."""
    ext_sq = delta_sq if weights.shape[0] == 0 else delta_sq / weights[i]
    return label_margin + ext_sq * counts[i]


@njit(cache=True, inline="always")
def margin_step(w, b, sq_norm_a, lam, ay, yy, sign, rho, X_data, X_indices,
                X_indptr, counts, i):
    """λ updates on pattern i at once (MPU: λ < 0 unlearns): ``a += λ y_k``
    (w, the bias coordinate bρ, the extension's count ``c_k``) and
    ``‖a‖² += λ (2 a·y_k + λ ‖y_k‖²)``, kept >= 0 against rounding.

    Returns
    -------
    b, sq_norm_a : float
    """
    step_size = sign * lam
    row_axpy(w, step_size, X_data, X_indices, X_indptr, i)
    b += step_size * rho
    counts[i] += lam
    sq_norm_a += lam * (2.0 * ay + lam * yy)
    if sq_norm_a < 0.0:
        sq_norm_a = 0.0
    return b, sq_norm_a


@njit(cache=True, nogil=True)
def margin_pass(rows, n_rows, collect_factor, collected, X_data, X_indices,
                X_indptr, signs, y_sq_norms, rho, delta_sq, weights, rule, w,
                st, t, counts):
    """The pass of PDM and PFM (:func:`_rule_pass`, rule
    :data:`MarginRule`): update where Eq. (8) or Eq. (7) holds,
    ``a·y_k <= threshold``, by λ updates at once when ``rule.multiple``
    (Sec. 4). ``st = [b, ‖a‖²]``, ``t`` (1,) the updates so far,
    ``counts`` the c_k (:data:`MarginRule`). A weighted row has its own
    extension, :math:`a\\cdot y_k = l_k (w\\cdot x_k + b\\rho) +
    (\\Delta^2/s_k)\\, c_k` (module notes: weights)."""
    n_updates = 0
    n_collected = 0
    n_mistakes = 0
    b = st[0]
    sq_norm_a = st[1]
    tt = t[0]
    for step in range(n_rows):
        i, label_margin = present(rows, step, n_rows, X_data, X_indices,
                                  X_indptr, signs, y_sq_norms, counts, w, b,
                                  rho)
        n_mistakes += label_margin <= 0.0
        ay = extended_margin(label_margin, delta_sq, weights, counts, i)
        threshold = condition_threshold(rule.kind, rule.param, sq_norm_a, tt)
        if collect_factor > 0.0 and ay <= collect_factor * threshold:
            collected[n_collected] = i
            n_collected += 1
        if ay <= threshold:
            yy = y_sq_norms[i]
            lam = 1
            if rule.multiple:
                lam = n_multiple_updates(rule.kind, rule.param, ay, yy,
                                         sq_norm_a, tt)
            b, sq_norm_a = margin_step(w, b, sq_norm_a, lam, ay, yy,
                                       signs[i], rho, X_data, X_indices,
                                       X_indptr, counts, i)
            tt += lam
            n_updates += lam
    st[0] = b
    st[1] = sq_norm_a
    t[0] = tt
    return n_updates, n_collected, n_mistakes


register_pass(MarginRule, margin_pass)


# ------------------------------------------------------------ active sets
@njit(cache=True, inline="always")
def _counted_pass(rows, n_rows, collect_factor, collected, data, weights,
                  rule, vector, stats):
    """One active pass, added to ``stats`` (see :func:`active_set_epoch`)."""
    X_data, X_indices, X_indptr, signs, y_sq_norms, rho, delta_sq = data
    w, st, cell, per_row = vector
    n_updates, n_collected, n_mistakes = _rule_pass(
        rows, n_rows, collect_factor, collected, X_data, X_indices, X_indptr,
        signs, y_sq_norms, rho, delta_sq, weights, rule, w, st, cell,
        per_row)
    stats[0] += n_updates
    stats[1] += 1
    stats[2] += n_rows
    stats[3] += n_mistakes
    return n_updates, n_collected


@njit(cache=True, nogil=True)
def active_set_epoch(X_data, X_indices, X_indptr, signs, y_sq_norms, order,
                     rho, delta_sq, weights, full_rule, active_rule, w, st,
                     cell, per_row, active_sets, c1, c2, n_ep1, n_ep2, n_ep3,
                     level1, level2, level3, stats):
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
    X_data, X_indices, X_indptr, signs, y_sq_norms, rho, delta_sq, weights
        As in :func:`_rule_pass`.
    order : ndarray of shape (n_samples,), int64
        Presentation order of the full pass.
    full_rule, active_rule : named tuple
        The rule of the full pass and of the active passes (of the same
        class; PDM's differ in their multiple updates).
    w, st, cell, per_row : ndarray
        The rule's vector and counters, as in :func:`_rule_pass`.
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
    vector = (w, st, cell, per_row)
    n = order.shape[0]
    collect = c1 if active_sets else 0.0
    full_updates, n1, m = _rule_pass(
        order, n, collect, level1, X_data, X_indices, X_indptr, signs,
        y_sq_norms, rho, delta_sq, weights, full_rule, w, st, cell, per_row)
    stats[3] += m
    if not active_sets or full_updates == 0:
        return full_updates
    for _r1 in range(n_ep1):
        u1, n2 = _counted_pass(level1, n1, c2, level2, data, weights,
                               active_rule, vector, stats)
        if u1 == 0:
            break
        for _r2 in range(n_ep2):
            u2, n3 = _counted_pass(level2, n2, 1.0, level3, data,
                                   weights, active_rule, vector, stats)
            if u2 == 0:
                break
            for _r3 in range(n_ep3):
                u3, _ = _counted_pass(level3, n3, 0.0, level3, data,
                                      weights, active_rule, vector, stats)
                if u3 == 0:
                    break
    return full_updates
