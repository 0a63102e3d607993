"""The random streams every reference-agreement test runs on (one generator).

:func:`make_stream` draws a small labelled stream from a seed: dense float64
rows (Gaussian, small integers, or unit-norm), optionally with exact zeros,
all-zero rows and a duplicated row, labelled by the argmax of random linear
scores (with an optional bias), a fraction of labels redrawn at random (so
the stream is noisy: not separable), and optional test rows drawn the same
way. :func:`storages` gives the dense and CSR forms every agreement test
feeds the estimator; :func:`seed_of` turns a test's parameters into a seed;
:func:`in_order` is the presentation of ``shuffle=False``.

Nothing is imported from ``perceptrons``.
"""

import zlib
from typing import NamedTuple, Optional

import numpy as np
import scipy.sparse as sp

__all__ = ["Stream", "make_stream", "margin_stream", "storages", "seed_of",
           "in_order", "median_norm", "presented", "ovr_mistakes"]


class Stream(NamedTuple):
    """One stream.

    X : ndarray of shape (n, d)
        Training rows, presented in this order.
    y : ndarray of shape (n,)
        Labels: ``labels[idx]`` (``idx`` itself when no labels are given).
    idx : ndarray of shape (n,)
        Class indices 0..n_classes-1 (the position of each label in the
        sorted classes).
    X_test : ndarray of shape (n_test, d) or None
        Test rows, drawn like X (no zeros blanked, no labels).
    scale : float
        Median Euclidean norm of the rows of X.
    """

    X: np.ndarray
    y: np.ndarray
    idx: np.ndarray
    X_test: Optional[np.ndarray]
    scale: float


def seed_of(*parts):
    """A 32-bit seed from a test's parameters (stable across runs)."""
    return zlib.crc32(repr(parts).encode())


def storages(X):
    """``[("dense", X), ("csr", csr_matrix(X))]``."""
    return [("dense", X), ("csr", sp.csr_matrix(X))]


def in_order(n_samples, n_epochs):
    """The presentation of ``shuffle=False``: rows 0..n-1, every epoch."""
    return [np.arange(n_samples)] * n_epochs


def median_norm(X):
    return float(np.median(np.linalg.norm(X, axis=1)))


def presented(X_all, y, classes=None, sample_weight=None):
    """The rows a reference fit presents, in order: those of non-zero
    weight.

    Returns
    -------
    classes : ndarray
        The sorted classes (of ``classes`` when given, else of y).
    present : ndarray of bool
        Which rows of ``X_all`` are presented.
    s : ndarray or None
        The presented rows' weights (None: no weights).
    X_train : ndarray
        The presented rows.
    idx : ndarray
        Their class indices.
    """
    y = np.asarray(y)
    classes = np.unique(y if classes is None else classes)
    present = np.ones(X_all.shape[0], dtype=bool)
    s = None
    if sample_weight is not None:
        s = np.asarray(sample_weight, dtype=np.float64)
        present = s > 0
        s = s[present]
    return (classes, present, s, X_all[present],
            np.searchsorted(classes, y[present]))


def ovr_mistakes(scores, idx, binary):
    """The online mistakes of one pass from each step's scores before its
    update, ``scores`` of shape (n_steps, n_problems): ``y f <= 0`` for one
    problem (class index 1 positive), else the true class not scoring
    strictly highest."""
    if binary:
        sign = np.where(idx == 1, 1.0, -1.0)
        return int(np.sum(sign * scores[:, 0] <= 0.0))
    count = 0
    for t in range(scores.shape[0]):
        others = np.delete(scores[t], idx[t])
        count += int(np.any(others >= scores[t, idx[t]]))
    return count


def _draw_count(rng, spec):
    """``spec`` is a count, or an inclusive range ``(lo, hi)`` to draw from."""
    if isinstance(spec, tuple):
        return int(rng.integers(spec[0], spec[1] + 1))
    return int(spec)


def _rows(rng, shape, values, int_range, feature_scale):
    if values == "integer":
        X = rng.integers(-int_range, int_range + 1, shape).astype(np.float64)
    elif values in ("float", "unit"):
        X = rng.standard_normal(shape)
    else:
        raise ValueError(f"unknown values {values!r}")
    if feature_scale is not None:
        X = X * feature_scale
    return X


