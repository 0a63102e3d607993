"""Perceptrons with dynamic (PDM) and fixed (PFM) margin condition.

Panagiotakopoulos & Tsampouka (ALT 2011): approximate maximum-margin
hyperplanes by the classical perceptron update, run until a full pass over
the training set finds no pattern satisfying the misclassification condition.

This module holds the estimators :class:`PDM` and :class:`PFM`, their
algorithms (:class:`DynamicMargin`, :class:`FixedMargin`: condition (8) or
(7) on the run of :class:`~perceptrons.models._margin_family.MarginAlgorithm`)
and the docstring fragments the margin family shares (ROMMA's among them).
The family's state, shared parameters and run to convergence are in
:mod:`perceptrons.models._margin_family`; the compiled loops in
:mod:`perceptrons._loops.margin`.
"""

from numbers import Real

import numpy as np

from .._loops.margin import RULE_PDM, RULE_PFM
from ..utils._param_validation import Interval, StrOptions
from ..utils.docstrings import with_doc_fragments
from ._driver import N_JOBS_DOC, OnlineClassifier
from ._margin_family import (DEFAULT_EXTENSION, MARGIN_CONSTRAINTS,
                             MarginAlgorithm, MarginParams, MarginState)

__all__ = ["DEFAULT_EXTENSION", "DynamicMargin", "FixedMargin",
           "MarginState", "PDM", "PFM", "epsilon_schedule"]

_EXTENSION_DEFAULT_DOC = """    extension : float or None, default=1.0
        Δ of Sec. 5: each instance k gets its own extra coordinate of value
        ``l_k Δ`` (never stored), which makes any training set separable
        with margin at least ``Δ/√m``; the hard-margin problem is then the
        2-norm soft-margin SVM with penalty ``Δ^{-2} Σ ξ_i²``, i.e.
        scikit-learn's ``LinearSVC(loss="squared_hinge", C=1/(2Δ²),
        intercept_scaling=ρ)``. None: no extension, the paper's setting for
        separable data; the run then converges only if the data is
        separable in the augmented space.

        The default 1.0 is the paper's Δ for Adult, Web and Physics (with
        ρ = 1; Sec. 5 picks Δ ≈ R/10 to R/3 from {3, 1, 0.3, 0.1}, R the
        largest pattern norm), LinearSVC's problem at C = 0.5. It is a
        default a user can trust on any data: every run converges (no
        hard-margin run on inseparable data that never stops and whose last
        iterate is arbitrary), within seconds on USPS-sized data, to a model
        as accurate as LinearSVC on noisy data. It suits data of unit scale
        (standardised, or pixels in [0, 1]); scale Δ with the data, and
        lower it to fit the training set more closely (more updates).

        Sample weights (``sample_weight`` times ``class_weight``) act
        through the extension: a row of weight s gets its own
        ``Δ_s = Δ/√s``, so the problem solved is the weighted 2-norm
        soft-margin SVM ``‖[w, b]‖² + Δ^{-2} Σ s_i ξ_i²`` (LinearSVC's with
        the same ``sample_weight``); see the Notes. Without extension the
        hard-margin problem does not depend on positive weights, and
        weights other than 0 and 1 are refused.
"""

_WEIGHTS_DOC = r"""    Sample weights. A row's weight :math:`s_k > 0`
    (``sample_weight`` times ``class_weight``; a row of weight 0 is left
    out, as if absent) is its weight in the loss of the 2-norm soft-margin
    problem that the extension turns the run into:

    .. math::

        \min_{w, b, \xi}\ \|w\|^2 + b^2 + \frac{1}{\Delta^2}\sum_k s_k
        \xi_k^2 \quad\text{s.t.}\quad l_k (w\cdot x_k + b\rho) \ge
        1 - \xi_k,

    which is the hard-margin problem on the patterns
    :math:`y_k = [l_k x_k,\ l_k \rho,\ l_k \Delta_k e_k]` with a
    per-row extension

    .. math::

        \Delta_k = \Delta / \sqrt{s_k}, \qquad
        a\cdot y_k = l_k (w\cdot x_k + b\rho) + \Delta_k^2 c_k, \qquad
        \|y_k\|^2 = \|x_k\|^2 + \rho^2 + \Delta_k^2,

    and :math:`\|a\|^2` gains :math:`\sum_k \Delta_k^2 c_k^2`. The
    updates are the unweighted ones on these patterns (unit steps, integer
    counts c_k), so the condition, the multiple updates, the theorems and
    the reported ``directional_margin_``, ``margin_bound_`` and
    ``accuracy_estimate_`` hold as stated, for the weighted problem (their
    norms and margins are taken in that extended space). Without extension
    (the hard-margin problem) a positive weight cannot change the solution,
    the maximum-margin separator, and weights other than 0 and 1 are
    refused.
"""

