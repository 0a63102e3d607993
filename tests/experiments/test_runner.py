"""The one runner: every reproduction gives the same tables serially, on
joblib (``--jobs 2``) and on a real Dask ``LocalCluster`` (``--scheduler``);
``--resume`` and ``--render-only`` run nothing that is recorded; the
committed reports render again from their committed records."""

import dataclasses
import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from perceptrons.experiments import ballseptron, higher_order, pdm
from perceptrons.experiments import khardon_wachman as kw
from perceptrons.experiments.options import RunOptions
from perceptrons.experiments.runner import run_reproduction
from tests._data_home import skip_without_data_home

REPORTS = Path(__file__).resolve().parents[2] / "reports"
GOLDEN = Path(__file__).resolve().parent / "golden"
#: Measured times: the only fields of a record an executor may change.
TIMING = ("seconds", "seconds_all", "cpu_seconds", "fit_seconds")
FACTS = {"wall_seconds": 1.0, "backend": "serial", "workers": 1,
         "started_utc": "2000-01-01T00:00:00+00:00"}


def _toy_pdm():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 6))
    return X, np.where(X[:, 0] + 0.5 * X[:, 1]
                       + 0.4 * rng.normal(size=120) > 0.2, 1, -1)


def _toy_digits():
    rng = np.random.RandomState(3)
    y = rng.randint(0, 3, size=150)
    X = rng.normal(size=(3, 6))[y] * 1.5 + rng.normal(size=(150, 6))
    return X[:100], y[:100], X[100:], y[100:]


def _tiny():
    """One tiny Reproduction per paper (a few seconds each, serially)."""
    return {
        "ballseptron": ballseptron.reproduction(dataclasses.replace(
            ballseptron.QUICK, n_samples=200, seeds=(0, 1),
            label_noise=(0.0, 0.1), instance_noise=(0.0, 0.1),
            radii=(0.0, 0.2), kernel_datasets={"usps": 120})),
        "pdm": pdm.reproduction(dataclasses.replace(pdm.QUICK, datasets=(
            pdm.PaperDataset("Adult", "toy", 1.0, load=_toy_pdm),))),
        "higher-order": higher_order.reproduction(dataclasses.replace(
            higher_order.QUICK, ocr=(higher_order.OcrSpec(
                "USPS", "toy", gammas=(0.5,), degrees=(), so_a=(1.0,),
                load=_toy_digits),), ho_c=(0.4,), n_folds=2, art_seeds=(0,),
            art_epochs=2, art_n_train=100, art_n_test=50, ps=(2,),
            cs=(0.0, 0.4), lymphoma_splits=0, readings=("shuffled",),
            reading_seeds=(1,))),
        "khardon-wachman": kw.KhardonWachman(dataclasses.replace(
            kw.QUICK, uci=(), artificial=((50, 0.05, 0.1, 0),), outer=3)),
    }


def _without_timing(record):
    result = {k: v for k, v in record["result"].items() if k not in TIMING}
    return {**record, "result": result, "seconds": 0.0,
            "meta": {"created_utc": "2000-01-02T00:00:00+00:00"}}


def _tables(reproduction, records, out):
    """The report of ``records`` with every measured time set to 0."""
    summary = reproduction.summary([_without_timing(r) for r in records],
                                   FACTS)
    return reproduction.render(summary, out)[0]


def _run(name, out, **options):
    reproduction = _tiny()[name]
    res = run_reproduction(reproduction, RunOptions(
        output_dir=out, progress=False, **options))
    assert all(r["status"] == "ok" for r in res["records"])
    return reproduction, res


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    """Every tiny reproduction run serially, and its time-free tables."""
    skip_without_data_home()  # the Ballseptron's reads USPS
    out = {}
    for name in _tiny():
        where = tmp_path_factory.mktemp(name)
        reproduction, res = _run(name, where)
        out[name] = (res, _tables(reproduction, res["records"],
                                  where / "tables"))
    return out


def _same_as_serial(serial, name, reproduction, res, tmp_path):
    base, tables = serial[name]
    assert [_without_timing(r) for r in res["records"]] == \
        [_without_timing(r) for r in base["records"]]
    assert _tables(reproduction, res["records"], tmp_path / "t") == tables


