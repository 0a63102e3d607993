"""The river adapter (:mod:`perceptrons.river`): river's own estimator
checks on the adapter of every estimator of the registry, and what the
adapter promises beyond them (an untrained clone, pickling, labels and
features that arrive later, honest probabilities, the first prediction).
"""

import importlib
import math
import pickle
import sys

import numpy as np
import pytest

from perceptrons import PassiveAggressive, Perceptron
from tests import _registry as reg

river = pytest.importorskip("river")

from river import checks  # noqa: E402

from perceptrons.river import (PREFIX_LIMIT, OnlinePlatt,  # noqa: E402
                               RiverClassifier, as_river)

ESTIMATORS = reg.estimator_classes()


def _refusals(cls):
    """What ``cls()``'s algorithm says it cannot do on a stream: take a
    third class into a binary model, take a new feature (None where it
    can)."""
    est = cls().fit(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0],
                              [-1.0, 0.5]]), [0, 1, 0, 1])
    algo = est._algorithm_of_params(validate=False)
    return {"class": algo.class_growth_refusal(est.state_),
            "feature": algo.feature_growth_refusal(est.state_)}


@reg.mark()
@pytest.mark.parametrize("cls", ESTIMATORS, ids=reg.class_id)
def test_river_checks(cls):
    """Every check of ``river.checks.yield_checks`` on the adapter of the
    estimator at its defaults, on river's binary streams (Phishing, its
    labels as bool and as numpy bool) and multiclass one (ImageSegments,
    whose third class arrives at a model started on two), passes: every
    estimator takes a class and a feature that arrive later."""
    assert _refusals(cls) == {"class": None, "feature": None}
    model = as_river(cls())
    failed = {}
    n_checks = 0
    for check in checks.yield_checks(model):
        n_checks += 1
        try:
            check(model.clone())
        except Exception as exc:  # noqa: BLE001 - listed below
            failed.setdefault(check.__name__, []).append(
                f"{type(exc).__name__}: {exc}")
    assert not failed, failed
    assert n_checks > 40


def test_the_adapter_is_a_river_classifier_of_the_estimator_alone():
    from river import base

    model = as_river(Perceptron())
    assert isinstance(model, base.Classifier)
    assert type(model) is RiverClassifier
    assert RiverClassifier.__module__ == "perceptrons.river"
    assert model._multiclass
    assert {type(p["estimator"]) for p in model._unit_test_params()} == set(
        ESTIMATORS)
    # The first answer, before any learning, as river's linear models'.
    assert model.predict_one({"a": 1.0}) is False
    assert model.predict_proba_one({"a": 1.0}) == {False: 0.5, True: 0.5}
    told = as_river(Perceptron(), classes=["b", "a"])
    assert told.predict_one({"a": 1.0}) == "b"
    # One label seen: kept until a second arrives; the model then learns
    # them in order, as if told both labels up front.
    stream = [({"a": 1.0, "b": 0.5}, "x"), ({"a": 2.0}, "x"),
              ({"b": -1.0}, "y"), ({"a": -1.0, "c": 3.0}, "y")]
    for x, y in stream[:2]:
        model.learn_one(x, y)
    assert model.model is None
    assert model.predict_one({"a": 1.0}) == "x"
    assert model.predict_proba_one({"a": 1.0}) == {"x": 1.0}
    booleans = as_river(Perceptron())
    booleans.learn_one({"a": 1.0}, True)
    assert booleans.predict_proba_one({"a": 1.0}) == {False: 1 / 3,
                                                      True: 2 / 3}
    for x, y in stream[2:]:
        model.learn_one(x, y)
    ref = as_river(Perceptron(), classes=["x", "y"])
    for x, y in stream:
        ref.learn_one(x, y)
    from tests._states import assert_same_state
    assert_same_state(model.model.state_, ref.model.state_)
    assert list(model.model.feature_names_in_) == ["a", "b", "c"]
    # The estimator given is never trained; a clone has learnt nothing,
    # and the adapter pickles.
    assert not hasattr(model.estimator, "state_")
    clone = model.clone()
    assert clone.model is None and not clone._prefix
    again = pickle.loads(pickle.dumps(model))
    assert again.predict_one({"a": 0.3, "c": 1.0}) == model.predict_one(
        {"a": 0.3, "c": 1.0})


