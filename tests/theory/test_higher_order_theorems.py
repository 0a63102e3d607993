"""Property tests of the Higher-order and Second-order Perceptrons' mistake bounds.

* Theorem 1 of Brotto, Gentile & Vitale (2007), Eq. (2): a run of Figure 1
  (p = 2) whose ρ_k meet ``ρ_k <= (1 - c)/(1 + |v_{k-1}·x_t|)`` makes
  ``m <= α D/γ + α²/(2γ²) + (α/γ)√(α D/γ + α²/(4γ²))``, α = (2 - c)/c,
  D = D_γ(u; S̃_c) the hinge loss on the transformed sequence of Eq. (1),
  for every γ > 0 and unit u. Checked with ρ_k = c_HO/k (HO₂(c_HO)), its
  sparse variant, and ρ_k at the largest value the condition allows.
* Theorem 1 of Cesa-Bianchi, Conconi & Gentile (2005): SO with parameter a
  makes ``m <= D/γ + (1/γ)√((a + uᵀX_mX_mᵀu) Σ ln(1 + λ_i/a))``.

The runs are the line-by-line oracles of ``tests/reference/`` (several epochs
form one sequence); where the estimators exist, their ``n_mistakes_`` must be
the oracle's. The bounds must also be non-vacuous (below the number of
trials) on the seeded streams, so that the check has teeth.
"""

import doctest

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perceptrons.bounds._higher_order_bounds as bounds_module
from perceptrons import HigherOrderPerceptron, SecondOrderPerceptron
from perceptrons.bounds import (
    d1_bound,
    higher_order_bound,
    higher_order_condition,
    higher_order_sequence_bound,
    hinge_losses,
    second_order_bound,
    second_order_sequence_bound,
)

from tests.reference.higher_order import higher_order_reference
from tests.reference.second_order import second_order_reference

RTOL = 1e-9
GAMMAS = np.linspace(0.02, 0.6, 30)


def _leq(m, bound):
    return m <= bound * (1 + RTOL) + RTOL


def unit_stream(seed, n, d, gamma, flip):
    """Unit rows with |u·x| >= γ for a unit u, labels sign(u·x), a fraction
    ``flip`` flipped. Returns X, y, u."""
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    rows = []
    while len(rows) < n:
        x = rng.standard_normal((4 * n, d))
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        rows.extend(x[np.abs(x @ u) >= gamma])
    X = np.array(rows[:n])
    y = np.where(X @ u > 0.0, 1.0, -1.0)
    y[rng.random(n) < flip] *= -1.0
    return X, y, u


def _orders(n, n_epochs, seed):
    rng = np.random.default_rng(seed + 1)
    return [np.arange(n)] + [rng.permutation(n) for _ in range(n_epochs - 1)]


def _ho_bound(run, u, gamma, c=None):
    c = higher_order_condition(run.rhos, run.v_dots) if c is None else c
    return higher_order_sequence_bound(run.transformed, run.labels, u, gamma, c)


def _best_over_gammas(bound_of_gamma):
    return min(bound_of_gamma(g) for g in GAMMAS)


# ---------------------------------------------------------------------------
# The bound functions
# ---------------------------------------------------------------------------


def test_docstring_examples():
    result = doctest.testmod(bounds_module)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("gamma, D", [(0.5, 0.0), (0.1, 3.0), (2.0, 0.7)])
def test_c_one_is_the_perceptron_quadratic(gamma, D):
    """c = 1: α = 1 and Eq. (2) is the root of γm - D = √m, at most the D1 bound."""
    m = higher_order_bound(D, gamma, 1.0)
    assert gamma * m - D == pytest.approx(np.sqrt(m))
    assert m <= d1_bound(1.0, gamma, D) * (1 + RTOL)


@pytest.mark.parametrize("c_ho", [0.0, 0.2, 0.4, 0.6, 0.8])
def test_rho_c_over_k_meets_the_condition_with_one_minus_c(c_ho):
    """Footnote 7: ρ_k = c/k satisfies Theorem 1 with c' = 1 - c (|v·x| <= k-1)."""
    X, y, _ = unit_stream(3, 150, 5, 0.05, 0.1)
    run = higher_order_reference(X, y, _orders(150, 2, 3), c=c_ho)
    assert run.n_mistakes > 10
    assert np.all(np.abs(run.v_dots) <= np.arange(run.n_mistakes) + 1e-9)
    # The first mistake has v_0 = 0 and ρ_1 = c, so the minimum is attained.
    assert higher_order_condition(run.rhos, run.v_dots) == pytest.approx(1.0 - c_ho)


