"""Classes that arrive after the first call (issue #39.1): every estimator
of the registry either grows to the new class and learns it, or refuses
with its algorithm's reason and the remedy; a grown model is the model
that knew the class from the start wherever the paper's rule makes them
the same."""

import dataclasses
import warnings
from functools import partial

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_blobs

from perceptrons import (ALMA, AROW, CW, MPU, NAROW, NHERD, PDM, PFM, ROMMA,
                         SCW, Ballseptron, HigherOrderPerceptron,
                         PassiveAggressive, Perceptron, SecondOrderPerceptron)
from tests.test_common import _public_estimators


def _blobs(n_classes, n=240, seed=0):
    centers = np.array([[6.0, 0.0], [0.0, 6.0], [-6.0, 0.0], [0.0, -6.0]])
    X, y = make_blobs(n_samples=n, centers=centers[:n_classes],
                      cluster_std=1.0, random_state=seed)
    return X, y


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("n_first", [2, 3], ids=["binary", "three"])
@pytest.mark.parametrize("cls", _public_estimators(), ids=lambda c: c.__name__)
def test_grows_and_learns_or_refuses_with_reason(cls, n_first):
    X, y = _blobs(4)
    first = y < n_first
    est = _quiet(cls().partial_fit, X[first], y[first],
                 classes=np.arange(n_first))
    before = est.predict(X[first])
    try:
        for _ in range(5):
            _quiet(est.partial_fit, X, y)
    except ValueError as exc:
        message = str(exc)
        assert "are not in classes_" in message, message
        assert "pass every class" in message, message
        reason = message.split(", and ", 1)[1].split(": pass", 1)[0]
        assert len(reason) > 20, message  # the algorithm says why
        # Refused before any step: the model is the one it was.
        assert_array_equal(est.classes_, np.arange(n_first))
        assert_array_equal(est.predict(X[first]), before)
        return
    assert_array_equal(est.classes_, np.arange(4))
    # The new classes were learned, not merely named.
    # (An averaged hypothesis counts a late problem's steps before its
    # class arrived at zero, as a model told of it up front that never
    # updated it would: its scores grow into the others' over the passes.)
    new = y >= n_first
    assert np.mean(est.predict(X[new]) == y[new]) > 0.7
    assert np.mean(est.predict(X) == y) > 0.8
    assert est.decision_function(X).shape == (len(y), 4)


@pytest.mark.parametrize("cls", _public_estimators(), ids=lambda c: c.__name__)
def test_classes_one_by_one(cls):
    """A stream whose classes arrive one at a time: 0 and 1, then 2, then
    3; each is learned on arrival, or the first arrival is refused. (The
    last hypothesis: an average carries the passes before the class came,
    and takes passes to outweigh them; the first test checks averages.)"""
    X, y = _blobs(4, n=320, seed=1)
    params = ({"hypothesis": "last"} if "hypothesis" in cls().get_params()
              else {})
    est = cls(**params)
    try:
        for n_known in (2, 3, 4):
            rows = y < n_known
            for _ in range(4):
                _quiet(est.partial_fit, X[rows], y[rows],
                       classes=[0, 1] if n_known == 2 else None)
            assert_array_equal(est.classes_, np.arange(n_known))
            newest = y == n_known - 1
            assert np.mean(est.predict(X[newest]) == n_known - 1) > 0.7
    except ValueError as exc:
        assert "are not in classes_" in str(exc), exc
        assert n_known == 3 or "binary" not in str(exc), exc


@pytest.mark.parametrize("params", [
    dict(cls=HigherOrderPerceptron, form="primal", hypothesis="last"),
    dict(cls=HigherOrderPerceptron, form="implicit", p=3, hypothesis="last"),
    dict(cls=HigherOrderPerceptron, kernel="rbf", hypothesis="last"),
    dict(cls=SecondOrderPerceptron, form="primal", hypothesis="averaged"),
    dict(cls=SecondOrderPerceptron, kernel="poly", hypothesis="last")],
    ids=lambda p: "-".join(f"{v.__name__ if k == 'cls' else v}"
                           for k, v in p.items()))
