"""Shalev-Shwartz & Singer (2005), Figure 3: the report, from the records.

:func:`render_markdown` gives the tables, the paper's claims and our
verdicts; :func:`write_outputs` writes them with the flat CSV rows and the
plots (:mod:`.plots`). Nothing here refits.
"""

from .. import report
from .paper import GAMMA, KERNEL_PARAMS, STEM
from .plots import plot_bottom, plot_top
from .view import _summary, _top_summary, _view

__all__ = ["render_markdown", "write_outputs"]


# ------------------------------------------------------------------ claims
def _verdict(n, total):
    return "agrees" if n == total else ("partly" if n else "disagrees")


def _label_claims(view):
    every = _summary(view, "label")
    lab = [s for s in every if s["level"] > 0]
    if not lab:
        return []
    n = sum(s["d1"] < s["d2"] for s in lab)
    claims = [(
        "Label noise: the D1 bound is clearly tighter than the D2 bound.",
        _verdict(n, len(lab)),
        f"D1 bound < D2 bound (means over seeds) at {n} of {len(lab)} "
        f"levels η > 0; ratio D2/D1 bound at the largest η "
        f"({lab[-1]['level']:g}): {lab[-1]['d2'] / lab[-1]['d1']:.2f}.")]
    above = [s for s in lab if s["level"] > 0.03 + 1e-12]
    if above:
        below = [s for s in every if s["level"] <= 0.03 + 1e-12]
        first = next((s["level"] for s in every if s["d2"] > 1), None)
        claims.append((
            "Label noise: the D2 bound exceeds 1 per round (is "
            "meaningless) whenever η > 0.03.",
            "agrees" if all(s["d2"] > 1 for s in above) else "disagrees",
            "D2 bound/T first exceeds 1 at η = "
            f"{'never' if first is None else f'{first:g}'}; at η ≤ 0.03 "
            "it is " + ", ".join(f"{s['d2']:.2f}" for s in below)
            + f"; at η = {above[0]['level']:g} it is {above[0]['d2']:.2f}. "
            f"The D1 bound/T stays ≤ {max(s['d1'] for s in lab):.2f}."))
    return claims


def _instance_claims(view):
    ins = [s for s in _summary(view, "instance") if s["level"] > 0]
    if not ins:
        return []
    n = sum(s["d1"] < s["d2"] for s in ins)
    gaps = [(s["d2"] - s["d1"]) / s["d2"] for s in ins]
    tighter = [s["level"] for s in ins if s["d1"] < s["d2"]]
    where = ""
    if tighter and n < len(ins):
        where = (f" D1 is tighter for σ ≥ {min(tighter):g} and looser "
                 "below, as the end of Sec. 3 predicts: the D1 bound "
                 "wins iff γ·D1 ≤ D2², i.e. when the comparator's "
                 "typical hinge loss exceeds γ, which small σ does not "
                 "produce.")
    return [(
        "Instance noise: the D1 bound is also slightly better than the "
        "D2 bound.", _verdict(n, len(ins)),
        f"D1 bound < D2 bound (means over seeds) at {n} of {len(ins)} "
        f"levels σ > 0; relative gap (D2 − D1)/D2 from {min(gaps):.1%} "
        f"to {max(gaps):.1%}.{where}")]


def _theorem_claims(view):
    runs = _summary(view, "label") + _summary(view, "instance")
    if not runs:
        return []
    ok = all(s["d2_holds"] and s["d1_holds"] for s in runs)
    return [("Theorems (Eq. (3), Thm. 2 at r = 0): both bounds are at least "
             "the Perceptron's mistakes on every sequence.",
             "agrees" if ok else "disagrees",
             "checked on every run (each seed and noise level).")]


def _top_claims(view, name):
    s = _top_summary(view, name)
    if s is None or s.get("base") is None:
        return []
    best, base, lg = s["best"], s["base"], s["largest"]
    return [(
        f"{name.upper()}: many choices of r > 0 give significantly fewer "
        "online mistakes than r = 0 (the Perceptron).",
        "agrees" if s["n_significant"] >= 3 else
        ("partly" if s["n_significant"] else "disagrees"),
        f"{s['n_better']} of {s['n_positive']} radii r > 0 beat r = 0, "
        f"{s['n_significant']} by at least 10% (our criterion for "
        "'significant'; 'agrees' needs 3 such radii, and the count "
        "depends on our grid); "
        f"best r = {best['radius']:g}, ε/T {base['mistake_rate']:.4f} → "
        f"{best['mistake_rate']:.4f} ({s['reduction_rel']:.1%} fewer "
        "mistakes)."), (
        f"{name.upper()}: an excessively large r deteriorates performance.",
        "agrees" if lg["mistake_rate"] > best["mistake_rate"]
        and lg["radius"] > best["radius"] else "not observed",
        f"at the largest r tried ({lg['radius']:g}) ε/T = "
        f"{lg['mistake_rate']:.4f} (best {best['mistake_rate']:.4f}, "
        f"r = 0: {base['mistake_rate']:.4f}).")]


