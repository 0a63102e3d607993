"""
Probabilities from a margin: calibration
========================================

No estimator of the package has ``predict_proba``: a Perceptron's score
:math:`w\\cdot x + b` is a distance from a hyperplane, not a probability,
and none is invented (scikit-learn's ``Perceptron`` has none either).
scikit-learn's :class:`~sklearn.calibration.CalibratedClassifierCV` maps
``decision_function`` to probabilities: a sigmoid fitted to the scores
(Platt scaling) or an isotonic, non-decreasing, step function, fitted on
held-out folds. Every estimator of the package works inside it (tested in
``tests/test_calibration.py``).

Here three families, the Perceptron (Khardon and Wachman's averaged
hypothesis), Passive-Aggressive (PA-I) and the second-order Perceptron, are
calibrated both ways on 3 folds and drawn in reliability diagrams beside
scikit-learn's ``SGDClassifier(loss="log_loss")``, a logistic regression
whose probabilities come from its own loss.
"""

# %%
# Data
# ----
# A binary problem with label noise (``flip_y``), 4,000 rows for training
# and 4,000 for the diagrams, standardised.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.calibration import CalibratedClassifierCV, CalibrationDisplay
from sklearn.datasets import make_classification
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.preprocessing import StandardScaler

from perceptrons import PassiveAggressive, Perceptron, SecondOrderPerceptron

X, y = make_classification(n_samples=8_000, n_features=20, n_informative=6,
                           n_redundant=2, flip_y=0.1, class_sep=0.8,
                           random_state=0)
X = StandardScaler().fit_transform(X)
X_train, y_train, X_test, y_test = X[:4_000], y[:4_000], X[4_000:], y[4_000:]

# %%
# Calibrated models
# -----------------
# Each of ours is calibrated by a sigmoid and by an isotonic fit on 3 folds
# (``cv=3``: three models, each calibrated on the fold it did not see, their
# probabilities averaged). ``SGDClassifier(loss="log_loss")`` gives its own.
ours = {
    "Perceptron": Perceptron(random_state=0),
    "PassiveAggressive": PassiveAggressive(random_state=0),
    "SecondOrderPerceptron": SecondOrderPerceptron(random_state=0),
}
reference = SGDClassifier(loss="log_loss", random_state=0).fit(X_train,
                                                               y_train)
models = {}
for name, est in ours.items():
    for method in ("sigmoid", "isotonic"):
        models[f"{name}, {method}"] = CalibratedClassifierCV(
            est, method=method, cv=3).fit(X_train, y_train)

print(f"{'model':40s} {'Brier':>7s} {'log loss':>9s} {'accuracy':>9s}")
for name, model in [("SGDClassifier(loss='log_loss')", reference),
                    *models.items()]:
    proba = model.predict_proba(X_test)[:, 1]
    print(f"{name:40s} {brier_score_loss(y_test, proba):7.4f} "
          f"{log_loss(y_test, proba):9.4f} "
          f"{np.mean(model.predict(X_test) == y_test):9.3f}")

# %%
# Reliability diagrams
# --------------------
# Each panel: one family's two calibrations and the logistic reference. A
# calibrated model's points lie on the diagonal (of the rows given
# probability p, a share p are positive). The sigmoid is smooth and needs
# few rows; the isotonic fit follows any monotone shape, at the price of
# steps where the folds are thin.
fig, axes = plt.subplots(1, 3, figsize=(13, 4.4), sharey=True)
for ax, name in zip(axes, ours):
    CalibrationDisplay.from_estimator(
        reference, X_test, y_test, n_bins=10, ax=ax,
        name="SGDClassifier(log_loss)", color="0.5")
    for method, color in (("sigmoid", "C0"), ("isotonic", "C3")):
        CalibrationDisplay.from_estimator(
            models[f"{name}, {method}"], X_test, y_test, n_bins=10, ax=ax,
            name=method, color=color)
    ax.set_title(name)
    ax.legend(loc="upper left", fontsize=8)
fig.tight_layout()
plt.show()
