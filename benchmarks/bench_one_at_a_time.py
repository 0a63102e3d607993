"""Does ``learn_one`` cost the same at the end of a stream as at its start?

Question
--------
One example at a time (river's ``learn_one``), how many microseconds does a
call take over the first examples of a stream and over the last ones, and
how does that compare with river's own models on the same stream, in the
same run? A call's work is one row's update (O(features)); its cost must not
grow with the number of examples already seen.

Command
-------
::

    python benchmarks/bench_one_at_a_time.py            # 60,000 examples
    python benchmarks/bench_one_at_a_time.py --write    # ... and BENCHMARKS.md
    python benchmarks/bench_one_at_a_time.py --quick    # 12,000 examples

What is timed
-------------
A stream of n examples (20 Gaussian features, a noisy linear label) is fed
to each learner one example at a time; the mean time per ``learn_one`` call
over the first and over the last ``n // 12`` examples (``time.perf_counter``
around the block), and ``predict_one`` over the first block. Ours get numpy
rows and dicts (river's format, names fixed by the first dict); river's
models get the dicts. Best of ``--repeat`` streams, each from a fresh model.
Peers: ``river.linear_model.Perceptron`` and
``river.linear_model.PAClassifier`` (PA-I, C = 1), when river is installed;
they get the labels as booleans, river's binary labels.
"""

import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402
    command_line, load_average, machine_description, md_table,
    parse_bench_args, publish)

import perceptrons  # noqa: E402


def _stream(n, d=20, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n, d))
    y = (X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0)
    return X, y.astype(int)


def _learners():
    """(name, make, input kind, river's): ours take numpy rows or dicts,
    integer labels and the classes on the first call; river's take dicts
    and boolean labels."""
    ours = [("perceptrons Perceptron", lambda: perceptrons.Perceptron(
        theta_init=1.0, threshold_step=1.0)),
        ("perceptrons PassiveAggressive (PA-I)",
         lambda: perceptrons.PassiveAggressive(hypothesis="last"))]
    for name, make in ours:
        yield name + ", numpy rows", make, "array", False
        yield name + ", dicts", make, "dict", False
    try:
        from river import linear_model
    except ImportError:
        return
    yield "river Perceptron", linear_model.Perceptron, "dict", True
    yield ("river PAClassifier (PA-I, C = 1)",
           lambda: linear_model.PAClassifier(C=1.0, mode=1), "dict", True)


def _time_stream(make, kind, river, X, y, block):
    rows = ([dict(zip([f"x{j}" for j in range(X.shape[1])], r)) for r in X]
            if kind == "dict" else list(X))
    labels = [bool(v) for v in y] if river else list(y)
    model = make()
    model.learn_one(rows[0], labels[0],
                    **({} if river else {"classes": [0, 1]}))
    t0 = time.perf_counter()
    for i in range(1, block + 1):
        model.learn_one(rows[i], labels[i])
    first = (time.perf_counter() - t0) / block
    t0 = time.perf_counter()
    for i in range(1, block + 1):
        model.predict_one(rows[i])
    predict = (time.perf_counter() - t0) / block
    n = len(rows)
    for i in range(block + 1, n - block):
        model.learn_one(rows[i], labels[i])
    t0 = time.perf_counter()
    for i in range(n - block, n):
        model.learn_one(rows[i], labels[i])
    last = (time.perf_counter() - t0) / block
    return first, last, predict


def main(argv=None):
    args = parse_bench_args(argv, __doc__, "12,000 examples", repeat=(3, 1),
                            min_time=(0.0, 0.0))
    warnings.simplefilter("ignore")
    load_start = load_average()
    n = 12000 if args.quick else 60000
    block = n // 12
    X, y = _stream(n)
    rows = []
    for name, make, kind, river in _learners():
        runs = [_time_stream(make, kind, river, X, y, block)
                for _ in range(args.repeat)]
        first, last, predict = (min(r[k] for r in runs) for k in range(3))
        rows.append([name, f"{first * 1e6:.1f}", f"{last * 1e6:.1f}",
                     f"{last / first:.2f}", f"{predict * 1e6:.1f}"])
    report = "\n".join([
        "## One example at a time: `learn_one` along a stream",
        "",
        "Question: does a `learn_one` call cost the same after "
        f"{n - block:,} examples as at the start of the stream, and how does "
        "it compare with river's own models on the same stream?",
        "",
        command_line("bench_one_at_a_time.py", args, "12,000 examples"),
        "",
        machine_description((load_start, load_average())),
        "",
        f"µs per call, best of {args.repeat} streams; first and last "
        f"{block:,} examples of {n:,} (20 features).",
        "",
        md_table(["learner", "learn_one, first (µs)",
                  "learn_one, last (µs)", "last ÷ first",
                  "predict_one (µs)"], rows),
    ])
    publish(report, "bench_one_at_a_time", args.write)


if __name__ == "__main__":
    main()
