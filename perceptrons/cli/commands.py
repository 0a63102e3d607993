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
from .options import (CLIError, build_estimator, check_output,
                      estimator_params, flag_of, load_data, load_new_data,
                      make_scaler, model_name, registry_entry)

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


def _final(model):
    """The estimator at the end of a model (itself, or a Pipeline's last)."""
    return model.steps[-1][1] if hasattr(model, "steps") else model


def _note(lines):
    for line in lines:
        print(f"note: {line}", file=sys.stderr)


def train(args):
    import scipy.sparse as sp

    from ..persistence import save_model

    check_output(args.output, "model file")
    est = build_estimator(args)
    data = load_data(args)
    X, y = data.X, data.y
    model = est
    if args.scale != "none":
        from sklearn.pipeline import Pipeline

        model = Pipeline([("scale", make_scaler(args.scale, sp.issparse(X))),
                          ("model", est)])
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    save_model(model, args.output, input_schema=data.schema)
    scaled = "" if args.scale == "none" else f"scale={args.scale}"
    print(f"model:      {_describe_model(est, args, scaled)}")
    print(f"data:       {args.data}: {X.shape[0]} examples, {X.shape[1]} "
          f"features, {len(est.classes_)} classes")
    for line in data.notes:
        print(f"rows:       {line}")
    t = getattr(est, "t_", None)
    if hasattr(est, "n_mistakes_") and t:
        print(f"mistakes:   {est.n_mistakes_} online mistakes in {t} "
              f"predictions over {getattr(est, 'n_iter_', None)} passes "
              f"({100 * est.n_mistakes_ / t:.2f}%)")
    if hasattr(est, "n_updates_"):
        print(f"updates:    {est.n_updates_}")
    print(f"train acc:  {100 * model.score(X, y):.2f}%")
    print(f"time:       {seconds:.3f} s")
    print(f"saved:      {args.output}")
    return 0


def _read_for_model(args, model, schema):
    """The data of ``args.data`` in the model's feature space."""
    expected = getattr(_final(model), "n_features_in_", None)
    if expected is None:
        raise CLIError(f"{args.model!r} holds an unfitted model")
    data = load_new_data(args, schema)
    X = data.X
    if X.shape[1] < expected and hasattr(X, "resize"):
        X.resize((X.shape[0], expected))  # svmlight omits trailing features
    if X.shape[1] != expected:
        raise CLIError(
            f"{args.data!r} has {X.shape[1]} features but the model was "
            f"trained on {expected}")
    return data


def _accuracy_note(pred, data, classes):
    """The accuracy on the file's labels, or why there is none."""
    import numpy as np

    if data.y is None:
        return "the file has no label column, so no accuracy"
    pred = pred if data.labelled is None else pred[data.labelled]
    y = data.y
    if len(y) == 0:
        return "no row has a label, so no accuracy"
    unknown = ~np.isin(y, classes)
    if unknown.any():
        seen = ", ".join(repr(_format_label(v))
                         for v in dict.fromkeys(y[unknown].tolist()))
        known = ", ".join(repr(_format_label(v)) for v in classes[:10])
        return (f"no accuracy: {int(unknown.sum())} labels in the file are "
                f"not among the model's classes ({seen:.200}; the model "
                f"knows {known})")
    which = "" if len(y) == len(pred) else f" ({len(y)} labelled rows)"
    return f"accuracy on the file's labels{which}: " \
        f"{100 * np.mean(pred == y):.2f}%"


def predict(args):
    from ..persistence import load_model

    check_output(args.output, "output file")
    if not os.path.exists(args.model):
        raise CLIError(f"no such model file: {args.model!r}")
    model, schema = load_model(args.model, return_input_schema=True)
    data = _read_for_model(args, model, schema)
    pred = model.predict(data.X)
    lines = "".join(_format_label(v) + "\n" for v in pred)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(lines)
    else:
        sys.stdout.write(lines)
        sys.stdout.flush()
    if not args.quiet:
        _note(data.notes)
        note = f"{len(pred)} predictions"
        if args.output:
            note += f" written to {args.output}"
        note += "; " + _accuracy_note(pred, data, _final(model).classes_)
        print(note, file=sys.stderr)
    return 0


def evaluate(args):
    import scipy.sparse as sp

    from ..experiments.evaluation import cross_validate

    if not 0 < args.confidence < 1:
        raise CLIError("--confidence must be in (0, 1)")
    check_output(args.json, "JSON file")
    est = build_estimator(args)
    data = load_data(args)
    X, y = data.X, data.y
    model = est
    if args.scale == "unit-norm":  # row by row: no statistic to leak
        X = make_scaler(args.scale, sp.issparse(X)).fit_transform(X)
    elif args.scale == "maxabs":
        from sklearn.pipeline import Pipeline

        model = Pipeline([("scale", make_scaler(args.scale, sp.issparse(X))),
                          ("model", est)])
    res = cross_validate(model, X, y, n_splits=args.folds,
                         random_state=args.seed, confidence=args.confidence,
                         scale=args.scale == "standard")
    scaled = {"none": "", "standard": "standardized"}.get(
        args.scale, f"scale={args.scale}")
    print(f"model:    {_describe_model(est, args, scaled)}")
    print(f"data:     {args.data}: {X.shape[0]} examples, {X.shape[1]} "
          f"features")
    for line in data.notes:
        print(f"rows:     {line}")
    print(f"accuracy: {100 * res.mean:.2f}% ± {100 * res.ci_half_width:.2f} "
          f"({100 * res.confidence:g}% T-interval, {res.n_splits} folds; "
          f"[{100 * res.ci_low:.2f}, {100 * res.ci_high:.2f}])")
    print("folds:    " + " ".join(f"{100 * a:.1f}" for a in res.accuracies))
    rate = res.mean_mistake_rate
    print("online mistake rate: " + (
        f"{100 * rate:.2f}% (n_mistakes_ / t_, mean over folds)"
        if rate == rate else "n/a (not counted with --scale maxabs)"
        if model is not est else "n/a (the model does not count its "
                                 "mistakes)"))
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
                         jobs=args.jobs, resume=args.resume,
                         scheduler=args.scheduler)
    start = time.perf_counter()
    out = entry.load()(options)
    _print_report(out["markdown"], out["files"], start)
    failed = [r for r in out.get("records", ())
              if isinstance(r, dict) and r.get("status") == "error"]
    if failed:
        why = failed[0].get("result", {}).get("error", "an error")
        raise CLIError(f"reproduce {entry.name}: {len(failed)} task(s) not "
                       f"run, e.g. {why}")
    return 0


def models(args):
    for entry in registry.ESTIMATORS:
        cls = entry.load()
        doc = (cls.__doc__ or "").strip().splitlines()
        print(f"{entry.name}  (perceptrons.{entry.class_name}): "
              f"{doc[0] if doc else ''}")
        for key, value in cls().get_params(deep=False).items():
            print(f"    {key} = {value!r}    ({flag_of(key)})")
    return 0
