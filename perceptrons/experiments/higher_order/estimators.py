"""Brotto, Gentile & Vitale (NIPS 2007): the estimators and their readings.

:func:`make_estimator` is the only place naming a class. Two functions read
an estimator's private state (the model internals may change):
:func:`_labels` (the labels of given scores, ``predict``'s own rule) and
:func:`_gram_blocks` (kernel rows of the support, for ‖w_j‖).
"""

import math

import numpy as np

from .paper import SMOOTH_SIGMA

__all__ = ["corrections", "make_estimator", "unit_margin_error",
           "weight_norms"]


def make_estimator(spec, kernel=None, max_iter=1, shuffle_seed=None,
                   normalize=True):
    """The estimator of one algorithm setting; the only place naming a class.

    Parameters
    ----------
    spec : dict
        ``algorithm`` (``"FO"``, ``"HO"``, ``"sparse HO"``, ``"SO"`` or
        ``"ALMA"``) and its parameters: ``p``, ``c`` and ``form`` for HO,
        ``a`` for SO; ``p``, ``alpha``, ``B``, ``C``, ``hypothesis`` and
        ``fit_intercept`` for ALMA (primal only; it always normalises its
        instances, to unit p-norm, as its Figure 1 requires).
    kernel : dict or None
        ``kernel``, ``gamma``, ``degree``, ``coef0``; None: primal.
    max_iter : int
        Epochs of ``fit``.
    shuffle_seed : int or None
        None: the rows in the order given; else one seeded permutation.
    normalize : bool
        Instances normalised as the paper assumes (SO too).

    Returns
    -------
    estimator
        ``HigherOrderPerceptron`` (FO is c = 0), ``SecondOrderPerceptron``
        or ``ALMA``.
    """
    import perceptrons

    if spec["algorithm"] == "ALMA":
        if kernel:
            raise ValueError("ALMA runs here in the primal form only")
        return perceptrons.ALMA(
            p=float(spec["p"]), alpha=float(spec["alpha"]),
            B=None if spec["B"] is None else float(spec["B"]),
            C=float(spec["C"]), hypothesis=spec["hypothesis"],
            fit_intercept=bool(spec["fit_intercept"]),
            max_iter=int(max_iter), shuffle=shuffle_seed is not None,
            random_state=shuffle_seed)
    kernel = dict(kernel or {})
    common = {"max_iter": int(max_iter), "shuffle": shuffle_seed is not None,
              "random_state": shuffle_seed, "normalize": bool(normalize),
              "hypothesis": "last", **kernel}
    if spec["algorithm"] == "SO":
        return perceptrons.SecondOrderPerceptron(a=float(spec["a"]), **common)
    return perceptrons.HigherOrderPerceptron(
        p=spec.get("p", 2),
        c=0.0 if spec["algorithm"] == "FO" else float(spec["c"]),
        sparse=spec["algorithm"] == "sparse HO",
        form=spec.get("form", "auto"), **common)


def corrections(est):
    """Training corrections summed over the one-vs-rest problems."""
    return int(est.n_mistakes_)


def _matrix_updates(est, spec):
    if spec["algorithm"] in ("FO", "SO"):
        return None
    value = getattr(est, "n_matrix_updates_", None)
    return None if value is None else int(value)


def _error(est, X, y):
    return float(np.mean(est.predict(X) != y))


def weight_norms(est):
    """‖w_j‖ of each one-vs-rest problem's weight vector (in feature space
    for the dual forms: ``w_j = Σ_s dual_coef[j, s] φ(s)``)."""
    if getattr(est, "dual_coef_", None) is None:
        return np.linalg.norm(np.atleast_2d(est.coef_), axis=1)
    coef = est.dual_coef_
    sq = np.zeros(coef.shape[0])
    for lo, hi, G in _gram_blocks(est, est.support_vectors_):
        sq += np.einsum("js,js->j", coef[:, lo:hi], (G @ coef.T).T)
    return np.sqrt(np.maximum(sq, 0.0))


def unit_margin_error(est, scores, y):
    """Test error when one-vs-rest picks the largest margin *per unit of
    weight norm*, ``f_j(x) / ‖w_j‖``, instead of the largest raw margin (a
    reading of "one-versus-rest" the paper leaves open).

    ``scores`` is ``est.decision_function(X)``, computed once for both
    readings; with two classes the positive scale leaves the sign alone."""
    norms = weight_norms(est)
    return float(np.mean(_labels(est, scores / np.where(norms > 0, norms,
                                                         1.0)) != y))


def _smoothed(X, sigma=SMOOTH_SIGMA):
    """Square images (one per row) smoothed by a Gaussian of width sigma."""
    from scipy.ndimage import gaussian_filter

    side = math.isqrt(X.shape[1])
    if side * side != X.shape[1]:
        raise ValueError(f"rows of {X.shape[1]} features are not square "
                         "images: cannot smooth")
    images = X.reshape(-1, side, side)
    return gaussian_filter(images, sigma=(0, sigma, sigma),
                           mode="constant").reshape(X.shape)


def _spec_label(spec):
    a = spec["algorithm"]
    if a == "FO":
        return "FO"
    if a == "SO":
        return f"SO(a={spec['a']:g})"
    p = spec.get("p", 2)
    return f"{'sparse ' if a == 'sparse HO' else ''}HO{p}({spec['c']:g})"


def _kernel_label(kernel):
    if not kernel:
        return "linear"
    if kernel["kernel"] == "rbf":
        return f"γ={kernel['gamma']:g}"
    return f"d={kernel['degree']}"



def _labels(est, scores):
    """The labels ``predict`` gives for these decision scores."""
    return est._labels(scores)


def _gram_blocks(est, rows):
    """``(lo, hi, K)`` blocks of the kernel between ``rows`` and the
    support."""
    return est.state_.model.gram_blocks(rows, normalize=est.normalize)
