"""The argparse parser of ``perceptrons``: commands, options and help."""

import argparse
import sys

from .. import registry
from . import commands, labels, options, texts
from .options import KERNEL_OPTIONS, MODEL_OPTIONS, SCALERS, key_value

__all__ = ["build_parser", "usage_error"]

_FORMATTER = argparse.RawDescriptionHelpFormatter
_OUTPUT_DIR = "perceptrons_output"


# What --missing can do (perceptrons.datasets.HANDLE_MISSING, written out
# so that `perceptrons --help` does not import numpy).
_MISSING = ("drop", "zero", "mean", "mode", "error")


def usage_error(prog, message):
    """Exit with status 2 after an argument error of ``prog`` (``perceptrons
    train``): one line and a pointer to its ``--help``, as git and pip
    answer a bad option, not argparse's usage block of every option before
    the one line that matters."""
    sys.stderr.write(f"{prog}: error: {message}\n"
                     f"Try '{prog} --help' for more information.\n")
    sys.exit(2)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, with :func:`usage_error`'s argument errors."""

    def error(self, message):
        usage_error(self.prog, message)


def _add_data_options(p, for_model=False):
    """The data options; ``for_model``: a file read for a saved model,
    whose saved schema supplies what is not given."""
    g = p.add_argument_group("data options")
    saved = " (default: as the model's training file)" if for_model else ""
    g.add_argument("--format", choices=("auto", "svmlight", "csv"),
                   default="auto",
                   help="file format" + (saved or " (default: auto, by "
                                                   "file name)"))
    if for_model:
        g.add_argument("--label-column",
                       type=labels.column_refs(options.label_column_or_auto),
                       action=labels.LabelColumns,
                       default="auto", metavar="N|NAME|none|auto",
                       help="CSV: index or header name of the label column, "
                            "or 'none' (default: auto, the training file's, "
                            "or none if the file has one column fewer); "
                            "a multi-label model's: one per label, "
                            "comma-separated or repeated; labels only "
                            "serve the accuracy report")
    else:
        g.add_argument("--label-column",
                       type=labels.column_refs(options.label_column),
                       action=labels.LabelColumns,
                       default=-1, metavar="N|NAME[,N|NAME...]",
                       help="CSV: index of the label column, negative from "
                            "the end, or its name in the header row "
                            "(default: -1); several columns, comma-separated "
                            "or the option repeated, are a multi-label "
                            "problem: each a 0/1 label, one binary problem "
                            "per label")
    h = g.add_mutually_exclusive_group()
    h.add_argument("--header", dest="header", action="store_const",
                   const=True, default="auto",
                   help="CSV: the first row names the columns (default: "
                        "detected: a first row without numbers above "
                        "numeric columns)" + (
                            "; columns are then matched by name with the "
                            "training file's" if for_model else ""))
    h.add_argument("--no-header", dest="header", action="store_const",
                   const=False, help="CSV: the first row is data")
    g.add_argument("--delimiter", type=options.delimiter, default=None,
                   help="CSV: field separator, e.g. ';', '\\t' or tab "
                        "(default: ','" + (", or the training file's)"
                                           if for_model else ")"))
    g.add_argument("--zero-based", choices=("auto", "yes", "no"),
                   default="auto",
                   help="svmlight: whether feature indices start at 0 "
                        + ("(default: as decided when training)" if for_model
                           else "(default: auto, decided on this file and "
                                "saved with the model; LIBSVM files are "
                                "one-based: no)"))
    if for_model:
        return
    g.add_argument("--missing", choices=_MISSING, default="drop",
                   help="CSV: rows with a missing value: drop them (the "
                        "default; reported), or keep them with the value "
                        "replaced by 0 and no level (zero, as K&W), the "
                        "column's mean or most frequent level (mean), or "
                        "the most frequent value (mode); error: refuse")
    g.add_argument("--missing-values", type=options.token_list,
                   default=["?"], metavar="TOKENS",
                   help="CSV: comma-separated tokens marking a missing "
                        "value (default: ?; an empty field always is)")
    g.add_argument("--drop-columns", type=options.column_list,
                   metavar="N,NAME", help="CSV: columns to ignore, by index "
                                          "or header name")
    g.add_argument("--id-column", type=options.column, metavar="N|NAME",
                   help="CSV: an identifier column, ignored")
    g.add_argument("--nominal-columns", type=options.column_list,
                   metavar="N,NAME",
                   help="CSV: columns to one-hot encode even if numeric")
    g.add_argument("--n-features", type=int, metavar="D",
                   help="svmlight: number of features (default: highest "
                        "index in the file)")
    g.add_argument("--max-features", type=int, default=options.MAX_FEATURES,
                   metavar="D",
                   help="svmlight: refuse files needing more features "
                        f"(default: {options.MAX_FEATURES}, 128 MiB per "
                        "weight vector)")


