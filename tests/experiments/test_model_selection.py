"""Parameter search and double cross-validation (K&W Sec. 3.3-3.4):
grids, the hypotheses of one run, backends, resume and bad input."""

import json
import time

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris

from perceptrons import ROMMA, Ballseptron, Perceptron
from perceptrons.datasets import make_khardon_wachman
from perceptrons.experiments import _cv_results, hypotheses
from perceptrons.experiments import model_selection as ms
from perceptrons.experiments.store import Store
from perceptrons.models._voted import longest_survivor

GRID = {"tau": [0.0, 0.5], "lam": [0.0, 1.0]}


def _data(n=120, f=8, noise=0.1, seed=1):
    return make_khardon_wachman(n, f, 0.05, noise, random_state=seed)


def _est():
    return Perceptron(max_iter=5)


def _same(a, b):
    """Two DoubleCVResults hold the same numbers."""
    ra, rb = a.search.cv_results_, b.search.cv_results_
    assert ra.keys() == rb.keys()
    for k in ra:
        if k.startswith(("split", "mean_test", "std_test", "rank_test")):
            np.testing.assert_array_equal(ra[k], rb[k])
    assert a.selections == b.selections


# ------------------------------------------------------------------ grids
def test_paper_columns_search_excludes_and_optimization_includes_inactive():
    search = {c.name: c for c in ms.paper_columns("search")}
    opt = {c.name: c for c in ms.paper_columns("optimization")}
    assert list(search) == ["Nothing", "τ", "λ", "α", "τ×λ", "τ×α"]
    assert list(opt) == [*search, "τ→α", "τ→λ"]
    assert all(c["tau"] != 0 for c in search["τ"].cells())
    assert all(c["tau"] != 0 and c["alpha_bound"] is not None
               for c in search["τ×α"].cells())
    assert len(search["τ×λ"].cells()) == 36
    assert {c["tau"] for c in opt["τ"].cells()} == set(ms.TAU_GRID)
    assert len(opt["τ×α"].cells()) == 49
    # sequential: every (τ, α) a selection may visit
    assert len(opt["τ→α"].cells()) == 49
    assert search["Nothing"].cells() == [ms.INACTIVE]
    no_alpha = ms.paper_columns("optimization", ("tau", "lam"))
    assert [c.name for c in no_alpha] == ["Nothing", "τ", "λ", "τ×λ", "τ→λ"]


def test_sequential_selection_fixes_the_first_stage_winner():
    col = ms.Column("τ→λ", ({"tau": (0.0, 1.0), "lam": (0.0,)},
                           {"lam": (0.0, 2.0)}))
    acc = {(0.0, 0.0): 0.7, (1.0, 0.0): 0.8, (1.0, 2.0): 0.9,
           (0.0, 2.0): 0.99}  # best jointly, but τ = 0 loses stage 1
    table = {(sid, ms.canonical_json({"tau": t, "lam": l})): {"last": a}
             for (t, l), a in acc.items() for sid in ("o0/i0", "o0/i1")}
    assert _cv_results._select(col, table, "o0", ["o0/i0", "o0/i1"], "last") == \
        {"tau": 1.0, "lam": 2.0}
    joint = ms.Column("τ×λ", ({"tau": (0.0, 1.0), "lam": (0.0, 2.0)},))
    assert _cv_results._select(joint, table, "o0", ["o0/i0", "o0/i1"], "last") == \
        {"tau": 0.0, "lam": 2.0}


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("grid, word", [
    ({"tua": [0.0, 1.0]}, "'tua'"),
    ({"tau": [0.0, -1.0]}, "'tau'"),
    ({"alpha_bound": [None, 0]}, "'alpha_bound'"),
    ({"tau": []}, "non-empty"),
])
def test_bad_grid_refused_before_any_task(tmp_path, grid, word):
    X, y = _data()
    store = tmp_path / "records.jsonl"
    with pytest.raises(ValueError, match=word):
        ms.parameter_search(_est(), grid, X, y, cv=3, store=store)
    assert not store.exists()


def test_unreachable_scheduler_fails_fast_and_writes_nothing(tmp_path):
    from perceptrons.experiments.options import RunOptions
    from perceptrons.experiments.khardon_wachman import run

    start = time.perf_counter()
    with pytest.raises(ConnectionError, match="tcp://127.0.0.1:9"):
        run(RunOptions(output_dir=tmp_path / "out", quick=True,
                       progress=False, scheduler="tcp://127.0.0.1:9"))
    assert time.perf_counter() - start < 10
    assert not (tmp_path / "out").exists()


