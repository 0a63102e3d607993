"""Experiments: cross-validation, the demo and the paper reproductions.

Nothing in the package imports this subpackage except :mod:`perceptrons.cli`.

Every experiment is a list of tasks, each run by a module-level worker into
one record of the store; reports are rendered from the records and never
refit.

* :mod:`.runner`: the one runner of every reproduction
  (:func:`~.runner.run_reproduction` of a :class:`~.runner.Reproduction`),
  which owns the results store, ``resume`` and the executor (serial,
  joblib or Dask: :func:`~.runner.make_executor`).
* :mod:`.store`: :class:`~.store.Task`, its stable key, the append-only
  JSON-lines :class:`~.store.Store` (``resume`` skips what is done) and
  :func:`~.store.run_tasks`, whose ``mapper`` is ``map`` or a parallel one.
* :mod:`.report`: Markdown tables, CSV/JSON summaries and figures from
  records.
* :mod:`.evaluation`: stratified k-fold cross-validation with Khardon &
  Wachman's T-confidence interval and the online mistake rate, built from
  the one-fold worker :func:`~.evaluation.run_fold`.
* :mod:`._comparison` / :mod:`._results`: variants × data sets × folds, and
  their report (the demo's).
* :mod:`.model_selection`: parameter search and double cross-validation
  over grids of any estimator (:func:`parameter_search`,
  :func:`double_cross_validation`), serially, on joblib or on a Dask
  cluster, through the store; :mod:`.hypotheses`: the final hypotheses of
  one run.
* :mod:`.demo`: the family of K&W (2007) on built-in data
  (``perceptrons demo``).
* One package per paper, ``ballseptron``, ``pdm``, ``higher_order`` and
  ``khardon_wachman`` (its grids: :func:`paper_columns`): the paper's
  constants and numbers, its tasks and its report; ``run(options:
  RunOptions)`` reproduces the paper's tables and figures through the
  runner (``perceptrons reproduce NAME``; listed in
  :mod:`perceptrons.registry`).
"""

from .demo import run_demo
from .evaluation import (CVResult, cross_validate, run_fold,
                         t_confidence_interval)
from .khardon_wachman.paper import paper_columns
from .model_selection import (Column, double_cross_validation,
                              hypothesis_predictions, parameter_search)
from .options import RunOptions
from .runner import Reproduction, make_executor, run_reproduction


__all__ = ["CVResult", "Column", "Reproduction", "RunOptions",
           "cross_validate", "double_cross_validation",
           "hypothesis_predictions", "make_executor", "paper_columns",
           "parameter_search", "run_demo", "run_fold", "run_reproduction",
           "t_confidence_interval"]
