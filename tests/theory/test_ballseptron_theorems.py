"""Property tests of the Ballseptron's mistake bounds (Shalev-Shwartz & Singer 2005).

Each test names what it checks:

* Thm. 1: for any unit u, 0 < γ <= R and 0 <= r < (√2 - 1)γ, the mistakes
  ε <= ((R + D2)/γ)²;
* Cor. 1: ε <= ((R + D2)/γ)² - β ε̃, β = ½ - r/γ - ½(r/γ)², ε̃ the margin
  errors;
* Thm. 2: ε <= ((R + √(γ D1))/γ)²;  Eq. (17): the same minus β ε̃;
* Sec. 4, multiclass: the same four with R = √2 max‖x‖, the multiclass hinge
  loss over prototypes with Σ‖u^i‖² = 1, and (our reading of the paper's
  "slightly weaker versions", see ``perceptrons.bounds._ballseptron_bounds``)
  the effective radius √2 r, so r < (√2 - 1)γ/√2.

The Ballseptron is the package's estimator, run with ``partial_fit`` (one
pass in the given order per call). The mistakes of all passes form one
sequence, so D1 and D2 are those of the repeated sequence (``n_passes``).
"""

import doctest
import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.theory._theory_helpers import (noisy_problems, separable_problems,
                                          separable_sample)
import perceptrons.bounds._ballseptron_bounds as bounds_module
from perceptrons import Ballseptron
from perceptrons.bounds import (
    ballseptron_beta,
    ballseptron_bounds,
    ballseptron_d1_bound,
    ballseptron_d2_bound,
    d1_bound,
    freund_schapire_bound,
    multiclass_ballseptron_bounds,
    multiclass_hinge_losses,
    multiclass_radius,
    radius,
)

RTOL = 1e-9
MAX_RATIO = math.sqrt(2.0) - 1.0
# r as a fraction of its largest admissible value; 0 (the Perceptron) or
# large enough that margin errors are common.
R_FRACS = st.one_of(st.just(0.0), st.floats(0.3, 0.999))


def _leq(mistakes, bound):
    return mistakes <= bound * (1 + RTOL) + RTOL


def _run(X, y, r, n_passes, classes):
    est = Ballseptron(radius=r)
    for _ in range(n_passes):
        est.partial_fit(X, y, classes=classes)
    return est


def _assert_all_bounds(est, b):
    eps = est.n_mistakes_
    assert b.n_margin_errors == est.n_margin_errors_
    for name in ("thm1", "thm2", "cor1", "eq17"):
        assert _leq(eps, getattr(b, name)), (name, eps, b)


# ---------------------------------------------------------------------------
# The bound functions
# ---------------------------------------------------------------------------


def test_docstring_examples():
    result = doctest.testmod(bounds_module)
    assert result.attempted > 0 and result.failed == 0


def test_radius_zero_reduces_to_the_perceptron_bounds():
    """Thm. 1 and 2 at r = 0, ε̃ = 0 are Eq. (3) and the D1 bound."""
    for R, gamma, D in [(1.0, 0.5, 1.0), (3.0, 0.1, 0.0), (2.0, 4.0, 7.5)]:
        assert ballseptron_d2_bound(R, gamma, D) == freund_schapire_bound(
            R, gamma, D)
        assert ballseptron_d1_bound(R, gamma, D) == d1_bound(R, gamma, D)


def test_beta_and_corollary_arithmetic():
    assert ballseptron_beta(0.0, 2.0) == 0.5
    r = 0.4142 * 2.0
    assert 0.0 < ballseptron_beta(r, 2.0) < 1e-4
    beta = ballseptron_beta(0.25, 1.0)
    assert beta == pytest.approx(0.5 - 0.25 - 0.5 * 0.0625)
    assert ballseptron_d2_bound(2.0, 1.0, 1.0, 0.25, 10) == pytest.approx(
        9.0 - 10 * beta)
    assert ballseptron_d1_bound(2.0, 1.0, 4.0, 0.25, 10) == pytest.approx(
        16.0 - 10 * beta)


