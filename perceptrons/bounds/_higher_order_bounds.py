r"""Mistake bounds of the Higher-order and the Second-order Perceptron.

**Higher-order Perceptron** HO₂ (Brotto, Gentile & Vitale 2007, Theorem 1).
Run Figure 1 of [1]_ on unit-norm instances with parameters :math:`\rho_k`
such that, on the k-th mistake (trial :math:`t = t(k)`),

.. math::

    0 \le \rho_k \le \frac{1 - c}{1 + |v_{k-1}^\top x_t|}, \qquad c \in (0, 1].

Then for any :math:`\gamma > 0` and unit :math:`u`, with
:math:`\alpha = (2 - c)/c` and :math:`D = D_\gamma(u; \tilde S_c)` the hinge
loss of u on the transformed sequence of Eq. (1),
:math:`\tilde S_c = (B_0 x_{t(1)}, y_{t(1)}), (B_1 x_{t(2)}, y_{t(2)}), \dots`,
the number m of mistakes satisfies Eq. (2):

.. math::

    m \le \alpha\frac{D}{\gamma} + \frac{\alpha^2}{2\gamma^2}
    + \frac{\alpha}{\gamma}\sqrt{\alpha\frac{D}{\gamma}
    + \frac{\alpha^2}{4\gamma^2}}.

The schedule :math:`\rho_k = c_{HO}/k` of HO₂(c_HO) satisfies the condition
with :math:`c = 1 - c_{HO}` (footnote 7 of [1]_, since
:math:`|v_{k-1}^\top x_t| \le k - 1`); the largest c a given run allows is
:func:`higher_order_condition`. At c = 1 (all :math:`\rho_k = 0`, the
Perceptron) α = 1 and Eq. (2) is the exact solution of
:math:`\gamma m - D \le \sqrt m`. [1]_ states the theorem for p = 2 only.

**Second-order Perceptron** SO (Cesa-Bianchi, Conconi & Gentile 2005,
Theorem 1 of [2]_). With parameter :math:`a > 0`, :math:`\mathcal M` the
mistaken trials, :math:`X_m` the matrix whose columns are their instances and
:math:`\lambda_1, \dots, \lambda_n` the eigenvalues of
:math:`X_m X_m^\top = \sum_{t \in \mathcal M} x_t x_t^\top`, for any
:math:`\gamma > 0` and unit :math:`u`:

.. math::

    m \le \frac{D_\gamma(u; \mathcal M)}{\gamma} + \frac1\gamma
    \sqrt{\big(a + u^\top X_m X_m^\top u\big)
    \sum_{i=1}^n \ln\Big(1 + \frac{\lambda_i}{a}\Big)},
    \qquad
    D_\gamma(u; \mathcal M) = \sum_{t \in \mathcal M}
    \max\{0, \gamma - y_t u^\top x_t\}.

.. warning::

    We could not read the text of Theorem 1 of [2]_ (only its abstract was
    reachable from our tools). The statement above is the one summarised in
    issue #10, and it follows from the proof sketched here, which is what the
    property tests check: with :math:`A_k = aI + \sum_{j \le k} x_j x_j^\top`
    over mistakes and :math:`v_k = \sum_{j \le k} y_j x_j`, a mistake means
    :math:`y_t v_{k-1}^\top A_k^{-1} x_t \le 0` (the margin
    :math:`v^\top(aI + SS^\top)^{-1}x_t` with :math:`x_t` in S), so
    :math:`v_k^\top A_k^{-1} v_k - v_{k-1}^\top A_{k-1}^{-1} v_{k-1} \le
    x_t^\top A_k^{-1} x_t = 1 - \det A_{k-1}/\det A_k \le
    \ln(\det A_k/\det A_{k-1})`; summing,
    :math:`v_m^\top A_m^{-1} v_m \le \ln\det(I + X_m X_m^\top/a) =
    \sum_i \ln(1 + \lambda_i/a)`; and
    :math:`\gamma m - D_\gamma(u;\mathcal M) \le u^\top v_m \le
    \sqrt{u^\top A_m u}\sqrt{v_m^\top A_m^{-1} v_m}`. The losses enter over
    the mistaken trials only, so the bound with the hinge loss of the whole
    sequence (never smaller) holds as well.

Neither bound needs the instances of SO to be normalised. Only the non-zero
eigenvalues matter (:math:`\ln 1 = 0`), so they can be taken from the
:math:`m \times m` Gram matrix :math:`X_m^\top X_m` -- with a kernel, the
kernel matrix of the mistaken instances.

References
----------
.. [1] C. Brotto, C. Gentile and F. Vitale. On Higher-Order Perceptron
   Algorithms. In *Advances in Neural Information Processing Systems 20*
   (NIPS 2007), pp. 521-528, 2008.
   https://papers.nips.cc/paper/3251-on-higher-order-perceptron-algorithms
.. [2] N. Cesa-Bianchi, A. Conconi and C. Gentile. A Second-Order Perceptron
   Algorithm. *SIAM Journal on Computing* 34(3):640-668, 2005.
   https://doi.org/10.1137/S0097539703432542
"""

