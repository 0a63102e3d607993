"""Handwritten-digit images: MNIST's IDX files and the USPS ``.npz``.

* :func:`load_idx`: any IDX file (the MNIST format), gzip-compressed or not,
  with the shape of its header;
* :func:`read_mnist` and :func:`read_usps`: the training and test parts of
  each set as rows of float64 pixels and int64 digit labels.
"""

import numpy as np

from ._files import existing_file, open_data, unreadable, where

__all__ = ["load_idx", "read_mnist", "read_usps"]


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
    path = existing_file(path)
    with unreadable("IDX", path), open_data(path) as fh:
        raw = fh.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_DTYPES:
        raise ValueError(
            f"{where(path)} is not an IDX file (bad magic number {raw[:4].hex()!r})."
        )
    dtype, ndim = _IDX_DTYPES[raw[2]], raw[3]
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise ValueError(f"IDX file {where(path)} has a truncated header.")
    shape = tuple(int(d) for d in np.frombuffer(raw, ">u4", ndim, 4))
    expected = header + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if len(raw) != expected:
        raise ValueError(
            f"IDX file {where(path)}: header shape {shape} needs {expected} "
            f"bytes but the file has {len(raw)}."
        )
    data = np.frombuffer(raw, dtype, offset=header).reshape(shape)
    return data.astype(dtype.newbyteorder("="))


def _as_rows(X_train, y_train, X_test, y_test, image_shape):
    """The images flattened to float64 rows, the labels int64."""
    return dict(
        X_train=X_train.reshape(len(X_train), -1).astype(np.float64),
        y_train=y_train.astype(np.int64),
        X_test=X_test.reshape(len(X_test), -1).astype(np.float64),
        y_test=y_test.astype(np.int64),
        image_shape=image_shape,
    )


def read_mnist(files):
    """Read MNIST's four IDX files.

    Parameters
    ----------
    files : dict of {str: path}
        Training images, training labels, test images, test labels, in this
        order, each under the name its error messages use.

    Returns
    -------
    dict
        ``X_train`` (60000, 784) and ``X_test`` (10000, 784), float64 pixel
        values 0..255; ``y_train``, ``y_test`` int64 digits; ``image_shape``.

    Raises
    ------
    ValueError
        If a file is not IDX, or images and labels disagree in number.
    """
    names = list(files)
    X_train, y_train, X_test, y_test = (load_idx(p) for p in files.values())
    for X, y, name in ((X_train, y_train, names[0]), (X_test, y_test, names[2])):
        if X.ndim != 3 or y.ndim != 1 or X.shape[0] != y.shape[0]:
            raise ValueError(
                f"MNIST files disagree: {name} has shape {X.shape}, its "
                f"labels {y.shape}."
            )
    return _as_rows(X_train, y_train, X_test, y_test, X_train.shape[1:])


def read_usps(path):
    """Read ``usps.npz`` (arrays ``X_train``, ``y_train``, ``X_test``,
    ``y_test``, the 16x16 images as stored, values in [0, 1]).

    Returns
    -------
    dict
        ``X_train`` (7291, 256) and ``X_test`` (2007, 256) float64,
        ``y_train``, ``y_test`` int64 digits, ``image_shape`` (16, 16).

    Raises
    ------
    ValueError
        If one of the four arrays is missing.
    """
    with np.load(path) as npz:
        keys = {"X_train", "y_train", "X_test", "y_test"}
        if not keys <= set(npz.files):
            raise ValueError(
                f"{where(path)} lacks the arrays {sorted(keys - set(npz.files))} "
                f"(it has {npz.files})."
            )
        arrays = {k: npz[k] for k in keys}
    return _as_rows(arrays["X_train"], arrays["y_train"], arrays["X_test"],
                    arrays["y_test"], (16, 16))
