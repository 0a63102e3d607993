"""``Ballseptron(kernel=...)``, the dual form, against the primal and references.

* ``kernel="linear"`` equals the primal Ballseptron: the same mistakes and
  margin errors pass by pass, the same predictions, decision values within
  1e-8; binary and 3-class, dense and CSR, several radii (0 included).
* "poly" and "rbf" equal a brute-force dual transcription of Figure 2 and
  Sec. 4 (``tests/reference/ballseptron.py``: explicit Gram matrix, ‖w‖ and
  ‖w^ỹ - w^y‖ recomputed from scratch).
* ``radius=0`` is ``KernelPerceptron(eta=1, theta_init=0, threshold_step=0,
  hypothesis="last")``
  (prototype rule for 3+ classes).
* ``partial_fit`` one pass per call equals ``fit``; the cache size never
  changes a result; the lazy scale's edge cases.
* The averaged hypothesis (the default) equals the average of the brute-force
  reference's coefficients after each trial (``figure2_dual_averaged``,
  ``section4_dual_averaged``), and with the linear kernel the primal's
  average. Tests of the paper's algorithm pass ``hypothesis="last"``.
"""

import pickle
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from perceptrons import Ballseptron, KernelPerceptron

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reference"))
from ballseptron import (  # noqa: E402
    figure2,
    figure2_averaged,
    figure2_dual,
    figure2_dual_averaged,
    gram_matrix,
    section4_dual,
    section4_dual_averaged,
)

TOL = 1e-8


def _seed(*parts):
    return zlib.crc32(repr(parts).encode())


