"""Brotto, Gentile & Vitale (NIPS 2007): the paper's numbers, grids and
readings, and the run's :class:`Config`."""

from dataclasses import dataclass, replace

__all__ = ["ALMA_SETTINGS", "Config", "FULL", "HO_C", "MNIST",
           "OTHER_READINGS", "OcrSpec",
           "PAPER_TABLE1", "PAPER_TABLE2", "PAPER_TABLE3", "QUICK",
           "READINGS", "USPS"]

STEM = "higher_order"
PAPER = ("Brotto, Gentile & Vitale, On Higher-Order Perceptron Algorithms "
         "(NIPS 2007), Tables 1-3 and Figure 2")

#: The c of ρ_k = c/k tried for every p (Sec. 4, "Algorithms").
PAPER_C = (0.0, 0.2, 0.4, 0.6, 0.8)
#: The c > 0 of the HO₂ and sparse HO₂ columns of Table 3.
HO_C = (0.2, 0.4, 0.6, 0.8)
#: p of the sparse learning tasks (Table 1, Figure 2).
PAPER_P = (2, 4, 7, 10)

#: ALMA_p(α; B, C) beside HO_p(c) on Figure 2's sets (not in the paper):
#: the estimator's defaults α = 0.9, B = 1/α (None), C = √2; Figure 1's
#: last hypothesis and no bias, as Figure 2's HO_p(c) runs.
ALMA_SETTINGS = {"alpha": 0.9, "B": None, "C": 2 ** 0.5,
                 "hypothesis": "last", "fit_intercept": False}

#: Table 3: (data set, kernel) -> algorithm -> (train corrections, test %,
#: matrix updates or None); best test setting, as the paper reports.
PAPER_TABLE3 = {
    ("USPS", "rbf"): {"FO": (1385, 6.53, None), "HO2": (945, 4.76, None),
                      "sparse HO2": (965, 5.13, 440),
                      "SO": (1003, 5.05, None)},
    ("USPS", "poly"): {"FO": (1609, 7.37, None), "HO2": (1090, 5.71, None),
                       "sparse HO2": (1081, 5.52, 551),
                       "SO": (1054, 5.53, None)},
    ("MNIST", "rbf"): {"FO": (5834, 2.10, None), "HO2": (5351, 1.79, None),
                       "sparse HO2": (5363, 1.81, 2596),
                       "SO": (5684, 1.82, None)},
    ("MNIST", "poly"): {"FO": (8148, 3.04, None), "HO2": (6404, 2.27, None),
                        "sparse HO2": (6476, 2.28, 3311),
                        "SO": (6440, 2.03, None)},
}
#: Table 1: data set -> column -> (updates over 5 epochs, test %).
PAPER_TABLE1 = {
    "Breast": {"FO": (45.2, 23.4), "HO2": (21.7, 16.4), "HO4": (24.5, 13.3),
               "HO7(0)": (47.4, 15.7), "HO7": (24.5, 12.0),
               "HO10": (32.4, 13.5), "SO": (29.6, 15.0)},
    "Lymphoma": {"FO": (22.1, 11.8), "HO2": (19.6, 10.0),
                 "HO4": (18.9, 10.0), "HO7(0)": (23.0, 11.5),
                 "HO7": (20.0, 11.5), "HO10": (23.1, 11.9),
                 "SO": (19.3, 9.6)},
}
#: Table 2 (RCV1, not run): data set -> algorithm -> (train, test %).
PAPER_TABLE2 = {
    "RCV1_70": {"FO": (993, 7.20), "HO2": (941, 6.83), "SO": (880, 6.95)},
    "RCV1_101": {"FO": (673, 6.39), "HO2": (665, 5.81), "SO": (677, 5.48)},
    "RCV1_4": {"FO": (803, 6.14), "HO2": (783, 5.94), "SO": (819, 6.05)},
    "RCV1_59": {"FO": (767, 6.45), "HO2": (762, 6.04), "SO": (760, 6.84)},
}
TABLE3_ALGORITHMS = ("FO", "HO2", "sparse HO2", "SO")
KERNEL_NAMES = {"rbf": "Gaussian", "poly": "polynomial"}
#: The polynomial kernel (x·x' + 1)^d; the Gaussian one exp(-γ‖x − x'‖²).
POLY = {"kernel": "poly", "gamma": 1.0, "coef0": 1.0}

