"""Property tests of the budgeted kernel perceptrons' mistake bounds.

* The self-tuned Forgetron, Dekel, Shalev-Shwartz & Singer (2008),
  Theorem 2: with B >= 83, k(x, x) <= 1 and any g with ‖g‖ <= U =
  ¼ sqrt((B + 1)/ln(B + 1)): M <= 2‖g‖² + 4 Σ_t ℓ_t(g).
* The Projectron, Orabona, Keshet & Caputo (2009), Theorem 1's argument:
  M <= min_λ (λ²‖g‖² + 2λ Σ ℓ_t(g)) / (2λ(1 - η‖g‖) - R²).
* The Random Budget Perceptron, Cavallanti, Cesa-Bianchi & Gentile (2007),
  the stationary form of its expected bound (:mod:`perceptrons.bounds`
  notes): E[M] <= min_λ (λ²‖g‖² + 2λ Σ ℓ_t) / (2λ - 2R² - λ²‖g‖²/(2B)),
  the expectation estimated over 24 seeds of the eviction stream.

The comparator g is a function of the kernel's space with a known norm:
``c u`` (u a unit vector) for the linear kernel on unit-norm rows, or
``Σ_j β_j k(z_j, ·)`` (‖g‖² = βᵀKβ) for the Gaussian kernel; labels are
its signs with some flipped, so that the budget fills and evicts.
"""

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from perceptrons import Perceptron, Projectron
from perceptrons.bounds import (forgetron_mistake_bound,
                                forgetron_norm_limit,
                                projectron_mistake_bound,
                                random_budget_expected_bound)

RTOL = 1e-9


def linear_problem(seed, n, d, noise, norm):
    """Unit-norm rows, labels of a unit u with ``noise`` flipped; the
    comparator ``g = norm u`` and its hinge losses."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    y = np.where(X @ u >= 0, 1, -1)
    flip = rng.random(n) < noise
    y[flip] = -y[flip]
    assume(np.unique(y).shape[0] == 2)
    losses = np.maximum(0.0, 1.0 - y * norm * (X @ u))
    return X, y, losses


def gaussian_problem(seed, n, d, gamma, noise, norm):
    """Rows in a box, labels of a random kernel expansion g (scaled to
    ‖g‖ = ``norm``) with ``noise`` flipped; g's hinge losses."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    Z = rng.uniform(-1, 1, (8, d))
    beta = rng.standard_normal(8)

    def k(A, B):
        d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2)
        return np.exp(-gamma * d2)

    scale = norm / np.sqrt(beta @ k(Z, Z) @ beta)
    g = scale * (k(X, Z) @ beta)
    y = np.where(g >= 0, 1, -1)
    flip = rng.random(n) < noise
    y[flip] = -y[flip]
    # A draw of g of one sign on every row is no classification problem.
    assume(np.unique(y).shape[0] == 2)
    return X, y, np.maximum(0.0, 1.0 - y * g)


def rosenblatt_on_a_budget(**kw):
    return Perceptron(eta=1.0, theta_init=0.0, threshold_step=0.0,
                      hypothesis="last", max_iter=1, shuffle=False, **kw)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), budget=st.integers(83, 140),
       noise=st.sampled_from([0.05, 0.15, 0.3]),
       kernel=st.sampled_from(["linear", "rbf"]))
def test_forgetron_theorem2(seed, budget, noise, kernel):
    U = forgetron_norm_limit(budget)
    if kernel == "linear":
        X, y, losses = linear_problem(seed, 900, 5, noise, U)
        params = {"kernel": "linear"}
    else:
        X, y, losses = gaussian_problem(seed, 900, 3, 2.0, noise, U)
        params = {"kernel": "rbf", "gamma": 2.0}
    clf = rosenblatt_on_a_budget(budget=budget, budget_policy="forgetron",
                                 **params).fit(X, y)
    assert clf.support_.shape[0] <= budget
    bound = forgetron_mistake_bound(U * U, losses, budget)
    assert clf.n_mistakes_ <= bound * (1 + RTOL)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), eta=st.sampled_from([0.0, 0.1, 0.3,
                                                         0.6]),
       norm=st.sampled_from([0.5, 1.0, 1.5]),
       noise=st.sampled_from([0.0, 0.1, 0.25]),
       kernel=st.sampled_from(["linear", "rbf"]))
def test_projectron_mistake_bound(seed, eta, norm, noise, kernel):
    if eta * norm >= 1:
        return
    if kernel == "linear":
        X, y, losses = linear_problem(seed, 500, 6, noise, norm)
        params = {"kernel": "linear"}
    else:
        X, y, losses = gaussian_problem(seed, 500, 3, 2.0, noise, norm)
        params = {"kernel": "rbf", "gamma": 2.0}
    clf = Projectron(eta=eta, hypothesis="last", max_iter=1, shuffle=False,
                     **params).fit(X, y)
    bound = projectron_mistake_bound(norm * norm, losses, eta)
    assert clf.n_mistakes_ <= bound * (1 + RTOL)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), budget=st.sampled_from([10, 25, 50]),
       noise=st.sampled_from([0.05, 0.2]))
def test_random_budget_perceptron_expected_bound(seed, budget, noise):
    norm = 0.5 * np.sqrt(budget)
    X, y, losses = gaussian_problem(seed, 400, 3, 2.0, noise, norm)
    mistakes = [rosenblatt_on_a_budget(
        kernel="rbf", gamma=2.0, budget=budget, budget_policy="random",
        random_state=s).fit(X, y).n_mistakes_ for s in range(24)]
    bound = random_budget_expected_bound(norm * norm, losses, budget)
    assert np.mean(mistakes) <= bound * (1 + RTOL)
