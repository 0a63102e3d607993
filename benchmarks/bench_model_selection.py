"""Does the Khardon & Wachman study scale on a Dask cluster, and what does a Dask task cost?

Question
--------
Issue #11's performance goals for the execution backends of
:mod:`perceptrons.experiments.model_selection` (every (data set, split, grid
cell) fit is one task; ``make_executor("serial" | "joblib" | "dask",
n_jobs)``, a ``LocalCluster`` of ``n_jobs`` single-threaded worker processes
when ``backend="dask"`` and no scheduler is given):

1. **Scaling.** A UCI part of K&W's Tables 3 and 6: double cross-validation
   of the paper's ``Perceptron`` (η = 0.1, θ_Init = C = "auto", 100 passes,
   voted log → last / longest / voted / averaged from one fit) over
   ``paper_columns("optimization")`` (91 distinct cells) on ``bupa`` and
   ``wpbc``, both studies in one pool of tasks (as ``perceptrons reproduce
   khardon-wachman`` runs them), with fewer outer and inner folds than the
   paper's 10 × 10 so that one run takes 10–30 s on one core. Wall time on
   a LocalCluster with 1 and with 2 workers, speed-up (goal ≥ 1.8×), and
   joblib with 1 and 2 processes beside it.
2. **Per-task overhead.** Many tiny fits (``max_iter=1`` on bupa, a τ × λ
   grid of 49 cells in 10-fold parameter search: 490 tasks): seconds per
   task on joblib with 2 processes and on Dask with 2 workers, ratio
   Dask / joblib (goal ≤ 2×); serial in the calling process beside them.
3. **Identity.** The results of every backend and worker count are the
   same: the ``cv_results_`` arrays of the parameter search and the double
   CV selections (scores, chosen cells, mean, T-interval) are compared
   exactly (NaN equal to NaN) with the first backend's, for every run.

Command
-------
::

    python benchmarks/bench_model_selection.py          # ~3 min on 2 idle cores
    python benchmarks/bench_model_selection.py --write  # ... and BENCHMARKS.md
    python benchmarks/bench_model_selection.py --quick  # bupa, 3 × 2 folds (< 1 min)

``--outer``, ``--inner``, ``--datasets`` and ``--tiny-cv`` change the sizes.

What is timed
-------------
* **scaling run**: ``run_studies(studies, executor=ex, progress=False)`` on
  an executor made (and warmed up) beforehand, i.e. building the tasks,
  shipping the data (Dask: ``Client.scatter(broadcast=True)``, once per
  run; joblib: pickled with each batch, the sets are small) and every task
  (``run_cell``: clone, fit, the four hypotheses' predictions), records
  back in the calling process. The LocalCluster's start-up is timed apart
  (``make_executor("dask", n)``, once). Every executor is warmed up with a
  small study first (worker imports, numba's compiled code loaded from its
  cache) and stays open for the whole run; the four configurations are
  timed round-robin, ``--repeat`` rounds, best run reported with the
  median beside it. Joblib with ``n_jobs=1`` runs the tasks in the calling
  process (joblib's sequential path), so it is also the serial reference.
  "Σ task s" is the sum of the records' own fit-and-predict seconds, the
  work itself; "efficiency" = Σ task s / (wall × workers).
* **tiny fits**: the same call for the parameter search of
  ``Perceptron(max_iter=1)`` (same paper parameters otherwise), with
  ``_common.time_interleaved`` (one untimed call each, then round-robin
  until ``--min-time`` seconds). Seconds per task = wall / tasks; "excess
  per task" = (wall − serial wall / workers) / tasks, what the parallel path
  adds above a perfect split of the serial work.

Tasks travel in batches (about 8 per worker, at most 64 tasks each, the
executor's own rule), so the per-task figure includes each batch's
scheduling cost divided among its tasks, as a user pays it. The machine has
2 cores and the calling process (Dask: also the scheduler, in a thread)
shares them with the workers; the load average at start and end is in the
header.
"""

import logging
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    command_line,
    cpu_busy,
    load_average,
    machine_description,
    md_table,
    parse_bench_args,
    publish,
    time_interleaved,
)

from perceptrons.datasets import load_named  # noqa: E402
from perceptrons.experiments.model_selection import (  # noqa: E402
    Study,
    double_cv_result,
    make_executor,
    paper_columns,
    run_studies,
    search_result,
)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def paper_estimator(max_iter):
    """K&W's Perceptron as the reproduction builds it (Sec. 3.2)."""
    from perceptrons import Perceptron

    return Perceptron(eta=0.1, theta_init="auto", threshold_step="auto",
                      max_iter=max_iter, hypothesis="voted", shuffle=True)


