"""Is ``Perceptron`` fast at scale: shuffled epochs, per-fit overhead, voting?

Question
--------
On a9a stacked 150 times (4,884,150 rows, 123 features, 68 M nonzeros, CSR
with int32 indices, about 820 MB), one thread, in the same run as
scikit-learn's ``Perceptron(max_iter=1, tol=None)``:

* how does ``fit(max_iter=1)`` compare with scikit-learn's, shuffled (both
  libraries' default) and in order (goal: ≤ 0.5×)?
* how much slower is a shuffled epoch than an in-order one (goal: ≤ 1.5×)?
* how much of an in-order ``fit`` is spent outside the compiled epoch
  (goal: ≤ 10 % of the epoch)?

and the same ratios on the a9a, real-sim-shaped and MNIST sets of
``bench_epoch_vs_sklearn.py``, with, where a test set is at hand, how voted
``predict`` compares with averaged ``predict`` (goal: ≤ 2×).

Command
-------
::

    python benchmarks/bench_at_scale.py          # full run (~5 min), to stdout
    python benchmarks/bench_at_scale.py --write  # ... and update BENCHMARKS.md
    python benchmarks/bench_at_scale.py --quick  # smoke run (a9a x 10)

The stacked set is built in memory at run time from ``shared/data`` (never
written to disk); ``PERCEPTRONS_DATA`` overrides the data search.

What is timed
-------------
* **fit**: ``Perceptron(max_iter=1, shuffle=..., random_state=0,
  hypothesis="last")``, the paper's plain perceptron, which is what
  scikit-learn's ``Perceptron`` runs; ``hypothesis="averaged"`` (the
  current default) is timed too, as "ours, default". Validation, label
  encoding, the "auto" θ_Init/C and finiteness pass, allocation, the
  permutation and one epoch: what a user pays.
* **sklearn fit**: ``sklearn.linear_model.Perceptron(max_iter=1, tol=None,
  shuffle=..., random_state=0, n_jobs=1)``.
* **epoch**: the compiled pass alone, called the way ``fit`` calls it
  (``_run_epoch``) on the order ``fit`` uses (the identity, or the seeded
  permutation), from a fresh state each time (reset untimed), so that it
  makes the same updates as the epoch inside ``fit`` (checked).
* **blocks**: the same fit and epoch with ``shuffle="blocks"`` (windows
  of 16 random blocks of 256 consecutive rows, each window permuted:
  :func:`perceptrons.utils.random.draw_order`), a shuffle that trades some
  randomness for memory locality; its cost in accuracy is measured beside
  (test accuracy over 5 seeds, 5 passes, full permutation vs blocks, rows
  as given and sorted by label).
* **read rows**: every row read once in the epoch's order, a dot product
  with a fixed vector and no update, with the epoch's cache hints: what the
  memory system charges for a random order, whatever the loop does.
* **outside the loop**: in-order ``fit`` minus in-order epoch, best runs;
  the column-sum pass (finiteness and the average ⟨x, x⟩ of θ_Init="auto",
  one read of X) is timed alone beside it.
* **voted / averaged predict**: ``predict`` of the test rows by
  ``Perceptron(hypothesis="voted")`` and ``Perceptron(hypothesis="averaged")``
  fitted with the same parameters (a9a: the defaults, ``max_iter=10``,
  predicting a9a.t; MNIST: ``max_iter=1``, 5,000 test images;
  real-sim-shaped: ``max_iter=1``, a second generated set of 10,000 rows).

Each timed call is made once untimed first (numba compilation, caches), then
at least ``--repeat`` times round-robin (``_common.time_interleaved``). The
machine is shared: tables show the best run with the median in parentheses,
ratios use the best runs. BLAS/OpenMP pools are limited to one thread with
threadpoolctl and ``NUMBA_NUM_THREADS=1``. Both libraries get the same
float64 arrays (C-contiguous dense or CSR with int32 indices).
"""

import os

# One thread everywhere. The variables cover pools loaded after the
# threadpoolctl limit is entered; numba reads its own at import.
for _var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
             "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

# Import everything that loads a thread pool before threadpool_limits.
import scipy.linalg  # noqa: E402,F401
import sklearn.linear_model  # noqa: E402,F401

import perceptrons  # noqa: E402,F401
from perceptrons.datasets import load_named  # noqa: E402

