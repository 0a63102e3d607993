"""How long does a user wait for the compiler on the first fit?

Question
--------
In a fresh install, numba's on-disk cache is empty: the first ``fit`` of an
estimator compiles its loop and helpers before it runs. How many CPU
seconds does that first fit cost beyond the import, per estimator family,
primal and kernel, and what does a later process pay once the cache is
written (issue #39.5: at most 1.5 s for a primal estimator, 4 s for a
kernel one)?

Command
-------
::

    python benchmarks/bench_first_fit.py --write
    python benchmarks/bench_first_fit.py --old /work/baseline --write  # before -> after
    python benchmarks/bench_first_fit.py --only Perceptron PDM

Method
------
Each case runs in a fresh child process (this script with ``--child``) with
``PYTHONPATH`` set to the package measured and the thread counts pinned to
1. The child times, in CPU seconds (``time.process_time``): the import
(``import numpy`` and ``from perceptrons import <Estimator>``, which loads
numpy, scipy, scikit-learn and numba); the first ``fit`` on 200 x 5
standard normal rows, 3 classes (seeded); a second ``fit`` in the same
process. Three first fits per case and checkout:

* **empty cache**: ``NUMBA_CACHE_DIR`` a new empty folder, nothing compiled
  (an install that skipped the build's precompilation, or another CPU);
* **installed**: the checkout's ``perceptrons`` folder copied as an install
  puts it (the build's step, ``perceptrons precompile``, run in the copy
  with numba's cache beside the sources, its CPU seconds reported once),
  then copied again per case so that no case feeds the next, and the child
  run with ``NUMBA_CACHE_DIR`` unset: what a user's first fit costs after
  ``pip install``; a checkout without ``perceptrons/precompile.py`` has no
  such step;
* **cached**: a second child with the empty-cache case's folder, now
  filled: what every later process pays.

``--old`` measures another checkout the same way, case by case interleaved
with the new one (old, new, new, old, ...), and the table gives both. CPU
time leaves out the time a process waited for a core; on a loaded machine a
compile still takes longer (caches shared with other processes), so the
load average is reported.
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (REPO_ROOT, _git_revision, load_average,  # noqa: E402
                     machine_description, md_table, write_section)

SECTION = "bench_first_fit"

#: (estimator, parameters): every registry estimator's defaults, and the
#: kernel estimators with an RBF kernel.
KERNEL_CASES = [("Perceptron", {"kernel": "rbf"}),
                ("Ballseptron", {"kernel": "rbf"}),
                ("PassiveAggressive", {"kernel": "rbf"}),
                ("ALMA", {"kernel": "rbf"}),
                ("HigherOrderPerceptron", {"kernel": "rbf"}),
                ("SecondOrderPerceptron", {"kernel": "rbf"})]

_CHILD = r"""
import sys, time, warnings
t0 = time.process_time()
import numpy as np
import perceptrons
cls = getattr(perceptrons, sys.argv[1])
t1 = time.process_time()
params = eval(sys.argv[2])
rng = np.random.default_rng(0)
X = rng.normal(size=(200, 5))
y = rng.integers(0, 3, 200)
warnings.simplefilter("ignore")
t2 = time.process_time()
cls(**params).fit(X, y)
t3 = time.process_time()
cls(**params).fit(X, y)
t4 = time.process_time()
assert perceptrons.__file__.startswith(sys.argv[3]), perceptrons.__file__
print(t1 - t0, t3 - t2, t4 - t3)
"""


def cases(only=None):
    """The cases measured: every registry estimator's defaults, then the
    kernel cases."""
    from perceptrons.registry import estimator_classes
    out = [(name, {}) for name in estimator_classes()
           if name != "KernelPerceptron"]
    out += KERNEL_CASES
    if only:
        out = [case for case in out if case[0] in only]
    return out


def run_child(checkout, name, params, cache_dir):
    """(import, first fit, second fit) CPU seconds of one fresh process;
    ``cache_dir`` None: numba's cache beside the package's sources."""
    env = dict(os.environ, PYTHONPATH=str(checkout), OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               NUMBA_NUM_THREADS="1")
    env.pop("NUMBA_CACHE_DIR", None)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, name, repr(params),
         str(Path(checkout).resolve())],
        env=env, capture_output=True, text=True, check=False,
        cwd=tempfile.gettempdir())
    if out.returncode != 0:
        raise RuntimeError(f"{name}{params} in {checkout}:\n{out.stderr}")
    return [float(v) for v in out.stdout.split()]


def _copy_package(source_root, target_root, leave_out):
    shutil.copytree(Path(source_root) / "perceptrons",
                    Path(target_root) / "perceptrons",
                    ignore=shutil.ignore_patterns(leave_out))


def install(checkout, target_root, only=None):
    """The package of ``checkout`` put into ``target_root`` as the build
    puts it (sources, then the build's precompilation beside them; of the
    estimators ``only`` if given).

    Returns
    -------
    float or None
        CPU seconds of the precompilation; None (nothing put) if the
        checkout has none.
    """
    if not (Path(checkout) / "perceptrons" / "precompile.py").exists():
        return None
    _copy_package(checkout, target_root, "__pycache__")
    env = dict(os.environ, PYTHONPATH=str(target_root),
               PYTHONDONTWRITEBYTECODE="1")
    env.pop("NUMBA_CACHE_DIR", None)
    names = ["--only", *only] if only else []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "perceptrons.cli", "precompile",
                    *names], env=env, cwd=target_root, check=True,
                   capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ((after.ru_utime - before.ru_utime)
            + (after.ru_stime - before.ru_stime))


def measure(checkout, installed, name, params):
    """Empty-cache, installed and cached figures of one case."""
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache_dir:
        imp, cold, second = run_child(checkout, name, params, cache_dir)
        _, warm, _ = run_child(checkout, name, params, cache_dir)
    out = {"import": imp, "cold": cold, "second": second, "warm": warm}
    if installed is not None:
        with tempfile.TemporaryDirectory(prefix="installed-") as root:
            _copy_package(installed, root, "*.pyc")
            out["installed"] = run_child(root, name, params, None)[1]
    return out


def label(name, params):
    return name + ("" if not params else "(" + ", ".join(
        f"{k}={v!r}" for k, v in params.items()) + ")")


def report(results, old, new, loads, build):
    has_old = any("old" in r for r in results)
    sides = ["old", "new"] if has_old else ["new"]
    header = ["estimator", "import (s)"]
    for side in sides:
        tag = f", {side}" if has_old else ""
        header += [f"empty cache{tag} (s)"]
        if build.get(side) is not None:
            header += [f"installed{tag} (s)"]
    header += ["second fit (s)", "cached, next process (s)"]
    rows = []
    for r in results:
        n = r["new"]
        row = [label(r["name"], r["params"]), f"{n['import']:.2f}"]
        for side in sides:
            row += [f"{r[side]['cold']:.2f}"]
            if build.get(side) is not None:
                row += [f"**{r[side]['installed']:.2f}**"]
        row += [f"{n['second']:.3f}", f"{n['warm']:.2f}"]
        rows.append(row)
    built = "; ".join(f"{side}: {build[side]:.0f} s" for side in sides
                      if build.get(side) is not None)
    lines = ["## The first fit after install (issue #39.5)", "",
             machine_description(loads), "",
             "Command: `python benchmarks/bench_first_fit.py "
             + (f"--old {old} " if has_old else "") + "--write`; the "
             "method is in the script's docstring. CPU seconds beyond the "
             "import of one fresh process per case: its first fit with an "
             "empty numba cache, its first fit after an install (the "
             "build's `perceptrons precompile` beside the sources"
             + (f", CPU {built}" if built else "") + "), the empty-cache "
             "process's second fit, and a later process's first fit with "
             "the cache that process wrote. 200 x 5 rows, 3 classes."
             + (f" Old: `{old}` ({_git_revision(old)}), new: "
                f"{_git_revision(new)}." if has_old else ""), "",
             md_table(header, rows)]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", help="another checkout, measured beside")
    parser.add_argument("--new", default=str(REPO_ROOT),
                        help="the checkout measured (default: this one)")
    parser.add_argument("--only", nargs="+", help="estimator names")
    parser.add_argument("--json", help="write the figures as JSON")
    parser.add_argument("--write", action="store_true",
                        help="replace the BENCHMARKS.md section")
    args = parser.parse_args(argv)
    loads = [load_average()]
    results = []
    start = time.perf_counter()
    sides = ["new"] + (["old"] if args.old else [])
    checkouts = {"new": args.new, "old": args.old}
    with tempfile.TemporaryDirectory(prefix="install-") as builds:
        build, installed = {}, {}
        for side in sides:
            installed[side] = Path(builds) / side
            build[side] = install(checkouts[side], installed[side],
                                  args.only)
            if build[side] is None:
                installed[side] = None
            print(f"[{time.perf_counter() - start:6.0f} s] {side} built: "
                  f"{build[side]}", flush=True)
        for k, (name, params) in enumerate(cases(args.only)):
            entry = {"name": name, "params": params}
            for side in (sides if k % 2 == 0 else sides[::-1]):
                entry[side] = measure(checkouts[side], installed[side],
                                      name, params)
            results.append(entry)
            shown = {s: {key: round(v, 2) for key, v in entry[s].items()}
                     for s in sides}
            print(f"[{time.perf_counter() - start:6.0f} s] "
                  f"{label(name, params)}: {shown}", flush=True)
    loads.append(load_average())
    text = report(results, args.old, args.new, tuple(loads), build)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    if args.write:
        write_section(SECTION, text)


if __name__ == "__main__":
    main()
