"""Brotto, Gentile & Vitale (NIPS 2007): Figure 2's plots, from the summary."""

import numpy as np

from .. import report

__all__ = ["plot_figure2"]


def plot_figure2(summary, out, stem):
    """One PNG per η: updates (top) and test error (bottom) vs epochs,
    a column per p, a curve per c."""
    from matplotlib.ticker import MaxNLocator

    curves = summary["figure2"]["curves"]
    files = []
    for noise in sorted({c["noise"] for c in curves}):
        mine = [c for c in curves if c["noise"] == noise]
        ps = sorted({c["p"] for c in mine})
        fig, axes = report.figure(2, len(ps), 3.3 * len(ps), 6.0)
        for j, p in enumerate(ps):
            top, bottom = axes[j], axes[len(ps) + j]
            for c in sorted((x for x in mine if x["p"] == p),
                            key=lambda x: x["c"]):
                epochs = np.arange(1, len(c["updates"]) + 1)
                style = {"ls": "--", "color": "k"} if c["c"] == 0 else {}
                top.plot(epochs, c["updates"], marker=".", label=
                         f"c = {c['c']:g}", **style)
                bottom.plot(epochs, 100 * np.asarray(c["test_error"]),
                            marker=".", label=f"c = {c['c']:g}", **style)
            top.set_title(f"HO_{p}(c)", fontsize=10)
            top.set(ylabel="training updates (cumulative)")
            bottom.set(xlabel="epochs", ylabel="test error (%)")
            for ax in (top, bottom):
                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
                ax.grid(alpha=0.3)
                ax.tick_params(labelsize=8)
            top.legend(fontsize=7)
        fig.suptitle(f"Figure 2, Artificial η = {noise:g} (mean of "
                     f"{mine[0]['n_seeds']} seed(s))", fontsize=10)
        files.append(report.save(fig, out / f"{stem}_fig2_eta{noise:g}.png"))
    return files
