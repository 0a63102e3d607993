"""The demo: the Khardon & Wachman (2007) family on built-in data.

``perceptrons demo`` runs this module. It needs no download: the data are
the artificial data of K&W Sec. 3.1 (generated) and two data sets bundled
with scikit-learn.

Data sets
---------
``kw f50 M0.1 N0`` / ``kw f50 M0.1 N0.1``
    :func:`~perceptrons.datasets.make_khardon_wachman` with f = 50
    features, margin M = 0.1, label noise N = 0 and 0.1, 600 examples
    (K&W Sec. 3.1; integer attributes in [-10, 10], raw).
``wdbc``
    scikit-learn's bundled Wisconsin Diagnostic Breast Cancer set (569 × 30,
    the "Wdbc" row of K&W Table 1), **raw features**, as K&W use them:
    θ_Init = C = avg⟨x, x⟩ puts the threshold on the scale of the data.
    Standardizing (per training fold) was tried too: it lifts every variant
    to 96.0-97.4% (10 folds, 100 passes), all within each other's
    T-intervals, while the raw features reproduce K&W's setting (their
    Table 6, Wdbc, "Nothing": 92.4 ± 2.9 for the classical perceptron; the
    demo gives 90.9 ± 4.3, and 93.0 ± 2.5 for longest survivor and voted)
    and keep the variants apart.
``digits``
    scikit-learn's 8×8 handwritten digits (1797 × 64, 10 classes, pixel
    values 0-16, raw), one-vs-rest as in K&W Sec. 2.7.

Variants
--------
K&W's settings (Sec. 3.2): η = 0.1, θ_Init = C = avg⟨x, x⟩ (the
estimator's ``"auto"``), 100 passes (``max_iter``), rows shuffled each pass;
then one change per variant: the final hypothesis (last = classical,
longest survivor, voted, averaged), the margin τ ∈ {0.5, 1} in units of
θ_Init, the λ-trick (λ = 1), the α-bound (α = 20 updates per example, a
fifth of the passes, in K&W's grid {5, ..., 80}); and scikit-learn's
``Perceptron`` (same number of passes, ``tol=None``) for reference.

Statistics: stratified shuffled 10-fold CV (the same folds for every
variant), mean accuracy ± the 95% T-interval of K&W footnote 5, and the
online mistake rate ``n_mistakes_ / t_`` of each training run.

``quick=True`` uses 3 folds and 10 passes, for smoke tests.

Every fold is a task of :mod:`.store` (:func:`~.evaluation.run_fold`) that
the one runner (:func:`~.runner.run_reproduction`) runs; the records go to
``demo_records.jsonl`` as they finish, ``resume=True`` keeps the folds
already there, and the table, plot and summaries are rendered from the
records.
"""

import functools

from ._comparison import DatasetSpec, Variant, comparison_tasks
from ._results import plot_results, render_markdown, write_summary
from .evaluation import run_fold
from .options import RunOptions
from .report import write_text
from .runner import run_reproduction

__all__ = ["DATASETS", "Demo", "VARIANTS", "run_demo"]

_P = "perceptrons.Perceptron"


def _kw(noise):
    from ..datasets import make_khardon_wachman

    return make_khardon_wachman(n_samples=600, n_features=50, margin=0.1,
                                noise=noise, random_state=0)


def _breast_cancer():
    from sklearn.datasets import load_breast_cancer

    return load_breast_cancer(return_X_y=True)


def _digits():
    from sklearn.datasets import load_digits

    return load_digits(return_X_y=True)


#: Data sets of the demo, by name.
DATASETS = {
    "kw f50 M0.1 N0": DatasetSpec(
        "kw f50 M0.1 N0", functools.partial(_kw, 0.0),
        description="K&W Sec. 3.1 artificial data, f=50, M=0.1, no noise, "
                    "600 examples (seed 0)."),
    "kw f50 M0.1 N0.1": DatasetSpec(
        "kw f50 M0.1 N0.1", functools.partial(_kw, 0.1),
        description="The same with 10% of the labels flipped (N=0.1)."),
    "wdbc": DatasetSpec(
        "wdbc", _breast_cancer,
        description="scikit-learn's bundled breast cancer data (UCI WDBC), "
                    "raw features as in K&W (their Table 6: 92.4 ± 2.9 for "
                    "the classical perceptron)."),
    "digits": DatasetSpec(
        "digits", _digits,
        description="scikit-learn's bundled 8×8 digits, raw pixels 0-16, "
                    "one-vs-rest."),
}

