"""Synthetic data generators with a known separator.

* :func:`make_khardon_wachman`: the artificial data of Khardon & Wachman
  (2007), Sec. 3.1 (integer attributes, a 0/1 weight vector, a threshold,
  a margin band removed, then label noise).
* :func:`make_separable`: uniform points in a ball, separable through the
  origin with margin ``margin`` by a known unit vector, then label noise. For
  the mistake-bound property tests (Novikoff: ``M <= (R / gamma)^2``).
* :func:`make_unit_circle`: the data of Shalev-Shwartz & Singer (2005),
  Sec. 5 and Fig. 3 (bottom): points on the unit circle with margin 0.15,
  then label noise or instance noise.
* :func:`make_sparse_target`: the data of Brotto, Gentile & Vitale (2007),
  Sec. 4 and Fig. 2: unit vectors of the cube [-1, 1]^500, a target with 50
  relevant ±1 components, margin 0.005 by rejection, then label noise.

Every generator is deterministic given ``random_state`` and draws its random
numbers in a fixed order that does not depend on the noise levels, so the
same ``random_state`` with different noise levels gives the same clean data.
"""

import math
from numbers import Integral, Real

import numpy as np
from scipy import stats
from sklearn.utils import check_random_state

__all__ = ["make_khardon_wachman", "make_separable", "make_sparse_target",
           "make_unit_circle"]


def _check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return int(value)


def _check_real(name, value, low, high=math.inf, high_open=False):
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}.")
    value = float(value)
    too_high = value >= high if high_open else value > high
    if value < low or too_high:
        bracket = ")" if high_open else "]"
        raise ValueError(
            f"{name} must be in [{low}, {high}{bracket}, got {value!r}."
        )
    return value


def _flip(y, noise, rng):
    """Flip each label with probability ``noise`` (always draws len(y) uniforms)."""
    flips = rng.random_sample(y.shape[0]) < noise
    y = y.copy()
    y[flips] *= -1
    return y


