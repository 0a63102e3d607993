"""UCI-style CSV files: attribute rows with no header, nominal attributes
one-hot encoded.

* :func:`load_csv`: the general reader. Numeric columns stay numeric, every
  other column is translated to binary indicators as in Khardon & Wachman
  (2007), Sec. 3.1 [KW07]_; missing values (``?``) are dropped, refused or
  zero-filled; errors name the file, line and column.
* :func:`read_promoters`: the E. coli promoter sequences (``class, name,
  sequence``), one-hot encoded per nucleotide position.

References
----------
.. [KW07] R. Khardon and G. Wachman. "Noise Tolerant Variants of the
   Perceptron Algorithm". Journal of Machine Learning Research 8, 2007.
   Sec. 3.1 (data sets, nominal-to-binary translation) and Table 1.
"""

import csv
import math

import numpy as np
from sklearn.utils import Bunch

from ._files import existing_file, open_data, unreadable, where

__all__ = ["load_csv", "read_promoters"]


def _parse_float(token):
    """``float(token)`` if it is a finite number, else ``None``."""
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _normalize_column(j, n_cols, what):
    if isinstance(j, bool) or not isinstance(j, (int, np.integer)):
        raise ValueError(f"{what} must be an integer column index, got {j!r}.")
    j = int(j)
    if not -n_cols <= j < n_cols:
        raise ValueError(
            f"{what}={j} is out of range for a file with {n_cols} columns."
        )
    return j % n_cols


def _read_csv_rows(path, delimiter, skip_rows):
    """Non-blank records of a CSV file (fields stripped) and their line numbers."""
    rows, lines = [], []
    try:
        with unreadable("CSV", path), open_data(path, text=True) as fh:
            reader = csv.reader(fh, delimiter=delimiter, skipinitialspace=True)
            try:
                for record in reader:
                    if reader.line_num <= skip_rows:
                        continue
                    fields = [f.strip() for f in record]
                    if not any(fields):
                        continue  # blank line (e.g. a trailing empty line)
                    rows.append(fields)
                    lines.append(reader.line_num)
            except csv.Error as exc:
                raise ValueError(
                    f"Unparseable CSV file {where(path, reader.line_num)}: {exc}"
                ) from exc
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"Unparseable CSV file {where(path)}: not UTF-8/ASCII text ({exc})."
        ) from exc
    return rows, lines


def _labels_array(labels):
    """Original labels as int64 if all are integers, float64 if all numeric,
    else strings."""
    try:
        return np.array([int(v) for v in labels], dtype=np.int64)
    except ValueError:
        pass
    try:
        return np.array([float(v) for v in labels], dtype=np.float64)
    except ValueError:
        return np.array(labels, dtype=str)


