r"""Figure 3 of Shalev-Shwartz & Singer (2005), the Ballseptron, reproduced.

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
mean and scaled to average norm 1, one online pass:
``Ballseptron(kernel="poly", degree=5, coef0=0.5, gamma=1.0)``.

The text copy of the paper has Fig. 3's caption but not its axes, so the
radius grid is ours (:data:`RADII`): dense up to 0.3, where the mistake
rate is lowest, then up to 1, ~0.36 of the average feature-space norm
‖φ(x)‖ = (1 + ½)^{5/2} ≈ 2.76, far enough for the "excessively large r"
regime the paper describes.

Tasks and files (in ``output_dir``)
-----------------------------------
Each (panel, noise level, seed) and each (data set, radius) is a task of
:mod:`.store`, and so is loading each top-panel data set (its record holds
the sizes, or why it could not be loaded). The records go to
``reproduce_ballseptron_records.jsonl`` as they finish (``resume`` keeps
them); everything else is rendered from the records:
``reproduce_ballseptron.md`` (the report),
``reproduce_ballseptron_noise.csv`` and ``reproduce_ballseptron_radius.csv``
(the rows, flat), ``reproduce_ballseptron_fig3_bottom.png`` and, when a top
panel ran, ``reproduce_ballseptron_fig3_top.png``.
"""

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import report
from .store import Store, Task, make_record, progress_bar, run_tasks

__all__ = ["Config", "FULL", "INSTANCE_NOISE", "LABEL_NOISE", "QUICK",
           "RADII", "load_records", "noise_worker", "plot_bottom",
           "plot_top", "radius_worker", "render_markdown", "run",
           "write_outputs"]

STEM = "reproduce_ballseptron"

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
PAPER_SIZES = {"usps": 7291, "mnist": 60000}


@dataclass(frozen=True)
class Config:
    """What to run: the grids, seeds and data sizes.

    Parameters
    ----------
    n_samples : int
        Points of the unit-circle data (the paper: 10,000).
    seeds : tuple of int
        Seeds of the unit-circle data.
    label_noise, instance_noise : tuple of float
        η and σ grids.
    radii : tuple of float
        r grid of the top panels.
    kernel_datasets : dict of str to int or None
        Data set name to the number of training examples used (None = all);
        ``{}`` skips the top panels. All of MNIST takes about 3.5 s a pass
        at r = 0 and 17 s at r = 0.1 (BENCHMARKS.md).
    quick : bool
        Shown in the report.
    """

    n_samples: int = 10000
    seeds: tuple = tuple(range(10))
    label_noise: tuple = LABEL_NOISE
    instance_noise: tuple = INSTANCE_NOISE
    radii: tuple = RADII
    kernel_datasets: dict = field(
        default_factory=lambda: {"usps": None, "mnist": None})
    quick: bool = False


#: The paper's configuration.
FULL = Config()
#: Under a minute: 2,000 points, 3 seeds, 1,000 USPS examples, 5 radii.
QUICK = Config(n_samples=2000, seeds=(0, 1, 2), radii=QUICK_RADII,
               kernel_datasets={"usps": 1000}, quick=True)


# ------------------------------------------------------------------ workers
def _load_kernel_dataset(name):
    """Training set of ``name`` as (X, y)."""
    from ..datasets import load_named

    b = load_named(name)
    return np.asarray(b.X_train, dtype=np.float64), np.asarray(b.y_train)


def noise_worker(task):
    """One online pass of the Perceptron on noisy unit-circle data, and the
    D1 and D2 bounds with the true u."""
    from ..bounds import d1_bound, freund_schapire_bound, mistake_bounds
    from ..datasets import make_unit_circle
    from ..models import Ballseptron

    p = task.params
    noise = {f"{p['panel']}_noise": p["level"]}
    start = time.perf_counter()
    X, y, u = make_unit_circle(n_samples=p["n_samples"], margin=p["gamma"],
                               random_state=p["seed"], **noise)
    clf = Ballseptron(radius=0.0, max_iter=1, shuffle=False).fit(X, y)
    b = mistake_bounds(X, y, u, p["gamma"])
    hinge = np.maximum(0.0, p["gamma"] - y * (X @ u))
    result = {"T": int(p["n_samples"]), "mistakes": int(clf.n_mistakes_),
              "R": b.R, "D1": b.D1, "D2": b.D2,
              "n_hinge_positive": int(np.count_nonzero(hinge > 0)),
              "d2_bound": freund_schapire_bound(b.R, p["gamma"], b.D2),
              "d1_bound": d1_bound(b.R, p["gamma"], b.D1), "u": u}
    return make_record(task, result, seconds=time.perf_counter() - start)


