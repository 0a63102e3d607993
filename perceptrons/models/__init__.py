"""scikit-learn estimators: one thin class per algorithm."""

from .ballseptron import Ballseptron
from .kernel_perceptron import KernelPerceptron
from .margin import PDM, PFM
from .perceptron import Perceptron

__all__ = ["Ballseptron", "KernelPerceptron", "PDM", "PFM", "Perceptron"]
