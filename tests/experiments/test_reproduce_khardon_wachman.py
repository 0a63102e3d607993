"""Khardon & Wachman (2007) Sec. 3 reproduction: a tiny configuration."""

import dataclasses
import gzip
import shutil
from pathlib import Path

import pytest

from perceptrons.experiments import khardon_wachman as rk
from perceptrons.experiments._svm_baselines import L1_C_GRID, L2_LAMBDA_GRID
from perceptrons.experiments.khardon_wachman import paper as rk_paper
from perceptrons.experiments.khardon_wachman.studies import make_studies as kw_studies
from perceptrons.experiments.options import RunOptions
from tests._data_home import skip_without_data_home

TINY = dataclasses.replace(
    rk.QUICK, uci=(), artificial=((50, 0.05, 0.1, 0), (50, 0.05, 0.25, 0)),
    table4=((50, 0.05, 0.1, 0),), table6_artificial=((50, 0.05, 0.05, 0),),
    outer=2, inner=2, max_iter=3)


def test_paper_tables_are_complete():
    assert len(rk.PAPER_TABLE3) == (8 + 2) * 3  # UCI, USPS, MNIST
    assert all(len(v) == 6 for k, v in rk.PAPER_TABLE3.items()
               if k[0] != "mnist")  # no α on MNIST
    assert len(rk.PAPER_TABLE6) == 8 * 3
    assert rk.PAPER_TABLE6[("bupa", "last")]["τ→λ"] == (70.9, 5.9)
    assert rk.PAPER_TABLE4[("0.25", "voted")]["τ×α"] == 71.1
    # Table 2: 30 sets per noise level (ties are one column)
    assert rk_paper.PAPER_TABLE2[0.0][-1] == 30


def test_tiny_run_writes_tables_and_figures_and_resumes(tmp_path,
                                                        monkeypatch):
    res = rk.run(RunOptions(output_dir=tmp_path, progress=False), TINY)
    md = (tmp_path / "khardon_wachman.md").read_text()
    for title in ("Table 2", "Table 4", "Table 6", "Findings",
                  "Averaged (ours)", "## Where we disagree with the paper"):
        assert title in md
    # every compared table has its line: the misses, by how much, and why
    where = md.split("## Where we disagree")[1].split("\n## ")[0]
    for table in ("Table 4", "Table 6"):
        line = next(x for x in where.splitlines() if f"**{table}**" in x)
        assert "no cell disagrees" in line or "Why it might" in line
    assert (tmp_path / "khardon_wachman_fig4_kw-f50-M0.05-N0.1.png").exists()
    assert all(r["status"] == "ok" for r in res["records"])
    # a rerun with resume computes nothing
    calls = []
    import perceptrons.experiments.khardon_wachman.studies as ks
    monkeypatch.setattr(ks, "run_cell",
                        lambda *a: calls.append(1) or pytest.fail("ran"))
    again = rk.run(RunOptions(output_dir=tmp_path, progress=False,
                              resume=True), TINY)
    assert not calls and len(again["records"]) == len(res["records"])
    tables = md.split("## Agreement")[1].split("perceptrons 0")[0]
    assert tables in (tmp_path / "khardon_wachman.md").read_text()


