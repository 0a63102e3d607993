"""Loaders for the real benchmark data sets.

Three file formats are read:

* svmlight / LIBSVM text (``a9a``, ``a9a.t``, ``w8a``), through
  :func:`sklearn.datasets.load_svmlight_file`, with errors located to a line;
* UCI-style CSV (no header row), with nominal attributes one-hot encoded as
  in Khardon & Wachman (2007), Sec. 3.1;
* IDX (MNIST) and ``.npz`` (USPS).

:func:`load_named` knows where each paper data set sits in the data folder
(see :func:`perceptrons.datasets.get_data_home`) and how to read it.

References
----------
.. [KW07] R. Khardon and G. Wachman. "Noise Tolerant Variants of the
   Perceptron Algorithm". Journal of Machine Learning Research 8, 2007.
   Sec. 3.1 (data sets, nominal-to-binary translation) and Table 1.
"""

import bz2
import csv
import gzip
import lzma
import math
import os
import zlib
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file
from sklearn.utils import Bunch

from ._home import DATA_HOME_ENV, get_data_home

__all__ = [
    "NAMED_DATASETS",
    "dump_svmlight",
    "load_csv",
    "load_idx",
    "load_named",
    "load_svmlight",
]

# Errors raised by the decompressors on corrupt or truncated input.
_DECOMPRESS_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError)


# --------------------------------------------------------------------------
# File helpers
# --------------------------------------------------------------------------


def _as_path(path):
    return Path(os.fspath(path))


def _check_exists(path):
    if not path.is_file():
        raise FileNotFoundError(f"No such data file: {str(path)!r}.")


def _open_binary(path):
    """Open ``path`` for binary reading, decompressing by its suffix."""
    suffix = path.suffix.lower()
    if suffix == ".gz":
        return gzip.open(path, "rb")
    if suffix == ".bz2":
        return bz2.open(path, "rb")
    if suffix in (".xz", ".lzma"):
        return lzma.open(path, "rb")
    return open(path, "rb")


def _open_text(path):
    """Open ``path`` for text reading (UTF-8), decompressing by its suffix."""
    suffix = path.suffix.lower()
    kw = dict(encoding="utf-8", newline="")
    if suffix == ".gz":
        return gzip.open(path, "rt", **kw)
    if suffix == ".bz2":
        return bz2.open(path, "rt", **kw)
    if suffix in (".xz", ".lzma"):
        return lzma.open(path, "rt", **kw)
    return open(path, "rt", **kw)


def _parse_float(token):
    """``float(token)`` if it is a finite number, else ``None``."""
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


# --------------------------------------------------------------------------
# svmlight / LIBSVM
# --------------------------------------------------------------------------


def _diagnose_svmlight(path, zero_based, n_features):
    """Find the first problem in an svmlight file.

    Returns ``(line_number, problem)``; ``line_number`` is ``None`` for
    whole-file problems, and the result is ``None`` if no problem is found.
    """
    n_rows = 0
    min_idx = max_idx = max_line = None
    with _open_text(path) as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            n_rows += 1
            tokens = line.split()
            label = tokens[0]
            if ":" in label:
                return lineno, (
                    f"missing label: the line starts with {label!r}, which "
                    "looks like an index:value pair"
                )
            try:
                label_value = float(label)
            except ValueError:
                return lineno, f"label {label!r} is not a number"
            if not math.isfinite(label_value):
                return lineno, f"label {label!r} is not finite"
            prev = None
            for tok in tokens[1:]:
                parts = tok.split(":")
                if len(parts) != 2:
                    return lineno, f"bad token {tok!r} (expected index:value)"
                idx_s, val_s = parts
                if idx_s == "qid":
                    try:
                        int(val_s)
                    except ValueError:
                        return lineno, f"query id in {tok!r} is not an integer"
                    continue
                try:
                    idx = int(idx_s)
                except ValueError:
                    return lineno, (
                        f"feature index {idx_s!r} in token {tok!r} is not an "
                        "integer"
                    )
                try:
                    value = float(val_s)
                except ValueError:
                    return lineno, (
                        f"value {val_s!r} in token {tok!r} is not a number"
                    )
                if not math.isfinite(value):
                    return lineno, f"value {val_s!r} in token {tok!r} is not finite"
                if idx < 0:
                    return lineno, f"negative feature index {idx} in token {tok!r}"
                if idx == 0 and zero_based is False:
                    return lineno, (
                        f"feature index 0 in token {tok!r}, but zero_based=False"
                    )
                if prev is not None and idx <= prev:
                    return lineno, (
                        f"feature indices are not sorted and unique ({idx} "
                        f"follows {prev})"
                    )
                prev = idx
                if min_idx is None or idx < min_idx:
                    min_idx = idx
                if max_idx is None or idx > max_idx:
                    max_idx, max_line = idx, lineno
    if n_rows == 0:
        return None, "the file contains no examples"
    if n_features is not None and max_idx is not None:
        if zero_based == "auto":
            offset = 0 if min_idx == 0 else 1
        else:
            offset = 0 if zero_based else 1
        if max_idx - offset >= n_features:
            return max_line, (
                f"feature index {max_idx} is out of range for "
                f"n_features={n_features} (zero_based={zero_based!r})"
            )
    return None


