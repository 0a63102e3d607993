"""How far is a dual HO₂ / SO pass from the kernel values it needs, and how does the implicit form scale?

Question
--------
1. One one-vs-rest pass (``max_iter=1, shuffle=False``) of the dual
   ``HigherOrderPerceptron(kernel="rbf", c=0.4)`` (HO₂), its sparse variant,
   ``SecondOrderPerceptron(kernel="rbf", a=1, normalize=True)`` (SO) and
   FO = ``HigherOrderPerceptron(c=0)`` on a prefix of MNIST (``--mnist-n``
   rows, /255): how long does the fit take, against a BLAS-blocked
   computation of the same kernel values alone (the peer, same run)?
   The ratio fit / BLAS splits into the kernel values (FO's ratio: FO does no
   matrix work) and the O(q²)-per-mistake matrix work (the rest).
2. The implicit primal form (any p) on the artificial 500-d set of
   Figure 2 (``perceptrons.datasets.make_sparse_target``): time per pass vs
   the number of rank-one factors k (O(nk) per mistake, O(n) per trial).

Command
-------
::

    python benchmarks/bench_higher_order.py            # MNIST 10000 rows
    python benchmarks/bench_higher_order.py --write    # ... and BENCHMARKS.md
    python benchmarks/bench_higher_order.py --quick    # 2000 rows (< 1 min)
    python benchmarks/bench_higher_order.py --mnist-n 60000

What is timed
-------------
* **fit**: ``est.fit(X, y)``, minimum over ``--repeat`` interleaved runs.
* **BLAS kernel values**: with ``shuffle=False`` and one pass the support set
  is append-only in row order, so trial t needs the kernel values of row t
  against the support vectors of smaller row index. The peer computes them
  as blocks of 128 rows: ``G = X[lo:hi] @ S_<hi.T`` (numpy/OpenBLAS on one
  thread, like the compiled pass), then ``exp(-γ(‖x‖² + ‖s‖² - 2G))`` in place. No scores,
  no updates: a lower bound for any pass that evaluates each value once.
  (Normalisation of the RBF kernel is the identity: k(x, x) = 1.)
"""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    command_line,
    md_table,
    machine_description,
    parse_bench_args,
    publish,
    time_interleaved,
)

GAMMA = 0.02
BLOCK = 128


def load_mnist(n):
    from perceptrons.datasets import load_named

    data = load_named("mnist")
    X = data.X_train[:n]
    X = X.toarray() if hasattr(X, "toarray") else X
    X = np.ascontiguousarray(X, dtype=np.float64)
    return X / 255.0, np.asarray(data.y_train[:n])


def models():
    from perceptrons import HigherOrderPerceptron, SecondOrderPerceptron

    common = dict(kernel="rbf", gamma=GAMMA, max_iter=1, shuffle=False,
                  hypothesis="last")
    return {
        "FO = HO₂(0)": HigherOrderPerceptron(c=0.0, **common),
        "HO₂(0.4)": HigherOrderPerceptron(c=0.4, **common),
        "sparse HO₂(0.4)": HigherOrderPerceptron(c=0.4, sparse=True,
                                                 **common),
        "SO (a=1)": SecondOrderPerceptron(a=1.0, normalize=True, **common),
    }


def support_rows(X, est):
    """Row indices of ``est.support_vectors_`` in X (first match)."""
    index = {X[i].tobytes(): i for i in range(X.shape[0] - 1, -1, -1)}
    return np.sort([index[row.tobytes()] for row in est.support_vectors_])


