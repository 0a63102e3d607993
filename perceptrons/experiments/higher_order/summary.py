"""Brotto, Gentile & Vitale (NIPS 2007): every number of the report, from
the records alone (:func:`summarize`, what ``<stem>_results.json`` holds)."""

import math
from dataclasses import asdict

import numpy as np

from .estimators import _kernel_label, _spec_label
from .paper import (LYMPHOMA_POSITIVE, PAPER, PAPER_P, PAPER_TABLE1,
                    PAPER_TABLE2, PAPER_TABLE3, READINGS, SMOOTH_SIGMA,
                    TABLE3_ALGORITHMS)

__all__ = ["json_config", "summarize"]


def _records(records, kind):
    return [r for r in records if r["task"]["params"].get("kind") == kind]


def _mean(xs):
    xs = [x for x in xs if x is not None]
    return float(np.mean(xs)) if xs else None


def _figure2(records):
    """Curves averaged over seeds: (η, p, c) -> updates, test error."""
    groups = {}
    for r in _records(records, "artificial"):
        if r["status"] != "ok":
            continue
        p = r["task"]["params"]
        groups.setdefault((p["noise"], p["p"], p["c"]), []).append(r)
    curves = []
    for (noise, p, c), rs in sorted(groups.items()):
        upd = np.mean([r["result"]["updates"] for r in rs], axis=0)
        err = np.mean([r["result"]["test_error"] for r in rs], axis=0)
        mat = [r["result"]["matrix_updates"][-1] for r in rs]
        curves.append({"noise": noise, "p": p, "c": c, "n_seeds": len(rs),
                       "seeds": [r["task"]["params"]["seed"] for r in rs],
                       "updates": upd.tolist(), "test_error": err.tolist(),
                       "matrix_updates_final": _mean(mat)})
    return curves


def _figure2_verdicts(curves):
    """Per (η, p): is every c > 0 at or below c = 0 at every epoch?"""
    out = []
    for noise in sorted({c["noise"] for c in curves}):
        for p in sorted({c["p"] for c in curves if c["noise"] == noise}):
            row = {x["c"]: x for x in curves
                   if x["noise"] == noise and x["p"] == p}
            if 0.0 not in row:
                continue
            base = row[0.0]
            for c in sorted(k for k in row if k > 0):
                cur = row[c]
                err_le = [a <= b + 1e-12 for a, b in
                          zip(cur["test_error"], base["test_error"])]
                upd_le = [a <= b for a, b in
                          zip(cur["updates"], base["updates"])]
                out.append({
                    "noise": noise, "p": p, "c": c,
                    "epochs": len(err_le),
                    "test_le_epochs": int(sum(err_le)),
                    "updates_le_epochs": int(sum(upd_le)),
                    "final_test": cur["test_error"][-1],
                    "final_test_c0": base["test_error"][-1],
                    "final_updates": cur["updates"][-1],
                    "final_updates_c0": base["updates"][-1]})
    return out


def _alma(records, curves):
    """ALMA_p beside HO_p(c) on Figure 2's sets (not in the paper).

    Per (η, p): ALMA's curves averaged over the seeds (corrections,
    mistakes, test error after each epoch), with HO_p(0) and the HO_p(c)
    of lowest final test error (c > 0; ties to fewer updates) from
    Figure 2's curves of the same sets, when Figure 2 ran that p."""
    groups = {}
    for r in _records(records, "alma"):
        if r["status"] != "ok":
            continue
        p = r["task"]["params"]
        groups.setdefault((p["noise"], float(p["p"])), []).append(r)
    out = []
    for (noise, p), rs in sorted(groups.items()):
        ho = {c["c"]: c for c in curves
              if c["noise"] == noise and float(c["p"]) == p}
        pos = [c for k, c in ho.items() if k > 0]
        best = (min(pos, key=lambda c: (c["test_error"][-1],
                                        c["updates"][-1], c["c"]))
                if pos else None)

        def brief(c):
            return None if c is None else {
                "c": c["c"], "updates": c["updates"],
                "test_error": c["test_error"], "seeds": c["seeds"]}

        out.append({
            "noise": noise, "p": p, "n_seeds": len(rs),
            "seeds": [r["task"]["params"]["seed"] for r in rs],
            "settings": {k: rs[0]["task"]["params"][k] for k in (
                "alpha", "B", "C", "hypothesis", "fit_intercept")},
            "updates": np.mean([r["result"]["updates"] for r in rs],
                               axis=0).tolist(),
            "mistakes": np.mean([r["result"]["mistakes"] for r in rs],
                                axis=0).tolist(),
            "test_error": np.mean([r["result"]["test_error"] for r in rs],
                                  axis=0).tolist(),
            "train_error": _mean([r["result"]["train_error"] for r in rs]),
            "ho_c0": brief(ho.get(0.0)), "ho_best": brief(best)})
    return {"curves": out}


