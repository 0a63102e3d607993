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

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from perceptrons import Ballseptron, KernelPerceptron
from tests._pairwise import all_pairs, corners_of, parametrize
from tests.reference import ballseptron as reference
from tests.reference.ballseptron import gram_matrix
from tests.reference.streams import make_stream as _make_stream
from tests.reference.streams import seed_of as _seed

TOL = 1e-8


def _internal(est, name):
    """The one access of this module to an estimator's state beyond its
    public attributes (the carried norms of the dual loop)."""
    return {"_gram": est.state_.gram}[name]


def make_stream(n_classes, seed, n=None):
    """Noisy linearly labelled rows with exact zeros and one zero row."""
    labels = [-1, 1] if n_classes == 2 else [0, 3, 8][:n_classes]
    s = _make_stream(seed, n_classes=n_classes,
                     n=(40, 79) if n is None else n, d=(2, 9),
                     sparsity=0.25, zero_rows=1, noise=0.15, labels=labels)
    return s.X, s.y, s.idx, s.scale


def assert_close_scores(a, b):
    scale = max(1.0, float(np.max(np.abs(b))))
    assert_allclose(a, b, rtol=TOL, atol=TOL * scale)


# ---------------------------------------------------------- linear = primal
LINEAR_FACTORS = {"rel_radius": [0.0, 0.05, 0.3, 1.0], "n_classes": [2, 3],
                  "sparse": [False, True], "hypothesis": ["last", "averaged"]}


@parametrize(all_pairs(LINEAR_FACTORS, corners_of(LINEAR_FACTORS)))
def test_linear_kernel_equals_primal(rel_radius, n_classes, sparse,
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


def _fits_matching_reference(X, y, ref, **params):
    """Fit on dense and CSR X, in order; check the counts of every pass, the
    decision values and the predictions of the reference state. Returns
    the estimators."""
    expected = ref.decision_function(X)
    out = []
    for Xs in (X, sp.csr_matrix(X)):
        est = Ballseptron(shuffle=False, **params).fit(Xs, y)
        assert_array_equal(est.mistakes_per_epoch_, ref.mistakes_per_epoch)
        assert_array_equal(est.margin_errors_per_epoch_,
                           ref.margin_errors_per_epoch)
        assert est.n_updates_ == ref.n_updates
        assert_close_scores(est.decision_function(Xs), expected)
        assert_array_equal(est.predict(Xs), ref.predict(X))
        out.append(est)
    return out


def _kernel_case(tag, kernel, params, n_classes, rel_radius):
    """Rows of norm about 1, and a radius relative to the feature-space
    norms of the rows."""
    X, y, idx, _ = make_stream(n_classes, _seed(tag, kernel, n_classes,
                                                rel_radius))
    X = X / np.sqrt(X.shape[1])
    diag = np.diag(gram_matrix(X[:5], X[:5], kernel, **params))
    return X, y, rel_radius * float(np.sqrt(np.median(diag)))


@pytest.mark.reference
@pytest.mark.parametrize("kernel, params", KERNEL_PARAMS)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("rel_radius", [0.0, 0.2, 1.0])
def test_kernels_match_brute_force_dual_reference(kernel, params, n_classes,
                                                  rel_radius):
    X, y, radius = _kernel_case("ker", kernel, params, n_classes, rel_radius)
    ref = reference.fit(X, y, radius=radius, max_iter=3, hypothesis="last",
                        kernel=kernel, **params)
    A = ref.dual_coef
    if rel_radius > 0:
        assert ref.n_margin_errors > 0
    for est in _fits_matching_reference(X, y, ref, kernel=kernel,
                                        radius=radius, max_iter=3,
                                        hypothesis="last", **params):
        # dual_coef_ is A on the rows with a non-zero coefficient.
        keep = np.flatnonzero(np.any(A != 0.0, axis=0))
        assert_array_equal(est.support_, keep)
        assert_close_scores(est.dual_coef_, A[:, keep])


@pytest.mark.reference
@pytest.mark.parametrize("kernel, params", KERNEL_PARAMS)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("rel_radius", [0.0, 0.2, 1.0])
def test_averaged_kernels_match_brute_force_dual_reference(
        kernel, params, n_classes, rel_radius):
    X, y, radius = _kernel_case("kavg", kernel, params, n_classes, rel_radius)
    ref = reference.fit(X, y, radius=radius, max_iter=3,
                        hypothesis="averaged", kernel=kernel, **params)
    A_avg, A = ref.dual_coef, ref.last_dual_coef
    if rel_radius > 0:
        assert ref.n_margin_errors > 0
    for est in _fits_matching_reference(X, y, ref, kernel=kernel,
                                        radius=radius, max_iter=3,
                                        hypothesis="averaged", **params):
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
    assert_allclose(_internal(online, "_gram"), exact, rtol=1e-9, atol=1e-9)


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


@pytest.mark.reference
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
    for hypothesis in ("last", "averaged"):
        ref = reference.fit(X, y, radius=radius, max_iter=2,
                            hypothesis=hypothesis, classes=[-1.0, 1.0])
        assert ref.n_margin_errors > 0
        expected = ref.coef[0]
        for Xs in (X, sp.csr_matrix(X)):
            est = Ballseptron(kernel="linear", radius=radius, max_iter=2,
                              shuffle=False, hypothesis=hypothesis)
            est.partial_fit(Xs, y, classes=[-1.0, 1.0])
            est.partial_fit(Xs, y)
            assert_array_equal(est.mistakes_per_epoch_,
                               ref.mistakes_per_epoch)
            assert_array_equal(est.margin_errors_per_epoch_,
                               ref.margin_errors_per_epoch)
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
        Ballseptron(kernel="poly", degree=100, gamma=10.0).fit(X * 1e3, y)
    with pytest.raises(ValueError, match="degree"):
        Ballseptron(kernel="poly", degree=101).fit(X, y)


@pytest.mark.reference
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
    ref = reference.fit(X, idx, radius=radius, max_iter=3, hypothesis="last",
                        kernel="linear")
    primal = Ballseptron(radius=radius, max_iter=3, shuffle=False,
                         hypothesis="last").fit(X, idx)
    for Xs in (X, sp.csr_matrix(X)):
        dual = Ballseptron(kernel="linear", radius=radius, max_iter=3,
                           shuffle=False, hypothesis="last").fit(Xs, idx)
        assert_array_equal(dual.mistakes_per_epoch_, ref.mistakes_per_epoch)
        assert_array_equal(dual.margin_errors_per_epoch_,
                           ref.margin_errors_per_epoch)
        assert_array_equal(primal.margin_errors_per_epoch_,
                           ref.margin_errors_per_epoch)
        assert_close_scores(dual.decision_function(Xs),
                            X @ (ref.dual_coef @ X).T)


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
