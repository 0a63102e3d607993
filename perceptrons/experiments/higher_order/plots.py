"""Brotto, Gentile & Vitale (NIPS 2007): Figure 2's plots, from the summary."""

import numpy as np

from .. import report

__all__ = ["alma_plot_name", "plot_alma", "plot_figure2"]


def _style(top, bottom, title, ylabel):
    """One column of a plot: ``top`` counts, ``bottom`` test error."""
    from matplotlib.ticker import MaxNLocator

    top.set_title(title, fontsize=10)
    top.set(ylabel=ylabel)
    bottom.set(xlabel="epochs", ylabel="test error (%)")
    for ax in (top, bottom):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=8)
    top.legend(fontsize=7)


def plot_figure2(summary, out, stem):
    """One PNG per η: updates (top) and test error (bottom) vs epochs,
    a column per p, a curve per c."""
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
            _style(top, bottom, f"HO_{p}(c)",
                   "training updates (cumulative)")
        fig.suptitle(f"Figure 2, Artificial η = {noise:g} (mean of "
                     f"{mine[0]['n_seeds']} seed(s))", fontsize=10)
        files.append(report.save(fig, out / f"{stem}_fig2_eta{noise:g}.png"))
    return files


def alma_plot_name(stem, noise):
    """The file name of the ALMA_p plot of one η."""
    return f"{stem}_alma_eta{noise:g}.png"


def plot_alma(summary, out, stem):
    """One PNG per η for the section beyond the paper: ALMA_p's cumulative
    mistakes and corrections (top) and test error (bottom) vs epochs, a
    column per p, with HO_p(0) and the best HO_p(c > 0) of Figure 2.
    Nothing for a summary without ALMA runs."""
    curves = summary.get("alma", {}).get("curves", [])
    files = []
    for noise in sorted({c["noise"] for c in curves}):
        mine = sorted((c for c in curves if c["noise"] == noise),
                      key=lambda c: c["p"])
        fig, axes = report.figure(2, len(mine), 3.3 * len(mine), 6.0)
        for j, c in enumerate(mine):
            top, bottom = axes[j], axes[len(mine) + j]
            epochs = np.arange(1, len(c["updates"]) + 1)
            top.plot(epochs, c["mistakes"], marker=".", color="C3",
                     label="ALMA mistakes")
            top.plot(epochs, c["updates"], ls=":", color="C3",
                     label="ALMA corrections")
            bottom.plot(epochs, 100 * np.asarray(c["test_error"]),
                        marker=".", color="C3", label="ALMA")
            for ho, style, name in ((c["ho_c0"], {"ls": "--", "color": "k"},
                                     "HO(0)"),
                                    (c["ho_best"], {"color": "C0"},
                                     "best HO(c>0)")):
                if ho is None:
                    continue
                label = name if ho["c"] == 0 else f"HO({ho['c']:g})"
                e = np.arange(1, len(ho["updates"]) + 1)
                top.plot(e, ho["updates"], label=f"{label} updates", **style)
                bottom.plot(e, 100 * np.asarray(ho["test_error"]),
                            label=label, **style)
            _style(top, bottom, f"p = {c['p']:g}",
                   "mistakes / updates (cumulative)")
            bottom.legend(fontsize=7)
        fig.suptitle(f"Beyond the paper: ALMA_p on Figure 2's Artificial "
                     f"η = {noise:g} (mean of {mine[0]['n_seeds']} seed(s))",
                     fontsize=10)
        files.append(report.save(fig, out / alma_plot_name(stem, noise)))
    return files
