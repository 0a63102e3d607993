"""Every online learner here, and its peers, on the same data, in one run.

Question
--------
Which online linear learner should one start from? One table: every
estimator of :data:`perceptrons.registry.ESTIMATORS` at its defaults (and
at its paper's settings where they differ), scikit-learn's ``Perceptron``,
``SGDClassifier(loss="hinge")`` and ``LinearSVC``, and river's
``Perceptron``, ``PAClassifier`` and ``ALMAClassifier`` where river is
installed, on a9a, w8a, MNIST (one-vs-rest), USPS and the UCI sets of
Khardon & Wachman (2007): one pass, online mistake rate, test accuracy and
fit time, with SOL's published MNIST figures beside ours.

Command
-------
::

    python benchmarks/bench_learners.py            # every set, in full
    python benchmarks/bench_learners.py --write    # ... and BENCHMARKS.md
    python benchmarks/bench_learners.py --quick    # subsampled (minutes)

What is measured
----------------
Each training set is put once in a seeded random order (seed 0), the same
for every learner, and learned in **one pass** in that order:

* ours: ``max_iter=1, shuffle=False``; the **online mistake rate** is
  ``n_mistakes_ / t_`` (each row predicted before it is learned, ties
  counted as mistakes; one-vs-rest: the true class not scoring strictly
  highest). PDM, PFM, ROMMA and MPU run one epoch of their Sec. 4
  schedule, whose active-set passes revisit rows already seen: for them
  the rate counts those passes' mistakes too (marked ``*``). On the
  10-class sets, ``HigherOrderPerceptron``, ``SecondOrderPerceptron`` and
  ``ALMA`` count their ``n_mistakes_`` per one-vs-rest problem, summed:
  their rate there is predicted in 200 blocks as scikit-learn's (``†``),
  on USPS; not on MNIST (``n/m``: 200 ``partial_fit`` calls of their
  d x d form take minutes at d = 784).
* scikit-learn's ``Perceptron`` and ``SGDClassifier(loss="hinge")``:
  ``max_iter=1, tol=None, shuffle=False``; the mistake rate is measured by
  predicting each row, then ``partial_fit`` on it (a second, untimed run;
  on the 10-class sets in 200 blocks of rows, each predicted by the model
  of the blocks before it, marked ``†``).
  ``LinearSVC`` (defaults) is a batch solver run to convergence: no online
  rate, its accuracy is the batch reference.
* river: ``predict_one`` then ``learn_one`` on each row (dicts of the
  non-zero features; one-vs-rest through ``river.multiclass`` for 10
  classes); the time is the ``learn_one`` calls' only.

**Fit time** is the best of up to 5 timed ``fit`` calls (wall clock; more
than one only while they add up to under 0.3 s), after an untimed fit of
the same configuration on a few rows (numba's compilation and caches out
of the timing). **Test accuracy** is on the set's test part: a9a.t, MNIST's 10,000
and USPS's 2,007 test rows, Adult's test file; w8a (whose test file is not
in the data folder) and the small UCI sets are split 70/30, stratified,
seed 0. Features: MNIST divided by 255; the UCI sets standardised on the
training part; a9a, w8a and USPS as stored.

Settings: *default* is the class's defaults (one pass); *paper* is the
papers' online algorithm where the default differs: the last hypothesis
(the defaults average several), and for the Perceptron also Rosenblatt's
``eta=1, theta_init=0, threshold_step=0``; *full* is the full-covariance
form of the confidence-weighted family (default: diagonal), run only where
d <= 300 (not MNIST). ``KernelPerceptron`` is the Perceptron's dual form
(tested equal to it with a linear kernel) and is not run.

``--quick`` subsamples every training set to 2,000 rows and every test set
to 1,000 (not the answer). The full run writes ``reports/learners/``
(``results.json``, ``README.md``, ``accuracy.png``); ``--render
reports/learners/results.json [--write]`` writes the report and the plot
again from the stored cells, fitting nothing.
"""

import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402
import _learners as L  # noqa: E402

SECTION = "bench_learners"
TITLE = "## Every online learner on the same data (one pass)"

#: SOL's README, MNIST, one pass, test accuracy (%), as quoted in issue #38.
SOL_MNIST = {"Perceptron": 86.71, "PA": 87.53, "ALMA2": 91.88,
             "AROW": 92.26, "Vowpal Wabbit": 91.25, "LIBLINEAR": 91.83}
