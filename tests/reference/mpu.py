"""MPU, the margin perceptron with unlearning (Panagiotakopoulos & Tsampouka
2010), slowly (test oracle).

Written from the rule as :class:`perceptrons.MPU` states it (its Notes),
with nothing taken from ``perceptrons``: the patterns are materialised in
the augmented/extended space (:func:`tests.reference.pdm.extended_patterns`),
``a`` is one dense numpy vector, ``a·y_k`` and ‖a‖ are recomputed from
scratch at every step, and the dual variables I_k are a plain list.

* learn: ``a·y_k <= b`` (and ``I_k + 1 <= C s_k b`` with a box):
  ``a += λ y_k``, λ = ⌊(b - a·y_k)/‖y_k‖²⌋ + 1 (within the box) with
  multiple steps, else 1;
* unlearn: ``a·y_k > b + δb`` and ``I_k > 0``: ``a -= λ y_k``,
  λ = min(I_k, ⌈(a·y_k - b - δb)/‖y_k‖²⌉) with multiple steps, else 1;
* δb = gap · max_k ‖y_k‖², b = δb (1-ε)/ε;
* active sets: the full pass collects ``a·y_k <= 1.01 (b+δb)``; up to 5
  rounds over it, each collecting ``a·y_k <= b+δb``, each followed by up to
  5 rounds over that; a round without step ends its level;
* certified stop: after an epoch with steps, stop when
  ``1 - γ'_d N/‖a‖ <= ε`` (no box) or the relative duality gap of the
  1-norm soft-margin problem is <= ε (box).
"""

import math

import numpy as np

from .pdm import collect, directional_margin, extended_patterns, kept_rows, \
    problems

C_BAR = 1.01
N_EP1, N_EP2 = 5, 5


class Reference:
    """One binary MPU run on materialised patterns."""

    def __init__(self, Y, b, gap, caps, multiple, n_input):
        self.Y = Y
        self.b = b
        self.gap = gap
        self.caps = caps
        self.multiple = multiple
        self.n_input = n_input
        self.a = np.zeros(Y.shape[1])
        self.I = [0] * Y.shape[0]
        self.steps = 0
        self.unlearned = 0
        self.mistakes = 0

    def step(self, k):
        """Signed λ of the step on pattern k (0: none)."""
        y = self.Y[k]
        ay = float(self.a @ y)
        yy = float(y @ y)
        if ay <= self.b:
            room = None
            if self.caps is not None:
                room = math.floor(self.caps[k] - self.I[k])
                if room < 1:
                    return 0
            lam = 1
            if self.multiple and yy > 0:
                lam = math.floor((self.b - ay) / yy) + 1
            return lam if room is None else min(lam, room)
        if self.I[k] > 0 and ay > self.b + self.gap:
            lam = 1
            if self.multiple and yy > 0:
                lam = max(1, math.ceil((ay - self.b - self.gap) / yy))
            return -min(lam, self.I[k])
        return 0

    def present(self, rows, collect=None):
        steps = 0
        collected = []
        for k in rows:
            y = self.Y[k]
            p = self.n_input
            if float(self.a[:p] @ y[:p]) <= 0.0:
                self.mistakes += 1
            if collect is not None and \
                    float(self.a @ y) <= collect * (self.b + self.gap):
                collected.append(k)
            lam = self.step(k)
            if lam:
                self.a = self.a + lam * y
                self.I[k] += lam
                steps += abs(lam)
                if lam < 0:
                    self.unlearned -= lam
        self.steps += steps
        return steps, collected

    def certificate(self, epsilon):
        """The accuracy certified now (inf: none)."""
        scores = self.Y @ self.a
        sq = float(self.a @ self.a)
        net = sum(self.I)
        if self.caps is None:
            if net <= 0 or sq <= 0:
                return math.inf
            return 1.0 - float(scores.min()) * net / sq
        b = self.b
        # Scaled by b²: P = ‖a‖²/2 + b Σ C_k (b - a·y)⁺ (C_k = caps/b),
        # D = b Σ I - ‖a‖²/2.
        primal = 0.5 * sq + float(np.sum(self.caps * np.maximum(b - scores,
                                                                0.0)))
        dual = b * net - 0.5 * sq
        return math.inf if primal <= 0 else (primal - dual) / primal


def run_reference(X, labels, *, epsilon=0.01, gap=3.0, C=None, rho=1.0,
                  delta=1.0, weights=None, active_sets=True, multiple=True,
                  certified_stop=True, max_epochs=1000):
    """MPU to convergence on one binary problem, rows in their given order."""
    Y = extended_patterns(X, labels, rho, delta, weights)
    d = X.shape[1]
    r_sq = float(np.max(np.einsum("ij,ij->i", Y, Y)))
    gap_abs = gap * r_sq
    b = gap_abs * (1.0 - epsilon) / epsilon
    caps = None
    if C is not None:
        caps = C * b * (np.ones(Y.shape[0]) if weights is None
                        else np.asarray(weights, dtype=np.float64))
    ref = Reference(Y, b, gap_abs, caps, multiple, n_input=d + 1)
    rows = list(range(Y.shape[0]))
    epochs = passes = 0
    converged = False
    while epochs < max_epochs:
        full, level1 = ref.present(rows, collect=C_BAR if active_sets
                                   else None)
        epochs += 1
        if full == 0:
            converged = True
            break
        if active_sets:
            for _ in range(N_EP1):
                u1, level2 = ref.present(level1, collect=1.0)
                passes += 1
                if u1 == 0:
                    break
                for _ in range(N_EP2):
                    u2, _ = ref.present(level2)
                    passes += 1
                    if u2 == 0:
                        break
        if certified_stop and ref.certificate(epsilon) <= epsilon:
            converged = True
            break
    net = sum(ref.I)
    return {"a": ref.a, "w": ref.a[:d], "b": ref.a[d],
            "counts": np.array(ref.I, dtype=np.int64), "t": ref.steps,
            "unlearned": ref.unlearned, "epochs": epochs,
            "converged": converged, "mistakes": ref.mistakes,
            "active_passes": passes, "Y": Y, "threshold": b, "gap": gap_abs,
            "margin_bound": (float(np.linalg.norm(ref.a)) / net if net
                             else math.inf),
            "certificate": ref.certificate(epsilon)}


def fit(X, y, *, epsilon=0.01, gap=3.0, C=None, fit_intercept=True,
        intercept_scaling=1.0, extension="auto", active_sets=True,
        multiple_updates=True, certified_stop=True, max_iter=1000,
        sample_weight=None):
    """MPU with ``perceptrons.MPU``'s parameters (``shuffle=False``).

    Returns
    -------
    tests.reference.pdm.MarginState
        Its ``counts`` are the dual variables I_k; the runs' dicts are in
        ``runs`` (added attribute).
    """
    X, y, weights = kept_rows(X, y, sample_weight)
    if extension == "auto":
        extension = 1.0 if C is None else None
    rho = intercept_scaling if fit_intercept else 0.0
    classes, targets = problems(y)
    runs = []
    for labels in targets:
        r = run_reference(X, labels, epsilon=epsilon, gap=gap, C=C, rho=rho,
                          delta=extension, weights=weights,
                          active_sets=active_sets, multiple=multiple_updates,
                          certified_stop=certified_stop, max_epochs=max_iter)
        r["labels"] = labels
        runs.append(r)
    state = collect(classes, runs, rho, dual=True)
    state.runs = runs
    return state


__all__ = ["fit", "run_reference", "directional_margin"]
