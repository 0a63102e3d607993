r"""Reproduction of Figure 3 of Shalev-Shwartz & Singer (2005), the Ballseptron.

``perceptrons reproduce ballseptron [--quick]`` runs :func:`run`.

Bottom panels (Sec. 5, second experiment)
-----------------------------------------
T = 10,000 instances on the unit circle of R², labelled by a random unit
vector u with margin γ = 0.15 (:func:`~perceptrons.datasets.make_unit_circle`),
then either labels flipped with probability η, or Gaussian noise
N(0, σ² I) added to the instances. For every noise level the Perceptron
(``Ballseptron(radius=0)``, one online pass in the generated order) is run
and compared with

* the D2 bound, Eq. (3) (Freund & Schapire; Thm. 1 at r = 0),
  ((R + D2)/γ)², and
* the D1 bound, Thm. 2 at r = 0, ((R + √(γ D1))/γ)²,

both with γ = 0.15 and the *true* u of the clean data, R = max_t ‖x_t‖ of the
noisy sequence. Everything is divided by T, as in the figure, and averaged
over several seeds (each seed draws a new u and a new clean sample; within a
seed all noise levels perturb the same clean sample).

Top panels (Sec. 5, first experiment)
-------------------------------------
Online mistake rate ε/T of the multiclass Ballseptron (Sec. 4) against r on
USPS (7291 training examples) and MNIST (60,000), fifth-degree polynomial
kernel with bias ½, K(x, x') = (x·x' + ½)⁵, the instances shifted to zero
mean and scaled to average norm 1, one online pass. This needs the kernel
form ``Ballseptron(kernel="poly", degree=5, coef0=0.5, gamma=1.0)``; when the
installed :class:`~perceptrons.Ballseptron` has no ``kernel`` parameter the
panels are skipped and the report says so.

The text copy of the paper has Fig. 3's caption but not its axes, so the
radius grid is ours (:data:`RADII`): dense up to 0.3, where the mistake
rate is lowest, then up to 1, ~0.36 of the average feature-space norm
‖φ(x)‖ = (1 + ½)^{5/2} ≈ 2.76, far enough for the "excessively large r"
regime the paper describes.

Files (in ``output_dir``)
-------------------------
``reproduce_ballseptron_results.json``
    Everything: metadata (versions, git SHA, command), configuration, every
    run (per seed and noise level; per data set and radius).
``reproduce_ballseptron_noise.csv``, ``reproduce_ballseptron_radius.csv``
    The same rows, flat.
``reproduce_ballseptron.md``
    The report, rendered from the JSON (never refitting).
``reproduce_ballseptron_fig3_bottom.png``
    The two bottom panels.
``reproduce_ballseptron_fig3_top.png``
    The two top panels (only when they were run).
"""

import csv
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

from ._runner import environment_metadata

__all__ = ["INSTANCE_NOISE", "LABEL_NOISE", "RADII", "kernel_available",
           "plot_bottom", "plot_top", "read_results", "render_markdown",
           "run"]

STEM = "reproduce_ballseptron"
SCHEMA = "perceptrons-reproduction-results"

#: Margin of the clean unit-circle data and γ of the bounds (Sec. 5).
GAMMA = 0.15
#: Label-noise rates η of the bottom-left panel.
LABEL_NOISE = tuple(round(0.01 * i, 2) for i in range(11))
#: Instance-noise standard deviations σ of the bottom-right panel.
INSTANCE_NOISE = tuple(round(0.03 * i, 2) for i in range(11))
#: Radii of the top panels (full run).
RADII = (0.0, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.4,
         0.5, 0.75, 1.0)
QUICK_RADII = (0.0, 0.1, 0.25, 0.5, 1.0)
#: Kernel of Sec. 5: (gamma x·x' + coef0) ** degree.
KERNEL_PARAMS = {"kernel": "poly", "degree": 5, "coef0": 0.5, "gamma": 1.0}
#: Examples per data set in the full run; None = the whole training set.
#: A pass costs (support × T) kernel values in BLAS blocks: all of MNIST
#: takes about 3.5 s at r = 0 and 17 s at r = 0.1 (BENCHMARKS.md).
FULL_KERNEL_DATASETS = {"usps": None, "mnist": None}
QUICK_KERNEL_DATASETS = {"usps": 1000}
PAPER_SIZES = {"usps": 7291, "mnist": 60000}