def _radius_fit(X, y, r):
    from ..models import Ballseptron

    clf = Ballseptron(radius=float(r), max_iter=1, shuffle=False,
                      **KERNEL_PARAMS)
    start = time.perf_counter()
    clf.fit(X, y)
    return clf, time.perf_counter() - start


def radius_worker(task):
    """One online pass of the kernel Ballseptron at one radius; a failure is
    recorded (status "error"), not raised."""
    X, y = task.inputs
    T = int(X.shape[0])
    try:
        clf, seconds = _radius_fit(X, y, task.params["radius"])
    except Exception as exc:  # noqa: BLE001 - reported
        return make_record(task, {"T": T, "error": f"{type(exc).__name__}: "
                                                   f"{exc}"}, status="error")
    result = {"T": T, "mistakes": int(clf.n_mistakes_),
              "margin_errors": int(clf.n_margin_errors_),
              "mistake_rate": int(clf.n_mistakes_) / T, "seconds": seconds}
    return make_record(task, result, seconds=seconds)


# ------------------------------------------------------------------ tasks
def _noise_tasks(config):
    return [Task(STEM, "unit circle", None, {
        "kind": "noise", "panel": kind, "level": float(level),
        "seed": int(seed), "n_samples": int(config.n_samples),
        "gamma": GAMMA})
        for kind, levels in (("label", config.label_noise),
                             ("instance", config.instance_noise))
        for seed in config.seeds for level in levels]


def _top_tasks(config, name, data=None):
    n = config.kernel_datasets[name]
    load = Task(STEM, name, None, {"kind": "data", "n": n, "seed": 0})
    return load, [Task(STEM, name, None, {
        "kind": "radius", "radius": float(r), "n": n, "seed": 0,
        "kernel": KERNEL_PARAMS}, data) for r in config.radii]


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


def _load_record(task):
    """Load and prepare a top-panel data set: its record, and (X, y)."""
    name, n = task.dataset, task.params["n"]
    try:
        X, y = _load_kernel_dataset(name)
    except (OSError, ValueError) as exc:
        return make_record(task, {"error": f"could not load: {exc}"},
                           status="error"), None
    n_total = int(X.shape[0])
    X, y, order = _prepare(X, y, n, seed=task.params["seed"])
    info = {"n_used": int(X.shape[0]), "n_available": n_total,
            "n_paper": PAPER_SIZES.get(name), "order": order,
            "n_classes": int(np.unique(y).shape[0])}
    return make_record(task, info), (X, y)


def _run_top(config, name, store, resume, bar):
    """Records of one top-panel data set: its load record, then its radii."""
    load, tasks = _top_tasks(config, name)
    done = store.done() if resume else {}
    if all(t.key in done for t in (load, *tasks)):
        bar.update(len(tasks))
        return [done[t.key] for t in (load, *tasks)]
    record, data = _load_record(load)
    store.append(record)
    if data is None:
        bar.update(len(tasks))
        return [record]
    if tasks:  # compile first: "seconds" is the pass alone
        _radius_fit(data[0][:300], data[1][:300], max(config.radii))
    _, tasks = _top_tasks(config, name, data)
    return [record, *run_tasks(radius_worker, tasks, store, resume=resume,
                               on_record=lambda _: bar.update())]


