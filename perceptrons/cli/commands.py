"""The commands of ``perceptrons``: one function per subcommand.

Each takes the parsed arguments, calls :mod:`perceptrons.models`,
:mod:`perceptrons.persistence`, :mod:`perceptrons.datasets` or
:mod:`perceptrons.experiments`, prints, and returns the exit status. Those
modules (and numba, scikit-learn, matplotlib) are imported inside the
functions, so that ``perceptrons --help`` does not load them.
"""

import json
import sys
import time

from .. import registry
from ..utils.output import atomic_write
from . import labels
from .options import (_ZERO_BASED, CLIError, build_estimator,
                      check_model_file, check_output, data_format,
                      estimator_params, flag_of, load_data, load_new_data,
                      make_scaler, model_name, refuse_stream_only,
                      registry_entry, resolve_data, scan_stream,
                      stream_chunk_bytes, stream_zero_based)

__all__ = ["demo", "evaluate", "models", "predict", "reproduce", "train"]


def _describe_model(estimator, args, extra=""):
    parts = [f"{k}={v!r}" for k, v in estimator_params(args, estimator)
             .items()]
    if extra:
        parts.append(extra)
    return f"{model_name(estimator)} ({', '.join(parts) or 'defaults'})"


def _scaled(args):
    """``--scale`` in a model's description (train and evaluate alike)."""
    return "" if args.scale == "none" else f"scale={args.scale}"


def _rows(n_rows, n_features, n_classes=None, classes="classes"):
    """The size of the data, in the words of every summary (None: not
    known, not shown); ``classes``: what the classes are ("labels" of a
    multi-label problem)."""
    return ", ".join(f"{n} {what}" for n, what in (
        (n_rows, "rows"), (n_features, "features"), (n_classes, classes))
        if n is not None)


def _train_accuracy(model, X, y):
    """The training accuracy line's value: of the rows, or of a
    multi-label problem's labels and rows."""
    if y.ndim == 2:
        return labels.scores_text(model.predict(X), y)
    return f"{100 * model.score(X, y):.2f}%"


def _format_label(value):
    # perceptrons.streaming writes labels the same way; imported here so
    # that `perceptrons --help` does not load numpy
    from ..streaming import format_label

    return format_label(value)


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

    resolve_data(args)
    inputs = [(path, "data file") for path in args.data]
    cache = args.cache_file if args.stream else None
    check_output(args.output, "model file", inputs,
                 [(cache, "cache file (--cache-file)")])
    check_output(cache, "cache file (--cache-file)", inputs)
    est = build_estimator(args)
    files, args.data = args.data, args.data[0]
    if len(files) > 1 or args.shards or args.scheduler or args.mixing:
        return _train_mixing(args, est, files)
    if args.stream:
        return _train_stream(args, est)
    refuse_stream_only(args)
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
    print(f"model:      {_describe_model(est, args, _scaled(args))}")
    print(f"data:       {args.data}: "
          f"{_rows(*X.shape, len(est.classes_), _classes(y))}")
    for line in data.notes:
        print(f"rows:       {line}")
    _print_counts(est, getattr(est, "n_iter_", None), X.shape[0])
    print(f"train acc:  {_train_accuracy(model, X, y)}")
    print(f"time:       {seconds:.3f} s")
    print(f"saved:      {args.output}")
    return 0


def _classes(y):
    return "labels" if y.ndim == 2 else "classes"