SECTION = "bench_at_scale"
GOALS = {"fit_vs_sklearn": 0.5, "shuffled_vs_in_order": 1.5,
         "outside_loop": 0.10, "voted_vs_averaged": 2.0}

# ----------------------------------------------------------------------------
# Cases
# ----------------------------------------------------------------------------


def load_cases(quick, reps):
    """``[dict(name, desc, X, y, test, voted_params)]``; ``test`` may be
    None."""
    a9a, y_a9a = C.load_libsvm("a9a")
    t = load_named("a9a.t")
    a9a_t = C.int32_csr(sp.csr_matrix((t.X.data, t.X.indices, t.X.indptr),
                                      shape=(t.X.shape[0], a9a.shape[1])))
    mnist = load_named("mnist")
    n_mnist = 6000 if quick else None
    X_mnist = mnist.X_train[:n_mnist] / 255.0
    X_mnist_t = mnist.X_test[:1000 if quick else 5000] / 255.0
    n_rs = 8000 if quick else 72309
    rs, y_rs = C.make_realsim_like(n_samples=n_rs, random_state=0)
    rs_t, y_rs_t = C.make_realsim_like(n_samples=2000 if quick else 10000,
                                       random_state=1)
    big, y_big = C.stacked(a9a, y_a9a, reps)
    return [
        dict(name=f"a9a×{reps}", desc=f"a9a stacked {reps} times, CSR",
             X=big, y=y_big, test=None, voted_params=None),
        dict(name="a9a", desc="a9a, CSR; test a9a.t", X=a9a, y=y_a9a,
             test=a9a_t, y_test=t.y, voted_params={}),
        dict(name="real-sim-like", desc="real-sim-shaped, generated (seed 0), "
             "CSR; test: another generated set (seed 1)", X=rs, y=y_rs,
             test=rs_t, y_test=y_rs_t, voted_params={"max_iter": 1}),
        dict(name="mnist-ovr", desc="MNIST, 10 digits one-vs-rest, dense "
             "/255; test: MNIST test images", X=X_mnist,
             y=mnist.y_train[:n_mnist], test=X_mnist_t,
             y_test=mnist.y_test[:X_mnist_t.shape[0]],
             voted_params={"max_iter": 1}),
    ]


# ----------------------------------------------------------------------------
# Timing
# ----------------------------------------------------------------------------


def ours(shuffle, hypothesis="last"):
    from perceptrons import Perceptron

    return Perceptron(max_iter=1, shuffle=shuffle, random_state=0,
                      hypothesis=hypothesis)


def epoch_timer(X, y, shuffle):
    """(setup, run, counts): the compiled pass alone, on ``fit``'s order."""
    from perceptrons.utils.random import epoch_orders

    order = next(iter(epoch_orders(0, X.shape[0], 1, shuffle)))
    return C.epoch_timer(ours(shuffle).fit(X, y), X, y, order)


def row_reader(X, shuffle):
    """Read every row once in ``fit``'s order, no updates: a dot product
    with a fixed vector per row, with the same cache hints as the epoch.
    What the memory system charges for the order, whatever the loop does."""
    from numba import njit

    from perceptrons._loops._common import prefetch_rows, row_dot
    from perceptrons.utils.random import epoch_orders
    from perceptrons.utils.validation import as_loop_arrays

    @njit
    def read(X_data, X_indices, X_indptr, order, w):
        s = 0.0
        n = order.shape[0]
        for step in range(n):
            prefetch_rows(order, step, n, X_data, X_indices, X_indptr, order,
                          order, order, 8, 4)
            s += row_dot(w, X_data, X_indices, X_indptr, order[step])
        return s

    arrays = as_loop_arrays(X)
    order = next(iter(epoch_orders(0, X.shape[0], 1, shuffle)))
    w = np.ones(X.shape[1])
    return lambda: read(*arrays, order, w)


def column_pass(X):
    """The finiteness / average ⟨x, x⟩ pass of ``fit`` alone."""
    from perceptrons.models._driver.inputs import checked_column_sq_sums
    from perceptrons.utils.validation import as_loop_arrays

    arrays = as_loop_arrays(X)
    return lambda: checked_column_sq_sums(arrays, X.shape[1])


