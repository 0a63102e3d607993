"""Iterative parameter mixing, Algorithm 2 of McDonald, Hall & Mann (2010),
transcribed line by line (test oracle).

    R. McDonald, K. Hall and G. Mann. Distributed training strategies for the
    structured perceptron. NAACL-HLT 2010.

Algorithm 2 (for a binary problem, with Khardon & Wachman's Figure 2 as the
perceptron of each shard, from ``tests/reference/khardon_wachman.py``)::

    PerceptronIterParamMix(T = {(x_t, y_t)})
      Shard T into S pieces T = {T_1, ..., T_S}
      w = 0
      for n: 1..N
        w^(i,n) = OneEpochPerceptron(T_i, w)        (in parallel, i = 1..S)
        w = Σ_i μ_(i,n) w^(i,n)
      return w

with μ_(i,n) = 1/S (uniform) or k_(i,n) / Σ_j k_(j,n), k_(i,n) the updates
of shard i in epoch n (the package's decisions, documented in
``perceptrons.distributed.ParameterMixing``: when no shard updated, w stays;
θ is mixed as w is; each shard keeps its α counts from epoch to epoch; the
averaged hypothesis is the mean of every hypothesis any shard visited).
Slow on purpose; nothing is imported from ``perceptrons``. The common entry
is :func:`fit` (``fit(X, y, **params) -> MixingState``, the parameter names of
``ParameterMixing`` and of its ``Perceptron``); :func:`parameter_mixing`
takes the shards themselves.
"""

import dataclasses

import numpy as np

from tests.reference.khardon_wachman import (Figure2Run, _Params,
                                             average_sq_norm, densify)


def parameter_mixing(shards, n_epochs, *, mixing, eta, theta_init,
                     threshold_step, margin=0.0, lam=0.0, alpha_bound=None):
    """Run Algorithm 2 on binary shards ``[(X_i, y_i)]`` (labels ±1).

    Returns
    -------
    list of dict, one per epoch
        ``w``, ``theta`` (the mixed hypothesis), ``w_avg``, ``theta_avg``
        (the mean of every hypothesis visited so far), ``updates`` and
        ``mistakes`` (per shard), ``mu``.
    """
    shards = [(densify(X), np.asarray(y)) for X, y in shards]
    if theta_init == "auto" or threshold_step == "auto":
        X_all = np.vstack([X for X, _ in shards])
        avg = average_sq_norm(X_all)
        theta_init = avg if theta_init == "auto" else theta_init
        threshold_step = avg if threshold_step == "auto" else threshold_step
    p = _Params(eta, threshold_step, margin, lam, alpha_bound)
    n_features = shards[0][0].shape[1]
    # w = 0 (and θ = θ_Init)
    w, theta = np.zeros(n_features), float(theta_init)
    alphas = [[0] * X.shape[0] for X, _ in shards]
    visited = []
    history = []
    for _ in range(n_epochs):                      # for n: 1..N
        ends, updates, mistakes = [], [], []
        for i, (X, y) in enumerate(shards):        # for each shard i
            # w^(i,n) = OneEpochPerceptron(T_i, w)
            run = Figure2Run(n_features, theta_init)
            run.hypotheses = [(w.copy(), theta)]
            run.alpha = alphas[i]
            k = m = 0
            for t in range(X.shape[0]):
                m += run.online_mistake(X[t], y[t])
                k += run.step(t, X[t], y[t], p)
            visited.extend(run.iterates)
            ends.append((run.w, run.theta))
            updates.append(k)
            mistakes.append(m)
        total = sum(updates)
        if total == 0:
            mu = [1.0] + [0.0] * (len(shards) - 1)
        elif mixing == "uniform":
            mu = [1.0 / len(shards)] * len(shards)
        else:
            mu = [k / total for k in updates]
        # w = Σ_i μ_(i,n) w^(i,n)
        w = sum(mu_i * w_i for mu_i, (w_i, _) in zip(mu, ends))
        theta = sum(mu_i * t_i for mu_i, (_, t_i) in zip(mu, ends))
        history.append({
            "w": w.copy(), "theta": theta,
            "w_avg": np.mean([v[0] for v in visited], axis=0),
            "theta_avg": float(np.mean([v[1] for v in visited])),
            "updates": updates, "mistakes": mistakes,
            # No update: identical states, mixed by any weights; reported
            # as the uniform ones.
            "mu": mu if total else [1.0 / len(shards)] * len(shards)})
    return history


@dataclasses.dataclass
class MixingState:
    """Algorithm 2 on a binary problem, epoch by epoch.

    Attributes
    ----------
    classes : ndarray
        The two labels (``classes[1]`` is +1).
    coef_per_epoch : ndarray of shape (n_epochs, n_features)
        w of the requested hypothesis after each epoch (the mixed one for
        "last", the mean of every hypothesis visited so far for "averaged").
    intercept_per_epoch : ndarray of shape (n_epochs,)
        The matching -θ.
    coef, intercept : ndarray
        Those of the last epoch, shaped as ``coef_`` (1, n_features) and
        ``intercept_`` (1,).
    updates_per_shard, mistakes_per_shard : ndarray of shape (n_epochs, S)
    mixing_weights : ndarray of shape (n_epochs, S)
        μ_(i,n).
    """

    classes: np.ndarray
    coef_per_epoch: np.ndarray
    intercept_per_epoch: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    updates_per_shard: np.ndarray
    mistakes_per_shard: np.ndarray
    mixing_weights: np.ndarray


def fit(X, y, *, n_shards=2, mixing="uniform", max_iter=10, eta=0.1,
        theta_init="auto", threshold_step="auto", margin=0.0, lam=0.0,
        alpha_bound=None, hypothesis="averaged"):
    """Algorithm 2 for ``max_iter`` epochs on the rows cut into ``n_shards``
    consecutive pieces (as ``numpy.array_split`` cuts them), each shard in
    order (``shuffle=False``). Binary problems only.

    Returns
    -------
    MixingState
    """
    X, y = densify(X), np.asarray(y)
    classes = np.unique(y)
    if len(classes) != 2:
        raise ValueError("the reference mixes binary problems only")
    signs = np.where(y == classes[1], 1, -1)
    cut = np.array_split(np.arange(X.shape[0]), n_shards)
    history = parameter_mixing(
        [(X[c], signs[c]) for c in cut], max_iter, mixing=mixing, eta=eta,
        theta_init=theta_init, threshold_step=threshold_step, margin=margin,
        lam=lam, alpha_bound=alpha_bound)
    key_w, key_t = (("w_avg", "theta_avg") if hypothesis == "averaged"
                    else ("w", "theta"))
    coefs = np.array([h[key_w] for h in history])
    intercepts = -np.array([h[key_t] for h in history], dtype=np.float64)
    return MixingState(
        classes=classes, coef_per_epoch=coefs,
        intercept_per_epoch=intercepts, coef=coefs[-1][None, :],
        intercept=intercepts[-1:],
        updates_per_shard=np.array([h["updates"] for h in history]),
        mistakes_per_shard=np.array([h["mistakes"] for h in history]),
        mixing_weights=np.array([h["mu"] for h in history]))
