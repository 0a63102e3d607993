r"""Mistake bounds of the Perceptron through the origin (binary case).

The Perceptron starts from :math:`w_1 = 0`, predicts
:math:`\hat y_t = \mathrm{sign}(w_t \cdot x_t)` and, whenever
:math:`y_t (w_t \cdot x_t) \le 0` (a prediction mistake; ties count as
mistakes), updates :math:`w_{t+1} = w_t + y_t x_t`. Let :math:`\varepsilon` be
the number of such mistakes on the sequence :math:`(x_1, y_1), \dots,
(x_T, y_T)`. For any unit vector :math:`u` and any :math:`\gamma > 0`:

.. math::

    R = \max_t \|x_t\|, \qquad
    \ell_t = \max\{0,\ \gamma - y_t\, u \cdot x_t\}, \qquad
    D_1 = \sum_t \ell_t, \qquad
    D_2 = \Big(\sum_t \ell_t^2\Big)^{1/2},

    \varepsilon \le \Big(\frac{R}{\gamma}\Big)^2 \ \text{ if } D_1 = 0
    \ \text{(Novikoff, Eq. (1) of [1]_)}, \qquad
    \varepsilon \le \Big(\frac{R + D_2}{\gamma}\Big)^2
    \ \text{(Freund--Schapire, Eq. (3))}, \qquad
    \varepsilon \le \Big(\frac{R + \sqrt{\gamma D_1}}{\gamma}\Big)^2
    \ \text{(Thm. 2 of [1]_ at } r = 0).

The bounds depend on the sequence only through R, D1 and D2, which do not
depend on the order of the examples. Several epochs are one longer sequence:
E passes over the same T examples (in any order, shuffled or not) have the
same R, :math:`D_1^{(E)} = E\,D_1` and :math:`D_2^{(E)} = \sqrt{E}\,D_2`; pass
``n_passes=E``. A single-pass D must not be used with the mistakes of several
epochs (on noisy data the mistakes grow linearly in E, that bound does not).

The Ballseptron bounds of [1]_ with radius :math:`r` and
:math:`\tilde\varepsilon` margin errors (Thm. 1, Cor. 1 and Eq. (17), which
reduce to these two at ``r = 0, n_margin_errors = 0``) and their multiclass
versions (Sec. 4) are in :mod:`perceptrons.bounds._ballseptron_bounds`; the
input checks they share live in :mod:`perceptrons.bounds._validation`.

.. warning::

    These are bounds for the Perceptron *through the origin* (threshold
    :math:`\theta = 0`, never updated). For a thresholded Perceptron run the
    origin Perceptron on :func:`augment` ``(X, c)`` and compute the bounds on
    the augmented data with the augmented comparator (see :func:`augment`).
    Khardon & Wachman [2]_ quote the inseparable bound as
    :math:`(2(R + D)/\gamma)^2` for a hyperplane *with threshold*; the factor 2
    comes from that augmentation. The origin bound implemented here is the one
    stated by Freund & Schapire [3]_ and by Eq. (3) of [1]_, without the 2.

References
----------
.. [1] S. Shalev-Shwartz and Y. Singer. A New Perspective on an Old Perceptron
   Algorithm. In *Proc. COLT 2005*, LNCS 3559, pp. 264-278, 2005.
   https://doi.org/10.1007/11503415_18
.. [2] R. Khardon and G. Wachman. Noise Tolerant Variants of the Perceptron
   Algorithm. *JMLR* 8:227-248, 2007.
   https://jmlr.org/papers/v8/khardon07a.html
.. [3] Y. Freund and R. E. Schapire. Large Margin Classification Using the
   Perceptron Algorithm. *Machine Learning* 37(3):277-296, 1999.
   https://doi.org/10.1023/A:1007662407062
.. [4] A. B. J. Novikoff. On Convergence Proofs on Perceptrons. In *Proc.
   Symposium on the Mathematical Theory of Automata*, vol. 12, pp. 615-622,
   1962.
"""

import dataclasses
import math

import numpy as np
import scipy.sparse as sp