def blas_kernel_values(X, rows):
    """The pass's kernel values in BLAS blocks; returns the count.

    One BLAS thread, as the compiled pass (see the module notes).
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        return _blas_kernel_values(X, rows)


def _blas_kernel_values(X, rows):
    sq = np.einsum("ij,ij->i", X, X)
    count = 0
    for lo in range(0, X.shape[0], BLOCK):
        hi = min(lo + BLOCK, X.shape[0])
        s = rows[rows < hi]
        if s.size == 0:
            continue
        G = X[lo:hi] @ X[s].T
        G *= -2.0
        G += sq[lo:hi, None]
        G += sq[s][None, :]
        G *= -GAMMA
        np.exp(G, out=G)
        count += G.size
    return count


def run_dual(args, log):
    X, y = load_mnist(2000 if args.quick else args.mnist_n)
    ests = models()
    fitted = {name: est.fit(X, y) for name, est in ests.items()}
    funcs = {name: (lambda e=est: e.fit(X, y)) for name, est in ests.items()}
    peers = {}
    for name, est in fitted.items():
        rows = support_rows(X, est)
        peers[name] = rows
        funcs["BLAS " + name] = (lambda r=rows: blas_kernel_values(X, r))
    times = time_interleaved(funcs, args.repeat, min_time=args.min_time)
    out = []
    for name, est in fitted.items():
        fit = times[name]["min"]
        blas = times["BLAS " + name]["min"]
        out.append([name, est.n_mistakes_, est.n_matrix_updates_,
                    est.support_vectors_.shape[0], f"{fit:.2f}",
                    f"{blas:.2f}", f"{fit / blas:.2f}",
                    f"{(est.n_mistakes_ / X.shape[0]):.3f}"])
        log(f"{name}: fit {fit:.2f} s, BLAS {blas:.2f} s")
    return X.shape[0], out


def run_implicit(args, log):
    from perceptrons import HigherOrderPerceptron
    from perceptrons.datasets import make_sparse_target

    X, y, _ = make_sparse_target(n_samples=1000, noise=0.1, random_state=0)
    rows = []
    for epochs in ([1, 2] if args.quick else [1, 2, 4, 8]):
        est = HigherOrderPerceptron(p=4.0, c=0.4, form="implicit",
                                    max_iter=epochs, shuffle=False)
        t = time_interleaved({"fit": lambda: est.fit(X, y)}, args.repeat)
        fit = t["fit"]["min"]
        k = est.n_matrix_updates_
        rows.append([epochs, est.n_mistakes_, k, f"{fit:.3f}",
                     f"{fit / epochs:.3f}",
                     f"{1e6 * fit / max(est.n_mistakes_, 1) / max(k, 1):.2f}"])
        log(f"implicit, {epochs} epochs: {fit:.3f} s, k = {k}")
    return rows


def main(argv=None):
    args = parse_bench_args(
        argv, __doc__, "MNIST 2000 rows, two epoch counts", (3, 1), (0, 0),
        lambda p: p.add_argument("--mnist-n", type=int, default=10000))

    def log(msg):
        print(msg, file=sys.stderr)

    t0 = time.time()
    n, dual_rows = run_dual(args, log)
    implicit_rows = run_implicit(args, log)
    report = "\n".join([
        "## Higher- and second-order perceptrons (dual pass, implicit form)",
        "",
        command_line("bench_higher_order.py", args, "MNIST 2000 rows",
                     f" (`--mnist-n {args.mnist_n}`)"),
        machine_description(),
        "",
        f"One OvR pass, RBF γ = {GAMMA}, MNIST first {n} rows /255, file "
        "order. *BLAS* = the kernel values the pass needs, alone, in "
        "128-row BLAS blocks (the peer, same run).",
        "",
        md_table(["model", "mistakes", "matrix updates", "support",
                  "fit (s)", "BLAS values (s)", "fit / BLAS",
                  "mistake rate"], dual_rows),
        "",
        "Implicit primal form, p = 4, c = 0.4, on Figure 2's "
        "Artificial_{0.1} (1000 × 500, dense): passes, mistakes, factors k, "
        "fit time, time per pass, and µs per (mistake × factor) — flat when "
        "a mistake costs O(nk).",
        "",
        md_table(["passes", "mistakes", "k", "fit (s)", "s / pass",
                  "µs / (mistake·k)"], implicit_rows),
        "",
        f"Total benchmark time {time.time() - t0:.0f} s.",
    ])
    publish(report, "higher-order", args.write)


if __name__ == "__main__":
    main()
