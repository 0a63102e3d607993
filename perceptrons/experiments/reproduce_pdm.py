"""Reproduce Tables 1 and 2 of Panagiotakopoulos & Tsampouka (ALT 2011).

The perceptron with dynamic margin (PDM) paper, Sec. 5: on every data set of
the paper that is in the shared data folder — Adult (LIBSVM ``a9a``) and Web
(LIBSVM ``w8a``); Physics, Real-sim, News20, Webspam, Covertype, C11 and
CCAT are not available — the hard-margin problem in the space extended with
the paper's Δ (Δ = 1 for both; ρ = 1) is solved by

* PDM, ε = 0.01, then PFM with β = γ'_d of PDM (Table 1, columns 1–2);
* PDM-succ, η = 8 (ε = 0.5, 0.0625, 0.01), then PFM with β = γ'_d of
  PDM-succ (Table 1, columns 3–4);
* aggressive ROMMA with accuracy ε = 0.01 and PDM's active sets
  (:class:`perceptrons.ROMMA`, Table 2);
* DCD-L1 and DCD-L2 of LIBLINEAR (Table 2), see :mod:`._liblinear`;

and the directional margin 10⁴·γ'_d, the updates and the training time are
tabulated beside the paper's own numbers, with each time's ratio to DCD-L2's
in the same run (the only comparison that does not depend on the machine).
SVMlight and MPU (Table 2) are listed with the paper's numbers and marked
as not run.

Timing: the fastest of 3 (``quick``: 1) wall-clock times of ``fit`` (input
validation and the final margin computation included; the fits are
identical) after every compiled loop was warmed up on a tiny problem, so no
numba compilation is timed; for LIBLINEAR only its ``train`` call (the
conversion to its data format is made before). CPU seconds and the load
average are stored too. The paper's times are from a 2.5 GHz Core 2 Duo (C++ code).

Files written (``<stem>`` is ``pdm`` or ``pdm_quick``):

``<stem>_results.json``
    Metadata (versions, git SHA, LIBLINEAR version, date), configuration,
    and per data set and algorithm every measured number with the paper's.
``<stem>_results.csv``
    One row per (data set, algorithm).
``<stem>_tables.md``
    The Markdown report, rendered from the results by :func:`render_markdown`.
"""

import csv
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from . import _liblinear
from ._runner import _nan_to_none, environment_metadata

__all__ = ["ALGORITHMS", "DATASETS", "PAPER_DELTA", "PAPER_TABLE1",
           "PAPER_TABLE2", "PaperDataset", "read_results", "render_markdown",
           "run"]

EPSILON = 0.01
ETA = 8
RHO = 1.0
QUICK_ROWS = 3000

#: Δ of the extended space per data set, Sec. 5 (ρ = 1 for all).
PAPER_DELTA = {"Adult": 1.0, "Web": 1.0, "Physics": 1.0, "Real-sim": 0.1,
               "News20": 0.1, "Webspam": 0.3, "Covertype": 3.0, "C11": 0.3,
               "CCAT": 0.3}

#: Table 1, per data set: PDM ε=0.01 (10⁴γ'_d, 10⁻⁶upd, s), PFM (10⁻⁶upd,
#: s), PDM-succ ε=0.01 (10⁴γ'_d, 10⁻⁶upd, s), PFM (10⁻⁶upd, s).
PAPER_TABLE1 = {
    "Adult": (84.57, 27.43, 3.7, 10.70, 7.3, 84.46, 9.312, 5.3, 9.367, 6.6),
    "Web": (209.6, 739.4, 0.8, 1.089, 0.9, 209.1, 0.838, 0.9, 0.871, 0.8),
    "Physics": (44.54, 9.449, 10.4, 6.021, 13.8, 44.53, 5.984, 15.3, 6.006,
                13.8),
    "Real-sim": (39.93, 15.42, 13.6, 12.69, 35.7, 39.74, 5.314, 13.8, 5.306,
                 14.3),
    "News20": (91.90, 2.403, 27.4, 1.060, 55.6, 91.68, 0.814, 47.7, 0.813,
               43.7),
    "Webspam": (10.05, 331.0, 197.5, 108.4, 348.0, 10.03, 89.72, 247.0,
                89.60, 264.5),
    "Covertype": (47.51, 189.7, 86.6, 68.86, 156.0, 47.48, 66.03, 146.1,
                  64.41, 142.5),
    "C11": (13.81, 148.6, 156.3, 75.26, 895.1, 13.77, 49.02, 612.4, 49.22,
            557.5),
    "CCAT": (9.279, 307.7, 310.6, 151.2, 1923.5, 9.253, 107.8, 1389.8, 107.8,
             1601.0),
}