def _train_mixing(args, est, files):
    """``train`` with shards: iterative parameter mixing
    (:class:`perceptrons.distributed.ParameterMixing`)."""
    from ..distributed import ParameterMixing
    from ..persistence import save_model

    if labels.is_multilabel(args.label_column):
        raise CLIError("several label columns (a multi-label problem) do "
                       "not combine with parameter mixing (--shards, "
                       "--scheduler, --mixing, several files) yet: train "
                       "on one file without them")
    if args.stream:
        raise CLIError("--stream and parameter mixing (--shards, --scheduler, "
                       "several files) do not combine: give each worker a "
                       "shard file that fits its memory")
    refuse_stream_only(args)
    if args.scale != "none":
        raise CLIError("--scale is not available with parameter mixing: "
                       "the statistics would need a pass over every shard")
    if len(files) > 1 and args.shards and args.shards != len(files):
        raise CLIError(f"--shards {args.shards} with {len(files)} files: "
                       "with several files, each file is a shard")
    try:
        mixer = ParameterMixing(est, mixing=args.mixing or "uniform",
                                n_shards=args.shards or 2,
                                client=args.scheduler,
                                n_features=args.n_features,
                                zero_based=_ZERO_BASED[args.zero_based])
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    start = time.perf_counter()
    if len(files) > 1:
        for path in files:
            if data_format(path, args.format) != "svmlight":
                raise CLIError(f"shard {path!r} is not an svmlight/LIBSVM "
                               "file: shard files must be svmlight")
        mixer.fit(files)
        X = y = None
        schema = {"format": "svmlight", "zero_based": mixer.zero_based_,
                  "n_features": mixer.n_features_in_}
        described = f"{len(files)} shard files"
        n_rows = None
    else:
        data = load_data(args)
        X, y, schema = data.X, data.y, data.schema
        mixer.fit(X, y)
        described = args.data
        n_rows = X.shape[0]
    seconds = time.perf_counter() - start
    model = mixer.estimator_
    save_model(model, args.output, input_schema=schema)
    where = args.scheduler or "this process"
    print(f"model:      {_describe_model(model, args)}")
    print(f"data:       {described}: "
          f"{_rows(n_rows, model.n_features_in_, len(model.classes_))}")
    print(f"mixing:     {mixer.n_shards_} shards on {where}, "
          f"{mixer.mixing} mixing, {mixer.n_iter_} passes")
    _print_counts(model, mixer.n_iter_, n_rows)
    per_pass = mixer.mistakes_per_shard_.sum(axis=1)
    print("mistakes per pass: " + " ".join(str(int(k)) for k in per_pass))
    if X is not None:
        print(f"train acc:  {100 * model.score(X, y):.2f}%")
    print(f"time:       {seconds:.3f} s")
    print(f"saved:      {args.output}")
    return 0


def _print_counts(est, n_passes, n_rows=None):
    """The passes, online mistakes and updates of a training run, counted
    the way a reader checks them: passes over the rows (and, for the margin
    perceptrons, over their active sets, Sec. 4 of the PDM paper), and
    mistakes among the rows presented (``t_``), which is rows x passes
    unless active sets or one-vs-rest problems add to it."""
    problems = len(getattr(est, "n_iter_per_problem_", ()))
    active = getattr(est, "n_active_passes_", 0)
    t = getattr(est, "t_", None)
    rows = "the rows" if n_rows is None else f"the {n_rows} rows"
    if t and n_passes and not active and problems < 2 and n_rows \
            and t // n_passes < n_rows:  # early_stopping held some out
        rows = f"{t // n_passes} of {rows} (the others held out for " \
               "validation)"
    passes = f"{n_passes} over {rows}"
    if problems > 1:  # each problem stops when it converges
        passes = (f"up to {passes} per one-vs-rest problem ({problems} "
                  "problems)")
    if active:
        passes += f", and {active} over active sets" + (
            " in all" if problems > 1 else "")
    print(f"passes:     {passes}")
    n_labels = getattr(getattr(est, "state_", None), "n_labels", 0)
    if hasattr(est, "n_mistakes_") and t and n_labels:
        print(f"mistakes:   {est.n_mistakes_} online, one per wrong label, "
              f"in the {t} rows presented "
              f"({100 * est.n_mistakes_ / (t * n_labels):.2f}% of the "
              "labels)")
    elif hasattr(est, "n_mistakes_") and t:
        summed = ", summed over the problems" if problems > 1 else ""
        print(f"mistakes:   {est.n_mistakes_} online, in the {t} rows "
              f"presented{summed} "
              f"({100 * est.n_mistakes_ / t:.2f}%)")
    if hasattr(est, "n_updates_"):
        print(f"updates:    {est.n_updates_}")


