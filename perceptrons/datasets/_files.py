"""File access shared by the readers of :mod:`perceptrons.datasets`.

One place for what every reader does to a file before it parses it, and for
how its error messages name the file:

* :func:`existing_file`: the path-like as a :class:`~pathlib.Path`, or a
  :class:`FileNotFoundError` naming it;
* :func:`open_data`: open for reading, decompressing by suffix (``.gz``,
  ``.bz2``, ``.xz``/``.lzma``);
* :func:`refuse_binary`: a :class:`ValueError` in one line for a file
  whose content is not text (an ``.npz``, IDX or HDF5 file given as data);
* :func:`sniff_format`: what a file looks like (binary, svmlight or CSV),
  for messages about a file given in the wrong place;
* :func:`where`: the location a message names, ``'path'``, ``'path', line 3``
  or ``'path', line 3, column 2``;
* :func:`unreadable`: a context that turns a read or decompression failure
  into a :class:`ValueError` naming the file.
"""

import bz2
import gzip
import lzma
import os
import re
import zlib
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "DECOMPRESS_ERRORS",
    "existing_file",
    "open_data",
    "refuse_binary",
    "sniff_format",
    "unreadable",
    "where",
]

#: Errors raised by the decompressors on corrupt or truncated input.
DECOMPRESS_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError)

_OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open,
            ".lzma": lzma.open}


def existing_file(path):
    """``path`` as a :class:`~pathlib.Path`; raise if it is not a file."""
    path = Path(os.fspath(path))
    if not path.is_file():
        raise FileNotFoundError(f"No such data file: {str(path)!r}.")
    return path


def open_data(path, text=False):
    """Open ``path`` for reading, decompressing by its suffix.

    Binary by default; with ``text=True``, UTF-8 text with newlines left
    untranslated (as :mod:`csv` wants) and a leading byte-order mark
    dropped.
    """
    opener = _OPENERS.get(path.suffix.lower(), open)
    if text:
        return opener(path, "rt", encoding="utf-8-sig", newline="")
    return opener(path, "rb")


#: The UTF-8 byte-order mark some editors write at the start of a file.
BOM = b"\xef\xbb\xbf"
# Signatures of binary files users pass as data, and what they are.
_MAGIC = (
    (b"PK\x03\x04", "a zip archive such as .npz"),
    (b"\x93NUMPY", "a .npy array"),
    (b"\x89HDF\r\n\x1a\n", "an HDF5 file"),
    (b"\x1f\x8b", "gzip-compressed data: name it *.gz"),
    (b"BZh", "bzip2-compressed data: name it *.bz2"),
    (b"\xfd7zXZ\x00", "xz-compressed data: name it *.xz"),
)
_SNIFF = 1 << 16


def _head(path):
    """The first 64 KiB of ``path``, decompressed by suffix, without a BOM."""
    with unreadable("data", path), open_data(path) as fh:
        return fh.read(_SNIFF).removeprefix(BOM)


def _binary(head):
    """What binary content ``head`` looks like, or None if it is text."""
    what = next((name for magic, name in _MAGIC if head.startswith(magic)),
                None)
    if what is None and b"\0" in head:
        what = "binary content (NUL bytes), not UTF-8 text"
    if what is None:
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.start < len(head) - 3:  # not a character cut at the end
                what = f"binary content, not UTF-8 text at byte {exc.start}"
    return what


def refuse_binary(path):
    """Raise a one-line :class:`ValueError` unless ``path`` holds text.

    Reads the first 64 KiB (decompressed by suffix): a known binary
    signature, a NUL byte or invalid UTF-8 means the file is not a text
    svmlight/CSV file; the message says what it looks like.
    """
    what = _binary(_head(path))
    if what is not None:
        raise ValueError(
            f"{where(path)} is not a text svmlight/CSV file ({what}).")


# An svmlight feature ("3:0.5") or query id ("qid:7") token.
_SVMLIGHT_TOKEN = re.compile(r"(\d+|qid):\S+")


def sniff_format(path):
    """What a file looks like: a binary file, svmlight or CSV text.

    For messages only (a file given in the wrong place, or with a model
    trained on another format): the readers go by ``format`` or by a saved
    schema, never by this guess. The first line that is neither blank nor
    a ``#`` comment decides: svmlight if every token after the first is
    ``index:value`` (or ``qid:...``) and there is one, CSV if it holds a
    comma, semicolon or tab.

    Parameters
    ----------
    path : path-like
        An existing file (``.gz``/``.bz2``/``.xz`` are decompressed).

    Returns
    -------
    kind : {"binary", "svmlight", "csv"} or None
        None: empty, or neither.
    detail : str
        What the binary content looks like, or the deciding line.
    """
    path = Path(os.fspath(path))
    head = _head(path)
    what = _binary(head)
    if what is not None:
        return "binary", what
    text = head.decode("utf-8", errors="replace")
    line = next((ln.strip() for ln in text.splitlines()
                 if ln.strip() and not ln.lstrip().startswith("#")), "")
    tokens = line.split("#", 1)[0].split()
    if len(tokens) > 1 and all(_SVMLIGHT_TOKEN.fullmatch(t)
                               for t in tokens[1:]):
        return "svmlight", line
    if any(sep in line for sep in ",;\t"):
        return "csv", line
    return None, line


def where(path, line=None, column=None):
    """The place an error message names: the quoted path, line, column."""
    place = repr(str(path))
    if line is not None:
        place += f", line {line}"
    if column is not None:
        place += f", column {column}"
    return place


@contextmanager
def unreadable(kind, path):
    """Re-raise a read or decompression failure in the block as a
    :class:`ValueError` ("``kind`` file 'path' could not be read or
    decompressed: ..."); a missing file stays a :class:`FileNotFoundError`."""
    try:
        yield
    except FileNotFoundError:
        raise
    except DECOMPRESS_ERRORS as exc:
        raise ValueError(
            f"{kind} file {where(path)} could not be read or decompressed: {exc}"
        ) from exc
