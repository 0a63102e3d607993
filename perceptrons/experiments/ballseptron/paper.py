"""Shalev-Shwartz & Singer (2005), Figure 3: the grids, kernel and sizes."""

from dataclasses import dataclass, field

__all__ = ["Config", "FULL", "GAMMA", "INSTANCE_NOISE", "KERNEL_PARAMS",
           "LABEL_NOISE", "QUICK", "RADII"]

STEM = "reproduce_ballseptron"

#: Margin of the clean unit-circle data and γ of the bounds (Sec. 5).
GAMMA = 0.15
#: Label-noise rates η of the bottom-left panel.
LABEL_NOISE = tuple(round(0.01 * i, 2) for i in range(11))
#: Instance-noise standard deviations σ of the bottom-right panel.
INSTANCE_NOISE = tuple(round(0.03 * i, 2) for i in range(11))
#: Radii of the top panels (full run).
RADII = (0.0, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.4,
         0.5, 0.75, 1.0)
QUICK_RADII = (0.0, 0.1, 0.25, 0.5, 1.0)
#: Kernel of Sec. 5: (gamma x·x' + coef0) ** degree.
KERNEL_PARAMS = {"kernel": "poly", "degree": 5, "coef0": 0.5, "gamma": 1.0}
PAPER_SIZES = {"usps": 7291, "mnist": 60000}


@dataclass(frozen=True)
class Config:
    """What to run: the grids, seeds and data sizes.

    Parameters
    ----------
    n_samples : int
        Points of the unit-circle data (the paper: 10,000).
    seeds : tuple of int
        Seeds of the unit-circle data.
    label_noise, instance_noise : tuple of float
        η and σ grids.
    radii : tuple of float
        r grid of the top panels.
    kernel_datasets : dict of str to int or None
        Data set name to the number of training examples used (None = all);
        ``{}`` skips the top panels. All of MNIST takes about 3.5 s a pass
        at r = 0 and 17 s at r = 0.1 (BENCHMARKS.md).
    quick : bool
        Shown in the report.
    """

    n_samples: int = 10000
    seeds: tuple = tuple(range(10))
    label_noise: tuple = LABEL_NOISE
    instance_noise: tuple = INSTANCE_NOISE
    radii: tuple = RADII
    kernel_datasets: dict = field(
        default_factory=lambda: {"usps": None, "mnist": None})
    quick: bool = False


#: The paper's configuration.
FULL = Config()
#: Under a minute: 2,000 points, 3 seeds, 1,000 USPS examples, 5 radii.
QUICK = Config(n_samples=2000, seeds=(0, 1, 2), radii=QUICK_RADII,
               kernel_datasets={"usps": 1000}, quick=True)

