"""Command-line interface: ``perceptrons train|predict|evaluate|demo|
reproduce|models``.

The package parses arguments (:mod:`.parser`, with the help texts of
:mod:`.texts`), turns them into data and an estimator (:mod:`.options`),
and runs a command (:mod:`.commands`) that calls :mod:`perceptrons.models`,
:mod:`perceptrons.persistence`, :mod:`perceptrons.datasets` or
:mod:`perceptrons.experiments` and prints; it holds no algorithm logic.
Estimators and reproductions are named by :mod:`perceptrons.registry`.
Heavy modules (numba, scikit-learn, matplotlib) are imported inside the
commands, so that ``perceptrons --help`` starts quickly.

Errors a user can cause (missing or malformed files, a corrupt model, bad
option values) end with one line ``perceptrons: error: ...`` on stderr and
exit status 2, without a traceback; an argument argparse refuses is one
line ``perceptrons COMMAND: error: ...`` and a pointer to ``--help``
(:func:`.parser.usage_error`).
"""

import os
import sys
import warnings

from .options import CLIError
from .parser import build_parser, usage_error
from .texts import PROG

__all__ = ["main", "build_parser"]


def main(argv=None):
    """Run the command line; return the exit status.

    Parameters
    ----------
    argv : list of str, default=None
        Arguments without the program name (default: ``sys.argv[1:]``).
    """
    parser = build_parser()
    # Leftover --NAME VALUE pairs are estimator parameters of train and
    # evaluate, checked against the chosen model's get_params.
    args, extra = parser.parse_known_args(argv)
    if extra and args.command not in _MODEL_COMMANDS:
        usage_error(f"{PROG} {args.command or ''}".strip(),
                    f"unrecognized arguments: {' '.join(extra)}")
    args.extra = extra
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    # A warning is one line, "perceptrons: warning: ...", without the
    # source line Python would print (a line of this package's code).
    formatwarning, warnings.formatwarning = warnings.formatwarning, \
        _format_warning
    try:
        return args.func(args)
    except BrokenPipeError:
        return _quiet_broken_pipe()
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
    finally:
        warnings.formatwarning = formatwarning


def _format_warning(message, category, filename, lineno, line=None):
    return f"{PROG}: warning: {' '.join(str(message).split())}\n"


_MODEL_COMMANDS = ("train", "evaluate")


def _quiet_broken_pipe():
    """The reader of stdout has gone (``| head``): stop quietly, as Unix
    tools do, with the status of SIGPIPE."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error at exit
    except (OSError, ValueError, AttributeError):
        pass
    return 141


def _error(message):
    message = " ".join(str(message).split())  # one line
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2
