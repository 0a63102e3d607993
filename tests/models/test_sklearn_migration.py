"""A home for scikit-learn's ``PassiveAggressiveClassifier`` (issue #39).

scikit-learn deprecated the class in 1.8 and removes it in 1.10
(``SGDClassifier(learning_rate="pa1" | "pa2")`` takes its place).
``PassiveAggressive.from_sklearn`` translates its parameters, and
``intercept_update="sklearn"`` takes its intercept step, so that its models
are reproduced weight for weight, with and without intercept.

The comparison does not need scikit-learn's class: its weights on a fixed
data set are recorded in ``tests/models/golden/sklearn_passive_aggressive.json``
(the data set too), and the estimator is compared with that record always;
with scikit-learn's class (or its successor) present, the record is also
checked against it, live. Record it again, with a scikit-learn that has the
class, by::

    python -m tests.models.test_sklearn_migration
"""

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from perceptrons import PassiveAggressive
from perceptrons.models._sklearn_names import SKLEARN_DEFAULTS

GOLDEN = Path(__file__).parent / "golden" / "sklearn_passive_aggressive.json"

#: Weights equal to rounding: the same arithmetic in another order.
RTOL, ATOL = 1e-12, 1e-14


def _data():
    """60 rows, 5 features, a third of the entries zero, no zero row; three
    classes (two: the labels mod 2)."""
    rng = np.random.default_rng(39)
    X = rng.standard_normal((60, 5))
    X[rng.random(X.shape) < 1 / 3] = 0.0
    X[~X.any(axis=1), 0] = 1.0
    y = np.argmax(X @ rng.standard_normal((5, 3))
                  + 0.5 * rng.standard_normal((60, 3)), axis=1)
    return X, y


def _cases():
    """scikit-learn's parameters of every recorded case, and how it is fit."""
    for n_classes in (2, 3):
        for storage in ("dense", "csr"):
            for loss in ("hinge", "squared_hinge"):
                for average in (False, True):
                    for fit_intercept in (False, True):
                        yield {"n_classes": n_classes, "storage": storage,
                               "calls": "fit",
                               "params": dict(C=0.3, loss=loss,
                                              average=average,
                                              fit_intercept=fit_intercept,
                                              max_iter=4, tol=None,
                                              shuffle=False)}
    # partial_fit continues t (the average, the step count) across calls.
    # Not averaged with an intercept: there scikit-learn's second call
    # starts from a stale intercept (test_sklearns_averaged_partial_fit).
    for loss in ("hinge", "squared_hinge"):
        for average, fit_intercept in ((False, True), (True, False)):
            yield {"n_classes": 3, "storage": "dense",
                   "calls": "partial_fit",
                   "params": dict(C=0.3, loss=loss, average=average,
                                  fit_intercept=fit_intercept,
                                  shuffle=False)}


def _inputs(case, X, y):
    y = y % 2 if case["n_classes"] == 2 else y
    return (sp.csr_matrix(X) if case["storage"] == "csr" else X), y


def _train(est, case, X, y):
    """Fit ``est`` as the case says (partial_fit: two halves)."""
    X, y = _inputs(case, X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        if case["calls"] == "fit":
            return est.fit(X, y)
        est.partial_fit(X[:30], y[:30], classes=np.unique(y))
        return est.partial_fit(X[30:], y[30:])


def _ours(params):
    """PassiveAggressive of scikit-learn's ``params``, with its intercept
    step."""
    return PassiveAggressive.from_sklearn(**params).set_params(
        intercept_update="sklearn")


def _sklearn_class():
    """scikit-learn's PassiveAggressiveClassifier, or None once removed."""
    try:
        from sklearn.linear_model import PassiveAggressiveClassifier
    except ImportError:
        return None
    return PassiveAggressiveClassifier


def _successor(params):
    """scikit-learn's replacement, ``SGDClassifier(loss="hinge",
    penalty=None, learning_rate="pa1" | "pa2", eta0=C)``, or None where it
    does not take those rates (before 1.8)."""
    from sklearn.linear_model import SGDClassifier

    p = dict(params)
    rate = "pa1" if p.pop("loss") == "hinge" else "pa2"
    est = SGDClassifier(loss="hinge", penalty=None, learning_rate=rate,
                        eta0=p.pop("C"), **p)
    if rate not in str(est._parameter_constraints.get("learning_rate")):
        return None
    return est


def _record():
    X, y = _data()
    cls = _sklearn_class()
    assert cls is not None, "recording needs PassiveAggressiveClassifier"
    import sklearn

    out = {"sklearn": sklearn.__version__, "X": X.tolist(), "y": y.tolist(),
           "cases": []}
    for case in _cases():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            est = _train(cls(**case["params"]), case, X, y)
        out["cases"].append({**case, "coef": est.coef_.tolist(),
                             "intercept": est.intercept_.tolist()})
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(out, indent=1) + "\n")


