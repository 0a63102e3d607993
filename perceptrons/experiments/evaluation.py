r"""k-fold cross-validation with Khardon & Wachman's T-confidence interval.

Khardon & Wachman (2007) report "average accuracy across the outer
cross-validation as well as a 95% T-confidence interval around these, as
suggested in Mitchell (1997)"; their footnote 5 gives the interval exactly:

.. math::

    \bar y \pm t_{k-1,\,0.975}
        \sqrt{\frac{1}{k(k-1)} \sum_{i=1}^{k} (y_i - \bar y)^2}

where :math:`y_i` is the accuracy of fold i and k the number of folds. This
is :math:`t_{k-1,0.975}\, s / \sqrt{k}` with the unbiased sample standard
deviation s, or :math:`t_{k-1,0.975}\, s_{ML} / \sqrt{k-1}` with the
maximum-likelihood one (for k = 10 the half-width is 2.262/3 = 0.754 times
:math:`s_{ML}`, as the footnote notes). :func:`t_confidence_interval`
implements that formula; :func:`cross_validate` applies it to stratified,
shuffled folds and also records each fold's *online* mistake rate: the
mistakes the estimator made while training, ``n_mistakes_ / t_``.

:func:`cross_validate` is three steps that an experiment can also take
apart: :func:`fold_tasks` makes one :class:`~.store.Task` per fold,
:func:`run_fold` (module-level, picklable) turns one into a record, and
:func:`summarize_folds` turns the records into a :class:`CVResult`. The
serial path is ``map(run_fold, tasks)``; :func:`~.store.run_tasks` runs the
same tasks through a store and any ``map``.

References
----------
.. [1] R. Khardon and G. Wachman. Noise tolerant variants of the perceptron
   algorithm. JMLR 8:227-248, 2007. Sec. 3.4 and footnote 5.
.. [2] T. Mitchell. Machine Learning. McGraw-Hill, 1997. Chapter 5.
"""

import hashlib
import math
import time
from dataclasses import asdict, dataclass, field
from typing import NamedTuple, Optional

import numpy as np
import scipy.sparse as sp

from .store import Task, key_params, make_record, run_tasks

__all__ = ["CVResult", "FoldInputs", "cross_validate", "fold_tasks",
           "online_mistake_rate", "run_fold", "summarize_folds",
           "t_confidence_interval"]


def t_confidence_interval(values, confidence=0.95):
    r"""Mean and T-confidence interval of per-fold scores (K&W footnote 5).

    Parameters
    ----------
    values : array-like of shape (k,)
        One score per fold (e.g. accuracies).
    confidence : float, default=0.95
        Two-sided coverage; K&W use 0.95, i.e. the quantile
        :math:`t_{k-1, 0.975}`.

    Returns
    -------
    mean : float
    half_width : float
        :math:`t_{k-1,(1+c)/2} \sqrt{\sum_i (y_i - \bar y)^2 / (k(k-1))}`;
        NaN when k < 2.

    Examples
    --------
    >>> mean, half = t_confidence_interval([0.9, 0.8, 1.0])
    >>> round(mean, 3), round(half, 3)
    (0.9, 0.248)
    """
    from scipy.stats import t as student_t

    y = np.asarray(values, dtype=np.float64).ravel()
    k = y.shape[0]
    if k == 0:
        raise ValueError("need at least one value")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    mean = float(y.mean())
    if k < 2:
        return mean, math.nan
    quantile = float(student_t.ppf((1 + confidence) / 2, k - 1))
    half = quantile * math.sqrt(float(np.sum((y - mean) ** 2)) / (k * (k - 1)))
    return mean, half


def online_mistake_rate(estimator):
    """``n_mistakes_ / t_`` of a fitted perceptrons estimator, else NaN.

    The fraction of training examples (counted over every epoch) whose
    label the estimator predicted wrongly *before* learning from them.
    Estimators that do not count their mistakes (e.g. scikit-learn's
    ``Perceptron``) give NaN.
    """
    n_mistakes = getattr(estimator, "n_mistakes_", None)
    t = getattr(estimator, "t_", None)
    if n_mistakes is None or not t or not hasattr(estimator, "n_updates_"):
        return math.nan
    return float(n_mistakes) / float(t)


