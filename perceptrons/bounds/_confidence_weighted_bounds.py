r"""Mistake bound of AROW (Crammer, Kulesza & Dredze 2009, Theorem 2).

Run Figure 1 of [1]_ (full covariance, :math:`\mu_0 = 0`,
:math:`\Sigma_0 = I`, no bias) with parameter :math:`r > 0`. Let
:math:`\mathcal M` be the trials it mistook (:math:`y_t\mu_t\cdot x_t \le
0`), :math:`\mathcal U` the trials it updated on without a mistake
(:math:`0 < y_t\mu_t\cdot x_t < 1`), :math:`M = |\mathcal M|`,
:math:`U = |\mathcal U|`, :math:`X_A = \sum_{t \in \mathcal M \cup \mathcal
U} x_t x_t^\top` and, for any comparator :math:`u` (not normalised: the
margin is fixed at 1), :math:`g_t = \max\{0, 1 - y_t u\cdot x_t\}`. Then

.. math::

    M \le \sqrt{r\|u\|^2 + u^\top X_A u}\,
    \sqrt{\log\det\Big(I + \frac{X_A}{r}\Big) + U}
    + \sum_{t \in \mathcal M \cup \mathcal U} g_t - U.

It has the form of the Second-order Perceptron's bound
(:func:`perceptrons.bounds.second_order_bound`), with the margin errors
that are not mistakes paid for by the :math:`+U` under the root and given
back by the :math:`-U` outside it.

.. warning::

    The papers are not in the repository's copy (``shared/papers``); the
    statement and its number are those of the NIPS 2009 version of [1]_
    (Lemma 1 there is the representer theorem, Theorem 2 the mistake bound;
    the journal version, Machine Learning 91(2), 2013, renumbers). The proof,
    which the property tests re-derive in
    ``tests/theory/test_confidence_weighted_theorems.py``, is short:
    :math:`\Sigma_T^{-1} = I + X_A/r` and :math:`\Sigma_T^{-1}\mu_T =
    \frac1r\sum y_t x_t`; the comparator's side is at least
    :math:`\frac1r\sum(1 - g_t)`, and by Cauchy-Schwarz in
    :math:`\Sigma_T^{-1}` at most :math:`\sqrt{u^\top\Sigma_T^{-1}u}` times a
    root that grows by at most :math:`\frac1r\log(1 + v_t/r)` on a mistake
    and :math:`1/r` on a margin error.

References
----------
.. [1] K. Crammer, A. Kulesza and M. Dredze. Adaptive Regularization of
   Weight Vectors. In *Advances in Neural Information Processing Systems 22*
   (NIPS 2009), pp. 414-422, 2009.
   https://papers.nips.cc/paper/3848-adaptive-regularization-of-weight-vectors
"""

import math

import numpy as np
import scipy.sparse as sp

from ._validation import (
    check_count,
    check_nonnegative,
    check_positive,
    check_sequence,
)

__all__ = ["arow_bound", "arow_sequence_bound"]


def _check_any_comparator(u, n_features):
    """``u`` as a finite float64 vector of length ``n_features``, unscaled.

    Unlike :func:`perceptrons.bounds._validation.check_comparator`, the
    vector is kept as given (AROW's margin is fixed at 1, so the scale of
    u matters) and may be zero.
    """
    u = np.asarray(u, dtype=np.float64)
    if u.ndim != 1 or u.shape[0] != n_features:
        raise ValueError(
            f"u must have shape ({n_features},) to match X, got shape {u.shape}.")
    if not np.all(np.isfinite(u)):
        raise ValueError("u contains NaN or infinity.")
    return u


