r"""
A mistake bound checked on a run
================================

Novikoff's theorem: if some unit vector u separates the examples with margin
γ (:math:`y_t\, u \cdot x_t \ge \gamma` for all t) and every
:math:`\|x_t\| \le R`, Rosenblatt's perceptron makes at most
:math:`(R/\gamma)^2` mistakes, however many passes it makes over the data and
in whatever order. On data that no vector separates, the bounds of Freund &
Schapire, :math:`((R + D_2)/\gamma)^2`, and of Shalev-Shwartz & Singer,
:math:`((R + \sqrt{\gamma D_1})/\gamma)^2`, hold instead, :math:`D_1` and
:math:`D_2` being the 1- and 2-norms of the hinge losses
:math:`\max(0, \gamma - y_t\, u \cdot x_t)` of the comparator.

:mod:`perceptrons.bounds` computes these quantities and bounds;
:func:`~perceptrons.datasets.make_separable` draws data with a known separator
and margin. We run the perceptron and check its mistakes against the bounds,
example by example.
"""

# %%
# Rosenblatt's perceptron
# -----------------------
# The perceptron through the origin is :class:`~perceptrons.Perceptron` with
# ``eta=1, theta_init=0, threshold_step=0, hypothesis="last"``. To follow the
# mistakes example by example we feed the rows to ``partial_fit`` in blocks
# of 100 (one pass over the given rows, in order, continuing the state) and
# read the running total ``n_mistakes_`` after each block, pass after pass,
# until a pass makes no mistake.
import matplotlib.pyplot as plt
import numpy as np

from perceptrons import Perceptron
from perceptrons.bounds import (comparator_margin, mistake_bounds,
                                novikoff_bound, radius)
from perceptrons.datasets import make_separable

n_samples, n_features, block = 5000, 50, 100


def rosenblatt():
    return Perceptron(eta=1, theta_init=0, threshold_step=0,
                      hypothesis="last")


def running_mistakes(X, y, max_passes=1):
    """Total mistakes after each block, until a pass makes none."""
    clf, totals = rosenblatt(), []
    for _ in range(max_passes):
        before = totals[-1] if totals else 0
        for start in range(0, len(y), block):
            clf.partial_fit(X[start:start + block], y[start:start + block],
                            classes=[-1, 1])
            totals.append(clf.n_mistakes_)
        if totals[-1] == before:
            break
    return np.array(totals)


# %%
# Separable data, several margins
# -------------------------------
# Points uniform in the unit ball of :math:`\mathbb{R}^{50}` with the band
# :math:`|u \cdot x| < \gamma` removed. The sample's own R and γ (for the
# separator u the generator returns) give the bound.
separable = {}
for gamma in (0.05, 0.1, 0.2, 0.3):
    X, y, u = make_separable(n_samples, n_features, margin=gamma,
                             random_state=0)
    R, margin = radius(X), comparator_margin(X, y, u)
    bound = novikoff_bound(R, margin)
    totals = running_mistakes(X, y, max_passes=20)
    separable[gamma] = totals, bound
    print(f"gamma = {gamma}: R = {R:.4f}, margin of u = {margin:.4f}, "
          f"bound (R/gamma)^2 = {bound:.1f}, mistakes = {totals[-1]} "
          f"({totals[-1] / bound:.0%} of the bound) in "
          f"{len(totals) * block // n_samples} passes, the last without one")

# %%
# Label noise: the bounds of the inseparable case
# -----------------------------------------------
# The same data at γ = 0.1 with some labels flipped: no vector separates
# them, and Novikoff's bound does not apply (``mistake_bounds`` reports it as
# infinite). The other two bounds hold for *every* sequence, so in particular
# for every prefix of the run: we compute them on the first t examples, for
# each t, with the generator's u and γ = 0.1, and keep the smaller
# (``MistakeBounds.best``).
gamma = 0.1
noisy = {}
for noise in (0.01, 0.05, 0.1):
    X, y, u = make_separable(n_samples, n_features, margin=gamma,
                             noise=noise, random_state=0)
    totals = running_mistakes(X, y)
    ends = np.arange(block, n_samples + 1, block)
    bounds = [mistake_bounds(X[:t], y[:t], u, gamma) for t in ends]
    noisy[noise] = totals, np.array([b.best for b in bounds])
    last = bounds[-1]
    print(f"noise {noise}: one pass, {totals[-1]} mistakes; D1 = "
          f"{last.D1:.1f}, D2 = {last.D2:.2f}, Novikoff "
          f"{last.novikoff_bound}, Freund-Schapire "
          f"{last.freund_schapire_bound:.0f}, D1 bound {last.d1_bound:.0f} "
          f"({last.best / totals[-1]:.1f} times the mistakes; "
          f"gamma D1 <= D2^2: {gamma * last.D1 <= last.D2**2}); "
          f"below the best bound after every block: "
          f"{bool(np.all(totals <= noisy[noise][1]))}")

# %%
# The figure
# ----------
fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
for i, (g, (totals, bound)) in enumerate(separable.items()):
    seen = block * np.arange(1, len(totals) + 1)
    axes[0].plot(seen, totals, color=f"C{i}", label=f"γ = {g}")
    axes[0].axhline(bound, color=f"C{i}", ls="--")
axes[0].set(yscale="log", xlabel="examples presented (all passes)",
            ylabel="mistakes so far",
            title="separable: mistakes and (R/γ)² (dashed)")
axes[0].legend(loc="center right")
for i, (noise, (totals, best)) in enumerate(noisy.items()):
    seen = block * np.arange(1, len(totals) + 1)
    axes[1].plot(seen, totals, color=f"C{i}", label=f"noise {noise}")
    axes[1].plot(seen, best, color=f"C{i}", ls="--")
axes[1].set(yscale="log", xlabel="examples presented (one pass)",
            ylabel="mistakes so far",
            title="label noise: mistakes and best bound (dashed)")
axes[1].legend()
fig.tight_layout()
plt.show()

# %%
# On separable data the perceptron stops making mistakes within a few passes,
# having made between 26 % and 52 % of the mistakes Novikoff's bound allows
# (printed above): the bound is a worst case over every order of every data
# set with that R and γ. The smaller the margin, the more passes and the more
# mistakes, as the bound says. With label noise the mistakes grow all along
# the pass, and so does the bound: after 5,000 examples the best bound is
# two to three times the mistakes made. The D1 bound is the tighter one
# here, as Shalev-Shwartz & Singer show it is whenever
# :math:`\gamma D_1 \le D_2^2`, i.e. when the hinge losses are large
# compared with γ. The package's tests check these theorems as property
# tests over many random data sets, for several passes too (with
# ``n_passes``: the losses of every pass count).