_COMMON_ATTRIBUTES = """    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_problems, n_features)
        w, the non-augmented part of the weight vector a of each binary
        problem (one row for two classes, one per class for one-vs-rest).
    intercept_ : ndarray of shape (n_problems,)
        ``ρ b``, b being the augmented coordinate of a, so that
        ``decision_function(x) = a·[x, ρ] = coef_·x + intercept_``.
    dual_coef_ : ndarray of shape (n_problems, n_support), float64
        Only with ``store_dual=True`` (it is sized by the training set).
        ``l_k c_k``: the number of updates c_k made on row ``support_[j]``,
        signed by its label l_k in each problem. Since ``a = Σ_k c_k y_k``,
        ``coef_ = dual_coef_ @ X[support_]``,
        ``intercept_ = ρ² dual_coef_.sum(axis=1)`` and the extension block of
        a is ``Δ dual_coef_``.
    support_ : ndarray of shape (n_support,), int64
        Only with ``store_dual=True``. Rows (of the last ``fit``/
        ``partial_fit`` call's X) updated at least once in some problem.
    directional_margin_ : ndarray of shape (n_problems,)
        γ'_d: the directional margin ``min_k a·y_k / ‖a‖`` of the final a on
        the whole training set of the last call, in the augmented (and, with
        ``extension``, extended) space of Eq. (1); computed afresh, not from
        the loop's running ‖a‖². Negative if a pattern is misclassified.
    geometric_margin_ : ndarray of shape (n_problems,)
        γ': the same minimum over ``‖a‖`` without its augmented coordinate,
        i.e. the geometric margin of the hyperplane ``coef_·x + intercept_
        = 0`` (extension coordinates included when ``extension`` is set).
    margin_bound_ : ndarray of shape (n_problems,)
        ``‖a_t‖ / t``, the upper bound (4) on the maximum directional margin
        γ_d (valid when every update came from the current training set).
    margin_fraction_ : ndarray of shape (n_problems,)
        ``γ'_d t / ‖a_t‖ = directional_margin_ / margin_bound_``: by Eq. (5) a lower
        bound on γ'_d / γ_d.
    accuracy_estimate_ : ndarray of shape (n_problems,)
        ``1 - margin_fraction_``, the after-run estimate (5) of the relative
        accuracy ``(γ_d - γ'_d) / γ_d``.
    converged_ : ndarray of shape (n_problems,), bool
        Whether a full pass found no pattern satisfying the condition (for
        ``partial_fit``: whether its single pass made no update).
    n_updates_ : int
        Updates t made, summed over problems (a multiple update counts λ).
    n_mistakes_ : int
        Online prediction mistakes while training, summed over problems and
        over every presentation (full and active passes): rows with
        ``l_k (w·x_k + bρ) <= 0`` when presented, before their update (ties
        are mistakes; the extension coordinate is not part of a prediction).
    mistakes_per_epoch_, updates_per_epoch_ : ndarray of shape (n_epochs,)
        Per epoch (a full pass and its active passes; a ``partial_fit``
        call adds one), summed over the problems' epochs of that index.
    n_updates_per_problem_ : ndarray of shape (n_problems,), int64
    n_iter_ : int
        Full epochs (passes over the whole training set) made by the
        problem that needed most; ``partial_fit`` adds one per call.
    n_iter_per_problem_ : ndarray of shape (n_problems,), int64
    n_active_passes_ : int
        Passes over the active sets of Sec. 4, summed over problems.
    t_ : int
        Examples presented (full and active passes), summed over problems.
    n_features_in_ : int

"""


_WEIGHT_PARAMETERS_DOC = """\
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying ``sample_weight`` as in
        scikit-learn ("balanced": inversely proportional to the class
        frequencies). A weight acts through the extension (Notes).
    warm_start : bool, default=False
        ``fit`` continues the fitted state instead of starting afresh.
""" + N_JOBS_DOC

_fill_doc = with_doc_fragments({"    %(attributes)s\n": _COMMON_ATTRIBUTES,
                                "    %(extension)s": _EXTENSION_DEFAULT_DOC,
                                "    %(weights)s\n": _WEIGHTS_DOC,
                                "    %(weight_parameters)s\n":
                                    _WEIGHT_PARAMETERS_DOC})