def make_stream(seed, *, n_classes=2, n=60, d=5, values="float", int_range=2,
                feature_scale=None, sparsity=0.0, zero_rows=0,
                duplicate=False, nonzero_rows=False, bias=0.0,
                min_margin=0.0, noise=0.0, every_class=True, labels=None,
                n_test=0, zero_test_row=False):
    """A random labelled stream.

    Parameters
    ----------
    seed : int
    n_classes : int
    n, d : int or (int, int)
        Rows and features, or inclusive ranges to draw them from.
    values : {"float", "integer", "unit"}
        Standard normal entries, integers in ``[-int_range, int_range]``,
        or standard normal rows scaled to unit Euclidean norm.
    feature_scale : (float, float), optional
        Multiply each column by a factor drawn uniformly in this range.
    sparsity : float
        Fraction of entries set to exactly 0.
    zero_rows : int
        All-zero rows put at random positions.
    duplicate : bool
        Copy one row over another.
    nonzero_rows : bool
        Redraw any row left all zero by ``sparsity`` (after that, before
        ``zero_rows``).
    bias : float
        Scale of a random bias added to the class scores.
    min_margin : float
        Drop rows whose score gap (best minus second) is at most
        ``min_margin`` times its standard deviation: a clean margin.
    noise : float
        Fraction of labels redrawn uniformly among the classes.
    every_class : bool
        Force rows 0..n_classes-1 to classes 0..n_classes-1 (every class
        occurs). Otherwise a binary stream of one class gets row 0 flipped.
    labels : array-like, optional
        The label of each class index (sorted, so ``idx`` is the position in
        ``np.unique(y)``).
    n_test : int
        Test rows.
    zero_test_row : bool
        Make the last test row all zero.

    Returns
    -------
    Stream
    """
    rng = np.random.default_rng(seed)
    n = _draw_count(rng, n)
    d = _draw_count(rng, d)
    scale = (None if feature_scale is None
             else rng.uniform(feature_scale[0], feature_scale[1], d))
    X = _rows(rng, (n, d), values, int_range, scale)
    X_test = (_rows(rng, (n_test, d), values, int_range, scale)
              if n_test else None)
    if sparsity:
        X[rng.random((n, d)) < sparsity] = 0.0
    if nonzero_rows:
        while True:
            blank = ~X.any(axis=1)
            if not blank.any():
                break
            X[blank] = _rows(rng, (int(blank.sum()), d), values, int_range,
                             scale)
    if values == "unit":
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        X = np.divide(X, norms, out=np.zeros_like(X), where=norms > 0)
        if X_test is not None:
            X_test = X_test / np.linalg.norm(X_test, axis=1, keepdims=True)
    if duplicate:
        X[rng.integers(0, n)] = X[rng.integers(0, n)]
    if zero_rows:
        X[rng.choice(n, zero_rows, replace=False)] = 0.0
    if zero_test_row and X_test is not None:
        X_test[-1] = 0.0
    scores = X @ rng.standard_normal((d, n_classes))
    if bias:
        scores = scores + bias * rng.standard_normal(n_classes)
    if min_margin:
        top = np.sort(scores, axis=1)
        gap = top[:, -1] - top[:, -2]
        keep = gap > min_margin * gap.std()
        X, scores = X[keep], scores[keep]
        n = X.shape[0]
    idx = np.argmax(scores, axis=1)
    if noise:
        redraw = rng.random(n) < noise
        idx[redraw] = rng.integers(0, n_classes, int(redraw.sum()))
    if every_class:
        idx[:n_classes] = np.arange(n_classes)
    elif np.unique(idx).shape[0] < 2:
        idx[0] = 1 - idx[0]
    y = idx.copy() if labels is None else np.asarray(labels)[idx]
    return Stream(X, y, idx, X_test, median_norm(X))


def margin_stream(seed, n=40, d=5, noise=0.0, sparsity=0.3):
    """(X, y) of the margin perceptrons' tests (PDM, PFM, ROMMA): float rows
    with exact zeros, labels ±1 from a random hyperplane with a bias, rows
    nearer to it than 0.2 of the score gaps' standard deviation dropped (a
    clean margin: separable when ``noise=0``), ``noise`` of the labels
    redrawn."""
    s = make_stream(seed, n=n, d=d, sparsity=sparsity, bias=0.3,
                    min_margin=0.2, noise=noise, every_class=False,
                    labels=[-1, 1])
    return s.X, s.y
