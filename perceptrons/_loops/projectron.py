r"""The Projectron and Projectron++ of Orabona, Keshet & Caputo (2009): a
rule of Figure 2's loop (:func:`~perceptrons._loops.perceptron.figure2_epoch`).

A kernel perceptron whose support set stays bounded: on a mistake the new
example joins the support only if it lies farther than η from the span of
the support held, else its update is projected onto that span (the
Projectron's policy of :mod:`perceptrons._loops.budget`, which keeps
``K⁻¹`` of the support by rank-one updates: the settling at the end of the
step). With ``plus`` (Projectron++), a margin error (``0 < y f(x) < 1``)
also makes a projected update, of step

.. math::

    \tau = \min\Bigl\{\frac{\ell}{\|P\phi(x)\|^2},\; 1,\;
        \frac{2(\ell - \delta/\eta)}{\|P\phi(x)\|^2}\Bigr\},
    \qquad \text{when } \ell - \delta/\eta > 0,

``ℓ = 1 - y f(x)`` the hinge loss, ``δ`` the distance of ``φ(x)`` to the
span and ``P φ(x) = Σ_q d_q φ(x_q)``, ``d = K⁻¹ k``, its projection:
``α_q += τ y d_q``.

Figure 2 with η = 1, no threshold (C = 0), no λ-trick and no α-bound is
the kernel perceptron the Projectron starts from; its margin τ is 0 (a
step on ``y f(x) <= 0``) or, for Projectron++, 1, and the rule's
:func:`takes_step` says whether a step inside the margin band is made
(a mistake always; a margin error when the projected step helps:
``ℓ - δ/η > 0``), leaving τ in ``rule.step`` for :func:`update`. One
problem (two classes) or one per class (one-vs-rest, each problem its own
support set and ``K⁻¹``: the budget's group of its weight row).

The budget's room (``members.shape[1]``) is fixed for a pass: a step adds
at most one member per group, so the caller runs a pass in pieces no
longer than the room left, growing it between pieces
(:class:`perceptrons.models.projectron.ProjectronRule`).

References
----------
F. Orabona, J. Keshet and B. Caputo. Bounded kernel-based online learning.
JMLR 10:2643-2666, 2009.
"""

from collections import namedtuple

import numpy as np

from .budget import project_example
from .storage import add_example, add_example_sum
from .targets import problem_sign

__all__ = ["ProjectronRule", "projectron_rule", "projected_update",
           "projected_update_sum", "takes_step"]

ProjectronRule = namedtuple("ProjectronRule", [
    "eta", "threshold_step", "margin", "lam", "alpha_bound", "plus", "step",
    "work"])
ProjectronRule.__doc__ = """Figure 2's rule for the Projectron.

The first five fields are Figure 2's (η = 1, C = 0, τ = 0 or 1, λ = 0, no
α-bound: :func:`projectron_rule`); ``plus`` is Projectron++, ``step`` a
float64 array of one element (the step's τ; 0 on a mistake, whose update
is the perceptron's) and ``work`` a float64 array of shape (2, room):
``k`` and ``d = K⁻¹ k`` of the margin step's projection, by matrix
position.
"""


def projectron_rule(plus, room):
    """The :data:`ProjectronRule` of a pass (``room`` members per group)."""
    return ProjectronRule(1.0, 0.0, 1.0 if plus else 0.0, 0.0, -1,
                          bool(plus), np.zeros(1), np.zeros((2, room)))


def takes_step(rule, store, k, i, m):
    """Whether problem k steps on row i, its margin ``m = y f(x) <= τ``: a
    mistake (``m <= 0``, ``rule.step[0] = 0``) always; Projectron++'s
    margin error when ``m < 1`` and ``ℓ - δ/η > 0`` (``rule.step[0] = τ``,
    ``rule.work[1]`` holding d). The group must hold a member to project
    on."""
    if m <= 0.0:
        rule.step[0] = 0.0
        return True
    budget = store.budget
    eta = budget.threshold
    if not (rule.plus and m < 1.0 and eta > 0.0 and budget.count[k] > 0):
        return False
    kt, d = rule.work[0], rule.work[1]
    dsq, ktt = project_example(budget, store.provider, store.support, k, i,
                               kt, d)
    delta = np.sqrt(dsq)
    loss = 1.0 - m
    gain = loss - delta / eta
    proj = ktt - dsq
    if not (gain > 0.0 and proj > 0.0):
        return False
    tau = loss / proj
    if tau > 1.0:
        tau = 1.0
    cap = 2.0 * gain / proj
    if cap < tau:
        tau = cap
    rule.step[0] = tau
    return True


def projected_update(rule, store, target, k, n_counters, other, i, theta,
                     weight):
    """:func:`~perceptrons._loops.hypotheses.update` of the rule: the
    perceptron's ``α_i += s y`` on a mistake (x joins; the settling
    projects it if δ <= η), else ``α_S += τ s y d``. Returns the step."""
    y = problem_sign(target, k, n_counters)
    tau = rule.step[0]
    if tau == 0.0:
        a = weight * y
        add_example(store, k, a, i)
        return a
    a = weight * tau * y
    budget = store.budget
    d = rule.work[1]
    for j in range(budget.count[k]):
        store.current[k, budget.members[k, j]] += a * d[budget.pos[k, j]]
    return a


def projected_update_sum(rule, store, target, k, n_counters, other, i, a,
                         theta_avg_acc, t_global):
    """The running sum's share of :func:`projected_update`: ``A += (s - 1)
    Δ`` at global step s."""
    c = float(t_global - 1)
    if rule.step[0] == 0.0:
        add_example_sum(store, k, c * a, i)
        return
    budget = store.budget
    d = rule.work[1]
    for j in range(budget.count[k]):
        store.summed[k, budget.members[k, j]] += c * a * d[budget.pos[k, j]]
