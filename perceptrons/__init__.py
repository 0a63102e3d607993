"""perceptrons: fast, faithful implementations of the perceptron family.

Public estimators are re-exported here; everything else is private API.
"""

from .models import Perceptron

__version__ = "0.1.0"
__all__ = ["Perceptron", "__version__"]