@pytest.mark.parametrize("sparse", [False, True])
def test_matrix_forms_grow(params, sparse, tmp_path):
    """Each form of HO and SO takes a class: its fresh problem is the
    form's zero problem padded to the others' pool and matrices, and the
    grown model's state is a valid state of four problems."""
    import scipy.sparse as sp

    from perceptrons.persistence import load_model, save_model

    params = dict(params)
    cls = params.pop("cls")
    X, y = _blobs(4, n=200, seed=2)
    X = sp.csr_matrix(X) if sparse else X
    est = _quiet(cls(**params).partial_fit, X[y < 3], y[y < 3],
                 classes=[0, 1, 2])
    before = est.decision_function(X)
    algo = est._algorithm_of_params()
    est._set_state(algo.grow_classes(est.state_, np.arange(4)))  # validated
    # The old problems are untouched, the new one scores as its start.
    scores = est.decision_function(X)
    assert_array_equal(scores[:, :3], before)
    assert_array_equal(scores[:, 3], 0.0)
    for _ in range(4):
        _quiet(est.partial_fit, X, y)
    # (An average still carries the passes before class 3 came.)
    learned = 0.8 if params["hypothesis"] == "last" else 0.4
    assert np.mean(est.predict(X[y == 3]) == 3) > learned
    save_model(est, tmp_path / "grown.zip")
    assert_array_equal(load_model(tmp_path / "grown.zip").predict(X),
                       est.predict(X))


@pytest.mark.parametrize("cls", [HigherOrderPerceptron, SecondOrderPerceptron],
                         ids=lambda c: c.__name__)
@pytest.mark.parametrize("kernel", [None, "linear"])
def test_grown_matrix_problem_is_a_fresh_problem(cls, kernel):
    """HO and SO update a problem on a margin of 0, so a problem told of
    up front moves before its class arrives; grown on arrival it is the
    problem a model started then would have, bit for bit (last
    hypothesis: the problems are independent)."""
    X, y = _blobs(4, n=200, seed=4)
    params = dict(hypothesis="last", shuffle=False, kernel=kernel)
    grown = _quiet(cls(**params).partial_fit, X[y < 3], y[y < 3],
                   classes=[0, 1, 2])
    fresh = cls(**params)
    for est in (grown, fresh):
        _quiet(est.partial_fit, X, y, classes=[0, 1, 2, 3])
    if kernel is None:
        assert_array_equal(grown.decision_function(X)[:, 3],
                           fresh.decision_function(X)[:, 3])
    else:  # the same sum, over the grown model's longer pool
        assert_allclose(grown.decision_function(X)[:, 3],
                        fresh.decision_function(X)[:, 3], rtol=1e-12,
                        atol=1e-12)
    assert (grown.state_.n_mistakes_per_problem[3]
            == fresh.state_.n_mistakes_per_problem[3])


@pytest.mark.parametrize("cls", [CW, AROW, SCW, NAROW, NHERD],
                         ids=lambda c: c.__name__)
@pytest.mark.parametrize("covariance", ["diagonal", "full"])
@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
def test_grown_gaussian_is_a_fresh_gaussian(cls, covariance, hypothesis):
    """The confidence-weighted rules step on every margin error, so a
    problem told of up front moves before its class arrives; grown on
    arrival (μ = 0, Σ = aI) it is the problem a model started then would
    have, bit for bit (its average: the same sum of hypotheses, divided by
    the longer run's count)."""
    X, y = _blobs(4, n=200, seed=5)
    params = dict(hypothesis=hypothesis, shuffle=False, covariance=covariance)
    grown = _quiet(cls(**params).partial_fit, X[y < 3], y[y < 3],
                   classes=[0, 1, 2])
    fresh = cls(**params)
    for est in (grown, fresh):
        _quiet(est.partial_fit, X, y, classes=[0, 1, 2, 3])
    grown_scores = grown.decision_function(X)[:, 3]
    fresh_scores = fresh.decision_function(X)[:, 3]
    if hypothesis == "last":
        assert_array_equal(grown_scores, fresh_scores)
    else:  # the same sum of hypotheses, over the grown model's longer run
        assert grown.state_.t > fresh.state_.t
        assert_allclose(grown_scores * grown.state_.t,
                        fresh_scores * fresh.state_.t, rtol=1e-12)
    kept = ("variances" if covariance == "diagonal" else "covariance")
    assert_array_equal(getattr(grown.state_, kept)[3],
                       getattr(fresh.state_, kept)[3])
    assert (grown.state_.n_updates_per_problem[3]
            == fresh.state_.n_updates_per_problem[3])