@pytest.mark.parametrize("kwargs, match", [
    (dict(R=1.0, gamma=1.0, D=0.0, radius=MAX_RATIO), "radius <"),
    (dict(R=1.0, gamma=1.0, D=0.0, radius=-0.1), "radius"),
    (dict(R=1.0, gamma=2.0, D=0.0, radius=0.1), "gamma <= R"),
    (dict(R=1.0, gamma=2.0, D=0.0, n_margin_errors=3), "gamma <= R"),
    (dict(R=1.0, gamma=0.5, D=0.0, n_margin_errors=-1), "n_margin_errors"),
    (dict(R=1.0, gamma=0.5, D=0.0, n_margin_errors=1.5), "n_margin_errors"),
    (dict(R=1.0, gamma=0.0, D=0.0), "gamma"),
    (dict(R=1.0, gamma=0.5, D=-1.0), "D"),
])
def test_bound_functions_reject_bad_arguments(kwargs, match):
    kwargs = dict(kwargs)
    R, gamma, D = kwargs.pop("R"), kwargs.pop("gamma"), kwargs.pop("D")
    for fn in (ballseptron_d1_bound, ballseptron_d2_bound):
        with pytest.raises(ValueError, match=match):
            fn(R, gamma, D, **kwargs)


def test_multiclass_hinge_losses_brute_force():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 4))
    U = rng.standard_normal((3, 4))
    y = rng.integers(0, 3, 30)
    gamma = 0.3
    Un = U / np.linalg.norm(U)
    expected = [
        max(0.0, max(gamma - (Un[y[t]] - Un[k]) @ X[t]
                     for k in range(3) if k != y[t]))
        for t in range(30)
    ]
    np.testing.assert_allclose(multiclass_hinge_losses(X, y, U, gamma),
                               expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        multiclass_hinge_losses(sp.csr_matrix(X), y, 5 * U, gamma), expected,
        rtol=1e-12, atol=1e-12)
    assert multiclass_radius(X) == pytest.approx(
        math.sqrt(2) * np.max(np.linalg.norm(X, axis=1)))
    with pytest.raises(ValueError, match="class indices"):
        multiclass_hinge_losses(X, y + 1, U, gamma)
    with pytest.raises(ValueError, match="prototypes"):
        multiclass_hinge_losses(X, y, U[:, :2], gamma)


def test_multiclass_bounds_use_the_effective_radius():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((20, 3))
    y = rng.integers(0, 3, 20)
    U = rng.standard_normal((3, 3))
    b = multiclass_ballseptron_bounds(X, y, U, 0.5, radius=0.1,
                                      n_margin_errors=4, n_passes=2)
    assert b.effective_radius == pytest.approx(math.sqrt(2) * 0.1)
    assert b.beta == pytest.approx(ballseptron_beta(math.sqrt(2) * 0.1, 0.5))
    assert b.cor1 == pytest.approx(b.thm1 - 4 * b.beta)
    # √2 r must stay below (√2 - 1) γ.
    with pytest.raises(ValueError, match="radius <"):
        multiclass_ballseptron_bounds(X, y, U, 0.5, radius=0.9 * MAX_RATIO * 0.5)


# ---------------------------------------------------------------------------
# Binary: Thm. 1, Thm. 2, Cor. 1, Eq. (17) on generated data
# ---------------------------------------------------------------------------


def test_binary_bounds_separable():
    """Thm. 1/2, Cor. 1, Eq. (17) on data separable with margin γ (D = 0)."""
    seen = []

    @settings(max_examples=150, deadline=None, database=None)
    @given(separable_problems(), R_FRACS, st.integers(1, 4))
    def check(problem, r_frac, n_passes):
        X, y, u, gamma = problem
        r = r_frac * MAX_RATIO * gamma
        est = _run(X, y, r, n_passes, [-1.0, 1.0])
        b = ballseptron_bounds(X, y, u, gamma, radius=r,
                               n_margin_errors=est.n_margin_errors_,
                               n_passes=n_passes)
        assert b.D1 == 0.0
        _assert_all_bounds(est, b)
        seen.append((est.n_mistakes_, est.n_margin_errors_))

    check()
    # Not vacuous: the algorithm worked and made margin errors.
    # (Over 10 runs: >= 0.66 and >= 0.13.)
    assert np.mean([m >= 3 for m, _ in seen]) >= 0.4
    assert np.mean([e > 0 for _, e in seen]) >= 0.05


