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

Row weights (``sample_weight``): a row of weight s is tested as the paper
says and its update is s times the paper's, ``w + s y x̂`` (Eq. (18) with
``s x̂``); rows of weight 0 are not presented at all.

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


def _unit(s, n):
    return np.ones(n) if s is None else np.asarray(s, dtype=np.float64)


def figure2(X, y, radius, n_epochs=1, w=None, s=None):
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
    s : array of shape (n_samples,), optional
        Row weights (default: all 1), multiplying the update.

    Returns
    -------
    w : ndarray of shape (n_features,)
    mistakes, margin_errors : list of int
        ε and ε̃ of each pass.
    """
    X = densify(X)
    s = _unit(s, X.shape[0])
    w = np.zeros(X.shape[1]) if w is None else np.array(w, dtype=np.float64)
    mistakes, margin_errors = [], []
    for _ in range(n_epochs):
        n_mistakes = n_margin = 0
        for x_t, y_t, s_t in zip(X, y, s):
            y_t = float(y_t)
            if y_t * np.dot(w, x_t) <= 0.0:
                w = w + s_t * y_t * x_t
                n_mistakes += 1
            elif y_t * np.dot(w, x_t) / np.linalg.norm(w) <= radius:
                x_hat = x_t - y_t * radius * w / np.linalg.norm(w)
                w = w + s_t * y_t * x_hat
                n_margin += 1
            # Else: no margin mistake, w_{t+1} = w_t.
        mistakes.append(n_mistakes)
        margin_errors.append(n_margin)
    return w, mistakes, margin_errors


def section4(X, y, n_classes, radius, n_epochs=1, W=None, s=None):
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
    s : array of shape (n_samples,), optional
        Row weights (default: all 1), multiplying the update.

    Returns
    -------
    W : ndarray of shape (n_classes, n_features)
    mistakes, margin_errors : list of int
        Per pass.
    """
    X = densify(X)
    s = _unit(s, X.shape[0])
    if W is None:
        W = np.zeros((n_classes, X.shape[1]))
    W = np.array(W, dtype=np.float64)
    mistakes, margin_errors = [], []
    for _ in range(n_epochs):
        n_mistakes = n_margin = 0
        for x_t, y_t, s_t in zip(X, y, s):
            y_t = int(y_t)
            scores = [float(np.dot(W[r], x_t)) for r in range(n_classes)]
            other = best_other(scores, y_t)
            if scores[y_t] <= scores[other]:
                # ŷ_t ≠ y_t (a tie is a mistake): Eq. (18) with ŷ = other.
                W[y_t] = W[y_t] + s_t * x_t
                W[other] = W[other] - s_t * x_t
                n_mistakes += 1
                continue
            y_tilde = other
            diff = W[y_tilde] - W[y_t]
            x_hat = x_t + radius * diff / np.linalg.norm(diff)
            if np.dot(W[y_t], x_hat) <= np.dot(W[y_tilde], x_hat):
                W[y_t] = W[y_t] + s_t * x_hat
                W[y_tilde] = W[y_tilde] - s_t * x_hat
                n_margin += 1
        mistakes.append(n_mistakes)
        margin_errors.append(n_margin)
    return W, mistakes, margin_errors


# ---------------------------------------------------------------- dual form
def gram_matrix(A, B, kernel, **params):
    """Explicit Gram matrix ``[[k(a, b) for b in B] for a in A]``
    (:func:`tests.reference.kernels.gram`)."""
    return gram(A, B, kernel, **params)


def figure2_dual(X, y, radius, kernel, n_epochs=1, s=None, **params):
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
    s = _unit(s, K.shape[0])
    a = np.zeros(K.shape[0])
    mistakes, margin_errors = [], []
    for _ in range(n_epochs):
        n_mistakes = n_margin = 0
        for t in range(K.shape[0]):
            y_t = float(y[t])
            score = float(a @ K[:, t])
            if y_t * score <= 0.0:
                a[t] += s[t] * y_t
                n_mistakes += 1
                continue
            norm = float(np.sqrt(a @ K @ a))
            if y_t * score / norm <= radius:
                # w + s y x̂ = (1 - s r/‖w‖) w + s y x.
                a = a * (1.0 - s[t] * radius / norm)
                a[t] += s[t] * y_t
                n_margin += 1
        mistakes.append(n_mistakes)
        margin_errors.append(n_margin)
    return a, mistakes, margin_errors