@pytest.mark.parametrize("cls", [Perceptron, PassiveAggressive, ALMA, AROW,
                                 NHERD, Ballseptron, PDM, ROMMA, MPU,
                                 HigherOrderPerceptron,
                                 SecondOrderPerceptron],
                         ids=lambda c: c.__name__)
def test_binary_model_predicts_the_same_once_grown(cls):
    """Two classes become a problem (or prototype) per class that scores
    the rows as the binary model did, before any step on the new class."""
    X, y = _blobs(3)
    first = y < 2
    est = _quiet(cls().partial_fit, X[first], y[first], classes=[0, 1])
    before = est.predict(X)
    grown = est.state_.replace()  # the binary state, kept for comparison
    algo = est._algorithm_of_params()
    state = algo.grow_classes(grown, np.array([0, 1, 2]))
    est._set_state(state)
    scores = est.decision_function(X)
    assert scores.shape == (len(y), 3)
    assert np.all(est.classes_[np.argmax(scores[:, :2], axis=1)] == before)


@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
@pytest.mark.parametrize("sparse", [False, True])
def test_grown_perceptron_is_the_one_that_knew_the_class(hypothesis, sparse):
    """One-vs-rest with θ_Init > τ: a problem whose class has not arrived
    sees only negatives it already scores right, so it stays at its start;
    the model grown to that class on arrival is the model told of it up
    front, bit for bit (weights, thresholds and their running sums). Not
    the longest survivor: the grown problem's run starts on arrival, the
    told one's ran since the first row, so their longest runs differ."""
    import scipy.sparse as sp

    X, y = _blobs(4, n=160, seed=3)
    if sparse:
        X = sp.csr_matrix(X)
    params = dict(theta_init=1.0, tau=0.5, threshold_step=0.5,
                  hypothesis=hypothesis, shuffle=False)
    first, later = slice(0, 80), slice(80, 160)
    y_first = np.where(y[first] == 3, 0, y[first])  # class 3 arrives later
    told = Perceptron(**params).partial_fit(X[first], y_first,
                                            classes=[0, 1, 2, 3])
    grown = Perceptron(**params).partial_fit(X[first], y_first,
                                             classes=[0, 1, 2])
    for est in (told, grown):
        est.partial_fit(X[later], y[later])
    a, b = told.state_, grown.state_
    assert_array_equal(a.classes, b.classes)
    for name in ("current", "summed", "snapshot"):
        assert_array_equal(getattr(a.weights, name),
                           getattr(b.weights, name), err_msg=name)
    for name in ("theta", "theta_ls"):
        assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert_array_equal(told.decision_function(X),
                       grown.decision_function(X))


def test_learn_one_takes_a_class_from_a_dict_stream():
    X, y = _blobs(3, n=90)
    est = Perceptron(theta_init=1.0, threshold_step=1.0)
    est.learn_one({"a": X[0, 0], "b": X[0, 1]}, int(y[0]), classes=[0, 1])
    for _ in range(3):
        for x, label in zip(X, y):
            est.learn_one({"a": x[0], "b": x[1]}, int(label))
    assert_array_equal(est.classes_, [0, 1, 2])
    hits = [est.predict_one({"a": x[0], "b": x[1]}) == label
            for x, label in zip(X, y)]
    assert np.mean(hits) > 0.9


