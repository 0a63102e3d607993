"""How fast is one online pass of the kernel Ballseptron, per kernel value?

Question
--------
How long does one online pass of the kernel Ballseptron
(``Ballseptron(kernel="poly", degree=5, coef0=0.5, gamma=1.0, radius=r,
max_iter=1, shuffle=False)``, multiclass prototypes) take on USPS (7291
training examples) and on MNIST (``--mnist-n`` rows of the 60000 training
examples, a prefix in file order; all of them by default), with
the instances shifted to zero mean and scaled to average norm 1 (the setup of
Figure 3 of Shalev-Shwartz & Singer 2005), for r in {0, 0.1}; and how many
kernel evaluations per second is that, beside the foundation's
``KernelPerceptron(kernel="poly", degree=5, coef0=0.5, gamma=1.0, eta=1,
theta_init=0, threshold_step=0, multiclass="prototype", max_iter=1,
shuffle=False)`` on the same data in the same run? How does that rate compare
with a BLAS-blocked reference that computes the same kernel values as blocks
``X_block @ S.T`` followed by ``(γ G + c)^5`` in numpy? The dual loops compute
the kernel values of dense input in BLAS blocks themselves (128 presented
rows against the support held at the block's start, see
``perceptrons._loops.support``); the ratio tells how far a whole pass (blocks,
scores, updates, and the values against support vectors added inside a
block, computed row by row) is from the kernel values alone.

Command
-------
::

    python benchmarks/bench_kernel_pass.py            # full run, table to stdout
    python benchmarks/bench_kernel_pass.py --write    # ... and update BENCHMARKS.md
    python benchmarks/bench_kernel_pass.py --quick    # USPS, first 2000 rows (< 1 min)
    python benchmarks/bench_kernel_pass.py --mnist-n 20000   # MNIST prefix only

Data: ``perceptrons.datasets.load_named("usps")`` and ``load_named("mnist")``
(training parts), read from the data folder (``PERCEPTRONS_DATA`` overrides
the search). The mean and the average norm are those of the rows used.

What is timed
-------------
* **fit**: ``est.fit(X, y)`` with ``max_iter=1, shuffle=False``, i.e. one
  pass in the order of the file, plus what ``fit`` adds around it (input
  validation, label encoding, squared row norms, k(x, x), allocation of the
  kernel cache; all O(n d), small beside the pass).
* **kernel evaluations of the pass**: each step computes one kernel value per
  support vector held before the step (the kernel cache cannot help within
  the first pass: every row is presented once). With ``shuffle=False`` and
  one pass the support is append-only in row order and every update appends
  the presented row, so the count is exact:
  ``Σ_{s ∈ support_} (n - 1 - s)``, provided ``len(support_) == n_updates_``
  (no support vector ended with an all-zero coefficient column). Otherwise
  the table shows the upper bound ``Σ_{j < n_updates_} (n - 1 - j)`` (all
  updates first) and marks it "≤". For r > 0 the Ballseptron may recompute
  its prototype Gram matrix when ``‖w^ỹ - w^y‖²`` cancels; those kernel
  values (mostly cache hits) are not counted.
* **BLAS blocks**: the same kernel values, computed for row blocks of
  ``--block`` rows: ``G = X[lo:hi] @ S_<hi.T`` (S_<hi the support vectors of
  the fit with row index below ``hi``), ``G = γ G + c``, ``G⁵`` by square and
  multiply, in place. The blocks also compute the few pairs inside a block
  that the pass does not (support row ≥ presented row); the rate divides the
  values actually computed by the time. No scores, no updates: an upper
  bound on what blocked evaluation could give the pass.

* **streaming**: after a first ``partial_fit`` on the first 3000 USPS rows
  (500 with ``--quick``), 1000 (200) calls of ``partial_fit`` on one row
  each, in file order, per model; the table gives milliseconds per call
  (the whole call). Each timed round starts from a fresh first call
  (untimed).

Each model is timed on each data set in a fresh process of its own (this
script with ``--child``): a process that has fitted a large model before
(MNIST's r = 0.1 Ballseptron keeps 14,904 support vectors) runs later kernel
fits about 20 % slower (fresh pages for their 200 MB kernel cache), so
models timed one after another in one process were not comparable. In that
process each timed call is made once untimed first (numba compilation,
caches), then at least ``--repeat`` times round-robin (``_common.time_interleaved``), and
more (up to 50 rounds) until the case's timed calls add up to ``--min-time``
seconds, so the millisecond cases get many samples; tables show
the best run with the median beside it. BLAS/OpenMP pools are limited to one
thread with threadpoolctl for the whole run, and ``NUMBA_NUM_THREADS=1``.
"""

