"""Khardon & Wachman (2007): the report's tables, from the search results.

Each ``_table<n>`` lays out one of the paper's tables beside ours and counts
the cells that agree by the criterion of :mod:`.` (the package docstring);
a disagreeing cell is kept for the report's disagreement section.
"""

import math

import numpy as np

from .. import report
from ..evaluation import t_confidence_interval
from ..hypotheses import HYPOTHESES
from ..store import canonical_json
from .paper import (INACTIVE, NOISE, OPT_COLS, PAPER_HYPS, PAPER_TABLE2,
                    PAPER_TABLE3, PAPER_TABLE4, PAPER_TABLE5, PAPER_TABLE6,
                    PAPER_TABLE6_SVM, PAPER_TABLE7, SEARCH_COLS, T7_COLS,
                    TABLE2_COLS, TAU_GRID, _HYP_LABEL, paper_columns)
from .studies import (SVM_COLUMNS, _art_name, _kernel_name, _svm_name,
                      _table3_source, _table5_name)


# ------------------------------------------------------------------ views
def _search(res):
    return res.search if hasattr(res, "search") else res


def _search_cells(config, results):
    """{(dataset, hyp): {column: ours %}} for Tables 3 and 4."""
    out = {}
    for name, res in results.items():
        sr = _search(res)
        # The search columns over the parameters this study has (MNIST and
        # Adult: no α), so that their cells match the study's.
        params = tuple(p for p in INACTIVE if any(
            p in cell for cell in sr.cv_results_["params"]))
        cols = paper_columns("search", params) if params else []
        for h in sr.hypotheses:
            for c in cols:
                if any(c.name == sc.name for sc in sr.columns) or \
                        name in config.uci:
                    score = _best(sr, c, h)
                    out.setdefault((name, h), {})[c.name] = score
    return out


def _best(sr, column, h):
    """Best mean over the cells of ``column`` present in ``sr``."""
    wanted = {canonical_json(c) for c in column.cells()}
    res = sr.cv_results_
    vals = [res[f"mean_test_{h}"][i] for i, p in enumerate(res["params"])
            if canonical_json(p) in wanted]
    return 100 * max(vals) if vals else math.nan


def _fmt(x, d=1):
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) \
        else f"{x:.{d}f}"


def _within_2(ours, paper, points=2.0):
    """The cell "ours / paper's" and whether they are within ``points``
    (None when the paper has no value)."""
    if paper is None:
        return _fmt(ours), None
    ok = abs(ours - paper) <= points
    return f"{_fmt(ours)} / {paper:g}{'' if ok else ' ✗'}", ok


def _miss(misses, table, where, ours, paper, ok):
    """Keep a disagreeing cell for the report's disagreement section."""
    if ok is not None and not ok:  # numpy's False is not `False`
        misses.append((table, where, float(ours), paper))


def _table3(config, cells, misses):
    lines, agree, total, diffs = [], 0, 0, []
    rows = [(n, n) for n in config.uci] + [
        (n, _table3_source(n, config)) for n in config.table3_extra]
    for name, source in rows:
        for h in HYPOTHESES:
            ours = cells.get((source, h), {})
            paper = PAPER_TABLE3.get((name, h), {})
            row = [name if h == "last" else "", _HYP_LABEL[h]]
            for c in SEARCH_COLS:
                o, p = ours.get(c, math.nan), paper.get(c)
                cell, ok = _within_2(o, p)
                row.append(cell)
                if ok is not None:
                    agree, total = agree + ok, total + 1
                    diffs.append(o - p)
                _miss(misses, "Table 3", (name, h, c), o, p, ok)
            lines.append(row)
    head = ["data set", "hypothesis", *SEARCH_COLS]
    return report.table(head, lines, "ll" + "r" * len(SEARCH_COLS)), \
        agree, total, diffs


def _svm_cell(res, column):
    """(mean, T-interval half-width) in % of a column's best cell over the
    outer folds (parameter search, as K&W report SVMs), and its params."""
    best, params = res.best(column, "own")
    if params is None:
        return math.nan, math.nan, None
    cv = res.cv_results_
    j = [canonical_json(p) for p in cv["params"]].index(canonical_json(params))
    folds = [cv[k][j] for k in sorted(cv) if k.startswith("split")
             and k.endswith("_test_own")]
    mean, half = t_confidence_interval(folds)
    return 100 * mean, 100 * half, params


def _table6(config, results, misses):
    lines, agree, total = [], 0, 0
    names = [*config.uci, *(_art_name(*a) for a in config.table6_artificial)]
    svm_cols = [c.name for c in SVM_COLUMNS] if config.svm else []
    for name in names:
        res = results.get(name)
        if res is None or not hasattr(res, "selections"):
            continue
        paper_name = name.rsplit("-", 1)[0] if name.endswith("-1") else name
        svm = results.get(_svm_name(name))
        for h in HYPOTHESES:
            row = [name if h == "last" else "", _HYP_LABEL[h]]
            paper = PAPER_TABLE6.get((paper_name, h), {})
            cells = [(c, *(100 * res.selections[(c, h)][k]
                           for k in ("mean", "ci_half_width")))
                     for c in OPT_COLS]
            # K&W print the SVM columns once per data set, on its middle row.
            if h == "longest" and svm is not None:
                cells += [(c, *_svm_cell(svm, c)[:2]) for c in svm_cols]
                paper = {**paper, **PAPER_TABLE6_SVM.get(paper_name, {})}
            else:
                cells += [(c, None, None) for c in svm_cols]
            for c, m, w in cells:
                if m is None:
                    row.append("")
                    continue
                cell = f"{_fmt(m)} ± {_fmt(w)}"
                if c in paper and not math.isnan(m):
                    pm, pw = paper[c]
                    ok = abs(pm - m) <= w or abs(pm - m) <= pw
                    agree += ok
                    total += 1
                    cell += f" / {pm:g} ± {pw:g}{'' if ok else ' ✗'}"
                    _miss(misses, "Table 6", (name, h, c), m, pm, ok)
                row.append(cell)
            lines.append(row)
    head = ["data set", "hypothesis", *OPT_COLS, *svm_cols]
    return report.table(head, lines, "ll" + "r" * (len(OPT_COLS)
                                                   + len(svm_cols))), \
        agree, total


