r"""Update bounds of PFM and PDM (Panagiotakopoulos & Tsampouka 2011, Sec. 3).

Both algorithms run the perceptron update :math:`a_{t+1} = a_t + y_k` on
augmented, reflected patterns :math:`y_k = [l_k x_k, l_k\rho]` (extended by
:math:`l_k\Delta e_k` in the setting of Sec. 5). With
:math:`R = \max_k\|y_k\|` and :math:`\gamma_d` the maximum directional margin
of Eq. (1), the number t of updates satisfies

* PFM, condition (7) with :math:`\beta = (1-\epsilon)\gamma_d`, Theorem 3.1:

  .. math::

      t \le \frac{1 + e^{-1}}{2\epsilon}\frac{R^2}{\gamma_d^2}
      \Big\{4\frac{\gamma_d}{R}\Big(1 - \frac{\gamma_d}{R}(1-\epsilon)\Big)
      + \ln\Big(\frac{1+e}{\epsilon}\frac{R}{\gamma_d}
      \Big(1 - \frac{\gamma_d}{R}(1-\epsilon)\Big)\Big)\Big\};

* PDM, condition (8) with accuracy ε, Theorem 3.2 (and PFM too, Remark 1):

  .. math::

      t \le \begin{cases}
      t_0\big(1 - \frac{1}{1-2\epsilon}\frac{R^2}{\gamma_d^2}
          t_0^{-1}\big)^{1/(2\epsilon)},\
      t_0 = [\epsilon^{-1}]\big(\frac{R}{\gamma_d}\big)^{1/\epsilon}
          \big(1 + \frac{[\epsilon^{-1}]^{-1}}{1-2\epsilon}\big)^{1/(2\epsilon)}
          & \epsilon < \tfrac12 \\
      (1+e^{-1})\frac{R^2}{\gamma_d^2}
          \ln\big((1+e)\frac{R^2}{\gamma_d^2}\big) & \epsilon = \tfrac12 \\
      t_0\big(1 - 2(1-\epsilon)t_0^{1-2\epsilon}\big),\
      t_0 = \frac{\epsilon(3-2\epsilon)}{2\epsilon-1}\frac{R^2}{\gamma_d^2}
          & \epsilon > \tfrac12.
      \end{cases}

Multiple updates, active sets and permutations (Sec. 4) only change the
order of presentation, and PDM-succ's earlier runs count as the first updates
of its last one, so the bounds hold for all of them at the final ε.

The bounds decrease as :math:`\gamma_d` grows (with ε fixed for Theorem 3.2;
with β fixed for Theorem 3.1, see :func:`pfm_update_bound_beta`), so a lower
bound on :math:`\gamma_d` gives a valid, looser bound. For ε < 1/2 the PDM
bound grows like :math:`(R/\gamma_d)^{1/\epsilon}`; it is computed in log
space and is ``inf`` when it exceeds the float range.

References
----------
.. [1] C. Panagiotakopoulos and P. Tsampouka. The perceptron with dynamic
   margin. Algorithmic Learning Theory (ALT 2011), LNCS 6925, pp. 204-218,
   2011. https://doi.org/10.1007/978-3-642-24412-4_18
"""

import math

import numpy as np
import scipy.sparse as sp

from ._validation import check_instances, check_positive

__all__ = [
    "directional_radius",
    "pdm_update_bound",
    "pfm_update_bound",
    "pfm_update_bound_beta",
]


def _check_eps(epsilon):
    epsilon = float(epsilon)
    if not 0.0 < epsilon <= 1.0:
        raise ValueError(f"epsilon must lie in (0, 1], got {epsilon!r}.")
    return epsilon


def _check_ratio(R, gamma_d):
    R = check_positive(R, "R")
    gamma_d = check_positive(gamma_d, "gamma_d")
    if gamma_d > R * (1.0 + 1e-12):
        raise ValueError(
            f"gamma_d={gamma_d!r} exceeds R={R!r}; the maximum directional "
            "margin is at most the largest pattern norm.")
    return R, min(gamma_d, R)