def _golden():
    record = json.loads(GOLDEN.read_text())
    X, y = np.array(record["X"]), np.array(record["y"])
    assert len(record["cases"]) == len(list(_cases()))
    return record, X, y


def _golden_cases():
    """Every case (from the code, so that the module imports without the
    record), with its index in the record."""
    for i, case in enumerate(_cases()):
        p = case["params"]
        yield pytest.param(i, id=f"{case['n_classes']}cls-"
                           f"{case['storage']}-{case['calls']}-{p['loss']}-"
                           f"avg{int(p['average'])}-b{int(p['fit_intercept'])}")


def _recorded(i):
    """The record and its data set, with case i checked against the
    code's."""
    record, X, y = _golden()
    case = record["cases"][i]
    assert {k: case[k] for k in ("n_classes", "storage", "calls", "params")
            } == list(_cases())[i]
    return case, X, y


def test_the_data_set_is_the_recorded_one():
    _, X, y = _golden()
    X_now, y_now = _data()
    assert_array_equal(X, X_now)
    assert_array_equal(y, y_now)


@pytest.mark.parametrize("i", list(_golden_cases()))
def test_equals_sklearns_recorded_weights(i):
    """With and without intercept, dense and CSR, binary and one-vs-rest,
    last and averaged, fit and partial_fit: scikit-learn's weights (as
    recorded: this test needs no scikit-learn class)."""
    case, X, y = _recorded(i)
    est = _train(_ours(case["params"]), case, X, y)
    assert_allclose(est.coef_, case["coef"], rtol=RTOL, atol=ATOL)
    assert_allclose(est.intercept_, case["intercept"], rtol=RTOL, atol=ATOL)
    if not case["params"]["fit_intercept"]:
        # Without intercept the default step is scikit-learn's too: there
        # is no intercept step to differ.
        plain = _train(PassiveAggressive.from_sklearn(**case["params"]),
                       case, X, y)
        assert_array_equal(plain.coef_, est.coef_)


def test_passes_without_sklearns_class(monkeypatch):
    """Once scikit-learn has removed the class, the comparison runs on the
    record alone."""
    import sklearn.linear_model

    monkeypatch.delattr(sklearn.linear_model, "PassiveAggressiveClassifier",
                        raising=False)
    assert _sklearn_class() is None
    for i in range(len(_golden()[0]["cases"])):
        test_equals_sklearns_recorded_weights(i)


@pytest.mark.parametrize("i", list(_golden_cases()))
def test_the_record_is_sklearns(i):
    """The record is what scikit-learn's class gives, and its successor
    ``SGDClassifier(learning_rate="pa1" | "pa2")`` too, where present."""
    case, X, y = _recorded(i)
    estimators = []
    cls = _sklearn_class()
    if cls is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            estimators.append(cls(**case["params"]))
    successor = _successor(case["params"])
    if successor is not None:
        estimators.append(successor)
    if not estimators:
        pytest.skip("neither PassiveAggressiveClassifier nor SGDClassifier's "
                    "PA rates in this scikit-learn")
    for est in estimators:
        _train(est, case, X, y)
        assert_allclose(est.coef_, case["coef"], rtol=RTOL, atol=ATOL)
        assert_allclose(est.intercept_, case["intercept"], rtol=RTOL,
                        atol=ATOL)


def test_the_default_intercept_step_is_the_constant_features():
    """With ``fit_intercept=True`` the default step is the paper's on
    ``[x, 1]``, not scikit-learn's: same weights without intercept, other
    weights with it."""
    record, X, y = _golden()
    case = next(c for c in record["cases"]
                if c["params"]["fit_intercept"] and c["calls"] == "fit")
    est = _train(PassiveAggressive.from_sklearn(**case["params"]), case, X,
                 y)
    assert not np.allclose(est.intercept_, case["intercept"])


