"""Cross-validation and the T-confidence interval of K&W footnote 5."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

from perceptrons import Perceptron
from perceptrons.experiments.evaluation import (
    cross_validate,
    fold_tasks,
    online_mistake_rate,
    run_fold,
    summarize_folds,
    t_confidence_interval,
)


def test_interval_matches_hand_computation():
    acc = [0.90, 0.95, 0.85, 0.92, 0.88, 0.91, 0.97, 0.89, 0.93, 0.90]
    k = len(acc)
    mean = sum(acc) / k
    ss = sum((a - mean) ** 2 for a in acc)
    # footnote 5: t_{k-1,0.975} * sqrt(sum (y_i - ybar)^2 / (k (k-1)))
    half = stats.t.ppf(0.975, k - 1) * math.sqrt(ss / (k * (k - 1)))
    got_mean, got_half = t_confidence_interval(acc)
    assert got_mean == pytest.approx(mean, abs=1e-15)
    assert got_half == pytest.approx(half, rel=1e-12)
    # the same as t * s / sqrt(k) with the unbiased standard deviation
    s = np.std(acc, ddof=1)
    assert got_half == pytest.approx(stats.t.ppf(0.975, 9) * s / math.sqrt(k))
    # K&W: "since t_{9,0.975} = 2.262 and k = 10 the confidence interval is
    # 0.754 of the standard deviation" (the ML estimate, ddof=0)
    assert stats.t.ppf(0.975, 9) == pytest.approx(2.262, abs=5e-4)
    assert got_half / np.std(acc, ddof=0) == pytest.approx(0.754, abs=5e-4)


def test_interval_other_confidence_and_degenerate():
    acc = [0.5, 0.7, 0.6]
    _, half = t_confidence_interval(acc, confidence=0.9)
    assert half == pytest.approx(stats.t.ppf(0.95, 2) * np.std(acc, ddof=1)
                                 / math.sqrt(3))
    mean, half = t_confidence_interval([0.8])
    assert mean == 0.8 and math.isnan(half)
    mean, half = t_confidence_interval([0.8, 0.8, 0.8])
    assert mean == pytest.approx(0.8) and half == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError):
        t_confidence_interval([])
    with pytest.raises(ValueError):
        t_confidence_interval([0.1, 0.2], confidence=1.0)


def _blobs(n=120, d=5, n_classes=2, seed=0):
    rng = np.random.RandomState(seed)
    y = rng.randint(n_classes, size=n)
    X = rng.randn(n, d) + 2.0 * rng.randn(n_classes, d)[y]
    return X, y


def test_cross_validate_dense_sparse_and_mistake_rate():
    X, y = _blobs()
    est = Perceptron(max_iter=3, random_state=0)
    res = cross_validate(est, X, y, n_splits=5, random_state=0)
    assert len(res.accuracies) == 5 == res.n_splits
    assert res.mean == pytest.approx(np.mean(res.accuracies))
    mean, half = t_confidence_interval(res.accuracies)
    assert (res.ci_half_width, res.ci_low, res.ci_high) == pytest.approx(
        (half, mean - half, mean + half))
    assert all(0 <= r <= 1 for r in res.mistake_rates)
    assert res.mean_mistake_rate == pytest.approx(np.mean(res.mistake_rates))
    assert all(isinstance(u, int) for u in res.n_updates)
    # the same folds and the same model on CSR input
    res_sp = cross_validate(est, sp.csr_matrix(X), y, n_splits=5,
                            random_state=0)
    assert res_sp.accuracies == pytest.approx(res.accuracies)
    assert res_sp.mistake_rates == pytest.approx(res.mistake_rates)
    # the folds are stratified and depend on random_state only
    again = cross_validate(est, X, y, n_splits=5, random_state=0)
    assert again.accuracies == res.accuracies
    assert "T-interval" in str(res)


def test_mistake_rate_is_fold_training_run():
    X, y = _blobs()
    est = Perceptron(max_iter=2, random_state=0).fit(X, y)
    assert online_mistake_rate(est) == est.n_mistakes_ / est.t_


def test_cross_validate_other_estimators_and_options():
    from sklearn.linear_model import Perceptron as SkPerceptron

    X, y = _blobs(n_classes=3)
    res = cross_validate(SkPerceptron(random_state=0), X, y, n_splits=3)
    assert math.isnan(res.mean_mistake_rate)
    assert all(math.isnan(r) for r in res.mistake_rates)

    # K&W's tau is the estimator's: theta_Init comes from each (scaled)
    # training fold, where the mean <x, x> is the number of features
    res = cross_validate(Perceptron(tau=1.0, max_iter=2, random_state=0), X,
                         y, n_splits=4, scale=True)
    by_hand = cross_validate(Perceptron(margin=5.0, max_iter=2,
                                        random_state=0), X, y, n_splits=4,
                             scale=True)
    assert len(res.accuracies) == 4
    assert res.accuracies == pytest.approx(by_hand.accuracies)


def _without_times(res):
    return {k: v for k, v in res.to_dict().items() if k != "fit_seconds"}


@pytest.mark.parametrize("scale", [False, True])
def test_cross_validate_is_run_fold_mapped_over_fold_tasks(scale):
    import pickle

    X, y = _blobs(n_classes=3)
    est = Perceptron(max_iter=3, hypothesis="averaged", random_state=0)
    res = cross_validate(est, X, y, n_splits=4, random_state=1, scale=scale)
    tasks = fold_tasks(est, X, y, n_splits=4, random_state=1, scale=scale)
    assert [t.fold for t in tasks] == [0, 1, 2, 3]
    assert len({t.key for t in tasks}) == 4
    # the serial path, and the same through pickling (a process pool's)
    serial = list(map(run_fold, tasks))
    pickled = [run_fold(pickle.loads(pickle.dumps(t))) for t in tasks]
    for records in (serial, pickled):
        assert _without_times(summarize_folds(records)) == \
            _without_times(res)
    assert [r["key"] for r in pickled] == [t.key for t in tasks]
    params = serial[0]["task"]["params"]
    assert params["estimator"] == "perceptrons.Perceptron"
    assert params["estimator_params"]["hypothesis"] == "averaged"
    assert params["scale"] is scale


def test_cross_validate_mapper_and_progress():
    X, y = _blobs()
    calls, ticks = [], []

    def mapper(fn, tasks):
        calls.append(len(tasks))
        return map(fn, tasks)

    res = cross_validate(Perceptron(max_iter=2, random_state=0), X, y,
                         n_splits=3, mapper=mapper,
                         progress=lambda: ticks.append(1))
    assert calls == [3] and len(ticks) == 3
    assert _without_times(res) == _without_times(cross_validate(
        Perceptron(max_iter=2, random_state=0), X, y, n_splits=3))


def test_cross_validate_kernel_perceptron_if_available():
    import perceptrons

    assert "KernelPerceptron" in perceptrons.__all__
    X, y = _blobs(n=60)
    res = cross_validate(perceptrons.KernelPerceptron(max_iter=2,
                                                      random_state=0),
                         X, y, n_splits=3)
    assert len(res.accuracies) == 3 and 0 <= res.mean_mistake_rate <= 1


def test_cross_validate_rejects_bad_input():
    X, y = _blobs()
    with pytest.raises(ValueError, match="n_splits"):
        cross_validate(Perceptron(), X, y, n_splits=1)
    with pytest.raises(ValueError, match="rows"):
        cross_validate(Perceptron(), X, y[:-1])


def test_cross_validate_passes_weights_through():
    """Each fold trains with its rows' weights and weighs its test accuracy:
    weights of 0 are the rows absent, weights of 1 no weights at all."""
    from sklearn.base import clone
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import StratifiedKFold

    X, y = load_breast_cancer(return_X_y=True)
    X = X / X.max(axis=0)
    est = Perceptron(random_state=0, shuffle=False, max_iter=3)
    plain = cross_validate(est, X, y, n_splits=3)
    ones = cross_validate(est, X, y, n_splits=3, sample_weight=np.ones(len(y)))
    assert ones.accuracies == plain.accuracies
    weights = np.random.RandomState(0).choice([0.0, 1.0, 3.0], size=len(y))
    res = cross_validate(est, X, y, n_splits=3, sample_weight=weights)
    folds = StratifiedKFold(3, shuffle=True, random_state=0).split(X, y)
    for accuracy, (train, test) in zip(res.accuracies, folds):
        fitted = clone(est).fit(X[train], y[train],
                                sample_weight=weights[train])
        right = fitted.predict(X[test]) == y[test]
        assert accuracy == np.average(right, weights=weights[test])
    with pytest.raises(ValueError, match="sample_weight has shape"):
        cross_validate(est, X, y, n_splits=3, sample_weight=np.ones(3))