#: LIBOL's manual, Table 3: online mistake rate, svmguide3 / ijcnn1.
LIBOL_TABLE3 = {"Perceptron": (0.332, 0.106), "ROMMA": (0.329, 0.101),
                "ALMA": (0.230, 0.071), "PA": (0.318, 0.102),
                "PA-I": (0.236, 0.077), "PA-II": (0.253, 0.081),
                "SOP": (0.297, 0.102)}
#: Which of our rows stand for SOL's algorithms on MNIST.
SOL_OURS = {"Perceptron": "Perceptron (paper)", "PA": "PassiveAggressive (paper)",
            "ALMA2": "ALMA (paper)", "AROW": "AROW",
            "LIBLINEAR": "sklearn LinearSVC"}


def run_all_cells(datasets, learners, quick, log):
    """Every (data set, learner) cell: a dict of measurements or a skip."""
    cells = []
    for ds in datasets:
        log(f"{ds.name}: {ds.X.shape[0]} x {ds.X.shape[1]}, "
            f"{len(ds.classes)} classes, test {ds.X_test.shape[0]}")
        for lr in learners:
            if not lr.applies(ds):
                continue
            t0 = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    cell = lr.run(ds)
            except Exception as exc:  # a refusal is a result of the table
                cell = {"error": f"{type(exc).__name__}: {exc}"[:200]}
            cell.update(dataset=ds.name, learner=lr.name, family=lr.family,
                        setting=lr.setting,
                        wall=time.perf_counter() - t0)
            cells.append(cell)
            log(f"  {lr.name:32s} " + (
                cell["error"][:70] if "error" in cell else
                f"err {L.pct(cell.get('mistake_rate'))} "
                f"acc {L.pct(cell['test_accuracy'])} "
                f"fit {C.seconds(cell['fit_time'])}"))
    return cells


def _cell_table(cells, datasets, learners, key, fmt):
    by = {(c["dataset"], c["learner"]): c for c in cells}
    rows = []
    for lr in learners:
        row = [lr.name]
        for ds in datasets:
            c = by.get((ds.name, lr.name))
            if c is None:
                row.append("")
            elif "error" in c:
                row.append("err")
            else:
                row.append(fmt(c, key))
        if any(cell not in ("", "err") for cell in row[1:]):
            rows.append(row)
    return rows


def mean_ranks(cells, datasets, learners):
    """Mean rank of test accuracy (1 = best) over the sets a learner ran."""
    ranks = {lr.name: [] for lr in learners}
    for ds in datasets:
        scored = [(c["test_accuracy"], c["learner"]) for c in cells
                  if c["dataset"] == ds.name and "error" not in c]
        values = np.array([-s for s, _ in scored])
        order = values.argsort(kind="stable").argsort() + 1.0
        for (acc, name), r in zip(scored, order):
            # Ties share their mean rank.
            ties = [rr for (a, _), rr in zip(scored, order) if a == acc]
            ranks[name].append(float(np.mean(ties)))
    return {k: (float(np.mean(v)) if v else None, len(v))
            for k, v in ranks.items()}