#: How the paper is read; the report lists these.
READINGS = (
    "ρ_k = c/k, k counting the mistakes of each binary problem (each "
    "one-vs-rest problem keeps its own B_k, v_k and k), as "
    "`HigherOrderPerceptron` implements Fig. 1; the sparse version sets "
    "ρ_k = c/k only when y v_{k−1}·x ≥ 0 (Sec. 4) and counts the matrix "
    "updates.",
    "Normalisation: instances normalised as the paper assumes "
    "(`normalize=True`): Euclidean norm for p = 2, p-norm for p > 2 in the "
    "primal tasks; in feature space, k(x,x')/√(k(x,x)k(x',x')), with "
    "kernels. SO gets `normalize=True` too, so it sees the same instances as "
    "HO₂ (its default is False).",
    "Order of examples: USPS and MNIST in file order, one epoch, no "
    "shuffling; a cross-validation fold keeps its rows in file order. "
    "Lymphoma: each split draws one random permutation, its first 60 rows "
    "train in that order in all 5 epochs, the other 36 test. Artificial "
    "sets: generated order, the same in every epoch.",
    "One-vs-rest: the 10 problems run in one pass; the predicted class is "
    "the one with the largest raw margin (`predict`, i.e. argmax of "
    "`decision_function`, ties to the lowest class), margins not rescaled "
    "per problem.",
    "\"Train\" = training corrections = `n_mistakes_` summed over the "
    "one-vs-rest problems (Table 3) or over the 5 epochs (Table 1); "
    "\"matrix updates\" = `n_matrix_updates_` of the sparse version.",
    "Data scaling: USPS pixels in [0, 1] as stored (usps.npz), MNIST pixels "
    "/ 255; Gaussian kernel exp(−γ‖x − x'‖²), polynomial kernel "
    "(x·x' + 1)^d; Lymphoma's values (−2, 0, 2) as stored.",
)

#: Other readings run on USPS (Config.readings): name -> (kernel family,
#: what changes). Each is a whole grid of that kernel family, fit on the
#: whole training set and scored on the test set.
OTHER_READINGS = {
    "shuffled": ("rbf", "the training rows in a random order (one seeded "
                 "permutation per seed) instead of file order"),
    "smoothed": ("rbf", "every 16×16 image smoothed by a Gaussian of "
                 "width σ = 0.75 pixel before training and testing, the "
                 "USPS preprocessing of the SVM experiments the paper says "
                 "it follows (Cortes & Vapnik 1995, as we recall it: that "
                 "paper is not in the library)"),
    "unnormalised": ("poly", "the polynomial kernel (x·x' + 1)^d on the "
                     "raw pixels (`normalize=False`) instead of normalised "
                     "in feature space (the Gaussian kernel has k(x, x) = 1: "
                     "normalising changes nothing there); FO and SO only: "
                     "HO₂(c > 0) needs k(x, x) = 1, as a factor I − ρxxᵀ "
                     "with ρ‖x‖² > 2 expands B instead of shrinking it (it "
                     "overflows in one pass)"),
}
#: Width of the "smoothed" reading's Gaussian, in pixels.
SMOOTH_SIGMA = 0.75


@dataclass(frozen=True)
class OcrSpec:
    """One OCR data set of Table 3 and its grid.

    Parameters
    ----------
    name : str
        The paper's name, ``"USPS"`` or ``"MNIST"``.
    data : str
        The :func:`~perceptrons.datasets.load_named` name.
    n_train, n_test : int or None
        Use a seeded random subset of that many rows (kept in file order);
        None: all rows.
    gammas : tuple of float
        γ of the Gaussian kernel.
    degrees : tuple of int
        d of the polynomial kernel (x·x' + 1)^d.
    so_a : tuple of float
        a of SO.
    scale : float
        The pixels are divided by it.
    load : callable or None
        ``load() -> (X_train, y_train, X_test, y_test)``, instead of
        ``load_named(data)`` (tests).
    """

    name: str
    data: str
    n_train: object = None
    n_test: object = None
    gammas: tuple = ()
    degrees: tuple = ()
    so_a: tuple = (0.1, 0.3, 1.0, 3.0, 10.0)
    scale: float = 1.0
    load: object = None

    def kernels(self):
        """The kernel settings of the grid: (kernel name, params) pairs."""
        return ([("rbf", {"kernel": "rbf", "gamma": float(g)})
                 for g in self.gammas]
                + [("poly", {**POLY, "degree": int(d)})
                   for d in self.degrees])


