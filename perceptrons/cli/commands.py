"""The commands of ``perceptrons``: one function per subcommand.

Each takes the parsed arguments, calls :mod:`perceptrons.models`,
:mod:`perceptrons.persistence`, :mod:`perceptrons.datasets` or
:mod:`perceptrons.experiments`, prints, and returns the exit status. Those
modules (and numba, scikit-learn, matplotlib) are imported inside the
functions, so that ``perceptrons --help`` does not load them.
"""

import json
import os
import sys
import time

from .. import registry
from .options import (CLIError, build_estimator, data_format,
                      estimator_params, load_data, model_name,
                      registry_entry)

__all__ = ["demo", "evaluate", "models", "predict", "reproduce", "train"]


def _describe_model(estimator, args, extra=""):
    parts = [f"{k}={v!r}" for k, v in estimator_params(args).items()]
    if extra:
        parts.append(extra)
    return f"{model_name(estimator)} ({', '.join(parts) or 'defaults'})"


def _format_label(value):
    if isinstance(value, float) or type(value).__name__.startswith("float"):
        value = float(value)
        return str(int(value)) if value.is_integer() else repr(value)
    if hasattr(value, "item"):
        value = value.item()
    return str(value)


def _print_report(markdown, files, start):
    """The Markdown on stdout; the files written and the time on stderr."""
    sys.stdout.write(markdown)
    print(f"\nwrote {', '.join(str(f) for f in files)} in "
          f"{time.perf_counter() - start:.1f} s", file=sys.stderr)


def train(args):
    from ..persistence import save_model

    est = build_estimator(args)
    X, y = load_data(args)
    start = time.perf_counter()
    est.fit(X, y)
    seconds = time.perf_counter() - start
    save_model(est, args.output)
    print(f"model:      {_describe_model(est, args)}")
    print(f"data:       {args.data}: {X.shape[0]} examples, {X.shape[1]} "
          f"features, {len(est.classes_)} classes")
    t = getattr(est, "t_", None)
    if hasattr(est, "n_mistakes_") and t:
        print(f"mistakes:   {est.n_mistakes_} online mistakes in {t} "
              f"predictions over {getattr(est, 'n_iter_', None)} passes "
              f"({100 * est.n_mistakes_ / t:.2f}%)")
    if hasattr(est, "n_updates_"):
        print(f"updates:    {est.n_updates_}")
    print(f"train acc:  {100 * est.score(X, y):.2f}%")
    print(f"time:       {seconds:.3f} s")
    print(f"saved:      {args.output}")
    return 0


def predict(args):
    from ..persistence import load_model

    if not os.path.exists(args.model):
        raise CLIError(f"no such model file: {args.model!r}")
    est = load_model(args.model)
    expected = getattr(est, "n_features_in_", None)
    if expected is None:
        raise CLIError(f"{args.model!r} holds an unfitted model")
    X, y = load_data(args)
    if (X.shape[1] < expected
            and data_format(args.data, args.format) == "svmlight"):
        # an svmlight file need not mention the highest features
        X, y = load_data(args, n_features=expected)
    if X.shape[1] != expected:
        raise CLIError(
            f"{args.data!r} has {X.shape[1]} features but the model was "
            f"trained on {expected}")
    pred = est.predict(X)
    lines = "".join(_format_label(v) + "\n" for v in pred)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(lines)
    else:
        sys.stdout.write(lines)
    if not args.quiet:
        import numpy as np

        note = f"{len(pred)} predictions"
        if args.output:
            note += f" written to {args.output}"
        if np.isin(y, est.classes_).all():
            note += ("; accuracy on the file's labels: "
                     f"{100 * np.mean(pred == y):.2f}%")
        print(note, file=sys.stderr)
    return 0


def evaluate(args):
    from ..experiments.evaluation import cross_validate

    if not 0 < args.confidence < 1:
        raise CLIError("--confidence must be in (0, 1)")
    est = build_estimator(args)
    X, y = load_data(args)
    res = cross_validate(est, X, y, n_splits=args.folds,
                         random_state=args.seed, confidence=args.confidence,
                         scale=args.scale)
    scaled = "standardized" if args.scale else ""
    print(f"model:    {_describe_model(est, args, scaled)}")
    print(f"data:     {args.data}: {X.shape[0]} examples, {X.shape[1]} "
          f"features")
    print(f"accuracy: {100 * res.mean:.2f}% ± {100 * res.ci_half_width:.2f} "
          f"({100 * res.confidence:g}% T-interval, {res.n_splits} folds; "
          f"[{100 * res.ci_low:.2f}, {100 * res.ci_high:.2f}])")
    print("folds:    " + " ".join(f"{100 * a:.1f}" for a in res.accuracies))
    rate = res.mean_mistake_rate
    print("online mistake rate: " + (
        "n/a (the model does not count its mistakes)" if rate != rate
        else f"{100 * rate:.2f}% (n_mistakes_ / t_, mean over folds)"))
    if args.json:
        # standard JSON: NaN (no mistake rate) as null
        record = json.loads(json.dumps(res.to_dict()),
                            parse_constant=lambda name: None)
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(record, fh, indent=1)
    return 0


def demo(args):
    from ..experiments.demo import run_demo

    start = time.perf_counter()
    out = run_demo(args.output_dir, quick=args.quick,
                   datasets=args.datasets, n_splits=args.folds,
                   max_iter=args.max_iter,
                   progress=False if args.no_progress else None)
    files = out["files"]
    _print_report(out["markdown"],
                  [files[k] for k in ("markdown", "png", "json", "csv")],
                  start)
    return 0


def reproduce(args):
    entry = registry_entry(registry.find_reproduction, args.name)
    from ..experiments.options import RunOptions

    options = RunOptions(output_dir=args.output_dir, quick=args.quick,
                         progress=False if args.no_progress else None,
                         jobs=args.jobs, resume=args.resume)
    start = time.perf_counter()
    out = entry.load()(options)
    _print_report(out["markdown"], out["files"], start)
    return 0


def models(args):
    for entry in registry.ESTIMATORS:
        cls = entry.load()
        doc = (cls.__doc__ or "").strip().splitlines()
        print(f"{entry.name}  (perceptrons.{entry.class_name}): "
              f"{doc[0] if doc else ''}")
        for key, value in cls().get_params(deep=False).items():
            print(f"    {key} = {value!r}")
    return 0
