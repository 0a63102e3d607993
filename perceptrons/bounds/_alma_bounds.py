r"""The correction bound of ALMA_p (Gentile, JMLR 2001, Theorem 3).

On a sequence of instances normalised to :math:`\|\hat x_t\|_p = 1` that a
comparator u with :math:`\|u\|_q = 1` (:math:`1/p + 1/q = 1`) separates with
p-norm margin :math:`y_t\,u\cdot\hat x_t \ge \gamma > 0`, ALMA_p(α; B, C)
with the theorem's settings B = 1/α, C = √2 makes at most

.. math::

    m \le \frac{2(p-1)}{\gamma^2}\Bigl(\frac{2}{\alpha} - 1\Bigr)^2
          + \frac{8}{\alpha} - 4

corrections, whatever the order and the number of passes; a pass without
a correction then certifies a hypothesis of p-norm margin above
:math:`(1-\alpha)\gamma_k`, with :math:`\gamma_k = B\sqrt{p-1}/\sqrt{k}`
its last margin target (:func:`p_norm_margin` measures it).
"""

import numpy as np

from ._validation import check_positive, check_sequence

__all__ = ["alma_correction_bound", "p_norm_margin"]


def alma_correction_bound(gamma, p, alpha):
    """Theorem 3's bound on the corrections of ALMA_p(α; 1/α, √2).

    Parameters
    ----------
    gamma : float
        p-norm margin γ > 0 of a comparator with unit q-norm on the
        normalised instances.
    p : float
        p >= 2.
    alpha : float
        0 < α <= 1.

    Returns
    -------
    float
        The most corrections Theorem 3 allows.

    Raises
    ------
    ValueError
        On γ <= 0, p < 2 or α outside (0, 1].

    Examples
    --------
    >>> round(alma_correction_bound(0.1, 2.0, 1.0), 6)
    204.0
    """
    gamma = check_positive(gamma, "gamma")
    p = check_positive(p, "p")
    alpha = check_positive(alpha, "alpha")
    if p < 2.0:
        raise ValueError(f"p must be >= 2, got {p}.")
    if alpha > 1.0:
        raise ValueError(f"alpha must be in (0, 1], got {alpha}.")
    return (2.0 * (p - 1.0) / gamma ** 2 * (2.0 / alpha - 1.0) ** 2
            + 8.0 / alpha - 4.0)


def p_norm_margin(X, y, w, p):
    """``min_t y_t w·x̂_t / ‖w‖_q`` with ``x̂_t = x_t/‖x_t‖_p``.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        Instances (rows of p-norm 0 are refused).
    y : array-like of shape (n_samples,)
        Labels ±1.
    w : array-like of shape (n_features,)
        A non-zero hypothesis.
    p : float
        p >= 2 (q = p/(p-1)).

    Returns
    -------
    float
        The p-norm margin of w on the sequence (negative when w errs).
    """
    X, y = check_sequence(X, y)
    X = X.toarray() if hasattr(X, "toarray") else X
    w = np.asarray(w, dtype=np.float64)
    q = p / (p - 1.0)
    norms = np.sum(np.abs(X) ** p, axis=1) ** (1.0 / p)
    if np.any(norms == 0.0):
        raise ValueError("X has a row of p-norm 0: its margin is undefined.")
    w_norm = np.sum(np.abs(w) ** q) ** (1.0 / q)
    if w_norm == 0.0:
        raise ValueError("w is zero: its margin is undefined.")
    return float(np.min(y * (X @ w) / norms) / w_norm)
