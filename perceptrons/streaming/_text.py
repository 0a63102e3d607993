"""The text of an svmlight file as checked blocks of rows: byte chunks cut at
line boundaries, each parsed, its indices and labels checked (errors name
the line), and what a pass over them finds (see
:mod:`perceptrons.streaming` for the chunking rule and the memory bound).
"""

import numpy as np
import scipy.sparse as sp

from ..datasets._files import BOM, open_data, unreadable, where
from ..datasets.svmlight import _too_wide
from ..datasets.svmlight_chunks import parse_svmlight_chunk

#: Most distinct labels a scan collects: more are not class labels, and
#: would make the set of classes grow with the file.
MAX_CLASSES = 2**16


# ------------------------------------------------------------ text chunks
def _read_full(fh, n):
    """Up to ``n`` bytes; fewer only at the end of the file."""
    parts, got = [], 0
    while got < n:
        part = fh.read(n - got)
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def _readinto_full(fh, view):
    """Fill ``view``; fewer bytes only at the end of the file."""
    got = 0
    while got < len(view):
        n = fh.readinto(view[got:])
        if not n:
            break
        got += n
    return got


def _line_chunks(path, chunk_bytes):
    """The file's text as runs of whole lines (see the module docstring).

    One buffer of ``chunk_bytes`` is filled again and again: each chunk is
    a view of it, valid until the next one is asked for (the parser copies
    what it keeps), so reading costs no copy of the text beyond moving a
    partial last line to the front.

    Yields
    ------
    offset : int
        Byte offset of the chunk in the (decompressed) file.
    buf : memoryview or bytes
        The chunk. A leading UTF-8 byte-order mark is dropped, as
        :func:`~perceptrons.datasets.load_svmlight` drops it.
    """
    with unreadable("data", path), open_data(path) as fh:
        buf = bytearray(max(chunk_bytes, len(BOM)))
        view = memoryview(buf)
        filled = _readinto_full(fh, view[:len(BOM)])
        offset = 0
        if view[:filled] == BOM:
            filled, offset = 0, len(BOM)
        eof = False
        while True:
            if not eof and filled < chunk_bytes:
                want = chunk_bytes - filled
                got = _readinto_full(fh, view[filled:chunk_bytes])
                eof = got < want
                filled += got
            if not filled:
                return
            if eof:
                yield offset, view[:filled]
                return
            cut = buf.rfind(b"\n", 0, filled) + 1
            if cut:
                yield offset, view[:cut]
                rest = view[cut:filled]
            else:
                # The first line is longer than chunk_bytes: read on to its
                # end; it is a chunk on its own.
                parts, seen = [bytes(view[:filled])], filled
                while cut == 0 and not eof:
                    more = _read_full(fh, chunk_bytes)
                    eof = len(more) < chunk_bytes
                    newline = more.find(b"\n")
                    if newline >= 0:
                        cut = seen + newline + 1
                    parts.append(more)
                    seen += len(more)
                pending = b"".join(parts)
                if cut == 0:
                    cut = len(pending)
                yield offset, pending[:cut]
                rest = pending[cut:]
            # The partial last line moves to the front (no resize: the
            # buffer keeps its length while views of it exist).
            filled = len(rest)
            buf[:filled] = bytes(rest)
            offset += cut
            if eof and not filled:
                return


def _parsed_chunks(path, chunk_bytes):
    """Each text chunk parsed.

    Yields
    ------
    buf : bytes
    offset, first_line : int
        Where ``buf`` starts in the file (for error messages).
    chunk : ChunkArrays
    """
    first_line = 1
    for offset, buf in _line_chunks(path, chunk_bytes):
        chunk = parse_svmlight_chunk(buf, path=str(path), offset=offset,
                                     first_line=first_line)
        n_lines = chunk.n_lines
        yield buf, offset, first_line, chunk
        # Nothing of this chunk stays alive while the next one is read.
        del buf, chunk
        first_line += n_lines


def _row_start(buf, row):
    """Line index (from 0) and byte position in ``buf`` of its ``row``-th
    example (blank and comment-only lines are no examples)."""
    pos = 0
    line = 0
    for text in buf.split(b"\n"):
        if text.split(b"#", 1)[0].strip():
            if row == 0:
                return line, pos
            row -= 1
        pos += len(text) + 1
        line += 1
    raise AssertionError("fewer examples than rows")  # pragma: no cover


def _line_problem(path, buf, offset, first_line, row, problem):
    """A ValueError naming the file, line and byte offset of ``row``, in
    the words of the chunk parser's errors."""
    line, pos = _row_start(bytes(buf), row)
    return ValueError(
        f"Malformed svmlight/LIBSVM file {where(path, first_line + line)} "
        f"(byte offset {offset + pos}): {problem}")