#: Table 2, per data set: ROMMA (10⁴γ'_d, s), SVMlight (10⁴γ', s), DCD-L1
#: (10⁴γ'_d, s), DCD-L2 (s; same margin as DCD-L1), MPU (10⁴γ'_d, s).
PAPER_TABLE2 = {
    "Adult": (84.66, 275.8, 84.90, 414.2, 84.95, 0.6, 0.5, 84.61, 0.8),
    "Web": (209.6, 52.6, 209.4, 40.3, 209.5, 0.7, 0.6, 209.5, 0.3),
    "Physics": (44.57, 117.7, 44.60, 2341.8, 44.57, 22.5, 20.0, 44.62, 4.9),
    "Real-sim": (39.89, 1318.8, 39.80, 146.5, 39.81, 6.4, 5.6, 39.78, 3.3),
    "News20": (92.01, 4754.0, 91.95, 113.8, 92.17, 48.1, 47.1, 91.62, 15.8),
    "Webspam": (10.06, 39760.6, 10.07, 29219.4, 10.08, 37.5, 33.0, 10.06,
                28.2),
    "Covertype": (47.54, 43282.0, 47.73, 48460.3, 47.71, 18.1, 15.0, 47.67,
                  18.7),
    "C11": (13.82, 146529.2, 13.82, 20127.8, 13.83, 30.7, 27.2, 13.79, 20.2),
    "CCAT": (9.290, 298159.4, 9.291, 83302.4, 9.303, 51.9, 46.2, 9.264, 36.1),
}

#: Remarks on the transcribed numbers, shown under a data set's table.
PAPER_NOTES = {
    "Web": "The paper's 739.4 × 10⁶ PDM updates on Web are transcribed as "
           "printed (Table 1); that is ~700 times the PFM and PDM-succ "
           "counts for 0.8 s, so it may be a typesetting slip.",
}

#: Shown under every data set's table.
ROMMA_NOTE = ("aggressive ROMMA, update when a·y_k < 1 − ε, with PDM's "
              "active sets (the paper gives no pseudo-code); a is kept as "
              "a global scale times a vector, so an update costs "
              "O(nnz(x_k)) even though it rescales a (the paper does not "
              "say how its ROMMA was implemented)")

#: Row order of the report: (name, status when not run, or None).
ALGORITHMS = [
    ("PDM", None),
    ("PFM (β = γ'_d of PDM)", None),
    ("PDM-succ", None),
    ("PFM (β = γ'_d of PDM-succ)", None),
    ("ROMMA", None),
    ("SVMlight", "not run (outside this reproduction; γ' not γ'_d)"),
    ("DCD-L1", None),
    ("DCD-L2", None),
    ("MPU", "not run (outside this reproduction)"),
]


def paper_numbers(dataset, algorithm):
    """The paper's 10⁴γ'_d, 10⁻⁶ upd, s and source of one cell, or None."""
    t1, t2 = PAPER_TABLE1.get(dataset), PAPER_TABLE2.get(dataset)
    if t1 is None:
        return None
    table = {
        "PDM": (t1[0], t1[1], t1[2], "Table 1, PDM ε = 0.01"),
        "PFM (β = γ'_d of PDM)": (None, t1[3], t1[4],
                                  "Table 1, first PFM column"),
        "PDM-succ": (t1[5], t1[6], t1[7], "Table 1, PDM-succ ε = 0.01"),
        "PFM (β = γ'_d of PDM-succ)": (None, t1[8], t1[9],
                                       "Table 1, second PFM column"),
        "ROMMA": (t2[0], None, t2[1], "Table 2, ROMMA"),
        "SVMlight": (t2[2], None, t2[3], "Table 2, SVMlight (10⁴γ')"),
        "DCD-L1": (t2[4], None, t2[5], "Table 2, DCD-L1"),
        "DCD-L2": (t2[4], None, t2[6],
                   "Table 2, DCD-L2 (margin = DCD-L1's, Sec. 5)"),
        "MPU": (t2[7], None, t2[8], "Table 2, MPU"),
    }
    margin, upd, sec, source = table[algorithm]
    return {"margin_1e4": margin, "updates_1e6": upd, "seconds": sec,
            "source": source}


