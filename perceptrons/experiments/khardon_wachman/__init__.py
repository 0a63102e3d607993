r"""Khardon & Wachman (2007), Sec. 3: Tables 2 to 7 and Figure 4.

``perceptrons reproduce khardon-wachman [--quick] [--scheduler ADDR]
[--jobs N] [--resume]`` runs :func:`run`: the one runner
(:func:`~perceptrons.experiments.runner.run_reproduction`) runs the tasks of
:mod:`..model_selection`, one pool for all tables. The package:
:mod:`.paper` (the grids and the paper's numbers), :mod:`.studies` (the
configuration and its studies), :mod:`.tables` and :mod:`.report`.

Protocol (Sec. 3.2)
-------------------
:class:`~perceptrons.Perceptron` with θ_Init = C = the average ⟨x, x⟩ of the
training fold (``theta_init=threshold_step="auto"``), η = 0.1, 100 passes,
each pass in a new random order; τ, λ, α from :func:`~.model_selection.
paper_columns`. The last, longest-survivor and voted hypotheses (and our
vote-weighted average) come from one training run per task.

* Table 3 (parameter search, UCI): mean accuracy over 10 stratified folds
  of every cell; a column's value is its best cell, inactive values
  excluded (``paper_columns("search")``). Its USPS and MNIST rows: the best
  test accuracy over the grid on the sets' own split (USPS with the 100
  passes K&W use for the search, MNIST 1 pass and no α).
* Table 6 (parameter optimisation, UCI and one artificial set): double
  cross-validation over the same outer folds; mean ± the 95 % T-interval
  of footnote 5. Its SVM columns: LIBLINEAR's 1- and 2-norm soft margin
  (:mod:`._svm_baselines`), parameter search over K&W's grids on the same
  outer folds (``Study(folds_of=...)``), as K&W report SVMlight's.
* Table 5: Adult by training-set size (10 to 20,000 examples), τ alone,
  η = 0.4 and 5 passes; ten stratified training sets per size
  (``Study(train_size=...)``), each scored on adult.test; features scaled
  to [0, 1] (see :func:`_table5_studies`).
* Table 7 (linear rows): USPS, Adult and MNIST on their own train/test
  split, τ and λ columns chosen by inner cross-validation on the training
  part (:func:`_table7_study`), and the degree-4 polynomial kernel rows of
  USPS and MNIST (τ alone; MNIST's 77 tasks take about 80 s of task time
  each).
* Table 2: 10-fold accuracy of the classic (last), longest-survivor and
  voted perceptron with no variant, on artificial sets (600 examples,
  :func:`~perceptrons.datasets.make_khardon_wachman`, two sets per
  (f, M, N)); per noise level, how often each beats another.
* Table 4: parameter search on the artificial sets with f = 50, M = 0.05,
  averaged over the sets of each noise level.
* Figure 4: accuracy against each single parameter (the others inactive).
* Beyond the paper (not run by K&W; :mod:`.beyond`): self-tuned ALMA_2 (no
  search) and PA-I (C by inner CV) on Table 6's UCI sets and folds, with
  the fits and time each row's double CV costs. ``run(options, BEYOND)``
  runs only that section's tasks (and Table 6's Nothing and τ columns),
  writing ``khardon_wachman_beyond.md``.

Agreement is judged as the issue asks: Table 3 and 4 cells within 2 points
of the paper's; a Table 6 cell agrees when the paper's mean lies in our
T-interval or ours in the paper's; a Table 5 cell when the means are within
the larger of the two standard deviations; Table 7 cells within 2 points.

Files (in ``output_dir``): ``khardon_wachman.md`` (the report),
``khardon_wachman_search.csv`` (every cell's mean accuracy),
``khardon_wachman_selection.csv`` (Table 6 cells with the chosen
parameters), ``khardon_wachman_svm.csv`` (every SVM cell),
``khardon_wachman_fig4_<data set>.png``, ``khardon_wachman_beyond.csv``
(the beyond-the-paper rows, when run), and the task records
``khardon_wachman_records.jsonl`` (``--resume`` reuses them).

References
----------
.. [1] R. Khardon and G. Wachman. Noise tolerant variants of the perceptron
   algorithm. JMLR 8:227-248, 2007.
"""

import math

