"""svmlight / LIBSVM text files: the format of ``a9a``, ``a9a.t`` and ``w8a``.

* :func:`load_svmlight`: a checked wrapper of
  :func:`sklearn.datasets.load_svmlight_file` that rejects what no online
  classifier can use (no examples, ``nan``/``inf``, binary files, indices
  too high to allocate), resolves ``zero_based="auto"`` once and says how,
  and, when the parser fails, reads the file again to name the line and the
  problem;
* :func:`dump_svmlight`: the inverse, one-based as LIBSVM writes.
"""

import math
import os

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file
from sklearn.utils import Bunch

from ._files import (BOM, DECOMPRESS_ERRORS, existing_file, open_data,
                     refuse_binary, where)

__all__ = ["dump_svmlight", "load_svmlight"]


def _diagnose_svmlight(path, zero_based, n_features):
    """Find the first problem in an svmlight file.

    Returns ``(line_number, problem)``; ``line_number`` is ``None`` for
    whole-file problems, and the result is ``None`` if no problem is found.
    """
    n_rows = 0
    min_idx = max_idx = max_line = None
    with open_data(path, text=True) as fh:
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
    msg = f"Malformed svmlight/LIBSVM file {where(path, lineno)}: {problem}"
    if cause is not None:
        msg += f" (parser said: {cause})"
    return ValueError(msg)


def load_svmlight(path, n_features=None, zero_based="auto", *,
                  max_features=None, return_info=False):
    """Load an svmlight / LIBSVM text file.

    A checked wrapper of :func:`sklearn.datasets.load_svmlight_file`: files
    ending in ``.gz``, ``.bz2`` or ``.xz`` are decompressed on the fly, a
    UTF-8 byte-order mark is skipped, and any parsing error is re-raised as
    a :class:`ValueError` that names the file, the offending line and the
    problem. Files the sklearn parser would accept silently but that no
    online classifier can use (no examples, ``nan``/``inf`` values) are
    rejected too, and so are binary files, in one line.

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
        never non-zero; pass the value explicitly when it is known, and pass
        the value a training file resolved to (``info.zero_based``) for its
        test file.
    max_features : int, default=None
        Refuse a file whose highest index needs more columns than this,
        before anything of that size is allocated (a model holds at least
        one float64 weight per column). None: no limit.
    return_info : bool, default=False
        Also return a :class:`~sklearn.utils.Bunch` with ``zero_based``
        (the resolved bool) and ``n_features``.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features), float64
        The examples.
    y : ndarray of shape (n_samples,), float64
        The labels as written in the file.
    info : Bunch, only if ``return_info``

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is malformed (bad ``index:value`` token, non-numeric
        label, index or value, missing label, unsorted or duplicate indices,
        an index beyond ``n_features`` or ``max_features``, non-finite
        values), is empty, is binary, or cannot be decompressed. The message
        names the file and, when the problem is on one line, the line
        number.

    See Also
    --------
    dump_svmlight : the inverse.
    load_named : the paper data sets, with the right ``n_features``.
    """
    path = existing_file(path)
    for name, value in (("n_features", n_features),
                        ("max_features", max_features)):
        if value is not None and (isinstance(value, bool) or not isinstance(
                value, (int, np.integer)) or value < 1):
            raise ValueError(
                f"{name} must be a positive integer or None, got {value!r}.")
    n_features = None if n_features is None else int(n_features)
    if zero_based not in (True, False, "auto"):
        raise ValueError(
            f"zero_based must be True, False or 'auto', got {zero_based!r}."
        )
    refuse_binary(path)

    def diagnose(exc=None):
        try:
            found = _diagnose_svmlight(path, zero_based, n_features)
        except DECOMPRESS_ERRORS + (UnicodeDecodeError,):
            found = None
        lineno, problem = found or (None, "could not be parsed")
        return _svmlight_error(path, problem, lineno, cause=exc)

    # The raw indices are parsed as written (zero-based), so that "auto" is
    # decided here, once, and can be returned to the caller.
    try:
        with open_data(path) as fh:
            if fh.read(len(BOM)) != BOM:
                fh.seek(0)
            X, y = load_svmlight_file(fh, dtype=np.float64, zero_based=True)
    except ValueError as exc:
        raise diagnose(exc) from exc
    except DECOMPRESS_ERRORS as exc:  # (a UnicodeDecodeError is a ValueError)
        raise _svmlight_error(
            path, "could not be read or decompressed", cause=exc
        ) from exc
    if X.shape[0] == 0:
        raise _svmlight_error(path, "the file contains no examples")
    if not (np.isfinite(X.data).all() and np.isfinite(y).all()):
        raise diagnose()

    X = sp.csr_matrix(X, dtype=np.float64)
    has_zero = bool(X.nnz) and int(X.indices.min()) == 0
    if zero_based == "auto":
        zero_based = has_zero
    if not zero_based and has_zero:
        raise diagnose()
    highest = int(X.indices.max()) if X.nnz else -1
    needed = highest + 1 if zero_based else max(highest, 0)
    limit = n_features if n_features is not None else max_features
    if limit is not None and needed > limit:
        raise _svmlight_error(path, _too_wide(highest, needed, n_features,
                                              max_features),
                              _line_of_index(path, highest))
    shape = (X.shape[0], n_features if n_features is not None else needed)
    indices = X.indices if zero_based else X.indices - 1
    X = sp.csr_matrix((X.data, indices.astype(X.indices.dtype), X.indptr),
                      shape=shape)
    X.sort_indices()
    y = np.asarray(y, dtype=np.float64)
    if not return_info:
        return X, y
    return X, y, Bunch(zero_based=bool(zero_based), n_features=shape[1])


def _too_wide(index, needed, n_features, max_features):
    if n_features is not None:
        return (f"feature index {index} is out of range for "
                f"n_features={n_features}")
    return (f"feature index {index} needs {needed:,} features, "
            f"{needed * 8 / 2**30:.1f} GiB per weight vector, over the limit "
            f"of {max_features:,} features (--max-features on the command "
            "line, max_features= in load_svmlight)")


def _line_of_index(path, index):
    """The first line that holds feature index ``index`` (None if unread)."""
    token = f" {index}:".encode()
    try:
        with open_data(path) as fh:
            for lineno, line in enumerate(fh, 1):
                if token in line:
                    return lineno
    except DECOMPRESS_ERRORS:
        pass
    return None


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