def test_svm_columns_of_table_6(tmp_path, monkeypatch):
    """The SVM columns: parameter search on the UCI set's own outer folds,
    one row per data set, beside the paper's value."""
    import perceptrons.datasets as datasets
    from perceptrons.datasets import make_khardon_wachman
    from perceptrons.experiments.model_selection import search_result

    X, y = make_khardon_wachman(80, 6, 0.1, 0.1, random_state=3)
    monkeypatch.setattr(datasets, "load_named", lambda name, **kw:
                        dataclasses.make_dataclass("B", ["X", "y"])(X, y))
    config = dataclasses.replace(TINY, uci=("bupa",), artificial=(),
                                 table4=(), table6_artificial=(),
                                 beyond=False)
    studies = kw_studies(config)
    perceptron, svm = studies
    assert svm.name == "bupa (SVM)" and svm.folds_of == "bupa"
    assert svm.splits()["o1"][1].tolist() == \
        perceptron.splits()["o1"][1].tolist()
    res = rk.run(RunOptions(output_dir=tmp_path, progress=False), config)
    md = (tmp_path / "khardon_wachman.md").read_text()
    header = next(line for line in md.splitlines()
                  if line.startswith("| data set | hypothesis | Nothing")
                  and "τ→λ" in line)
    assert header.rstrip(" |").endswith("SVM L1 | SVM L2")
    table6 = md.split("## Table 6")[1].split("\n## ")[0]
    longest = next(line for line in table6.splitlines()
                   if line.startswith("|  | Longest"))
    # ours ± interval / the paper's bupa L1 and L2 values
    assert "/ 66.5 ± 8.6" in longest and "/ 63.2 ± 5.2" in longest
    assert "Perceptrons vs SVM" in md
    svm_records = [r for r in res["records"]
                   if r["task"]["dataset"] == "bupa (SVM)"]
    assert len(svm_records) == 2 * (len(L1_C_GRID)
                                    + len(L2_LAMBDA_GRID))
    best, _ = search_result(svm, svm_records).best("SVM L1", "own")
    assert f"{100 * best:.1f} ±" in longest
    rows = (tmp_path / "khardon_wachman_svm.csv").read_text().splitlines()
    assert len(rows) == 1 + len(L1_C_GRID) + len(L2_LAMBDA_GRID)


@pytest.mark.filterwarnings("ignore:Liblinear failed to converge")
def test_soft_margin_svc_is_liblinear_with_the_papers_parameters():
    import numpy as np
    from sklearn.svm import LinearSVC

    from perceptrons.datasets import make_khardon_wachman
    from perceptrons.experiments._svm_baselines import SoftMarginSVC

    X, y = make_khardon_wachman(120, 8, 0.1, 0.1, random_state=0)
    l2 = SoftMarginSVC(norm="l2", lam=0.25, random_state=0).fit(X, y)
    ref = LinearSVC(loss="squared_hinge", C=2.0, dual=True, random_state=0,
                    max_iter=10000).fit(X, y)
    np.testing.assert_array_equal(l2.decision_function(X),
                                  ref.decision_function(X))
    l1 = SoftMarginSVC(C=10.0, random_state=0).fit(X, y)
    ref = LinearSVC(loss="hinge", C=10.0, dual=True, random_state=0,
                    max_iter=10000).fit(X, y)
    np.testing.assert_array_equal(l1.predict(X), ref.predict(X))
    assert l1.converged_ in (True, False) and set(l1.classes_) == set(y)
    # a run cut short says so instead of warning once per task
    short = SoftMarginSVC(C=1e4, max_iter=1).fit(X, y)
    assert short.converged_ is False
    with pytest.raises(ValueError, match="norm"):
        SoftMarginSVC(norm="l3").fit(X, y)


def test_table5_adult_by_training_set_size(tmp_path, monkeypatch):
    """Table 5: one study per size, draws scored on the test file, rows
    (τ, hypothesis), our mean ± sd beside the paper's."""
    import perceptrons.datasets as datasets
    from perceptrons.datasets import make_khardon_wachman

    X, y = make_khardon_wachman(400, 6, 0.1, 0.1, random_state=4)
    X *= 100.0  # scaled back to [0, 1] by the study
    fields = ["X_train", "y_train", "X_test", "y_test"]
    monkeypatch.setattr(
        datasets, "load_named", lambda name, **kw: dataclasses.make_dataclass(
            "B", fields)(X[:300], y[:300], X[300:], y[300:]))
    config = dataclasses.replace(TINY, artificial=(), table4=(),
                                 table6_artificial=(), table5=(10, 100),
                                 table5_draws=3)
    studies = kw_studies(config)
    assert [s.name for s in studies] == ["adult-n10", "adult-n100"]
    assert studies[0].X.max() == 1.0 and studies[0].estimator.eta == 0.4
    rk.run(RunOptions(output_dir=tmp_path, progress=False), config)
    md = (tmp_path / "khardon_wachman.md").read_text()
    table5 = md.split("## Table 5")[1].split("\n## ")[0]
    assert "| 10 examples | 100 examples |" in table5
    rows = [line for line in table5.splitlines() if line.startswith("| ")]
    assert len(rows) == 1 + len(rk.TAU_GRID) * 4
    voted_tau0 = next(r for r in rows if "| Voted |" in r)
    assert "/ 75.8 ± 3.4" in voted_tau0 and "/ 79.4 ± 1.8" in voted_tau0
    assert "Table 5 (Adult by training-set size)" in md.split("## Findings")[0]
    assert "Table 5 (Adult" not in md.split("## Not run")[1]


