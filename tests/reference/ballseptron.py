"""Shalev-Shwartz & Singer (2005), Figure 2 and Sec. 4, transcribed (test oracle).

Slow on purpose: one example at a time, dense numpy vectors, ‖w‖ computed
from scratch every time it is needed, x̂ materialised as in the paper. Sparse
input is densified here, and only here. Nothing is imported from
``perceptrons``.

    S. Shalev-Shwartz and Y. Singer. A new perspective on an old perceptron
    algorithm. COLT 2005, LNCS 3559, pp. 264-278.

Project decisions (documented in ``perceptrons.Ballseptron``): in the
multiclass rule the true class must score strictly highest, otherwise it is a
mistake, and the class whose prototype is decreased is the best class other
than the true one, lowest index among equals (this is ŷ on a mistake and ỹ
otherwise).

The common entry is :func:`fit` (``fit(X, y, **params) -> BallseptronState``,
the estimator's parameter names, rows in their given order).
"""

import dataclasses
from typing import Any, Callable, Optional

import numpy as np

from tests.reference.kernels import densify, gram, kernel_value  # noqa: F401


def best_other(scores, y):
    """argmax over r ≠ y of scores[r], lowest index among equals."""
    best = None
    for r in range(len(scores)):
        if r != y and (best is None or scores[r] > scores[best]):
            best = r
    return best


def figure2(X, y, radius, n_epochs=1, w=None):
    """Figure 2, the binary Ballseptron.

    Parameters
    ----------
    X : array or sparse matrix of shape (n_samples, n_features)
    y : array of shape (n_samples,), labels in {-1, +1}
    radius : float
        r.
    n_epochs : int
        Passes over the rows in their given order.
    w : ndarray, optional
        Starting weights (default: INITIALIZE w_1 = 0).

    Returns
    -------
    w : ndarray of shape (n_features,)
    mistakes, margin_errors : list of int
        ε and ε̃ of each pass.
    """
    X = densify(X)
    w = np.zeros(X.shape[1]) if w is None else np.array(w, dtype=np.float64)
    mistakes, margin_errors = [], []
    for _ in range(n_epochs):
        n_mistakes = n_margin = 0
        for x_t, y_t in zip(X, y):
            y_t = float(y_t)
            if y_t * np.dot(w, x_t) <= 0.0:
                w = w + y_t * x_t
                n_mistakes += 1
            elif y_t * np.dot(w, x_t) / np.linalg.norm(w) <= radius:
                x_hat = x_t - y_t * radius * w / np.linalg.norm(w)
                w = w + y_t * x_hat
                n_margin += 1
            # Else: no margin mistake, w_{t+1} = w_t.
        mistakes.append(n_mistakes)
        margin_errors.append(n_margin)
    return w, mistakes, margin_errors


def section4(X, y, n_classes, radius, n_epochs=1, W=None):
    """Sec. 4, the multiclass Ballseptron with one prototype per class.

    Parameters
    ----------
    X : array or sparse matrix of shape (n_samples, n_features)
    y : array of shape (n_samples,), class indices 0..n_classes-1
    n_classes : int
    radius : float
    n_epochs : int
    W : ndarray of shape (n_classes, n_features), optional
        Starting prototypes (default: all zero).

    Returns
    -------
    W : ndarray of shape (n_classes, n_features)
    mistakes, margin_errors : list of int
        Per pass.
    """
    X = densify(X)
    if W is None:
        W = np.zeros((n_classes, X.shape[1]))
    W = np.array(W, dtype=np.float64)
    mistakes, margin_errors = [], []
    for _ in range(n_epochs):
        n_mistakes = n_margin = 0
        for x_t, y_t in zip(X, y):
            y_t = int(y_t)
            scores = [float(np.dot(W[r], x_t)) for r in range(n_classes)]
            other = best_other(scores, y_t)
            if scores[y_t] <= scores[other]:
                # ŷ_t ≠ y_t (a tie is a mistake): Eq. (18) with ŷ = other.
                W[y_t] = W[y_t] + x_t
                W[other] = W[other] - x_t
                n_mistakes += 1
                continue
            y_tilde = other
            diff = W[y_tilde] - W[y_t]
            x_hat = x_t + radius * diff / np.linalg.norm(diff)
            if np.dot(W[y_t], x_hat) <= np.dot(W[y_tilde], x_hat):
                W[y_t] = W[y_t] + x_hat
                W[y_tilde] = W[y_tilde] - x_hat
                n_margin += 1
        mistakes.append(n_mistakes)
        margin_errors.append(n_margin)
    return W, mistakes, margin_errors


