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

The module name is unique under ``tests/`` (pytest's prepend import mode puts
test directories on ``sys.path``).
"""

import numpy as np
import scipy.sparse as sp


def densify(X):
    """The reference works on dense float64 rows only."""
    if sp.issparse(X):
        return np.asarray(X.toarray(), dtype=np.float64)
    return np.array(X, dtype=np.float64)


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