def directional_radius(X, augmentation=1.0, extension=None):
    """R = max_k ‖y_k‖ of the augmented (and extended) patterns.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (m, d)
    augmentation : float, default=1.0
        ρ.
    extension : float or None, default=None
        Δ of Sec. 5.

    Returns
    -------
    float
        :math:`\\sqrt{\\max_k \\|x_k\\|^2 + \\rho^2 + \\Delta^2}`.

    Raises
    ------
    ValueError
        If ``X`` is not a finite, non-empty 2-d array or a sparse matrix
        with index arrays in range.
    """
    X = check_instances(X)
    if sp.issparse(X):
        sq = np.asarray(X.multiply(X).sum(axis=1)).ravel()
    else:
        sq = np.einsum("ij,ij->i", X, X)
    delta = 0.0 if extension is None else float(extension)
    return float(math.sqrt(float(sq.max()) + float(augmentation) ** 2
                           + delta ** 2))


def pfm_update_bound(R, gamma_d, epsilon):
    """Theorem 3.1: most updates of PFM with β = (1-ε)γ_d.

    Parameters
    ----------
    R : float
        max_k ‖y_k‖ > 0.
    gamma_d : float
        Maximum directional margin, 0 < γ_d ≤ R.
    epsilon : float
        0 < ε ≤ 1.

    Returns
    -------
    float
    """
    R, g = _check_ratio(R, gamma_d)
    eps = _check_eps(epsilon)
    q = g / R
    inner = 1.0 - q * (1.0 - eps)
    e = math.e
    return ((1.0 + 1.0 / e) / (2.0 * eps) / (q * q)
            * (4.0 * q * inner + math.log((1.0 + e) / eps / q * inner)))


def pfm_update_bound_beta(R, gamma_d, beta):
    """Theorem 3.1 for a given β < γ_d: ε = 1 - β/γ_d.

    With β fixed the bound decreases as γ_d grows, so a lower bound on γ_d
    (above β) gives a valid bound.

    Parameters
    ----------
    R, gamma_d : float
    beta : float
        0 ≤ β < γ_d.

    Returns
    -------
    float
    """
    R, g = _check_ratio(R, gamma_d)
    beta = float(beta)
    if not 0.0 <= beta < g:
        raise ValueError(f"beta must lie in [0, gamma_d), got {beta!r}.")
    return pfm_update_bound(R, g, 1.0 - beta / g)


def pdm_update_bound(R, gamma_d, epsilon):
    """Theorem 3.2: most updates of PDM with accuracy ε (and of PFM, Remark 1).

    Parameters
    ----------
    R, gamma_d, epsilon : float
        As in :func:`pfm_update_bound`.

    Returns
    -------
    float
        ``inf`` when the bound exceeds the float range (small ε).
    """
    R, g = _check_ratio(R, gamma_d)
    eps = _check_eps(epsilon)
    ratio_sq = (R / g) ** 2
    if eps == 0.5:
        e = math.e
        return (1.0 + 1.0 / e) * ratio_sq * math.log((1.0 + e) * ratio_sq)
    if eps > 0.5:
        t0 = eps * (3.0 - 2.0 * eps) / (2.0 * eps - 1.0) * ratio_sq
        return t0 * (1.0 - 2.0 * (1.0 - eps) * t0 ** (1.0 - 2.0 * eps))
    n = math.floor(1.0 / eps)
    log_t0 = (math.log(n) + math.log(R / g) / eps
              + math.log1p(1.0 / (n * (1.0 - 2.0 * eps))) / (2.0 * eps))
    # factor (1 - R²/(γ²(1-2ε) t0))^(1/(2ε)), in log space
    x = ratio_sq / (1.0 - 2.0 * eps) * math.exp(-log_t0)
    if x >= 1.0:
        # cannot happen for ε < 1/2 (t0 ≥ [1/ε](R/γ)^(1/ε) > R²/(γ²(1-2ε)))
        log_t = log_t0
    else:
        log_t = log_t0 + math.log1p(-x) / (2.0 * eps)
    if log_t > math.log(np.finfo(np.float64).max):
        return math.inf
    return math.exp(log_t)
