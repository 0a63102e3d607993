r"""Mistake bounds of the Ballseptron, binary (Sec. 3) and multiclass (Sec. 4).

The Ballseptron with radius :math:`r` makes :math:`\varepsilon` prediction
mistakes and :math:`\tilde\varepsilon` margin errors. For any unit :math:`u`
and :math:`0 < \gamma \le R`, with :math:`D_1, D_2` the one- and two-norm of
the hinge losses (see :mod:`perceptrons.bounds._mistake_bounds`), if
:math:`0 \le r < (\sqrt2 - 1)\gamma`:

.. math::

    \beta = \tfrac12 - \frac{r}{\gamma} - \tfrac12\Big(\frac{r}{\gamma}\Big)^2,

    \varepsilon \le \Big(\frac{R + D_2}{\gamma}\Big)^2
    - \beta\tilde\varepsilon
    \quad\text{(Thm. 1; Cor. 1 with the } \beta\tilde\varepsilon
    \text{ term)},

    \varepsilon \le \Big(\frac{R + \sqrt{\gamma D_1}}{\gamma}\Big)^2
    - \beta\tilde\varepsilon
    \quad\text{(Thm. 2; Eq. (17) with the } \beta\tilde\varepsilon
    \text{ term)}.

Multiclass (Sec. 4). The comparator is a set of prototypes
:math:`u^1, \dots, u^k` with :math:`\sum_i \|u^i\|^2 = 1`, the hinge loss
:math:`\ell_t = \max\{0, \max_{y \ne y_t} \gamma - (u^{y_t} - u^y)\cdot x_t\}`
and :math:`R = \sqrt2 \max_t \|x_t\|`. The paper states only that "slightly
weaker versions" of the bounds above hold and omits the proof. Our reading,
which the functions here implement: stack the prototypes into one vector of
:math:`\mathbb{R}^{kd}`; an update adds :math:`\Phi = (\dots, \hat x, \dots,
-\hat x, \dots)` with :math:`\|\Phi\|^2 = 2\|\hat x\|^2 < 2\|x\|^2 + 2r^2`,
and :math:`U\cdot\Phi \ge \gamma - \ell_t - r\|u^{y_t} - u^{\tilde y_t}\|
\ge \gamma - \ell_t - \sqrt2 r`. The binary proof then goes through word for
word with R as above and the *effective radius* :math:`r' = \sqrt2\, r`: the
four bounds hold with :math:`\beta` evaluated at :math:`r'`, for
:math:`\sqrt2\, r < (\sqrt2 - 1)\gamma`.

Several epochs form one longer sequence: pass ``n_passes`` as in
:func:`perceptrons.bounds.mistake_bounds`, with the mistakes and margin errors
of all passes.

References
----------
.. [1] S. Shalev-Shwartz and Y. Singer. A New Perspective on an Old Perceptron
   Algorithm. In *Proc. COLT 2005*, LNCS 3559, pp. 264-278, 2005.
   https://doi.org/10.1007/11503415_18
"""

import dataclasses
import math

import numpy as np

from ._mistake_bounds import (
    _BoundsRecord,
    _check_bound_scalars,
    _d1_form,
    _d2_form,
    _loss_norms,
    _max_row_norm,
    _sequence_terms,
)
from ._validation import (
    check_comparator,
    check_count,
    check_instances,
    check_n_passes,
    check_nonnegative,
    check_positive,
)

__all__ = [
    "BallseptronBounds",
    "ballseptron_beta",
    "ballseptron_bounds",
    "ballseptron_d1_bound",
    "ballseptron_d2_bound",
    "multiclass_ballseptron_bounds",
    "multiclass_hinge_losses",
    "multiclass_radius",
]

_MAX_RATIO = math.sqrt(2.0) - 1.0


# ---------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------


def _check_radius(radius, gamma):
    radius = check_nonnegative(radius, "radius")
    if not radius < _MAX_RATIO * gamma:
        raise ValueError(
            f"the Ballseptron bounds need radius < (sqrt(2) - 1) * gamma "
            f"= {_MAX_RATIO * gamma!r}, got radius={radius!r} (Thm. 1 of "
            "Shalev-Shwartz & Singer, 2005).")
    return radius


def _minus_margin_errors(form, R, gamma, D, D_name, radius, n_margin_errors):
    """Check the scalars, then ``form(R, gamma, D) - beta * n_margin_errors``.

    ``form`` is the Perceptron bound the Ballseptron bound reduces to at
    ``radius = n_margin_errors = 0`` (:func:`_d2_form` or :func:`_d1_form`).
    """
    R, gamma, D = _check_bound_scalars(R, gamma, D, D_name)
    radius = _check_radius(radius, gamma)
    n_margin_errors = check_count(n_margin_errors, "n_margin_errors", 0)
    if (radius > 0.0 or n_margin_errors > 0) and gamma > R:
        raise ValueError(
            f"Thm. 1 of Shalev-Shwartz & Singer (2005) assumes gamma <= R; "
            f"got gamma={gamma!r} > R={R!r}.")
    beta = ballseptron_beta(radius, gamma)
    return form(R, gamma, D) - beta * n_margin_errors


