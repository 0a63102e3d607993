"""Khardon & Wachman (2007): what to run, as one :class:`Study` per data set.

:class:`Config` names the data sets of each table; :func:`make_studies` builds
the studies of :mod:`..model_selection` (one estimator, one data set, its
columns and folds) whose tasks :func:`submit` runs through the runner's
session, all tables from one pool of tasks.
"""

import dataclasses
import zlib
from dataclasses import dataclass

from .._grid import Column
from .._svm_baselines import L1_C_GRID, L2_LAMBDA_GRID, SoftMarginSVC
from ..model_selection import Study, run_cell, study_tasks
from .beyond import beyond_sets, beyond_studies
from .paper import (FEATURES, INACTIVE, MARGINS, NOISE, STEM, T7_SETTINGS,
                    TABLE5_SIZES, TAU_GRID, paper_columns)

__all__ = ["BEYOND", "Config", "FULL", "QUICK", "SVM_COLUMNS", "make_studies",
           "submit"]


@dataclass(frozen=True)
class Config:
    """What to run.

    Parameters
    ----------
    uci : tuple of str
        UCI sets (names of :func:`~perceptrons.datasets.load_named`) for
        Tables 3 and 6.
    artificial : tuple of (f, M, N, copy)
        Artificial sets of Table 2 (10-fold, no variant).
    table4 : tuple of (f, M, N, copy)
        Artificial sets that also get the parameter search (Table 4).
    table6_artificial : tuple of (f, M, N, copy)
        Artificial sets that also get the double cross-validation.
    outer, inner : int
        Folds (K&W: 10 and 10).
    max_iter : int
        Passes (K&W: 100).
    svm : bool
        The SVM columns of Table 6 (parameter search on the UCI sets'
        outer folds).
    table5, table5_draws : tuple of int, int
        Table 5: Adult training-set sizes, and the random training sets
        drawn per size (each scored on adult.test).
    table7 : tuple of str
        Table 7's data sets (of "usps", "adult", "mnist"): their own
        train/test split, inner cross-validation on the training part.
    table7_kernel : tuple of str
        Table 7's degree-4 polynomial kernel rows (of "usps", "mnist").
    table3_extra : tuple of str
        Table 3's rows of "usps" (its own search study: 100 passes) and
        "mnist" (the search part of its Table 7 study: 1 pass either way).
    quick : bool
    beyond : bool
        The beyond-the-paper studies (:mod:`.beyond`): ALMA_2 and PA-I on
        the folds of every UCI set of ``uci`` that has a Table 6 row.
    only_beyond : bool
        Run only those studies and Table 6's Nothing and τ columns of the
        same sets (the same tasks as in the full run), and write only
        ``khardon_wachman_beyond.md`` (:data:`BEYOND`).
    """

    uci: tuple = ("breast-cancer-wisconsin", "bupa", "wdbc", "crx",
                  "promoters", "ionosphere", "wpbc", "sonar")
    artificial: tuple = tuple((f, m, n, c) for f in FEATURES
                              for m in MARGINS for n in NOISE
                              for c in (0, 1))
    table4: tuple = tuple((50, 0.05, n, c) for n in NOISE for c in (0, 1))
    table6_artificial: tuple = ((50, 0.05, 0.05, 0), (50, 0.05, 0.05, 1))
    outer: int = 10
    inner: int = 10
    max_iter: int = 100
    svm: bool = True
    table5: tuple = TABLE5_SIZES
    table5_draws: int = 10
    table7: tuple = ("usps", "adult", "mnist")
    table7_kernel: tuple = ("usps", "mnist")
    table3_extra: tuple = ("usps", "mnist")
    quick: bool = False
    beyond: bool = True
    only_beyond: bool = False