USPS = OcrSpec("USPS", "usps", gammas=(0.01, 0.02, 0.04, 0.08, 0.16),
               degrees=(2, 3, 4, 5, 6))
MNIST = OcrSpec("MNIST", "mnist", gammas=(0.01, 0.02, 0.04, 0.08),
                degrees=(3, 4, 5, 6), so_a=(0.3, 1.0, 3.0), scale=255.0)


@dataclass(frozen=True)
class Config:
    """What to run.

    Parameters
    ----------
    ocr : tuple of OcrSpec
        Table 3's data sets; ``()`` skips Table 3.
    ho_c : tuple of float
        c of the HO₂ and sparse HO₂ columns of Table 3 (FO is c = 0).
    n_folds : int
        Folds of the cross-validation on the training set.
    art_seeds : tuple of int
        Seeds of the artificial sets (one data set per seed and η: the
        generator's ``random_state`` is ``seed + round(1000 η)``).
    art_noise : tuple of float
        η of the artificial sets; ``()`` skips Figure 2.
    art_epochs : int
    art_n_train, art_n_test : int
    ps, cs : tuple
        p and c of Figure 2 and Table 1.
    alma_ps : tuple
        p of ALMA_p run on Figure 2's sets beside HO_p(c) (not in the
        paper; :data:`ALMA_SETTINGS`); ``()`` skips it.
    lymphoma_splits : int
        Random 60/36 splits; 0 skips Table 1.
    lymphoma_block : int
        Splits per task.
    lymphoma_epochs : int
    lymphoma_a : tuple of float
        a of SO on Lymphoma.
    readings : tuple of str
        Other readings of the paper, run on USPS beside Table 3 (best
        setting on the test set, as the paper reports): of
        :data:`OTHER_READINGS`. The OvR combination by unit-norm margins
        needs no fit of its own: every test fit records it.
    reading_seeds : tuple of int
        Seeds of the ``"shuffled"`` reading.
    seed : int
        Seeds the subsets, folds and splits.
    quick : bool
        Names the files ``higher_order_quick*`` and says so in the report.
    """

    ocr: tuple = (USPS, MNIST)
    ho_c: tuple = HO_C
    n_folds: int = 5
    art_seeds: tuple = (0, 1, 2)
    art_noise: tuple = (0.0, 0.1)
    art_epochs: int = 20
    art_n_train: int = 1000
    art_n_test: int = 1000
    ps: tuple = PAPER_P
    cs: tuple = PAPER_C
    alma_ps: tuple = PAPER_P
    lymphoma_splits: int = 1000
    lymphoma_block: int = 100
    lymphoma_epochs: int = 5
    lymphoma_a: tuple = (0.1, 0.3, 1.0, 3.0, 10.0)
    readings: tuple = ("shuffled", "smoothed", "unnormalised")
    reading_seeds: tuple = (0, 1, 2)
    seed: int = 0
    quick: bool = False

    @property
    def stem(self):
        return f"{STEM}_quick" if self.quick else STEM


#: The paper's configuration (hours: MNIST dominates, see the report).
FULL = Config()
#: About a minute: 1500 USPS training rows, a 2 × 2 kernel grid, 2 epochs
#: of the artificial sets, 10 Lymphoma splits; no MNIST.
QUICK = Config(
    ocr=(replace(USPS, n_train=1500, n_test=600, gammas=(0.02, 0.04),
                 degrees=(3, 4), so_a=(0.3, 1.0)),),
    art_seeds=(0,), art_epochs=2, lymphoma_splits=10, lymphoma_block=5,
    lymphoma_a=(0.3, 1.0, 3.0), reading_seeds=(0,), quick=True)


LYMPHOMA_FILE = "gene/lymphoma_scikit-feature.mat"
LYMPHOMA_POSITIVE = 1
LYMPHOMA_TRAIN = 60
