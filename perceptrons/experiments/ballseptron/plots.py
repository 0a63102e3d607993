"""Shalev-Shwartz & Singer (2005), Figure 3: the plots, from the records."""

from .. import report
from .paper import GAMMA
from .view import _summary, _top_rows, _view

__all__ = ["plot_bottom", "plot_top"]


def plot_bottom(config, records, path):
    """Fig. 3 bottom: D2 bound, D1 bound and mistakes (÷ T) vs η and σ."""
    view = _view(records)
    fig, axes = report.figure(1, 2, 10.4, 4.0)
    for ax, kind, xlabel in ((axes[0], "label", "label noise η"),
                             (axes[1], "instance", "instance noise σ")):
        s = _summary(view, kind)
        x = [v["level"] for v in s]
        ax.plot(x, [v["d2"] for v in s], "o-", label="D2 bound (Eq. 3)")
        ax.plot(x, [v["d1"] for v in s], "s-", label="D1 bound (Thm. 2)")
        ax.errorbar(x, [v["eps"] for v in s], yerr=[v["eps_sd"] for v in s],
                    fmt="^-", capsize=2, label="Perceptron mistakes")
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        ax.set(xlabel=xlabel, ylabel="per round (÷ T)", yscale="log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"Fig. 3 bottom: unit circle, T = {config.n_samples}, "
                 f"γ = {GAMMA:g}, mean of {len(config.seeds)} seed(s)",
                 fontsize=10)
    return report.save(fig, path)


def plot_top(records, path):
    """Fig. 3 top: ε/T vs r, one panel per data set that ran."""
    view = _view(records)
    names = [n for n, v in view["top_panels"].items() if v["status"] == "run"]
    fig, axes = report.figure(1, max(1, len(names)),
                              5.2 * max(1, len(names)), 4.0)
    for ax, name in zip(axes, names):
        rows = _top_rows(view, name)
        ax.plot([r["radius"] for r in rows],
                [r["mistake_rate"] for r in rows], "o-", label="Ballseptron")
        base = [r["mistake_rate"] for r in rows if r["radius"] == 0.0]
        if base:
            ax.axhline(base[0], color="grey", lw=0.8, ls="--",
                       label="Perceptron (r = 0)")
        ax.legend(fontsize=8)
        ax.set_title(f"{name.upper()} (T = "
                     f"{view['top_panels'][name]['n_used']})", fontsize=10)
        ax.set(xlabel="radius r", ylabel="ε / T")
        ax.grid(alpha=0.3)
    fig.suptitle("Fig. 3 top: kernel Ballseptron, poly degree 5, bias ½, "
                 "one online pass", fontsize=10)
    return report.save(fig, path)