#: The paper's configuration.
FULL = Config()
#: About a minute on 2 idle cores: the two cheapest UCI sets (10 outer, 2
#: inner folds, the paper's whole grid), Table 2 on the 25 f = 50 settings
#: (one set each), no Table 4.
QUICK = Config(uci=("bupa", "wpbc"),
               artificial=tuple((50, m, n, 0) for m in MARGINS
                                for n in NOISE),
               table4=(), table6_artificial=(), table5=(), table7=(),
               table7_kernel=(), table3_extra=(), inner=2,
               quick=True)
#: Only the beyond-the-paper section (:mod:`.beyond`) on Table 6's seven UCI
#: sets, with the paper's folds (10 and 10) and passes.
BEYOND = Config(uci=("breast-cancer-wisconsin", "bupa", "wdbc", "crx",
                     "ionosphere", "wpbc", "sonar"),
                artificial=(), table4=(), table6_artificial=(), svm=False,
                table5=(), table7=(), table7_kernel=(), table3_extra=(),
                only_beyond=True)


#: Table 6's SVM columns: parameter search over K&W's grids (module
#: :mod:`._svm_baselines`).
SVM_COLUMNS = (Column("SVM L1", ({"norm": ("l1",), "C": L1_C_GRID},)),
               Column("SVM L2", ({"norm": ("l2",), "lam": L2_LAMBDA_GRID},)))


def _table3_source(name, config):
    """The study whose parameter search gives Table 3's row of ``name``."""
    return name if name == "mnist" and "mnist" in config.table7 \
        else f"{name} (search)"


def _table3_search_study(name, config):
    """Table 3 on USPS/MNIST: the best test accuracy over the search grid on
    the set's own split (no inner folds); USPS with 100 passes for the
    search (Sec. 3.2), MNIST 1; no α on MNIST."""
    study = _table7_study(name, dataclasses.replace(config, inner=0))
    passes = 100 if name == "usps" else T7_SETTINGS[name][1]
    params = ("tau", "lam") if name == "mnist" else ("tau", "lam",
                                                     "alpha_bound")
    study.estimator.set_params(max_iter=passes)
    return Study(f"{name} (search)", study.estimator,
                 paper_columns("search", params), study.X, study.y,
                 X_test=study.X_test, y_test=study.y_test, inner=0,
                 experiment=STEM)


def _kernel_name(name):
    return f"{name} (poly 4)"


def _table7_study(name, config, kernel=False):
    """Table 7: K&W's τ and λ columns (no α: "too few iterations" on Adult
    and MNIST, Sec. 3.2) on the set's own train/test split, with
    ``config.inner`` inner folds on the training part; η and passes of
    :data:`T7_SETTINGS`. Adult is scaled as for Table 5.

    ``kernel=True``: the degree-4 polynomial kernel row, τ alone (K&W:
    "results using τ with a degree 4 polynomial kernel"),
    k(x, z) = (⟨x, z⟩ + 1)⁴ on the data as given.
    """
    from ...datasets import load_named

    b = load_named(name, **({"handle_missing": "zero"} if name == "adult"
                            else {}))
    X_train, X_test = b.X_train, b.X_test
    if name == "adult":
        X_train, X_test = _adult_scaled(b)
    eta, passes = T7_SETTINGS[name]
    est = _paper_estimator(passes).set_params(eta=eta)
    columns = paper_columns("optimization", ("tau", "lam"))
    if kernel:
        est.set_params(kernel="poly", degree=4, gamma=1.0, coef0=1.0)
        columns = paper_columns("optimization", ("tau",))
        name = _kernel_name(name)
    return Study(name, est, columns, X_train, b.y_train, X_test=X_test,
                 y_test=b.y_test, inner=config.inner, experiment=STEM)


def _adult_scaled(b):
    """Adult with every feature scaled to [0, 1] by its range in adult.data
    (see :func:`_table5_studies`)."""
    from sklearn.preprocessing import MinMaxScaler

    scaler = MinMaxScaler().fit(b.X_train)
    return scaler.transform(b.X_train), scaler.transform(b.X_test)


def _table5_name(size):
    return f"adult-n{size}"