def arow_bound(hinge_loss, r, comparator_term, log_det, n_margin_errors):
    r"""AROW's mistake bound (Crammer, Kulesza & Dredze 2009, Theorem 2).

    Parameters
    ----------
    hinge_loss : float
        :math:`\sum_{t \in \mathcal M \cup \mathcal U} g_t`, the hinge loss
        (margin 1) of the comparator u over the updated trials; ``>= 0``.
    r : float
        AROW's r > 0 (``AROW(r=...)``).
    comparator_term : float
        :math:`r\|u\|^2 + u^\top X_A u`; ``>= 0``.
    log_det : float
        :math:`\log\det(I + X_A/r)`; ``>= 0``.
    n_margin_errors : int
        U, the trials updated on that were not mistakes; ``>= 0``.

    Returns
    -------
    bound : float
        :math:`\sqrt{r\|u\|^2 + u^\top X_A u}\sqrt{\log\det(I + X_A/r) + U}
        + \sum g_t - U`.

    Raises
    ------
    ValueError
        If a value is out of range or not finite.

    Examples
    --------
    >>> from perceptrons.bounds import arow_bound
    >>> arow_bound(0.0, 1.0, 4.0, 1.0, 0)   # sqrt(4) * sqrt(1)
    2.0
    >>> arow_bound(1.0, 1.0, 1.0, 3.0, 1)   # 1 * 2 + 1 - 1
    2.0
    """
    D = check_nonnegative(hinge_loss, "hinge_loss")
    check_positive(r, "r")
    q = check_nonnegative(comparator_term, "comparator_term")
    log_det = check_nonnegative(log_det, "log_det")
    U = check_count(n_margin_errors, "n_margin_errors", 0)
    return math.sqrt(q) * math.sqrt(log_det + U) + D - U


def arow_sequence_bound(X_updates, y, u, r, n_margin_errors):
    r"""Theorem 2 of Crammer, Kulesza & Dredze (2009) from a run's updates.

    Parameters
    ----------
    X_updates : array-like or sparse matrix of shape (n_updates, n_features)
        The instances of the trials AROW updated on (mistakes and margin
        errors), one per row; no rows for a run without updates.
    y : array-like of shape (n_updates,)
        Their labels in {-1, +1}.
    u : array-like of shape (n_features,)
        Comparator, any vector (used as given: the margin is 1).
    r : float
        AROW's r > 0.
    n_margin_errors : int
        How many of the rows were margin errors, not mistakes.

    Returns
    -------
    bound : float
        :func:`arow_bound` with the hinge loss of u over the rows,
        :math:`r\|u\|^2 + \sum_t (u\cdot x_t)^2` and
        :math:`\log\det(I + X_A/r)` from the eigenvalues of the rows' Gram
        matrix; 0 without updates.

    Raises
    ------
    ValueError
        As :func:`perceptrons.bounds.hinge_losses` and :func:`arow_bound`.

    Examples
    --------
    >>> from perceptrons.bounds import arow_sequence_bound
    >>> round(arow_sequence_bound([[1.0, 0.0]], [1], [1.0, 0.0], 1.0, 0), 4)
    1.1774
    """
    r = check_positive(r, "r")
    shape = X_updates.shape if sp.issparse(X_updates) else np.shape(X_updates)
    if len(shape) == 2 and shape[0] == 0:
        _check_any_comparator(u, shape[1])
        return arow_bound(0.0, r, 0.0, 0.0, 0)
    X, y = check_sequence(X_updates, y)
    u = _check_any_comparator(u, X.shape[1])
    projections = np.asarray(X @ u, dtype=np.float64).ravel()
    D = float(np.sum(np.maximum(0.0, 1.0 - y * projections)))
    # The smaller of the two Gram matrices has the same non-zero eigenvalues.
    G = X @ X.T if X.shape[0] <= X.shape[1] else X.T @ X
    G = G.toarray() if sp.issparse(G) else np.asarray(G)
    lam = np.clip(np.linalg.eigvalsh((G + G.T) / 2.0), 0.0, None)
    log_det = float(np.sum(np.log1p(lam / r)))
    q = r * float(u @ u) + float(projections @ projections)
    return arow_bound(D, r, q, log_det, n_margin_errors)