def time_fits(case, repeat, min_time):
    from sklearn.linear_model import Perceptron as SkPerceptron

    X, y = case["X"], case["y"]
    funcs, setups, counts = {}, {}, {}
    for order_name, shuffle in (("shuffled", True), ("in order", False),
                                ("blocks", "blocks")):
        mine, default = ours(shuffle), ours(shuffle, "averaged")
        funcs[f"ours fit, {order_name}"] = (lambda e=mine: e.fit(X, y))
        funcs[f"ours fit (averaged), {order_name}"] = (
            lambda e=default: e.fit(X, y))
        if shuffle != "blocks":
            theirs = SkPerceptron(max_iter=1, tol=None, shuffle=shuffle,
                                  random_state=0, n_jobs=1)
            funcs[f"sklearn fit, {order_name}"] = (
                lambda e=theirs: e.fit(X, y))
        setup, run, n = epoch_timer(X, y, shuffle)
        funcs[f"ours epoch, {order_name}"] = run
        setups[f"ours epoch, {order_name}"] = setup
        counts[order_name] = n
        funcs[f"read rows, {order_name}"] = row_reader(X, shuffle)
    funcs["column-sum pass"] = column_pass(X)
    res = C.time_interleaved(funcs, repeat, setup=setups, min_time=min_time)
    res["counts"] = counts
    return res


def block_accuracy(case, seeds=5):
    """Test accuracy with ``shuffle=True`` and ``shuffle="blocks"``, the
    default hypothesis and "last", 5 passes, ``seeds`` seeds each: what the
    windowed shuffle costs in randomness. The training rows also sorted by
    label, the order where a shuffle matters most."""
    from perceptrons import Perceptron

    X, y, test, y_test = case["X"], case["y"], case["test"], case["y_test"]
    out = {}
    for rows_name, rows in (("given order", np.arange(X.shape[0])),
                            ("sorted by label",
                             np.argsort(y, kind="stable"))):
        for hypothesis in ("averaged", "last"):
            for shuffle in (True, "blocks"):
                acc = [np.mean(Perceptron(
                    max_iter=5, shuffle=shuffle, hypothesis=hypothesis,
                    random_state=seed).fit(X[rows], y[rows]).predict(test)
                    == y_test) for seed in range(seeds)]
                out[(rows_name, hypothesis, shuffle)] = (
                    100 * float(np.mean(acc)), 100 * float(np.std(acc)))
    return out


def time_predict(case, repeat, min_time):
    from perceptrons import Perceptron

    X, y, test = case["X"], case["y"], case["test"]
    params = dict(case["voted_params"], random_state=0)
    voted = Perceptron(hypothesis="voted", **params).fit(X, y)
    averaged = Perceptron(hypothesis="averaged", **params).fit(X, y)
    res = C.time_interleaved({"voted predict": lambda: voted.predict(test),
                              "averaged predict": lambda: averaged.predict(
                                  test)}, repeat, min_time=min_time)
    res["n_updates"] = voted.n_updates_
    res["n_test"] = test.shape[0]
    return res


# ----------------------------------------------------------------------------
# Report
# ----------------------------------------------------------------------------


def _s(x):
    if x is None:
        return "–"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}" if x >= 0.01 else f"{x * 1e3:.2f} ms"


def _ratio(num, den):
    return (num["min"] / den["min"], num["median"] / den["median"])


def _cell(r, goal):
    verdict = "" if goal is None else (" **pass**" if r[0] <= goal
                                       else " **FAIL**")
    return f"{r[0]:.2f} ({r[1]:.2f}){verdict}"


def _shape(X):
    n, d = X.shape
    if sp.issparse(X):
        return (f"{n:,}×{d} CSR, {X.nnz / n:.1f} nnz/row, "
                f"{C.epoch_bytes(X) / 2**20:.0f} MiB")
    return f"{n:,}×{d} dense, {X.nbytes / 2**20:.0f} MiB"


