"""Command-line interface: ``perceptrons train|predict|evaluate|demo|models``.

This module parses arguments, calls :mod:`perceptrons.models`,
:mod:`perceptrons.persistence`, :mod:`perceptrons.datasets` and
:mod:`perceptrons.experiments`, and prints; it holds no algorithm logic.
Heavy modules (numba, scikit-learn, matplotlib) are imported inside the
subcommand functions so that ``perceptrons --help`` starts quickly.

Errors a user can cause (missing or malformed files, a corrupt model, bad
options) end with one line ``perceptrons: error: ...`` on stderr and exit
status 2, without a traceback.
"""

import argparse
import json
import os
import re
import sys
import textwrap
import time

__all__ = ["main", "build_parser"]

PROG = "perceptrons"

_PAPERS = """\
papers:
  R. Khardon, G. Wachman. Noise tolerant variants of the perceptron algorithm.
    JMLR 8:227-248, 2007 (the threshold perceptron with margin tau, lambda-trick,
    alpha-bound, longest survivor and voted hypotheses; the 10-fold CV with a
    95% T-interval of their footnote 5).
  Y. Freund, R. Schapire. Large margin classification using the perceptron
    algorithm. Machine Learning 37(3), 1999 (voted perceptron).
  F. Rosenblatt. The perceptron. Psychological Review 65(6), 1958.
"""

_MAIN_EPILOG = """\
examples:
  perceptrons demo                          # compare the family on built-in data
  perceptrons train a9a.svm -o model.npz --hypothesis voted
  perceptrons predict model.npz a9a.t.svm -o predictions.txt
  perceptrons evaluate wdbc.csv --format csv --label-column 1 --tau 0.5
  perceptrons models                        # estimators and their parameters
  perceptrons COMMAND --help                # details of one command

""" + _PAPERS

_DATA_HELP = """\
data files:
  svmlight/LIBSVM text ("label index:value ..."), optionally .gz/.bz2/.xz
  compressed, or CSV without a header row (--format csv, --label-column N).
  --format auto picks CSV for *.csv and *.data (after a compression suffix),
  svmlight otherwise. Nominal CSV columns are one-hot encoded (K&W Sec. 3.1).
"""

_TRAIN_EPILOG = _DATA_HELP + """
algorithm options (unset options keep the estimator's defaults; see
`perceptrons models`):
  --eta            learning rate eta (K&W: 0.1)
  --theta-init     initial threshold theta_Init, a number or "auto" = avg <x,x>
  --threshold-step C: an update on label y moves theta by -eta*y*C ("auto")
  --margin         absolute margin: update when y(<w,x> - theta) <= margin
  --tau            the margin in units of theta_Init, as K&W state it
                   (margin = tau * theta_Init, theta_Init from the training data)
  --lam            lambda of the lambda-trick, K&W Eq. (1)
  --alpha-bound    at most this many updates per example ("none": unbounded)
  --hypothesis     last | longest | voted | averaged
  --multiclass     ovr | prototype

examples:
  perceptrons train train.svm -o model.npz
  perceptrons train train.svm.gz -o model.npz --hypothesis voted --max-iter 100
  perceptrons train wdbc.data --format csv --label-column 1 --tau 1 -o wdbc.npz
  perceptrons train train.svm --model kernel-perceptron --kernel poly --degree 4

The model file is a zip of .npy arrays plus a JSON header, loaded without
pickle (see perceptrons.persistence).

""" + _PAPERS

_PREDICT_EPILOG = """\
Writes one predicted label per line, in the order of the rows of DATA. The
data file must use the model's feature space: an svmlight file may omit
trailing features, but a file with more features than the model is an error.
If DATA holds labels (svmlight always does; CSV via --label-column), the
accuracy is reported on stderr (silence it with -q).

examples:
  perceptrons predict model.npz test.svm
  perceptrons predict model.npz test.svm -o predictions.txt
  perceptrons predict model.npz test.csv --format csv --label-column 0

""" + _DATA_HELP