def _table5(config, results, misses):
    """Rows (τ, hypothesis), columns training-set sizes."""
    lines, agree, total = [], 0, 0
    sizes = [n for n in config.table5 if _table5_name(n) in results]
    if not sizes:
        return [], 0, 0
    for tau in TAU_GRID:
        for h in HYPOTHESES:
            row = [f"{tau:g}" if h == "last" else "", _HYP_LABEL[h]]
            for n in sizes:
                res = results[_table5_name(n)]
                cv = res.cv_results_
                i = [c["tau"] for c in cv["params"]].index(tau)
                m, sd = (100 * cv[f"mean_test_{h}"][i],
                         100 * cv[f"std_test_{h}"][i])
                cell = f"{_fmt(m)} ± {_fmt(sd)}"
                paper = PAPER_TABLE5.get((tau, h), {}).get(n)
                if paper is not None:
                    ok = abs(paper[0] - m) <= max(sd, paper[1])
                    agree, total = agree + ok, total + 1
                    _miss(misses, "Table 5", (f"τ={tau:g}", h, f"n={n}"), m,
                          paper[0], ok)
                    cell += f" / {paper[0]:g} ± {paper[1]:g}" + \
                        ("" if ok else " ✗")
                row.append(cell)
            lines.append(row)
    head = ["τ", "hypothesis", *(f"{n:,} examples" for n in sizes)]
    return report.table(head, lines, "ll" + "r" * len(sizes)), agree, total


def _table7(config, results, misses):
    lines, agree, total = [], 0, 0
    names = [*config.table7, *map(_kernel_name, config.table7_kernel)]
    for name in names:
        res = results.get(name)
        if res is None:
            continue
        for h in HYPOTHESES:
            row = [name if h == "last" else "", _HYP_LABEL[h]]
            paper = PAPER_TABLE7.get((name, h), {})
            for c in T7_COLS:
                sel = res.selections.get((c, h))
                if sel is None:  # the kernel rows have τ alone
                    row.append("")
                    continue
                cell, ok = _within_2(100 * sel["mean"], paper.get(c),
                                     points=1.0)
                if ok is not None:
                    agree, total = agree + ok, total + 1
                _miss(misses, "Table 7", (name, h, c), 100 * sel["mean"],
                      paper.get(c), ok)
                active = [f"{_SYM.get(k, k)}={v:g}" for k, v in
                          (sel["chosen"][0] or {}).items()
                          if v != INACTIVE.get(k)]
                if active:
                    cell += f" ({', '.join(active)})"
                row.append(cell)
            lines.append(row)
    head = ["data set", "hypothesis", *T7_COLS]
    return report.table(head, lines, "ll" + "r" * len(T7_COLS)), agree, total


_SYM = {"tau": "τ", "lam": "λ", "alpha_bound": "α"}


def _table2(config, results):
    counts = {n: [0] * 7 for n in NOISE}
    sizes = {n: 0 for n in NOISE}
    for f, m, n, c in config.artificial:
        sr = _search(results[_art_name(f, m, n, c)])
        acc = {h: _best(sr, paper_columns("search")[0], h)
               for h in PAPER_HYPS}
        v, ls, cl = acc["voted"], acc["longest"], acc["last"]
        sizes[n] += 1
        for i, win in enumerate((v > cl, v > ls, ls > cl, ls > v, cl > ls,
                                 cl > v, v == ls == cl)):
            counts[n][i] += bool(win)
    lines = []
    for n in NOISE:
        if sizes[n]:
            lines.append([f"N = {n:g} ({sizes[n]} sets; paper 30)",
                          *(f"{o} / {p}" for o, p in
                            zip(counts[n], PAPER_TABLE2[n]))])
    return report.table(["noise", *TABLE2_COLS], lines), counts, sizes


def _table4(config, results, misses):
    lines, agree, total = [], 0, 0
    for n in NOISE:
        names = [_art_name(*a) for a in config.table4 if a[2] == n]
        if not names:
            continue
        for h in HYPOTHESES:
            row = [f"N = {n:g}" if h == "last" else "", _HYP_LABEL[h]]
            paper = PAPER_TABLE4.get((f"{n:g}", h), {})
            for col in paper_columns("search"):
                o = float(np.mean([_best(_search(results[x]), col, h)
                                   for x in names]))
                cell, ok = _within_2(o, paper.get(col.name))
                row.append(cell)
                if ok is not None:
                    agree, total = agree + ok, total + 1
                _miss(misses, "Table 4", (f"N={n:g}", h, col.name), o,
                      paper.get(col.name), ok)
            lines.append(row)
    return report.table(["noise", "hypothesis", *SEARCH_COLS], lines,
                        "ll" + "r" * 6), agree, total


