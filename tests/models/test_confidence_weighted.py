"""CW, AROW, SCW, NAROW and NHERD against their transcriptions.

STYLE habits 11-12. With ``shuffle=False`` each estimator must reproduce
``tests/reference/confidence_weighted.py`` (the papers' formulas one row at
a time, Σ as a dense matrix or a vector, NAROW in the θ/A⁻¹ form of its
first author's code, the average as a naive running sum) on dense and CSR
input: the same mistakes and updates, pass by pass, and the same means,
intercepts and covariances to ``RTOL``. AROW, SCW-I and SCW-II on the full
product of binary/one-vs-rest, one/two passes and both covariance forms;
every rule on an all-pairs grid of the bias, the hypothesis, weights and
the forms.

The readings the estimators' docstrings name are tested against the
alternatives: LIBOL's NAROW and SCW-II, the "drop" diagonal, NHERD's other
diagonals. Equivalences: SCW-I with a C no step reaches is CW; AROW's mean
is a ridge solution; AROW's Σ₀ = aI is r/a.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from perceptrons import AROW, CW, NAROW, NHERD, SCW
from perceptrons.distributed import ParameterMixing
from tests._pairwise import all_pairs, parametrize
from tests.models import test_defaults
from tests.reference import confidence_weighted as reference
from tests.reference.streams import make_stream as _make_stream
from tests.reference.streams import seed_of as _seed

RTOL = 1e-8

FAMILY = [CW, AROW, SCW, NAROW, NHERD]

#: Each rule's estimator and parameters (away from the defaults).
RULES = {
    "CW": (CW, {"eta": 0.8, "a": 0.7}),
    "AROW": (AROW, {"r": 0.5}),
    "SCW-I": (SCW, {"variant": "SCW-I", "C": 0.3, "eta": 0.8, "a": 1.5}),
    "SCW-II": (SCW, {"variant": "SCW-II", "C": 0.3, "eta": 0.8}),
    "NAROW": (NAROW, {"b": 0.7}),
    "NHERD": (NHERD, {"C": 0.4}),
}


def make_stream(n_classes, seed, **kwargs):
    """A noisy linear stream with exact zeros, two zero rows and a
    duplicate; labels not 0..K-1. (CW's streams have no duplicate: a row
    met again with the other label is a constraint no Gaussian meets,
    :func:`test_cw_refuses_to_go_on_with_contradictory_rows`.)"""
    labels = [-1, 1] if n_classes == 2 else [0, 2, 5, 7, 9][:n_classes]
    params = dict(n_classes=n_classes, n=(30, 50), d=(2, 7), sparsity=0.25,
                  zero_rows=2, duplicate=True, noise=0.15, bias=1.0,
                  labels=labels)
    params.update(kwargs)
    s = _make_stream(seed, **params)
    return s.X, s.y


def _close(a, b):
    scale = max(1.0, float(np.max(np.abs(b))) if np.size(b) else 1.0)
    assert_allclose(a, b, rtol=RTOL, atol=RTOL * scale)


def _stream_for(rule, n_classes, seed, **kwargs):
    return make_stream(n_classes, seed, duplicate=rule != "CW", **kwargs)


def _fit_both(rule, X, y, sample_weight=None, **params):
    """The reference's run and the estimator's, dense and CSR."""
    cls, rule_params = RULES[rule]
    ref = reference.fit(X, y, rule=rule, sample_weight=sample_weight,
                        **{k: v for k, v in rule_params.items()
                           if k != "variant"}, **params)
    ests = [cls(shuffle=False, **rule_params, **params).fit(
        Xs, y, sample_weight=sample_weight) for Xs in (X, sp.csr_matrix(X))]
    return ref, ests


def assert_matches_reference(est, ref):
    """Counts pass by pass; means, intercepts and covariances to RTOL."""
    assert_array_equal(est.mistakes_per_epoch_, ref.mistakes_per_epoch)
    assert_array_equal(est.updates_per_epoch_, ref.updates_per_epoch)
    assert est.n_mistakes_ == ref.n_mistakes
    assert est.n_updates_ == ref.n_updates
    assert est.coef_.shape == ref.coef.shape
    _close(est.coef_, ref.coef)
    _close(est.intercept_, ref.intercept)
    _close(est.covariance_, ref.covariance)


# ------------------------------------------------------------ reference
@pytest.mark.reference
@pytest.mark.parametrize("covariance", ["diagonal", "full"])
@pytest.mark.parametrize("max_iter", [1, 2])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("rule", ["AROW", "SCW-I", "SCW-II"])
def test_arow_and_scw_match_reference(rule, n_classes, max_iter,
                                      covariance):
    seed = _seed(rule, n_classes, max_iter, covariance)
    X, y = _stream_for(rule, n_classes, seed)
    ref, ests = _fit_both(rule, X, y, covariance=covariance,
                          max_iter=max_iter,
                          fit_intercept=bool(seed % 2),
                          hypothesis=("last", "averaged")[seed // 2 % 2])
    assert ref.n_updates > 0
    for est in ests:
        assert_matches_reference(est, ref)
        assert_array_equal(est.predict(X), ref.predict(X))


GRID = all_pairs({"rule": list(RULES),
                  "covariance": ["diagonal", "full"],
                  "n_classes": [2, 3, 4],
                  "fit_intercept": [True, False],
                  "hypothesis": ["last", "averaged"],
                  "weighted": [False, True]})


@pytest.mark.reference
@parametrize(GRID)
def test_every_rule_matches_reference(rule, covariance, n_classes,
                                      fit_intercept, hypothesis, weighted):
    X, y = _stream_for(rule, n_classes, _seed("grid", rule, n_classes,
                                              weighted))
    s = (np.random.default_rng(3).choice([0.0, 0.5, 1.0, 2.5], X.shape[0])
         if weighted else None)
    ref, ests = _fit_both(rule, X, y, sample_weight=s, covariance=covariance,
                          fit_intercept=fit_intercept, hypothesis=hypothesis,
                          max_iter=2)
    assert ref.n_updates > 0
    for est in ests:
        assert_matches_reference(est, ref)


@pytest.mark.reference
@pytest.mark.parametrize("rule", list(RULES))
def test_partial_fit_calls_are_fit(rule):
    """One ``partial_fit`` per pass is ``fit``, and ``learn_one`` row by
    row is one ``partial_fit`` (the online step of the driver)."""
    cls, params = RULES[rule]
    X, y = _stream_for(rule, 3, _seed("partial", rule))
    full = cls(shuffle=False, max_iter=2, hypothesis="averaged",
               **params).fit(X, y)
    part = cls(hypothesis="averaged", **params)
    for _ in range(2):
        part.partial_fit(X, y, classes=np.unique(y))
    assert_array_equal(part.coef_, full.coef_)
    assert_array_equal(part.covariance_, full.covariance_)


# ------------------------------------------------------------ readings
def _noisy_sets(n_sets=3):
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split

    for n_classes, seed, flip, informative in test_defaults.NOISY_SETS[
            :n_sets]:
        X, y = make_classification(n_samples=600, n_features=20,
                                   n_informative=informative, flip_y=flip,
                                   n_classes=n_classes, random_state=seed)
        yield train_test_split(X, y, test_size=0.4, random_state=0)


def test_narow_reading_against_libol():
    """LIBOL's NAROW (AROW's step with r_t, none once v <= 1/b) stops
    updating a direction it knows well; the paper's form goes on with the
    mean's step. On noisy sets the paper's form predicts better, and the
    two differ in their updates."""
    gaps = []
    for Xtr, Xte, ytr, yte in _noisy_sets():
        ours = reference.fit(Xtr, ytr, rule="NAROW", b=1.0, max_iter=3)
        libol = reference.fit(Xtr, ytr, rule="NAROW-LIBOL", b=1.0,
                              max_iter=3)
        assert libol.updates_per_epoch[-1] < ours.updates_per_epoch[-1]
        gaps.append(np.mean(ours.predict(Xte) == yte)
                    - np.mean(libol.predict(Xte) == yte))
    assert np.mean(gaps) > 0.02, gaps


def test_scw2_reading_against_libol():
    """LIBOL's SCW-II (``v*2``, ``phi*2`` for v², φ²) makes other steps
    than the paper's closed form (whose optimality
    tests/theory/test_confidence_weighted_theorems.py checks)."""
    X, y = make_stream(2, _seed("scw2-libol"))
    ours = reference.fit(X, y, rule="SCW-II", C=0.3, eta=0.8)
    libol = reference.fit(X, y, rule="SCW-II-LIBOL", C=0.3, eta=0.8)
    est = SCW(variant="SCW-II", C=0.3, eta=0.8, shuffle=False,
              hypothesis="last", max_iter=1).fit(X, y)
    _close(est.coef_, ours.coef)
    assert np.max(np.abs(libol.coef - ours.coef)) > 1e-3


@pytest.mark.parametrize("rule", ["AROW", "CW", "SCW-I", "NHERD"])
def test_the_diagonal_reading_against_drop(rule):
    """The diagonal form keeps the diagonal of the precision's step
    (NHERD: its own exact diagonal), not the diagonal of the covariance's
    step ("drop"): the two differ after the first update that touches a
    coordinate twice."""
    X, y = _stream_for(rule, 2, _seed("drop", rule))
    _, params = RULES[rule]
    params = {k: v for k, v in params.items() if k != "variant"}
    ours = reference.fit(X, y, rule=rule, max_iter=2, **params)
    drop = reference.fit(X, y, rule=rule, max_iter=2, diagonal="drop",
                         **params)
    cls, est_params = RULES[rule]
    est = cls(shuffle=False, max_iter=2, hypothesis="last",
              **est_params).fit(X, y)
    _close(est.covariance_, ours.covariance)
    assert np.max(np.abs(drop.covariance - ours.covariance)) > 1e-3


# ------------------------------------------------------------ equivalences
def test_scw1_without_cap_is_cw():
    X, y = _stream_for("CW", 3, _seed("cap"))
    a = CW(eta=0.8, shuffle=False, max_iter=3).fit(X, y)
    b = SCW(eta=0.8, C=1e300, shuffle=False, max_iter=3).fit(X, y)
    assert_array_equal(a.coef_, b.coef_)
    assert_array_equal(a.covariance_, b.covariance_)
    assert a.n_updates_ == b.n_updates_ > 0


@pytest.mark.parametrize("weighted", [False, True])
def test_arow_mean_is_a_ridge_solution(weighted):
    """Full form through the origin: μ = (rI + Σ_U s x xᵀ)⁻¹ Σ_U s y x
    over the rounds U that updated."""
    X, y = make_stream(2, _seed("ridge", weighted), sparsity=0.0,
                       zero_rows=0)
    s = (np.random.default_rng(0).uniform(0.5, 2.0, X.shape[0])
         if weighted else np.ones(X.shape[0]))
    r = 0.7
    est = AROW(r=r, covariance="full", fit_intercept=False,
               hypothesis="last")
    updated = []
    for i in range(X.shape[0]):
        before = est.n_updates_ if i else 0
        est.learn_one(X[i], y[i], classes=[-1, 1], sample_weight=s[i])
        updated.append(est.n_updates_ > before)
    U = np.flatnonzero(updated)
    sign = np.where(y == 1, 1.0, -1.0)
    A = r * np.eye(X.shape[1]) + (X[U].T * s[U]) @ X[U]
    ridge = np.linalg.solve(A, X[U].T @ (s[U] * sign[U]))
    _close(est.coef_[0], ridge)
    # Σ = (I + Σ_U s x xᵀ / r)⁻¹ = r A⁻¹.
    _close(est.covariance_[0][:-1, :-1], r * np.linalg.inv(A))


def test_arow_initial_variance_is_r_over_a():
    X, y = make_stream(3, _seed("a"))
    scaled = reference.fit(X, y, rule="AROW", r=2.0, a=4.0, max_iter=2,
                           covariance="full")
    est = AROW(r=0.5, covariance="full", shuffle=False, max_iter=2).fit(X, y)
    _close(est.coef_, scaled.coef)
    _close(4.0 * est.covariance_, scaled.covariance)


def test_cw_stays_finite_on_contradictory_rows():
    """The same row with both labels: each step meets the row's constraint
    for its label exactly, the next must meet the opposite one, and the
    variance along x collapses; the printed √u then rounds to 0 (the
    reference divides by it), the estimator's form of it does not, and the
    run stays finite."""
    X, y = make_stream(2, _seed("contradict"), sparsity=0.0, zero_rows=0)
    X = np.vstack([X, X[:1], X[:1]])
    y = np.concatenate([y, [y[0], -y[0]]])
    for covariance in ("diagonal", "full"):
        est = CW(eta=0.8, shuffle=False, max_iter=50,
                 covariance=covariance).fit(X, y)
        assert np.isfinite(est.coef_).all()
        variances = (est.covariance_ if covariance == "diagonal"
                     else np.diagonal(est.covariance_, axis1=1, axis2=2))
        assert np.isfinite(est.covariance_).all() and variances.min() >= 0
        # (Its variances may underflow to 0; the state is still valid.)
        CW().set_params(**est.get_params())._set_state(est.state_)


@pytest.mark.parametrize("covariance", ["diagonal", "full"])
def test_cw_reads_a_weight_as_one_presentation(covariance):
    X, y = _stream_for("CW", 3, _seed("cw-weights"))
    s = np.random.default_rng(1).choice([0.0, 0.5, 1.0, 3.0], X.shape[0])
    a = CW(shuffle=False, covariance=covariance).fit(X, y, sample_weight=s)
    b = CW(shuffle=False, covariance=covariance).fit(X[s > 0], y[s > 0])
    assert_array_equal(a.coef_, b.coef_)
    if covariance == "full":
        # Three copies in a row are the row once.
        rows = np.repeat(np.arange(X.shape[0]), 3)
        c = CW(shuffle=False, covariance="full", eta=0.8).fit(X[rows], y[rows])
        d = CW(shuffle=False, covariance="full", eta=0.8).fit(X, y)
        assert c.n_updates_ == d.n_updates_
        _close(c.coef_ * 3, d.coef_ * 3)


# ------------------------------------------------------------ defaults
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("cls", FAMILY)
def test_defaults_are_close_to_linear_svc(cls, n_classes):
    # test_defaults.py lists its estimators by hand: until it reads the
    # registry, its checks run here for the family.
    test_defaults.test_default_is_close_to_linear_svc_on_noisy_data(
        cls, n_classes)


@pytest.mark.parametrize("n_classes, seed, flip, informative",
                         test_defaults.NOISY_SETS)
@pytest.mark.parametrize("cls", FAMILY)
def test_defaults_on_nine_noisy_sets(cls, n_classes, seed, flip,
                                     informative):
    test_defaults.test_matrix_defaults_are_close_to_linear_svc(
        cls, n_classes, seed, flip, informative)


@pytest.mark.parametrize("cls", FAMILY)
def test_underflowing_squares_are_refused(cls):
    test_defaults.test_underflowing_squares_are_refused(cls)


# ------------------------------------------------------------ refusals
def test_a_continued_model_keeps_its_covariance_form():
    X, y = make_stream(2, _seed("form"))
    est = AROW().partial_fit(X, y, classes=[-1, 1])
    est.set_params(covariance="full")
    with pytest.raises(ValueError, match="covariance='full', but the model"):
        est.partial_fit(X, y)


def test_full_covariance_too_large_is_refused(monkeypatch):
    import perceptrons.models._confidence_weighted as module

    monkeypatch.setattr(module, "FULL_COVARIANCE_LIMIT", 1000)
    X, y = make_stream(2, _seed("wide"), d=20)
    with pytest.raises(ValueError, match="use covariance='diagonal'"):
        NHERD(covariance="full").fit(X, y)


def test_parameter_mixing_is_refused():
    X, y = make_stream(2, _seed("mix"))
    with pytest.raises(ValueError, match="covariance updated"):
        ParameterMixing(SCW(), n_shards=2).fit(X, y)


@pytest.mark.parametrize("eta", [0.5, 1.0, 0.2])
def test_eta_is_a_confidence_above_one_half(eta):
    X, y = make_stream(2, _seed("eta"))
    with pytest.raises(ValueError, match="eta"):
        CW(eta=eta).fit(X, y)


def test_float32_stays_float32_and_sparse_stays_sparse():
    X, y = make_stream(3, _seed("f32"))
    X32 = sp.csr_matrix(X.astype(np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = SCW(random_state=0).fit(X32, y)
    b = SCW(random_state=0).fit(X32.astype(np.float64), y)
    assert_array_equal(a.coef_, b.coef_)
