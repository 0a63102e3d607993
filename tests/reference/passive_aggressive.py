"""Crammer et al. (JMLR 2006), Figure 1, transcribed (test oracle).

Slow on purpose: one example at a time, dense numpy vectors, the kernel form
with an explicit Gram matrix and one coefficient per training row, the
averaged hypothesis as the plain running sum of the hypothesis after every
step. Nothing is imported from ``perceptrons``.

    K. Crammer, O. Dekel, J. Keshet, S. Shalev-Shwartz and Y. Singer.
    Online passive-aggressive algorithms. JMLR 7:551-585, 2006.

Figure 1 (binary, y in {-1, +1}, w_1 = 0): suffer the hinge loss of
Eq. (1), ``l_t = max(0, 1 - y_t w_t.x_t)``; set ``tau_t = l_t / |x_t|^2``
(PA), ``min(C, l_t / |x_t|^2)`` (PA-I) or ``l_t / (|x_t|^2 + 1/(2C))``
(PA-II); update ``w_{t+1} = w_t + tau_t y_t x_t``. Kernel form (Sec. 3):
``w_t = sum_i tau_i y_i phi(x_i)``.

Project decisions (documented in ``perceptrons.PassiveAggressive``):

* bias (``fit_intercept=True``): the rule on ``[x, 1]``: score
  ``w.x + b``, norm ``|x|^2 + 1`` (``k(x, x) + 1``), ``b += tau y``;
* a row of weight s has aggressiveness ``s C``; rows of weight 0 are not
  presented;
* a row with ``|x|^2 = 0`` and no bias is passive (no w moves);
* a loss of at most ``LOSS_ROUNDING`` (2^-40) is the rounding of a margin
  already attained: passive;
* one-vs-rest: problem k's labels are +1 for class k, -1 otherwise, each
  problem run on its own (they share nothing); a multiclass step is a
  mistake when the true class does not score strictly highest.

The common entry is :func:`fit` (``fit(X, y, **params) -> PAState``, the
estimator's parameter names, rows in their given order).
"""

import dataclasses
from typing import Any, Callable, Optional

import numpy as np

from tests.reference.kernels import densify, gram
from tests.reference.streams import ovr_mistakes, presented


#: Losses at most this are passive (the rounding of an attained margin).
LOSS_ROUNDING = 2.0 ** -40


def step_size(variant, loss, sq_norm, C, s=1.0):
    """tau_t of Figure 1 (the row's weight s scaling C)."""
    if variant == "PA":
        return loss / sq_norm
    if variant == "PA-I":
        return min(s * C, loss / sq_norm)
    if variant == "PA-II":
        return loss / (sq_norm + 1.0 / (2.0 * s * C))
    raise ValueError(variant)


def figure1(X, signs, variant, C, n_epochs, bias, s=None, K=None):
    """Figure 1 on one binary problem.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The rows, presented in order.
    signs : ndarray of shape (n,), in {-1, +1}
    variant : {"PA", "PA-I", "PA-II"}
    C : float
    n_epochs : int
        Passes over the rows in their order.
    bias : bool
        Learn b on the constant feature.
    s : ndarray of shape (n,), optional
        Row weights (default: all 1).
    K : ndarray of shape (n, n), optional
        ``K[i, j] = k(x_i, x_j)``: the kernel form (Sec. 3), w kept as
        ``alpha`` by row, ``w_t.x_t = sum_i alpha_i K[i, t]``,
        ``|x_t|^2 = K[t, t]``. Without it, w is a vector over the features.

    Returns
    -------
    dict
        ``w`` (w by feature, or alpha by row in the kernel form; the last
        hypothesis), ``b``, ``w_avg``, ``b_avg`` (the mean of the hypotheses
        after every step), ``scores`` (every step's ``w_t.x_t + b_t`` before
        its update, by epoch), ``losses`` (every step's l_t), ``updates``
        (per epoch).
    """
    n = X.shape[0]
    s = np.ones(n) if s is None else s
    w = np.zeros(n if K is not None else X.shape[1])
    b = 0.0
    w_sum = np.zeros_like(w)
    b_sum = 0.0
    scores, losses, updates = [], [], []
    for _ in range(n_epochs):
        epoch_scores = []
        n_updates = 0
        for t in range(n):
            if K is None:
                score = float(w @ X[t]) + b
                sq_norm = float(X[t] @ X[t])
            else:
                score = float(w @ K[:, t]) + b
                sq_norm = K[t, t]
            sq_norm += 1.0 if bias else 0.0
            epoch_scores.append(score)
            loss = max(0.0, 1.0 - signs[t] * score)
            losses.append(loss)
            if loss > LOSS_ROUNDING and sq_norm > 0.0:
                tau = step_size(variant, loss, sq_norm, C, s[t])
                if K is None:
                    w = w + tau * signs[t] * X[t]
                else:
                    w[t] += tau * signs[t]
                if bias:
                    b += tau * signs[t]
                n_updates += 1
            w_sum += w
            b_sum += b
        scores.append(epoch_scores)
        updates.append(n_updates)
    steps = n_epochs * n
    return {"w": w, "b": b, "w_avg": w_sum / steps, "b_avg": b_sum / steps,
            "scores": scores, "losses": losses, "updates": updates}


