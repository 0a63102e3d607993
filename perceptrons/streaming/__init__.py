"""Out-of-core training and prediction from svmlight / LIBSVM files.

A file too large for memory is read in byte chunks cut at line boundaries,
each parsed by
:func:`perceptrons.datasets.svmlight_chunks.parse_svmlight_chunk` into a
CSR block, and given to the estimator's ``partial_fit``; nothing the
size of the file is ever held, so memory is bounded by the chunk (plus the
shuffle buffer, if any).

* :func:`scan_svmlight`: one pass that finds what training needs to know
  first (rows, width, classes, zero- or one-based indices);
* :func:`fit_file`: ``max_iter`` epochs of ``partial_fit`` over the file's
  chunks, the epochs after the first read from a binary cache of the
  parsed chunks instead of the text (Vowpal Wabbit's ``--cache_file``),
  optionally shuffled inside a bounded buffer of rows;
* :func:`predict_file`: predictions written one per line as the file is
  read, and the accuracy on the file's labels;
* :func:`iter_svmlight`: the chunks themselves, as ``(X, y)`` CSR blocks.

Memory. At any time the reader holds one chunk's text, its parsed arrays
and the CSR block made of them: about ten times ``chunk_bytes`` at the
peak (measured with :mod:`tracemalloc`: 9 to 14 times for 32 KiB to 128 KiB
chunks, where loading the same 2.7 MB file takes 110 to 450 times), plus
the shuffle buffer. No list of chunks is kept and nothing is sized by the
file; the scan keeps only counts, the extreme indices and the set of
labels.

Chunks. A chunk is the longest run of whole lines, from where the previous
chunk ended, that fits in ``chunk_bytes`` bytes (a line counts with its
``\\n``); a line longer than ``chunk_bytes`` is a chunk on its own. The
chunks, hence the blocks ``partial_fit`` sees, depend only on the file's
bytes and ``chunk_bytes``. Blank and comment lines are no rows, so a chunk
may hold none (it is skipped).

Cache file. During the first epoch every parsed chunk's arrays are
appended to the cache as one block, indices already shifted to zero-based;
later epochs read the blocks back (one ``readinto`` per block) and never
the text. Layout, little-endian::

    "PRCPTCH\\0"  version (uint32)  0 (uint32)        16 bytes
    block 0, block 1, ...        labels float64[n], indptr int[n + 1],
                                 indices int[nnz], data float64[nnz],
                                 each padded to 8 bytes; int is int32
                                 (int64 if n_features or nnz >= 2**31)
    block table                  int64[n_blocks, 5]: offset, n_rows, nnz,
                                 index itemsize, CRC-32 of the block
    metadata                     UTF-8 JSON: the source file's path, size
                                 and mtime, chunk_bytes, the resolved
                                 zero_based, rows, bytes, lowest and highest
                                 index, classes, the table's offset
    trailer                      JSON length (uint64), JSON CRC-32
                                 (uint32), 0 (uint32), "PRCPTEND"

Where. ``cache="auto"`` (the default) writes a temporary file in the
system's temporary directory and removes it when training ends, and only
when there is more than one epoch: a cache as large as the data is never
left behind unasked, nor written beside data that may sit on a read-only
or shared disk. A path keeps the cache there, to be reused by later calls.

A cache is reused only if it was made from the same file (path, size and
modification time) with the same ``chunk_bytes`` and indexing, and fits the
requested width; otherwise it is rebuilt with a :class:`CacheWarning`, as it
is when truncated or corrupt (bad magic, trailer, table or metadata). A
block whose checksum fails while an epoch reads it raises a
:class:`ValueError`: a cache is never read silently wrong. A file that
exists but is not a cache is never overwritten.

This module holds the three passes over a file (:func:`scan_svmlight`,
:func:`fit_file`, :func:`predict_file`) and :func:`iter_svmlight`; the
text's chunks, their checks and what a pass finds are in ``_text``, the
cache file in ``_cache`` (which reads the blocks of ``_text``).
"""

import contextlib
import os
import tempfile
from numbers import Integral
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch, check_random_state