class DynamicMargin(MarginAlgorithm):
    """PDM's dynamic margin condition (8), with PDM-succ's successive
    runs, as the driver runs it (the algorithm of :class:`PDM`)."""

    _rule = RULE_PDM

    def _params_schedule(self, state):
        return epsilon_schedule(self.epsilon, self.successive)

    def _first_epoch_plain(self):
        return self.successive is None


class FixedMargin(MarginAlgorithm):
    """PFM's fixed margin condition (7) as the driver runs it (the
    algorithm of :class:`PFM`)."""

    _rule = RULE_PFM

    def _resolve_beta(self, call):
        if self.beta != "auto":
            return float(self.beta)
        if self.extension is None:
            return 0.0
        if call.weights.shape[0]:
            # Δ_k = Δ/√s_k: the extension alone separates with margin
            # 1/√(Σ_k 1/Δ_k²) = Δ/√(Σ_k s_k).
            return 0.5 * float(self.extension) / np.sqrt(call.weights.sum())
        return 0.5 * float(self.extension) / np.sqrt(call.X.shape[0])

    def _params_schedule(self, state):
        return [state.beta]


@_fill_doc
class PDM(MarginParams, OnlineClassifier):
    r"""Perceptron with dynamic margin (PDM), with successive runs (PDM-succ).

    The classical perceptron update :math:`a_{t+1} = a_t + y_k`, Eq. (2),
    on augmented and reflected patterns :math:`y_k = [l_k x_k, l_k \rho]`
    made whenever the dynamic margin condition (8) of Panagiotakopoulos &
    Tsampouka [1]_ holds; passes over the training set continue until a
    full pass finds no such pattern. On convergence the directional margin
    γ'_d of a is at least :math:`(1-\epsilon)\gamma_d`, γ_d being the
    maximum directional margin (1); Theorem 3.2 bounds the number of
    updates. With ``successive=η`` the run is PDM-succ (end of Sec. 3):
    successive runs with accuracies ε_0 = 1/2, ε_{n+1} = ε_n/η, the last
    one ε, each continuing where the previous one converged.

    Parameters
    ----------
    epsilon : float, default=0.01
        Accuracy ε of condition (8), 0 < ε ≤ 1.
    augmentation : float, default=1.0
        ρ of the augmented patterns ``[l x, l ρ]`` (Sec. 2); 0 gives
        hyperplanes through the origin. The paper's experiments use 1.
    %(extension)s    successive : float or None, default=None
        η > 1 of PDM-succ (the paper uses 8); None runs plain PDM.
    active_sets : bool, default=True
        Use the three nested active sets of Sec. 4 (c1 = 2.2, c2 = 1.1,
        Nep1 = 9, Nep2 = Nep3 = 12; c1 = 1.1 in the first full epoch of
        plain PDM). False gives the plain pseudo-code: full passes only.
    multiple_updates : bool, default=True
        On a pattern satisfying (8), make λ = [μ₊] + 1 updates at once so
        that it no longer does (Sec. 4); plain PDM starts doing so after the
        first full epoch.
    store_dual : bool, default=False
        Keep ``support_`` and ``dual_coef_``, the per-row update counts of
        the last call (arrays sized by the training set, saved with the
        model when kept), as scikit-learn's ``store_covariance``.
    max_iter : int, default=1000
        Most full epochs (passes over the whole training set; the active
        passes between them are not counted). On reaching it without
        convergence a :class:`~sklearn.exceptions.ConvergenceWarning` is
        issued and the last a is kept.
    shuffle : bool or "blocks", default=True
        Present every full epoch in a fresh random permutation (Sec. 4).
        "blocks": a windowed shuffle for data larger than the cache
        (:func:`~perceptrons.utils.random.draw_order`).
    random_state : int, RandomState instance or None, default=None
        Seeds the permutations (one seed per one-vs-rest problem).
    %(weight_parameters)s

    %(attributes)s
    See Also
    --------
    PFM : the same driver with the fixed margin condition (7).
    Perceptron : the perceptron family of Khardon & Wachman.

    Notes
    -----
    With :math:`t` updates made so far, pattern :math:`y_k` is updated when

    .. math::

        a_t \cdot y_k \le (1 - \epsilon) \frac{\|a_t\|^2}{t}
        \quad (\text{threshold } 0 \text{ at } t = 0), \qquad
        a_{t+1} = a_t + y_k,

    Eqs. (8) and (2). With ``extension=Δ`` the patterns are
    :math:`[l_k x_k, l_k \rho, l_k \Delta e_k]`; the extension block of a
    is kept as per-example update counts c_k (``dual_coef_``), so
    :math:`a\cdot y_k` gains :math:`\Delta^2 c_k` and :math:`\|a\|^2` gains
    :math:`\Delta^2 \sum_k c_k^2`, and each update costs O(nnz(x_k)).

    %(weights)s

    Multiple updates (Sec. 4): λ = [μ₊] + 1 where μ₊ is the non-negative
    root of :math:`(t+\mu)\,a_{t+\mu}\cdot y_k - (1-\epsilon)
    \|a_{t+\mu}\|^2 = 0`. They, the active sets and the permutations only
    change the order in which patterns are presented, so Theorem 3.2 and
    the guarantee :math:`\gamma'_d \ge (1-\epsilon)\gamma_d` still hold;
    and so does Theorem 3.2 at the final ε for PDM-succ.

    Multiclass data is handled one-vs-rest, each problem run to its own
    convergence. ``decision_function`` returns :math:`a \cdot [x, \rho]`.

    .. warning::
       The paper's pseudo-code is not reproduced in the text we follow; the
       loop transcribes Sec. 2-4: condition (8) is tested with ``<=`` on the
       state before the update, and an active set collects a pattern when
       ``a·y_k <= c (1-ε)‖a‖²/t`` before its update. Convergence is declared
       only by a full pass without updates.

    References
    ----------
    .. [1] C. Panagiotakopoulos and P. Tsampouka. The perceptron with
       dynamic margin. Algorithmic Learning Theory (ALT 2011), LNCS 6925,
       pp. 204-218, 2011. https://doi.org/10.1007/978-3-642-24412-4_18

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from perceptrons import PDM
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = PDM(epsilon=0.05, random_state=0).fit(X[y < 2], y[y < 2])
    >>> bool(clf.converged_[0]) and clf.score(X[y < 2], y[y < 2]) == 1.0
    True
    >>> bool(clf.accuracy_estimate_[0] <= 0.05)
    True
    """

    _parameter_constraints = {
        **MARGIN_CONSTRAINTS,
        "epsilon": [Interval(Real, 0, 1, closed="right")],
        "successive": [Interval(Real, 1, None, closed="neither"), None],
    }
    _algorithm = DynamicMargin

    @classmethod
    def _test_params(cls):
        return [
            {},
            {"extension": 1.0, "epsilon": 0.1},
            {"extension": 1.0, "epsilon": 0.1, "successive": 4.0},
            {"extension": 1.0, "epsilon": 0.3, "active_sets": False,
             "multiple_updates": False, "max_iter": 50000},
        ]

    def __init__(self, *, epsilon=0.01, augmentation=1.0,
                 extension=DEFAULT_EXTENSION, successive=None,
                 active_sets=True, multiple_updates=True, store_dual=False,
                 max_iter=1000, shuffle=True, random_state=None,
                 class_weight=None, warm_start=False, n_jobs=None):
        self.epsilon = epsilon
        self.successive = successive
        self.multiple_updates = multiple_updates
        super().__init__(augmentation=augmentation, extension=extension,
                         active_sets=active_sets, store_dual=store_dual,
                         max_iter=max_iter, shuffle=shuffle,
                         random_state=random_state,
                         class_weight=class_weight, warm_start=warm_start,
                         n_jobs=n_jobs)


