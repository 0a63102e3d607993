"""Regenerate every section of BENCHMARKS.md in one run.

Question
--------
What does every benchmark say at one revision, on one machine, on one
day? Each section of ``BENCHMARKS.md`` is written by its own script; run
one by one, the sections drift apart (other revisions, other days, other
loads). This runner calls every script with ``--write`` and the options its
section was made with, one after another, each in a fresh process, and
writes a section of its own that names the revision, the date, each
script's wall time and how busy the machine was before each.

Command
-------
::

    python benchmarks/run_all.py              # every section (about 2 h)
    python benchmarks/run_all.py --dry-run    # the commands only
    python benchmarks/run_all.py --only bench_n_jobs bench_epoch_vs_sklearn

A script that fails is reported in the summary (its section keeps its old
text) and the run goes on. Run it on a quiet machine: nothing else should
use the cores while it runs (``busy before`` shows the share of the cores
other processes used in the 2 s before each script).
"""

import argparse
import datetime
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

SECTION = "run_all"

#: In the order of BENCHMARKS.md: (script, options of its section).
SCRIPTS = [
    ("bench_epoch_vs_sklearn", ["--repeat", "7"]),
    ("bench_kernel_pass", ["--mnist-n", "60000", "--repeat", "3"]),
    ("bench_pdm_vs_dcd", ["--repeat", "5"]),
    ("bench_higher_order", ["--repeat", "2"]),
    ("bench_at_scale", ["--repeat", "5"]),
    ("bench_model_selection", ["--repeat", "2"]),
    ("bench_streaming", ["--repeat", "2"]),
    ("bench_parameter_mixing", ["--repeat", "3"]),
    ("bench_model_file_ratio", []),
    ("bench_float32_memory",
     ["--only", "Perceptron", "PDM", "SecondOrderPerceptron"]),
    ("bench_n_jobs", ["--repeat", "5"]),
    ("bench_one_at_a_time", ["--repeat", "3"]),
    ("bench_svmlight_parser", []),
    ("bench_budget", ["--repeat", "2"]),
    ("bench_learners", []),
    ("bench_first_fit", []),
    ("bench_river_streams", ["--repeat", "3"]),
]


def command(script, options):
    """The command line that regenerates one section."""
    return [sys.executable, str(Path(__file__).resolve().parent
                                / f"{script}.py"), *options, "--write"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true",
                        help="print the commands, run nothing")
    parser.add_argument("--only", nargs="+", default=None,
                        metavar="SCRIPT", help="these scripts only")
    args = parser.parse_args(argv)
    names = [name for name, _ in SCRIPTS]
    unknown = sorted(set(args.only or []) - set(names))
    if unknown:
        parser.error(f"unknown scripts {unknown}; known: {names}")
    chosen = [(s, o) for s, o in SCRIPTS if not args.only or s in args.only]
    if args.dry_run:
        for script, options in chosen:
            print(" ".join(["python", f"benchmarks/{script}.py", *options,
                            "--write"]))
        return 0
    revision = C._git_revision()
    started = datetime.datetime.now(datetime.timezone.utc)
    rows, failed = [], []
    for script, options in chosen:
        busy = C.cpu_busy(2.0)
        load = C.load_average()
        print(f"== {script} (cores busy before: {busy:.0%})", flush=True)
        t0 = time.perf_counter()
        done = subprocess.run(command(script, options), cwd=C.REPO_ROOT,
                              check=False)
        seconds = time.perf_counter() - t0
        if done.returncode != 0:
            failed.append(script)
        rows.append([f"`{script}`", " ".join(options) or "–",
                     f"{seconds:.0f}", f"{busy:.0%}",
                     "–" if load is None else f"{load:.2f}",
                     "ok" if done.returncode == 0
                     else f"**failed ({done.returncode})**"])
    ended = datetime.datetime.now(datetime.timezone.utc)
    report = "\n".join([
        "## The full run: every section at one revision",
        "",
        "Command: `python benchmarks/run_all.py`"
        + (f" `--only {' '.join(args.only)}`" if args.only else "")
        + "; each script runs in a fresh process with `--write` and the "
        "options below, one after another.",
        "",
        f"- revision: {revision}",
        f"- started {started:%Y-%m-%d %H:%M} UTC, ended "
        f"{ended:%Y-%m-%d %H:%M} UTC "
        f"({(ended - started).total_seconds() / 60:.0f} min)",
        "- *busy before*: the share of both cores that other processes "
        "used in the 2 s before the script started; *load*: the 1-minute "
        "load average then.",
        "",
        C.md_table(["script", "options", "wall s", "busy before", "load",
                    "result"], rows),
    ])
    print()
    C.publish(report, SECTION, True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
