r"""Tables 1–3 and Figure 2 of Brotto, Gentile & Vitale (NIPS 2007).

``perceptrons reproduce higher-order [--quick] [--jobs N] [--scheduler ADDR]
[--resume]`` runs :func:`run` through the one runner
(:func:`~perceptrons.experiments.runner.run_reproduction`). The paper,
Sec. 4, compares the Higher-order Perceptron HO_p(c) (ρ_k = c/k; FO =
HO₂(0), the Perceptron; HO_p(0) the p-norm Perceptron), its sparse dual
version and the Second-order Perceptron SO of Cesa-Bianchi, Conconi & Gentile
(2005). What is run here:

Figure 2
    The two artificial sets of Sec. 4 (:func:`~perceptrons.datasets.
    synthetic.make_sparse_target`: 500-d, 50 relevant ±1 components, margin
    0.005 by rejection, label noise η = 0 and 0.1, 1000 training and 1000
    test examples), HO_p(c) for p ∈ {2, 4, 7, 10} and c ∈ {0, 0.2, 0.4, 0.6,
    0.8}, implicit primal form, trained epoch by epoch with ``partial_fit``
    (the examples in generated order every epoch); the cumulative training
    updates and the test error after each epoch, averaged over the data
    seeds.
Beyond the paper: ALMA_p on Figure 2's sets
    Not run by the paper (issue #25): ALMA_p(α; B, C) of Gentile (2001) at
    Figure 2's p (``Config.alma_ps``) with the estimator's defaults α =
    0.9, B = 1/α, C = √2, the last hypothesis and no bias, as Figure 2's
    HO_p(c) (:data:`~.paper.ALMA_SETTINGS`), on the same sets in the same
    order epoch by epoch: cumulative corrections and mistakes and the test
    error after each epoch, beside HO_p(0) and the best HO_p(c > 0). The
    section renders only from a summary that has these runs.
Table 3
    USPS and MNIST, Gaussian and polynomial kernels, one epoch in file order,
    one-vs-rest: FO, HO₂(c), sparse HO₂(c) and SO(a). Every setting of a
    stated grid (:class:`OcrSpec`, :data:`HO_C`) is cross-validated (5
    stratified folds of the training set, each fold's rows in file order)
    and fitted on the whole training set; the report gives, per algorithm
    and kernel, the setting chosen by cross-validation *and* the best setting
    on the test set (what the paper reports), each with its training
    corrections (summed over the 10 problems) and test error.
Other readings (beside Table 3)
    The paper leaves open how one-vs-rest combines the ten margins, the
    order of the examples and the preprocessing; :data:`OTHER_READINGS`
    names the alternatives run on USPS (a whole kernel grid each, best
    setting on the test set), so the report can say which reading gives
    which numbers. The unit-norm OvR combination reuses Table 3's fits.
Table 1
    Lymphoma from the discretised 9-class scikit-feature copy: class 1 (46
    rows) against the other 8 classes (50 rows), random 60/36 splits, 5
    epochs over one random permutation of the training rows; FO, HO_p(c) for
    p ∈ {2, 4, 7, 10} and every c, SO(a); the best c (and a) by mean test
    error, as in the paper. Breast (Table 1) and RCV1 (Table 2) are not in
    the data folder.

The estimators are built by :func:`~.estimators.make_estimator` alone. The
package: :mod:`.paper` (the paper's numbers, grids, readings and
configurations), :mod:`.estimators`, :mod:`.tasks` (tasks and workers),
:mod:`.summary`, :mod:`.report` and :mod:`.plots`.

Tasks and files (``<stem>`` is ``higher_order`` or ``higher_order_quick``):
loading a data set, one (artificial set, seed, p, c) run, one ALMA_p
(artificial set, seed, p) run, one (data set,
kernel setting, algorithm setting, fold or test) fit, and one block of
Lymphoma splits are the tasks of :mod:`..store`; their records go to
``<stem>_records.jsonl`` as they finish (``resume`` keeps them; ``jobs``
and ``scheduler`` run them on joblib or Dask). Rendered from the records:
``<stem>.md`` (the report), ``<stem>_results.json`` (every number of the
report and the grids), ``<stem>_table3_grid.csv`` and the PNG plots
``<stem>_fig2_eta0.0.png``, ``<stem>_fig2_eta0.1.png`` and, for the
section beyond the paper, ``<stem>_alma_eta0.png``, ``<stem>_alma_eta0.1.png``.
"""

import os
from pathlib import Path

from ..runner import ConfigReproduction, run_configured
from ..store import Store
from .estimators import (corrections, make_estimator, unit_margin_error,
                         weight_norms)
from .paper import (ALMA_SETTINGS, FULL, HO_C, MNIST, PAPER_TABLE1, PAPER_TABLE2,
                    PAPER_TABLE3, QUICK, READINGS, USPS, Config, OcrSpec)
from .report import render_markdown, write_outputs
from .summary import summarize
from .tasks import (alma_worker, artificial_worker, count, lymphoma_worker, ocr_worker,
                    submit)

__all__ = ["ALMA_SETTINGS", "Config", "FULL", "HO_C", "MNIST", "OcrSpec",
           "PAPER_TABLE1", "PAPER_TABLE2", "PAPER_TABLE3", "QUICK", "USPS",
           "READINGS", "alma_worker", "artificial_worker", "corrections", "load_records",
           "lymphoma_worker", "make_estimator", "ocr_worker",
           "render_markdown", "reproduction", "run", "summarize", "unit_margin_error",
           "weight_norms", "write_outputs"]


def reproduction(config):
    """Tables 1-3 and Figure 2 of ``config``, for the runner."""
    return ConfigReproduction(config, config.stem, submit, count,
                              write_outputs, summarize)


def run(options, config=None):
    """Reproduce Tables 1–3 and Figure 2; write records, report and plots.

    Parameters
    ----------
    options : RunOptions
        ``output_dir``; ``quick`` (:data:`QUICK` instead of :data:`FULL`);
        ``progress``; ``resume`` keeps the tasks already recorded; ``jobs``
        and ``scheduler`` run the tasks on joblib or Dask; ``render_only``.
    config : Config, default=None
        Overrides the configuration chosen by ``options.quick``.

    Returns
    -------
    dict
        ``markdown`` (the report), ``files`` (paths written), ``records``,
        ``summary`` (what the JSON file holds).
    """
    return run_configured(reproduction, options, config, QUICK, FULL)


def load_records(output_dir, config=QUICK):
    """The records of the last run of ``config`` written to ``output_dir``."""
    path = Path(os.fspath(output_dir)) / f"{config.stem}_records.jsonl"
    return list(Store(path).read().values())