# ---------------------------------------------------------------------------
# Scalar bounds
# ---------------------------------------------------------------------------


def ballseptron_beta(radius, gamma):
    r"""The constant :math:`\beta = \tfrac12 - r/\gamma - \tfrac12 (r/\gamma)^2`.

    Parameters
    ----------
    radius : float
        Ballseptron radius r >= 0.
    gamma : float
        Target margin γ > 0.

    Returns
    -------
    beta : float
        β of Cor. 1 and Eq. (17) of Shalev-Shwartz & Singer (2005); in
        ``(0, 1/2]`` for ``0 <= r < (sqrt(2) - 1) γ``.

    Raises
    ------
    ValueError
        If ``radius`` is negative or ``gamma`` not > 0, or
        ``radius >= (sqrt(2) - 1) * gamma``.

    Examples
    --------
    >>> from perceptrons.bounds import ballseptron_beta
    >>> ballseptron_beta(0.0, 1.0), ballseptron_beta(0.25, 1.0)
    (0.5, 0.21875)
    """
    gamma = check_positive(gamma, "gamma")
    radius = _check_radius(radius, gamma)
    ratio = radius / gamma
    return 0.5 - ratio - 0.5 * ratio * ratio


def ballseptron_d2_bound(R, gamma, D2, radius=0.0, n_margin_errors=0):
    r"""Thm. 1 and Cor. 1: :math:`((R + D_2)/\gamma)^2 - \beta\tilde\varepsilon`.

    Parameters
    ----------
    R : float
        Radius of the sequence, :math:`\max_t \|x_t\|` (multiclass:
        :math:`\sqrt2 \max_t \|x_t\|`, see :func:`multiclass_radius`).
    gamma : float
        Target margin, ``0 < gamma <= R`` (when ``radius > 0`` or
        ``n_margin_errors > 0``; any γ > 0 otherwise, as
        :func:`perceptrons.bounds.freund_schapire_bound`).
    D2 : float
        Two-norm of the comparator's hinge losses, Eq. (2).
    radius : float, default=0.0
        The Ballseptron's r (multiclass: the effective radius √2 r);
        ``0 <= radius < (sqrt(2) - 1) * gamma``.
    n_margin_errors : int, default=0
        ε̃, the margin errors the Ballseptron made on the sequence; 0 gives
        Thm. 1 itself.

    Returns
    -------
    bound : float
        Upper bound on the prediction mistakes ε.

    Raises
    ------
    ValueError
        On a negative or non-finite argument, or when the theorem's
        assumptions on ``radius`` and ``gamma`` do not hold.

    Examples
    --------
    >>> from perceptrons.bounds import ballseptron_d2_bound
    >>> ballseptron_d2_bound(1.0, 0.5, 1.0)
    16.0
    >>> ballseptron_d2_bound(1.0, 0.5, 1.0, radius=0.125, n_margin_errors=8)
    14.25
    """
    return _minus_margin_errors(
        _d2_form, R, gamma, D2, "D2", radius, n_margin_errors)


def ballseptron_d1_bound(R, gamma, D1, radius=0.0, n_margin_errors=0):
    r"""Thm. 2 and Eq. (17): :math:`((R + \sqrt{\gamma D_1})/\gamma)^2 - \beta\tilde\varepsilon`.

    Parameters
    ----------
    R, gamma, radius, n_margin_errors
        As in :func:`ballseptron_d2_bound` (``n_margin_errors=0`` gives
        Thm. 2 itself).
    D1 : float
        One-norm of the comparator's hinge losses, Eq. (4).

    Returns
    -------
    bound : float
        Upper bound on the prediction mistakes ε; ValueError as
        :func:`ballseptron_d2_bound`.

    Examples
    --------
    >>> from perceptrons.bounds import ballseptron_d1_bound
    >>> ballseptron_d1_bound(1.0, 0.25, 4.0)
    64.0
    >>> ballseptron_d1_bound(1.0, 0.25, 4.0, radius=0.0625, n_margin_errors=10)
    61.8125
    """
    return _minus_margin_errors(
        _d1_form, R, gamma, D1, "D1", radius, n_margin_errors)


# ---------------------------------------------------------------------------
# Multiclass quantities
# ---------------------------------------------------------------------------