def _add_stream_options(p, for_model=False):
    """``--stream`` and its options; ``for_model``: predict's subset."""
    g = p.add_argument_group(
        "streaming (svmlight files larger than memory)")
    g.add_argument("--stream", action="store_true",
                   help="read the file a chunk at a time instead of loading "
                        "it" + ("; write each chunk's predictions as it is "
                                "read" if for_model else
                                ": each pass feeds the chunks to the model's "
                                "partial_fit in file order (the later passes "
                                "from a binary cache of the parsed chunks)"))
    g.add_argument("--chunk-bytes", type=options.byte_size, metavar="SIZE",
                   help="bytes of text parsed at a time, e.g. 16M, 1G "
                        "(default: 64M)")
    if for_model:
        return
    c = g.add_mutually_exclusive_group()
    c.add_argument("--cache-file", metavar="FILE",
                   help="keep the parsed chunks in FILE and reuse it on a "
                        "later run if it is still valid (default: a "
                        "temporary file in $TMPDIR, removed at the end)")
    c.add_argument("--no-cache", action="store_true",
                   help="parse the text again on every pass")
    g.add_argument("--shuffle-buffer", type=int, metavar="N",
                   help="shuffle the rows within consecutive buffers of N "
                        "rows, differently each pass (seeded by "
                        "--random-state); default: file order")


def _add_mixing_options(p):
    g = p.add_argument_group(
        "parameter mixing (McDonald, Hall & Mann 2010; data on several "
        "workers)")
    g.add_argument("--shards", type=int, metavar="N",
                   help="cut DATA into N blocks of rows trained in parallel "
                        "and mixed after every pass (default with "
                        "--scheduler: 2; with several files: one per file)")
    g.add_argument("--scheduler", metavar="ADDR",
                   help="run the shards on a Dask cluster: tcp://HOST:PORT, "
                        "or local:N for a local cluster of N worker "
                        "processes (default: in this process)")
    g.add_argument("--mixing", choices=("uniform", "mistakes"),
                   help="mixing weights: 1/S, or each shard's share of the "
                        "pass's updates (default: uniform)")


def _add_model_options(p):
    g = p.add_argument_group("model options")
    g.add_argument("--model", default="perceptron", metavar="NAME",
                   help="estimator (default: perceptron; list them with "
                        "`perceptrons models`)")
    for flag, keywords in MODEL_OPTIONS:
        g.add_argument(flag, default=argparse.SUPPRESS, **keywords)
    k = p.add_argument_group("kernel options (kernel models)")
    for flag, keywords in KERNEL_OPTIONS:
        k.add_argument(flag, default=argparse.SUPPRESS, **keywords)
    g.add_argument("--param", type=key_value, action="append",
                   metavar="NAME=VALUE",
                   help="any other estimator parameter (VALUE parsed as "
                        "JSON if possible); repeatable. --NAME VALUE works "
                        "too, for every parameter `perceptrons models` "
                        "lists (e.g. --extension 1 for pdm)")


def _add_run_options(p, quick_help):
    p.add_argument("--output-dir", default=_OUTPUT_DIR, metavar="DIR",
                   help=f"where to write the files (default: ./{_OUTPUT_DIR})")
    p.add_argument("--quick", action="store_true", help=quick_help)
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar")


def _command(sub, name, func, summary, description, epilog=None):
    # No abbreviations: an estimator parameter's --NAME (left over for
    # extra_params) must never be taken for a prefix of another option.
    p = sub.add_parser(name, formatter_class=_FORMATTER, help=summary,
                       description=texts.wrap(description), epilog=epilog,
                       allow_abbrev=False)
    p.set_defaults(func=func)
    return p


def _version():
    try:
        from importlib.metadata import version

        v = version("perceptrons")
    except Exception:  # noqa: BLE001 - not installed: fall back to source
        from .. import __version__ as v
    return f"{texts.PROG} {v}"