def _svmlight_error(path, problem, lineno=None, cause=None):
    where = f"{str(path)!r}" + (f", line {lineno}" if lineno is not None else "")
    msg = f"Malformed svmlight/LIBSVM file {where}: {problem}"
    if cause is not None:
        msg += f" (parser said: {cause})"
    return ValueError(msg)


def load_svmlight(path, n_features=None, zero_based="auto"):
    """Load an svmlight / LIBSVM text file.

    A checked wrapper of :func:`sklearn.datasets.load_svmlight_file`: files
    ending in ``.gz`` or ``.bz2`` are decompressed on the fly, and any
    parsing error is re-raised as a :class:`ValueError` that names the file,
    the offending line and the problem. Files the sklearn parser would
    accept silently but that no online classifier can use (no examples,
    ``nan``/``inf`` values) are rejected too.

    Parameters
    ----------
    path : str or path-like
        The file, e.g. ``libsvm/a9a.gz``.
    n_features : int, default=None
        Number of columns of ``X``. Pass it when the highest index may be
        absent from a file (e.g. ``a9a.t`` needs ``n_features=123``, so that it
        matches ``a9a``). ``None`` infers it from the highest index present.
    zero_based : bool or "auto", default="auto"
        Whether feature indices start at 0. LIBSVM files are one-based
        (``False``). ``"auto"`` follows sklearn's heuristic (one-based unless
        an index 0 occurs), which shifts a zero-based file whose column 0 is
        never non-zero; pass the value explicitly when it is known.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features), float64
        The examples.
    y : ndarray of shape (n_samples,), float64
        The labels as written in the file.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is malformed (bad ``index:value`` token, non-numeric
        label, index or value, missing label, unsorted or duplicate indices,
        an index beyond ``n_features``, non-finite values), is empty, or
        cannot be decompressed. The message names the file and, when the
        problem is on one line, the line number.

    See Also
    --------
    dump_svmlight : the inverse.
    load_named : the paper data sets, with the right ``n_features``.
    """
    path = _as_path(path)
    _check_exists(path)
    if n_features is not None:
        if isinstance(n_features, bool) or not isinstance(
            n_features, (int, np.integer)
        ) or n_features < 1:
            raise ValueError(
                f"n_features must be a positive integer or None, got {n_features!r}."
            )
        n_features = int(n_features)
    if zero_based not in (True, False, "auto"):
        raise ValueError(
            f"zero_based must be True, False or 'auto', got {zero_based!r}."
        )

    try:
        X, y = load_svmlight_file(
            str(path), n_features=n_features, dtype=np.float64,
            zero_based=zero_based,
        )
    except ValueError as exc:
        try:
            found = _diagnose_svmlight(path, zero_based, n_features)
        except _DECOMPRESS_ERRORS + (UnicodeDecodeError,):
            found = None
        if found is None:
            raise _svmlight_error(path, "could not be parsed", cause=exc) from exc
        lineno, problem = found
        raise _svmlight_error(path, problem, lineno, cause=exc) from exc
    except UnicodeDecodeError as exc:
        raise _svmlight_error(path, "not UTF-8/ASCII text", cause=exc) from exc
    except _DECOMPRESS_ERRORS as exc:
        raise _svmlight_error(
            path, "could not be read or decompressed", cause=exc
        ) from exc

    if X.shape[0] == 0:
        raise _svmlight_error(path, "the file contains no examples")
    if not (np.isfinite(X.data).all() and np.isfinite(y).all()):
        found = _diagnose_svmlight(path, zero_based, n_features)
        lineno, problem = found if found else (None, "non-finite value")
        raise _svmlight_error(path, problem, lineno)
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sort_indices()
    return X, np.asarray(y, dtype=np.float64)