def test_refusals_name_the_problem():
    X, y = _blobs(3)
    est = Perceptron(hypothesis="voted").partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"labels \[7\] are not in classes_ "
                       r"\[0, 1, 2\], and a voted run"):
        est.partial_fit(X[:2], [7, 0])
    with pytest.raises(ValueError, match="leaves out the fitted classes"):
        Perceptron().partial_fit(X, y, classes=[0, 1, 2]).partial_fit(
            X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="cannot be ordered"):
        Perceptron().partial_fit(X, y, classes=[0, 1, 2]).partial_fit(
            X[:2], np.array(["a", "b"], dtype=object))


def _grown_on_arrival(cls, params, X, y, first, classes):
    """A model fitted on ``X[first]`` with its classes, then grown to
    ``classes`` (as a later label would grow it)."""
    est = _quiet(cls(**params).partial_fit, X[first], y[first],
                 classes=np.unique(y[first]))
    algo = est._algorithm_of_params()
    est._set_state(algo.grow_classes(est.state_, np.asarray(classes)))
    return est


_MARGIN_PROBLEM_FIELDS = (
    "weights", "scalars", "n_updates_per_problem", "retired_ext_sq",
    "converged", "margin_bound", "n_iter_per_problem")
#: Reported after a call from one product X Wᵀ over every problem, whose
#: BLAS blocking depends on the number of problems (one or three): equal
#: up to its rounding. They are not read by the rule.
_MARGIN_REPORTED = ("directional_margin", "geometric_margin",
                    "margin_fraction", "accuracy_estimate")


@pytest.mark.parametrize("cls", [PDM, PFM, ROMMA, MPU],
                         ids=lambda c: c.__name__)
@pytest.mark.parametrize("extension", ["default", None])
def test_grown_margin_problems_are_the_told_ones(cls, extension):
    """PDM, PFM, ROMMA and MPU step on the reflected patterns with
    label-even conditions and step sizes, so class 0's problem grown from
    a binary model (its negation) is the problem of a model told of
    every class up front, bit for bit, and so is class 1's (the binary
    one): after the binary phase and after passes over every class. The
    third class's problem is fresh when grown, while the told one has
    stepped on the binary phase's rows (all negatives)."""
    X, y = _blobs(3, n=240, seed=6)
    X = X + np.random.RandomState(0).normal(scale=2.0, size=X.shape)
    first = y < 2
    params = {"store_dual": True}
    if extension is None:
        params["extension"] = None
    told = _quiet(cls(**params).partial_fit, X[first], y[first],
                  classes=[0, 1, 2])
    grown = _grown_on_arrival(cls, params, X, y, first, [0, 1, 2])
    for rows in (first, None, None):
        a, b = told.state_, grown.state_
        for name in _MARGIN_PROBLEM_FIELDS:
            assert_array_equal(getattr(a, name)[:2], getattr(b, name)[:2],
                               err_msg=name)
        for name in _MARGIN_REPORTED:
            assert_allclose(getattr(a, name)[:2], getattr(b, name)[:2],
                            rtol=1e-13, err_msg=name)
        # The support is the rows some problem updated (the told model's
        # third problem adds its own): compared row by row.
        n = int(np.count_nonzero(rows)) if rows is not None else len(y)
        dual = []
        for s in (a, b):
            full = np.zeros((2, n))
            full[:, s.support] = s.dual_coef[:2]
            dual.append(full)
        assert_array_equal(*dual)
        for est in (told, grown):
            _quiet(est.partial_fit, X, y)
    assert np.mean(grown.predict(X) == y) > 0.8


@pytest.mark.parametrize("params", [
    dict(cls=HigherOrderPerceptron, form="primal"),
    dict(cls=HigherOrderPerceptron, form="primal", sparse=True),
    dict(cls=HigherOrderPerceptron, form="implicit", p=3),
    dict(cls=HigherOrderPerceptron, kernel="linear"),
    dict(cls=HigherOrderPerceptron, kernel="rbf", sparse=True),
    dict(cls=SecondOrderPerceptron, form="primal"),
    dict(cls=SecondOrderPerceptron, kernel="poly")],
    ids=lambda p: "-".join(f"{v.__name__ if k == 'cls' else v}"
                           for k, v in p.items()))