def scaling_studies(names, outer, inner, max_iter=100):
    est = paper_estimator(max_iter)
    out = []
    for name in names:
        b = load_named(name, handle_missing="zero")
        out.append(Study(name, est, paper_columns("optimization"), b.X, b.y,
                         outer=outer, inner=inner))
    return out


def tiny_study(cv):
    b = load_named("bupa", handle_missing="zero")
    grid = {"tau": [0.0, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0],
            "lam": [0.0, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0]}
    return Study("bupa", paper_estimator(1), grid, b.X, b.y, outer=cv,
                 inner=0)


def warm_up_study():
    b = load_named("wpbc", handle_missing="zero")
    return Study("warm-up", paper_estimator(5), {"tau": [0.0, 1.0]}, b.X,
                 b.y, outer=2, inner=2)


# ------------------------------------------------------------------ identity
def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True))
    return [repr(x) for x in a.ravel()] == [repr(x) for x in b.ravel()]


def summarize_results(studies, records, double):
    """The comparable part of the tables: cv_results_ (fit times dropped)
    and, for double CV, every selection."""
    out = {}
    for s in studies:
        rec = records[s.name]
        res = (double_cv_result(s, rec) if double else None)
        search = res.search if double else search_result(s, rec)
        cv = {k: v for k, v in search.cv_results_.items()
              if k != "mean_fit_time"}
        cv["params"] = [repr(sorted(p.items())) for p in cv["params"]]
        out[(s.name, "search")] = cv
        if double:
            for (col, h), sel in res.selections.items():
                out[(s.name, col, h)] = {
                    "scores": sel["scores"],
                    "chosen": [repr(sorted(c.items())) if c else None
                               for c in sel["chosen"]],
                    "mean": [sel["mean"]],
                    "ci_half_width": [sel["ci_half_width"]]}
    return out


def differences(ref, other):
    """Names of the entries of ``other`` that differ from ``ref``."""
    bad = []
    for key, table in ref.items():
        for name, value in table.items():
            if not _same(value, other[key][name]):
                bad.append(f"{key}:{name}")
    return bad


def n_errors(records):
    return sum(r["status"] != "ok" for rs in records.values() for r in rs)


def task_seconds(records):
    return sum(r["seconds"] for rs in records.values() for r in rs)


# ------------------------------------------------------------------ parts
def run_scaling(args, executors):
    studies = scaling_studies(args.datasets, args.outer, args.inner)
    n_tasks = sum(len(s.tasks()) for s in studies)
    log(f"scaling: {n_tasks} tasks ({', '.join(args.datasets)}, "
        f"{args.outer} outer x {args.inner} inner folds)")
    warm = [warm_up_study()]
    for name, ex in executors.items():
        t0 = time.perf_counter()
        run_studies(warm, executor=ex, progress=False)
        log(f"  warm-up {name}: {time.perf_counter() - t0:.1f} s")
    times = {name: [] for name in executors}
    sums = {name: [] for name in executors}
    ref, checks = None, {name: [] for name in executors}
    for rnd in range(args.repeat):
        for name, ex in executors.items():
            t0 = time.perf_counter()
            records = run_studies(studies, executor=ex, progress=False)
            wall = time.perf_counter() - t0
            times[name].append(wall)
            sums[name].append(task_seconds(records))
            summary = summarize_results(studies, records, double=True)
            if n_errors(records):
                checks[name].append(f"{n_errors(records)} failed tasks")
            if ref is None:
                ref = summary
            checks[name].extend(differences(ref, summary))
            log(f"  round {rnd + 1} {name}: {wall:.1f} s "
                f"(Σ task {sums[name][-1]:.1f} s)")
    return n_tasks, times, sums, checks


def run_tiny(args, executors):
    study = tiny_study(args.tiny_cv)
    n_tasks = len(study.tasks())
    log(f"tiny fits: {n_tasks} tasks")
    ref, checks = [None], {name: [] for name in executors}

    def call(name, ex):
        records = run_studies([study], executor=ex, progress=False)
        summary = summarize_results([study], records, double=False)
        if n_errors(records):
            checks[name].append(f"{n_errors(records)} failed tasks")
        if ref[0] is None:
            ref[0] = summary
        checks[name].extend(differences(ref[0], summary))
        return records

    funcs = {name: (lambda n=name, e=ex: call(n, e))
             for name, ex in executors.items()}
    times = time_interleaved(funcs, args.repeat, min_time=args.min_time,
                             max_rounds=20)
    for name, t in times.items():
        log(f"  {name}: best {t['min']:.3f} s over {t['n']} runs")
    return n_tasks, times, checks