SKIP_KERNEL = "kernel form not available in this build"


# ---------------------------------------------------------------------------
# Hooks (tests replace them)
# ---------------------------------------------------------------------------


def _estimator_class():
    from ..models import Ballseptron

    return Ballseptron


def kernel_available():
    """True if the installed Ballseptron takes a ``kernel`` parameter."""
    return "kernel" in _estimator_class()().get_params()


def _load_kernel_dataset(name):
    """Training set of ``name`` as (X, y)."""
    from ..datasets import load_named

    b = load_named(name)
    return np.asarray(b.X_train, dtype=np.float64), np.asarray(b.y_train)


# ---------------------------------------------------------------------------
# Bottom panels
# ---------------------------------------------------------------------------


def _noise_run(kind, level, n_samples, seed):
    from ..bounds import d1_bound, freund_schapire_bound, mistake_bounds
    from ..datasets import make_unit_circle

    noise = {"label_noise": level} if kind == "label" else \
        {"instance_noise": level}
    X, y, u = make_unit_circle(n_samples=n_samples, margin=GAMMA,
                               random_state=seed, **noise)
    clf = _estimator_class()(radius=0.0, max_iter=1, shuffle=False)
    clf.fit(X, y)
    b = mistake_bounds(X, y, u, GAMMA)
    d2b = freund_schapire_bound(b.R, GAMMA, b.D2)
    d1b = d1_bound(b.R, GAMMA, b.D1)
    return {
        "panel": kind, "level": float(level), "seed": int(seed),
        "T": int(n_samples), "mistakes": int(clf.n_mistakes_),
        "R": b.R, "gamma": GAMMA, "D1": b.D1, "D2": b.D2,
        "n_hinge_positive": int(np.count_nonzero(
            np.maximum(0.0, GAMMA - y * (X @ u)) > 0)),
        "d2_bound": d2b, "d1_bound": d1b,
        "u": [float(v) for v in u],
    }


# ---------------------------------------------------------------------------
# Top panels
# ---------------------------------------------------------------------------


def _prepare(X, y, n, seed):
    """Subsample (seeded) if asked, centre, scale to average norm 1."""
    total = X.shape[0]
    if n is not None and n < total:
        idx = np.random.RandomState(seed).permutation(total)[:n]
        X, y = X[idx], y[idx]
        order = "seeded random subsample, in that order"
    else:
        order = "file order"
    X = X - X.mean(axis=0)
    X = X / np.mean(np.linalg.norm(X, axis=1))
    return X, y, order


def _radius_run(X, y, r):
    cls = _estimator_class()
    clf = cls(radius=float(r), max_iter=1, shuffle=False)
    clf.set_params(**KERNEL_PARAMS)
    t0 = time.perf_counter()
    clf.fit(X, y)
    seconds = time.perf_counter() - t0
    T = int(X.shape[0])
    return {"radius": float(r), "T": T, "mistakes": int(clf.n_mistakes_),
            "margin_errors": int(getattr(clf, "n_margin_errors_", -1)),
            "mistake_rate": int(clf.n_mistakes_) / T, "seconds": seconds}


# ---------------------------------------------------------------------------
# Run
# ---------------------------------------------------------------------------


