"""Experiments: cross-validation, the demo and (later) paper reproductions.

Nothing in the package imports this subpackage except :mod:`perceptrons.cli`.

* :mod:`.evaluation`: stratified k-fold cross-validation with Khardon &
  Wachman's T-confidence interval and the online mistake rate.
* :mod:`.demo`: the family of K&W (2007) on built-in data (``perceptrons demo``).
* :mod:`._runner` / :mod:`._results`: run a configuration, write JSON/CSV
  with versions and git SHA, render Markdown tables and PNG plots from the
  written results.
"""

from .evaluation import CVResult, cross_validate, t_confidence_interval

__all__ = ["CVResult", "cross_validate", "t_confidence_interval"]
