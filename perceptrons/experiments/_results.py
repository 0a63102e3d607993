"""Result files: write, read, render as Markdown, plot.

Rendering and plotting read the results dict produced by
:func:`~perceptrons.experiments._runner.run_experiment` (or the JSON file it
was written to) and never refit anything.

Files written by :func:`write_results` into the output folder, with
``<stem>`` the experiment name:

``<stem>_results.json``
    Everything: metadata (package, numba, numpy, scipy, scikit-learn and
    Python versions, git SHA, date, command), the configuration, and per
    (data set, variant) the fold accuracies, mean, T-interval, online
    mistake rates, update counts and timings. NaN is written as ``null``.
``<stem>_results.csv``
    One row per (data set, variant): the summary numbers, plus the
    metadata columns ``perceptrons_version``, ``numba_version`` and
    ``git_sha``.
"""

import csv
import json
import math
import os
from pathlib import Path

__all__ = ["plot_results", "read_results", "render_markdown", "write_results"]

_CSV_FIELDS = ["dataset", "variant", "estimator", "params", "tau",
               "n_splits", "accuracy_mean", "ci_half_width", "ci_low",
               "ci_high", "confidence", "mistake_rate_mean", "seconds",
               "perceptrons_version", "numba_version", "git_sha"]


def write_results(results, output_dir, stem=None):
    """Write ``<stem>_results.json`` and ``<stem>_results.csv``.

    Returns
    -------
    dict of str to pathlib.Path
        ``{"json": ..., "csv": ...}``.
    """
    out = Path(os.fspath(output_dir))
    out.mkdir(parents=True, exist_ok=True)
    stem = stem or results["experiment"]
    json_path = out / f"{stem}_results.json"
    csv_path = out / f"{stem}_results.csv"
    json_path.write_text(json.dumps(results, indent=1, allow_nan=False) + "\n",
                         encoding="utf-8")
    meta = results["meta"]
    with open(csv_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=_CSV_FIELDS)
        writer.writeheader()
        for r in results["results"]:
            writer.writerow({
                "dataset": r["dataset"], "variant": r["variant"],
                "estimator": r["estimator"],
                "params": json.dumps(r["params"], sort_keys=True),
                "tau": "" if r["tau"] is None else r["tau"],
                "n_splits": r["n_splits"],
                "accuracy_mean": r["mean"],
                "ci_half_width": _blank(r["ci_half_width"]),
                "ci_low": _blank(r["ci_low"]),
                "ci_high": _blank(r["ci_high"]),
                "confidence": r["confidence"],
                "mistake_rate_mean": _blank(r["mean_mistake_rate"]),
                "seconds": f"{r['seconds']:.4f}",
                "perceptrons_version": meta.get("perceptrons_version"),
                "numba_version": meta.get("numba_version"),
                "git_sha": meta.get("git_sha") or "",
            })
    return {"json": json_path, "csv": csv_path}


def _blank(x):
    return "" if x is None else x


def read_results(path):
    """Load a ``*_results.json`` file written by :func:`write_results`."""
    data = json.loads(Path(os.fspath(path)).read_text(encoding="utf-8"))
    if data.get("schema") != "perceptrons-experiment-results":
        raise ValueError(f"{path} is not a perceptrons results file")
    return data


def _pct(x, digits=1):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{100 * x:.{digits}f}"


def _grid(results):
    datasets = [d["name"] for d in results["config"]["datasets"]]
    variants = [v["name"] for v in results["config"]["variants"]]
    cell = {(r["dataset"], r["variant"]): r for r in results["results"]}
    return datasets, variants, cell


