"""Local data generators and a reference Perceptron for the theory tests.

Deliberately self-contained: ``perceptrons.datasets`` is written elsewhere and
these tests must not depend on it. Imported as ``tests.theory._theory_helpers``.
"""

import numpy as np
import scipy.sparse as sp
from hypothesis import strategies as st


def rosenblatt(X, y, n_epochs=1, orders=None):
    """Mistakes of the textbook Perceptron through the origin.

    ``w_1 = 0``; on each example, a mistake is ``y_t w·x_t <= 0`` (ties count)
    and triggers ``w += y_t x_t``. The mistakes of all epochs are counted as
    one sequence. Once a whole epoch is mistake-free the weights no longer
    change, so the remaining epochs are skipped (they add no mistakes).

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), values in {-1, +1}
    n_epochs : int
    orders : list of index arrays, optional
        Order of presentation for each epoch (default: 0..n-1 every epoch).

    Returns
    -------
    n_mistakes : int
    w : ndarray of shape (n_features,)
    """
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.zeros(X.shape[1])
    n_mistakes = 0
    for epoch in range(n_epochs):
        order = range(X.shape[0]) if orders is None else orders[epoch]
        epoch_mistakes = 0
        for t in order:
            if y[t] * (w @ X[t]) <= 0.0:
                w += y[t] * X[t]
                epoch_mistakes += 1
        n_mistakes += epoch_mistakes
        if epoch_mistakes == 0 and orders is None:
            break
    return n_mistakes, w


def _unit(rng, d):
    v = rng.standard_normal(d)
    return v / np.linalg.norm(v)


def _ball(rng, n, d, R):
    """n points uniform in the d-ball of radius R."""
    directions = rng.standard_normal((n, d))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    radii = R * rng.random(n) ** (1.0 / d)
    return directions * radii[:, None]


def separable_sample(rng, n, d, gamma, R, near_margin=0.0):
    """Points in the R-ball, labelled by sign(u·x), with |u·x| >= gamma.

    Rejection sampling; requires gamma < R. A fraction ``near_margin`` of the
    rows is then replaced by hard points: on the sphere of radius R with
    gamma <= |u·x| <= 1.5 gamma (these make the Perceptron err most). Returns
    ``X, y, u`` with ``u`` a unit vector attaining margin >= gamma.
    """
    u = _unit(rng, d)
    rows = []
    n_kept = 0
    while n_kept < n:
        batch = _ball(rng, 4 * n, d, R)
        batch = batch[np.abs(batch @ u) >= gamma]
        rows.append(batch)
        n_kept += batch.shape[0]
    X = np.concatenate(rows)[:n]
    n_near = int(round(near_margin * n)) if d > 1 else 0
    if n_near:
        along = rng.choice([-1.0, 1.0], n_near) * rng.uniform(gamma, 1.5 * gamma, n_near)
        V = rng.standard_normal((n_near, d))
        V -= np.outer(V @ u, u)
        V /= np.linalg.norm(V, axis=1, keepdims=True)
        ortho = np.sqrt(np.maximum(R**2 - along**2, 0.0))
        X[rng.choice(n, n_near, replace=False)] = along[:, None] * u + ortho[:, None] * V
    y = np.where(X @ u > 0.0, 1.0, -1.0)
    return X, y, u


def noisy_sample(rng, n, d, gamma, R, flip, inside):
    """A separable sample plus noise: label flips and points inside the margin.

    ``flip`` of the rows get their label flipped; ``inside`` of the rows are
    replaced by points with |u·x| < gamma and a random label.
    """
    X, y, u = separable_sample(rng, n, d, gamma, R)
    n_inside = int(round(inside * n))
    if n_inside:
        idx = rng.choice(n, n_inside, replace=False)
        Z = _ball(rng, n_inside, d, R)
        along = Z @ u
        target = rng.uniform(-gamma, gamma, n_inside)
        Z += np.outer(target - along, u)
        # Keep the points in the R-ball after moving them along u.
        norms = np.linalg.norm(Z, axis=1)
        Z[norms > R] *= (R / norms[norms > R])[:, None]
        X[idx] = Z
        y[idx] = rng.choice([-1.0, 1.0], n_inside)
    n_flip = int(round(flip * n))
    if n_flip:
        idx = rng.choice(n, n_flip, replace=False)
        y[idx] = -y[idx]
    return X, y, u


@st.composite
def separable_problems(draw, min_samples=20, max_samples=120, max_features=6):
    """Hypothesis strategy: ``(X, y, u, gamma)`` separable with margin gamma."""
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(min_samples, max_samples))
    d = draw(st.integers(2, max_features))
    R = draw(st.floats(0.1, 100.0))
    gamma = R * draw(st.floats(0.04, 0.3))
    near_margin = draw(st.floats(0.0, 0.8))
    X, y, u = separable_sample(np.random.default_rng(seed), n, d, gamma, R, near_margin)
    # Rounding can put a constructed point a hair inside the margin.
    gamma = min(gamma, float(np.min(y * (X @ u))))
    return X, y, u, gamma


@st.composite
def noisy_problems(draw, min_samples=20, max_samples=120, max_features=6):
    """Hypothesis strategy: ``(X, y, u_true, R_param)`` with noise."""
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(min_samples, max_samples))
    d = draw(st.integers(1, max_features))
    R = draw(st.floats(0.1, 100.0))
    gamma = R * draw(st.floats(0.02, 0.3))
    flip = draw(st.floats(0.0, 0.3))
    inside = draw(st.floats(0.0, 0.3))
    rng = np.random.default_rng(seed)
    X, y, u = noisy_sample(rng, n, d, gamma, R, flip, inside)
    return X, y, u, R, seed
