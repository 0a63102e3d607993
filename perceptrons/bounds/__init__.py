"""Theoretical mistake bounds of the perceptron family, for tests and experiments.

Pure numpy/scipy: the quantities of a sequence (radius R, hinge losses,
D1, D2, the margin of a comparator) and the bounds of the papers as plain
functions of those scalars. See :mod:`perceptrons.bounds._mistake_bounds`;
the update bounds of PFM and PDM are in :mod:`perceptrons.bounds._pdm_bounds`;
those of the Higher-order and Second-order Perceptrons in
:mod:`perceptrons.bounds._higher_order_bounds`; ALMA_p's correction bound in
:mod:`perceptrons.bounds._alma_bounds`; AROW's mistake bound in
:mod:`perceptrons.bounds._confidence_weighted_bounds`.
"""

from ._alma_bounds import alma_correction_bound, p_norm_margin
from ._ballseptron_bounds import (
    BallseptronBounds,
    ballseptron_beta,
    ballseptron_bounds,
    ballseptron_d1_bound,
    ballseptron_d2_bound,
    multiclass_ballseptron_bounds,
    multiclass_hinge_losses,
    multiclass_radius,
)
from ._confidence_weighted_bounds import arow_bound, arow_sequence_bound
from ._higher_order_bounds import (
    higher_order_bound,
    higher_order_condition,
    higher_order_sequence_bound,
    second_order_bound,
    second_order_sequence_bound,
)
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
from ._pdm_bounds import (
    directional_radius,
    pdm_update_bound,
    pfm_update_bound,
    pfm_update_bound_beta,
)

__all__ = [
    "alma_correction_bound",
    "arow_bound",
    "arow_sequence_bound",
    "BallseptronBounds",
    "MistakeBounds",
    "augment",
    "ballseptron_beta",
    "ballseptron_bounds",
    "ballseptron_d1_bound",
    "ballseptron_d2_bound",
    "comparator_margin",
    "d1",
    "d1_bound",
    "d2",
    "directional_radius",
    "freund_schapire_bound",
    "higher_order_bound",
    "higher_order_condition",
    "higher_order_sequence_bound",
    "hinge_losses",
    "mistake_bounds",
    "multiclass_ballseptron_bounds",
    "multiclass_hinge_losses",
    "multiclass_radius",
    "novikoff_bound",
    "p_norm_margin",
    "pdm_update_bound",
    "pfm_update_bound",
    "pfm_update_bound_beta",
    "radius",
    "second_order_bound",
    "second_order_sequence_bound",
]
