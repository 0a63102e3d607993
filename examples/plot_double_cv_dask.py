"""
Double cross-validation on a Dask cluster
=========================================

Khardon & Wachman (2007, Sec. 3.4) compare the variants of the perceptron
without hindsight: on each outer training fold an inner cross-validation
picks the parameters (the margin τ, the λ-trick, or both), the chosen cell is
trained on the whole outer training fold and tested on the outer test fold,
and the table reports the mean over the outer folds with a T-interval.

Every (fold, cell) fit is an independent task, so
:func:`~perceptrons.experiments.model_selection.double_cross_validation`
can run them on a Dask cluster; the seeds come from the data and the split,
never from the worker, so the results are the same bit for bit on any
backend. Here the cluster is a :class:`distributed.LocalCluster` of two
single-threaded workers inside this process; pass a scheduler's address
(``scheduler="tcp://host:8786"``) to use a real one.
"""

# %%
# The paper's artificial data
# ---------------------------
# :func:`~perceptrons.datasets.make_khardon_wachman` follows Sec. 3.1: 50
# integer attributes in [-10, 10], a 0/1 target vector and a threshold, a
# band of relative width M = 0.1 around it removed, then 15 % of the labels
# flipped.
import matplotlib.pyplot as plt
import numpy as np
from distributed import Client, LocalCluster

from perceptrons import Perceptron
from perceptrons.datasets import make_khardon_wachman
from perceptrons.experiments.model_selection import (
    HYPOTHESES, Column, double_cross_validation)

X, y = make_khardon_wachman(n_samples=600, n_features=50, margin=0.1,
                            noise=0.15, random_state=0)

# %%
# A small grid
# ------------
# K&W's columns with four values per parameter (their grid has seven): no
# parameter ("Nothing"), τ alone, λ alone, and τ and λ searched jointly. Each
# column includes the inactive value 0, so the inner cross-validation may
# also choose to switch the parameter off.
values = (0.0, 0.5, 1.0, 2.0)
off = {"tau": (0.0,), "lam": (0.0,)}
columns = [Column("Nothing", (off,)),
           Column("τ", ({**off, "tau": values},)),
           Column("λ", ({**off, "lam": values},)),
           Column("τ×λ", ({"tau": values, "lam": values},))]

# %%
# Run on the cluster
# ------------------
# 5 outer folds, 5 inner folds on each: 16 cells × 5 × (1 + 5) = 480 fits of
# 10 epochs. For the Perceptron one fit gives all four final hypotheses: the
# last, the longest survivor and the voted one of K&W's Figure 2, and the
# vote-weighted average of Freund & Schapire.
cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                       dashboard_address=":0")
client = Client(cluster)
result = double_cross_validation(Perceptron(max_iter=10), columns, X, y,
                                 outer_cv=5, inner_cv=5, scheduler=client,
                                 random_state=0)
client.close()
cluster.close()

for (column, hypothesis), sel in result.selections.items():
    chosen = ", ".join(
        "/".join(f"{k}={v:g}" for k, v in cell.items() if v) or "none"
        for cell in sel["chosen"])
    print(f"{column:>7} {hypothesis:>8}: {sel['mean']:.3f} "
          f"± {sel['ci_half_width']:.3f}  chosen: {chosen}")

# %%
# The figure
# ----------
# For each column and hypothesis: the five outer-fold test accuracies (dots)
# and their mean with its 95 % T-interval.
fig, ax = plt.subplots(figsize=(9, 4.5))
names = [c.name for c in columns]
for j, hypothesis in enumerate(HYPOTHESES):
    x = np.arange(len(names)) + (j - 1.5) * 0.18
    sel = [result.selections[(name, hypothesis)] for name in names]
    for xi, s in zip(x, sel):
        ax.plot(np.full(len(s["scores"]), xi - 0.05), s["scores"], ".",
                color=f"C{j}", alpha=0.5)
    ax.errorbar(x, [s["mean"] for s in sel],
                yerr=[s["ci_half_width"] for s in sel], fmt="o",
                color=f"C{j}", capsize=3, label=hypothesis)
ax.set_xticks(np.arange(len(names)), names)
ax.set(xlabel="parameters chosen by the inner cross-validation",
       ylabel="outer test accuracy",
       title="double cross-validation, make_khardon_wachman(noise=0.15)")
ax.legend(title="hypothesis", ncol=4, loc="lower right")
fig.tight_layout()
plt.show()

# %%
# Without parameters the last hypothesis (0.700) and the longest survivor
# (0.670) are well below the voted and averaged ones (0.763 and 0.770).
# Letting the inner cross-validation choose τ raises every hypothesis, the
# last one most (to 0.788), and the voted and averaged hypotheses reach
# 0.800. On these data the λ-trick alone does about as well as τ for the last
# hypothesis (0.787), and choosing both adds little for the voted and
# averaged hypotheses. The intervals over five folds of 120 test examples
# are wide (± 0.012 to 0.095), as in the paper, whose conclusions rest on
# many data sets rather than one.