import math

import numpy as np
import scipy.sparse as sp

from ._mistake_bounds import hinge_losses
from ._validation import (
    check_comparator,
    check_nonnegative,
    check_positive,
    check_sequence,
)

__all__ = [
    "higher_order_bound",
    "higher_order_condition",
    "higher_order_sequence_bound",
    "second_order_bound",
    "second_order_sequence_bound",
]


def _check_c(c):
    """c of Theorem 1 of [1]_, a real number in (0, 1]."""
    c = check_positive(c, "c")
    if c > 1.0:
        raise ValueError(f"c must lie in (0, 1], got {c}.")
    return c


def _rows_and_loss(X, y, u, gamma):
    """Checked ``(X, u)`` and the hinge loss summed over the rows of X.

    A 2-d X with no rows is a run without mistakes: ``(None, u, 0.0)``.
    """
    shape = X.shape if sp.issparse(X) else np.shape(X)
    if len(shape) == 2 and shape[0] == 0:
        return None, check_comparator(u, shape[1]), 0.0
    X, y = check_sequence(X, y)
    u = check_comparator(u, X.shape[1])
    return X, u, float(np.sum(hinge_losses(X, y, u, gamma)))


def higher_order_bound(hinge_loss, gamma, c):
    r"""Eq. (2) of Brotto, Gentile & Vitale (2007), Theorem 1.

    Parameters
    ----------
    hinge_loss : float
        :math:`D_\gamma(u; \tilde S_c)`, the hinge loss of a unit comparator
        u at margin γ on the transformed sequence of Eq. (1) (see
        :func:`higher_order_sequence_bound`); ``>= 0``.
    gamma : float
        Margin γ > 0; any value gives a valid bound.
    c : float
        The c of Theorem 1's condition on the :math:`\rho_k`, in (0, 1] (see
        :func:`higher_order_condition`; HO₂(c_HO) with
        :math:`\rho_k = c_{HO}/k` satisfies it with ``c = 1 - c_HO``).

    Returns
    -------
    bound : float
        :math:`\alpha D/\gamma + \alpha^2/(2\gamma^2) + (\alpha/\gamma)
        \sqrt{\alpha D/\gamma + \alpha^2/(4\gamma^2)}`,
        :math:`\alpha = (2 - c)/c`.

    Raises
    ------
    ValueError
        If ``hinge_loss`` is negative, ``gamma`` is not > 0, ``c`` is not in
        (0, 1], or any is not a finite real number.

    Examples
    --------
    >>> from perceptrons.bounds import higher_order_bound
    >>> higher_order_bound(0.0, 0.5, 1.0)  # c = 1: Novikoff's (1/γ)²
    4.0
    >>> higher_order_bound(0.0, 1.0, 0.5)  # α = 3: α²/γ²
    9.0
    """
    D = check_nonnegative(hinge_loss, "hinge_loss")
    gamma = check_positive(gamma, "gamma")
    c = _check_c(c)
    alpha = (2.0 - c) / c
    linear = alpha * D / gamma
    return (linear + alpha**2 / (2.0 * gamma**2)
            + alpha / gamma * math.sqrt(linear + alpha**2 / (4.0 * gamma**2)))


