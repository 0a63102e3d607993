"""svmlight / LIBSVM text parsed a byte chunk at a time (out-of-core input).

:func:`parse_svmlight_chunk` turns whole lines of svmlight text into CSR
arrays with a compiled single pass over the bytes
(:func:`perceptrons._loops.svmlight_text.parse_svmlight_lines`), and gives
the same result as scikit-learn's reader,
``sklearn.datasets.load_svmlight_file(io.BytesIO(buf), zero_based=True,
dtype=np.float64)``, which is the correctness oracle: the same rows, the
same labels, indices and values bit for bit, and an error wherever that
reader raises one. Two things are stricter: ``nan``/``inf`` labels or values
are refused (as :func:`~perceptrons.datasets.load_svmlight` refuses them),
and an index too large for the C ``int`` of scikit-learn's reader (which
raises ``OverflowError``) is a :class:`ValueError` here.

Numbers: scikit-learn converts every label and value with ``float(token)``
compiled by Cython, which reads the token with CPython's correctly rounded
``PyOS_string_to_double`` (David Gay's ``strtod``), so each value is the
float64 nearest to the decimal. The compiled pass computes a plain decimal
token (``1``, ``-0.5``, ``1.``, ``.5``, ``+3``, ``1e5``, ``1E-3``, leading
zeros) only where Clinger's fast path makes the result exact: at most 18
significant digits, a mantissa ``m <= 2**53`` and a decimal exponent ``e``
within ±22, where ``m * 10**e`` or ``m / 10**e`` with an exactly
representable power of ten is one correctly rounded IEEE operation (plus
the usual extension ``(m * 10**k) * 1e22`` while ``m * 10**k <= 2**53``).
Every other number token (long mantissas such as ``repr`` or ``%.17g``
output, subnormals, big exponents, ``inf``, ``nan``, ``1_000``, anything
odd) is recorded by its byte span and converted here with Python's
``float`` (:func:`_sklearn_float`, which also copies how Cython's
conversion treats a few tokens with underscores, such as ``1e-_3``), so
the result is always exact and a token scikit-learn rejects is rejected. A
line the compiled pass leaves alone (a NUL byte, an odd or bad index,
unsorted indices, a missing ``:``) is read by :func:`_read_line`, a
line-for-line transcription of scikit-learn's loop
(``_svmlight_format_fast.pyx``): it appends the row or raises the error.
On a9a-shaped text this reads over 200 MB/s, some 15 times
scikit-learn's reader (``benchmarks/bench_svmlight_parser.py``).

What scikit-learn's reader (1.9) accepts and rejects, and so this one:

* lines end at ``\\n``; tokens are split at ASCII whitespace (space, tab,
  ``\\r``, ``\\v``, ``\\f``): ``\\r\\n`` line ends, tabs and runs of spaces
  are fine, and a lone ``\\r`` joins two lines into one (usually an error);
* ``#`` starts a comment anywhere, even inside a token (``1 3:1#x``), unless
  a NUL byte comes before it on the line (C ``strchr``); blank and
  comment-only lines are no rows; a line with only a label is a row with no
  nonzeros; the last line may lack its ``\\n``; no lines at all give no rows;
* labels and values: anything Python's ``float`` reads (``1_0``,
  ``Infinity``, ``-0``, ``1e-400`` as 0.0; not hex floats, not ``1e`` or
  ``.``), and a few more with underscores (``1e-_3``, see
  :func:`_sklearn_float`);
* a first feature token that starts with ``qid`` and holds a ``:`` is
  ignored whatever its value (``qid:abc``, ``qidx:1``); ``qid`` with no
  ``:`` or a ``qid:`` token later on the line is an error;
* indices: anything Python's ``int`` reads in base 10 (``+3``, ``03``,
  ``-0``, ``1_0``), in ``[0, 2**31)``, strictly increasing along a line
  (unsorted and repeated indices are errors); index 0 is fine (zero-based);
* errors: a token without ``:``, an empty index or value (``:1``, ``3:``,
  ``3: 1``), a non-number label (including ``1:2`` as a label: a missing
  label), non-number values (``2:3`` in ``1:2:3``), a UTF-8 byte-order mark
  (it is part of the first label).
"""