@dataclass
class CVResult:
    """Outcome of :func:`cross_validate`.

    Attributes
    ----------
    accuracies : list of float
        Test accuracy of each fold.
    mean : float
        Mean accuracy.
    ci_half_width : float
        Half-width of the T-confidence interval (K&W footnote 5).
    ci_low, ci_high : float
        ``mean -/+ ci_half_width``.
    confidence : float
    mistake_rates : list of float
        Online mistake rate ``n_mistakes_ / t_`` of each fold's training
        run (NaN for estimators that do not count mistakes).
    mean_mistake_rate : float
    n_updates : list of int or None
        ``n_updates_`` of each fold's training run, when available.
    fit_seconds : list of float
        Wall time of each fold's fit and prediction.
    n_splits, random_state
        The folds used.
    """

    accuracies: list
    mean: float
    ci_half_width: float
    ci_low: float
    ci_high: float
    confidence: float
    mistake_rates: list
    mean_mistake_rate: float
    n_updates: list = field(default_factory=list)
    fit_seconds: list = field(default_factory=list)
    n_splits: int = 10
    random_state: object = None

    def to_dict(self):
        """Plain-Python dict (JSON-ready; NaN stays a float)."""
        return asdict(self)

    def __str__(self):
        rate = ("n/a" if math.isnan(self.mean_mistake_rate)
                else f"{100 * self.mean_mistake_rate:.2f}%")
        return (f"accuracy {100 * self.mean:.2f}% ± "
                f"{100 * self.ci_half_width:.2f} "
                f"({100 * self.confidence:g}% T-interval over "
                f"{self.n_splits} folds); online mistake rate {rate}")




class FoldInputs(NamedTuple):
    """What :func:`run_fold` needs besides the task's key: data and model."""

    estimator: object
    X: object
    y: np.ndarray
    train: np.ndarray
    test: np.ndarray
    sample_weight: Optional[np.ndarray] = None


def _estimator_name(estimator):
    cls = type(estimator)
    module = cls.__module__
    if module.startswith("perceptrons."):
        module = "perceptrons"
    elif module.startswith("sklearn."):
        module = ".".join(module.split(".")[:2])
    return f"{module}.{cls.__name__}"


def _check_inputs(X, y, n_splits):
    y = np.asarray(y)
    X = X.tocsr() if sp.issparse(X) else np.asarray(X)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} "
                         "labels")
    if isinstance(n_splits, bool) or int(n_splits) != n_splits or n_splits < 2:
        raise ValueError(f"n_splits must be an integer >= 2, got {n_splits!r}")
    return X, y


def fold_tasks(estimator, X, y, *, n_splits=10, random_state=0, scale=False,
               experiment="cross_validate", dataset="data", params=None,
               sample_weight=None):
    """One task per fold of a stratified, shuffled k-fold split.

    Parameters
    ----------
    estimator : estimator
        Cloned in each fold; its class and ``get_params(deep=False)`` go
        into the tasks' params (and so into their keys).
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    n_splits : int, default=10
    random_state : int, default=0
        Seeds :class:`~sklearn.model_selection.StratifiedKFold`.
    scale : bool, default=False
        Standardize with the training fold's statistics (see
        :func:`cross_validate`).
    experiment, dataset : str
        The tasks' names (see :class:`~.store.Task`).
    params : dict, default=None
        More params for the key (e.g. a variant's name).
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights: each fold trains with its training rows' weights and
        scores the weighted accuracy of its test rows (a digest of the
        weights joins the tasks' keys).

    Returns
    -------
    list of Task
        ``fold`` 0..k-1; ``inputs`` a :class:`FoldInputs`.
    """
    from sklearn.model_selection import KFold, StratifiedKFold

    X, y = _check_inputs(X, y, n_splits)
    weights_key = None
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight, dtype=np.float64)
        if sample_weight.shape != y.shape:
            raise ValueError(f"sample_weight has shape {sample_weight.shape}"
                             f"; expected {y.shape}")
        weights_key = hashlib.sha1(sample_weight.tobytes()).hexdigest()[:16]
    # A multi-label y (a 2-D indicator) has no one class to stratify by.
    folds = (KFold if y.ndim == 2 else StratifiedKFold)(
        n_splits=int(n_splits), shuffle=True, random_state=random_state)
    common = {**(params or {}), "estimator": _estimator_name(estimator),
              "estimator_params": key_params(estimator),
              "n_splits": int(n_splits), "random_state": random_state,
              "scale": bool(scale)}
    if weights_key is not None:
        common["sample_weight"] = weights_key
    return [Task(experiment, dataset, i, common,
                 FoldInputs(estimator, X, y, train, test, sample_weight))
            for i, (train, test) in enumerate(
                folds.split(np.zeros((y.shape[0], 1)), y))]


