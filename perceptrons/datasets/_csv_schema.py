"""How the columns of a CSV file become attributes: the fitted schema.

:class:`CSVSchema` is the encoding :func:`~perceptrons.datasets.load_csv`
fits on a training file (numeric columns, the levels of nominal ones, the
missing-value rule and its fill values, the header's names) and applies to
a later file, saved with a model; :func:`fit_schema` fits it on parsed rows
and :func:`encode` applies it.
"""

import math
from collections import Counter

import numpy as np

from ._files import where

__all__ = ["CSVSchema", "HANDLE_MISSING", "encode", "fit_schema",
           "missing_token_set", "parse_float"]


def parse_float(token):
    """``float(token)`` if it is a finite number, else ``None``."""
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


#: What :func:`load_csv` can do with a missing value (``handle_missing``).
HANDLE_MISSING = ("drop", "error", "zero", "mean", "mode")

# The hint of a mixed numeric column names both ways to declare a token or a
# column, so that the message fits the command line and the Python API.
_MIXED_HINT = (
    "declare the token as a missing value (--missing-values on the command "
    "line, missing= in load_csv) or the column as nominal (--nominal-columns, "
    "nominal_columns=)"
)


class CSVSchema:
    """How the columns of a CSV file become the attributes of ``X``.

    :func:`load_csv` fits one on a training file (``info.schema``) and
    applies it to a later file (``load_csv(path, schema=schema)``), so that a
    test file gets the training file's attributes, levels and missing-value
    treatment whatever values it holds. :meth:`to_dict` and
    :meth:`from_dict` turn it into plain JSON data (e.g. a model file's
    header) and back, with every field checked.

    Parameters
    ----------
    n_columns : int
        Columns of the training file.
    label_column : int
        Its label column (``0 <= label_column < n_columns``).
    drop_columns : list of int
        Columns ignored.
    numeric_columns : list of int
        Columns giving one numeric attribute each.
    categories : dict of {int: list of str}
        Nominal columns and their levels, in attribute order.
    missing : list of str
        Tokens marking a missing value (besides the empty field).
    handle_missing : {"drop", "error", "zero", "mean", "mode"}
        What training did with missing values.
    fill : dict of {int: float or str}
        The value that replaces a missing value of a column ("mean",
        "mode"); a column without one gets 0 (numeric) or an all-zero
        indicator block (nominal).
    delimiter : str
        Field separator of the training file.
    column_names : list of str
        A name per column, used in :meth:`feature_names`: the training
        file's header if it had one, else ``x<j>``.
    header : bool, default=False
        Whether the training file had a header row: a later file with one
        then has its columns matched by name (reordered columns mapped,
        missing or unknown ones refused), else by position.
    """

    def __init__(self, n_columns, label_column, drop_columns, numeric_columns,
                 categories, missing, handle_missing, fill, delimiter,
                 column_names, header=False):
        self.n_columns = n_columns
        self.label_column = label_column
        self.drop_columns = list(drop_columns)
        self.numeric_columns = list(numeric_columns)
        self.categories = {j: list(v) for j, v in categories.items()}
        self.missing = list(missing)
        self.handle_missing = handle_missing
        self.fill = dict(fill)
        self.delimiter = delimiter
        self.column_names = list(column_names)
        self.header = bool(header)

    @property
    def feature_columns(self):
        """The used columns, in attribute order."""
        return sorted(self.numeric_columns + list(self.categories))

    def feature_names(self):
        """One name per attribute: ``"x3"``, or ``"x1=red"`` for a level."""
        names = []
        for j in self.feature_columns:
            if j in self.categories:
                names.extend(f"{self.column_names[j]}={v}"
                             for v in self.categories[j])
            else:
                names.append(self.column_names[j])
        return names

    def to_dict(self):
        """The schema as JSON data (int keys become ``[key, value]`` pairs)."""
        return {"format": "csv", "n_columns": self.n_columns,
                "label_column": self.label_column,
                "drop_columns": self.drop_columns,
                "numeric_columns": self.numeric_columns,
                "categories": [[j, v] for j, v in self.categories.items()],
                "missing": self.missing,
                "handle_missing": self.handle_missing,
                "fill": [[j, v] for j, v in self.fill.items()],
                "delimiter": self.delimiter,
                "column_names": self.column_names, "header": self.header}

    @classmethod
    def from_dict(cls, data):
        """The schema of :meth:`to_dict`; ValueError naming a bad field."""
        def field(name, check, what):
            value = data.get(name) if isinstance(data, dict) else None
            if not check(value):
                raise ValueError(f"CSV schema field {name!r} must be {what}, "
                                 f"got {value!r:.80}")
            return value

        def is_int(v):
            return type(v) is int

        def is_str_list(v):
            return isinstance(v, list) and all(type(s) is str for s in v)

        def is_pairs(v):
            return isinstance(v, list) and all(
                isinstance(p, list) and len(p) == 2 and is_int(p[0])
                for p in v)

        n = field("n_columns", lambda v: is_int(v) and v >= 2,
                  "an integer >= 2")
        in_range = "a column index below n_columns"
        label = field("label_column", lambda v: is_int(v) and 0 <= v < n,
                      in_range)
        cols = {}
        for name in ("drop_columns", "numeric_columns"):
            cols[name] = field(name, lambda v: isinstance(v, list) and all(
                is_int(j) and 0 <= j < n for j in v), "a list of " + in_range)
        categories = dict(field(
            "categories", lambda v: is_pairs(v) and all(
                0 <= j < n and is_str_list(lv) and lv
                and len(set(lv)) == len(lv) for j, lv in v),
            "[column, [distinct levels]] pairs"))
        roles = cols["drop_columns"] + cols["numeric_columns"] + \
            list(categories) + [label]
        if sorted(roles) != list(range(n)):
            raise ValueError("CSV schema: every column must have exactly one "
                             "role (label, drop, numeric or nominal)")
        fill = dict(field("fill", lambda v: is_pairs(v) and all(
            (j in categories and x in categories[j]) or (
                j in cols["numeric_columns"] and type(x) in (int, float)
                and math.isfinite(x)) for j, x in v),
            "[column, value] pairs (a number or a known level)"))
        return cls(
            n, label, cols["drop_columns"], cols["numeric_columns"],
            categories, field("missing", is_str_list, "a list of str"),
            field("handle_missing", lambda v: v in HANDLE_MISSING,
                  f"one of {HANDLE_MISSING}"),
            fill,
            field("delimiter", lambda v: type(v) is str and len(v) == 1,
                  "one character"),
            field("column_names", lambda v: is_str_list(v) and len(v) == n
                  and len(set(v)) == n, "a distinct name per column"),
            # Absent from the schemas saved before headers were read.
            field("header", lambda v: type(v) is bool, "true or false")
            if "header" in data else False)


