"""``Ballseptron`` with row weights (``sample_weight``, ``class_weight``) and
with ``coef_init``.

A row of weight s makes the paper's tests and an update s times the
paper's: ``w + s y x̂`` (Figure 2), Eq. (18) with ``s x̂`` (Sec. 4). The
oracle is ``tests/reference/ballseptron.py`` with its ``sample_weight``
(steps times s, rows of weight 0 not presented) and ``coef_init``: the same
mistakes and margin errors pass by pass, weights to ``RTOL`` (primal) or
decision values to ``TOL`` (kernels), on dense and CSR input, binary and
multiclass, last and averaged hypotheses. Bit for bit: unit weights, also
when an explicit array of ones reaches the compiled loops, are the
unweighted run; rows of weight 0 are rows absent; ``class_weight`` is the
``sample_weight`` it stands for; ``partial_fit`` passes are ``fit`` (to
rounding with a kernel, as unweighted).

With a kernel, ``support_`` after ``fit`` with rows of weight 0 indexes the
rows kept, not X (the base leaves those rows out of the call before the
support set is made); the tests compare ``support_vectors_``.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from perceptrons import Ballseptron
from perceptrons.models._weights import DualWeights, WeightRows
from tests._pairwise import all_pairs, parametrize
from tests.models.test_ballseptron import assert_matches_reference, make_stream
from tests.models.test_ballseptron_kernel import (
    KERNEL_PARAMS,
    _kernel_case,
    assert_close_scores,
)
from tests.reference import ballseptron as reference
from tests.reference.streams import seed_of as _seed


def _weights(n, kind, seed, zeros=0):
    """Positive row weights: integers 1-5 or floats in [0.1, 3]; ``zeros``
    of them set to 0."""
    rng = np.random.default_rng(seed)
    if kind == "int":
        w = rng.integers(1, 6, n).astype(np.float64)
    else:
        w = rng.uniform(0.1, 3.0, n)
    if zeros:
        w[rng.choice(n, zeros, replace=False)] = 0.0
    return w


def assert_same_state(a, b):
    """Bit for bit: counts, weights and predictions."""
    assert_array_equal(a.mistakes_per_epoch_, b.mistakes_per_epoch_)
    assert_array_equal(a.margin_errors_per_epoch_, b.margin_errors_per_epoch_)
    for name in ("coef_", "dual_coef_"):
        if hasattr(b, name):
            assert_array_equal(getattr(a, name), getattr(b, name))
    assert_array_equal(a.state_.weights.current, b.state_.weights.current)
    assert_array_equal(a.state_.weights.summed, b.state_.weights.summed)


# ------------------------------------------------------------ reference
WEIGHTED = all_pairs({"n_classes": [2, 3, 5], "rel_radius": [0.0, 0.2, 1.0],
                      "kind": ["int", "float"],
                      "hypothesis": ["last", "averaged"]})


@pytest.mark.reference
@parametrize(WEIGHTED)
def test_weighted_matches_reference_dense_and_csr(n_classes, rel_radius, kind,
                                                  hypothesis):
    seed = _seed("w", n_classes, rel_radius, kind, hypothesis)
    X, y, idx, scale = make_stream(n_classes, seed)
    w = _weights(X.shape[0], kind, seed)
    radius = rel_radius * scale
    ref = reference.fit(X, y, radius=radius, max_iter=3,
                        hypothesis=hypothesis, sample_weight=w)
    if rel_radius > 0:
        assert ref.n_margin_errors > 0
    for Xs in (X, sp.csr_matrix(X)):
        est = Ballseptron(radius=radius, max_iter=3, shuffle=False,
                          hypothesis=hypothesis)
        assert_matches_reference(est.fit(Xs, y, sample_weight=w), ref)
        assert_array_equal(est.predict(Xs), ref.predict(X))


@pytest.mark.reference
@pytest.mark.parametrize("n_classes", [2, 3])
def test_class_weight_is_its_sample_weight(n_classes):
    X, y, idx, scale = make_stream(n_classes, _seed("cw", n_classes))
    labels = np.unique(y)
    class_weight = {c: 0.5 + k for k, c in enumerate(labels)}
    per_row = np.array([class_weight[c] for c in y])
    params = dict(radius=0.3 * scale, max_iter=3, shuffle=False)
    by_class = Ballseptron(class_weight=class_weight, **params).fit(X, y)
    by_row = Ballseptron(**params).fit(X, y, sample_weight=per_row)
    assert_same_state(by_class, by_row)
    # Both multiply: class_weight × sample_weight.
    s = _weights(X.shape[0], "float", 3)
    both = Ballseptron(class_weight=class_weight, **params).fit(
        X, y, sample_weight=s)
    ref = reference.fit(X, y, hypothesis="averaged", sample_weight=s * per_row,
                        **{k: v for k, v in params.items() if k != "shuffle"})
    assert_matches_reference(both, ref)
    balanced = Ballseptron(class_weight="balanced", **params).fit(X, y)
    counts = np.array([np.sum(y == c) for c in labels])
    ref = reference.fit(
        X, y, hypothesis="averaged", max_iter=3, radius=0.3 * scale,
        sample_weight=(len(y) / (len(labels) * counts))[idx])
    assert_matches_reference(balanced, ref)


@pytest.mark.reference
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
def test_large_weights_flip_the_shrink_factor(n_classes, hypothesis):
    """Weights up to 40 at a radius near the row norms: s r > ‖w‖ happens,
    the binary factor 1 - s r/‖w‖ is negative (the lazy scale flips sign)
    and the weights still follow Figure 2 (to 1e-8: the recursion is then
    as ill-conditioned as a radius far above ‖w‖ is unweighted)."""
    X, y, idx, scale = make_stream(n_classes, _seed("big", n_classes))
    rng = np.random.default_rng(5)
    w = np.where(rng.random(X.shape[0]) < 0.2, 40.0, 1.0)
    w[0] = 2.0  # not all 1: the weighted loop path
    radius = 0.5 * scale
    ref = reference.fit(X, y, radius=radius, max_iter=1,
                        hypothesis=hypothesis, sample_weight=w)
    assert ref.n_margin_errors > 0
    for Xs in (X, sp.csr_matrix(X)):
        est = Ballseptron(radius=radius, max_iter=1, shuffle=False,
                          hypothesis=hypothesis).fit(Xs, y, sample_weight=w)
        assert_array_equal(est.mistakes_per_epoch_, ref.mistakes_per_epoch)
        assert_array_equal(est.margin_errors_per_epoch_,
                           ref.margin_errors_per_epoch)
        W = ref.coef
        assert_allclose(est.coef_, W, rtol=1e-8,
                        atol=1e-8 * max(1.0, float(np.max(np.abs(W)))))


@pytest.mark.reference
@pytest.mark.parametrize("s, expected_w", [
    # ‖w‖ = 2 after the first row; the second (x = 1, y = +1) is a margin
    # error at r = 1 with factor 1 - s r/‖w‖: 0 for s = 2 (the scale-0
    # path), -4 for s = 10 (negative scale), 0.75 for s = 0.5. In one
    # dimension x̂ = 0, so w + s y x̂ = 2 whatever s.
    (2.0, 2.0), (10.0, 2.0), (0.5, 2.0)])
def test_weighted_shrink_factor_zero_and_negative_1d(s, expected_w):
    X = np.array([[2.0], [1.0], [3.0]])
    y = np.array([1.0, 1.0, -1.0])
    w = np.array([1.0, s, 1.5])
    ref = reference.fit(X, y, radius=1.0, max_iter=2, hypothesis="last",
                        sample_weight=w)
    first = reference.fit(X[:2], y[:2], radius=1.0, max_iter=1,
                          hypothesis="last", sample_weight=w[:2],
                          classes=[-1.0, 1.0])
    assert first.n_margin_errors == 1
    assert_allclose(first.coef[0, 0], expected_w, rtol=1e-15)
    for Xs in (X, sp.csr_matrix(X)):
        est = Ballseptron(radius=1.0, max_iter=2, shuffle=False,
                          hypothesis="last").fit(Xs, y, sample_weight=w)
        assert_matches_reference(est, ref)


# ------------------------------------------------------------ kernels
@pytest.mark.reference
@pytest.mark.parametrize("kernel, params", KERNEL_PARAMS[::2])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
def test_weighted_kernels_match_brute_force_dual_reference(
        kernel, params, n_classes, hypothesis):
    X, y, radius = _kernel_case("kw", kernel, params, n_classes, 0.3)
    w = _weights(X.shape[0], "float", _seed("kw", kernel, n_classes),
                 zeros=3)
    ref = reference.fit(X, y, radius=radius, max_iter=3,
                        hypothesis=hypothesis, kernel=kernel,
                        sample_weight=w, **params)
    assert ref.n_margin_errors > 0
    expected = ref.decision_function(X)
    # The support: rows with a coefficient in the average or in w.
    in_support = np.any((ref.dual_coef != 0) | (ref.last_dual_coef != 0),
                        axis=0)
    for Xs in (X, sp.csr_matrix(X)):
        est = Ballseptron(kernel=kernel, radius=radius, max_iter=3,
                          shuffle=False, hypothesis=hypothesis, **params)
        est.fit(Xs, y, sample_weight=w)
        assert_array_equal(est.mistakes_per_epoch_, ref.mistakes_per_epoch)
        assert_array_equal(est.margin_errors_per_epoch_,
                           ref.margin_errors_per_epoch)
        assert_close_scores(est.decision_function(Xs), expected)
        assert_array_equal(est.predict(Xs), ref.predict(X))
        sv = est.support_vectors_
        assert_array_equal(sv.toarray() if sp.issparse(sv) else sv,
                           X[in_support])


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
def test_weighted_linear_kernel_equals_primal(n_classes, hypothesis):
    X, y, _, scale = make_stream(n_classes, _seed("wlin", n_classes))
    w = _weights(X.shape[0], "int", 1)
    params = dict(radius=0.3 * scale, max_iter=3, random_state=2,
                  hypothesis=hypothesis)
    primal = Ballseptron(**params).fit(X, y, sample_weight=w)
    dual = Ballseptron(kernel="linear", **params).fit(X, y, sample_weight=w)
    assert primal.n_margin_errors_ > 0
    assert_array_equal(dual.mistakes_per_epoch_, primal.mistakes_per_epoch_)
    assert_array_equal(dual.margin_errors_per_epoch_,
                       primal.margin_errors_per_epoch_)
    assert_close_scores(dual.coef_, primal.coef_)


# ------------------------------------------------------------ bit for bit
FORMS = [dict(), dict(kernel="rbf", gamma=0.5)]


def _ones_reach_the_loops(monkeypatch):
    """Make the compiled loops receive an explicit array of ones instead of
    the empty "every weight is 1" array."""
    def primal(self, call):
        return np.ones(call.X.shape[0])

    def dual(self, call):
        return np.ones(call.dual.n_pool + call.X.shape[0])

    monkeypatch.setattr(WeightRows, "padded_weights", primal)
    monkeypatch.setattr(DualWeights, "padded_weights", dual)


@pytest.mark.parametrize("form", FORMS, ids=["primal", "rbf"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
@pytest.mark.parametrize("sparse", [False, True])
def test_unit_weights_are_the_unweighted_run_bit_for_bit(
        form, n_classes, hypothesis, sparse, monkeypatch):
    X, y, _, scale = make_stream(n_classes, _seed("unit", n_classes))
    if form:
        X = X / np.sqrt(X.shape[1])
        scale = scale / np.sqrt(X.shape[1])
    Xs = sp.csr_matrix(X) if sparse else X
    params = dict(radius=0.5 * scale, max_iter=3, random_state=4,
                  hypothesis=hypothesis, **form)
    plain = Ballseptron(**params).fit(Xs, y)
    assert plain.n_margin_errors_ > 0
    ones = Ballseptron(**params).fit(Xs, y, sample_weight=np.ones(len(y)))
    assert_same_state(ones, plain)
    # Second call of partial_fit, with a pool in front in the dual form.
    plain.partial_fit(Xs, y)
    _ones_reach_the_loops(monkeypatch)
    looped = Ballseptron(**params).fit(Xs, y)
    assert_same_state(looped, ones)
    looped.partial_fit(Xs, y)
    assert_same_state(looped, plain)


@pytest.mark.parametrize("form", FORMS, ids=["primal", "rbf"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("unit", [True, False])
def test_rows_of_weight_zero_are_rows_absent(form, n_classes, unit):
    X, y, _, scale = make_stream(n_classes, _seed("zero", n_classes))
    w = _weights(X.shape[0], "int", 7, zeros=6)
    if unit:
        w = (w > 0).astype(np.float64)
    kept = w > 0
    assert len(np.unique(y[kept])) == n_classes
    params = dict(radius=0.3 * scale, max_iter=3, shuffle=False, **form)
    for Xs in (X, sp.csr_matrix(X)):
        with_zeros = Ballseptron(**params).fit(Xs, y, sample_weight=w)
        absent = Ballseptron(**params).fit(
            Xs[kept], y[kept], sample_weight=None if unit else w[kept])
        assert_same_state(with_zeros, absent)
        assert with_zeros.t_ == absent.t_ == 3 * kept.sum()
        if form:
            # support_ indexes the kept rows (see the module notes).
            assert_array_equal(with_zeros.support_, absent.support_)


@pytest.mark.parametrize("form", FORMS, ids=["primal", "rbf"])
@pytest.mark.parametrize("n_classes", [2, 4])
def test_weighted_partial_fit_passes_equal_fit(form, n_classes):
    X, y, _, scale = make_stream(n_classes, _seed("wpf", n_classes))
    w = _weights(X.shape[0], "float", 11, zeros=2)
    params = dict(radius=0.3 * scale, **form)
    fitted = Ballseptron(max_iter=3, shuffle=False, **params).fit(
        X, y, sample_weight=w)
    online = Ballseptron(**params)
    online.partial_fit(X, y, classes=np.unique(y), sample_weight=w)
    online.partial_fit(X, y, sample_weight=w)
    online.partial_fit(X, y, sample_weight=w)
    assert fitted.n_margin_errors_ > 0
    assert_array_equal(online.mistakes_per_epoch_, fitted.mistakes_per_epoch_)
    assert_array_equal(online.margin_errors_per_epoch_,
                       fitted.margin_errors_per_epoch_)
    if form:
        # The pool's rows come first in later calls: equal to rounding, as
        # unweighted (test_ballseptron_kernel).
        assert_close_scores(online.decision_function(X),
                            fitted.decision_function(X))
    else:
        assert_array_equal(online.coef_, fitted.coef_)


def test_weights_scale_the_step_on_one_row():
    """One mistake on x with weight s: w = s y x; a weight per row, not per
    class, through class_weight too."""
    X = np.array([[1.0, 2.0], [0.0, 1.0]])
    y = np.array([0, 1])
    est = Ballseptron(radius=0.0, max_iter=1, shuffle=False,
                      hypothesis="last").fit(X, y, sample_weight=[3.0, 0.5])
    # Row 0: score 0, a mistake: w = -3 x_0; row 1: -6 < 0, w += 0.5 x_1.
    assert_array_equal(est.coef_, [[-3.0, -5.5]])
    cw = Ballseptron(radius=0.0, max_iter=1, shuffle=False, hypothesis="last",
                     class_weight={0: 3.0, 1: 0.5}).fit(X, y)
    assert_array_equal(cw.coef_, est.coef_)


# ------------------------------------------------------------ coef_init
@pytest.mark.reference
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
@pytest.mark.parametrize("weighted", [False, True])
def test_coef_init_matches_reference(n_classes, hypothesis, weighted):
    X, y, idx, scale = make_stream(n_classes, _seed("init", n_classes))
    rng = np.random.default_rng(n_classes)
    n_rows = 1 if n_classes == 2 else n_classes
    coef = rng.standard_normal((n_rows, X.shape[1]))
    w = _weights(X.shape[0], "float", 2) if weighted else None
    radius = 0.3 * scale
    ref = reference.fit(X, y, radius=radius, max_iter=2,
                        hypothesis=hypothesis, coef_init=coef,
                        sample_weight=w)
    assert ref.n_margin_errors > 0
    for Xs in (X, sp.csr_matrix(X)):
        est = Ballseptron(radius=radius, max_iter=2, shuffle=False,
                          hypothesis=hypothesis)
        est.fit(Xs, y, coef_init=coef, intercept_init=np.zeros(n_rows),
                sample_weight=w)
        assert_matches_reference(est, ref)
    if n_classes == 2:
        # A 1-D coef_init is the one row.
        flat = Ballseptron(radius=radius, max_iter=2, shuffle=False,
                           hypothesis=hypothesis).fit(
            X, y, coef_init=coef[0], sample_weight=w)
        assert_matches_reference(flat, ref)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_coef_init_at_a_fitted_model_continues_it(n_classes):
    """``coef_init=est.coef_`` (last hypothesis): decision values at the
    start are the fitted model's, and with radius 0 on separable data no
    update is left to make."""
    X, y, _, _ = make_stream(n_classes, _seed("cont", n_classes))
    first = Ballseptron(radius=0.0, hypothesis="last", max_iter=50,
                        random_state=0).fit(X, y)
    again = Ballseptron(radius=0.0, hypothesis="last", max_iter=1,
                        random_state=1)
    again.fit(X, y, coef_init=first.coef_, intercept_init=first.intercept_)
    if first.mistakes_per_epoch_[-1] == 0:
        assert again.n_updates_ == 0
        assert_array_equal(again.coef_, first.coef_)
    else:
        # Not separable: the next pass is the first one's next pass.
        assert again.n_mistakes_ > 0


def test_coef_init_refusals():
    X, y, _, _ = make_stream(2, _seed("refuse", 2))
    w = np.ones(X.shape[1])
    with pytest.raises(ValueError, match="intercept_init must be zero"):
        Ballseptron().fit(X, y, intercept_init=[0.5])
    with pytest.raises(ValueError, match="kernel"):
        Ballseptron(kernel="rbf").fit(X, y, coef_init=w)
    with pytest.raises(ValueError, match="coef_init has shape"):
        Ballseptron().fit(X, y, coef_init=np.ones((2, X.shape[1])))
    # intercept_init = 0 alone is accepted and changes nothing.
    a = Ballseptron(random_state=0).fit(X, y, intercept_init=[0.0])
    b = Ballseptron(random_state=0).fit(X, y)
    assert_array_equal(a.coef_, b.coef_)