def test_table7_on_a_fixed_split_with_inner_cv(tmp_path, monkeypatch):
    import perceptrons.datasets as datasets
    from perceptrons.datasets import make_khardon_wachman

    X, y = make_khardon_wachman(300, 6, 0.1, 0.05, random_state=5)
    fields = ["X_train", "y_train", "X_test", "y_test"]
    monkeypatch.setattr(
        datasets, "load_named", lambda name, **kw: dataclasses.make_dataclass(
            "B", fields)(X[:200], y[:200], X[200:], y[200:]))
    config = dataclasses.replace(TINY, artificial=(), table4=(),
                                 table6_artificial=(), table7=("usps",),
                                 table7_kernel=("usps",),
                                 table3_extra=("usps",), inner=2)
    study, kernel, search = kw_studies(config)
    assert search.name == "usps (search)" and search.inner == 0
    assert search.estimator.max_iter == 100  # K&W's passes for the search
    assert "α" in [c.name for c in search.columns]
    assert kernel.name == "usps (poly 4)"
    assert (kernel.estimator.kernel, kernel.estimator.degree) == ("poly", 4)
    assert [c.name for c in kernel.columns] == ["Nothing", "τ"]
    assert (study.estimator.eta, study.estimator.max_iter) == (0.1, 10)
    assert [c.name for c in study.columns] == list(rk_paper.T7_COLS)
    assert list(study.splits())[:2] == ["test", "test/i0"]
    rk.run(RunOptions(output_dir=tmp_path, progress=False), config)
    md = (tmp_path / "khardon_wachman.md").read_text()
    table7 = md.split("## Table 7")[1].split("\n## ")[0]
    last = next(line for line in table7.splitlines()
                if line.startswith("| usps | Last"))
    for paper in ("/ 87.4", "/ 90.7", "/ 90.3", "/ 90.2"):
        assert paper in last
    poly = next(line for line in table7.splitlines()
                if line.startswith("| usps (poly 4) | Last"))
    assert "/ 92.9" in poly and "/ 93.6" in poly
    assert poly.endswith("|  |  |  |")  # no λ columns
    assert "Table 7 (USPS, Adult, MNIST)" in md.split("## Findings")[0]
    table3 = md.split("## Table 3")[1].split("\n## ")[0]
    # the disagreement section counts the cells the tables mark
    where = md.split("## Where we disagree")[1].split("\n## ")[0]
    for table, text in (("Table 3", table3), ("Table 7", table7)):
        marked = sum(line.count("✗") for line in text.splitlines()
                     if line.startswith("|"))
        line = next(x for x in where.splitlines() if f"**{table}**" in x)
        assert (f"{marked} of " in line) if marked else \
            ("no cell disagrees" in line)
    usps3 = next(line for line in table3.splitlines()
                 if line.startswith("| usps | Last"))
    assert "/ 91.5" in usps3 and "/ 92.8" in usps3
    not_run = md.split("## Not run")[1]
    assert "Table 7 rows of adult, mnist" in not_run
    assert "kernel rows of mnist" in not_run


# ------------------------------------------------- beyond the paper (#25)
def _tiny_uci(monkeypatch, n=90):
    import perceptrons.datasets as datasets
    from perceptrons.datasets import make_khardon_wachman

    X, y = make_khardon_wachman(n, 6, 0.1, 0.1, random_state=7)
    monkeypatch.setattr(datasets, "load_named", lambda name, **kw:
                        dataclasses.make_dataclass("B", ["X", "y"])(X, y))


