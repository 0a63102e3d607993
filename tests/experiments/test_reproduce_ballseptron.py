"""The Fig. 3 reproduction of the Ballseptron paper, on tiny configurations."""

import csv
import dataclasses

import numpy as np
import pytest

from perceptrons.bounds import d1_bound, freund_schapire_bound
from perceptrons.experiments import ballseptron as rb
from perceptrons.experiments.ballseptron import tasks as rb_tasks
from perceptrons.experiments.ballseptron import view as rb_view
from perceptrons.experiments.options import RunOptions
from perceptrons.experiments.report import rows

PNG = b"\x89PNG\r\n\x1a\n"

TINY = dataclasses.replace(
    rb.QUICK, n_samples=300, seeds=(0, 1), label_noise=(0.0, 0.05, 0.1),
    instance_noise=(0.0, 0.1, 0.2), kernel_datasets={})


def _options(out, **kw):
    return RunOptions(output_dir=out, quick=True, progress=False, **kw)


def _blobs(name):
    rng = np.random.RandomState(7)
    centers = rng.normal(size=(3, 5)) * 3
    y = rng.randint(0, 3, size=90)
    return centers[y] + rng.normal(size=(90, 5)), y


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("rb")
    return out, rb.run(_options(out), TINY)


def test_writes_files(tiny):
    out, res = tiny
    names = {p.name for p in res["files"]}
    assert names == {"reproduce_ballseptron_records.jsonl",
                     "reproduce_ballseptron_run.json",
                     "reproduce_ballseptron_noise.csv",
                     "reproduce_ballseptron_radius.csv",
                     "reproduce_ballseptron.md",
                     "reproduce_ballseptron_fig3_bottom.png"}
    for p in res["files"]:
        assert p.exists() and p.parent == out
    png = out / "reproduce_ballseptron_fig3_bottom.png"
    assert png.read_bytes()[:8] == PNG and png.stat().st_size > 5000
    md = (out / "reproduce_ballseptron.md").read_text(encoding="utf-8")
    assert md == res["markdown"]
    for s in ("Label noise", "Instance noise", "D1 bound", "D2 bound",
              "The paper's claims and ours", "Not run",
              "Top panels not run: no data set requested"):
        assert s in md
    assert len(res["records"]) == 2 * 2 * 3
    for key in ("perceptrons_version", "numba_version", "git_sha",
                "numpy_version", "created_utc"):
        assert key in res["records"][0]["meta"]
    with open(out / "reproduce_ballseptron_noise.csv", newline="",
              encoding="utf-8") as fh:
        flat = list(csv.DictReader(fh))
    assert len(flat) == 12
    assert {r["numba_version"] for r in flat} == {
        res["records"][0]["meta"]["numba_version"]}


def test_report_rendered_from_the_store(tiny):
    out, res = tiny
    stored = rb.load_records(out)
    assert stored == res["records"]
    assert rb.render_markdown(TINY, stored) == res["markdown"]


def test_bounds_at_least_mistakes(tiny):
    # Eq. (3) and Thm. 2 (r = 0) hold on every sequence, at every level.
    _, res = tiny
    for r in rows(res["records"], kind="noise"):
        assert r["d2_bound"] >= r["mistakes"] >= 1
        assert r["d1_bound"] >= r["mistakes"]
        assert r["d2_bound"] == pytest.approx(
            freund_schapire_bound(r["R"], r["gamma"], r["D2"]))
        assert r["d1_bound"] == pytest.approx(
            d1_bound(r["R"], r["gamma"], r["D1"]))
        if r["level"] == 0.0:
            assert r["D1"] == 0.0 and r["D2"] == 0.0
        if r["panel"] == "instance" and r["level"] == 0.0:
            assert r["R"] == pytest.approx(1.0)
    view = rb_view._view(res["records"])
    for kind in ("label", "instance"):
        for s in rb_view._summary(view, kind):
            assert s["d1_holds"] and s["d2_holds"]
            assert s["d2"] >= s["eps"] and s["d1"] >= s["eps"]


def _results(records):
    return [r["result"] for r in records]


def test_deterministic(tiny, tmp_path):
    _, res = tiny
    again = rb.run(_options(tmp_path), TINY)
    assert _results(again["records"]) == _results(res["records"])
    other = rb.run(_options(tmp_path / "other"),
                   dataclasses.replace(TINY, seeds=(5,)))
    assert other["records"][0]["result"]["u"] != \
        res["records"][0]["result"]["u"]


def test_resume_runs_only_new_tasks(tiny, tmp_path, monkeypatch):
    first = rb.run(_options(tmp_path), TINY)
    ran = []
    real = rb.noise_worker
    monkeypatch.setattr(rb_tasks, "noise_worker",
                        lambda task: ran.append(task) or real(task))
    more = dataclasses.replace(TINY, seeds=(0, 1, 2))
    again = rb.run(_options(tmp_path, resume=True), more)
    assert len(ran) == 6 and {t.params["seed"] for t in ran} == {2}
    kept = [r for r in again["records"] if r["task"]["params"]["seed"] < 2]
    assert kept == first["records"]


def _check_top(res, out, radii):
    radius = rows(res["records"], kind="radius")
    assert len(radius) == 2 * len(radii)
    for r in radius:
        assert r["status"] == "ok", r
        assert r["T"] in (60, 90)
        assert 0.0 < r["mistake_rate"] <= 1.0
        if r["radius"] == 0.0:
            assert r["margin_errors"] == 0
    md = res["markdown"]
    assert "### USPS" in md and "### MNIST" in md and "Best r = " in md
    assert "Only part of the data: the paper uses 7291" in md
    png = out / "reproduce_ballseptron_fig3_top.png"
    assert png.read_bytes()[:8] == PNG


def test_kernel_path(tmp_path, monkeypatch):
    # The top panels with tiny synthetic data in place of USPS / MNIST.
    monkeypatch.setattr(rb_tasks, "_load_kernel_dataset", _blobs)
    config = dataclasses.replace(TINY, seeds=(0,), radii=(0.0, 0.2),
                                 kernel_datasets={"usps": 60, "mnist": None})
    res = rb.run(_options(tmp_path), config)
    _check_top(res, tmp_path, config.radii)
    data = rows(res["records"], kind="data")
    assert [(r["dataset"], r["n_used"]) for r in data] == [("usps", 60),
                                                           ("mnist", 90)]
    assert rows(res["records"], kind="radius")[0]["kernel"] == {
        "kernel": "poly", "degree": 5, "coef0": 0.5, "gamma": 1.0}
    again = rb.run(_options(tmp_path / "again"), config)

    def strip(records):
        return [{k: v for k, v in r.items() if k != "seconds"}
                for r in _results(records)]
    assert strip(again["records"]) == strip(res["records"])


def test_unloadable_data_set_is_reported(tmp_path, monkeypatch):
    def missing(name):
        raise OSError(f"no {name} here")

    monkeypatch.setattr(rb_tasks, "_load_kernel_dataset", missing)
    config = dataclasses.replace(TINY, seeds=(0,),
                                 kernel_datasets={"usps": 50})
    res = rb.run(_options(tmp_path), config)
    assert "Top panel USPS: could not load: no usps here." in res["markdown"]
    assert "Top panel MNIST: not run in this configuration" in res["markdown"]
    assert not (tmp_path / "reproduce_ballseptron_fig3_top.png").exists()