def run(output_dir="perceptrons_output", quick=False, progress=None, *,
        n_samples=None, seeds=None, label_noise=None, instance_noise=None,
        radii=None, kernel_datasets=None):
    """Reproduce Fig. 3 and write the results, report and plots.

    Parameters
    ----------
    output_dir : str or path-like, default="perceptrons_output"
    quick : bool, default=False
        Bottom panels on 2,000 points and 3 seeds, top panels on 1,000 USPS
        examples and :data:`QUICK_RADII`; under a minute.
    progress : bool or None, default=None
        tqdm bar on stderr (None: only on a terminal).
    n_samples : int, default=None
        Points of the unit-circle data (10,000; quick 2,000).
    seeds : sequence of int, default=None
        Seeds of the unit-circle data (0..9; quick 0..2).
    label_noise, instance_noise : sequence of float, default=None
        η and σ grids (:data:`LABEL_NOISE`, :data:`INSTANCE_NOISE`).
    radii : sequence of float, default=None
        r grid of the top panels (:data:`RADII`; quick :data:`QUICK_RADII`).
    kernel_datasets : dict of str to int or None, default=None
        Data set name to the number of training examples used (None = all);
        ``{}`` skips the top panels. Default: all of USPS and MNIST;
        quick: USPS 1,000.

    Returns
    -------
    dict
        ``markdown`` (the report), ``files`` (list of paths written) and
        ``results`` (the results dict, as read back from the JSON).
    """
    from tqdm.auto import tqdm

    start = time.perf_counter()
    n_samples = n_samples or (2000 if quick else 10000)
    seeds = list(seeds if seeds is not None else (range(3) if quick
                                                    else range(10)))
    label_noise = list(LABEL_NOISE if label_noise is None else label_noise)
    instance_noise = list(INSTANCE_NOISE if instance_noise is None
                          else instance_noise)
    radii = list(radii if radii is not None else
                 (QUICK_RADII if quick else RADII))
    if kernel_datasets is None:
        kernel_datasets = dict(QUICK_KERNEL_DATASETS if quick
                               else FULL_KERNEL_DATASETS)
    has_kernel = kernel_available()

    meta = environment_metadata()
    config = {
        "quick": bool(quick), "gamma": GAMMA, "n_samples": int(n_samples),
        "seeds": [int(s) for s in seeds], "label_noise": label_noise,
        "instance_noise": instance_noise, "radii": [float(r) for r in radii],
        "kernel_params": dict(KERNEL_PARAMS),
        "kernel_datasets": {k: v for k, v in kernel_datasets.items()},
        "kernel_available": bool(has_kernel),
    }
    noise_rows, radius_rows, top_notes = [], [], {}
    n_top = len(kernel_datasets) * len(radii) if has_kernel else 0
    total = len(seeds) * (len(label_noise) + len(instance_noise)) + n_top
    bar = tqdm(total=total, disable=(None if progress is None
                                     else not progress),
               file=sys.stderr, unit="run", leave=False)
    try:
        for kind, levels in (("label", label_noise),
                             ("instance", instance_noise)):
            for seed in seeds:
                bar.set_description(f"{kind} noise, seed {seed}")
                for level in levels:
                    noise_rows.append(_noise_run(kind, level, n_samples, seed))
                    bar.update()
        if has_kernel:
            for name, n in kernel_datasets.items():
                bar.set_description(f"{name}, loading")
                try:
                    X, y = _load_kernel_dataset(name)
                except (OSError, ValueError) as exc:
                    top_notes[name] = {"status": "not run",
                                       "reason": f"could not load: {exc}"}
                    bar.update(len(radii))
                    continue
                n_total = int(X.shape[0])
                X, y, order = _prepare(X, y, n, seed=0)
                top_notes[name] = {
                    "status": "run", "n_used": int(X.shape[0]),
                    "n_available": n_total,
                    "n_paper": PAPER_SIZES.get(name), "order": order,
                    "n_classes": int(np.unique(y).shape[0])}
                if radii:  # compile first: "seconds" is the pass alone
                    _radius_run(X[:300], y[:300], max(radii))
                for r in radii:
                    bar.set_description(f"{name}, r = {r:g}")
                    try:
                        row = _radius_run(X, y, r)
                    except Exception as exc:  # noqa: BLE001 - reported
                        row = {"radius": float(r), "T": int(X.shape[0]),
                               "error": f"{type(exc).__name__}: {exc}"}
                    row["dataset"] = name
                    radius_rows.append(row)
                    bar.update()
        else:
            for name in kernel_datasets:
                top_notes[name] = {"status": "not run", "reason": SKIP_KERNEL}
    finally:
        bar.close()
    meta["wall_seconds"] = time.perf_counter() - start
    results = {"schema": SCHEMA, "schema_version": 1,
               "experiment": STEM, "meta": meta, "config": config,
               "noise": noise_rows, "radius": radius_rows,
               "top_panels": top_notes}

    out = Path(os.fspath(output_dir))
    files = _write(results, out)
    results = read_results(files[0])
    markdown = render_markdown(results)
    md_path = out / f"{STEM}.md"
    md_path.write_text(markdown, encoding="utf-8")
    files.append(md_path)
    files.append(plot_bottom(results, out / f"{STEM}_fig3_bottom.png"))
    if results["radius"]:
        files.append(plot_top(results, out / f"{STEM}_fig3_top.png"))
    return {"markdown": markdown, "files": files, "results": results}