import math

import numpy as np

from .._loops.svmlight_text import (
    STATUS_DONE,
    STATUS_GROW_NNZ,
    STATUS_GROW_ROWS,
    STATUS_GROW_SLOW,
    count_lines_and_colons,
    find_line_end,
    find_line_start,
    parse_svmlight_lines,
)
from ._files import where

__all__ = ["ChunkArrays", "parse_svmlight_chunk"]

#: The largest index scikit-learn's reader can store (a C ``int``).
INDEX_MAX = 2**31 - 1
#: Characters of the offending line quoted in an error message.
_SHOWN = 80
_SLOW_CAPACITY = 1024


class ChunkArrays:
    """The rows of one chunk, indices as written (not shifted).

    Attributes
    ----------
    labels : ndarray of shape (n_rows,), float64
    indptr : ndarray of shape (n_rows + 1,), int64
    indices : ndarray of shape (nnz,), int64, as written in the file
    data : ndarray of shape (nnz,), float64
    n_lines : int
        Lines the chunk spans (so that a reader can number the next chunk's).
    """

    def __init__(self, labels, indptr, indices, data, n_lines):
        self.labels = labels
        self.indptr = indptr
        self.indices = indices
        self.data = data
        self.n_lines = n_lines


class _BadLine(Exception):
    """A line scikit-learn's reader would refuse (or a non-finite number)."""


def _show(token):
    """``token`` (bytes) quoted for a message: its text if UTF-8, else the
    bytes with escapes."""
    try:
        return repr(token.decode("utf-8"))
    except UnicodeDecodeError:
        return repr(token)[1:]


_PUNCTUATION = frozenset(b"_.eE")
_NUMBER_START = frozenset(b"0123456789.")


def _sklearn_float(token):
    """``float(token)`` as scikit-learn's compiled reader computes it.

    Its ``float(value)`` on bytes is Cython's conversion
    (``__Pyx__PyBytes_AsDouble``, Cython 3), which agrees with Python's
    ``float`` except on underscores: for a token that starts (after a sign)
    with a digit or ``.``, it drops every ``_`` unless one of ``_ . e E``
    follows another (or opens or ends the token) and reads the rest with
    ``strtod``, so it also accepts ``1e-_3`` (0.001), which Python refuses.
    Anything it cannot read goes to Python's ``float``.

    Raises
    ------
    ValueError
        Where scikit-learn's reader raises.
    """
    try:
        return float(token)
    except ValueError:
        if b"_" not in token:
            raise
    body = token[1:] if token[:1] in (b"+", b"-") else token
    if not body or body[0] not in _NUMBER_START:
        raise ValueError(f"could not convert {token!r} to float")
    copy = bytearray()
    after_punctuation = True
    for ch in token:
        punctuation = ch in _PUNCTUATION
        if punctuation and after_punctuation:
            raise ValueError(f"could not convert {token!r} to float")
        after_punctuation = punctuation
        if ch != 95:  # "_"
            copy.append(ch)
    if after_punctuation:
        raise ValueError(f"could not convert {token!r} to float")
    return float(bytes(copy))


