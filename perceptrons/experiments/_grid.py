"""Grids of a search: :class:`Column` and :func:`check_grid`.

A grid is a list of :class:`Column`: a name and one or more *stages*, each a
dict ``parameter -> values``. One stage is a joint search over its product;
two or more are a sequential selection, each stage searching its own
parameters with the previous stage's winner fixed. A plain ``dict`` or list
of dicts (as :class:`~sklearn.model_selection.ParameterGrid` takes) is one
column each.
"""

import itertools
from dataclasses import dataclass

from .store import canonical_json

__all__ = ["Column", "check_grid"]


@dataclass(frozen=True)
class Column:
    """One column of a table: the cells a search or a selection ranges over.

    Parameters
    ----------
    name : str
    stages : tuple of dict
        Each a dict ``parameter -> tuple of values``. One stage: its product
        is searched jointly. Two or more: sequential selection; stage s
        searches its product with the winner of stage s-1 fixed (its own
        parameters override the winner's).
    """

    name: str
    stages: tuple

    def cells(self):
        """Every cell any selection of this column may evaluate, in order."""
        cells = _product(self.stages[0])
        for stage in self.stages[1:]:
            cells = [{**c, **s} for c in cells for s in _product(stage)]
        return unique_cells(itertools.chain(_product(self.stages[0]), cells))


def unique_cells(cells):
    """The first of each cell (by its canonical JSON), in order."""
    out, seen = [], set()
    for c in cells:
        key = canonical_json(c)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def _product(grid):
    names = list(grid)
    return [dict(zip(names, values))
            for values in itertools.product(*(tuple(grid[n]) for n in names))]


def _as_columns(columns):
    """A list of :class:`Column` from columns, a dict or a list of dicts."""
    if isinstance(columns, Column):
        return [columns]
    if isinstance(columns, dict):
        return [Column("grid", ({k: tuple(v) for k, v in columns.items()},))]
    columns = list(columns)
    if columns and all(isinstance(c, Column) for c in columns):
        return columns
    if all(isinstance(c, dict) for c in columns):
        return [Column(f"grid {i}", ({k: tuple(v) for k, v in c.items()},))
                for i, c in enumerate(columns)]
    raise TypeError("columns must be Column objects, a dict of parameter "
                    "lists, or a list of such dicts")


def check_grid(estimator, columns):
    """Refuse a grid naming an unknown parameter or holding an invalid value.

    Parameters
    ----------
    estimator : estimator
    columns : list of Column, dict or list of dict

    Returns
    -------
    list of Column

    Raises
    ------
    ValueError
        Naming the parameter (and the estimator's parameters), or the
        parameter and the value the estimator refuses.
    """
    from sklearn.base import clone

    columns = _as_columns(columns)
    known = estimator.get_params(deep=False)
    name = type(estimator).__name__
    seen = set()
    for column in columns:
        if not column.stages:
            raise ValueError(f"column {column.name!r} has no stage")
        for stage in column.stages:
            for param, values in stage.items():
                if param not in known:
                    raise ValueError(
                        f"column {column.name!r}: {name} has no parameter "
                        f"{param!r}; its parameters: {', '.join(sorted(known))}")
                if isinstance(values, (str, bytes)) or not len(values):
                    raise ValueError(
                        f"column {column.name!r}: {param!r} needs a non-empty "
                        f"list of values, got {values!r}")
                for value in values:
                    key = (param, canonical_json(value))
                    if key in seen:
                        continue
                    seen.add(key)
                    est = clone(estimator).set_params(**{param: value})
                    validate = getattr(est, "_validate_params", None)
                    try:
                        if validate is not None:
                            validate()
                    except ValueError as exc:
                        raise ValueError(
                            f"column {column.name!r}: invalid value {value!r} "
                            f"for {param!r} of {name}: {exc}") from None
    return columns

