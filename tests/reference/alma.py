"""ALMA_p(α; B, C) of Gentile (JMLR 2001), Figure 1, slowly (test oracle).

Transcribed from the figure with nothing taken from ``perceptrons``: each
binary problem keeps w itself (not θ = f(w) as the compiled loops do), and
every correction applies the link and its inverse as the figure writes
them,

    γ_k = B √(p-1)/√k;  if y w_k·x̂ <= (1-α) γ_k:
        η_k = C/(√(p-1) √k),
        w' = f⁻¹(f(w_k) + η_k y x̂),
        w_{k+1} = w'/max(1, ‖w'‖_q),  k ← k + 1,

with ``f = ∇½‖·‖²_q``, ``f⁻¹ = ∇½‖·‖²_p``, ``1/p + 1/q = 1``, and
``x̂ = [x, ρ]/‖[x, ρ]‖_p`` (ρ the constant coordinate of the bias, none
when ``fit_intercept=False``; ``intercept_scaling="auto"`` is the rows'
average norm; an all-zero row is skipped). A row of weight
s steps ``s η_k``; rows of weight 0 are not presented. The averaged
hypothesis (``hypothesis="averaged"``) is the mean of w after every row
presented (zero rows included), summed as it goes. One-vs-rest runs one
problem per class (two classes: one problem, y = +1 for the second class).

The kernel form (p = 2) keeps w as coefficients over the normalised
feature vectors ``[φ(x_j), ρ]/sqrt(k(x_j, x_j) + ρ²)`` and computes every
inner product and ``‖w'‖`` from the kernel (:mod:`tests.reference.kernels`).

:func:`fit` has the parameter names of ``perceptrons.ALMA`` and returns
:class:`ALMAResult`.
"""

from dataclasses import dataclass

import numpy as np

from tests.reference.kernels import densify, gram


def link(v, r):
    """``∇½‖v‖²_r = sign(v)|v|^{r-1}/‖v‖_r^{r-2}`` (0 at v = 0)."""
    norm = np.sum(np.abs(v) ** r) ** (1.0 / r)
    if norm == 0.0:
        return np.zeros_like(v)
    return np.sign(v) * np.abs(v) ** (r - 1.0) / norm ** (r - 2.0)


def norm(v, r):
    return float(np.sum(np.abs(v) ** r) ** (1.0 / r))


@dataclass
class ALMAResult:
    """What the tests compare.

    coef : ndarray (n_problems, n_features)
        w over the features (primal), or ``dual_coef @ X[support]`` for the
        linear kernel.
    intercept : ndarray (n_problems,)
        ``b ρ``.
    corrections : ndarray (n_problems,)
        Corrections of each problem.
    n_updates, n_mistakes : int
        Summed over problems.
    decision : ndarray (n_test, n_problems) or None
        Kernel form: ``w·[φ(x), ρ]`` (un-normalised) of the test rows.
    """

    coef: np.ndarray
    intercept: np.ndarray
    corrections: np.ndarray
    n_updates: int
    n_mistakes: int
    decision: object = None


def _labels(y):
    classes = np.unique(y)
    if classes.shape[0] == 2:
        return [np.where(y == classes[1], 1.0, -1.0)]
    return [np.where(y == c, 1.0, -1.0) for c in classes]


def _schedule(k, p, alpha, B, C):
    gamma = B * np.sqrt(p - 1.0) / np.sqrt(k)
    eta = C / (np.sqrt(p - 1.0) * np.sqrt(k))
    return (1.0 - alpha) * gamma, eta


