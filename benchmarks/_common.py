"""Helpers shared by the ``bench_<question>.py`` scripts.

Nothing here belongs to the package: these are timing, data-loading and
report-writing utilities for the benchmark scripts only.

* :func:`time_interleaved` times several callables round-robin (a warm-up call
  each first, STYLE habit 15), so slow drift on a noisy machine hits them all
  alike.
* :func:`blas_read_bandwidth` measures the read bandwidth of one core with a
  BLAS matrix-vector product, the memory-bandwidth floor of a pass over X.
* :func:`load_libsvm` reads ``a9a``/``w8a`` with the package's own loader
  (:func:`perceptrons.datasets.load_named`, which finds the data folder) as
  CSR with int32 indices; :func:`make_realsim_like` generates a seeded
  real-sim-shaped CSR matrix.
* :func:`machine_description` and :func:`write_section` build the header of a
  BENCHMARKS.md section and replace that section in place, so that every
  benchmark owns one marked block of the file.
"""

import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from perceptrons.datasets import load_named

REPO_ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS_MD = REPO_ROOT / "BENCHMARKS.md"

# --------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------


def summarize(times):
    """Return ``{"median", "min", "max", "n", "all"}`` of a list of seconds."""
    return {
        "median": statistics.median(times),
        "min": min(times),
        "max": max(times),
        "n": len(times),
        "all": list(times),
    }


def time_interleaved(funcs, repeat, setup=None, min_time=0.0, max_rounds=50):
    """Time each callable round-robin, after one untimed warm-up call each.

    Parameters
    ----------
    funcs : dict of str -> callable
        The code to time. Each is called once untimed first (compilation,
        caches, lazy imports), then timed rounds call them in turn.
    repeat : int
        Least number of timed rounds.
    setup : dict of str -> callable, optional
        Called untimed before each call of the function of the same name
        (e.g. to reset state); its return value is passed to the function.
    min_time : float, default=0.0
        More rounds are run, up to ``max_rounds``, until the timed calls add
        up to this many seconds: short cases get more samples, which makes
        their minimum robust on a noisy machine.
    max_rounds : int, default=50

    Returns
    -------
    dict of str -> dict
        :func:`summarize` of each function's times (time.perf_counter).
    """
    setup = setup or {}

    def call(name, f):
        arg = setup[name]() if name in setup else None
        t0 = time.perf_counter()
        f(arg) if name in setup else f()
        return time.perf_counter() - t0

    for name, f in funcs.items():
        call(name, f)
    times = {name: [] for name in funcs}
    spent, rounds = 0.0, 0
    while rounds < repeat or (spent < min_time and rounds < max_rounds):
        for name, f in funcs.items():
            t = call(name, f)
            times[name].append(t)
            spent += t
        rounds += 1
    return {name: summarize(ts) for name, ts in times.items()}


def parse_bench_args(argv, doc, quick_help, repeat, min_time,
                     add_arguments=None):
    """The options every ``bench_<question>.py`` takes, with their defaults.

    ``--quick`` (``quick_help``), ``--write``, ``--repeat`` and
    ``--min-time``, whose defaults are ``(full, quick)`` pairs resolved
    after parsing; ``add_arguments(parser)`` adds a script's own options.

    Returns
    -------
    argparse.Namespace
    """
    import argparse

    parser = argparse.ArgumentParser(
        description=doc.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help=quick_help)
    parser.add_argument("--write", action="store_true",
                        help="replace this benchmark's section of "
                             "BENCHMARKS.md")
    parser.add_argument("--repeat", type=int, default=None,
                        help="least number of timed runs per measurement "
                             f"(default {repeat[0]}; quick: {repeat[1]})")
    parser.add_argument("--min-time", type=float, default=None,
                        help="keep adding timed rounds until they add up to "
                             f"this many seconds (default {min_time[0]:g}; "
                             f"quick: {min_time[1]:g})")
    if add_arguments is not None:
        add_arguments(parser)
    args = parser.parse_args(argv)
    if args.repeat is None:
        args.repeat = repeat[1] if args.quick else repeat[0]
    if args.min_time is None:
        args.min_time = min_time[1] if args.quick else min_time[0]
    return args