def _write(results, out):
    out.mkdir(parents=True, exist_ok=True)
    json_path = out / f"{STEM}_results.json"
    json_path.write_text(
        json.dumps(_finite(results), indent=1, allow_nan=False) + "\n",
        encoding="utf-8")
    meta = results["meta"]
    tail = {"perceptrons_version": meta.get("perceptrons_version"),
            "numba_version": meta.get("numba_version"),
            "git_sha": meta.get("git_sha") or ""}
    noise_csv = out / f"{STEM}_noise.csv"
    fields = ["panel", "level", "seed", "T", "mistakes", "R", "gamma", "D1",
              "D2", "n_hinge_positive", "d2_bound", "d1_bound",
              "mistake_rate", "d2_bound_rate", "d1_bound_rate", *tail]
    with open(noise_csv, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in results["noise"]:
            w.writerow({**r, "mistake_rate": r["mistakes"] / r["T"],
                        "d2_bound_rate": r["d2_bound"] / r["T"],
                        "d1_bound_rate": r["d1_bound"] / r["T"], **tail})
    radius_csv = out / f"{STEM}_radius.csv"
    fields = ["dataset", "radius", "T", "mistakes", "margin_errors",
              "mistake_rate", "seconds", "error", *tail]
    with open(radius_csv, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in results["radius"]:
            w.writerow({**r, **tail})
    return [json_path, noise_csv, radius_csv]


def _finite(obj):
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def read_results(path):
    """Load ``reproduce_ballseptron_results.json``."""
    data = json.loads(Path(os.fspath(path)).read_text(encoding="utf-8"))
    if data.get("schema") != SCHEMA or data.get("experiment") != STEM:
        raise ValueError(f"{path} is not a Ballseptron reproduction file")
    return data


# ---------------------------------------------------------------------------
# Summaries (from the results dict only)
# ---------------------------------------------------------------------------


def _summary(results, kind):
    """Per noise level: means over seeds, per round, and per-run checks."""
    rows = [r for r in results["noise"] if r["panel"] == kind]
    levels = sorted({r["level"] for r in rows})
    out = []
    for lv in levels:
        rs = [r for r in rows if r["level"] == lv]
        T = np.array([r["T"] for r in rs], dtype=float)
        eps = np.array([r["mistakes"] for r in rs]) / T
        b2 = np.array([r["d2_bound"] for r in rs]) / T
        b1 = np.array([r["d1_bound"] for r in rs]) / T
        out.append({
            "level": lv, "n_seeds": len(rs),
            "eps": float(eps.mean()), "eps_sd": float(eps.std(ddof=0)),
            "d2": float(b2.mean()), "d1": float(b1.mean()),
            "D1": float(np.mean([r["D1"] for r in rs])),
            "D2": float(np.mean([r["D2"] for r in rs])),
            "R": float(np.mean([r["R"] for r in rs])),
            # per run: does each theorem hold, which bound is smaller
            "d2_holds": bool(np.all(b2 >= eps)),
            "d1_holds": bool(np.all(b1 >= eps)),
            "d1_tighter_runs": int(np.sum(b1 < b2)),
        })
    return out


def _top_summary(results, name):
    rows = sorted((r for r in results["radius"]
                   if r["dataset"] == name and "error" not in r),
                  key=lambda r: r["radius"])
    if not rows:
        return None
    base = next((r for r in rows if r["radius"] == 0.0), None)
    best = min(rows, key=lambda r: (r["mistake_rate"], r["radius"]))
    out = {"rows": rows, "best": best, "base": base}
    if base is not None:
        e0 = base["mistake_rate"]
        out["reduction_abs"] = e0 - best["mistake_rate"]
        out["reduction_rel"] = (e0 - best["mistake_rate"]) / e0 if e0 else 0.0
        out["n_better"] = sum(r["mistake_rate"] < e0 for r in rows
                              if r["radius"] > 0)
        # "significant": at least 10% fewer mistakes than the Perceptron
        out["n_significant"] = sum(r["mistake_rate"] <= 0.9 * e0
                                   for r in rows if r["radius"] > 0)
        out["n_positive"] = sum(r["radius"] > 0 for r in rows)
        largest = rows[-1]
        out["largest"] = largest
    return out


def _claims(results):
    """The paper's claims and whether our numbers agree: (claim, verdict, why)."""
    claims = []
    lab = [s for s in _summary(results, "label") if s["level"] > 0]
    ins = [s for s in _summary(results, "instance") if s["level"] > 0]
    if lab:
        n = sum(s["d1"] < s["d2"] for s in lab)
        claims.append((
            "Label noise: the D1 bound is clearly tighter than the D2 bound.",
            "agrees" if n == len(lab) else
            ("partly" if n else "disagrees"),
            f"D1 bound < D2 bound (means over seeds) at {n} of {len(lab)} "
            f"levels η > 0; ratio D2/D1 bound at the largest η "
            f"({lab[-1]['level']:g}): {lab[-1]['d2'] / lab[-1]['d1']:.2f}."))
        above = [s for s in lab if s["level"] > 0.03 + 1e-12]
        below = [s for s in _summary(results, "label")
                 if s["level"] <= 0.03 + 1e-12]
        first = next((s["level"] for s in _summary(results, "label")
                      if s["d2"] > 1), None)
        if above:
            ok = all(s["d2"] > 1 for s in above)
            claims.append((
                "Label noise: the D2 bound exceeds 1 per round (is "
                "meaningless) whenever η > 0.03.",
                "agrees" if ok else "disagrees",
                "D2 bound/T first exceeds 1 at η = "
                f"{'never' if first is None else f'{first:g}'}; at η ≤ 0.03 "
                "it is " + ", ".join(f"{s['d2']:.2f}" for s in below)
                + f"; at η = {above[0]['level']:g} it is "
                f"{above[0]['d2']:.2f}. The D1 bound/T stays ≤ "
                f"{max(s['d1'] for s in lab):.2f}."))
    if ins:
        n = sum(s["d1"] < s["d2"] for s in ins)
        gaps = [(s["d2"] - s["d1"]) / s["d2"] for s in ins]
        tighter = [s["level"] for s in ins if s["d1"] < s["d2"]]
        where = ""
        if tighter and n < len(ins):
            where = (f" D1 is tighter for σ ≥ {min(tighter):g} and looser "
                     "below, as the end of Sec. 3 predicts: the D1 bound "
                     "wins iff γ·D1 ≤ D2², i.e. when the comparator's "
                     "typical hinge loss exceeds γ, which small σ does not "
                     "produce.")
        claims.append((
            "Instance noise: the D1 bound is also slightly better than the "
            "D2 bound.",
            "agrees" if n == len(ins) else ("partly" if n else "disagrees"),
            f"D1 bound < D2 bound (means over seeds) at {n} of {len(ins)} "
            f"levels σ > 0; relative gap (D2 − D1)/D2 from {min(gaps):.1%} "
            f"to {max(gaps):.1%}.{where}"))
    allruns = _summary(results, "label") + _summary(results, "instance")
    if allruns:
        ok = all(s["d2_holds"] and s["d1_holds"] for s in allruns)
        claims.append((
            "Theorems (Eq. (3), Thm. 2 at r = 0): both bounds are at least "
            "the Perceptron's mistakes on every sequence.",
            "agrees" if ok else "disagrees",
            "checked on every run (each seed and noise level)."))
    for name in results["top_panels"]:
        s = _top_summary(results, name)
        if s is None or s.get("base") is None:
            continue
        claims.append((
            f"{name.upper()}: many choices of r > 0 give significantly fewer "
            "online mistakes than r = 0 (the Perceptron).",
            "agrees" if s["n_significant"] >= 3 else
            ("partly" if s["n_significant"] else "disagrees"),
            f"{s['n_better']} of {s['n_positive']} radii r > 0 beat r = 0, "
            f"{s['n_significant']} by at least 10% (our criterion for "
            "'significant'; 'agrees' needs 3 such radii, and the count "
            "depends on our grid); "
            f"best r = {s['best']['radius']:g}, ε/T "
            f"{s['base']['mistake_rate']:.4f} → "
            f"{s['best']['mistake_rate']:.4f} "
            f"({s['reduction_rel']:.1%} fewer mistakes)."))
        lg = s["largest"]
        claims.append((
            f"{name.upper()}: an excessively large r deteriorates "
            "performance.",
            "agrees" if lg["mistake_rate"] > s["best"]["mistake_rate"]
            and lg["radius"] > s["best"]["radius"] else "not observed",
            f"at the largest r tried ({lg['radius']:g}) ε/T = "
            f"{lg['mistake_rate']:.4f} (best {s['best']['mistake_rate']:.4f}"
            f", r = 0: {s['base']['mistake_rate']:.4f})."))
    return claims


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def _noise_table(results, kind):
    sym = "η" if kind == "label" else "σ"
    lines = [
        f"| {sym} | ε/T (mean ± sd) | D2 bound / T | D1 bound / T | "
        "D1 tighter (runs) | D2 bound > 1 | R | D1 | D2 |",
        "|---:|---:|---:|---:|---:|:---:|---:|---:|---:|",
    ]
    for s in _summary(results, kind):
        lines.append(
            f"| {s['level']:g} | {s['eps']:.4f} ± {s['eps_sd']:.4f} | "
            f"{s['d2']:.4f} | {s['d1']:.4f} | "
            f"{s['d1_tighter_runs']}/{s['n_seeds']} | "
            f"{'yes' if s['d2'] > 1 else 'no'} | {s['R']:.3f} | "
            f"{s['D1']:.1f} | {s['D2']:.2f} |")
    return lines


def render_markdown(results):
    """The report: tables, claims and verdicts, from the results dict alone.

    Parameters
    ----------
    results : dict
        As returned by :func:`run` or :func:`read_results`.

    Returns
    -------
    str
    """
    cfg, meta = results["config"], results["meta"]
    seeds = cfg["seeds"]
    lines = [
        "# Reproduction of Figure 3, Shalev-Shwartz & Singer (2005), "
        "*A New Perspective on an Old Perceptron Algorithm*",
        "",
        f"Mode: {'**quick**' if cfg['quick'] else 'full'}.",
        "",
        "## Bottom panels: mistake bounds of the Perceptron vs noise",
        "",
        f"{cfg['n_samples']} points on the unit circle of R², labels "
        f"separable with margin {cfg['gamma']:g} by a random unit u "
        "(paper: 10,000). One online pass of the Perceptron "
        "(`Ballseptron(radius=0, max_iter=1, shuffle=False)`). Bounds with "
        f"γ = {cfg['gamma']:g} and the true u: D2 bound = ((R + D2)/γ)² "
        "(Eq. (3), Freund & Schapire), D1 bound = ((R + √(γ D1))/γ)² "
        "(Thm. 2, r = 0); R = max‖x_t‖ of the noisy sequence. Per round "
        f"(÷ T), means over {len(seeds)} seed(s) {seeds}; D1, D2 and R are "
        "means too. 'D1 tighter (runs)': seeds at which the D1 bound is "
        "below the D2 bound.",
        "",
        "### Label noise (labels flipped with probability η)",
        "",
        *_noise_table(results, "label"),
        "",
        "### Instance noise (x + N(0, σ² I), labels kept)",
        "",
        *_noise_table(results, "instance"),
        "",
        "The σ grid is ours: the text copy of the paper has Fig. 3's "
        "caption but not its axes.",
        "",
        "## Top panels: online mistake rate ε/T vs r, kernel Ballseptron",
        "",
    ]
    kp = cfg["kernel_params"]
    lines += [
        f"Multiclass Ballseptron (Sec. 4), kernel K(x, x') = (γ_k x·x' + "
        f"{kp['coef0']:g})^{kp['degree']} with γ_k = {kp['gamma']:g}, "
        "instances shifted to zero mean and scaled to average norm 1, one "
        "online pass. Radii: " + ", ".join(f"{r:g}" for r in cfg["radii"])
        + " (our grid; the paper's axis values are not in our copy). "
        "*seconds*: the whole `fit` of one pass, after a warm-up fit that "
        "compiles the loops.",
        "",
    ]
    if not cfg["kernel_available"]:
        lines += [f"**Top panels skipped: {SKIP_KERNEL}** (the installed "
                  "`perceptrons.Ballseptron` has no `kernel` parameter). "
                  "Not run: " + (", ".join(n.upper() for n in
                                           results["top_panels"]) or
                                 "no data set requested") + ".", ""]
    elif not results["top_panels"]:
        lines += ["**Top panels not run: no data set requested.**", ""]
    for name, note in results["top_panels"].items():
        lines.append(f"### {name.upper()}")
        lines.append("")
        if note["status"] != "run":
            lines += [f"**Not run: {note['reason']}.**", ""]
            continue
        used, paper = note["n_used"], note.get("n_paper")
        msg = (f"{used} of {note['n_available']} training examples "
               f"({note['order']}), {note['n_classes']} classes.")
        if paper and used < paper:
            msg += (f" **Only part of the data: the paper uses {paper}.** "
                    + ("Quick mode." if cfg["quick"] else
                       "Cut by the caller (``kernel_datasets``)."))
        lines += [msg, "",
                  "| r | ε/T | mistakes | margin errors | seconds |",
                  "|---:|---:|---:|---:|---:|"]
        for r in sorted((r for r in results["radius"]
                         if r["dataset"] == name), key=lambda r: r["radius"]):
            if "error" in r:
                lines.append(f"| {r['radius']:g} | **failed**: "
                             f"{r['error']} | | | |")
            else:
                lines.append(
                    f"| {r['radius']:g} | {r['mistake_rate']:.4f} | "
                    f"{r['mistakes']} | {r['margin_errors']} | "
                    f"{r['seconds']:.2f} |")
        s = _top_summary(results, name)
        lines.append("")
        if s is None:
            lines += ["**No radius ran successfully.**", ""]
        elif s.get("base") is None:
            lines += [f"Best r = {s['best']['radius']:g} (ε/T "
                      f"{s['best']['mistake_rate']:.4f}); r = 0 was not "
                      "run, so no reduction is given.", ""]
        else:
            lines += [
                f"Best r = {s['best']['radius']:g}: ε/T = "
                f"{s['best']['mistake_rate']:.4f} vs "
                f"{s['base']['mistake_rate']:.4f} at r = 0, a reduction of "
                f"{s['reduction_abs']:.4f} ({s['reduction_rel']:.1%} of the "
                "Perceptron's mistakes).", ""]
    lines += ["## The paper's claims and ours", "",
              "| claim | ours | numbers |", "|---|---|---|"]
    for claim, verdict, why in _claims(results):
        lines.append(f"| {claim} | **{verdict}** | {why} |")
    if not cfg["kernel_available"]:
        lines.append("| Top panels (ε/T vs r on MNIST and USPS). | "
                     f"**not run** | {SKIP_KERNEL}. |")
    not_run = [n for n, v in results["top_panels"].items()
               if v["status"] != "run"]
    lines += ["", "## Not run, or run only in part", ""]
    items = []
    if not_run:
        items += [f"- Top panel {n.upper()}: "
                  f"{results['top_panels'][n]['reason']}." for n in not_run]
    for name in ("usps", "mnist"):
        if name not in results["top_panels"]:
            items.append(f"- Top panel {name.upper()}: not run in this "
                         "configuration" + (" (quick mode runs a USPS "
                                            "subsample only)" if cfg["quick"]
                                            else "") + ".")
    for name, note in results["top_panels"].items():
        paper = note.get("n_paper")
        if note["status"] == "run" and paper and note["n_used"] < paper:
            items.append(
                f"- Top panel {name.upper()} only in part: {note['n_used']} "
                f"of the paper's {paper} examples ("
                + ("quick mode" if cfg["quick"] else "cut by the caller") + ").")
    if cfg["n_samples"] < 10000:
        items.append(f"- Bottom panels on T = {cfg['n_samples']} points, "
                     "not the paper's 10,000"
                     + (" (quick mode)." if cfg["quick"] else "."))
    items += [f"- {name.upper()} at r = {r['radius']:g}: {r['error']}."
              for r in results["radius"] if "error" in r for name in
              [r["dataset"]]]
    lines += items or ["- Nothing: every panel ran."]
    lines += ["", f"perceptrons {meta.get('perceptrons_version')}, numba "
              f"{meta.get('numba_version')}, numpy "
              f"{meta.get('numpy_version')}, git "
              f"{(meta.get('git_sha') or 'n/a')[:10]}"
              f"{' (dirty)' if meta.get('git_dirty') else ''}; "
              f"{meta.get('wall_seconds', math.nan):.1f} s wall time."]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Plots (from the results dict alone)
# ---------------------------------------------------------------------------


def _figure(ncols):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.2 * ncols, 4.0))
    FigureCanvasAgg(fig)
    return fig, fig.subplots(1, ncols, squeeze=False).ravel()


