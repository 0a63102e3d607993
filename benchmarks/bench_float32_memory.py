"""Peak memory of ``fit`` on float32 input: X is read as it is.

A primal model reads float32 rows directly (its weights and sums are
float64); until #23 every fit copied float32 X to float64 first, twice X's
bytes more. This script fits each primal estimator, in a fresh process, on a
dense float32 matrix (default 200,000 × 500: 400 MB) and on the same matrix
as CSR, and reports the peak of traced allocations during ``fit`` (numpy's
arrays are traced by ``tracemalloc``) as a multiple of X's bytes, beside the
peak of the old behaviour (``X.astype(np.float64)`` then fit), measured in
the same run.

Run::

    python benchmarks/bench_float32_memory.py            # 200,000 × 500
    python benchmarks/bench_float32_memory.py --write    # ... and BENCHMARKS.md
    python benchmarks/bench_float32_memory.py --quick    # 20,000 × 500
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

SECTION = "bench_float32_memory"

ESTIMATORS = ["Perceptron", "Ballseptron", "PDM", "ROMMA",
              "HigherOrderPerceptron", "SecondOrderPerceptron"]


def _child(name, n_rows, n_cols, layout, old):
    import tracemalloc
    import warnings

    import numpy as np
    import scipy.sparse as sp

    import perceptrons

    rng = np.random.RandomState(0)
    X = rng.standard_normal((n_rows, n_cols)).astype(np.float32)
    y = (X[:, :10].sum(axis=1) + rng.standard_normal(n_rows) > 0).astype(int)
    if layout == "csr":
        X[rng.random_sample(X.shape) < 0.9] = 0.0
        X = sp.csr_matrix(X)
    x_bytes = (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
               if sp.issparse(X) else X.nbytes)
    est = getattr(perceptrons, name)(max_iter=1, random_state=0)
    # Compile first (numba's compilation allocates too), on a slice.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X[:200], y[:200])
        tracemalloc.start()
        if old:
            X = X.astype(np.float64)
        est.fit(X, y)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    model = sum(a.nbytes for a in _arrays(est.state_))
    print(json.dumps({"peak": peak, "x_bytes": x_bytes, "model": model}))


def _arrays(state):
    import dataclasses

    for field in dataclasses.fields(state):
        value = getattr(state, field.name)
        if dataclasses.is_dataclass(value):
            yield from _arrays(value)
        elif hasattr(value, "nbytes"):
            yield value


def _measure(name, n_rows, n_cols, layout, old):
    out = subprocess.run(
        [sys.executable, __file__, "--child", name, str(n_rows), str(n_cols),
         layout, str(int(old))], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("--cols", type=int, default=500)
    parser.add_argument("--only", nargs="+", default=ESTIMATORS)
    parser.add_argument("--write", action="store_true",
                        help="replace this benchmark's section of "
                             "BENCHMARKS.md")
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        name, n_rows, n_cols, layout, old = args.child
        _child(name, int(n_rows), int(n_cols), layout, bool(int(old)))
        return
    import _common as C

    n_rows = args.rows or (20_000 if args.quick else 200_000)
    rows = []
    sizes = {}
    for name in args.only:
        for layout in ("dense", "csr"):
            new = _measure(name, n_rows, args.cols, layout, old=False)
            old = _measure(name, n_rows, args.cols, layout, old=True)
            sizes[layout] = new["x_bytes"] / 2 ** 20
            rows.append([name, layout, f"{sizes[layout]:.0f}",
                         f"{new['peak'] / new['x_bytes']:.3f}",
                         f"{old['peak'] / old['x_bytes']:.3f}",
                         f"{new['model'] / 2 ** 20:.2f}"])
            print(" | ".join(rows[-1]), flush=True)
    only = ("" if args.only == ESTIMATORS
            else " --only " + " ".join(args.only))
    only += ((f" --rows {args.rows}" if args.rows else "")
             + (f" --cols {args.cols}" if args.cols != 500 else ""))
    sizes_text = ", ".join(f"{layout}: {mb:.0f} MB"
                           for layout, mb in sizes.items())
    report = "\n".join([
        "## float32 input: peak memory of `fit` (bench_float32_memory.py)",
        "",
        "Question (issue #23): how much memory beyond X itself does "
        "`fit(max_iter=1)` take on float32 input, now that primal models "
        "read float32 rows as they are, against converting X to float64 "
        "first (the behaviour before #23)?",
        "",
        "Command: `python benchmarks/bench_float32_memory.py"
        + (" --quick" if args.quick else "") + only + " --write`; the "
        "method is in the script's docstring.",
        "",
        f"A float32 matrix of {n_rows:,} × {args.cols} ({sizes_text}; CSR "
        "with 10 % nonzeros), each fit in a fresh process after compiling "
        "on a slice; the peak of traced allocations (numpy's arrays "
        "included) during `fit`, as a multiple of X's bytes. \"as "
        "float64\" is `X.astype(np.float64)` then `fit`, measured in the "
        "same run.",
        "",
        C.md_table(["estimator", "layout", "X MB", "float32 kept",
                    "as float64", "model MB"], rows),
        "",
        "The weights stay float64 and every product with a float32 value "
        "is taken in float64, so a float32 fit is the float64 fit of the "
        "same values bit for bit (`tests/models/test_float32.py`). "
        "Support-vector models (a kernel, HO/SO's dual form) and HO/SO "
        "with `normalize=True` read a float64 copy.",
        "",
        "Machine:",
        "",
        C.machine_description(),
    ])
    print()
    C.publish(report, SECTION, args.write)


if __name__ == "__main__":
    main()
