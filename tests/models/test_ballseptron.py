"""``Ballseptron`` against the transcription of Shalev-Shwartz & Singer (2005).

STYLE habits 11-12. With ``shuffle=False`` the estimator must reproduce the
reference (``tests/reference/ballseptron.py``: Figure 2 and Sec. 4, with ‖w‖
recomputed from scratch and x̂ materialised) on dense and CSR input: the
same mistakes and margin errors, pass by pass, and the same weights to
``RTOL``. Several radii, 0 included; binary and multiclass; streams with zero
rows and duplicates; hand-made streams that drive the lazy scale of the
binary loop to 0, to tiny and to huge values. Radii far above the data's
norms make the recursion ill-conditioned (see
``test_matches_reference_with_a_radius_far_above_the_data``), so exact
agreement is asked for r up to the median row norm.

The averaged hypothesis (the default) is checked against the average of
the reference's weight vectors after each trial, summed naively
(``figure2_averaged``, ``section4_averaged``), on the same streams; its online
trajectory (counts, last weights) is that of ``hypothesis="last"`` bit for
bit. Every test of the paper's algorithm itself passes
``hypothesis="last"``.

Equivalences: ``Ballseptron(radius=0)`` is the Rosenblatt member of
``Perceptron`` bit for bit (binary, and the prototype rule with 3+ classes);
``partial_fit`` one pass per call equals ``fit``.
"""

import doctest
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

import perceptrons.models.ballseptron as ballseptron_module
from perceptrons import Ballseptron, Perceptron
from perceptrons._loops.ballseptron import BallRule, ballseptron_epoch
from perceptrons._loops.storage import PrimalStore
from perceptrons.utils.validation import as_loop_arrays
from tests._pairwise import all_pairs, parametrize
from tests.reference import ballseptron as reference
from tests.reference.ballseptron import figure2
from tests.reference.streams import make_stream as _make_stream
from tests.reference.streams import seed_of as _seed

RTOL = 1e-10


def _internal(est, name):
    """The one access of this module to an estimator's state beyond its
    public attributes (the raw last iterate of the averaged hypothesis)."""
    return {"_weights": est.state_.weights.current}[name]


def make_stream(n_classes, seed, integer=False):
    """A noisy linear stream with exact zeros, two zero rows and a duplicate.

    Labels are not 0..K-1 (to exercise the encoding) and every class occurs.
    Returns X, y (raw labels), y as class indices, and the median row norm.
    """
    labels = [-1, 1] if n_classes == 2 else [0, 2, 5, 7, 9][:n_classes]
    s = _make_stream(seed, n_classes=n_classes, n=(40, 89), d=(2, 13),
                     values="integer" if integer else "float",
                     sparsity=0.25, zero_rows=2, duplicate=True, noise=0.15,
                     labels=labels)
    return s.X, s.y, s.idx, s.scale


def assert_matches_reference(est, ref):
    """Counts pass by pass, weights to RTOL, against a BallseptronState."""
    assert_array_equal(est.mistakes_per_epoch_, ref.mistakes_per_epoch)
    assert_array_equal(est.margin_errors_per_epoch_,
                       ref.margin_errors_per_epoch)
    assert est.n_mistakes_ == ref.n_mistakes
    assert est.n_margin_errors_ == ref.n_margin_errors
    assert est.n_updates_ == ref.n_updates
    assert_array_equal(est.updates_per_epoch_, ref.updates_per_epoch)
    W = ref.coef
    assert est.coef_.shape == W.shape
    scale = max(1.0, float(np.max(np.abs(W))))
    assert_allclose(est.coef_, W, rtol=RTOL, atol=RTOL * scale)
    assert_array_equal(est.intercept_, np.zeros(W.shape[0]))


# ------------------------------------------------------------ reference
# Classes × relative radius × stream: every pair, not the 36-row product.
GRID = all_pairs({"n_classes": [2, 3, 5], "rel_radius": [0.0, 0.02, 0.2, 1.0],
                  "seed": [0, 1, 2]})


@pytest.mark.reference
@parametrize(GRID)
def test_matches_reference_dense_and_csr(n_classes, rel_radius, seed):
    X, y, idx, scale = make_stream(n_classes, _seed(n_classes, rel_radius,
                                                    seed))
    radius = rel_radius * scale
    n_epochs = 4
    ref = reference.fit(X, y, radius=radius, max_iter=n_epochs,
                        hypothesis="last")
    if rel_radius > 0:
        assert ref.n_margin_errors > 0  # the margin-error branch is exercised
    for Xs in (X, sp.csr_matrix(X)):
        est = Ballseptron(radius=radius, max_iter=n_epochs, shuffle=False,
                          hypothesis="last")
        est.fit(Xs, y)
        assert_matches_reference(est, ref)
        assert_array_equal(est.predict(Xs), ref.predict(X))


