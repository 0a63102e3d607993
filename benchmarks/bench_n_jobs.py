"""Does ``n_jobs=2`` make the parallel parts twice as fast, with the same bits?

Question
--------
Issue #24: on 2 cores, ``n_jobs=2`` ÷ ``n_jobs=1`` ≤ 0.6 for the MNIST
one-vs-rest epoch of ``Perceptron``, a USPS and an MNIST pass of the kernel
perceptron (prototypes, the Ballseptron paper's degree-5 kernel), and
``predict`` on MNIST's test set with a kernel model; and the same fitted
state (and decision values) bit for bit. PDM's and ROMMA's one-vs-rest
problems on threads are timed beside them.

Command
-------
::

    python benchmarks/bench_n_jobs.py            # ~3 min on 2 idle cores
    python benchmarks/bench_n_jobs.py --write    # ... and BENCHMARKS.md
    python benchmarks/bench_n_jobs.py --quick    # smoke run (< 1 min)

Data come from ``shared/data`` (``PERCEPTRONS_DATA`` overrides the search).

What is timed
-------------
* **MNIST one-vs-rest epoch**: the compiled pass alone
  (:func:`_common.epoch_timer`: ``_run_epoch`` from a fresh state, as
  ``fit`` makes it) of ``Perceptron(max_iter=1, shuffle=False)``, pixels
  / 255, and the whole ``fit``.
* **kernel passes**: ``KernelPerceptron(eta=1, theta_init=0,
  threshold_step=0, multiclass="prototype", kernel="poly", degree=5,
  coef0=0.5, gamma=1, max_iter=1, shuffle=False).fit`` on USPS (7,291 rows)
  and on the first 20,000 MNIST rows and all 60,000 (``--mnist-n``), each
  set scaled as in the paper's Figure 3 (zero mean, average norm 1); the
  whole ``fit``. The longer the pass, the larger its support set and the
  more of it goes to the threaded tiles of kernel values (the rest of a
  step, its scores and update, is sequential).
* **kernel prediction**: ``decision_function`` of MNIST's 10,000 test
  images by the kernel perceptron of the 20,000-row pass.
* **PDM, ROMMA**: ``fit`` to ε = 0.1 on the first 5,000 MNIST rows, 10
  problems.

BLAS is limited to one thread (threadpoolctl) so that ``n_jobs`` is the only
source of threads; numba's pool has every core. Each timed call is made
once untimed first, then ``--repeat`` times round-robin (n_jobs=1, n_jobs=2,
...); ratios are of the best runs, the ratio of medians in parentheses.
Each case checks that both fits give the same state (and the same decision
values) bit for bit.
"""

import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

import perceptrons  # noqa: E402
from perceptrons.datasets import load_named  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests._states import assert_same_state  # noqa: E402

KERNEL = dict(kernel="poly", degree=5, coef0=0.5, gamma=1.0)
GOAL = 0.6


def paper_scaling(X):
    """Zero mean, average row norm 1 (Shalev-Shwartz & Singer, Sec. 5)."""
    X = np.array(X, dtype=np.float64)
    X -= X.mean(axis=0)
    X /= np.linalg.norm(X, axis=1).mean()
    return np.ascontiguousarray(X)


def kernel_perceptron(n_jobs):
    return perceptrons.KernelPerceptron(
        eta=1, theta_init=0, threshold_step=0, multiclass="prototype",
        max_iter=1, shuffle=False, n_jobs=n_jobs, **KERNEL)


def fit_case(name, make, X, y, repeat, min_time):
    """Time ``make(n_jobs).fit(X, y)`` for n_jobs 1 and 2; same state."""
    fitted = {}

    def fitter(n_jobs):
        def run():
            fitted[n_jobs] = make(n_jobs).fit(X, y)
        return run

    times = C.time_interleaved({1: fitter(1), 2: fitter(2)}, repeat,
                               min_time=min_time)
    assert_same_state(fitted[1], fitted[2])
    return name, times, fitted[1]


def epoch_case(X, y, repeat, min_time):
    """The MNIST one-vs-rest epoch alone, n_jobs 1 and 2."""
    order = np.arange(X.shape[0], dtype=np.int64)
    funcs, setups, models = {}, {}, {}
    for n_jobs in (1, 2):
        est = perceptrons.Perceptron(max_iter=1, shuffle=False,
                                     n_jobs=n_jobs).fit(X, y)
        setup, run, _ = C.epoch_timer(est, X, y, order)
        funcs[n_jobs], setups[n_jobs], models[n_jobs] = run, setup, est
    times = C.time_interleaved(funcs, repeat, setup=setups,
                               min_time=min_time)
    assert_same_state(models[1], models[2])
    return (f"MNIST one-vs-rest epoch (Perceptron, {X.shape[0]}×"
            f"{X.shape[1]})"), times


