"""Shalev-Shwartz & Singer (2005), Figure 3: the records as rows and means."""

import numpy as np

from .. import report


def _view(records):
    """Rows by kind: noise runs, radius runs, top-panel notes by data set."""
    rows = report.rows(records)
    notes = {}
    for r in rows:
        if r["kind"] == "data":
            notes[r["dataset"]] = (
                {"status": "not run", "reason": r["error"]}
                if r["status"] == "error" else {**r, "status": "run"})
    return {"noise": [r for r in rows if r["kind"] == "noise"],
            "radius": [r for r in rows if r["kind"] == "radius"],
            "top_panels": notes}


def _level_summary(lv, rs):
    T = np.array([r["T"] for r in rs], dtype=float)
    eps = np.array([r["mistakes"] for r in rs]) / T
    b2 = np.array([r["d2_bound"] for r in rs]) / T
    b1 = np.array([r["d1_bound"] for r in rs]) / T
    return {
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
    }


def _summary(view, kind):
    """Per noise level: means over seeds, per round, and per-run checks."""
    rows = [r for r in view["noise"] if r["panel"] == kind]
    return [_level_summary(lv, [r for r in rows if r["level"] == lv])
            for lv in sorted({r["level"] for r in rows})]


def _top_rows(view, name):
    return sorted((r for r in view["radius"]
                   if r["dataset"] == name and r["status"] == "ok"),
                  key=lambda r: r["radius"])


def _top_summary(view, name):
    rows = _top_rows(view, name)
    if not rows:
        return None
    base = next((r for r in rows if r["radius"] == 0.0), None)
    best = min(rows, key=lambda r: (r["mistake_rate"], r["radius"]))
    out = {"rows": rows, "best": best, "base": base}
    if base is not None:
        e0 = base["mistake_rate"]
        positive = [r for r in rows if r["radius"] > 0]
        out.update(
            reduction_abs=e0 - best["mistake_rate"],
            reduction_rel=(e0 - best["mistake_rate"]) / e0 if e0 else 0.0,
            n_better=sum(r["mistake_rate"] < e0 for r in positive),
            # "significant": at least 10% fewer mistakes than the Perceptron
            n_significant=sum(r["mistake_rate"] <= 0.9 * e0
                              for r in positive),
            n_positive=len(positive), largest=rows[-1])
    return out
