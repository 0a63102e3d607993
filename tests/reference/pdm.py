"""PDM, PDM-succ and PFM (Panagiotakopoulos & Tsampouka 2011), slowly (test oracle).

Transcribed from Secs. 2-5 of the paper, with nothing taken from
``perceptrons``: the patterns are *materialised* in the extended space,
``y_k = [l_k x_k, l_k ρ, l_k Δ e_k]`` (one extra coordinate per instance),
the weight vector ``a`` is one dense numpy vector of length d + 1 + m, and
``a·y_k`` and ``‖a‖`` are recomputed from scratch at every step. The
estimator instead keeps the extension as update counts and ‖a‖² as a running
sum, so agreement checks both tricks.

* condition (8), PDM: ``a·y_k <= (1-ε)‖a‖²/t``, threshold 0 at t = 0;
* condition (7), PFM: ``a·y_k <= β‖a‖``;
* update (2): ``a += y_k`` (λ times with multiple updates, Sec. 4, λ =
  [μ₊] + 1 with μ₊ the smallest non-negative root found by
  :func:`numpy.roots`);
* successive runs: one run per accuracy in the schedule, each continuing
  the last;
* active sets (Sec. 4): see :func:`_active_rounds`.

The module name is unique under ``tests/`` (pytest's prepend import mode).
"""

import math

import numpy as np
import scipy.sparse as sp

C1, C2, C1_FIRST = 2.2, 1.1, 1.1
N_EP1, N_EP2, N_EP3 = 9, 12, 12


def extended_patterns(X, labels, rho, delta):
    """The m × (d + 1 + m) matrix of rows y_k (no extension if delta is None)."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.float64)
    Y = np.hstack([labels[:, None] * X, labels[:, None] * rho])
    if delta is not None:
        Y = np.hstack([Y, np.diag(labels * delta)])
    return Y


class Reference:
    """State and rules of one binary run on materialised patterns."""

    def __init__(self, Y, rule, multiple, n_input=None):
        self.Y = Y
        self.rule = rule
        self.multiple = multiple
        self.a = np.zeros(Y.shape[1])
        self.t = 0
        # Coordinates [l x, l ρ] of a pattern: the prediction on x itself.
        self.n_input = Y.shape[1] if n_input is None else n_input
        self.mistakes = 0
        self.counts = np.zeros(Y.shape[0], dtype=np.int64)
        self.param = None

    def threshold(self):
        sq = float(self.a @ self.a)
        if self.rule == "pdm":
            return 0.0 if self.t == 0 else (1.0 - self.param) * sq / self.t
        return self.param * math.sqrt(sq)

    def n_updates(self, k):
        """λ of a multiple update on pattern k (which satisfies the rule)."""
        if not self.multiple:
            return 1
        y = self.Y[k]
        ay = float(self.a @ y)
        yy = float(y @ y)
        sq = float(self.a @ self.a)
        t = self.t
        if self.rule == "pdm":
            eps = self.param
            # (t+μ)(ay + μ yy) - (1-ε)(sq + 2μ ay + μ² yy) = 0
            coeffs = [eps * yy, t * yy + ay - 2.0 * (1.0 - eps) * ay,
                      t * ay - (1.0 - eps) * sq]
            good = lambda mu: True  # noqa: E731
        else:
            beta = self.param
            if yy <= beta * beta:
                return 1
            # (ay + μ yy)² = β² (sq + 2μ ay + μ² yy), where ay + μ yy >= 0
            coeffs = [yy * yy - beta * beta * yy,
                      2.0 * ay * yy - 2.0 * beta * beta * ay,
                      ay * ay - beta * beta * sq]
            good = lambda mu: ay + mu * yy >= 0.0  # noqa: E731
        roots = np.roots(coeffs)
        cands = [r.real for r in roots
                 if abs(r.imag) <= 1e-9 * max(1.0, abs(r.real))
                 and r.real >= -1e-12 and good(r.real)]
        if not cands:
            return 1
        if self.rule == "pdm":
            mu = min(cands)
        else:
            mu = max(cands)
        return int(math.floor(max(mu, 0.0))) + 1

    def present(self, rows, collect=None):
        """One pass over ``rows``; returns (updates, collected rows)."""
        updates = 0
        collected = []
        for k in rows:
            ay = float(self.a @ self.Y[k])
            p = self.n_input
            if float(self.a[:p] @ self.Y[k][:p]) <= 0.0:
                self.mistakes += 1
            thr = self.threshold()
            if collect is not None and ay <= collect * thr:
                collected.append(k)
            if ay <= thr:
                lam = self.n_updates(k)
                self.a = self.a + lam * self.Y[k]
                self.t += lam
                self.counts[k] += lam
                updates += lam
        return updates, collected


def _active_rounds(ref, level1):
    """Nested rounds after a full pass: Nep1 × (L1, Nep2 × (L2, Nep3 × L3))."""
    passes = 0
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
    return passes


def run_reference(X, labels, rule, schedule, rho=1.0, delta=None,
                  max_epochs=1000, active_sets=False, multiple=False,
                  first_epoch_plain=False):
    """Run PDM/PFM to convergence, rows presented in their given order.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (m, d)
    labels : ndarray of shape (m,), values ±1
    rule : {"pdm", "pfm"}
    schedule : list of float
        ε of each successive run (PDM), or ``[β]``.
    rho, delta : float, float or None
    max_epochs : int
        Most full epochs in all.
    active_sets, multiple, first_epoch_plain : bool
        Sec. 4 machinery; ``first_epoch_plain`` (plain PDM): the first full
        epoch collects with c1 = 1.1 and makes single updates.

    Returns
    -------
    dict
        ``a`` (extended vector), ``w``, ``b``, ``counts``, ``t``,
        ``epochs``, ``converged``, ``active_passes``.
    """
    Y = extended_patterns(X, labels, rho, delta)
    d = X.shape[1]
    ref = Reference(Y, rule, multiple, n_input=d + 1)
    rows = list(range(Y.shape[0]))
    epochs = 0
    passes = 0
    converged = True
    for param in schedule:
        ref.param = param
        while True:
            if epochs >= max_epochs:
                converged = False
                break
            first = first_epoch_plain and epochs == 0
            ref.multiple = multiple and not first
            c1 = C1_FIRST if first else C1
            full, level1 = ref.present(rows, collect=c1 if active_sets else None)
            ref.multiple = multiple
            epochs += 1
            if full == 0:
                break
            if active_sets:
                passes += _active_rounds(ref, level1)
        if not converged:
            break
    return {"a": ref.a, "w": ref.a[:d], "b": ref.a[d], "counts": ref.counts,
            "t": ref.t, "epochs": epochs, "converged": converged,
            "mistakes": ref.mistakes,
            "active_passes": passes, "Y": Y}


def directional_margin(a, Y):
    """``min_k a·y_k / ‖a‖`` on materialised patterns."""
    return float(np.min(Y @ a) / np.linalg.norm(a))