def dump_svmlight(X, y, path, zero_based=False, comment=None):
    """Write ``(X, y)`` as an svmlight / LIBSVM text file.

    A thin wrapper of :func:`sklearn.datasets.dump_svmlight_file` whose
    default is LIBSVM's one-based indexing, so that
    ``load_svmlight(path)`` reads the file back unchanged.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The examples.
    y : array-like of shape (n_samples,)
        The labels.
    path : str or path-like
        Output file (written uncompressed, whatever its suffix).
    zero_based : bool, default=False
        Write indices starting at 0 instead of 1.
    comment : str, default=None
        Written as ``#`` lines at the top of the file.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        If ``X`` and ``y`` have different numbers of rows (raised by sklearn).
    """
    dump_svmlight_file(
        X, np.asarray(y), os.fspath(path), zero_based=zero_based, comment=comment
    )


# --------------------------------------------------------------------------
# UCI CSV
# --------------------------------------------------------------------------


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
        with _open_text(path) as fh:
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
                    f"Unparseable CSV file {str(path)!r}, line "
                    f"{reader.line_num}: {exc}"
                ) from exc
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"Unparseable CSV file {str(path)!r}: not UTF-8/ASCII text ({exc})."
        ) from exc
    except _DECOMPRESS_ERRORS as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise ValueError(
            f"CSV file {str(path)!r} could not be read or decompressed: {exc}"
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
    path = _as_path(path)
    _check_exists(path)
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
        raise ValueError(f"CSV file {str(path)!r} is empty (no data rows).")
    n_cols = len(rows[0])
    for fields, ln in zip(rows, lines):
        if len(fields) != n_cols:
            raise ValueError(
                f"Ragged CSV file {str(path)!r}, line {ln}: expected {n_cols} "
                f"fields (as on line {lines[0]}) but found {len(fields)}."
            )
    if n_cols < 2:
        raise ValueError(
            f"CSV file {str(path)!r} has a single column with "
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
        raise ValueError(f"No attribute columns left in {str(path)!r}.")
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
                    f"Missing value {fields[j]!r} in {str(path)!r}, line {ln}, "
                    f"column {j} (handle_missing='error')."
                )
            if handle_missing == "drop" or label_missing:
                dropped_lines.append(ln)
                continue
        kept_rows.append(fields)
        kept_lines.append(ln)
    if not kept_rows:
        raise ValueError(
            f"No rows left in {str(path)!r} after dropping the "
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
                f"Unparseable value {v!r} in {str(path)!r}, line {ln}, column "
                f"{j}: the column is otherwise numeric. Declare the token "
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
                            f"Unknown category {v!r} in {str(path)!r}, line {ln}, "
                            f"column {j} (known: {vocab[j]})."
                        )
                    continue
                X[i, offsets[j] + k] = 1.0
            else:
                value = _parse_float(v)
                if value is None:
                    raise ValueError(
                        f"Non-numeric value {v!r} in {str(path)!r}, line {ln}, "
                        f"column {j}, which is a numeric column."
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


# --------------------------------------------------------------------------
# IDX (MNIST)
# --------------------------------------------------------------------------

_IDX_DTYPES = {
    0x08: np.dtype(">u1"),
    0x09: np.dtype(">i1"),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}


def load_idx(path):
    """Read an IDX file (the MNIST format), optionally gzip-compressed.

    The header is two zero bytes, a type code, the number of dimensions,
    then one big-endian uint32 per dimension; the data follow.

    Parameters
    ----------
    path : str or path-like
        The file, e.g. ``mnist/train-images-idx3-ubyte.gz``.

    Returns
    -------
    ndarray
        The array with the shape of the header and native byte order
        (``uint8`` for MNIST).

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the magic number is invalid or the payload size does not match
        the header, or the file cannot be decompressed.
    """
    path = _as_path(path)
    _check_exists(path)
    try:
        with _open_binary(path) as fh:
            raw = fh.read()
    except _DECOMPRESS_ERRORS as exc:
        raise ValueError(
            f"IDX file {str(path)!r} could not be read or decompressed: {exc}"
        ) from exc
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_DTYPES:
        raise ValueError(
            f"{str(path)!r} is not an IDX file (bad magic number {raw[:4].hex()!r})."
        )
    dtype, ndim = _IDX_DTYPES[raw[2]], raw[3]
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise ValueError(f"IDX file {str(path)!r} has a truncated header.")
    shape = tuple(int(d) for d in np.frombuffer(raw, ">u4", ndim, 4))
    expected = header + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if len(raw) != expected:
        raise ValueError(
            f"IDX file {str(path)!r}: header shape {shape} needs {expected} "
            f"bytes but the file has {len(raw)}."
        )
    data = np.frombuffer(raw, dtype, offset=header).reshape(shape)
    return data.astype(dtype.newbyteorder("="))


# --------------------------------------------------------------------------
# Named paper data sets
# --------------------------------------------------------------------------

_KW = "Khardon & Wachman (2007), Sec. 3.1 and Table 1"

_LIBSVM = {
    "a9a": ("libsvm/a9a.gz", 123, "LIBSVM 'a9a' (UCI Adult, binarised), training "
            "part: 32,561 x 123, labels -1/+1."),
    "a9a.t": ("libsvm/a9a.t.gz", 123, "LIBSVM 'a9a.t' (UCI Adult, binarised), "
              "test part: 16,281 x 123 (highest index present is 122), labels "
              "-1/+1."),
    "w8a": ("libsvm/w8a.gz", 300, "LIBSVM 'w8a' (Platt's web data), training "
            "part: 49,749 x 300, labels -1/+1; some rows have no features."),
}

_UCI = {
    "breast-cancer-wisconsin": dict(
        file="uci/breast-cancer-wisconsin.data", label_column=-1,
        drop_columns=[0],
        descr="UCI Breast Cancer Wisconsin (original): 699 rows, id + 9 "
              "integer attributes (1-10) + class (2 benign / 4 malignant); 16 "
              "'?' in column 6 (bare nuclei). K&W Table 1: 9 features, 699 "
              "examples, baseline 65.5."),
    "bupa": dict(
        file="uci/bupa.data", label_column=-1,
        descr="UCI Liver Disorders (BUPA): 345 rows, 6 numeric attributes; "
              "the label is the 7th column, the 'selector' (1: 145 / 2: 200), "
              "used as the class by convention. K&W Table 1: 6 features, 345 "
              "examples, baseline 58."),
    "wdbc": dict(
        file="uci/wdbc.data", label_column=1, drop_columns=[0],
        descr="UCI Wisconsin Diagnostic Breast Cancer: 569 rows, id, "
              "diagnosis (M 212 / B 357), 30 real attributes. K&W Table 1: 30 "
              "features, 569 examples, baseline 62.7."),
    "wpbc": dict(
        file="uci/wpbc.data", label_column=1, drop_columns=[0],
        descr="UCI Wisconsin Prognostic Breast Cancer: 198 rows, id, outcome "
              "(N 151 / R 47), 33 attributes (time, 30 cell features, tumour "
              "size, lymph-node status); 4 '?' in lymph-node status. K&W "
              "Table 1: 33 features, 198 examples, baseline 76.3."),
    "crx": dict(
        file="uci/crx.data", label_column=-1,
        descr="UCI Credit Approval: 690 rows, 15 attributes (6 numeric, 9 "
              "nominal, one-hot encoded into 46 attributes), class +/-; 37 "
              "rows contain '?'. K&W Table 1: 46 features, 690 examples, "
              "baseline 55.5."),
    "ionosphere": dict(
        file="uci/ionosphere.data", label_column=-1,
        descr="UCI Ionosphere: 351 rows, 34 numeric attributes (column 1 is "
              "constant 0), class g 225 / b 126. K&W Table 1: 34 features, "
              "351 examples, baseline 64.4."),
    "sonar": dict(
        file="uci/sonar.all-data", label_column=-1,
        descr="UCI Connectionist Bench (Sonar, Mines vs. Rocks): 208 rows, 60 "
              "numeric attributes in [0, 1], class M 111 / R 97. K&W Table 1 "
              "('sonar.all-data'): 60 features, 208 examples, baseline 53.4."),
}

_ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education-num",
    "marital-status", "occupation", "relationship", "race", "sex",
    "capital-gain", "capital-loss", "hours-per-week", "native-country",
    "income",
]

_OTHER = {
    "promoters": "UCI E. coli promoter gene sequences: 106 rows (+ 53 / - 53), "
                 "each a 57-nucleotide sequence one-hot encoded per position "
                 "over (a, c, g, t): 228 binary attributes. Format: "
                 "'class,name,<TAB><TAB>sequence'; the name is dropped.",
    "adult": "UCI Adult: training file adult.data (32,561 rows) and test file "
             "adult.test (16,281 rows; its first line '|1x3 Cross validator' "
             "is skipped and the trailing '.' of its labels removed); 6 "
             "numeric and 8 nominal attributes, the nominal ones one-hot "
             "encoded with the training vocabulary. Labels '<=50K' / '>50K'. "
             "K&W Table 1: 105 features, 32561 examples, baseline 75.9 "
             "(reproduced with handle_missing='zero'; with the default 'drop', "
             "30,162 training rows and 104 attributes remain).",
    "mnist": "MNIST handwritten digits (LeCun, Cortes, Burges): 60,000 "
             "training and 10,000 test 28x28 images as rows of 784 float64 "
             "pixel values in 0..255, labels 0-9. K&W use the 60000/10000 "
             "split.",
    "usps": "USPS handwritten digits (Hull 1994, as distributed with ESL), "
            "from usps.npz: 7,291 training and 2,007 test 16x16 images as "
            "rows of 256 float64 values in [0, 1] (= (ESL value + 1) / 2), "
            "labels 0-9. K&W use the 7291/2007 split.",
}

#: Names accepted by :func:`load_named`.
NAMED_DATASETS = tuple(
    sorted([*_LIBSVM, *_UCI, "promoters", "adult", "mnist", "usps"])
)


def _data_file(home, relative):
    path = home / relative
    if not path.is_file():
        raise FileNotFoundError(
            f"Data file {str(path)!r} not found. The data folder in use is "
            f"{str(home)!r}; point the {DATA_HOME_ENV} environment variable "
            "(or data_home=...) at the folder that holds MANIFEST.md."
        )
    return path


def _descr(name, text, files):
    listed = ", ".join(files)
    return (
        f"{name}\n{'=' * len(name)}\n\n{text}\n\nFiles: {listed} (see the data "
        f"folder's MANIFEST.md for origins and checksums).\nUsed in: {_KW}."
    )


def _load_promoters(path):
    rows, lines = _read_csv_rows(path, ",", 0)
    if not rows:
        raise ValueError(f"Promoters file {str(path)!r} is empty.")
    alphabet = "acgt"
    X, y, length = [], [], None
    for fields, ln in zip(rows, lines):
        if len(fields) != 3:
            raise ValueError(
                f"Promoters file {str(path)!r}, line {ln}: expected 3 fields "
                f"(class, name, sequence), found {len(fields)}."
            )
        seq = fields[2].lower()
        if length is None:
            length = len(seq)
        if len(seq) != length or set(seq) - set(alphabet):
            raise ValueError(
                f"Promoters file {str(path)!r}, line {ln}: the sequence must "
                f"have {length} letters from {alphabet!r}, got {seq!r}."
            )
        row = np.zeros((length, len(alphabet)))
        row[np.arange(length), [alphabet.index(c) for c in seq]] = 1.0
        X.append(row.ravel())
        y.append(fields[0])
    names = [f"p{p}={c}" for p in range(length) for c in alphabet]
    return np.array(X, dtype=np.float64), np.array(y, dtype=str), names


def load_named(name, data_home=None, *, handle_missing="drop"):
    """Load one of the paper benchmark data sets from the data folder.

    The files are read in place from the folder given by
    :func:`~perceptrons.datasets.get_data_home`; see its ``MANIFEST.md`` for
    origins and checksums.

    ============================  ===========================================
    name                          contents
    ============================  ===========================================
    ``a9a``, ``a9a.t``            LIBSVM, CSR, 123 features, y in {-1, +1}
    ``w8a``                       LIBSVM, CSR, 300 features, y in {-1, +1}
    ``breast-cancer-wisconsin``   id dropped, 9 attributes, y in {2, 4}
    ``bupa``                      6 attributes, y = "selector" in {1, 2}
    ``wdbc``, ``wpbc``            id dropped, y = column 1 ('M'/'B', 'N'/'R')
    ``crx``                       nominal attributes one-hot (46), y '+'/'-'
    ``ionosphere``, ``sonar``     34 / 60 numeric attributes, y string
    ``promoters``                 57 nucleotides one-hot (228), y '+'/'-'
    ``adult``                     train/test, nominal one-hot, y '<=50K'/'>50K'
    ``mnist``                     train 60000 / test 10000, 784 pixels 0..255
    ``usps``                      train 7291 / test 2007, 256 pixels in [0, 1]
    ============================  ===========================================

    Nominal attributes are translated to binary indicators as in Khardon &
    Wachman (2007), Sec. 3.1; the UCI labels are returned as in the file
    (map them to {-1, +1} as the experiment requires).

    Parameters
    ----------
    name : str
        One of :data:`NAMED_DATASETS` (case-insensitive).
    data_home : str or path-like, default=None
        The data folder; see :func:`~perceptrons.datasets.get_data_home`.
    handle_missing : {"drop", "error", "zero"}, default="drop"
        For the UCI CSV sets: what to do with rows holding a ``?``; see
        :func:`load_csv`. Khardon & Wachman's Table 1 counts (699, 690, 198,
        32561 rows) correspond to ``"zero"``. Ignored by the other sets.

    Returns
    -------
    Bunch
        Single-file sets: ``X`` (CSR for LIBSVM, else dense float64),
        ``y``, ``feature_names`` (CSV sets), ``DESCR``, ``filename``, ``name``.
        ``adult``, ``mnist`` and ``usps``: ``X_train``, ``y_train``,
        ``X_test``, ``y_test`` (dense float64 / labels), ``DESCR``,
        ``filenames``, ``name`` (and ``feature_names`` for ``adult``).

    Raises
    ------
    ValueError
        If ``name`` is unknown (the message lists the known names) or a file
        is malformed.
    FileNotFoundError
        If the data folder or a data file is missing; the message names the
        path and the ``PERCEPTRONS_DATA`` variable.

    Examples
    --------
    >>> from perceptrons.datasets import load_named
    >>> wdbc = load_named("wdbc")  # doctest: +SKIP
    >>> wdbc.X.shape  # doctest: +SKIP
    (569, 30)
    """
    if not isinstance(name, str) or name.lower() not in NAMED_DATASETS:
        raise ValueError(
            f"Unknown data set {name!r}; known names: {', '.join(NAMED_DATASETS)}."
        )
    name = name.lower()
    home = get_data_home(data_home)

    if name in _LIBSVM:
        relative, n_features, text = _LIBSVM[name]
        path = _data_file(home, relative)
        X, y = load_svmlight(path, n_features=n_features, zero_based=False)
        return Bunch(X=X, y=y, DESCR=_descr(name, text, [relative]),
                     filename=str(path), name=name)

    if name in _UCI:
        spec = _UCI[name]
        path = _data_file(home, spec["file"])
        X, y, info = load_csv(
            path, label_column=spec["label_column"],
            drop_columns=spec.get("drop_columns"),
            handle_missing=handle_missing, return_info=True,
        )
        return Bunch(X=X, y=y, feature_names=info.feature_names,
                     DESCR=_descr(name, spec["descr"], [spec["file"]]),
                     filename=str(path), name=name)

    if name == "promoters":
        relative = "uci/promoters.data"
        path = _data_file(home, relative)
        X, y, names = _load_promoters(path)
        return Bunch(X=X, y=y, feature_names=np.array(names, dtype=str),
                     DESCR=_descr(name, _OTHER[name], [relative]),
                     filename=str(path), name=name)

    if name == "adult":
        files = ["uci/adult.data.gz", "uci/adult.test.gz"]
        train, test = (_data_file(home, f) for f in files)
        X_train, y_train, info = load_csv(
            train, label_column=-1, handle_missing=handle_missing,
            column_names=_ADULT_COLUMNS, return_info=True,
        )
        X_test, y_test = load_csv(
            test, label_column=-1, handle_missing=handle_missing,
            skip_rows=1, categories=info.categories,
            column_names=_ADULT_COLUMNS,
        )
        y_test = np.char.rstrip(y_test, ".")
        return Bunch(X_train=X_train, y_train=y_train, X_test=X_test,
                     y_test=y_test, feature_names=info.feature_names,
                     DESCR=_descr(name, _OTHER[name], files),
                     filenames=[str(train), str(test)], name=name)

    if name == "mnist":
        files = [f"mnist/{p}-{k}-idx{d}-ubyte.gz"
                 for p in ("train", "t10k")
                 for k, d in (("images", 3), ("labels", 1))]
        paths = [_data_file(home, f) for f in files]
        arrays = [load_idx(p) for p in paths]
        X_train, y_train, X_test, y_test = arrays
        for X, y, f in ((X_train, y_train, files[0]), (X_test, y_test, files[2])):
            if X.ndim != 3 or y.ndim != 1 or X.shape[0] != y.shape[0]:
                raise ValueError(
                    f"MNIST files disagree: {f} has shape {X.shape}, its "
                    f"labels {y.shape}."
                )
        return Bunch(
            X_train=X_train.reshape(len(X_train), -1).astype(np.float64),
            y_train=y_train.astype(np.int64),
            X_test=X_test.reshape(len(X_test), -1).astype(np.float64),
            y_test=y_test.astype(np.int64),
            image_shape=X_train.shape[1:],
            DESCR=_descr(name, _OTHER[name], files),
            filenames=[str(p) for p in paths], name=name,
        )

    # name == "usps"
    relative = "usps/usps.npz"
    path = _data_file(home, relative)
    with np.load(path) as npz:
        keys = {"X_train", "y_train", "X_test", "y_test"}
        if not keys <= set(npz.files):
            raise ValueError(
                f"{str(path)!r} lacks the arrays {sorted(keys - set(npz.files))} "
                f"(it has {npz.files})."
            )
        arrays = {k: npz[k] for k in keys}
    return Bunch(
        X_train=arrays["X_train"].reshape(len(arrays["X_train"]), -1).astype(np.float64),
        y_train=arrays["y_train"].astype(np.int64),
        X_test=arrays["X_test"].reshape(len(arrays["X_test"]), -1).astype(np.float64),
        y_test=arrays["y_test"].astype(np.int64),
        image_shape=(16, 16),
        DESCR=_descr(name, _OTHER[name], [relative]),
        filename=str(path), name=name,
    )