def load_average():
    """The 1-minute load average (other processes compete for 2 cores here)."""
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def cpu_busy(seconds=2.0):
    """Fraction of all cores not idle over ``seconds`` (from /proc/stat)."""
    def sample():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v), v[3] + v[4]  # total, idle + iowait

    try:
        t0, i0 = sample()
        time.sleep(seconds)
        t1, i1 = sample()
    except (OSError, ValueError, IndexError):
        return float("nan")
    return 1.0 - (i1 - i0) / max(t1 - t0, 1)


# --------------------------------------------------------------------------
# Memory bandwidth
# --------------------------------------------------------------------------

_BANDWIDTH_SNIPPET = r"""
import json, sys, time
import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits
mbytes, repeat = int(sys.argv[1]), int(sys.argv[2])
with threadpool_limits(limits=1):
    n_cols = 8192
    n_rows = max(1, mbytes * 2**20 // (8 * n_cols))
    A = np.random.default_rng(0).random((n_rows, n_cols))
    v = np.ones(n_cols)
    A @ v
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        A @ v
        best = min(best, time.perf_counter() - t0)
    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
print(json.dumps({"bytes": A.nbytes, "seconds": best,
                  "gb_per_s": A.nbytes / best / 1e9,
                  "kernel": blas[0].get("architecture") if blas else None,
                  "blas": (blas[0].get("internal_api") + " "
                           + blas[0].get("version")) if blas else None,
                  "num_threads": blas[0].get("num_threads") if blas else None}))
"""


def blas_read_bandwidth(mbytes=256, repeat=10, unset_coretype=False):
    """Read bandwidth of one core: best ``A @ v`` over a dense float64 matrix.

    Runs in a child process so that the OpenBLAS kernel can be chosen by the
    environment: with ``unset_coretype=True`` the child runs without
    ``OPENBLAS_CORETYPE`` and ``OPENBLAS_L2_SIZE`` (this machine pins an older
    kernel for safety; a current OpenBLAS picks its own). Only that child's
    environment changes.

    Returns
    -------
    dict
        ``bytes``, ``seconds`` (best of ``repeat``), ``gb_per_s`` (1e9 B/s),
        ``kernel`` (threadpoolctl's ``architecture``), ``blas``,
        ``num_threads``, ``env`` (the OPENBLAS_* settings in force).
    """
    env = dict(os.environ)
    if unset_coretype:
        env.pop("OPENBLAS_CORETYPE", None)
        env.pop("OPENBLAS_L2_SIZE", None)
    out = subprocess.run(
        [sys.executable, "-c", _BANDWIDTH_SNIPPET, str(mbytes), str(repeat)],
        env=env, capture_output=True, text=True, check=True,
    )
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["env"] = ", ".join(
        f"{k}={env[k]}" for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
        if k in env) or "OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE unset"
    return res


def epoch_bytes(X):
    """Bytes one pass over X must read: dense ``X.nbytes``, CSR its 3 arrays."""
    if sp.issparse(X):
        return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    return X.nbytes


def l3_cache_bytes():
    """Size of the last-level cache from sysfs (None when unknown)."""
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    best = None
    for idx in sorted(base.glob("index*")):
        try:
            level = int((idx / "level").read_text())
            size = (idx / "size").read_text().strip()
        except OSError:
            continue
        mult = {"K": 2**10, "M": 2**20, "G": 2**30}.get(size[-1], 1)
        nbytes = int(size.rstrip("KMG")) * mult
        if best is None or level > best[0]:
            best = (level, nbytes)
    return best[1] if best else None


# --------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------


def int32_csr(X):
    """``X`` as CSR with sorted int32 indices, as scikit-learn's SGD wants
    them (a loader may give int64), so that no estimator pays a conversion."""
    X = sp.csr_matrix(X, dtype=np.float64)
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    X.sort_indices()
    return X


def load_libsvm(name):
    """``a9a`` or ``w8a`` (training part) through
    :func:`perceptrons.datasets.load_named`: CSR with int32 indices, labels ±1."""
    data = load_named(name)
    return int32_csr(data.X), data.y


def stacked(X, y, reps):
    """CSR rows ``X`` (labels ``y``) stacked ``reps`` times, in memory, int32
    indices: a set larger than the last-level cache from real rows (a9a
    as :func:`load_libsvm` gives it, which the caller has already read)."""
    return int32_csr(sp.vstack([X] * reps, format="csr")), np.tile(y, reps)