@dataclass(frozen=True)
class PaperDataset:
    """One data set of the paper present locally.

    Parameters
    ----------
    name : str
        The paper's name (key of :data:`PAPER_TABLE1`), e.g. ``"Adult"``.
    data : str
        What is loaded: a :func:`perceptrons.datasets.load_named` name, or
        a description when ``load`` is given.
    delta : float
        Δ of the extension (:data:`PAPER_DELTA`).
    load : callable or None
        ``load() -> (X, y)``; None loads ``data`` with ``load_named``.
    description : str
    """

    name: str
    data: str
    delta: float
    load: object = None
    description: str = ""

    def get(self):
        if self.load is not None:
            return self.load()
        from ..datasets import load_named

        bunch = load_named(self.data)
        return bunch.X, bunch.y


DATASETS = [
    PaperDataset("Adult", "a9a", PAPER_DELTA["Adult"],
                 description="LIBSVM a9a = Platt's Adult, 32561 × 123"),
    PaperDataset("Web", "w8a", PAPER_DELTA["Web"],
                 description="LIBSVM w8a = Platt's Web, 49749 × 300"),
]

#: Paper data sets without a local copy (MANIFEST.md, "Not obtained").
MISSING_DATASETS = ["Physics", "Real-sim", "News20", "Webspam", "Covertype",
                    "C11", "CCAT"]


# ------------------------------------------------------------------ running
def _warm_up():
    """Compile every loop used below on tiny dense and CSR problems."""
    import warnings

    from .. import PDM, PFM, ROMMA

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=40) > 0, 1, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for data in (X, sp.csr_matrix(X)):
            for est in (PDM(epsilon=EPSILON, extension=1.0, random_state=0),
                        PDM(epsilon=EPSILON, extension=1.0, successive=ETA,
                            random_state=0),
                        PFM(beta=0.05, extension=1.0, random_state=0),
                        ROMMA(epsilon=EPSILON, extension=1.0,
                              random_state=0)):
                est.fit(data, y)
    if _liblinear.available():
        _liblinear.fit_dcd_l2(X, y, 1.0)


def _timed_fit(est, X, y):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c0, t0 = time.process_time(), time.perf_counter()
        est.fit(X, y)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return wall, cpu, [str(w.message) for w in caught]


def _ours(name, cls, X, y, params, repeats):
    times, cpus = [], []
    for _ in range(repeats):
        est = cls(**params)
        wall, cpu, warned = _timed_fit(est, X, y)
        times.append(wall)
        cpus.append(cpu)
    return {"algorithm": name, "status": "ok",
            "estimator": f"perceptrons.{cls.__name__}",
            "params": params,
            "margin": float(est.margin_[0]),
            "geometric_margin": float(est.geometric_margin_[0]),
            "updates": int(est.n_updates_), "seconds": min(times),
            "seconds_all": times, "cpu_seconds": min(cpus),
            "converged": bool(est.converged_[0]),
            "n_iter": int(est.n_iter_),
            "accuracy_estimate": float(est.accuracy_estimate_[0]),
            "warnings": warned, "note": ""}


def _dcd(name, fit, X, y, delta, repeats):
    fits = [fit(X, y, delta, rho=RHO, eps=EPSILON) for _ in range(repeats)]
    res = fits[-1]
    margin, geometric = _liblinear.directional_margin(
        X, y, res.w, res.b, rho=RHO, delta=delta, alpha=res.alpha)
    out = {"algorithm": name, "status": "ok", "estimator": "liblinear",
           "params": {"options": res.options, "C": res.C},
           "margin": float(margin), "geometric_margin": float(geometric),
           "updates": None, "seconds": min(f.seconds for f in fits),
           "seconds_all": [f.seconds for f in fits], "cpu_seconds": None,
           "converged": not res.info.get("max_iter_reached", False),
           "n_iter": res.info.get("n_iter"), "accuracy_estimate": None,
           "warnings": [], "note": f"extension from {res.alpha_source}; "
           f"LIBLINEAR `{res.options}`, {res.info.get('n_iter')} outer "
           "iterations"
           + ("; **stopped at LIBLINEAR's iteration limit**"
              if res.info.get("max_iter_reached") else "")}
    return out