def test_binary_bounds_noisy():
    """The four bounds for any (u, γ <= R) on noisy data, several passes."""
    seen = []

    @settings(max_examples=150, deadline=None, database=None)
    @given(noisy_problems(max_samples=80), st.floats(0.02, 1.0),
           R_FRACS, st.integers(1, 3))
    def check(problem, gamma_frac, r_frac, n_passes):
        X, y, u_true, _, seed = problem
        R = radius(X)
        assume(R > 0)
        gamma = gamma_frac * R
        r = r_frac * MAX_RATIO * gamma
        est = _run(X, y, r, n_passes, [-1.0, 1.0])
        rng = np.random.default_rng(seed + 5)
        for u in (u_true, rng.standard_normal(X.shape[1]), est.coef_[0]):
            if not np.any(u):
                continue
            b = ballseptron_bounds(X, y, u, gamma, radius=r,
                                   n_margin_errors=est.n_margin_errors_,
                                   n_passes=n_passes)
            _assert_all_bounds(est, b)
        seen.append((est.n_mistakes_, est.n_margin_errors_))

    check()
    # (Over 10 runs: >= 0.8 and >= 0.17.)
    assert np.mean([m >= 3 for m, _ in seen]) >= 0.5
    assert np.mean([e > 0 for _, e in seen]) >= 0.05


# ---------------------------------------------------------------------------
# Multiclass (Sec. 4)
# ---------------------------------------------------------------------------


def multiclass_sample(rng, n, d, n_classes, R, gamma, flip):
    """Points in the R-ball labelled by argmax_r u^r·x with multiclass margin
    >= γ for the prototypes U (Σ‖u^r‖² = 1); then a fraction ``flip`` of
    the labels is redrawn at random. Returns X, y (indices), U."""
    U = rng.standard_normal((n_classes, d))
    U /= np.linalg.norm(U)
    rows = []
    for _ in range(30):
        Z = rng.standard_normal((8 * n, d))
        Z *= (R * rng.random(8 * n) ** (1 / d)
              / np.linalg.norm(Z, axis=1))[:, None]
        S = np.sort(Z @ U.T, axis=1)
        rows.append(Z[S[:, -1] - S[:, -2] >= gamma])
        if sum(len(b) for b in rows) >= n:
            break
    X = np.concatenate(rows)[:n]
    y = np.argmax(X @ U.T, axis=1)
    n_flip = int(round(flip * X.shape[0]))
    if n_flip:
        idx = rng.choice(X.shape[0], n_flip, replace=False)
        y[idx] = rng.integers(0, n_classes, n_flip)
    return X, y, U


def test_multiclass_bounds():
    """Sec. 4: the four bounds with R = √2 max‖x‖ and r' = √2 r.

    The data have multiclass margin γ_data for U; the bounds hold for any
    (V, γ <= R), so γ is drawn separately up to R, and r up to its largest
    admissible value for that γ (large γ: many margin errors, D1 > 0).
    """
    seen = []

    @settings(max_examples=150, deadline=None, database=None)
    @given(st.integers(0, 2**32 - 1), st.integers(20, 100), st.integers(2, 6),
           st.integers(3, 5), st.floats(0.1, 50.0), st.floats(0.02, 0.15),
           st.sampled_from([0.0, 0.0, 0.1, 0.3]), st.floats(0.01, 1.0),
           R_FRACS, st.integers(1, 3), st.booleans())
    def check(seed, n, d, K, R, margin_frac, flip, gamma_frac, r_frac,
              n_passes, sparse):
        rng = np.random.default_rng(seed)
        gamma_data = margin_frac * R
        X, y, U = multiclass_sample(rng, n, d, K, R, gamma_data, flip)
        assume(X.shape[0] >= 10)
        gamma = gamma_frac * multiclass_radius(X)
        r = r_frac * MAX_RATIO * gamma / math.sqrt(2.0)
        Xs = sp.csr_matrix(X) if sparse else X
        est = _run(Xs, y, r, n_passes, np.arange(K))
        comparators = [U, rng.standard_normal((K, d))]
        if np.any(est.coef_):
            comparators.append(est.coef_)
        for V in comparators:
            b = multiclass_ballseptron_bounds(
                Xs, y, V, gamma, radius=r,
                n_margin_errors=est.n_margin_errors_, n_passes=n_passes)
            if V is U and flip == 0.0 and gamma <= gamma_data:
                assert b.D1 <= 1e-9 * gamma * X.shape[0] * n_passes
            _assert_all_bounds(est, b)
        seen.append((est.n_mistakes_, est.n_margin_errors_))

    check()
    # (Over 10 runs: >= 0.9 and >= 0.2.)
    assert np.mean([m >= 3 for m, _ in seen]) >= 0.5
    assert np.mean([e > 0 for _, e in seen]) >= 0.05


