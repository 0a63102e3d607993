"""The results of parameter search and double cross-validation.

:func:`search_result` and :func:`double_cv_result` turn the records of a
:class:`~.model_selection.Study` into a :class:`SearchResult` (every cell's
accuracy on the outer splits) and a :class:`DoubleCVResult` (the cell an
inner cross-validation picks per outer split, and its outer score). They
read the records and the study's splits only; nothing here fits.
"""

import math
from dataclasses import dataclass

import numpy as np

from .evaluation import t_confidence_interval
from ._grid import _product
from .store import canonical_json

__all__ = ["DoubleCVResult", "SearchResult", "double_cv_result",
           "search_result"]


def _accuracy_table(records):
    """{(split, cell json): {hypothesis: accuracy}} of the ok records."""
    table = {}
    for r in records:
        if r["status"] == "ok":
            table[(r["task"]["fold"], canonical_json(
                r["task"]["params"]["cell"]))] = r["result"]["accuracy"]
    return table


def _outer_ids(splits):
    return [s for s in splits if "/" not in s]


@dataclass
class SearchResult:
    """Parameter search: every cell's test accuracy on the outer splits.

    Attributes
    ----------
    cv_results_ : dict
        As :class:`~sklearn.model_selection.GridSearchCV`'s: ``params``,
        ``param_<name>``, and per hypothesis h ``split<i>_test_<h>``,
        ``mean_test_<h>``, ``std_test_<h>``, ``rank_test_<h>``; plus
        ``mean_fit_time``.
    columns : list of Column
    hypotheses : tuple of str
    """

    cv_results_: dict
    columns: list
    hypotheses: tuple

    def best(self, column, hypothesis):
        """The best mean accuracy over a column's cells, and its cell.

        Returns
        -------
        score : float
        params : dict
        """
        col = next(c for c in self.columns if c.name == column)
        wanted = {canonical_json(c) for c in col.cells()}
        res = self.cv_results_
        idx = [i for i, p in enumerate(res["params"])
               if canonical_json(p) in wanted]
        means = res[f"mean_test_{hypothesis}"][idx]
        if np.all(np.isnan(means)):
            return math.nan, None
        j = idx[int(np.nanargmax(means))]
        return float(res[f"mean_test_{hypothesis}"][j]), res["params"][j]


def search_result(study, records):
    """The :class:`SearchResult` of a study's records (outer splits)."""
    table = _accuracy_table(records)
    outer = _outer_ids(study.splits())
    cells = study.cells()
    hyps = tuple(study.hypotheses or ("own",))
    res = {"params": cells}
    for name in sorted({k for c in cells for k in c}):
        res[f"param_{name}"] = np.array([c.get(name) for c in cells],
                                        dtype=object)
    seconds = {}
    for r in records:
        if r["task"]["fold"] in outer:
            seconds.setdefault(canonical_json(r["task"]["params"]["cell"]),
                               []).append(r["seconds"])
    res["mean_fit_time"] = np.array([np.mean(seconds.get(
        canonical_json(c), [math.nan])) for c in cells])
    for h in hyps:
        scores = np.array([[table.get((s, canonical_json(c)), {}).get(
            h, math.nan) for s in outer] for c in cells])
        for i in range(len(outer)):
            res[f"split{i}_test_{h}"] = scores[:, i]
        mean = scores.mean(axis=1)
        res[f"mean_test_{h}"] = mean
        res[f"std_test_{h}"] = scores.std(axis=1)
        order = np.argsort(-np.nan_to_num(mean, nan=-np.inf), kind="stable")
        rank = np.empty(len(cells), dtype=np.int64)
        rank[order] = np.arange(1, len(cells) + 1)
        res[f"rank_test_{h}"] = rank
    return SearchResult(res, study.columns, hyps)


@dataclass
class DoubleCVResult:
    """Parameter optimisation by double cross-validation.

    Attributes
    ----------
    selections : dict
        ``(column, hypothesis)`` to a dict with ``scores`` (outer test
        accuracy per outer split), ``chosen`` (the cell picked on each),
        ``mean``, ``ci_half_width`` (95 % T-interval, K&W footnote 5; NaN
        for one split), ``ci_low``, ``ci_high``.
    search : SearchResult
        The parameter search over the same outer splits.
    """

    selections: dict
    search: SearchResult

    @property
    def cv_results_(self):
        """Flat records, one per (column, hypothesis)."""
        return [{"column": c, "hypothesis": h, **v}
                for (c, h), v in self.selections.items()]


def _select(column, table, oid, inner_ids, h):
    """The cell an inner cross-validation picks for one column."""
    best = None
    for stage in column.stages:
        base = best or {}
        candidates = [{**base, **c} for c in _product(stage)]
        scored = []
        for c in candidates:
            key = canonical_json(c)
            vals = [table.get((i, key), {}).get(h, math.nan)
                    for i in inner_ids]
            scored.append(math.nan if any(map(math.isnan, vals))
                          else float(np.mean(vals)))
        if all(math.isnan(s) for s in scored):
            return None
        # ties: the first, i.e. the weaker value in K&W's order
        best = candidates[int(np.nanargmax(scored))]
    return best


def double_cv_result(study, records, confidence=0.95):
    """The :class:`DoubleCVResult` of a study's records."""
    table = _accuracy_table(records)
    splits = study.splits()
    outer = _outer_ids(splits)
    hyps = tuple(study.hypotheses or ("own",))
    selections = {}
    for column in study.columns:
        for h in hyps:
            scores, chosen = [], []
            for oid in outer:
                inner_ids = [s for s in splits if s.startswith(oid + "/")]
                cell = _select(column, table, oid, inner_ids, h)
                chosen.append(cell)
                scores.append(math.nan if cell is None else table.get(
                    (oid, canonical_json(cell)), {}).get(h, math.nan))
            if any(math.isnan(s) for s in scores):
                mean, half = math.nan, math.nan
            else:
                mean, half = t_confidence_interval(scores, confidence)
            selections[(column.name, h)] = {
                "scores": scores, "chosen": chosen, "mean": mean,
                "ci_half_width": half, "ci_low": mean - half,
                "ci_high": mean + half}
    return DoubleCVResult(selections, search_result(study, records))

