"""Khardon & Wachman (2007), Figure 2, transcribed line by line (test oracle).

Slow on purpose: one example at a time, plain Python loops over dense numpy
vectors, every hypothesis stored explicitly. Sparse input is densified here,
and only here. Nothing is imported from ``perceptrons``.

The transcription follows Figure 2 ("Illustration of All Algorithm Variants")
of

    R. Khardon and G. Wachman. Noise tolerant variants of the perceptron
    algorithm. JMLR 8:227-248, 2007.

with the project decisions documented in ``perceptrons.Perceptron``:

* the threshold update is ``θ ← θ - η y C`` (Figure 2 prints ``+``);
* τ is absolute (Sec. 2.4 measures it in units of θ_Init);
* the vote includes the initial hypothesis (w_0 = 0, θ_Init) with its votes
  (Figure 2 loops over ``1..k``), and a hypothesis whose output is exactly
  on its threshold contributes ``sign(0) = 0``;
* "averaged" (not in K&W) is the mean over every example presented, all
  epochs, of (w, θ) after that example's step;
* an online mistake is ``y(<w, x> - θ) <= 0`` for the hypothesis in force
  before the step (no λ, no τ);
* multiclass: one-vs-rest (Sec. 2.7), all problems trained in the same pass,
  or one prototype per class (Crammer & Singer / Shalev-Shwartz & Singer
  2005, Eq. 18) with Figure 2's margin, λ-trick and α-bound carried over.

The common entry is :func:`fit` (``fit(X, y, **params) -> Figure2State``,
the estimator's parameter names, rows in their given order). With a
``kernel`` it runs :func:`dual_figure2`, Figure 2 in dual form over an
explicit Gram matrix, instead of the primal transcription.
"""

import copy
import dataclasses
from typing import Any, Callable, Optional

import numpy as np

from tests.reference.kernels import densify, gram


def average_sq_norm(X):
    """θ_Init / C "auto" of K&W Sec. 3.2: the average <x, x> of the rows."""
    total = 0.0
    for x in X:
        total += float(np.dot(x, x))
    return total / X.shape[0]


def first_argmax(values, skip=None):
    """Index of the largest value, lowest index among equals (``skip`` left out)."""
    best = None
    for r in range(len(values)):
        if r == skip:
            continue
        if best is None or values[r] > values[best]:
            best = r
    return best


