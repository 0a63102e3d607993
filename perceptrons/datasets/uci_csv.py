"""UCI-style CSV files: attribute rows with no header, nominal attributes
one-hot encoded.

* :func:`load_csv`: the general reader. Numeric columns stay numeric, every
  other column is translated to binary indicators as in Khardon & Wachman
  (2007), Sec. 3.1 [KW07]_; missing values (``?``) are dropped, refused or
  filled (zero, mean, mode); errors name the file, line and column.
* :class:`CSVSchema` (:mod:`._csv_schema`): the encoding fitted on a
  training file, applied to a later file (same attributes, no row dropped)
  and saved with a model.
* :func:`read_promoters`: the E. coli promoter sequences (``class, name,
  sequence``), one-hot encoded per nucleotide position.

References
----------
.. [KW07] R. Khardon and G. Wachman. "Noise Tolerant Variants of the
   Perceptron Algorithm". Journal of Machine Learning Research 8, 2007.
   Sec. 3.1 (data sets, nominal-to-binary translation) and Table 1.
"""

import csv

import numpy as np
from sklearn.utils import Bunch

from ._csv_schema import (HANDLE_MISSING, CSVSchema, encode, fit_schema,
                          missing_token_set, parse_float)
from ._files import existing_file, open_data, refuse_binary, unreadable, where

__all__ = ["CSVSchema", "HANDLE_MISSING", "load_csv", "read_promoters"]


def _column_index(j, names, n_cols, what, path):
    """A column given by number (negative from the end) or, if the file has
    a header row, by name; ValueError naming the file otherwise."""
    if not isinstance(j, str):
        return _normalize_column(j, n_cols, what)
    if names is None:
        raise ValueError(
            f"{what}={j!r} names a column, but {where(path)} has no header "
            "row: give the column's number, or force the first row as the "
            "header (header=True, --header).")
    if j not in names:
        raise ValueError(
            f"{what}={j!r} is not a column of {where(path)}; its header names "
            f"{_shown(names)}.")
    return names.index(j)


def _shown(names, limit=20):
    text = ", ".join(repr(n) for n in names[:limit])
    return text + (", ..." if len(names) > limit else "")


def _looks_like_header(rows, missing_tokens, single_row):
    """Whether the first row names the columns.

    It does if none of its fields is a number, and some column whose first
    field is not missing holds numbers in the rows that follow (the first
    1000 of them); a file of nominal columns only cannot tell, and is read
    without a header unless told (``header=True``). With ``single_row``, a
    file of one such row is a header (and no data).
    """
    first = rows[0]
    if any(parse_float(v) is not None for v in first) or all(
            v in missing_tokens for v in first):
        return False
    if len(rows) == 1:
        return single_row
    following = rows[1:1001]
    for j, name in enumerate(first):
        if name in missing_tokens:
            continue
        values = [r[j] for r in following if r[j] not in missing_tokens]
        if values and all(parse_float(v) is not None for v in values):
            return True
    return False


def _header_names(path, fields):
    """The column names of a header row: an empty one is ``x<j>``; two
    columns of one name are refused."""
    names = [f if f else f"x{j}" for j, f in enumerate(fields)]
    seen = set()
    for name in names:
        if name in seen:
            raise ValueError(
                f"CSV file {where(path)} names two columns {name!r} in its "
                "header row; rename one (columns are matched by name).")
        seen.add(name)
    return names


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
    refuse_binary(path)
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


def _file_label_column(path, label_column, n_cols, schema):
    """The file's label column (None: no label), checked against ``schema``."""
    if label_column is None:
        file_label = None
    elif isinstance(label_column, str) and label_column == "auto":
        if schema is None or n_cols == schema.n_columns:
            file_label = -1 if schema is None else schema.label_column
        elif n_cols == schema.n_columns - 1:
            file_label = None  # the training file's columns but the label
        else:
            file_label = -1  # the column count check below explains
    else:
        file_label = label_column
    if file_label is not None:
        file_label = _normalize_column(file_label, n_cols, "label_column")
    if schema is not None:
        expected = schema.n_columns - (file_label is None)
        if n_cols != expected:
            raise ValueError(
                f"CSV file {where(path)} has {n_cols} columns, but the "
                f"training file had {schema.n_columns} (label included): "
                f"expected {schema.n_columns} columns, or "
                f"{schema.n_columns - 1} without a label column.")
    return file_label


