"""The one estimator driver and the algorithm protocol it runs.

:class:`OnlineClassifier` is the base of every estimator; an estimator names
an :class:`Algorithm` and the driver does the rest (:mod:`.estimator`).
"""

from .call import TrainingCall, UNIT_WEIGHTS
from .estimator import N_JOBS_DOC, OnlineClassifier
from .protocol import Algorithm

__all__ = ["Algorithm", "N_JOBS_DOC", "OnlineClassifier", "TrainingCall",
           "UNIT_WEIGHTS"]