# ---------------------------------------------------------------------------
# Theorem 1 of Brotto, Gentile & Vitale (2007)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("c_ho, sparse", [(0.0, False), (0.2, False), (0.4, False),
                                          (0.4, True)])
@pytest.mark.parametrize("n_epochs", [1, 3])
def test_theorem1_holds_and_is_not_vacuous(seed, c_ho, sparse, n_epochs):
    n = 250
    X, y, u = unit_stream(seed, n, 4, 0.15, 0.03)
    run = higher_order_reference(X, y, _orders(n, n_epochs, seed), c=c_ho,
                                 sparse=sparse)
    m = run.n_mistakes
    assert m == sum(run.mistakes_per_epoch) > 0
    c = higher_order_condition(run.rhos, run.v_dots)
    assert c >= 1.0 - c_ho - 1e-12
    for gamma in GAMMAS:
        assert _leq(m, _ho_bound(run, u, gamma, c)), gamma
    # Eq. (1): S̃ is B_{k-1} x_{t(k)}; B_0 = I, so the first row is x itself.
    np.testing.assert_array_equal(run.transformed[0], run.instances[0])
    np.testing.assert_allclose(run.instances[0], X[run.mistake_rows[0]], rtol=1e-15)
    assert _best_over_gammas(lambda g: _ho_bound(run, u, g, c)) < n * n_epochs


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("c_thm", [0.4, 0.7])
def test_theorem1_with_the_largest_admissible_rho(seed, c_thm):
    """ρ_k = (1 - c)/(1 + |v_{k-1}·x_t|): the condition holds with equality."""
    n = 250
    X, y, u = unit_stream(seed, n, 4, 0.15, 0.02)

    def rho(k, v, x, y_t):
        return (1.0 - c_thm) / (1.0 + abs(v @ x))

    run = higher_order_reference(X, y, _orders(n, 2, seed), rho=rho)
    assert np.all(run.rhos > 0.0) and run.n_matrix_updates == run.n_mistakes
    c = higher_order_condition(run.rhos, run.v_dots)
    assert c == pytest.approx(c_thm)
    for gamma in GAMMAS:
        assert _leq(run.n_mistakes, _ho_bound(run, u, gamma, c))
    assert _best_over_gammas(lambda g: _ho_bound(run, u, g, c)) < 2 * n


@settings(max_examples=25, deadline=None, database=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(20, 120),
       d=st.integers(2, 6), flip=st.floats(0.0, 0.3),
       c_ho=st.sampled_from([0.0, 0.3, 0.7, 0.9]), sparse=st.booleans(),
       gamma=st.floats(0.01, 2.0), random_u=st.booleans())
def test_theorem1_for_any_gamma_and_unit_u(seed, n, d, flip, c_ho, sparse, gamma,
                                           random_u):
    X, y, u = unit_stream(seed, n, d, 0.0, flip)
    if random_u:
        u = np.random.default_rng(seed + 7).standard_normal(d)
    run = higher_order_reference(X, y, _orders(n, 2, seed), c=c_ho, sparse=sparse)
    assert _leq(run.n_mistakes, _ho_bound(run, u, gamma))


def test_transformed_sequence_is_eq1():
    """S̃_c of Eq. (1) pairs the k-th mistaken x_t with B_{k-1} (the matrix
    *before* the k-th update), B_{k-1} the product of the factors of the
    earlier matrix updates; recording B_k x instead would change D."""
    X, y, u = unit_stream(0, 250, 4, 0.15, 0.03)
    run = higher_order_reference(X, y, _orders(250, 2, 0), c=0.4)
    B_prod = np.eye(4)
    for k in range(run.n_mistakes):
        np.testing.assert_allclose(run.transformed[k], B_prod @ run.instances[k],
                                   rtol=1e-12, atol=1e-12)
        if run.rhos[k] > 0.0:
            x = run.instances[k]
            B_prod = B_prod @ (np.eye(4) - run.rhos[k] * np.outer(x, x))
    np.testing.assert_allclose(B_prod, run.B, rtol=1e-12, atol=1e-12)
    # The factors have spectral norm <= 1 (ρ <= 1, ‖x‖ = 1), as the proof uses.
    assert np.all(np.linalg.norm(run.transformed, axis=1) <= 1 + 1e-12)
    # B_k x_t = (1 - ρ_k) B_{k-1} x_t for unit x_t: the wrong matrix would
    # give another hinge loss on this run.
    after = (1.0 - run.rhos)[:, None] * run.transformed
    assert abs(hinge_losses(after, run.labels, u, 0.1).sum()
               - hinge_losses(run.transformed, run.labels, u, 0.1).sum()) > 0.05


