"""Does a pass under a budget cost O(n B), and how far is it from its floor?

Question
--------
At a fixed budget B, how long does one online pass of the budgeted kernel
perceptron take on MNIST (one-vs-rest: each of the 10 problems keeps B
support vectors) and on a9a (binary), at B = 100, 500 and 2,000; how does
that compare with the *floor*, the same rows' kernel values against the
support vectors computed as one blocked product (``X_block @ S.T`` and the
Gaussian transform, in numpy); does 4× the rows cost at most 5× the time
(linear growth); and what does a prediction cost per row and support
vector?

Command
-------
::

    python benchmarks/bench_budget.py            # full run, table to stdout
    python benchmarks/bench_budget.py --write    # ... and update BENCHMARKS.md
    python benchmarks/bench_budget.py --quick    # 6,000 MNIST / 8,000 a9a rows
    python benchmarks/bench_budget.py --mnist-rows 20000 --write  # a9a whole

Data: ``load_named("mnist")`` (pixels / 255, RBF γ = 0.02) and
``load_named("a9a")`` (CSR, RBF γ = 0.01), rows in file order.

What is timed
-------------
* **pass**: ``Perceptron(kernel="rbf", eta=1, theta_init=0,
  threshold_step=0, hypothesis="last", max_iter=1, shuffle=False,
  budget=B, budget_policy=policy).fit(X, y)`` (the Random Budget
  Perceptron, and the other policies at B = 500 on a9a), after one untimed
  fit on the first 2,000 rows (numba compiles). The whole ``fit``.
* **floor**: the kernel values of every row against the support vectors
  the fit ended with (per problem B, so up to 10 B for MNIST's union), as
  blocks of 1,024 rows in numpy (BLAS for dense rows, scipy's sparse-dense
  product for a9a), ``exp(-γ (‖x‖² + ‖s‖² - 2 x·s))``. A pass computes
  each row's values against the support held at its step, which under a
  budget is the same count once the support has filled: the floor is
  what a pass must at least compute, with nothing else.
* **linear**: the pass on the first quarter of the rows, and the ratio
  of the full pass to it (4× the rows: a linear cost gives about 4, once
  the budget fills early in the quarter); and, with the budget full (a
  model fitted on the first one, two or three fifths of the rows, the
  first that fills every problem's budget; none where three fifths do
  not), ``partial_fit`` of a copy on m and on 4 m further rows.
* **predict**: ``decision_function`` on 10,000 test rows (a9a: 16,281),
  in microseconds per row and per support vector.

BLAS and numba threads are limited to one (``NUMBA_NUM_THREADS=1``,
threadpoolctl). Each time is the best of ``--repeat`` runs.
"""

import os

for _var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
             "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import copy  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

from perceptrons import Perceptron  # noqa: E402
from perceptrons.datasets import load_named  # noqa: E402

SECTION = "bench_budget"
BUDGETS = (100, 500, 2000)
POLICIES = ("stop", "random", "oldest", "forgetron", "smallest", "project",
            "merge")


def datasets(quick, mnist_rows=None):
    """``[(name, X, y, X_test, gamma)]``."""
    m = load_named("mnist")
    n = 6000 if quick else (mnist_rows or m.X_train.shape[0])
    mnist = ("MNIST one-vs-rest", np.ascontiguousarray(m.X_train[:n] / 255.0),
             np.asarray(m.y_train[:n]),
             np.ascontiguousarray(m.X_test / 255.0), 0.02)
    a, t = load_named("a9a"), load_named("a9a.t")
    n = 8000 if quick else a.X.shape[0]
    Xt = sp.csr_matrix((t.X.data, t.X.indices, t.X.indptr),
                       shape=(t.X.shape[0], a.X.shape[1]))
    a9a = ("a9a", a.X[:n], np.asarray(a.y[:n]), Xt, 0.01)
    return [mnist, a9a]


def model(gamma, budget, policy):
    return Perceptron(kernel="rbf", gamma=gamma, eta=1.0, theta_init=0.0,
                      threshold_step=0.0, hypothesis="last", max_iter=1,
                      shuffle=False, budget=budget, budget_policy=policy)


def best(f, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return min(times), out


def floor(X, S, gamma, block=1024):
    """The kernel values of every row of X against S, in blocks."""
    sx = (np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X)
          else np.einsum("ij,ij->i", X, X))
    Sd = S.toarray() if sp.issparse(S) else np.asarray(S)
    ss = np.einsum("ij,ij->i", Sd, Sd)
    sink = 0.0
    for lo in range(0, X.shape[0], block):
        G = X[lo:lo + block] @ Sd.T
        G = np.asarray(G)
        G *= -2.0
        G += sx[lo:lo + block, None]
        G += ss[None, :]
        G *= -gamma
        np.exp(G, out=G)
        sink += G[0, 0]
    return sink


def _filled(est, X, y, B):
    """``est`` fitted on the first k fifths of the rows, k = 1, 2, 3, the
    first k whose fit leaves every problem with B support vectors; returns
    it, its row count and its smallest problem's support."""
    n = X.shape[0]
    for k in (1, 2, 3):
        n0 = k * n // 5
        warm = copy.deepcopy(est).fit(X[:n0], y[:n0])
        full_at = int(np.count_nonzero(warm.dual_coef_, axis=1).min())
        if full_at >= B:
            break
    return warm, n0, full_at