def test_store_of_another_grid_or_version_is_not_reused(tmp_path):
    X, y = _data()
    store = tmp_path / "records.jsonl"
    ms.parameter_search(_est(), GRID, X, y, cv=3, store=store,
                        progress=False)
    with pytest.raises(ValueError, match="another grid"):
        ms.parameter_search(_est(), {"tau": [0.0, 0.25]}, X, y, cv=3,
                            store=store, resume=True)
    manifest = store.with_name(store.name + ".manifest.json")
    old = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**old, "version": "0.0.1"}))
    with pytest.raises(ValueError, match="0.0.1"):
        ms.parameter_search(_est(), GRID, X, y, cv=3, store=store,
                            resume=True)


# ------------------------------------------------------------------ hypotheses
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("params", [{}, {"tau": 0.5},
                                    {"tau": 0.25, "lam": 0.5,
                                     "alpha_bound": 3}])
@pytest.mark.parametrize("iris", [False, True])
def test_one_voted_run_gives_the_last_and_longest_of_separate_fits(
        sparse, params, iris):
    X, y = load_iris(return_X_y=True) if iris else _data(200, 10, 0.15)
    X = sp.csr_matrix(X) if sparse else X
    base = {"max_iter": 8, "random_state": 3, **params}
    voted = Perceptron(hypothesis="voted", **base).fit(X, y)
    preds = ms.hypothesis_predictions(voted, X)
    assert set(preds) == set(ms.HYPOTHESES)
    for h in ("last", "longest", "voted"):
        alone = Perceptron(hypothesis=h, **base).fit(X, y)
        np.testing.assert_array_equal(preds[h], alone.predict(X))
    longest = Perceptron(hypothesis="longest", **base).fit(X, y)
    s = voted.state_
    W, b = longest_survivor(
        s.voted.binary_arrays(s.current_vote), s.vote_rows.X,
        voted.eta, voted.threshold_step_, voted.theta_init_, X.shape[1])
    np.testing.assert_array_equal(W, longest.coef_)  # bit for bit
    np.testing.assert_array_equal(b, longest.intercept_)


def test_averaged_is_the_vote_weighted_average_of_the_hypotheses():
    X, y = _data(150, 6, 0.1)
    est = Perceptron(hypothesis="voted", max_iter=3, random_state=0,
                     eta=1.0, threshold_step=1.0, theta_init=1.0).fit(X, y)
    state = est.state_
    support, sign, votes, _ = state.voted.binary_arrays(state.current_vote)
    s_rows = state.vote_rows.X
    w, theta = np.zeros(X.shape[1]), 1.0
    acc_w, acc_t = votes[0] * w, votes[0] * theta
    for j, (s, a) in enumerate(zip(support, sign)):
        w, theta = w + a * s_rows[s], theta - a
        acc_w, acc_t = acc_w + votes[j + 1] * w, acc_t + votes[j + 1] * theta
    W, b = hypotheses._vote_weighted_average(est, hypotheses._vote_log(est))
    np.testing.assert_allclose(W[0], acc_w / votes.sum())
    np.testing.assert_allclose(b[0], -acc_t / votes.sum())


def test_any_estimator_without_hypotheses():
    X, y = _data()
    res = ms.parameter_search(Ballseptron(max_iter=3),
                              {"radius": [0.0, 0.5]}, X, y, cv=3,
                              hypotheses=None, progress=False)
    score, cell = res.best("grid", "own")
    assert 0.5 < score <= 1 and cell["radius"] in (0.0, 0.5)
    assert res.cv_results_["rank_test_own"].tolist() in ([1, 2], [2, 1])
    with pytest.raises(ValueError, match="hypothesis"):
        ms.parameter_search(ROMMA(), {"max_iter": [1]}, X, y, cv=3)
    # Hypotheses the estimator does not have are refused before any task
    # (they used to be recorded as failed fits, scored NaN).
    with pytest.raises(ValueError, match="'longest' for 'hypothesis'"):
        ms.parameter_search(Ballseptron(max_iter=3), {"radius": [0.5]},
                            X, y, cv=3, progress=False)
    # the ones it has: one fit per hypothesis, real scores
    res = ms.parameter_search(Ballseptron(max_iter=3), {"radius": [0.5]},
                              X, y, cv=3, hypotheses=("last", "averaged"),
                              progress=False)
    for h in ("last", "averaged"):
        assert 0.5 < res.cv_results_[f"mean_test_{h}"][0] <= 1


def test_folds_of_another_study_are_its_folds_exactly():
    X, y = _data()
    base = ms.Study("set", _est(), GRID, X, y, outer=5, inner=3)
    other = ms.Study("set (baseline)", _est(), GRID, X, y, outer=5,
                     inner=3, folds_of="set")
    alone = ms.Study("set (baseline)", _est(), GRID, X, y, outer=5, inner=3)
    a, b = base.splits(), other.splits()
    assert a.keys() == b.keys()
    for sid in a:
        for rows_a, rows_b in zip(a[sid], b[sid]):
            np.testing.assert_array_equal(rows_a, rows_b)
    assert any(not np.array_equal(a["o0"][1], alone.splits()["o0"][1])
               for _ in [0])
    # Stored keys: an unset folds_of leaves the protocol as it was.
    assert "folds_of" not in base.protocol()
    assert other.protocol()["folds_of"] == "set"


