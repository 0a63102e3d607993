"""What the options mean: argument types, the model options, and the
estimator and data they make.

Nothing here imports numba, scikit-learn or matplotlib at module level.
"""

import argparse
import codecs
import json
import os

from .. import registry
from . import labels

__all__ = ["CLIError", "MODEL_OPTIONS", "KERNEL_OPTIONS", "SCALERS",
           "boolean_params", "build_estimator", "byte_size",
           "check_model_file", "check_output", "data_file", "data_format",
           "estimator_params", "load_data", "load_new_data", "model_name",
           "refuse_stream_only", "registry_entry", "resolve_data",
           "scan_stream", "stream_chunk_bytes", "stream_zero_based"]


class CLIError(Exception):
    """A user error reported as ``perceptrons: error: ...`` (exit 2)."""


# ------------------------------------------------------------ argument types
def _word_or(convert, words, meaning, expected):
    """An argument type: ``convert(text)``, or ``meaning`` for ``words``."""
    def parse(text):
        if text.lower() in words:
            return meaning
        try:
            return convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected {expected}, got {text!r}") from None
    return parse


def column_ref(text):
    """A CSV column: its index (negative from the end) or its header
    name."""
    text = text.strip()
    if not text:
        raise ValueError("empty column")
    try:
        return int(text)
    except ValueError:
        return text


float_or_auto = _word_or(float, ("auto",), "auto", "a number or 'auto'")
int_or_none = _word_or(int, ("none", "inf", "infinity"), None,
                       "an integer or 'none'")
column = _word_or(column_ref, (), None, "a column index or name")
label_column = _word_or(column_ref, ("none",), None,
                        "a column index or name, or 'none' (no label "
                        "column)")
label_column_or_auto = _word_or(label_column, ("auto",), "auto",
                                "a column index or name, 'none' or 'auto'")


def number_or_str(text):
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def parse_value(text):
    """A parameter value typed on the command line: JSON if it parses
    (numbers, true/false, lists), None for none/null, else the text."""
    if text.lower() in ("none", "null"):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def key_value(text):
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    key, value = text.split("=", 1)
    return key.strip(), parse_value(value)


_DELIMITER_WORDS = {"tab": "\t", "space": " ", "comma": ",",
                    "semicolon": ";"}


def delimiter(text):
    """One character, typed as itself, a backslash escape (``'\\t'``, as a
    shell passes it) or a word (tab, space, comma, semicolon)."""
    value = _DELIMITER_WORDS.get(text.lower())
    if value is None:
        try:
            value = codecs.decode(text, "unicode_escape")
        except UnicodeDecodeError:
            value = text
    if len(value) != 1:
        raise argparse.ArgumentTypeError(
            f"expected one character, an escape such as '\\t' or a word "
            f"({', '.join(_DELIMITER_WORDS)}), got {text!r}")
    return value


def column_list(text):
    """Comma-separated columns: indices (negative from the end) or header
    names."""
    columns = [column_ref(part) for part in text.split(",") if part.strip()]
    if not columns:
        raise argparse.ArgumentTypeError(
            f"expected columns such as 0, 0,3 or id,name, got {text!r}")
    return columns


_BYTE_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def byte_size(text):
    """A positive number of bytes: ``65536``, ``64K``, ``64M``, ``1G``
    (binary units; a trailing ``B`` or ``iB`` is allowed: ``64MiB``)."""
    value = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = value[-1:] if value[-1:] in _BYTE_UNITS else ""
    try:
        size = int(float(value[:len(value) - len(unit)]) * _BYTE_UNITS[unit])
    except (ValueError, OverflowError):  # not a number, nan, inf
        size = 0
    if size < 1:
        raise argparse.ArgumentTypeError(
            f"expected a size in bytes such as 65536, 64K, 64M or 1G, got "
            f"{text!r}")
    return size


def token_list(text):
    """Comma-separated tokens (the missing-value markers)."""
    return [part.strip() for part in text.split(",")]