def make_stream(n_classes, seed, n=None):
    """Noisy linearly labelled rows with exact zeros and one zero row."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 80)) if n is None else n
    d = int(rng.integers(2, 10))
    X = rng.standard_normal((n, d))
    X[rng.random((n, d)) < 0.25] = 0.0
    X[rng.integers(0, n)] = 0.0
    V = rng.standard_normal((d, n_classes))
    idx = np.argmax(X @ V, axis=1)
    flip = rng.random(n) < 0.15
    idx[flip] = rng.integers(0, n_classes, flip.sum())
    idx[:n_classes] = np.arange(n_classes)
    labels = np.array([-1, 1]) if n_classes == 2 else np.array([0, 3, 8])
    scale = float(np.median(np.linalg.norm(X, axis=1)))
    return X, labels[idx], idx, scale


def assert_close_scores(a, b):
    scale = max(1.0, float(np.max(np.abs(b))))
    assert_allclose(a, b, rtol=TOL, atol=TOL * scale)


# ---------------------------------------------------------- linear = primal
@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("rel_radius", [0.0, 0.05, 0.3, 1.0])
@pytest.mark.parametrize("sparse", [False, True])
def test_linear_kernel_equals_primal(n_classes, rel_radius, sparse,
                                     hypothesis):
    X, y, _, scale = make_stream(n_classes, _seed("lin", n_classes,
                                                  rel_radius))
    Xs = sp.csr_matrix(X) if sparse else X
    params = dict(radius=rel_radius * scale, max_iter=4, random_state=3,
                  hypothesis=hypothesis)
    primal = Ballseptron(**params).fit(Xs, y)
    dual = Ballseptron(kernel="linear", **params).fit(Xs, y)
    if rel_radius > 0:
        assert primal.n_margin_errors_ > 0
    assert_array_equal(dual.mistakes_per_epoch_, primal.mistakes_per_epoch_)
    assert_array_equal(dual.margin_errors_per_epoch_,
                       primal.margin_errors_per_epoch_)
    assert_array_equal(dual.updates_per_epoch_, primal.updates_per_epoch_)
    assert_array_equal(dual.predict(Xs), primal.predict(Xs))
    assert_close_scores(dual.decision_function(Xs),
                        primal.decision_function(Xs))
    assert_close_scores(dual.coef_, primal.coef_)
    assert_array_equal(dual.intercept_, primal.intercept_)
    assert sp.issparse(dual.support_vectors_) == sparse


# ---------------------------------------------------- poly/rbf = reference
KERNEL_PARAMS = [
    ("poly", dict(degree=3, gamma=0.5, coef0=1.0)),
    ("poly", dict(degree=5, gamma=1.0, coef0=0.5)),
    ("rbf", dict(gamma=0.3)),
]


def _fits_matching_reference(X, y, A, mistakes, margin, **params):
    """Fit on dense and CSR X, in order; check the counts of every pass and
    the decision values ``K(X, X) A``. Returns (Xs, est, expected) for
    each."""
    kernel_params = {k: params[k] for k in ("degree", "gamma", "coef0")
                     if k in params}
    expected = gram_matrix(X, X, params["kernel"], **kernel_params) @ A.T
    if A.shape[0] == 1:
        expected = expected[:, 0]
    out = []
    for Xs in (X, sp.csr_matrix(X)):
        est = Ballseptron(shuffle=False, **params).fit(Xs, y)
        assert_array_equal(est.mistakes_per_epoch_, mistakes)
        assert_array_equal(est.margin_errors_per_epoch_, margin)
        assert_close_scores(est.decision_function(Xs), expected)
        out.append((Xs, est, expected))
    return out


@pytest.mark.parametrize("kernel, params", KERNEL_PARAMS)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("rel_radius", [0.0, 0.2, 1.0])
def test_kernels_match_brute_force_dual_reference(kernel, params, n_classes,
                                                  rel_radius):
    X, y, idx, _ = make_stream(n_classes, _seed("ker", kernel, n_classes,
                                                rel_radius))
    X = X / np.sqrt(X.shape[1])  # rows of norm about 1
    # Radii relative to the feature-space norms of the rows.
    diag = np.diag(gram_matrix(X[:5], X[:5], kernel, **params))
    radius = rel_radius * float(np.sqrt(np.median(diag)))
    n_epochs = 3
    if n_classes == 2:
        a, mistakes, margin = figure2_dual(
            X, np.where(idx == 1, 1.0, -1.0), radius, kernel, n_epochs,
            **params)
        A = a[None, :]
    else:
        A, mistakes, margin = section4_dual(X, idx, n_classes, radius,
                                            kernel, n_epochs, **params)
    if rel_radius > 0:
        assert sum(margin) > 0
    fits = _fits_matching_reference(X, y, A, mistakes, margin, kernel=kernel,
                                    radius=radius, max_iter=n_epochs,
                                    hypothesis="last", **params)
    for Xs, est, expected in fits:
        if n_classes == 2:
            pred = np.where(expected > 0, 1, -1)
        else:
            pred = np.array([0, 3, 8])[np.argmax(expected, axis=1)]
        assert_array_equal(est.predict(Xs), pred)
        # dual_coef_ is A on the rows with a non-zero coefficient.
        keep = np.flatnonzero(np.any(A != 0.0, axis=0))
        assert_array_equal(est.support_, keep)
        assert_close_scores(est.dual_coef_, A[:, keep])


@pytest.mark.parametrize("kernel, params", KERNEL_PARAMS)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("rel_radius", [0.0, 0.2, 1.0])
def test_averaged_kernels_match_brute_force_dual_reference(
        kernel, params, n_classes, rel_radius):
    X, y, idx, _ = make_stream(n_classes, _seed("kavg", kernel, n_classes,
                                                rel_radius))
    X = X / np.sqrt(X.shape[1])
    diag = np.diag(gram_matrix(X[:5], X[:5], kernel, **params))
    radius = rel_radius * float(np.sqrt(np.median(diag)))
    n_epochs = 3
    if n_classes == 2:
        a_avg, a, mistakes, margin = figure2_dual_averaged(
            X, np.where(idx == 1, 1.0, -1.0), radius, kernel, n_epochs,
            **params)
        A_avg, A = a_avg[None, :], a[None, :]
    else:
        A_avg, A, mistakes, margin = section4_dual_averaged(
            X, idx, n_classes, radius, kernel, n_epochs, **params)
    if rel_radius > 0:
        assert sum(margin) > 0
    fits = _fits_matching_reference(X, y, A_avg, mistakes, margin,
                                    kernel=kernel, radius=radius,
                                    max_iter=n_epochs, hypothesis="averaged",
                                    **params)
    for _, est, _ in fits:
        # The support: every row in the average (or still in w).
        keep = np.flatnonzero(np.any((A_avg != 0.0) | (A != 0.0), axis=0))
        assert_array_equal(est.support_, keep)
        assert_close_scores(est.dual_coef_, A_avg[:, keep])


# ------------------------------------------------ radius 0 = KernelPerceptron
@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("sparse", [False, True])
def test_radius_zero_is_the_kernel_perceptron(kernel, n_classes, sparse):
    X, y, _, _ = make_stream(n_classes, _seed("kp", kernel, n_classes))
    Xs = sp.csr_matrix(X) if sparse else X
    common = dict(kernel=kernel, degree=3, gamma=0.4, coef0=1.0,
                  max_iter=4, random_state=5)
    ball = Ballseptron(radius=0.0, hypothesis="last", **common).fit(Xs, y)
    kp = KernelPerceptron(
        eta=1.0, theta_init=0.0, threshold_step=0.0, hypothesis="last",
        multiclass="prototype" if n_classes > 2 else "ovr",
        **common).fit(Xs, y)
    assert_array_equal(ball.mistakes_per_epoch_, kp.mistakes_per_epoch_)
    assert_array_equal(ball.updates_per_epoch_, kp.updates_per_epoch_)
    assert ball.n_margin_errors_ == 0
    assert_array_equal(ball.predict(Xs), kp.predict(Xs))
    assert_array_equal(ball.support_, kp.support_)
    assert_array_equal(ball.dual_coef_, kp.dual_coef_)


# ------------------------------------------------------------- bookkeeping
@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("sparse", [False, True])
def test_partial_fit_passes_equal_fit(n_classes, sparse, hypothesis):
    X, y, _, _ = make_stream(n_classes, _seed("pf", n_classes))
    Xs = sp.csr_matrix(X) if sparse else X
    params = dict(kernel="rbf", gamma=0.3, radius=0.3, hypothesis=hypothesis)
    fitted = Ballseptron(max_iter=3, shuffle=False, **params).fit(Xs, y)
    online = Ballseptron(**params)
    for _ in range(3):
        online.partial_fit(Xs, y, classes=np.unique(y))
    assert fitted.n_margin_errors_ > 0
    assert_array_equal(online.mistakes_per_epoch_, fitted.mistakes_per_epoch_)
    assert_array_equal(online.margin_errors_per_epoch_,
                       fitted.margin_errors_per_epoch_)
    assert_array_equal(online.predict(Xs), fitted.predict(Xs))
    assert_close_scores(online.decision_function(Xs),
                        fitted.decision_function(Xs))
    # Batches of different rows: support_ indexes their concatenation.
    half = X.shape[0] // 2
    batched = Ballseptron(**params)
    batched.partial_fit(Xs[:half], y[:half], classes=np.unique(y))
    batched.partial_fit(Xs[half:], y[half:])
    assert_array_equal(X[batched.support_],
                       np.asarray(sp.csr_matrix(batched.support_vectors_)
                                  .toarray()))
    assert batched.t_ == X.shape[0]


@pytest.mark.parametrize("n_classes", [2, 3])
def test_single_row_partial_fit_stream(n_classes):
    """A stream of one-row partial_fit calls (which carry the norms over
    instead of recomputing them from all support pairs) makes the updates
    of one fit pass over the same rows, and its norms stay exact."""
    X, y, _, scale = make_stream(n_classes, _seed("stream", n_classes), n=90)
    params = dict(kernel="poly", degree=2, gamma=0.5, coef0=1.0,
                  radius=0.3 * scale, hypothesis="last")
    fitted = Ballseptron(max_iter=1, shuffle=False, **params).fit(X, y)
    online = Ballseptron(**params)
    for i in range(X.shape[0]):
        online.partial_fit(X[i:i + 1], y[i:i + 1], classes=np.unique(y))
    assert fitted.n_margin_errors_ > 0
    assert online.n_mistakes_ == fitted.n_mistakes_
    assert online.n_margin_errors_ == fitted.n_margin_errors_
    assert_array_equal(online.support_, fitted.support_)
    assert_close_scores(online.decision_function(X),
                        fitted.decision_function(X))
    # The carried norms equal the exact ones of the final coefficients.
    K = gram_matrix(online.support_vectors_, online.support_vectors_,
                    "poly", degree=2, gamma=0.5, coef0=1.0)
    exact = online.dual_coef_ @ K @ online.dual_coef_.T
    assert_allclose(online._gram, exact, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_cache_size_never_changes_a_result(n_classes):
    X, y, _, scale = make_stream(n_classes, _seed("cache", n_classes), n=120)
    params = dict(kernel="poly", degree=2, radius=0.3 * scale, max_iter=3,
                  random_state=0)
    full = Ballseptron(**params).fit(X, y)
    for cache_size in (0, 0.02):  # none, part of each row
        other = Ballseptron(cache_size=cache_size, **params).fit(X, y)
        assert_array_equal(other.mistakes_per_epoch_, full.mistakes_per_epoch_)
        assert_array_equal(other.margin_errors_per_epoch_,
                           full.margin_errors_per_epoch_)
        assert_array_equal(other.dual_coef_, full.dual_coef_)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("kernel", [
    dict(kernel="poly", degree=3, gamma=1.0, coef0=0.5),
    dict(kernel="rbf", gamma=0.5)])
def test_blas_blocks_cache_and_storage(n_classes, kernel):
    """Several blocks of wide rows (dense input): every cache size and BLAS
    thread count gives the same bits (the blocks call no BLAS), r = 0 is
    still the KernelPerceptron bit for bit, and CSR input (per-row kernel
    values, no blocks) agrees to rounding."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(_seed("blocks", n_classes))
    n, d = 420, 300
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1).mean()
    y = np.argmax(X @ rng.standard_normal((d, n_classes)), axis=1)
    y[rng.random(n) < 0.1] = rng.integers(0, n_classes)
    params = dict(max_iter=2, random_state=0, **kernel)
    full = Ballseptron(radius=0.1, **params).fit(X, y)
    assert full.n_margin_errors_ > 0 and full.support_.shape[0] > 128
    with threadpool_limits(limits=1):
        one_thread = Ballseptron(radius=0.1, **params).fit(X, y)
    assert_array_equal(one_thread.dual_coef_, full.dual_coef_)
    for cache_size in (0, 60 * 8 * n / 2 ** 20):  # none, 60 slots a row
        other = Ballseptron(radius=0.1, cache_size=cache_size,
                            **params).fit(X, y)
        assert_array_equal(other.mistakes_per_epoch_, full.mistakes_per_epoch_)
        assert_array_equal(other.margin_errors_per_epoch_,
                           full.margin_errors_per_epoch_)
        assert_array_equal(other.dual_coef_, full.dual_coef_)
    csr = Ballseptron(radius=0.1, **params).fit(sp.csr_matrix(X), y)
    assert_array_equal(csr.mistakes_per_epoch_, full.mistakes_per_epoch_)
    assert_array_equal(csr.support_, full.support_)
    assert_allclose(csr.dual_coef_, full.dual_coef_, rtol=1e-9, atol=1e-9)
    perceptron = KernelPerceptron(
        eta=1, theta_init=0, threshold_step=0, cache_size=0,
        hypothesis="last",
        multiclass="prototype" if n_classes > 2 else "ovr", **params)
    ball = Ballseptron(radius=0.0, hypothesis="last", **params).fit(X, y)
    perceptron.fit(X, y)
    assert ball.n_mistakes_ == perceptron.n_mistakes_
    assert_array_equal(ball.support_, perceptron.support_)
    assert_array_equal(ball.dual_coef_, perceptron.dual_coef_)