@pytest.mark.parametrize("name", ["ballseptron", "pdm"])
def test_jobs_give_the_serial_tables(serial, name, tmp_path):
    reproduction, res = _run(name, tmp_path, jobs=2)
    facts = json.loads((tmp_path / f"{reproduction.stem}_run.json")
                       .read_text(encoding="utf-8"))
    assert facts["backend"] == "joblib" and facts["workers"] == 2
    _same_as_serial(serial, name, reproduction, res, tmp_path)


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                  processes=True,
                                  dashboard_address=":0") as c:
        yield c.scheduler_address


@pytest.mark.parametrize("name", ["ballseptron", "pdm", "higher-order",
                                  "khardon-wachman"])
def test_scheduler_gives_the_serial_tables(serial, cluster, name, tmp_path):
    reproduction, res = _run(name, tmp_path, scheduler=cluster)
    facts = json.loads((tmp_path / f"{reproduction.stem}_run.json")
                       .read_text(encoding="utf-8"))
    assert facts["backend"] == "dask" and facts["workers"] == 2
    _same_as_serial(serial, name, reproduction, res, tmp_path)


def test_resume_and_render_only_run_nothing(serial, tmp_path, monkeypatch):
    from perceptrons.experiments.ballseptron import tasks

    _, first = _run("ballseptron", tmp_path)

    def refuse(*args):
        raise AssertionError("a recorded task ran again")

    monkeypatch.setattr(tasks, "noise_worker", refuse)
    monkeypatch.setattr(tasks, "radius_worker", refuse)
    monkeypatch.setattr(tasks, "_load_record", refuse)
    for options in ({"resume": True}, {"render_only": True}):
        _, again = _run("ballseptron", tmp_path, **options)
        assert again["records"] == first["records"]
        assert again["markdown"] == first["markdown"]


def test_render_only_needs_every_record(tmp_path):
    _run("pdm", tmp_path)
    path = tmp_path / "pdm_quick_records.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:-1]), encoding="utf-8")
    with pytest.raises(ValueError, match="1 of 2 tasks have no record"):
        _run("pdm", tmp_path, render_only=True)
    with pytest.raises(FileNotFoundError, match="no records"):
        _run("pdm", tmp_path / "empty", render_only=True)


# ------------------------------------------------------- committed reports
#: Golden renders of the code before the runner: its records (gzipped), the
#: configuration they were made with, and the files to compare.
GOLDEN_CASES = {
    "ballseptron_quick": (ballseptron.run, ballseptron.QUICK,
                          ["reproduce_ballseptron.md",
                           "reproduce_ballseptron_noise.csv",
                           "reproduce_ballseptron_radius.csv"]),
    # Made before the MPU row was run: rendered without it.
    "pdm_quick": (pdm.run, dataclasses.replace(pdm.QUICK,
                                               skip=("MPU", "SVMlight")),
                  ["pdm_quick_tables.md", "pdm_quick_results.csv"]),
    "khardon_wachman_small": (kw.run, dataclasses.replace(
        kw.QUICK, uci=(), artificial=((50, 0.05, 0.1, 0),),
        table4=((50, 0.05, 0.1, 0),),
        table6_artificial=((50, 0.05, 0.05, 0),), outer=2, inner=2,
        max_iter=2), ["khardon_wachman.md", "khardon_wachman_search.csv",
                      "khardon_wachman_selection.csv"]),
}


@pytest.mark.parametrize("case", sorted(GOLDEN_CASES))
def test_reports_render_as_before_the_runner(case, tmp_path, data_home):
    # The same records give the same report as the code before the runner
    # (tests/experiments/golden/README.md); nothing is fitted.
    run, config, names = GOLDEN_CASES[case]
    src = GOLDEN / case
    for path in src.iterdir():
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as fh:
                (tmp_path / path.stem).write_bytes(fh.read())
        elif path.name.endswith("_run.json"):
            shutil.copy(path, tmp_path / path.name)
    run(RunOptions(output_dir=tmp_path, progress=False, render_only=True),
        config)
    for name in names:
        assert (tmp_path / name).read_bytes() == (src / name).read_bytes(), \
            name