from ..datasets._files import existing_file, refuse_binary, where
from ..datasets.svmlight import _svmlight_error, _too_wide
from ..utils.output import atomic_write, same_file
from ._cache import (CacheWarning, _CacheWriter, _cache_blocks,
                     _cached_text_blocks, _source_signature, _valid_cache)
from ._text import (_check_indices, _parsed_chunks, _Tally, _text_blocks,
                    _width, format_label)
from ._text import MAX_CLASSES  # noqa: F401 (scan_svmlight names it)

__all__ = ["CacheWarning", "DEFAULT_CHUNK_BYTES", "fit_file", "format_label",
           "iter_svmlight", "predict_file", "scan_svmlight"]

#: Bytes of text read and parsed at a time unless told otherwise.
DEFAULT_CHUNK_BYTES = 64 * 2**20


def iter_svmlight(path, *, n_features, zero_based,
                  chunk_bytes=DEFAULT_CHUNK_BYTES):
    """The rows of an svmlight file, one chunk at a time, in file order.

    Parameters
    ----------
    path : str or path-like
        The file (``.gz``, ``.bz2`` and ``.xz`` are decompressed on the fly).
    n_features : int
        Columns of every block; an index beyond them is an error.
    zero_based : bool
        Whether the file's indices start at 0 (``"auto"`` is not accepted:
        it needs a pass over the whole file, :func:`scan_svmlight`).
    chunk_bytes : int, default=64 MiB
        Bytes of text per chunk (see the module docstring).

    Yields
    ------
    X : scipy.sparse.csr_matrix of shape (n_rows, n_features), float64
    y : ndarray of shape (n_rows,), float64

    Raises
    ------
    ValueError
        On a malformed line or an index out of range, naming the file, the
        line and its byte offset.
    """
    path = _text_file(path)
    n_features = _positive(n_features, "n_features")
    chunk_bytes = _positive(chunk_bytes, "chunk_bytes")
    if zero_based not in (True, False):
        raise ValueError(f"zero_based must be True or False, got "
                         f"{zero_based!r}")
    for block in _text_blocks(path, n_features, zero_based, chunk_bytes):
        if block.labels.shape[0]:
            yield block.csr(n_features), block.labels


# ------------------------------------------------------------ scan
def scan_svmlight(path, *, chunk_bytes=DEFAULT_CHUNK_BYTES, zero_based="auto",
                  max_features=None, cache=None):
    """What a pass over an svmlight file finds: rows, width, classes.

    Parameters
    ----------
    path : str or path-like
        The file (``.gz``, ``.bz2`` and ``.xz`` are decompressed on the fly).
    chunk_bytes : int, default=64 MiB
        Bytes of text parsed at a time.
    zero_based : bool or "auto", default="auto"
        Whether indices start at 0. ``"auto"``: zero-based if and only if an
        index 0 occurs, as :func:`~perceptrons.datasets.load_svmlight` and
        scikit-learn decide. ``False`` refuses an index 0.
    max_features : int, default=None
        Refuse a file whose highest index needs more columns, at the line
        that holds it (as ``load_svmlight`` does).
    cache : str or path-like, default=None
        A cache file of :func:`fit_file`: if it is valid for this file,
        ``chunk_bytes`` and ``zero_based``, the result is read from it and
        the text is not read.

    Returns
    -------
    Bunch
        ``n_rows``; ``n_features`` (the highest index plus one if
        zero-based, else the highest index); ``classes`` (sorted distinct
        labels, float64); ``zero_based`` (resolved); ``n_bytes`` (bytes of
        text, decompressed); ``nnz`` (stored values); ``source``
        (``"text"`` or ``"cache"``).

    Raises
    ------
    ValueError
        On a malformed line, an index 0 with ``zero_based=False``, an index
        beyond ``max_features``, more than :data:`MAX_CLASSES` distinct
        labels, or a file without examples.
    """
    path = _text_file(path)
    chunk_bytes = _positive(chunk_bytes, "chunk_bytes")
    _check_zero_based(zero_based)
    if max_features is not None:
        max_features = _positive(max_features, "max_features")
    if cache is not None:
        meta = _valid_cache(Path(os.fspath(cache)), path, chunk_bytes,
                            zero_based, None)
        if isinstance(meta, dict):
            return _scan_result(meta, "cache", max_features, path)
    base = 1 if zero_based is False else 0
    # Until "auto" is resolved, an index is refused at its line only if it
    # is too high as a one-based index (so for either indexing); the end of
    # the scan checks the resolved width.
    shift = 1 if zero_based == "auto" else base
    stats = _Tally()
    for buf, offset, first_line, chunk in _parsed_chunks(path, chunk_bytes):
        lowest, highest = _check_indices(path, buf, offset, first_line,
                                         chunk, base, None, max_features,
                                         shift)
        stats.add(chunk.labels, chunk.indices.shape[0], lowest, highest,
                  len(buf), path)
    meta = stats.meta(zero_based)
    if meta["n_rows"] == 0:
        raise _svmlight_error(path, "the file contains no examples")
    return _scan_result(meta, "text", max_features, path)


