"""Cross-validate a list of variants on a list of data sets (the demo's tasks).

A configuration is a list of :class:`DatasetSpec` (how to get ``X, y``) and a
list of :class:`Variant` (an estimator name plus parameters, K&W's τ among
them as the estimator's ``tau``). :func:`experiment_tasks` makes one
:func:`~.evaluation.run_fold` task per (data set, variant, fold), the same
folds for every variant of a data set; :func:`comparison_tasks` those of
every data set, which the runner runs through the store, so ``resume``
skips the folds already done. :mod:`._results` summarizes and renders the
records.
"""

import importlib
from dataclasses import dataclass, field

import numpy as np

from .evaluation import fold_tasks

__all__ = ["DatasetSpec", "Variant", "comparison_tasks",
           "estimator_classes", "experiment_tasks", "make_estimator"]

#: Estimators that are not ours but may appear in a comparison.
REFERENCE_ESTIMATORS = {
    "sklearn.linear_model.Perceptron": ("sklearn.linear_model", "Perceptron"),
}


def estimator_classes():
    """Estimator classes usable in a configuration, by name.

    Returns
    -------
    dict of str to type
        The public perceptrons estimators (``"perceptrons.Perceptron"``,
        ...) and :data:`REFERENCE_ESTIMATORS`.
    """
    from ..persistence import estimator_registry

    out = dict(estimator_registry())
    for name, (module, attr) in REFERENCE_ESTIMATORS.items():
        out[name] = getattr(importlib.import_module(module), attr)
    return out


def make_estimator(name, params=None):
    """Instantiate the estimator called ``name`` with ``params``.

    Raises
    ------
    ValueError
        If the name is unknown or a parameter is not accepted.
    """
    classes = estimator_classes()
    if name not in classes:
        raise ValueError(f"unknown estimator {name!r}; known: "
                         f"{', '.join(sorted(classes))}")
    est = classes[name]()
    params = dict(params or {})
    unknown = set(params) - set(est.get_params(deep=False))
    if unknown:
        raise ValueError(f"{name} has no parameter(s) {sorted(unknown)}")
    return est.set_params(**params)


@dataclass(frozen=True)
class Variant:
    """One algorithm configuration in a comparison.

    Parameters
    ----------
    name : str
        Row label in tables and plots.
    estimator : str
        Key of :func:`estimator_classes`, e.g. ``"perceptrons.Perceptron"``.
    params : dict
        Estimator parameters (JSON-serializable values), e.g. ``{"tau":
        0.5}`` for K&W's margin in units of θ_Init.
    description : str
        One line for the report.
    """

    name: str
    estimator: str
    params: dict = field(default_factory=dict)
    description: str = ""


@dataclass(frozen=True)
class DatasetSpec:
    """One data set of a comparison.

    Parameters
    ----------
    name : str
        Column label.
    load : callable
        ``load() -> (X, y)``.
    scale : bool
        Standardize features inside each training fold.
    params : dict
        Extra estimator parameters for this data set (e.g. ``max_iter``),
        applied to every variant whose estimator accepts them.
    description : str
    """

    name: str
    load: object
    scale: bool = False
    params: dict = field(default_factory=dict)
    description: str = ""


def describe_data(X, y):
    """Size, classes and majority rate of a data set (kept in its tasks)."""
    _, counts = np.unique(y, return_counts=True)
    return {"n_samples": int(X.shape[0]), "n_features": int(X.shape[1]),
            "n_classes": int(counts.shape[0]),
            "majority_rate": float(np.max(counts) / y.shape[0])}


def _variant_estimator(variant, dataset):
    est = make_estimator(variant.estimator, variant.params)
    accepted = est.get_params(deep=False)
    extra = {k: v for k, v in dataset.params.items()
             if k in accepted and k not in variant.params}
    return est.set_params(**extra)


def experiment_tasks(name, dataset, X, y, variants, *, n_splits=10,
                     random_state=0):
    """The fold tasks of every variant on one data set (the same folds).

    Each task's params name the variant and its estimator and hold the data
    set's size (:func:`describe_data`), so a report needs only the records.
    """
    info = describe_data(X, y)
    tasks = []
    for v in variants:
        tasks += fold_tasks(
            _variant_estimator(v, dataset), X, y, n_splits=n_splits,
            random_state=random_state, scale=dataset.scale, experiment=name,
            dataset=dataset.name, params={"variant": v.name, "data": info})
    return tasks


def comparison_tasks(name, datasets, variants, *, n_splits=10,
                     random_state=0):
    """The fold tasks of every variant on every data set.

    Parameters
    ----------
    name : str
        Experiment id, in every task.
    datasets : list of DatasetSpec
    variants : list of Variant
    n_splits : int, default=10
    random_state : int, default=0
        Seeds the folds (the same folds for every variant of a data set).

    Returns
    -------
    list of Task
        One :func:`~.evaluation.run_fold` task per (data set, variant,
        fold), in that order.
    """
    classes = estimator_classes()
    for v in variants:
        if v.estimator not in classes:
            raise ValueError(f"variant {v.name!r}: unknown estimator "
                             f"{v.estimator!r}")
    tasks = []
    for ds in datasets:
        X, y = ds.load()
        tasks += experiment_tasks(name, ds, X, y, variants,
                                  n_splits=n_splits, random_state=random_state)
    return tasks