def test_higher_order_report_renders_again_from_its_records(tmp_path,
                                                             data_home):
    # The committed records of the full run (no refit: render only).
    src = REPORTS / "higher_order"
    (tmp_path / "higher_order_records.jsonl").write_bytes(
        (src / "higher_order_records.jsonl").read_bytes())
    res = higher_order.run(RunOptions(output_dir=tmp_path, progress=False,
                                      render_only=True))
    for name in ("higher_order.md", "higher_order_table3_grid.csv"):
        assert (tmp_path / name).read_bytes() == (src / name).read_bytes()
    # The committed JSON was written from in-memory records, whose key
    # order differs from the stored ones in one object: equal as JSON.
    assert json.loads((tmp_path / "higher_order_results.json").read_text(
        encoding="utf-8")) == json.loads((src / "higher_order_results.json")
                                         .read_text(encoding="utf-8"))
    assert res["markdown"] == (src / "higher_order.md").read_text(
        encoding="utf-8")


def test_higher_order_quick_report_renders_again_from_its_summary():
    # Only the quick run's summary JSON is committed; the report reads it
    # alone.
    src = REPORTS / "higher_order"
    summary = json.loads((src / "higher_order_quick_results.json")
                         .read_text(encoding="utf-8"))
    figs = [src / f"higher_order_quick_fig2_eta{n:g}.png" for n in (0, 0.1)]
    text = higher_order.render_markdown(higher_order.QUICK, summary, figs)
    assert text == (src / "higher_order_quick.md").read_text(
        encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize("module", [ballseptron, pdm],
                         ids=["ballseptron", "pdm"])
def test_quick_reproduction_with_jobs_gives_the_serial_tables(module,
                                                              tmp_path):
    # `perceptrons reproduce NAME --quick --jobs 2` against the serial run
    # (about a minute each on 2 idle cores; needs the data home).
    runs = [module.run(RunOptions(output_dir=tmp_path / str(jobs),
                                  quick=True, progress=False, jobs=jobs))
            for jobs in (1, 2)]
    serial, parallel = ([_without_timing(r) for r in run["records"]]
                        for run in runs)
    assert serial == parallel


def test_batches_keep_each_data_set_apart():
    # A slow data set after many cheap tasks is cut on its own: about 8
    # batches per worker, never mixed with another set's tasks, in order.
    from perceptrons.experiments.runner import Executor
    from perceptrons.experiments.store import Task
    tasks = ([Task("e", "cheap", i) for i in range(1000)]
             + [Task("e", "slow", i) for i in range(20)]
             + [Task("e", "cheap", 1000 + i) for i in range(3)])
    batches = Executor("joblib", 2)._batches(tasks)
    assert [t for b in batches for t in b] == tasks
    assert all(len({t.dataset for t in b}) == 1 for b in batches)
    sizes = {}
    for b in batches:
        sizes.setdefault((b[0].dataset, b[0].fold >= 1000), []).append(len(b))
    assert max(sizes[("cheap", False)]) == 63  # ceil(1000 / 16)
    assert sizes[("slow", False)] == [2] * 10  # ceil(20 / 16)
    assert sizes[("cheap", True)] == [1, 1, 1]
    assert max(len(b) for b in Executor("joblib", 1)._batches(
        [Task("e", "x", i) for i in range(5000)])) == 64


def test_footer_names_every_revision_of_a_resumed_run():
    from perceptrons.experiments.report import footer

    def record(sha, dirty, seconds=1.0):
        return {"seconds": seconds,
                "meta": {"perceptrons_version": "0.1", "numba_version": "n",
                         "numpy_version": "x", "git_sha": sha,
                         "git_dirty": dirty}}

    one = [record("a" * 40, False), record("a" * 40, False)]
    assert footer(one) == ("perceptrons 0.1, numba n, numpy x, git "
                           "aaaaaaaaaa; 2 records, 2.0 s of task time.")
    # A resumed run's records come from several revisions: each is named,
    # with its count, most first, and a dirty tree says so.
    mixed = [record("b" * 40, True)] + one
    assert footer(mixed, "extra") == (
        "perceptrons 0.1, numba n, numpy x, git aaaaaaaaaa (2 records), "
        "bbbbbbbbbb (dirty, 1 records); 3 records, 3.0 s of task time; "
        "extra.")