from ..model_selection import by_study, double_cv_result, search_result
from ..runner import run_configured
from .paper import (ALPHA_GRID, INACTIVE, LAMBDA_GRID, PAPER_TABLE2,
                    PAPER_TABLE3, PAPER_TABLE4, PAPER_TABLE5, PAPER_TABLE6,
                    PAPER_TABLE6_SVM, PAPER_TABLE7, STEM, TAU_GRID,
                    paper_columns)
from .beyond import (PA_C_GRID, alma_name, beyond_section, beyond_sets,
                     has_records, pa_name)
from .report import write_beyond, write_report
from .studies import BEYOND, FULL, QUICK, Config, make_studies, submit

__all__ = ["ALPHA_GRID", "BEYOND", "Config", "FULL", "INACTIVE",
           "KhardonWachman",
           "LAMBDA_GRID", "PAPER_TABLE2", "PAPER_TABLE3", "PAPER_TABLE4",
           "PAPER_TABLE5", "PAPER_TABLE6", "PAPER_TABLE6_SVM",
           "PAPER_TABLE7", "PA_C_GRID", "QUICK", "TAU_GRID", "paper_columns",
           "run"]


class KhardonWachman:
    """The reproduction of K&W's Sec. 3 (a :class:`~..runner.Reproduction`):
    its studies, built once, serve the tasks and the summary.

    Parameters
    ----------
    config : Config
    """

    stem = STEM

    def __init__(self, config):
        self.config = config
        self.studies = None
        if config.only_beyond:
            self.stem = f"{STEM}_beyond"

    def _studies(self):
        if self.studies is None:
            self.studies = make_studies(self.config)
        return self.studies

    def total(self):
        return sum(len(s.splits()) * len(s.cells()) for s in self._studies())

    def tasks(self, session):
        submit(self._studies(), session)

    def summary(self, records, run):
        """The search (and double CV) result of every study, and the
        run's timing."""
        by_name = by_study(self._studies(), records)
        results = {s.name: (double_cv_result(s, by_name[s.name]) if s.inner
                            else search_result(s, by_name[s.name]))
                   for s in self._studies()}
        return {"results": results, "records": records,
                "timing": timing(records, run), "by_study": by_name,
                "studies": {s.name: s for s in self._studies()}}

    def render(self, summary, out):
        results = summary["results"]
        beyond = {n for s in beyond_sets(self.config)
                  for n in (alma_name(s), pa_name(s))}
        section = None
        if has_records(self.config, results):
            section = beyond_section(self.config, summary["studies"],
                                     results, summary["by_study"])
        if self.config.only_beyond:
            return write_beyond(self.config, section, summary["records"],
                                summary["timing"], out)
        paper = {k: v for k, v in results.items() if k not in beyond}
        return write_report(self.config, paper, summary["records"],
                            summary["timing"], out, beyond=section)


def _span(stamps):
    """(first, last) of ISO timestamps, to the minute; None if empty."""
    if not stamps:
        return None
    return tuple(t[:16].replace("T", " ") for t in (min(stamps),
                                                     max(stamps)))


def timing(records, run):
    """Wall time, executor and the records kept from earlier runs
    (``--resume``: made before this run started)."""
    started = run.get("started_utc", "")
    reused = [r for r in records if r["meta"]["created_utc"] < started]
    return {"wall": run.get("wall_seconds", math.nan),
            "tasks": len(records), "backend": run.get("backend", "n/a"),
            "workers": run.get("workers", "n/a"), "reused": len(reused),
            "reused_seconds": sum(r["seconds"] for r in reused),
            "reused_span": _span([r["meta"]["created_utc"]
                                  for r in reused]),
            "task_seconds": sum(r["seconds"] for r in records)}


def run(options, config=None):
    """Run the study and write the report, CSV files and figures.

    Parameters
    ----------
    options : RunOptions
        ``output_dir``, ``quick``, ``progress``, ``jobs`` (local
        processes), ``scheduler`` (a Dask scheduler address), ``resume``,
        ``render_only``.
    config : Config, default=None
        Overrides the one ``options.quick`` picks.

    Returns
    -------
    dict
        ``markdown``, ``files``, ``records`` and ``summary``.
    """
    return run_configured(KhardonWachman, options, config, QUICK, FULL)
