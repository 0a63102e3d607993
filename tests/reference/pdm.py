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
* active sets (Sec. 4): see :func:`_active_rounds`;
* sample weights: a row of weight s_k > 0 is the row's weight in the
  2-norm soft-margin loss ``Σ_k s_k ξ_k² / Δ²``, i.e. its own extension
  coordinate ``l_k Δ_k`` with ``Δ_k = Δ/√s_k`` (materialised as such); the
  run is otherwise the unweighted one. Rows of weight 0 are not presented
  at all; without extension the weights change nothing (the hard-margin
  problem does not depend on them).

The common entry is :func:`fit` (``fit(X, y, **params) -> MarginState``, the
parameter names of ``perceptrons.PDM`` and ``perceptrons.PFM``, rows in their
given order); :func:`run_reference` is one binary run.
"""

import dataclasses
import math

import numpy as np
import scipy.sparse as sp

C1, C2, C1_FIRST = 2.2, 1.1, 1.1
N_EP1, N_EP2, N_EP3 = 9, 12, 12


def extended_patterns(X, labels, rho, delta, weights=None):
    """The m × (d + 1 + m) matrix of rows y_k (no extension if delta is None).

    With ``weights`` (positive, one per row), row k's extension coordinate
    is ``l_k Δ/√s_k``.
    """
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.float64)
    Y = np.hstack([labels[:, None] * X, labels[:, None] * rho])
    if delta is not None:
        ext = labels * delta
        if weights is not None:
            ext = ext / np.sqrt(np.asarray(weights, dtype=np.float64))
        Y = np.hstack([Y, np.diag(ext)])
    return Y


def kept_rows(X, y, sample_weight):
    """``(X, y, weights)`` without the rows of weight 0 (None: unweighted)."""
    if sample_weight is None:
        return X, np.asarray(y), None
    weights = np.asarray(sample_weight, dtype=np.float64)
    keep = weights > 0.0
    return X[keep], np.asarray(y)[keep], weights[keep]


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
                  first_epoch_plain=False, weights=None):
    """Run PDM/PFM to convergence, rows presented in their given order.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (m, d)
    labels : ndarray of shape (m,), values ±1
    rule : {"pdm", "pfm"}
    schedule : list of float
        ε of each successive run (PDM), or ``[β]``.
    rho, delta : float, float or None
    weights : ndarray of shape (m,) or None
        Positive row weights: row k's extension is Δ/√s_k.
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
    Y = extended_patterns(X, labels, rho, delta, weights)
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


# --------------------------------------------------------------- the entry
def accuracy_schedule(epsilon, successive):
    """ε of each successive run of PDM-succ (Sec. 5): ε_0 = 1/2,
    ε_{n+1} = ε_n / η (η = ``successive``), the first value not above ε
    replaced by ε itself; a single run ``[ε]`` without η or for ε >= 1/2."""
    if successive is None or epsilon >= 0.5:
        return [float(epsilon)]
    out, e = [], 0.5
    while e > epsilon:
        out.append(e)
        e = e / successive
    return out + [float(epsilon)]


@dataclasses.dataclass
class MarginState:
    """What a PDM, PFM or ROMMA run ends with, under the estimators' names.

    One binary problem for two classes (``classes[1]`` positive), else one
    per class (one-vs-rest); arrays run over the problems.

    Attributes
    ----------
    classes : ndarray
    coef : ndarray of shape (n_problems, n_features)
        w, the first d coordinates of a.
    intercept : ndarray of shape (n_problems,)
        ρ b: the decision is ``X @ coef.T + intercept``.
    counts : ndarray of shape (n_problems, n_samples)
        Updates made on each row (PDM/PFM; None for ROMMA, whose a is not a
        sum of patterns with integer counts).
    dual_coef : ndarray of shape (n_problems, n_samples) or None
        ``label × counts``, by row.
    n_updates_per_problem, n_iter_per_problem, n_active_passes_per_problem :
        ndarray of int
    n_updates, n_mistakes, n_iter, n_active_passes : int
        Totals over the problems (``n_iter`` is the largest).
    converged : ndarray of bool
    directional_margin : ndarray
        ``min_k a·y_k / ‖a‖`` on the materialised patterns.
    margin_bound : ndarray
        ``‖a‖ / t`` (PDM/PFM, Eq. 4) or ``1 / ‖a‖`` (ROMMA).
    a, patterns : list of ndarray
        The extended weight vector and the pattern matrix of each problem.
    """

    classes: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    counts: object
    dual_coef: object
    n_updates_per_problem: np.ndarray
    n_iter_per_problem: np.ndarray
    n_active_passes_per_problem: np.ndarray
    n_updates: int
    n_mistakes: int
    n_iter: int
    n_active_passes: int
    converged: np.ndarray
    directional_margin: np.ndarray
    margin_bound: np.ndarray
    a: list
    patterns: list