@pytest.mark.reference
@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("form", ["implicit", "primal"])
@pytest.mark.parametrize("c_ho", [0.0, 0.4])
def test_estimator_makes_the_oracles_mistakes(seed, form, c_ho):
    n = 250
    X, y, u = unit_stream(seed, n, 4, 0.15, 0.03)
    run = higher_order_reference(X, y, [np.arange(n)] * 3, c=c_ho)
    est = HigherOrderPerceptron(p=2, c=c_ho, form=form, shuffle=False,
                                max_iter=3).fit(X, y)
    assert est.n_mistakes_ == run.n_mistakes
    c = higher_order_condition(run.rhos, run.v_dots)
    for gamma in GAMMAS:
        assert _leq(est.n_mistakes_, _ho_bound(run, u, gamma, c))


# ---------------------------------------------------------------------------
# Theorem 1 of Cesa-Bianchi, Conconi & Gentile (2005)
# ---------------------------------------------------------------------------


def _so_bound(run, u, gamma):
    return second_order_sequence_bound(run.instances, run.labels, u, gamma, run.a)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("a", [0.3, 1.0, 5.0])
@pytest.mark.parametrize("n_epochs", [1, 3])
def test_so_theorem1_holds_and_is_not_vacuous(seed, a, n_epochs):
    n = 250
    X, y, u = unit_stream(seed, n, 4, 0.15, 0.03)
    run = second_order_reference(X, y, _orders(n, n_epochs, seed), a=a)
    m = run.n_mistakes
    assert m > 0
    for gamma in GAMMAS:
        assert _leq(m, _so_bound(run, u, gamma)), gamma
    assert _best_over_gammas(lambda g: _so_bound(run, u, g)) < n * n_epochs


def test_so_bound_terms_from_the_final_matrix():
    """λ_i are the eigenvalues of A_m - aI and uᵀX_mX_mᵀu = uᵀ(A_m - aI)u."""
    X, y, u = unit_stream(1, 200, 4, 0.1, 0.05)
    a = 0.5
    run = second_order_reference(X, y, _orders(200, 2, 1), a=a)
    C = run.A - a * np.eye(4)
    D = hinge_losses(run.instances, run.labels, u, 0.2).sum()
    expected = second_order_bound(D, 0.2, a, float(u @ C @ u), np.linalg.eigvalsh(C))
    assert _so_bound(run, u, 0.2) == pytest.approx(expected, rel=1e-10)


@settings(max_examples=25, deadline=None, database=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(20, 120),
       d=st.integers(1, 6), flip=st.floats(0.0, 0.3),
       a=st.floats(0.05, 20.0), scale=st.floats(0.1, 10.0),
       gamma=st.floats(0.01, 3.0), random_u=st.booleans())
def test_so_theorem1_for_any_gamma_unit_u_and_scale(seed, n, d, flip, a, scale,
                                                    gamma, random_u):
    """SO needs no normalisation: rows of any norm."""
    X, y, u = unit_stream(seed, n, d, 0.0, flip)
    X = X * np.random.default_rng(seed).uniform(0.2, 1.0, (n, 1)) * scale
    if random_u:
        u = np.random.default_rng(seed + 7).standard_normal(d)
    run = second_order_reference(X, y, _orders(n, 2, seed), a=a)
    assert _leq(run.n_mistakes, _so_bound(run, u, gamma))


@pytest.mark.reference
@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("a", [0.5, 2.0])
def test_so_estimator_makes_the_oracles_mistakes(seed, a):
    n = 250
    X, y, u = unit_stream(seed, n, 4, 0.15, 0.03)
    run = second_order_reference(X, y, [np.arange(n)] * 3, a=a)
    est = SecondOrderPerceptron(a=a, shuffle=False, max_iter=3).fit(X, y)
    assert est.n_mistakes_ == run.n_mistakes
    for gamma in GAMMAS:
        assert _leq(est.n_mistakes_, _so_bound(run, u, gamma))