# ---------------------------------------------------------------- dual form
def gram_matrix(A, B, kernel, **params):
    """Explicit Gram matrix ``[[k(a, b) for b in B] for a in A]``
    (:func:`tests.reference.kernels.gram`)."""
    return gram(A, B, kernel, **params)


def figure2_dual(X, y, radius, kernel, n_epochs=1, **params):
    """Figure 2 with ``w = Σ_j a_j φ(x_j)``, brute force.

    Every inner product is read from the explicit Gram matrix, and ‖w‖ is
    recomputed as ``sqrt(a K a)`` whenever it is needed.

    Returns
    -------
    a : ndarray of shape (n_samples,)
        Dual coefficients by row.
    mistakes, margin_errors : list of int
        Per pass.
    """
    K = gram_matrix(X, X, kernel, **params)
    a = np.zeros(K.shape[0])
    mistakes, margin_errors = [], []
    for _ in range(n_epochs):
        n_mistakes = n_margin = 0
        for t in range(K.shape[0]):
            y_t = float(y[t])
            score = float(a @ K[:, t])
            if y_t * score <= 0.0:
                a[t] += y_t
                n_mistakes += 1
                continue
            norm = float(np.sqrt(a @ K @ a))
            if y_t * score / norm <= radius:
                # w + y x̂ = (1 - r/‖w‖) w + y x.
                a = a * (1.0 - radius / norm)
                a[t] += y_t
                n_margin += 1
        mistakes.append(n_mistakes)
        margin_errors.append(n_margin)
    return a, mistakes, margin_errors


def section4_dual(X, y, n_classes, radius, kernel, n_epochs=1, **params):
    """Sec. 4 with ``w^r = Σ_j A[r, j] φ(x_j)``, brute force.

    Returns
    -------
    A : ndarray of shape (n_classes, n_samples)
    mistakes, margin_errors : list of int
    """
    K = gram_matrix(X, X, kernel, **params)
    A = np.zeros((n_classes, K.shape[0]))
    mistakes, margin_errors = [], []
    for _ in range(n_epochs):
        n_mistakes = n_margin = 0
        for t in range(K.shape[0]):
            y_t = int(y[t])
            scores = [float(A[r] @ K[:, t]) for r in range(n_classes)]
            other = best_other(scores, y_t)
            if scores[y_t] <= scores[other]:
                A[y_t, t] += 1.0
                A[other, t] -= 1.0
                n_mistakes += 1
                continue
            diff = A[other] - A[y_t]
            norm = float(np.sqrt(diff @ K @ diff))
            # x̂ = φ(x_t) + r diff/‖diff‖, as coefficients.
            x_hat = radius * diff / norm
            x_hat[t] += 1.0
            if A[y_t] @ K @ x_hat <= A[other] @ K @ x_hat:
                A[y_t] = A[y_t] + x_hat
                A[other] = A[other] - x_hat
                n_margin += 1
        mistakes.append(n_mistakes)
        margin_errors.append(n_margin)
    return A, mistakes, margin_errors


# ------------------------------------------------------- averaged hypothesis
def figure2_averaged(X, y, radius, n_epochs=1):
    """Figure 2 and the average of its weight vectors after each trial.

    Runs :func:`figure2` one example at a time and sums ``w_{t+1}`` after
    every trial t (updated or not), naively.

    Returns
    -------
    w_avg : ndarray of shape (n_features,)
        ``(1/T) Σ_t w_{t+1}``, T = n_epochs × n_samples.
    w : ndarray of shape (n_features,)
        The last weight vector.
    mistakes, margin_errors : list of int
        Per pass.
    """
    X = densify(X)
    w = np.zeros(X.shape[1])
    total = np.zeros(X.shape[1])
    mistakes, margin_errors = [], []
    for _ in range(n_epochs):
        n_mistakes = n_margin = 0
        for t in range(X.shape[0]):
            w, m, e = figure2(X[t:t + 1], y[t:t + 1], radius, 1, w)
            n_mistakes += m[0]
            n_margin += e[0]
            total = total + w
        mistakes.append(n_mistakes)
        margin_errors.append(n_margin)
    return total / (n_epochs * X.shape[0]), w, mistakes, margin_errors