def test_beyond_studies_share_table6_folds_and_keep_its_keys(monkeypatch):
    """ALMA_2 and PA-I run on the Table 6 study's very folds (outer and
    inner), as new studies: the paper's tasks keep their keys."""
    _tiny_uci(monkeypatch)
    config = dataclasses.replace(TINY, uci=("bupa", "promoters"),
                                 artificial=(), table4=(),
                                 table6_artificial=(), svm=False)
    studies = {s.name: s for s in kw_studies(config)}
    # promoters has no Table 6 row: no beyond-the-paper studies for it
    assert sorted(studies) == ["bupa", "bupa (ALMA_2)", "bupa (PA-I)",
                               "promoters"]
    perc, alma, pa = (studies[n] for n in ("bupa", "bupa (ALMA_2)",
                                           "bupa (PA-I)"))
    assert alma.inner == 0 and alma.hypotheses is None
    assert alma.cells() == [{}]
    assert alma.estimator.p == 2 and alma.estimator.B is None
    assert alma.estimator.max_iter == config.max_iter
    assert pa.estimator.variant == "PA-I" and pa.inner == config.inner
    assert pa.cells() == [{"C": c} for c in rk.PA_C_GRID]
    for sid, (train, test) in alma.splits().items():
        assert test.tolist() == perc.splits()[sid][1].tolist()
    for sid, (train, test) in pa.splits().items():
        assert train.tolist() == perc.splits()[sid][0].tolist()
    # the perceptron's keys do not depend on the new studies
    off = {s.name: s for s in kw_studies(dataclasses.replace(
        config, beyond=False))}
    assert sorted(off) == ["bupa", "promoters"]
    assert [t.key for t in off["bupa"].tasks()] == \
        [t.key for t in perc.tasks()]
    # only_beyond runs Table 6's Nothing and τ cells: the same keys
    only = {s.name: s for s in kw_studies(dataclasses.replace(
        config, only_beyond=True))}
    assert sorted(only) == ["bupa", "bupa (ALMA_2)", "bupa (PA-I)"]
    assert [c.name for c in only["bupa"].columns] == ["Nothing", "τ"]
    assert {t.key for t in only["bupa"].tasks()} < \
        {t.key for t in perc.tasks()}
    assert [t.key for t in only["bupa (PA-I)"].tasks()] == \
        [t.key for t in pa.tasks()]


def test_quick_has_alma_and_pa_cells(monkeypatch):
    _tiny_uci(monkeypatch)
    names = [s.name for s in kw_studies(rk.QUICK)]
    for name in rk.QUICK.uci:
        assert f"{name} (ALMA_2)" in names and f"{name} (PA-I)" in names


def test_beyond_section_one_alma_fit_per_fold_pa_c_from_grid(tmp_path,
                                                            monkeypatch):
    _tiny_uci(monkeypatch)
    config = dataclasses.replace(TINY, uci=("bupa",), artificial=(),
                                 table4=(), table6_artificial=(), svm=False,
                                 outer=3)
    res = rk.run(RunOptions(output_dir=tmp_path, progress=False), config)
    recs = res["records"]
    alma = [r for r in recs if r["task"]["dataset"] == "bupa (ALMA_2)"]
    # no search: one task per outer fold, one fit each, no inner folds
    assert sorted(r["task"]["fold"] for r in alma) == ["o0", "o1", "o2"]
    assert all(r["status"] == "ok" and r["result"]["n_fits"] == 1
               for r in alma)
    assert all(r["task"]["params"]["cell"] == {} for r in alma)
    pa = res["summary"]["results"]["bupa (PA-I)"]
    chosen = pa.selections[("PA-I", "own")]["chosen"]
    assert len(chosen) == 3 and all(c["C"] in rk.PA_C_GRID for c in chosen)
    md = (tmp_path / "khardon_wachman.md").read_text()
    section = md.split("## Beyond the paper: self-tuned ALMA_2 and PA-I "
                       "beside the perceptron variants")[1].split("\n## ")[0]
    assert "**Not in the paper.**" in section
    rows = [x for x in section.splitlines() if x.startswith("| ")]
    assert len(rows) == 1 + 6  # header + 4 perceptron rows, ALMA_2, PA-I
    alma_row = next(x for x in rows if "ALMA_2" in x)
    cells = [c.strip() for c in alma_row.strip("|").split("|")]
    assert cells[-2] == "1"  # fits per outer fold
    pa_row = next(x for x in rows if "| PA-I |" in x)
    cells = [c.strip() for c in pa_row.strip("|").split("|")]
    assert cells[-2] == f"{config.inner * len(rk.PA_C_GRID) + 1:g}"
    tau_row = next(x for x in rows if "Perceptron, τ | Last" in x)
    assert tau_row.split("|")[-3].strip() == \
        f"{config.inner * len(rk.TAU_GRID) + 1:g}"
    assert "/ 69.8 ± 6.5" not in section and "69.8 ± 6.5" in tau_row
    assert "**Answer on these sets.**" in section
    assert (tmp_path / "khardon_wachman_beyond.csv").exists()
    # Table 6 itself has no ALMA/PA rows
    assert "ALMA" not in md.split("## Table 6")[1].split("\n## ")[0]


