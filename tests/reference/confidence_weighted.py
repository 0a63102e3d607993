"""The confidence-weighted family, transcribed line by line (test oracle).

Slow on purpose: one example at a time, one binary problem at a time, the
covariance as a dense matrix (full form) or a vector (diagonal form), the
papers' formulas as they print them, the averaged hypothesis as the plain
running sum of the mean after every step. Nothing is imported from
``perceptrons``.

    K. Crammer, M. Dredze and F. Pereira. Exact convex confidence-weighted
    learning. NIPS 21, 2008 (CW; Dredze, Crammer & Pereira, ICML 2008).
    K. Crammer, A. Kulesza and M. Dredze. Adaptive regularization of weight
    vectors. NIPS 22, 2009, Figure 1 (AROW).
    J. Wang, P. Zhao and S. C. H. Hoi. Exact soft confidence-weighted
    learning. ICML 2012 (SCW-I, SCW-II).
    F. Orabona and K. Crammer. New adaptive algorithms for online
    classification. NIPS 23, 2010 (NAROW).
    K. Crammer and D. D. Lee. Learning via Gaussian herding. NIPS 23, 2010
    (NHERD).

Per round, with ``m = y mu.x``, ``v = x' Sigma x``:

* CW (exact): update when ``phi sqrt(v) - m > 0``; ``alpha = max(0,
  (-m psi + sqrt(m^2 phi^4 / 4 + v phi^2 zeta)) / (v zeta))``,
  ``u = (-alpha v phi + sqrt(alpha^2 v^2 phi^2 + 4 v))^2 / 4``,
  ``beta = alpha phi / (sqrt(u) + v alpha phi)``; ``mu += alpha y Sigma x``,
  ``Sigma -= beta Sigma x x' Sigma``.
* SCW-I: CW's alpha capped at C. SCW-II: ``n = v + 1/(2C)``,
  ``gamma = phi sqrt(phi^2 m^2 v^2 + 4 n v (n + v phi^2))``,
  ``alpha = max(0, (-(2 m n + phi^2 m v) + gamma) / (2 (n^2 + n v phi^2)))``;
  u and beta as CW's.
* AROW (Figure 1): update when ``m < 1``; ``beta = 1 / (v + r)``,
  ``alpha = (1 - m) beta``, CW's two steps.
* NHERD: update when ``m < 1``; ``alpha = (1 - m) / (v + 1/C)``; full
  ``Sigma -= Sigma x x' Sigma (C^2 v + 2 C) / (1 + C v)^2``, diagonal
  ``sigma_j /= (1 + C x_j^2 sigma_j)^2``.
* NAROW, in the form of the paper's algorithm as its first author's DOGMA
  library runs it (``narow_train.m``): ``theta`` (the sum of ``y x`` over
  the updates) and ``A^-1`` (``Sigma``), ``w = A^-1 theta``; with
  ``chi = x' A^-1 x``, ``r = chi / (b chi - 1)`` when ``chi > 1/b``, else
  ``r = inf``; the prediction's margin looks ahead,
  ``f = r / (chi + r) w.x`` (``f = w.x`` when ``r = inf``); on
  ``y f < 1``: ``theta += y x``, ``A^-1 -= A^-1 x x' A^-1 / (r + chi)``
  (not when ``r = inf``).

Project decisions (documented in ``perceptrons.CW`` and the others):

* bias (``fit_intercept=True``): the rule on ``[x, 1]``, with Sigma over
  it; without it the constant feature is 0;
* the diagonal form: ``Sigma x`` is ``sigma * x``, ``v = sum sigma x^2``,
  the mean's step as above with the diagonal before the step, then
  ``sigma_j <- sigma_j / (1 + gamma sigma_j x_j^2)`` over the row's
  non-zeros (and the constant feature), ``gamma`` the precision's
  increment of the full step (``1/r`` for AROW, ``alpha phi / sqrt(u)``
  for CW and SCW, ``1/r`` for NAROW); NHERD's own diagonal above;
* a row of weight s: none for CW (a positive weight is one presentation),
  SCW's and NHERD's C times s, AROW's r and NAROW's r divided by s (for NAROW:
  ``theta += s y x`` and ``A += s x x' / r``); rows of weight 0 are not
  presented;
* a loss of at most ``LOSS_ROUNDING`` (2^-40) is passive, and so is a row
  with ``v = 0`` (and, for CW, ``v < 2^-900``); a variance of 0 stays 0;
* one-vs-rest: problem k's labels are +1 for class k, -1 otherwise, each
  problem run on its own; a multiclass step is a mistake when the true
  class does not score strictly highest.

Alternative readings (for the tests of their difference): LIBOL's NAROW
(AROW's step with ``r = chi/(b chi - 1)``, no step at all when
``chi <= 1/b``), LIBOL's SCW-II (its printed ``alpha`` with ``v*2`` and
``phi*2`` where the paper has ``v^2`` and ``phi^2``) and the "drop"
diagonal (the diagonal of the full step, ``sigma_j -= beta sigma_j^2
x_j^2``).
"""