def section4_averaged(X, y, n_classes, radius, n_epochs=1):
    """Sec. 4 and the average of its prototypes after each trial.

    Runs :func:`section4` one example at a time, summing W after every
    trial.

    Returns
    -------
    W_avg, W : ndarray of shape (n_classes, n_features)
        The average and the last prototypes.
    mistakes, margin_errors : list of int
    """
    X = densify(X)
    W = np.zeros((n_classes, X.shape[1]))
    total = np.zeros_like(W)
    mistakes, margin_errors = [], []
    for _ in range(n_epochs):
        n_mistakes = n_margin = 0
        for t in range(X.shape[0]):
            W, m, e = section4(X[t:t + 1], y[t:t + 1], n_classes, radius, 1,
                               W)
            n_mistakes += m[0]
            n_margin += e[0]
            total = total + W
        mistakes.append(n_mistakes)
        margin_errors.append(n_margin)
    return total / (n_epochs * X.shape[0]), W, mistakes, margin_errors


def figure2_dual_averaged(X, y, radius, kernel, n_epochs=1, **params):
    """:func:`figure2_dual` and the average of its coefficient vectors
    after each trial, brute force (the same steps, the sum kept naively).

    Returns
    -------
    a_avg, a : ndarray of shape (n_samples,)
        The averaged and the last dual coefficients, by row.
    mistakes, margin_errors : list of int
    """
    K = gram_matrix(X, X, kernel, **params)
    a = np.zeros(K.shape[0])
    total = np.zeros(K.shape[0])
    mistakes, margin_errors = [], []
    for _ in range(n_epochs):
        n_mistakes = n_margin = 0
        for t in range(K.shape[0]):
            y_t = float(y[t])
            score = float(a @ K[:, t])
            if y_t * score <= 0.0:
                a[t] += y_t
                n_mistakes += 1
            else:
                norm = float(np.sqrt(a @ K @ a))
                if y_t * score / norm <= radius:
                    a = a * (1.0 - radius / norm)
                    a[t] += y_t
                    n_margin += 1
            total = total + a
        mistakes.append(n_mistakes)
        margin_errors.append(n_margin)
    return total / (n_epochs * K.shape[0]), a, mistakes, margin_errors


def section4_dual_averaged(X, y, n_classes, radius, kernel, n_epochs=1,
                           **params):
    """:func:`section4_dual` and the average of its coefficient rows after
    each trial, brute force.

    Returns
    -------
    A_avg, A : ndarray of shape (n_classes, n_samples)
    mistakes, margin_errors : list of int
    """
    K = gram_matrix(X, X, kernel, **params)
    A = np.zeros((n_classes, K.shape[0]))
    total = np.zeros_like(A)
    mistakes, margin_errors = [], []
    for _ in range(n_epochs):
        n_mistakes = n_margin = 0
        for t in range(K.shape[0]):
            y_t = int(y[t])
            scores = [float(A[r] @ K[:, t]) for r in range(n_classes)]
            other = best_other(scores, y_t)
            if scores[y_t] <= scores[other]:
                A[y_t, t] += 1.0
                A[other, t] -= 1.0
                n_mistakes += 1
            else:
                diff = A[other] - A[y_t]
                norm = float(np.sqrt(diff @ K @ diff))
                x_hat = radius * diff / norm
                x_hat[t] += 1.0
                if A[y_t] @ K @ x_hat <= A[other] @ K @ x_hat:
                    A[y_t] = A[y_t] + x_hat
                    A[other] = A[other] - x_hat
                    n_margin += 1
            total = total + A
        mistakes.append(n_mistakes)
        margin_errors.append(n_margin)
    return total / (n_epochs * K.shape[0]), A, mistakes, margin_errors