# ------------------------------------------------------------------ report
def fmt_time(ts):
    return f"{min(ts):.2f} ({np.median(ts):.2f})"


def check_cell(problems, n_runs):
    if not problems:
        return f"identical ({n_runs} run{'s' if n_runs > 1 else ''})"
    return f"**differs**: {len(problems)} entries, e.g. {problems[0]}"


def build_report(args, scale, tiny, startup, loads, busy, total):
    n_tasks, times, sums, checks = scale
    workers = {"Dask LocalCluster, 1 worker": 1,
               "Dask LocalCluster, 2 workers": 2,
               "joblib, 1 process (in the caller)": 1,
               "joblib, 2 processes": 2}
    best = {k: min(v) for k, v in times.items()}
    rows = []
    for name, w in workers.items():
        s = min(sums[name])
        rows.append([name, w, fmt_time(times[name]), f"{s:.1f}",
                     f"{s / (best[name] * w):.2f}",
                     check_cell(checks[name], len(times[name]))])
    d1 = best["Dask LocalCluster, 1 worker"]
    d2 = best["Dask LocalCluster, 2 workers"]
    j1 = best["joblib, 1 process (in the caller)"]
    j2 = best["joblib, 2 processes"]
    speedups = md_table(
        ["speed-up (best runs)", "value", "goal"],
        [["Dask 1 worker / Dask 2 workers", f"{d1 / d2:.2f}×",
          "≥ 1.8× " + ("(met)" if d1 / d2 >= 1.8 else "(**not met**)")],
         ["joblib 1 / joblib 2", f"{j1 / j2:.2f}×", ""],
         ["joblib 1 (serial) / Dask 2 workers", f"{j1 / d2:.2f}×", ""],
         ["Dask 2 workers / joblib 2 (wall)", f"{d2 / j2:.2f}", ""]])

    n_tiny, ttimes, tchecks = tiny
    serial = ttimes["serial (in the caller)"]["min"]
    trows = []
    for name, w in (("serial (in the caller)", 1), ("joblib, 2 processes", 2),
                    ("Dask LocalCluster, 2 workers", 2)):
        t = ttimes[name]
        excess = (t["min"] - serial / w) / n_tiny
        trows.append([name, f"{t['min']:.3f} ({t['median']:.3f})", t["n"],
                      f"{1e3 * t['min'] / n_tiny:.2f}",
                      "–" if w == 1 else f"{1e3 * excess:.2f}",
                      check_cell(tchecks[name], t["n"] + 1)])
    tj = ttimes["joblib, 2 processes"]["min"]
    td = ttimes["Dask LocalCluster, 2 workers"]["min"]
    ratio = td / tj
    ex_j = tj - serial / 2
    ex_d = td - serial / 2

    all_checks = [p for c in (checks, tchecks) for v in c.values() for p in v]
    verdict = ("all results identical across backends and worker counts"
               if not all_checks else
               f"**{len(all_checks)} differences** (see the tables)")
    cells = len(scaling_studies(args.datasets[:1], 2, 0)[0].cells())
    report = "\n".join([
        "## Model selection backends: Dask scaling and per-task overhead "
        "(issue #11)",
        "",
        command_line("bench_model_selection.py", args,
                     "bupa only, 3 outer × 2 inner folds, 5-fold tiny search",
                     f" (`--datasets {','.join(args.datasets)} --outer "
                     f"{args.outer} --inner {args.inner} --tiny-cv "
                     f"{args.tiny_cv}`)"),
        machine_description(loads),
        "",
        f"**Scaling.** Double cross-validation of K&W's Perceptron (η = 0.1, "
        f"100 passes, 4 hypotheses from one fit) over "
        f"`paper_columns(\"optimization\")` ({cells} distinct cells) on "
        f"{' and '.join(args.datasets)} in one pool: {args.outer} outer × "
        f"{args.inner} inner folds, {n_tasks} tasks (the paper's 10 × 10 "
        f"would be {cells * 110 * len(args.datasets)}). Wall time of "
        f"`run_studies` on a warm executor, best of {args.repeat} "
        "round-robin runs (median); cluster start-up apart: "
        + ", ".join(f"{k} {v:.1f} s" for k, v in startup.items()) + ".",
        "",
        md_table(["backend", "workers", "wall s, best (median)",
                  "Σ task s", "efficiency", "results vs first run"], rows),
        "",
        speedups,
        "",
        f"**Per-task overhead.** Parameter search of `Perceptron(max_iter=1)` "
        f"on bupa, τ × λ grid (49 cells) × {args.tiny_cv} folds = {n_tiny} "
        f"tiny tasks; best (median) of the round-robin runs.",
        "",
        md_table(["backend", "wall s, best (median)", "runs", "ms / task",
                  "excess ms / task over serial / workers",
                  "results vs first run"], trows),
        "",
        md_table(["per-task ratio", "value", "goal"],
                 [["Dask 2 workers / joblib 2 processes (ms per task)",
                   f"{ratio:.2f}",
                   "≤ 2× " + ("(met)" if ratio <= 2 else "(**not met**)")],
                  ["Dask / joblib, excess over serial / 2",
                   f"{ex_d / ex_j:.2f}" if ex_j > 0 else "n/a (joblib "
                   "no slower than serial / 2)", ""]]),
        "",
        f"**Identity:** {verdict}; every run's `cv_results_` (all "
        "`split<i>_test_<h>`, means, stds, ranks, params) and, in the "
        "scaling part, every (column, hypothesis) selection (outer scores, "
        "chosen cells, mean, T-interval half-width) equal to the first "
        "run's, NaN = NaN.",
        "",
        f"Total benchmark time {total:.0f} s.",
    ])
    busy_note = (f"CPU use of other processes, sampled for 2 s before the "
                 f"run and after it (our workers closed): "
                 f"{100 * busy[0]:.0f} % / {100 * busy[1]:.0f} % of the "
                 "cores.")
    report = report.replace("\n\n**Scaling.**",
                            f"\n- {busy_note}\n\n**Scaling.**", 1)
    if max(busy) > 0.15:
        report = report.replace("\n\n**Scaling.**", (
            "\n\n**The machine was busy during this run (see the CPU use "
            "above): the workers shared the cores with other processes, so "
            "the speed-ups and per-task times are not those of an idle "
            "machine; rerun on an idle machine for the answer.**"
            "\n\n**Scaling.**"), 1)
    return report


