"""The report layer: Markdown tables, CSV/JSON summaries and PNG figures.

Every function here takes records of :mod:`.store` (or rows made from them)
and never refits. A reproduction's report is a handful of short functions over
these: :func:`rows` flattens records, :func:`table` lays out a Markdown table,
:func:`pct` and :func:`num` format cells, :func:`footer` states versions, git
SHA and task time, :func:`figure` and :func:`save` draw on the Agg canvas
without touching pyplot, and :func:`write_text`, :func:`write_csv` and
:func:`write_json` write files atomically (a temporary file, renamed), so a
reader never sees half a report.
"""

import csv
import io
import json
import math
import os
from collections import Counter
from pathlib import Path

from ..utils.output import atomic_write

__all__ = ["META_COLUMNS", "figure", "footer", "missing", "num", "pct", "row",
           "rows", "save", "table", "write_csv", "write_json", "write_text"]

#: Metadata columns appended to every CSV row.
META_COLUMNS = ("perceptrons_version", "numba_version", "git_sha")


def row(record):
    """One flat dict of a record: task params, result, status and versions.

    The data set and fold come first, then ``params``, then ``result`` (which
    wins on a clash), then ``status``, ``seconds`` and :data:`META_COLUMNS`.
    """
    task, meta = record["task"], record["meta"]
    out = {"dataset": task["dataset"], "fold": task["fold"],
           **task["params"], **record["result"], "status": record["status"]}
    out.setdefault("seconds", record["seconds"])
    out.update({k: meta.get(k) for k in META_COLUMNS})
    return out


def rows(records, **where):
    """:func:`row` of each record whose params match every ``where`` item."""
    out = [row(r) for r in records]
    return [r for r in out if all(r.get(k) == v for k, v in where.items())]


def missing(x):
    """True for None and NaN."""
    return x is None or (isinstance(x, float) and math.isnan(x))


def pct(x, digits=1):
    """``100 x`` with ``digits`` decimals; "–" when missing."""
    return "–" if missing(x) else f"{100 * x:.{digits}f}"


def num(x, fmt):
    """``format(x, fmt)``; "–" when missing."""
    return "–" if missing(x) else format(x, fmt)


def table(header, body, align=None):
    """A Markdown table.

    Parameters
    ----------
    header : list of str
    body : iterable of list
        Cells, formatted already.
    align : str, default=None
        One character per column, ``"l"``, ``"r"`` or ``"c"``; default: the
        first column left, the others right.

    Returns
    -------
    list of str
        The lines.
    """
    align = align or "l" + "r" * (len(header) - 1)
    rule = {"l": "---", "r": "---:", "c": ":---:"}
    return (["| " + " | ".join(header) + " |",
             "|" + "|".join(rule[a] for a in align) + "|"]
            + ["| " + " | ".join(str(c) for c in cells) + " |"
               for cells in body])


def footer(records, *extra):
    """Versions, git SHA and the tasks' total time, from the records' meta.

    ``extra`` strings are appended, separated by semicolons.
    """
    meta = records[0]["meta"] if records else {}
    seconds = sum(r["seconds"] for r in records)
    parts = [f"perceptrons {meta.get('perceptrons_version')}, numba "
             f"{meta.get('numba_version')}, numpy {meta.get('numpy_version')}"
             f", git {_revisions(records)}",
             f"{len(records)} records, {seconds:.1f} s of task time", *extra]
    return "; ".join(parts) + "."


def _revisions(records):
    """The git revision the records were made at, or, when a resumed run
    mixes several, each with its count of records (most first)."""
    def name(sha, dirty, count=None):
        notes = (["dirty"] if dirty else []) + (
            [f"{count} records"] if count is not None else [])
        return (sha or "n/a")[:10] + (f" ({', '.join(notes)})" if notes
                                      else "")

    counts = Counter((r["meta"].get("git_sha"),
                      bool(r["meta"].get("git_dirty"))) for r in records)
    if len(counts) <= 1:
        return name(*next(iter(counts), (None, False)))
    return ", ".join(name(sha, dirty, count)
                     for (sha, dirty), count in counts.most_common())


def write_text(path, text):
    """Write ``text`` to ``path`` atomically (a temporary file, renamed)."""
    path = Path(os.fspath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path, what="report file") as fh:
        fh.write(text)
    return path


def write_csv(path, flat_rows, fields):
    """Write ``flat_rows`` as CSV with columns ``fields`` (+ metadata).

    Dict and list cells are written as JSON; None as an empty cell.
    """
    fields = [*fields, *(c for c in META_COLUMNS if c not in fields)]
    buf = io.StringIO(newline="")
    writer = csv.DictWriter(buf, fieldnames=fields, extrasaction="ignore")
    writer.writeheader()
    for r in flat_rows:
        writer.writerow({k: _cell(r.get(k)) for k in fields})
    return write_text(path, buf.getvalue())


def _cell(x):
    if x is None:
        return ""
    if isinstance(x, (dict, list)):
        return json.dumps(x, sort_keys=True, ensure_ascii=False)
    return x


def write_json(path, obj):
    """Write ``obj`` as indented, standard JSON (no NaN)."""
    from .store import json_ready

    return write_text(path, json.dumps(json_ready(obj), indent=1,
                                       ensure_ascii=False) + "\n")


def figure(nrows, ncols, width, height, **subplots):
    """A bare Agg figure and its axes, flattened (pyplot untouched)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, **subplots).ravel()
    return fig, axes


def save(fig, path):
    """Tight layout, then a 110-dpi PNG at ``path``; returns the path."""
    fig.tight_layout()
    path = Path(os.fspath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path, "wb", what="figure") as fh:
        fig.savefig(fh, format="png", dpi=110)
    return path
