"""The scratch of one ``fit``/``partial_fit`` call, as a declared type.

Created when a call starts and dropped when it ends, so that a fitted
estimator holds its state and nothing sized by the training set that is not
part of the model. The driver fills the fields it declares here; the
storage of the weights (:mod:`perceptrons.models._weights`) its own three;
an algorithm puts its per-example arrays and work space in ``work``, an
object of its own declared type (its ``begin_call`` makes it).
"""

import dataclasses

import numpy as np

from .._weighting import UNIT_WEIGHTS

__all__ = ["TrainingCall", "UNIT_WEIGHTS"]


@dataclasses.dataclass(eq=False, slots=True)
class TrainingCall:
    """Scratch of one ``fit``/``partial_fit`` call (see the module notes).

    Attributes
    ----------
    X : {ndarray, CSR matrix} of shape (n_samples, n_features)
        The validated rows, in the precision the model reads.
    loop_arrays : tuple
        X as the primal loops take it
        (:func:`~perceptrons.utils.validation.as_loop_arrays`).
    labels : tuple or None
        ``(classes, targets)`` of numeric labels with few classes, found in
        one pass (:func:`~perceptrons.models._driver.inputs.few_label_encoding`),
        or None.
    sq_norms : ndarray of shape (n_samples,) or (0,)
        ``<x_i, x_i>`` per row, or empty when the algorithm does not read
        them.
    sq_norm_sum, mean_sq_norm : float
        The sum and the average of ``<x_i, x_i>`` (θ_Init "auto" and the
        like).
    weights : ndarray of shape (n_samples,) or (0,)
        Each row's weight; empty when every weight is 1.
    n_passes : int
        Passes the call makes (a kernel cache is kept only across passes).
    classes : ndarray or None
        The classes the call's labels index.
    validation : tuple or None
        Held-out ``(X, targets, weights)`` of ``early_stopping``.
    state : State or None
        The fitted state as the call goes: set when the call starts, replaced
        by the algorithm's hooks, published when the call ends.
    t, n_iter : int
        Steps and passes so far, this call's included.
    feature_names_in : ndarray or None
        Names validation read (a parameter-mixing shard hands them on).
    dual, keep_summed, keep_snapshot, slot_of_row
        The dual storage's per-call support set
        (:class:`~perceptrons.models._support.KernelCall`), whether the
        call keeps the running sum and the snapshot of the weights, and the
        new slot of each loop row once the call ends.
    n_labels : int
        A multi-label call's labels (y's columns), else 0.
    compact_targets : tuple or None
        The class indices in their smallest integer type, made once.
    work : object
        The algorithm's own per-call scratch (its declared type).
    """

    X: object
    loop_arrays: tuple
    labels: object = None
    sq_norms: np.ndarray = None
    sq_norm_sum: float = 0.0
    mean_sq_norm: float = 0.0
    weights: np.ndarray = dataclasses.field(
        default_factory=lambda: UNIT_WEIGHTS)
    n_passes: int = 1
    classes: np.ndarray = None
    validation: tuple = None
    state: object = None
    t: int = 0
    n_iter: int = 0
    feature_names_in: np.ndarray = None
    dual: object = None
    keep_summed: bool = False
    keep_snapshot: bool = False
    slot_of_row: np.ndarray = None
    n_labels: int = 0
    compact_targets: tuple = None
    work: object = None