def make_khardon_wachman(
    n_samples=600,
    n_features=50,
    margin=0.1,
    noise=0.0,
    random_state=None,
    return_weights=False,
):
    r"""Generate the artificial data of Khardon & Wachman (2007), Sec. 3.1.

    The recipe, from "Concretely the data was generated as follows" on:

    1. every attribute of every example is an integer drawn uniformly from
       ``[-10, 10]`` (21 values), independently;
    2. the weight vector ``w`` starts at zero and one fair coin is flipped per
       feature; on heads the feature is added, so :math:`w_j \in \{0, 1\}`;
    3. the threshold is :math:`\theta = \frac{1}{n}\sum_i \frac12
       |\langle w, x_i\rangle|`;
    4. an example is discarded if
       :math:`|\langle w, x_i\rangle - \theta| < M\theta`;
    5. the label is :math:`\operatorname{sign}(\langle w, x_i\rangle - \theta)
       \in \{-1, +1\}`;
    6. each label is then flipped independently with probability ``noise``
       (the paper's N).

    The paper used 600 examples, ``f in {50, 200, 500}``,
    ``M in {0.05, 0.1, 0.25, 0.5, 0.75}`` and ``N in {0, 0.05, 0.1, 0.15,
    0.25}``.

    Parameters
    ----------
    n_samples : int, default=600
        Number of examples returned (kept after the margin filter).
    n_features : int, default=50
        Number of attributes (the paper's f).
    margin : float, default=0.1
        Relative margin M >= 0 of the band removed around the threshold.
    noise : float, default=0.0
        Label-flip probability N in [0, 1].
    random_state : int, RandomState instance or None, default=None
        Seed or generator, passed to :func:`sklearn.utils.check_random_state`.
    return_weights : bool, default=False
        Also return the target ``w`` and ``theta``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
        Integer-valued attributes in ``[-10, 10]``.
    y : ndarray of shape (n_samples,), int64
        Labels in {-1, +1} (after noise).
    w : ndarray of shape (n_features,), float64
        The 0/1 target weight vector (only if ``return_weights``).
    theta : float
        The threshold (only if ``return_weights``).

    Raises
    ------
    ValueError
        On invalid arguments, or if fewer than ``n_samples`` examples survive
        the margin filter among ``max(200 * n_samples, 10**6)`` candidates
        (a margin so large that almost nothing is kept).

    Notes
    -----
    *The coin flips.* The paper says "flipping a coin for each example and
    adding it to the weight vector on a head". Read literally, ``w`` would be
    the sum of a random half of the examples, making the target depend on the
    sample and pushing the added examples far onto the positive side. We read
    "example" as a slip for "feature" (one coin per coordinate, adding the
    unit vector :math:`e_j` on heads), which gives the sparse 0/1 target the
    rest of the construction presumes. If every coin shows tails
    (probability :math:`2^{-f}`), the coins are flipped again.

    *Which examples define theta.* The paper averages over "all x_i"
    without saying whether the discarded examples count. Here the first batch
    of exactly ``n_samples`` candidates (drawn before any filtering) defines
    :math:`\theta`; those candidates that pass the filter are kept, and
    further batches of ``max(n_samples, 1000)`` candidates are drawn (same
    :math:`\theta`) until ``n_samples`` examples are kept, in generation
    order. Everything is a function of ``random_state`` only.

    *Ties.* With ``margin=0`` an example with
    :math:`\langle w, x\rangle = \theta` has no label and is discarded too.

    ``noise`` only changes ``y``: ``X``, ``w`` and ``theta`` are the same for
    every noise level with the same ``random_state``.

    References
    ----------
    R. Khardon and G. Wachman. "Noise Tolerant Variants of the Perceptron
    Algorithm". JMLR 8:227-248, 2007. Sec. 3.1.

    Examples
    --------
    >>> X, y, w, theta = make_khardon_wachman(600, 50, margin=0.25,
    ...                                       random_state=0, return_weights=True)
    >>> X.shape, set(y.tolist()) == {-1, 1}
    ((600, 50), True)
    >>> bool(np.all(np.abs(X @ w - theta) >= 0.25 * theta))
    True
    """
    n_samples = _check_int("n_samples", n_samples, 1)
    n_features = _check_int("n_features", n_features, 1)
    margin = _check_real("margin", margin, 0.0)
    noise = _check_real("noise", noise, 0.0, 1.0)
    rng = check_random_state(random_state)

    w = np.zeros(n_features, dtype=np.int64)
    while not w.any():
        w = rng.randint(0, 2, size=n_features).astype(np.int64)

    def draw(size):
        return rng.randint(-10, 11, size=(size, n_features)).astype(np.int64)

    first = draw(n_samples)
    scores = first @ w
    theta = 0.5 * float(np.mean(np.abs(scores)))

    def keep(s):
        d = np.abs(s - theta)
        return (d >= margin * theta) & (s != theta)

    chunks, score_chunks, n_kept = [], [], 0
    mask = keep(scores)
    chunks.append(first[mask])
    score_chunks.append(scores[mask])
    n_kept += int(mask.sum())
    n_drawn = n_samples
    batch = max(n_samples, 1000)
    budget = max(200 * n_samples, 10**6)
    while n_kept < n_samples:
        if n_drawn >= budget:
            raise ValueError(
                f"margin={margin} is too large: only {n_kept} of {n_drawn} "
                f"candidates satisfy |<w, x> - theta| >= margin * theta "
                f"(theta={theta:.4g}); {n_samples} are needed."
            )
        cand = draw(batch)
        s = cand @ w
        mask = keep(s)
        chunks.append(cand[mask])
        score_chunks.append(s[mask])
        n_kept += int(mask.sum())
        n_drawn += batch

    X = np.concatenate(chunks)[:n_samples].astype(np.float64)
    scores = np.concatenate(score_chunks)[:n_samples]
    y = np.where(scores > theta, 1, -1).astype(np.int64)
    y = _flip(y, noise, rng)
    if return_weights:
        return X, y, w.astype(np.float64), theta
    return X, y