def _run_dataset(ds, n_rows, random_state, bar, repeats=1):
    from .. import PDM, PFM, ROMMA

    X, y = ds.get()
    m_full = X.shape[0]
    subsample = None
    compare = n_rows is None
    if n_rows is not None and n_rows < m_full:
        rng = np.random.default_rng(random_state)
        rows = np.sort(rng.choice(m_full, size=n_rows, replace=False))
        X, y = X[rows], np.asarray(y)[rows]
        subsample = int(n_rows)
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
    else:
        X = np.ascontiguousarray(X, dtype=np.float64)
    y = _liblinear.signed_labels(y)
    delta = float(ds.delta)
    common = {"augmentation": RHO, "extension": delta,
              "random_state": random_state}
    runs = []

    def step(label):
        bar.set_description(f"{ds.name} / {label}")

    step("PDM")
    p = {"epsilon": EPSILON, **common}
    runs.append(_ours("PDM", PDM, X, y, p, repeats))
    bar.update()
    step("PFM")
    p = {"beta": runs[0]["margin"], **common}
    runs.append(_ours("PFM (β = γ'_d of PDM)", PFM, X, y, p, repeats))
    bar.update()
    step("PDM-succ")
    p = {"epsilon": EPSILON, "successive": ETA, **common}
    runs.append(_ours("PDM-succ", PDM, X, y, p, repeats))
    bar.update()
    step("PFM after PDM-succ")
    p = {"beta": runs[2]["margin"], **common}
    runs.append(_ours("PFM (β = γ'_d of PDM-succ)", PFM, X, y,
                      p, repeats))
    bar.update()
    step("ROMMA")
    p = {"epsilon": EPSILON, **common}
    runs.append(_ours("ROMMA", ROMMA, X, y, p, repeats))
    runs[-1]["note"] = ROMMA_NOTE
    bar.update()
    for name, fit in (("DCD-L1", _liblinear.fit_dcd_l1),
                      ("DCD-L2", _liblinear.fit_dcd_l2)):
        step(name)
        if _liblinear.available():
            runs.append(_dcd(name, fit, X, y, delta, repeats))
        else:
            runs.append({"algorithm": name, "status": "liblinear missing",
                         "note": _liblinear.MISSING_MESSAGE})
        bar.update()
    for name, status in ALGORITHMS:
        if status is not None:
            runs.append({"algorithm": name, "status": status, "note": ""})
    order = [a for a, _ in ALGORITHMS]
    runs.sort(key=lambda r: order.index(r["algorithm"]))
    dcd2 = next(r for r in runs if r["algorithm"] == "DCD-L2")
    ref = dcd2.get("seconds") if dcd2["status"] == "ok" else None
    paper_ref = (paper_numbers(ds.name, "DCD-L2") or {}).get("seconds")
    for r in runs:
        r["paper"] = paper_numbers(ds.name, r["algorithm"])
        sec = r.get("seconds")
        r["ratio_to_dcd_l2"] = (sec / ref if sec is not None and ref
                                else None)
        psec = (r["paper"] or {}).get("seconds")
        r["paper_ratio_to_dcd_l2"] = (psec / paper_ref
                                      if psec is not None and paper_ref
                                      else None)
        pm = (r["paper"] or {}).get("margin_1e4")
        if r.get("margin") is not None and pm and compare:
            rel = 1e4 * r["margin"] / pm - 1.0
            r["margin_rel_diff"] = rel
            r["margin_agrees_1pct"] = bool(abs(rel) <= 0.01)
        else:
            r["margin_rel_diff"] = None
            r["margin_agrees_1pct"] = None
    info = {"name": ds.name, "data": ds.data, "description": ds.description,
            "delta": delta, "rho": RHO, "n_samples": int(X.shape[0]),
            "n_samples_full": int(m_full), "n_features": int(X.shape[1]),
            "subsample": subsample,
            "n_positive": int((y > 0).sum())}
    return info, runs


def _stem(quick):
    return "pdm_quick" if quick else "pdm"


