"""The one place that imports scikit-learn's private parameter validation.

A change upstream then touches this file only (imbalanced-learn's lesson).
"""

from sklearn.utils._param_validation import Hidden, Interval, StrOptions

__all__ = ["Hidden", "Interval", "StrOptions"]