def test_only_beyond_writes_its_own_report(tmp_path, monkeypatch):
    _tiny_uci(monkeypatch)
    config = dataclasses.replace(rk.BEYOND, uci=("bupa", "sonar"), outer=2,
                                 inner=2, max_iter=3)
    res = rk.run(RunOptions(output_dir=tmp_path, progress=False), config)
    assert (tmp_path / "khardon_wachman_beyond_records.jsonl").exists()
    assert not (tmp_path / "khardon_wachman.md").exists()
    md = (tmp_path / "khardon_wachman_beyond.md").read_text()
    assert "## Beyond the paper" in md and "| sonar |" in md
    assert "not in this run: breast-cancer-wisconsin" in md
    datasets = {r["task"]["dataset"] for r in res["records"]}
    assert datasets == {"bupa", "bupa (ALMA_2)", "bupa (PA-I)", "sonar",
                        "sonar (ALMA_2)", "sonar (PA-I)"}


def test_no_beyond_records_no_section(tmp_path, monkeypatch):
    _tiny_uci(monkeypatch)
    config = dataclasses.replace(TINY, uci=("bupa",), artificial=(),
                                 table4=(), table6_artificial=(), svm=False,
                                 beyond=False)
    rk.run(RunOptions(output_dir=tmp_path, progress=False), config)
    md = (tmp_path / "khardon_wachman.md").read_text()
    assert "Beyond the paper" not in md
    assert not (tmp_path / "khardon_wachman_beyond.csv").exists()


def _renders_again_from_committed_records(tmp_path, config, stem, names):
    """Render ``config`` from the committed records of ``stem`` (no refit:
    render only) and compare ``names`` with the committed files, byte for
    byte. The studies are built from the data sets (their folds), so the
    data home is needed."""
    skip_without_data_home()
    src = (Path(__file__).resolve().parents[2] / "reports"
           / "khardon_wachman")
    with gzip.open(src / f"{stem}_records.jsonl.gz", "rb") as fh:
        (tmp_path / f"{stem}_records.jsonl").write_bytes(fh.read())
    for name in (f"{stem}_records.jsonl.manifest.json", f"{stem}_run.json"):
        shutil.copy(src / name, tmp_path / name)
    rk.run(RunOptions(output_dir=tmp_path, progress=False, render_only=True),
           config)
    for name in names:
        assert (tmp_path / name).read_bytes() == (src / name).read_bytes(), \
            name


def test_committed_beyond_section_renders_again_from_its_records(tmp_path):
    # The BEYOND run's section and CSV, the edge-tie count included.
    stem = "khardon_wachman_beyond"
    _renders_again_from_committed_records(
        tmp_path, rk.BEYOND, stem, (f"{stem}.md", f"{stem}.csv"))


@pytest.mark.slow
def test_committed_report_renders_again_from_its_records(tmp_path):
    # The full run (117,192 records, about 45 s to render): every table,
    # the beyond section and every CSV. The figures are left out (their
    # bytes depend on matplotlib's version).
    stem = "khardon_wachman"
    _renders_again_from_committed_records(
        tmp_path, rk.FULL, stem,
        (f"{stem}.md", f"{stem}_search.csv", f"{stem}_selection.csv",
         f"{stem}_svm.csv", f"{stem}_beyond.csv"))