_EVALUATE_EPILOG = """\
Stratified, shuffled k-fold cross-validation (the same folds for a given
--seed). Reports the mean accuracy with the T-confidence interval of Khardon
& Wachman (2007), footnote 5:
    mean +/- t_{k-1, 0.975} * sqrt( sum_i (acc_i - mean)^2 / (k (k-1)) )
and the online mistake rate n_mistakes_ / t_: the fraction of training
examples (over all passes) the model predicted wrongly before learning from
them, averaged over the folds.

examples:
  perceptrons evaluate train.svm
  perceptrons evaluate train.svm --hypothesis voted --folds 5 --seed 1
  perceptrons evaluate wdbc.data --format csv --label-column 1 --tau 0.5 --scale

""" + _DATA_HELP + "\n" + _PAPERS

_DEMO_EPILOG = """\
Runs the Khardon & Wachman (2007) family - classic (last), longest survivor,
voted, averaged, margin tau = 0.5 and 1 (units of theta_Init), lambda-trick,
alpha-bound - and scikit-learn's Perceptron on built-in data only (K&W's
artificial data f=50, M=0.1, N in {0, 0.1}; scikit-learn's breast cancer
(WDBC) and digits), with 10-fold CV accuracy, 95% T-interval and online
mistake rate. Prints a Markdown table and writes into --output-dir:
  demo_table.md, demo_accuracy.png, demo_results.json, demo_results.csv
(with package and numba versions and the git SHA).

examples:
  perceptrons demo
  perceptrons demo --quick --output-dir /tmp/demo
  perceptrons demo --datasets wdbc digits --folds 5

""" + _PAPERS


class CLIError(Exception):
    """A user error reported as ``perceptrons: error: ...`` (exit 2)."""


# --------------------------------------------------------------- helpers
def _wrap(text):
    return textwrap.fill(text, width=78)


def _model_name(cls_name):
    return re.sub(r"(?<!^)(?=[A-Z])", "-", cls_name).lower()


def _model_registry():
    """Command-line model names -> estimator classes (public estimators)."""
    from .persistence import estimator_registry

    return {_model_name(name.split(".")[-1]): cls
            for name, cls in estimator_registry().items()}


def _resolve_model(name):
    registry = _model_registry()
    key = name.lower().removeprefix("perceptrons.")
    key = key if key in registry else _model_name(name.split(".")[-1])
    if key not in registry:
        raise CLIError(f"unknown model {name!r}; available: "
                       f"{', '.join(sorted(registry))} (see `perceptrons "
                       "models`)")
    return registry[key]


def _float_or_auto(text):
    if text.lower() == "auto":
        return "auto"
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number or 'auto', got {text!r}") from None


def _int_or_none(text):
    if text.lower() in ("none", "inf", "infinity"):
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an integer or 'none', got {text!r}") from None


def _number_or_str(text):
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def _key_value(text):
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    key, value = text.split("=", 1)
    if value.lower() in ("none", "null"):
        return key.strip(), None
    try:
        return key.strip(), json.loads(value)
    except ValueError:
        return key.strip(), value


def _format_label(value):
    if isinstance(value, float) or type(value).__name__.startswith("float"):
        value = float(value)
        return str(int(value)) if value.is_integer() else repr(value)
    if hasattr(value, "item"):
        value = value.item()
    return str(value)


def _data_format(path, fmt):
    if fmt != "auto":
        return fmt
    name = os.path.basename(os.fspath(path)).lower()
    for suffix in (".gz", ".bz2", ".xz", ".lzma"):
        name = name.removesuffix(suffix)
    return "csv" if name.endswith((".csv", ".data")) else "svmlight"


def _zero_based(text):
    return {"auto": "auto", "yes": True, "no": False}[text]


def _load_data(args, n_features=None):
    """Read X, y from ``args.data`` according to the data options."""
    from .datasets import load_csv, load_svmlight

    path = args.data
    if not os.path.exists(path):
        raise CLIError(f"no such data file: {path!r}")
    if os.path.isdir(path):
        raise CLIError(f"{path!r} is a directory, not a data file")
    if _data_format(path, args.format) == "csv":
        return load_csv(path, label_column=args.label_column,
                        delimiter=args.delimiter)
    return load_svmlight(path, n_features=n_features or args.n_features,
                         zero_based=_zero_based(args.zero_based))


