"""Property tests of the confidence-weighted family's theorems.

The papers are not in ``shared/papers``; each statement below is restated
with its derivation, so that the test checks a claim whose proof is on
the page.

**AROW's mistake bound** (Crammer, Kulesza & Dredze, NIPS 2009,
Theorem 2: the mistakes of Figure 1; :func:`perceptrons.bounds.arow_bound`). Full covariance through the origin,
:math:`\\Sigma_0 = I`. Let U be the rounds that updated, M those of them
that were mistakes (:math:`m_t = y_t\\mu\\cdot x_t \\le 0`), :math:`X_A =
\\sum_{t\\in U} x_t x_t^\\top` and, for any comparator u, :math:`g_t =
\\max\\{0, 1 - y_t u\\cdot x_t\\}`. Then

.. math::

    |M| \\le \\sqrt{r\\|u\\|^2 + u^\\top X_A u}\\,
    \\sqrt{\\log\\det(I + X_A/r) + |U\\setminus M|}
    + \\sum_{t\\in U} g_t - |U \\setminus M|.

Derivation: :math:`\\Sigma_T^{-1} = I + X_A/r` and :math:`\\theta_T =
\\Sigma_T^{-1}\\mu_T = \\frac1r\\sum_{t\\in U} y_t x_t` (AROW's mean step
is :math:`\\frac{\\ell_t}{r} y_t\\Sigma_t x_t`). Below,
:math:`u^\\top\\theta_T \\ge \\frac1r\\sum_U (1 - g_t)`; above, by
Cauchy-Schwarz in :math:`\\Sigma_T^{-1}`, :math:`u^\\top\\theta_T \\le
\\sqrt{u^\\top\\Sigma_T^{-1}u}\\sqrt{\\theta_T^\\top\\Sigma_T\\theta_T}`, and
a step raises :math:`\\theta^\\top\\Sigma\\theta` by :math:`(2m - m^2 +
v/r)/(v + r)`: at most :math:`\\frac1r\\log(1 + v/r)` on a mistake, at
most :math:`1/r` otherwise, while :math:`\\log\\det\\Sigma_T^{-1} =
\\sum_U \\log(1 + v_t/r)`.

**The closed forms solve their problems** (the exact convex CW of
Crammer, Dredze & Pereira, NIPS 2008, the closed-form step of its Sec. 3;
SCW-I/II of Wang, Zhao & Hoi, ICML 2012, Propositions 1 and 2): the step from :math:`N(\\mu_t, \\Sigma_t)` minimises
:math:`D_{KL}(N(\\mu, \\Sigma)\\,\\|\\,N(\\mu_t, \\Sigma_t)) + C\\ell` (SCW-I),
:math:`+ C\\ell^2` (SCW-II), with :math:`\\ell = \\max\\{0,
\\phi\\sqrt{x^\\top\\Sigma x} - y\\mu\\cdot x\\}`; CW's meets
:math:`y\\mu\\cdot x = \\phi\\sqrt{x^\\top\\Sigma x}` exactly. The
problems are convex in :math:`(\\mu, \\Sigma^{1/2})`, so a point that no
small step of :math:`(\\mu, L)`, :math:`\\Sigma = LL^\\top`, improves is the
minimum: checked along random directions, both ways. LIBOL's SCW-II
formula fails the same check.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from perceptrons import AROW, CW, SCW
from perceptrons.bounds import arow_sequence_bound
from tests.reference import confidence_weighted as reference
from tests.theory._theory_helpers import noisy_problems

RTOL = 1e-9


def _per_round(est, X, y, n_passes, classes):
    """Each round's (mistake, update) of ``est`` fed one row at a time."""
    flags = []
    for _ in range(n_passes):
        for t in range(X.shape[0]):
            mistakes = getattr(est, "n_mistakes_", 0)
            updates = getattr(est, "n_updates_", 0)
            est.learn_one(X[t], y[t], classes=classes)
            flags.append((est.n_mistakes_ > mistakes,
                          est.n_updates_ > updates))
    return np.array(flags, dtype=bool)


@settings(max_examples=30, deadline=None)
@given(noisy_problems(max_samples=60), st.integers(1, 3),
       st.floats(0.01, 100.0), st.floats(0.05, 20.0))
def test_arow_mistake_bound(problem, n_passes, r, u_scale):
    X, y, u_true, _, _ = problem
    nonzero = np.linalg.norm(X, axis=1) > 0
    X, y = X[nonzero], y[nonzero]
    if X.shape[0] == 0 or len(np.unique(y)) < 2:
        return
    est = AROW(r=r, covariance="full", fit_intercept=False,
               hypothesis="last")
    flags = _per_round(est, X, y, n_passes, [-1.0, 1.0])
    rows = np.tile(np.arange(X.shape[0]), n_passes)
    mistake, update = flags[:, 0], flags[:, 1]
    # Every mistake (a non-zero row) is an update.
    assert not np.any(mistake & ~update)
    XU = X[rows[update]]
    yU = y[rows[update]]
    XA = XU.T @ XU
    n_margin = int(np.sum(update & ~mistake))
    ridge = np.linalg.solve(r * np.eye(X.shape[1]) + XA, XU.T @ yU)
    unit = u_true / max(np.linalg.norm(u_true), 1e-300)
    for u in (u_scale * unit, ridge, np.zeros(X.shape[1])):
        bound = arow_sequence_bound(XU, yU, u, r, n_margin)
        assert est.n_mistakes_ <= bound * (1 + RTOL) + RTOL
    # The bound is not vacuous: at the ridge comparator on these short
    # runs it stays within a small multiple of the rounds updated on.
    if len(yU):
        assert arow_sequence_bound(XU, yU, ridge, r, n_margin) <= 4 * len(yU) + 10