import os

for _var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
             "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

import scipy.linalg  # noqa: E402,F401  (load the thread pools before limiting)

import perceptrons  # noqa: E402
from perceptrons.datasets import load_named  # noqa: E402
from perceptrons._loops.support import BLOCK_ROWS  # noqa: E402

SECTION = "bench_kernel_pass"
KERNEL = dict(kernel="poly", degree=5, coef0=0.5, gamma=1.0)
RADII = (0.0, 0.1)


# ----------------------------------------------------------------------------
# Data and models
# ----------------------------------------------------------------------------


def paper_scaling(X):
    """Zero mean, average row norm 1 (Shalev-Shwartz & Singer, Sec. 5)."""
    X = np.array(X, dtype=np.float64)
    X -= X.mean(axis=0)
    X /= np.linalg.norm(X, axis=1).mean()
    return np.ascontiguousarray(X)


def case_loaders(quick, mnist_n):
    """One callable per data set, USPS first, each returning ``(name, X,
    y)`` scaled as in the paper's Figure 3 (loaded only when called: the
    parent process times nothing on MNIST, its children do)."""
    def usps():
        data = load_named("usps")
        n_usps = 2000 if quick else None
        return (f"USPS{' (first 2000)' if quick else ''}",
                paper_scaling(data.X_train[:n_usps]),
                np.asarray(data.y_train[:n_usps]))

    def mnist():
        data = load_named("mnist")
        n = min(mnist_n, data.X_train.shape[0])
        label = ("MNIST" if n == data.X_train.shape[0]
                 else f"MNIST (first {n})")
        return (label, paper_scaling(data.X_train[:n]),
                np.asarray(data.y_train[:n]))

    return [usps] + ([mnist] if not quick and mnist_n > 0 else [])


def models():
    """``[(name, r, estimator factory)]``."""
    out = []
    for r in RADII:
        out.append((f"Ballseptron r={r:g}", r,
                    lambda r=r: perceptrons.Ballseptron(
                        radius=r, max_iter=1, shuffle=False, **KERNEL)))
    out.append(("KernelPerceptron (prototype)", None,
                lambda: perceptrons.KernelPerceptron(
                    eta=1, theta_init=0, threshold_step=0,
                    multiclass="prototype", max_iter=1, shuffle=False,
                    **KERNEL)))
    return out


def kernel_evaluations(est, n):
    """(count, exact): kernel values the pass computed, from the support."""
    support = np.sort(np.asarray(est.support_, dtype=np.int64))
    u = int(est.n_updates_)
    if support.shape[0] == u:
        return int(np.sum(n - 1 - support)), True
    j = np.arange(u, dtype=np.int64)
    return int(np.sum(n - 1 - j)), False


# ----------------------------------------------------------------------------
# BLAS-blocked reference
# ----------------------------------------------------------------------------


def blas_reference(X, support, block):
    """(callable, n_values): the pass's kernel values as BLAS row blocks."""
    support = np.sort(np.asarray(support, dtype=np.int64))
    S = np.ascontiguousarray(X[support])
    gamma, c = KERNEL["gamma"], KERNEL["coef0"]
    n = X.shape[0]
    blocks = []
    n_values = 0
    for lo in range(0, n, block):
        hi = min(lo + block, n)
        m = int(np.searchsorted(support, hi - 1, side="left"))  # rows < hi-1
        if m:
            blocks.append((lo, hi, m))
            n_values += (hi - lo) * m

    def run():
        sink = 0.0
        for lo, hi, m in blocks:
            G = X[lo:hi] @ S[:m].T
            G *= gamma
            G += c
            G2 = G * G
            G2 *= G2
            G2 *= G          # (γ g + c)^5
            sink += G2[0, 0]
        return sink

    return run, n_values


# ----------------------------------------------------------------------------
# Run
# ----------------------------------------------------------------------------


def fmt_rate(x):
    return f"{x / 1e6:,.1f} M/s"