def run(options, config=None):
    """Reproduce Fig. 3 and write the records, report and plots.

    Parameters
    ----------
    options : RunOptions
        ``output_dir``, ``quick`` (:data:`QUICK` instead of :data:`FULL`),
        ``progress``, ``resume``.
    config : Config, default=None
        Overrides the configuration chosen by ``options.quick``.

    Returns
    -------
    dict
        ``markdown`` (the report), ``files`` (list of paths written) and
        ``records`` (as stored).
    """
    config = config or (QUICK if options.quick else FULL)
    out = Path(os.fspath(options.output_dir))
    store = Store.open(out / f"{STEM}_records.jsonl", resume=options.resume)
    noise = _noise_tasks(config)
    bar = progress_bar(len(noise) + len(config.kernel_datasets)
                       * len(config.radii), options.progress, desc=STEM)
    try:
        records = run_tasks(noise_worker, noise, store, resume=options.resume,
                            on_record=lambda _: bar.update())
        for name in config.kernel_datasets:
            records += _run_top(config, name, store, options.resume, bar)
    finally:
        bar.close()
    markdown, files = write_outputs(config, records, out)
    return {"markdown": markdown, "files": [store.path, *files],
            "records": records}


def load_records(output_dir):
    """The records of the last run written to ``output_dir``."""
    path = Path(os.fspath(output_dir)) / f"{STEM}_records.jsonl"
    return list(Store(path).read().values())


# ------------------------------------------------------------------ view
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


# ------------------------------------------------------------------ claims
def _verdict(n, total):
    return "agrees" if n == total else ("partly" if n else "disagrees")


def _label_claims(view):
    every = _summary(view, "label")
    lab = [s for s in every if s["level"] > 0]
    if not lab:
        return []
    n = sum(s["d1"] < s["d2"] for s in lab)
    claims = [(
        "Label noise: the D1 bound is clearly tighter than the D2 bound.",
        _verdict(n, len(lab)),
        f"D1 bound < D2 bound (means over seeds) at {n} of {len(lab)} "
        f"levels η > 0; ratio D2/D1 bound at the largest η "
        f"({lab[-1]['level']:g}): {lab[-1]['d2'] / lab[-1]['d1']:.2f}.")]
    above = [s for s in lab if s["level"] > 0.03 + 1e-12]
    if above:
        below = [s for s in every if s["level"] <= 0.03 + 1e-12]
        first = next((s["level"] for s in every if s["d2"] > 1), None)
        claims.append((
            "Label noise: the D2 bound exceeds 1 per round (is "
            "meaningless) whenever η > 0.03.",
            "agrees" if all(s["d2"] > 1 for s in above) else "disagrees",
            "D2 bound/T first exceeds 1 at η = "
            f"{'never' if first is None else f'{first:g}'}; at η ≤ 0.03 "
            "it is " + ", ".join(f"{s['d2']:.2f}" for s in below)
            + f"; at η = {above[0]['level']:g} it is {above[0]['d2']:.2f}. "
            f"The D1 bound/T stays ≤ {max(s['d1'] for s in lab):.2f}."))
    return claims


def _instance_claims(view):
    ins = [s for s in _summary(view, "instance") if s["level"] > 0]
    if not ins:
        return []
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
    return [(
        "Instance noise: the D1 bound is also slightly better than the "
        "D2 bound.", _verdict(n, len(ins)),
        f"D1 bound < D2 bound (means over seeds) at {n} of {len(ins)} "
        f"levels σ > 0; relative gap (D2 − D1)/D2 from {min(gaps):.1%} "
        f"to {max(gaps):.1%}.{where}")]


def _theorem_claims(view):
    runs = _summary(view, "label") + _summary(view, "instance")
    if not runs:
        return []
    ok = all(s["d2_holds"] and s["d1_holds"] for s in runs)
    return [("Theorems (Eq. (3), Thm. 2 at r = 0): both bounds are at least "
             "the Perceptron's mistakes on every sequence.",
             "agrees" if ok else "disagrees",
             "checked on every run (each seed and noise level).")]


