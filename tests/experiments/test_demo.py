"""The demo runs end to end on a tiny configuration."""

import csv
import json

import pytest

from perceptrons.experiments._results import (
    plot_results,
    read_results,
    render_markdown,
)
from perceptrons.experiments.demo import DATASETS, VARIANTS, run_demo

TINY_VARIANTS = ["classic (last)", "voted", "τ = 0.5", "α = 20",
                 "sklearn Perceptron"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    return out, run_demo(out, datasets=["kw f50 M0.1 N0.1", "wdbc"],
                         variants=TINY_VARIANTS, n_splits=3, max_iter=3,
                         progress=False)


def test_demo_writes_files(tiny):
    out, res = tiny
    files = res["files"]
    assert files["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert files["png"].stat().st_size > 5000
    md = files["markdown"].read_text(encoding="utf-8")
    assert md == res["markdown"]
    for name in TINY_VARIANTS + ["kw f50 M0.1 N0.1", "wdbc"]:
        assert name in md
    assert "T-interval" in md and "mistake rate" in md
    data = json.loads(files["json"].read_text(encoding="utf-8"))
    meta = data["meta"]
    for key in ("perceptrons_version", "numba_version", "git_sha",
                "sklearn_version", "created_utc", "wall_seconds"):
        assert key in meta
    assert len(data["results"]) == 2 * len(TINY_VARIANTS)
    with open(files["csv"], newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 * len(TINY_VARIANTS)
    assert {r["numba_version"] for r in rows} == {meta["numba_version"]}


def test_results_content(tiny):
    _, res = tiny
    results = res["results"]
    assert results["config"]["max_iter"] == 3
    for r in results["results"]:
        assert len(r["accuracies"]) == 3
        assert 0.0 <= r["mean"] <= 1.0
        assert r["ci_low"] <= r["mean"] <= r["ci_high"]
        if r["estimator"] == "perceptrons.Perceptron":
            assert 0.0 <= r["mean_mistake_rate"] <= 1.0
            assert r["params"]["max_iter"] == 3
        else:
            assert r["mean_mistake_rate"] is None  # NaN written as null
    tau = [r for r in results["results"] if r["variant"] == "τ = 0.5"]
    assert all(r["tau"] == 0.5 for r in tau)


def test_render_and_plot_read_files_without_refit(tiny, tmp_path):
    _, res = tiny
    loaded = read_results(res["files"]["json"])
    assert render_markdown(loaded) == res["markdown"]
    path = plot_results(loaded, tmp_path / "again.png")
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_demo_config_names():
    assert set(DATASETS) == {"kw f50 M0.1 N0", "kw f50 M0.1 N0.1", "wdbc",
                             "digits"}
    names = [v.name for v in VARIANTS]
    assert len(names) == len(set(names)) == 9
    with pytest.raises(ValueError, match="unknown demo data set"):
        run_demo("unused", datasets=["nope"])
    with pytest.raises(ValueError, match="unknown demo variant"):
        run_demo("unused", variants=["nope"])