def run(args, log):
    rows, lin_rows, policy_rows = [], [], []
    for name, X, y, X_test, gamma in datasets(args.quick, args.mnist_rows):
        n = X.shape[0]
        # numba compiles (untimed).
        model(gamma, 100, "random").fit(X[:2000], y[:2000])
        for B in BUDGETS:
            t_fit, est = best(lambda: model(gamma, B, "random").fit(X, y),
                              args.repeat)
            S = est.support_vectors_
            t_floor, _ = best(lambda: floor(X, S, gamma), args.repeat)
            t_quarter, _ = best(lambda: model(gamma, B, "random").fit(
                X[:n // 4], y[:n // 4]), args.repeat)
            # The same law once the budget is full: a model fitted on the
            # first fifths of the rows until every problem holds B support
            # vectors continues on m and on 4 m further rows (no ratio
            # where three fifths do not fill it: the cost still grows
            # with the support there).
            warm, n0, full_at = _filled(model(gamma, B, "random"), X, y, B)
            m = (n - n0) // 4
            t_one = t_four = float("nan")
            if full_at >= B:
                t_one, _ = best(lambda: copy.deepcopy(warm).partial_fit(
                    X[n0:n0 + m], y[n0:n0 + m]), args.repeat)
                t_four, _ = best(lambda: copy.deepcopy(warm).partial_fit(
                    X[n0:n0 + 4 * m], y[n0:n0 + 4 * m]), args.repeat)
            t_pred, _ = best(lambda: est.decision_function(X_test),
                             args.repeat)
            per_problem = int(np.count_nonzero(est.dual_coef_, axis=1).max())
            us = 1e6 * t_pred / (X_test.shape[0] * S.shape[0])
            log(f"{name} B={B}: pass {t_fit:.2f} s, floor {t_floor:.2f} s, "
                f"quarter {t_quarter:.2f} s, predict {t_pred:.2f} s")
            rows.append([name, B, per_problem, S.shape[0],
                         C.seconds(t_fit), C.seconds(t_floor),
                         f"{t_fit / t_floor:.1f}×",
                         f"{us:.3f}"])
            lin_rows.append([name, B, f"{n // 4} → {n}",
                             C.seconds(t_quarter), C.seconds(t_fit),
                             f"{t_fit / t_quarter:.2f}",
                             f"{full_at} / {B} after {n0}",
                             f"{m} → {4 * m}" if full_at >= B else "–",
                             C.seconds(t_one) if full_at >= B else "–",
                             C.seconds(t_four) if full_at >= B else "–",
                             f"{t_four / t_one:.2f}" if full_at >= B
                             else "not full"])
        if name == "a9a":
            for policy in POLICIES:
                t_fit, est = best(lambda: model(gamma, 500, policy).fit(X, y),
                                  args.repeat)
                acc = float(np.mean(est.predict(X_test) ==
                                    load_named("a9a.t").y))
                log(f"a9a B=500 {policy}: {t_fit:.2f} s")
                policy_rows.append([policy, C.seconds(t_fit),
                                    est.n_mistakes_, f"{100 * acc:.2f}"])
    return rows, lin_rows, policy_rows


def main(argv=None):
    def add_arguments(parser):
        parser.add_argument("--mnist-rows", type=int, default=None,
                            help="MNIST's first rows only (full run; "
                                 "default: all 60,000)")

    args = C.parse_bench_args(argv, __doc__, "6,000 MNIST and 8,000 a9a rows",
                              repeat=(2, 1), min_time=(0.0, 0.0),
                              add_arguments=add_arguments)
    loads = [C.load_average()]
    with threadpool_limits(1):
        rows, lin_rows, policy_rows = run(args, lambda m: print(
            m, file=sys.stderr, flush=True))
    loads.append(C.load_average())
    report = "\n\n".join([
        "## Kernel models under a budget: a pass against its floor",
        "Question: does one online pass at a fixed budget B cost O(n B), "
        "how far is it from the same kernel values computed as one blocked "
        "product, and what does a prediction cost per support vector? "
        "(the Random Budget Perceptron, RBF kernel, one pass in file "
        "order)",
        C.command_line("bench_budget.py", args, "6,000 MNIST / 8,000 a9a "
                       "rows", extra=(f" with `--mnist-rows {args.mnist_rows}`"
                                      " (MNIST's first rows only; a9a whole)"
                                      if args.mnist_rows and not args.quick
                                      else "")),
        C.machine_description(loads),
        C.md_table(["data", "B", "SVs per problem", "SVs (union)",
                    "pass (s)", "floor (s)", "pass / floor",
                    "predict (µs per row and SV)"], rows),
        "Linear growth, 4× the rows at the same B. From scratch: the pass "
        "on a quarter of the rows and on all of them; while the budget "
        "fills, a pass costs Σ_t |S_t|, which grows with the square of the "
        "rows, so the ratio exceeds 4 where the quarter ends before the "
        "budget is full. Budget full: a model fitted on the first one, two "
        "or three fifths, the first that leaves every problem with B "
        "support vectors (its smallest problem's support / B and rows "
        "shown), continues on m and on 4 m further rows (`partial_fit` of "
        "a copy); this is the O(n B) regime of a stream. \"not full\": "
        "three fifths of the rows do not fill the budget.",
        C.md_table(["data", "B", "rows", "quarter (s)", "all (s)",
                    "ratio", "SVs / B when continued", "rows continued",
                    "m (s)", "4 m (s)", "ratio (full budget)"], lin_rows),
        "Every policy at B = 500 on a9a (one pass, test accuracy of the "
        "last hypothesis on a9a.t):",
        C.md_table(["policy", "pass (s)", "online mistakes",
                    "test accuracy (%)"], policy_rows),
    ])
    C.publish(report, SECTION, args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