def _train_stream(args, est):
    """``train --stream``: partial_fit over the file's chunks, pass after
    pass (:func:`perceptrons.streaming.fit_file`)."""
    from ..persistence import save_model
    from ..streaming import fit_file

    start = time.perf_counter()
    info, schema = scan_stream(args)
    stamps, sources = [time.perf_counter()], []

    def record(_, epoch):
        stamps.append(time.perf_counter())
        sources.append(epoch.source)

    fit_file(est, args.data, n_features=schema["n_features"],
             classes=info.classes, zero_based=info.zero_based,
             chunk_bytes=stream_chunk_bytes(args),
             cache=None if args.no_cache else args.cache_file or "auto",
             shuffle_buffer=args.shuffle_buffer or 0,
             random_state=est.get_params().get("random_state"),
             callback=record)
    seconds = time.perf_counter() - start
    save_model(est, args.output, input_schema=schema)
    print(f"model:      {_describe_model(est, args, 'streamed')}")
    print(f"data:       {args.data}: "
          f"{_rows(info.n_rows, schema['n_features'], len(est.classes_))} "
          f"(scanned in {stamps[0] - start:.3f} s, from the {info.source})")
    _print_counts(est, len(sources), info.n_rows)
    print("pass times: " + ", ".join(
        f"{b - a:.3f} s ({source})"
        for a, b, source in zip(stamps, stamps[1:], sources)))
    print("train acc:  not computed with --stream (it takes another pass: "
          "perceptrons predict --stream MODEL DATA)")
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


def _label_names(schema, pred):
    """The names of a multi-label model's labels: its training file's
    label columns', or ``label<k>``."""
    if isinstance(schema, dict) and "label_columns" in schema:
        return labels.label_names(schema)
    return [f"label{k}" for k in range(pred.shape[1])]


def _accuracy_note(pred, data, classes):
    """The accuracy on the file's labels, or why there is none."""
    import numpy as np

    if data.y is None:
        return "the file has no label column, so no accuracy"
    pred = pred if data.labelled is None else pred[data.labelled]
    y = data.y
    if len(y) == 0:
        return "no row has a label, so no accuracy"
    if pred.ndim != y.ndim:
        return ("the model predicts a row of labels (multi-label) and the "
                "file holds one label per row, so no accuracy")
    if y.ndim == 2:
        which = "" if len(y) == len(data.X) else \
            f" ({len(y)} rows with every label)"
        return (f"accuracy on the file's labels{which}: "
                f"{labels.scores_text(pred, y)}")
    unknown = ~np.isin(y, classes)
    return _accuracy_text(int(np.count_nonzero(pred == y)), len(y),
                          len(pred), int(unknown.sum()),
                          list(dict.fromkeys(y[unknown].tolist())), classes)


def _accuracy_text(n_correct, n_labelled, n_rows, n_unknown, unknown,
                   classes):
    """The accuracy from counts, or why there is none (``n_unknown``
    labels, such as ``unknown``, are not among ``classes``)."""
    if n_unknown:
        seen = ", ".join(repr(_format_label(v)) for v in unknown)
        known = ", ".join(repr(_format_label(v)) for v in classes[:10])
        return (f"no accuracy: {n_unknown} labels in the file are "
                f"not among the model's classes ({seen:.200}; the model "
                f"knows {known})")
    which = "" if n_labelled == n_rows else f" ({n_labelled} labelled rows)"
    return f"accuracy on the file's labels{which}: " \
        f"{100 * n_correct / n_labelled:.2f}%"


def predict(args):
    from ..persistence import load_model

    resolve_data(args)
    check_output(args.output, "output file",
                 [(args.model, "model file"), (args.data, "data file")])
    if not args.stream:
        refuse_stream_only(args)
    check_model_file(args.model, args.data)
    model, schema = load_model(args.model, return_input_schema=True)
    if args.stream:
        return _predict_stream(args, model, schema)
    data = _read_for_model(args, model, schema)
    pred = model.predict(data.X)
    if pred.ndim == 2:  # a multi-label model: a column per label
        lines = labels.prediction_lines(pred, _label_names(schema, pred))
    else:
        lines = "".join(_format_label(v) + "\n" for v in pred)
    if args.output:
        with atomic_write(args.output, what="output file") as fh:
            fh.write(lines)
    else:
        sys.stdout.write(lines)
        sys.stdout.flush()
    if not args.quiet:
        _note(data.notes)
        _print_predicted(args, len(pred),
                         _accuracy_note(pred, data, _final(model).classes_))
    return 0


def _print_predicted(args, n_rows, accuracy):
    note = f"{n_rows} predictions"
    if args.output:
        note += f" written to {args.output}"
    print(f"{note}; {accuracy}", file=sys.stderr)