def test_training_sets_of_a_given_size_scored_on_the_test_split():
    X, y = _data(n=200)
    study = ms.Study("sizes", _est(), GRID, X[:150], y[:150], X_test=X[150:],
                     y_test=y[150:], train_size=20, outer=4, inner=0)
    splits = study.splits()
    assert list(splits) == ["d0", "d1", "d2", "d3"]
    draws = [set(train.tolist()) for train, _ in splits.values()]
    for train, test in splits.values():
        assert train.shape == (20,) and set(y[train].tolist()) == {-1, 1}
        assert train.max() < 150
        np.testing.assert_array_equal(test, 150 + np.arange(50))
    assert len({frozenset(d) for d in draws}) == 4  # four different draws
    assert study.protocol()["train_size"] == 20
    res = ms.search_result(study, ms.run_studies([study])["sizes"])
    assert res.cv_results_["split3_test_voted"].shape == (4,)
    for bad, word in ((dict(X_test=None, y_test=None), "X_test"),
                      (dict(train_size=150), "from 2 to 149"),
                      (dict(train_size=2.5), "integer")):
        kw = {**dict(X_test=X[150:], y_test=y[150:], train_size=20), **bad}
        with pytest.raises(ValueError, match=word):
            ms.Study("sizes", _est(), GRID, X[:150], y[:150], **kw)


# ------------------------------------------------------------------ results
def test_double_cv_result_and_fixed_test_split():
    X, y = _data(150)
    res = ms.double_cross_validation(_est(), GRID, X, y, outer_cv=3,
                                     inner_cv=2, progress=False)
    sel = res.selections[("grid", "voted")]
    assert len(sel["scores"]) == 3 and all(c is not None for c in
                                           sel["chosen"])
    assert sel["ci_low"] < sel["mean"] < sel["ci_high"]
    assert res.search.cv_results_["split2_test_longest"].shape == (4,)
    assert len(res.cv_results_) == 4  # one column × four hypotheses
    one = ms.double_cross_validation(_est(), GRID, X[:100], y[:100],
                                     X_test=X[100:], y_test=y[100:],
                                     inner_cv=2, progress=False)
    sel = one.selections[("grid", "last")]
    assert len(sel["scores"]) == 1 and np.isnan(sel["ci_half_width"])


# ------------------------------------------------------------------ backends
def test_backends_give_identical_results():
    from distributed import Client, LocalCluster

    X, y = _data(90, 6)
    kw = {"outer_cv": 3, "inner_cv": 2, "progress": False}
    serial = ms.double_cross_validation(_est(), GRID, X, y, **kw)
    joblib = ms.double_cross_validation(_est(), GRID, X, y,
                                        backend="joblib", n_jobs=2, **kw)
    _same(serial, joblib)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      dashboard_address=None) as cluster, \
            Client(cluster) as client:
        dask = ms.double_cross_validation(_est(), GRID, X, y,
                                          scheduler=client, **kw)
        assert client.scheduler_info()["workers"]  # it ran there
    _same(serial, dask)


# ------------------------------------------------------------------ resume
class _Counting(ms.Executor):
    def __init__(self):
        super().__init__("serial")
        self.ran = 0

    def mapper(self, data):
        inner = super().mapper(data)

        def count(worker, tasks):
            self.ran += len(tasks)
            return inner(worker, tasks)
        return count


def test_resume_runs_only_missing_tasks_and_a_rerun_nothing(tmp_path):
    X, y = _data(90, 6)
    path = tmp_path / "records.jsonl"
    kw = {"outer_cv": 3, "inner_cv": 2, "progress": False, "store": path}
    first = ms.double_cross_validation(_est(), GRID, X, y, **kw)
    lines = path.read_text().splitlines()
    assert len(lines) == 4 * 3 * 3  # cells × (outer + inner) × outer folds
    path.write_text("\n".join(lines[:10]) + "\n")  # interrupted after 10
    ex = _Counting()
    again = ms.double_cross_validation(_est(), GRID, X, y, executor=ex,
                                       resume=True, **kw)
    assert ex.ran == len(lines) - 10
    _same(first, again)
    ex = _Counting()
    ms.double_cross_validation(_est(), GRID, X, y, executor=ex, resume=True,
                               **kw)
    assert ex.ran == 0
    assert len(Store(path).done()) == len(lines)
