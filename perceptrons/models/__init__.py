"""scikit-learn estimators: one thin class per algorithm."""

from .ballseptron import Ballseptron
from .kernel_perceptron import KernelPerceptron
from .margin import PDM, PFM
from .perceptron import Perceptron
from .romma import ROMMA

__all__ = ["Ballseptron", "KernelPerceptron", "PDM", "PFM", "Perceptron",
           "ROMMA"]