@pytest.mark.reference
@pytest.mark.parametrize("n_classes", [2, 3, 5])
@pytest.mark.parametrize("seed", range(3))
def test_matches_reference_with_a_radius_far_above_the_data(n_classes, seed):
    """r = 4 × the median ‖x‖: the same counts, weights to 1e-5.

    When ‖w‖ << r the binary margin-error update multiplies w by
    1 - r/‖w‖ << -1 and then cancels most of it against y x: the problem is
    ill-conditioned, and two float64 transcriptions drift apart (Figure 2
    itself, in float64 vs long double, differs by ~1e-5 after 4 passes on
    these streams). One pass keeps the drift far below the tolerance.
    """
    X, y, idx, scale = make_stream(n_classes, _seed("far", n_classes, seed))
    radius = 4.0 * scale
    ref = reference.fit(X, y, radius=radius, max_iter=1, hypothesis="last")
    W = ref.coef
    for Xs in (X, sp.csr_matrix(X)):
        est = Ballseptron(radius=radius, max_iter=1, shuffle=False,
                          hypothesis="last")
        est.fit(Xs, y)
        assert_array_equal(est.mistakes_per_epoch_, ref.mistakes_per_epoch)
        assert_array_equal(est.margin_errors_per_epoch_,
                           ref.margin_errors_per_epoch)
        assert_allclose(est.coef_, W, rtol=1e-5,
                        atol=1e-5 * max(1.0, float(np.max(np.abs(W)))))


@pytest.mark.reference
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("radius", [0.0, 0.5, 1.0, 3.0])
def test_matches_reference_on_integer_data_with_ties(n_classes, radius):
    # Integer rows: many exact ties (score 0, equal class scores).
    X, y, idx, _ = make_stream(n_classes, _seed("int", n_classes, radius),
                               integer=True)
    ref = reference.fit(X, y, radius=radius, max_iter=3, hypothesis="last")
    est = Ballseptron(radius=radius, max_iter=3, shuffle=False,
                      hypothesis="last")
    assert_matches_reference(est.fit(sp.csr_matrix(X), y), ref)


SCALE_EDGE_CASES = [
    # ‖w‖ = r exactly: the shrink factor 1 - r/‖w‖ is 0 (scale 0 path).
    ([2.0, 1.0, 1.0, 3.0, 0.5], [1, 1, 1, 1, 1], 2.0),
    # 1 - r/‖w‖ ~ 1e-12 at every step: the scale is multiplied out.
    ([1.0 + 1e-12] + [1.0] * 8, [1] * 9, 1.0),
    # ‖w‖ << r: factors around -1e6 make the scale huge.
    ([1e-6, 0.5, 1e-7, 0.25, 1e-6, 0.5, 1e-6, 0.1],
     [1, -1, 1, 1, -1, 1, 1, -1], 1.0),
]


@pytest.mark.reference
@pytest.mark.parametrize("stream, labels, radius", SCALE_EDGE_CASES)
def test_lazy_scale_edge_cases_1d(stream, labels, radius):
    X = np.asarray(stream)[:, None]
    y = np.asarray(labels, dtype=np.float64)
    ref = reference.fit(X, y, radius=radius, max_iter=2, hypothesis="last",
                        classes=[-1.0, 1.0])
    assert ref.n_margin_errors > 0
    for Xs in (X, sp.csr_matrix(X)):
        est = Ballseptron(radius=radius, max_iter=2, shuffle=False,
                          hypothesis="last")
        est.partial_fit(Xs, y, classes=[-1.0, 1.0])
        est.partial_fit(Xs, y)
        assert_matches_reference(est, ref)


