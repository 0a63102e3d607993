"""Theoretical mistake bounds of the perceptron family, for tests and experiments.

Pure numpy/scipy: the quantities of a sequence (radius R, hinge losses,
D1, D2, the margin of a comparator) and the bounds of the papers as plain
functions of those scalars. See :mod:`perceptrons.bounds._mistake_bounds`.
"""

from ._mistake_bounds import (
    MistakeBounds,
    augment,
    comparator_margin,
    d1,
    d1_bound,
    d2,
    freund_schapire_bound,
    hinge_losses,
    mistake_bounds,
    novikoff_bound,
    radius,
)

__all__ = [
    "MistakeBounds",
    "augment",
    "comparator_margin",
    "d1",
    "d1_bound",
    "d2",
    "freund_schapire_bound",
    "hinge_losses",
    "mistake_bounds",
    "novikoff_bound",
    "radius",
]