# ------------------------------------------------------------ model options
# Estimator parameters set by a flag with its own help: (flag, add_argument
# keywords). Each sets the parameter of its destination (--theta-init:
# theta_init); one not given is absent from the parsed arguments, so the
# estimator keeps its default (and alpha_bound can be set to None). Every
# other parameter of the chosen model is accepted as --NAME VALUE, and a
# boolean one as --NAME / --no-NAME (see extra_params), so a new
# estimator's parameters need no line here.
MODEL_OPTIONS = (
    ("--eta", dict(type=float, help="learning rate eta")),
    ("--theta-init", dict(type=float_or_auto, metavar="X|auto",
                          help="initial threshold theta_Init")),
    ("--threshold-step", dict(type=float_or_auto, metavar="C|auto",
                              help="threshold step C")),
    ("--margin", dict(type=float, metavar="TAU_ABS",
                      help="absolute margin tau")),
    ("--tau", dict(type=float, metavar="TAU",
                   help="margin in units of theta_Init (K&W Sec. 2.4), "
                        "resolved on the training data; perceptron and "
                        "kernel-perceptron")),
    ("--lam", dict(type=float, metavar="LAMBDA",
                   help="lambda-trick coefficient")),
    ("--alpha-bound", dict(type=int_or_none, metavar="A|none",
                           help="max updates per example")),
    ("--hypothesis", dict(choices=("last", "longest", "voted", "averaged"),
                          help="final hypothesis")),
    ("--multiclass", dict(choices=("ovr", "prototype"),
                          help="multiclass rule")),
    ("--max-iter", dict(type=int, metavar="N",
                        help="passes over the training data")),
    ("--shuffle", dict(action=argparse.BooleanOptionalAction,
                       help="present the rows in a fresh random order every "
                            "pass; --no-shuffle: in file order")),
    ("--random-state", dict(type=int, metavar="SEED",
                            help="seed of the shuffling")),
)
KERNEL_OPTIONS = (
    ("--kernel", dict(help="Mercer kernel, e.g. linear, poly, rbf")),
    ("--degree", dict(type=int, help="polynomial degree")),
    ("--gamma", dict(type=number_or_str, help="kernel coefficient")),
    ("--coef0", dict(type=float, help="kernel offset")),
)


def _parameter(flag, keywords):
    return keywords.get("dest", flag[2:].replace("-", "_"))


_FLAGS = {_parameter(flag, kw): flag
          for flag, kw in MODEL_OPTIONS + KERNEL_OPTIONS}


def flag_of(parameter, default=None):
    """The command-line flag that sets an estimator parameter whose default
    is ``default``: ``--[no-]NAME`` for a boolean one (git's notation for
    the pair ``--NAME`` / ``--no-NAME``)."""
    flag = _FLAGS.get(parameter, "--" + parameter.replace("_", "-"))
    return f"--[no-]{flag[2:]}" if isinstance(default, bool) else flag


def boolean_params(estimator):
    """The names of an estimator's parameters whose default is a bool."""
    return {name for name, value in estimator.get_params(deep=False).items()
            if isinstance(value, bool)}


def extra_params(tokens, booleans=()):
    """The estimator parameters among the arguments the parser left over,
    as ``{name: value}``: ``--NAME VALUE`` or ``--NAME=VALUE`` for any
    parameter without a flag of its own, and ``--NAME`` / ``--no-NAME``
    (True / False) for those in ``booleans``, which also take ``--NAME
    true|false``."""
    params, rest = {}, list(tokens)
    while rest:
        token = rest.pop(0)
        if not token.startswith("--") or len(token) < 3:
            raise CLIError(f"unexpected argument {token!r}")
        name, sep, value = token[2:].partition("=")
        name = name.replace("-", "_")
        if not sep and name.startswith("no_") and name[3:] in booleans:
            params[name[3:]] = False
            continue
        if not sep and name in booleans:
            given = rest and rest[0].lower() in ("true", "false")
            params[name] = parse_value(rest.pop(0).lower()) if given else True
            continue
        if not sep:
            if not rest or rest[0].startswith("--"):
                raise CLIError(f"option {token} needs a value "
                               "(--NAME VALUE sets an estimator parameter)")
            value = rest.pop(0)
        params[name] = parse_value(value)
    return params


def estimator_params(args, estimator):
    """The parameters of ``estimator`` (of ``--model``) given on the command
    line, by name."""
    params = {name: getattr(args, name) for name in _FLAGS
              if hasattr(args, name)}
    params.update(extra_params(getattr(args, "extra", ()),
                               boolean_params(estimator)))
    params.update(args.param or ())
    return params