def section4_dual(X, y, n_classes, radius, kernel, n_epochs=1, s=None,
                  **params):
    """Sec. 4 with ``w^r = Σ_j A[r, j] φ(x_j)``, brute force.

    Returns
    -------
    A : ndarray of shape (n_classes, n_samples)
    mistakes, margin_errors : list of int
    """
    K = gram_matrix(X, X, kernel, **params)
    s = _unit(s, K.shape[0])
    A = np.zeros((n_classes, K.shape[0]))
    mistakes, margin_errors = [], []
    for _ in range(n_epochs):
        n_mistakes = n_margin = 0
        for t in range(K.shape[0]):
            y_t = int(y[t])
            scores = [float(A[r] @ K[:, t]) for r in range(n_classes)]
            other = best_other(scores, y_t)
            if scores[y_t] <= scores[other]:
                A[y_t, t] += s[t]
                A[other, t] -= s[t]
                n_mistakes += 1
                continue
            diff = A[other] - A[y_t]
            norm = float(np.sqrt(diff @ K @ diff))
            # x̂ = φ(x_t) + r diff/‖diff‖, as coefficients.
            x_hat = radius * diff / norm
            x_hat[t] += 1.0
            if A[y_t] @ K @ x_hat <= A[other] @ K @ x_hat:
                A[y_t] = A[y_t] + s[t] * x_hat
                A[other] = A[other] - s[t] * x_hat
                n_margin += 1
        mistakes.append(n_mistakes)
        margin_errors.append(n_margin)
    return A, mistakes, margin_errors


# ------------------------------------------------------- averaged hypothesis
def figure2_averaged(X, y, radius, n_epochs=1, w=None, s=None):
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
    s = _unit(s, X.shape[0])
    w = np.zeros(X.shape[1]) if w is None else np.array(w, dtype=np.float64)
    total = np.zeros(X.shape[1])
    mistakes, margin_errors = [], []
    for _ in range(n_epochs):
        n_mistakes = n_margin = 0
        for t in range(X.shape[0]):
            w, m, e = figure2(X[t:t + 1], y[t:t + 1], radius, 1, w,
                              s[t:t + 1])
            n_mistakes += m[0]
            n_margin += e[0]
            total = total + w
        mistakes.append(n_mistakes)
        margin_errors.append(n_margin)
    return total / (n_epochs * X.shape[0]), w, mistakes, margin_errors


def section4_averaged(X, y, n_classes, radius, n_epochs=1, W=None, s=None):
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
    s = _unit(s, X.shape[0])
    W = (np.zeros((n_classes, X.shape[1])) if W is None
         else np.array(W, dtype=np.float64))
    total = np.zeros_like(W)
    mistakes, margin_errors = [], []
    for _ in range(n_epochs):
        n_mistakes = n_margin = 0
        for t in range(X.shape[0]):
            W, m, e = section4(X[t:t + 1], y[t:t + 1], n_classes, radius, 1,
                               W, s[t:t + 1])
            n_mistakes += m[0]
            n_margin += e[0]
            total = total + W
        mistakes.append(n_mistakes)
        margin_errors.append(n_margin)
    return total / (n_epochs * X.shape[0]), W, mistakes, margin_errors


def figure2_dual_averaged(X, y, radius, kernel, n_epochs=1, s=None,
                          **params):
    """:func:`figure2_dual` and the average of its coefficient vectors
    after each trial, brute force (the same steps, the sum kept naively).

    Returns
    -------
    a_avg, a : ndarray of shape (n_samples,)
        The averaged and the last dual coefficients, by row.
    mistakes, margin_errors : list of int
    """
    K = gram_matrix(X, X, kernel, **params)
    s = _unit(s, K.shape[0])
    a = np.zeros(K.shape[0])
    total = np.zeros(K.shape[0])
    mistakes, margin_errors = [], []
    for _ in range(n_epochs):
        n_mistakes = n_margin = 0
        for t in range(K.shape[0]):
            y_t = float(y[t])
            score = float(a @ K[:, t])
            if y_t * score <= 0.0:
                a[t] += s[t] * y_t
                n_mistakes += 1
            else:
                norm = float(np.sqrt(a @ K @ a))
                if y_t * score / norm <= radius:
                    a = a * (1.0 - s[t] * radius / norm)
                    a[t] += s[t] * y_t
                    n_margin += 1
            total = total + a
        mistakes.append(n_mistakes)
        margin_errors.append(n_margin)
    return total / (n_epochs * K.shape[0]), a, mistakes, margin_errors


