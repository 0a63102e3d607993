"""Beyond the paper: self-tuned ALMA_2 and PA-I beside K&W's Table 6.

Khardon & Wachman (2007) did not run this. They measure what choosing the
perceptron's parameters by double cross-validation costs ("time intensive",
Sec. 4), name the self-tuning of ALMA (Gentile, 2001) "promising as an
effective solution" to that cost, and list the Passive-Aggressive algorithm
(Crammer et al.) among the margin-based variants their study leaves out.
This module asks their question on their data: does self-tuning remove the
parameter search's cost at equal accuracy?

On every UCI set of Table 6 (:func:`beyond_sets`), two studies beside the
perceptron's, on the *same* folds (``Study(folds_of=<the Table 6
study>)``: the same outer folds, the same inner folds of each, the same
seeds' source):

* **ALMA_2** (:class:`~perceptrons.ALMA`, p = 2) with its defaults
  (α = 0.9, B = 1/α, C = √2, the averaged hypothesis, a bias coordinate):
  one setting, no inner folds, one fit per outer fold.
* **PA-I** (:class:`~perceptrons.PassiveAggressive`, ``variant="PA-I"``,
  its defaults otherwise: averaged hypothesis, bias), C chosen from
  :data:`PA_C_GRID` by the same inner cross-validation as Table 6's
  columns (ties to the smaller C).

Readings: both run the protocol's number of passes (``Config.max_iter``, K&W
Sec. 3.2: 100), each pass in a new random order, as every Table 6 cell does:
the number of passes is the protocol's, not a parameter ALMA tunes (its own
default is 10). Their own prediction (the averaged hypothesis) is scored;
the perceptron rows beside them are Table 6's Nothing and τ columns (last
and voted; τ is the variant K&W recommend). The cost of a row is measured
from its records: the fits (``n_fits``) and task seconds of the tasks its
double CV needs, i.e. on each outer fold the inner tasks of every cell of
its column plus the outer task of the chosen cell (our pool also fits the
other cells on the outer folds, for the parameter search of Table 3; those
are not counted).

The tasks are new records (new study names, ``<set> (ALMA_2)`` and
``<set> (PA-I)``); no key of the paper's tasks changes. The section renders
only when these records exist. ``Config(only_beyond=True)`` (see
:data:`BEYOND`) runs only these studies and Table 6's Nothing and τ
columns (the same tasks, the same keys as in the full run) and writes
``khardon_wachman_beyond.md``.
"""

import math

import numpy as np

from .. import report
from .._grid import Column
from ..evaluation import t_confidence_interval
from ..model_selection import Study
from ..store import canonical_json
from .paper import PAPER_TABLE6, TAU_GRID, _HYP_LABEL

__all__ = ["PA_C_GRID", "TITLE", "alma_name", "beyond_section",
           "beyond_sets", "beyond_studies", "pa_name"]

#: PA-I's aggressiveness C, chosen by the inner cross-validation. The grid
#: reaches down to 10⁻⁴: with 0.01 as its lowest value (the first run), the
#: inner CV chose that edge on 46 of the 70 outer folds.
PA_C_GRID = (1e-4, 1e-3, 0.01, 0.1, 1.0, 10.0)

TITLE = ("Beyond the paper: self-tuned ALMA_2 and PA-I beside the "
         "perceptron variants")


def alma_name(name):
    return f"{name} (ALMA_2)"


def pa_name(name):
    return f"{name} (PA-I)"


def beyond_sets(config):
    """The UCI sets of the run that have a row in K&W's Table 6."""
    if not config.beyond:
        return ()
    return tuple(n for n in config.uci if (n, "last") in PAPER_TABLE6)


def beyond_studies(name, X, y, config, experiment):
    """ALMA_2 (one setting) and PA-I (C by inner CV) on the folds of the
    Table 6 study ``name``."""
    from ...models import ALMA, PassiveAggressive

    alma = ALMA(p=2, max_iter=config.max_iter)
    pa = PassiveAggressive(variant="PA-I", max_iter=config.max_iter)
    return [Study(alma_name(name), alma, [Column("ALMA_2", ({},))], X, y,
                  outer=config.outer, inner=0, hypotheses=None,
                  experiment=experiment, folds_of=name),
            Study(pa_name(name), pa, [Column("PA-I", ({"C": PA_C_GRID},))],
                  X, y, outer=config.outer, inner=config.inner,
                  hypotheses=None, experiment=experiment, folds_of=name)]