def registry_entry(find, name):
    """``find(name)`` of :mod:`perceptrons.registry`, a miss a CLIError."""
    try:
        return find(name)
    except KeyError as exc:
        raise CLIError(exc.args[0]) from None


def model_name(estimator):
    """The command-line name of an estimator's class."""
    return registry.find_estimator(type(estimator).__name__).name


def build_estimator(args):
    """The estimator of ``--model`` with the parameters given."""
    entry = registry_entry(registry.find_estimator, args.model)
    estimator = entry.load()()
    params = estimator_params(args, estimator)
    accepted = estimator.get_params(deep=False)
    for key in params:
        if key not in accepted:
            flags = ", ".join(flag_of(k, accepted[k]) for k in sorted(accepted))
            raise CLIError(
                f"model {entry.name!r} has no parameter {key!r} "
                f"({flag_of(key)}); its parameters: {flags}")
    return estimator.set_params(**params)


#: ``--scale`` choices and the scikit-learn scaler of each (None: none).
SCALERS = ("none", "maxabs", "standard", "unit-norm")


def make_scaler(kind, sparse):
    """The scaler of ``--scale``; sparse input stays sparse (no centering)."""
    from sklearn.preprocessing import MaxAbsScaler, Normalizer, StandardScaler

    return {"maxabs": MaxAbsScaler, "unit-norm": Normalizer,
            "standard": lambda: StandardScaler(with_mean=not sparse)}[kind]()


def check_output(path, what, inputs=(), outputs=()):
    """Refuse an output path that cannot be written, or that is one of the
    command's inputs or other outputs, before any work.

    Parameters
    ----------
    path : str or None
        The output (None: nothing to check).
    what : str
        What it is ("model file"), for the message.
    inputs, outputs : sequence of (str or None, str)
        ``(path, what)`` of the files the command reads, and of the other
        files it writes; None paths are skipped. A file is the same whatever
        link names it (:func:`~perceptrons.utils.output.same_file`).
    """
    if path is None:
        return
    from ..utils.output import same_file

    path = os.fspath(path)
    for kind, files in (("an input", inputs), ("an output", outputs)):
        for other, role in files:
            if other is not None and same_file(path, other):
                raise CLIError(
                    f"{what} {path!r} is the {role} {os.fspath(other)!r}, "
                    f"{kind} of this command: writing it would destroy it; "
                    "choose another path")
    parent = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise CLIError(f"{what} {path!r} is a directory")
    if not os.path.isdir(parent):
        raise CLIError(f"cannot write {what} {path!r}: no such directory "
                       f"{os.path.dirname(path) or parent!r}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CLIError(f"cannot write {what} {path!r}: the directory is not "
                       "writable")


# ------------------------------------------------------------ data
def data_format(path, fmt):
    """``--format``, "auto" resolved by the file name."""
    if fmt != "auto":
        return fmt
    name = os.path.basename(os.fspath(path)).lower()
    for suffix in (".gz", ".bz2", ".xz", ".lzma"):
        name = name.removesuffix(suffix)
    return "csv" if name.endswith((".csv", ".data")) else "svmlight"


_ZERO_BASED = {"auto": "auto", "yes": True, "no": False}
#: Highest number of svmlight features accepted: a weight vector of 2^24
#: float64 is 128 MiB, and a model holds several per class.
MAX_FEATURES = 2 ** 24


class Data:
    """Rows read from a data file, with what the command reports.

    Attributes
    ----------
    X, y : the matrix and the labels (None: the file has none)
    schema : dict
        How the file was read (saved in the model: :func:`load_new_data`
        reads a later file the same way).
    labelled : ndarray of bool or None
        Rows with a label (``y`` has one entry per True); None: all.
    notes : list of str
        What was done to the rows, one line each.
    """

    def __init__(self, X, y, schema, labelled=None, notes=()):
        self.X, self.y, self.schema = X, y, schema
        self.labelled, self.notes = labelled, list(notes)