def test_sklearns_averaged_partial_fit_is_not_reproduced():
    """scikit-learn 1.8-1.9 with ``average=True, fit_intercept=True`` does
    not keep its running (standard) intercept between ``partial_fit``
    calls: ``_fit_binary`` stores it only when not yet averaging, and
    ``_fit_multiclass`` writes it into ``intercept_``, by then the same
    array as ``_average_intercept``. Its two halves then differ from its
    one call (on this data: intercepts by up to 1.25 with three classes,
    weights by 0.034 with two). Here two halves are one call, bit for bit,
    which is what the record's fit cases pin."""
    X, y = _data()
    params = dict(C=0.3, average=True, shuffle=False)
    one = _ours(params).partial_fit(X, y, classes=[0, 1, 2])
    two = _ours(params).partial_fit(X[:30], y[:30], classes=[0, 1, 2])
    two.partial_fit(X[30:], y[30:])
    assert_array_equal(one.coef_, two.coef_)
    assert_array_equal(one.intercept_, two.intercept_)
    cls = _sklearn_class()
    if cls is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            sk_one = cls(**params).partial_fit(X, y, classes=[0, 1, 2])
            sk_two = cls(**params).partial_fit(X[:30], y[:30],
                                               classes=[0, 1, 2])
            sk_two.partial_fit(X[30:], y[30:])
        assert_allclose(sk_one.intercept_, one.intercept_, rtol=RTOL,
                        atol=ATOL)
        assert not np.allclose(sk_two.intercept_, sk_one.intercept_)


# ------------------------------------------------------------ the names
def test_every_sklearn_parameter_is_translated_or_refused():
    """Each of scikit-learn's parameters, set to other than its default:
    taken (under our name) or refused naming ours."""
    taken = {
        "C": (0.5, {"C": 0.5}),
        "fit_intercept": (False, {"fit_intercept": False}),
        "max_iter": (50, {"max_iter": 50}),
        "tol": (None, {"tol": None}),
        "early_stopping": (True, {"early_stopping": True}),
        "validation_fraction": (0.2, {"validation_fraction": 0.2}),
        "n_iter_no_change": (3, {"n_iter_no_change": 3}),
        "shuffle": (False, {"shuffle": False}),
        "verbose": (0, {}),
        "loss": ("squared_hinge", {"variant": "PA-II"}),
        "n_jobs": (2, {"n_jobs": 2}),
        "random_state": (7, {"random_state": 7}),
        "warm_start": (True, {"warm_start": True}),
        "class_weight": ({0: 2.0}, {"class_weight": {0: 2.0}}),
        "average": (True, {"hypothesis": "averaged"}),
    }
    assert set(taken) == set(SKLEARN_DEFAULTS)
    for name, (value, ours) in taken.items():
        est = PassiveAggressive.from_sklearn(**{name: value})
        got = {k: v for k, v in est.get_params().items()
               if v != PassiveAggressive().get_params()[k]}
        assert got == {k: v for k, v in ours.items()
                       if v != PassiveAggressive().get_params()[k]}, name
        for k, v in ours.items():
            assert est.get_params()[k] == v
    assert PassiveAggressive.from_sklearn(
        average=False).hypothesis == "last"
    assert PassiveAggressive.from_sklearn(loss="hinge").variant == "PA-I"
    assert PassiveAggressive.from_sklearn(
        tol=0.01, early_stopping=True).tol == 0.01


@pytest.mark.parametrize("params, match", [
    (dict(average=10), r"average=10 averages the weights from the 10th "
                       r"step on; PassiveAggressive's hypothesis='averaged'"),
    (dict(average=-1), r"hypothesis takes 'averaged'"),
    (dict(verbose=1), r"prints nothing.*mistakes_per_epoch_"),
    (dict(tol=1e-4), r"tol=0.0001 without early_stopping.*Pass tol=None"),
    (dict(tol=1e-3), r"tol=0.001 without early_stopping"),
    (dict(loss="log_loss"), r"variant='PA-I' and 'PA-II'"),
])
def test_values_without_a_counterpart_are_refused(params, match):
    with pytest.raises(ValueError, match=match):
        PassiveAggressive.from_sklearn(**params)


def test_names_of_ours_or_unknown_are_refused():
    with pytest.raises(TypeError, match=r"'hypothesis': not a parameter of "
                                        r"scikit-learn's"):
        PassiveAggressive.from_sklearn(hypothesis="last")


