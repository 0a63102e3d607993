"""Property tests of the Perceptron's mistake bounds.

Each test names the theorem it checks:

* Novikoff (1962); Eq. (1) of Shalev-Shwartz & Singer (2005): separable with
  margin γ by a unit u  =>  mistakes <= (R/γ)².
* Freund & Schapire (1999); Eq. (3) of Shalev-Shwartz & Singer (2005), also
  their Thm. 1 at r = 0: for ANY unit u and γ > 0, mistakes <= ((R + D2)/γ)².
* Shalev-Shwartz & Singer (2005), Thm. 2 at r = 0: for ANY unit u and γ > 0,
  mistakes <= ((R + sqrt(γ D1))/γ)².

The Perceptron runs through the origin (w_1 = 0, no threshold); a mistake is
y_t w·x_t <= 0 (ties count), and the mistakes of all epochs form one sequence,
so D1 and D2 are computed over the repeated sequence (``n_passes``).
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from tests.theory._theory_helpers import (noisy_problems, rosenblatt,
                                          separable_problems)
from perceptrons.bounds import (
    augment,
    comparator_margin,
    mistake_bounds,
    novikoff_bound,
    radius,
)

# Relative slack for floating-point rounding in the bound (never in mistakes).
RTOL = 1e-9


def _leq(mistakes, bound):
    return mistakes <= bound * (1 + RTOL)


# ---------------------------------------------------------------------------
# Hand-computed cases
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("d", [1, 2, 5, 20])
def test_novikoff_bound_is_attained_on_orthonormal_basis(d):
    """Novikoff, Eq. (1): the bound can be tight.

    x_i = e_i, y_i = +1, u = (1, ..., 1)/sqrt(d): margin γ = 1/sqrt(d), R = 1,
    bound (R/γ)² = d. With w_1 = 0 every e_i is first met with w·e_i = 0 (a
    tie, hence a mistake), so the Perceptron makes exactly d mistakes, after
    which w = Σ e_i classifies everything with margin.
    """
    X = np.eye(d)
    y = np.ones(d)
    u = np.ones(d)
    gamma = comparator_margin(X, y, u)
    assert gamma == pytest.approx(1 / math.sqrt(d))
    mistakes, w = rosenblatt(X, y, n_epochs=10)
    assert mistakes == d
    assert novikoff_bound(radius(X), gamma) == pytest.approx(d)
    assert mistake_bounds(X, y, u, gamma * (1 - 1e-12)).novikoff_bound >= mistakes


@pytest.mark.parametrize("n_epochs", [1, 2, 5, 50])
def test_freund_schapire_and_thm2_need_the_repeated_sequence(n_epochs):
    """Eq. (3) and Thm. 2 (r = 0) over E epochs: D is that of the E-fold sequence.

    x = (1), labels +1 then -1, u = (1), γ = 1, R = 1. Each example is a
    mistake: w = 0 -> 1 -> 0 -> ..., so 2E mistakes in E epochs. Losses per
    pass: ℓ = (0, 2). Over E passes D2 = 2 sqrt(E), D1 = 2E:
      Eq. (3):  (1 + 2 sqrt(E))² = 1 + 4 sqrt(E) + 4E >= 2E,
      Thm. 2:   (1 + sqrt(2E))²  = 1 + 2 sqrt(2E) + 2E >= 2E  (nearly tight).
    The single-pass D2 = 2 gives (1 + 2)² = 9, violated as soon as 2E > 9:
    using it for several epochs would be wrong, not just loose.
    """
    X = np.array([[1.0], [1.0]])
    y = np.array([1, -1])
    mistakes, _ = rosenblatt(X, y, n_epochs=n_epochs, orders=[[0, 1]] * n_epochs)
    assert mistakes == 2 * n_epochs
    b = mistake_bounds(X, y, [1.0], 1.0, n_passes=n_epochs)
    assert b.D2 == pytest.approx(2 * math.sqrt(n_epochs))
    assert b.D1 == pytest.approx(2 * n_epochs)
    assert _leq(mistakes, b.freund_schapire_bound)
    assert _leq(mistakes, b.d1_bound)
    assert b.d1_bound - mistakes == pytest.approx(1 + 2 * math.sqrt(2 * n_epochs))
    single = mistake_bounds(X, y, [1.0], 1.0)
    assert single.freund_schapire_bound == 9.0
    assert (mistakes > single.freund_schapire_bound) == (n_epochs >= 5)


def test_zero_rows_are_mistakes_and_the_bounds_still_hold():
    """A zero instance is always a tie (a mistake, no update); ℓ_t = γ covers it."""
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [-1.0, 0.0]])
    y = np.array([1, 1, -1, -1])
    mistakes, _ = rosenblatt(X, y, n_epochs=3, orders=[range(4)] * 3)
    assert mistakes == 1 + 2 * 3  # first (1, 0); both zero rows on every epoch
    b = mistake_bounds(X, y, [1.0, 0.0], 1.0, n_passes=3)
    assert b.novikoff_bound == math.inf
    assert _leq(mistakes, b.freund_schapire_bound)
    assert _leq(mistakes, b.d1_bound)


# ---------------------------------------------------------------------------
# Properties on generated data
# ---------------------------------------------------------------------------


def test_novikoff_theorem_separable():
    """Novikoff, Eq. (1): separable with margin γ => total mistakes <= (R/γ)²."""
    seen = []

    @settings(max_examples=200, deadline=None, database=None)
    @given(separable_problems())
    def check(problem):
        X, y, u, gamma = problem
        # Each epoch that is not mistake-free adds >= 1 mistake, so the run
        # converges within floor((R/γ)²) + 1 epochs if the theorem holds.
        R = radius(X)
        max_epochs = int(novikoff_bound(R, gamma)) + 2
        mistakes, w = rosenblatt(X, y, n_epochs=max_epochs)
        b = mistake_bounds(X, y, u, gamma, n_passes=max_epochs)
        assert b.D1 == 0.0 and comparator_margin(X, y, u) >= gamma
        assert _leq(mistakes, b.novikoff_bound)
        # The margin u actually attains gives a bound at least as good.
        assert _leq(mistakes, novikoff_bound(R, comparator_margin(X, y, u)))
        # Convergence: the final w separates the sample.
        assert np.all(y * (X @ w) > 0)
        event(f"mistakes >= 3: {mistakes >= 3}")
        seen.append((mistakes, b.novikoff_bound))

    check()
    # Not vacuous: the Perceptron did work on most samples (the first example
    # is always a mistake, so ">= 1" would prove nothing), and on some the
    # bound was within a factor 10 of the mistakes.
    # (Over 25 hypothesis seeds the fraction was >= 0.66, the ratio >= 0.37.)
    assert np.mean([m >= 3 for m, _ in seen]) >= 0.4
    assert max(m / bound for m, bound in seen) >= 0.1


def test_freund_schapire_eq3_and_thm2_one_pass_noisy():
    """Eq. (3) ((R+D2)/γ)² and Thm. 2 at r=0 ((R+√(γD1))/γ)², one pass, any (u, γ)."""
    seen = []

    @settings(max_examples=150, deadline=None, database=None)
    @given(noisy_problems(), st.lists(st.floats(0.01, 2.0), min_size=3, max_size=3))
    def check(problem, gamma_fracs):
        X, y, u_true, R_param, seed = problem
        rng = np.random.default_rng(seed + 1)
        mistakes, w = rosenblatt(X, y, n_epochs=1)
        comparators = [u_true, rng.standard_normal(X.shape[1]), -u_true]
        if np.any(w):
            comparators.append(w)  # the Perceptron's own final hypothesis
        for u in comparators:
            # γ ranges over (0.01 R, 2 R]: the r = 0 bounds need no γ <= R.
            for frac in gamma_fracs:
                b = mistake_bounds(X, y, u, frac * R_param)
                assert _leq(mistakes, b.freund_schapire_bound), (u, b)
                assert _leq(mistakes, b.d1_bound), (u, b)
        best = min(mistake_bounds(X, y, u_true, f * R_param).best for f in gamma_fracs)
        seen.append((mistakes, best))

    check()
    assert np.mean([m >= 3 for m, _ in seen]) >= 0.5


def test_freund_schapire_eq3_and_thm2_several_epochs_noisy():
    """Eq. (3) and Thm. 2 (r = 0) over E epochs, fixed or shuffled order.

    R, D1, D2 do not depend on the order, so the E-fold sequence has D1·E and
    D2·sqrt(E) whatever the order within each epoch.
    """
    seen = []

    @settings(max_examples=100, deadline=None, database=None)
    @given(noisy_problems(max_samples=60), st.integers(2, 8), st.booleans(),
           st.floats(0.02, 1.5))
    def check(problem, n_epochs, shuffle, gamma_frac):
        X, y, u_true, R_param, seed = problem
        rng = np.random.default_rng(seed + 2)
        n = X.shape[0]
        orders = [rng.permutation(n) if shuffle else np.arange(n)
                  for _ in range(n_epochs)]
        mistakes, _ = rosenblatt(X, y, n_epochs=n_epochs, orders=orders)
        gamma = gamma_frac * R_param
        for u in (u_true, rng.standard_normal(X.shape[1])):
            b = mistake_bounds(X, y, u, gamma, n_passes=n_epochs)
            assert _leq(mistakes, b.freund_schapire_bound)
            assert _leq(mistakes, b.d1_bound)
            # Same numbers as the explicit concatenated sequence.
            order = np.concatenate(orders)
            tiled = mistake_bounds(X[order], y[order], u, gamma)
            assert tiled.D2 == pytest.approx(b.D2, rel=1e-9, abs=1e-12)
            assert tiled.D1 == pytest.approx(b.D1, rel=1e-9, abs=1e-12)
        seen.append(mistakes)

    check()
    assert np.mean([m >= 3 for m in seen]) >= 0.5


@settings(max_examples=60, deadline=None, database=None)
@given(noisy_problems(max_samples=60), st.integers(1, 4))
def test_bounds_and_reference_perceptron_on_csr(problem, n_epochs):
    """Eq. (3) and Thm. 2 (r = 0) with scipy.sparse CSR input: same as dense."""
    X, y, u, R_param, _ = problem
    X[np.abs(X) < 0.3 * R_param / math.sqrt(X.shape[1])] = 0.0  # make it sparse
    Xs = sp.csr_matrix(X)
    m_dense, _ = rosenblatt(X, y, n_epochs=n_epochs, orders=[range(len(y))] * n_epochs)
    m_sparse, _ = rosenblatt(Xs, y, n_epochs=n_epochs, orders=[range(len(y))] * n_epochs)
    assert m_dense == m_sparse
    b = mistake_bounds(Xs, y, u, 0.1 * R_param, n_passes=n_epochs)
    dense = mistake_bounds(X, y, u, 0.1 * R_param, n_passes=n_epochs)
    assert b.as_dict() == pytest.approx(dense.as_dict(), rel=1e-12, abs=1e-12)
    assert _leq(m_sparse, b.freund_schapire_bound)
    assert _leq(m_sparse, b.d1_bound)


@settings(max_examples=60, deadline=None, database=None)
@given(st.integers(0, 2**32 - 1), st.integers(10, 80), st.integers(1, 4),
       st.floats(0.05, 0.3), st.floats(-1.0, 1.0))
def test_novikoff_with_threshold_via_augment(seed, n, d, gamma_frac, offset_frac):
    """Novikoff with a bias (Cristianini & Shawe-Taylor 2000, Thm. 2.3): (2R/γ)².

    Data separable by the affine hyperplane u·x = θ* (|θ*| <= R) with margin
    γ. The origin Perceptron on augment(X, R) is separable by the unit
    comparator (u, -θ*/R)/s, s = sqrt(1 + (θ*/R)²), with margin γ/s and
    radius <= sqrt(2) R, hence at most 2 s² R²/γ² <= (2R/γ)² mistakes.
    """
    rng = np.random.default_rng(seed)
    R = 1.0
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    theta = offset_frac * 0.5 * R
    gamma = gamma_frac * R
    X = rng.standard_normal((20 * n, d))
    X *= (R * rng.random(20 * n) ** (1 / d) / np.linalg.norm(X, axis=1))[:, None]
    X = X[np.abs(X @ u - theta) >= gamma][:n]
    if X.shape[0] == 0:
        return
    y = np.where(X @ u - theta > 0, 1.0, -1.0)
    c = radius(X)
    if abs(theta) > c:  # the (2R/γ)² form needs |θ*| <= R
        return
    Xa = augment(X, c)
    ua = np.append(u, -theta / c)
    mistakes, _ = rosenblatt(Xa, y, n_epochs=500)
    b = mistake_bounds(Xa, y, ua, gamma / np.linalg.norm(ua) * (1 - 1e-12))
    assert b.D1 == 0.0
    assert _leq(mistakes, b.novikoff_bound)
    assert _leq(mistakes, (2 * c / gamma) ** 2)


# ---------------------------------------------------------------------------
# The package estimator
# ---------------------------------------------------------------------------


@pytest.mark.reference
@pytest.mark.parametrize("sparse_input", [False, True], ids=["dense", "csr"])
def test_package_perceptron_matches_reference_and_obeys_bounds(sparse_input):
    """perceptrons.Perceptron's n_mistakes_ equals the reference count and
    obeys Novikoff (separable) and Eq. (3) / Thm. 2 at r = 0 (noisy)."""
    from perceptrons import Perceptron
    seen = []

    @settings(max_examples=60, deadline=None, database=None)
    @given(st.one_of(separable_problems(max_samples=80).map(lambda p: ("separable", p)),
                     noisy_problems(max_samples=80).map(lambda p: ("noisy", p))),
           st.integers(1, 6))
    def check(tagged, n_epochs):
        kind, problem = tagged
        separable = kind == "separable"
        if separable:
            X, y, u, gamma = problem
        else:
            X, y, u, R_param, _ = problem
            gamma = 0.1 * R_param
        # A classifier needs both classes; the bounds do not.
        assume(np.unique(y).shape[0] == 2)
        Xin = sp.csr_matrix(X) if sparse_input else X
        est = Perceptron(eta=1.0, theta_init=0.0, threshold_step=0.0,
                         max_iter=n_epochs, shuffle=False).fit(Xin, y)
        expected, _ = rosenblatt(X, y, n_epochs=n_epochs,
                                 orders=[range(len(y))] * n_epochs)
        assert est.n_mistakes_ == expected
        b = mistake_bounds(Xin, y, u, gamma, n_passes=n_epochs)
        if separable:
            assert _leq(est.n_mistakes_, b.novikoff_bound)
        assert _leq(est.n_mistakes_, b.freund_schapire_bound)
        assert _leq(est.n_mistakes_, b.d1_bound)
        seen.append(est.n_mistakes_)

    check()
    # Mostly an equivalence test; still, not all samples may be trivial.
    assert np.mean([m >= 3 for m in seen]) >= 0.3
    assert max(seen) >= 5
