"""
Variants of the perceptron on noisy data
========================================

On data with label noise, the *last* hypothesis of the perceptron is
whichever weight vector the last few mistakes left: its test accuracy jumps
from epoch to epoch. Khardon & Wachman (2007) compare the remedies that keep
the algorithm online and cheap:

* other final hypotheses of the same run: the *longest survivor* (the
  hypothesis that went longest without an update), the *voted* perceptron
  (every hypothesis votes, weighted by its survival time; Freund & Schapire
  1999) and the *averaged* one (the mean of the hypotheses, Collins 2002);
* a margin τ (update when ``y(<w, x> - θ) <= τ θ_Init``) and the λ-trick
  (examples that already caused an update get ``y λ ‖x‖²`` added to their
  score), which change the updates themselves.

We train each variant for 1 to 15 epochs on a noisy two-class problem and
compare its test accuracy with scikit-learn's :class:`~sklearn.svm.LinearSVC`.
"""

# %%
# Noisy data
# ----------
# Two classes, 20 features of which 5 informative, and 10 % of the labels
# assigned at random (``flip_y=0.1``); half for training, half for testing.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from perceptrons import Perceptron

X, y = make_classification(n_samples=4000, n_features=20, n_informative=5,
                           flip_y=0.1, random_state=0)
X = StandardScaler().fit_transform(X)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5,
                                                    random_state=0)
svc = LinearSVC().fit(X_train, y_train).score(X_test, y_test)
print(f"LinearSVC test accuracy: {svc:.3f}")

# %%
# Accuracy after each epoch
# -------------------------
# ``fit`` with the same ``random_state`` presents the rows in the same order,
# so the run of ``max_iter=e`` epochs is the first e epochs of a longer run:
# fitting with ``max_iter=1, 2, ...`` gives the model after each epoch. The
# hypothesis does not change the updates, so the four hypotheses of one
# ``max_iter`` are four readings of the same online run.
epochs = np.arange(1, 16)


def accuracy_per_epoch(**params):
    return np.array([
        Perceptron(max_iter=e, random_state=0, **params)
        .fit(X_train, y_train).score(X_test, y_test) for e in epochs])


hypotheses = {h: accuracy_per_epoch(hypothesis=h)
              for h in ("last", "longest", "voted", "averaged")}
variants = {f"τ={tau:g}, λ={lam:g}": accuracy_per_epoch(hypothesis="last",
                                                        tau=tau, lam=lam)
            for tau, lam in ((0, 0), (0.5, 0), (0, 0.5), (2, 0))}

for name, acc in {**hypotheses, **{"last, " + k: v
                                   for k, v in variants.items()}}.items():
    print(f"{name:>20}: {acc.min():.3f} to {acc.max():.3f} "
          f"(after {epochs[-1]} epochs {acc[-1]:.3f})")

# %%
# The figure
# ----------
# Left: the four final hypotheses of the plain algorithm (τ = λ = 0). Right:
# the last hypothesis with a margin or the λ-trick.
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
panels = ((hypotheses, "final hypothesis (τ = λ = 0)"),
          (variants, "last hypothesis, margin and λ"))
for ax, (curves, title) in zip(axes, panels):
    for name, acc in curves.items():
        ax.plot(epochs, acc, marker="o", ms=3, label=name)
    ax.axhline(svc, color="k", ls="--", label="LinearSVC")
    ax.set(title=title, xlabel="epochs")
    ax.legend(loc="lower right")
axes[0].set_ylabel("test accuracy")
fig.tight_layout()
plt.show()

# %%
# The last hypothesis ranges from 0.685 to 0.805 over the 15 epochs
# (printed above), against 0.841 for LinearSVC; the longest survivor is
# steadier but stays near 0.80. The voted and averaged hypotheses of the
# same runs stay between 0.835 and 0.843 from the first epoch on, within a
# point of LinearSVC, which is why ``hypothesis="averaged"`` is the default
# of :class:`~perceptrons.Perceptron`. A margin, which makes the algorithm
# update on correct predictions too close to the threshold, changes the last
# hypothesis itself: with τ = 2 it stays between 0.829 and 0.848. A small
# margin (τ = 0.5) or the λ-trick alone help less, and their curves still
# move from epoch to epoch.
# :ref:`sphx_glr_auto_examples_plot_double_cv_dask.py` chooses τ and λ by
# cross-validation, as Khardon & Wachman do.
