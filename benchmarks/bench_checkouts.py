"""Is one checkout of the package slower than another?

Question
--------
After a rewrite of the compiled loops or of the model internals, does any
hot path of the package run slower (or faster) than before? Two checkouts
(``--old``, ``--new``) time the same workloads through the public API, each
run in a fresh process with ``PYTHONPATH=<checkout>``, old and new
interleaved, and the ratio new/old is reported with its spread.

Command
-------
::

    python benchmarks/bench_checkouts.py --old /work/baseline --new /work/main
    python benchmarks/bench_checkouts.py --old A --new B --quick   # small data
    python benchmarks/bench_checkouts.py --old A --new B --only a9a-primal
    python benchmarks/bench_checkouts.py --list                    # workloads

``--old A --new A`` measures the noise floor: the ratios should be ~1.0 and
their spread is what a real difference has to exceed.

Method
------
For ``--repeats`` rounds, every workload runs once per checkout, in the
order old, new in even rounds and new, old in odd ones (old, new, new, old,
...), each in a fresh child process (this script with ``--child``) with
``PYTHONPATH=<checkout>``, ``PERCEPTRONS_DATA=--data`` and
``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS``, ``MKL_NUM_THREADS`` and
``NUMBA_NUM_THREADS`` pinned to 1. The child checks that it imported
``perceptrons`` from its checkout, loads the data, calls the workload once
untimed (numba compilation or cache load), then times it ``--inner`` times
(``time.perf_counter``), and more (up to 200 calls) until the timed calls
add up to ``--min-time`` seconds, so that millisecond workloads get many
samples; it reports the best and the median wall time, and the best CPU
time of the process (``time.process_time``). The parent takes each child's
best; per workload it reports the median of those bests for old and for
new, their ratio new/old, the range of the per-round ratios (min-max) and
each side's spread, ``(max - min) / median`` of its bests; then the same
ratios of CPU time, which leave out the time the process waited for a core
(on a shared machine, the wall-clock ratios are noisier). Data loading,
imports and the warm-up are never timed. A workload whose data is missing
is skipped with the reason.

Workloads (``--quick``: a9a first 8,000 rows, MNIST first 6,000, USPS first
2,000) are listed by ``--list``; the kernel passes reuse the setup of
``bench_kernel_pass.py`` (USPS shifted to zero mean, average row norm 1,
``shuffle=False``) and ``bench_higher_order.py`` (RBF γ = 0.02 on pixels in
[0, 1], ``shuffle=False``; USPS is stored in [0, 1] already).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

# --------------------------------------------------------------------------
# Child: data and workloads (imported only in the child process)
# --------------------------------------------------------------------------


MAX_CALLS = 200


class Skip(Exception):
    """The workload cannot run here (its data is missing)."""


def _load(name):
    from perceptrons.datasets import load_named

    try:
        return load_named(name)
    except (OSError, KeyError, ValueError) as exc:
        raise Skip(f"data {name!r} not available: "
                   f"{type(exc).__name__}: {exc}") from None


def a9a(quick):
    """a9a as CSR (float64, sorted int32 indices), labels ±1."""
    import numpy as np
    import scipy.sparse as sp

    d = _load("a9a")
    X = sp.csr_matrix(d.X, dtype=np.float64)
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    X.sort_indices()
    n = 8000 if quick else X.shape[0]
    return X[:n], np.asarray(d.y[:n])


def usps(quick, paper_scaling=False):
    """USPS training part, dense in [0, 1]; or, with ``paper_scaling``,
    zero mean and average row norm 1 (bench_kernel_pass.py's scaling)."""
    import numpy as np

    d = _load("usps")
    n = 2000 if quick else d.X_train.shape[0]
    X = np.array(d.X_train[:n], dtype=np.float64)
    if paper_scaling:
        X -= X.mean(axis=0)
        X /= np.linalg.norm(X, axis=1).mean()
    return np.ascontiguousarray(X), np.asarray(d.y_train[:n])


def mnist(quick):
    """MNIST training part, dense /255 (60,000 x 784; 6,000 rows quick)."""
    import numpy as np

    d = _load("mnist")
    n = 6000 if quick else d.X_train.shape[0]
    X = np.ascontiguousarray(d.X_train[:n], dtype=np.float64) / 255.0
    return X, np.asarray(d.y_train[:n])


def _p(name):
    import perceptrons

    return getattr(perceptrons, name)


def _last(name, **params):
    """The class with the last hypothesis where it has the parameter (the
    matrix perceptrons gained it, averaged by default, in #23)."""
    cls = _p(name)
    if "hypothesis" in cls().get_params():
        params["hypothesis"] = "last"
    return cls(**params)


#: name -> (description, data loader, estimator factory)
WORKLOADS = {
    "a9a-primal": (
        "Perceptron(max_iter=1, shuffle=False), a9a CSR",
        a9a, lambda: _p("Perceptron")(max_iter=1, shuffle=False)),
    "a9a-primal-last": (
        'Perceptron(max_iter=1, shuffle=False, hypothesis="last"), a9a CSR',
        a9a, lambda: _p("Perceptron")(max_iter=1, shuffle=False,
                                      hypothesis="last")),
    "a9a-shuffled": (
        "Perceptron(max_iter=1, random_state=0) (shuffled), a9a CSR",
        a9a, lambda: _p("Perceptron")(max_iter=1, random_state=0)),
    "mnist-ovr": (
        "Perceptron(max_iter=1, shuffle=False), MNIST /255 dense, 10 OvR",
        mnist, lambda: _p("Perceptron")(max_iter=1, shuffle=False)),
    "a9a-ballseptron": (
        "Ballseptron(max_iter=1, random_state=0), a9a CSR, binary",
        a9a, lambda: _p("Ballseptron")(max_iter=1, random_state=0)),
    "usps-ballseptron": (
        "Ballseptron(max_iter=1, random_state=0), USPS dense, 10 classes",
        usps, lambda: _p("Ballseptron")(max_iter=1, random_state=0)),
    "usps-kp-poly3": (
        'Perceptron(kernel="poly", degree=3, max_iter=1, shuffle=False), '
        "USPS paper-scaled",
        lambda q: usps(q, paper_scaling=True),
        lambda: _p("Perceptron")(kernel="poly", degree=3, max_iter=1,
                                 shuffle=False)),
    "usps-ballseptron-poly5": (
        'Ballseptron(kernel="poly", degree=5, coef0=0.5, gamma=1.0, '
        "radius=0.1, max_iter=1, shuffle=False), USPS paper-scaled",
        lambda q: usps(q, paper_scaling=True),
        lambda: _p("Ballseptron")(kernel="poly", degree=5, coef0=0.5,
                                  gamma=1.0, radius=0.1, max_iter=1,
                                  shuffle=False)),
    "usps-ho-rbf": (
        'HigherOrderPerceptron(kernel="rbf", gamma=0.02, max_iter=1, '
        "shuffle=False), USPS [0, 1]",
        usps, lambda: _last("HigherOrderPerceptron", kernel="rbf",
                            gamma=0.02, max_iter=1, shuffle=False)),
    "usps-so-rbf": (
        'SecondOrderPerceptron(kernel="rbf", gamma=0.02, normalize=True, '
        "max_iter=1, shuffle=False), USPS [0, 1]",
        usps, lambda: _last("SecondOrderPerceptron", kernel="rbf",
                            gamma=0.02, a=1.0, normalize=True, max_iter=1,
                            shuffle=False)),
    "a9a-pdm": (
        "PDM(random_state=0) (ε = 0.01, to convergence), a9a CSR",
        a9a, lambda: _p("PDM")(random_state=0)),
}


def child(name, inner, min_time, quick, checkout):
    """Run one workload in this process; print one JSON line."""
    import perceptrons

    where = Path(perceptrons.__file__).resolve()
    if Path(checkout).resolve() not in where.parents:
        raise SystemExit(f"imported perceptrons from {where}, not from "
                         f"{checkout}: PYTHONPATH did not take")
    _, load, make = WORKLOADS[name]
    try:
        X, y = load(quick)
    except Skip as exc:
        print(json.dumps({"skip": str(exc)}))
        return
    t0 = time.perf_counter()
    make().fit(X, y)
    warmup = time.perf_counter() - t0
    times, cpu = [], []
    while len(times) < inner or (sum(times) < min_time
                                 and len(times) < MAX_CALLS):
        est = make()
        c0, t0 = time.process_time(), time.perf_counter()
        est.fit(X, y)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    print(json.dumps({"best": min(times), "median": statistics.median(times),
                      "cpu_best": min(cpu), "times": times, "cpu": cpu,
                      "warmup": warmup, "shape": list(X.shape),
                      "module": str(where)}))


# --------------------------------------------------------------------------
# Parent: interleaved subprocesses and the table
# --------------------------------------------------------------------------


def run_child(checkout, name, args):
    env = dict(os.environ, PYTHONPATH=str(checkout),
               PERCEPTRONS_DATA=str(args.data))
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                "NUMBA_NUM_THREADS"):
        env[var] = "1"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", name,
           "--checkout", str(checkout), "--inner", str(args.inner),
           "--min-time", str(args.min_time)]
    cmd += ["--quick"] if args.quick else []
    out = subprocess.run(cmd, env=env, capture_output=True, text=True,
                         cwd=str(checkout))
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(lines[-1])


