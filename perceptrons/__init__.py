"""perceptrons: fast, faithful implementations of the perceptron family.

Public estimators are re-exported here from :mod:`perceptrons.registry`;
everything else is private API. They are imported on first use, so that
``perceptrons --help`` starts without loading numba and scikit-learn; so are
the public submodules, attributes of the package once asked for
(``perceptrons.river`` imports river only then).
"""

import importlib

from .registry import ESTIMATORS as _ESTIMATORS

__version__ = "0.1.0"
_CLASS_NAMES = tuple(entry.class_name for entry in _ESTIMATORS)
__all__ = [*_CLASS_NAMES, "__version__"]
#: Public submodules, imported when first read as attributes.
_SUBMODULES = ("bounds", "cli", "datasets", "distributed", "evaluation",
               "experiments", "models", "persistence", "registry", "river",
               "streaming", "utils")


def __getattr__(name):
    for entry in _ESTIMATORS:
        if entry.class_name == name:
            return entry.load()
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'perceptrons' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_CLASS_NAMES) | set(_SUBMODULES))