from .._loops._common import row_sq_norms
from ..utils.validation import as_loop_arrays
from ._validation import (
    check_comparator,
    check_instances,
    check_n_passes,
    check_nonnegative,
    check_positive,
    check_sequence,
)

__all__ = [
    "MistakeBounds",
    "augment",
    "comparator_margin",
    "d1",
    "d1_bound",
    "d2",
    "freund_schapire_bound",
    "hinge_losses",
    "mistake_bounds",
    "novikoff_bound",
    "radius",
]


# ---------------------------------------------------------------------------
# Quantities of the sequence
# ---------------------------------------------------------------------------


def _max_row_norm(X):
    """``R = max_t ‖x_t‖`` for a validated X (dense or CSR); raises on overflow.

    The squared norms come from the loops' own summation
    (:func:`~perceptrons._loops._common.row_sq_norms`), which gives a dense
    row and its CSR twin the same bits: R, and a γ chosen as a fraction of
    it, do not depend on the storage.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X, copy=True)
        X.sum_duplicates()  # also sorts the indices, as the lanes need
        X.indices = X.indices.astype(np.int64)
        X.indptr = X.indptr.astype(np.int64)
    else:
        X = np.ascontiguousarray(X, dtype=np.float64)
    R = math.sqrt(float(np.max(row_sq_norms(*as_loop_arrays(X), X.shape[0]))))
    if not math.isfinite(R):
        raise ValueError("The norm of a row of X overflowed; rescale X.")
    return R


def _signed_margins(X, y, u):
    """``y_t u·x_t`` for a validated X (dense or CSR), y and unit u."""
    scores = np.asarray(X @ u, dtype=np.float64).ravel()
    margins = y * scores
    if not np.all(np.isfinite(margins)):
        raise ValueError(
            "u·x_t overflowed to infinity; rescale X before computing bounds."
        )
    return margins


def _check_problem(X, y, u, gamma):
    """Validate a sequence, a comparator (normalised) and γ, in that order."""
    X, y = check_sequence(X, y)
    u = check_comparator(u, X.shape[1])
    return X, y, u, check_positive(gamma, "gamma")


def _sequence_terms(X, y, u, gamma, n_passes):
    """Checked γ and n_passes, R, the margins y_t u·x_t and the hinge losses.

    The common first half of :func:`mistake_bounds` and the binary
    :func:`perceptrons.bounds.ballseptron_bounds`.
    """
    X, y, u, gamma = _check_problem(X, y, u, gamma)
    n_passes = check_n_passes(n_passes)
    R = _max_row_norm(X)
    margins = _signed_margins(X, y, u)
    return R, gamma, n_passes, margins, np.maximum(0.0, gamma - margins)


def _loss_norms(losses, n_passes):
    """D1 and D2 of the losses over ``n_passes`` presentations of the sequence."""
    D1 = n_passes * float(np.sum(losses))
    D2 = math.sqrt(n_passes) * float(np.linalg.norm(losses))
    return D1, D2


def radius(X):
    r"""Radius of the sequence, :math:`R = \max_t \|x_t\|`.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        Instances :math:`x_1, \dots, x_T`, one per row.

    Returns
    -------
    R : float
        The largest Euclidean norm of a row: R in Eq. (1) and Thm. 1 of
        Shalev-Shwartz & Singer (2005).

    Raises
    ------
    ValueError
        If ``X`` is not 2-d, is empty, or is not finite.

    See Also
    --------
    augment : add a constant coordinate (a bias) to every instance.

    Examples
    --------
    >>> from perceptrons.bounds import radius
    >>> radius([[3.0, 4.0], [0.0, -2.0]])
    5.0
    """
    return _max_row_norm(check_instances(X))


def comparator_margin(X, y, u):
    r"""Margin attained by the comparator, :math:`\min_t y_t\, u \cdot x_t / \|u\|`.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        Instances, one per row.
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}.
    u : array-like of shape (n_features,)
        Comparator; any non-zero vector (it is normalised to unit norm).

    Returns
    -------
    margin : float
        The largest γ for which ``u`` separates the sequence with margin γ
        (Sec. 1 of Shalev-Shwartz & Singer, 2005). It is ``<= 0`` when ``u``
        does not separate the sequence; a margin ``> 0`` makes Novikoff's
        bound :func:`novikoff_bound` applicable with any γ up to it.

    Raises
    ------
    ValueError
        On invalid ``X``, ``y`` or ``u`` (see :func:`hinge_losses`).

    Examples
    --------
    >>> from perceptrons.bounds import comparator_margin
    >>> comparator_margin([[3.0, 4.0], [0.0, -2.0]], [1, -1], [0.0, 2.0])
    2.0
    """
    X, y = check_sequence(X, y)
    u = check_comparator(u, X.shape[1])
    return float(np.min(_signed_margins(X, y, u)))


def hinge_losses(X, y, u, gamma):
    r"""Hinge losses of the comparator, :math:`\ell_t = \max\{0, \gamma - y_t u \cdot x_t\}`.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        Instances :math:`x_t`, one per row. Must be finite.
    y : array-like of shape (n_samples,)
        Labels :math:`y_t`, each exactly -1 or +1.
    u : array-like of shape (n_features,)
        Comparator. The theorems assume :math:`\|u\| = 1`; any non-zero
        vector is accepted and normalised to unit norm here, so ``u`` and
        ``5 * u`` give the same losses.
    gamma : float
        Target margin γ > 0.

    Returns
    -------
    losses : ndarray of shape (n_samples,), float64
        :math:`\ell_t` as defined in Sec. 1 of Shalev-Shwartz & Singer (2005)
        (just above Eq. (2)); Freund & Schapire's (1999) deviation
        :math:`d_t`.

    Raises
    ------
    ValueError
        If ``X`` is not a finite non-empty 2-d array; if ``y`` has another
        length or values other than ±1; if ``u`` has the wrong length, is not
        finite or is zero; if ``gamma`` is not a finite number > 0.

    Notes
    -----
    :math:`\ell_t = 0` exactly when :math:`x_t` is on the side of ``u``'s
    hyperplane given by :math:`y_t` at distance at least γ. The losses of the
    unnormalised vector would be those of a different comparator/margin pair,
    :math:`(u/\|u\|, \gamma/\|u\|)` rescaled by :math:`\|u\|`, which is why
    ``u`` is normalised rather than used as given.

    Examples
    --------
    >>> from perceptrons.bounds import hinge_losses
    >>> hinge_losses([[3.0, 4.0], [0.0, -2.0]], [1, -1], [0.0, 2.0], gamma=3.0)
    array([0., 1.])
    """
    X, y, u, gamma = _check_problem(X, y, u, gamma)
    return np.maximum(0.0, gamma - _signed_margins(X, y, u))


def d1(X, y, u, gamma, *, n_passes=1):
    r"""One-norm of the hinge losses, :math:`D_1 = \sum_t \ell_t` (Eq. (4)).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        Instances, one per row.
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}.
    u : array-like of shape (n_features,)
        Comparator; normalised to unit norm.
    gamma : float
        Target margin γ > 0.
    n_passes : int, default=1
        Number of times the sequence is presented (epochs). The sum then runs
        over the concatenated sequence, so the result is ``n_passes`` times
        the single-pass D1.

    Returns
    -------
    D1 : float
        Eq. (4) of Shalev-Shwartz & Singer (2005).

    Raises
    ------
    ValueError
        As :func:`hinge_losses`, or if ``n_passes`` is not an int >= 1.

    Examples
    --------
    >>> from perceptrons.bounds import d1
    >>> d1([[3.0, 4.0], [0.0, -2.0]], [1, -1], [0.0, 1.0], gamma=3.0)
    1.0
    >>> d1([[3.0, 4.0], [0.0, -2.0]], [1, -1], [0.0, 1.0], gamma=3.0, n_passes=4)
    4.0
    """
    n_passes = check_n_passes(n_passes)
    return _loss_norms(hinge_losses(X, y, u, gamma), n_passes)[0]


def d2(X, y, u, gamma, *, n_passes=1):
    r"""Two-norm of the hinge losses, :math:`D_2 = (\sum_t \ell_t^2)^{1/2}` (Eq. (2)).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        Instances, one per row.
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}.
    u : array-like of shape (n_features,)
        Comparator; normalised to unit norm.
    gamma : float
        Target margin γ > 0.
    n_passes : int, default=1
        Number of times the sequence is presented (epochs). The sum then runs
        over the concatenated sequence, so the result is ``sqrt(n_passes)``
        times the single-pass D2.

    Returns
    -------
    D2 : float
        Eq. (2) of Shalev-Shwartz & Singer (2005); Freund & Schapire's D.

    Raises
    ------
    ValueError
        As :func:`hinge_losses`, or if ``n_passes`` is not an int >= 1.

    Examples
    --------
    >>> from perceptrons.bounds import d2
    >>> d2([[3.0, 4.0], [0.0, -2.0]], [1, -1], [0.0, 1.0], gamma=3.0, n_passes=4)
    2.0
    """
    n_passes = check_n_passes(n_passes)
    return _loss_norms(hinge_losses(X, y, u, gamma), n_passes)[1]


# ---------------------------------------------------------------------------
# The bounds, as functions of the scalars
# ---------------------------------------------------------------------------


def _check_bound_scalars(R, gamma, D, D_name):
    """R >= 0, γ > 0 and the loss norm ``D`` (named ``D_name``) >= 0."""
    R = check_nonnegative(R, "R")
    gamma = check_positive(gamma, "gamma")
    return R, gamma, check_nonnegative(D, D_name)


def _d2_form(R, gamma, D2):
    r""":math:`((R + D_2)/\gamma)^2` of checked scalars (Eq. (3), Thm. 1)."""
    return ((R + D2) / gamma) ** 2


def _d1_form(R, gamma, D1):
    r""":math:`((R + \sqrt{\gamma D_1})/\gamma)^2` of checked scalars (Thm. 2)."""
    return ((R + math.sqrt(gamma * D1)) / gamma) ** 2


def novikoff_bound(R, gamma):
    r"""Novikoff's bound :math:`(R/\gamma)^2` on the mistakes in the separable case.

    Parameters
    ----------
    R : float
        Radius, :math:`\max_t \|x_t\| \le R` (see :func:`radius`); ``>= 0``.
    gamma : float
        Margin γ > 0 attained by a unit vector ``u``:
        :math:`y_t\, u \cdot x_t \ge \gamma` for all t.

    Returns
    -------
    bound : float
        Eq. (1) of Shalev-Shwartz & Singer (2005); Novikoff (1962). The
        notes' form :math:`U^2\|w^*\|^2/\epsilon^2` is the same bound for
        an unnormalised separator.

    Raises
    ------
    ValueError
        If ``R`` is negative or ``gamma`` is not > 0 (or either is not finite).

    Notes
    -----
    The bound holds only if the data are separable with margin γ by some
    unit vector. It is the special case :math:`D_2 = 0` of
    :func:`freund_schapire_bound` and :math:`D_1 = 0` of :func:`d1_bound`.

    Examples
    --------
    >>> from perceptrons.bounds import novikoff_bound
    >>> novikoff_bound(2.0, 0.5)
    16.0
    """
    R = check_nonnegative(R, "R")
    gamma = check_positive(gamma, "gamma")
    return (R / gamma) ** 2


def freund_schapire_bound(R, gamma, D2):
    r"""Freund--Schapire bound :math:`((R + D_2)/\gamma)^2`, for any data.

    Parameters
    ----------
    R : float
        Radius (see :func:`radius`); ``>= 0``.
    gamma : float
        Target margin γ > 0; any value.
    D2 : float
        Two-norm of the hinge losses of a unit comparator at margin γ,
        Eq. (2) (see :func:`d2`); ``>= 0``.

    Returns
    -------
    bound : float
        Eq. (3) of Shalev-Shwartz & Singer (2005) (Freund & Schapire 1999,
        Thm. 2); also Thm. 1 of the former at r = 0.

    Raises
    ------
    ValueError
        If ``R`` or ``D2`` is negative, ``gamma`` is not > 0, or any is not
        finite.

    Notes
    -----
    Holds for every unit ``u`` and every γ > 0 simultaneously, so the best
    bound is the minimum over (u, γ). Thm. 1 of Shalev-Shwartz & Singer
    assumes γ <= R, but at r = 0 (the Perceptron) its proof needs no such
    assumption: the margin-error count is 0 and
    :math:`\varepsilon\gamma - \sqrt{\varepsilon}(R + D_2) \le 0` gives the
    bound directly.

    Examples
    --------
    >>> from perceptrons.bounds import freund_schapire_bound
    >>> freund_schapire_bound(1.0, 0.5, 1.0)
    16.0
    """
    return _d2_form(*_check_bound_scalars(R, gamma, D2, "D2"))


def d1_bound(R, gamma, D1):
    r"""The D1 bound :math:`((R + \sqrt{\gamma D_1})/\gamma)^2`, for any data.

    Parameters
    ----------
    R, gamma : float
        As in :func:`freund_schapire_bound`.
    D1 : float
        One-norm of the hinge losses of a unit comparator at margin γ,
        Eq. (4) (see :func:`d1`); ``>= 0``.

    Returns
    -------
    bound : float
        Theorem 2 of Shalev-Shwartz & Singer (2005) with r = 0, where the
        Ballseptron is the Perceptron; ValueError as
        :func:`freund_schapire_bound`'s, for D1.

    Notes
    -----
    The proof shows the slightly tighter
    :math:`\big((R + \sqrt{R^2 + 4\gamma D_1})/(2\gamma)\big)^2`; the
    theorem, and this function, state the simpler upper bound. It is tighter
    than :func:`freund_schapire_bound` when
    :math:`\gamma \sum_t \ell_t \le \sum_t \ell_t^2` (end of Sec. 3).

    Examples
    --------
    >>> from perceptrons.bounds import d1_bound
    >>> d1_bound(1.0, 0.25, 4.0)
    64.0
    """
    return _d1_form(*_check_bound_scalars(R, gamma, D1, "D1"))


# ---------------------------------------------------------------------------
# Everything at once
# ---------------------------------------------------------------------------


class _BoundsRecord:
    """Base of the frozen dataclasses of bounds, giving them :meth:`as_dict`."""

    def as_dict(self):
        """Return the fields as a dict (for result files).

        Returns
        -------
        fields : dict
            Field name to value.
        """
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class MistakeBounds(_BoundsRecord):
    r"""The Perceptron's mistake bounds for one sequence, comparator and margin.

    Returned by :func:`mistake_bounds`; all fields are plain floats.

    Attributes
    ----------
    R : float
        Radius :math:`\max_t \|x_t\|`.
    gamma : float
        Target margin γ.
    D1 : float
        Eq. (4) over the (repeated) sequence.
    D2 : float
        Eq. (2) over the (repeated) sequence.
    comparator_margin : float
        :math:`\min_t y_t u\cdot x_t` of the unit comparator; the data are
        separable with margin γ by ``u`` iff it is ``>= gamma``.
    n_passes : int
        Number of presentations of the sequence the bounds refer to.
    novikoff_bound : float
        :math:`(R/\gamma)^2` (Eq. (1)) if ``u`` attains margin γ
        (``D1 == 0``), else ``inf``: the theorem does not apply.
    freund_schapire_bound : float
        :math:`((R + D_2)/\gamma)^2` (Eq. (3)).
    d1_bound : float
        :math:`((R + \sqrt{\gamma D_1})/\gamma)^2` (Thm. 2, r = 0).
    """

    R: float
    gamma: float
    D1: float
    D2: float
    comparator_margin: float
    n_passes: int
    novikoff_bound: float
    freund_schapire_bound: float
    d1_bound: float

    @property
    def best(self):
        """float: The smallest of the three bounds (all hold at once)."""
        return min(self.novikoff_bound, self.freund_schapire_bound, self.d1_bound)


def mistake_bounds(X, y, u, gamma, *, n_passes=1):
    r"""All Perceptron mistake bounds of a sequence for comparator ``u`` and margin γ.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        Instances, one per row. Finite.
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}.
    u : array-like of shape (n_features,)
        Comparator; any non-zero vector, normalised to unit norm.
    gamma : float
        Target margin γ > 0. Any value gives valid bounds; for separable data
        :func:`comparator_margin` gives the largest γ at which ``D1 = 0``.
    n_passes : int, default=1
        Number of times the Perceptron goes over the sequence (epochs, in any
        order). The bounds then apply to the *total* mistakes over all passes.

    Returns
    -------
    bounds : MistakeBounds
        R, γ, D1, D2, the comparator's margin and the three bounds:
        Novikoff (Eq. (1)), Freund--Schapire (Eq. (3)) and Thm. 2 at r = 0,
        all from Shalev-Shwartz & Singer (2005).

    Raises
    ------
    ValueError
        As :func:`hinge_losses`, or if ``n_passes`` is not an int >= 1.

    Examples
    --------
    >>> from perceptrons.bounds import mistake_bounds
    >>> b = mistake_bounds([[3.0, 4.0], [0.0, -2.0]], [1, -1], [0.0, 1.0], 3.0)
    >>> b.R, b.D1, b.D2, b.comparator_margin
    (5.0, 1.0, 1.0, 2.0)
    >>> b.novikoff_bound, b.freund_schapire_bound, round(b.d1_bound, 4)
    (inf, 4.0, 5.0356)
    >>> mistake_bounds([[3.0, 4.0], [0.0, -2.0]], [1, -1], [0.0, 1.0], 2.0).best
    6.25
    """
    R, gamma, n_passes, margins, losses = _sequence_terms(X, y, u, gamma, n_passes)
    D1, D2 = _loss_norms(losses, n_passes)
    return MistakeBounds(
        R=R,
        gamma=gamma,
        D1=D1,
        D2=D2,
        comparator_margin=float(np.min(margins)),
        n_passes=n_passes,
        novikoff_bound=novikoff_bound(R, gamma) if D1 == 0.0 else math.inf,
        freund_schapire_bound=freund_schapire_bound(R, gamma, D2),
        d1_bound=d1_bound(R, gamma, D1),
    )


# ---------------------------------------------------------------------------
# Thresholded perceptron
# ---------------------------------------------------------------------------


def augment(X, value=1.0):
    r"""Append the constant coordinate ``value`` to every instance.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        Instances, one per row. Finite.
    value : float, default=1.0
        The constant c > 0 appended. Khardon & Wachman (2007, Sec. 2.1) and
        Cristianini & Shawe-Taylor (2000, Thm. 2.3) take c = R.

    Returns
    -------
    X_aug : ndarray or CSR matrix of shape (n_samples, n_features + 1)
        ``[X, c]``, float64; sparse input stays sparse (CSR).

    Raises
    ------
    ValueError
        If ``X`` is invalid (see :func:`radius`) or ``value`` is not > 0.

    Notes
    -----
    The origin Perceptron on :math:`x' = (x, c)` with :math:`w' = (w, b)` is
    the thresholded Perceptron predicting :math:`\mathrm{sign}(w\cdot x -
    \theta)` with :math:`\theta = -c\,b`, updated :math:`\theta \leftarrow
    \theta - c^2 y_t` on mistakes. A hyperplane :math:`(u, \theta^*)`,
    :math:`\|u\| = 1`, becomes the unit comparator
    :math:`u' = (u, -\theta^*/c)/s`, :math:`s = \sqrt{1 + (\theta^*/c)^2}`,
    with margin γ/s, radius :math:`\sqrt{R^2 + c^2}` and losses
    :math:`\ell_t/s`. The Freund--Schapire bound on the augmented data is thus
    :math:`((s\sqrt{R^2 + c^2} + D_2)/\gamma)^2`, which for c = R and
    :math:`|\theta^*| \le R` is at most :math:`((2R + D_2)/\gamma)^2 \le
    (2(R + D_2)/\gamma)^2`, the form quoted by Khardon & Wachman.

    Examples
    --------
    >>> from perceptrons.bounds import augment
    >>> augment([[3.0, 4.0], [0.0, -2.0]], 5.0)
    array([[ 3.,  4.,  5.],
           [ 0., -2.,  5.]])
    """
    X = check_instances(X)
    value = check_positive(value, "value")
    column = np.full((X.shape[0], 1), value)
    if sp.issparse(X):
        return sp.hstack([X, sp.csr_matrix(column)], format="csr")
    return np.hstack([X, column])