def _estimator_params(args):
    """Parameters given on the command line (unset options are omitted)."""
    params = {}
    for _, name in _ALGO_OPTIONS:
        value = getattr(args, name, None)
        if value is not None:
            params[name] = value
    if getattr(args, "no_shuffle", False):
        params["shuffle"] = False
    if getattr(args, "alpha_bound_set", False):
        params["alpha_bound"] = args.alpha_bound
    for key, value in getattr(args, "param", None) or []:
        params[key] = value
    return params


def _build_estimator(args):
    cls = _resolve_model(args.model)
    est = cls()
    params = _estimator_params(args)
    accepted = est.get_params(deep=False)
    for key in params:
        if key not in accepted:
            flag = "--" + key.replace("_", "-")
            raise CLIError(
                f"model {_model_name(cls.__name__)!r} has no parameter "
                f"{key!r} ({flag}); its parameters: "
                f"{', '.join(sorted(accepted))}")
    if args.tau is not None:
        if "margin" in params:
            raise CLIError("give either --margin or --tau, not both")
        if "margin" not in accepted:
            raise CLIError(f"model {_model_name(cls.__name__)!r} has no "
                           "margin (--tau)")
    est.set_params(**params)
    return est


# (option, parameter) pairs forwarded to the estimator when given.
_ALGO_OPTIONS = [
    ("--eta", "eta"), ("--theta-init", "theta_init"),
    ("--threshold-step", "threshold_step"), ("--margin", "margin"),
    ("--lam", "lam"), ("--hypothesis", "hypothesis"),
    ("--multiclass", "multiclass"), ("--max-iter", "max_iter"),
    ("--random-state", "random_state"), ("--kernel", "kernel"),
    ("--degree", "degree"), ("--gamma", "gamma"), ("--coef0", "coef0"),
]