def higher_order_condition(rhos, v_dots):
    r"""Largest c with :math:`\rho_k \le (1 - c)/(1 + |v_{k-1}^\top x_t|)` for all k.

    Parameters
    ----------
    rhos : array-like of shape (n_mistakes,)
        :math:`\rho_k` used on each mistake of a run, in order; ``>= 0``.
    v_dots : array-like of shape (n_mistakes,)
        :math:`v_{k-1}^\top x_{t(k)}` on each mistake, before the update.

    Returns
    -------
    c : float
        :math:`\min\{1, \min_k 1 - \rho_k(1 + |v_{k-1}^\top x_{t(k)}|)\}`, the
        largest c for which the run meets the condition of Theorem 1 of
        Brotto, Gentile & Vitale (2007); 1 for a run with no mistakes or only
        :math:`\rho_k = 0`. A value ``<= 0`` means no c in (0, 1] works: the
        theorem does not apply to the run.

    Raises
    ------
    ValueError
        If the arrays are not 1-d of equal length, are not finite, or a
        :math:`\rho_k` is negative.

    Examples
    --------
    >>> from perceptrons.bounds import higher_order_condition
    >>> higher_order_condition([0.4, 0.2, 0.0], [0.0, -1.0, 5.0])
    0.6
    """
    rhos = np.asarray(rhos, dtype=np.float64)
    v_dots = np.asarray(v_dots, dtype=np.float64)
    if rhos.ndim != 1 or v_dots.shape != rhos.shape:
        raise ValueError(
            "rhos and v_dots must be 1-d arrays of the same length, got shapes "
            f"{rhos.shape} and {v_dots.shape}.")
    if not (np.all(np.isfinite(rhos)) and np.all(np.isfinite(v_dots))):
        raise ValueError("rhos and v_dots must be finite.")
    if np.any(rhos < 0.0):
        raise ValueError("rhos must be >= 0 (Theorem 1 needs 0 <= rho_k).")
    if rhos.size == 0:
        return 1.0
    return float(min(1.0, np.min(1.0 - rhos * (1.0 + np.abs(v_dots)))))


def higher_order_sequence_bound(X_transformed, y, u, gamma, c):
    r"""Eq. (2) on a run's transformed sequence :math:`\tilde S_c` of Eq. (1).

    Parameters
    ----------
    X_transformed : array-like or sparse matrix of shape (n_mistakes, n_features)
        :math:`B_{k-1} x_{t(k)}`, one row per mistake, in order; no rows for a
        run without mistakes.
    y : array-like of shape (n_mistakes,)
        :math:`y_{t(k)}` in {-1, +1}.
    u : array-like of shape (n_features,)
        Comparator; any non-zero vector (normalised to unit norm).
    gamma : float
        Margin γ > 0.
    c : float
        c of Theorem 1, in (0, 1] (see :func:`higher_order_condition`).

    Returns
    -------
    bound : float
        :func:`higher_order_bound` of
        :math:`D_\gamma(u; \tilde S_c) = \sum_k \max\{0, \gamma - y_{t(k)}
        u^\top B_{k-1} x_{t(k)}\}`.

    Raises
    ------
    ValueError
        As :func:`perceptrons.bounds.hinge_losses` and
        :func:`higher_order_bound`.

    Examples
    --------
    >>> from perceptrons.bounds import higher_order_sequence_bound
    >>> round(higher_order_sequence_bound([[0.5, 0.0]], [1], [1.0, 0.0], 1.0, 1.0), 4)
    1.866
    """
    return higher_order_bound(_rows_and_loss(X_transformed, y, u, gamma)[2], gamma, c)