def make_separable(
    n_samples,
    n_features,
    margin,
    radius=1.0,
    noise=0.0,
    random_state=None,
):
    r"""Uniform points in a ball, separable through the origin with a margin.

    A unit vector ``u`` is drawn uniformly on the sphere. The examples are
    drawn uniformly from the ball :math:`\{x : \|x\| \le R\}` conditioned on
    :math:`|\langle u, x\rangle| \ge \gamma` (i.e. points in the band
    :math:`|u \cdot x| < \gamma` are rejected), and labelled
    :math:`y = \operatorname{sign}(\langle u, x\rangle)`. Before noise the
    data are therefore separable by ``u`` with margin at least ``margin`` and
    radius at most ``radius``, so the Perceptron makes at most
    :math:`(R/\gamma)^2` mistakes on them (Novikoff's theorem; Shalev-Shwartz
    & Singer 2005, Eq. (3) with zero hinge loss). Finally each label is
    flipped independently with probability ``noise``.

    Parameters
    ----------
    n_samples : int
        Number of examples.
    n_features : int
        Dimension.
    margin : float
        Margin :math:`\gamma`, with ``0 <= margin < radius``.
    radius : float, default=1.0
        Radius R > 0 of the ball.
    noise : float, default=0.0
        Label-flip probability in [0, 1].
    random_state : int, RandomState instance or None, default=None
        Seed or generator, passed to :func:`sklearn.utils.check_random_state`.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
        Examples with ``norm(x) <= radius`` and ``abs(x @ u) >= margin`` (up
        to floating-point rounding).
    y : ndarray of shape (n_samples,), int64
        Labels in {-1, +1}; equal to ``sign(X @ u)`` where not flipped.
    u : ndarray of shape (n_features,), float64
        The unit-norm separator.

    Raises
    ------
    ValueError
        On invalid arguments, or if the accepted region has probability 0 in
        floating point (margin extremely close to radius in high dimension).

    Notes
    -----
    Instead of rejecting points, the band is skipped exactly: for uniform
    points in a d-ball, :math:`(u\cdot x / R)^2 \sim \mathrm{Beta}(1/2,
    (d+1)/2)`, so :math:`u\cdot x` is drawn from that law truncated to
    :math:`|u \cdot x| \ge \gamma` (by inverse CDF), and the orthogonal part
    uniformly from the (d-1)-ball of radius :math:`\sqrt{R^2 - (u\cdot x)^2}`.
    The result has the same distribution as rejection sampling but costs the
    same for every margin, even in high dimension where rejection would
    almost never accept. ``noise`` only changes ``y``.

    Examples
    --------
    >>> X, y, u = make_separable(200, 5, margin=0.1, random_state=0)
    >>> bool(np.all(y * (X @ u) >= 0.1 - 1e-12))
    True
    """
    n_samples = _check_int("n_samples", n_samples, 1)
    n_features = _check_int("n_features", n_features, 1)
    radius = _check_real("radius", radius, 0.0)
    if radius <= 0.0:
        raise ValueError(f"radius must be > 0, got {radius!r}.")
    margin = _check_real("margin", margin, 0.0, radius, high_open=True)
    noise = _check_real("noise", noise, 0.0, 1.0)
    rng = check_random_state(random_state)

    u = rng.standard_normal(n_features)
    while not np.linalg.norm(u) > 0:  # pragma: no cover - probability 0
        u = rng.standard_normal(n_features)
    u /= np.linalg.norm(u)

    a, b = 0.5, (n_features + 1) / 2.0
    c = (margin / radius) ** 2
    tail = float(stats.beta.sf(c, a, b))
    if not tail > 0.0:
        raise ValueError(
            f"margin={margin} is too close to radius={radius} in dimension "
            f"{n_features}: the region |u.x| >= margin has probability 0 in "
            "floating point."
        )
    q = rng.random_sample(n_samples)
    q = np.maximum(q, np.finfo(float).tiny) * tail  # uniform in (0, tail]
    s2 = np.clip(stats.beta.isf(q, a, b), c, 1.0)
    t = np.maximum(radius * np.sqrt(s2), margin)
    sign = np.where(rng.random_sample(n_samples) < 0.5, -1.0, 1.0)
    t *= sign

    X = t[:, None] * u[None, :]
    if n_features > 1:
        g = rng.standard_normal((n_samples, n_features))
        g -= np.outer(g @ u, u)
        g /= np.linalg.norm(g, axis=1)[:, None]
        r_max = radius * np.sqrt(np.maximum(1.0 - s2, 0.0))
        r = r_max * rng.random_sample(n_samples) ** (1.0 / (n_features - 1))
        X += r[:, None] * g
    y = np.where(t > 0, 1, -1).astype(np.int64)
    y = _flip(y, noise, rng)
    return X, y, u


