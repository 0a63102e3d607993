"""Theorems of Panagiotakopoulos & Tsampouka (2011) checked on generated data.

The maximum directional margin γ_d of Eq. (1) is computed independently of
the package: γ_d is the distance from the origin to the convex hull of the
patterns y_k (minimax duality), found by SLSQP over the simplex. Any
feasible λ gives an upper bound ``‖Σ λ_k y_k‖ >= γ_d`` and the direction
``a = Σ λ_k y_k`` a lower bound ``min_k a·y_k / ‖a‖ <= γ_d``; tests use the
bound on the safe side and require the duality gap to be small.

* on stopping, γ'_d >= (1-ε) γ_d (Sec. 3, opening), for PDM, PDM-succ and
  PFM (γ'_d >= β), on separable data and in the extended space (Sec. 5);
* ``‖a_t‖/t >= γ_d``, Eq. (4);
* the number of updates obeys Theorem 3.2 (PDM, PDM-succ, and PFM by
  Remark 1) and Theorem 3.1 (PFM).
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from scipy.optimize import minimize

from perceptrons import PDM, PFM
from perceptrons.bounds import (
    directional_radius,
    pdm_update_bound,
    pfm_update_bound,
    pfm_update_bound_beta,
)

from tests._pairwise import all_pairs, corners_of, parametrize
from tests.reference.pdm import extended_patterns
from tests.theory._theory_helpers import (noisy_sample, separable_problems,
                                          separable_sample)

TOL = 1e-7  # relative slack for the solver's duality gap


def max_directional_margin(Y):
    """(lower, upper) bounds on γ_d = max_{‖u‖=1} min_k u·y_k (rows of Y)."""
    n = Y.shape[0]
    scale = np.sqrt(np.max(np.einsum("ij,ij->i", Y, Y)))
    Ys = Y / scale
    G = Ys @ Ys.T
    ones = np.ones(n)
    res = minimize(lambda v: v @ G @ v, np.full(n, 1.0 / n),
                   jac=lambda v: 2.0 * G @ v, method="SLSQP",
                   bounds=[(0.0, None)] * n,
                   constraints=[{"type": "eq", "fun": lambda v: v.sum() - 1.0,
                                 "jac": lambda v: ones}],
                   options={"ftol": 1e-16, "maxiter": 5000})
    lam = np.clip(res.x, 0.0, None)
    lam /= lam.sum()
    lower, upper = _bounds_from(Y, lam)
    # Polish: solve the KKT system on the support (the minimum-norm point of
    # its affine hull); keep it when it is feasible and tighter.
    support = np.flatnonzero(lam > 1e-9 * lam.max())
    k = support.shape[0]
    kkt = np.zeros((k + 1, k + 1))
    kkt[:k, :k] = 2.0 * G[np.ix_(support, support)]
    kkt[:k, k] = kkt[k, :k] = 1.0
    rhs = np.zeros(k + 1)
    rhs[k] = 1.0
    sol = np.linalg.lstsq(kkt, rhs, rcond=None)[0][:k]
    if np.all(sol >= 0.0):
        polished = np.zeros(n)
        polished[support] = sol / sol.sum()
        lo2, hi2 = _bounds_from(Y, polished)
        lower, upper = max(lower, lo2), min(upper, hi2)
    assert 0.0 < lower <= upper * (1 + 1e-12)
    assert (upper - lower) <= 1e-6 * upper, "solver did not converge"
    return lower, upper


def _bounds_from(Y, lam):
    """Bounds on γ_d from a point λ of the simplex (see module docstring)."""
    a = Y.T @ lam
    upper = float(np.linalg.norm(a))
    lower = float(np.min(Y @ a) / upper)
    return lower, upper


def _problem(seed, noisy):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 41))
    d = int(rng.integers(2, 6))
    R = float(rng.uniform(0.5, 5.0))
    if noisy:
        X, y, _ = noisy_sample(rng, n, d, 0.1 * R, R, flip=0.15, inside=0.1)
    else:
        X, y, _ = separable_sample(rng, n, d, 0.15 * R, R, near_margin=0.5)
    return X, y


def _check_run(est, X, y, eps, delta):
    """Common assertions; returns (γ_lo, γ_hi, R)."""
    Y = extended_patterns(X, y, est.augmentation, delta)
    lo, hi = max_directional_margin(Y)
    R = directional_radius(X, est.augmentation, delta)
    assert est.converged_[0]
    margin = est.directional_margin_[0]
    assert margin <= hi * (1 + TOL)
    # Eq. (4): γ_d <= ‖a_t‖/t
    assert est.margin_bound_[0] >= lo * (1 - TOL)
    if eps is not None:
        assert margin >= (1 - eps) * hi * (1 - TOL)
    return lo, hi, R


PDM_VARIANTS = {
    "plain": dict(active_sets=False, multiple_updates=False, max_iter=100000),
    "active": dict(multiple_updates=False),
    "multiple": dict(active_sets=False, max_iter=100000),
    "default": dict(),
    "succ": dict(successive=8.0),
}


# Full passes alone (no active sets) need too many epochs at small ε.
PDM_CASES = [(v, e) for v in sorted(PDM_VARIANTS) for e in (0.7, 0.5, 0.2, 0.05)
             if not (v in ("plain", "multiple") and e < 0.1)]


# Every (variant, ε) on separable and on extended data, each stream seed
# with every case's data kind: all pairs (36 rows), not the 72-row product.
PDM_GRID = [dict(variant=row["case"][0], eps=row["case"][1],
                 noisy=row["noisy"], seed=row["seed"])
            for row in all_pairs({"case": PDM_CASES, "noisy": [False, True],
                                  "seed": [0, 1]})]


@parametrize(PDM_GRID)
def test_pdm_accuracy_and_theorem_3_2(variant, eps, noisy, seed):
    X, y = _problem(seed, noisy)
    delta = 0.5 * np.sqrt(np.max(np.sum(X * X, axis=1))) if noisy else None
    est = PDM(epsilon=eps, extension=delta, random_state=seed,
              **PDM_VARIANTS[variant]).fit(X, y)
    lo, hi, R = _check_run(est, X, y, eps, delta)
    # Theorem 3.2, with γ_d replaced by its lower bound (the bound decreases
    # in γ_d); PDM-succ is one run at the final ε (end of Sec. 3).
    assert est.n_updates_ <= pdm_update_bound(R, lo, eps)
    # Eq. (5): (γ_d - γ'_d)/γ_d <= 1 - γ'_d t/‖a_t‖, the after-run estimate
    # (the left side grows with γ_d, so its upper bound is the safe side)
    assert (hi - est.directional_margin_[0]) / hi <= est.accuracy_estimate_[0] + TOL
    assert est.accuracy_estimate_[0] < eps


PFM_FACTORS = {"eps": [0.5, 0.2, 0.05], "noisy": [False, True],
               "active": [False, True], "multiple": [False, True]}


@parametrize(all_pairs(PFM_FACTORS, corners_of(PFM_FACTORS, by="eps")))
def test_pfm_margin_and_theorems_3_1_3_2(eps, noisy, active, multiple):
    X, y = _problem(7, noisy)
    delta = 0.5 * np.sqrt(np.max(np.sum(X * X, axis=1))) if noisy else None
    Y = extended_patterns(X, y, 1.0, delta)
    lo, _ = max_directional_margin(Y)
    beta = (1 - eps) * lo
    est = PFM(beta=beta, extension=delta, active_sets=active,
              multiple_updates=multiple, max_iter=100000,
              random_state=0).fit(X, y)
    lo, hi, R = _check_run(est, X, y, None, delta)
    assert est.directional_margin_[0] > beta * (1 - TOL)
    assert est.n_updates_ <= pfm_update_bound_beta(R, lo, beta)
    # Remark 1: Theorem 3.2 holds for PFM with ε = 1 - β/γ_d
    assert est.n_updates_ <= pdm_update_bound(R, lo, 1 - beta / lo)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(problem=separable_problems(min_samples=10, max_samples=40,
                                  max_features=5))
def test_pdm_default_stops_with_accuracy_hypothesis(problem):
    X, y, _, _ = problem
    # 10 points may all fall on one side of u (2 in 1,000 draws): one
    # class, which a classifier refuses.
    assume(np.unique(y).shape[0] == 2)
    eps = 0.1
    est = PDM(epsilon=eps, extension=None, random_state=0).fit(X, y)
    lo, hi, R = _check_run(est, X, y, eps, None)
    assert est.n_updates_ <= pdm_update_bound(R, lo, eps)


# ----------------------------------------------------------------- bound functions
def test_bound_special_cases():
    # ε = 1 is the perceptron: Theorem 3.2 gives Novikoff's (R/γ)²
    assert pdm_update_bound(10.0, 1.0, 1.0) == pytest.approx(100.0)
    # β = 0 in Theorem 3.1 is ε = 1
    assert pfm_update_bound_beta(10.0, 1.0, 0.0) == pfm_update_bound(10.0, 1.0, 1.0)
    # tiny ε overflows to inf rather than raising
    assert pdm_update_bound(100.0, 1.0, 0.001) == np.inf


@pytest.mark.parametrize("eps", [0.05, 0.3, 0.5, 0.6, 0.9])
def test_bounds_decrease_with_margin(eps):
    gammas = [0.2, 0.5, 1.0, 2.0]
    pdm = [pdm_update_bound(5.0, g, eps) for g in gammas]
    pfm = [pfm_update_bound(5.0, g, eps) for g in gammas]
    assert all(np.diff(pdm) < 0) and all(np.diff(pfm) < 0)
    assert all(b > 0 for b in pdm + pfm)


def test_bound_inputs_are_checked():
    with pytest.raises(ValueError):
        pdm_update_bound(1.0, 2.0, 0.1)
    with pytest.raises(ValueError):
        pdm_update_bound(1.0, 0.5, 0.0)
    with pytest.raises(ValueError):
        pfm_update_bound_beta(1.0, 0.5, 0.5)
    assert directional_radius(np.array([[3.0, 4.0]]), 0.0, None) == 5.0
    assert directional_radius(np.array([[3.0, 4.0]]), 1.0, 2.0) == np.sqrt(30)
