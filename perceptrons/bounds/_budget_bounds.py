r"""Mistake bounds of the kernel perceptrons on a budget.

A comparator is a function g of the kernel's space (an RKHS), given by its
squared norm ``‖g‖²`` and its hinge losses ``ℓ_t(g) = max(0, 1 - y_t
g(x_t))`` on the sequence; instances lie in a ball of radius R in feature
space, ``k(x_t, x_t) <= R²``.

* :func:`forgetron_mistake_bound`: the self-tuned Forgetron (Dekel,
  Shalev-Shwartz & Singer 2008, Theorem 2): with a budget ``B >= 83``,
  ``R <= 1`` and ``‖g‖ <= U = ¼ sqrt((B + 1)/ln(B + 1))``
  (:func:`forgetron_norm_limit`),

  .. math:: M \le 2\|g\|^2 + 4 \sum_t \ell_t(g).

* :func:`projectron_mistake_bound`: the Projectron (Orabona, Keshet &
  Caputo 2009, Theorem 1's argument): every mistake's update is
  ``φ(x_t)`` or its projection on the support's span, at distance at most
  η from it, so for every ``λ > 0`` with ``η‖g‖ < 1``,

  .. math::

      M \le \frac{\lambda^2 \|g\|^2 + 2\lambda \sum_{t} \ell_t(g)}
                 {2\lambda(1 - \eta\|g\|) - R^2},

  which the function minimises over λ (with no loss and R = 1 it is the
  paper's ``‖g‖²/(1 - η‖g‖)²``; with η = 0 the perceptron's bound).

* :func:`random_budget_expected_bound`: the Random Budget Perceptron
  (Cavallanti, Cesa-Bianchi & Gentile 2007), unit steps, each example
  presented once: a random eviction's expected effect on
  ``‖w - λg‖²`` is at worst ``-R² - λ²‖g‖²/(2B)``, so for every λ with a
  positive denominator

  .. math::

      \mathbb{E}[M] \le \frac{\lambda^2 \|g\|^2 + 2\lambda\sum_t\ell_t(g)}
                 {2\lambda - 2R^2 - \lambda^2\|g\|^2/(2B)},

  minimised over λ. It needs ``‖g‖² < 4B(λ - R²)/λ²`` for some λ, the
  paper's trade-off ``U = Θ(√B)`` between budget and comparator norm.

.. warning::
   The Projectron's and the Random Budget Perceptron's papers were not
   at hand when these were written: both functions state the bound their
   papers' potential arguments give, derived here in the form above (the
   Projectron's reduces to the paper's separable bound; the Random Budget
   Perceptron's is the stationary case of a shifting bound whose constants
   may differ from the paper's). The Forgetron's is its Theorem 2 as
   stated.
"""

import numpy as np

from ._validation import check_nonnegative, check_positive

__all__ = ["forgetron_mistake_bound", "forgetron_norm_limit",
           "projectron_mistake_bound", "random_budget_expected_bound"]


def _losses(hinge_losses):
    losses = np.asarray(hinge_losses, dtype=np.float64).ravel()
    if not np.all(np.isfinite(losses)) or np.any(losses < 0):
        raise ValueError("hinge_losses must be finite and non-negative.")
    return float(losses.sum())


def forgetron_norm_limit(budget):
    """``U = ¼ sqrt((B + 1)/ln(B + 1))``: the largest comparator norm the
    Forgetron's Theorem 2 covers with budget B.

    Parameters
    ----------
    budget : int
        B >= 1.

    Returns
    -------
    float

    Examples
    --------
    >>> round(forgetron_norm_limit(100), 4)
    1.1695
    """
    B = check_positive(budget, "budget")
    return float(0.25 * np.sqrt((B + 1.0) / np.log(B + 1.0)))


def forgetron_mistake_bound(g_sq_norm, hinge_losses, budget):
    """The self-tuned Forgetron's mistake bound ``2‖g‖² + 4 Σ_t ℓ_t(g)``.

    Parameters
    ----------
    g_sq_norm : float
        ``‖g‖²`` of the comparator.
    hinge_losses : array-like of shape (n_steps,)
        ``ℓ_t(g)`` on the sequence.
    budget : int
        B; the theorem needs ``B >= 83`` and ``‖g‖ <= U``
        (:func:`forgetron_norm_limit`), and ``k(x, x) <= 1``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If B < 83 or ‖g‖ exceeds U: the theorem says nothing there.

    Examples
    --------
    >>> forgetron_mistake_bound(1.0, [0.5, 0.0], 100)
    4.0
    """
    g_sq = check_nonnegative(g_sq_norm, "g_sq_norm")
    if budget < 83:
        raise ValueError(f"the Forgetron's Theorem 2 needs a budget of at "
                         f"least 83, got {budget}.")
    limit = forgetron_norm_limit(budget)
    if np.sqrt(g_sq) > limit:
        raise ValueError(f"‖g‖ = {np.sqrt(g_sq):.4g} exceeds U = "
                         f"{limit:.4g}, the norm Theorem 2 covers for "
                         f"B = {budget}.")
    return 2.0 * g_sq + 4.0 * _losses(hinge_losses)