# --------------------------------------------------------------- the entry
@dataclasses.dataclass
class BallseptronState:
    """What a Ballseptron run ends with, under the estimator's names.

    Attributes
    ----------
    classes : ndarray
        Sorted labels (two classes: ``classes[1]`` is +1 of Figure 2).
    coef : ndarray of shape (n_rows, n_features) or None
        The returned hypothesis (the last w, or the average of the w after
        each trial); one row for two classes, else one prototype per class.
        None in dual form.
    last_coef : ndarray or None
        The last weights (equal to ``coef`` for "last").
    dual_coef, last_dual_coef : ndarray of shape (n_rows, n_samples) or None
        Dual form only: the same, as coefficients by training row.
    mistakes_per_epoch, margin_errors_per_epoch, updates_per_epoch : list
    n_mistakes, n_margin_errors, n_updates : int
    decision_function, predict : callable
        On new rows (1-D scores for two classes).
    """

    classes: np.ndarray
    coef: Optional[np.ndarray]
    last_coef: Optional[np.ndarray]
    dual_coef: Optional[np.ndarray]
    last_dual_coef: Optional[np.ndarray]
    mistakes_per_epoch: list
    margin_errors_per_epoch: list
    updates_per_epoch: list
    n_mistakes: int
    n_margin_errors: int
    n_updates: int
    decision_function: Callable[[Any], np.ndarray]
    predict: Callable[[Any], np.ndarray]


def fit(X, y, *, radius=0.1, hypothesis="averaged", max_iter=10, kernel=None,
        degree=3, gamma=None, coef0=1.0, classes=None):
    """Figure 2 (two classes) or Sec. 4 (more) for ``max_iter`` passes.

    The parameters are ``perceptrons.Ballseptron``'s (defaults included),
    with ``shuffle=False``; a ``kernel`` runs the brute-force dual forms
    (:func:`figure2_dual`, :func:`section4_dual` and their averages).
    ``classes`` (as ``partial_fit``'s) when y does not show them all.

    Returns
    -------
    BallseptronState
    """
    X_train = densify(X)
    y = np.asarray(y)
    classes = np.unique(y if classes is None else classes)
    idx = np.searchsorted(classes, y)
    binary = len(classes) == 2
    signs = np.where(idx == 1, 1.0, -1.0)
    averaged = hypothesis == "averaged"
    if hypothesis not in ("averaged", "last"):
        raise ValueError(hypothesis)
    kernel_params = dict(degree=degree, gamma=gamma, coef0=coef0)
    if kernel is None:
        if binary and averaged:
            avg, last, m, e = figure2_averaged(X_train, signs, radius, max_iter)
            avg, last = avg[None, :], last[None, :]
        elif binary:
            last, m, e = figure2(X_train, signs, radius, max_iter)
            last = avg = last[None, :]
        elif averaged:
            avg, last, m, e = section4_averaged(X_train, idx, len(classes),
                                                radius, max_iter)
        else:
            last, m, e = section4(X_train, idx, len(classes), radius,
                                  max_iter)
            avg = last
        coef, last_coef, dual, last_dual = avg, last, None, None

        def decision_function(Z):
            s = densify(Z) @ coef.T
            return s[:, 0] if binary else s
    else:
        if binary and averaged:
            avg, last, m, e = figure2_dual_averaged(
                X_train, signs, radius, kernel, max_iter, **kernel_params)
            avg, last = avg[None, :], last[None, :]
        elif binary:
            last, m, e = figure2_dual(X_train, signs, radius, kernel,
                                      max_iter, **kernel_params)
            last = avg = last[None, :]
        elif averaged:
            avg, last, m, e = section4_dual_averaged(
                X_train, idx, len(classes), radius, kernel, max_iter,
                **kernel_params)
        else:
            last, m, e = section4_dual(X_train, idx, len(classes), radius,
                                       kernel, max_iter, **kernel_params)
            avg = last
        coef, last_coef, dual, last_dual = None, None, avg, last

        def decision_function(Z):
            s = gram(Z, X_train, kernel, **kernel_params) @ dual.T
            return s[:, 0] if binary else s

    def predict(Z):
        s = decision_function(Z)
        if s.ndim == 1:
            return classes[(s > 0).astype(int)]
        return classes[np.argmax(s, axis=1)]

    return BallseptronState(
        classes=classes, coef=coef, last_coef=last_coef, dual_coef=dual,
        last_dual_coef=last_dual, mistakes_per_epoch=list(m),
        margin_errors_per_epoch=list(e),
        updates_per_epoch=list(np.add(m, e)), n_mistakes=int(sum(m)),
        n_margin_errors=int(sum(e)), n_updates=int(sum(m) + sum(e)),
        decision_function=decision_function, predict=predict)