def run_case(name, X, y, repeat, min_time, block, log, only=None):
    """Table rows of the models on one data set (``only``: the model of
    that index in :func:`models` alone)."""
    n, d = X.shape
    rows = []
    for index, (label, r, make) in enumerate(models()):
        if only is not None and index != only:
            continue
        t0 = time.perf_counter()
        est = make().fit(X, y)            # support + compile (untimed)
        first = time.perf_counter() - t0
        evals, exact = kernel_evaluations(est, n)
        ref, ref_values = blas_reference(X, est.support_, block)
        log(f"  {label}: first fit {first:.2f} s, updates {est.n_updates_}, "
            f"support {est.support_.shape[0]}, kernel evals {evals:,}"
            f"{'' if exact else ' (upper bound)'}")
        times = C.time_interleaved(
            {"fit": lambda: make().fit(X, y), "blas": ref}, repeat=repeat,
            min_time=min_time)
        fit_t, blas_t = times["fit"], times["blas"]
        rate = evals / fit_t["min"]
        blas_rate = ref_values / blas_t["min"]
        log(f"    pass {fit_t['min']:.3f} s (median {fit_t['median']:.3f}), "
            f"{fmt_rate(rate)}; BLAS {blas_t['min']:.3f} s for "
            f"{ref_values:,} values, {fmt_rate(blas_rate)}; "
            f"ratio {blas_rate / rate:.1f}")
        margin = getattr(est, "n_margin_errors_", 0)
        rows.append([
            f"{name}, {n}×{d}", label, est.n_mistakes_, margin,
            est.support_.shape[0],
            f"{evals / 1e6:,.1f} M" if exact else f"≤ {evals / 1e6:,.1f} M",
            f"{fit_t['min']:.3f} ({fit_t['median']:.3f})",
            fmt_rate(rate),
            f"{blas_t['min']:.3f} ({blas_t['median']:.3f})",
            fmt_rate(blas_rate),
            f"{blas_rate / rate:.1f}×",
        ])
    return rows


def run_case_in_children(case_index, argv, log):
    """:func:`run_case`, each model in a fresh process (``--child``)."""
    rows = []
    for index in range(len(models())):
        done = subprocess.run(
            [sys.executable, __file__, *argv, "--child",
             f"{case_index},{index}"], capture_output=True, text=True,
            check=False)
        if done.returncode != 0:
            raise RuntimeError(f"data set {case_index}, model {index}: "
                               "child failed\n"
                               f"{done.stderr[-3000:]}")
        for line in done.stdout.splitlines():
            if line.startswith("ROW "):
                rows.append(json.loads(line[4:]))
            else:
                log(line)
    return rows


def run_stream(X, y, n_first, n_stream, repeat, log):
    """Rows: ``n_stream`` one-row ``partial_fit`` calls after a first call
    on ``n_first`` rows, per model; ms per call (the whole call)."""
    classes = np.unique(y)
    rows = []
    for label, _, make in models():
        def stream(est):
            for i in range(n_first, n_first + n_stream):
                est.partial_fit(X[i:i + 1], y[i:i + 1])
            return est

        def setup(make=make):
            est = make()
            est.partial_fit(X[:n_first], y[:n_first], classes=classes)
            return est

        times = C.time_interleaved({"stream": stream}, repeat=repeat,
                                   setup={"stream": setup})
        est = stream(setup())
        t = times["stream"]
        log(f"  stream {label}: {t['min']:.3f} s for {n_stream} calls, "
            f"support {est.support_.shape[0]}")
        rows.append([label, n_first, n_stream, est.support_.shape[0],
                     f"{1e3 * t['min'] / n_stream:.3f} "
                     f"({1e3 * t['median'] / n_stream:.3f})"])
    return rows