def run(output_dir="perceptrons_output", quick=False, progress=None, *,
        datasets=None, n_rows=None, random_state=0, repeats=None):
    """Run the reproduction and write its files.

    Parameters
    ----------
    output_dir : str or path-like, default="perceptrons_output"
    quick : bool, default=False
        A random subsample of ``QUICK_ROWS`` = 3000 rows of each data set
        (under a minute); the paper's numbers are then shown for reference
        only (they are for the full sets).
    progress : bool or None, default=None
        tqdm bar on stderr; None: only on a terminal.
    datasets : list of PaperDataset, default=None
        Default :data:`DATASETS` (Adult = a9a, Web = w8a).
    n_rows : int, default=None
        Subsample size (overrides ``quick``'s 3000).
    random_state : int, default=0
        Seeds the subsample and the permutations of PDM/PFM.
    repeats : int, default=None
        Fits per algorithm, the fastest time being reported (the fits are
        identical); None: 3, or 1 with ``quick``.

    Returns
    -------
    dict
        ``markdown`` (the report), ``files`` (paths written: JSON, CSV,
        Markdown) and ``results`` (the results dict).
    """
    from tqdm.auto import tqdm

    start = time.perf_counter()
    if n_rows is None and quick:
        n_rows = QUICK_ROWS
    if repeats is None:
        repeats = 1 if quick else 3
    datasets = list(DATASETS if datasets is None else datasets)
    meta = environment_metadata()
    meta["liblinear_version"] = _liblinear.liblinear_version()
    meta["liblinear_available"] = _liblinear.available()
    try:
        meta["load_average"] = list(os.getloadavg())
    except (OSError, AttributeError):  # pragma: no cover
        meta["load_average"] = None
    t0 = time.perf_counter()
    _warm_up()
    meta["warm_up_seconds"] = time.perf_counter() - t0
    config = {"epsilon": EPSILON, "eta": ETA, "rho": RHO, "quick": bool(quick),
              "n_rows": n_rows, "random_state": random_state,
              "repeats": repeats,
              "timing": "fastest of `repeats` wall-clock times of fit (ours) "
                        "/ of LIBLINEAR's train call, after warm-up",
              "datasets": []}
    entries = []
    bar = tqdm(total=7 * len(datasets),
               disable=(None if progress is None else not progress),
               file=sys.stderr, unit="run", leave=False)
    try:
        for ds in datasets:
            try:
                info, runs = _run_dataset(ds, n_rows, random_state, bar,
                                          repeats)
            except (FileNotFoundError, OSError) as exc:
                info = {"name": ds.name, "data": ds.data,
                        "description": ds.description, "delta": ds.delta,
                        "rho": RHO, "error": f"data not found: {exc}"}
                runs = []
            config["datasets"].append(info)
            for r in runs:
                entries.append({"dataset": ds.name, **r})
    finally:
        bar.close()
    meta["wall_seconds"] = time.perf_counter() - start
    results = _nan_to_none({
        "schema": "perceptrons-reproduction-results", "schema_version": 1,
        "experiment": _stem(quick), "paper": "Panagiotakopoulos & Tsampouka "
        "(ALT 2011), The Perceptron with Dynamic Margin, Tables 1-2",
        "meta": meta, "config": config,
        "missing_datasets": MISSING_DATASETS, "results": entries})
    files = write_results(results, output_dir)
    markdown = render_markdown(read_results(files[0]))
    md_path = (Path(os.fspath(output_dir))
               / f"{results['experiment']}_tables.md")
    md_path.write_text(markdown, encoding="utf-8")
    return {"markdown": markdown, "files": [*files, md_path],
            "results": results}


# ------------------------------------------------------------------ files
_CSV_FIELDS = ["dataset", "algorithm", "status", "margin_1e4",
               "paper_margin_1e4", "margin_rel_diff", "updates",
               "paper_updates", "seconds", "paper_seconds",
               "ratio_to_dcd_l2", "paper_ratio_to_dcd_l2", "cpu_seconds",
               "converged", "n_iter", "params", "note", "paper_source",
               "perceptrons_version", "numba_version", "liblinear_version",
               "git_sha"]