def missing_token_set(missing):
    """The tokens read as a missing value: ``missing`` (one or several) and
    the empty field."""
    if missing is None:
        return {""}
    if isinstance(missing, str):
        return {missing, ""}
    return set(missing) | {""}


def _most_frequent(values):
    """The most frequent value; ties go to the first in sort order."""
    counts = Counter(values)
    return min(counts, key=lambda v: (-counts[v], v))


def fit_schema(path, rows, lines, *, label_col, dropped, n_cols, fixed,
                forced_nominal, missing_tokens, handle_missing, delimiter,
                column_names, header):
    """The :class:`CSVSchema` of the training rows (missing rows dropped)."""
    feature_cols = [j for j in range(n_cols)
                    if j != label_col and j not in dropped]
    vocab, fill, numeric = {}, {}, []
    for j in feature_cols:
        present = [(f[j], ln) for f, ln in zip(rows, lines)
                   if f[j] not in missing_tokens]
        values = [v for v, _ in present]
        if fixed is not None:
            nominal = j in fixed
            levels = fixed.get(j)
        else:
            parsed = [parse_float(v) for v in values]
            ok = [p is not None for p in parsed]
            nominal = j in forced_nominal or bool(values and not any(ok))
            levels = sorted(set(values))
            if not nominal and not all(ok):
                v, ln = present[ok.index(False)]
                raise ValueError(
                    f"Unparseable value {v!r} in {where(path, ln, j)}: the "
                    f"column is otherwise numeric; {_MIXED_HINT}.")
        if nominal:
            vocab[j] = levels
            known = [v for v in values if v in levels]
            if handle_missing in ("mean", "mode") and known:
                fill[j] = _most_frequent(known)
            continue
        numeric.append(j)
        numbers = [parse_float(v) for v in values]
        numbers = [x for x in numbers if x is not None]
        if handle_missing == "mean" and numbers:
            fill[j] = math.fsum(numbers) / len(numbers)
        elif handle_missing == "mode" and numbers:
            fill[j] = _most_frequent(numbers)
    return CSVSchema(n_cols, label_col, sorted(dropped), numeric, vocab,
                     sorted(missing_tokens - {""}), handle_missing, fill,
                     delimiter, column_names, header)


def encode(path, rows, lines, schema, file_label, unknown, to_file=None):
    """X and the filled/unseen counts of rows encoded with ``schema``.

    ``to_file`` maps a training column to the file's (by name, when both
    have a header); by default the file's non-label columns stand, in
    order, for the training file's non-label columns, so a file with or
    without its label column is read the same way. ``unknown``: "error",
    or "count" (an all-zero block).
    """
    if to_file is None:
        train_cols = [j for j in range(schema.n_columns)
                      if j != schema.label_column]
        file_cols = [k for k in range(len(rows[0])) if k != file_label]
        to_file = dict(zip(train_cols, file_cols))
    missing_tokens = set(schema.missing) | {""}
    offsets, width = {}, 0
    for j in schema.feature_columns:
        offsets[j] = width
        width += len(schema.categories.get(j, (0,)))
    index_of = {j: {v: k for k, v in enumerate(levels)}
                for j, levels in schema.categories.items()}
    X = np.zeros((len(rows), width), dtype=np.float64)
    filled_rows, unseen = 0, {}
    for i, (fields, ln) in enumerate(zip(rows, lines)):
        filled = False
        for j in schema.feature_columns:
            k = to_file[j]
            v = fields[k]
            if v in missing_tokens:
                filled = True
                if j not in schema.fill:
                    continue  # 0, or an all-zero indicator block
                v = schema.fill[j]
                if j not in schema.categories:
                    X[i, offsets[j]] = v
                    continue
            if j in schema.categories:
                pos = index_of[j].get(v)
                if pos is None:
                    if unknown == "error":
                        raise ValueError(
                            f"Unknown category {v!r} in {where(path, ln, k)} "
                            f"(known: {schema.categories[j]}).")
                    unseen.setdefault(k, Counter())[v] += 1
                    continue
                X[i, offsets[j] + pos] = 1.0
            else:
                value = parse_float(v)
                if value is None:
                    raise ValueError(
                        f"Non-numeric value {v!r} in {where(path, ln, k)}, "
                        "which is a numeric column.")
                X[i, offsets[j]] = value
        filled_rows += filled
    return X, filled_rows, unseen