# --------------------------------------------------------------------------
# One binary problem: Figure 2, TRAINING.
# --------------------------------------------------------------------------
class Figure2Run:
    """The state of Figure 2's TRAINING block for one binary problem.

    ``hypotheses[j] = (w_j, θ_j)`` and ``votes[j] = vote_j`` for
    ``j = 0..k``; ``iterates`` holds (w, θ) after every step.
    """

    def __init__(self, n_features, theta_init):
        # Initialize α ← 0^m (per call, see begin_call), k ← 0, w_0 ← 0^n,
        # tally ← 0, best_tally ← 0, θ_0 ← θ_Init, θ_l.s. ← θ_Init.
        self.k = 0
        self.hypotheses = [(np.zeros(n_features), float(theta_init))]
        self.votes = [0]
        self.tally = 0
        self.best_tally = 0
        self.w_ls = np.zeros(n_features)
        self.theta_ls = float(theta_init)
        self.alpha = None
        self.n_updates = 0
        self.iterates = []

    @property
    def w(self):
        return self.hypotheses[self.k][0]

    @property
    def theta(self):
        return self.hypotheses[self.k][1]

    def begin_call(self, n_samples):
        """α ← 0^m: the per-example counts live for one fit/partial_fit call."""
        self.alpha = [0] * n_samples

    def online_mistake(self, x, y):
        """Prediction of the current hypothesis, ties counted as mistakes."""
        return y * (float(np.dot(self.w, x)) - self.theta) <= 0.0

    def step(self, i, x, y, p, s=1.0):
        """One ``z_i`` of Figure 2, its step η times the row's weight s;
        returns True when it made an update."""
        w_k, theta_k = self.hypotheses[self.k]
        indicator = 1.0 if self.alpha[i] != 0 else 0.0
        # SUM ← <w_k, x_i> + I(α_i ≠ 0) y_i λ ‖x_i‖²
        SUM = float(np.dot(w_k, x)) + indicator * y * p.lam * float(np.dot(x, x))
        # Predict
        if SUM < theta_k - p.margin:
            y_hat = -1
        elif SUM > theta_k + p.margin:
            y_hat = 1
        else:
            y_hat = 0  # this forces an update
        updated = False
        if y_hat != y and self.alpha[i] < p.alpha_bound:
            w_next = w_k + p.eta * s * y * x
            self.alpha[i] = self.alpha[i] + 1
            theta_next = theta_k - p.eta * s * y * p.C  # project sign: minus
            self.hypotheses.append((w_next, theta_next))
            self.votes.append(0)
            self.k = self.k + 1
            self.tally = 0
            self.n_updates += 1
            updated = True
        elif y_hat == y:
            self.votes[self.k] = self.votes[self.k] + 1
            self.tally = self.tally + 1
            if self.tally > self.best_tally:
                self.best_tally = self.tally
                self.w_ls = w_k.copy()
                self.theta_ls = theta_k
        # (ŷ ≠ y with α_i ≥ α-bound: nothing at all happens.)
        self.iterates.append((self.w.copy(), self.theta))
        return updated

    # ---------------------------------------------------- final hypotheses
    def final(self, hypothesis):
        """(w, θ) of the CLASSICAL / LONGEST SURVIVOR / averaged hypothesis.

        For "voted" this is the last hypothesis (what ``coef_`` reports).
        """
        if hypothesis in ("last", "voted"):
            return self.w.copy(), self.theta
        if hypothesis == "longest":
            return self.w_ls.copy(), self.theta_ls
        if hypothesis == "averaged":
            W = np.array([w for w, _ in self.iterates])
            thetas = np.array([t for _, t in self.iterates])
            return W.mean(axis=0), float(thetas.mean())
        raise ValueError(hypothesis)

    def vote_total(self, x):
        """VOTED: Σ_j vote_j sign(<w_j, x> - θ_j), j = 0..k (w_0 included)."""
        total = 0
        for (w_j, theta_j), vote_j in zip(self.hypotheses, self.votes):
            total += vote_j * int(np.sign(float(np.dot(w_j, x)) - theta_j))
        return total


# --------------------------------------------------------------------------
# One prototype per class.
# --------------------------------------------------------------------------
class PrototypeRun:
    """Figure 2's bookkeeping around the multiclass prototype update."""

    def __init__(self, n_classes, n_features, theta_init):
        self.k = 0
        self.hypotheses = [(np.zeros((n_classes, n_features)),
                            np.full(n_classes, float(theta_init)))]
        self.votes = [0]
        self.tally = 0
        self.best_tally = 0
        self.W_ls = np.zeros((n_classes, n_features))
        self.theta_ls = np.full(n_classes, float(theta_init))
        self.alpha = None
        self.n_updates = 0
        self.iterates = []

    @property
    def W(self):
        return self.hypotheses[self.k][0]

    @property
    def theta(self):
        return self.hypotheses[self.k][1]

    def begin_call(self, n_samples):
        self.alpha = [0] * n_samples

    @staticmethod
    def scores(W, theta, x):
        return [float(np.dot(W[r], x)) - float(theta[r]) for r in range(len(W))]

    def online_mistake(self, x, y):
        s = self.scores(self.W, self.theta, x)
        other = first_argmax(s, skip=y)
        return s[y] - s[other] <= 0.0

    def step(self, i, x, y, p, weight=1.0):
        W_k, theta_k = self.hypotheses[self.k]
        s = self.scores(W_k, theta_k, x)
        other = first_argmax(s, skip=y)  # ỹ: best other class, lowest index
        gap = s[y] - s[other]
        if self.alpha[i] != 0:
            gap = gap + p.lam * float(np.dot(x, x))
        updated = False
        if gap <= p.margin and self.alpha[i] < p.alpha_bound:
            W_next = W_k.copy()
            theta_next = theta_k.copy()
            W_next[y] = W_next[y] + p.eta * weight * x
            W_next[other] = W_next[other] - p.eta * weight * x
            theta_next[y] = theta_next[y] - p.eta * weight * p.C
            theta_next[other] = theta_next[other] + p.eta * weight * p.C
            self.alpha[i] = self.alpha[i] + 1
            self.hypotheses.append((W_next, theta_next))
            self.votes.append(0)
            self.k = self.k + 1
            self.tally = 0
            self.n_updates += 1
            updated = True
        elif gap > p.margin:
            self.votes[self.k] = self.votes[self.k] + 1
            self.tally = self.tally + 1
            if self.tally > self.best_tally:
                self.best_tally = self.tally
                self.W_ls = W_k.copy()
                self.theta_ls = theta_k.copy()
        self.iterates.append((self.W.copy(), self.theta.copy()))
        return updated

    def final(self, hypothesis):
        if hypothesis in ("last", "voted"):
            return self.W.copy(), self.theta.copy()
        if hypothesis == "longest":
            return self.W_ls.copy(), self.theta_ls.copy()
        if hypothesis == "averaged":
            W = np.array([w for w, _ in self.iterates])
            thetas = np.array([t for _, t in self.iterates])
            return W.mean(axis=0), thetas.mean(axis=0)
        raise ValueError(hypothesis)

    def class_votes(self, x):
        """Each hypothesis gives its votes to its argmax class."""
        out = np.zeros(len(self.theta), dtype=np.int64)
        for (W_j, theta_j), vote_j in zip(self.hypotheses, self.votes):
            out[first_argmax(self.scores(W_j, theta_j, x))] += vote_j
        return out