def render_markdown(results):
    """Markdown report: accuracy ± T-interval table and mistake-rate table.

    Parameters
    ----------
    results : dict
        From ``run_experiment`` or :func:`read_results`.

    Returns
    -------
    str
    """
    datasets, variants, cell = _grid(results)
    cfg = results["config"]
    conf = f"{100 * cfg['confidence']:g}%"
    lines = [
        f"### Accuracy (%) in {cfg['n_splits']}-fold cross-validation, "
        f"mean ± half-width of the {conf} T-interval",
        "",
        "| variant | " + " | ".join(datasets) + " |",
        "|---|" + "---:|" * len(datasets),
    ]
    for v in variants:
        row = []
        for d in datasets:
            r = cell.get((d, v))
            row.append("" if r is None else
                       f"{_pct(r['mean'])} ± {_pct(r['ci_half_width'])}")
        lines.append(f"| {v} | " + " | ".join(row) + " |")
    lines += [
        "",
        "### Online mistake rate (%) while training: n_mistakes_ / t_, "
        "mean over folds",
        "",
        "| variant | " + " | ".join(datasets) + " |",
        "|---|" + "---:|" * len(datasets),
    ]
    for v in variants:
        row = [_pct(cell[(d, v)]["mean_mistake_rate"]) if (d, v) in cell
               else "" for d in datasets]
        lines.append(f"| {v} | " + " | ".join(row) + " |")
    lines += ["", "Data sets:", ""]
    for d in cfg["datasets"]:
        lines.append(
            f"- **{d['name']}**: {d['n_samples']} × {d['n_features']}, "
            f"{d['n_classes']} classes (majority {_pct(d['majority_rate'])}%)"
            f"{', standardized per fold' if d['scale'] else ''}. "
            f"{d['description']}")
    lines += ["", "Variants:", ""]
    for v in cfg["variants"]:
        lines.append(f"- **{v['name']}**: {v['description']}")
    meta = results["meta"]
    lines += ["", f"perceptrons {meta.get('perceptrons_version')}, numba "
              f"{meta.get('numba_version')}, git "
              f"{(meta.get('git_sha') or 'n/a')[:10]}"
              f"{' (dirty)' if meta.get('git_dirty') else ''}; "
              f"{meta.get('wall_seconds', math.nan):.1f} s wall time."]
    return "\n".join(lines) + "\n"


def plot_results(results, path):
    """Bar chart of CV accuracy with T-interval error bars, one panel per
    data set. Returns the path written.

    Drawn on a bare :class:`matplotlib.figure.Figure` with the Agg canvas,
    so no GUI backend is touched and pyplot's global state is left alone.
    """
    from matplotlib import colormaps
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    datasets, variants, cell = _grid(results)
    n = len(datasets)
    ncols = min(n, 2)
    nrows = -(-n // ncols)
    height = 0.9 + 0.3 * len(variants)
    fig = Figure(figsize=(4.6 * ncols + 1.6, height * nrows + 0.6))
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, sharey=True, squeeze=False).ravel()
    colors = colormaps["tab10"].colors
    ypos = list(range(len(variants)))
    for ax in axes[n:]:
        ax.set_visible(False)
    for ax, d in zip(axes, datasets):
        means, errs = [], []
        for v in variants:
            r = cell.get((d, v))
            means.append(math.nan if r is None else 100 * r["mean"])
            half = None if r is None else r["ci_half_width"]
            errs.append(0.0 if half is None else 100 * half)
        ax.barh(ypos, means, xerr=errs, color=[colors[i % 10] for i in ypos],
                capsize=3, height=0.7, error_kw={"elinewidth": 1})
        finite = [m - e for m, e in zip(means, errs) if not math.isnan(m)]
        lo = max(0.0, math.floor((min(finite) if finite else 0.0) - 4))
        ax.set_xlim(lo, 100)
        ax.set_title(d, fontsize=10)
        ax.set_xlabel("CV accuracy (%)", fontsize=9)
        ax.tick_params(labelsize=8)
        ax.grid(axis="x", alpha=0.3)
        for y_, m in zip(ypos, means):
            if not math.isnan(m):
                ax.text(lo + 0.3, y_, f"{m:.1f}", va="center", ha="left",
                        fontsize=7, color="white", fontweight="bold")
        ax.set_yticks(ypos)
        ax.set_yticklabels(variants, fontsize=8)
    axes[0].invert_yaxis()
    cfg = results["config"]
    fig.suptitle(f"{results['experiment']}: {cfg['n_splits']}-fold CV, "
                 f"bars = {100 * cfg['confidence']:g}% T-interval "
                 "(Khardon & Wachman 2007, fn. 5)", fontsize=10)
    fig.tight_layout()
    path = Path(os.fspath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return path