@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
def test_grown_binary_matrix_problems_are_the_told_ones(params, hypothesis):
    """A binary HO or SO grows into one-vs-rest: class 1's problem the
    binary one, class 0's its negation (v, w, the dual h, β and labels,
    the averaged sum negated; the matrices, factors and counts copied).
    Mistakes and matrix steps read only label-even quantities, so both
    problems are those of a model told of every class up front: bit for
    bit in the primal forms (weights, matrices, factors, sums, scores),
    after the binary phase and after passes over every class. The dual
    forms share one pool among the problems, to which the told model's
    third problem adds its own mistakes: their per-problem matrices (D,
    M), labels and counts are the same bits, their slots differ, and HO's
    h (whose new entry starts from v·x, a sum over the pool) and the
    scores agree to rounding."""
    params = dict(params, hypothesis=hypothesis)
    cls = params.pop("cls")
    X, y = _blobs(3, n=200, seed=7)
    X = np.hstack([X + np.random.RandomState(1).normal(scale=2.0,
                                                       size=X.shape),
                   np.ones((len(X), 1))])
    first = y < 2
    told = _quiet(cls(**params).partial_fit, X[first], y[first],
                  classes=[0, 1, 2])
    grown = _grown_on_arrival(cls, params, X, y, first, [0, 1, 2])
    dual = "kernel" in params
    for _ in range(3):
        a, b = told.state_, grown.state_
        assert_array_equal(a.n_mistakes_per_problem[:2],
                           b.n_mistakes_per_problem[:2])
        names = ([n for n in a.model.matrix_fields if n != "slots"] if dual
                 else [f.name for f in dataclasses.fields(a.model)])
        for name in names:
            check = assert_array_equal
            if name == "h":  # h[q] starts from v·x, a sum over the pool
                check = partial(assert_allclose, rtol=1e-12, atol=1e-12)
            check(getattr(a.model, name)[:2], getattr(b.model, name)[:2],
                  err_msg=name)
        scores = told.decision_function(X)[:, :2]
        if dual:
            assert_allclose(grown.decision_function(X)[:, :2], scores,
                            rtol=1e-12, atol=1e-12)
        else:
            assert_array_equal(a.summed[:2], b.summed[:2])
            assert_array_equal(grown.decision_function(X)[:, :2], scores)
        for est in (told, grown):
            _quiet(est.partial_fit, X, y)
    assert np.mean(grown.predict(X) == y) > 0.6  # noisy rows, no bias


@pytest.mark.parametrize("kernel", [None, "linear"])
@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
def test_binary_ballseptron_grows_into_section4_prototypes(kernel, hypothesis):
    """Figure 2's binary run is Sec. 4's on two prototypes (w^0 = -w,
    w^1 = w: the updates of Eq. (18) keep the pair opposite, and its
    mistake and margin-error tests are Figure 2's on w), so the grown
    model continues Sec. 4 from the pair, a third prototype at zero:
    checked against the paper's transcription (tests/reference), which
    keeps w^0 = -w^1 exactly. The loops differ in rounding only (a lazy
    scale and a running ‖w‖² in the binary loop; the prototypes' Gram
    matrix), so the prototypes agree to 1e-9 and the counts exactly."""
    from tests.reference.ballseptron import section4, section4_averaged

    X, y = _blobs(3, n=240, seed=8)
    X = X / 6.0 + np.random.RandomState(2).normal(scale=0.3, size=X.shape)
    first = y < 2
    radius = 0.5
    params = dict(radius=radius, hypothesis=hypothesis, shuffle=False,
                  kernel=kernel)
    est = _quiet(Ballseptron(**params).partial_fit, X[first], y[first],
                 classes=[0, 1])
    W2, m2, e2 = section4(X[first], y[first], 2, radius)
    assert_array_equal(W2[0], -W2[1])
    assert est.n_mistakes_ == m2[0] and est.n_margin_errors_ == e2[0] > 0
    before = est.predict(X)
    est.partial_fit(X, y)  # class 2 arrives: Sec. 4 from (-w, w, 0)
    W3 = np.vstack([W2, np.zeros((1, X.shape[1]))])
    if hypothesis == "last":
        W, m3, e3 = section4(X, y, 3, radius, W=W3)
        last = W
    else:
        n1, n2 = int(first.sum()), len(y)
        avg1, _, _, _ = section4_averaged(X[first], y[first], 2, radius)
        avg2, last, m3, e3 = section4_averaged(X, y, 3, radius, W=W3)
        W = (np.vstack([avg1 * n1, np.zeros((1, X.shape[1]))])
             + avg2 * n2) / (n1 + n2)
    if kernel is not None:  # the Gram matrix carried from the pair's
        assert_allclose(est.state_.gram, last @ last.T, rtol=1e-9)
    assert est.n_mistakes_ == m2[0] + m3[0]
    assert est.n_margin_errors_ == e2[0] + e3[0]
    assert_allclose(est.decision_function(X), X @ W.T, rtol=1e-9,
                    atol=1e-9)
    grown = est.state_
    assert grown.multiclass and grown.weights.current.shape[0] == 3
    assert np.mean(before[first] == y[first]) > 0.9