def test_multiclass_bounds_paper_literal_radius():
    """Sec. 4 read literally: r < (√2 - 1)γ and β at r (not √2 r).

    Not proven here (our proof needs √2 r < (√2 - 1)γ); an empirical check
    that the stronger reading also holds on generated data, where the
    largest ratio mistakes/bound seen was 0.53 (400 draws).
    """

    @settings(max_examples=100, deadline=None, database=None)
    @given(st.integers(0, 2**32 - 1), st.integers(20, 100), st.integers(2, 6),
           st.integers(3, 5), st.floats(0.02, 0.15),
           st.sampled_from([0.0, 0.1, 0.3]), st.floats(0.01, 1.0),
           st.floats(0.5, 0.999), st.integers(1, 3))
    def check(seed, n, d, K, margin_frac, flip, gamma_frac, r_frac, n_passes):
        rng = np.random.default_rng(seed)
        X, y, U = multiclass_sample(rng, n, d, K, 1.0, margin_frac, flip)
        assume(X.shape[0] >= 10)
        R = multiclass_radius(X)
        gamma = gamma_frac * R
        r = r_frac * MAX_RATIO * gamma
        est = _run(X, y, r, n_passes, np.arange(K))
        losses = multiclass_hinge_losses(X, y, U, gamma)
        D1 = n_passes * float(np.sum(losses))
        D2 = math.sqrt(n_passes) * float(np.linalg.norm(losses))
        eps, eps_m = est.n_mistakes_, est.n_margin_errors_
        assert _leq(eps, ballseptron_d2_bound(R, gamma, D2, r, eps_m))
        assert _leq(eps, ballseptron_d1_bound(R, gamma, D1, r, eps_m))

    check()


def test_many_margin_errors_fixed_streams():
    """Cor. 1 and Eq. (17) on fixed streams that do have margin errors."""
    for seed in range(5):
        rng = np.random.default_rng(seed)
        X, y, U = multiclass_sample(rng, 200, 3, 4, 1.0, 0.05, 0.0)
        gamma = 0.05
        r = 0.99 * MAX_RATIO * gamma / math.sqrt(2.0)
        est = _run(X, y, r, 3, np.arange(4))
        b = multiclass_ballseptron_bounds(
            X, y, U, gamma, radius=r, n_margin_errors=est.n_margin_errors_,
            n_passes=3)
        # Margin errors are rare at admissible radii (2-5 here).
        assert est.n_margin_errors_ >= 1
        assert b.D1 <= 1e-9 and b.cor1 < b.thm1
        _assert_all_bounds(est, b)
        Xb, yb, u = separable_sample(rng, 200, 3, 0.05, 1.0, near_margin=0.5)
        gamma = float(np.min(yb * (Xb @ u)))
        r = 0.99 * MAX_RATIO * gamma
        est = _run(Xb, yb, r, 3, [-1.0, 1.0])
        b = ballseptron_bounds(Xb, yb, u, gamma, radius=r,
                               n_margin_errors=est.n_margin_errors_,
                               n_passes=3)
        assert est.n_margin_errors_ >= 5
        _assert_all_bounds(est, b)