def make_unit_circle(
    n_samples=10000,
    margin=0.15,
    label_noise=0.0,
    instance_noise=0.0,
    random_state=None,
    u=None,
):
    r"""Points on the unit circle with a margin: Ballseptron paper, Fig. 3.

    Reproduces the data of the second experiment of Shalev-Shwartz & Singer
    (2005), Sec. 5, plotted in Fig. 3 (bottom): "The instances ... were
    picked from the unit circle in R^2. The labels ... were set so that the
    examples are linearly separable with a margin of 0.15." The instances are
    uniform on the two arcs of the circle where :math:`|u\cdot x| \ge`
    ``margin`` (the rest of the circle is rejected), and
    :math:`y = \operatorname{sign}(u \cdot x)`. Then:

    * each label is flipped with probability ``label_noise`` (the paper's
      :math:`\eta`; first data set), and/or
    * a Gaussian vector :math:`\mathcal N(0, \sigma^2 I)` with
      :math:`\sigma =` ``instance_noise`` is added to each instance, the labels
      being kept (second data set).

    The paper applies one kind of noise per data set; both may be combined
    here.

    Parameters
    ----------
    n_samples : int, default=10000
        Number of examples (the paper used 10,000).
    margin : float, default=0.15
        Margin in [0, 1).
    label_noise : float, default=0.0
        Label-flip probability in [0, 1].
    instance_noise : float, default=0.0
        Standard deviation sigma >= 0 of the Gaussian instance noise.
    random_state : int, RandomState instance or None, default=None
        Seed or generator, passed to :func:`sklearn.utils.check_random_state`.
    u : array-like of shape (2,), default=None
        The separator direction (normalised here). ``None`` draws a uniformly
        random unit vector.

    Returns
    -------
    X : ndarray of shape (n_samples, 2), float64
        Instances (on the unit circle when ``instance_noise == 0``).
    y : ndarray of shape (n_samples,), int64
        Labels in {-1, +1}.
    u : ndarray of shape (2,), float64
        The unit separator.

    Raises
    ------
    ValueError
        On invalid arguments (including a zero or non-2-vector ``u``).

    Notes
    -----
    The random numbers are drawn in a fixed order (direction, angles, label
    flips, instance noise) whatever the noise levels, so a sweep over
    ``label_noise`` or ``instance_noise`` with one ``random_state`` perturbs
    the same clean sample, as a noise-level curve needs.

    References
    ----------
    S. Shalev-Shwartz and Y. Singer. "A New Perspective on an Old Perceptron
    Algorithm". COLT 2005, Sec. 5 and Fig. 3.
    """
    n_samples = _check_int("n_samples", n_samples, 1)
    margin = _check_real("margin", margin, 0.0, 1.0, high_open=True)
    label_noise = _check_real("label_noise", label_noise, 0.0, 1.0)
    instance_noise = _check_real("instance_noise", instance_noise, 0.0)
    if u is not None:
        u = np.asarray(u, dtype=np.float64)
        if u.shape != (2,) or not np.all(np.isfinite(u)) or not np.linalg.norm(u) > 0:
            raise ValueError(f"u must be a finite non-zero vector of shape (2,), got {u!r}.")
    rng = check_random_state(random_state)

    phi = rng.uniform(0.0, 2.0 * np.pi)
    if u is None:
        u = np.array([np.cos(phi), np.sin(phi)])
    else:
        u = u / np.linalg.norm(u)
        phi = float(np.arctan2(u[1], u[0]))

    # angle alpha to u: |cos(alpha)| >= margin  <=>  alpha in +-[0, arccos(m)]
    # (positive side) or pi +- [0, arccos(m)] (negative side).
    alpha = rng.uniform(0.0, np.arccos(margin), size=n_samples)
    alpha *= np.where(rng.random_sample(n_samples) < 0.5, -1.0, 1.0)
    negative = rng.random_sample(n_samples) < 0.5
    alpha += np.where(negative, np.pi, 0.0)
    angle = phi + alpha
    X = np.column_stack([np.cos(angle), np.sin(angle)])
    y = np.where(negative, -1, 1).astype(np.int64)

    y = _flip(y, label_noise, rng)
    X += instance_noise * rng.standard_normal((n_samples, 2))
    return X, y, u


def _sample_until(n_samples, accepted, problem, condition):
    """Rejection sampling: ``accepted(batch)`` draws ``batch`` candidates and
    returns the rows that pass; the first ``n_samples`` rows kept, in
    generation order. Raises ``ValueError`` ("<problem>: only ... satisfy
    <condition>") after ``max(200 * n_samples, 10**6)`` candidates."""
    batch = max(n_samples, 1000)
    budget = max(200 * n_samples, 10**6)
    chunks, n_kept, n_drawn = [], 0, 0
    while n_kept < n_samples:
        if n_drawn >= budget:
            raise ValueError(
                f"{problem}: only {n_kept} of {n_drawn} candidates satisfy "
                f"{condition}; {n_samples} are needed."
            )
        kept = accepted(batch)
        chunks.append(kept)
        n_kept += kept.shape[0]
        n_drawn += batch
    return np.concatenate(chunks)[:n_samples]