def add_arguments(p):
    p.add_argument("--datasets", default=None,
                   help="comma-separated UCI names (default bupa,wpbc; "
                        "quick: bupa)")
    p.add_argument("--outer", type=int, default=None,
                   help="outer folds (default 5; quick: 3)")
    p.add_argument("--inner", type=int, default=2,
                   help="inner folds (default 2)")
    p.add_argument("--tiny-cv", type=int, default=None,
                   help="folds of the tiny-fit search (default 10; quick: 5)")


def quiet_dask():
    """Warnings only from distributed, here and in the worker processes."""
    import dask

    dask.config.set({"logging.distributed": "warning"})
    logging.getLogger("distributed").setLevel(logging.WARNING)


def main(argv=None):
    args = parse_bench_args(
        argv, __doc__, "bupa only, 3 outer x 2 inner folds, 5-fold tiny "
        "search", (2, 1), (20.0, 3.0), add_arguments)
    args.datasets = (args.datasets or ("bupa" if args.quick
                                       else "bupa,wpbc")).split(",")
    args.outer = args.outer or (3 if args.quick else 5)
    args.tiny_cv = args.tiny_cv or (5 if args.quick else 10)
    quiet_dask()
    busy = [cpu_busy()]
    t_start = time.time()
    loads = [load_average()]

    startup = {}
    dask = {}
    for n in (1, 2):
        t0 = time.perf_counter()
        dask[n] = make_executor("dask", n)
        startup[f"{n} worker{'s' if n > 1 else ''}"] = \
            time.perf_counter() - t0
    joblib1 = make_executor("joblib", 1)
    joblib2 = make_executor("joblib", 2)
    try:
        scale = run_scaling(args, {
            "Dask LocalCluster, 1 worker": dask[1],
            "Dask LocalCluster, 2 workers": dask[2],
            "joblib, 1 process (in the caller)": joblib1,
            "joblib, 2 processes": joblib2})
        dask[1].close()
        tiny = run_tiny(args, {
            "serial (in the caller)": make_executor("serial"),
            "joblib, 2 processes": joblib2,
            "Dask LocalCluster, 2 workers": dask[2]})
    finally:
        for ex in dask.values():
            ex.close()
    loads.append(load_average())
    total = time.time() - t_start
    busy.append(cpu_busy())
    report = build_report(args, scale, tiny, startup, loads, busy, total)
    publish(report, "bench_model_selection", args.write)


if __name__ == "__main__":
    main()
