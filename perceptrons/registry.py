"""The one registry: public estimators and paper reproductions, by name.

Everything that needs a list of estimators or reproductions reads it here:
:mod:`perceptrons` (its lazy re-exports), :mod:`perceptrons.persistence`
(which classes a model file may name) and the command line (model names,
``perceptrons reproduce NAME``). Entries name their module as a string and
are imported only when asked for, so ``perceptrons --help`` loads neither
numba nor scikit-learn.

A new algorithm is a loop file, an estimator file and one
:class:`EstimatorEntry` below; a new reproduction is a package
``experiments/<paper>/`` whose :class:`~perceptrons.experiments.Reproduction`
the one runner executes, through its
``run(options: perceptrons.experiments.RunOptions)``, and one
:class:`ReproductionEntry`.
"""

import importlib
from dataclasses import dataclass

__all__ = ["ESTIMATORS", "REPRODUCTIONS", "EstimatorEntry",
           "ReproductionEntry", "estimator_class", "estimator_classes",
           "find_estimator", "find_reproduction"]


@dataclass(frozen=True)
class EstimatorEntry:
    """A public estimator.

    Attributes
    ----------
    name : str
        Its command-line name (``perceptrons train --model NAME``).
    class_name : str
        The class, as exported by :mod:`perceptrons`.
    module : str
        The module that defines it.
    """

    name: str
    class_name: str
    module: str

    def load(self):
        """The estimator class (imports its module)."""
        return getattr(importlib.import_module(self.module), self.class_name)


@dataclass(frozen=True)
class ReproductionEntry:
    """A paper reproduction (``perceptrons reproduce NAME``).

    Attributes
    ----------
    name : str
        Its command-line name.
    module : str
        The package whose ``run(options)`` reproduces the paper's tables
        and figures through the one runner.
    paper : str
        The paper's file in ``shared/papers``.
    summary : str
        One line for ``perceptrons reproduce --help``.
    """

    name: str
    module: str
    paper: str
    summary: str

    def load(self):
        """The reproduction's ``run(options)`` function."""
        return importlib.import_module(self.module).run


ESTIMATORS = (
    EstimatorEntry("perceptron", "Perceptron", "perceptrons.models.perceptron"),
    EstimatorEntry("kernel-perceptron", "KernelPerceptron",
                   "perceptrons.models.kernel_perceptron"),
    EstimatorEntry("ballseptron", "Ballseptron",
                   "perceptrons.models.ballseptron"),
    EstimatorEntry("pdm", "PDM", "perceptrons.models.margin"),
    EstimatorEntry("pfm", "PFM", "perceptrons.models.margin"),
    EstimatorEntry("romma", "ROMMA", "perceptrons.models.romma"),
    EstimatorEntry("mpu", "MPU", "perceptrons.models.mpu"),
    EstimatorEntry("higher-order", "HigherOrderPerceptron",
                   "perceptrons.models.higher_order"),
    EstimatorEntry("second-order", "SecondOrderPerceptron",
                   "perceptrons.models.second_order"),
    EstimatorEntry("alma", "ALMA", "perceptrons.models.alma"),
    EstimatorEntry("passive-aggressive", "PassiveAggressive",
                   "perceptrons.models.passive_aggressive"),
    EstimatorEntry("cw", "CW", "perceptrons.models.cw"),
    EstimatorEntry("arow", "AROW", "perceptrons.models.arow"),
    EstimatorEntry("scw", "SCW", "perceptrons.models.scw"),
    EstimatorEntry("narow", "NAROW", "perceptrons.models.narow"),
    EstimatorEntry("nherd", "NHERD", "perceptrons.models.nherd"),
)

REPRODUCTIONS = (
    ReproductionEntry(
        "ballseptron", "perceptrons.experiments.ballseptron",
        "ballseptron_shalev-shwartz_singer.md",
        "Shalev-Shwartz & Singer 2005, Figure 3: mistakes vs radius on USPS "
        "and MNIST; D1/D2 bounds under label and instance noise"),
    ReproductionEntry(
        "pdm", "perceptrons.experiments.pdm",
        "pdm_panagiotakopoulos_tsampouka.md",
        "Panagiotakopoulos & Tsampouka 2011, Tables 1-2: PDM, PFM, PDM-succ, "
        "ROMMA and MPU against LIBLINEAR on Adult and Web"),
    ReproductionEntry(
        "higher-order", "perceptrons.experiments.higher_order",
        "higher_order_brotto_gentile_vitale.md",
        "Brotto, Gentile & Vitale 2007, Tables 1-3 and Figure 2: HO_p(c), "
        "sparse HO2, SO and FO on USPS, MNIST, Lymphoma, artificial data"),
    ReproductionEntry(
        "khardon-wachman", "perceptrons.experiments.khardon_wachman",
        "noise_tolerant_khardon_wachman.md",
        "Khardon & Wachman 2007, Tables 2-4 and 6, Figure 4: parameter "
        "search and double cross-validation of tau, lambda, alpha"),
)


def _lookup(entries, name, what, plural):
    key = name.strip().lower().removeprefix("perceptrons.")
    for entry in entries:
        if key in (entry.name, getattr(entry, "class_name", "").lower()):
            return entry
    raise KeyError(f"unknown {what} {name!r}; available: "
                   f"{', '.join(e.name for e in entries)} ({plural})")


def find_estimator(name):
    """The entry of an estimator by CLI name or class name.

    Parameters
    ----------
    name : str
        ``"pdm"``, ``"PDM"`` or ``"perceptrons.PDM"``; case-insensitive.

    Returns
    -------
    EstimatorEntry

    Raises
    ------
    KeyError
        If no estimator has that name; the message lists the names.
    """
    return _lookup(ESTIMATORS, name, "model", "see `perceptrons models`")


def estimator_class(name):
    """The estimator class of a CLI or class name (see :func:`find_estimator`)."""
    return find_estimator(name).load()


def estimator_classes():
    """Every public estimator class, by class name, in registry order."""
    return {entry.class_name: entry.load() for entry in ESTIMATORS}


def find_reproduction(name):
    """The entry of a reproduction by name.

    Raises
    ------
    KeyError
        If no reproduction has that name; the message lists the names.
    """
    return _lookup(REPRODUCTIONS, name, "reproduction",
                   "see `perceptrons reproduce --help`")