def make_sparse_target(
    n_samples=2000,
    n_features=500,
    n_relevant=50,
    margin=0.005,
    noise=0.0,
    random_state=None,
):
    r"""Sparse-target data of Brotto, Gentile & Vitale (2006), Sec. 4, Fig. 2.

    The recipe of "Task 1 ... We also artificially generated two (moderately)
    sparse learning problems":

    1. the target :math:`u \in \{-1, 0, +1\}^{n}` has its first
       ``n_relevant`` components drawn independently and uniformly in
       :math:`\{-1, +1\}`, the others 0, and is then normalised
       (:math:`\|u\|_2 = 1`);
    2. each instance is drawn uniformly from :math:`[-1, +1]^{n}` and then
       normalised (:math:`\|x\|_2 = 1`);
    3. if :math:`|u \cdot x| < \gamma` (``margin``) the instance is rejected
       and a new one drawn; otherwise its label is
       :math:`\operatorname{sign}(u \cdot x)`;
    4. each label is flipped independently with probability ``noise`` (the
       paper's :math:`\eta`).

    The paper used ``n_features=500``, ``n_relevant=50``, ``margin=0.005``,
    ``noise`` 0 ("Artificial_{0,0}") and 0.1 ("Artificial_{0,1}"), and 1000
    training plus 1000 test examples drawn from the same target: call this
    with ``n_samples=2000`` and split the rows (the rows are i.i.d., so the
    first 1000 and the last 1000 are two independent samples). The label
    noise is applied to the test rows too, as the caption of Fig. 2 says.

    Parameters
    ----------
    n_samples : int, default=2000
        Number of examples returned (all of them passed the margin test).
    n_features : int, default=500
        Dimension n.
    n_relevant : int, default=50
        Number of non-zero components of the target, ``1 <= n_relevant <=
        n_features``; they are the first ones.
    margin : float, default=0.005
        γ of the rejection test, ``0 <= margin < 1``.
    noise : float, default=0.0
        Label-flip probability η in [0, 1].
    random_state : int, RandomState instance or None, default=None
        Seed or generator, passed to :func:`sklearn.utils.check_random_state`.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
        Instances of unit Euclidean norm.
    y : ndarray of shape (n_samples,), int64
        Labels in {-1, +1} (after noise).
    u : ndarray of shape (n_features,), float64
        The unit-norm target; ``y * (X @ u) >= margin`` on every row whose
        label was not flipped.

    Raises
    ------
    ValueError
        On invalid arguments, or if fewer than ``n_samples`` candidates pass
        the margin test among ``max(200 * n_samples, 10**6)`` drawn (a margin
        far above the typical :math:`|u \cdot x| \approx 1/\sqrt{3n}`-scale
        spread).

    Notes
    -----
    Candidates are drawn in batches of ``max(n_samples, 1000)`` rows and kept
    in generation order, which is the rejection sampling of the paper. The
    random numbers are drawn in a fixed order (target, candidate batches,
    then one uniform per kept row for the flips) whatever ``noise`` is, so
    one ``random_state`` with different noise levels gives the same clean
    data and target; the paper drew a new target per noise level, which is
    a different ``random_state``.

    References
    ----------
    C. Brotto, C. Gentile and F. Vitale. "On Higher-Order Perceptron
    Algorithms". NIPS 2007 (Advances in Neural Information Processing Systems
    20), Sec. 4 and Figure 2.

    Examples
    --------
    >>> X, y, u = make_sparse_target(200, random_state=0)
    >>> X.shape, bool(np.allclose(np.linalg.norm(X, axis=1), 1.0))
    ((200, 500), True)
    >>> int(np.count_nonzero(u)), bool(np.all(y * (X @ u) >= 0.005))
    (50, True)
    """
    n_samples = _check_int("n_samples", n_samples, 1)
    n_features = _check_int("n_features", n_features, 1)
    n_relevant = _check_int("n_relevant", n_relevant, 1)
    if n_relevant > n_features:
        raise ValueError(
            f"n_relevant must be <= n_features={n_features}, got {n_relevant!r}."
        )
    margin = _check_real("margin", margin, 0.0, 1.0, high_open=True)
    noise = _check_real("noise", noise, 0.0, 1.0)
    rng = check_random_state(random_state)

    u = np.zeros(n_features)
    u[:n_relevant] = np.where(rng.random_sample(n_relevant) < 0.5, -1.0, 1.0)
    u /= math.sqrt(n_relevant)

    def accepted(batch):
        cand = rng.uniform(-1.0, 1.0, size=(batch, n_features))
        norms = np.linalg.norm(cand, axis=1)
        cand = cand[norms > 0] / norms[norms > 0, None]
        return cand[np.abs(cand @ u) >= margin]

    X = np.ascontiguousarray(_sample_until(
        n_samples, accepted, f"margin={margin} is too large", "|u.x| >= margin"))
    y = np.where(X @ u > 0, 1, -1).astype(np.int64)
    y = _flip(y, noise, rng)
    return X, y, u