def _spread(xs):
    return (max(xs) - min(xs)) / statistics.median(xs) if xs else float("nan")


def summarize(name, runs):
    """One table row from ``{"old": [...], "new": [...]}`` (child results,
    round by round)."""
    for side in ("old", "new"):
        bad = [r for r in runs[side] if "best" not in r]
        if bad:
            why = bad[0].get("skip") or "error: " + bad[0].get("error", "?")
            return [name, "-"] + ["-"] * 7 + [why]
    row = [name, "x".join(map(str, runs["old"][0]["shape"]))]
    for key in ("best", "cpu_best"):
        old = [r[key] for r in runs["old"]]
        new = [r[key] for r in runs["new"]]
        ratio = statistics.median(new) / statistics.median(old)
        rounds = [n / o for o, n in zip(old, new)]
        if key == "best":
            row += [f"{1e3 * statistics.median(old):.4g}",
                    f"{1e3 * statistics.median(new):.4g}"]
        row += [f"**{ratio:.3f}**" if key == "best" else f"{ratio:.3f}",
                f"{min(rounds):.2f}-{max(rounds):.2f}"]
        if key == "best":
            row += [f"{100 * _spread(old):.0f}% / {100 * _spread(new):.0f}%"]
    return row + [""]


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" for _ in header) + "|"]
    return "\n".join(out + ["| " + " | ".join(map(str, r)) + " |"
                            for r in rows])


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", type=Path, help="the reference checkout")
    parser.add_argument("--new", type=Path, help="the checkout to judge")
    parser.add_argument("--repeats", type=int, default=5,
                        help="processes per checkout and workload (default 5)")
    parser.add_argument("--inner", type=int, default=3,
                        help="timed calls per process (default 3)")
    parser.add_argument("--min-time", type=float, default=1.0,
                        help="more timed calls, up to %d, until they add up "
                             "to this many seconds (default 1)" % MAX_CALLS)
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        choices=sorted(WORKLOADS), help="these workloads only")
    parser.add_argument("--quick", action="store_true",
                        help="a9a 8,000 rows, MNIST 6,000, USPS 2,000")
    parser.add_argument("--data", type=Path, default=Path(
        os.environ.get("PERCEPTRONS_DATA", "/work/shared/data")),
        help="the data home (default $PERCEPTRONS_DATA or /work/shared/data)")
    parser.add_argument("--json", type=Path,
                        help="also write every child's result here")
    parser.add_argument("--list", action="store_true",
                        help="list the workloads and exit")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--checkout", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.inner, args.min_time, args.quick,
              args.checkout)
        return 0
    if args.list:
        for name, (desc, *_) in WORKLOADS.items():
            print(f"{name:24s} {desc}")
        return 0
    if args.old is None or args.new is None:
        parser.error("--old and --new are required")
    names = args.only or list(WORKLOADS)
    runs = {n: {"old": [], "new": []} for n in names}
    t_start = time.time()
    for r in range(args.repeats):
        for name in names:
            order = ("old", "new") if r % 2 == 0 else ("new", "old")
            got = {}
            for side in order:
                got[side] = run_child(getattr(args, side), name, args)
                runs[name][side].append(got[side])
                shown = (f"best {got[side]['best']:.3f} s, warm-up "
                         f"{got[side]['warmup']:.2f} s"
                         if "best" in got[side] else got[side])
                print(f"[{time.time() - t_start:6.0f} s] round {r + 1}/"
                      f"{args.repeats} {name} {side}: {shown}",
                      file=sys.stderr)
    header = ["workload", "rows x cols", "old (ms)", "new (ms)", "new/old",
              "per round", "spread old / new", "CPU new/old", "CPU per round",
              "note"]
    rows = [summarize(n, runs[n]) for n in names]
    load = Path("/proc/loadavg").read_text().split()[0] \
        if Path("/proc/loadavg").exists() else "?"
    print(f"old: {args.old}\nnew: {args.new}\n{args.repeats} processes per "
          f"checkout and workload, best of >= {args.inner} timed fits each "
          f"(more, up to {MAX_CALLS}, until {args.min_time:g} s) after one "
          f"warm-up; medians of the bests"
          f"{' (quick data)' if args.quick else ''}; wall time "
          f"{time.time() - t_start:.0f} s; 1-minute load at the end {load} "
          f"on {os.cpu_count()} cores.\n")
    print(md_table(header, rows))
    print()
    for name in names:
        print(f"- {name}: {WORKLOADS[name][0]}")
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