def _check_indices(path, buf, offset, first_line, chunk, base, n_features,
                   max_features=None, shift=None):
    """Refuse indices below ``base`` or beyond the columns allowed.

    An index ``i`` needs ``i - shift + 1`` columns (``shift`` defaults to
    ``base``); ``n_features`` (or, when None, ``max_features``) bounds
    them. The error names the line.

    Returns
    -------
    lowest, highest : int or None
        The chunk's extreme indices as written (None without nonzeros).
    """
    indices = chunk.indices
    if indices.shape[0] == 0:
        return None, None
    shift = base if shift is None else shift
    lowest, highest = int(indices.min()), int(indices.max())
    limit = n_features if n_features is not None else max_features
    if lowest < base:
        bad, problem = indices < base, (
            f"feature index {lowest}, but zero_based=False")
    elif limit is not None and highest - shift >= limit:
        bad = indices - shift >= limit
        index = int(indices[np.argmax(bad)])
        problem = _too_wide(index, index - shift + 1, n_features,
                            max_features)
    else:
        return lowest, highest
    row = int(np.searchsorted(chunk.indptr, np.argmax(bad), side="right")) - 1
    raise _line_problem(path, buf, offset, first_line, row, problem)


def _check_labels(path, buf, offset, first_line, labels, classes):
    """Refuse a label that is not among ``classes`` (sorted)."""
    known = np.isin(labels, classes)
    if not known.all():
        row = int(np.argmin(known))
        line, pos = _row_start(bytes(buf), row)
        raise ValueError(
            f"{where(path, first_line + line)} (byte offset {offset + pos}): "
            f"label {format_label(labels[row])} is not among the classes "
            f"{[format_label(c) for c in classes[:20]]}")


def _index_dtype(n_features, nnz):
    return np.int32 if max(n_features, nnz) < 2**31 else np.int64


class _Block:
    """One chunk's rows, as partial_fit takes them.

    Attributes
    ----------
    labels : ndarray of shape (n_rows,), float64
    indptr, indices : ndarray of int32 or int64 (one dtype)
        Zero-based column indices.
    data : ndarray of shape (nnz,), float64
    n_bytes : int
        Bytes of text the chunk spans (0 for a block read from a cache).
    lowest, highest : int or None
        The chunk's extreme indices as written in the file.
    """

    def __init__(self, labels, indptr, indices, data, n_bytes=0,
                 lowest=None, highest=None):
        self.labels, self.indptr = labels, indptr
        self.indices, self.data = indices, data
        self.n_bytes, self.lowest, self.highest = n_bytes, lowest, highest

    def csr(self, n_features):
        """The rows as a CSR matrix of ``n_features`` columns (no copy)."""
        return sp.csr_matrix((self.data, self.indices, self.indptr),
                             shape=(self.labels.shape[0], n_features),
                             copy=False)


def _text_blocks(path, n_features, zero_based, chunk_bytes, classes=None):
    """Every chunk of the file as a checked, zero-based :class:`_Block`.

    Indices must lie in ``[0, n_features)`` once shifted, and labels among
    ``classes`` (if given); the error names the line. A chunk of blank or
    comment lines gives a block of no rows.
    """
    base = 0 if zero_based else 1
    for buf, offset, first_line, chunk in _parsed_chunks(path, chunk_bytes):
        lowest, highest = _check_indices(path, buf, offset, first_line,
                                         chunk, base, n_features)
        if classes is not None:
            _check_labels(path, buf, offset, first_line, chunk.labels,
                          classes)
        dtype = _index_dtype(n_features, chunk.indices.shape[0])
        indices = chunk.indices.astype(dtype)
        if base:
            indices -= base
        block = _Block(chunk.labels, chunk.indptr.astype(dtype, copy=False),
                       indices, chunk.data, len(buf), lowest, highest)
        del buf, chunk, indices
        yield block
        del block


# ------------------------------------------------------------ tally
class _Tally:
    """Rows, stored values, extreme indices and labels seen so far."""

    def __init__(self):
        self.n_rows = self.nnz = self.n_bytes = 0
        self.lowest = self.highest = None
        self.classes = np.empty(0)

    def add(self, labels, nnz, lowest, highest, n_bytes, path):
        self.n_rows += labels.shape[0]
        self.nnz += nnz
        self.n_bytes += n_bytes
        if lowest is not None:
            self.lowest = lowest if self.lowest is None else min(
                self.lowest, lowest)
            self.highest = highest if self.highest is None else max(
                self.highest, highest)
        if labels.shape[0]:
            self.classes = np.union1d(self.classes, labels)
            if self.classes.shape[0] > MAX_CLASSES:
                raise ValueError(
                    f"{where(path)} has more than {MAX_CLASSES} distinct "
                    "labels: these are not class labels (pass classes= to "
                    "train on a file whose labels are known)")

    def meta(self, zero_based):
        """The tally as cache metadata, ``zero_based`` resolved."""
        if zero_based == "auto":
            zero_based = self.lowest == 0
        return {"n_rows": self.n_rows, "nnz": self.nnz,
                "n_bytes": self.n_bytes, "lowest": self.lowest,
                "highest": self.highest, "zero_based": bool(zero_based),
                "classes": self.classes.tolist()}


def _width(meta):
    """Columns the indices of ``meta`` need."""
    if meta["highest"] is None:
        return 0
    return meta["highest"] + (1 if meta["zero_based"] else 0)



# ------------------------------------------------------------ labels
def format_label(value):
    """A label as a line of predictions shows it: integral floats without
    ``.0`` (``1``, ``-1``), other floats by ``repr``, anything else as
    ``str`` (numpy scalars as their Python value)."""
    if isinstance(value, float) or type(value).__name__.startswith("float"):
        value = float(value)
        return str(int(value)) if value.is_integer() else repr(value)
    if hasattr(value, "item"):
        value = value.item()
    return str(value)

