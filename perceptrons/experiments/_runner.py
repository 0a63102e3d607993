"""Run an experiment configuration and collect raw results.

A configuration is a list of :class:`DatasetSpec` (how to get ``X, y``) and
a list of :class:`Variant` (an estimator name plus parameters). Every
variant is cross-validated on every data set with
:func:`~perceptrons.experiments.evaluation.cross_validate`; the outcome is a
plain dict (see :func:`run_experiment`) that :mod:`._results` writes to
JSON/CSV and renders as a table or a plot without refitting.
"""

import importlib
import math
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from .evaluation import cross_validate

__all__ = ["DatasetSpec", "Variant", "environment_metadata", "make_estimator",
           "margin_from_tau", "run_experiment"]

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


def margin_from_tau(X, tau, theta_init="auto"):
    """Absolute margin for K&W's τ, which is measured in units of θ_Init.

    K&W (Sec. 2.4) update when ``y(SUM - θ) < τ θ_Init``; our estimators take
    the absolute margin. With ``theta_init="auto"`` θ_Init is the average
    ⟨x, x⟩ of the training data X (K&W Sec. 3.2), as the estimator itself
    computes it.
    """
    if theta_init == "auto":
        from ..utils.validation import mean_sq_norm

        theta_init = mean_sq_norm(X)
    return float(tau) * float(theta_init)


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
        Estimator parameters (JSON-serializable values).
    tau : float or None
        If set, the ``margin`` parameter is ``tau * θ_Init`` computed on each
        training fold (:func:`margin_from_tau`).
    description : str
        One line for the report.
    """

    name: str
    estimator: str
    params: dict = field(default_factory=dict)
    tau: float = None
    description: str = ""

    def to_dict(self):
        return {"name": self.name, "estimator": self.estimator,
                "params": dict(self.params), "tau": self.tau,
                "description": self.description}


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


def _git_info():
    here = Path(__file__).resolve().parent
    try:
        sha = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True,
            text=True, timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain",
             "--untracked-files=no"], capture_output=True, text=True,
            timeout=5, check=True).stdout.strip() != ""
        return sha or None, dirty
    except (OSError, subprocess.SubprocessError):
        return None, None


def _version(module):
    try:
        return importlib.import_module(module).__version__
    except Exception:  # noqa: BLE001 - optional metadata only
        return None


def environment_metadata():
    """Versions, git SHA and machine facts recorded with every result file."""
    import perceptrons

    sha, dirty = _git_info()
    return {
        "perceptrons_version": perceptrons.__version__,
        "numba_version": _version("numba"),
        "numpy_version": np.__version__,
        "scipy_version": _version("scipy"),
        "sklearn_version": _version("sklearn"),
        "python_version": platform.python_version(),
        "platform": platform.platform(),
        "n_cpus": os.cpu_count(),
        "git_sha": sha,
        "git_dirty": dirty,
        "created_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(sys.argv),
    }


def _describe(X, y):
    classes = np.unique(y)
    return {"n_samples": int(X.shape[0]), "n_features": int(X.shape[1]),
            "n_classes": int(classes.shape[0]),
            "majority_rate": float(np.max(np.unique(y, return_counts=True)[1])
                                   / y.shape[0])}


def run_experiment(name, datasets, variants, *, n_splits=10, random_state=0,
                   confidence=0.95, progress=None):
    """Cross-validate every variant on every data set.

    Parameters
    ----------
    name : str
        Experiment id, stored in the results.
    datasets : list of DatasetSpec
    variants : list of Variant
    n_splits : int, default=10
    random_state : int, default=0
        Seeds the folds (the same folds for every variant of a data set).
    confidence : float, default=0.95
    progress : bool or None, default=None
        Show a tqdm bar on stderr; None shows it only on a terminal.

    Returns
    -------
    dict
        ``{"schema", "schema_version", "experiment", "meta", "config",
        "results"}``; ``results`` holds one entry per (data set, variant)
        with per-fold accuracies, mean, T-interval, online mistake rates and
        timings.
    """
    from tqdm.auto import tqdm

    start = time.perf_counter()
    meta = environment_metadata()
    classes = estimator_classes()
    for v in variants:
        if v.estimator not in classes:
            raise ValueError(f"variant {v.name!r}: unknown estimator "
                             f"{v.estimator!r}")
    config = {"n_splits": n_splits, "random_state": random_state,
              "confidence": confidence, "datasets": [],
              "variants": [v.to_dict() for v in variants]}
    results = []
    total = len(datasets) * len(variants) * n_splits
    bar = tqdm(total=total, disable=(None if progress is None
                                     else not progress),
               file=sys.stderr, unit="fold", leave=False)
    try:
        for ds in datasets:
            X, y = ds.load()
            config["datasets"].append({
                "name": ds.name, "description": ds.description,
                "scale": ds.scale, "params": dict(ds.params),
                **_describe(X, y)})
            for v in variants:
                bar.set_description(f"{ds.name} / {v.name}")
                est = make_estimator(v.estimator, v.params)
                accepted = est.get_params(deep=False)
                extra = {k: val for k, val in ds.params.items()
                         if k in accepted and k not in v.params}
                est.set_params(**extra)
                fold_params = None
                if v.tau is not None:
                    theta_init = accepted.get("theta_init", "auto")

                    def fold_params(X_train, _tau=v.tau, _th=theta_init):
                        return {"margin": margin_from_tau(X_train, _tau, _th)}
                t0 = time.perf_counter()
                cv = cross_validate(est, X, y, n_splits=n_splits,
                                    random_state=random_state,
                                    confidence=confidence, scale=ds.scale,
                                    fold_params=fold_params,
                                    progress=bar.update)
                results.append({
                    "dataset": ds.name, "variant": v.name,
                    "estimator": v.estimator,
                    "params": {**dict(v.params), **extra}, "tau": v.tau,
                    **cv.to_dict(),
                    "seconds": time.perf_counter() - t0,
                })
    finally:
        bar.close()
    meta["wall_seconds"] = time.perf_counter() - start
    return {"schema": "perceptrons-experiment-results", "schema_version": 1,
            "experiment": name, "meta": meta, "config": config,
            "results": _nan_to_none(results)}


def _nan_to_none(obj):
    """Replace float NaN by None so the JSON is standard."""
    if isinstance(obj, float) and math.isnan(obj):
        return None
    if isinstance(obj, dict):
        return {k: _nan_to_none(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_nan_to_none(v) for v in obj]
    return obj