def _ocr_grid(records):
    """Per (data set, kernel setting, algorithm setting): CV and test."""
    groups = {}
    for r in _records(records, "ocr"):
        p = r["task"]["params"]
        key = (r["task"]["dataset"], p["kernel_name"],
               _kernel_label(p["kernel"]), _spec_label(p["spec"]))
        g = groups.setdefault(key, {"spec": p["spec"], "kernel": p["kernel"],
                                    "folds": [], "test": None,
                                    "errors": []})
        if r["status"] != "ok":
            g["errors"].append(r["result"].get("error"))
        elif r["task"]["fold"] is None:
            g["test"] = r["result"]
        else:
            g["folds"].append(r["result"])
    rows = []
    for (ds, kname, klabel, label), g in groups.items():
        test = g["test"] or {}
        rows.append({
            "dataset": ds, "kernel_name": kname, "kernel_setting": klabel,
            "kernel": g["kernel"], "setting": label,
            "algorithm": _column(g["spec"]), "spec": g["spec"],
            "n_folds_done": len(g["folds"]),
            "cv_error": _mean([f["error"] for f in g["folds"]]),
            "cv_corrections": _mean([f["corrections"] for f in g["folds"]]),
            "train_corrections": test.get("corrections"),
            "matrix_updates": test.get("matrix_updates"),
            "test_error": test.get("error"),
            "unit_margin_error": test.get("unit_margin_error"),
            "fit_seconds": test.get("fit_seconds"),
            "errors": g["errors"]})
    return rows


def _best_cells(rows, key):
    """Per Table 3 column, the grid row :func:`_pick` chooses by ``key``,
    as {"setting", "error", "train", "matrix_updates"}."""
    cells = {}
    for algo in TABLE3_ALGORITHMS:
        best = _pick([r for r in rows if r["algorithm"] == algo], key)
        if best is not None:
            cells[algo] = {"setting": f"{best['kernel_setting']}, "
                                      f"{best['setting']}",
                           "error": best[key],
                           "train": best["train_corrections"],
                           "matrix_updates": best["matrix_updates"]}
    return cells


def _readings_table(records, grid):
    """USPS under each reading: the best test setting per column.

    Rows: the reading of Table 3 (file order, raw margins, from ``grid``),
    the unit-norm OvR combination of the same fits, and each other-reading
    run (its records as rows of the grid's fields)."""
    out = []
    for kname in ("rbf", "poly"):
        rows = [r for r in grid if r["dataset"] == "USPS"
                and r["kernel_name"] == kname]
        if rows:
            out.append({"reading": "table3", "label": "file order, largest "
                        "raw margin (Table 3)", "kernel_name": kname,
                        "cells": _best_cells(rows, "test_error")})
            if any(r["unit_margin_error"] is not None for r in rows):
                out.append({"reading": "unit margins", "label": "file order, "
                            "largest margin / ‖w_j‖", "kernel_name": kname,
                            "cells": _best_cells(rows, "unit_margin_error")})
    groups = {}
    for r in _records(records, "reading"):
        if r["status"] != "ok":
            continue
        p, res = r["task"]["params"], r["result"]
        key = (p["reading"], p.get("shuffle_seed"), p["kernel_name"])
        groups.setdefault(key, []).append({
            "kernel_setting": _kernel_label(p["kernel"]),
            "setting": _spec_label(p["spec"]),
            "algorithm": _column(p["spec"]),
            "train_corrections": res["corrections"],
            "matrix_updates": res["matrix_updates"],
            "test_error": res["error"]})
    for (name, seed, kname), rows in groups.items():
        label = {"shuffled": f"random order (seed {seed})",
                 "smoothed": f"smoothed images (σ = {SMOOTH_SIGMA:g})",
                 "unnormalised": "kernel not normalised"}[name]
        out.append({"reading": name, "label": label, "kernel_name": kname,
                    "cells": _best_cells(rows, "test_error")})
    return out


def _column(spec):
    return {"FO": "FO", "HO": "HO2", "sparse HO": "sparse HO2",
            "SO": "SO"}[spec["algorithm"]]


def _pick(rows, key):
    ok = [r for r in rows if r[key] is not None]
    if not ok:
        return None
    return min(ok, key=lambda r: (r[key], r["train_corrections"]
                                  if r["train_corrections"] is not None
                                  else math.inf))


