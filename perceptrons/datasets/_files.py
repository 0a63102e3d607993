"""File access shared by the readers of :mod:`perceptrons.datasets`.

One place for what every reader does to a file before it parses it, and for
how its error messages name the file:

* :func:`existing_file`: the path-like as a :class:`~pathlib.Path`, or a
  :class:`FileNotFoundError` naming it;
* :func:`open_data`: open for reading, decompressing by suffix (``.gz``,
  ``.bz2``, ``.xz``/``.lzma``);
* :func:`where`: the location a message names, ``'path'``, ``'path', line 3``
  or ``'path', line 3, column 2``;
* :func:`unreadable`: a context that turns a read or decompression failure
  into a :class:`ValueError` naming the file.
"""

import bz2
import gzip
import lzma
import os
import zlib
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "DECOMPRESS_ERRORS",
    "existing_file",
    "open_data",
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
    untranslated (as :mod:`csv` wants).
    """
    opener = _OPENERS.get(path.suffix.lower(), open)
    if text:
        return opener(path, "rt", encoding="utf-8", newline="")
    return opener(path, "rb")


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
