"""Property tests of the Passive-Aggressive loss bounds (Crammer et al. 2006).

Each test names the theorem it checks, for a sequence
(x_1, y_1), ..., (x_T, y_T) with ‖x_t‖ <= R, the algorithm's hinge losses
ℓ_t (Eq. (1), before each update) and a comparator u with losses
:math:`\\ell^*_t = \\max\\{0, 1 - y_t\\, u\\cdot x_t\\}`:

* Thm. 2 (PA, separable: some u has every ℓ*_t = 0):
  Σ ℓ_t² <= ‖u‖² R², and so the mistakes are at most ‖u‖² R²;
* Thm. 3 (PA, ‖x_t‖ = 1, any u): Σ ℓ_t² <= (‖u‖ + 2 √(Σ ℓ*_t²))²;
* Thm. 4 (PA-I, any u): mistakes <= max{R², 1/C} (‖u‖² + 2C Σ ℓ*_t);
* Thm. 5 (PA-II, any u): Σ ℓ_t² <= (R² + 1/(2C)) (‖u‖² + 2C Σ ℓ*_t²).

The algorithm is the package's estimator through the origin
(``fit_intercept=False``, the paper's hypotheses), ``hypothesis="last"``,
fed one row at a time with ``partial_fit`` so that ℓ_t is read from its
``decision_function`` before each step; several passes over the rows make
one sequence (the theorems hold for any sequence). On separable data u is
the unit separator scaled by 1/γ (every ℓ*_t = 0).
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from perceptrons import PassiveAggressive
from tests.theory._theory_helpers import noisy_problems, separable_problems

RTOL = 1e-9


def _leq(value, bound):
    return value <= bound * (1 + RTOL) + RTOL


def _run(X, y, variant, C, n_passes):
    """The losses ℓ_t of every step and the estimator after the run."""
    est = PassiveAggressive(variant=variant, C=C, fit_intercept=False,
                            hypothesis="last")
    losses = []
    for _ in range(n_passes):
        for t in range(X.shape[0]):
            row = X[t:t + 1]
            if hasattr(est, "state_"):
                score = float(est.decision_function(row)[0])
            else:
                score = 0.0  # w_1 = 0
            losses.append(max(0.0, 1.0 - y[t] * score))
            est.partial_fit(row, y[t:t + 1], classes=[-1.0, 1.0])
    return np.array(losses), est


def _comparator_losses(X, y, u):
    return np.maximum(0.0, 1.0 - y * (X @ u))


@settings(max_examples=25, deadline=None)
@given(separable_problems(max_samples=60), st.integers(1, 3))
def test_theorem_2_pa_separable(problem, n_passes):
    X, y, u, gamma = problem
    losses, est = _run(X, y, "PA", 1.0, n_passes)
    R = float(np.max(np.linalg.norm(X, axis=1)))
    u_scaled = u / gamma  # y_t u·x_t >= 1: every ℓ*_t = 0
    assert np.all(_comparator_losses(X, y, u_scaled) <= 1e-9)
    bound = float(u_scaled @ u_scaled) * R * R
    assert _leq(float(np.sum(losses ** 2)), bound)
    # Its corollary: a mistake has ℓ_t >= 1.
    assert _leq(est.n_mistakes_, bound)


@settings(max_examples=25, deadline=None)
@given(noisy_problems(max_samples=60), st.integers(1, 2),
       st.floats(0.1, 10.0))
def test_theorem_3_pa_unit_rows(problem, n_passes, u_scale):
    X, y, u_true, _, _ = problem
    norms = np.linalg.norm(X, axis=1)
    X = X[norms > 0] / norms[norms > 0, None]
    y = y[norms > 0]
    if X.shape[0] == 0:
        return
    losses, _ = _run(X, y, "PA", 1.0, n_passes)
    u = u_scale * u_true
    star = np.tile(_comparator_losses(X, y, u), n_passes)
    bound = (np.linalg.norm(u) + 2.0 * np.sqrt(np.sum(star ** 2))) ** 2
    assert _leq(float(np.sum(losses ** 2)), bound)


def _any_comparator(problem, u_scale, n_passes):
    """R, a comparator u (the true direction at scale ``u_scale / R``) and
    its losses ℓ*_t over the repeated sequence."""
    X, y, u_true, _, _ = problem
    R = float(np.max(np.linalg.norm(X, axis=1)))
    u = u_scale * u_true / max(R, 1e-300)
    return R, u, np.tile(_comparator_losses(X, y, u), n_passes)


NOISY_RUNS = (noisy_problems(max_samples=60), st.integers(1, 2),
              st.floats(0.01, 10.0), st.floats(0.1, 10.0))


@settings(max_examples=25, deadline=None)
@given(*NOISY_RUNS)
def test_theorem_4_pa1_mistakes(problem, n_passes, C, u_scale):
    _, est = _run(problem[0], problem[1], "PA-I", C, n_passes)
    R, u, star = _any_comparator(problem, u_scale, n_passes)
    bound = max(R * R, 1.0 / C) * (float(u @ u) + 2.0 * C * np.sum(star))
    assert _leq(est.n_mistakes_, bound)


@settings(max_examples=25, deadline=None)
@given(*NOISY_RUNS)
def test_theorem_5_pa2_squared_loss(problem, n_passes, C, u_scale):
    losses, _ = _run(problem[0], problem[1], "PA-II", C, n_passes)
    R, u, star = _any_comparator(problem, u_scale, n_passes)
    bound = (R * R + 0.5 / C) * (float(u @ u)
                                 + 2.0 * C * np.sum(star ** 2))
    assert _leq(float(np.sum(losses ** 2)), bound)


def test_theorem_2_is_nearly_attained():
    """The bound is not vacuous: on a hard separable stream (200 points,
    80% near the margin γ = 0.1, R = 1, three passes) PA's Σ ℓ_t² is 67.2
    against ‖u‖² R² = 99.5."""
    from tests.theory._theory_helpers import separable_sample

    rng = np.random.default_rng(0)
    X, y, u = separable_sample(rng, 200, 3, 0.1, 1.0, near_margin=0.8)
    gamma = float(np.min(y * (X @ u)))
    losses, _ = _run(X, y, "PA", 1.0, 3)
    R = float(np.max(np.linalg.norm(X, axis=1)))
    ratio = float(np.sum(losses ** 2)) / (R * R / gamma ** 2)
    assert 0.5 < ratio <= 1.0