def report(cells, datasets, learners, args, meta):
    def acc(c, _):
        return L.pct(c["test_accuracy"])

    def err(c, _):
        r = c.get("mistake_rate")
        if c.get("unmeasured"):
            return "n/m"
        return "–" if r is None else L.pct(r) + (
            "*" if c.get("revisits") else "†" if c.get("blocks") else "")

    def fit(c, _):
        return C.seconds(c["fit_time"])

    names = [ds.name for ds in datasets]
    ranks = mean_ranks(cells, datasets, learners)
    out = [TITLE, "",
           C.command_line("bench_learners.py", args,
                          "2,000 training and 1,000 test rows per set"),
           "", meta, "",
           "**Question.** Which online linear learner to start from: every "
           "estimator of the registry at its defaults, and at its paper's "
           "settings where they differ, beside scikit-learn's and river's, "
           "on the same data, in the same order, in one pass. What is "
           "measured and how is in the script's docstring; the data: "
           + "; ".join(ds.describe() for ds in datasets) + ".", "",
           "### Test accuracy (%) after one pass", "",
           "Mean rank: the learner's mean rank of test accuracy over the "
           "sets it ran (1 = best; ties share).", ""]
    rows = _cell_table(cells, datasets, learners, "test_accuracy", acc)
    for row in rows:
        m, n = ranks[row[0]]
        row.append("–" if m is None else f"{m:.1f} ({n})")
    out += [C.md_table(["learner", *names, "mean rank"], rows), ""]
    out += ["### Online mistake rate (%) during the pass", "",
            "`*`: one epoch of the active-set schedule, which revisits "
            "rows (see the docstring); `†`: predicted in 200 blocks, each "
            "by the model of the blocks before it (10-class sets: "
            "scikit-learn's, and ours whose `n_mistakes_` sums the "
            "one-vs-rest problems); `n/m`: not measured (those on MNIST: "
            "200 `partial_fit` calls of their d x d form take minutes); "
            "`–`: a batch solver.", "",
            C.md_table(["learner", *names],
                       _cell_table(cells, datasets, learners,
                                   "mistake_rate", err)), ""]
    out += ["### Fit time (s, one pass, compilation excluded)", "",
            C.md_table(["learner", *names],
                       _cell_table(cells, datasets, learners,
                                   "fit_time", fit)), ""]
    errors = [c for c in cells if "error" in c]
    if errors:
        out += ["Refused or failed (`err` above): " + "; ".join(
            f"{c['learner']} on {c['dataset']} ({c['error']})"
            for c in errors) + ".", ""]
    out += published(cells, args)
    out += ["", "Read in the user guide: `docs/user_guide/choosing.rst`, "
                "*One pass on the benchmark sets* (which learner for which "
                "data, and our orderings against SOL's and LIBOL's)."]
    if not args.quick:
        out += ["", "![test accuracy against fit time]"
                    "(reports/learners/accuracy.png)", "",
                "Every measurement: `reports/learners/results.json`."]
    return "\n".join(out)


def published(cells, args):
    """SOL's and LIBOL's figures beside ours, with their protocols."""
    by = {(c["dataset"], c["learner"]): c for c in cells}
    rows = []
    for alg, theirs in SOL_MNIST.items():
        ours = SOL_OURS.get(alg)
        c = by.get(("mnist", ours)) if ours else None
        got = ("–" if c is None or "error" in c
               else L.pct(c["test_accuracy"]))
        rows.append([alg, f"{theirs:.2f}", ours or "(not run here)", got])
    out = ["### Published figures beside ours", "",
           "**SOL** (README, MNIST, 10 classes, one pass over the 60,000 "
           "training rows, test accuracy on the 10,000 test rows; its "
           "default parameters; the README states no more of the protocol: "
           "order and scaling are not given). Ours: the same split, one "
           "pass in one seeded order, pixels / 255"
           + (" (**quick run: subsampled, not comparable**)"
              if args.quick else "") + ".", "",
           C.md_table(["SOL algorithm", "SOL test acc. %", "our row",
                       "ours %"], rows), "",
           "**LIBOL** (manual, Table 3: online mistake rate, one pass, "
           "averaged over 20 random orders, default parameters) reports "
           "svmguide3 / ijcnn1, neither of which is in the data folder "
           "(`/work/shared/data/MANIFEST.md`), and no a9a or MNIST figure "
           "in the part issue #38 quotes: only its ordering can be set "
           "beside ours. " + ", ".join(
               f"{k} {a:.3f} / {b:.3f}" for k, (a, b) in
               LIBOL_TABLE3.items()) + "."]
    return out