def _claims(view):
    """The paper's claims and our verdicts: (claim, verdict, why) tuples."""
    claims = (_label_claims(view) + _instance_claims(view)
              + _theorem_claims(view))
    for name in view["top_panels"]:
        claims += _top_claims(view, name)
    return claims


# ------------------------------------------------------------------ report
def _noise_table(view, kind):
    sym = "η" if kind == "label" else "σ"
    return report.table(
        [sym, "ε/T (mean ± sd)", "D2 bound / T", "D1 bound / T",
         "D1 tighter (runs)", "D2 bound > 1", "R", "D1", "D2"],
        [[f"{s['level']:g}", f"{s['eps']:.4f} ± {s['eps_sd']:.4f}",
          f"{s['d2']:.4f}", f"{s['d1']:.4f}",
          f"{s['d1_tighter_runs']}/{s['n_seeds']}",
          "yes" if s["d2"] > 1 else "no", f"{s['R']:.3f}", f"{s['D1']:.1f}",
          f"{s['D2']:.2f}"] for s in _summary(view, kind)],
        align="rrrrrcrrr")


def _bottom_section(config, view):
    seeds = list(config.seeds)
    return [
        "## Bottom panels: mistake bounds of the Perceptron vs noise", "",
        f"{config.n_samples} points on the unit circle of R², labels "
        f"separable with margin {GAMMA:g} by a random unit u (paper: "
        "10,000). One online pass of the Perceptron "
        "(`Ballseptron(radius=0, max_iter=1, shuffle=False)`). Bounds with "
        f"γ = {GAMMA:g} and the true u: D2 bound = ((R + D2)/γ)² "
        "(Eq. (3), Freund & Schapire), D1 bound = ((R + √(γ D1))/γ)² "
        "(Thm. 2, r = 0); R = max‖x_t‖ of the noisy sequence. Per round "
        f"(÷ T), means over {len(seeds)} seed(s) {seeds}; D1, D2 and R are "
        "means too. 'D1 tighter (runs)': seeds at which the D1 bound is "
        "below the D2 bound.", "",
        "### Label noise (labels flipped with probability η)", "",
        *_noise_table(view, "label"), "",
        "### Instance noise (x + N(0, σ² I), labels kept)", "",
        *_noise_table(view, "instance"), "",
        "The σ grid is ours: the text copy of the paper has Fig. 3's "
        "caption but not its axes.", ""]


def _radius_cells(r):
    if r["status"] != "ok":
        return [f"{r['radius']:g}", f"**failed**: {r['error']}", "", "", ""]
    return [f"{r['radius']:g}", f"{r['mistake_rate']:.4f}", r["mistakes"],
            r["margin_errors"], f"{r['seconds']:.2f}"]


def _best_line(s):
    if s is None:
        return "**No radius ran successfully.**"
    best = s["best"]
    if s.get("base") is None:
        return (f"Best r = {best['radius']:g} (ε/T "
                f"{best['mistake_rate']:.4f}); r = 0 was not run, so no "
                "reduction is given.")
    return (f"Best r = {best['radius']:g}: ε/T = {best['mistake_rate']:.4f} "
            f"vs {s['base']['mistake_rate']:.4f} at r = 0, a reduction of "
            f"{s['reduction_abs']:.4f} ({s['reduction_rel']:.1%} of the "
            "Perceptron's mistakes).")


def _panel_section(config, view, name):
    note = view["top_panels"][name]
    if note["status"] != "run":
        return [f"### {name.upper()}", "", f"**Not run: {note['reason']}.**",
                ""]
    used, paper = note["n_used"], note.get("n_paper")
    msg = (f"{used} of {note['n_available']} training examples "
           f"({note['order']}), {note['n_classes']} classes.")
    if paper and used < paper:
        msg += (f" **Only part of the data: the paper uses {paper}.** "
                + ("Quick mode." if config.quick else
                   "Cut by the caller (``kernel_datasets``)."))
    rows = sorted((r for r in view["radius"] if r["dataset"] == name),
                  key=lambda r: r["radius"])
    return [f"### {name.upper()}", "", msg, "",
            *report.table(["r", "ε/T", "mistakes", "margin errors",
                           "seconds"], map(_radius_cells, rows), "rrrrr"),
            "", _best_line(_top_summary(view, name)), ""]


