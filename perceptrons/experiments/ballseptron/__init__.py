r"""Figure 3 of Shalev-Shwartz & Singer (2005), the Ballseptron, reproduced.

``perceptrons reproduce ballseptron [--quick] [--jobs N] [--scheduler ADDR]
[--resume]`` runs :func:`run` through the one runner
(:func:`~perceptrons.experiments.runner.run_reproduction`). The package:
:mod:`.paper` (grids, kernel, configurations), :mod:`.tasks` (tasks and
workers), :mod:`.view`, :mod:`.report` and :mod:`.plots`.

Bottom panels (Sec. 5, second experiment)
-----------------------------------------
T = 10,000 instances on the unit circle of R², labelled by a random unit
vector u with margin γ = 0.15 (:func:`~perceptrons.datasets.make_unit_circle`),
then either labels flipped with probability η, or Gaussian noise
N(0, σ² I) added to the instances. For every noise level the Perceptron
(``Ballseptron(radius=0)``, one online pass in the generated order) is run
and compared with

* the D2 bound, Eq. (3) (Freund & Schapire; Thm. 1 at r = 0),
  ((R + D2)/γ)², and
* the D1 bound, Thm. 2 at r = 0, ((R + √(γ D1))/γ)²,

both with γ = 0.15 and the *true* u of the clean data, R = max_t ‖x_t‖ of the
noisy sequence. Everything is divided by T, as in the figure, and averaged
over several seeds (each seed draws a new u and a new clean sample; within a
seed all noise levels perturb the same clean sample).

Top panels (Sec. 5, first experiment)
-------------------------------------
Online mistake rate ε/T of the multiclass Ballseptron (Sec. 4) against r on
USPS (7291 training examples) and MNIST (60,000), fifth-degree polynomial
kernel with bias ½, K(x, x') = (x·x' + ½)⁵, the instances shifted to zero
mean and scaled to average norm 1, one online pass:
``Ballseptron(kernel="poly", degree=5, coef0=0.5, gamma=1.0)``.

The text copy of the paper has Fig. 3's caption but not its axes, so the
radius grid is ours (:data:`RADII`): dense up to 0.3, where the mistake
rate is lowest, then up to 1, ~0.36 of the average feature-space norm
‖φ(x)‖ = (1 + ½)^{5/2} ≈ 2.76, far enough for the "excessively large r"
regime the paper describes.

Tasks and files (in ``output_dir``)
-----------------------------------
Each (panel, noise level, seed) and each (data set, radius) is a task of
:mod:`.store`, and so is loading each top-panel data set (its record holds
the sizes, or why it could not be loaded). The records go to
``reproduce_ballseptron_records.jsonl`` as they finish (``resume`` keeps
them); everything else is rendered from the records:
``reproduce_ballseptron.md`` (the report),
``reproduce_ballseptron_noise.csv`` and ``reproduce_ballseptron_radius.csv``
"""

import os
from pathlib import Path

from ..runner import ConfigReproduction, run_configured
from ..store import Store
from .paper import (FULL, GAMMA, INSTANCE_NOISE, KERNEL_PARAMS, LABEL_NOISE,
                    QUICK, RADII, STEM, Config)
from .plots import plot_bottom, plot_top
from .report import render_markdown, write_outputs
from .tasks import count, noise_worker, radius_worker, submit

__all__ = ["Config", "FULL", "GAMMA", "INSTANCE_NOISE",
           "KERNEL_PARAMS", "LABEL_NOISE", "QUICK", "RADII", "load_records",
           "noise_worker", "plot_bottom", "plot_top", "radius_worker",
           "render_markdown", "reproduction", "run", "write_outputs"]


def reproduction(config):
    """Figure 3 of ``config``, for the runner."""
    return ConfigReproduction(config, STEM, submit, count, write_outputs)


def run(options, config=None):
    """Reproduce Fig. 3 and write the records, report and plots.

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
        ``markdown`` (the report), ``files`` (list of paths written) and
        ``records`` (as stored).
    """
    return run_configured(reproduction, options, config, QUICK, FULL)


def load_records(output_dir):
    """The records of the last run written to ``output_dir``."""
    path = Path(os.fspath(output_dir)) / f"{STEM}_records.jsonl"
    return list(Store(path).read().values())
