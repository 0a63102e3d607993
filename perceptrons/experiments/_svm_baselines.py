r"""The SVM columns of Khardon & Wachman (2007), Table 6, through LIBLINEAR.

K&W ran SVMlight with the 1-norm and the 2-norm soft margin, parameter
search only (best test accuracy over a grid, "essentially upper bounds on
the performance of SVM", Sec. 3.4): ``-c`` in {1e-5, …, 1e4} for the 1-norm
and λ in {1e-4, …, 1e3} for the 2-norm. Here both are LIBLINEAR's dual
coordinate descent (scikit-learn's :class:`~sklearn.svm.LinearSVC`):

* 1-norm soft margin, ``min ½‖w‖² + C Σ ξ_i`` (hinge loss);
* 2-norm soft margin, ``min ½‖w‖² + C Σ ξ_i²`` (squared hinge loss). Its
  dual is the hard margin with the kernel ``K + I/(2C)`` (Cristianini &
  Shawe-Taylor 2000, Sec. 6.1.1), so K&W's λ added to the kernel's diagonal
  is ``C = 1/(2λ)``.

Two differences from SVMlight, stated in the report: LIBLINEAR regularises
the bias (a constant feature of value 1, ``intercept_scaling=1``), and it
stops after ``max_iter`` passes of coordinate descent, which on the raw
features of some UCI sets happens at large C (as SVMlight's own solver would
grind there too).
"""

import warnings
from numbers import Integral, Real

from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

#: K&W's ``-c`` values for the 1-norm soft margin.
L1_C_GRID = tuple(10.0 ** k for k in range(-5, 5))
#: K&W's λ values for the 2-norm soft margin.
L2_LAMBDA_GRID = tuple(10.0 ** k for k in range(-4, 4))


class SoftMarginSVC(ClassifierMixin, BaseEstimator):
    """A linear soft-margin SVM, 1-norm (``C``) or 2-norm (``lam``).

    Parameters
    ----------
    norm : {"l1", "l2"}, default="l1"
        The slack penalty: Σξ (hinge) or Σξ² (squared hinge).
    C : float, default=1.0
        The 1-norm trade-off (SVMlight's ``-c``); unused for "l2".
    lam : float, default=1.0
        The 2-norm's ridge λ on the kernel's diagonal, i.e. LIBLINEAR's
        ``C = 1/(2λ)``; unused for "l1".
    max_iter : int, default=10000
        Passes of LIBLINEAR's coordinate descent.
    random_state : int or None, default=None
        LIBLINEAR's order of coordinates.

    Attributes
    ----------
    classes_ : ndarray
    converged_ : bool
        False when LIBLINEAR stopped at ``max_iter`` (its warning is kept
        here rather than printed once per task).
    """

    _parameter_constraints = {
        "norm": [StrOptions({"l1", "l2"})],
        "C": [Interval(Real, 0, None, closed="neither")],
        "lam": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, norm="l1", C=1.0, lam=1.0, max_iter=10000,
                 random_state=None):
        self.norm = norm
        self.C = C
        self.lam = lam
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X, y):
        from sklearn.svm import LinearSVC

        self._validate_params()
        if self.norm == "l1":
            loss, C = "hinge", self.C
        else:
            loss, C = "squared_hinge", 1.0 / (2.0 * self.lam)
        self.svc_ = LinearSVC(loss=loss, C=C, dual=True,
                              max_iter=self.max_iter,
                              random_state=self.random_state)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            self.svc_.fit(X, y)
        self.converged_ = True
        for w in caught:
            if issubclass(w.category, ConvergenceWarning):
                self.converged_ = False
            else:
                warnings.warn_explicit(w.message, w.category, w.filename,
                                       w.lineno)
        self.classes_ = self.svc_.classes_
        return self

    def decision_function(self, X):
        return self.svc_.decision_function(X)

    def predict(self, X):
        return self.svc_.predict(X)