def _top_section(config, view):
    kp = KERNEL_PARAMS
    lines = [
        "## Top panels: online mistake rate ε/T vs r, kernel Ballseptron", "",
        f"Multiclass Ballseptron (Sec. 4), kernel K(x, x') = (γ_k x·x' + "
        f"{kp['coef0']:g})^{kp['degree']} with γ_k = {kp['gamma']:g}, "
        "instances shifted to zero mean and scaled to average norm 1, one "
        "online pass. Radii: " + ", ".join(f"{r:g}" for r in config.radii)
        + " (our grid; the paper's axis values are not in our copy). "
        "*seconds*: the whole `fit` of one pass, after a warm-up fit that "
        "compiles the loops.", ""]
    if not view["top_panels"]:
        lines += ["**Top panels not run: no data set requested.**", ""]
    for name in view["top_panels"]:
        lines += _panel_section(config, view, name)
    return lines


def _not_run_items(config, view):
    notes = view["top_panels"]
    items = [f"- Top panel {n.upper()}: {v['reason']}."
             for n, v in notes.items() if v["status"] != "run"]
    items += [f"- Top panel {n.upper()}: not run in this configuration"
              + (" (quick mode runs a USPS subsample only)" if config.quick
                 else "") + "." for n in ("usps", "mnist") if n not in notes]
    items += [f"- Top panel {n.upper()} only in part: {v['n_used']} of the "
              f"paper's {v['n_paper']} examples ("
              + ("quick mode" if config.quick else "cut by the caller") + ")."
              for n, v in notes.items() if v["status"] == "run"
              and v.get("n_paper") and v["n_used"] < v["n_paper"]]
    if config.n_samples < 10000:
        items.append(f"- Bottom panels on T = {config.n_samples} points, "
                     "not the paper's 10,000"
                     + (" (quick mode)." if config.quick else "."))
    items += [f"- {r['dataset'].upper()} at r = {r['radius']:g}: "
              f"{r['error']}." for r in view["radius"] if r["status"] != "ok"]
    return items or ["- Nothing: every panel ran."]


def render_markdown(config, records):
    """The report: tables, claims and verdicts, from the records alone.

    Parameters
    ----------
    config : Config
        What was asked for (the grids, the quick flag).
    records : list of dict
        As returned by :func:`run` or :func:`load_records`.

    Returns
    -------
    str
    """
    view = _view(records)
    lines = [
        "# Reproduction of Figure 3, Shalev-Shwartz & Singer (2005), "
        "*A New Perspective on an Old Perceptron Algorithm*", "",
        f"Mode: {'**quick**' if config.quick else 'full'}.", "",
        *_bottom_section(config, view), *_top_section(config, view),
        "## The paper's claims and ours", "",
        *report.table(["claim", "ours", "numbers"],
                      ([c, f"**{v}**", why] for c, v, why in _claims(view)),
                      "lll"),
        "", "## Not run, or run only in part", "",
        *_not_run_items(config, view), "", report.footer(records)]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ files
_NOISE_FIELDS = ["panel", "level", "seed", "T", "mistakes", "R", "gamma", "D1",
                 "D2", "n_hinge_positive", "d2_bound", "d1_bound",
                 "mistake_rate", "d2_bound_rate", "d1_bound_rate"]
_RADIUS_FIELDS = ["dataset", "radius", "T", "mistakes", "margin_errors",
                  "mistake_rate", "seconds", "error"]


def write_outputs(config, records, out):
    """Write the report, the two CSV files and the plots.

    Returns
    -------
    markdown : str
        The report.
    files : list of pathlib.Path
    """
    view, markdown = _view(records), render_markdown(config, records)
    noise = [{**r, "mistake_rate": r["mistakes"] / r["T"],
              "d2_bound_rate": r["d2_bound"] / r["T"],
              "d1_bound_rate": r["d1_bound"] / r["T"]} for r in view["noise"]]
    files = [report.write_text(out / f"{STEM}.md", markdown),
             report.write_csv(out / f"{STEM}_noise.csv", noise, _NOISE_FIELDS),
             report.write_csv(out / f"{STEM}_radius.csv", view["radius"],
                              _RADIUS_FIELDS),
             plot_bottom(config, records, out / f"{STEM}_fig3_bottom.png")]
    if any(r["status"] == "ok" for r in view["radius"]):
        files.append(plot_top(records, out / f"{STEM}_fig3_top.png"))
    return markdown, files


