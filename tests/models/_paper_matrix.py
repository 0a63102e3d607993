"""The matrix perceptrons with the papers' settings (not the defaults).

The reference tests compare the estimators with line-by-line runs of the
papers' rules: the last hypothesis, one pass unless asked, and, for the
second-order Perceptron, a = 1 on raw rows. The defaults (averaged
hypothesis, 10 passes, a = 20 on normalised rows; issue #23) are measured
for accuracy, not for the papers' protocols; a test that wants them asks.
"""

from functools import partial

import numpy as np

import perceptrons
from perceptrons._loops.mercer import row_sq_norms_of
from perceptrons.models._matrix_perceptron import row_p_norms


def _paper(cls, **settings):
    factory = partial(cls, **settings)
    factory.__name__ = cls.__name__
    return factory


HigherOrderPerceptron = _paper(perceptrons.HigherOrderPerceptron,
                               hypothesis="last", max_iter=1)
SecondOrderPerceptron = _paper(perceptrons.SecondOrderPerceptron,
                               hypothesis="last", max_iter=1, a=1.0,
                               normalize=False)


def linear_part(est):
    """w of the final hypothesis by feature: ``coef_`` where the decision is
    linear; for the second-order Perceptron's last hypothesis (no
    ``coef_``) its linear part ``A⁻¹v``, as the dual's linear kernel gives
    it too; None with other kernels."""
    if hasattr(est, "coef_"):
        return est.coef_
    s = est.state_
    return s.model.public(s.final_weights(), True,
                          normalize=est.normalize).get("coef_")


def paper_margins(est, X):
    """The papers' margins of X's rows: ``decision_function`` divided by
    the rows' norms where it scores the rows as given (HO normalising; its
    decision is then ``wᵀx``, so that ``coef_`` gives it, issue #23)."""
    scores = est.decision_function(X)
    algo = est._algorithm_of_params(validate=False)
    if not (est.normalize and algo.decides_linearly(est.state_)):
        return scores
    if est.kernel is None:
        norms = row_p_norms(X, algo.norm_p())
    else:
        norms = np.sqrt(est.state_.model.kernel.diag(row_sq_norms_of(X)))
    norms = norms.reshape((-1,) + (1,) * (scores.ndim - 1))
    return np.divide(scores, norms, out=np.zeros_like(scores),
                     where=norms > 0)