def write_results(results, output_dir):
    """Write ``<stem>_results.json`` and ``.csv``; return their paths."""
    out = Path(os.fspath(output_dir))
    out.mkdir(parents=True, exist_ok=True)
    stem = results["experiment"]
    json_path = out / f"{stem}_results.json"
    csv_path = out / f"{stem}_results.csv"
    json_path.write_text(json.dumps(results, indent=1, allow_nan=False,
                                    ensure_ascii=False) + "\n",
                         encoding="utf-8")
    meta = results["meta"]
    with open(csv_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=_CSV_FIELDS)
        writer.writeheader()
        for r in results["results"]:
            paper = r.get("paper") or {}
            margin = r.get("margin")
            upd = paper.get("updates_1e6")
            writer.writerow({
                "dataset": r["dataset"], "algorithm": r["algorithm"],
                "status": r["status"],
                "margin_1e4": "" if margin is None else 1e4 * margin,
                "paper_margin_1e4": _blank(paper.get("margin_1e4")),
                "margin_rel_diff": _blank(r.get("margin_rel_diff")),
                "updates": _blank(r.get("updates")),
                "paper_updates": "" if upd is None else round(upd * 1e6),
                "seconds": _blank(r.get("seconds")),
                "paper_seconds": _blank(paper.get("seconds")),
                "ratio_to_dcd_l2": _blank(r.get("ratio_to_dcd_l2")),
                "paper_ratio_to_dcd_l2": _blank(
                    r.get("paper_ratio_to_dcd_l2")),
                "cpu_seconds": _blank(r.get("cpu_seconds")),
                "converged": _blank(r.get("converged")),
                "n_iter": _blank(r.get("n_iter")),
                "params": json.dumps(r.get("params"), sort_keys=True,
                                     ensure_ascii=False),
                "note": r.get("note", ""),
                "paper_source": paper.get("source", ""),
                "perceptrons_version": meta.get("perceptrons_version"),
                "numba_version": meta.get("numba_version"),
                "liblinear_version": meta.get("liblinear_version") or "",
                "git_sha": meta.get("git_sha") or "",
            })
    return [json_path, csv_path]


def _blank(x):
    return "" if x is None else x


def read_results(path):
    """Load a ``pdm*_results.json`` written by :func:`run`."""
    data = json.loads(Path(os.fspath(path)).read_text(encoding="utf-8"))
    if data.get("schema") != "perceptrons-reproduction-results":
        raise ValueError(f"{path} is not a perceptrons reproduction file")
    return data


# ------------------------------------------------------------------ report
def _load(meta):
    load = meta.get("load_average")
    return "n/a" if not load else " / ".join(f"{x:.2f}" for x in load)


def _num(x, fmt):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return format(x, fmt)


def _margin_fmt(x):
    if x is None:
        return "–"
    return f"{x:.4g}" if abs(x) < 10 else f"{x:.2f}" if abs(x) < 100 \
        else f"{x:.1f}"