@pytest.mark.reference
def test_lazy_scale_extremes_reach_the_loop():
    """The three scale paths are taken and still agree with Figure 2."""
    rng = np.random.default_rng(7)
    for trial in range(20):
        d = int(rng.integers(1, 4))
        X = rng.standard_normal((60, d)) * rng.choice([1e-6, 1e-3, 1.0], 60)[:, None]
        y = rng.choice([-1.0, 1.0], 60)
        radius = float(rng.choice([1e-3, 1.0]))
        w = np.zeros((1, d))
        arrays = as_loop_arrays(np.ascontiguousarray(X))
        store = PrimalStore(*arrays, np.einsum("ij,ij->i", X, X), False, w,
                            np.zeros((1, 0)), np.zeros((1, 0)))
        m, e = ballseptron_epoch(store, (y == 1).astype(np.int64),
                                 np.arange(60, dtype=np.int64),
                                 np.zeros(0), BallRule(radius, True, False),
                                 np.zeros(1), np.zeros((1, 1)), np.zeros(1))
        w = w[0]
        w_ref, m_ref, e_ref = figure2(X, y, radius)
        assert (m, e) == (m_ref[0], e_ref[0])
        assert_allclose(w, w_ref, rtol=1e-8,
                        atol=1e-8 * max(1.0, np.max(np.abs(w_ref))))


# ------------------------------------------------------------ averaged
def assert_same_trajectory(est, last, ref):
    """Averaging changes the hypothesis returned, never the online run: the
    counts, and the raw last iterate (private) is the reference's last w."""
    assert_array_equal(est.mistakes_per_epoch_, last.mistakes_per_epoch_)
    assert_array_equal(est.margin_errors_per_epoch_,
                       last.margin_errors_per_epoch_)
    assert_array_equal(_internal(est, "_weights"), last.coef_)
    scale = max(1.0, float(np.max(np.abs(ref.last_coef))))
    assert_allclose(last.coef_, ref.last_coef, rtol=RTOL, atol=RTOL * scale)


@pytest.mark.reference
@parametrize(GRID)
def test_averaged_matches_reference_dense_and_csr(n_classes, rel_radius,
                                                  seed):
    X, y, idx, scale = make_stream(n_classes, _seed("avg", n_classes,
                                                    rel_radius, seed))
    radius = rel_radius * scale
    n_epochs = 4
    ref = reference.fit(X, y, radius=radius, max_iter=n_epochs,
                        hypothesis="averaged")
    if rel_radius > 0:
        assert ref.n_margin_errors > 0
    for Xs in (X, sp.csr_matrix(X)):
        params = dict(radius=radius, max_iter=n_epochs, shuffle=False)
        est = Ballseptron(hypothesis="averaged", **params).fit(Xs, y)
        assert_matches_reference(est, ref)
        last = Ballseptron(hypothesis="last", **params).fit(Xs, y)
        assert_same_trajectory(est, last, ref)


@pytest.mark.reference
@pytest.mark.parametrize("stream, labels, radius", SCALE_EDGE_CASES)
def test_averaged_lazy_scale_edge_cases_1d(stream, labels, radius):
    """Scale 0, multiplied out, and huge: the running sum follows."""
    X = np.asarray(stream)[:, None]
    y = np.asarray(labels, dtype=np.float64)
    ref = reference.fit(X, y, radius=radius, max_iter=2,
                        hypothesis="averaged", classes=[-1.0, 1.0])
    for Xs in (X, sp.csr_matrix(X)):
        est = Ballseptron(radius=radius, hypothesis="averaged")
        est.partial_fit(Xs, y, classes=[-1.0, 1.0])
        est.partial_fit(Xs, y)
        assert_matches_reference(est, ref)


@pytest.mark.reference
@pytest.mark.parametrize("n_classes", [2, 3])
def test_averaged_matches_reference_on_a_long_stream(n_classes):
    """Thousands of margin errors: the binary scale drifts by many powers of
    ten within a pass (the sum is folded as it goes), and the multiclass
    running sum cancels against step × W over a long pass."""
    X, _, idx, _, radius = _make_stream(_seed("long", n_classes),
                                        n_classes=n_classes, n=1500, d=6,
                                        noise=0.1, every_class=False)
    ref = reference.fit(X, idx, radius=radius, max_iter=2,
                        hypothesis="averaged")
    assert ref.n_margin_errors > 1000
    for Xs in (X, sp.csr_matrix(X)):
        est = Ballseptron(radius=radius, max_iter=2, shuffle=False,
                          hypothesis="averaged").fit(Xs, idx)
        assert_matches_reference(est, ref)


