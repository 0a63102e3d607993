"""Writing output files without ever losing one a user gave.

* :func:`atomic_write`: a file written under a temporary name in its
  directory and renamed over the target only when complete, so a failure or
  an interruption never leaves half a file (nor replaces a good one);
* :func:`same_file`: whether two paths name one file (symbolic and hard
  links included), to refuse an output that is one of the inputs.
"""

import contextlib
import os
import tempfile

__all__ = ["atomic_write", "same_file"]


def same_file(a, b):
    """Whether paths ``a`` and ``b`` name the same file.

    Existing files are compared by device and inode (:func:`os.path.samefile`:
    a symbolic or hard link to a file is that file); otherwise the resolved
    paths are compared.

    Parameters
    ----------
    a, b : str or path-like

    Returns
    -------
    bool
    """
    a, b = os.fspath(a), os.fspath(b)
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return os.path.realpath(a) == os.path.realpath(b)


@contextlib.contextmanager
def atomic_write(path, mode="w", *, what="output file", encoding=None):
    """Open ``path`` for writing through a temporary file and a rename.

    The temporary file is created in the directory of the resolved target
    (a symbolic link is written through, as :func:`open` would), with the
    permissions a new file gets under the umask; it replaces the target by
    :func:`os.replace` when the ``with`` block ends normally and is removed
    otherwise. A target that exists and is not a regular file (``/dev/null``,
    a named pipe) is opened and written in place: there is nothing to
    replace, and renaming over a device would remove it.

    Parameters
    ----------
    path : str or path-like
    mode : {"w", "wb"}, default="w"
    what : str, default="output file"
        What the file is, for the error message.
    encoding : str, default=None
        Text encoding (``mode="w"``); UTF-8 if None.

    Yields
    ------
    file object

    Raises
    ------
    OSError
        If the file cannot be written; the message names ``path``, never
        the temporary name.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}")
    if mode == "w" and encoding is None:
        encoding = "utf-8"
    path = os.fspath(path)
    target = os.path.realpath(path)
    if os.path.exists(target) and not os.path.isfile(target):
        try:
            fh = open(target, mode, encoding=encoding)
        except OSError as exc:
            raise _write_error(path, what, exc) from exc
        with fh:
            yield fh
        return
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{os.path.basename(target)}.", suffix=".tmp",
            dir=os.path.dirname(target))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        fh = os.fdopen(fd, mode, encoding=encoding)
    except OSError as exc:
        _discard(tmp)
        raise _write_error(path, what, exc) from exc
    done = False
    try:
        yield fh
        done = True
    finally:
        # Errors of the body propagate as they are; those of closing (a
        # full disk shows there) and renaming name the target.
        try:
            fh.close()
            if done:
                os.replace(tmp, target)
                tmp = None
        except OSError as exc:
            if done:
                raise _write_error(path, what, exc) from exc
        finally:
            _discard(tmp)


def _discard(tmp):
    if tmp is not None:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _write_error(path, what, exc):
    error = OSError(f"cannot write the {what} {path!r}: "
                    f"{exc.strerror or exc}")
    error.errno = exc.errno
    return error
