r"""LIBSVM's decomposition SVM in the SVMlight column of the PDM paper's Table 2.

Panagiotakopoulos & Tsampouka (ALT 2011), Sec. 5, also ran SVMlight, a
decomposition method, on the hard-margin problem in the extended space and
report its geometric margin γ' (its bias is not regularised, so the
directional γ'_d does not apply). SVMlight is not on PyPI or Debian; LIBSVM
(PyPI ``libsvm-official``, module ``libsvm.svmutil``) is a decomposition
method of the same class (SMO with working-set selection, shrinking and a
kernel cache) and runs in its place here, labelled as LIBSVM.

The problem is the one of :mod:`perceptrons.experiments._liblinear`'s
DCD-L1, without the augmented bias column: the explicitly extended data
``[x_k, Δ e_k]`` (:func:`~perceptrons.experiments._liblinear.extend`),
the linear kernel, ``C`` = 10¹² (C = ∞: the box never binds, the dual
variables stay below 10 on Adult and Web) and LIBSVM's own free bias b. The
solution is ``u = Σ_k α_k l_k [x_k, Δ e_k] = [w, Δ l_1 α_1, …]`` with
decision ``w·x + b``, so ``u·[x_k, Δ e_k] l_k + l_k b = l_k(w·x_k + b) +
Δ² α_k`` and

.. math:: \gamma' = \frac{\min_k l_k(w\cdot x_k + b) + \Delta^2\alpha_k}
          {\sqrt{\|w\|^2 + \Delta^2\sum_k \alpha_k^2}},

computed by :func:`~perceptrons.experiments._liblinear.directional_margin`
(its second value) from LIBSVM's support vectors and coefficients. LIBSVM's
stopping tolerance ``-e`` is SVMlight's default 0.001. LIBSVM is
deterministic (no random order).
"""

import time
from dataclasses import dataclass

import numpy as np

from ._liblinear import C_INFINITY, directional_margin, extend, signed_labels

__all__ = ["MISSING_MESSAGE", "SVMResult", "available", "fit_hard_margin"]

#: Shown instead of the LIBSVM row when the binding is absent.
MISSING_MESSAGE = ("not run: LIBSVM's Python binding is not installed "
                   "(pip install 'perceptrons[reproduce]' or "
                   "pip install libsvm-official)")


def _svmutil():
    from libsvm import svmutil

    return svmutil


def available():
    """True when ``libsvm.svmutil`` can be imported."""
    try:
        _svmutil()
    except ImportError:
        return False
    return True


@dataclass
class SVMResult:
    """A LIBSVM hard-margin solution of the extended space.

    ``w`` on the original features, ``b`` LIBSVM's (free) bias of the
    decision ``w·x + b``, ``alpha`` each row's dual variable (0 off the
    support), ``seconds`` the wall time of ``svm_train`` alone (the data
    are converted to LIBSVM's format before the clock starts), and
    ``margin``/``geometric_margin`` as
    :func:`~perceptrons.experiments._liblinear.directional_margin` gives
    them (γ'_d with b in the norm, γ' without: the paper's SVMlight value).
    """

    w: np.ndarray
    b: float
    alpha: np.ndarray
    seconds: float
    C: float
    options: str
    n_support: int
    margin: float
    geometric_margin: float


def fit_hard_margin(X, y, delta, *, eps=0.001, C=C_INFINITY, cache_mb=500):
    """LIBSVM's ``-s 0 -t 0 -c C -e eps`` on ``[X, Δ I]``.

    Parameters
    ----------
    X : array or sparse matrix of shape (m, n)
    y : array of shape (m,), two classes
    delta : float
        Δ of the extension (> 0: the extended data are separable).
    eps : float, default=0.001
        LIBSVM's tolerance of the KKT conditions (SVMlight's default).
    C : float, default=1e12
        The box; C = ∞ of the hard margin.
    cache_mb : float, default=500
        LIBSVM's kernel cache (``-m``); never changes the solution.

    Returns
    -------
    SVMResult
    """
    if not delta > 0:
        raise ValueError("the hard margin of the extended space needs "
                         "delta > 0")
    svm = _svmutil()
    labels = signed_labels(y)
    m, n = X.shape
    Xe = extend(X, delta)
    options = f"-s 0 -t 0 -c {C:g} -e {eps:g} -m {cache_mb:g} -q"
    problem = svm.svm_problem(labels.tolist(), Xe)
    param = svm.svm_parameter(options)
    start = time.perf_counter()
    model = svm.svm_train(problem, param)
    seconds = time.perf_counter() - start
    # LIBSVM's first label is the positive side of its decision values.
    sign = 1.0 if model.get_labels()[0] == 1 else -1.0
    index = np.asarray(model.get_sv_indices(), dtype=np.int64) - 1
    coef = sign * np.array([c[0] for c in model.get_sv_coef()])
    alpha = np.zeros(m)
    alpha[index] = coef * labels[index]
    w = np.asarray(Xe[index, :n].T @ coef).ravel()
    b = -sign * float(model.rho[0])
    margin, geometric = directional_margin(X, labels, w, b, rho=1.0,
                                           delta=delta, alpha=alpha)
    return SVMResult(w=w, b=b, alpha=alpha, seconds=seconds, C=float(C),
                     options=options.replace(" -q", ""),
                     n_support=int(index.shape[0]), margin=float(margin),
                     geometric_margin=float(geometric))