def data_file(path):
    """A data file argument as the commands read it: ``path`` if it exists,
    else the data home's file of that relative path, as
    :func:`perceptrons.datasets.find_data_file` finds it (a missing file's
    message names both places and ``PERCEPTRONS_DATA``)."""
    from ..datasets import find_data_file

    try:
        found = find_data_file(path)
    except FileNotFoundError as exc:
        message = str(exc)
        raise CLIError(message[:1].lower() + message[1:]) from None
    if found.is_dir():
        raise CLIError(f"{path!r} is a directory, not a data file")
    return path if os.path.exists(path) else os.fspath(found)


def resolve_data(args):
    """``args.data`` (a path, or a list of them) replaced by the files the
    command reads (:func:`data_file`): first, so that an output is checked
    against the file actually read."""
    if isinstance(args.data, list):
        args.data = [data_file(path) for path in args.data]
    else:
        args.data = data_file(args.data)


def _lines(numbers, limit=5):
    shown = ", ".join(str(n) for n in numbers[:limit])
    return shown + (", ..." if len(numbers) > limit else "")


def load_data(args):
    """Read the training data of ``args.data``: X, y and the schema.

    CSV: the encoding is fitted on this file (``--missing``,
    ``--drop-columns``, ``--id-column``, ``--nominal-columns``); svmlight:
    ``zero_based`` is decided here, once.
    """
    from ..datasets import load_csv, load_svmlight

    if data_format(args.data, args.format) == "svmlight":
        X, y, info = load_svmlight(
            args.data, n_features=args.n_features,
            zero_based=_ZERO_BASED[args.zero_based],
            max_features=args.max_features, return_info=True)
        _check_class_labels(args, y, None)
        return Data(X, y, {"format": "svmlight",
                           "zero_based": info.zero_based,
                           "n_features": info.n_features})
    if args.label_column is None:
        raise CLIError("training data need a label column: --label-column "
                       "none is for predict")
    drop = list(args.drop_columns or ())
    if args.id_column is not None:
        drop.append(args.id_column)
    read = dict(delimiter=args.delimiter or ",", missing=args.missing_values,
                handle_missing=args.missing,
                nominal_columns=args.nominal_columns, header=args.header)
    if labels.is_multilabel(args.label_column):
        X, y, info = labels.load_labels(load_csv, args.data,
                                        args.label_column, drop, **read)
    else:
        X, y, info = load_csv(args.data, label_column=args.label_column,
                              drop_columns=drop, return_info=True, **read)
        _check_class_labels(args, y, info.schema)
    notes = _header_notes(args, info)
    dropped = list(info.dropped_lines)
    if dropped:
        keep = args.missing == "drop"
        notes.append(
            f"dropped {len(dropped)} of {len(dropped) + X.shape[0]} rows with "
            f"{'a missing value' if keep else 'no label'} (lines "
            f"{_lines(dropped)})"
            + ("; --missing zero|mean|mode keeps them" if keep else ""))
    if info.n_filled:
        notes.append(f"filled the missing values of {info.n_filled} rows "
                     f"(--missing {args.missing})")
    schema = info.schema.to_dict()
    if labels.is_multilabel(args.label_column):
        schema["label_columns"] = info.label_columns
    return Data(X, y, schema, notes=notes)


#: Header names that usually mark the label column, suggested by
#: :func:`_check_class_labels`.
_LABEL_NAMES = ("label", "labels", "class", "target", "y", "outcome",
                "diagnosis")


def _check_class_labels(args, y, schema):
    """Refuse training labels that are not class labels (continuous
    values), naming the column taken as the label and the flag to change
    it, before scikit-learn's "Unknown label type: continuous".

    ``schema``: the CSV schema, None for an svmlight file.
    """
    from sklearn.utils.multiclass import type_of_target

    if len(y) == 0 or type_of_target(y) != "continuous":
        return
    shown = ", ".join(f"{v:g}" for v in list(dict.fromkeys(y.tolist()))[:3])
    values = f"its values are not class labels ({shown}, ...: continuous)"
    if schema is None:
        raise CLIError(f"the labels of {args.data!r} (the first field of "
                       f"each line) are not class labels ({shown}, ...: "
                       "continuous); the perceptrons are classifiers")
    j, names = schema.label_column, schema.column_names
    taken = f"column {j}" + (f", {names[j]!r}," if schema.header else "")
    how = ("the last column, --label-column's default"
           if args.label_column == -1 else f"--label-column "
                                           f"{args.label_column}")
    if schema.header:
        guess = next((n for n in names if n.strip().lower() in _LABEL_NAMES
                      and n != names[j]), "NAME")
        listed = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
        hint = f"--label-column {guess} (the columns: {listed})"
    else:
        hint = f"--label-column N (0 to {schema.n_columns - 1}, or -1 " \
               "for the last)"
    raise CLIError(f"took {taken} as the label ({how}), but {values}; "
                   f"name the label column with {hint}")