import dataclasses
import math
from typing import Any, Callable

import numpy as np
from scipy.stats import norm

from tests.reference.kernels import densify
from tests.reference.streams import ovr_mistakes, presented

#: Losses at most this are passive.
LOSS_ROUNDING = 2.0 ** -40
#: CW's rounds with v below this are passive (alpha ~ 1/v leaves float64).
TINY_VARIANCE = 2.0 ** -900

RULES = ("CW", "AROW", "SCW-I", "SCW-II", "NAROW", "NHERD",
         "NAROW-LIBOL", "SCW-II-LIBOL")


def _constants(eta):
    phi = norm.ppf(eta)
    return phi, 1.0 + phi ** 2 / 2.0, 1.0 + phi ** 2


def _cw_u_beta(alpha, v, phi):
    u = 0.25 * (-alpha * v * phi
                + math.sqrt(alpha ** 2 * v ** 2 * phi ** 2 + 4.0 * v)) ** 2
    beta = alpha * phi / (math.sqrt(u) + v * alpha * phi)
    return beta, alpha * phi / math.sqrt(u)


def step(rule, m, v, s, params):
    """``(update, alpha, beta, gamma)`` of one round (the module notes);
    NAROW's own form is :func:`run_narow`."""
    if rule in ("CW", "SCW-I", "SCW-II", "SCW-II-LIBOL"):
        phi, psi, zeta = _constants(params["eta"])
        if not phi * math.sqrt(v) - m > LOSS_ROUNDING:
            return False, 0.0, 0.0, 0.0
        if rule == "CW" and v < TINY_VARIANCE:
            return False, 0.0, 0.0, 0.0
        if rule == "SCW-II":
            C = s * params["C"]
            n = v + 1.0 / (2.0 * C)
            gamma = phi * math.sqrt(phi ** 2 * m ** 2 * v ** 2
                                    + 4.0 * n * v * (n + v * phi ** 2))
            alpha = max(0.0, (-(2.0 * m * n + phi ** 2 * m * v) + gamma)
                        / (2.0 * (n ** 2 + n * v * phi ** 2)))
        elif rule == "SCW-II-LIBOL":
            C = s * params["C"]
            n = v + 1.0 / (2.0 * C)
            alpha = max(0.0, (-(2 * m * n + phi ** 2 * m * v) + math.sqrt(
                phi ** 4 * m ** 2 * v * 2
                + 4 * n * v * phi ** 2 * (n + v * phi * 2)))
                / (2 * (n ** 2 + n * v * phi ** 2)))
        else:
            alpha = max(0.0, (-m * psi + math.sqrt(
                m ** 2 * phi ** 4 / 4.0 + v * phi ** 2 * zeta)) / (v * zeta))
            if rule == "SCW-I":
                alpha = min(s * params["C"], alpha)
        beta, gamma = _cw_u_beta(alpha, v, phi)
        return True, alpha, beta, gamma
    loss = 1.0 - m
    if not loss > LOSS_ROUNDING:
        return False, 0.0, 0.0, 0.0
    if rule == "AROW":
        r = params["r"] / s
        beta = 1.0 / (v + r)
        return True, loss * beta, beta, 1.0 / r
    if rule == "NAROW-LIBOL":
        b = params["b"]
        if not v > 1.0 / b:
            return False, 0.0, 0.0, 0.0
        r = v / (b * v - 1.0) / s
        beta = 1.0 / (v + r)
        return True, loss * beta, beta, 1.0 / r
    if rule == "NHERD":
        C = s * params["C"]
        alpha = loss / (v + 1.0 / C)
        return True, alpha, (C ** 2 * v + 2.0 * C) / (1.0 + C * v) ** 2, C
    raise ValueError(rule)