def _table5_studies(config):
    """Table 5: K&W's τ values on Adult (η = 0.4, 5 passes, Sec. 3.2),
    ``table5_draws`` stratified training sets per size, each scored on the
    whole adult.test; every draw of a size shares one study.

    Every feature is scaled to [0, 1] by its range in adult.data. K&W do
    not say how they prepared Adult's six numeric columns, but on the raw
    ones (fnlwgt up to 1.5e6 dominates every inner product and θ_Init) the
    last hypothesis scores 24 % and voted 78 % on 5,000 examples, against
    their 78 % and 84 %; scaled, 84 % and 85 %.
    """
    from ...datasets import load_named

    b = load_named("adult", handle_missing="zero")
    X_train, X_test = _adult_scaled(b)
    est = _paper_estimator(5).set_params(eta=0.4)
    tau = Column("τ", ({**{k: (v,) for k, v in INACTIVE.items()},
                        "tau": TAU_GRID},))
    return [Study(_table5_name(n), est, [tau], X_train, b.y_train,
                  X_test=X_test, y_test=b.y_test, train_size=n,
                  outer=config.table5_draws, inner=0, experiment=STEM)
            for n in config.table5]


def _svm_name(name):
    """The study of a UCI set's SVM columns (on that set's folds)."""
    return f"{name} (SVM)"


def _art_name(f, m, n, c):
    return f"kw-f{f}-M{m:g}-N{n:g}" + (f"-{c}" if c else "")


def _paper_estimator(max_iter):
    from ...models import Perceptron

    return Perceptron(eta=0.1, theta_init="auto", threshold_step="auto",
                      max_iter=max_iter, hypothesis="voted", shuffle=True)


def make_studies(config):
    """One :class:`Study` per data set, with the columns its tables need."""
    from ...datasets import load_named, make_khardon_wachman

    est = _paper_estimator(config.max_iter)
    studies = []
    beyond = beyond_sets(config)
    for name in config.uci:
        if config.only_beyond and name not in beyond:
            continue
        b = load_named(name, handle_missing="zero")
        columns = paper_columns("optimization")
        if config.only_beyond:  # the same cells (and keys) as in the full run
            columns = [c for c in columns if c.name in ("Nothing", "τ")]
        studies.append(Study(name, est, columns, b.X,
                             b.y, outer=config.outer, inner=config.inner,
                             experiment=STEM))
        if name in beyond:
            studies += beyond_studies(name, b.X, b.y, config, STEM)
        if config.svm and not config.only_beyond:
            studies.append(Study(_svm_name(name), SoftMarginSVC(),
                                 SVM_COLUMNS, b.X, b.y, outer=config.outer,
                                 inner=0, hypotheses=None, experiment=STEM,
                                 folds_of=name))
    if config.table5:
        studies += _table5_studies(config)
    studies += [_table7_study(name, config) for name in config.table7]
    studies += [_table7_study(name, config, kernel=True)
                for name in config.table7_kernel]
    studies += [_table3_search_study(name, config)
                for name in config.table3_extra
                if _table3_source(name, config) not in config.table7]
    nothing = [Column("Nothing", ({k: (v,) for k, v in INACTIVE.items()},))]
    sets = dict.fromkeys((*config.artificial, *config.table4,
                          *config.table6_artificial))
    for f, m, n, c in sets:
        name = _art_name(f, m, n, c)
        X, y = make_khardon_wachman(600, f, m, n,
                                    random_state=zlib.crc32(name.encode()))
        if (f, m, n, c) in config.table6_artificial:
            cols, inner = paper_columns("optimization"), config.inner
        elif (f, m, n, c) in config.table4:
            cols, inner = paper_columns("search"), 0
        else:
            cols, inner = nothing, 0
        studies.append(Study(name, est, cols, X, y,
                             outer=config.outer, inner=inner,
                             experiment=STEM))
    return studies



def submit(studies, session):
    """Run every study's tasks in one pool; the records, by study."""
    tasks, data = study_tasks(studies, session.store, session.resume)
    return session.run(run_cell, tasks, data)
