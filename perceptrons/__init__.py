"""perceptrons: fast, faithful implementations of the perceptron family.

Public estimators are re-exported here; everything else is private API.
They are imported on first use, so that ``perceptrons --help`` starts
without loading numba and scikit-learn.
"""

__version__ = "0.1.0"
__all__ = ["Ballseptron", "KernelPerceptron", "PDM", "PFM", "Perceptron",
           "ROMMA", "__version__"]

_ESTIMATORS = {"Ballseptron", "KernelPerceptron", "PDM", "PFM",
               "Perceptron", "ROMMA"}


def __getattr__(name):
    if name in _ESTIMATORS:
        from . import models

        return getattr(models, name)
    raise AttributeError(f"module 'perceptrons' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _ESTIMATORS)
