"""Iterative parameter mixing (perceptrons.distributed.ParameterMixing).

* one shard is ``fit`` bit for bit (every array of the declared state);
* S shards follow Algorithm 2 of McDonald, Hall & Mann, transcribed in
  ``tests/reference/parameter_mixing.py``, after every epoch;
* on a real ``distributed.LocalCluster`` (worker processes) the result is
  the in-process one bit for bit, for arrays, Dask arrays and shard files,
  also when a worker is killed during an epoch;
* Theorem 3: with mistake-weighted mixing on separable data the mistakes of
  all shards and epochs are at most (R/γ)²;
* refusals: estimators whose state cannot be mixed, disagreeing shards, an
  unreachable scheduler.
"""

import os
import re
import signal
import sys
import time

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from numpy.testing import assert_allclose, assert_array_equal

from perceptrons import (MPU, PDM, PFM, ROMMA, Ballseptron,
                         HigherOrderPerceptron, KernelPerceptron,
                         PassiveAggressive, Perceptron,
                         SecondOrderPerceptron)
from perceptrons.datasets import dump_svmlight
from perceptrons.distributed import ParameterMixing
from perceptrons.models.perceptron import Figure2
from tests import _registry as reg
from tests._states import assert_same_state

from tests.reference import parameter_mixing
from tests.reference.streams import make_stream
from tests.theory._theory_helpers import separable_problems

#: The λ-trick's own cases (Figure 2's α counts, carried from a shard's
#: epoch to its next): a continuation no registry parameter set makes.
LAMBDA_TRICK = [
    pytest.param(Perceptron, {"hypothesis": "last", "tau": 0.5, "lam": 0.5,
                              "shuffle": False}, id="Perceptron-lam-tau"),
    pytest.param(Perceptron, {"alpha_bound": 2, "lam": 0.25,
                              "random_state": 3}, id="Perceptron-lam-alpha"),
]


def _mixable_cases(first=False):
    """Every registry estimator's parameter sets that parameter mixing
    averages (its algorithm's ``mixing_refusal()`` is None), with a fixed
    seed; ``first``: one set per estimator."""
    return list(reg.cases(reg.mixable, first=first,
                          fixed={"random_state": 0}))


def _unmixable_cases():
    return list(reg.cases(lambda est: not reg.mixable(est)))


def _refused(est):
    """What ParameterMixing says refusing ``est``: its algorithm's
    reason."""
    return ("cannot be trained by parameter mixing: "
            + re.escape(reg.refusal(est, "mixing")))