@pytest.mark.parametrize("n_classes", [2, 3, 5])
@pytest.mark.parametrize("sparse", [False, True])
def test_averaged_radius_zero_is_the_averaged_perceptron(n_classes, sparse):
    X, y, _, _ = make_stream(n_classes, _seed("avgperc", n_classes))
    Xs = sp.csr_matrix(X) if sparse else X
    multiclass = "ovr" if n_classes == 2 else "prototype"
    ref = Perceptron(eta=1, theta_init=0, threshold_step=0, max_iter=5,
                     random_state=3, multiclass=multiclass,
                     hypothesis="averaged").fit(Xs, y)
    est = Ballseptron(radius=0, max_iter=5, random_state=3,
                      hypothesis="averaged").fit(Xs, y)
    # The same average, accumulated differently (Σ w_t here, Σ (t-1) Δw_t
    # there): equal up to rounding.
    assert_allclose(est.coef_, ref.coef_, rtol=1e-12,
                    atol=1e-12 * np.max(np.abs(ref.coef_)))
    assert est.n_mistakes_ == ref.n_mistakes_


def test_averaged_needs_its_sum_from_the_first_call():
    X, y, _, _ = make_stream(2, _seed("switch", 2))
    est = Ballseptron(hypothesis="last").partial_fit(X, y, classes=[-1, 1])
    est.set_params(hypothesis="averaged")
    with pytest.raises(ValueError, match="hypothesis='averaged'"):
        est.partial_fit(X, y)
    # The other way round is fine: the last weights are always kept.
    est = Ballseptron().partial_fit(X, y, classes=[-1, 1])
    last = Ballseptron(hypothesis="last").partial_fit(X, y, classes=[-1, 1])
    est.set_params(hypothesis="last")
    est.partial_fit(X, y)
    last.partial_fit(X, y)
    assert_array_equal(est.coef_, last.coef_)


def test_defaults_fit_noisy_data_near_linear_svc():
    """Issue #12: the default estimator within a few points of LinearSVC
    (0.772 and 0.613 on these data), whatever the seed."""
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split

    for n_classes, floor in ((2, 0.74), (3, 0.57)):
        X, y = make_classification(n_samples=1500, n_features=20,
                                   n_informative=6, flip_y=0.1,
                                   n_classes=n_classes, random_state=2)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.4,
                                              random_state=0)
        for seed in range(3):
            est = Ballseptron(random_state=seed).fit(Xtr, ytr)
            assert est.score(Xte, yte) >= floor, (n_classes, seed)


def test_first_example_paper_sec3():
    """Sec. 3: T copies of (x, y) = (1, +1) and r = 2 give T/2 mistakes."""
    T = 40
    X = np.ones((T, 1))
    est = Ballseptron(radius=2.0, shuffle=False)
    est.partial_fit(X, np.ones(T), classes=[-1, 1])
    assert est.n_mistakes_ == T // 2
    assert est.n_margin_errors_ == T // 2
    est0 = Ballseptron(radius=0.0, shuffle=False)
    est0.partial_fit(X, np.ones(T), classes=[-1, 1])
    assert est0.n_mistakes_ == 1
    assert est0.n_margin_errors_ == 0


# ------------------------------------------------------------ equivalences
@pytest.mark.parametrize("n_classes", [2, 3, 5])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("shuffle", [False, True])
def test_radius_zero_is_rosenblatt_bit_for_bit(n_classes, sparse, shuffle):
    X, y, _, _ = make_stream(n_classes, _seed("rosenblatt", n_classes))
    Xs = sp.csr_matrix(X) if sparse else X
    multiclass = "ovr" if n_classes == 2 else "prototype"
    ref = Perceptron(eta=1, theta_init=0, threshold_step=0, max_iter=5,
                     shuffle=shuffle, random_state=3, multiclass=multiclass,
                     hypothesis="last")
    est = Ballseptron(radius=0, max_iter=5, shuffle=shuffle, random_state=3,
                      hypothesis="last")
    ref.fit(Xs, y)
    est.fit(Xs, y)
    assert_array_equal(est.coef_, ref.coef_)
    assert est.n_mistakes_ == ref.n_mistakes_
    assert est.n_updates_ == ref.n_updates_
    assert est.n_margin_errors_ == 0
    assert_array_equal(est.predict(X), ref.predict(X))


@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("sparse", [False, True])
def test_partial_fit_passes_equal_fit(n_classes, sparse, hypothesis):
    X, y, _, scale = make_stream(n_classes, _seed("pf", n_classes))
    Xs = sp.csr_matrix(X) if sparse else X
    fitted = Ballseptron(radius=0.3 * scale, max_iter=3, shuffle=False,
                         hypothesis=hypothesis)
    fitted.fit(Xs, y)
    online = Ballseptron(radius=0.3 * scale, hypothesis=hypothesis)
    online.partial_fit(Xs, y, classes=np.unique(y))
    online.partial_fit(Xs, y)
    online.partial_fit(Xs, y)
    assert_array_equal(online.coef_, fitted.coef_)
    assert online.n_mistakes_ == fitted.n_mistakes_
    assert online.n_margin_errors_ == fitted.n_margin_errors_
    assert_array_equal(online.margin_errors_per_epoch_,
                       fitted.margin_errors_per_epoch_)
    assert online.t_ == fitted.t_ == 3 * X.shape[0]


