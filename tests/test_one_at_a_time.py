"""One example at a time: ``learn_one``/``predict_one`` and
``progressive_val_score`` (the river adapter: ``tests/test_river.py``)."""

import re
import warnings

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import make_classification

from perceptrons import PFM, Perceptron
from perceptrons.evaluation import progressive_val_score
from tests import _registry as reg
from tests._states import assert_same_state

ESTIMATORS = reg.estimator_classes()


def _stream(n=60, n_classes=3, seed=0):
    X, y = make_classification(n_samples=n, n_features=5, n_informative=3,
                               n_redundant=0, n_classes=n_classes,
                               n_clusters_per_class=1, random_state=seed)
    return X, y


def _explicit(cls, **params):
    """``cls`` with the parameters that let a fresh estimator learn one
    example at a time (the class's ``_one_at_a_time_params``)."""
    return cls(**cls._one_at_a_time_params, **params)


@reg.mark()
@pytest.mark.parametrize("cls", ESTIMATORS, ids=reg.class_id)
def test_a_fresh_estimator_learns_one_at_a_time_or_says_why(cls):
    """With its defaults, the first ``learn_one`` either starts the model
    or is refused with the algorithm's reason (a parameter the data would
    resolve); the class's ``_one_at_a_time_params`` then give each such
    parameter a value, and the first ``learn_one`` starts the model."""
    X, y = _stream()
    est = cls()
    refusal = reg.refusal(est, "one_at_a_time")
    if refusal is None:
        est.learn_one(X[0], y[0], classes=[0, 1, 2])
        assert est.predict_one(X[1]) in (0, 1, 2)
    else:
        with pytest.raises(ValueError, match=re.escape(refusal)):
            est.learn_one(X[0], y[0], classes=[0, 1, 2])
        assert not hasattr(est, "state_")
        assert cls._one_at_a_time_params, (
            f"{cls.__name__}'s defaults cannot learn one example at a time "
            f"({refusal}): give the values to use in its "
            "_one_at_a_time_params")
    explicit = _explicit(cls)
    assert reg.refusal(explicit, "one_at_a_time") is None
    explicit.learn_one(X[0], y[0], classes=[0, 1, 2])
    assert explicit.predict_one(X[1]) in (0, 1, 2)


@reg.mark()
@pytest.mark.parametrize("cls", ESTIMATORS, ids=reg.class_id)
def test_learn_one_is_partial_fit_on_one_row(cls):
    X, y = _stream()
    classes = np.unique(y)
    weights = np.random.RandomState(0).choice([0.0, 1.0, 2.0], size=len(y))
    one, batch, named = _explicit(cls), _explicit(cls), _explicit(cls)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(len(y)):
            try:
                batch.partial_fit(X[i:i + 1], y[i:i + 1], classes=classes,
                                  sample_weight=weights[i:i + 1])
            except ValueError as exc:  # a lone row of weight 0
                assert "weight zero" in str(exc) or "non-zero" in str(exc)
                with pytest.raises(ValueError):
                    one.learn_one(X[i], y[i], classes=classes,
                                  sample_weight=weights[i])
                continue
            one.learn_one(X[i], y[i], classes=classes,
                          sample_weight=weights[i])
            named.learn_one({f"x{j}": v for j, v in enumerate(X[i])}, y[i],
                            classes=classes, sample_weight=weights[i])
    assert_same_state(one.state_, batch.state_)
    assert_array_equal(named.state_.feature_names_in,
                       [f"x{j}" for j in range(X.shape[1])])
    assert_same_state(named.state_.replace(feature_names_in=None),
                      one.state_)
    assert named.predict_one({"x0": 1.0, "x3": -2.0}) == one.predict_one(
        np.array([1.0, 0, 0, -2.0, 0]))


