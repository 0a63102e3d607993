"""``KernelPerceptron``: :class:`~perceptrons.Perceptron` with a kernel by
default, kept as a thin alias for code written before ``Perceptron`` took
``kernel``."""

from ._kernel import KERNEL_NAMES
from ..utils._param_validation import StrOptions
from .perceptron import Perceptron


class KernelPerceptron(Perceptron):
    """The perceptron family of Khardon & Wachman in dual form.

    Exactly ``Perceptron(kernel=...)``: the same algorithm (K&W [1]_,
    Figure 2, in the dual form of Sec. 2.1), parameters, attributes and
    results, except that ``kernel`` defaults to ``"poly"`` and cannot be
    None. See :class:`~perceptrons.Perceptron` for every parameter.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf"}, default="poly"
        The Mercer kernel (K&W Table 7 uses degree-4 polynomial kernels).
    **params
        The other parameters of :class:`~perceptrons.Perceptron`, with its
        defaults.

    References
    ----------
    .. [1] R. Khardon and G. Wachman. Noise tolerant variants of the
       perceptron algorithm. JMLR 8:227-248, 2007.

    Examples
    --------
    >>> from sklearn.datasets import make_circles
    >>> from perceptrons import KernelPerceptron
    >>> X, y = make_circles(n_samples=200, factor=0.3, noise=0.05,
    ...                     random_state=0)
    >>> clf = KernelPerceptron(kernel="rbf", gamma=2.0, random_state=0)
    >>> clf.fit(X, y).score(X, y) > 0.95
    True
    """

    _parameter_constraints = {
        **Perceptron._parameter_constraints,
        "kernel": [StrOptions(set(KERNEL_NAMES))],
    }

    @classmethod
    def _test_params(cls):
        return [
            {},
            {"kernel": "rbf", "hypothesis": "voted"},
            {"kernel": "linear", "hypothesis": "averaged",
             "multiclass": "prototype"},
            {"kernel": "rbf", "hypothesis": "longest", "margin": 0.5,
             "lam": 0.5, "alpha_bound": 3, "cache_size": 0},
            {"hypothesis": "voted", "multiclass": "prototype", "eta": 1.0,
             "theta_init": 0.0, "threshold_step": 0.0},
        ]

    def __init__(self, *, kernel="poly", degree=3, gamma=None, coef0=1.0,
                 eta=0.1, theta_init="auto", threshold_step="auto",
                 margin=0.0, tau=None, lam=0.0, alpha_bound=None,
                 hypothesis="averaged", multiclass="ovr", max_iter=10,
                 tol=None, n_iter_no_change=5, early_stopping=False,
                 validation_fraction=0.1, shuffle=True, random_state=None,
                 class_weight=None, warm_start=False,
                 n_jobs=None, cache_size=200, budget=None,
                 budget_policy="random"):
        super().__init__(
            kernel=kernel, degree=degree, gamma=gamma, coef0=coef0, eta=eta,
            theta_init=theta_init, threshold_step=threshold_step,
            margin=margin, tau=tau, lam=lam, alpha_bound=alpha_bound,
            hypothesis=hypothesis, multiclass=multiclass, max_iter=max_iter,
            tol=tol, n_iter_no_change=n_iter_no_change,
            early_stopping=early_stopping,
            validation_fraction=validation_fraction, shuffle=shuffle, random_state=random_state,
            class_weight=class_weight, warm_start=warm_start, n_jobs=n_jobs,
            cache_size=cache_size, budget=budget,
            budget_policy=budget_policy)