def plot(cells, datasets, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    big = [ds for ds in datasets if ds.name in ("a9a", "w8a", "mnist", "usps")]
    fig, axes = plt.subplots(2, 2, figsize=(11, 9.5))
    colours = {"ours": "tab:blue", "sklearn": "tab:orange",
               "river": "tab:green"}
    for ax, ds in zip(np.ravel(axes), big):
        for c in cells:
            if c["dataset"] != ds.name or "error" in c:
                continue
            marker = {"default": "o", "paper": "^", "full": "s"}[c["setting"]]
            ax.scatter(max(c["fit_time"], 1e-4), 100 * c["test_accuracy"],
                       c=colours[c["family"]], marker=marker, s=28)
            ax.annotate(c["learner"].replace(" (paper)", "ᵖ")
                        .replace(" (full)", "ᶠ").replace("sklearn ", "sk ")
                        .replace("river ", "rv "),
                        (max(c["fit_time"], 1e-4), 100 * c["test_accuracy"]),
                        fontsize=6, xytext=(2, 2), textcoords="offset points")
        accs = [100 * c["test_accuracy"] for c in cells
                if c["dataset"] == ds.name and "error" not in c]
        ax.set_ylim(max(min(accs), np.median(accs) - 25) - 1, max(accs) + 1)
        ax.set_xscale("log")
        ax.set_title(ds.name)
        ax.set_xlabel("fit time (s, log)")
        ax.grid(alpha=0.3)
    for ax in np.ravel(axes)[::2]:
        ax.set_ylabel("test accuracy (%)")
    handles = [plt.Line2D([], [], color=v, marker="o", ls="", label=k)
               for k, v in colours.items()]
    handles += [plt.Line2D([], [], color="grey", marker=m, ls="", label=s)
                for s, m in (("default", "o"), ("paper (ᵖ)", "^"),
                             ("full covariance (ᶠ)", "s"))]
    fig.legend(handles=handles, loc="lower center", ncol=6, fontsize=8)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(path, dpi=130)
    plt.close(fig)


class _Named:
    """A data set or learner of a stored run: its name (and description)."""

    def __init__(self, name, description=""):
        self.name, self._description = name, description

    def describe(self):
        return self._description


def render(path):
    """(cells, data sets, learners, meta) of a stored ``results.json``."""
    stored = json.loads(Path(path).read_text())
    cells = stored["cells"]
    datasets = [_Named(d.split(" ", 1)[0], d) for d in stored["datasets"]]
    learners = [_Named(n) for n in dict.fromkeys(c["learner"] for c in cells)]
    return cells, datasets, learners, stored["meta"]


def write_outputs(cells, datasets, learners, args, meta, stored=None):
    """The report, the plot and the JSON (unless re-rendering ``stored``)."""
    text = report(cells, datasets, learners, args, meta)
    out_dir = C.REPO_ROOT / "reports" / "learners"
    if stored is None:
        json_path = Path(args.json) if args.json else (
            Path("/tmp/bench_learners_quick.json") if args.quick
            else out_dir / "results.json")
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(
            {"quick": args.quick, "meta": meta, "cells": cells,
             "datasets": [ds.describe() for ds in datasets],
             "sol_mnist": SOL_MNIST, "libol_table3": LIBOL_TABLE3},
            indent=1))
    png = (out_dir if not args.quick else Path("/tmp")) / (
        "accuracy.png" if not args.quick else "bench_learners_quick.png")
    plot(cells, datasets, png)
    if not args.quick:
        (out_dir / "README.md").write_text(
            text.replace("(reports/learners/accuracy.png)", "(accuracy.png)")
            .replace("`reports/learners/results.json`", "`results.json`")
            .replace(TITLE, "# Every online learner on the same data: "
                            "full results", 1) + "\n")
    C.publish(text, SECTION, args.write)


def main(argv=None):
    def options(parser):
        parser.add_argument("--datasets", default=None,
                            help="comma-separated subset of: "
                                 + ",".join(L.DATASET_NAMES))
        parser.add_argument("--json", default=None,
                            help="write the cells here (default: "
                                 "reports/learners/results.json on a full "
                                 "run, /tmp/bench_learners_quick.json "
                                 "with --quick)")
        parser.add_argument("--render", default=None, metavar="JSON",
                            help="fit nothing: write the report and the "
                                 "plot again from a stored results.json")

    args = C.parse_bench_args(argv, __doc__,
                              "2,000 training / 1,000 test rows per set",
                              repeat=(1, 1), min_time=(0.0, 0.0),
                              add_arguments=options)
    if args.render:
        cells, datasets, learners, meta = render(args.render)
        write_outputs(cells, datasets, learners, args, meta,
                      stored=args.render)
        return 0
    names = args.datasets.split(",") if args.datasets else L.DATASET_NAMES
    busy = C.cpu_busy()
    t_start = time.perf_counter()
    datasets = [L.load(name, quick=args.quick) for name in names]
    learners = L.learners()
    cells = run_all_cells(datasets, learners, args.quick,
                          lambda s: print(s, file=sys.stderr, flush=True))
    wall = time.perf_counter() - t_start
    meta = (C.machine_description() + f"\n- whole run: {wall:.0f} s; cores "
            f"busy before it: {busy:.0%}; {L.river_note()}")
    write_outputs(cells, datasets, learners, args, meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