def load_csv(
    path,
    label_column=-1,
    delimiter=",",
    missing="?",
    handle_missing="drop",
    drop_columns=None,
    skip_rows=0,
    nominal_columns=None,
    categories=None,
    handle_unknown="error",
    column_names=None,
    return_info=False,
):
    """Load a UCI-style CSV file (no header row) as numeric features.

    Every column other than the label and ``drop_columns`` becomes one or
    more attributes of ``X``, in file order:

    * a *numeric* column (every present value parses as a finite number)
      gives one attribute;
    * a *nominal* column (no present value parses as a number, or the column
      is listed in ``nominal_columns`` / ``categories``) gives one binary
      indicator attribute per value, as in Khardon & Wachman (2007), Sec. 3.1:
      "any nominal attribute ... was translated to a set of binary
      attributes each being an indicator function for one of the values".
      Values are ordered by string sort.

    A column that mixes numbers and other strings is rejected (it usually
    means an unknown missing-value token or a corrupt row) unless it is
    declared nominal. Fields are stripped of surrounding whitespace, so the
    ``", "`` separators of ``adult`` need no special handling; blank lines
    are skipped. Empty fields always count as missing.

    Parameters
    ----------
    path : str or path-like
        The file; ``.gz``, ``.bz2`` and ``.xz`` are decompressed.
    label_column : int, default=-1
        Index of the label column (negative counts from the end).
    delimiter : str, default=","
        Field separator.
    missing : str or collection of str or None, default="?"
        Token(s) marking a missing value (in addition to the empty field).
    handle_missing : {"drop", "error", "zero"}, default="drop"
        What to do with a row that has a missing value in a used column:
        ``"drop"`` it; raise an ``"error"``; or keep it (``"zero"``) with
        the missing numeric attribute set to 0 and all indicators of a
        missing nominal attribute set to 0 (the missing value is not a
        category). Rows whose *label* is missing are dropped under
        ``"drop"`` and ``"zero"``. Khardon & Wachman's Table 1 row counts
        (e.g. 699 for breast-cancer-wisconsin, 32561 for adult) show they
        kept such rows but do not say how they filled them; ``"zero"``
        reproduces their attribute counts (105 for adult, 46 for crx).
    drop_columns : sequence of int, default=None
        Columns to ignore (e.g. an id column). Negative indices allowed.
    skip_rows : int, default=0
        Number of physical lines to skip at the top (e.g. 1 for the
        ``|1x3 Cross validator`` line of ``adult.test``).
    nominal_columns : sequence of int, default=None
        Columns to one-hot encode even if their values look numeric.
    categories : dict of {int: sequence of str}, default=None
        Fixed vocabulary per nominal column (original column indices), e.g.
        ``info.categories`` from loading a training file, so that a test file
        gets the same attributes. When given, it alone decides which columns
        are nominal; every other used column must be numeric.
    handle_unknown : {"error", "ignore"}, default="error"
        With ``categories``: raise on a value outside the vocabulary, or
        encode it as all-zero indicators.
    column_names : sequence of str, default=None
        A name for every column of the file, used in ``feature_names``
        (default ``"x<j>"``).
    return_info : bool, default=False
        Also return a :class:`~sklearn.utils.Bunch` describing the encoding.

    Returns
    -------
    X : ndarray of shape (n_samples, n_attributes), float64
        Numeric attributes and binary indicators.
    y : ndarray of shape (n_samples,)
        The label column as in the file: int64 if every label is an integer,
        float64 if every label is a number, strings otherwise.
    info : Bunch, only if ``return_info``
        ``feature_names`` (ndarray of str), ``categories`` (dict column ->
        list of values, reusable for a test file), ``numeric_columns`` and
        ``nominal_columns`` (original indices), ``lines`` (line number of each
        returned row) and ``dropped_lines`` (line numbers of dropped rows).

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        On an empty file, ragged rows, unparseable text, a mixed
        numeric/non-numeric column, a non-numeric value in a numeric column,
        a missing value with ``handle_missing="error"``, an unknown category
        with ``handle_unknown="error"``, no rows left after dropping, or
        invalid arguments. Row-level messages name the file and line.
    """
    path = existing_file(path)
    if handle_missing not in ("drop", "error", "zero"):
        raise ValueError(
            "handle_missing must be 'drop', 'error' or 'zero', got "
            f"{handle_missing!r}."
        )
    if handle_unknown not in ("error", "ignore"):
        raise ValueError(
            f"handle_unknown must be 'error' or 'ignore', got {handle_unknown!r}."
        )
    if not isinstance(skip_rows, (int, np.integer)) or skip_rows < 0:
        raise ValueError(f"skip_rows must be a non-negative integer, got {skip_rows!r}.")
    if missing is None:
        missing_tokens = {""}
    elif isinstance(missing, str):
        missing_tokens = {missing, ""}
    else:
        missing_tokens = set(missing) | {""}

    rows, lines = _read_csv_rows(path, delimiter, int(skip_rows))
    if not rows:
        raise ValueError(f"CSV file {where(path)} is empty (no data rows).")
    n_cols = len(rows[0])
    for fields, ln in zip(rows, lines):
        if len(fields) != n_cols:
            raise ValueError(
                f"Ragged CSV file {where(path, ln)}: expected {n_cols} "
                f"fields (as on line {lines[0]}) but found {len(fields)}."
            )
    if n_cols < 2:
        raise ValueError(
            f"CSV file {where(path)} has a single column with "
            f"delimiter={delimiter!r}: there are no attributes besides the label."
        )

    label_col = _normalize_column(label_column, n_cols, "label_column")
    dropped = {
        _normalize_column(j, n_cols, "drop_columns entry")
        for j in (drop_columns or ())
    }
    if label_col in dropped:
        raise ValueError(f"label_column={label_column} is also in drop_columns.")
    feature_cols = [j for j in range(n_cols) if j != label_col and j not in dropped]
    if not feature_cols:
        raise ValueError(f"No attribute columns left in {where(path)}.")
    if column_names is not None:
        column_names = [str(c) for c in column_names]
        if len(column_names) != n_cols:
            raise ValueError(
                f"column_names has {len(column_names)} entries but the file has "
                f"{n_cols} columns."
            )
    else:
        column_names = [f"x{j}" for j in range(n_cols)]

    fixed = None
    if categories is not None:
        fixed = {}
        for j, values in dict(categories).items():
            jj = _normalize_column(j, n_cols, "categories key")
            fixed[jj] = [str(v) for v in values]
            if len(set(fixed[jj])) != len(fixed[jj]):
                raise ValueError(f"categories[{j}] has duplicate values.")
    forced_nominal = {
        _normalize_column(j, n_cols, "nominal_columns entry")
        for j in (nominal_columns or ())
    }

    # Missing values: drop / error / keep the rows.
    kept_rows, kept_lines, dropped_lines = [], [], []
    for fields, ln in zip(rows, lines):
        label_missing = fields[label_col] in missing_tokens
        bad = [j for j in feature_cols if fields[j] in missing_tokens]
        if label_missing or bad:
            if handle_missing == "error":
                j = label_col if label_missing else bad[0]
                raise ValueError(
                    f"Missing value {fields[j]!r} in {where(path, ln, j)} "
                    "(handle_missing='error')."
                )
            if handle_missing == "drop" or label_missing:
                dropped_lines.append(ln)
                continue
        kept_rows.append(fields)
        kept_lines.append(ln)
    if not kept_rows:
        raise ValueError(
            f"No rows left in {where(path)} after dropping the "
            f"{len(dropped_lines)} rows with missing values."
        )

    # Column types and vocabularies.
    vocab = {}  # nominal column -> list of values
    for j in feature_cols:
        present = [(f[j], ln) for f, ln in zip(kept_rows, kept_lines)
                   if f[j] not in missing_tokens]
        if fixed is not None:
            if j in fixed:
                vocab[j] = fixed[j]
            continue
        if j in forced_nominal:
            vocab[j] = sorted({v for v, _ in present})
            continue
        numeric = [_parse_float(v) is not None for v, _ in present]
        if present and not any(numeric):
            vocab[j] = sorted({v for v, _ in present})
        elif not all(numeric):
            v, ln = present[numeric.index(False)]
            raise ValueError(
                f"Unparseable value {v!r} in {where(path, ln, j)}: the "
                "column is otherwise numeric. Declare the token "
                "with missing=..., or the column with nominal_columns=[...]."
            )

    # Attribute layout.
    feature_names, offsets = [], {}
    for j in feature_cols:
        offsets[j] = len(feature_names)
        if j in vocab:
            feature_names.extend(f"{column_names[j]}={v}" for v in vocab[j])
        else:
            feature_names.append(column_names[j])
    index_of = {j: {v: k for k, v in enumerate(vocab[j])} for j in vocab}

    X = np.zeros((len(kept_rows), len(feature_names)), dtype=np.float64)
    for i, (fields, ln) in enumerate(zip(kept_rows, kept_lines)):
        for j in feature_cols:
            v = fields[j]
            if v in missing_tokens:
                continue  # handle_missing == "zero"
            if j in vocab:
                k = index_of[j].get(v)
                if k is None:
                    if handle_unknown == "error":
                        raise ValueError(
                            f"Unknown category {v!r} in {where(path, ln, j)} "
                            f"(known: {vocab[j]})."
                        )
                    continue
                X[i, offsets[j] + k] = 1.0
            else:
                value = _parse_float(v)
                if value is None:
                    raise ValueError(
                        f"Non-numeric value {v!r} in {where(path, ln, j)}, "
                        "which is a numeric column."
                    )
                X[i, offsets[j]] = value
    y = _labels_array([f[label_col] for f in kept_rows])

    if not return_info:
        return X, y
    info = Bunch(
        feature_names=np.array(feature_names, dtype=str),
        categories={j: list(vocab[j]) for j in vocab},
        numeric_columns=[j for j in feature_cols if j not in vocab],
        nominal_columns=[j for j in feature_cols if j in vocab],
        lines=np.array(kept_lines, dtype=np.int64),
        dropped_lines=np.array(dropped_lines, dtype=np.int64),
    )
    return X, y, info