def epsilon_schedule(epsilon, ratio):
    """Accuracies of PDM-succ: ε_0 = 1/2, ε_{n+1} = ε_n / η, ending at ε.

    Parameters
    ----------
    epsilon : float
        Final accuracy ε.
    ratio : float or None
        The paper's η > 1 (``successive``); None gives the single run
        ``[epsilon]``.

    Returns
    -------
    list of float
        Decreasing; the last entry is ``epsilon`` (the step that would go
        below it is replaced by it, as in Sec. 5: 0.5, 0.0625, 0.01).
    """
    if ratio is None or epsilon >= 0.5:
        return [float(epsilon)]
    out = []
    e = 0.5
    while e > epsilon:
        out.append(e)
        e /= ratio
    out.append(float(epsilon))
    return out


@_fill_doc
class PFM(MarginParams, OnlineClassifier):
    r"""Perceptron with fixed margin condition (PFM).

    The classical perceptron update :math:`a_{t+1} = a_t + y_k` on augmented
    and reflected patterns :math:`y_k = [l_k x_k, l_k \rho]`, made whenever
    the fixed normalized margin condition (7) of Panagiotakopoulos &
    Tsampouka [1]_ holds, until a full pass finds no such pattern. It
    converges when β < γ_d, the maximum directional margin (1), to a
    solution of directional margin at least β = (1-ε)γ_d; Theorem 3.1
    bounds its updates. ``PFM(beta=0, extension=None)`` is Rosenblatt's
    perceptron in the augmented space (ties count as mistakes).

    Parameters
    ----------
    beta : float or "auto", default="auto"
        β ≥ 0 of condition (7), in the units of the (augmented, extended)
        patterns; convergence needs β < γ_d. The paper sets it to the γ'_d
        found by PDM. "auto" is ``Δ / (2√m)``, m the rows of the first
        ``fit``/``partial_fit`` call (with weights, ``Σ s_k`` instead of
        m: see the Notes): half the margin ``Δ/√m`` that the
        extension alone guarantees (Sec. 5), so that β < γ_d always holds
        and the run converges (Theorem 3.1) with a margin of at least half
        that guarantee; 0 without extension (nothing is known of γ_d then).
        On a stream (``learn_one``, river) the first call is the first
        example, m = 1: β = Δ/2, frozen from then on (a fixed margin of
        half the extension, where the paper's m grows with the data).
        On noisy data it gains 3-4 points of test accuracy over β = 0, the
        perceptron's "any separator". The value used is ``beta_``.
    augmentation : float, default=1.0
        ρ of the augmented patterns ``[l x, l ρ]`` (Sec. 2).
    %(extension)s    active_sets : bool, default=True
        The three nested active sets of Sec. 4 with conditions
        ``a·y_k <= c β‖a‖`` (c1 = 2.2, c2 = 1.1, Nep1 = 9, Nep2 = Nep3 = 12).
    multiple_updates : bool, default=True
        λ = [μ₊] + 1 updates at once on a pattern satisfying (7), μ₊ the
        root of :math:`a_{t+\mu}\cdot y_k = \beta\|a_{t+\mu}\|` (Sec. 4),
        from the first epoch on.
    store_dual : bool, default=False
        Keep ``support_`` and ``dual_coef_``, the per-row update counts of
        the last call (arrays sized by the training set, saved with the
        model when kept), as scikit-learn's ``store_covariance``.
    max_iter : int, default=1000
        Most full epochs; see :class:`PDM`.
    shuffle : bool or "blocks", default=True
        A fresh random permutation for every full epoch.
        "blocks": a windowed shuffle for data larger than the cache
        (:func:`~perceptrons.utils.random.draw_order`).
    random_state : int, RandomState instance or None, default=None
        Seeds the permutations (one seed per one-vs-rest problem).
    %(weight_parameters)s

    %(attributes)s
    See Also
    --------
    PDM : the dynamic margin condition (8), which needs no knowledge of γ_d.

    Notes
    -----
    .. math::

        a_t \cdot y_k \le \beta \|a_t\| \;\Rightarrow\; a_{t+1} = a_t + y_k,

    Eqs. (7) and (2), with β = (1-ε)γ_d. The extension, multiple updates
    and the reported quantities are as in :class:`PDM`.

    %(weights)s

    With weights, β = "auto" is :math:`\Delta / (2\sqrt{\sum_k s_k})`:
    half the margin :math:`1/\sqrt{\sum_k \Delta_k^{-2}}` that the
    per-row extensions alone guarantee, so that β < γ_d still holds.

    References
    ----------
    .. [1] C. Panagiotakopoulos and P. Tsampouka. The perceptron with
       dynamic margin. ALT 2011, LNCS 6925, pp. 204-218, 2011.
       https://doi.org/10.1007/978-3-642-24412-4_18

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from perceptrons import PFM
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = PFM(beta=0.05, random_state=0).fit(X[y < 2], y[y < 2])
    >>> bool(clf.converged_[0]) and bool(clf.directional_margin_[0] >= 0.05)
    True
    """

    _parameter_constraints = {
        **MARGIN_CONSTRAINTS,
        "beta": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
    }
    _algorithm = FixedMargin

    def __init__(self, *, beta="auto", augmentation=1.0,
                 extension=DEFAULT_EXTENSION,
                 active_sets=True, multiple_updates=True, store_dual=False,
                 max_iter=1000, shuffle=True, random_state=None,
                 class_weight=None, warm_start=False, n_jobs=None):
        self.beta = beta
        self.multiple_updates = multiple_updates
        super().__init__(augmentation=augmentation, extension=extension,
                         active_sets=active_sets, store_dual=store_dual,
                         max_iter=max_iter, shuffle=shuffle,
                         random_state=random_state,
                         class_weight=class_weight, warm_start=warm_start,
                         n_jobs=n_jobs)

    @classmethod
    def _test_params(cls):
        return [
            {},
            {"extension": 1.0, "beta": 0.01},
            {"beta": 0.0, "extension": 1.0, "active_sets": False,
             "multiple_updates": False, "max_iter": 20000},
        ]