def _top_claims(view, name):
    s = _top_summary(view, name)
    if s is None or s.get("base") is None:
        return []
    best, base, lg = s["best"], s["base"], s["largest"]
    return [(
        f"{name.upper()}: many choices of r > 0 give significantly fewer "
        "online mistakes than r = 0 (the Perceptron).",
        "agrees" if s["n_significant"] >= 3 else
        ("partly" if s["n_significant"] else "disagrees"),
        f"{s['n_better']} of {s['n_positive']} radii r > 0 beat r = 0, "
        f"{s['n_significant']} by at least 10% (our criterion for "
        "'significant'; 'agrees' needs 3 such radii, and the count "
        "depends on our grid); "
        f"best r = {best['radius']:g}, ε/T {base['mistake_rate']:.4f} → "
        f"{best['mistake_rate']:.4f} ({s['reduction_rel']:.1%} fewer "
        "mistakes)."), (
        f"{name.upper()}: an excessively large r deteriorates performance.",
        "agrees" if lg["mistake_rate"] > best["mistake_rate"]
        and lg["radius"] > best["radius"] else "not observed",
        f"at the largest r tried ({lg['radius']:g}) ε/T = "
        f"{lg['mistake_rate']:.4f} (best {best['mistake_rate']:.4f}, "
        f"r = 0: {base['mistake_rate']:.4f}).")]


def _claims(view):
    """The paper's claims and our verdicts: (claim, verdict, why) tuples."""
    claims = (_label_claims(view) + _instance_claims(view)
              + _theorem_claims(view))
    for name in view["top_panels"]:
        claims += _top_claims(view, name)
    return claims


# ------------------------------------------------------------------ report
def _noise_table(view, kind):
    sym = "η" if kind == "label" else "σ"
    return report.table(
        [sym, "ε/T (mean ± sd)", "D2 bound / T", "D1 bound / T",
         "D1 tighter (runs)", "D2 bound > 1", "R", "D1", "D2"],
        [[f"{s['level']:g}", f"{s['eps']:.4f} ± {s['eps_sd']:.4f}",
          f"{s['d2']:.4f}", f"{s['d1']:.4f}",
          f"{s['d1_tighter_runs']}/{s['n_seeds']}",
          "yes" if s["d2"] > 1 else "no", f"{s['R']:.3f}", f"{s['D1']:.1f}",
          f"{s['D2']:.2f}"] for s in _summary(view, kind)],
        align="rrrrrcrrr")


def _bottom_section(config, view):
    seeds = list(config.seeds)
    return [
        "## Bottom panels: mistake bounds of the Perceptron vs noise", "",
        f"{config.n_samples} points on the unit circle of R², labels "
        f"separable with margin {GAMMA:g} by a random unit u (paper: "
        "10,000). One online pass of the Perceptron "
        "(`Ballseptron(radius=0, max_iter=1, shuffle=False)`). Bounds with "
        f"γ = {GAMMA:g} and the true u: D2 bound = ((R + D2)/γ)² "
        "(Eq. (3), Freund & Schapire), D1 bound = ((R + √(γ D1))/γ)² "
        "(Thm. 2, r = 0); R = max‖x_t‖ of the noisy sequence. Per round "
        f"(÷ T), means over {len(seeds)} seed(s) {seeds}; D1, D2 and R are "
        "means too. 'D1 tighter (runs)': seeds at which the D1 bound is "
        "below the D2 bound.", "",
        "### Label noise (labels flipped with probability η)", "",
        *_noise_table(view, "label"), "",
        "### Instance noise (x + N(0, σ² I), labels kept)", "",
        *_noise_table(view, "instance"), "",
        "The σ grid is ours: the text copy of the paper has Fig. 3's "
        "caption but not its axes.", ""]


def _radius_cells(r):
    if r["status"] != "ok":
        return [f"{r['radius']:g}", f"**failed**: {r['error']}", "", "", ""]
    return [f"{r['radius']:g}", f"{r['mistake_rate']:.4f}", r["mistakes"],
            r["margin_errors"], f"{r['seconds']:.2f}"]


