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
average are stored too. The paper's times are from a 2.5 GHz Core 2 Duo
(C++ code).

Tasks and files (``<stem>`` is ``pdm`` or ``pdm_quick``): loading each data
set and each (data set, algorithm) fit is a task of :mod:`.store`; PFM's
tasks follow once PDM's records give their β. The records go to
``<stem>_records.jsonl`` as they finish (``resume`` keeps them); the report
``<stem>_tables.md`` and the flat ``<stem>_results.csv`` (one row per data
set and algorithm, the paper's numbers beside) are rendered from them.
"""

import os
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from . import _liblinear, report
from .store import Store, Task, make_record, progress_bar, run_tasks

__all__ = ["ALGORITHMS", "Config", "DATASETS", "FULL", "PAPER_DELTA",
           "PAPER_TABLE1", "PAPER_TABLE2", "PaperDataset", "QUICK",
           "fit_worker", "load_records", "render_markdown", "run"]

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


@dataclass(frozen=True)
class Config:
    """What to run.

    Parameters
    ----------
    datasets : tuple of PaperDataset
        Default :data:`DATASETS` (Adult = a9a, Web = w8a).
    n_rows : int or None
        A random subsample of that many rows of each data set; the paper's
        numbers are then shown for reference only (they are for the full
        sets). None: all rows, and margins are compared with the paper's.
    random_state : int
        Seeds the subsample and the permutations of PDM/PFM.
    repeats : int
        Fits per algorithm, the fastest time being reported (the fits are
        identical).
    quick : bool
        Names the files ``pdm_quick_*`` and says so in the report.
    """

    datasets: tuple = tuple(DATASETS)
    n_rows: object = None
    random_state: int = 0
    repeats: int = 3
    quick: bool = False

    @property
    def stem(self):
        return "pdm_quick" if self.quick else "pdm"


#: The paper's configuration: full data sets, fastest of 3 fits.
FULL = Config()
#: 3000-row subsamples, one fit each: under a minute.
QUICK = Config(n_rows=QUICK_ROWS, repeats=1, quick=True)


# ------------------------------------------------------------------ workers
def _warm_up():
    """Compile every loop used below on tiny dense and CSR problems."""
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
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c0, t0 = time.process_time(), time.perf_counter()
        est.fit(X, y)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return wall, cpu, [str(w.message) for w in caught]


def _ours(task, X, y):
    import perceptrons

    p = task.params
    cls = getattr(perceptrons, p["estimator"])
    fits = []
    for _ in range(p["repeats"]):
        est = cls(**p["params"])
        fits.append(_timed_fit(est, X, y))
    times = [f[0] for f in fits]
    return {"margin": float(est.directional_margin_[0]),
            "geometric_margin": float(est.geometric_margin_[0]),
            "updates": int(est.n_updates_), "seconds": min(times),
            "seconds_all": times, "cpu_seconds": min(f[1] for f in fits),
            "converged": bool(est.converged_[0]), "n_iter": int(est.n_iter_),
            "accuracy_estimate": float(est.accuracy_estimate_[0]),
            "warnings": fits[-1][2], "note": ""}


def _dcd(task, X, y):
    p = task.params["params"]
    fit = {"l1": _liblinear.fit_dcd_l1, "l2": _liblinear.fit_dcd_l2}[
        p["solver"]]
    fits = [fit(X, y, p["delta"], rho=p["rho"], eps=p["eps"])
            for _ in range(task.params["repeats"])]
    res = fits[-1]
    margin, geometric = _liblinear.directional_margin(
        X, y, res.w, res.b, rho=p["rho"], delta=p["delta"], alpha=res.alpha)
    limit = res.info.get("max_iter_reached", False)
    return {"options": res.options, "C": res.C, "margin": float(margin),
            "geometric_margin": float(geometric), "updates": None,
            "seconds": min(f.seconds for f in fits),
            "seconds_all": [f.seconds for f in fits], "cpu_seconds": None,
            "converged": not limit, "n_iter": res.info.get("n_iter"),
            "accuracy_estimate": None, "warnings": [],
            "note": f"extension from {res.alpha_source}; LIBLINEAR "
                    f"`{res.options}`, {res.info.get('n_iter')} outer "
                    "iterations" + ("; **stopped at LIBLINEAR's iteration "
                                    "limit**" if limit else "")}


def fit_worker(task):
    """Fit one algorithm of the paper on one data set, timed; its record.

    ``task.inputs`` is ``(X, y)``, y in ±1; ``task.params`` names the
    ``estimator`` (``"PDM"``, ``"PFM"``, ``"ROMMA"`` or ``"liblinear"``),
    its ``params`` and the ``repeats``. Without LIBLINEAR's binding a DCD
    task is recorded as "skipped".
    """
    X, y = task.inputs
    start = time.perf_counter()
    if task.params["estimator"] != "liblinear":
        result = _ours(task, X, y)
    elif not _liblinear.available():
        return make_record(task, {"note": _liblinear.MISSING_MESSAGE},
                           status="skipped")
    else:
        result = _dcd(task, X, y)
    return make_record(task, result, seconds=time.perf_counter() - start)


# ------------------------------------------------------------------ tasks
def _load(ds, config):
    """Load, subsample and sign a data set: its record, and (X, y)."""
    task = Task(config.stem, ds.name, None, {
        "kind": "data", "data": ds.data, "delta": float(ds.delta),
        "n_rows": config.n_rows, "random_state": config.random_state})
    base = {"data": ds.data, "description": ds.description,
            "delta": float(ds.delta), "rho": RHO}
    try:
        X, y = ds.get()
    except (FileNotFoundError, OSError) as exc:
        return make_record(task, {**base, "error": f"data not found: {exc}"},
                           status="error"), None
    m_full, n_rows = X.shape[0], config.n_rows
    subsample = None
    if n_rows is not None and n_rows < m_full:
        rng = np.random.default_rng(config.random_state)
        rows = np.sort(rng.choice(m_full, size=n_rows, replace=False))
        X, y = X[rows], np.asarray(y)[rows]
        subsample = int(n_rows)
    X = (sp.csr_matrix(X, dtype=np.float64) if sp.issparse(X)
         else np.ascontiguousarray(X, dtype=np.float64))
    y = _liblinear.signed_labels(y)
    info = {**base, "n_samples": int(X.shape[0]),
            "n_samples_full": int(m_full), "n_features": int(X.shape[1]),
            "subsample": subsample, "n_positive": int((y > 0).sum())}
    return make_record(task, info), (X, y)


def _fit_task(config, ds, algorithm, estimator, params, data):
    return Task(config.stem, ds.name, None, {
        "kind": "fit", "algorithm": algorithm, "estimator": estimator,
        "params": params, "repeats": config.repeats,
        "n_rows": config.n_rows}, data)


def _first_tasks(config, ds, data):
    """The fits that depend on nothing else (all but PFM)."""
    common = {"augmentation": RHO, "extension": float(ds.delta),
              "random_state": config.random_state}
    dcd = {"delta": float(ds.delta), "rho": RHO, "eps": EPSILON}
    return [
        _fit_task(config, ds, "PDM", "PDM", {"epsilon": EPSILON, **common},
                  data),
        _fit_task(config, ds, "PDM-succ", "PDM",
                  {"epsilon": EPSILON, "successive": ETA, **common}, data),
        _fit_task(config, ds, "ROMMA", "ROMMA", {"epsilon": EPSILON,
                                                 **common}, data),
        _fit_task(config, ds, "DCD-L1", "liblinear", {"solver": "l1", **dcd},
                  data),
        _fit_task(config, ds, "DCD-L2", "liblinear", {"solver": "l2", **dcd},
                  data)]


def _pfm_tasks(config, ds, data, first):
    """PFM with β = γ'_d of PDM and of PDM-succ (Table 1)."""
    common = {"augmentation": RHO, "extension": float(ds.delta),
              "random_state": config.random_state}
    return [_fit_task(config, ds, f"PFM (β = γ'_d of {source})", "PFM",
                      {"beta": r["result"]["margin"], **common}, data)
            for source, r in zip(("PDM", "PDM-succ"), first)]


def _run_dataset(config, ds, store, resume, on_record):
    """The records of one data set: its load record, then its fits."""
    record, data = _load(ds, config)
    store.append(record)
    if data is None:
        return [record]
    first = run_tasks(fit_worker, _first_tasks(config, ds, data), store,
                      resume=resume, on_record=on_record)
    return [record, *first, *run_tasks(
        fit_worker, _pfm_tasks(config, ds, data, first), store,
        resume=resume, on_record=on_record)]


def run(options, config=None):
    """Reproduce Tables 1-2 on the local data sets; write records and report.

    Parameters
    ----------
    options : RunOptions
        Where to write (``output_dir``), whether to take the 3000-row
        subsamples (``quick``), the progress bar and ``resume``, which keeps
        the fits already recorded (a data set is loaded again all the same).
    config : Config, default=None
        Replaces :data:`QUICK` / :data:`FULL`, e.g. other data sets.

    Returns
    -------
    dict
        ``markdown``: the report; ``files``: the records, the CSV and the
        Markdown; ``records``: load records and fit records, by data set.
    """
    config = config or (QUICK if options.quick else FULL)
    out = Path(os.fspath(options.output_dir))
    store = Store.open(out / f"{config.stem}_records.jsonl",
                       resume=options.resume)
    _warm_up()
    bar = progress_bar(7 * len(config.datasets), options.progress,
                       desc=config.stem)
    records = []
    try:
        for ds in config.datasets:
            records += _run_dataset(config, ds, store, options.resume,
                                    lambda _: bar.update())
    finally:
        bar.close()
    markdown = render_markdown(records)
    files = [store.path,
             report.write_csv(out / f"{config.stem}_results.csv",
                              _csv_rows(records), _CSV_FIELDS),
             report.write_text(out / f"{config.stem}_tables.md", markdown)]
    return {"markdown": markdown, "files": files, "records": records}


def load_records(output_dir, config=QUICK):
    """The records of the last run of ``config`` written to ``output_dir``."""
    path = Path(os.fspath(output_dir)) / f"{config.stem}_records.jsonl"
    return list(Store(path).read().values())


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
    for algorithm, status in ALGORITHMS:
        if status is not None:
            by[algorithm] = {"dataset": name, "algorithm": algorithm,
                             "status": status, "n_rows": base["n_rows"]}
    dcd2 = by.get("DCD-L2", {})
    ref = dcd2.get("seconds") if dcd2.get("status") == "ok" else None
    paper_ref = (paper_numbers(name, "DCD-L2") or {}).get("seconds")
    return [_with_paper({**by[a], "note": by[a].get("note") or (
        ROMMA_NOTE if a == "ROMMA" else "")}, ref, paper_ref)
        for a, _ in ALGORITHMS if a in by]


def _view(records):
    """``(data set rows, fit rows)``; fit rows carry the paper's numbers."""
    rows = report.rows(records)
    datasets = [r for r in rows if r["kind"] == "data"]
    fits = [r for r in rows if r["kind"] == "fit"]
    return datasets, [x for d in datasets
                      for x in _dataset_rows(fits, d["dataset"])]


_CSV_FIELDS = ["dataset", "algorithm", "status", "margin_1e4",
               "paper_margin_1e4", "margin_rel_diff", "updates",
               "paper_updates", "seconds", "paper_seconds",
               "ratio_to_dcd_l2", "paper_ratio_to_dcd_l2", "cpu_seconds",
               "converged", "n_iter", "params", "note", "paper_source",
               "liblinear_version"]


def _csv_rows(records):
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
    if any(r["status"] == "skipped" for r in records):
        lines += [f"**DCD-L1 / DCD-L2: {_liblinear.MISSING_MESSAGE}.**", ""]
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
    return [r["algorithm"], f"{_margin_fmt(1e4 * r['margin'])}{conv}",
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
            f"{meta.get('liblinear_version') or 'not installed'}",
            "load average at start "
            + (" / ".join(f"{x:.2f}" for x in load) if load else "n/a")
            + f" on {meta.get('n_cpus')} CPUs")]


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