def _scan_result(meta, source, max_features, path):
    n_features = _width(meta)
    if max_features is not None and n_features > max_features:
        raise _svmlight_error(path, _too_wide(meta["highest"], n_features,
                                              None, max_features))
    return Bunch(n_rows=meta["n_rows"], n_features=n_features,
                 classes=np.asarray(meta["classes"], dtype=np.float64),
                 zero_based=meta["zero_based"], n_bytes=meta["n_bytes"],
                 nnz=meta["nnz"], source=source)


# ------------------------------------------------------------ shuffling
def _shuffled(blocks, n_features, size, rng):
    """Rows of ``blocks`` regrouped in runs of ``size``, each permuted.

    The rows are taken in file order into a buffer of ``size`` rows; when it
    is full (and at the end, with what is left) it is permuted with
    ``rng.permutation`` and yielded as one block. Memory: the buffer and
    the current chunk.

    Yields
    ------
    X : CSR matrix of shape (<= size, n_features)
    y : ndarray
    """
    pieces, held = [], 0
    for block in blocks:
        X, y = block.csr(n_features), block.labels
        start = 0
        while start < y.shape[0]:
            take = min(size - held, y.shape[0] - start)
            pieces.append((X[start:start + take], y[start:start + take]))
            held += take
            start += take
            if held == size:
                yield _permuted(pieces, rng)
                pieces, held = [], 0
    if held:
        yield _permuted(pieces, rng)


def _permuted(pieces, rng):
    X = pieces[0][0] if len(pieces) == 1 else sp.vstack(
        [X for X, _ in pieces], format="csr")
    y = np.concatenate([y for _, y in pieces])
    order = rng.permutation(y.shape[0])
    return X[order], y[order]