def build_report(args, cases, fits, predicts, loads, accuracy):
    g = GOALS
    out = ["## At scale: shuffled epochs, per-fit overhead, voted prediction",
           "",
           "Question: on a9a stacked "
           f"{args.reps} times (generated in memory at run time), one thread, "
           "in the same run as scikit-learn's `Perceptron(max_iter=1, "
           "tol=None)`: how does `fit(max_iter=1)` compare, shuffled and in "
           "order; how much slower is a shuffled epoch than an in-order one; "
           "how much of `fit` is spent outside the compiled epoch; and how "
           "does voted `predict` compare with averaged `predict`? The same "
           "ratios on the sets of the epoch benchmark.",
           "",
           C.command_line("bench_at_scale.py", args,
                          "a9a stacked 10 times, subsamples",
                          extra=f" (`--reps {args.reps}`)"),
           "",
           C.machine_description(loads),
           "",
           "Ratios are of best runs, the ratio of medians in parentheses; "
           "goals from issue #12. 'ours' is `Perceptron(max_iter=1, "
           "hypothesis=\"last\", random_state=0)`, scikit-learn's algorithm; "
           "'ours (averaged)' the current default hypothesis.",
           ""]
    rows = []
    for case in cases:
        name = case["name"]
        r = fits[name]
        rows.append([
            name, _shape(case["X"]),
            _cell(_ratio(r["ours fit, shuffled"], r["sklearn fit, shuffled"]),
                  g["fit_vs_sklearn"]),
            _cell(_ratio(r["ours fit, in order"], r["sklearn fit, in order"]),
                  g["fit_vs_sklearn"]),
            _cell(_ratio(r["ours fit (averaged), shuffled"],
                         r["sklearn fit, shuffled"]), None),
            _cell(_ratio(r["ours epoch, shuffled"], r["ours epoch, in order"]),
                  g["shuffled_vs_in_order"]),
            _cell(_ratio(r["ours fit, blocks"], r["sklearn fit, shuffled"]),
                  g["fit_vs_sklearn"]),
            _cell(_ratio(r["ours epoch, blocks"], r["ours epoch, in order"]),
                  g["shuffled_vs_in_order"]),
            _cell(_ratio(r["read rows, shuffled"], r["read rows, in order"]),
                  None),
            _cell(((r["ours fit, in order"]["min"]
                    - r["ours epoch, in order"]["min"])
                   / r["ours epoch, in order"]["min"],
                   (r["ours fit, in order"]["median"]
                    - r["ours epoch, in order"]["median"])
                   / r["ours epoch, in order"]["median"]),
                  g["outside_loop"]),
            (_cell(_ratio(predicts[name]["voted predict"],
                          predicts[name]["averaged predict"]),
                   g["voted_vs_averaged"]) if name in predicts else "–"),
        ])
    out.append(C.md_table(
        ["case", "data", "fit ÷ sklearn, shuffled (≤ 0.5)",
         "fit ÷ sklearn, in order (≤ 0.5)", "fit (averaged) ÷ sklearn, "
         "shuffled", "shuffled ÷ in-order epoch (≤ 1.5)",
         "fit, blocks ÷ sklearn, shuffled (≤ 0.5)",
         "blocks ÷ in-order epoch (≤ 1.5)",
         "shuffled ÷ in-order read of the rows",
         "outside the loop ÷ in-order epoch (≤ 0.1)",
         "voted ÷ averaged predict (≤ 2)"], rows))
    out.append("")
    big = fits[cases[0]["name"]]
    read_ratio = (big["read rows, shuffled"]["min"]
                  / big["read rows, in order"]["min"])
    epoch_io = big["ours epoch, in order"]["min"]
    out.append(
        f"Reading the table: on `{cases[0]['name']}` a plain read of the rows "
        f"in the shuffled order takes {read_ratio:.1f}× the in-order read "
        "(column 'shuffled ÷ in-order read of the rows': the memory "
        "system's price for a random row of a matrix much larger than the "
        "cache, with the same cache hints as the epoch): a shuffled epoch "
        "pays that memory time whatever its loop does, and its ratio "
        "(goal 1.5) is to be read against this one. Outside the loop, the "
        "column-sum pass "
        "(finiteness and θ_Init = average ⟨x, x⟩, one read of X, bit for "
        "bit the same sums as before) takes "
        f"{big['column-sum pass']['min'] / epoch_io:.2f} of the in-order "
        "epoch by itself.")
    out.append("")
    if accuracy:
        out += ["### What `shuffle=\"blocks\"` costs in accuracy", "",
                "Test accuracy in % (mean ± standard deviation over 5 "
                "seeds), `Perceptron(max_iter=5)` with a full permutation "
                "per epoch (`shuffle=True`) and with the windowed shuffle "
                "(`shuffle=\"blocks\"`: 16 random blocks of 256 consecutive "
                "rows per window, see `perceptrons.utils.random.draw_order`), "
                "on the training rows as given and sorted by label.", ""]
        rows = []
        for name, acc in accuracy.items():
            for rows_name, hyp in dict.fromkeys(k[:2] for k in acc):
                full = acc[(rows_name, hyp, True)]
                blocks = acc[(rows_name, hyp, "blocks")]
                rows.append([name, rows_name, hyp,
                             f"{full[0]:.2f} ± {full[1]:.2f}",
                             f"{blocks[0]:.2f} ± {blocks[1]:.2f}",
                             f"{blocks[0] - full[0]:+.2f}"])
        out.append(C.md_table(["case", "training rows", "hypothesis",
                               "shuffle=True", "shuffle=\"blocks\"",
                               "blocks − full"], rows))
        out.append("")
    out.append("### Times (best of N, median in parentheses)")
    out.append("")
    rows = []
    for case in cases:
        name = case["name"]
        r = fits[name]
        for key in ("ours fit, shuffled", "ours fit, in order",
                    "ours fit, blocks",
                    "ours fit (averaged), shuffled",
                    "ours fit (averaged), in order",
                    "ours fit (averaged), blocks",
                    "sklearn fit, shuffled", "sklearn fit, in order",
                    "ours epoch, shuffled", "ours epoch, in order",
                    "ours epoch, blocks",
                    "read rows, shuffled", "read rows, in order",
                    "read rows, blocks", "column-sum pass"):
            st = r[key]
            note = ""
            if key.startswith("ours epoch"):
                n = r["counts"][key.split(", ")[1]]
                note = f"{n['updates']} updates, same as in fit"
            rows.append([name, key, f"{_s(st['min'])} ({_s(st['median'])})",
                         st["n"], note])
        if name in predicts:
            p = predicts[name]
            for key in ("voted predict", "averaged predict"):
                st = p[key]
                rows.append([name, key,
                             f"{_s(st['min'])} ({_s(st['median'])})", st["n"],
                             f"{p['n_test']} test rows; voted: "
                             f"{p['n_updates']} updates"])
    out.append(C.md_table(["case", "timed", "seconds", "runs", "note"], rows))
    out.append("")
    out.append("Case data: " + "; ".join(f"`{c['name']}`: {c['desc']}"
                                         for c in cases) + ".")
    return "\n".join(out)