class _AlphaBound(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        namespace.alpha_bound = values
        namespace.alpha_bound_set = True


def _add_data_options(p, labels_note=""):
    g = p.add_argument_group("data options")
    g.add_argument("--format", choices=("auto", "svmlight", "csv"),
                   default="auto",
                   help="file format (default: auto, by file name)")
    g.add_argument("--label-column", type=int, default=-1, metavar="N",
                   help="CSV: index of the label column, negative from the "
                        "end (default: -1)" + labels_note)
    g.add_argument("--delimiter", default=",",
                   help="CSV: field separator (default: ',')")
    g.add_argument("--zero-based", choices=("auto", "yes", "no"),
                   default="auto",
                   help="svmlight: whether feature indices start at 0 "
                        "(default: auto; LIBSVM files are one-based: no)")


def _add_model_options(p):
    g = p.add_argument_group("model options")
    g.add_argument("--model", default="perceptron", metavar="NAME",
                   help="estimator (default: perceptron; list them with "
                        "`perceptrons models`)")
    g.add_argument("--eta", type=float, help="learning rate eta")
    g.add_argument("--theta-init", type=_float_or_auto, metavar="X|auto",
                   help="initial threshold theta_Init")
    g.add_argument("--threshold-step", type=_float_or_auto, metavar="C|auto",
                   help="threshold step C")
    g.add_argument("--margin", type=float, metavar="TAU_ABS",
                   help="absolute margin tau")
    g.add_argument("--tau", type=float, metavar="TAU",
                   help="margin in units of theta_Init (K&W Sec. 2.4)")
    g.add_argument("--lam", type=float, metavar="LAMBDA",
                   help="lambda-trick coefficient")
    g.add_argument("--alpha-bound", type=_int_or_none, action=_AlphaBound,
                   metavar="A|none", help="max updates per example")
    g.add_argument("--hypothesis",
                   choices=("last", "longest", "voted", "averaged"),
                   help="final hypothesis")
    g.add_argument("--multiclass", choices=("ovr", "prototype"),
                   help="multiclass rule")
    g.add_argument("--max-iter", type=int, metavar="N",
                   help="passes over the training data")
    g.add_argument("--no-shuffle", action="store_true",
                   help="present the rows in file order every pass")
    g.add_argument("--random-state", type=int, metavar="SEED",
                   help="seed of the shuffling")
    k = p.add_argument_group("kernel options (kernel models)")
    k.add_argument("--kernel", help="Mercer kernel, e.g. linear, poly, rbf")
    k.add_argument("--degree", type=int, help="polynomial degree")
    k.add_argument("--gamma", type=_number_or_str, help="kernel coefficient")
    k.add_argument("--coef0", type=float, help="kernel offset")
    g.add_argument("--param", type=_key_value, action="append",
                   metavar="NAME=VALUE",
                   help="any other estimator parameter (VALUE parsed as "
                        "JSON if possible); repeatable")


def build_parser():
    """The argparse parser of the ``perceptrons`` command."""
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog=PROG, formatter_class=formatter,
        description=_wrap(
            "Perceptron-family online classifiers: train, predict, "
            "cross-validate, and run the demo comparison."),
        epilog=_MAIN_EPILOG)
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser(
        "train", formatter_class=formatter, epilog=_TRAIN_EPILOG,
        help="fit a model on a data file and save it",
        description=_wrap(
            "Fit a perceptron-family model on DATA and save it to a "
            "model file; prints the online mistakes and updates made "
            "while training and the training accuracy."))
    p.add_argument("data", help="training data file")
    p.add_argument("-o", "--output", default="model.npz", metavar="MODEL",
                   help="model file to write (default: model.npz)")
    p.add_argument("--n-features", type=int, metavar="D",
                   help="svmlight: number of features (default: highest "
                        "index in the file)")
    _add_data_options(p)
    _add_model_options(p)
    p.set_defaults(func=cmd_train)

    p = sub.add_parser(
        "predict", formatter_class=formatter, epilog=_PREDICT_EPILOG,
        help="predict labels with a saved model",
        description=_wrap(
            "Predict the label of every row of DATA with MODEL."))
    p.add_argument("model", help="model file written by `perceptrons train`")
    p.add_argument("data", help="data file to label")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the predictions here (default: stdout)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="do not report the accuracy on labelled data")
    _add_data_options(p, labels_note="; the labels are only used to report "
                                     "accuracy")
    p.set_defaults(func=cmd_predict, n_features=None)

    p = sub.add_parser(
        "evaluate", formatter_class=formatter, epilog=_EVALUATE_EPILOG,
        help="k-fold cross-validation with a T-confidence interval",
        description=_wrap(
            "Cross-validate a model on DATA: accuracy +/- the "
            "T-confidence interval and the online mistake rate."))
    p.add_argument("data", help="labelled data file")
    p.add_argument("--folds", type=int, default=10, metavar="K",
                   help="number of folds (default: 10, as K&W)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the fold assignment (default: 0)")
    p.add_argument("--confidence", type=float, default=0.95,
                   help="coverage of the T-interval (default: 0.95)")
    p.add_argument("--scale", action="store_true",
                   help="standardize features on each training fold")
    p.add_argument("--n-features", type=int, metavar="D",
                   help="svmlight: number of features")
    p.add_argument("--json", metavar="FILE",
                   help="also write the per-fold results as JSON")
    _add_data_options(p)
    _add_model_options(p)
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser(
        "demo", formatter_class=formatter, epilog=_DEMO_EPILOG,
        help="compare the perceptron family on built-in data",
        description=_wrap(
            "Compare the Khardon & Wachman perceptron variants on "
            "built-in data sets; print a Markdown table and write a "
            "plot and result files."))
    p.add_argument("--output-dir", default="perceptrons_output",
                   metavar="DIR",
                   help="where to write the files (default: "
                        "./perceptrons_output)")
    p.add_argument("--quick", action="store_true",
                   help="3 folds and 10 passes: a smoke test in seconds")
    p.add_argument("--datasets", nargs="+", metavar="NAME",
                   help="subset of: 'kw f50 M0.1 N0', 'kw f50 M0.1 N0.1', "
                        "wdbc, digits")
    p.add_argument("--folds", type=int, metavar="K",
                   help="number of folds (default: 10; 3 with --quick)")
    p.add_argument("--max-iter", type=int, metavar="N",
                   help="passes (default: 100; 10 with --quick)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser(
        "reproduce", formatter_class=formatter,
        help="reproduce a paper's tables and figures",
        description=_wrap(
            "Run a paper's experiment and write its tables (Markdown, beside "
            "the paper's own numbers) and figures (PNG). Available: "
            + (", ".join(_reproductions()) or "none yet") + "."))
    p.add_argument("paper", metavar="PAPER",
                   help="which paper: " + (", ".join(_reproductions())
                                           or "none yet"))
    p.add_argument("--output-dir", default="perceptrons_output",
                   metavar="DIR",
                   help="where to write the files (default: "
                        "./perceptrons_output)")
    p.add_argument("--quick", action="store_true",
                   help="the small configuration on built-in data, under a "
                        "minute")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar")
    p.set_defaults(func=cmd_reproduce)

    p = sub.add_parser(
        "models", formatter_class=formatter,
        help="list the available models and their parameters",
        description=_wrap(
            "List the estimators usable with --model and their default "
            "parameters."))
    p.set_defaults(func=cmd_models)
    return parser