#: Variants of the demo, in table order.
VARIANTS = [
    Variant("classic (last)", _P, {"hypothesis": "last"},
            description="K&W Figure 2, last hypothesis, τ = λ = 0, no "
                        "α-bound."),
    Variant("longest survivor", _P, {"hypothesis": "longest"},
            description="hypothesis with the longest run of correct "
                        "training predictions (Kearns et al.; Gallant's "
                        "pocket)."),
    Variant("voted", _P, {"hypothesis": "voted"},
            description="Freund & Schapire's voted perceptron."),
    Variant("averaged", _P, {"hypothesis": "averaged"},
            description="average of the hypotheses over all steps."),
    Variant("τ = 0.5", _P, {"hypothesis": "last", "tau": 0.5},
            description="margin (PAM) τ = 0.5·θ_Init (K&W Sec. 2.4)."),
    Variant("τ = 1", _P, {"hypothesis": "last", "tau": 1.0},
            description="margin τ = 1·θ_Init."),
    Variant("λ = 1", _P, {"hypothesis": "last", "lam": 1.0},
            description="λ-trick, Eq. (1), λ = 1."),
    Variant("α = 20", _P, {"hypothesis": "last", "alpha_bound": 20},
            description="α-bound (K&W Sec. 2.3): at most 20 updates per "
                        "example."),
    Variant("sklearn Perceptron", "sklearn.linear_model.Perceptron",
            {"tol": None, "random_state": 0},
            description="scikit-learn's Perceptron (eta0=1, through a "
                        "learned intercept, no threshold scale), reference."),
]


def _variants(max_iter, names=None):
    if names is not None:
        unknown = set(names) - {v.name for v in VARIANTS}
        if unknown:
            raise ValueError(f"unknown demo variant(s) {sorted(unknown)}; "
                             f"known: {', '.join(v.name for v in VARIANTS)}")
    out = []
    for v in VARIANTS:
        if names is None or v.name in names:
            params = {**v.params, "max_iter": max_iter}
            if v.estimator == _P:
                params.setdefault("random_state", 0)
            out.append(Variant(v.name, v.estimator, params, v.description))
    return out


def _specs(datasets):
    if datasets is None:
        return list(DATASETS.values())
    specs = []
    for d in datasets:
        if not isinstance(d, DatasetSpec) and d not in DATASETS:
            raise ValueError(f"unknown demo data set {d!r}; known: "
                             f"{', '.join(DATASETS)}")
        specs.append(d if isinstance(d, DatasetSpec) else DATASETS[d])
    return specs


class Demo:
    """The demo comparison as a :class:`~.runner.Reproduction`.

    Parameters
    ----------
    datasets : list of DatasetSpec
    variants : list of Variant
    n_splits : int
    random_state : int
    """

    stem = "demo"

    def __init__(self, datasets, variants, n_splits, random_state):
        self.datasets, self.variants = datasets, variants
        self.n_splits, self.random_state = n_splits, random_state

    def total(self):
        return len(self.datasets) * len(self.variants) * self.n_splits

    def tasks(self, session):
        session.run(run_fold, comparison_tasks(
            "demo", self.datasets, self.variants, n_splits=self.n_splits,
            random_state=self.random_state))

    def summary(self, records, run):
        return records

    def render(self, records, out):
        text = {**{d.name: d.description for d in self.datasets},
                **{v.name: v.description for v in self.variants}}
        markdown = render_markdown(records, text)
        summary = write_summary(records, out / "demo")
        return markdown, [summary["json"], summary["csv"],
                          write_text(out / "demo_table.md", markdown),
                          plot_results(records, out / "demo_accuracy.png",
                                       "demo")]


def run_demo(output_dir="perceptrons_output", *, quick=False, datasets=None,
             variants=None, n_splits=None, max_iter=None, random_state=0,
             progress=None, resume=False):
    """Run the demo comparison and write its files.

    Parameters
    ----------
    output_dir : str or path-like, default="perceptrons_output"
        Created if needed.
    quick : bool, default=False
        3 folds and 10 passes instead of 10 and 100.
    datasets : list of str or DatasetSpec, default=None
        Subset of :data:`DATASETS` names (or specs); None means all.
    variants : list of str, default=None
        Subset of the names in :data:`VARIANTS`; None means all.
    n_splits, max_iter : int, default=None
        Override the folds and passes.
    random_state : int, default=0
        Seeds the folds.
    progress : bool or None, default=None
        tqdm bar on stderr (None: only on a terminal).
    resume : bool, default=False
        Keep the fold records already in ``demo_records.jsonl``.

    Returns
    -------
    dict
        ``records`` (one per fold), ``markdown`` (the tables), ``files``
        (every file written: ``records`` = ``demo_records.jsonl``, ``run``
        = ``demo_run.json``, ``json`` and ``csv`` = ``demo_results.*``,
        the per-variant summaries, ``markdown`` = ``demo_table.md``,
        ``png`` = ``demo_accuracy.png``).
    """
    n_splits = n_splits or (3 if quick else 10)
    max_iter = max_iter or (10 if quick else 100)
    demo = Demo(_specs(datasets), _variants(max_iter, variants), n_splits,
                random_state)
    res = run_reproduction(demo, RunOptions(output_dir=output_dir,
                                            progress=progress, resume=resume))
    return {"records": res["records"], "markdown": res["markdown"],
            "files": dict(zip(("records", "run", "json", "csv", "markdown",
                               "png"), res["files"], strict=True))}