# --------------------------------------------------------------------------
# The estimator-shaped driver.
# --------------------------------------------------------------------------
class _Params:
    def __init__(self, eta, C, margin, lam, alpha_bound):
        self.eta = float(eta)
        self.C = float(C)
        self.margin = float(margin)
        self.lam = float(lam)
        self.alpha_bound = float("inf") if alpha_bound is None else alpha_bound


class KhardonWachmanReference:
    """Figure 2 with one-vs-rest or prototype multiclass, fit/partial_fit.

    Parameters mirror ``perceptrons.Perceptron`` (``shuffle=False``). The
    fitted attributes have the estimator's names and shapes.
    """

    def __init__(self, *, eta=0.1, theta_init="auto", threshold_step="auto",
                 margin=0.0, lam=0.0, alpha_bound=None, hypothesis="last",
                 multiclass="ovr"):
        self.eta = eta
        self.theta_init = theta_init
        self.threshold_step = threshold_step
        self.margin = margin
        self.lam = lam
        self.alpha_bound = alpha_bound
        self.hypothesis = hypothesis
        self.multiclass = multiclass

    # ------------------------------------------------------------ training
    def fit(self, X, y, max_iter=1, snapshot_epochs=(), sample_weight=None):
        """``max_iter`` passes in the given order.

        ``snapshots_[e]`` is a copy of the reference as it stood after the
        first ``e`` passes, for each ``e`` in ``snapshot_epochs`` (what
        ``fit`` with ``max_iter=e`` would have produced). A row's
        ``sample_weight`` s multiplies its step η; rows of weight 0 are not
        presented at all.
        """
        X = densify(X)
        y = np.asarray(y)
        classes = np.unique(y)
        weights = None
        if sample_weight is not None:
            weights = np.asarray(sample_weight, dtype=np.float64)
            X, y, weights = X[weights > 0], y[weights > 0], weights[weights > 0]
        self._start(X, classes)
        self.snapshots_ = {}
        self._call(X, y, max_iter, snapshot_epochs, weights)
        return self

    def partial_fit(self, X, y, classes=None):
        X = densify(X)
        y = np.asarray(y)
        if not hasattr(self, "classes_"):
            self._start(X, np.unique(np.asarray(classes)))
        self._call(X, y, 1)
        return self

    def _start(self, X, classes):
        self.classes_ = classes
        avg = None
        if self.theta_init == "auto" or self.threshold_step == "auto":
            avg = average_sq_norm(X)
        self.theta_init_ = avg if self.theta_init == "auto" else float(
            self.theta_init)
        self.threshold_step_ = avg if self.threshold_step == "auto" else float(
            self.threshold_step)
        self._p = _Params(self.eta, self.threshold_step_, self.margin,
                          self.lam, self.alpha_bound)
        n_classes, d = len(classes), X.shape[1]
        self.prototype_ = self.multiclass == "prototype"
        if self.prototype_:
            self.runs_ = [PrototypeRun(n_classes, d, self.theta_init_)]
        elif n_classes == 2:
            self.runs_ = [Figure2Run(d, self.theta_init_)]
        else:
            self.runs_ = [Figure2Run(d, self.theta_init_)
                          for _ in range(n_classes)]
        self.n_mistakes_ = 0
        self.n_updates_ = 0
        self.mistakes_per_epoch_ = []
        self.updates_per_epoch_ = []
        self.t_ = 0

    def _binary_label(self, k, c):
        """Label ±1 of class index c in one-vs-rest problem k."""
        if len(self.runs_) == 1:
            return 1 if c == 1 else -1  # positive = classes_[1]
        return 1 if c == k else -1

    def _call(self, X, y, n_epochs, snapshot_epochs=(), weights=None):
        targets = [int(np.flatnonzero(self.classes_ == label)[0]) for label in y]
        for run in self.runs_:
            run.begin_call(X.shape[0])
        for _ in range(n_epochs):
            mistakes = 0
            updates = 0
            for i in range(X.shape[0]):  # for every z_i in Z (no shuffling)
                x, c = X[i], targets[i]
                s = 1.0 if weights is None else float(weights[i])
                mistakes += int(self._online_mistake(x, c))
                if self.prototype_:
                    updates += int(self.runs_[0].step(i, x, c, self._p, s))
                else:
                    for k, run in enumerate(self.runs_):
                        updates += int(run.step(i, x, self._binary_label(k, c),
                                                self._p, s))
                self.t_ += 1
            self.mistakes_per_epoch_.append(mistakes)
            self.updates_per_epoch_.append(updates)
            self.n_mistakes_ += mistakes
            self.n_updates_ += updates
            if len(self.mistakes_per_epoch_) in snapshot_epochs:
                self._finish()
                snapshot = copy.copy(self)
                snapshot.__dict__.pop("snapshots_", None)
                self.snapshots_[len(self.mistakes_per_epoch_)] = (
                    copy.deepcopy(snapshot))
        self._finish()

    def _online_mistake(self, x, c):
        if self.prototype_:
            return self.runs_[0].online_mistake(x, c)
        if len(self.runs_) == 1:
            return self.runs_[0].online_mistake(x, self._binary_label(0, c))
        # One-vs-rest: the true class's raw score must be strictly highest.
        s = [float(np.dot(run.w, x)) - run.theta for run in self.runs_]
        return any(s[r] >= s[c] for r in range(len(s)) if r != c)

    def _finish(self):
        if self.prototype_:
            W, theta = self.runs_[0].final(self.hypothesis)
        else:
            finals = [run.final(self.hypothesis) for run in self.runs_]
            W = np.array([w for w, _ in finals])
            theta = np.array([t for _, t in finals])
        self.coef_ = np.array(W, dtype=np.float64)
        self.intercept_ = -np.array(theta, dtype=np.float64)

    # ------------------------------------------------------------ prediction
    def raw_scores(self, X):
        """(n_samples, n_rows) scores <w, x> - θ of the final hypothesis, or
        vote totals for "voted"."""
        X = densify(X)
        rows = []
        for x in X:
            if self.hypothesis == "voted":
                if self.prototype_:
                    rows.append(self.runs_[0].class_votes(x).astype(float))
                else:
                    rows.append([float(run.vote_total(x)) for run in self.runs_])
            else:
                rows.append([float(np.dot(w, x)) + b
                             for w, b in zip(self.coef_, self.intercept_)])
        return np.array(rows, dtype=np.float64)

    def decision_function(self, X):
        s = self.raw_scores(X)
        if self.prototype_ and s.shape[1] == 2:
            return s[:, 1] - s[:, 0]
        return s[:, 0] if s.shape[1] == 1 else s

    def predict(self, X):
        s = self.decision_function(X)
        if s.ndim == 1:
            return self.classes_[(s > 0).astype(int)]
        return self.classes_[[first_argmax(list(row)) for row in s]]

    # ------------------------------------------------------------ robustness
    def ambiguous(self, X, tol):
        """Rows whose prediction hinges on a comparison within ``tol``.

        Another implementation may round ``<w, x>`` differently; a test
        point is ambiguous when a sign or an argmax it depends on is decided
        by less than ``tol``. Exact ties between structurally equal outputs
        (an untouched w = 0, or two untouched prototypes) are not ambiguous:
        every implementation computes them exactly.
        """
        X = densify(X)
        out = np.zeros(X.shape[0], dtype=bool)
        for t, x in enumerate(X):
            if self.hypothesis == "voted":
                out[t] = self._voted_ambiguous(x, tol)
            else:
                W, b = self.coef_, self.intercept_
                s = [float(np.dot(W[r], x)) + b[r] for r in range(len(b))]
                zero = [not np.any(W[r]) for r in range(len(b))]
                out[t] = _scores_ambiguous(s, zero, tol)
        return out

    def _voted_ambiguous(self, x, tol):
        if self.prototype_:
            run = self.runs_[0]
            for (W_j, theta_j), vote_j in zip(run.hypotheses, run.votes):
                if vote_j == 0:
                    continue
                s = run.scores(W_j, theta_j, x)
                zero = [not np.any(W_j[r]) for r in range(len(s))]
                if _argmax_ambiguous(s, zero, tol):
                    return True
            return False
        for run in self.runs_:
            for (w_j, theta_j), vote_j in zip(run.hypotheses, run.votes):
                if vote_j == 0 or not np.any(w_j):
                    continue
                if abs(float(np.dot(w_j, x)) - theta_j) < tol:
                    return True
        return False


