"""Panagiotakopoulos & Tsampouka (ALT 2011): the report, from the records.

One table per data set, ours beside the paper's (:func:`render_markdown`),
and the flat CSV rows (:func:`csv_rows`). Nothing here refits.
"""

from .. import _liblinear, _libsvm, report
from .paper import (ALGORITHMS, EPSILON, ETA, MISSING_DATASETS, MPU_NOTE,
                    PAPER_NOTES, RHO, ROMMA_NOTE, RUN_LABELS, paper_numbers)

__all__ = ["CSV_FIELDS", "csv_rows", "render_markdown", "write_outputs"]


# ------------------------------------------------------------------ view
def _with_paper(r, ref, paper_ref):
    """Add the paper's numbers and the time ratios to DCD-L2 to a row."""
    paper = paper_numbers(r["dataset"], r["algorithm"])
    sec, psec = r.get("seconds"), (paper or {}).get("seconds")
    pm = (paper or {}).get("margin_1e4")
    rel = (1e4 * r["margin"] / pm - 1.0
           if r.get("margin") is not None and pm and r["n_rows"] is None
           else None)
    return {**r, "paper": paper,
            "ratio_to_dcd_l2": sec / ref if sec is not None and ref else None,
            "paper_ratio_to_dcd_l2": (psec / paper_ref
                                      if psec is not None and paper_ref
                                      else None),
            "margin_rel_diff": rel,
            "margin_agrees_1pct": None if rel is None else abs(rel) <= 0.01}


def _dataset_rows(fits, name):
    """One data set's rows, in :data:`ALGORITHMS` order, the paper beside."""
    by = {r["algorithm"]: r for r in fits if r["dataset"] == name}
    base = next(iter(by.values()), {"n_rows": None})
    notes = {"ROMMA": ROMMA_NOTE, "MPU": MPU_NOTE}
    for algorithm, status in ALGORITHMS:
        if status is not None and algorithm not in by:
            by[algorithm] = {"dataset": name, "algorithm": algorithm,
                             "status": status, "n_rows": base["n_rows"]}
            notes.pop(algorithm, None)
    dcd2 = by.get("DCD-L2", {})
    ref = dcd2.get("seconds") if dcd2.get("status") == "ok" else None
    paper_ref = (paper_numbers(name, "DCD-L2") or {}).get("seconds")
    return [_with_paper({**by[a], "note": by[a].get("note")
                         or notes.get(a, "")}, ref, paper_ref)
        for a, _ in ALGORITHMS if a in by]


def _view(records):
    """``(data set rows, fit rows)``; fit rows carry the paper's numbers."""
    rows = report.rows(records)
    datasets = [r for r in rows if r["kind"] == "data"]
    fits = [r for r in rows if r["kind"] == "fit"]
    return datasets, [x for d in datasets
                      for x in _dataset_rows(fits, d["dataset"])]


CSV_FIELDS = ["dataset", "algorithm", "status", "margin_1e4",
               "paper_margin_1e4", "margin_rel_diff", "updates",
               "paper_updates", "seconds", "paper_seconds",
               "ratio_to_dcd_l2", "paper_ratio_to_dcd_l2", "cpu_seconds",
               "converged", "n_iter", "params", "note", "paper_source",
               "liblinear_version"]


def csv_rows(records):
    meta = records[0]["meta"] if records else {}
    out = []
    for r in _view(records)[1]:
        paper = r["paper"] or {}
        upd = paper.get("updates_1e6")
        out.append({**r, "margin_1e4": (None if r.get("margin") is None
                                        else 1e4 * r["margin"]),
                    "paper_margin_1e4": paper.get("margin_1e4"),
                    "paper_updates": None if upd is None else round(upd * 1e6),
                    "paper_seconds": paper.get("seconds"),
                    "paper_source": paper.get("source", ""),
                    "liblinear_version": meta.get("liblinear_version")})
    return out


# ------------------------------------------------------------------ report
def _margin_fmt(x):
    if x is None:
        return "–"
    return f"{x:.4g}" if abs(x) < 10 else f"{x:.2f}" if abs(x) < 100 \
        else f"{x:.1f}"


def _intro(records, datasets):
    cfg = datasets[0] if datasets else {}
    repeats = next((r["task"]["params"]["repeats"] for r in records
                    if r["task"]["params"]["kind"] == "fit"), 1)
    lines = [
        "## Panagiotakopoulos & Tsampouka (ALT 2011), Tables 1 and 2", "",
        f"PDM ε = {EPSILON}, PDM-succ η = {ETA} (ε = 0.5, 0.0625, 0.01), "
        f"PFM β = γ'_d of the preceding PDM run, DCD at accuracy {EPSILON}; "
        f"ρ = {RHO:g}, Δ per data set (Sec. 5). γ'_d is the directional "
        "margin in the extended space (footnote 2), computed for every "
        "algorithm as min_k u·y_k / ‖u‖ "
        "(`perceptrons.experiments._liblinear.directional_margin`). Times "
        f"are the fastest of {repeats} wall-clock runs on this machine after "
        "warm-up (no numba compilation), LIBLINEAR's quiet (`-q`) `train` "
        "call only for DCD; 'paper' times are the authors' (2.5 GHz Core 2 "
        "Duo, C++), so compare the ratios to DCD-L2 of the same run.", ""]
    if cfg.get("n_rows"):
        lines += [f"**Subsample of {cfg['n_rows']} rows per data set "
                  "(quick run): the paper's numbers are for the full sets "
                  "and are shown for reference only; margins are not "
                  "compared.**", ""]
    skipped = {r["task"]["params"].get("estimator") for r in records
               if r["status"] == "skipped"}
    if "liblinear" in skipped:
        lines += [f"**DCD-L1 / DCD-L2: {_liblinear.MISSING_MESSAGE}.**", ""]
    if "libsvm" in skipped:
        lines += [f"**LIBSVM: {_libsvm.MISSING_MESSAGE}.**", ""]
    return lines