# ------------------------------------------------------------------ cost
def _by_split_cell(records):
    return {(r["task"]["fold"], canonical_json(r["task"]["params"]["cell"])):
            r for r in records if r["status"] == "ok"}


def _inner_records(table, oid, cell_keys):
    """The records of outer fold ``oid``'s inner splits whose cell (its
    canonical JSON) is one of ``cell_keys``."""
    return [r for (split, key), r in table.items()
            if split.startswith(oid + "/") and key in cell_keys]


def _cost(records, column_cells, chosen, outer_ids):
    """(fits per outer fold, total task seconds) of a row's double CV: the
    inner tasks of the column's cells and the outer task of the chosen
    cell, on every outer fold."""
    table = _by_split_cell(records)
    wanted = {canonical_json(c) for c in column_cells}
    fits, seconds = 0, 0.0
    for oid, cell in zip(outer_ids, chosen):
        for r in _inner_records(table, oid, wanted):
            fits += r["result"].get("n_fits", 1)
            seconds += r["seconds"]
        r = table.get((oid, canonical_json(cell)))
        if r is not None:
            fits += r["result"].get("n_fits", 1)
            seconds += r["seconds"]
    return fits / max(len(outer_ids), 1), seconds


def _outer_ids(study):
    return [s for s in study.splits() if "/" not in s]


def _rows(name, studies, results, records):
    """One data set's rows: dicts with label, search, mean, half, paper,
    fits, seconds, chosen."""
    rows = []
    perc = studies[name]
    res = results[name]
    outer = _outer_ids(perc)
    cols = {c.name: c for c in perc.columns}
    taus = ", ".join(f"{t:g}" for t in TAU_GRID)
    for col, search in (("Nothing", "none"),
                        ("τ", f"τ ∈ {{{taus}}} by inner CV")):
        for h in ("last", "voted"):
            sel = res.selections[(col, h)]
            fits, secs = _cost(records[name], cols[col].cells()
                               if col != "Nothing" and perc.inner else [],
                               sel["chosen"], outer)
            paper = PAPER_TABLE6.get((name, h), {}).get(col)
            rows.append({"algorithm": f"Perceptron, {col}",
                         "hypothesis": _HYP_LABEL[h], "search": search,
                         "mean": sel["mean"], "half": sel["ci_half_width"],
                         "paper": paper, "fits": fits, "seconds": secs,
                         "chosen": _chosen(sel["chosen"], "tau")
                         if col != "Nothing" else ""})
    a = alma_name(name)
    sr = results[a]
    scores = [sr.cv_results_[f"split{i}_test_own"][0]
              for i in range(len(_outer_ids(studies[a])))]
    mean, half = t_confidence_interval(scores) if not any(
        map(math.isnan, scores)) else (math.nan, math.nan)
    fits, secs = _cost(records[a], [], [{}] * len(scores),
                       _outer_ids(studies[a]))
    rows.append({"algorithm": "ALMA_2 (α = 0.9, B = 1/α, C = √2)",
                 "hypothesis": "Averaged", "search": "none (self-tuned)",
                 "mean": mean, "half": half, "paper": None, "fits": fits,
                 "seconds": secs, "chosen": ""})
    p = pa_name(name)
    sel = results[p].selections[("PA-I", "own")]
    fits, secs = _cost(records[p], studies[p].columns[0].cells()
                       if studies[p].inner else [], sel["chosen"],
                       _outer_ids(studies[p]))
    rows.append({"algorithm": "PA-I",
                 "hypothesis": "Averaged",
                 "search": f"C ∈ {{{', '.join(f'{c:g}' for c in PA_C_GRID)}}}"
                           " by inner CV",
                 "mean": sel["mean"], "half": sel["ci_half_width"],
                 "paper": None, "fits": fits, "seconds": secs,
                 "chosen": _chosen(sel["chosen"], "C"),
                 "cells": sel["chosen"],
                 "edge_ties": _edge_ties(records[p], sel["chosen"],
                                         _outer_ids(studies[p]))})
    return rows


def _edge_ties(records, chosen, outer_ids):
    """Outer folds whose inner CV chose the grid's smallest C while the next
    C scored the same inner accuracy: a tie, which goes to the smaller C."""
    low, next_low = sorted(PA_C_GRID)[:2]
    table = _by_split_cell(records)

    def inner_mean(oid, c):
        cells = {canonical_json({"C": c})}
        return np.mean([r["result"]["accuracy"]["own"]
                        for r in _inner_records(table, oid, cells)])

    return sum(1 for oid, cell in zip(outer_ids, chosen)
               if cell and cell["C"] == low
               and inner_mean(oid, low) == inner_mean(oid, next_low))