def run_gaussian(X, signs, rule, params, n_epochs, covariance, s=None,
                 diagonal="project"):
    """One binary problem of a mean/covariance rule (every rule but NAROW's
    own form) over the augmented rows ``X`` (the constant feature already
    appended, or zeros).

    Returns
    -------
    dict
        ``mu`` (last), ``mu_avg``, ``Sigma`` (matrix or diagonal),
        ``scores`` (every step's ``mu.x`` before its step, by epoch),
        ``updates`` per epoch.
    """
    n, d = X.shape
    s = np.ones(n) if s is None else s
    a = params.get("a", 1.0)
    mu = np.zeros(d)
    Sigma = a * np.eye(d) if covariance == "full" else np.full(d, a)
    mu_sum = np.zeros(d)
    scores, updates = [], []
    for _ in range(n_epochs):
        epoch_scores, n_updates = [], 0
        for t in range(n):
            x, y = X[t], signs[t]
            f = float(mu @ x)
            epoch_scores.append(f)
            if covariance == "full":
                Sx = Sigma @ x
            else:
                Sx = Sigma * x
            v = float(x @ Sx)
            if v > 0.0:
                update, alpha, beta, gamma = step(rule, y * f, v, s[t],
                                                  params)
                if update and (alpha > 0.0 or beta > 0.0):
                    mu = mu + alpha * y * Sx
                    if covariance == "full":
                        Sigma = Sigma - beta * np.outer(Sx, Sx)
                    elif diagonal == "drop":
                        Sigma = Sigma - beta * Sx ** 2
                    elif rule == "NHERD":
                        Sigma = np.where(Sigma > 0, Sigma / (
                            1.0 + gamma * x ** 2 * Sigma) ** 2, Sigma)
                    else:
                        Sigma = np.where(Sigma > 0, Sigma / (
                            1.0 + gamma * Sigma * x ** 2), Sigma)
                    n_updates += 1
            mu_sum += mu
        scores.append(epoch_scores)
        updates.append(n_updates)
    return {"mu": mu, "mu_avg": mu_sum / (n_epochs * n), "Sigma": Sigma,
            "scores": scores, "updates": updates}