def section4_dual_averaged(X, y, n_classes, radius, kernel, n_epochs=1,
                           s=None, **params):
    """:func:`section4_dual` and the average of its coefficient rows after
    each trial, brute force.

    Returns
    -------
    A_avg, A : ndarray of shape (n_classes, n_samples)
    mistakes, margin_errors : list of int
    """
    K = gram_matrix(X, X, kernel, **params)
    s = _unit(s, K.shape[0])
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
                A[y_t, t] += s[t]
                A[other, t] -= s[t]
                n_mistakes += 1
            else:
                diff = A[other] - A[y_t]
                norm = float(np.sqrt(diff @ K @ diff))
                x_hat = radius * diff / norm
                x_hat[t] += 1.0
                if A[y_t] @ K @ x_hat <= A[other] @ K @ x_hat:
                    A[y_t] = A[y_t] + s[t] * x_hat
                    A[other] = A[other] - s[t] * x_hat
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
        degree=3, gamma=None, coef0=1.0, classes=None, sample_weight=None,
        coef_init=None):
    """Figure 2 (two classes) or Sec. 4 (more) for ``max_iter`` passes.

    The parameters are ``perceptrons.Ballseptron``'s (defaults included),
    with ``shuffle=False``; a ``kernel`` runs the brute-force dual forms
    (:func:`figure2_dual`, :func:`section4_dual` and their averages).
    ``classes`` (as ``partial_fit``'s) when y does not show them all.
    ``sample_weight``: each row's weight s, multiplying its update; rows of
    weight 0 are not presented (dual coefficients stay by row of X, 0 for
    them). ``coef_init``: the starting w (one row for two classes, else one
    prototype per class; primal form only).

    Returns
    -------
    BallseptronState
    """
    X_all = densify(X)
    y = np.asarray(y)
    classes = np.unique(y if classes is None else classes)
    present = np.ones(X_all.shape[0], dtype=bool)
    s = None
    if sample_weight is not None:
        s = np.asarray(sample_weight, dtype=np.float64)
        present = s > 0
        s = s[present]
    X_train, y = X_all[present], y[present]
    idx = np.searchsorted(classes, y)
    binary = len(classes) == 2
    signs = np.where(idx == 1, 1.0, -1.0)
    averaged = hypothesis == "averaged"
    if hypothesis not in ("averaged", "last"):
        raise ValueError(hypothesis)
    kernel_params = dict(degree=degree, gamma=gamma, coef0=coef0)
    start = None if coef_init is None else np.array(coef_init, dtype=float)
    if start is not None and kernel is not None:
        raise ValueError("coef_init starts a primal weight vector")
    if kernel is None:
        if binary and averaged:
            avg, last, m, e = figure2_averaged(
                X_train, signs, radius, max_iter,
                None if start is None else start.reshape(-1), s)
            avg, last = avg[None, :], last[None, :]
        elif binary:
            last, m, e = figure2(X_train, signs, radius, max_iter,
                                 None if start is None else start.reshape(-1),
                                 s)
            last = avg = last[None, :]
        elif averaged:
            avg, last, m, e = section4_averaged(X_train, idx, len(classes),
                                                radius, max_iter, start, s)
        else:
            last, m, e = section4(X_train, idx, len(classes), radius,
                                  max_iter, start, s)
            avg = last
        coef, last_coef, dual, last_dual = avg, last, None, None

        def decision_function(Z):
            s = densify(Z) @ coef.T
            return s[:, 0] if binary else s
    else:
        if binary and averaged:
            avg, last, m, e = figure2_dual_averaged(
                X_train, signs, radius, kernel, max_iter, s, **kernel_params)
            avg, last = avg[None, :], last[None, :]
        elif binary:
            last, m, e = figure2_dual(X_train, signs, radius, kernel,
                                      max_iter, s, **kernel_params)
            last = avg = last[None, :]
        elif averaged:
            avg, last, m, e = section4_dual_averaged(
                X_train, idx, len(classes), radius, kernel, max_iter, s,
                **kernel_params)
        else:
            last, m, e = section4_dual(X_train, idx, len(classes), radius,
                                       kernel, max_iter, s, **kernel_params)
            avg = last
        # By row of X: the rows not presented have coefficient 0.
        dual = np.zeros((avg.shape[0], X_all.shape[0]))
        last_dual = np.zeros_like(dual)
        dual[:, present], last_dual[:, present] = avg, last
        coef, last_coef = None, None

        def decision_function(Z):
            out = gram(Z, X_all, kernel, **kernel_params) @ dual.T
            return out[:, 0] if binary else out

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
