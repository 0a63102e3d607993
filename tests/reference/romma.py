"""Aggressive ROMMA (Li & Long 2002), slowly (test oracle).

Transcribed from the definition, with nothing taken from ``perceptrons``:
the patterns are materialised in PDM's extended space (``extended_patterns``
of the PDM reference), ``a`` is one dense vector, and every update solves

    a' = argmin ‖v‖  subject to  v·y_k >= 1,  v·a >= ‖a‖²

afresh from ``a·y_k``, ``‖a‖²`` and ``‖y_k‖²`` recomputed from scratch:
both constraints active (``a' = c a + d y_k`` from the 2×2 system
``c‖a‖² + d a·y = ‖a‖², c a·y + d‖y‖² = 1``) when that gives c > 0, else
``a' = y_k/‖y_k‖²``. A pattern is updated when ``a·y_k < 1 - ε``; active
sets collect ``a·y_k <= c (1-ε)`` (PDM's Sec. 4 schedule). Sample
weights are the PDM reference's: row k's extension coordinate is
``l_k Δ/√s_k`` (its weight in the 2-norm soft-margin loss), rows of weight
0 are not presented.

The common entry is :func:`fit` (``fit(X, y, **params) ->
tests.reference.pdm.MarginState``, the parameter names of
``perceptrons.ROMMA``, rows in their given order); :func:`run_reference` is
one binary run.
"""

import numpy as np

from tests.reference.pdm import (C1, C2, N_EP1, N_EP2, N_EP3, collect,
                                 extended_patterns, kept_rows, problems)


class Reference:
    """State of one binary run on materialised patterns."""

    def __init__(self, Y, epsilon, n_input):
        self.Y = Y
        self.threshold = 1.0 - epsilon
        self.a = np.zeros(Y.shape[1])
        self.t = 0
        # Coordinates [l x, l ρ] of a pattern: the prediction on x itself.
        self.n_input = n_input
        self.mistakes = 0

    def update(self, y):
        A = float(self.a @ self.a)
        B = float(self.a @ y)
        C = float(y @ y)
        if A > 0:
            M = np.array([[A, B], [B, C]])
            det = A * C - B * B
            if det > 0:
                c, d = np.linalg.solve(M, np.array([A, 1.0]))
                if c > 0:
                    self.a = c * self.a + d * y
                    return
        self.a = y / C

    def present(self, rows, collect=None):
        updates = 0
        collected = []
        for k in rows:
            ay = float(self.a @ self.Y[k])
            p = self.n_input
            if float(self.a[:p] @ self.Y[k][:p]) <= 0.0:
                self.mistakes += 1
            if collect is not None and ay <= collect * self.threshold:
                collected.append(k)
            if ay < self.threshold:
                self.update(self.Y[k])
                self.t += 1
                updates += 1
        return updates, collected


def run_reference(X, labels, epsilon, rho=1.0, delta=None, max_epochs=1000,
                  active_sets=False, weights=None):
    """Run aggressive ROMMA to convergence, rows in their given order.

    Returns
    -------
    dict
        ``a``, ``w``, ``b``, ``t``, ``epochs``, ``converged``,
        ``active_passes``, ``Y``.
    """
    Y = extended_patterns(X, labels, rho, delta, weights)
    d = X.shape[1]
    ref = Reference(Y, epsilon, d + 1)
    rows = list(range(Y.shape[0]))
    epochs = passes = 0
    converged = False
    while epochs < max_epochs:
        full, level1 = ref.present(rows, collect=C1 if active_sets else None)
        epochs += 1
        if full == 0:
            converged = True
            break
        if not active_sets:
            continue
        for _ in range(N_EP1):
            u1, level2 = ref.present(level1, collect=C2)
            passes += 1
            if u1 == 0:
                break
            for _ in range(N_EP2):
                u2, level3 = ref.present(level2, collect=1.0)
                passes += 1
                if u2 == 0:
                    break
                for _ in range(N_EP3):
                    u3, _ = ref.present(level3)
                    passes += 1
                    if u3 == 0:
                        break
    return {"a": ref.a, "w": ref.a[:d], "b": ref.a[d], "t": ref.t,
            "mistakes": ref.mistakes,
            "epochs": epochs, "converged": converged,
            "active_passes": passes, "Y": Y}


def fit(X, y, *, epsilon=0.01, augmentation=1.0, extension=1.0,
        active_sets=True, max_iter=1000, sample_weight=None):
    """Aggressive ROMMA to convergence, one binary run per one-vs-rest
    problem (``classes[1]`` positive for two classes), ``shuffle=False``;
    ``sample_weight`` as in the PDM reference (rows of weight 0 left out,
    row k's extension Δ/√s_k).

    Returns
    -------
    tests.reference.pdm.MarginState
        ``counts`` and ``dual_coef`` are None; ``margin_bound`` is 1/‖a‖.
    """
    X, y, weights = kept_rows(X, y, sample_weight)
    classes, targets = problems(y)
    runs = []
    for labels in targets:
        r = run_reference(X, labels, epsilon, rho=augmentation,
                          delta=extension, max_epochs=max_iter,
                          active_sets=active_sets, weights=weights)
        norm = float(np.linalg.norm(r["a"]))
        r["margin_bound"] = 1.0 / norm if norm else 0.0
        runs.append(r)
    return collect(classes, runs, augmentation, dual=False)
