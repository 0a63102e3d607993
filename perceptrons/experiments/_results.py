"""The report of a cross-validation experiment, from its fold records.

:func:`summary_rows` groups the records of :func:`~._runner.run_experiment`
by (data set, variant) and summarizes each group with
:func:`~.evaluation.summarize_folds` (mean, K&W's T-interval, online mistake
rate); :func:`render_markdown`, :func:`plot_results` and :func:`write_summary`
lay the rows out. Nothing here refits.
"""

import math

from . import report
from .evaluation import summarize_folds

__all__ = ["plot_results", "render_markdown", "summary_rows",
           "write_summary"]

_CSV_FIELDS = ["dataset", "variant", "estimator", "estimator_params",
               "n_splits", "mean", "ci_half_width", "ci_low", "ci_high",
               "confidence", "mean_mistake_rate", "seconds"]


def summary_rows(records, confidence=0.95):
    """One row per (data set, variant), in the records' order.

    Returns
    -------
    list of dict
        ``dataset``, ``variant``, ``estimator``, ``estimator_params``,
        ``data`` (size of the data set), ``scale``, the fields of
        :class:`~.evaluation.CVResult` and ``seconds`` (sum over folds).
    """
    groups = {}
    for r in records:
        p = r["task"]["params"]
        groups.setdefault((r["task"]["dataset"], p["variant"]), []).append(r)
    out = []
    for (dataset, variant), recs in groups.items():
        p = recs[0]["task"]["params"]
        cv = summarize_folds(recs, confidence).to_dict()
        out.append({"dataset": dataset, "variant": variant,
                    "estimator": p["estimator"],
                    "estimator_params": p["estimator_params"],
                    "data": p["data"], "scale": p["scale"], **cv,
                    "seconds": sum(cv["fit_seconds"])})
    return out


def _grid(summary):
    datasets = list(dict.fromkeys(r["dataset"] for r in summary))
    variants = list(dict.fromkeys(r["variant"] for r in summary))
    return datasets, variants, {(r["dataset"], r["variant"]): r
                                for r in summary}


def _grid_table(summary, cell):
    datasets, variants, by = _grid(summary)
    body = [[v] + [cell(by[(d, v)]) if (d, v) in by else "" for d in datasets]
            for v in variants]
    return report.table(["variant", *datasets], body)


def _data_lines(summary, descriptions):
    seen = {}
    for r in summary:
        seen.setdefault(r["dataset"], r)
    return [f"- **{d}**: {r['data']['n_samples']} × {r['data']['n_features']}"
            f", {r['data']['n_classes']} classes (majority "
            f"{report.pct(r['data']['majority_rate'])}%)"
            f"{', standardized per fold' if r['scale'] else ''}. "
            f"{descriptions.get(d, '')}" for d, r in seen.items()]


def render_markdown(records, descriptions=None, confidence=0.95):
    """Accuracy ± T-interval table and mistake-rate table, from the records.

    Parameters
    ----------
    records : list of dict
        From :func:`~._runner.run_experiment` or a store.
    descriptions : dict of str to str, default=None
        A line per data set and per variant name.
    confidence : float, default=0.95

    Returns
    -------
    str
    """
    descriptions = descriptions or {}
    summary = summary_rows(records, confidence)
    _, variants, _ = _grid(summary)
    k = summary[0]["n_splits"] if summary else 0
    lines = [
        f"### Accuracy (%) in {k}-fold cross-validation, mean ± half-width "
        f"of the {100 * confidence:g}% T-interval", "",
        *_grid_table(summary, lambda r: f"{report.pct(r['mean'])} ± "
                                        f"{report.pct(r['ci_half_width'])}"),
        "", "### Online mistake rate (%) while training: n_mistakes_ / t_, "
        "mean over folds", "",
        *_grid_table(summary, lambda r: report.pct(r["mean_mistake_rate"])),
        "", "Data sets:", "", *_data_lines(summary, descriptions),
        "", "Variants:", "",
        *(f"- **{v}**: {descriptions.get(v, '')}" for v in variants),
        "", report.footer(records)]
    return "\n".join(lines) + "\n"


def write_summary(records, stem_path, confidence=0.95):
    """Write ``<stem>_results.json`` and ``<stem>_results.csv``.

    Returns
    -------
    dict
        ``{"json": path, "csv": path}``.
    """
    summary = summary_rows(records, confidence)
    meta = records[0]["meta"] if records else {}
    flat = [{**r, **{k: meta.get(k) for k in report.META_COLUMNS}}
            for r in summary]
    stem = str(stem_path)
    return {"json": report.write_json(f"{stem}_results.json",
                                      {"meta": meta, "results": summary}),
            "csv": report.write_csv(f"{stem}_results.csv", flat,
                                    _CSV_FIELDS)}


def _bar_panel(ax, dataset, variants, by):
    from matplotlib import colormaps

    colors = colormaps["tab10"].colors
    ypos = list(range(len(variants)))
    rs = [by.get((dataset, v)) for v in variants]
    means = [math.nan if r is None else 100 * r["mean"] for r in rs]
    errs = [0.0 if r is None or report.missing(r["ci_half_width"])
            else 100 * r["ci_half_width"] for r in rs]
    ax.barh(ypos, means, xerr=errs, color=[colors[i % 10] for i in ypos],
            capsize=3, height=0.7, error_kw={"elinewidth": 1})
    finite = [m - e for m, e in zip(means, errs) if not math.isnan(m)]
    lo = max(0.0, math.floor((min(finite) if finite else 0.0) - 4))
    ax.set_xlim(lo, 100)
    ax.set_title(dataset, fontsize=10)
    ax.set_xlabel("CV accuracy (%)", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(axis="x", alpha=0.3)
    for y_, m in zip(ypos, means):
        if not math.isnan(m):
            ax.text(lo + 0.3, y_, f"{m:.1f}", va="center", ha="left",
                    fontsize=7, color="white", fontweight="bold")
    ax.set_yticks(ypos)
    ax.set_yticklabels(variants, fontsize=8)


def plot_results(records, path, title="", confidence=0.95):
    """Bar chart of CV accuracy with T-interval error bars, a panel per
    data set. Returns the path written."""
    summary = summary_rows(records, confidence)
    datasets, variants, by = _grid(summary)
    n = len(datasets)
    ncols = min(n, 2)
    nrows = -(-n // ncols)
    height = 0.9 + 0.3 * len(variants)
    fig, axes = report.figure(nrows, ncols, 4.6 * ncols + 1.6,
                              height * nrows + 0.6, sharey=True)
    for ax in axes[n:]:
        ax.set_visible(False)
    for ax, d in zip(axes, datasets):
        _bar_panel(ax, d, variants, by)
    axes[0].invert_yaxis()
    k = summary[0]["n_splits"] if summary else 0
    fig.suptitle(f"{title}: {k}-fold CV, bars = {100 * confidence:g}% "
                 "T-interval (Khardon & Wachman 2007, fn. 5)", fontsize=10)
    return report.save(fig, path)