def second_order_bound(hinge_loss, gamma, a, comparator_term, eigenvalues):
    r"""The Second-order Perceptron's bound (Cesa-Bianchi et al. 2005, Thm. 1).

    Parameters
    ----------
    hinge_loss : float
        :math:`D_\gamma(u; \mathcal M)`, the hinge loss of a unit comparator
        u at margin γ over the mistaken trials (or over the whole sequence,
        a weaker bound); ``>= 0``.
    gamma : float
        Margin γ > 0.
    a : float
        SO's parameter a > 0 (:math:`aI + SS^\top`).
    comparator_term : float
        :math:`u^\top X_m X_m^\top u = \sum_{t \in \mathcal M}(u^\top
        x_t)^2`; ``>= 0``.
    eigenvalues : array-like of shape (k,)
        Eigenvalues :math:`\lambda_i` of :math:`X_m X_m^\top` (or of the Gram
        matrix :math:`X_m^\top X_m`: the zero ones add nothing). Rounding
        noise below zero (``>= -1e-9 * (1 + max|λ|)``) is clipped to 0.

    Returns
    -------
    bound : float
        :math:`D/\gamma + \gamma^{-1}\sqrt{(a + u^\top X_m X_m^\top u)
        \sum_i \ln(1 + \lambda_i/a)}`.

    Raises
    ------
    ValueError
        If a scalar is out of range or not finite, or an eigenvalue is not
        finite or clearly negative.

    Examples
    --------
    >>> import math
    >>> from perceptrons.bounds import second_order_bound
    >>> round(second_order_bound(0.0, 1.0, 1.0, 1.0, [math.e**2 - 1]), 12)
    2.0
    """
    D = check_nonnegative(hinge_loss, "hinge_loss")
    gamma = check_positive(gamma, "gamma")
    a = check_positive(a, "a")
    q = check_nonnegative(comparator_term, "comparator_term")
    lam = np.asarray(eigenvalues, dtype=np.float64).ravel()
    if not np.all(np.isfinite(lam)):
        raise ValueError("eigenvalues must be finite.")
    if lam.size and lam.min() < -1e-9 * (1.0 + np.max(np.abs(lam))):
        raise ValueError(
            f"eigenvalues must be >= 0 (those of a Gram matrix), got {lam.min()}.")
    log_det = float(np.sum(np.log1p(np.clip(lam, 0.0, None) / a)))
    return D / gamma + math.sqrt((a + q) * log_det) / gamma


def second_order_sequence_bound(X_mistakes, y, u, gamma, a):
    r"""Theorem 1 of Cesa-Bianchi et al. (2005) from a run's mistaken instances.

    Parameters
    ----------
    X_mistakes : array-like or sparse matrix of shape (n_mistakes, n_features)
        The instances of the mistaken trials (as the algorithm saw them, e.g.
        normalised), one per row; no rows for a run without mistakes.
    y : array-like of shape (n_mistakes,)
        Their labels in {-1, +1}.
    u : array-like of shape (n_features,)
        Comparator; any non-zero vector (normalised to unit norm).
    gamma : float
        Margin γ > 0.
    a : float
        SO's parameter a > 0.

    Returns
    -------
    bound : float
        :func:`second_order_bound` with the hinge loss over the rows, the
        comparator term :math:`\sum_t (u^\top x_t)^2` and the eigenvalues of
        their Gram matrix; 0 without mistakes.

    Raises
    ------
    ValueError
        As :func:`perceptrons.bounds.hinge_losses` and
        :func:`second_order_bound`.

    Examples
    --------
    >>> from perceptrons.bounds import second_order_sequence_bound
    >>> round(second_order_sequence_bound([[1.0, 0.0]], [1], [1.0, 0.0], 1.0, 1.0), 4)
    1.1774
    """
    X, u, D = _rows_and_loss(X_mistakes, y, u, gamma)
    if X is None:
        return second_order_bound(0.0, gamma, a, 0.0, [])
    projections = np.asarray(X @ u, dtype=np.float64).ravel()
    # The smaller of the two Gram matrices has the same non-zero eigenvalues.
    G = X @ X.T if X.shape[0] <= X.shape[1] else X.T @ X
    G = G.toarray() if sp.issparse(G) else np.asarray(G)
    lam = np.linalg.eigvalsh((G + G.T) / 2.0)
    return second_order_bound(D, gamma, a, float(projections @ projections), lam)