@pytest.mark.parametrize("stream, labels, radius", [
    # ‖w‖ = r exactly: the shrink factor is 0 (scale 0 path).
    ([2.0, 1.0, 1.0, 3.0, 0.5], [1, 1, 1, 1, 1], 2.0),
    # 1 - r/‖w‖ ~ 1e-12: the scale is multiplied out when it gets tiny.
    ([1.0 + 1e-12] + [1.0] * 8, [1] * 9, 1.0),
    # ‖w‖ << r: factors around -1e6 make the scale huge.
    ([1e-6, 0.5, 1e-7, 0.25, 1e-6, 0.5, 1e-6, 0.1],
     [1, -1, 1, 1, -1, 1, 1, -1], 1.0),
])
def test_lazy_scale_edge_cases_1d(stream, labels, radius):
    X = np.asarray(stream)[:, None]
    y = np.asarray(labels, dtype=np.float64)
    w, mistakes, margin = figure2(X, y, radius, 2)
    assert sum(margin) > 0
    w_avg = figure2_averaged(X, y, radius, 2)[0]
    for Xs in (X, sp.csr_matrix(X)):
        for hypothesis, expected in (("last", w), ("averaged", w_avg)):
            est = Ballseptron(kernel="linear", radius=radius, max_iter=2,
                              shuffle=False, hypothesis=hypothesis)
            est.partial_fit(Xs, y, classes=[-1.0, 1.0])
            est.partial_fit(Xs, y)
            assert_array_equal(est.mistakes_per_epoch_, mistakes)
            assert_array_equal(est.margin_errors_per_epoch_, margin)
            assert_allclose(est.coef_[0], expected, rtol=1e-8,
                            atol=1e-8 * max(1.0, np.max(np.abs(expected))))


