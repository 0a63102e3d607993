"""What the options mean: argument types, the model options, and the
estimator and data they make.

Nothing here imports numba, scikit-learn or matplotlib at module level.
"""

import argparse
import json
import os

from .. import registry

__all__ = ["CLIError", "MODEL_OPTIONS", "KERNEL_OPTIONS", "build_estimator",
           "data_format", "estimator_params", "load_data", "model_name",
           "registry_entry"]


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


float_or_auto = _word_or(float, ("auto",), "auto", "a number or 'auto'")
int_or_none = _word_or(int, ("none", "inf", "infinity"), None,
                       "an integer or 'none'")


def number_or_str(text):
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def key_value(text):
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    key, value = text.split("=", 1)
    if value.lower() in ("none", "null"):
        return key.strip(), None
    try:
        return key.strip(), json.loads(value)
    except ValueError:
        return key.strip(), value



# ------------------------------------------------------------ model options
# Estimator parameters set by a flag: (flag, add_argument keywords). Each
# sets the parameter of its destination (--theta-init: theta_init); one not
# given is absent from the parsed arguments, so the estimator keeps its
# default (and alpha_bound can be set to None).
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
    ("--no-shuffle", dict(dest="shuffle", action="store_false",
                          help="present the rows in file order every pass")),
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


def estimator_params(args):
    """The estimator parameters given on the command line, by name."""
    params = {name: getattr(args, name) for name in _FLAGS
              if hasattr(args, name)}
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
    params = estimator_params(args)
    accepted = estimator.get_params(deep=False)
    for key in params:
        if key not in accepted:
            flag = _FLAGS.get(key, "--param")
            raise CLIError(
                f"model {entry.name!r} has no parameter {key!r} ({flag}); "
                f"its parameters: {', '.join(sorted(accepted))}")
    return estimator.set_params(**params)


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


def load_data(args, n_features=None):
    """Read X, y from ``args.data`` according to the data options."""
    from ..datasets import load_csv, load_svmlight

    path = args.data
    if not os.path.exists(path):
        raise CLIError(f"no such data file: {path!r}")
    if os.path.isdir(path):
        raise CLIError(f"{path!r} is a directory, not a data file")
    if data_format(path, args.format) == "csv":
        return load_csv(path, label_column=args.label_column,
                        delimiter=args.delimiter)
    return load_svmlight(path, n_features=n_features or args.n_features,
                         zero_based=_ZERO_BASED[args.zero_based])