def _argmax_ambiguous(s, zero, tol):
    best = first_argmax(s)
    for r in range(len(s)):
        if r == best:
            continue
        gap = s[best] - s[r]
        if gap < tol and not (gap == 0.0 and zero[best] and zero[r]):
            return True
    return False


def _scores_ambiguous(s, zero, tol):
    if len(s) == 1:
        return abs(s[0]) < tol and not zero[0]
    return _argmax_ambiguous(s, zero, tol)


# --------------------------------------------------------------------------
# Figure 2 in dual form, over an explicit Gram matrix.
# --------------------------------------------------------------------------
def dual_figure2(K, targets, n_classes, *, eta, theta_init, C, margin, lam,
                 alpha_bound, hypothesis, multiclass, epochs, weights=None):
    """K&W Figure 2 in dual form over an explicit Gram matrix ``K``.

    Plain Python, one example at a time; every hypothesis (coefficients,
    θ, vote) is stored. Conventions of ``Perceptron``: θ ← θ - η y C, τ
    absolute, ties are mistakes, the vote includes the initial hypothesis,
    "averaged" is the mean over all steps of the state after each step.
    ``targets`` are class indices; with two classes and one-vs-rest, one
    problem with class 1 positive. A row's ``weights`` entry (positive)
    multiplies its steps η.

    Returns
    -------
    dict
        ``n_mistakes``, ``n_updates``, ``mistakes_per_epoch``,
        ``updates_per_epoch``, ``coef`` and ``theta`` (the final hypothesis
        by training row; the last one for "voted"), and ``score(K_test)``,
        the decision values from the (n_test, n) kernel block.
    """
    n = K.shape[0]
    prototype = multiclass == "prototype"
    P = n_classes if (prototype or n_classes > 2) else 1
    G = 1 if prototype else P  # independent counters
    c = np.zeros((P, n))
    theta = np.full(P, float(theta_init))
    alpha = np.zeros((G, n), dtype=int)
    # hypotheses[g] = list of [coef rows, theta rows, vote]
    rows_of = [list(range(P))] if prototype else [[k] for k in range(P)]
    hyps = [[[c[r].copy(), theta[r].copy(), 0]] for r in rows_of]
    tally = [0] * G
    best = [0] * G
    ls = [(c[r].copy(), theta[r].copy()) for r in rows_of]
    c_sum = np.zeros_like(c)
    theta_sum = np.zeros_like(theta)
    steps = 0
    mistakes_per_epoch, updates_per_epoch = [], []
    for _ in range(epochs):
        mistakes = updates = 0
        for i in range(n):
            t = targets[i]
            scores = [sum(c[k, j] * K[j, i] for j in range(n)) - theta[k]
                      for k in range(P)]
            if P == 1:
                if (1 if t == 1 else -1) * scores[0] <= 0:
                    mistakes += 1
            elif any(scores[r] >= scores[t] for r in range(P) if r != t):
                mistakes += 1
            for g in range(G):
                if prototype:
                    other = max((r for r in range(P) if r != t),
                                key=lambda r: (scores[r], -r))
                    s = scores[t] - scores[other]
                    if lam and alpha[g, i]:
                        s += lam * K[i, i]
                    update = s <= margin
                else:
                    y = 1.0 if (t == 1 if P == 1 else t == g) else -1.0
                    s = scores[g]
                    if lam and alpha[g, i]:
                        s += y * lam * K[i, i]
                    update = y * s <= margin
                if update:
                    if alpha_bound is None or alpha[g, i] < alpha_bound:
                        step = eta * (1.0 if weights is None else weights[i])
                        if prototype:
                            c[t, i] += step
                            c[other, i] -= step
                            theta[t] -= step * C
                            theta[other] += step * C
                        else:
                            c[g, i] += step * y
                            theta[g] -= step * y * C
                        alpha[g, i] += 1
                        updates += 1
                        tally[g] = 0
                        r = rows_of[g]
                        hyps[g].append([c[r].copy(), theta[r].copy(), 0])
                else:
                    hyps[g][-1][2] += 1
                    tally[g] += 1
                    if tally[g] > best[g]:
                        best[g] = tally[g]
                        r = rows_of[g]
                        ls[g] = (c[r].copy(), theta[r].copy())
            c_sum += c
            theta_sum += theta
            steps += 1
        mistakes_per_epoch.append(mistakes)
        updates_per_epoch.append(updates)

    if hypothesis in ("last", "voted"):
        coef, th = c.copy(), theta.copy()
    elif hypothesis == "averaged":
        coef, th = c_sum / steps, theta_sum / steps
    else:
        coef = np.vstack([ls[g][0] for g in range(G)])
        th = np.concatenate([ls[g][1] for g in range(G)])

    def score(K_test):
        if hypothesis == "voted":
            out = np.zeros((K_test.shape[0], P))
            for g in range(G):
                for coef_h, th_h, vote in hyps[g]:
                    raw = K_test @ coef_h.T - th_h
                    if prototype:
                        for m, row in enumerate(raw):
                            out[m, int(np.argmax(row))] += vote
                    else:
                        out[:, g] += vote * np.sign(raw[:, 0])
        else:
            out = K_test @ coef.T - th
        if prototype and P == 2:
            return out[:, 1] - out[:, 0]
        return out[:, 0] if P == 1 else out

    return {"n_mistakes": sum(mistakes_per_epoch),
            "n_updates": sum(updates_per_epoch),
            "mistakes_per_epoch": mistakes_per_epoch,
            "updates_per_epoch": updates_per_epoch,
            "coef": coef, "theta": th, "score": score}