def test_attributes_pickle_and_parameters():
    X, y, _, _ = make_stream(3, _seed("attr"))
    est = Ballseptron(kernel="poly", radius=0.2, random_state=0).fit(X, y)
    assert est.gamma_ == 1.0 / X.shape[1]
    assert est.dual_coef_.shape == (3, est.support_.shape[0])
    assert est.support_vectors_.shape == (est.support_.shape[0], X.shape[1])
    assert not hasattr(est, "coef_")
    assert_array_equal(est.intercept_, np.zeros(3))
    clone = pickle.loads(pickle.dumps(est))
    assert_array_equal(clone.decision_function(X), est.decision_function(X))
    with pytest.raises(ValueError):
        Ballseptron(kernel="sigmoid").fit(X, y)
    with pytest.raises(ValueError):
        Ballseptron(kernel="poly", degree=0).fit(X, y)
    with pytest.raises(ValueError, match="overflows"):
        Ballseptron(kernel="poly", degree=200, gamma=10.0).fit(X * 1e3, y)


@pytest.mark.parametrize("radius", [0.3, 1.0])
def test_near_parallel_prototypes(radius):
    """Classes 1 and 2 differ by a small feature, class 0 is opposite.

    Then ``w^1 ≈ w^2`` relative to their norms, ``G_11 + G_22 - 2 G_12``
    cancels, and the loop recomputes G exactly before a margin test (at
    r = 1 on this stream); the counts still match the primal loop and the
    brute-force reference.
    """
    rng = np.random.default_rng(0)
    n = 60
    idx = rng.integers(0, 3, n)
    idx[:3] = [0, 1, 2]
    X = np.zeros((n, 3))
    X[:, 0] = np.where(idx == 0, -1.0, 1.0)
    X[:, 1:] = 0.01 * rng.standard_normal((n, 2))
    X[:, 1] += np.where(idx == 1, 0.3, np.where(idx == 2, -0.3, 0.0))
    A, mistakes, margin = section4_dual(X, idx, 3, radius, "linear", 3)
    primal = Ballseptron(radius=radius, max_iter=3, shuffle=False,
                         hypothesis="last").fit(X, idx)
    for Xs in (X, sp.csr_matrix(X)):
        dual = Ballseptron(kernel="linear", radius=radius, max_iter=3,
                           shuffle=False, hypothesis="last").fit(Xs, idx)
        assert_array_equal(dual.mistakes_per_epoch_, mistakes)
        assert_array_equal(dual.margin_errors_per_epoch_, margin)
        assert_array_equal(primal.margin_errors_per_epoch_, margin)
        assert_close_scores(dual.decision_function(Xs), X @ (A @ X).T)


def test_refit_with_another_form_drops_stale_attributes():
    X, y, _, _ = make_stream(2, _seed("refit"))
    est = Ballseptron(kernel="linear", radius=0.1, random_state=0).fit(X, y)
    assert hasattr(est, "coef_") and hasattr(est, "dual_coef_")
    est.set_params(kernel="rbf").fit(X, y)
    assert not hasattr(est, "coef_")
    est.set_params(kernel=None).fit(X, y)
    assert hasattr(est, "coef_") and not hasattr(est, "dual_coef_")
    assert_array_equal(est.predict(X),
                       Ballseptron(radius=0.1, random_state=0).fit(X, y)
                       .predict(X))
