"""The one place that imports scikit-learn's private parameter validation.

A change upstream then touches this file only (imbalanced-learn's lesson).
"""

from sklearn.utils._param_validation import (HasMethods, Hidden, Interval,
                                            InvalidParameterError, StrOptions)

__all__ = ["HasMethods", "Hidden", "Interval", "InvalidParameterError",
           "StrOptions"]