def build_parser():
    """The argparse parser of the ``perceptrons`` command."""
    parser = _Parser(
        prog=texts.PROG, formatter_class=_FORMATTER,
        description=texts.wrap(
            "Perceptron-family online classifiers: train, predict, "
            "cross-validate, run the demo comparison and reproduce papers."),
        epilog=texts.MAIN)
    parser.add_argument("--version", action="version",
                        version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = _command(
        sub, "train", commands.train,
        "fit a model on a data file and save it",
        "Fit a perceptron-family model on DATA and save it to a model file; "
        "prints the online mistakes and updates made while training and the "
        "training accuracy.", texts.TRAIN)
    p.add_argument("data", nargs="+",
                   help="training data file; several svmlight files are the "
                        "shards of parameter mixing, each read by the "
                        "worker that trains on it")
    p.add_argument("-o", "--output", default="model.npz", metavar="MODEL",
                   help="model file to write (default: model.npz)")
    p.add_argument("--scale", choices=SCALERS, default="none",
                   help="scale the features; the statistics are saved with "
                        "the model and applied by predict (sparse input "
                        "stays sparse: standard does not centre it)")
    _add_data_options(p)
    _add_stream_options(p)
    _add_mixing_options(p)
    _add_model_options(p)

    p = _command(
        sub, "predict", commands.predict,
        "predict labels with a saved model",
        "Predict the label of every row of DATA with MODEL.", texts.PREDICT)
    p.add_argument("model", help="model file written by `perceptrons train`")
    p.add_argument("data", help="data file to label")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the predictions here (default: stdout)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="nothing on stderr: no accuracy, no counts of "
                        "filled values or unseen levels")
    _add_data_options(p, for_model=True)
    _add_stream_options(p, for_model=True)

    p = _command(
        sub, "evaluate", commands.evaluate,
        "k-fold cross-validation with a T-confidence interval",
        "Cross-validate a model on DATA: accuracy +/- the T-confidence "
        "interval and the online mistake rate.", texts.EVALUATE)
    p.add_argument("data", help="labelled data file")
    p.add_argument("--folds", type=int, default=10, metavar="K",
                   help="number of folds (default: 10, as K&W)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the fold assignment (default: 0)")
    p.add_argument("--confidence", type=float, default=0.95,
                   help="coverage of the T-interval (default: 0.95)")
    p.add_argument("--scale", choices=SCALERS, nargs="?", default="none",
                   const="standard",
                   help="scale the features with each training fold's "
                        "statistics (--scale alone: standard)")
    p.add_argument("--json", metavar="FILE",
                   help="also write the per-fold results as JSON")
    _add_data_options(p)
    _add_model_options(p)

    p = _command(
        sub, "demo", commands.demo,
        "compare the perceptron family on built-in data",
        "Compare the Khardon & Wachman perceptron variants on built-in data "
        "sets; print a Markdown table and write a plot and result files.",
        texts.DEMO)
    _add_run_options(p, "3 folds and 10 passes: a smoke test in seconds")
    p.add_argument("--datasets", nargs="+", metavar="NAME",
                   help="subset of: 'kw f50 M0.1 N0', 'kw f50 M0.1 N0.1', "
                        "wdbc, digits")
    p.add_argument("--folds", type=int, metavar="K",
                   help="number of folds (default: 10; 3 with --quick)")
    p.add_argument("--max-iter", type=int, metavar="N",
                   help="passes (default: 100; 10 with --quick)")

    names = [entry.name for entry in registry.REPRODUCTIONS]
    p = _command(
        sub, "reproduce", commands.reproduce,
        "reproduce a paper's tables and figures",
        "Run a paper's experiment and write its tables (Markdown, beside the "
        "paper's own numbers) and figures (PNG).",
        texts.reproduce_epilog(registry.REPRODUCTIONS))
    p.add_argument("name", metavar="NAME",
                   help="which reproduction: " + ", ".join(names))
    _add_run_options(p, "the small configuration (subsamples of the data "
                        "sets), in minutes")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="parallel worker processes (joblib; default: 1); "
                        "the results are the same as serial")
    p.add_argument("--resume", action="store_true",
                   help="keep the results already in --output-dir and run "
                        "only the missing tasks")
    p.add_argument("--scheduler", metavar="ADDR",
                   help="run the tasks on the Dask scheduler at ADDR "
                        "(tcp://host:8786; local:N starts a local cluster "
                        "of N workers)")
    p.add_argument("--render-only", action="store_true",
                   help="run nothing: render the report again from the "
                        "records in --output-dir")

    p = _command(
        sub, "precompile", commands.precompile,
        "compile the estimators' loops into numba's cache",
        "Compile the loops of every estimator's first fit (defaults, and the "
        "kernel forms with an RBF kernel; dense float64 rows, two and three "
        "classes) into numba's cache, so that a later process loads them "
        "instead of compiling. The package's build does this once; run it "
        "after an install that skipped it (PERCEPTRONS_PRECOMPILE=0) or "
        "with NUMBA_CACHE_DIR pointing elsewhere.")
    p.add_argument("--only", nargs="+", metavar="MODEL",
                   help="only these models (names as `perceptrons models` "
                        "lists them)")

    _command(sub, "models", commands.models,
             "list the available models and their parameters",
             "List the estimators usable with --model and their default "
             "parameters.")
    return parser