def multiprototype(X, idx, n_classes, variant, C, n_epochs, bias, s=None,
                   K=None):
    """The multi-prototype multiclass update (the paper's multiclass
    section), one prototype per class.

    ``Phi(x, r)`` puts x in block r, so ``|Phi(x, y) - Phi(x, s)|^2 =
    2 |x|^2``: with s the best class other than y (lowest index among
    equals), ``l = max(0, 1 - (w^y.x - w^s.x))``, ``tau`` as in Figure 1
    with ``2 |x|^2`` (``2 (|x|^2 + 1)`` with a bias, each prototype with its
    own b), ``w^y += tau x``, ``w^s -= tau x``.

    Parameters
    ----------
    X, s, K, variant, C, n_epochs, bias
        As in :func:`figure1`.
    idx : ndarray of shape (n,)
        Class index of each row.
    n_classes : int

    Returns
    -------
    dict
        ``w``, ``w_avg`` of shape (n_classes, ...), ``b``, ``b_avg`` of
        shape (n_classes,), ``mistakes`` and ``updates`` per epoch.
    """
    n = X.shape[0]
    s = np.ones(n) if s is None else s
    W = np.zeros((n_classes, n if K is not None else X.shape[1]))
    b = np.zeros(n_classes)
    W_sum, b_sum = np.zeros_like(W), np.zeros_like(b)
    mistakes, updates = [], []
    for _ in range(n_epochs):
        n_mistakes = n_updates = 0
        for t in range(n):
            feature = X[t] if K is None else K[:, t]
            scores = W @ feature + b
            y = idx[t]
            other = max((r for r in range(n_classes) if r != y),
                        key=lambda r: (scores[r], -r))
            if scores[other] >= scores[y]:
                n_mistakes += 1
            sq_norm = float(X[t] @ X[t]) if K is None else K[t, t]
            sq_norm = 2.0 * (sq_norm + (1.0 if bias else 0.0))
            loss = max(0.0, 1.0 - (scores[y] - scores[other]))
            if loss > LOSS_ROUNDING and sq_norm > 0.0:
                tau = step_size(variant, loss, sq_norm, C, s[t])
                step = tau * X[t] if K is None else tau * np.eye(n)[t]
                W[y] += step
                W[other] -= step
                if bias:
                    b[y] += tau
                    b[other] -= tau
                n_updates += 1
            W_sum += W
            b_sum += b
        mistakes.append(n_mistakes)
        updates.append(n_updates)
    steps = n_epochs * n
    return {"w": W, "b": b, "w_avg": W_sum / steps, "b_avg": b_sum / steps,
            "mistakes": mistakes, "updates": updates}


@dataclasses.dataclass
class PAState:
    """What a run ends with, under the estimator's names.

    Attributes
    ----------
    classes : ndarray
    coef : ndarray of shape (n_problems, n_features) or None
        The returned hypothesis (averaged or last); None with a kernel
        other than None.
    intercept : ndarray of shape (n_problems,)
    last_coef, last_intercept : ndarray or None
        The last hypothesis.
    dual_coef, last_dual_coef : ndarray of shape (n_problems, n_samples) or None
        Kernel form: coefficients by row of X (0 for rows never updated).
    mistakes_per_epoch, updates_per_epoch : list
    n_mistakes, n_updates : int
    losses : ndarray of shape (n_problems, n_steps) or None
        ℓ_t of every step of every problem (one-vs-rest and binary).
    decision_function, predict : callable
    """

    classes: np.ndarray
    coef: Optional[np.ndarray]
    intercept: np.ndarray
    last_coef: Optional[np.ndarray]
    last_intercept: np.ndarray
    dual_coef: Optional[np.ndarray]
    last_dual_coef: Optional[np.ndarray]
    mistakes_per_epoch: list
    updates_per_epoch: list
    n_mistakes: int
    n_updates: int
    losses: Optional[np.ndarray]
    decision_function: Callable[[Any], np.ndarray]
    predict: Callable[[Any], np.ndarray]