def _best_line(s):
    if s is None:
        return "**No radius ran successfully.**"
    best = s["best"]
    if s.get("base") is None:
        return (f"Best r = {best['radius']:g} (ε/T "
                f"{best['mistake_rate']:.4f}); r = 0 was not run, so no "
                "reduction is given.")
    return (f"Best r = {best['radius']:g}: ε/T = {best['mistake_rate']:.4f} "
            f"vs {s['base']['mistake_rate']:.4f} at r = 0, a reduction of "
            f"{s['reduction_abs']:.4f} ({s['reduction_rel']:.1%} of the "
            "Perceptron's mistakes).")


def _panel_section(config, view, name):
    note = view["top_panels"][name]
    if note["status"] != "run":
        return [f"### {name.upper()}", "", f"**Not run: {note['reason']}.**",
                ""]
    used, paper = note["n_used"], note.get("n_paper")
    msg = (f"{used} of {note['n_available']} training examples "
           f"({note['order']}), {note['n_classes']} classes.")
    if paper and used < paper:
        msg += (f" **Only part of the data: the paper uses {paper}.** "
                + ("Quick mode." if config.quick else
                   "Cut by the caller (``kernel_datasets``)."))
    rows = sorted((r for r in view["radius"] if r["dataset"] == name),
                  key=lambda r: r["radius"])
    return [f"### {name.upper()}", "", msg, "",
            *report.table(["r", "ε/T", "mistakes", "margin errors",
                           "seconds"], map(_radius_cells, rows), "rrrrr"),
            "", _best_line(_top_summary(view, name)), ""]


def _top_section(config, view):
    kp = KERNEL_PARAMS
    lines = [
        "## Top panels: online mistake rate ε/T vs r, kernel Ballseptron", "",
        f"Multiclass Ballseptron (Sec. 4), kernel K(x, x') = (γ_k x·x' + "
        f"{kp['coef0']:g})^{kp['degree']} with γ_k = {kp['gamma']:g}, "
        "instances shifted to zero mean and scaled to average norm 1, one "
        "online pass. Radii: " + ", ".join(f"{r:g}" for r in config.radii)
        + " (our grid; the paper's axis values are not in our copy). "
        "*seconds*: the whole `fit` of one pass, after a warm-up fit that "
        "compiles the loops.", ""]
    if not view["top_panels"]:
        lines += ["**Top panels not run: no data set requested.**", ""]
    for name in view["top_panels"]:
        lines += _panel_section(config, view, name)
    return lines


def _not_run_items(config, view):
    notes = view["top_panels"]
    items = [f"- Top panel {n.upper()}: {v['reason']}."
             for n, v in notes.items() if v["status"] != "run"]
    items += [f"- Top panel {n.upper()}: not run in this configuration"
              + (" (quick mode runs a USPS subsample only)" if config.quick
                 else "") + "." for n in ("usps", "mnist") if n not in notes]
    items += [f"- Top panel {n.upper()} only in part: {v['n_used']} of the "
              f"paper's {v['n_paper']} examples ("
              + ("quick mode" if config.quick else "cut by the caller") + ")."
              for n, v in notes.items() if v["status"] == "run"
              and v.get("n_paper") and v["n_used"] < v["n_paper"]]
    if config.n_samples < 10000:
        items.append(f"- Bottom panels on T = {config.n_samples} points, "
                     "not the paper's 10,000"
                     + (" (quick mode)." if config.quick else "."))
    items += [f"- {r['dataset'].upper()} at r = {r['radius']:g}: "
              f"{r['error']}." for r in view["radius"] if r["status"] != "ok"]
    return items or ["- Nothing: every panel ran."]


def render_markdown(config, records):
    """The report: tables, claims and verdicts, from the records alone.

    Parameters
    ----------
    config : Config
        What was asked for (the grids, the quick flag).
    records : list of dict
        As returned by :func:`run` or :func:`load_records`.

    Returns
    -------
    str
    """
    view = _view(records)
    lines = [
        "# Reproduction of Figure 3, Shalev-Shwartz & Singer (2005), "
        "*A New Perspective on an Old Perceptron Algorithm*", "",
        f"Mode: {'**quick**' if config.quick else 'full'}.", "",
        *_bottom_section(config, view), *_top_section(config, view),
        "## The paper's claims and ours", "",
        *report.table(["claim", "ours", "numbers"],
                      ([c, f"**{v}**", why] for c, v, why in _claims(view)),
                      "lll"),
        "", "## Not run, or run only in part", "",
        *_not_run_items(config, view), "", report.footer(records)]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ files
