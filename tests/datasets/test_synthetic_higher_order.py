"""make_sparse_target: the artificial data of Brotto, Gentile & Vitale."""

import numpy as np
import pytest

from perceptrons.datasets.synthetic import make_sparse_target


@pytest.fixture(scope="module")
def clean():
    return make_sparse_target(2000, random_state=3)


def test_shapes_and_dtypes(clean):
    X, y, u = clean
    assert X.shape == (2000, 500) and X.dtype == np.float64
    assert y.shape == (2000,) and y.dtype == np.int64
    assert u.shape == (500,)
    assert set(np.unique(y).tolist()) == {-1, 1}


def test_unit_norms_and_target(clean):
    X, _, u = clean
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, rtol=1e-12)
    assert np.linalg.norm(u) == pytest.approx(1.0)
    # 50 relevant components, the first ones, all of magnitude 1/sqrt(50)
    assert np.count_nonzero(u) == 50 and np.all(u[50:] == 0)
    np.testing.assert_allclose(np.abs(u[:50]), 1 / np.sqrt(50))
    # instances come from the cube: before normalising, |x_i| <= 1, so the
    # largest |component| is the reciprocal of at most the Euclidean norm
    assert np.all(np.abs(X).max(axis=1) <= 1.0)


def test_noiseless_margin(clean):
    X, y, u = clean
    assert np.all(y * (X @ u) >= 0.005)
    # the band was really cut: without rejection ~9% of rows would fall in it
    assert np.min(np.abs(X @ u)) >= 0.005


def test_noise_rate_and_same_clean_data():
    X0, y0, u0 = make_sparse_target(5000, noise=0.0, random_state=11)
    X1, y1, u1 = make_sparse_target(5000, noise=0.1, random_state=11)
    np.testing.assert_array_equal(X0, X1)
    np.testing.assert_array_equal(u0, u1)
    flipped = np.mean(y1 != y0)
    assert abs(flipped - 0.1) < 0.015  # binomial sd 0.0042
    assert np.all(y0 == np.where(X0 @ u0 > 0, 1, -1))


def test_seeded_and_parameters():
    a = make_sparse_target(50, n_features=30, n_relevant=5, margin=0.01,
                           random_state=0)
    b = make_sparse_target(50, n_features=30, n_relevant=5, margin=0.01,
                           random_state=0)
    for x, z in zip(a, b):
        np.testing.assert_array_equal(x, z)
    X, y, u = a
    assert X.shape == (50, 30) and np.count_nonzero(u) == 5
    assert np.all(y * (X @ u) >= 0.01)


@pytest.mark.parametrize("kw", [
    {"n_samples": 0}, {"n_relevant": 0}, {"n_features": 5, "n_relevant": 6},
    {"margin": 1.0}, {"margin": -0.1}, {"noise": 1.5}])
def test_rejects_bad_arguments(kw):
    with pytest.raises(ValueError):
        make_sparse_target(**{"n_samples": 10, **kw})


def test_margin_too_large():
    with pytest.raises(ValueError, match="too large"):
        make_sparse_target(5, n_features=20, n_relevant=5, margin=0.99,
                           random_state=0)