def make_realsim_like(n_samples=72309, n_features=20958, mean_nnz=51.3,
                      positive_fraction=0.308, noise=0.03, random_state=0):
    """A seeded CSR matrix shaped like LIBSVM's real-sim (which is not here).

    Rows are bags of words: term ids drawn from a Zipf-like distribution over
    shuffled columns, row lengths log-normal (mean ``mean_nnz`` distinct terms
    per row after merging repeats, calibrated by redrawing), values
    ``(1 + log tf) * idf`` and rows scaled to unit L2 norm (as real-sim's).
    Labels are the sign of a random sparse hyperplane, thresholded so that
    ``positive_fraction`` of the rows are positive (real-sim: 22238 of
    72309), then a fraction ``noise`` of them flipped.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features), float64,
        int32 indices, sorted, no duplicates
    y : ndarray of shape (n_samples,), int64 in {-1, +1}
    """
    rng = np.random.default_rng(random_state)
    ranks = rng.permutation(n_features)          # column of the r-th term
    p = 1.0 / (np.arange(n_features) + 10.0) ** 1.0
    p /= p.sum()
    sigma = 0.8
    lengths_u = rng.standard_normal(n_samples)  # reused by the redraw
    words_u = None

    def draw(target):
        mu = np.log(target) - sigma**2 / 2
        lengths = np.clip(np.rint(np.exp(mu + sigma * lengths_u)), 1,
                          n_features).astype(np.int64)
        rows = np.repeat(np.arange(n_samples), lengths)
        nonlocal words_u
        if words_u is None or words_u.shape[0] < rows.shape[0]:
            words_u = rng.random(int(rows.shape[0] * 1.5))
        cols = ranks[np.minimum(np.searchsorted(np.cumsum(p),
                                                words_u[:rows.shape[0]]),
                                n_features - 1)]
        X = sp.csr_matrix((np.ones(rows.shape[0]), (rows, cols)),
                          shape=(n_samples, n_features))
        X.sum_duplicates()
        return X

    target = mean_nnz
    for _ in range(3):  # repeats merge into one term: aim higher, redraw
        X = draw(target)
        target *= mean_nnz / (X.nnz / n_samples)
    df = np.bincount(X.indices, minlength=n_features)
    idf = np.log(n_samples / np.maximum(df, 1))
    X.data = (1.0 + np.log(X.data)) * idf[X.indices] + 1e-3
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = int32_csr(sp.diags(1.0 / norms) @ X)
    w_true = np.zeros(n_features)
    support = rng.choice(n_features, size=n_features // 10, replace=False)
    w_true[support] = rng.standard_normal(support.shape[0])
    score = X @ w_true
    y = np.where(score > np.quantile(score, 1 - positive_fraction), 1, -1)
    flip = rng.random(n_samples) < noise
    y[flip] = -y[flip]
    return X, y.astype(np.int64)


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------


def _cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _git_revision(checkout=REPO_ROOT):
    try:
        sha = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                             cwd=checkout, capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "perceptrons"],
                               cwd=checkout, capture_output=True, text=True,
                               check=True).stdout.strip()
        return sha + (" + uncommitted changes under perceptrons/" if dirty
                      else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine_description(loads=None):
    """Markdown bullet list: CPU, cores, memory, versions, BLAS, date.

    ``loads`` is an optional ``(start, end)`` pair of 1-minute load averages.
    """
    import numba
    import scipy
    import sklearn
    from threadpoolctl import threadpool_info

    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
        mem = f"{mem:.0f} GiB"
    except (ValueError, OSError):
        mem = "unknown"
    l3 = l3_cache_bytes()
    pools = []
    for info in threadpool_info():
        pools.append(
            f"{info.get('internal_api')} {info.get('version')} "
            f"(kernel {info.get('architecture')}, "
            f"{info.get('num_threads')} thread(s) under the limit, "
            f"{Path(info.get('filepath', '')).name})")
    env = ", ".join(f"{k}={os.environ[k]}" for k in
                    ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
                     "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                     "NUMBA_NUM_THREADS") if k in os.environ)
    lines = [
        f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- CPU: {_cpu_model()}, {os.cpu_count()} logical cores"
        + (f", last-level cache {l3 / 2**20:.0f} MiB" if l3 else "")
        + f", {mem} RAM",
        f"- Python {platform.python_version()}, numpy {np.__version__}, "
        f"scipy {scipy.__version__}, numba {numba.__version__}, "
        f"scikit-learn {sklearn.__version__}",
        "- thread pools: " + ("; ".join(pools) or "none loaded"),
        f"- environment: {env or 'no OPENBLAS_*/NUMBA_NUM_THREADS set'}",
        f"- perceptrons revision: {_git_revision()}",
    ]
    if loads:
        lines.append(
            "- 1-minute load average at start / end of the run: "
            + " / ".join("?" if x is None else f"{x:.2f}" for x in loads)
            + f" (on {os.cpu_count()} cores; this run accounts for about 1, the "
            "rest is other processes competing for the cores and caches)")
    return "\n".join(lines)


_PREAMBLE = """# Benchmarks

Each section below is written by one script in `benchmarks/`, which answers
one question (see its docstring for the command). Rerun the script with
`--write` to replace its section; the other sections are left as they are.
Text between a section's `<!-- BEGIN name -->` and `<!-- END name -->`
markers is overwritten, so do not edit it by hand.
"""


def write_section(name, body, path=BENCHMARKS_MD):
    """Replace (or append) the block of ``path`` marked with ``name``."""
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    block = f"{begin}\n{body.rstrip()}\n{end}\n"
    text = path.read_text() if path.exists() else _PREAMBLE
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        text = head + block.rstrip("\n") + tail
    else:
        text = text.rstrip("\n") + "\n\n" + block
    path.write_text(text)


def command_line(script, args, quick_note, extra=""):
    """The report's "Command:" sentence for ``args`` of
    :func:`parse_bench_args`; ``quick_note`` says what ``--quick`` runs."""
    return (f"Command: `python benchmarks/{script} "
            + ("--quick " if args.quick else "")
            + f"--repeat {args.repeat} --write`"
            + (f" (**quick mode: {quick_note}, not the answer**)"
               if args.quick else "")
            + f"{extra}; the method is in the script's docstring.")


def publish(report, name, write):
    """Print a report; with ``write``, also replace its BENCHMARKS.md section."""
    print(report)
    if write:
        write_section(name, report)
        print(f"\nwrote section '{name}' of {BENCHMARKS_MD}", file=sys.stderr)


def seconds(x, digits=3):
    """Seconds for a table cell: 3 decimals, whole seconds from 100 s,
    milliseconds below 10 ms, "–" for None."""
    if x is None:
        return "–"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.{digits}f}" if x >= 0.01 else f"{x * 1e3:.2f} ms"


def md_table(header, rows):
    """A Markdown table from a header list and rows of cells."""
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def epoch_timer(est, X, y, order):
    """(setup, run, counts) timing one compiled pass of fitted ``est``.

    ``setup`` gives ``est`` a fresh state and begins a one-pass call the
    way ``fit`` does (the driver's ``perceptrons.models._driver.training``:
    ``start``, then the algorithm's ``begin_call``); ``run`` is the
    algorithm's ``run_epoch`` alone over ``order``. Raises if the pass no
    longer makes ``fit``'s updates.
    """
    import numpy as np

    from perceptrons.models._driver.inputs import call_targets, validate_input
    from perceptrons.models._driver.training import start

    algo = est._algorithm_of_params()
    X_, y_, call = validate_input(est, algo, X, y, reset=True)
    call.classes = np.unique(y_) if call.labels is None else call.labels[0]
    targets = call_targets(call, y_)
    counts = {}

    def setup():
        start(est, algo, call)
        call.n_passes = 1
        call.state = est.state_
        call.t = call.state.t
        algo.begin_call(call)
        call.n_iter = call.state.n_iter

    def run(_=None):
        counts["mistakes"], counts["updates"] = algo.run_epoch(call, targets,
                                                               order)

    n_updates_fit = est.n_updates_
    setup()
    run()
    if counts["updates"] != n_updates_fit:
        raise RuntimeError(f"the timed epoch made {counts['updates']} "
                           f"updates, fit made {n_updates_fit}: the hooks no "
                           "longer reproduce fit's epoch")
    return setup, run, counts
