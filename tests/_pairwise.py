"""A deterministic all-pairs (pairwise) covering set for test grids.

A full product of test factors mostly repeats itself: a defect that needs
one factor at a given value, or two factors at a given pair of values, shows
in any row that has them. :func:`all_pairs` returns a list of rows (dicts)
in which every value of every factor and every pair of values of every two
factors occur at least once, plus the ``corners`` given (rows of the full
product that must be present as they are, e.g. "everything off" and
"everything on"). Greedy construction, no randomness: the same factors give
the same rows, so test ids are stable.

Use it with :func:`parametrize`::

    @parametrize(all_pairs({"a": [1, 2], "b": ["x", "y"], "c": [True, False]}))
    def test_something(a, b, c): ...
"""

import itertools

import pytest

__all__ = ["all_pairs", "corners_of", "parametrize", "row_id"]


def corners_of(factors, *, by=None):
    """The all-first-values and all-last-values rows of ``factors``.

    With ``by`` (a factor name), one such pair for every value of that
    factor.
    """
    names = list(factors)
    lows = {name: factors[name][0] for name in names}
    highs = {name: factors[name][-1] for name in names}
    if by is None:
        return [lows, highs]
    out = []
    for value in factors[by]:
        out.append(dict(lows, **{by: value}))
        out.append(dict(highs, **{by: value}))
    return out


def all_pairs(factors, corners=()):
    """Rows covering every pair of values of every two factors.

    Parameters
    ----------
    factors : dict of str to list
        Factor name to its values (at least one value each; values need not
        be hashable).
    corners : iterable of dict
        Complete rows (one value per factor) included first, in order.

    Returns
    -------
    list of dict
        No duplicate rows; the corners first, then the greedy rows.
    """
    names = list(factors)
    values = [list(factors[name]) for name in names]
    if any(len(v) == 0 for v in values):
        raise ValueError("every factor needs at least one value")
    k = len(names)

    def index_of(f, value):
        for i, v in enumerate(values[f]):
            if v is value or v == value:
                return i
        raise ValueError(f"{value!r} is not a value of factor {names[f]!r}")

    uncovered = set()
    for f, g in itertools.combinations(range(k), 2):
        for a in range(len(values[f])):
            for b in range(len(values[g])):
                uncovered.add((f, a, g, b))
    if k == 1:  # single factor: every value is a "pair" with nothing
        uncovered = {(0, a, -1, 0) for a in range(len(values[0]))}

    rows = []

    def add(row):
        if row in rows:
            return
        rows.append(row)
        if k == 1:
            uncovered.discard((0, row[0], -1, 0))
            return
        for f, g in itertools.combinations(range(k), 2):
            uncovered.discard((f, row[f], g, row[g]))

    for corner in corners:
        missing = set(names) ^ set(corner)
        if missing:
            raise ValueError(f"corner {corner!r} does not name exactly the "
                             f"factors (difference: {sorted(missing)})")
        add(tuple(index_of(f, corner[names[f]]) for f in range(k)))

    # Fill factors with many values first: they constrain the count most.
    fill_order = sorted(range(k), key=lambda f: (-len(values[f]), f))
    while uncovered:
        f0, a0, g0, b0 = min(uncovered)
        row = [None] * k
        row[f0] = a0
        if g0 >= 0:
            row[g0] = b0
        for f in fill_order:
            if row[f] is not None:
                continue
            best, best_gain = 0, -1
            for v in range(len(values[f])):
                gain = 0
                for g in range(k):
                    if g == f or row[g] is None:
                        continue
                    key = ((f, v, g, row[g]) if f < g else (g, row[g], f, v))
                    gain += key in uncovered
                if gain > best_gain:
                    best, best_gain = v, gain
            row[f] = best
        add(tuple(row))
    return [{names[f]: values[f][row[f]] for f in range(k)} for row in rows]


def _short(value):
    if isinstance(value, dict):
        return "_".join(f"{k}{_short(v)}" for k, v in value.items())
    if isinstance(value, (tuple, list)):
        return "_".join(_short(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = getattr(value, "__name__", None) or repr(value)
    return text.replace(" ", "").strip("'\"")


def row_id(row):
    """A readable, stable test id: the values joined by '-'."""
    return "-".join(_short(v) for v in row.values())


def parametrize(rows):
    """``pytest.mark.parametrize`` over the rows' keys, ids from the values."""
    rows = list(rows)
    names = list(rows[0])
    return pytest.mark.parametrize(
        ",".join(names), [tuple(row[n] for n in names) for row in rows],
        ids=[row_id(row) for row in rows])