def main(argv=None):
    def options(parser):
        parser.add_argument("--reps", type=int, default=None,
                            help="copies of a9a to stack (default 150; "
                                 "quick: 10)")
        parser.add_argument("--no-predict", action="store_true",
                            help="skip the voted/averaged predict timings")

    args = C.parse_bench_args(argv, __doc__,
                              "a9a stacked 10 times and subsamples",
                              repeat=(5, 2), min_time=(2.0, 0.0),
                              add_arguments=options)
    if args.reps is None:
        args.reps = 10 if args.quick else 150
    warnings.filterwarnings("ignore", message=".*Maximum number of iteration")
    t_start = time.perf_counter()
    load_start = C.load_average()
    with threadpool_limits(limits=1):
        def log(msg):
            print(f"[{time.perf_counter() - t_start:6.1f}s] {msg}",
                  file=sys.stderr, flush=True)

        log("loading data, stacking a9a")
        cases = load_cases(args.quick, args.reps)
        fits, predicts = {}, {}
        for case in cases:
            log(f"fits of {case['name']}")
            fits[case["name"]] = time_fits(case, args.repeat, args.min_time)
            if case["test"] is not None and not args.no_predict:
                log(f"predictions of {case['name']}")
                predicts[case["name"]] = time_predict(case, args.repeat, 0.0)
        accuracy = {}
        for case in cases:
            if case["test"] is not None:
                log(f"shuffle=True vs 'blocks' accuracy on {case['name']}")
                accuracy[case["name"]] = block_accuracy(case)
        report = build_report(args, cases, fits, predicts,
                              (load_start, C.load_average()), accuracy)
    log("done")
    C.publish(report, SECTION, args.write)


if __name__ == "__main__":
    main()