def _predict_stream(args, model, schema):
    """``predict --stream``: each chunk's predictions written as it is read
    (:func:`perceptrons.streaming.predict_file`)."""
    from ..streaming import predict_file

    if getattr(_final(model), "n_features_in_", None) is None:
        raise CLIError(f"{args.model!r} holds an unfitted model")
    zero_based = stream_zero_based(args, schema)
    chunk_bytes = stream_chunk_bytes(args)
    if args.output:
        res = predict_file(model, args.data, args.output,
                           chunk_bytes=chunk_bytes, zero_based=zero_based)
    else:
        res = predict_file(model, args.data, sys.stdout,
                           chunk_bytes=chunk_bytes, zero_based=zero_based)
        sys.stdout.flush()
    if not args.quiet:
        _print_predicted(args, res.n_rows, _accuracy_text(
            res.n_correct, res.n_rows, res.n_rows, res.n_unknown,
            res.unknown_labels, _final(model).classes_))
    return 0


def evaluate(args):
    import scipy.sparse as sp

    from ..experiments.evaluation import cross_validate

    if not 0 < args.confidence < 1:
        raise CLIError("--confidence must be in (0, 1)")
    resolve_data(args)
    check_output(args.json, "JSON file", [(args.data, "data file")])
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
    print(f"model:    {_describe_model(est, args, _scaled(args))}")
    print(f"data:     {args.data}: {_rows(*X.shape)}"
          + (f", {y.shape[1]} labels" if y.ndim == 2 else ""))
    for line in data.notes:
        print(f"rows:     {line}")
    print(f"accuracy: {100 * res.mean:.2f}% ± {100 * res.ci_half_width:.2f} "
          + ("of the labels " if y.ndim == 2 else "")
          + f"({100 * res.confidence:g}% T-interval, {res.n_splits} folds; "
          f"[{100 * res.ci_low:.2f}, {100 * res.ci_high:.2f}])")
    print("folds:    " + " ".join(f"{100 * a:.1f}" for a in res.accuracies))
    rate = res.mean_mistake_rate
    print("mistakes: " + (
        f"{100 * rate:.2f}% online, of the "
        + ("labels of the " if y.ndim == 2 else "")
        + "rows presented in training (mean over folds)"
        if rate == rate else "not counted with --scale maxabs"
        if model is not est else "not counted by the model"))
    if args.json:
        # standard JSON: NaN (no mistake rate) as null
        record = json.loads(json.dumps(res.to_dict()),
                            parse_constant=lambda name: None)
        with atomic_write(args.json, what="JSON file") as fh:
            json.dump(record, fh, indent=1)
    return 0


def demo(args):
    from ..experiments.demo import run_demo

    start = time.perf_counter()
    out = run_demo(args.output_dir, quick=args.quick,
                   datasets=args.datasets, n_splits=args.folds,
                   max_iter=args.max_iter,
                   progress=False if args.no_progress else None)
    _print_report(out["markdown"], list(out["files"].values()), start)
    return 0


def reproduce(args):
    entry = registry_entry(registry.find_reproduction, args.name)
    from ..experiments.options import RunOptions

    options = RunOptions(output_dir=args.output_dir, quick=args.quick,
                         progress=False if args.no_progress else None,
                         jobs=args.jobs, resume=args.resume,
                         scheduler=args.scheduler,
                         render_only=args.render_only)
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


def precompile(args):
    from .. import precompile as ahead

    only = None
    if args.only:
        only = [registry_entry(registry.find_estimator, name).class_name
                for name in args.only]
    start = time.process_time()
    ahead.precompile(only=only, verbose=True)
    print(f"{time.process_time() - start:7.2f} s  in all (CPU)")
    return 0


def models(args):
    from .texts import cite_by_name

    for entry in registry.ESTIMATORS:
        cls = entry.load()
        doc = (cls.__doc__ or "").strip().splitlines()
        summary = cite_by_name(doc[0], cls.__doc__) if doc else ""
        print(f"{entry.name}  (perceptrons.{entry.class_name}): {summary}")
        for key, value in cls().get_params(deep=False).items():
            print(f"    {key} = {value!r}    ({flag_of(key, value)})")
    return 0
