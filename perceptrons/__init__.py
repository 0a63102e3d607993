"""perceptrons: fast, faithful implementations of the perceptron family.

Public estimators are re-exported here from :mod:`perceptrons.registry`;
everything else is private API. They are imported on first use, so that
``perceptrons --help`` starts without loading numba and scikit-learn.
"""

from .registry import ESTIMATORS as _ESTIMATORS

__version__ = "0.1.0"
_CLASS_NAMES = tuple(entry.class_name for entry in _ESTIMATORS)
__all__ = [*_CLASS_NAMES, "__version__"]


def __getattr__(name):
    for entry in _ESTIMATORS:
        if entry.class_name == name:
            return entry.load()
    raise AttributeError(f"module 'perceptrons' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_CLASS_NAMES))