def _data(n=240, d=12, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[rng.random((n, d)) < 0.4] = 0.0
    w = rng.standard_normal((d, n_classes))
    y = np.argmax(X @ w + 0.8 * rng.standard_normal((n, n_classes)), axis=1)
    return X, y


# ------------------------------------------------------------ one shard = fit
@reg.mark(group="mixing")
@pytest.mark.parametrize("cls, params", _mixable_cases() + LAMBDA_TRICK)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("storage", ["dense", "csr"])
def test_one_shard_is_fit_bit_for_bit(cls, params, n_classes, storage):
    X, y = _data(n_classes=n_classes)
    if storage == "csr":
        X = sp.csr_matrix(X)
    fitted = cls(**params).set_params(max_iter=4).fit(X, y)
    ipm = ParameterMixing(cls(**params).set_params(max_iter=4),
                          n_shards=1).fit(X, y)
    assert_same_state(fitted, ipm.estimator_)
    assert_array_equal(ipm.predict(X), fitted.predict(X))
    assert ipm.mistakes_per_shard_.shape == (4, 1)
    assert_array_equal(ipm.mistakes_per_shard_[:, 0],
                       fitted.mistakes_per_epoch_)


# ------------------------------------------------ S shards = Algorithm 2
def _integer_shards(n_shards, seed):
    # Small integers, η = 1 and integral thresholds: Figure 2's arithmetic
    # is exact, so both sides see the same signs.
    s = make_stream(seed, n=60 * n_shards, d=5, values="integer", noise=0.2,
                    every_class=False, labels=[-1, 1])
    return s.X, s.y


@pytest.mark.reference
@pytest.mark.parametrize("mixing", ["uniform", "mistakes"])
@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
@pytest.mark.parametrize("n_shards,extras", [
    (2, {}), (4, {"margin": 2.0}), (3, {"lam": 0.5}),
    (2, {"alpha_bound": 1})])
def test_shards_follow_algorithm_2(mixing, hypothesis, n_shards, extras):
    X, y = _integer_shards(n_shards, seed=n_shards)
    params = dict(eta=1.0, theta_init=3.0, threshold_step=2.0,
                  hypothesis=hypothesis, **extras)
    ref = parameter_mixing.fit(X, y, n_shards=n_shards, mixing=mixing,
                               max_iter=3, **params)
    for epoch in range(1, 4):
        est = Perceptron(shuffle=False, max_iter=epoch, **params)
        ipm = ParameterMixing(est, n_shards=n_shards, mixing=mixing).fit(X, y)
        assert_array_equal(ipm.updates_per_shard_,
                           ref.updates_per_shard[:epoch])
        assert_array_equal(ipm.mistakes_per_shard_,
                           ref.mistakes_per_shard[:epoch])
        assert_allclose(ipm.mixing_weights_, ref.mixing_weights[:epoch],
                        rtol=1e-15)
        assert_allclose(ipm.coef_[0], ref.coef_per_epoch[epoch - 1],
                        rtol=1e-12, atol=1e-12)
        assert_allclose(ipm.intercept_[0], ref.intercept_per_epoch[epoch - 1],
                        rtol=1e-12, atol=1e-12)
    assert ref.updates_per_shard.sum() > 0


def test_shards_as_lists_and_as_one_array_agree():
    X, y = _data(300, n_classes=3)
    cut = np.array_split(np.arange(300), 3)
    a = ParameterMixing(Perceptron(random_state=0), n_shards=3).fit(X, y)
    b = ParameterMixing(Perceptron(random_state=0)).fit(
        [X[c] for c in cut], [y[c] for c in cut])
    assert_same_state(a.estimator_, b.estimator_)


def test_mixed_model_saves_and_continues(tmp_path):
    from perceptrons.persistence import load_model, save_model

    X, y = _data()
    ipm = ParameterMixing(Perceptron(random_state=0), n_shards=3).fit(X, y)
    save_model(ipm.estimator_, tmp_path / "m.npz")
    loaded = load_model(tmp_path / "m.npz")
    assert_array_equal(loaded.decision_function(X), ipm.decision_function(X))
    loaded.partial_fit(X, y)  # the mixed state is a state of the estimator
    assert loaded.n_iter_ == ipm.estimator_.n_iter_ + 1


# ------------------------------------------------------------ Theorem 3
@settings(max_examples=15, deadline=None)
@given(problem=separable_problems())
def test_theorem_3_mistake_bound(problem):
    """McDonald, Hall & Mann, Theorem 3: on data separable with margin γ
    and radius R, IPM of the Perceptron has Σ_n Σ_i μ_(i,n) k_(i,n) <=
    (R/γ)² for any mixing weights; so the mistakes of all shards and epochs
    are at most S (R/γ)², and with mistake-weighted mixing (Σ_i μ k >= 1 in
    an epoch with a mistake) at most (R/γ)² epochs have a mistake: it
    converges. (The plain total is not bounded by (R/γ)²: hypothesis found
    13 mistakes against a bound of 12.6 with three shards.)"""
    X, y, u, gamma = problem
    R = float(np.max(np.linalg.norm(X, axis=1)))
    bound = (R / gamma) ** 2
    n_epochs = min(int(bound) + 2, 40)
    for n_shards in (2, 3):
        if X.shape[0] < n_shards:
            continue
        for mixing in ("uniform", "mistakes"):
            est = Perceptron(eta=1.0, theta_init=0.0, threshold_step=0.0,
                             hypothesis="last", shuffle=False,
                             max_iter=n_epochs)
            ipm = ParameterMixing(est, n_shards=n_shards, mixing=mixing
                                  ).fit(X, y, classes=[-1, 1])
            k = ipm.mistakes_per_shard_
            assert np.sum(ipm.mixing_weights_ * k) <= bound * (1 + 1e-12)
            assert k.sum() <= n_shards * bound
            if mixing == "mistakes":
                assert np.count_nonzero(k.sum(axis=1)) <= bound
                if n_epochs > bound:
                    assert k[-1].sum() == 0  # converged
                    assert ipm.score(X, y) == 1.0


# ------------------------------------------------------------ refusals
@reg.mark(group="mixing")
@pytest.mark.parametrize("cls, params", _unmixable_cases())
def test_unmixable_estimators_are_refused_at_construction(cls, params):
    # The reason is the algorithm's (mixing_refusal), whole.
    est = cls(**params)
    with pytest.raises(ValueError, match=_refused(est)):
        ParameterMixing(est)


@pytest.mark.parametrize("est,reason", [
    (PDM(), "dynamic margin"), (PFM(), "history"), (ROMMA(), "history"),
    (MPU(), "dual variables"),
    (HigherOrderPerceptron(), "matrix"), (SecondOrderPerceptron(), "matrix"),
    (KernelPerceptron(), "support vectors"),
    (Perceptron(kernel="linear"), "support vectors"),
    (Perceptron(hypothesis="voted"), "'voted'"),
    (Perceptron(hypothesis="longest"), "'longest'"),
    (Ballseptron(kernel="rbf"), "support vectors"),
    (PassiveAggressive(kernel="rbf"), "support vectors")], ids=repr)
def test_each_refusal_names_what_cannot_be_mixed(est, reason):
    # The wording of these algorithms' reasons (every estimator's refusal
    # is checked above).
    with pytest.raises(ValueError, match="cannot be trained by parameter "
                                         f"mixing: .*{reason}"):
        ParameterMixing(est)


def test_set_params_to_an_unmixable_estimator_is_refused_by_fit():
    ipm = ParameterMixing(Perceptron())
    ipm.set_params(estimator__hypothesis="voted")
    with pytest.raises(ValueError, match="'voted'"):
        ipm.fit(*_data())


def test_foreign_estimator_is_refused():
    from sklearn.linear_model import SGDClassifier

    with pytest.raises(TypeError, match="SGDClassifier"):
        ParameterMixing(SGDClassifier())


def test_disagreeing_shards_are_refused_before_training(tmp_path):
    X, y = _data(120)
    with pytest.raises(ValueError, match="shard 1 has 5 features"):
        ParameterMixing().fit([X[:60], X[60:, :5]], [y[:60], y[60:]])
    y3 = np.where(np.arange(120) < 60, y, 2)
    with pytest.raises(ValueError, match="shard 1 has classes"):
        ParameterMixing().fit([X[:60], X[60:]], [y3[:60], y3[60:]])
    # With every class given, a shard may miss some.
    ParameterMixing(Perceptron(max_iter=1)).fit(
        [X[:60], X[60:]], [y3[:60], y3[60:]], classes=[0, 1, 2])
    a, b = tmp_path / "a.svm", tmp_path / "b.svm"
    dump_svmlight(X[:60], y[:60], a)
    dump_svmlight(X[60:, :6], y[60:], b)
    with pytest.raises(ValueError, match=f"shard {b} has 6 features"):
        ParameterMixing().fit([str(a), str(b)])
    with pytest.raises(ValueError, match="Input X contains NaN"):
        Xn = X.copy()
        Xn[70, 3] = np.nan
        ParameterMixing().fit(Xn, y)


def test_shard_files_equal_arrays(tmp_path):
    X, y = _data(200, n_classes=3)
    X = np.round(X, 3)  # values the text round-trips exactly
    X[:, -1] = 1.0  # every file reaches the last column
    paths = []
    for i, c in enumerate(np.array_split(np.arange(200), 4)):
        paths.append(tmp_path / f"part{i}.svm")
        dump_svmlight(X[c], y[c], paths[-1])
    a = ParameterMixing(Perceptron(random_state=4), n_shards=4).fit(
        X, y.astype(float))  # the labels files hold
    b = ParameterMixing(Perceptron(random_state=4)).fit(paths)
    assert_same_state(a.estimator_, b.estimator_)


# ------------------------------------------------------------ on a cluster
@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        yield client


@reg.mark(rule=reg.with_a_case(reg.mixable, "estimators parameter mixing "
                                             "averages, with some parameters"))
@pytest.mark.parametrize("cls, params",
                         _mixable_cases(first=True) + LAMBDA_TRICK[1:])
def test_local_cluster_gives_the_in_process_bits(client, cls, params):
    # One parameter set of each estimator that can be mixed, and the
    # λ-trick's α counts, which stay on the workers.
    X, y = _data(400, n_classes=3)
    X = sp.csr_matrix(X)
    est = cls(**params)
    here = ParameterMixing(est, n_shards=3, mixing="mistakes").fit(X, y)
    there = ParameterMixing(est, n_shards=3, mixing="mistakes",
                            client=client).fit(X, y)
    assert_same_state(here.estimator_, there.estimator_)
    assert_array_equal(here.mixing_weights_, there.mixing_weights_)


def test_dask_array_shards_are_its_row_chunks(client):
    import dask.array as da

    X, y = _data(300)
    Xd = da.from_array(X, chunks=(100, 6))  # column chunks are joined
    yd = da.from_array(y, chunks=100)
    there = ParameterMixing(Perceptron(random_state=0),
                            client=client).fit(Xd, yd)
    here = ParameterMixing(Perceptron(random_state=0), n_shards=3).fit(X, y)
    assert there.n_shards_ == 3
    assert_same_state(here.estimator_, there.estimator_)
    serial = ParameterMixing(Perceptron(random_state=0)).fit(Xd, yd)
    assert_same_state(here.estimator_, serial.estimator_)


def test_shard_files_are_read_on_the_workers(client, tmp_path):
    X, y = _data(200)
    X[:, -1] = 1.0
    paths = []
    for i, c in enumerate(np.array_split(np.arange(200), 2)):
        paths.append(str(tmp_path / f"part{i}.svm"))
        dump_svmlight(X[c], y[c], paths[-1])
    here = ParameterMixing(Perceptron(random_state=0)).fit(paths)
    there = ParameterMixing(Perceptron(random_state=0),
                            client=client).fit(paths)
    assert_same_state(here.estimator_, there.estimator_)


class _DyingFigure2(Figure2):
    """Figure 2, except that shard 1's pass kills its worker process once,
    in the middle of epoch 2 (a marker file says it has happened)."""

    def run_epoch(self, call, targets, order):
        marker = os.environ.get("PERCEPTRONS_TEST_KILL_MARKER", "")
        if call.state.n_iter == 1 and call.X.shape[0] == 150 and marker \
                and not os.path.exists(marker):
            open(marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return super().run_epoch(call, targets, order)


class _DiesOnce(Perceptron):
    """A Perceptron whose shard 1 kills its worker once (_DyingFigure2)."""

    _algorithm = _DyingFigure2


def test_a_killed_worker_changes_nothing(tmp_path):
    import cloudpickle
    from distributed import Client, LocalCluster

    # The workers get the class by value (they cannot import this module).
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    marker = tmp_path / "killed"
    X, y = _data(450, n_classes=3)  # shards of 150 rows
    est = _DiesOnce(lam=0.5, random_state=5)  # α counts stay on workers
    undisturbed = ParameterMixing(est, n_shards=3, max_iter=4).fit(X, y)
    os.environ["PERCEPTRONS_TEST_KILL_MARKER"] = str(marker)
    try:
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=":0") as cluster, \
                Client(cluster) as client:
            client.run(os.environ.__setitem__,
                       "PERCEPTRONS_TEST_KILL_MARKER", str(marker))
            disturbed = ParameterMixing(est, n_shards=3, max_iter=4,
                                        client=client).fit(X, y)
    finally:
        del os.environ["PERCEPTRONS_TEST_KILL_MARKER"]
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert marker.exists()  # a worker did die
    assert_same_state(undisturbed.estimator_, disturbed.estimator_)


def test_unreachable_scheduler_fails_fast():
    start = time.monotonic()
    with pytest.raises(ConnectionError, match="no Dask scheduler answered"):
        ParameterMixing(client="tcp://127.0.0.1:9", timeout=1.0).fit(*_data())
    assert time.monotonic() - start < 15


def test_doctests():
    import doctest

    from perceptrons import distributed

    result = doctest.testmod(distributed)
    assert result.attempted > 0 and result.failed == 0


def test_class_weight_is_refused_not_lost():
    X, y = _data(120)
    with pytest.raises(ValueError, match="does not apply class_weight"):
        ParameterMixing(Perceptron(class_weight="balanced"),
                        n_shards=2).fit(X, y)
