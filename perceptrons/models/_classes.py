"""Classes that arrive after the first call: a state's per-class arrays
grown to more classes.

``partial_fit`` and ``learn_one`` take a label the model has not seen
(scikit-learn's ``partial_fit`` needs every class on its first call; river's
models learn them as they come): the driver asks the algorithm for its state
with the new classes (:meth:`~perceptrons.models._driver.protocol.Algorithm.grow_classes`),
``classes_`` kept sorted as scikit-learn keeps them. An algorithm's arrays
are of three kinds, and these helpers grow each:

* one row per class (prototypes) or per one-vs-rest problem with more than
  two classes: a new class gets a fresh row (:func:`inserted`);
* the one problem of two classes (class 1 against class 0) becomes the
  problems of class 1 and class 0 against the rest: class 1's is the old
  one, class 0's its negation where the rule is odd in (w, y) — the same
  steps on the same rows, and the same predictions —, and a new class gets
  a fresh problem (:func:`split`).

:class:`RowGrowth` binds the positions of a growth for an algorithm's
``grow_classes`` (its arrays, and its weight store's three arrays).

A fresh row is the algorithm's start (zero weights; θ_Init for a
threshold): the averaged hypotheses keep their meaning, a row that was at
its start all along having summed nothing (or its start, for θ).
"""

import numpy as np

__all__ = ["RowGrowth", "class_positions", "grown_rows", "inserted", "split"]


def class_positions(old, new):
    """Where each of the ``old`` classes stands among the sorted ``new``
    ones (which hold them all)."""
    return np.searchsorted(new, old)


def inserted(array, positions, n_rows, fill=0.0):
    """``array``'s rows at ``positions`` of ``n_rows`` rows, the others
    ``fill`` (a new class's fresh row)."""
    out = np.full((n_rows,) + array.shape[1:], fill, dtype=array.dtype)
    out[positions] = array
    return out


def split(array, positions, n_rows, negate, fill=0.0):
    """The one problem of two classes as the problems of every class:
    class 1's (at ``positions[1]``) the old row, class 0's (at
    ``positions[0]``) its negation (``negate``; else a copy: counters), the
    others ``fill``."""
    out = np.full((n_rows,) + array.shape[1:], fill, dtype=array.dtype)
    out[positions[1]] = array[0]
    out[positions[0]] = -array[0] if negate else array[0]
    return out


def grown_rows(array, positions, n_rows, binary, negate=True, fill=0.0):
    """:func:`split` when ``binary`` (a state of two classes becoming
    one-vs-rest), else :func:`inserted`."""
    if binary:
        return split(array, positions, n_rows, negate, fill)
    return inserted(array, positions, n_rows, fill)


class RowGrowth:
    """A state's per-class arrays grown from the classes ``old`` to
    ``classes``: called on an array, :func:`grown_rows` at the old classes'
    positions (``binary``: the one problem of two classes splits).

    Parameters
    ----------
    old, classes : ndarray
        The state's classes and the grown (sorted) ones, which hold them.
    binary : bool
        Whether the state is the one problem of two classes.
    negate : bool, default=True
        The calls' default: whether class 0's row of a split is negated.

    Attributes
    ----------
    positions : ndarray of int
        Where each old class stands among ``classes``.
    n_rows : int
    binary : bool
    """

    def __init__(self, old, classes, binary, negate=True):
        self.positions = class_positions(old, classes)
        self.n_rows = classes.shape[0]
        self.binary = binary
        self.negate = negate

    def __call__(self, array, negate=None, fill=0.0):
        if negate is None:
            negate = self.negate
        return grown_rows(array, self.positions, self.n_rows, self.binary,
                          negate, fill)

    def weights(self, w, rows=None, **changes):
        """A weight store (``current``, ``summed``, ``snapshot``) with its
        three arrays grown by ``rows`` (default: this growth), and
        ``changes``."""
        rows = self if rows is None else rows
        return w.replace(current=rows(w.current), summed=rows(w.summed),
                         snapshot=rows(w.snapshot), **changes)