def _save(fig, path):
    fig.tight_layout()
    path = Path(os.fspath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return path


def plot_bottom(results, path):
    """Fig. 3 bottom: D2 bound, D1 bound and mistakes (÷ T) vs η and σ."""
    fig, axes = _figure(2)
    for ax, kind, xlabel in ((axes[0], "label", "label noise η"),
                             (axes[1], "instance", "instance noise σ")):
        s = _summary(results, kind)
        x = [v["level"] for v in s]
        ax.plot(x, [v["d2"] for v in s], "o-", label="D2 bound (Eq. 3)")
        ax.plot(x, [v["d1"] for v in s], "s-", label="D1 bound (Thm. 2)")
        ax.errorbar(x, [v["eps"] for v in s], yerr=[v["eps_sd"] for v in s],
                    fmt="^-", capsize=2, label="Perceptron mistakes")
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("per round (÷ T)")
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    cfg = results["config"]
    fig.suptitle(f"Fig. 3 bottom: unit circle, T = {cfg['n_samples']}, "
                 f"γ = {cfg['gamma']:g}, mean of {len(cfg['seeds'])} seed(s)",
                 fontsize=10)
    return _save(fig, path)


def plot_top(results, path):
    """Fig. 3 top: ε/T vs r, one panel per data set that ran."""
    names = [n for n, v in results["top_panels"].items()
             if v["status"] == "run"]
    fig, axes = _figure(max(1, len(names)))
    for ax, name in zip(axes, names):
        rows = sorted((r for r in results["radius"]
                       if r["dataset"] == name and "error" not in r),
                      key=lambda r: r["radius"])
        ax.plot([r["radius"] for r in rows],
                [r["mistake_rate"] for r in rows], "o-",
                label="Ballseptron")
        base = [r["mistake_rate"] for r in rows if r["radius"] == 0.0]
        if base:
            ax.axhline(base[0], color="grey", lw=0.8, ls="--",
                       label="Perceptron (r = 0)")
        ax.legend(fontsize=8)
        note = results["top_panels"][name]
        ax.set_title(f"{name.upper()} (T = {note['n_used']})", fontsize=10)
        ax.set_xlabel("radius r")
        ax.set_ylabel("ε / T")
        ax.grid(alpha=0.3)
    fig.suptitle("Fig. 3 top: kernel Ballseptron, poly degree 5, bias ½, "
                 "one online pass", fontsize=10)
    return _save(fig, path)
