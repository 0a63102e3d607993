"""The demo runs end to end on a tiny configuration, through the store."""

import csv
import json

import pytest

from perceptrons.experiments._results import (
    plot_results,
    render_markdown,
    summary_rows,
)
from perceptrons.experiments.demo import DATASETS, VARIANTS, run_demo
from perceptrons.experiments.store import STARTING, Store

TINY_VARIANTS = ["classic (last)", "voted", "τ = 0.5", "α = 20",
                 "sklearn Perceptron"]
TINY = dict(datasets=["kw f50 M0.1 N0.1", "wdbc"], variants=TINY_VARIANTS,
            n_splits=3, max_iter=3, progress=False)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    return out, run_demo(out, **TINY)


def test_demo_writes_files(tiny):
    out, res = tiny
    files = res["files"]
    assert set(files) == {"records", "run", "json", "csv", "markdown", "png"}
    # every file written, none left out (issue #41)
    assert {p.name for p in files.values()} == {p.name for p in out.iterdir()}
    assert files["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert files["png"].stat().st_size > 5000
    md = files["markdown"].read_text(encoding="utf-8")
    assert md == res["markdown"]
    for name in TINY_VARIANTS + ["kw f50 M0.1 N0.1", "wdbc"]:
        assert name in md
    assert "T-interval" in md and "mistake rate" in md
    data = json.loads(files["json"].read_text(encoding="utf-8"))
    for key in ("perceptrons_version", "numba_version", "git_sha",
                "sklearn_version", "created_utc"):
        assert key in data["meta"]
    assert len(data["results"]) == 2 * len(TINY_VARIANTS)
    with open(files["csv"], newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 * len(TINY_VARIANTS)
    assert {r["numba_version"] for r in rows} == {
        data["meta"]["numba_version"]}
    # one record per (data set, variant, fold), in the store
    assert len(Store(files["records"]).read()) == 2 * len(TINY_VARIANTS) * 3


def test_results_content(tiny):
    _, res = tiny
    rows = summary_rows(res["records"])
    for r in rows:
        assert len(r["accuracies"]) == 3
        assert 0.0 <= r["mean"] <= 1.0
        assert r["ci_low"] <= r["mean"] <= r["ci_high"]
        if r["estimator"] == "perceptrons.Perceptron":
            assert 0.0 <= r["mean_mistake_rate"] <= 1.0
            assert r["estimator_params"]["max_iter"] == 3
        else:
            assert r["estimator"] == "sklearn.linear_model.Perceptron"
            assert all(x != x for x in r["mistake_rates"])  # NaN
    tau = [r for r in rows if r["variant"] == "τ = 0.5"]
    assert all(r["estimator_params"]["tau"] == 0.5 for r in tau)
    assert all(r["estimator_params"]["margin"] == 0.0 for r in tau)


def test_render_and_plot_read_the_store_without_refit(tiny, tmp_path):
    _, res = tiny
    stored = list(Store(res["files"]["records"]).read().values())
    assert stored == res["records"]
    text = {**{d: DATASETS[d].description for d in TINY["datasets"]},
            **{v.name: v.description for v in VARIANTS}}
    assert render_markdown(stored, text) == res["markdown"]
    path = plot_results(stored, tmp_path / "again.png", "demo")
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_resume_keeps_the_folds(tiny, tmp_path, monkeypatch):
    from perceptrons.experiments import demo

    first = run_demo(tmp_path, **{**TINY, "datasets": ["wdbc"]})

    def refuse(task):
        raise AssertionError("a finished fold ran again")

    monkeypatch.setattr(demo, "run_fold", refuse)
    again = run_demo(tmp_path, resume=True, **{**TINY, "datasets": ["wdbc"]})
    assert again["records"] == first["records"]
    assert again["markdown"] == first["markdown"]


def test_demo_config_names():
    assert set(DATASETS) == {"kw f50 M0.1 N0", "kw f50 M0.1 N0.1", "wdbc",
                             "digits"}
    names = [v.name for v in VARIANTS]
    assert len(names) == len(set(names)) == 9
    with pytest.raises(ValueError, match="unknown demo data set"):
        run_demo("unused", datasets=["nope"])
    with pytest.raises(ValueError, match="unknown demo variant"):
        run_demo("unused", variants=["nope"])


def test_demo_bar_says_it_is_starting(tmp_path, capsys):
    # the demo's bar is the runner's (store.progress_bar): until the first
    # fold is done it says numba compiles on a first run (issue #41)
    run_demo(tmp_path, **{**TINY, "datasets": ["wdbc"],
                          "variants": ["voted"], "progress": True})
    err = capsys.readouterr().err
    assert f"0/3 [00:00<?, ?task/s, {STARTING}]" in err
    assert err.count(STARTING) == 1  # gone once the first fold is done