def _read_line(line):
    """One line, read exactly as scikit-learn's loop reads it.

    Parameters
    ----------
    line : bytes
        The line, with or without its ``\\n``.

    Returns
    -------
    None or (label, indices, values)
        None for a blank or comment-only line.

    Raises
    ------
    _BadLine
        Where scikit-learn raises (the first problem in its order), and on a
        ``nan``/``inf`` label or value.
    """
    nul = line.find(b"\0")
    hash_ = line.find(b"#")
    if hash_ >= 0 and (nul < 0 or hash_ < nul):  # strchr stops at NUL
        line = line[:hash_]
    parts = line.split()
    if not parts:
        return None
    target = parts[0]
    try:
        label = _sklearn_float(target)
    except ValueError:
        if b":" in target:
            raise _BadLine(
                f"missing label: the line starts with {_show(target)}, "
                "which looks like an index:value pair") from None
        raise _BadLine(f"label {_show(target)} is not a number") from None
    if not math.isfinite(label):
        raise _BadLine(f"label {_show(target)} is not finite")
    features = parts[1:]
    if features and features[0].startswith(b"qid"):
        if b":" not in features[0]:
            raise _BadLine(f"bad token {_show(features[0])} (expected "
                           "qid:value or index:value)")
        features = features[1:]
    indices, values = [], []
    prev = -1
    for tok in features:
        if b":" not in tok:
            raise _BadLine(f"bad token {_show(tok)} (expected index:value)")
        idx_s, val_s = tok.split(b":", 1)
        try:
            idx = int(idx_s)
        except ValueError:
            raise _BadLine(f"feature index {_show(idx_s)} in token "
                           f"{_show(tok)} is not an integer") from None
        if idx < 0:
            raise _BadLine(f"negative feature index {idx} in token "
                           f"{_show(tok)}")
        if idx > INDEX_MAX:
            raise _BadLine(f"feature index {idx} in token {_show(tok)} is "
                           f"too large (scikit-learn's reader stores indices "
                           f"as C int, at most {INDEX_MAX})")
        if idx <= prev:
            raise _BadLine(f"feature indices are not sorted and unique ({idx} "
                           f"follows {prev})")
        try:
            value = _sklearn_float(val_s)
        except ValueError:
            if b":" in val_s:
                raise _BadLine(f"bad token {_show(tok)} (expected "
                               "index:value)") from None
            raise _BadLine(f"value {_show(val_s)} in token {_show(tok)} "
                           "is not a number") from None
        if not math.isfinite(value):
            raise _BadLine(f"value {_show(val_s)} in token {_show(tok)} "
                           "is not finite")
        indices.append(idx)
        values.append(value)
        prev = idx
    return label, indices, values


def _byte_array(buf):
    """``buf`` as a 1-D contiguous uint8 array, without a copy if possible."""
    if isinstance(buf, np.ndarray):
        if buf.dtype != np.uint8:
            raise TypeError(
                f"buf must hold uint8 bytes, got dtype {buf.dtype}")
        return np.ascontiguousarray(buf).reshape(-1)
    return np.frombuffer(buf, dtype=np.uint8)


def _grown(a, used, size):
    """A copy of ``a`` with room for ``size`` items (the first ``used``
    copied)."""
    out = np.empty(size, dtype=a.dtype)
    out[:used] = a[:used]
    return out


def _trimmed(a, used):
    """``a[:used]``, copied when that leaves most of ``a`` unused."""
    return a[:used].copy() if 2 * used < a.shape[0] else a[:used]