def run_fold(task):
    """Fit a clone on the task's training fold; test it on its test fold.

    Parameters
    ----------
    task : Task
        From :func:`fold_tasks`.

    Returns
    -------
    dict
        The record (:func:`~.store.make_record`); ``result`` holds
        ``accuracy``, ``mistake_rate`` (online, ``n_mistakes_ / t_``; None
        for estimators that do not count mistakes) and ``n_updates``.
    """
    from sklearn.base import clone
    from sklearn.preprocessing import StandardScaler

    estimator, X, y, train, test, weights = task.inputs
    start = time.perf_counter()
    X_train, X_test = X[train], X[test]
    if task.params["scale"]:
        scaler = StandardScaler(with_mean=not sp.issparse(X))
        X_train = scaler.fit_transform(X_train)
        X_test = scaler.transform(X_test)
    if weights is None:
        est = clone(estimator).fit(X_train, y[train])
        right = est.predict(X_test) == y[test]
        accuracy = float(np.mean(right))
    else:
        est = clone(estimator).fit(X_train, y[train],
                                   sample_weight=weights[train])
        right = est.predict(X_test) == y[test]
        accuracy = float(np.average(right, weights=weights[test]))
    n_up = getattr(est, "n_updates_", None)
    rate = online_mistake_rate(est)
    if y.ndim == 2:
        # A multi-label y: accuracy and mistakes per label.
        rate /= y.shape[1]
    result = {"accuracy": accuracy,
              "mistake_rate": rate,
              "n_updates": None if n_up is None else int(n_up)}
    return make_record(task, result, seconds=time.perf_counter() - start)


def summarize_folds(records, confidence=0.95):
    """The :class:`CVResult` of one estimator's fold records.

    Parameters
    ----------
    records : list of dict
        The records of :func:`run_fold`, in fold order.
    confidence : float, default=0.95

    Returns
    -------
    CVResult
    """
    results = [r["result"] for r in records]
    accuracies = [r["accuracy"] for r in results]
    rates = [math.nan if r["mistake_rate"] is None else r["mistake_rate"]
             for r in results]
    mean, half = t_confidence_interval(accuracies, confidence)
    rate_arr = np.asarray(rates, dtype=np.float64)
    mean_rate = (math.nan if np.isnan(rate_arr).all()
                 else float(np.nanmean(rate_arr)))
    params = records[0]["task"]["params"]
    return CVResult(
        accuracies=accuracies, mean=mean, ci_half_width=half,
        ci_low=mean - half, ci_high=mean + half, confidence=confidence,
        mistake_rates=rates, mean_mistake_rate=mean_rate,
        n_updates=[r["n_updates"] for r in results],
        fit_seconds=[r["seconds"] for r in records],
        n_splits=params["n_splits"], random_state=params["random_state"])


def cross_validate(estimator, X, y, *, n_splits=10, random_state=0,
                   confidence=0.95, scale=False, progress=None, mapper=map,
                   sample_weight=None):
    """Stratified, shuffled k-fold cross-validation of one estimator.

    Parameters
    ----------
    estimator : estimator
        Any classifier with ``fit``/``predict`` (cloned for each fold). For
        perceptrons estimators the online mistake rate of each fold's
        training run is recorded too. K&W's margin τ in units of θ_Init is
        the estimator's ``tau``, resolved on each training fold.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,) or (n_samples, n_labels)
        Labels, or a multi-label 0/1 indicator: its folds are shuffled
        k-fold (:class:`~sklearn.model_selection.KFold`, with no class to
        stratify by), and the accuracy and the online mistake rate are per
        label (Hamming).
    n_splits : int, default=10
        Folds k (K&W use 10).
    random_state : int, default=0
        Seeds the fold assignment
        (:class:`~sklearn.model_selection.StratifiedKFold` with
        ``shuffle=True``); the estimator's own ``random_state`` is kept.
    confidence : float, default=0.95
        Coverage of the T-interval.
    scale : bool, default=False
        Standardize each feature with statistics of the training fold only
        (centering is skipped for sparse X).
    progress : callable, default=None
        Called with no argument after each fold (e.g. ``tqdm.update``).
    mapper : callable, default=map
        Runs :func:`run_fold` over the fold tasks; a process pool's ``map``
        runs the folds in parallel.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights, passed to each fold's ``fit`` (its training rows') and
        weighing each fold's test accuracy (its test rows').

    Returns
    -------
    CVResult

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from perceptrons import Perceptron
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> res = cross_validate(Perceptron(random_state=0), X, y, n_splits=5,
    ...                      scale=True)
    >>> 0.9 < res.mean < 1.0 and len(res.accuracies) == 5
    True
    """
    tasks = fold_tasks(estimator, X, y, n_splits=n_splits,
                       random_state=random_state, scale=scale,
                       sample_weight=sample_weight)
    records = run_tasks(run_fold, tasks, mapper=mapper,
                        on_record=None if progress is None
                        else lambda _: progress())
    return summarize_folds(records, confidence)