_NOISE_FIELDS = ["panel", "level", "seed", "T", "mistakes", "R", "gamma", "D1",
                 "D2", "n_hinge_positive", "d2_bound", "d1_bound",
                 "mistake_rate", "d2_bound_rate", "d1_bound_rate"]
_RADIUS_FIELDS = ["dataset", "radius", "T", "mistakes", "margin_errors",
                  "mistake_rate", "seconds", "error"]


def write_outputs(config, records, out):
    """Write the report, the two CSV files and the plots.

    Returns
    -------
    markdown : str
        The report.
    files : list of pathlib.Path
    """
    view, markdown = _view(records), render_markdown(config, records)
    noise = [{**r, "mistake_rate": r["mistakes"] / r["T"],
              "d2_bound_rate": r["d2_bound"] / r["T"],
              "d1_bound_rate": r["d1_bound"] / r["T"]} for r in view["noise"]]
    files = [report.write_text(out / f"{STEM}.md", markdown),
             report.write_csv(out / f"{STEM}_noise.csv", noise, _NOISE_FIELDS),
             report.write_csv(out / f"{STEM}_radius.csv", view["radius"],
                              _RADIUS_FIELDS),
             plot_bottom(config, records, out / f"{STEM}_fig3_bottom.png")]
    if any(r["status"] == "ok" for r in view["radius"]):
        files.append(plot_top(records, out / f"{STEM}_fig3_top.png"))
    return markdown, files


def plot_bottom(config, records, path):
    """Fig. 3 bottom: D2 bound, D1 bound and mistakes (÷ T) vs η and σ."""
    view = _view(records)
    fig, axes = report.figure(1, 2, 10.4, 4.0)
    for ax, kind, xlabel in ((axes[0], "label", "label noise η"),
                             (axes[1], "instance", "instance noise σ")):
        s = _summary(view, kind)
        x = [v["level"] for v in s]
        ax.plot(x, [v["d2"] for v in s], "o-", label="D2 bound (Eq. 3)")
        ax.plot(x, [v["d1"] for v in s], "s-", label="D1 bound (Thm. 2)")
        ax.errorbar(x, [v["eps"] for v in s], yerr=[v["eps_sd"] for v in s],
                    fmt="^-", capsize=2, label="Perceptron mistakes")
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        ax.set(xlabel=xlabel, ylabel="per round (÷ T)", yscale="log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"Fig. 3 bottom: unit circle, T = {config.n_samples}, "
                 f"γ = {GAMMA:g}, mean of {len(config.seeds)} seed(s)",
                 fontsize=10)
    return report.save(fig, path)


def plot_top(records, path):
    """Fig. 3 top: ε/T vs r, one panel per data set that ran."""
    view = _view(records)
    names = [n for n, v in view["top_panels"].items() if v["status"] == "run"]
    fig, axes = report.figure(1, max(1, len(names)),
                              5.2 * max(1, len(names)), 4.0)
    for ax, name in zip(axes, names):
        rows = _top_rows(view, name)
        ax.plot([r["radius"] for r in rows],
                [r["mistake_rate"] for r in rows], "o-", label="Ballseptron")
        base = [r["mistake_rate"] for r in rows if r["radius"] == 0.0]
        if base:
            ax.axhline(base[0], color="grey", lw=0.8, ls="--",
                       label="Perceptron (r = 0)")
        ax.legend(fontsize=8)
        ax.set_title(f"{name.upper()} (T = "
                     f"{view['top_panels'][name]['n_used']})", fontsize=10)
        ax.set(xlabel="radius r", ylabel="ε / T")
        ax.grid(alpha=0.3)
    fig.suptitle("Fig. 3 top: kernel Ballseptron, poly degree 5, bias ½, "
                 "one online pass", fontsize=10)
    return report.save(fig, path)

