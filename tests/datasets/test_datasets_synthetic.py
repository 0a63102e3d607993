"""Synthetic generators: value ranges, margin constraints, noise rates,
determinism, and argument validation."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from perceptrons.datasets import make_khardon_wachman, make_separable, make_unit_circle

# ------------------------------------------------ Khardon & Wachman, Sec. 3.1


@pytest.mark.parametrize("n_features, margin", [(50, 0.05), (200, 0.25), (500, 0.75)])
def test_kw_structure_and_margin(n_features, margin):
    X, y, w, theta = make_khardon_wachman(
        600, n_features, margin=margin, random_state=1, return_weights=True
    )
    assert X.shape == (600, n_features) and X.dtype == np.float64
    assert y.shape == (600,) and y.dtype == np.int64
    assert np.array_equal(X, np.round(X)) and X.min() >= -10 and X.max() <= 10
    assert set(np.unique(X)) <= set(range(-10, 11))
    assert set(np.unique(w)) <= {0.0, 1.0} and w.sum() >= 1
    s = X @ w
    assert np.all(np.abs(s - theta) >= margin * theta)  # band removed
    np.testing.assert_array_equal(y, np.where(s > theta, 1, -1))  # noise=0
    assert set(np.unique(y)) == {-1, 1}


def test_kw_attributes_cover_range_uniformly():
    X, _ = make_khardon_wachman(2000, 50, margin=0.05, random_state=0)
    counts = np.bincount((X + 10).astype(int).ravel(), minlength=21)
    assert len(counts) == 21
    # chi-square against the uniform law on 21 values (fixed seed, not flaky)
    assert stats.chisquare(counts).pvalue > 1e-3


def test_kw_theta_is_half_mean_abs_score():
    _, _, w, theta = make_khardon_wachman(
        600, 200, margin=0.1, random_state=3, return_weights=True
    )
    # E|<w, x>| for uniform integer attributes, estimated on a fresh sample
    rng = np.random.RandomState(123)
    fresh = rng.randint(-10, 11, size=(20000, 200)) @ w
    assert theta == pytest.approx(0.5 * np.mean(np.abs(fresh)), rel=0.12)
    # coins are fair: about half the features are in w
    assert 60 <= w.sum() <= 140


def test_kw_noise_rate_and_x_independent_of_noise():
    X0, y0, w0, t0 = make_khardon_wachman(
        20000, 50, margin=0.1, noise=0.0, random_state=7, return_weights=True
    )
    X1, y1, w1, t1 = make_khardon_wachman(
        20000, 50, margin=0.1, noise=0.15, random_state=7, return_weights=True
    )
    np.testing.assert_array_equal(X0, X1)
    np.testing.assert_array_equal(w0, w1)
    assert t0 == t1
    rate = np.mean(y0 != y1)
    assert abs(rate - 0.15) < 4 * math.sqrt(0.15 * 0.85 / 20000)


def test_kw_determinism():
    a = make_khardon_wachman(300, 20, margin=0.5, noise=0.1, random_state=42)
    b = make_khardon_wachman(300, 20, margin=0.5, noise=0.1, random_state=42)
    c = make_khardon_wachman(300, 20, margin=0.5, noise=0.1, random_state=43)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])
    rs = np.random.RandomState(5)
    d = make_khardon_wachman(50, 5, random_state=rs)
    e = make_khardon_wachman(50, 5, random_state=np.random.RandomState(5))
    np.testing.assert_array_equal(d[0], e[0])
    assert len(make_khardon_wachman(10, 3, random_state=0)) == 2


def test_kw_tiny_and_margin_zero():
    X, y, w, theta = make_khardon_wachman(
        40, 1, margin=0.0, random_state=0, return_weights=True
    )
    assert w.tolist() == [1.0]
    assert np.all(X @ w != theta)


def test_kw_impossible_margin_raises():
    with pytest.raises(ValueError, match="too large"):
        make_khardon_wachman(10, 3, margin=50.0, random_state=0)


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(n_samples=0), "n_samples"),
        (dict(n_samples=2.5), "n_samples"),
        (dict(n_samples=True), "n_samples"),
        (dict(n_features=0), "n_features"),
        (dict(margin=-0.1), "margin"),
        (dict(margin=float("nan")), "margin"),
        (dict(noise=1.5), "noise"),
        (dict(noise=-0.01), "noise"),
        (dict(noise="0.1"), "noise"),
    ],
)
def test_kw_validation(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        make_khardon_wachman(**kwargs)


# ------------------------------------------------------------- make_separable


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n_features=st.integers(1, 60),
    rel_margin=st.floats(0.0, 0.95),
    radius=st.floats(0.01, 100.0),
)
def test_separable_invariants(seed, n_features, rel_margin, radius):
    margin = rel_margin * radius
    X, y, u = make_separable(64, n_features, margin, radius=radius, random_state=seed)
    assert X.shape == (64, n_features) and y.dtype == np.int64
    assert np.linalg.norm(u) == pytest.approx(1.0)
    tol = 1e-9 * radius
    assert np.all(np.linalg.norm(X, axis=1) <= radius + tol)
    assert np.all(y * (X @ u) >= margin - tol)  # separable, margin >= gamma
    assert set(np.unique(y)) <= {-1, 1}


def test_separable_matches_rejection_sampling():
    # exact conditional sampling has the law of rejection sampling
    d, margin, n = 3, 0.3, 4000
    X, y, u = make_separable(n, d, margin, random_state=0)
    rng = np.random.RandomState(1)
    g = rng.standard_normal((40000, d))
    pts = g / np.linalg.norm(g, axis=1)[:, None] * rng.rand(40000, 1) ** (1 / d)
    proj = pts @ u
    ref = pts[np.abs(proj) >= margin][:n]
    assert stats.ks_2samp(np.abs(X @ u), np.abs(ref @ u)).pvalue > 1e-3
    assert stats.ks_2samp(
        np.linalg.norm(X, axis=1), np.linalg.norm(ref, axis=1)
    ).pvalue > 1e-3
    assert abs(np.mean(y == 1) - 0.5) < 0.05


def test_separable_uniform_in_ball_without_margin():
    d = 10
    X, _, _ = make_separable(20000, d, 0.0, radius=2.0, random_state=0)
    # E||x||^2 = R^2 d / (d + 2) for the uniform law on the ball
    assert np.mean(np.sum(X**2, axis=1)) == pytest.approx(4.0 * d / (d + 2), rel=0.02)


def test_separable_high_dim_large_margin_is_fast():
    # rejection would accept ~1e-6 of the points here
    X, y, u = make_separable(500, 200, 0.4, random_state=0)
    assert np.all(y * (X @ u) >= 0.4 - 1e-12)


def test_separable_noise_and_determinism():
    X0, y0, u0 = make_separable(20000, 5, 0.1, noise=0.0, random_state=11)
    X1, y1, u1 = make_separable(20000, 5, 0.1, noise=0.2, random_state=11)
    np.testing.assert_array_equal(X0, X1)
    np.testing.assert_array_equal(u0, u1)
    np.testing.assert_array_equal(y0, np.sign(X0 @ u0).astype(np.int64))
    rate = np.mean(y0 != y1)
    assert abs(rate - 0.2) < 4 * math.sqrt(0.2 * 0.8 / 20000)
    X2, y2, u2 = make_separable(20000, 5, 0.1, noise=0.2, random_state=11)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)


@pytest.mark.parametrize(
    "args, kwargs, fragment",
    [
        ((10, 2, 1.0), {}, "margin"),  # margin == radius
        ((10, 2, 0.1), dict(radius=0.0), "radius"),
        ((10, 2, -0.1), {}, "margin"),
        ((0, 2, 0.1), {}, "n_samples"),
        ((10, 0, 0.1), {}, "n_features"),
        ((10, 2, 0.1), dict(noise=2.0), "noise"),
    ],
)
def test_separable_validation(args, kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        make_separable(*args, **kwargs)


def test_separable_zero_probability_region():
    with pytest.raises(ValueError, match="probability 0"):
        make_separable(10, 5000, 0.999999, random_state=0)


# ----------------------------------------------------------- make_unit_circle


def test_unit_circle_clean():
    X, y, u = make_unit_circle(random_state=0)
    assert X.shape == (10000, 2) and y.shape == (10000,)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0)
    assert np.linalg.norm(u) == pytest.approx(1.0)
    proj = X @ u
    assert np.all(np.abs(proj) >= 0.15 - 1e-12)
    np.testing.assert_array_equal(y, np.where(proj > 0, 1, -1))
    assert abs(np.mean(y == 1) - 0.5) < 0.03
    # uniform on the accepted arcs: |u.x| = |cos a| with a uniform in [0, arccos m]
    a = np.arccos(np.clip(np.abs(proj), -1, 1))
    assert stats.kstest(a, stats.uniform(0, np.arccos(0.15)).cdf).pvalue > 1e-3


def test_unit_circle_fixed_u_and_noise():
    X0, y0, u = make_unit_circle(5000, u=[0.0, 3.0], random_state=1)
    np.testing.assert_allclose(u, [0.0, 1.0])
    assert np.all(np.abs(X0[:, 1]) >= 0.15 - 1e-12)
    X1, y1, _ = make_unit_circle(5000, u=[0, 3], label_noise=0.1, random_state=1)
    np.testing.assert_array_equal(X0, X1)
    assert abs(np.mean(y0 != y1) - 0.1) < 4 * math.sqrt(0.09 / 5000)
    X2, y2, _ = make_unit_circle(5000, u=[0, 3], instance_noise=0.2, random_state=1)
    np.testing.assert_array_equal(y0, y2)  # labels kept intact
    delta = X2 - X0
    assert np.std(delta) == pytest.approx(0.2, rel=0.05)
    assert abs(np.mean(delta)) < 0.02


def test_unit_circle_determinism():
    a = make_unit_circle(100, label_noise=0.2, instance_noise=0.1, random_state=9)
    b = make_unit_circle(100, label_noise=0.2, instance_noise=0.1, random_state=9)
    for p, q in zip(a, b):
        np.testing.assert_array_equal(p, q)


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(margin=1.0), "margin"),
        (dict(margin=-0.1), "margin"),
        (dict(label_noise=1.1), "label_noise"),
        (dict(instance_noise=-1.0), "instance_noise"),
        (dict(u=[0.0, 0.0]), "u must be"),
        (dict(u=[1.0, 0.0, 0.0]), "u must be"),
        (dict(n_samples=0), "n_samples"),
    ],
)
def test_unit_circle_validation(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        make_unit_circle(**kwargs)