# ------------------------------------------------------------ fit / predict
def fit_file(estimator, path, *, n_features=None, classes=None,
             zero_based="auto", chunk_bytes=DEFAULT_CHUNK_BYTES,
             max_iter=None, cache="auto", shuffle_buffer=0,
             random_state=None, callback=None):
    """Train an estimator on an svmlight file larger than memory.

    Each epoch reads the file a chunk at a time and calls
    ``estimator.partial_fit(X_chunk, y_chunk, classes=classes)`` on the
    chunks in file order (or on buffers of shuffled rows). The first epoch
    parses the text and, unless ``cache=None``, stores the parsed chunks in
    a binary cache file that the later epochs read instead (see the module
    docstring for its format and when it is reused).

    Parameters
    ----------
    estimator : estimator with ``partial_fit``
        Every perceptrons estimator, or e.g. scikit-learn's
        ``SGDClassifier``. It is trained from scratch, in place: its fitted
        state (every attribute that is not a constructor parameter) is
        dropped first, as ``fit`` would.
    path : str or path-like
        The svmlight / LIBSVM file (``.gz``, ``.bz2`` and ``.xz`` are
        decompressed on the fly).
    n_features : int, default=None
        Columns of X. None: the width the file's highest index needs.
    classes : array-like, default=None
        Every class. None: the file's distinct labels.
    zero_based : bool or "auto", default="auto"
        Whether indices start at 0; ``"auto"`` as :func:`scan_svmlight`
        decides. A scan of the file (one extra pass over the text) runs
        first only if ``n_features``, ``classes`` or ``zero_based`` is not
        given and no valid cache holds them.
    chunk_bytes : int, default=64 MiB
        Bytes of text parsed at a time; the blocks given to ``partial_fit``
        are the chunks (see the module docstring).
    max_iter : int, default=None
        Epochs. None: the estimator's ``max_iter`` when its ``fit`` runs
        exactly that many epochs; else 1 (PDM, PFM and ROMMA, whose
        ``max_iter`` caps a ``fit`` that stops at convergence: here every
        epoch runs).
    cache : "auto", None or path-like, default="auto"
        Where the later epochs read the parsed chunks from. A path: that
        cache file, reused if valid and kept afterwards (later calls reuse
        it too, even for their first epoch). ``"auto"``: with more than one
        epoch, a temporary file in the system's temporary directory
        (``TMPDIR``), removed when training ends. It takes about 12 bytes
        per stored value, so put a large one on a disk, not a RAM-backed
        ``/tmp``, by passing a path. None: no cache; every epoch parses the
        text.
    shuffle_buffer : int, default=0
        If positive, the rows are regrouped in file order into buffers of
        this many rows, each permuted before ``partial_fit`` sees it (a
        different permutation every epoch). 0: the chunks, unshuffled. The
        estimator's own ``shuffle`` parameter plays no part: ``partial_fit``
        takes the rows in the order given.
    random_state : None, int or RandomState, default=None
        Seeds the buffer permutations: ``check_random_state(random_state)``
        draws ``permutation(n)`` for each buffer in turn, epoch after epoch,
        so an int gives the same model bit for bit.
    callback : callable, default=None
        Called after each epoch as ``callback(estimator, info)`` with a
        Bunch: ``epoch`` (from 1), ``source`` (``"text"`` or ``"cache"``),
        ``n_rows``, ``n_blocks`` (``partial_fit`` calls). Time the epochs
        from it.

    Returns
    -------
    estimator
        The estimator, fitted.

    Raises
    ------
    TypeError
        If the estimator has no ``partial_fit``.
    ValueError
        On a malformed line, an index out of range or a label not among
        ``classes`` (naming the file, the line and its byte offset), a file
        with no examples or one class, a corrupt cache block, or a path
        that exists and is not a cache file.

    Warns
    -----
    CacheWarning
        When an existing cache file is stale, truncated or corrupt and is
        rebuilt.

    Notes
    -----
    ``partial_fit`` defines what a chunk does: one pass over its rows,
    continuing the state. So the result equals a ``partial_fit`` loop over
    the same blocks, bit for bit (from the text or from the cache alike),
    and, when one chunk holds the whole file and ``max_iter=1``, the
    estimator's ``fit`` with ``shuffle=False`` and ``max_iter=1``. It is not
    ``fit`` otherwise: quantities that ``fit`` derives from the whole
    training set are derived by the first ``partial_fit`` call from the
    first block (e.g. :class:`~perceptrons.Perceptron`'s
    ``theta_init="auto"``, the average ⟨x, x⟩), PDM/PFM/ROMMA make plain
    passes (``fit`` runs each problem to convergence with active sets), and
    the counters follow ``partial_fit``: ``n_iter_`` and the per-epoch
    arrays count calls (blocks), not epochs.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from perceptrons import Perceptron
    >>> from perceptrons.streaming import fit_file, predict_file, scan_svmlight
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "train.svm"
    >>> _ = path.write_text("1 1:1 2:0.5\\n-1 1:-1\\n1 2:2\\n-1 1:-2 2:0.5\\n")
    >>> info = scan_svmlight(path)
    >>> info.n_rows, info.n_features, info.classes, info.zero_based
    (4, 2, array([-1.,  1.]), False)
    >>> est = fit_file(Perceptron(max_iter=3, theta_init=0.0), path,
    ...                n_features=info.n_features, classes=info.classes,
    ...                zero_based=info.zero_based, chunk_bytes=12)
    >>> predict_file(est, path, zero_based=info.zero_based).accuracy
    1.0
    """
    if not callable(getattr(estimator, "partial_fit", None)):
        raise TypeError(
            f"{type(estimator).__name__} has no partial_fit method; "
            "fit_file trains out of core by calling partial_fit once per "
            "chunk (every perceptrons estimator has one)")
    path = _text_file(path)
    chunk_bytes = _positive(chunk_bytes, "chunk_bytes")
    _check_zero_based(zero_based)
    if n_features is not None:
        n_features = _positive(n_features, "n_features")
    if isinstance(shuffle_buffer, bool) or not isinstance(
            shuffle_buffer, Integral) or shuffle_buffer < 0:
        raise ValueError(f"shuffle_buffer must be a non-negative integer, "
                         f"got {shuffle_buffer!r}")
    if max_iter is None:
        algorithm = getattr(type(estimator), "_algorithm", None)
        max_iter = (1 if getattr(algorithm, "max_iter_is_a_cap", False)
                    else getattr(estimator, "max_iter", None) or 1)
    n_epochs = _positive(max_iter, "max_iter")
    if not (cache is None or cache == "auto"):
        cache = Path(os.fspath(cache))
        if same_file(cache, path):
            raise ValueError(f"the cache file {str(cache)!r} is the data "
                             "file: writing it would destroy it; choose "
                             "another cache path")
        meta = _valid_cache(cache, path, chunk_bytes, zero_based, n_features,
                            warn=True)
        meta = meta if isinstance(meta, dict) else None
    else:
        cache = None if cache is None or n_epochs == 1 else cache
        meta = None
    if meta is not None:
        found = _scan_result(meta, "cache", None, path)
    elif n_features is None or classes is None or zero_based == "auto":
        found = scan_svmlight(path, chunk_bytes=chunk_bytes,
                              zero_based=zero_based)
    else:
        found = None
    if found is not None:
        n_features = found.n_features if n_features is None else n_features
        zero_based = found.zero_based
        if classes is None:
            if found.classes.shape[0] < 2:
                raise ValueError(
                    f"{where(path)} has only one class "
                    f"({format_label(found.classes[0])}); a classifier "
                    "needs at least two")
            classes = found.classes
    classes = np.unique(np.asarray(classes))
    _reset(estimator)
    rng = check_random_state(random_state) if shuffle_buffer else None
    with contextlib.ExitStack() as stack:
        if cache == "auto":
            fd, name = tempfile.mkstemp(prefix=Path(path).name + ".",
                                        suffix=".pcache")
            os.close(fd)
            cache = Path(name)
            stack.callback(os.remove, name)
        for epoch in range(1, n_epochs + 1):
            writer = None
            if meta is not None:
                source, blocks = "cache", _cache_blocks(cache, meta)
            else:
                source = "text"
                blocks = _text_blocks(path, n_features, zero_based,
                                      chunk_bytes, classes)
                if cache is not None and epoch == 1:
                    writer = _CacheWriter(cache)
                    blocks = _cached_text_blocks(blocks, writer, path)
            try:
                n_rows, n_blocks = _epoch(estimator, blocks, n_features,
                                          classes, shuffle_buffer, rng)
                if writer is not None:
                    meta = writer.finish(_source_signature(path),
                                         chunk_bytes, zero_based)
                    meta["table"] = np.asarray(writer.rows, dtype=np.int64)
            finally:
                if writer is not None:
                    writer.discard()
                blocks.close()
            if n_rows == 0:
                raise _svmlight_error(path, "the file contains no examples")
            if callback is not None:
                callback(estimator, Bunch(epoch=epoch, source=source,
                                          n_rows=n_rows, n_blocks=n_blocks))
    return estimator


