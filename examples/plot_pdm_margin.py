r"""
PDM's margin against LIBLINEAR
==============================

The Perceptron with Dynamic Margin (PDM) of Panagiotakopoulos & Tsampouka
(2011) runs the perceptron update on augmented patterns
:math:`y_k = [l_k x_k, l_k \rho]` whenever
:math:`a_t \cdot y_k \le (1 - \epsilon) \|a_t\|^2 / t`, until a full pass
makes no update. It then guarantees a *directional margin*
:math:`\gamma'_d = \min_k a \cdot y_k / \|a\|` of at least
:math:`(1 - \epsilon)\gamma_d`, :math:`\gamma_d` being the largest one, and
:math:`\|a_t\| / t` is an upper bound on :math:`\gamma_d`.

With an extension Δ (Sec. 5; ``extension=1.0`` is the default) every pattern
gets its own extra coordinate :math:`l_k \Delta`, which makes any data
separable; the largest margin in that space is the solution of the 2-norm
soft-margin SVM, :math:`\min \frac12\|[w, b]\|^2 + C\sum_k \xi_k^2` with
:math:`C = 1/(2\Delta^2)`. That is LIBLINEAR's L2-regularised, L2-loss SVC
solved in the dual (``-s 1 -B ρ``), which scikit-learn's
:class:`~sklearn.svm.LinearSVC` runs: we take its solution, computed to a
tight tolerance, as :math:`\gamma_d`, and check PDM's guarantee for several ε.
"""

# %%
# The data and LIBLINEAR's solution
# ---------------------------------
# Two built-in problems, standardised: the breast cancer data (nearly
# separable) and a synthetic one with 10 % of its labels flipped.
#
# LinearSVC returns ``coef_`` = w and ``intercept_`` = ρ b. The extension
# block of its solution follows from the optimality conditions,
# :math:`\alpha_k = \xi_k / \Delta^2` with the slacks
# :math:`\xi_k = \max(0, 1 - l_k(w \cdot x_k + b \rho))`, so its directional
# margin in the extended space is
#
# .. math::
#
#    \gamma_d = \frac{\min_k \max(1, l_k(w \cdot x_k + b\rho))}
#                    {\sqrt{\|w\|^2 + b^2 + \Delta^{-2}\sum_k \xi_k^2}}.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from perceptrons import PDM

delta, rho = 1.0, 1.0
datasets = {
    "breast cancer": load_breast_cancer(return_X_y=True),
    "noisy synthetic": make_classification(n_samples=2000, n_features=20,
                                           n_informative=5, flip_y=0.1,
                                           random_state=0),
}


def liblinear_margin(svc, X, y):
    """γ_d of a LinearSVC solution in PDM's extended space."""
    w, b = svc.coef_[0], svc.intercept_[0] / rho
    scores = np.where(y == svc.classes_[1], 1, -1) * (X @ w + b * rho)
    slack = np.maximum(0.0, 1.0 - scores)
    return (np.maximum(1.0, scores).min()
            / np.sqrt(w @ w + b * b + slack @ slack / delta**2))


# %%
# PDM for a range of accuracies ε
# -------------------------------
epsilons = np.array([0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.001])
results = {}
for name, (X, y) in datasets.items():
    X = StandardScaler().fit_transform(X)
    svc = LinearSVC(C=1 / (2 * delta**2), loss="squared_hinge",
                    intercept_scaling=rho, dual=True, tol=1e-8,
                    max_iter=100_000).fit(X, y)
    gamma_d = liblinear_margin(svc, X, y)
    runs = [PDM(epsilon=eps, extension=delta, augmentation=rho,
                random_state=0).fit(X, y) for eps in epsilons]
    results[name] = gamma_d, svc, runs
    print(f"{name}: LinearSVC (LIBLINEAR) gamma_d = {gamma_d:.5f}")
    for eps, pdm in zip(epsilons, runs):
        print(f"  eps = {eps:<5g}  gamma'_d / gamma_d = "
              f"{pdm.directional_margin_[0] / gamma_d:.4f} "
              f"(guarantee >= {1 - eps:.3f}), "
              f"upper bound |a_t|/t / gamma_d = "
              f"{pdm.margin_bound_[0] / gamma_d:.4f}, "
              f"{pdm.n_updates_} updates in {pdm.n_iter_} epochs")

# %%
# The same hyperplane
# -------------------
# PDM's vector :math:`a = [w, b, \Delta c]` points in the direction of the SVM
# solution, so its [w, b] part is proportional to LinearSVC's. We compare the
# two at ε = 0.01, both scaled to unit norm.
def unit(coef, intercept):
    v = np.append(coef[0], intercept[0] / rho)
    return v / np.linalg.norm(v)


eps_shown = 0.01
for name, (gamma_d, svc, runs) in results.items():
    pdm = runs[list(epsilons).index(eps_shown)]
    cosine = unit(pdm.coef_, pdm.intercept_) @ unit(svc.coef_, svc.intercept_)
    print(f"{name}: cosine of PDM (eps = {eps_shown}) and LinearSVC's "
          f"[w, b] = {cosine:.5f}")

# %%
# The figure
# ----------
# Left: PDM's margin (solid) and its upper bound (dashed), relative to
# LIBLINEAR's optimum, against ε; the grey line is the guarantee 1 - ε.
# Right: the coefficients of the two solutions at ε = 0.01.
fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
for (name, (gamma_d, svc, runs)), color in zip(results.items(), ("C0", "C1")):
    axes[0].plot(epsilons, [p.directional_margin_[0] / gamma_d for p in runs],
                 "o-", color=color, label=f"{name}: γ'_d / γ_d")
    axes[0].plot(epsilons, [p.margin_bound_[0] / gamma_d for p in runs],
                 "s--", color=color, label=f"{name}: ‖a_t‖/t / γ_d")
    pdm = runs[list(epsilons).index(eps_shown)]
    axes[1].scatter(unit(svc.coef_, svc.intercept_),
                    unit(pdm.coef_, pdm.intercept_), s=12, color=color,
                    label=name)
axes[0].plot(epsilons, 1 - epsilons, color="grey", label="guarantee 1 - ε")
axes[0].axhline(1.0, color="k", lw=0.8)
axes[0].set(xscale="log", xlabel="ε", ylabel="margin / LIBLINEAR's γ_d",
            title="PDM's directional margin")
axes[0].invert_xaxis()
axes[0].legend(fontsize="small")
lim = np.abs(axes[1].get_xlim()).max()
axes[1].plot([-lim, lim], [-lim, lim], color="grey", lw=0.8)
axes[1].set(xlabel="LinearSVC (LIBLINEAR) [w, b], unit norm",
            ylabel=f"PDM (ε = {eps_shown}) [w, b], unit norm",
            title="the two solutions")
axes[1].legend()
fig.tight_layout()
plt.show()

# %%
# On both problems every run keeps its promise: the ratio printed above is at
# least 1 - ε for every ε, and the upper bound :math:`\|a_t\|/t` is above
# LIBLINEAR's optimum, so the two close in on it from both sides: at
# ε = 0.001 PDM's margin is within 0.1 % of LIBLINEAR's on both problems.
# Smaller ε costs more updates (printed above). At ε = 0.01 the two
# hyperplanes agree to a cosine of 0.9989 (breast cancer) and 0.99997 (noisy
# synthetic). PDM needs no
# solver and no C: Δ sets the soft margin, and ε how close to it the run
# gets.