class _Chunk:
    """What the compiled pass fills, and where it stands."""

    def __init__(self, arr):
        n_newlines, n_colons = count_lines_and_colons(arr)
        # every row ends at a "\n" or at the end; every nonzero holds a ":"
        self.labels = np.empty(n_newlines + 1, dtype=np.float64)
        self.indptr = np.empty(n_newlines + 2, dtype=np.int64)
        self.indptr[0] = 0
        self.indices = np.empty(n_colons, dtype=np.int64)
        self.data = np.empty(n_colons, dtype=np.float64)
        self.slow_at = np.empty(_SLOW_CAPACITY, dtype=np.int64)
        self.slow_start = np.empty(_SLOW_CAPACITY, dtype=np.int64)
        self.slow_end = np.empty(_SLOW_CAPACITY, dtype=np.int64)
        self.pos = self.line_no = self.n_rows = self.nnz = self.n_slow = 0

    def run(self, arr):
        """Run the compiled pass from the current position; returns its
        status."""
        (status, self.pos, self.line_no, self.n_rows, self.nnz,
         self.n_slow) = parse_svmlight_lines(
            arr, self.pos, self.line_no, self.labels, self.indptr,
            self.indices, self.data, self.n_rows, self.nnz, self.slow_at,
            self.slow_start, self.slow_end, self.n_slow)
        return status

    def grow(self, status, extra=1):
        """Make room for ``extra`` more rows, nonzeros or slow tokens
        (``status`` says which), at least doubling."""
        if status == STATUS_GROW_ROWS:
            size = max(self.n_rows + extra, 2 * self.labels.shape[0], 16)
            self.labels = _grown(self.labels, self.n_rows, size)
            self.indptr = _grown(self.indptr, self.n_rows + 1, size + 1)
        elif status == STATUS_GROW_NNZ:
            size = max(self.nnz + extra, 2 * self.data.shape[0], 16)
            self.indices = _grown(self.indices, self.nnz, size)
            self.data = _grown(self.data, self.nnz, size)
        else:
            size = max(self.n_slow + extra, 2 * self.slow_at.shape[0], 16)
            self.slow_at = _grown(self.slow_at, self.n_slow, size)
            self.slow_start = _grown(self.slow_start, self.n_slow, size)
            self.slow_end = _grown(self.slow_end, self.n_slow, size)

    def append(self, label, indices, values):
        """Add a row read in Python."""
        k = len(indices)
        if self.n_rows >= self.labels.shape[0]:
            self.grow(STATUS_GROW_ROWS)
        if self.nnz + k > self.data.shape[0]:
            self.grow(STATUS_GROW_NNZ, k)
        self.labels[self.n_rows] = label
        self.indices[self.nnz:self.nnz + k] = indices
        self.data[self.nnz:self.nnz + k] = values
        self.nnz += k
        self.n_rows += 1
        self.indptr[self.n_rows] = self.nnz


def _slow_values(arr, raw, chunk):
    """Convert the recorded slow tokens with ``float`` and store them.

    Returns
    -------
    None, or the start of the first token that ``float`` rejects or reads as
    non-finite (nothing is stored then).
    """
    n = chunk.n_slow
    if n == 0:
        return None
    starts = chunk.slow_start[:n].tolist()
    ends = chunk.slow_end[:n].tolist()
    values = []
    try:
        for s, e in zip(starts, ends):
            values.append(float(raw[s:e]))
    except ValueError:
        # rare: Python's float refused a token; scikit-learn's may not
        try:
            for s, e in zip(starts[len(values):], ends[len(values):]):
                values.append(_sklearn_float(bytes(raw[s:e])))
        except ValueError:
            return starts[len(values)]
    values = np.array(values, dtype=np.float64)
    finite = np.isfinite(values)
    if not finite.all():
        return starts[int(np.argmin(finite))]
    at = chunk.slow_at[:n]
    in_data = at >= 0
    chunk.data[at[in_data]] = values[in_data]
    chunk.labels[-1 - at[~in_data]] = values[~in_data]
    return None


def _line_error(arr, line_start, path, offset, first_line, problem):
    """The ValueError for the line that starts at ``line_start`` in ``arr``."""
    line_no = int(np.count_nonzero(arr[:line_start] == 10))
    line = arr[line_start:find_line_end(arr, line_start)].tobytes()
    line = line.rstrip(b"\r")
    text = _show(line[:_SHOWN]) + ("..." if len(line) > _SHOWN else "")
    place = (f"file {where(path, first_line + line_no)}" if path is not None
             else f"text, line {first_line + line_no}")
    return ValueError(
        f"Malformed svmlight/LIBSVM {place} (byte offset "
        f"{offset + line_start}): {problem}; the line reads {text}")