def test_an_estimator_or_its_parameters():
    """From a scikit-learn estimator (or a dict of its ``get_params()``)
    the parameters it sets to other than scikit-learn's defaults are
    translated: its defaults are not, so an estimator at scikit-learn's
    default ``tol`` translates, and keyword arguments win."""
    params = {**SKLEARN_DEFAULTS, "C": 0.2, "loss": "squared_hinge",
              "average": True}
    want = PassiveAggressive(C=0.2, variant="PA-II", hypothesis="averaged")
    assert PassiveAggressive.from_sklearn(params).get_params() == \
        want.get_params()
    cls = _sklearn_class()
    if cls is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            sk = cls(C=0.2, loss="squared_hinge", average=True)
        assert PassiveAggressive.from_sklearn(sk).get_params() == \
            want.get_params()
    assert PassiveAggressive.from_sklearn(params, C=0.7).C == 0.7


def test_set_params_takes_sklearns_names():
    """``set_params`` (and so a grid written for scikit-learn's class)
    takes ``loss``, ``average`` and ``verbose``, and refuses what has no
    counterpart, naming ours."""
    from sklearn.model_selection import GridSearchCV

    est = PassiveAggressive().set_params(loss="squared_hinge", average=False,
                                         verbose=0, C=0.5)
    assert (est.variant, est.hypothesis, est.C) == ("PA-II", "last", 0.5)
    with pytest.raises(ValueError, match=r"variant='PA-I' and 'PA-II'"):
        PassiveAggressive().set_params(loss="log_loss")
    with pytest.raises(ValueError, match=r"prints nothing"):
        PassiveAggressive().set_params(verbose=2)
    X, y = _data()
    search = GridSearchCV(PassiveAggressive(max_iter=2),
                          {"loss": ["hinge", "squared_hinge"],
                           "average": [False, True]}, cv=2).fit(X, y)
    assert search.best_estimator_.variant in ("PA-I", "PA-II")
    assert len(search.cv_results_["params"]) == 4


def test_sklearn_step_on_one_row():
    """scikit-learn's step from zero on x = (2, 0), y = +1, PA-I with a
    large C: τ = 1/‖x‖² = 1/4, w = (0.5, 0), b = τ = 0.25 (score 1.25); on
    sparse input b = 0.01 τ. The default step: τ = 1/5, score 1."""
    X, y = np.array([[2.0, 0.0]]), np.array([1])
    for Xs, b in ((X, 0.25), (sp.csr_matrix(X), 0.0025)):
        est = PassiveAggressive(C=1e6, hypothesis="last",
                                intercept_update="sklearn").partial_fit(
            Xs, y, classes=[0, 1])
        assert_allclose(est.coef_, [[0.5, 0.0]], rtol=1e-15)
        assert_allclose(est.intercept_, [b], rtol=1e-15)
    est = PassiveAggressive(C=1e6, hypothesis="last").partial_fit(
        X, y, classes=[0, 1])
    assert est.decision_function(X)[0] == pytest.approx(1.0, rel=1e-15)


@pytest.mark.parametrize("multiclass", ["ovr", "prototype"])
def test_sklearn_step_in_the_kernel_form(multiclass):
    """The linear kernel's dual form takes scikit-learn's intercept step as
    the primal form does (the same updates, to rounding), dense and CSR."""
    X, y = _data()
    for Xs in (X, sp.csr_matrix(X)):
        params = dict(intercept_update="sklearn", multiclass=multiclass,
                      shuffle=False, max_iter=3)
        primal = PassiveAggressive(**params).fit(Xs, y)
        dual = PassiveAggressive(kernel="linear", **params).fit(Xs, y)
        assert_allclose(dual.decision_function(X),
                        primal.decision_function(X), rtol=1e-10, atol=1e-12)
        assert_allclose(dual.intercept_, primal.intercept_, rtol=1e-10,
                        atol=1e-12)


@pytest.mark.parametrize("intercept_update", ["constant", "sklearn"])
def test_learn_one_is_partial_fit_with_either_step(intercept_update):
    X, y = _data()
    one = PassiveAggressive(intercept_update=intercept_update)
    batch = PassiveAggressive(intercept_update=intercept_update)
    for i in range(20):
        one.learn_one(X[i], y[i], classes=[0, 1, 2])
        batch.partial_fit(X[i:i + 1], y[i:i + 1], classes=[0, 1, 2])
    assert_array_equal(one.coef_, batch.coef_)
    assert_array_equal(one.intercept_, batch.intercept_)


if __name__ == "__main__":
    _record()
    print(f"recorded {GOLDEN}", file=sys.stderr)