def _epoch(estimator, blocks, n_features, classes, shuffle_buffer, rng):
    """One pass of ``partial_fit`` calls; returns (rows, calls)."""
    if shuffle_buffer:
        batches = _shuffled(blocks, n_features, shuffle_buffer, rng)
    else:
        batches = ((b.csr(n_features), b.labels) for b in blocks
                   if b.labels.shape[0])
    n_rows = n_calls = 0
    for X, y in batches:
        estimator.partial_fit(X, y, classes=classes)
        n_rows += y.shape[0]
        n_calls += 1
        del X, y  # not alive while the next block is read
    return n_rows, n_calls


def _reset(estimator):
    """Drop an estimator's fitted state: every attribute that is not a
    constructor parameter (scikit-learn's ``__init__`` stores only those)."""
    params = estimator.get_params(deep=False)
    for name in list(vars(estimator)):
        if name not in params:
            delattr(estimator, name)


def predict_file(estimator, path, output=None, *,
                 chunk_bytes=DEFAULT_CHUNK_BYTES, zero_based="auto"):
    """Predict every row of an svmlight file, a chunk at a time.

    Parameters
    ----------
    estimator : fitted classifier
        With ``predict``, ``classes_`` and ``n_features_in_`` (a
        perceptrons estimator, or a Pipeline ending in one).
    path : str or path-like
        The svmlight / LIBSVM file. It may omit trailing features; an index
        beyond ``n_features_in_`` is an error naming the line.
    output : str, path-like or file object, default=None
        Where to write one predicted label per line (:func:`format_label`),
        as the file is read. None: write nothing. A path is written under a
        temporary name and renamed when every row is predicted (an error
        leaves no half file), and may not be ``path`` itself.
    chunk_bytes : int, default=64 MiB
        Bytes of text parsed at a time.
    zero_based : bool or "auto", default="auto"
        Whether indices start at 0. Pass the value the training file
        resolved to (``scan_svmlight(train).zero_based``); ``"auto"``
        decides on this file, with a scan (an extra pass).

    Returns
    -------
    Bunch
        ``n_rows``; ``n_correct`` (predictions equal to the file's label);
        ``n_unknown`` (rows whose label is not among ``classes_``);
        ``unknown_labels`` (up to 10 such labels, in order of appearance);
        ``accuracy`` (``n_correct / n_rows``, or None if some label is
        unknown: the file is then not a test set of this model).

    Raises
    ------
    ValueError
        On a malformed line or an index beyond ``n_features_in_``, naming
        the file, the line and its byte offset, or on a file without
        examples.
    """
    path = _text_file(path)
    if (output is not None and not hasattr(output, "write")
            and same_file(output, path)):
        raise ValueError(f"the output {os.fspath(output)!r} is the data file "
                         f"{str(path)!r}: writing it would destroy it; "
                         "choose another output path")
    chunk_bytes = _positive(chunk_bytes, "chunk_bytes")
    _check_zero_based(zero_based)
    n_features = getattr(estimator, "n_features_in_", None)
    if n_features is None:
        raise ValueError(f"{type(estimator).__name__} is not fitted (it has "
                         "no n_features_in_)")
    if zero_based == "auto":
        zero_based = scan_svmlight(path, chunk_bytes=chunk_bytes).zero_based
    classes = np.asarray(estimator.classes_)
    texts = {label: format_label(label) + "\n" for label in classes.tolist()}
    n_rows = n_correct = n_unknown = 0
    unknown = {}
    with contextlib.ExitStack() as stack:
        out = output
        if output is not None and not hasattr(output, "write"):
            out = stack.enter_context(atomic_write(output,
                                                   what="predictions file"))
        for block in _text_blocks(path, n_features, zero_based,
                                  chunk_bytes):
            y = block.labels
            if y.shape[0] == 0:
                continue
            pred = estimator.predict(block.csr(n_features))
            if out is not None:
                out.write("".join([texts[v] for v in pred.tolist()]))
            n_rows += y.shape[0]
            n_correct += int(np.count_nonzero(pred == y))
            new = ~np.isin(y, classes)
            if new.any():
                n_unknown += int(np.count_nonzero(new))
                for label in y[new].tolist():
                    if len(unknown) == 10:
                        break
                    unknown.setdefault(label)
    if n_rows == 0:
        raise _svmlight_error(path, "the file contains no examples")
    return Bunch(n_rows=n_rows, n_correct=n_correct, n_unknown=n_unknown,
                 unknown_labels=list(unknown),
                 accuracy=None if n_unknown else n_correct / n_rows)


# ------------------------------------------------------------ arguments
def _text_file(path):
    """``path`` as a Path, after the checks every reader makes."""
    path = existing_file(path)
    refuse_binary(path)
    return path


def _positive(value, name):
    if isinstance(value, bool) or not isinstance(value, Integral) \
            or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _check_zero_based(zero_based):
    if zero_based not in (True, False, "auto"):
        raise ValueError(f"zero_based must be True, False or 'auto', got "
                         f"{zero_based!r}")