def _version():
    try:
        from importlib.metadata import version

        v = version("perceptrons")
    except Exception:  # noqa: BLE001 - not installed: fall back to source
        from . import __version__ as v
    return f"{PROG} {v}"


# --------------------------------------------------------------- commands
def _check_n_features(X, expected, path):
    if X.shape[1] != expected:
        raise CLIError(
            f"{path!r} has {X.shape[1]} features but the model was trained "
            f"on {expected}")


def _describe_model(est, args, extra=""):
    given = _estimator_params(args)
    parts = [f"{k}={v!r}" for k, v in given.items()]
    if args.tau is not None:
        parts.append(f"tau={args.tau}")
    if extra:
        parts.append(extra)
    return (f"{_model_name(type(est).__name__)} "
            f"({', '.join(parts) or 'defaults'})")


def cmd_train(args):
    est = _build_estimator(args)
    X, y = _load_data(args)
    if args.tau is not None:
        from .experiments._runner import margin_from_tau

        est.set_params(margin=margin_from_tau(
            X, args.tau, est.get_params().get("theta_init", "auto")))
    start = time.perf_counter()
    est.fit(X, y)
    seconds = time.perf_counter() - start
    from .persistence import save_model

    save_model(est, args.output)
    out = sys.stdout
    print(f"model:      {_describe_model(est, args)}", file=out)
    print(f"data:       {args.data}: {X.shape[0]} examples, {X.shape[1]} "
          f"features, {len(est.classes_)} classes", file=out)
    n_iter = getattr(est, "n_iter_", None)
    t = getattr(est, "t_", None)
    if hasattr(est, "n_mistakes_") and t:
        print(f"mistakes:   {est.n_mistakes_} online mistakes in {t} "
              f"predictions over {n_iter} passes "
              f"({100 * est.n_mistakes_ / t:.2f}%)", file=out)
    if hasattr(est, "n_updates_"):
        print(f"updates:    {est.n_updates_}", file=out)
    print(f"train acc:  {100 * est.score(X, y):.2f}%", file=out)
    print(f"time:       {seconds:.3f} s", file=out)
    print(f"saved:      {args.output}", file=out)
    return 0


def cmd_predict(args):
    from .persistence import load_model

    if not os.path.exists(args.model):
        raise CLIError(f"no such model file: {args.model!r}")
    est = load_model(args.model)
    expected = getattr(est, "n_features_in_", None)
    if expected is None:
        raise CLIError(f"{args.model!r} holds an unfitted model")
    X, y = _load_data(args)
    if X.shape[1] < expected and _data_format(args.data, args.format) \
            == "svmlight":
        # an svmlight file need not mention the highest features
        X, y = _load_data(args, n_features=expected)
    _check_n_features(X, expected, args.data)
    pred = est.predict(X)
    lines = "".join(_format_label(v) + "\n" for v in pred)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(lines)
    else:
        sys.stdout.write(lines)
    if not args.quiet:
        import numpy as np

        known = np.isin(y, est.classes_)
        note = f"{len(pred)} predictions"
        if args.output:
            note += f" written to {args.output}"
        if known.all():
            note += f"; accuracy on the file's labels: " \
                    f"{100 * np.mean(pred == y):.2f}%"
        print(note, file=sys.stderr)
    return 0


