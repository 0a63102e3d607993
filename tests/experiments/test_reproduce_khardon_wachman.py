"""Khardon & Wachman (2007) Sec. 3 reproduction: a tiny configuration."""

import dataclasses

import pytest

from perceptrons.experiments import reproduce_khardon_wachman as rk
from perceptrons.experiments.options import RunOptions

TINY = dataclasses.replace(
    rk.QUICK, uci=(), artificial=((50, 0.05, 0.1, 0), (50, 0.05, 0.25, 0)),
    table4=((50, 0.05, 0.1, 0),), table6_artificial=((50, 0.05, 0.05, 0),),
    outer=2, inner=2, max_iter=3)


def test_paper_tables_are_complete():
    assert len(rk.PAPER_TABLE3) == 8 * 3
    assert all(len(v) == 6 for v in rk.PAPER_TABLE3.values())
    assert len(rk.PAPER_TABLE6) == 8 * 3
    assert rk.PAPER_TABLE6[("bupa", "last")]["τ→λ"] == (70.9, 5.9)
    assert rk.PAPER_TABLE4[("0.25", "voted")]["τ×α"] == 71.1
    # Table 2: 30 sets per noise level (ties are one column)
    assert rk.PAPER_TABLE2[0.0][-1] == 30


def test_tiny_run_writes_tables_and_figures_and_resumes(tmp_path,
                                                        monkeypatch):
    res = rk.run(RunOptions(output_dir=tmp_path, progress=False), TINY)
    md = (tmp_path / "khardon_wachman.md").read_text()
    for title in ("Table 2", "Table 4", "Table 6", "Findings",
                  "Averaged (ours)"):
        assert title in md
    assert (tmp_path / "khardon_wachman_fig4_kw-f50-M0.05-N0.1.png").exists()
    assert all(r["status"] == "ok" for r in res["records"])
    # a rerun with resume computes nothing
    calls = []
    import perceptrons.experiments.model_selection as ms
    monkeypatch.setattr(ms, "run_cell",
                        lambda *a: calls.append(1) or pytest.fail("ran"))
    again = rk.run(RunOptions(output_dir=tmp_path, progress=False,
                              resume=True), TINY)
    assert not calls and len(again["records"]) == len(res["records"])
    tables = md.split("## Agreement")[1].split("perceptrons 0")[0]
    assert tables in (tmp_path / "khardon_wachman.md").read_text()
