"""Exact comparison of fitted states (the one way tests compare models)."""

import dataclasses

import numpy as np
import scipy.sparse as sp
from numpy.testing import assert_array_equal


def assert_same_state(a, b, where="state_"):
    """Two estimators' states (or two states) are equal, bit for bit.

    Every field of the typed state (:mod:`perceptrons.models._state`),
    nested states included: arrays of the same dtype, shape and values
    (NaN equal to NaN), sparse matrices likewise, scalars equal.
    """
    a = getattr(a, "state_", a)
    b = getattr(b, "state_", b)
    assert type(a) is type(b), f"{where}: {type(a)} vs {type(b)}"
    for field in dataclasses.fields(a):
        _assert_same(getattr(a, field.name), getattr(b, field.name),
                     f"{where}.{field.name}")


def _assert_same(u, v, where):
    if dataclasses.is_dataclass(u):
        assert_same_state(u, v, where)
    elif isinstance(u, np.ndarray):
        assert isinstance(v, np.ndarray), where
        assert u.dtype == v.dtype, where
        assert_array_equal(u, v, err_msg=where, strict=True)
    elif sp.issparse(u):
        assert sp.issparse(v) and u.format == v.format, where
        assert u.shape == v.shape, where
        for part in ("data", "indices", "indptr"):
            _assert_same(getattr(u, part), getattr(v, part),
                         f"{where}.{part}")
    elif isinstance(u, float) and np.isnan(u):
        assert isinstance(v, float) and np.isnan(v), where
    else:
        assert type(u) is type(v) and u == v, f"{where}: {u!r} vs {v!r}"


def state_arrays(state, where="state_"):
    """``(where, array)`` of every array in a state, nested states too."""
    for field in dataclasses.fields(state):
        value = getattr(state, field.name)
        at = f"{where}.{field.name}"
        if dataclasses.is_dataclass(value):
            yield from state_arrays(value, at)
        elif hasattr(value, "shape"):
            yield at, value


def final_hypothesis(est):
    """A Perceptron's final hypothesis as weights by feature and intercepts,
    one row per one-vs-rest problem or per prototype (two prototypes: two
    rows), and for ``hypothesis="voted"`` the last hypothesis: the layout of
    the papers' references. (``coef_``/``intercept_`` are the decision
    itself: one row for two prototypes, none for a vote.) Dual form: by
    feature for the linear kernel, else the coefficients over the pool."""
    from perceptrons._loops.mercer import KERNEL_LINEAR
    from perceptrons.models._kernel import linear_coef
    from perceptrons.models._weights import WeightRows

    weights, intercept = type(est)._algorithm.of(est).final_hypothesis(
        est.state_)
    w = est.state_.weights
    if not isinstance(w, WeightRows) and w.kernel.code == KERNEL_LINEAR:
        weights = linear_coef(weights, w.pool.X)
    return weights, intercept