@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_dense_and_csr_agree(n_classes, hypothesis):
    X, y, _, scale = make_stream(n_classes, _seed("fmt", n_classes))
    a = Ballseptron(radius=0.5 * scale, random_state=0,
                    hypothesis=hypothesis).fit(X, y)
    b = Ballseptron(radius=0.5 * scale, random_state=0,
                    hypothesis=hypothesis).fit(sp.csr_matrix(X), y)
    assert a.n_mistakes_ == b.n_mistakes_
    assert a.n_margin_errors_ == b.n_margin_errors_
    assert_allclose(a.coef_, b.coef_, rtol=RTOL, atol=RTOL)


@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_deterministic_and_picklable(n_classes, hypothesis):
    X, y, _, _ = make_stream(n_classes, _seed("det", n_classes))
    a = Ballseptron(radius=0.2, random_state=11,
                    hypothesis=hypothesis).fit(X, y)
    b = Ballseptron(radius=0.2, random_state=11,
                    hypothesis=hypothesis).fit(X, y)
    assert_array_equal(a.coef_, b.coef_)
    assert a.n_margin_errors_ == b.n_margin_errors_
    c = pickle.loads(pickle.dumps(a))
    assert_array_equal(c.predict(X), a.predict(X))
    c.partial_fit(X, y)
    a.partial_fit(X, y)
    assert_array_equal(c.coef_, a.coef_)


def test_prediction_and_shapes():
    X, y, idx, _ = make_stream(2, _seed("pred", 2))
    est = Ballseptron(radius=0.1, random_state=0).fit(X, y)
    assert est.coef_.shape == (1, X.shape[1])
    scores = est.decision_function(X)
    assert_allclose(scores, X @ est.coef_[0])
    assert_array_equal(est.predict(X), est.classes_[(scores > 0).astype(int)])
    X, y, idx, _ = make_stream(5, _seed("pred", 5))
    est = Ballseptron(radius=0.1, random_state=0).fit(X, y)
    assert est.coef_.shape == (5, X.shape[1])
    assert_array_equal(est.predict(X),
                       est.classes_[np.argmax(X @ est.coef_.T, axis=1)])


# ------------------------------------------------------------ bad input
@pytest.mark.parametrize("radius", [-0.1, "big", None, np.nan])
def test_bad_radius(radius):
    X, y, _, _ = make_stream(2, 0)
    with pytest.raises(ValueError, match="radius"):
        Ballseptron(radius=radius).fit(X, y)


def test_bad_input():
    X, y, _, _ = make_stream(3, 0)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Ballseptron().fit(Xn, y)
    with pytest.raises(ValueError, match="one class"):
        Ballseptron().fit(X, np.zeros(X.shape[0]))
    with pytest.raises(ValueError, match="classes must be passed"):
        Ballseptron().partial_fit(X, y)
    est = Ballseptron().partial_fit(X, y, classes=[0, 2, 5])
    est.partial_fit(X[:3], [11, 0, 2])  # a prototype per new class
    np.testing.assert_array_equal(est.classes_, [0, 2, 5, 11])
    # Figure 2's vector becomes Sec. 4's pair (-w, w), and a zero
    # prototype per new class (tests/models/test_new_classes.py).
    binary = Ballseptron().partial_fit(X, y % 2, classes=[0, 1])
    binary.partial_fit(X[:3], [11, 0, 1])
    np.testing.assert_array_equal(binary.classes_, [0, 1, 11])
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :-1])


def test_rows_whose_norm_overflows_are_rejected():
    # ‖w‖² and the margin-error factor need finite row norms.
    X = np.array([[1e154, 0.0], [-1e154, 1e154], [1e154, 1e154]])
    y = np.array([1, -1, -1])
    with pytest.raises(ValueError, match="overflow"):
        Ballseptron(radius=0.5).fit(X, y)


def test_docstring_examples():
    result = doctest.testmod(ballseptron_module)
    assert result.attempted > 0 and result.failed == 0
