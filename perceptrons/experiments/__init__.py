"""Experiments: cross-validation, the demo and the paper reproductions.

Nothing in the package imports this subpackage except :mod:`perceptrons.cli`.

Every experiment is a list of tasks, each run by a module-level worker into
one record of the store; reports are rendered from the records and never
refit.

* :mod:`.store`: :class:`~.store.Task`, its stable key, the append-only
  JSON-lines :class:`~.store.Store` (``resume`` skips what is done) and
  :func:`~.store.run_tasks`, whose ``mapper`` is ``map`` or a parallel one.
* :mod:`.report`: Markdown tables, CSV/JSON summaries and figures from
  records.
* :mod:`.evaluation`: stratified k-fold cross-validation with Khardon &
  Wachman's T-confidence interval and the online mistake rate, built from
  the one-fold worker :func:`~.evaluation.run_fold`.
* :mod:`._runner` / :mod:`._results`: variants × data sets × folds through
  the store, and their report.
* :mod:`.model_selection`: K&W's parameter search and double
  cross-validation over grids of any estimator (:func:`parameter_search`,
  :func:`double_cross_validation`, :func:`paper_columns`), serially, on
  joblib or on a Dask cluster, through the store.
* :mod:`.demo`: the family of K&W (2007) on built-in data
  (``perceptrons demo``).
* ``reproduce_<paper>``: ``run(options: RunOptions)`` reproduces a paper's
  tables and figures (``perceptrons reproduce NAME``; listed in
  :mod:`perceptrons.registry`).
"""

from .demo import run_demo
from .evaluation import (CVResult, cross_validate, run_fold,
                         t_confidence_interval)
from .model_selection import (Column, double_cross_validation,
                              hypothesis_predictions, make_executor,
                              paper_columns, parameter_search)
from .options import RunOptions


__all__ = ["CVResult", "Column", "RunOptions", "cross_validate",
           "double_cross_validation", "hypothesis_predictions",
           "make_executor", "paper_columns", "parameter_search", "run_demo",
           "run_fold", "t_confidence_interval"]