def test_one_at_a_time_errors():
    X, y = _stream()
    # "auto" on a stream: the first call is the first example.
    est = Perceptron().learn_one(X[0], y[0], classes=[0, 1, 2])
    assert est.theta_init_ == pytest.approx(np.dot(X[0], X[0]), rel=1e-14)
    assert PFM().learn_one(X[0], y[0], classes=[0, 1, 2]).beta_ == 0.5
    est = Perceptron(theta_init=0.0, threshold_step=0.0)
    with pytest.raises(ValueError, match="classes must be passed"):
        est.learn_one(X[0], y[0])
    est.learn_one({"a": 1.0, "b": 2.0}, 0, classes=[0, 1, 2])
    est.learn_one({"a": 1.0, "c": 2.0}, 1)  # a feature that arrives later
    assert list(est.feature_names_in_) == ["a", "b", "c"]
    with pytest.raises(ValueError, match="1-D array"):
        est.learn_one(X[:2, :2], 1)
    arrays = Perceptron(theta_init=0.0, threshold_step=0.0)
    arrays.learn_one(X[0], y[0], classes=[0, 1, 2])
    with pytest.raises(ValueError, match="x has 3 features, but Perceptron "
                                         "is expecting 5"):
        arrays.learn_one(X[1, :3], y[1])
    with pytest.raises(ValueError, match="real numbers"):
        arrays.learn_one(X[1] * 1j, y[1])
    with pytest.raises(ValueError, match="NaN"):
        arrays.learn_one(np.full(5, np.nan), y[1])
    with pytest.raises(ValueError, match="NaN or infinity"):
        arrays.predict_one(np.full(5, np.inf))
    arrays.learn_one(X[1], 9)  # a class that arrives later
    assert 9 in arrays.classes_
    # After a batch, "auto" is resolved: learn_one goes on from there.
    batch = Perceptron().partial_fit(X, y, classes=[0, 1, 2])
    batch.learn_one(X[0], y[0])
    with pytest.raises(ValueError, match="without feature names"):
        batch.learn_one({"x0": 1.0}, 0)


def _dict_stream(n, seed=0):
    X, y = make_classification(n_samples=n, n_features=10, flip_y=0.05,
                               random_state=seed)
    return [({f"f{j}": v for j, v in enumerate(row)}, int(label))
            for row, label in zip(X, y)]


def test_progressive_val_score_counts_the_online_mistakes():
    """Predict then learn: with the last hypothesis, the predictions that
    missed are the online mistakes of Figure 2 (after the first example,
    learned without a prediction)."""
    stream = _dict_stream(2000)
    est = Perceptron(hypothesis="last", theta_init=0.0, threshold_step=0.0)
    metric = progressive_val_score(est, stream, classes=[0, 1])
    n_wrong = round((1 - metric.get()) * (len(stream) - 1))
    first = est.mistakes_per_epoch_[0]  # the first example's own call
    assert n_wrong == est.n_mistakes_ - first
    assert 0.75 < metric.get() < 1.0


# ------------------------------------------------- per-call history counters
def test_appended_is_concatenate_and_never_changes_a_held_array():
    from perceptrons.models._state import appended
    rng = np.random.RandomState(0)
    held = [(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))]
    for _ in range(400):
        # Continue a random earlier version (two estimators sharing one
        # state continue it independently) or the latest (the usual case).
        base, want = held[rng.randint(len(held))] if rng.rand() < 0.3 \
            else held[-1]
        values = rng.randint(0, 9, size=rng.randint(0, 4))
        got = appended(base, values)
        assert got.dtype == np.int64
        assert_array_equal(got, np.concatenate([want, values]))
        held.append((got, got.copy()))
    for got, want in held:
        assert_array_equal(got, want)