def _heading(ds):
    size = (f", {ds['n_samples']} of {ds['n_samples_full']} rows"
            if ds.get("subsample") else f", {ds['n_samples']} rows"
            if "n_samples" in ds else "")
    features = (f" × {ds['n_features']} features" if "n_features" in ds
                else "")
    return (f"### {ds['dataset']} ({ds['data']}{size}{features}), "
            f"Δ = {ds['delta']:g}, ρ = {ds['rho']:g}")


def _cells(r):
    paper = r["paper"] or {}
    theirs = [_margin_fmt(paper.get("margin_1e4")),
              report.num(paper.get("updates_1e6"), ".4g"),
              report.num(paper.get("seconds"), "g"),
              report.num(r.get("paper_ratio_to_dcd_l2"), ".2f"),
              paper.get("source", "")]
    if r["status"] != "ok":
        status = r.get("note") if r["status"] == "skipped" else r["status"]
        return [r["algorithm"], f"*{status}*", theirs[0], "–", "–",
                theirs[1], "–", theirs[2], "–", *theirs[3:]]
    rel, upd = r.get("margin_rel_diff"), r.get("updates")
    agree = "–" if rel is None else f"{100 * rel:+.2f}% " + (
        "✓" if r["margin_agrees_1pct"] else "✗ (>1%)")
    conv = "" if r.get("converged") in (None, True) else " (not converged)"
    return [RUN_LABELS.get(r["algorithm"], r["algorithm"]),
            f"{_margin_fmt(1e4 * r['margin'])}{conv}",
            theirs[0], agree,
            report.num(None if upd is None else upd / 1e6, ".4g"), theirs[1],
            report.num(r["seconds"], ".3f"), theirs[2],
            report.num(r.get("ratio_to_dcd_l2"), ".2f"), *theirs[3:]]


def _dataset_section(ds, rows):
    if ds["status"] == "error":
        return [_heading(ds), "", f"Not run: {ds['error']}.", ""]
    mine = [r for r in rows if r["dataset"] == ds["dataset"]]
    notes = [f"{r['algorithm']}: {r['note']}" for r in mine
             if r.get("note") and r["status"] == "ok"]
    notes += [PAPER_NOTES[ds["dataset"]]] if ds["dataset"] in PAPER_NOTES \
        else []
    table = report.table(
        ["algorithm", "10⁴γ'_d", "paper", "ours/paper − 1", "10⁻⁶ upd",
         "paper", "s", "paper", "s / DCD-L2", "paper", "paper source"],
        map(_cells, mine), "lrrrrrrrrrl")
    return ([_heading(ds), "", *table, ""] + [f"- {n}" for n in notes]
            + ([""] if notes else []))


def _closing(records, rows):
    compared = [r for r in rows if r.get("margin_rel_diff") is not None]
    meta = records[0]["meta"] if records else {}
    load = meta.get("load_average")
    lines = [f"Margin agreement with the paper (|ours/paper − 1| ≤ 1%): "
             f"{sum(r['margin_agrees_1pct'] for r in compared)} of "
             f"{len(compared)} compared cells.", ""] if compared else []
    return lines + [
        "PFM's margin is not given in the paper's Table 1; SVMlight's paper "
        "value is the geometric margin γ' (no augmentation). DCD-L2's "
        "margin uses α = ξ/Δ² reconstructed from the slacks of its (w, b) "
        "(LIBLINEAR does not return α); DCD-L1, run on the explicitly "
        "extended data with C = ∞ (numerically 1e12), reports the solver's "
        "own extension coordinates, which is the paper's way.", "",
        "Paper data sets not available here (MANIFEST.md, 'Not obtained'): "
        + ", ".join(MISSING_DATASETS) + ".", "",
        report.footer(
            records, "liblinear-official "
            f"{meta.get('liblinear_version') or 'not installed'}"
            + _libsvm_of(records),
            "load average at start "
            + (" / ".join(f"{x:.2f}" for x in load) if load else "n/a")
            + f" on {meta.get('n_cpus')} CPUs")]


def _libsvm_of(records):
    """", libsvm-official X" when a record was made with LIBSVM installed
    (records made before its row was run do not say)."""
    version = next((r["meta"]["libsvm_version"] for r in records
                    if (r.get("meta") or {}).get("libsvm_version")), None)
    return f", libsvm-official {version}" if version else ""


def render_markdown(records):
    """The report: one table per data set, ours beside the paper's.

    Parameters
    ----------
    records : list of dict
        From :func:`run` or :func:`load_records`.

    Returns
    -------
    str
    """
    datasets, rows = _view(records)
    lines = _intro(records, datasets)
    for ds in datasets:
        lines += _dataset_section(ds, rows)
    return "\n".join(lines + _closing(records, rows)) + "\n"


def write_outputs(config, records, out):
    """Write ``<stem>_results.csv`` and ``<stem>_tables.md``.

    Returns
    -------
    markdown : str
    files : list of pathlib.Path
    """
    markdown = render_markdown(records)
    return markdown, [
        report.write_csv(out / f"{config.stem}_results.csv",
                         csv_rows(records), CSV_FIELDS),
        report.write_text(out / f"{config.stem}_tables.md", markdown)]
