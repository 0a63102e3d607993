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

A fresh row is the algorithm's start (zero weights; θ_Init for a
threshold): the averaged hypotheses keep their meaning, a row that was at
its start all along having summed nothing (or its start, for θ).
"""

import numpy as np

__all__ = ["class_positions", "grown_rows", "inserted", "split"]


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
