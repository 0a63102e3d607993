r"""The final hypotheses of one training run (Khardon & Wachman, Figure 2).

K&W's last, longest-survivor and voted hypotheses are three predictions of
*one* training run. For the Figure 2 family (:class:`~perceptrons.Perceptron`,
linear and one-vs-rest) a task fits once with ``hypothesis="voted"``, whose
log keeps every update and every hypothesis' vote, and
:func:`hypothesis_predictions` derives the others:

* ``"last"``: the fitted ``coef_``/``intercept_`` (the last hypothesis);
* ``"longest"``: the first hypothesis with the largest vote (a vote is the
  run of correct predictions a hypothesis made, K&W's tally), replayed from
  the log by sequential sums, the same additions the loop makes;
* ``"voted"``: the model's own prediction;
* ``"averaged"`` (ours, not in K&W's tables): Freund & Schapire's
  (1999) [2]_ vote-weighted average :math:`\sum_k c_k (w_k, \theta_k)`,
  from the same log. It is *not* :class:`~perceptrons.Perceptron`'s
  ``hypothesis="averaged"``, which weights each hypothesis by the steps it
  was current, mistakes included; the log does not record those steps
  under an α-bound.

Other estimators, and hypotheses that cannot be derived, are fitted once
per hypothesis (same seed, so the same run). The estimator's private vote
log is read in one function, :func:`_vote_log`.

References
----------
.. [1] R. Khardon and G. Wachman. Noise tolerant variants of the perceptron
   algorithm. JMLR 8:227-248, 2007.
.. [2] Y. Freund and R. E. Schapire. Large margin classification using the
   perceptron algorithm. Machine Learning 37(3):277-296, 1999.
"""

import numpy as np
import scipy.sparse as sp

__all__ = ["HYPOTHESES", "hypothesis_predictions"]

#: K&W's three final hypotheses, then ours (Freund & Schapire's average).
HYPOTHESES = ("last", "longest", "voted", "averaged")


def _vote_log(est):
    """The private vote log of a linear one-vs-rest Figure 2 run, or None.

    The one place that reads the estimator's state beyond its public
    attributes (its vote log, support rows and current vote). Only
    a :class:`~perceptrons.Perceptron` fitted with ``hypothesis="voted"``
    and no kernel qualifies: its updates are ``w += η y x``, ``θ -= η y C``,
    what :func:`_vote_weighted_average` assumes (other estimators with a
    voted log update differently).

    Returns
    -------
    tuple or None
        ``(support, sign, votes, ptr, support_X)``: per problem k, the
        updates ``ptr[k]:ptr[k+1]`` (row of ``support_X``, sign) and the
        votes of its hypotheses.
    """
    from ..models import Perceptron

    if not isinstance(est, Perceptron):
        return None
    s = est.state_
    if s.hypothesis != "voted" or s.prototype or s.vote_rows is None:
        return None
    return (*s.voted.binary_arrays(s.current_vote), s.vote_rows.X)


def _vote_weighted_average(est, log):
    """Freund & Schapire's Σ c_h (w_h, θ_h) / Σ c_h per problem, from a
    voted fit's log (our fourth column: the estimator's own "averaged" is
    the average over trials, which an α-bound makes unrecoverable here).

    Returns
    -------
    weights : ndarray of shape (n_problems, n_features)
    intercept : ndarray of shape (n_problems,)
    """
    support, sign, votes, ptr, S = log
    eta, C = float(est.eta), float(est.threshold_step_)
    n_problems = ptr.shape[0] - 1
    W = np.zeros((n_problems, est.n_features_in_))
    theta = np.full(n_problems, float(est.theta_init_))
    for k in range(n_problems):
        lo, hi = ptr[k], ptr[k + 1]
        v = votes[lo + k: hi + k + 1]
        total = float(v.sum())
        if total == 0 or hi == lo:
            continue
        a = eta * sign[lo:hi]
        # update j is in every hypothesis after it: weight Σ_{h>j} c_h
        after = np.cumsum(v[::-1])[::-1][1:] / total
        rows = S[support[lo:hi]]
        rows = rows.toarray() if sp.issparse(rows) else np.asarray(rows)
        W[k] = (a * after) @ rows
        theta[k] -= float(np.dot(a * after, np.full(hi - lo, C)))
    return W, -theta


def _linear_predict(est, W, intercept, X):
    from sklearn.utils.extmath import safe_sparse_dot

    # X as the estimator's own predict takes it: checked (index arrays
    # included) before the product reads it.
    X = est._validate_for_prediction(X)
    scores = safe_sparse_dot(X, W.T, dense_output=True) + intercept
    if scores.shape[1] == 1:
        return est.classes_[(scores[:, 0] > 0).astype(np.intp)]
    return est.classes_[np.argmax(scores, axis=1)]


def hypothesis_predictions(est, X, hypotheses=HYPOTHESES):
    """Predictions of several final hypotheses of one fitted run.

    Parameters
    ----------
    est : fitted estimator
        A :class:`~perceptrons.Perceptron` fitted with
        ``hypothesis="voted"`` (linear, one-vs-rest) gives all of
        :data:`HYPOTHESES`; any estimator gives its own ``hypothesis``.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    hypotheses : tuple of str, default=HYPOTHESES

    Returns
    -------
    dict
        Hypothesis name to predicted labels; the names this run cannot
        give are missing.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from perceptrons import Perceptron
    >>> X, y = make_classification(200, random_state=0)
    >>> est = Perceptron(hypothesis="voted", random_state=0).fit(X, y)
    >>> sorted(hypothesis_predictions(est, X))
    ['averaged', 'last', 'longest', 'voted']
    """
    own = getattr(est, "hypothesis", None)
    out = {}
    log = _vote_log(est)
    for h in hypotheses:
        if h == own:
            out[h] = est.predict(X)
        elif log is not None and h == "averaged":
            out[h] = _linear_predict(est, *_vote_weighted_average(est, log),
                                     X)
        elif own == "voted" and h in ("last", "longest"):
            try:  # the estimator's own derivation from the same run
                out[h] = est.predict(X, hypothesis=h)
            except ValueError:  # e.g. "longest" of a kernel run: refit
                pass
    return out