def main(argv=None):
    def options(parser):
        parser.add_argument("--mnist-n", type=int, default=60000,
                            help="MNIST rows (prefix of the training set); "
                                 "0 skips MNIST (default 60000, all)")
        parser.add_argument("--block", type=int, default=BLOCK_ROWS,
                            help="rows per BLAS block of the reference")
        parser.add_argument("--child", default=None,
                            help=argparse.SUPPRESS)

    args = C.parse_bench_args(argv, __doc__,
                              "USPS, first 2000 rows only (< 1 min)",
                              repeat=(3, 2), min_time=(2.0, 0.5),
                              add_arguments=options)
    repeat, min_time = args.repeat, args.min_time

    def log(msg):
        print(msg, flush=True)

    if args.child is not None:
        case_index, model_index = map(int, args.child.split(","))
        with threadpool_limits(limits=1):
            name, X, y = case_loaders(args.quick, args.mnist_n)[case_index]()
            log(f"{name}: {X.shape[0]} x {X.shape[1]}")
            # Compile (or load from numba's cache) on a tiny problem first.
            models()[model_index][2]().fit(X[:200], y[:200])
            for row in run_case(name, X, y, repeat, min_time, args.block,
                                log, only=model_index):
                print("ROW " + json.dumps(row), flush=True)
        return

    start = time.perf_counter()
    loads = [C.load_average()]
    child_argv = ((["--quick"] if args.quick else [])
                  + ["--mnist-n", str(args.mnist_n), "--block",
                     str(args.block), "--repeat", str(repeat), "--min-time",
                     str(min_time)])
    with threadpool_limits(limits=1):
        loaders = case_loaders(args.quick, args.mnist_n)
        _, X_usps, y_usps = loaders[0]()
        # Compile (or load from numba's cache) on a tiny problem first.
        for _, _, make in models():
            make().fit(X_usps[:200], y_usps[:200])
        rows = []
        for case_index in range(len(loaders)):
            rows += run_case_in_children(case_index, child_argv, log)
        n_first, n_stream = (500, 200) if args.quick else (3000, 1000)
        stream_rows = run_stream(X_usps, y_usps, n_first, n_stream, repeat,
                                 log)
        loads.append(C.load_average())
        machine = C.machine_description(loads)
    elapsed = time.perf_counter() - start

    header = ["data", "model", "mistakes", "margin errors", "support",
              "kernel evals", "pass s, best (median)", "evals/s",
              "BLAS blocks s, best (median)", "BLAS evals/s",
              "BLAS ÷ pass rate"]
    table = C.md_table(header, rows)
    stream_table = C.md_table(
        ["model", "first call rows", "one-row calls", "support after",
         "ms per call, best (median)"], stream_rows)
    cmd = ("python benchmarks/bench_kernel_pass.py"
           + (" --quick" if args.quick else "")
           + (f" --mnist-n {args.mnist_n}" if not args.quick else "")
           + f" --repeat {args.repeat}"
           + (" --write" if args.write else ""))
    report = "\n".join([
        "## One online pass of the kernel Ballseptron: kernel evaluations per second",
        "",
        "Question: how long does one pass (`max_iter=1, shuffle=False`) of "
        "`Ballseptron(kernel=\"poly\", degree=5, coef0=0.5, gamma=1.0, "
        "radius=r)` (multiclass prototypes) take on USPS and MNIST scaled as "
        "in the paper's Figure 3 (zero mean, average norm 1), how many kernel "
        "evaluations per second is that beside "
        "`KernelPerceptron(..., eta=1, theta_init=0, threshold_step=0, "
        "multiclass=\"prototype\")`, and how far is that rate from computing "
        "the same kernel values as BLAS blocks `X_block @ S.T`, "
        "`(γ G + c)^5`? See the docstring of "
        "`benchmarks/bench_kernel_pass.py` for what is timed.",
        "",
        f"Command: `{cmd}` ({elapsed:.0f} s in all).",
        "",
        table,
        "",
        "- *kernel evals*: Σ over the steps of the support size before the "
        "step, exact from `support_` (each update appends the presented row; "
        "\"≤\" marks the upper bound from `n_updates_` if some support vector "
        "was dropped). The Ballseptron's occasional recomputation of the "
        "prototype Gram matrix (r > 0) is not counted.",
        "- *pass*: the whole `fit` (validation, norms, allocation and the "
        f"pass), best of at least {repeat} runs (more until {min_time:g} s of "
        "timed calls) after one untimed warm-up, one thread, each model in "
        "a fresh process of its own; the run count is not shown.",
        f"- *BLAS blocks*: {args.block}-row blocks against the support "
        "vectors with a lower row index, `G = X[lo:hi] @ S.T; G = γG + c; "
        "G⁵`, no scores or updates; its rate counts the values it computed "
        "(slightly more than the pass's, the block diagonals).",
        "- *BLAS ÷ pass rate*: how many times the pure kernel-value rate "
        "exceeds the pass's; what separates them is the pass's other work "
        "(scores against the support, updates, copies into the cache, the "
        "values against support vectors added inside a block, computed row "
        "by row, and fit's validation). The dual loops compute the values "
        "of dense input in BLAS blocks of 128 rows themselves "
        "(`perceptrons._loops.support`); before that (row-by-row numba kernel "
        "values, BENCHMARKS.md of revision 9fd05b9, same machine kind) the "
        "ratio was 3.9× on USPS and 4.6–8.3× on MNIST (MNIST r=0.1: 114 s "
        "a pass).",
        "",
        "Streaming: an online learner fed one example at a time. After a "
        f"first `partial_fit` on {stream_rows[0][1]} USPS rows, "
        f"{stream_rows[0][2]} calls of one row each (the whole call: "
        "validation, the pass, the fitted attributes). A call shorter than "
        "16 rows gets its kernel values row by row (a BLAS block would pay "
        "for 128 rows), and the kernel Ballseptron carries its norms over "
        "from the previous call instead of recomputing them from all pairs "
        "of support vectors (O(support²) kernel values per call before).",
        "",
        stream_table,
        "",
        "Machine:",
        "",
        machine,
    ])
    print()
    C.publish(report, SECTION, args.write)


if __name__ == "__main__":
    main()