# --------------------------------------------------------------------------
# The common entry.
# --------------------------------------------------------------------------
@dataclasses.dataclass
class Figure2State:
    """What a Figure 2 run ends with, under the estimator's names.

    Attributes
    ----------
    classes : ndarray
        Sorted labels.
    coef : ndarray of shape (n_rows, n_features) or None
        w of the final hypothesis (the last one for "voted"); one row per
        one-vs-rest problem (one for two classes) or per prototype. None in
        dual form.
    intercept : ndarray of shape (n_rows,)
        -θ of the final hypothesis.
    dual_coef : ndarray of shape (n_rows, n_samples) or None
        Dual form only: the final hypothesis's coefficients by training row
        (``w = Σ_j dual_coef[:, j] φ(x_j)``).
    theta_init, threshold_step : float
        The resolved θ_Init and C.
    n_mistakes, n_updates, t : int
        Online mistakes, updates, examples presented.
    mistakes_per_epoch, updates_per_epoch : list of int
    hypothesis, multiclass : str
    decision_function, predict : callable
        On new rows: scores of the final hypothesis (vote totals for
        "voted"), labels.
    ambiguous : callable or None
        Primal only: ``ambiguous(X, tol)``, the rows whose prediction hinges
        on a comparison within ``tol`` (see
        :meth:`KhardonWachmanReference.ambiguous`).
    """

    classes: np.ndarray
    coef: Optional[np.ndarray]
    intercept: np.ndarray
    dual_coef: Optional[np.ndarray]
    theta_init: float
    threshold_step: float
    n_mistakes: int
    n_updates: int
    t: int
    mistakes_per_epoch: list
    updates_per_epoch: list
    hypothesis: str
    multiclass: str
    decision_function: Callable[[Any], np.ndarray]
    predict: Callable[[Any], np.ndarray]
    ambiguous: Optional[Callable[[Any, float], np.ndarray]] = None