def _chosen(cells, key):
    """"value×count" of the cells an inner CV picked, e.g. "0.1×7, 1×3"."""
    vals = [c.get(key) if c else None for c in cells]
    counts = {}
    for v in vals:
        counts[v] = counts.get(v, 0) + 1
    return ", ".join(f"{'–' if v is None else f'{v:g}'}×{k}"
                     for v, k in sorted(counts.items(),
                                        key=lambda vk: (vk[0] is None,
                                                        vk[0] or 0)))


def _fmt(x, d=1):
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) \
        else f"{x:.{d}f}"


def has_records(config, results):
    """Whether every beyond-the-paper study of the run has results."""
    names = beyond_sets(config)
    return bool(names) and all(alma_name(n) in results and pa_name(n) in
                               results for n in names)


def beyond_section(config, studies, results, records):
    """The section's Markdown lines, and its rows (for the CSV).

    Parameters
    ----------
    config : Config
    studies : dict
        Study name to :class:`~..model_selection.Study`.
    results : dict
        Study name to its search or double-CV result.
    records : dict
        Study name to its records.
    """
    body, flat, verdicts = [], [], []
    names = beyond_sets(config)
    for name in names:
        rows = _rows(name, studies, results, records)
        for i, r in enumerate(rows):
            ours = (f"{_fmt(100 * r['mean'])} ± {_fmt(100 * r['half'])}")
            paper = ("" if r["paper"] is None
                     else f"{r['paper'][0]:g} ± {r['paper'][1]:g}")
            body.append([name if i == 0 else "", r["algorithm"],
                         r["hypothesis"], r["search"], ours, paper,
                         r["chosen"], f"{r['fits']:g}",
                         f"{r['seconds']:.2f}"])
            flat.append({"dataset": name, **{k: r[k] for k in (
                "algorithm", "hypothesis", "search", "mean", "half",
                "fits", "seconds", "chosen")}})
        verdicts.append(_verdict(rows))
    lines = [
        f"## {TITLE}", "",
        "**Not in the paper.** Khardon & Wachman did not run ALMA or "
        "Passive-Aggressive. They measure what choosing the perceptron's "
        "parameters by double cross-validation costs, and name the "
        "self-tuning of ALMA (Gentile, 2001) \"promising as an effective "
        "solution\" to it (Sec. 4); they list the Passive-Aggressive "
        "algorithm (Crammer et al.) among the margin-based variants they "
        "leave out. This section asks their question on their data: does "
        "self-tuning remove the parameter search's cost at equal accuracy?",
        "",
        f"Same double cross-validation as Table 6's rows: the same "
        f"{config.outer} outer folds and the {config.inner} inner folds of "
        f"each, {config.max_iter} passes in a new random order each. "
        "ALMA_2: p = 2 with its defaults (α = 0.9, B = 1/α, C = √2, bias "
        "coordinate), one setting, no search: one fit per outer fold. PA-I "
        "(Crammer et al. 2006, with a bias): C chosen by the inner "
        "cross-validation, as Table 6 chooses τ. Both score their averaged "
        "hypothesis (the package's default). Accuracy in % (test error = "
        "100 − accuracy) ± the 95 % T-interval of footnote 5, as Table 6; "
        "*paper* is K&W's Table 6 cell. *Fits* per outer fold and *time* "
        "(task seconds over all outer folds, one core each) count what the "
        "row's double CV needs: every inner fit of its column plus the "
        "chosen cell's fit on the outer training fold (one perceptron run "
        "gives the last and the voted hypothesis, so their costs are the "
        "same runs). *Chosen*: the value the inner CV picked, × outer "
        "folds.", "",
        *report.table(["data set", "algorithm", "hypothesis",
                       "parameter search", "accuracy % ± T", "paper",
                       "chosen", "fits / outer fold", "time (s)"], body,
                      "llllrrlrr"), "",
        *_answer(verdicts), ""]
    return lines, flat