def predict_case(model, X_test, repeat, min_time):
    """``decision_function`` of the test rows, n_jobs 1 and 2."""
    out = {}

    def predictor(n_jobs):
        def run():
            model.set_params(n_jobs=n_jobs)
            out[n_jobs] = model.decision_function(X_test)
        return run

    times = C.time_interleaved({1: predictor(1), 2: predictor(2)}, repeat,
                               min_time=min_time)
    assert np.array_equal(out[1], out[2])
    return times


def row(name, times):
    one, two = times[1], times[2]
    ratio = two["min"] / one["min"]
    verdict = "**pass**" if ratio <= GOAL else "**FAIL**"
    return [name, f"{C.seconds(one['min'])} ({C.seconds(one['median'])})",
            f"{C.seconds(two['min'])} ({C.seconds(two['median'])})",
            f"{ratio:.2f} ({two['median'] / one['median']:.2f})",
            f"≤ {GOAL}", verdict]


def main(argv=None):
    def options(p):
        p.add_argument("--mnist-n", type=int, nargs="+",
                       default=[20000, 60000],
                       help="MNIST rows of the kernel passes, one pass each "
                            "(default: 20000 and all 60000); the prediction "
                            "uses the model of the first")

    args = C.parse_bench_args(
        argv, __doc__, "subsamples, 2 runs", repeat=(5, 2),
        min_time=(2.0, 0.0), add_arguments=options)
    warnings.simplefilter("ignore")
    load_start = C.load_average()
    started = time.perf_counter()
    mnist, usps = load_named("mnist"), load_named("usps")
    n_mnist = 10000 if args.quick else 60000
    n_kernels = [3000] if args.quick else args.mnist_n
    X = np.ascontiguousarray(mnist.X_train[:n_mnist] / 255.0)
    y = np.asarray(mnist.y_train[:n_mnist])
    rows = []
    with threadpool_limits(1):
        name, times = epoch_case(X, y, args.repeat, args.min_time)
        rows.append(row(name, times))
        name, times, _ = fit_case(
            "MNIST one-vs-rest fit(max_iter=1) (Perceptron)",
            lambda n: perceptrons.Perceptron(max_iter=1, shuffle=False,
                                             n_jobs=n), X, y, args.repeat,
            args.min_time)
        rows.append(row(name, times))
        Xu = paper_scaling(usps.X_train)
        name, times, _ = fit_case(
            f"USPS kernel pass ({Xu.shape[0]}×256, prototypes, poly 5)",
            kernel_perceptron, Xu, np.asarray(usps.y_train), args.repeat,
            args.min_time)
        rows.append(row(name, times))
        model = None
        for n_kernel in n_kernels:
            Xk = paper_scaling(mnist.X_train[:n_kernel])
            what = ("all" if n_kernel >= mnist.X_train.shape[0]
                    else "first")
            name, times, fitted = fit_case(
                f"MNIST kernel pass ({what} {Xk.shape[0]}×784, prototypes, "
                "poly 5)", kernel_perceptron, Xk,
                np.asarray(mnist.y_train[:n_kernel]),
                max(2, args.repeat // 2), 0.0)
            rows.append(row(name, times))
            if model is None:
                model = fitted
            del Xk
        X_test = paper_scaling(mnist.X_test)
        times = predict_case(model, X_test, args.repeat, args.min_time)
        rows.append(row(
            f"MNIST test set predict ({X_test.shape[0]} rows, "
            f"{model.support_vectors_.shape[0]} support vectors)", times))
        n_small = 2000 if args.quick else 5000
        for cls in (perceptrons.PDM, perceptrons.ROMMA):
            name, times, _ = fit_case(
                f"{cls.__name__} fit, ε = 0.1 (first {n_small} MNIST rows, "
                "10 problems)",
                lambda n, cls=cls: cls(epsilon=0.1, max_iter=50,
                                       random_state=0, n_jobs=n),
                X[:n_small], y[:n_small], args.repeat, args.min_time)
            rows.append(row(name, times))
    load_end = C.load_average()
    header = ["case", "n_jobs=1 s", "n_jobs=2 s", "2 ÷ 1", "goal",
              "verdict"]
    report = "\n\n".join([
        "## `n_jobs`: two threads against one, the same bits",
        "Question: on 2 cores, how long do the parallel parts take with "
        "`n_jobs=2` against `n_jobs=1`, and do both give the same model? "
        "Goal (issue #24): ≤ 0.6 for the MNIST one-vs-rest epoch, the USPS "
        "and MNIST kernel passes and the MNIST kernel prediction; PDM and "
        "ROMMA shown beside them.",
        C.command_line("bench_n_jobs.py", args, "subsamples",
                       f" ({time.perf_counter() - started:.0f} s)"),
        C.machine_description((load_start, load_end)),
        "Times are best of N (median in parentheses), BLAS on one thread, "
        "numba's pool with every core; every case checked the same fitted "
        "state (and the same decision values) bit for bit for both "
        "settings.",
        C.md_table(header, rows),
    ])
    C.publish(report, "bench_n_jobs", args.write)


if __name__ == "__main__":
    os.environ.pop("NUMBA_NUM_THREADS", None)
    main()
