"""scikit-learn estimators: one thin class per algorithm."""

from .kernel_perceptron import KernelPerceptron
from .perceptron import Perceptron

__all__ = ["KernelPerceptron", "Perceptron"]