def problems(y):
    """(classes, ±1 label vectors of the one-vs-rest problems)."""
    y = np.asarray(y)
    classes = np.unique(y)
    positives = classes[1:] if len(classes) == 2 else classes
    return classes, [np.where(y == c, 1.0, -1.0) for c in positives]


def collect(classes, runs, rho, dual):
    """A :class:`MarginState` from the dicts of the binary runs."""
    return MarginState(
        classes=classes,
        coef=np.array([r["w"] for r in runs]),
        intercept=np.array([rho * r["b"] for r in runs]),
        counts=np.array([r["counts"] for r in runs]) if dual else None,
        dual_coef=(np.array([r["labels"] * r["counts"] for r in runs])
                   if dual else None),
        n_updates_per_problem=np.array([r["t"] for r in runs]),
        n_iter_per_problem=np.array([r["epochs"] for r in runs]),
        n_active_passes_per_problem=np.array([r["active_passes"]
                                              for r in runs]),
        n_updates=int(sum(r["t"] for r in runs)),
        n_mistakes=int(sum(r["mistakes"] for r in runs)),
        n_iter=int(max(r["epochs"] for r in runs)),
        n_active_passes=int(sum(r["active_passes"] for r in runs)),
        converged=np.array([r["converged"] for r in runs]),
        directional_margin=np.array([directional_margin(r["a"], r["Y"])
                                     for r in runs]),
        margin_bound=np.array([r["margin_bound"] for r in runs]),
        a=[r["a"] for r in runs], patterns=[r["Y"] for r in runs])


def fit(X, y, *, epsilon=None, beta=None, successive=None, augmentation=1.0,
        extension=1.0, active_sets=True, multiple_updates=True,
        max_iter=1000, sample_weight=None):
    """PDM (``epsilon``, default 0.01) or PFM (``beta``) to convergence.

    The parameters are ``perceptrons.PDM``'s and ``perceptrons.PFM``'s
    (``beta="auto"`` is ``extension / (2√m)``, 0 without extension), with
    ``shuffle=False``. Plain PDM (no ``successive``) makes its first full
    epoch with single updates, collecting with c1 = 1.1 (Sec. 4).
    ``sample_weight``: rows of weight 0 are left out, the others get the
    extension Δ/√s_k (module notes); "auto" β is then ``Δ / (2√(Σ s_k))``,
    half the margin ``1/√(Σ_k 1/Δ_k²)`` the extension alone guarantees.

    Returns
    -------
    MarginState
    """
    if beta is not None and epsilon is not None:
        raise ValueError("pass epsilon (PDM) or beta (PFM), not both")
    X, y, weights = kept_rows(X, y, sample_weight)
    if beta is None:
        rule = "pdm"
        schedule = accuracy_schedule(0.01 if epsilon is None else epsilon,
                                     successive)
    else:
        rule = "pfm"
        if beta == "auto":
            total = X.shape[0] if weights is None else float(weights.sum())
            beta = (0.0 if extension is None
                    else 0.5 * extension / math.sqrt(total))
        schedule = [float(beta)]
    first_plain = rule == "pdm" and successive is None
    classes, targets = problems(y)
    runs = []
    for labels in targets:
        r = run_reference(X, labels, rule, schedule, rho=augmentation,
                          delta=extension, max_epochs=max_iter,
                          active_sets=active_sets, multiple=multiple_updates,
                          first_epoch_plain=first_plain, weights=weights)
        r["labels"] = labels
        r["margin_bound"] = (float(np.linalg.norm(r["a"])) / r["t"]
                             if r["t"] else 0.0)
        runs.append(r)
    return collect(classes, runs, augmentation, dual=True)