def _verdict(rows):
    """The best perceptron row with τ search and the best without, against
    ALMA_2 and PA-I."""
    tau = max((r for r in rows if r["algorithm"] == "Perceptron, τ"),
              key=lambda r: r["mean"])
    alma = next(r for r in rows if r["algorithm"].startswith("ALMA"))
    pa = next(r for r in rows if r["algorithm"] == "PA-I")
    voted = next(r for r in rows if r["algorithm"] == "Perceptron, Nothing"
                 and r["hypothesis"] == "Voted")
    return {"tau": tau, "alma": alma, "pa": pa, "voted": voted}


def _compare(v, key, ref="tau"):
    ref, new = v[ref], v[key]
    tol = max(ref["half"], new["half"])
    diff = new["mean"] - ref["mean"]
    return ("equal" if abs(diff) <= tol else
            "ahead" if diff > 0 else "behind"), diff


def _answer(verdicts):
    if not verdicts:
        return []
    out = ["**Answer on these sets.** Against the better of the "
           "perceptron's τ rows (last or voted, τ by inner CV), "
           "\"equal\" meaning within the larger of the two T-intervals:"]
    for key, label in (("alma", "ALMA_2 (no search)"),
                       ("pa", "PA-I (C searched)")):
        cmp = [_compare(v, key) for v in verdicts]
        n = len(cmp)
        eq = sum(c == "equal" for c, _ in cmp)
        ahead = sum(c == "ahead" for c, _ in cmp)
        behind = sum(c == "behind" for c, _ in cmp)
        diffs = [100 * d for _, d in cmp]
        fit_ratio = np.mean([v[key]["fits"] / v["tau"]["fits"]
                             for v in verdicts])
        t_new = sum(v[key]["seconds"] for v in verdicts)
        t_tau = sum(v["tau"]["seconds"] for v in verdicts)
        fits = np.mean([v[key]["fits"] for v in verdicts])
        out.append(
            f"- **{label}**: equal on {eq} of {n} sets, ahead on {ahead}, "
            f"behind on {behind} (accuracy difference from "
            f"{min(diffs):+.1f} to {max(diffs):+.1f} points); "
            f"{fits:g} fit{'' if fits == 1 else 's'} per outer fold against "
            f"the τ search's "
            f"{np.mean([v['tau']['fits'] for v in verdicts]):g} "
            f"({fit_ratio:.3f} of them), {t_new:.2f} s of task time against "
            f"{t_tau:.2f} s over the {n} set{'' if n == 1 else 's'}.")
    vs_voted = [_compare(v, "alma", "voted")[0] for v in verdicts]
    out.append(
        f"- **ALMA_2 against the voted perceptron with no variant** (K&W's "
        f"other choice free of search, also one fit per outer fold): equal "
        f"on {vs_voted.count('equal')}, ahead on {vs_voted.count('ahead')}, "
        f"behind on {vs_voted.count('behind')} of {len(vs_voted)}.")
    alma = [_compare(v, "alma")[0] for v in verdicts]
    worse = sum(c == "behind" for c in alma)
    better = sum(c == "ahead" for c in alma)
    out.append(
        "- So on these sets self-tuning removes the search's cost (one fit "
        "per outer fold instead of an inner cross-validation over a grid) "
        + ("at equal accuracy on every set" if not worse and not better
           else f"at equal or better accuracy on every set ({better} "
           f"better)" if not worse else
           f"at equal or better accuracy on {len(alma) - worse} of "
           f"{len(alma)} sets and at a loss on {worse}") + ".")
    cells = [c for v in verdicts for c in v["pa"]["cells"] if c]
    if cells:
        low = sum(c["C"] == min(PA_C_GRID) for c in cells)
        high = sum(c["C"] == max(PA_C_GRID) for c in cells)
        ties = sum(v["pa"]["edge_ties"] for v in verdicts)
        edge = ""
        if low:
            edge = (f": on {ties} of those {low} the next C "
                    f"({sorted(PA_C_GRID)[1]:g}) scored the same inner "
                    "accuracy, a tie that goes to the smaller C")
            edge += ("; so the lower edge does not bind." if ties == low else
                     f"; on the other {low - ties} the lower edge binds, "
                     "so a smaller C might do better still (not run).")
        out.append(
            f"- PA-I's inner CV picked the grid's smallest C "
            f"({min(PA_C_GRID):g}) on {low} and its largest "
            f"({max(PA_C_GRID):g}) on {high} of the {len(cells)} outer "
            f"folds{edge or '.'}")
    out.append(
        "- Times are task seconds on a shared 2-core machine; the first "
        "task of each algorithm in a worker includes loading its compiled "
        "loops, which dominates the time of a row of few fits (Nothing's).")
    return out