def _header_notes(args, info):
    """What was made of the file's first row and unnamed first column."""
    notes = []
    if info.header and args.header == "auto":
        notes.append("read the first row as the column names (--no-header "
                     "reads it as data)")
    if info.index_column is not None:
        notes.append("ignored the unnamed first column (an index, as "
                     "pandas writes it)")
    return notes


def _new_data_format(args, schema):
    """The format ``args.data`` is read in for a model whose saved input
    schema is ``schema``, and the saved format (None if there is none)."""
    saved = schema.get("format") if isinstance(schema, dict) else None
    fmt = args.format if args.format != "auto" else (
        saved or data_format(args.data, "auto"))
    if saved is not None and fmt != saved:
        raise CLIError(f"the model was trained on {saved} data; "
                       f"{args.data!r} is read as {fmt} (--format)")
    if saved is not None and args.format == "auto":
        _refuse_other_format(args.data, saved, schema)
    return fmt, saved


_FORMATS = {"svmlight": "svmlight/LIBSVM data (index:value pairs)",
            "csv": "CSV data"}


def _refuse_other_format(path, saved, schema):
    """Refuse a file that looks like the other format than the model's
    training file, saying so (instead of the parser's complaint about a
    line it cannot read in the saved format)."""
    from ..datasets import sniff_format

    kind, line = sniff_format(path)
    if kind not in _FORMATS or kind == saved:
        return
    trained = _FORMATS[saved]
    if saved == "csv":
        names = schema.get("column_names") or []
        trained += f" of {schema.get('n_columns')} columns" + (
            f" ({', '.join(map(str, names[:12]))})"
            if schema.get("header") else "")
    raise CLIError(f"{path!r} looks like {_FORMATS[kind]}, its first line "
                   f"{line[:40]!r}, but the model was trained on {trained}; "
                   "give a file in the training file's format")


def check_model_file(path, data):
    """Refuse a ``predict`` model argument that is missing or holds data
    (the arguments given the wrong way round), before
    :func:`perceptrons.persistence.load_model` calls it "not a readable
    zip archive"."""
    import zipfile

    from ..datasets import sniff_format

    if not os.path.exists(path):
        raise CLIError(f"no such model file: {path!r}")
    if os.path.isdir(path) or zipfile.is_zipfile(path):
        return
    kind, _ = sniff_format(path)
    if kind not in _FORMATS:
        return  # load_model says what is wrong with it
    order = (f"the arguments are swapped: perceptrons predict {data} {path}"
             if os.path.isfile(data) and zipfile.is_zipfile(data) else
             "the model comes first: perceptrons predict MODEL DATA")
    raise CLIError(f"{path!r} is not a model file: it looks like "
                   f"{_FORMATS[kind].split(' (')[0]}; {order}")


def _saved_zero_based(args, schema, saved):
    """``--zero-based``, or as the model's training file was read."""
    zero_based = _ZERO_BASED[args.zero_based]
    if saved and zero_based == "auto":
        zero_based = schema.get("zero_based")
        if type(zero_based) is not bool:
            raise CLIError(f"{args.model!r}: bad saved svmlight schema")
    return zero_based