def multiclass_radius(X):
    r"""R of Sec. 4: :math:`\sqrt2 \max_t \|x_t\|`.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        Instances, one per row. Finite.

    Returns
    -------
    R : float

    Raises
    ------
    ValueError
        If ``X`` is not a finite non-empty 2-d array.

    Examples
    --------
    >>> from perceptrons.bounds import multiclass_radius
    >>> round(multiclass_radius([[3.0, 4.0], [0.0, -2.0]]) ** 2, 10)
    50.0
    """
    return math.sqrt(2.0) * _max_row_norm(check_instances(X))


def _check_multiclass(X, y, U):
    X = check_instances(X)
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(
            f"y must be 1-d with one label per row of X ({X.shape[0]}), got "
            f"shape {y.shape}.")
    U = np.asarray(U)
    if U.dtype.kind not in "biuf" or U.ndim != 2 or U.shape[1] != X.shape[1]:
        raise ValueError(
            f"U must be a real (n_classes, {X.shape[1]}) matrix of "
            f"prototypes, got shape {U.shape} and dtype {U.dtype}.")
    n_classes = U.shape[0]
    if n_classes < 2:
        raise ValueError("U must have at least two prototypes.")
    if y.dtype.kind not in "iu" and not (
            y.dtype.kind == "f" and np.all(y == np.rint(y))):
        raise ValueError(
            "y must hold class indices 0..n_classes-1 (rows of U).")
    y = y.astype(np.int64)
    if y.min() < 0 or y.max() >= n_classes:
        raise ValueError(
            f"y must hold class indices in 0..{n_classes - 1} (rows of U), "
            f"found {int(y.min())}..{int(y.max())}.")
    flat = check_comparator(U.ravel(), U.size)
    return X, y, flat.reshape(U.shape)


def multiclass_hinge_losses(X, y, U, gamma):
    r"""Multiclass hinge losses of Sec. 4.

    :math:`\ell_t = \max\{0, \max_{y \ne y_t} \gamma - (u^{y_t} - u^y)\cdot
    x_t\}`.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        Instances, one per row. Finite.
    y : array-like of shape (n_samples,)
        Class indices ``0..n_classes-1``, rows of ``U``.
    U : array-like of shape (n_classes, n_features)
        Comparator prototypes; any non-zero matrix, normalised so that
        :math:`\sum_i \|u^i\|^2 = 1` (the paper's assumption).
    gamma : float
        Target margin γ > 0.

    Returns
    -------
    losses : ndarray of shape (n_samples,), float64

    Raises
    ------
    ValueError
        On invalid ``X``, ``y``, ``U`` or ``gamma``.

    Examples
    --------
    >>> import numpy as np
    >>> from perceptrons.bounds import multiclass_hinge_losses
    >>> U = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])  # ‖U‖_F = 2
    >>> multiclass_hinge_losses([[4.0, 0.0], [2.0, 2.0]], [0, 1], U, 1.0)
    array([0., 1.])
    """
    X, y, U = _check_multiclass(X, y, U)
    gamma = check_positive(gamma, "gamma")
    scores = np.asarray(X @ U.T, dtype=np.float64)
    if not np.all(np.isfinite(scores)):
        raise ValueError("u·x_t overflowed to infinity; rescale X.")
    rows = np.arange(X.shape[0])
    true = scores[rows, y]
    others = scores.copy()
    others[rows, y] = -np.inf
    return np.maximum(0.0, gamma - (true - others.max(axis=1)))


# ---------------------------------------------------------------------------
# Everything at once
# ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class BallseptronBounds(_BoundsRecord):
    r"""The Ballseptron's four mistake bounds for one sequence and comparator.

    Returned by :func:`ballseptron_bounds` and
    :func:`multiclass_ballseptron_bounds`; all fields are plain numbers.

    Attributes
    ----------
    R : float
        Radius of the sequence (multiclass: :math:`\sqrt2 \max_t\|x_t\|`).
    gamma : float
        Target margin γ.
    radius : float
        The Ballseptron's r.
    effective_radius : float
        r in the binary case, √2 r in the multiclass case: the radius the
        bounds are evaluated at.
    beta : float
        β at the effective radius.
    D1, D2 : float
        Eqs. (4) and (2) over the (repeated) sequence.
    n_margin_errors : int
        ε̃.
    n_passes : int
    thm1, thm2 : float
        :math:`((R + D_2)/\gamma)^2` and :math:`((R + \sqrt{\gamma D_1})/\gamma)^2`.
    cor1, eq17 : float
        The same minus :math:`\beta\tilde\varepsilon` (Cor. 1, Eq. (17)).
    """

    R: float
    gamma: float
    radius: float
    effective_radius: float
    beta: float
    D1: float
    D2: float
    n_margin_errors: int
    n_passes: int
    thm1: float
    thm2: float
    cor1: float
    eq17: float

    @property
    def best(self):
        """float: The smallest of the four bounds (all hold at once)."""
        return min(self.thm1, self.thm2, self.cor1, self.eq17)


