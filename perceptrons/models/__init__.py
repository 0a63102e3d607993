"""scikit-learn estimators: one thin class per algorithm.

The classes are listed in :mod:`perceptrons.registry` and imported on first
use, each from its own module.
"""

from ..registry import ESTIMATORS as _ESTIMATORS

__all__ = [entry.class_name for entry in _ESTIMATORS]


def __getattr__(name):
    for entry in _ESTIMATORS:
        if entry.class_name == name:
            return entry.load()
    raise AttributeError(
        f"module 'perceptrons.models' has no attribute {name!r}")