@pytest.mark.parametrize("params", [{}, {"plus": True},
                                    {"hypothesis": "last"}])
def test_grown_projectron_problems_are_the_told_ones(params):
    """The Projectron's tests (mistake, loss, distance to the span) are
    even in y and its steps odd, so a binary model grown into
    one-vs-rest (class 0's problem: coefficients negated, the group and
    its K⁻¹ copied) runs classes 0 and 1 as a model told of every class
    up front: the same steps, and scores equal to rounding (sums over a
    pool the told model's third problem also fills)."""
    from perceptrons import Projectron

    X, y = _blobs(3, n=240, seed=9)
    X = X / 6.0 + np.random.RandomState(0).normal(scale=0.4, size=X.shape)
    first = y < 2
    params = dict(params, shuffle=False)
    told = _quiet(Projectron(**params).partial_fit, X[first], y[first],
                  classes=[0, 1, 2])
    grown = _grown_on_arrival(Projectron, params, X, y, first, [0, 1, 2])
    for _ in range(3):
        assert_array_equal(told.state_.n_updates_per_problem[:2],
                           grown.state_.n_updates_per_problem[:2])
        assert_allclose(grown.decision_function(X)[:, :2],
                        told.decision_function(X)[:, :2], rtol=1e-12,
                        atol=1e-12)
        for est in (told, grown):
            _quiet(est.partial_fit, X, y)
    assert np.mean(grown.predict(X) == y) > 0.85


@pytest.mark.parametrize("make", [
    PDM, PFM, ROMMA, MPU, HigherOrderPerceptron, SecondOrderPerceptron,
    partial(HigherOrderPerceptron, kernel="rbf"),
    partial(SecondOrderPerceptron, kernel="poly"), Ballseptron,
    partial(Ballseptron, kernel="rbf")],
    ids=lambda m: getattr(m, "__name__", None) or "-".join(
        [m.func.__name__, *m.keywords.values()]))
def test_grown_binary_model_saves_and_loads(make, tmp_path):
    """A binary model grown to a third class is a valid state of its
    multiclass layout: saved, loaded, the same state and predictions."""
    from perceptrons.persistence import load_model, save_model
    from tests._states import assert_same_state

    X, y = _blobs(3, n=150, seed=10)
    est = _quiet(make().partial_fit, X[y < 2], y[y < 2], classes=[0, 1])
    _quiet(est.partial_fit, X, y)
    assert_array_equal(est.classes_, [0, 1, 2])
    save_model(est, tmp_path / "grown.zip")
    loaded = load_model(tmp_path / "grown.zip")
    assert_same_state(loaded.state_, est.state_)
    assert_array_equal(loaded.predict(X), est.predict(X))