def render_markdown(results):
    """The report: one table per data set, ours beside the paper's.

    Parameters
    ----------
    results : dict
        From :func:`run` or :func:`read_results`.

    Returns
    -------
    str
    """
    cfg = results["config"]
    meta = results["meta"]
    lines = [
        "## Panagiotakopoulos & Tsampouka (ALT 2011), Tables 1 and 2",
        "",
        f"PDM ε = {cfg['epsilon']}, PDM-succ η = {cfg['eta']} "
        f"(ε = 0.5, 0.0625, 0.01), PFM β = γ'_d of the preceding PDM run, "
        f"DCD at accuracy {cfg['epsilon']}; ρ = {cfg['rho']:g}, Δ per data "
        "set (Sec. 5). γ'_d is the directional margin in the extended space "
        "(footnote 2), computed for every algorithm as min_k u·y_k / ‖u‖ "
        "(`perceptrons.experiments._liblinear.directional_margin`). Times "
        f"are the fastest of {cfg.get('repeats', 1)} wall-clock runs on this "
        "machine after warm-up (no numba compilation), LIBLINEAR's "
        "quiet (`-q`) `train` call only for DCD; 'paper' "
        "times are the authors' (2.5 GHz Core 2 Duo, C++), so compare the "
        "ratios to DCD-L2 of the same run.",
        "",
    ]
    if cfg.get("n_rows"):
        lines += [f"**Subsample of {cfg['n_rows']} rows per data set "
                  "(quick run): the paper's numbers are for the full sets "
                  "and are shown for reference only; margins are not "
                  "compared.**", ""]
    if not meta.get("liblinear_available"):
        lines += [f"**DCD-L1 / DCD-L2: {_liblinear.MISSING_MESSAGE}.**", ""]
    by_ds = {}
    for r in results["results"]:
        by_ds.setdefault(r["dataset"], []).append(r)
    n_cmp = n_ok = 0
    for ds in cfg["datasets"]:
        head = (f"### {ds['name']} ({ds['data']}"
                + (f", {ds['n_samples']} of {ds['n_samples_full']} rows"
                   if ds.get("subsample") else
                   f", {ds['n_samples']} rows" if "n_samples" in ds else "")
                + (f" × {ds['n_features']} features" if "n_features" in ds
                   else "")
                + f"), Δ = {ds['delta']:g}, ρ = {ds['rho']:g}")
        lines += [head, ""]
        if "error" in ds:
            lines += [f"Not run: {ds['error']}.", ""]
            continue
        lines += [
            "| algorithm | 10⁴γ'_d | paper | ours/paper − 1 | 10⁻⁶ upd "
            "| paper | s | paper | s / DCD-L2 | paper | paper source |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
        ]
        for r in by_ds.get(ds["name"], []):
            paper = r.get("paper") or {}
            pm = _margin_fmt(paper.get("margin_1e4"))
            pu = _num(paper.get("updates_1e6"), ".4g")
            ps = _num(paper.get("seconds"), "g")
            pr = _num(r.get("paper_ratio_to_dcd_l2"), ".2f")
            src = paper.get("source", "")
            if r["status"] != "ok":
                status = r["status"]
                if r["status"] == "liblinear missing":
                    status = _liblinear.MISSING_MESSAGE
                lines.append(f"| {r['algorithm']} | *{status}* | {pm} | – "
                             f"| – | {pu} | – | {ps} | – | {pr} | {src} |")
                continue
            margin = 1e4 * r["margin"]
            rel = r.get("margin_rel_diff")
            if rel is None:
                agree = "–"
            else:
                n_cmp += 1
                n_ok += bool(r["margin_agrees_1pct"])
                agree = (f"{100 * rel:+.2f}% "
                         + ("✓" if r["margin_agrees_1pct"] else "✗ (>1%)"))
            upd = r.get("updates")
            conv = "" if r.get("converged") in (None, True) else \
                " (not converged)"
            lines.append(
                f"| {r['algorithm']} | {_margin_fmt(margin)}{conv} | {pm} | "
                f"{agree} | {_num(None if upd is None else upd / 1e6, '.4g')}"
                f" | {pu} | {_num(r['seconds'], '.3f')} | {ps} | "
                f"{_num(r.get('ratio_to_dcd_l2'), '.2f')} | {pr} | {src} |")
        notes = [f"{r['algorithm']}: {r['note']}" for r in
                 by_ds.get(ds["name"], []) if r.get("note")
                 and r["status"] == "ok"]
        if ds["name"] in PAPER_NOTES:
            notes.append(PAPER_NOTES[ds["name"]])
        lines += [""] + [f"- {n}" for n in notes] + ([""] if notes else [])
    if n_cmp:
        lines += [f"Margin agreement with the paper (|ours/paper − 1| ≤ 1%): "
                  f"{n_ok} of {n_cmp} compared cells.", ""]
    lines += [
        "PFM's margin is not given in the paper's Table 1; SVMlight's paper "
        "value is the geometric margin γ' (no augmentation). DCD-L2's "
        "margin uses α = ξ/Δ² reconstructed from the slacks of its (w, b) "
        "(LIBLINEAR does not return α); DCD-L1, run on the explicitly "
        "extended data with C = ∞ (numerically 1e12), reports the solver's "
        "own extension coordinates, which is the paper's way.",
        "",
        "Paper data sets not available here (MANIFEST.md, 'Not obtained'): "
        + ", ".join(results.get("missing_datasets", [])) + ".",
        "",
        f"perceptrons {meta.get('perceptrons_version')}, numba "
        f"{meta.get('numba_version')}, liblinear-official "
        f"{meta.get('liblinear_version') or 'not installed'}, git "
        f"{(meta.get('git_sha') or 'n/a')[:10]}"
        f"{' (dirty)' if meta.get('git_dirty') else ''}; "
        f"{meta.get('wall_seconds', math.nan):.1f} s wall time; load "
        f"average at start {_load(meta)} on {meta.get('n_cpus')} CPUs.",
    ]
    return "\n".join(lines) + "\n"