def cmd_evaluate(args):
    from .experiments.evaluation import cross_validate

    est = _build_estimator(args)
    X, y = _load_data(args)
    fold_params = None
    if args.tau is not None:
        from .experiments._runner import margin_from_tau

        theta_init = est.get_params().get("theta_init", "auto")

        def fold_params(X_train):
            return {"margin": margin_from_tau(X_train, args.tau, theta_init)}
    if not 0 < args.confidence < 1:
        raise CLIError("--confidence must be in (0, 1)")
    res = cross_validate(est, X, y, n_splits=args.folds,
                         random_state=args.seed, confidence=args.confidence,
                         scale=args.scale, fold_params=fold_params)
    k = res.n_splits
    print(f"model:    "
          f"{_describe_model(est, args, 'standardized' if args.scale else '')}")
    print(f"data:     {args.data}: {X.shape[0]} examples, {X.shape[1]} "
          f"features")
    print(f"accuracy: {100 * res.mean:.2f}% ± {100 * res.ci_half_width:.2f} "
          f"({100 * res.confidence:g}% T-interval, {k} folds; "
          f"[{100 * res.ci_low:.2f}, {100 * res.ci_high:.2f}])")
    print("folds:    " + " ".join(f"{100 * a:.1f}" for a in res.accuracies))
    rate = res.mean_mistake_rate
    print("online mistake rate: " + ("n/a (the model does not count its "
                                     "mistakes)" if rate != rate else
                                     f"{100 * rate:.2f}% (n_mistakes_ / t_, "
                                     "mean over folds)"))
    if args.json:
        from .experiments._runner import _nan_to_none

        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(_nan_to_none(res.to_dict()), fh, indent=1)
    return 0


def cmd_demo(args):
    from .experiments.demo import run_demo

    start = time.perf_counter()
    out = run_demo(args.output_dir, quick=args.quick,
                   datasets=args.datasets, n_splits=args.folds,
                   max_iter=args.max_iter,
                   progress=False if args.no_progress else None)
    sys.stdout.write(out["markdown"])
    files = out["files"]
    print(f"\nwrote {files['markdown']}, {files['png']}, {files['json']}, "
          f"{files['csv']} in {time.perf_counter() - start:.1f} s",
          file=sys.stderr)
    return 0


def _reproductions():
    """Keys of the ``experiments/reproduce_<key>.py`` modules (not imported)."""
    import importlib.util
    import pkgutil

    # find_spec locates the subpackage without running its (heavy) imports.
    spec = importlib.util.find_spec("perceptrons.experiments")
    return sorted(m.name[len("reproduce_"):]
                  for m in pkgutil.iter_modules(spec.submodule_search_locations)
                  if m.name.startswith("reproduce_"))


def cmd_reproduce(args):
    import importlib

    available = _reproductions()
    if args.paper not in available:
        raise CLIError(f"no reproduction named {args.paper!r}; available: "
                       f"{', '.join(available) or 'none yet'}")
    module = importlib.import_module(
        f"perceptrons.experiments.reproduce_{args.paper}")
    start = time.perf_counter()
    out = module.run(args.output_dir, quick=args.quick,
                     progress=False if args.no_progress else None)
    sys.stdout.write(out["markdown"])
    print(f"\nwrote {', '.join(str(f) for f in out['files'])} in "
          f"{time.perf_counter() - start:.1f} s", file=sys.stderr)
    return 0


def cmd_models(args):
    for name, cls in sorted(_model_registry().items()):
        params = cls().get_params(deep=False)
        doc = (cls.__doc__ or "").strip().splitlines()
        print(f"{name}  (perceptrons.{cls.__name__}): "
              f"{doc[0] if doc else ''}")
        for key, value in params.items():
            print(f"    {key} = {value!r}")
    return 0


# --------------------------------------------------------------- entry
def main(argv=None):
    """Run the command line; return the exit status.

    Parameters
    ----------
    argv : list of str, default=None
        Arguments without the program name (default: ``sys.argv[1:]``).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.func(args)
    except CLIError as exc:
        return _error(str(exc))
    except FileNotFoundError as exc:
        name = exc.filename if exc.filename else ""
        return _error(f"file not found: {name}" if name else str(exc))
    except (OSError, ValueError) as exc:
        return _error(str(exc))
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


def _error(message):
    message = " ".join(str(message).split())  # one line
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