def fit(X, y, *, p=2.0, alpha=0.9, B=None, C=np.sqrt(2.0),
        fit_intercept=True, intercept_scaling="auto", hypothesis="averaged",
        max_iter=10,
        sample_weight=None, kernel=None, degree=3, gamma=None, coef0=1.0,
        X_test=None, readings=None):
    """Figure 1 on (X, y), rows in order, ``max_iter`` passes.

    ``readings`` (primal form) picks the alternative reading of a point the
    paper leaves open, for the tests that show it differs from the one the
    estimator takes (the default of each):

    * ``"weight": "count"``: a row of weight s counts as s corrections
      (``k += s``) besides stepping ``s η_k`` (default ``"step"``: k += 1);
    * ``"bias": "after"``: the constant ρ is appended after normalising x,
      ``[x/‖x‖_p, ρ]`` (default ``"before"``: ``[x, ρ]/‖[x, ρ]‖_p``);
    * ``"zero": "trial"``: an all-zero row is a trial with ``x̂ = 0`` (a
      correction that moves nothing but k; default ``"skip"``).
    """
    readings = {"weight": "step", "bias": "before", "zero": "skip",
                **(readings or {})}
    X = densify(X)
    n, d = X.shape
    B = 1.0 / alpha if B is None else B
    s = np.ones(n) if sample_weight is None else np.asarray(sample_weight,
                                                            dtype=float)
    rho = intercept_scaling if fit_intercept else 0.0
    if rho == "auto":
        # The average norm of the rows presented (weight > 0), the
        # feature-space norm with a kernel.
        if kernel is None:
            row_norms = np.array([norm(x, p) for x in X])
        else:
            g = 1.0 / d if gamma is None else gamma
            row_norms = np.sqrt(np.diag(gram(X, X, kernel, degree=degree,
                                             gamma=g, coef0=coef0)))
        rho = float(np.mean(row_norms[s > 0])) or 1.0
    if kernel is not None:
        return _fit_kernel(X, y, p, alpha, B, C, rho, max_iter, s, kernel,
                           degree, gamma, coef0, X_test,
                           hypothesis == "averaged")
    q = p / (p - 1.0)
    Xa = np.hstack([X, np.full((n, 1), rho)])
    hats = []
    for i in range(n):
        if readings["bias"] == "after":
            nrm = norm(X[i], p)
            hat = None if nrm == 0.0 else np.append(X[i] / nrm, rho)
        else:
            nrm = norm(Xa[i], p)
            hat = None if nrm == 0.0 else Xa[i] / nrm
        if hat is None and readings["zero"] == "trial":
            hat = np.zeros(d + 1)
        hats.append(hat)
    coefs, intercepts, corrections = [], [], []
    n_updates = n_mistakes = 0
    for labels in _labels(y):
        w = np.zeros(d + 1)
        total, t = np.zeros(d + 1), 0
        k = 1
        for _ in range(max_iter):
            for i in range(n):
                if s[i] == 0.0:
                    continue  # weight 0: not presented
                if hats[i] is None:
                    total, t = total + w, t + 1  # zero row: skipped
                    continue
                x_hat, yt = hats[i], labels[i]
                margin = yt * float(w @ x_hat)
                if margin <= 0.0:
                    n_mistakes += 1
                threshold, eta = _schedule(k, p, alpha, B, C)
                if margin <= threshold:
                    eta = eta * s[i]
                    w_prime = link(link(w, q) + eta * yt * x_hat, p)
                    w = w_prime / max(1.0, norm(w_prime, q))
                    k += s[i] if readings["weight"] == "count" else 1
                    n_updates += 1
                total, t = total + w, t + 1
        if hypothesis == "averaged":
            w = total / t
        coefs.append(w[:d])
        intercepts.append(w[d] * rho)
        corrections.append(k - 1)
    return ALMAResult(np.array(coefs), np.array(intercepts),
                      np.array(corrections), n_updates, n_mistakes)


def _fit_kernel(X, y, p, alpha, B, C, rho, max_iter, s, kernel, degree,
                gamma, coef0, X_test, averaged):
    """The kernel form of ALMA_2: w = Σ c_j φ̂_j, every product a kernel
    value of the augmented, normalised feature vectors."""
    if p != 2.0:
        raise ValueError("the kernel form is ALMA_2")
    if gamma is None:
        gamma = 1.0 / X.shape[1]
    K = gram(X, X, kernel, degree=degree, gamma=gamma, coef0=coef0)
    K = K + rho ** 2
    diag = np.diag(K).copy()
    norms = np.sqrt(diag)
    n = X.shape[0]
    results = []
    n_updates = n_mistakes = 0
    for labels in _labels(y):
        c = np.zeros(n)
        total, t = np.zeros(n), 0
        k = 1
        for _ in range(max_iter):
            for i in range(n):
                if s[i] == 0.0:
                    continue
                if norms[i] == 0.0:
                    total, t = total + c, t + 1
                    continue
                yt = labels[i]
                # w·φ̂_i with φ̂_j = [φ(x_j), ρ]/norms[j].
                nz = np.flatnonzero(c)
                wx = sum(c[j] * K[j, i] / (norms[j] * norms[i]) for j in nz)
                margin = yt * wx
                if margin <= 0.0:
                    n_mistakes += 1
                threshold, eta = _schedule(k, p, alpha, B, C)
                if margin <= threshold:
                    eta = eta * s[i]
                    c[i] += eta * yt
                    nz = np.flatnonzero(c)
                    wsq = sum(c[a] * c[b] * K[a, b] / (norms[a] * norms[b])
                              for a in nz for b in nz)
                    c = c / max(1.0, np.sqrt(wsq))
                    k += 1
                    n_updates += 1
                total, t = total + c, t + 1
        if averaged:
            c = total / t
        results.append((c / np.where(norms > 0, norms, 1.0), k - 1))
    dual = np.array([r[0] for r in results])
    corrections = np.array([r[1] for r in results])
    # The bias coordinate b = Σ c_j ρ/‖·‖_j, so intercept_ = b ρ.
    intercept = dual.sum(axis=1) * rho ** 2
    coef = dual @ X if kernel == "linear" else None
    decision = None
    if X_test is not None:
        Kt = gram(densify(X_test), X, kernel, degree=degree, gamma=gamma,
                  coef0=coef0)
        decision = Kt @ dual.T + intercept
    return ALMAResult(coef, intercept, corrections, n_updates, n_mistakes,
                      decision)
