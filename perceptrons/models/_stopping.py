"""Stopping rules with scikit-learn's names and meanings.

``tol``, ``n_iter_no_change``, ``early_stopping`` and ``validation_fraction``
as ``SGDClassifier`` and ``Perceptron`` define them: after each pass the
training loss (here the pass's online mistakes per row, the perceptron's own
count) or, with ``early_stopping``, the accuracy on a held-out stratified
fraction of the training rows must improve by ``tol`` within
``n_iter_no_change`` passes, or training stops; and a pass that makes no
update stops a model whose final hypothesis such a pass leaves unchanged for
ever (the last hypothesis: the next pass would see the same weights and
again make no update). ``tol=None`` runs ``max_iter`` passes exactly, the
papers' protocol.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.utils import check_random_state

from ..utils._param_validation import Interval
from ..utils.docstrings import with_doc_fragments

__all__ = ["STOPPING_CONSTRAINTS", "NoImprovement", "validation_split",
           "with_stopping_docs"]

#: ``_parameter_constraints`` of the four parameters.
STOPPING_CONSTRAINTS = {
    "tol": [Interval(Real, 0, None, closed="left"), None],
    "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
    "early_stopping": ["boolean"],
    "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
}


#: The four parameters' entries of a class docstring (numpydoc).
STOPPING_PARAMETERS_DOC = """\
    tol : float or None, default=None
        scikit-learn's stopping rule: stop when a pass's online mistakes
        per row have not fallen below the best by ``tol`` for
        ``n_iter_no_change`` passes (with ``early_stopping``: the held-out
        accuracy has not risen by ``tol``), or, when the final hypothesis is
        the last one, at a pass without an update (no mistake; for the
        Ballseptron no margin error either). None: exactly ``max_iter``
        passes (the papers' protocol).
    n_iter_no_change : int, default=5
        Passes without improvement before stopping.
    early_stopping : bool, default=False
        Hold out a stratified ``validation_fraction`` of the rows and stop
        on their accuracy; the model is trained on the other rows.
    validation_fraction : float, default=0.1
        The held-out fraction of ``early_stopping``.
"""


#: Class decorator: the docstring's ``%(stopping_parameters)s`` line becomes
#: :data:`STOPPING_PARAMETERS_DOC`.
with_stopping_docs = with_doc_fragments(
    {"    %(stopping_parameters)s\n": STOPPING_PARAMETERS_DOC})


class NoImprovement:
    """scikit-learn's rule: stop after ``n_iter_no_change`` passes in a row
    whose loss is not below the best one by more than ``tol``.

    Parameters
    ----------
    tol : float
    n_iter_no_change : int
    """

    def __init__(self, tol, n_iter_no_change):
        self.tol = float(tol)
        self.n_iter_no_change = int(n_iter_no_change)
        self.best = np.inf
        self.count = 0

    def stops(self, loss):
        """Record a pass's loss; True when training should stop."""
        if loss > self.best - self.tol:
            self.count += 1
        else:
            self.count = 0
        self.best = min(self.best, loss)
        return self.count >= self.n_iter_no_change


def validation_split(targets, weights, fraction, random_state):
    """The held-out rows of ``early_stopping``: a stratified
    ``fraction`` of the rows (scikit-learn's ``_make_validation_split``).

    Parameters
    ----------
    targets : ndarray of int64
        Each row's class index.
    weights : ndarray
        The rows' weights, or empty (every weight 1).
    fraction : float
    random_state : None, int or RandomState

    Returns
    -------
    ndarray of bool
        True for a validation row.

    Raises
    ------
    ValueError
        If either part would be empty, or a class too small to split.
    """
    n = targets.shape[0]
    try:
        split = StratifiedShuffleSplit(
            test_size=fraction, random_state=check_random_state(random_state))
        train, held = next(split.split(np.zeros((n, 1)), targets))
    except ValueError as exc:
        raise ValueError(
            f"early_stopping: cannot hold out validation_fraction={fraction}"
            f" of {n} rows stratified by class ({exc}); lower "
            "validation_fraction, add rows or set early_stopping=False"
        ) from None
    if train.shape[0] == 0 or held.shape[0] == 0:
        raise ValueError(
            f"early_stopping: validation_fraction={fraction} of {n} rows "
            "leaves an empty training or validation set")
    mask = np.zeros(n, dtype=bool)
    mask[held] = True
    return mask