def _state_of(ref):
    """The :class:`Figure2State` of a primal :class:`KhardonWachmanReference`
    (a snapshot: later partial_fit calls do not change it)."""
    ref = copy.deepcopy(ref)
    return Figure2State(
        classes=ref.classes_, coef=ref.coef_.copy(),
        intercept=ref.intercept_.copy(), dual_coef=None,
        theta_init=ref.theta_init_, threshold_step=ref.threshold_step_,
        n_mistakes=ref.n_mistakes_, n_updates=ref.n_updates_, t=ref.t_,
        mistakes_per_epoch=list(ref.mistakes_per_epoch_),
        updates_per_epoch=list(ref.updates_per_epoch_),
        hypothesis=ref.hypothesis, multiclass=ref.multiclass,
        decision_function=ref.decision_function, predict=ref.predict,
        ambiguous=ref.ambiguous)


KhardonWachmanReference.state = _state_of


def fit(X, y, *, eta=0.1, theta_init="auto", threshold_step="auto",
        margin=0.0, lam=0.0, alpha_bound=None, hypothesis="averaged",
        multiclass="ovr", max_iter=10, kernel=None, degree=3, gamma=None,
        coef0=1.0, sample_weight=None):
    """Figure 2 for ``max_iter`` passes over the rows in order.

    The parameters are ``perceptrons.Perceptron``'s (defaults included),
    with ``shuffle=False``. Without a kernel, the primal transcription
    (:class:`KhardonWachmanReference`); with one ("linear", "poly", "rbf"),
    :func:`dual_figure2` over the explicit Gram matrix of
    :func:`tests.reference.kernels.gram`, where "auto" is the average
    k(x, x). A row's ``sample_weight`` multiplies its steps; rows of weight
    0 are left out before anything else.

    Returns
    -------
    Figure2State
    """
    if kernel is None:
        ref = KhardonWachmanReference(
            eta=eta, theta_init=theta_init, threshold_step=threshold_step,
            margin=margin, lam=lam, alpha_bound=alpha_bound,
            hypothesis=hypothesis, multiclass=multiclass)
        return ref.fit(X, y, max_iter=max_iter,
                       sample_weight=sample_weight).state()
    X = densify(X)
    y = np.asarray(y)
    # The classes are those of every row, as in scikit-learn: a class whose
    # rows all weigh 0 is still a class (its problem sees only negatives).
    classes = np.unique(y)
    weights = None
    if sample_weight is not None:
        weights = np.asarray(sample_weight, dtype=np.float64)
        keep = weights > 0
        X, y, weights = X[keep], y[keep], weights[keep]
    kernel_params = dict(degree=degree, gamma=gamma, coef0=coef0)
    K = gram(X, X, kernel, **kernel_params)
    avg = float(np.mean(np.diag(K)))
    theta_init = avg if theta_init == "auto" else float(theta_init)
    C = avg if threshold_step == "auto" else float(threshold_step)
    run = dual_figure2(K, np.searchsorted(classes, y), len(classes), eta=eta,
                       theta_init=theta_init, C=C, margin=margin, lam=lam,
                       alpha_bound=alpha_bound, hypothesis=hypothesis,
                       multiclass=multiclass, epochs=max_iter,
                       weights=weights)

    def decision_function(Z):
        return run["score"](gram(Z, X, kernel, **kernel_params))

    def predict(Z):
        s = decision_function(Z)
        if s.ndim == 1:
            return classes[(s > 0).astype(int)]
        return classes[[first_argmax(list(row)) for row in s]]

    return Figure2State(
        classes=classes, coef=None, intercept=-run["theta"],
        dual_coef=run["coef"], theta_init=theta_init, threshold_step=C,
        n_mistakes=run["n_mistakes"], n_updates=run["n_updates"],
        t=max_iter * X.shape[0],
        mistakes_per_epoch=run["mistakes_per_epoch"],
        updates_per_epoch=run["updates_per_epoch"], hypothesis=hypothesis,
        multiclass=multiclass, decision_function=decision_function,
        predict=predict)