def run_narow(X, signs, b, n_epochs, covariance, s=None):
    """NAROW in the form of the paper's algorithm (DOGMA's
    ``narow_train.m``): theta and ``A^-1``, ``w = A^-1 theta``, the
    look-ahead margin; a row of weight s adds ``s y x`` to theta and
    ``s x x'/r`` to A. The full form only keeps ``A^-1`` as a matrix; the
    diagonal form is the family's (:func:`run_gaussian`'s) step with
    ``alpha = (r - m)/(r/s + v)`` (``s`` when ``r = inf``)."""
    n, d = X.shape
    s = np.ones(n) if s is None else s
    theta = np.zeros(d)
    A_inv = np.eye(d) if covariance == "full" else np.ones(d)
    w = np.zeros(d)
    w_sum = np.zeros(d)
    scores, updates = [], []
    for _ in range(n_epochs):
        epoch_scores, n_updates = [], 0
        for t in range(n):
            x, y = X[t], signs[t]
            val_f = float(w @ x)
            epoch_scores.append(val_f)
            A_x = A_inv @ x if covariance == "full" else A_inv * x
            chi = float(x @ A_x)
            r = chi / (b * chi - 1.0) if chi * b > 1.0 else math.inf
            f = r * val_f / (chi + r) if r < math.inf else val_f
            if chi > 0.0 and 1.0 - y * f > LOSS_ROUNDING:
                if covariance == "full":
                    theta = theta + s[t] * y * x
                    if r < math.inf:
                        A_inv = A_inv - np.outer(A_x, A_x) / (r / s[t] + chi)
                    w = A_inv @ theta
                else:
                    if r < math.inf:
                        beta = 1.0 / (r / s[t] + chi)
                        alpha, gamma = (r - y * val_f) * beta, s[t] / r
                    else:
                        alpha, gamma = s[t], 0.0
                    w = w + alpha * y * A_x
                    A_inv = A_inv / (1.0 + gamma * A_inv * x ** 2)
                n_updates += 1
            w_sum += w
        scores.append(epoch_scores)
        updates.append(n_updates)
    return {"mu": w, "mu_avg": w_sum / (n_epochs * n), "Sigma": A_inv,
            "scores": scores, "updates": updates}


@dataclasses.dataclass
class GaussianState:
    """What a run ends with, under the estimator's names."""

    classes: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    covariance: np.ndarray
    mistakes_per_epoch: list
    updates_per_epoch: list
    n_mistakes: int
    n_updates: int
    decision_function: Callable[[Any], np.ndarray]
    predict: Callable[[Any], np.ndarray]


def fit(X, y, *, rule, covariance="diagonal", fit_intercept=True,
        hypothesis="last", max_iter=1, sample_weight=None, classes=None,
        diagonal="project", **params):
    """``max_iter`` passes of ``rule`` over the rows in order, one-vs-rest
    with more than two classes; the estimators' parameter names (``r``,
    ``b``, ``C``, ``eta``, ``a``), ``shuffle=False``.

    Returns
    -------
    GaussianState
    """
    X_all = densify(X)
    classes, present, s, X_train, idx = presented(X_all, y, classes,
                                                  sample_weight)
    const = np.full((X_train.shape[0], 1), 1.0 if fit_intercept else 0.0)
    Xa = np.hstack([X_train, const])
    binary = len(classes) == 2
    problems = [1] if binary else list(range(len(classes)))
    runs = []
    for k in problems:
        signs = np.where(idx == k, 1.0, -1.0)
        if rule == "NAROW":
            runs.append(run_narow(Xa, signs, params["b"], max_iter,
                                  covariance, s))
        else:
            runs.append(run_gaussian(Xa, signs, rule, params, max_iter,
                                     covariance, s, diagonal))
    key = "mu_avg" if hypothesis == "averaged" else "mu"
    means = np.array([r[key] for r in runs])
    coef, intercept = means[:, :-1], means[:, -1]
    mistakes = [ovr_mistakes(np.array([r["scores"][e] for r in runs]).T,
                             idx, binary) for e in range(max_iter)]
    updates = [int(u) for u in np.sum([r["updates"] for r in runs], axis=0)]

    def decision_function(Z):
        out = densify(Z) @ coef.T + intercept
        return out[:, 0] if binary else out

    def predict(Z):
        scores = decision_function(Z)
        if scores.ndim == 1:
            return classes[(scores > 0).astype(int)]
        return classes[np.argmax(scores, axis=1)]

    return GaussianState(
        classes=classes, coef=coef, intercept=intercept,
        covariance=np.array([r["Sigma"] for r in runs]),
        mistakes_per_epoch=mistakes, updates_per_epoch=updates,
        n_mistakes=int(sum(mistakes)), n_updates=int(sum(updates)),
        decision_function=decision_function, predict=predict)