def _min_over_lambda(g_sq, loss, a, c, e):
    """``min_λ (λ² G + 2λ L)/(2aλ - c - eλ²)`` over the λ > 0 where the
    denominator is positive (inf if there is none)."""
    # The optimum solves (a G + e L) λ² + c G λ + c L ... numerically:
    # the expression is smooth on the interval where the denominator is
    # positive, so a fine search of that interval, then a refinement.
    if e > 0:
        disc = a * a - e * c
        if disc <= 0:
            return np.inf
        lo = (a - np.sqrt(disc)) / e
        hi = (a + np.sqrt(disc)) / e
    else:
        lo, hi = c / (2 * a), np.inf
    def value(lam):
        den = 2 * a * lam - c - e * lam * lam
        return (lam * lam * g_sq + 2 * lam * loss) / den if den > 0 \
            else np.inf
    if np.isinf(hi):
        if g_sq == 0:
            return float(value(1e12)) if loss > 0 else 0.0
        # e = 0: the stationary point of a quadratic over a line.
        lam = (c * g_sq + np.sqrt(c * c * g_sq * g_sq
                                  + 4 * a * c * g_sq * loss)) / (
            2 * a * g_sq)
        return float(value(lam))
    grid = np.linspace(lo, hi, 2001)[1:-1]
    values = np.array([value(lam) for lam in grid])
    j = int(np.argmin(values))
    left, right = grid[max(j - 1, 0)], grid[min(j + 1, grid.size - 1)]
    for _ in range(100):
        m1 = left + (right - left) / 3
        m2 = right - (right - left) / 3
        if value(m1) <= value(m2):
            right = m2
        else:
            left = m1
    return float(min(values[j], value((left + right) / 2)))


def projectron_mistake_bound(g_sq_norm, hinge_losses, eta, radius=1.0):
    """The Projectron's mistake bound (module notes), minimised over λ.

    Parameters
    ----------
    g_sq_norm : float
        ``‖g‖²``.
    hinge_losses : array-like of shape (n_steps,)
        ``ℓ_t(g)`` (the bound holds with the losses of the mistakes only;
        all the steps' are more).
    eta : float
        η >= 0, with ``η ‖g‖ < 1``.
    radius : float, default=1.0
        R, with ``k(x_t, x_t) <= R²``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``η ‖g‖ >= 1`` (no bound).

    Examples
    --------
    >>> round(projectron_mistake_bound(4.0, [0.0], 0.0), 6)
    4.0
    >>> round(projectron_mistake_bound(4.0, [0.0], 0.25), 6)
    16.0
    """
    g_sq = check_nonnegative(g_sq_norm, "g_sq_norm")
    eta = check_nonnegative(eta, "eta")
    R = check_positive(radius, "radius")
    a = 1.0 - eta * np.sqrt(g_sq)
    if a <= 0:
        raise ValueError(f"η‖g‖ = {eta * np.sqrt(g_sq):.4g} must be below 1.")
    return _min_over_lambda(g_sq, _losses(hinge_losses), a, R * R, 0.0)


def random_budget_expected_bound(g_sq_norm, hinge_losses, budget,
                                 radius=1.0):
    """The Random Budget Perceptron's bound on the expected mistakes
    (module notes), minimised over λ.

    Parameters
    ----------
    g_sq_norm : float
        ``‖g‖²``.
    hinge_losses : array-like of shape (n_steps,)
        ``ℓ_t(g)``.
    budget : int
        B >= 1.
    radius : float, default=1.0
        R, with ``k(x_t, x_t) <= R²``.

    Returns
    -------
    float
        inf when no λ gives a positive denominator (‖g‖ too large for B).

    Examples
    --------
    >>> bound = random_budget_expected_bound(1.0, [0.0], 100)
    >>> 2.0 < bound < 2.1
    True
    """
    g_sq = check_nonnegative(g_sq_norm, "g_sq_norm")
    B = check_positive(budget, "budget")
    R = check_positive(radius, "radius")
    return _min_over_lambda(g_sq, _losses(hinge_losses), 1.0, 2.0 * R * R,
                            g_sq / (2.0 * B))