def _columns_by_name(path, schema, names, label_column):
    """The training columns in a file with a header row, matched by name.

    Returns
    -------
    to_file : dict of int to int
        Training feature column to the file's column.
    file_label : int or None
    """
    pos = {name: k for k, name in enumerate(names)}
    train = schema.column_names
    if isinstance(label_column, str) and label_column == "auto":
        file_label = pos.get(train[schema.label_column])
    elif label_column is None:
        file_label = None
    else:
        file_label = _column_index(label_column, names, len(names),
                                   "label_column", path)
    missing = [train[j] for j in schema.feature_columns
               if train[j] not in pos]
    known = set(train)
    extra = [n for k, n in enumerate(names) if n not in known
             and k != file_label]
    if missing or extra:
        parts = [f"missing {_shown(missing)}" if missing else "",
                 f"unknown {_shown(extra)}" if extra else ""]
        raise ValueError(
            f"CSV file {where(path)} does not have the training file's "
            f"columns ({'; '.join(p for p in parts if p)}); its columns are "
            "matched by name with the training file's header: "
            f"{_shown(train)}.")
    return {j: pos[train[j]] for j in schema.feature_columns}, file_label


def load_csv(
    path,
    label_column="auto",
    delimiter=None,
    missing="?",
    handle_missing="drop",
    drop_columns=None,
    skip_rows=0,
    nominal_columns=None,
    categories=None,
    handle_unknown="error",
    column_names=None,
    return_info=False,
    schema=None,
    header="auto",
):
    """Load a CSV file, with or without a header row, as numeric features.

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
    are skipped, and a UTF-8 byte-order mark is ignored. Empty fields always
    count as missing.

    A header row is detected (``header="auto"``) when no field of the
    first row is a number while some column holds numbers in the rows that
    follow; its fields name the columns (an empty one ``x<j>``), and a
    column may then be given by name (``label_column="label"``). An empty
    first name is a pandas index (``DataFrame.to_csv`` writes it so): that
    column is dropped. A file of nominal columns only cannot show its header
    this way: pass ``header=True``. A training file of one row with no
    number is a header without data (refused as such), unless
    ``categories`` or ``schema`` make it a test file.

    With ``schema`` (``info.schema`` of a training file) the file is encoded
    as the training file was, and no row is ever dropped: ``X`` has one row
    per data row of the file. If both files have a header row, columns are
    matched by name: reordered columns are mapped, and a missing feature
    column or an unknown column is refused, naming them.

    Parameters
    ----------
    path : str or path-like
        The file; ``.gz``, ``.bz2`` and ``.xz`` are decompressed.
    label_column : int, str, None or "auto", default="auto"
        Index of the label column (negative counts from the end), or its
        name in the header row; None: the file has no label column (``y``
        is None). "auto": -1, or with ``schema`` the training file's label
        column: by name if both files have a header, else if the file has
        as many columns as the training file, and none if it has one fewer.
    delimiter : str, default=None
        Field separator: the schema's, else ``","``.
    missing : str or collection of str or None, default="?"
        Token(s) marking a missing value (in addition to the empty field).
    handle_missing : {"drop", "error", "zero", "mean", "mode"}, default="drop"
        What to do with a row that has a missing value in a used column:
        ``"drop"`` it; raise an ``"error"``; or keep it with the missing
        value replaced: by 0 for a numeric attribute and an all-zero
        indicator block for a nominal one (``"zero"``: the missing value is
        not a category); by the column's mean (numeric) or most frequent
        level (nominal) (``"mean"``); by the most frequent value
        (``"mode"``). Rows whose *label* is missing are dropped unless
        ``"error"``. Khardon & Wachman's Table 1 row counts (e.g. 699 for
        breast-cancer-wisconsin, 32561 for adult) show they kept such rows
        but do not say how they filled them; ``"zero"`` reproduces their
        attribute counts (105 for adult, 46 for crx).
    drop_columns : sequence of int or str, default=None
        Columns to ignore (e.g. an id column), by index (negative from the
        end) or by name.
    skip_rows : int, default=0
        Number of physical lines to skip at the top (e.g. 1 for the
        ``|1x3 Cross validator`` line of ``adult.test``).
    nominal_columns : sequence of int or str, default=None
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
    header : bool or "auto", default="auto"
        Whether the first row (after ``skip_rows``) names the columns;
        "auto" detects it as above (with a ``schema`` whose training file
        had a header, a first row that shares a name with it is one too). A
        column named in ``label_column``, ``drop_columns`` or
        ``nominal_columns`` implies a header.
    schema : CSVSchema, default=None
        Encode the file with a training file's schema; ``missing``,
        ``handle_missing``, ``drop_columns``, ``nominal_columns``,
        ``categories``, ``handle_unknown`` and ``column_names`` must then be
        left at their defaults. Missing values are replaced as the schema
        says (0 or an all-zero block after ``"drop"``/``"error"``), and a
        level the training file did not have gives an all-zero block,
        counted in ``info.unseen``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_attributes), float64
        Numeric attributes and binary indicators.
    y : ndarray of shape (n_samples,) or None
        The label column as in the file: int64 if every label is an integer,
        float64 if every label is a number, strings otherwise; None without
        a label column. With ``schema``, only the rows with a label
        (``info.labelled``).
    info : Bunch, only if ``return_info``
        ``schema`` (:class:`CSVSchema`), ``feature_names`` (ndarray of str),
        ``categories`` (dict column -> list of values), ``numeric_columns``
        and ``nominal_columns`` (original indices), ``lines`` (line number of
        each returned row), ``dropped_lines`` (line numbers of dropped rows),
        ``n_filled`` (rows in which a missing value was replaced),
        ``unseen`` (dict file column -> Counter of values not among the
        levels, with ``schema``), ``labelled`` (boolean mask of the rows
        with a label), ``header`` (whether the first row was read as the
        header) and ``index_column`` (0 if an unnamed first column, a
        pandas index, was dropped, else None).

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        On an empty or binary file, a header row without data rows, a
        column name that is not in the header (or a name without a header),
        two columns of one name, ragged rows, unparseable text, a mixed
        numeric/non-numeric column, a non-numeric value in a numeric column,
        a missing value with ``handle_missing="error"``, an unknown category
        with ``handle_unknown="error"``, no rows left after dropping, a
        column count that does not fit ``schema``, or invalid arguments.
        Row-level messages name the file and line.
    """
    path = existing_file(path)
    if handle_missing not in HANDLE_MISSING:
        raise ValueError(
            f"handle_missing must be one of {', '.join(HANDLE_MISSING)}, got "
            f"{handle_missing!r}."
        )
    if handle_unknown not in ("error", "ignore"):
        raise ValueError(
            f"handle_unknown must be 'error' or 'ignore', got {handle_unknown!r}."
        )
    if not isinstance(skip_rows, (int, np.integer)) or skip_rows < 0:
        raise ValueError(f"skip_rows must be a non-negative integer, got {skip_rows!r}.")
    if schema is not None and (
            missing != "?" or handle_missing != "drop" or drop_columns
            or nominal_columns or categories is not None
            or handle_unknown != "error" or column_names is not None):
        raise ValueError("schema= decides the encoding: leave missing, "
                         "handle_missing, drop_columns, nominal_columns, "
                         "categories, handle_unknown and column_names unset.")
    if delimiter is None:
        delimiter = schema.delimiter if schema is not None else ","

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
    if n_cols < 2 and schema is None:
        raise ValueError(
            f"CSV file {where(path)} has a single column with "
            f"delimiter={delimiter!r}: there are no attributes besides the label."
        )
    named = [c for c in [label_column, *(drop_columns or ()),
                         *(nominal_columns or ()), *(categories or ())]
             if isinstance(c, str) and c != "auto"]
    has_header = _has_header(path, rows, header, named,
                             missing_token_set(missing), schema,
                             training=categories is None)
    names = None
    if has_header:
        names = _header_names(path, rows[0])
        unnamed_first = rows[0][0] == ""
        rows, lines = rows[1:], lines[1:]
        if not rows:
            raise ValueError(f"CSV file {where(path)} has a header row but "
                             "no data rows.")
    if schema is not None:
        to_file = None
        if has_header and schema.header:
            to_file, label_col = _columns_by_name(path, schema, names,
                                                  label_column)
        else:
            if isinstance(label_column, str) and label_column != "auto":
                label_column = _column_index(label_column, names, n_cols,
                                             "label_column", path)
            label_col = _file_label_column(path, label_column, n_cols,
                                           schema)
        return _apply_schema(path, rows, lines, schema, label_col,
                             return_info, to_file, has_header)
    if label_column is None:
        raise ValueError("label_column=None needs a schema: a training file "
                         "has a label column.")
    label_col = _column_index(-1 if label_column == "auto" else label_column,
                              names, n_cols, "label_column", path)

    dropped = {
        _column_index(j, names, n_cols, "drop_columns entry", path)
        for j in (drop_columns or ())
    }
    index_column = None
    if has_header and unnamed_first and label_col != 0:
        # DataFrame.to_csv's index: an unnamed first column.
        index_column = 0
        dropped.add(0)
    if label_col in dropped:
        raise ValueError(f"label_column={label_column!r} is also in "
                         "drop_columns.")
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
        column_names = names or [f"x{j}" for j in range(n_cols)]

    fixed = None
    if categories is not None:
        fixed = {}
        for j, values in dict(categories).items():
            jj = _column_index(j, names, n_cols, "categories key", path)
            fixed[jj] = [str(v) for v in values]
            if len(set(fixed[jj])) != len(fixed[jj]):
                raise ValueError(f"categories[{j}] has duplicate values.")
    forced_nominal = {
        _column_index(j, names, n_cols, "nominal_columns entry", path)
        for j in (nominal_columns or ())
    }
    missing_tokens = missing_token_set(missing)

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

    fitted = fit_schema(
        path, kept_rows, kept_lines, label_col=label_col, dropped=dropped,
        n_cols=n_cols, fixed=fixed, forced_nominal=forced_nominal,
        missing_tokens=missing_tokens, handle_missing=handle_missing,
        delimiter=delimiter, column_names=column_names, header=has_header)
    X, n_filled, _ = encode(
        path, kept_rows, kept_lines, fitted, label_col,
        "error" if handle_unknown == "error" else "count")
    y = _labels_array([f[label_col] for f in kept_rows])
    if not return_info:
        return X, y
    return X, y, _info(fitted, kept_lines, dropped_lines, n_filled, {},
                       np.ones(len(kept_rows), dtype=bool), has_header,
                       index_column)