def read_promoters(path):
    """Read the UCI E. coli promoter file (``class, name, <tabs>sequence``).

    Each sequence becomes ``4 * length`` binary attributes, one per position
    and nucleotide (``a, c, g, t``); the name is dropped.

    Returns
    -------
    X : ndarray of shape (n_samples, 4 * length), float64
    y : ndarray of shape (n_samples,), str
        The class column (``+``/``-``).
    feature_names : list of str
        ``p<position>=<nucleotide>``.

    Raises
    ------
    ValueError
        On an empty file, a line without three fields, or a sequence of
        another length or with another letter; the message names the line.
    """
    rows, lines = _read_csv_rows(path, ",", 0)
    if not rows:
        raise ValueError(f"Promoters file {where(path)} is empty.")
    alphabet = "acgt"
    X, y, length = [], [], None
    for fields, ln in zip(rows, lines):
        if len(fields) != 3:
            raise ValueError(
                f"Promoters file {where(path, ln)}: expected 3 fields "
                f"(class, name, sequence), found {len(fields)}."
            )
        seq = fields[2].lower()
        if length is None:
            length = len(seq)
        if len(seq) != length or set(seq) - set(alphabet):
            raise ValueError(
                f"Promoters file {where(path, ln)}: the sequence must "
                f"have {length} letters from {alphabet!r}, got {seq!r}."
            )
        row = np.zeros((length, len(alphabet)))
        row[np.arange(length), [alphabet.index(c) for c in seq]] = 1.0
        X.append(row.ravel())
        y.append(fields[0])
    names = [f"p{p}={c}" for p in range(length) for c in alphabet]
    return np.array(X, dtype=np.float64), np.array(y, dtype=str), names