def _assemble(R, gamma, losses, radius, n_margin_errors, n_passes, multiclass):
    """Check ``radius`` and ``n_margin_errors``; the four bounds of the losses.

    The effective radius is ``radius``, or √2 ``radius`` when ``multiclass``.
    """
    radius = check_nonnegative(radius, "radius")
    effective = math.sqrt(2.0) * radius if multiclass else radius
    n_margin_errors = check_count(n_margin_errors, "n_margin_errors", 0)
    D1, D2 = _loss_norms(losses, n_passes)
    return BallseptronBounds(
        R=R, gamma=gamma, radius=radius, effective_radius=effective,
        beta=ballseptron_beta(effective, gamma), D1=D1, D2=D2,
        n_margin_errors=n_margin_errors, n_passes=n_passes,
        thm1=ballseptron_d2_bound(R, gamma, D2, effective),
        thm2=ballseptron_d1_bound(R, gamma, D1, effective),
        cor1=ballseptron_d2_bound(R, gamma, D2, effective, n_margin_errors),
        eq17=ballseptron_d1_bound(R, gamma, D1, effective, n_margin_errors),
    )


def ballseptron_bounds(X, y, u, gamma, *, radius=0.0, n_margin_errors=0,
                       n_passes=1):
    r"""Thm. 1, Thm. 2, Cor. 1 and Eq. (17) for a binary sequence.

    Parameters
    ----------
    X, y, u
        The binary sequence and the comparator, as in
        :func:`perceptrons.bounds.mistake_bounds`.
    gamma : float
        Target margin, ``0 < gamma <= max_t ‖x_t‖``.
    radius : float, default=0.0
        The Ballseptron's r, ``< (sqrt(2) - 1) * gamma``.
    n_margin_errors : int, default=0
        ε̃ over all passes.
    n_passes : int, default=1
        Passes over the sequence the mistakes were counted on.

    Returns
    -------
    bounds : BallseptronBounds

    Raises
    ------
    ValueError
        On invalid input or when the theorems' assumptions fail.

    Examples
    --------
    >>> from perceptrons.bounds import ballseptron_bounds
    >>> b = ballseptron_bounds([[3.0, 4.0], [0.0, -2.0]], [1, -1], [0.0, 1.0],
    ...                        2.0, radius=0.5, n_margin_errors=4)
    >>> b.thm1, b.cor1, round(b.beta, 4)
    (6.25, 5.375, 0.2188)
    """
    R, gamma, n_passes, _, losses = _sequence_terms(X, y, u, gamma, n_passes)
    return _assemble(R, gamma, losses, radius, n_margin_errors, n_passes,
                     multiclass=False)


def multiclass_ballseptron_bounds(X, y, U, gamma, *, radius=0.0,
                                  n_margin_errors=0, n_passes=1):
    r"""The four bounds for the multiclass Ballseptron of Sec. 4.

    R is :math:`\sqrt2 \max_t \|x_t\|`, the losses are
    :func:`multiclass_hinge_losses`, and the bounds are evaluated at the
    effective radius √2 r (module notes: our derivation of the paper's
    "slightly weaker versions").

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        Instances, one per row. Finite.
    y : array-like of shape (n_samples,)
        Class indices ``0..n_classes-1``.
    U : array-like of shape (n_classes, n_features)
        Comparator prototypes, normalised to :math:`\sum_i \|u^i\|^2 = 1`.
    gamma : float
        Target margin, ``0 < gamma <= R``.
    radius : float, default=0.0
        The Ballseptron's r, ``sqrt(2) * r < (sqrt(2) - 1) * gamma``.
    n_margin_errors : int, default=0
    n_passes : int, default=1

    Returns
    -------
    bounds : BallseptronBounds

    Raises
    ------
    ValueError
        On invalid input or when the assumptions fail.

    Examples
    --------
    >>> import numpy as np
    >>> from perceptrons.bounds import multiclass_ballseptron_bounds
    >>> U = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    >>> b = multiclass_ballseptron_bounds([[4.0, 0.0], [2.0, 2.0]], [0, 1], U,
    ...                                   1.0)
    >>> round(b.R, 4), b.D1, round(b.thm2, 4)
    (5.6569, 1.0, 44.3137)
    """
    losses = multiclass_hinge_losses(X, y, U, gamma)
    gamma = float(gamma)
    n_passes = check_n_passes(n_passes)
    R = multiclass_radius(X)
    return _assemble(R, gamma, losses, radius, n_margin_errors, n_passes,
                     multiclass=True)