def _has_header(path, rows, header, named, missing_tokens, schema,
                training):
    """Whether the first row is a header: as told, implied by a column
    given by name, or detected (see :func:`load_csv`). A lone row with no
    number is a header (and no data) only in a ``training`` file: a file
    read with a schema or a vocabulary may be a single row of data."""
    if header is True or header is False:
        if named and not header:
            raise ValueError(
                f"columns given by name ({_shown(named)}) need a header row, "
                f"but header=False for {where(path)}.")
        return header
    if not (isinstance(header, str) and header == "auto"):
        raise ValueError(f"header must be True, False or 'auto', got "
                         f"{header!r}.")
    if named:
        return True
    if schema is None:
        return _looks_like_header(rows, missing_tokens, single_row=training)
    tokens = set(schema.missing) | {""}
    if schema.header and not any(parse_float(v) is not None
                                 for v in rows[0]) and set(
            rows[0]) & set(schema.column_names):
        return True
    return _looks_like_header(rows, tokens, single_row=False)


def _apply_schema(path, rows, lines, schema, label_col, return_info,
                  to_file=None, has_header=False):
    """:func:`load_csv` with a training file's schema: every row kept."""
    X, n_filled, unseen = encode(path, rows, lines, schema, label_col,
                                  "count", to_file)
    labelled = np.ones(len(rows), dtype=bool)
    y = None
    if label_col is not None:
        tokens = set(schema.missing) | {""}
        labels = [f[label_col] for f in rows]
        labelled = np.array([v not in tokens for v in labels], dtype=bool)
        y = _labels_array([v for v in labels if v not in tokens])
    if not return_info:
        return X, y
    return X, y, _info(schema, lines, [], n_filled, unseen, labelled,
                       has_header, None)


def _info(schema, lines, dropped_lines, n_filled, unseen, labelled, header,
          index_column):
    return Bunch(
        schema=schema,
        feature_names=np.array(schema.feature_names(), dtype=str),
        categories={j: list(v) for j, v in schema.categories.items()},
        numeric_columns=list(schema.numeric_columns),
        nominal_columns=sorted(schema.categories),
        lines=np.array(lines, dtype=np.int64),
        dropped_lines=np.array(dropped_lines, dtype=np.int64),
        n_filled=int(n_filled),
        unseen=unseen,
        labelled=labelled,
        header=bool(header),
        index_column=index_column,
    )


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
