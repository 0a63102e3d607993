r"""Kernel models under a budget (issue #37), reproduced.

``perceptrons reproduce budget [--quick] [--jobs N] [--scheduler ADDR]
[--resume]`` runs :func:`run` through the one runner
(:func:`~perceptrons.experiments.runner.run_reproduction`). The package:
:mod:`.paper` (the published numbers, the kernels and sizes),
:mod:`.tasks` (tasks and workers) and :mod:`.report` (tables, plot,
readings).

What it reproduces
------------------
* Wang, Crammer & Vucetic (JMLR 2012), Table 3: one pass, RBF kernel,
  test accuracy at B = 100 and 500 on Adult (a9a) and USPS: the
  kernel perceptron under every policy, Passive-Aggressive with BPA-S,
  BPA-NN, BPA-P and merging, Projectron++, beside BSGD's numbers.
* DOGMA's demo (``demo.m``/``demo.out``): the kernel perceptron, PA-I,
  the Projectron and Projectron++ (η = 0.01 in DOGMA's δ² reading), the
  Random Budget Perceptron and the Forgetron at the Projectron's support
  size, on 2-D Gaussian data with 10 % of the labels flipped.
* Mistakes and test error against the budget, B from 25 to unbudgeted, for
  every policy on a9a, USPS and MNIST, plotted.

Tasks and files (in ``output_dir``)
-----------------------------------
``reproduce_budget_records.jsonl`` (``--resume`` keeps it),
``reproduce_budget.md`` (the report), ``reproduce_budget_table3.csv``,
``reproduce_budget_curves.csv`` and ``reproduce_budget_curves.png``.
"""

import os
from pathlib import Path

from ..runner import ConfigReproduction, run_configured
from ..store import Store
from .paper import (BSGD_TABLE3, DOGMA_DEMO, FULL, KERNELS, QUICK, STEM,
                    Config)
from .report import plot_curves, render_markdown, write_outputs
from .tasks import (count, curve_worker, dogma_data, dogma_worker, submit,
                    table_worker)

__all__ = ["BSGD_TABLE3", "Config", "DOGMA_DEMO", "FULL", "KERNELS",
           "QUICK", "curve_worker", "dogma_data", "dogma_worker",
           "load_records", "plot_curves", "render_markdown", "reproduction",
           "run", "table_worker", "write_outputs"]


def reproduction(config):
    """The reproduction of ``config``, for the runner."""
    return ConfigReproduction(config, STEM, submit, count, write_outputs)


def run(options, config=None):
    """Reproduce the budget tables and curves; write the records, report
    and plot.

    Parameters
    ----------
    options : RunOptions
        ``output_dir``, ``quick`` (:data:`QUICK` instead of :data:`FULL`),
        ``progress``, ``resume``, ``jobs``, ``scheduler``, ``render_only``.
    config : Config, default=None
        Overrides the configuration chosen by ``options.quick``.

    Returns
    -------
    dict
        ``markdown`` (the report), ``files`` (paths written) and
        ``records`` (as stored).
    """
    return run_configured(reproduction, options, config, QUICK, FULL)


def load_records(output_dir):
    """The records of the last run written to ``output_dir``."""
    path = Path(os.fspath(output_dir)) / f"{STEM}_records.jsonl"
    return list(Store(path).read().values())
