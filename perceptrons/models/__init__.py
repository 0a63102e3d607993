"""scikit-learn estimators: one thin class per algorithm."""

from .perceptron import Perceptron

__all__ = ["Perceptron"]