def load_new_data(args, schema):
    """Read ``args.data`` for a model: as its training file was read.

    ``schema`` is the one saved with the model (None for a model saved
    from Python: then the file decides, and only the width is checked).
    Every row of the file is kept.
    """
    from ..datasets import CSVSchema, load_csv, load_svmlight

    fmt, saved = _new_data_format(args, schema)
    if fmt == "svmlight":
        X, y = load_svmlight(args.data,
                             zero_based=_saved_zero_based(args, schema, saved),
                             max_features=MAX_FEATURES)
        return Data(X, y, schema)
    if saved is None:
        X, y = load_csv(args.data, label_column=_or(args.label_column, -1),
                        delimiter=args.delimiter or ",", header=args.header)
        return Data(X, y, schema)
    try:
        csv_schema = CSVSchema.from_dict(schema)
    except ValueError as exc:
        raise CLIError(f"{args.model!r} is not a valid perceptrons model "
                       f"file: {exc}") from None
    if "label_columns" in schema:
        X, y, info, labelled = labels.load_new_labels(
            load_csv, CSVSchema, args.data, schema, args.label_column,
            delimiter=args.delimiter, header=args.header)
    elif labels.is_multilabel(args.label_column):
        raise CLIError("--label-column names several columns, but the "
                       "model learnt one label per row")
    else:
        X, y, info = load_csv(args.data, label_column=args.label_column,
                              delimiter=args.delimiter, schema=csv_schema,
                              return_info=True, header=args.header)
        labelled = info.labelled
    notes = _header_notes(args, info)
    if info.n_filled:
        how = csv_schema.handle_missing
        fill = {"mean": "the training means and most frequent levels",
                "mode": "the training's most frequent values"}.get(
            how, f"0 and no level (trained with --missing {how})")
        notes.append(f"{info.n_filled} rows have missing values, filled "
                     f"with {fill}")
    if info.unseen:
        count = sum(sum(c.values()) for c in info.unseen.values())
        detail = "; ".join(
            f"column {k}: " + ", ".join(f"{v!r} x{n}" for v, n in
                                        c.most_common(3))
            for k, c in sorted(info.unseen.items()))
        notes.append(f"{count} values were not seen in training ({detail}); "
                     "encoded as all-zero indicators")
    return Data(X, y, schema, labelled=labelled, notes=notes)


# The options that mean something only with --stream: (dest, flag).
_STREAM_ONLY = (("chunk_bytes", "--chunk-bytes"),
                ("cache_file", "--cache-file"), ("no_cache", "--no-cache"),
                ("shuffle_buffer", "--shuffle-buffer"))


def refuse_stream_only(args):
    """Refuse a streaming option given without ``--stream``: it would be
    silently ignored."""
    for dest, flag in _STREAM_ONLY:
        if getattr(args, dest, None):
            raise CLIError(f"{flag} applies to --stream only")


def stream_chunk_bytes(args):
    """``--chunk-bytes``, or the default of :mod:`perceptrons.streaming`."""
    from ..streaming import DEFAULT_CHUNK_BYTES

    return args.chunk_bytes or DEFAULT_CHUNK_BYTES


def _refuse_csv_stream(path):
    raise CLIError(f"--stream reads svmlight/LIBSVM files only, and "
                   f"{path!r} is read as CSV; drop --stream to load it "
                   "into memory")


def scan_stream(args):
    """What ``train --stream`` learns of ``args.data`` before training.

    One pass over the file (or none, when ``--cache-file`` holds a valid
    cache of it) finds the rows, width, classes and indexing. ``--scale``
    is refused: its statistics would need a pass of their own before
    training.

    Returns
    -------
    info : Bunch
        :func:`perceptrons.streaming.scan_svmlight`'s result.
    schema : dict
        How the file was read, saved with the model (as :func:`load_data`).
    """
    from ..streaming import scan_svmlight

    if data_format(args.data, args.format) != "svmlight":
        _refuse_csv_stream(args.data)
    if args.scale != "none":
        raise CLIError("--scale cannot be combined with --stream: the "
                       "scaling statistics need a pass over the whole file "
                       "before training; scale the file beforehand, or "
                       "drop --stream")
    info = scan_svmlight(
        args.data, chunk_bytes=stream_chunk_bytes(args),
        zero_based=_ZERO_BASED[args.zero_based],
        max_features=None if args.n_features else args.max_features,
        cache=None if args.no_cache else args.cache_file)
    return info, {"format": "svmlight", "zero_based": info.zero_based,
                  "n_features": args.n_features or info.n_features}


def stream_zero_based(args, schema):
    """The indexing ``predict --stream`` reads ``args.data`` with, as
    :func:`load_new_data` would (svmlight only)."""
    fmt, saved = _new_data_format(args, schema)
    if fmt != "svmlight":
        _refuse_csv_stream(args.data)
    return _saved_zero_based(args, schema, saved)


def _or(value, default):
    return default if value == "auto" else value
