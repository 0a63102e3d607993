"""The binary cache of parsed chunks that the epochs after the first read
instead of the text: written block by block, checked before it is reused,
each block's checksum and structure verified as it is read (the layout is
in :mod:`perceptrons.streaming`).
"""

import contextlib
import json
import os
import struct
import sys
import tempfile
import warnings
import zlib
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ..datasets._files import where
from ..utils.validation import check_csr_structure
from ._text import MAX_CLASSES, _Block, _Tally, _width, format_label

_MAGIC = b"PRCPTCH\0"
_END = b"PRCPTEND"
_VERSION = 1
_HEAD = struct.Struct("<8sII")
_TRAILER = struct.Struct("<QII8s")
_TABLE_COLUMNS = 5
_CACHE_FORMAT = "perceptrons-svmlight-cache"


class CacheWarning(UserWarning):
    """A cache file could not be reused and is being rebuilt."""


# ------------------------------------------------------------ cache
def _source_signature(path):
    st = os.stat(path)
    return {"path": str(Path(path).resolve()), "size": st.st_size,
            "mtime_ns": st.st_mtime_ns}


def _layout(n_rows, nnz, itemsize):
    """Byte offsets of a block's four arrays and its size."""
    def pad(n):
        return -(-n // 8) * 8
    sizes = (8 * n_rows, itemsize * (n_rows + 1), itemsize * nnz, 8 * nnz)
    starts, at = [], 0
    for size in sizes:
        starts.append(at)
        at += pad(size)
    return starts, at


class _CorruptCache(Exception):
    """The cache file is ours but cannot be read (truncated or damaged)."""


def _read_cache_meta(cache_path):
    """The metadata and block table of a cache file.

    Returns
    -------
    dict or None
        None if there is no such file (or it is empty); the metadata, with
        ``"table"``, an int64 array of shape (n_blocks, 5), otherwise.

    Raises
    ------
    ValueError
        If the file exists but is not a cache file (it is never overwritten).
    _CorruptCache
        If it is one but truncated or damaged.
    """
    try:
        size = os.path.getsize(cache_path)
    except FileNotFoundError:
        return None
    if size == 0:
        return None
    with open(cache_path, "rb") as fh:
        head = fh.read(_HEAD.size)
        if head[:len(_MAGIC)] != _MAGIC:
            raise ValueError(
                f"{where(cache_path)} is not a perceptrons cache file; "
                "refusing to overwrite it (choose another cache path)")
        if len(head) < _HEAD.size:
            raise _CorruptCache("it is truncated")
        _, version, _ = _HEAD.unpack(head)
        if version != _VERSION:
            raise _CorruptCache(f"it has format version {version}, not "
                                f"{_VERSION}")
        if size < _HEAD.size + _TRAILER.size:
            raise _CorruptCache("it is truncated")
        fh.seek(size - _TRAILER.size)
        json_len, json_crc, _, end = _TRAILER.unpack(fh.read(_TRAILER.size))
        if end != _END:
            raise _CorruptCache("it is truncated (no end marker)")
        if json_len > size - _HEAD.size - _TRAILER.size:
            raise _CorruptCache("its metadata length is wrong")
        fh.seek(size - _TRAILER.size - json_len)
        text = fh.read(json_len)
        if zlib.crc32(text) != json_crc:
            raise _CorruptCache("its metadata fails its checksum")
        try:
            meta = json.loads(text.decode("utf-8"))
        except (ValueError, RecursionError) as exc:
            raise _CorruptCache(f"its metadata cannot be read ({exc})") \
                from None
        why = _meta_problem(meta)
        if why:
            raise _CorruptCache(f"its metadata is malformed ({why})")
        n_blocks, table_at = meta["n_blocks"], meta["table_at"]
        table_bytes = 8 * _TABLE_COLUMNS * n_blocks
        if meta.get("format") != _CACHE_FORMAT or (
                table_at + table_bytes != size - _TRAILER.size - json_len):
            raise _CorruptCache("its block table is misplaced")
        fh.seek(table_at)
        table = np.frombuffer(fh.read(table_bytes), dtype="<i8").reshape(
            n_blocks, _TABLE_COLUMNS)
    at = _HEAD.size
    for offset, n_rows, nnz, itemsize, _ in table.tolist():
        if offset != at or itemsize not in (4, 8) or n_rows < 1 or nnz < 0:
            raise _CorruptCache("its block table is inconsistent")
        at += _layout(n_rows, nnz, itemsize)[1]
    if at != table_at or int(table[:, 1].sum()) != meta["n_rows"]:
        raise _CorruptCache("its block table is inconsistent")
    meta["table"] = table
    return meta


def _meta_problem(meta):
    """What is wrong with a cache's metadata, read as JSON (None: nothing).

    Its checksum proves it is what was written, not that this module wrote
    it: every field is checked before one is used.
    """
    def count(v):
        return type(v) is int and v >= 0

    if not isinstance(meta, dict):
        return "not an object"
    checks = {
        "format": lambda v: v == _CACHE_FORMAT,
        "n_blocks": count, "table_at": count, "n_rows": count, "nnz": count,
        "n_bytes": count, "chunk_bytes": lambda v: count(v) and v > 0,
        "lowest": lambda v: v is None or count(v),
        "highest": lambda v: v is None or count(v),
        "zero_based": lambda v: type(v) is bool,
        "classes": lambda v: isinstance(v, list) and len(v) <= MAX_CLASSES
        and all(type(c) in (int, float) and np.isfinite(c) for c in v),
        "source": lambda v: isinstance(v, dict) and set(v) == {
            "path", "size", "mtime_ns"} and type(v["path"]) is str
        and count(v["size"]) and type(v["mtime_ns"]) is int,
    }
    for name, check in checks.items():
        if name not in meta or not check(meta[name]):
            return f"field {name!r}"
    return None


def _cache_mismatch(meta, source, chunk_bytes, zero_based, n_features):
    """Why a valid cache file does not serve this request (None: it does)."""
    if meta["source"] != source:
        return (f"it was made from {meta['source']['path']!r} of "
                f"{meta['source']['size']} bytes, modified at "
                f"{meta['source']['mtime_ns']} ns; the file is now "
                f"{source['size']} bytes, modified at {source['mtime_ns']} ns")
    if meta["chunk_bytes"] != chunk_bytes:
        return (f"it was made with chunk_bytes={meta['chunk_bytes']}, not "
                f"{chunk_bytes}")
    resolved = meta["lowest"] == 0 if zero_based == "auto" else zero_based
    if meta["zero_based"] != resolved:
        return (f"it was made with zero_based={meta['zero_based']}, not "
                f"{resolved}")
    if n_features is not None and _width(meta) > n_features:
        return (f"its indices need {_width(meta)} features, more than "
                f"n_features={n_features}")
    return None


def _valid_cache(cache_path, path, chunk_bytes, zero_based, n_features,
                 warn=False):
    """The metadata of a reusable cache, or why there is none (a string).

    With ``warn``, a cache file that exists but cannot be reused is
    reported with a :class:`CacheWarning` (it is about to be rebuilt).
    """
    try:
        meta = _read_cache_meta(cache_path)
    except _CorruptCache as exc:
        why = str(exc)
    else:
        if meta is None:
            return "absent"
        why = _cache_mismatch(meta, _source_signature(path), chunk_bytes,
                              zero_based, n_features)
        if why is None:
            return meta
    if warn:
        warnings.warn(f"rebuilding the cache file {where(cache_path)}: "
                      f"{why}", CacheWarning, stacklevel=_caller_level())
    return why


# The package's folder, perceptrons/, not this subpackage's: a warning
# skips the frames of the command line too.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))) + os.sep


def _caller_level():
    """The ``stacklevel`` of the first caller outside this package: a
    warning then shows the user's line, never one of the package's."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(
            _PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


class _CacheWriter:
    """Appends blocks to a new cache file; :meth:`finish` makes it valid.

    The file is written under a temporary name beside ``cache_path`` and
    renamed when complete, so an interrupted epoch never leaves a file that
    looks valid (and never replaces a valid one before it is done).
    """

    def __init__(self, cache_path):
        self.cache_path = cache_path
        fd, self.tmp = tempfile.mkstemp(prefix=cache_path.name + ".",
                                        suffix=".tmp", dir=cache_path.parent)
        self.fh = os.fdopen(fd, "wb")
        self.fh.write(_HEAD.pack(_MAGIC, _VERSION, 0))
        self.rows = []
        self.tally = _Tally()

    def add(self, block, path):
        """Count ``block`` and append it (if it has rows)."""
        self.tally.add(block.labels, block.data.shape[0], block.lowest,
                       block.highest, block.n_bytes, path)
        n_rows, nnz = block.labels.shape[0], block.data.shape[0]
        if n_rows == 0:
            return
        itemsize = block.indices.dtype.itemsize
        starts, size = _layout(n_rows, nnz, itemsize)
        offset, crc = self.fh.tell(), 0
        arrays = (block.labels, block.indptr, block.indices, block.data)
        for array, start, end in zip(arrays, starts, starts[1:] + [size]):
            raw = memoryview(np.ascontiguousarray(
                array, dtype=array.dtype.newbyteorder("<"))).cast("B")
            padding = bytes(end - start - raw.nbytes)
            crc = zlib.crc32(padding, zlib.crc32(raw, crc))
            self.fh.write(raw)
            self.fh.write(padding)
        self.rows.append((offset, n_rows, nnz, itemsize, crc))

    def finish(self, source, chunk_bytes, zero_based):
        """Write the table, metadata and trailer; rename into place."""
        table = np.asarray(self.rows, dtype="<i8").reshape(-1,
                                                           _TABLE_COLUMNS)
        meta = self.tally.meta(zero_based)
        meta.update(format=_CACHE_FORMAT, source=source,
                    chunk_bytes=chunk_bytes, n_blocks=table.shape[0],
                    table_at=self.fh.tell())
        self.fh.write(table.tobytes())
        text = json.dumps(meta).encode("utf-8")
        self.fh.write(text)
        self.fh.write(_TRAILER.pack(len(text), zlib.crc32(text), 0, _END))
        self.fh.close()
        os.replace(self.tmp, self.cache_path)
        self.tmp = None
        return meta

    def discard(self):
        """Remove the unfinished file (after an error or interruption)."""
        self.fh.close()
        if self.tmp is not None:
            with contextlib.suppress(OSError):
                os.remove(self.tmp)
            self.tmp = None


def _cache_blocks(cache_path, meta):
    """The blocks of a cache file, in file order, each checksum verified."""
    with open(cache_path, "rb") as fh:
        for k, (offset, n_rows, nnz, itemsize, crc) in enumerate(
                meta["table"].tolist()):
            starts, size = _layout(n_rows, nnz, itemsize)
            index = np.dtype(f"<i{itemsize}")
            fh.seek(offset)
            # One array per field, read in place: scipy copies a CSR array
            # that views a much larger buffer (its prune step).
            arrays, crc_read = [], 0
            for dtype, lo, hi, n in ((np.dtype("<f8"), starts[0], starts[1],
                                      n_rows),
                                     (index, starts[1], starts[2], n_rows + 1),
                                     (index, starts[2], starts[3], nnz),
                                     (np.dtype("<f8"), starts[3], size, nnz)):
                field = np.empty(-(-(hi - lo) // dtype.itemsize), dtype=dtype)
                raw = field.view(np.uint8)[:hi - lo]
                if fh.readinto(raw) != hi - lo:
                    crc_read = None
                    break
                crc_read = zlib.crc32(raw, crc_read)
                arrays.append(field[:n])
            problem = ("fails its checksum" if crc_read != crc
                       else _block_problem(arrays, meta))
            if problem:
                raise ValueError(
                    f"the cache file {where(cache_path)} is corrupt (block "
                    f"{k} {problem}); delete it, or pass cache=None "
                    "(--no-cache) to read the text")
            yield _Block(*arrays)
            del arrays


def _block_problem(arrays, meta):
    """What is wrong with a cache block's arrays (None: nothing).

    The checksum proves the block is what was written, not that it was
    written by this module: a block whose checksum was recomputed after
    tampering must not reach scipy or a compiled loop. Its CSR structure is
    checked (``indptr`` from 0 to ``nnz``, never decreasing; indices within
    the width the metadata records) and its labels against the classes.
    """
    labels, indptr, indices, data = arrays
    csr = SimpleNamespace(shape=(labels.shape[0], _width(meta)),
                          indptr=indptr, indices=indices, data=data)
    try:
        check_csr_structure(csr, "its rows")
    except ValueError as exc:
        return f"is malformed: {exc}"
    known = np.isin(labels, np.asarray(meta["classes"], dtype=np.float64))
    if not known.all():
        return (f"holds the label {format_label(labels[np.argmin(known)])}, "
                "not among the classes its metadata records")
    return None


def _cached_text_blocks(blocks, writer, path):
    """``blocks`` passed through, each appended to the cache ``writer``."""
    for block in blocks:
        writer.add(block, path)
        yield block
        del block

