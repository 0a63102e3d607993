"""Reproduce Tables 1 and 2 of Panagiotakopoulos & Tsampouka (ALT 2011).

The perceptron with dynamic margin (PDM) paper, Sec. 5: on every data set of
the paper that is in the shared data folder — Adult (LIBSVM ``a9a``) and Web
(LIBSVM ``w8a``); Physics, Real-sim, News20, Webspam, Covertype, C11 and
CCAT are not available — the hard-margin problem in the space extended with
the paper's Δ (Δ = 1 for both; ρ = 1) is solved by

* PDM, ε = 0.01, then PFM with β = γ'_d of PDM (Table 1, columns 1–2);
* PDM-succ, η = 8 (ε = 0.5, 0.0625, 0.01), then PFM with β = γ'_d of
  PDM-succ (Table 1, columns 3–4);
* aggressive ROMMA with accuracy ε = 0.01 and PDM's active sets
  (:class:`perceptrons.ROMMA`, Table 2);
* DCD-L1 and DCD-L2 of LIBLINEAR (Table 2), see :mod:`.._liblinear`;

and the directional margin 10⁴·γ'_d, the updates and the training time are
tabulated beside the paper's own numbers, with each time's ratio to DCD-L2's
in the same run (the only comparison that does not depend on the machine).
SVMlight and MPU (Table 2) are listed with the paper's numbers and marked
as not run.

Timing: the fastest of 3 (``quick``: 1) wall-clock times of ``fit`` (input
validation and the final margin computation included; the fits are
identical) after every compiled loop was warmed up on a tiny problem, so no
numba compilation is timed (each worker process warms up once); for
LIBLINEAR only its ``train`` call (the conversion to its data format is
made before). CPU seconds and the load average are stored too. The paper's
times are from a 2.5 GHz Core 2 Duo (C++ code). With ``--jobs`` or
``--scheduler`` the fits run side by side and their times include the
contention; margins and updates are the same as serial, so time the
tables serially.

``perceptrons reproduce pdm [--quick] [--jobs N] [--scheduler ADDR]
[--resume]`` runs :func:`run` through the one runner
(:func:`~perceptrons.experiments.runner.run_reproduction`). The package:
:mod:`.paper` (the paper's numbers, data sets and configurations),
:mod:`.tasks` (tasks and worker) and :mod:`.report`.

Tasks and files (``<stem>`` is ``pdm`` or ``pdm_quick``): loading each data
set and each (data set, algorithm) fit is a task of :mod:`..store`; PFM's
tasks follow once PDM's records give their β. The records go to
``<stem>_records.jsonl`` as they finish (``resume`` keeps them); the report
``<stem>_tables.md`` and the flat ``<stem>_results.csv`` (one row per data
set and algorithm, the paper's numbers beside) are rendered from them.
"""

import os
from pathlib import Path

from ..runner import ConfigReproduction, run_configured
from ..store import Store
from .paper import (ALGORITHMS, DATASETS, FULL, PAPER_DELTA, PAPER_TABLE1,
                    PAPER_TABLE2, QUICK, Config, PaperDataset, paper_numbers)
from .report import render_markdown, write_outputs
from .tasks import count, fit_worker, submit

__all__ = ["ALGORITHMS", "Config", "DATASETS", "FULL", "PAPER_DELTA",
           "PAPER_TABLE1", "PAPER_TABLE2", "PaperDataset", "QUICK",
           "fit_worker", "load_records", "paper_numbers",
           "render_markdown", "reproduction", "run"]


def reproduction(config):
    """Tables 1 and 2 of ``config``, for the runner."""
    return ConfigReproduction(config, config.stem, submit, count,
                              write_outputs)


def run(options, config=None):
    """Reproduce Tables 1-2 on the local data sets; write records and report.

    Parameters
    ----------
    options : RunOptions
        Where to write (``output_dir``), whether to take the 3000-row
        subsamples (``quick``), the progress bar, ``resume`` (keeps the
        fits already recorded; a data set is loaded again all the same),
        ``jobs``, ``scheduler`` and ``render_only``.
    config : Config, default=None
        Replaces :data:`QUICK` / :data:`FULL`, e.g. other data sets.

    Returns
    -------
    dict
        ``markdown``: the report; ``files``: the records, the CSV and the
        Markdown; ``records``: load records and fit records, by data set.
    """
    return run_configured(reproduction, options, config, QUICK, FULL)


def load_records(output_dir, config=QUICK):
    """The records of the last run of ``config`` written to ``output_dir``."""
    path = Path(os.fspath(output_dir)) / f"{config.stem}_records.jsonl"
    return list(Store(path).read().values())