def test_the_prefix_of_one_label_is_bounded():
    model = as_river(Perceptron())
    for i in range(PREFIX_LIMIT + 5):
        model.learn_one({"a": float(i)}, 1)
    assert len(model._prefix) == PREFIX_LIMIT
    model.learn_one({"a": -1.0}, 0)
    assert model.model.t_ == PREFIX_LIMIT + 1


def test_probabilities_are_calibrated_not_invented():
    """predict_proba_one gives every label seen a probability strictly
    between 0 and 1, summing to 1, and on a stream its log loss beats the
    raw scores' sigmoid (river's choice) once the scores are not on the
    log-odds scale."""
    from river import datasets, metrics, preprocessing

    for dataset, n_labels in ((datasets.Phishing(), 2),
                              (datasets.ImageSegments(), 7)):
        model = preprocessing.StandardScaler() | as_river(PassiveAggressive())
        loss, seen = metrics.LogLoss() if n_labels == 2 else \
            metrics.CrossEntropy(), set()
        for x, y in dataset:
            proba = model.predict_proba_one(x)
            if len(seen) > 1:
                assert set(proba) == seen
                assert all(0.0 < p < 1.0 for p in proba.values())
                assert math.isclose(sum(proba.values()), 1.0)
                loss.update(y, proba)
            model.learn_one(x, y)
            seen.add(y)
        assert loss.get() < (0.3 if n_labels == 2 else 0.6), loss


def test_online_platt_fits_the_log_odds():
    # Scores s with P(y = 1 | s) = sigmoid(2 s - 1): the fitted sigmoid
    # comes close to (2, -1).
    rng = np.random.RandomState(0)
    platt = OnlinePlatt()
    classes = np.array([0, 1])
    for s in rng.normal(size=20_000):
        y = int(rng.rand() < 1.0 / (1.0 + math.exp(-(2 * s - 1))))
        platt.learn_one(classes, float(s), y)
    a, b = platt.sigmoids[1][:2]
    assert abs(a - 2) < 0.15 and abs(b + 1) < 0.1, (a, b)


def test_river_gives_our_progressive_score():
    """River's progressive validation of the adapter counts what ours
    counts, and trains the model our loop trains."""
    from river import evaluate, metrics

    from perceptrons.evaluation import progressive_val_score
    from tests._states import assert_same_state
    from tests.test_one_at_a_time import _dict_stream

    stream = _dict_stream(2000)
    for hypothesis in ("last", "averaged"):
        ours = progressive_val_score(Perceptron(hypothesis=hypothesis),
                                     stream, classes=[0, 1])
        model = as_river(Perceptron(hypothesis=hypothesis), classes=[0, 1])
        theirs = evaluate.progressive_val_score(stream, model,
                                                metrics.Accuracy())
        # river counts the first example too (the adapter answers 0,
        # the zero model's label); ours starts at the second.
        n = len(stream)
        first = int(stream[0][1] == 0)
        assert round(theirs.get() * n) == round(ours.get() * (n - 1)) + first
        ref = Perceptron(hypothesis=hypothesis)
        progressive_val_score(ref, stream, classes=[0, 1])
        assert_same_state(ref.state_, model.model.state_)


def test_perceptrons_river_is_a_lazy_attribute():
    import subprocess

    code = ("import sys, perceptrons; assert 'river' not in sys.modules; "
            "m = perceptrons.river; assert m.as_river; "
            "assert 'river' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_perceptrons_river_without_river(monkeypatch):
    monkeypatch.setitem(sys.modules, "river", None)
    monkeypatch.delitem(sys.modules, "perceptrons.river")
    with pytest.raises(ImportError, match=r"perceptrons\[river\]"):
        importlib.import_module("perceptrons.river")
