"""How do the river adapters of every estimator fare on river's own streams?

Question
--------
On river's bundled streams, Phishing (1,250 examples, 9 features, two
classes) and ImageSegments (2,310 examples, 18 features, seven classes),
what progressive accuracy does ``as_river(E())`` reach for every estimator
E of the registry at its defaults, and at what cost per example, beside
river's ``Perceptron``, ``PAClassifier`` and ``ALMAClassifier`` (one-vs-rest
on the multiclass stream) in the same run?

Command
-------
::

    python benchmarks/bench_river_streams.py            # both streams
    python benchmarks/bench_river_streams.py --write    # ... and BENCHMARKS.md
    python benchmarks/bench_river_streams.py --quick    # the first 300 examples

What is timed
-------------
``river.evaluate.progressive_val_score`` (predict, then learn) of
``preprocessing.StandardScaler() | model`` with ``metrics.Accuracy`` over the
whole stream, read into a list first; µs per example is the wall time of
that call over the examples, the scaler's share included for every model.
River's metrics count every prediction, the first one (before any
learning) included. Each model runs once untimed on the stream's first 50
examples (numba compiles), then ``--repeat`` times from a fresh model; the
best time is reported (the accuracy is the same every run).
"""

import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402
    command_line, load_average, machine_description, md_table,
    parse_bench_args, publish)

from perceptrons.registry import estimator_classes  # noqa: E402


def _learners():
    """(name, make): ours through the adapter, then river's three."""
    from river import linear_model, multiclass

    from perceptrons.river import as_river

    for name, cls in estimator_classes().items():
        yield f"perceptrons {name}", (lambda cls=cls: as_river(cls()))
    for name, make in (
            ("Perceptron", linear_model.Perceptron),
            ("PAClassifier (PA-I, C = 1)",
             lambda: linear_model.PAClassifier(C=1.0, mode=1)),
            ("ALMAClassifier", linear_model.ALMAClassifier)):
        yield f"river {name}", (lambda make=make: multiclass.OneVsRestClassifier(
            make()))


def _run(make, stream, metric=None):
    from river import evaluate, metrics, preprocessing

    model = preprocessing.StandardScaler() | make()
    t0 = time.perf_counter()
    metric = evaluate.progressive_val_score(stream, model,
                                            metric or metrics.Accuracy())
    return metric.get(), (time.perf_counter() - t0) / len(stream)


def _log_losses(stream):
    """Progressive log loss on a binary stream: ``predict_proba_one`` of
    the adapters (online Platt scaling of the scores) and of river's
    models (the sigmoid of the raw score), without the one-vs-rest wrapper;
    and the sigmoid of our raw scores, for comparison."""
    from river import linear_model, metrics

    from perceptrons.river import as_river

    rows = []
    for name in ("Perceptron", "PassiveAggressive", "CW"):
        cls = estimator_classes()[name]
        platt = _run(lambda: as_river(cls()), stream, metrics.LogLoss())[0]
        rows.append([f"perceptrons {name}", f"{platt:.3f}",
                     f"{_raw_sigmoid_log_loss(cls, stream):.3f}"])
    for name, make in (("Perceptron", linear_model.Perceptron),
                       ("PAClassifier", linear_model.PAClassifier),
                       ("ALMAClassifier", linear_model.ALMAClassifier)):
        rows.append([f"river {name}",
                     f"{_run(make, stream, metrics.LogLoss())[0]:.3f}", ""])
    return rows


def _raw_sigmoid_log_loss(cls, stream):
    """The progressive log loss of ``sigmoid(score)``, river's choice, on
    the adapter's own scores."""
    import math

    from river import metrics, preprocessing

    from perceptrons.models._driver.online import scores_one
    from perceptrons.river import as_river

    scaler, model, loss = preprocessing.StandardScaler(), as_river(cls()), \
        metrics.LogLoss()
    for x, y in stream:
        xs = scaler.transform_one(x)
        if model.model is not None:
            state, s = scores_one(model.model, xs)
            p = 1.0 / (1.0 + math.exp(-max(min(s, 500.0), -500.0)))
            loss.update(y, {state.classes[0]: 1.0 - p, state.classes[1]: p})
        scaler.learn_one(x)
        model.learn_one(xs, y)
    return loss.get()


def main(argv=None):
    args = parse_bench_args(argv, __doc__, "the first 300 examples",
                            repeat=(3, 1), min_time=(0.0, 0.0))
    warnings.simplefilter("ignore")
    from river import datasets

    load_start = load_average()
    streams = {"Phishing": list(datasets.Phishing()),
               "ImageSegments": list(datasets.ImageSegments())}
    if args.quick:
        streams = {k: v[:300] for k, v in streams.items()}
    rows, refused = [], {}
    for name, make in _learners():
        row = [name]
        for stream in streams.values():
            try:
                _run(make, stream[:50])
                runs = [_run(make, stream) for _ in range(args.repeat)]
                row += [f"{runs[0][0]:.3f}",
                        f"{min(t for _, t in runs) * 1e6:.0f}"]
            except ValueError as exc:
                # "labels [...] are not in classes_ [...], and <reason>"
                refused[name.split()[-1]] = str(exc).split(", and ", 1)[-1]
                row += ["refused (below)", ""]
        rows.append(row)
        print(" | ".join(row), flush=True)
    losses = _log_losses(streams["Phishing"])
    sizes = ", ".join(f"{k} {len(v):,}" for k, v in streams.items())
    report = "\n".join([
        "## river's streams: the adapters of every estimator against river's "
        "models",
        "",
        "Question: on river's Phishing and ImageSegments streams, with "
        "progressive validation (`StandardScaler() | model`, predict then "
        "learn), what accuracy does `as_river(E())` reach for every "
        "estimator at its defaults, and at what cost per example, beside "
        "river's `Perceptron`, `PAClassifier` and `ALMAClassifier` "
        "(one-vs-rest on ImageSegments)?",
        "",
        command_line("bench_river_streams.py", args,
                     "the first 300 examples"),
        "",
        machine_description((load_start, load_average())),
        "",
        f"Examples: {sizes}. Accuracy counts every prediction (the first, "
        "before any learning, too); µs per example is the wall time of "
        "`progressive_val_score` (scaler included), best of "
        f"{args.repeat} runs after an untimed warm-up.",
        "",
        md_table(["learner", "Phishing accuracy", "Phishing µs/example",
                  "ImageSegments accuracy", "ImageSegments µs/example"],
                 rows),
        "",
        *(["Refused: a new label into a fitted model (the labels of "
           "ImageSegments arrive one by one), each estimator's reason:",
           "", *[f"- {name}: {reason}" for name, reason in refused.items()],
           ""] if refused else
          ["Every estimator takes the labels of ImageSegments as they "
           "arrive (a binary model grows into the multiclass one).", ""]),
        "### Probabilities: progressive log loss on Phishing",
        "",
        "`predict_proba_one` of the adapters (online Platt scaling of the "
        "scores, `perceptrons.river.OnlinePlatt`) against the sigmoid of the "
        "same raw scores (river's choice for its linear models) and "
        "river's models; lower is better.",
        "",
        md_table(["learner", "log loss", "sigmoid of the raw score"],
                 losses),
    ])
    publish(report, "bench_river_streams", args.write)


if __name__ == "__main__":
    main()