def test_history_tail_is_appended_one_and_never_changes_a_held_array():
    # learn_one's appends remember their last view; an append to another
    # view, or to its own last view after someone else extended the buffer
    # (two estimators continuing one state), takes appended's rules.
    from perceptrons.models._state import HistoryTail, appended
    rng = np.random.RandomState(1)
    tail = HistoryTail()
    held = [(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))]
    for _ in range(600):
        base, want = held[rng.randint(len(held))] if rng.rand() < 0.2 \
            else held[-1]
        value = int(rng.randint(0, 9))
        if rng.rand() < 0.1:
            other = appended(base, [7])  # another state extends it
            held.append((other, other.copy()))
        got = tail.append(base, value)
        assert got.dtype == np.int64
        assert_array_equal(got, np.concatenate([want, [value]]))
        held.append((got, got.copy()))
    for got, want in held:
        assert_array_equal(got, want)


def test_appended_copies_logarithmically_often():
    # One example at a time adds an entry a call; the buffer doubles, so a
    # stream of n calls copies O(log n) times, not n.
    from perceptrons.models._state import appended
    history, buffers = np.zeros(0, dtype=np.int64), set()
    for i in range(5000):
        history = appended(history, [i])
        buffers.add(id(history.base))
    assert_array_equal(history, np.arange(5000))
    assert len(buffers) <= 10
    # A copy, a pickle or a model file holds the entries alone.
    import pickle
    assert_array_equal(pickle.loads(pickle.dumps(history)), history)
    assert len(pickle.dumps(history[:10])) < 1000


def test_a_stream_and_its_copy_keep_their_own_history():
    import copy
    X, y = _stream(n=40)
    a = Perceptron(theta_init=1.0, threshold_step=1.0)
    for i in range(20):
        a.learn_one(X[i], y[i], classes=[0, 1, 2])
    b = copy.deepcopy(a)
    held = a.mistakes_per_epoch_
    held_values = held.copy()
    for i in range(20, 30):
        a.learn_one(X[i], y[i])
    for i in range(30, 40):
        b.learn_one(X[i], y[i])
    ref_a, ref_b = (Perceptron(theta_init=1.0, threshold_step=1.0)
                    for _ in range(2))
    for i in range(30):
        ref_a.partial_fit(X[i:i + 1], y[i:i + 1], classes=[0, 1, 2])
    for i in list(range(20)) + list(range(30, 40)):
        ref_b.partial_fit(X[i:i + 1], y[i:i + 1], classes=[0, 1, 2])
    assert_same_state(a.state_, ref_a.state_)
    assert_same_state(b.state_, ref_b.state_)
    assert a.mistakes_per_epoch_.shape == b.mistakes_per_epoch_.shape == (30,)
    assert_array_equal(held, held_values)


@reg.mark()
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("cls", ESTIMATORS, ids=reg.class_id)
def test_predict_one_is_predict_on_the_row(cls, n_classes):
    """predict_one's label is predict's on the row, from fresh public
    views or from those learn_one left to be made, for arrays and dicts;
    a row with NaN or infinity is refused."""
    X, y = _stream(n=60, n_classes=n_classes)
    est = _explicit(cls, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.partial_fit(X[:30], y[:30], classes=np.unique(y))
        for i in range(30, 60):
            named = {f"x{j}": v for j, v in enumerate(X[i])}
            assert est.predict_one(X[i]) == est.predict(X[i:i + 1])[0]
            est.learn_one(X[i], y[i])
    labels = [est.predict(X[i:i + 1])[0] for i in range(X.shape[0])]
    assert [est.predict_one(x) for x in X] == labels
    if hasattr(est, "coef_") and not hasattr(est, "dual_coef_"):
        # A linear model's one-row scores are decision_function's on the
        # row, bit for bit (a product over a whole X may sum in another
        # order).
        from perceptrons.models._driver.protocol import linear_row_scores

        for x in X:
            assert_array_equal(
                np.ravel(linear_row_scores(vars(est), x)),
                np.ravel(est.decision_function(x[None, :])))
    bad = X[0].copy()
    bad[1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.predict_one(bad)
    del named