# ------------------------------------------------------------ closed forms
def _kl(mu, S, mu0, S0):
    S0_inv = np.linalg.inv(S0)
    d = mu0 - mu
    return 0.5 * (np.linalg.slogdet(S0)[1] - np.linalg.slogdet(S)[1]
                  + np.trace(S0_inv @ S) + d @ S0_inv @ d - mu.shape[0])


def _objective(variant, C, phi, x, y, mu0, S0):
    def J(mu, S):
        loss = max(0.0, phi * np.sqrt(x @ S @ x) - y * (mu @ x))
        return _kl(mu, S, mu0, S0) + C * (loss if variant == "SCW-I"
                                          else loss * loss)
    return J


def _is_local_minimum(J, mu, S, rng, eps=1e-5, n_directions=40):
    """No step of (mu, L) along a random direction, either way, lowers J
    by more than its rounding (an optimum's first-order change is 0, a
    non-optimal point's ~eps)."""
    L = np.linalg.cholesky(S)
    base = J(mu, S)
    tol = 1e-11 * max(1.0, abs(base))
    tril = np.tril_indices(mu.shape[0])
    for _ in range(n_directions):
        d_mu = rng.standard_normal(mu.shape[0])
        d_L = np.zeros_like(L)
        d_L[tril] = rng.standard_normal(len(tril[0]))
        for sign in (1.0, -1.0):
            L2 = L + sign * eps * d_L
            if J(mu + sign * eps * d_mu, L2 @ L2.T) < base - tol:
                return False
    return True


def _a_state(seed, d):
    """A Gaussian an online run would reach: SCW's after a few rows."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((6, d))
    y = np.where(rng.random(6) < 0.5, -1.0, 1.0)
    y[:2] = [-1.0, 1.0]
    est = SCW(covariance="full", fit_intercept=False, hypothesis="last",
              shuffle=False, max_iter=1).fit(X, y)
    return est, rng


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(2, 4),
       st.sampled_from(["SCW-I", "SCW-II"]), st.floats(0.55, 0.95),
       st.floats(0.05, 5.0))
def test_scw_steps_solve_their_problems(seed, d, variant, eta, C):
    est, rng = _a_state(seed, d)
    est.set_params(variant=variant, eta=eta, C=C)
    mu0 = est.coef_[0].copy()
    S0 = est.covariance_[0][:d, :d].copy()
    x = rng.standard_normal(d)
    y = float(rng.choice([-1.0, 1.0]))
    before = est.n_updates_
    est.learn_one(x, y)
    if est.n_updates_ == before:
        return  # passive: the constraint held
    J = _objective(variant, C, norm.ppf(eta), x, y, mu0, S0)
    assert _is_local_minimum(J, est.coef_[0], est.covariance_[0][:d, :d],
                             rng)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(2, 4),
       st.floats(0.55, 0.95))
def test_cw_steps_meet_their_constraint(seed, d, eta):
    _, rng = _a_state(seed, d)
    X = rng.standard_normal((8, d))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(8) > 0, 1.0, -1.0)
    y[:2] = [-1.0, 1.0]
    est = CW(eta=eta, covariance="full", fit_intercept=False,
             hypothesis="last")
    phi = norm.ppf(eta)
    for t in range(X.shape[0]):
        before = getattr(est, "n_updates_", 0)
        est.learn_one(X[t], y[t], classes=[-1.0, 1.0])
        if est.n_updates_ > before:
            S = est.covariance_[0][:d, :d]
            margin = y[t] * est.coef_[0] @ X[t]
            width = phi * np.sqrt(X[t] @ S @ X[t])
            np.testing.assert_allclose(margin, width, rtol=1e-9,
                                       atol=1e-12)


def test_libol_scw2_step_is_not_the_minimum():
    """LIBOL's SCW-II (``v*2``, ``phi*2`` for v², φ²) from the same
    Gaussians: its steps are not the minimum of SCW-II's problem, the
    paper's are."""
    failures = 0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        d = 3
        A = rng.standard_normal((d, d))
        S0 = A @ A.T / d + 0.3 * np.eye(d)
        mu0 = 0.5 * rng.standard_normal(d)
        x, y = rng.standard_normal(d), float(rng.choice([-1.0, 1.0]))
        m, v = y * mu0 @ x, x @ S0 @ x
        J = _objective("SCW-II", 0.5, norm.ppf(0.8), x, y, mu0, S0)
        for rule, expect in (("SCW-II", True), ("SCW-II-LIBOL", False)):
            update, alpha, beta, _ = reference.step(
                rule, m, v, 1.0, {"eta": 0.8, "C": 0.5})
            if not update:
                break
            Sx = S0 @ x
            ok = _is_local_minimum(J, mu0 + alpha * y * Sx,
                                   S0 - beta * np.outer(Sx, Sx), rng)
            if expect:
                assert ok
            else:
                failures += not ok
    assert failures >= 8
