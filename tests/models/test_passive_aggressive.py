"""``PassiveAggressive`` against Crammer et al. (2006) and scikit-learn.

STYLE habits 11-12. With ``shuffle=False`` the estimator must reproduce the
transcription of Figure 1 (``tests/reference/passive_aggressive.py``: w as a
dense vector, the kernel form with an explicit Gram matrix, the average as a
naive running sum) on dense and CSR input: the same mistakes and updates,
pass by pass, the same weights and intercepts to ``RTOL``; PA, PA-I and
PA-II, with and without a bias, binary and one-vs-rest, last and averaged,
primal and kernel form, weighted rows.

Second reference: scikit-learn's ``PassiveAggressiveClassifier`` (its
``SGDClassifier`` with ``learning_rate="pa1"``/``"pa2"``). With
``fit_intercept=False``, PA-I and PA-II are its ``loss="hinge"`` and
``"squared_hinge"`` (``shuffle=False, tol=None``) weight for weight; with
the bias, they are scikit-learn without intercept on ``[X, 1]`` (the
constant feature's reading), and the test of scikit-learn's own intercept
rule shows where the two readings part.

Equivalences: ``kernel="linear"`` is the primal form; ``partial_fit`` one
pass per call is ``fit``; a PA-I row of integer weight k is k consecutive
copies of it; a weight s is C times s (PA, without C, refuses weights).
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning

from perceptrons import PassiveAggressive
from perceptrons.utils._param_validation import InvalidParameterError
from tests._pairwise import all_pairs, parametrize
from tests.reference import passive_aggressive as reference
from tests.reference.streams import make_stream as _make_stream
from tests.reference.streams import seed_of as _seed

RTOL = 1e-10


def _sklearn_pa(**params):
    """scikit-learn's PassiveAggressiveClassifier (deprecated in 1.8: its
    FutureWarning silenced), ``shuffle=False, tol=None``."""
    from sklearn.linear_model import PassiveAggressiveClassifier

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return PassiveAggressiveClassifier(shuffle=False, tol=None, **params)


def _fit_sklearn(est, X, y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y, **kwargs)


def make_stream(n_classes, seed, **kwargs):
    """A noisy linear stream with exact zeros, two zero rows and a
    duplicate; labels not 0..K-1.

    Right after its twin's unclipped update a duplicate sits at margin 1 up
    to rounding (Eq. (2)): its loss of ~1e-16 is below ``LOSS_ROUNDING``,
    passive for the estimator and the reference alike (two zero rows are
    such twins in the augmented space and in a kernel's).
    """
    labels = [-1, 1] if n_classes == 2 else [0, 2, 5, 7, 9][:n_classes]
    params = dict(n_classes=n_classes, n=(40, 79), d=(2, 11), sparsity=0.25,
                  zero_rows=2, duplicate=True, noise=0.15, bias=1.0,
                  labels=labels)
    params.update(kwargs)
    s = _make_stream(seed, **params)
    return s.X, s.y


def _close(a, b):
    scale = max(1.0, float(np.max(np.abs(b))) if np.size(b) else 1.0)
    assert_allclose(a, b, rtol=RTOL, atol=RTOL * scale)


def assert_matches_reference(est, ref):
    """Counts pass by pass, weights and intercepts to RTOL."""
    assert_array_equal(est.mistakes_per_epoch_, ref.mistakes_per_epoch)
    assert_array_equal(est.updates_per_epoch_, ref.updates_per_epoch)
    assert est.n_mistakes_ == ref.n_mistakes
    assert est.n_updates_ == ref.n_updates
    if ref.coef is not None:
        assert est.coef_.shape == ref.coef.shape
        _close(est.coef_, ref.coef)
    _close(est.intercept_, ref.intercept)


def _by_row(est, n_rows, kept=None):
    """The estimator's dual coefficients scattered by training row
    (``support_`` indexes the rows kept, those of positive weight)."""
    out = np.zeros((est.dual_coef_.shape[0], n_rows))
    rows = est.support_ if kept is None else np.flatnonzero(kept)[
        est.support_]
    out[:, rows] = est.dual_coef_
    return out


# ------------------------------------------------------------ reference
GRID = all_pairs({"n_classes": [2, 3, 4],
                  "variant": ["PA", "PA-I", "PA-II"],
                  "C": [0.05, 1.0],
                  "fit_intercept": [True, False],
                  "hypothesis": ["last", "averaged"],
                  "seed": [0, 1]})


@pytest.mark.reference
@parametrize(GRID)
def test_matches_reference_dense_and_csr(n_classes, variant, C,
                                         fit_intercept, hypothesis, seed):
    X, y = make_stream(n_classes, _seed(n_classes, variant, C, seed))
    params = dict(variant=variant, C=C, fit_intercept=fit_intercept,
                  hypothesis=hypothesis, max_iter=4)
    ref = reference.fit(X, y, **params)
    assert ref.n_updates > 0
    for Xs in (X, sp.csr_matrix(X)):
        est = PassiveAggressive(shuffle=False, **params).fit(Xs, y)
        assert_matches_reference(est, ref)
        assert_array_equal(est.predict(Xs), ref.predict(X))


KERNEL_GRID = all_pairs({"n_classes": [2, 3],
                         "variant": ["PA", "PA-I", "PA-II"],
                         "kernel": ["rbf", "poly", "linear"],
                         "fit_intercept": [True, False],
                         "hypothesis": ["last", "averaged"]})


@pytest.mark.reference
@parametrize(KERNEL_GRID)
def test_kernel_form_matches_reference(n_classes, variant, kernel,
                                       fit_intercept, hypothesis):
    X, y = make_stream(n_classes, _seed("kernel", n_classes, variant, kernel),
                       n=(25, 40), d=(2, 6))
    X_test = _make_stream(_seed("test", n_classes), n_classes=n_classes,
                          n=10, d=X.shape[1]).X
    params = dict(variant=variant, C=0.5, fit_intercept=fit_intercept,
                  hypothesis=hypothesis, max_iter=3, kernel=kernel,
                  gamma=0.3, degree=2, coef0=1.0)
    ref = reference.fit(X, y, **params)
    for Xs in (X, sp.csr_matrix(X)):
        est = PassiveAggressive(shuffle=False, **params).fit(Xs, y)
        assert_matches_reference(est, ref)
        _close(_by_row(est, X.shape[0]), ref.dual_coef)
        _close(est.decision_function(X_test), ref.decision_function(X_test))


PROTOTYPE_GRID = all_pairs({"n_classes": [3, 4],
                            "variant": ["PA", "PA-I", "PA-II"],
                            "kernel": [None, "rbf"],
                            "fit_intercept": [True, False],
                            "hypothesis": ["last", "averaged"],
                            "weighted": [False, True]})


@pytest.mark.reference
@parametrize(PROTOTYPE_GRID)
def test_prototypes_match_reference(n_classes, variant, kernel,
                                    fit_intercept, hypothesis, weighted):
    X, y = make_stream(n_classes, _seed("proto", n_classes, variant, kernel),
                       n=(25, 45), d=(2, 7))
    s = None
    if weighted and variant != "PA":
        s = np.random.default_rng(4).choice([0.0, 0.5, 1.0, 2.5],
                                            X.shape[0])
    params = dict(variant=variant, C=0.2, fit_intercept=fit_intercept,
                  multiclass="prototype", hypothesis=hypothesis, max_iter=3,
                  kernel=kernel, gamma=0.4)
    ref = reference.fit(X, y, sample_weight=s, **params)
    assert ref.n_updates > 0
    for Xs in (X, sp.csr_matrix(X)):
        est = PassiveAggressive(shuffle=False, **params).fit(
            Xs, y, sample_weight=s)
        assert_matches_reference(est, ref)
        if kernel is not None:
            kept = None if s is None else s > 0
            _close(_by_row(est, X.shape[0], kept), ref.dual_coef)
        assert_array_equal(est.predict(Xs), ref.predict(X))


def test_prototypes_with_two_classes_are_the_binary_algorithm():
    X, y = make_stream(2, _seed("proto2"))
    a = PassiveAggressive(multiclass="prototype", shuffle=False).fit(X, y)
    b = PassiveAggressive(shuffle=False).fit(X, y)
    assert_array_equal(a.coef_, b.coef_)
    X3, y3 = make_stream(3, _seed("proto3"))
    est = PassiveAggressive(multiclass="prototype").partial_fit(
        X3, y3, classes=np.unique(y3))
    est.set_params(multiclass="ovr")
    with pytest.raises(ValueError, match="multiclass='ovr'"):
        est.partial_fit(X3, y3)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("variant", ["PA", "PA-I", "PA-II"])
@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
def test_linear_kernel_is_the_primal_form(n_classes, variant, hypothesis):
    X, y = make_stream(n_classes, _seed("linear", n_classes, variant))
    for Xs in (X, sp.csr_matrix(X)):
        params = dict(variant=variant, C=0.3, hypothesis=hypothesis,
                      max_iter=4, shuffle=False)
        primal = PassiveAggressive(**params).fit(Xs, y)
        dual = PassiveAggressive(kernel="linear", **params).fit(Xs, y)
        assert_array_equal(dual.mistakes_per_epoch_,
                           primal.mistakes_per_epoch_)
        assert_array_equal(dual.updates_per_epoch_, primal.updates_per_epoch_)
        _close(dual.coef_, primal.coef_)
        _close(dual.intercept_, primal.intercept_)


# ------------------------------------------------------------ scikit-learn
SKLEARN_GRID = all_pairs({"n_classes": [2, 3, 4],
                          "variant": ["PA-I", "PA-II"],
                          "C": [0.01, 0.3, 10.0],
                          "max_iter": [1, 3, 6],
                          "storage": ["dense", "csr"]})
_LOSS = {"PA-I": "hinge", "PA-II": "squared_hinge"}


@pytest.mark.reference
@parametrize(SKLEARN_GRID)
def test_equals_sklearn_without_intercept(n_classes, variant, C, max_iter,
                                          storage):
    X, y = make_stream(n_classes, _seed("sk", n_classes, variant, C))
    Xs = sp.csr_matrix(X) if storage == "csr" else X
    est = PassiveAggressive(variant=variant, C=C, fit_intercept=False,
                            hypothesis="last", max_iter=max_iter,
                            shuffle=False).fit(Xs, y)
    sk = _fit_sklearn(_sklearn_pa(C=C, loss=_LOSS[variant],
                                  fit_intercept=False, max_iter=max_iter),
                      Xs, y)
    _close(est.coef_, sk.coef_)
    assert_array_equal(est.intercept_, 0.0)
    assert_array_equal(sk.intercept_, 0.0)
    # scikit-learn's averaged PA (average=True) is the averaged hypothesis,
    # on rows that are not all zero: its PA-I skips such a row without
    # counting the step in its average, where every presented row is a step
    # of the average here.
    keep = X.any(axis=1)
    Xs, y = Xs[np.flatnonzero(keep)], y[keep]
    avg = PassiveAggressive(variant=variant, C=C, fit_intercept=False,
                            max_iter=max_iter, shuffle=False).fit(Xs, y)
    sk_avg = _fit_sklearn(_sklearn_pa(C=C, loss=_LOSS[variant],
                                      fit_intercept=False, average=True,
                                      max_iter=max_iter), Xs, y)
    _close(avg.coef_, sk_avg.coef_)


@pytest.mark.reference
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("variant", ["PA-I", "PA-II"])
@pytest.mark.parametrize("storage", ["dense", "csr"])
def test_intercept_is_the_constant_feature(n_classes, variant, storage):
    X, y = make_stream(n_classes, _seed("bias", n_classes, variant))
    ones = np.ones((X.shape[0], 1))
    if storage == "csr":
        Xs, Xa = sp.csr_matrix(X), sp.csr_matrix(np.hstack([X, ones]))
    else:
        Xs, Xa = X, np.hstack([X, ones])
    est = PassiveAggressive(variant=variant, C=0.2, hypothesis="last",
                            max_iter=3, shuffle=False).fit(Xs, y)
    sk = _fit_sklearn(_sklearn_pa(C=0.2, loss=_LOSS[variant],
                                  fit_intercept=False, max_iter=3), Xa, y)
    _close(est.coef_, sk.coef_[:, :-1])
    _close(est.intercept_, sk.coef_[:, -1])


def test_sklearn_intercept_rule_overshoots_the_margin():
    """The reading chosen for the bias, against scikit-learn's.

    One update on x = (2, 0), y = +1 from w = 0, b = 0, PA (C = ∞): on
    ``[x, 1]`` τ = 1/(4 + 1), and the new score w·x + b is exactly 1, the
    margin Eq. (2) asks for. scikit-learn computes τ from ‖x‖² = 4 alone and
    adds the same τ to b: the score becomes 1.25 (and on sparse input b
    gets 0.01 τ).
    """
    X = np.array([[2.0, 0.0], [0.0, 0.0]])
    y = np.array([1, 0])
    est = PassiveAggressive(variant="PA", hypothesis="last", max_iter=1,
                            shuffle=False).partial_fit(X[:1], y[:1],
                                                       classes=[0, 1])
    assert est.decision_function(X[:1])[0] == pytest.approx(1.0, rel=1e-15)
    assert_allclose(est.coef_, [[0.4, 0.0]])
    assert_allclose(est.intercept_, [0.2])
    sk = _sklearn_pa(C=1e6, max_iter=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        sk.partial_fit(X[:1], y[:1], classes=[0, 1])
        assert sk.decision_function(X[:1])[0] == pytest.approx(1.25)
        sk_sparse = _sklearn_pa(C=1e6, max_iter=1).partial_fit(
            sp.csr_matrix(X[:1]), y[:1], classes=[0, 1])
    assert_allclose(sk_sparse.intercept_, [0.0025])


# ------------------------------------------------------------ weights
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_pa1_integer_weight_is_consecutive_copies(fit_intercept, n_classes):
    X, y = make_stream(n_classes, _seed("copies", n_classes))
    rng = np.random.default_rng(0)
    k = rng.integers(1, 4, X.shape[0])
    rows = np.repeat(np.arange(X.shape[0]), k)
    params = dict(variant="PA-I", C=0.05, fit_intercept=fit_intercept,
                  hypothesis="last", shuffle=False, max_iter=2)
    weighted = PassiveAggressive(**params).fit(X, y, sample_weight=k)
    copies = PassiveAggressive(**params).fit(X[rows], y[rows])
    _close(weighted.coef_, copies.coef_)
    _close(weighted.intercept_, copies.intercept_)


@pytest.mark.reference
@pytest.mark.parametrize("variant", ["PA-I", "PA-II"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("kernel", [None, "rbf"])
def test_weighted_rows_match_reference(variant, n_classes, kernel):
    X, y = make_stream(n_classes, _seed("weights", variant, n_classes),
                       n=(25, 40))
    rng = np.random.default_rng(1)
    s = rng.uniform(0.2, 3.0, X.shape[0])
    s[rng.random(X.shape[0]) < 0.2] = 0.0
    params = dict(variant=variant, C=0.1, max_iter=3, kernel=kernel,
                  gamma=0.5)
    ref = reference.fit(X, y, sample_weight=s, **params)
    for Xs in (X, sp.csr_matrix(X)):
        est = PassiveAggressive(shuffle=False, **params).fit(
            Xs, y, sample_weight=s)
        assert_matches_reference(est, ref)
        if kernel is not None:
            _close(_by_row(est, X.shape[0], s > 0), ref.dual_coef)


def test_weights_scale_c_and_pa_refuses_them():
    X, y = make_stream(3, _seed("scale"))
    s = np.full(X.shape[0], 2.5)
    for variant in ("PA-I", "PA-II"):
        params = dict(variant=variant, hypothesis="last", shuffle=False,
                      max_iter=3)
        weighted = PassiveAggressive(C=0.04, **params).fit(
            X, y, sample_weight=s)
        scaled = PassiveAggressive(C=0.1, **params).fit(X, y)
        _close(weighted.coef_, scaled.coef_)
    pa = PassiveAggressive(variant="PA", shuffle=False, max_iter=3)
    with pytest.raises(ValueError, match="PA-I"):
        pa.fit(X, y, sample_weight=s)
    with pytest.raises(ValueError, match="class_weight"):
        pa.set_params(class_weight="balanced").fit(X, y)
    # Rows of weight 0 and 1 need nothing of the rule.
    s01 = (np.arange(X.shape[0]) % 4 != 0).astype(float)
    keep = s01 > 0
    assert_array_equal(
        pa.set_params(class_weight=None).fit(X, y, sample_weight=s01).coef_,
        PassiveAggressive(variant="PA", shuffle=False, max_iter=3).fit(
            X[keep], y[keep]).coef_)


def test_weights_differ_from_sklearns_scaled_step():
    """scikit-learn (``SGDClassifier(learning_rate="pa1")``, which takes
    ``sample_weight``) multiplies τ by the weight after the clipping; here
    the weight scales C. They agree at weight 1 and part elsewhere."""
    from sklearn.linear_model import SGDClassifier

    X, y = make_stream(2, _seed("sk-weights"))
    s = np.full(X.shape[0], 2.0)

    def sk(weights):
        est = SGDClassifier(loss="hinge", penalty=None, learning_rate="pa1",
                            eta0=10.0, fit_intercept=False, max_iter=2,
                            shuffle=False, tol=None)
        return _fit_sklearn(est, X, y, sample_weight=weights).coef_

    def ours(weights, C=10.0):
        return PassiveAggressive(C=C, fit_intercept=False,
                                 hypothesis="last", max_iter=2,
                                 shuffle=False).fit(
            X, y, sample_weight=weights).coef_

    _close(ours(np.ones_like(s)), sk(np.ones_like(s)))
    assert not np.allclose(ours(s), sk(s))
    # Here a weight of 2 is C doubled: sklearn's doubled step is not.
    _close(ours(s), ours(None, C=20.0))
    assert not np.allclose(sk(s), ours(None, C=20.0))


# ------------------------------------------------------------ API
@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
@pytest.mark.parametrize("kernel", [None, "rbf"])
def test_partial_fit_passes_are_fit(hypothesis, kernel):
    X, y = make_stream(3, _seed("partial", hypothesis))
    params = dict(hypothesis=hypothesis, kernel=kernel, gamma=0.5)
    est = PassiveAggressive(max_iter=3, shuffle=False, **params).fit(X, y)
    inc = PassiveAggressive(**params)
    for _ in range(3):
        inc.partial_fit(X, y, classes=np.unique(y))
    assert_array_equal(inc.mistakes_per_epoch_, est.mistakes_per_epoch_)
    _close(inc.decision_function(X), est.decision_function(X))


@pytest.mark.parametrize("params, match", [
    ({"variant": "PA-III"}, "variant"),
    ({"variant": "pa"}, "variant"),
    ({"C": 0.0}, "C"),
    ({"C": -1.0}, "C"),
    ({"C": "1"}, "C"),
    ({"fit_intercept": "yes"}, "fit_intercept"),
    ({"hypothesis": "voted"}, "hypothesis"),
    ({"multiclass": "ova"}, "multiclass"),
    ({"kernel": "sigmoid"}, "kernel"),
])
def test_bad_parameters_are_refused(params, match):
    X, y = make_stream(2, 0)
    with pytest.raises(InvalidParameterError, match=match):
        PassiveAggressive(**params).fit(X, y)


def test_zero_rows_without_bias_are_passive():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]])
    y = np.array([1, 0, 1])
    for variant in ("PA", "PA-I", "PA-II"):
        est = PassiveAggressive(variant=variant, fit_intercept=False,
                                hypothesis="last", shuffle=False,
                                max_iter=2).fit(X, y)
        # Only the row (1, 0) moves w: once to margin 1 (PA) or less.
        assert est.n_updates_ >= 1
        assert np.isfinite(est.coef_).all()
        assert est.coef_[0, 1] == 0.0


def test_switching_to_averaged_after_last_is_refused():
    X, y = make_stream(2, 1)
    est = PassiveAggressive(hypothesis="last").partial_fit(X, y,
                                                          classes=[-1, 1])
    est.set_params(hypothesis="averaged")
    with pytest.raises(ValueError, match="averaged"):
        est.partial_fit(X, y)


@pytest.mark.parametrize("n_classes, multiclass",
                         [(2, "ovr"), (3, "ovr"), (3, "prototype")])
def test_parameter_mixing_mixes_w_b_and_pools_the_average(n_classes,
                                                          multiclass):
    """One epoch of uniform mixing over two shards from w = 0: the last
    (w, b) is the mean of the shards' runs, and the averaged hypothesis is
    the average of every hypothesis either shard visited,
    ``(t_A avg_A + t_B avg_B) / (t_A + t_B)``."""
    from perceptrons.distributed import ParameterMixing

    X, y = make_stream(n_classes, _seed("mixing", n_classes), n=60)
    cut = [np.arange(30), np.arange(30, 60)]
    classes = np.unique(y)
    for hypothesis in ("last", "averaged"):
        est = PassiveAggressive(hypothesis=hypothesis, shuffle=False,
                                max_iter=1, multiclass=multiclass)
        ipm = ParameterMixing(est).fit([X[c] for c in cut],
                                       [y[c] for c in cut], classes=classes)
        runs = [PassiveAggressive(hypothesis=hypothesis, shuffle=False,
                                  max_iter=1, multiclass=multiclass
                                  ).partial_fit(X[c], y[c],
                                                          classes=classes)
                for c in cut]
        if hypothesis == "last":
            want = [np.mean([r.coef_ for r in runs], axis=0),
                    np.mean([r.intercept_ for r in runs], axis=0)]
        else:
            t = np.array([r.t_ for r in runs], dtype=float)
            want = [sum(ti * r.coef_ for ti, r in zip(t, runs)) / t.sum(),
                    sum(ti * r.intercept_ for ti, r in zip(t, runs))
                    / t.sum()]
        _close(ipm.coef_, want[0])
        _close(ipm.intercept_, want[1])



def test_coef_init_and_warm_start():
    """``coef_init``/``intercept_init`` start w and b (scikit-learn's
    ``fit(coef_init=...)`` without intercept is the same run); warm_start
    continues the state: 2 + 3 passes are 5."""
    X, y = make_stream(3, _seed("init"))
    rng = np.random.default_rng(3)
    W0 = rng.standard_normal((3, X.shape[1]))
    b0 = rng.standard_normal(3)
    params = dict(variant="PA-II", C=0.2, hypothesis="last", shuffle=False)
    est = PassiveAggressive(fit_intercept=False, max_iter=3, **params).fit(
        X, y, coef_init=W0, intercept_init=b0)
    sk = _fit_sklearn(_sklearn_pa(C=0.2, loss="squared_hinge",
                                  fit_intercept=False, max_iter=3), X, y,
                      coef_init=W0, intercept_init=b0)
    _close(est.coef_, sk.coef_)
    assert_array_equal(est.intercept_, b0)  # b fixed without the bias
    five = PassiveAggressive(max_iter=5, **params).fit(X, y)
    warm = PassiveAggressive(max_iter=2, warm_start=True, **params).fit(X, y)
    warm.set_params(max_iter=3).fit(X, y)
    assert_array_equal(warm.mistakes_per_epoch_, five.mistakes_per_epoch_)
    _close(warm.coef_, five.coef_)
    _close(warm.intercept_, five.intercept_)
    with pytest.raises(ValueError, match="kernel=None"):
        PassiveAggressive(kernel="rbf").fit(X, y, coef_init=W0)


def test_tol_stops_when_the_mistakes_stop_falling():
    """On separable data PA's online mistakes fall to 0; scikit-learn's rule
    (``tol``, ``n_iter_no_change``) then stops the run long before
    ``max_iter``, without a ConvergenceWarning."""
    from tests.theory._theory_helpers import separable_sample

    X, y, _ = separable_sample(np.random.default_rng(2), 80, 3, 0.3, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = PassiveAggressive(variant="PA", hypothesis="last", tol=1e-3,
                                max_iter=1000, random_state=0).fit(X, y)
    assert est.n_iter_ < 50
    assert_array_equal(est.mistakes_per_epoch_[-5:], 0)
    assert est.score(X, y) == 1.0