def _bad_line_error(arr, line_start, path, offset, first_line, fallback):
    """Read the line at ``line_start`` as scikit-learn would, for its
    problem in words (``fallback`` if, unexpectedly, none is found)."""
    line = arr[line_start:find_line_end(arr, line_start)].tobytes()
    try:
        _read_line(line)
        problem = fallback
    except _BadLine as bad:
        problem = str(bad)
    return _line_error(arr, line_start, path, offset, first_line, problem)


def parse_svmlight_chunk(buf, *, path=None, offset=0, first_line=1):
    """Parse whole lines of svmlight text.

    The result equals that of ``sklearn.datasets.load_svmlight_file(
    io.BytesIO(bytes(buf)), zero_based=True, dtype=np.float64)`` bit for bit
    (labels, ``X.indptr``, ``X.indices``, ``X.data``); a chunk that reader
    refuses is refused (see the module docstring for the grammar, the fast
    path and its exact fallback).

    Parameters
    ----------
    buf : bytes, bytearray, memoryview or ndarray of uint8
        Whole lines (the last may lack its newline).
    path : str, default=None
        The file, for error messages.
    offset : int, default=0
        Byte offset of ``buf`` in the file, for error messages.
    first_line : int, default=1
        Line number of ``buf``'s first line, for error messages.

    Returns
    -------
    ChunkArrays
        ``n_lines`` is the number of ``\\n`` bytes in ``buf``.

    Raises
    ------
    ValueError
        On a malformed line (what scikit-learn's reader rejects, plus
        ``nan``/``inf`` labels or values and indices over ``2**31 - 1``),
        naming the file, the byte offset and line number of the first such
        line, the line (up to 80 characters) and the problem.
    """
    arr = _byte_array(buf)
    raw = buf if isinstance(buf, (bytes, bytearray)) else None
    chunk = _Chunk(arr)
    while True:
        status = chunk.run(arr)
        if status == STATUS_DONE:
            break
        if status in (STATUS_GROW_ROWS, STATUS_GROW_NNZ, STATUS_GROW_SLOW):
            chunk.grow(status)
            continue
        # STATUS_LINE: a line for the Python reader
        start = chunk.pos
        stop = find_line_end(arr, start)
        try:
            row = _read_line(arr[start:stop].tobytes())
        except _BadLine as bad:
            raise _first_error(arr, raw, chunk, path, offset, first_line,
                               start, str(bad)) from None
        if row is not None:
            chunk.append(*row)
        if stop < arr.shape[0]:
            chunk.pos = stop + 1
            chunk.line_no += 1
        else:
            chunk.pos = stop
    if chunk.n_slow:
        if raw is None:
            raw = arr.tobytes()
        bad_at = _slow_values(arr, raw, chunk)
        if bad_at is not None:
            raise _bad_line_error(arr, find_line_start(arr, bad_at), path,
                                  offset, first_line,
                                  "a number could not be read")
    n_rows, nnz = chunk.n_rows, chunk.nnz
    return ChunkArrays(_trimmed(chunk.labels, n_rows),
                       _trimmed(chunk.indptr, n_rows + 1),
                       _trimmed(chunk.indices, nnz),
                       _trimmed(chunk.data, nnz), chunk.line_no)


def _first_error(arr, raw, chunk, path, offset, first_line, line_start,
                 problem):
    """The error of the bad line at ``line_start``, unless a slow token on an
    earlier line is bad: then that line's (scikit-learn stops at the first
    bad line)."""
    if chunk.n_slow:
        bad_at = _slow_values(arr, raw if raw is not None else arr.tobytes(),
                              chunk)
        if bad_at is not None:
            return _bad_line_error(arr, find_line_start(arr, bad_at), path,
                                   offset, first_line,
                                   "a number could not be read")
    return _line_error(arr, line_start, path, offset, first_line, problem)