def _table3(grid):
    """Per (data set, kernel, algorithm): CV-chosen and best-test rows."""
    out = []
    keys = list(dict.fromkeys((r["dataset"], r["kernel_name"])
                              for r in grid))
    for ds, kname in keys:
        for algo in TABLE3_ALGORITHMS:
            rows = [r for r in grid if r["dataset"] == ds
                    and r["kernel_name"] == kname and r["algorithm"] == algo]
            if not rows:
                continue
            paper = PAPER_TABLE3.get((ds, kname), {}).get(algo)
            out.append({"dataset": ds, "kernel_name": kname,
                        "algorithm": algo, "cv_choice": _pick(rows,
                                                              "cv_error"),
                        "test_best": _pick(rows, "test_error"),
                        "n_settings": len(rows),
                        "paper": None if paper is None else {
                            "train": paper[0], "test_pct": paper[1],
                            "matrix_updates": paper[2]}})
    return out


def _table1(records):
    """Lymphoma: per setting, mean updates and test error over splits."""
    acc = {}
    n_splits = 0
    for r in _records(records, "lymphoma"):
        if r["status"] != "ok":
            continue
        n_splits += r["task"]["params"]["stop"] - r["task"]["params"]["first"]
        for label, cell in r["result"]["settings"].items():
            a = acc.setdefault(label, {"updates": [], "test_error": []})
            a["updates"] += cell["updates"]
            a["test_error"] += cell["test_error"]
    settings = {k: {"updates": float(np.mean(v["updates"])),
                    "test_error": float(np.mean(v["test_error"])),
                    "test_error_sd": float(np.std(v["test_error"])),
                    "n_splits": len(v["updates"])} for k, v in acc.items()}
    columns = {}
    if settings:
        for p in PAPER_P:
            ho = {k: v for k, v in settings.items()
                  if k.startswith(f"HO{p}(")}
            if not ho:
                continue
            pos = {k: v for k, v in ho.items() if not k.endswith("(0)")}
            if f"HO{p}(0)" in ho:
                columns[f"HO{p}(0)"] = {"setting": f"HO{p}(0)",
                                        **ho[f"HO{p}(0)"]}
            if pos:
                best = min(pos, key=lambda k: (pos[k]["test_error"],
                                               pos[k]["updates"]))
                by_train = min(pos, key=lambda k: (pos[k]["updates"],
                                                   pos[k]["test_error"]))
                columns[f"HO{p}"] = {"setting": best, **pos[best],
                                     "best_by_updates": by_train}
        if "HO2(0)" in settings:
            columns["FO"] = {"setting": "HO2(0)", **settings["HO2(0)"]}
        so = {k: v for k, v in settings.items() if k.startswith("SO")}
        if so:
            best = min(so, key=lambda k: (so[k]["test_error"],
                                          so[k]["updates"]))
            columns["SO"] = {"setting": best, **so[best]}
    return {"n_splits": n_splits, "settings": settings, "columns": columns}


def _data_notes(records):
    return {r["task"]["dataset"]: {"status": r["status"], **r["result"]}
            for r in _records(records, "data")}


def summarize(config, records):
    """Everything the report shows, from the records alone (the JSON)."""
    grid = _ocr_grid(records)
    curves = _figure2(records)
    return {
        "schema": "perceptrons-reproduction-results", "schema_version": 1,
        "experiment": config.stem, "paper": PAPER, "quick": config.quick,
        "readings": list(READINGS),
        "config": json_config(config), "data": _data_notes(records),
        "figure2": {"curves": curves, "verdicts": _figure2_verdicts(curves)},
        "alma": _alma(records, curves),
        "table3": {"rows": _table3(grid), "grid": grid,
                   "readings": _readings_table(records, grid)},
        "table1": {"lymphoma": _table1(records),
                   "positive_class": LYMPHOMA_POSITIVE},
        "paper_table1": PAPER_TABLE1,
        "paper_table2": PAPER_TABLE2,
        "paper_table3": {f"{d} {k}": v for (d, k), v in
                         PAPER_TABLE3.items()},
        "failures": [{"dataset": r["task"]["dataset"],
                      "params": r["task"]["params"],
                      "error": r["result"].get("error")}
                     for r in records if r["status"] == "error"],
        "meta": records[0]["meta"] if records else {},
        "task_seconds": float(sum(r["seconds"] for r in records)),
    }


def json_config(config):
    """The configuration as JSON values (loaders by name)."""
    out = asdict(config)
    out["ocr"] = [{k: v for k, v in asdict(s).items() if k != "load"}
                  | {"custom_loader": s.load is not None}
                  for s in config.ocr]
    return out