def fit(X, y, *, variant="PA-I", C=1.0, fit_intercept=True,
        multiclass="ovr", hypothesis="averaged", max_iter=10, kernel=None,
        degree=3,
        gamma=None, coef0=1.0, classes=None, sample_weight=None):
    """Figure 1 for ``max_iter`` passes, one-vs-rest with more than two
    classes (``multiclass="prototype"``: :func:`multiprototype`);
    ``perceptrons.PassiveAggressive``'s parameters (defaults included) with
    ``shuffle=False``. ``kernel=None`` is the primal form
    (:func:`figure1` with w by feature), a kernel the kernel form
    (:func:`figure1` with the Gram matrix).
    ``classes`` (as ``partial_fit``'s) when y does not show them all;
    ``sample_weight``: each row's weight (rows of weight 0 not presented).

    Returns
    -------
    PAState
    """
    if hypothesis not in ("averaged", "last"):
        raise ValueError(hypothesis)
    X_all = densify(X)
    classes, present, s, X_train, idx = presented(X_all, y, classes,
                                                  sample_weight)
    params = dict(degree=degree, gamma=gamma, coef0=coef0)
    binary = len(classes) == 2
    problems = [1] if binary else list(range(len(classes)))
    averaged = hypothesis == "averaged"
    n_rows = len(problems)
    K = None if kernel is None else gram(X_train, X_train, kernel, **params)
    prototype = multiclass == "prototype" and not binary
    if prototype:
        run = multiprototype(X_train, idx, len(classes), variant, C,
                             max_iter, fit_intercept, s, K)
        runs = [{"w": run["w"][k], "w_avg": run["w_avg"][k],
                 "b": run["b"][k], "b_avg": run["b_avg"][k]}
                for k in problems]
    else:
        runs = [figure1(X_train, np.where(idx == k, 1.0, -1.0), variant, C,
                        max_iter, fit_intercept, s, K) for k in problems]
    returned = np.array([r["w_avg" if averaged else "w"] for r in runs])
    last = np.array([r["w"] for r in runs])
    if kernel is None:
        coef, last_coef, dual, last_dual = returned, last, None, None
    else:
        # By row of X: the rows not presented have coefficient 0.
        dual = np.zeros((n_rows, X_all.shape[0]))
        last_dual = np.zeros_like(dual)
        dual[:, present], last_dual[:, present] = returned, last
        coef = last_coef = None
        if kernel == "linear":
            coef, last_coef = dual @ X_all, last_dual @ X_all
    last_intercept = np.array([r["b"] for r in runs])
    intercept = (np.array([r["b_avg"] for r in runs]) if averaged
                 else last_intercept)
    if prototype:
        mistakes = list(run["mistakes"])
        updates = list(run["updates"])
    else:
        mistakes = [ovr_mistakes(np.array([r["scores"][e] for r in runs]).T,
                                 idx, binary) for e in range(max_iter)]
        updates = list(np.sum([r["updates"] for r in runs], axis=0))

    def decision_function(Z):
        if kernel is None:
            out = densify(Z) @ coef.T + intercept
        else:
            out = gram(Z, X_all, kernel, **params) @ dual.T + intercept
        return out[:, 0] if binary else out

    def predict(Z):
        scores = decision_function(Z)
        if scores.ndim == 1:
            return classes[(scores > 0).astype(int)]
        return classes[np.argmax(scores, axis=1)]

    return PAState(
        classes=classes, coef=coef, intercept=intercept, last_coef=last_coef,
        last_intercept=last_intercept, dual_coef=dual,
        last_dual_coef=last_dual, mistakes_per_epoch=mistakes,
        updates_per_epoch=updates, n_mistakes=int(sum(mistakes)),
        n_updates=int(sum(updates)),
        losses=(None if prototype
                else np.array([r["losses"] for r in runs])),
        decision_function=decision_function, predict=predict)
