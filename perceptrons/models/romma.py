"""Aggressive ROMMA (Li & Long 2002), the baseline of Panagiotakopoulos &
Tsampouka's Table 2, with PDM's augmented/extended patterns and active sets.

This module holds the estimator :class:`ROMMA` and its algorithm
:class:`AggressiveROMMA`, which runs ROMMA's update on the margin family's
run to convergence (one-vs-rest, extension bookkeeping, reported margins:
:class:`~perceptrons.models._margin_family.MarginAlgorithm`). The compiled
loops are in :mod:`perceptrons._loops.romma`.
"""

from numbers import Real

import numpy as np

from .._loops.margin import active_set_epoch
from .._loops.romma import RommaRule, fold_scale, romma_pass
from ..utils._param_validation import Interval
from ._driver import OnlineClassifier
from ._margin_family import (
    _C1,
    _C2,
    _N_EP1,
    _N_EP2,
    _N_EP3,
    DEFAULT_EXTENSION,
    MARGIN_CONSTRAINTS,
    Diverged,
    MarginAlgorithm,
    MarginParams,
    check_problem_finite,
    count_epoch,
)
from .margin import _fill_doc

__all__ = ["AggressiveROMMA", "ROMMA"]


class AggressiveROMMA(MarginAlgorithm):
    """Li & Long's aggressive ROMMA on the margin family's run, as the
    driver runs it (the algorithm of :class:`ROMMA`)."""

    # ----------------------------------------------------------- state
    # scalars[k] = [u_b, ‖a‖², scale s, Δ² Σ g² of retired rows], a = s u;
    # the per-call counts hold the real coefficients g_k (u units).
    _n_scalars = 4
    _counts_dtype = np.float64

    def _initial_scalars(self, n_problems):
        scalars = np.zeros((n_problems, self._n_scalars))
        scalars[:, 2] = 1.0
        return scalars

    def _fold(self, call):
        """Make s = 1 and ``retired_ext_sq`` current in every problem."""
        s = call.state
        for k in range(s.weights.shape[0]):
            fold_scale(s.weights[k], s.scalars[k], call.work.counts[k])
        call.state = s.replace(retired_ext_sq=s.scalars[:, 3].copy())

    # ----------------------------------------------------------- training
    def _rule_of(self, call, k, status):
        """ROMMA's rule and problem k's vector (the loops' arguments)."""
        s = call.state
        return (RommaRule(1.0 - float(self.epsilon)), s.weights[k],
                s.scalars[k], status, call.work.counts[k])

    def _problem_epoch(self, call, k, signs):
        n = signs.shape[0]
        levels = [np.empty(n, dtype=np.int64) for _ in range(3)]
        stats = np.zeros(4, dtype=np.int64)
        s = call.state
        w, scalars, g = s.weights[k], s.scalars[k], call.work.counts[k]
        status = np.zeros(1, dtype=np.int64)
        rule, *vector = self._rule_of(call, k, status)

        def run_epoch(order, threshold, epoch):
            before = stats.copy()
            n_full = active_set_epoch(
                *call.loop_arrays, signs, call.work.y_sq_norms, order, s.rho,
                s.delta_sq, call.weights, rule, rule, *vector,
                int(self.active_sets), _C1, _C2, _N_EP1, _N_EP2, _N_EP3,
                *levels, stats)
            s.n_updates_per_problem[k] += n_full + stats[0] - before[0]
            fold_scale(w, scalars, g)
            # Recompute ‖a‖² afresh once per epoch (the loop carries it).
            scalars[1] = (float(w @ w) + scalars[0] ** 2
                          + self._ext_sq(call, g)
                          + scalars[3])
            count_epoch(call, k, n_full, stats - before)
            check_problem_finite(s, k, epoch + 1)
            if status[0]:
                raise Diverged(epoch + 1)
            return n_full

        return run_epoch

    def _params_schedule(self, state):
        # The loop takes the threshold 1 - ε of its condition.
        return [1.0 - float(self.epsilon)]

    def _plain_pass(self, call, k, order, signs):
        s = call.state
        status = np.zeros(1, dtype=np.int64)
        n_updates, _, n_mistakes = romma_pass(
            order, order.shape[0], 0.0, order, *call.loop_arrays, signs,
            call.work.y_sq_norms, s.rho, s.delta_sq, call.weights,
            *self._rule_of(call, k, status))
        if status[0]:
            call.work.diverged.append(k)
        s.n_updates_per_problem[k] += n_updates
        fold_scale(s.weights[k], s.scalars[k], call.work.counts[k])
        return n_updates, n_mistakes

    # ----------------------------------------------------------- results
    def _finish(self, call, targets, converged, n_iter):
        self._fold(call)
        super()._finish(call, targets, converged, n_iter)

    def _margin_bound(self, call, k, norm):
        """ROMMA's bound ``1/‖a‖ >= γ_d`` (not PDM's ``‖a_t‖/t``)."""
        s = call.state
        sq = (float(s.weights[k] @ s.weights[k]) + s.scalars[k, 0] ** 2
              + self._ext_sq(call, call.work.counts[k]) + s.retired_ext_sq[k])
        return 1.0 / np.sqrt(sq) if sq > 0 else np.inf

    def _stored_dual(self, call, targets):
        if self.store_dual and not np.isfinite(call.work.counts).all():
            raise ValueError(
                "ROMMA's dual coefficients overflowed float64: without "
                "extension, a = Σ g_k y_k cancels ever larger g_k on data "
                "that is not separable (a itself stays finite); set "
                "extension, or store_dual=False")
        return super()._stored_dual(call, targets)

    def _retired(self, call):
        retired = super()._retired(call)
        call.state.scalars[:, 3] = retired
        return retired


@_fill_doc
class ROMMA(MarginParams, OnlineClassifier):
    r"""Aggressive Relaxed Online Maximum Margin Algorithm (ROMMA).

    Li & Long's aggressive ROMMA [1]_ run as a batch algorithm on the
    augmented and reflected patterns :math:`y_k = [l_k x_k,\ l_k \rho]`
    (optionally extended by :math:`l_k \Delta e_k`) of Panagiotakopoulos &
    Tsampouka [2]_, who use it with accuracy ε = 0.01, active sets and
    per-epoch permutations as the perceptron-like baseline of their Table 2.
    Passes continue until a full pass finds no pattern with
    :math:`a\cdot y_k < 1 - \epsilon`. Every a is the shortest vector of a
    convex set containing :math:`\{v : v\cdot y_k \ge 1\ \forall k\}`, so
    :math:`\|a\| \le 1/\gamma_d`; on convergence the directional margin
    γ'_d = min_k a·y_k/‖a‖ is therefore at least (1-ε)γ_d.

    Parameters
    ----------
    epsilon : float, default=0.01
        Accuracy ε, 0 < ε < 1: update when :math:`a\cdot y_k < 1-\epsilon`.
    augmentation : float, default=1.0
        ρ of the augmented patterns (0: hyperplanes through the origin).
    %(extension)s        Without extension on inseparable data ‖a‖ grows geometrically (each
        update on a misclassified pattern multiplies ‖a‖² by about
        1/sin²θ); the run then stops, with a ConvergenceWarning, before a
        leaves float64's range, which certifies the data inseparable.
    active_sets : bool, default=True
        PDM's nested active sets (Sec. 4), with conditions
        ``a·y_k <= c (1-ε)`` (c1 = 2.2, c2 = 1.1, 1; Nep1 = 9,
        Nep2 = Nep3 = 12).
    store_dual : bool, default=False
        Keep ``support_`` and ``dual_coef_`` (sized by the training set).
    max_iter : int, default=1000
        Most full epochs; on reaching it a ConvergenceWarning is issued.
    shuffle : bool or "blocks", default=True
        A fresh random permutation for every full epoch.
        "blocks": a windowed shuffle for data larger than the cache
        (:func:`~perceptrons.utils.random.draw_order`).
    random_state : int, RandomState instance or None, default=None
        Seeds the permutations (one seed per one-vs-rest problem).
    %(weight_parameters)s

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_problems, n_features)
        w, the non-augmented part of a.
    intercept_ : ndarray of shape (n_problems,)
        ``ρ b``, b the augmented coordinate of a.
    dual_coef_ : ndarray of shape (n_problems, n_support), float64
        Only with ``store_dual=True`` (it is sized by the training set).
        ``l_k g_k`` with ``a = Σ_k g_k y_k`` over the rows of the last call
        (real coefficients: ROMMA rescales a). ``coef_ = dual_coef_ @
        X[support_]`` when the state comes from one ``fit``.
    support_ : ndarray of shape (n_support,), int64
        Only with ``store_dual=True``: rows with ``g_k != 0`` in some
        problem.
    directional_margin_ : ndarray of shape (n_problems,)
        γ'_d, ``min_k a·y_k / ‖a‖`` on the training set of the last call.
    geometric_margin_ : ndarray of shape (n_problems,)
        The same minimum over ``‖a‖`` without its augmented coordinate.
    margin_bound_ : ndarray of shape (n_problems,)
        ``1 / ‖a‖ >= γ_d`` (valid when every update came from the current
        training set; inf before any update).
    margin_fraction_ : ndarray of shape (n_problems,)
        ``directional_margin_ / margin_bound_ = min_k a·y_k``, a lower bound on
        γ'_d / γ_d.
    accuracy_estimate_ : ndarray of shape (n_problems,)
        ``1 - margin_fraction_``.
    converged_ : ndarray of shape (n_problems,), bool
    n_updates_ : int
        Updates made, summed over problems.
    n_mistakes_ : int
        Online prediction mistakes while training (every presentation, full
        and active passes; ``l_k (w·x_k + bρ) <= 0``), summed over problems.
    mistakes_per_epoch_, updates_per_epoch_ : ndarray of shape (n_epochs,)
        Per epoch (full pass and its active passes), summed over problems.
    n_updates_per_problem_ : ndarray of shape (n_problems,), int64
    n_iter_ : int
        Full epochs of the problem that needed most.
    n_iter_per_problem_ : ndarray of shape (n_problems,), int64
    n_active_passes_ : int
    t_ : int
        Examples presented (full and active passes), summed over problems.
    n_features_in_ : int

    See Also
    --------
    PDM : the perceptron with dynamic margin, ROMMA's competitor in [2]_.

    Notes
    -----
    On a pattern with :math:`B = a\cdot y_k < 1 - \epsilon`, with
    :math:`A = \|a\|^2`, :math:`C = \|y_k\|^2`, the update is the minimiser of
    ‖v‖ subject to :math:`v\cdot y_k \ge 1` and :math:`v\cdot a \ge A`:

    .. math::

        a' = c\,a + d\,y_k,\quad c = \frac{AC - B}{AC - B^2},\quad
        d = \frac{A(1-B)}{AC - B^2} \qquad (AC - B > 0),

    and :math:`a' = y_k / C` otherwise (the first update, from a = 0, and
    whenever the old half-space is slack there). This is Li & Long's rule
    with the label folded into y_k; the threshold 1 - ε (ε = 0 would be
    plain aggressive ROMMA, which need not stop after finitely many
    passes) gives ``min_k a·y_k >= 1 - ε`` on convergence, hence
    γ'_d >= (1-ε)γ_d. a is stored as a global scale
    times a vector, so an update costs O(nnz(x_k)); the extension block is
    :math:`l_k \Delta g_k` with real coefficients g_k.

    ``partial_fit`` makes one pass in the given order, no active sets; its
    rows get fresh extension coordinates.

    Sample weights. As in :class:`~perceptrons.PDM`, a row's weight
    :math:`s_k > 0` (``sample_weight`` times ``class_weight``; weight 0
    leaves the row out) is its weight in the 2-norm soft-margin loss
    :math:`\|w\|^2 + b^2 + \Delta^{-2} \sum_k s_k \xi_k^2`, i.e. its own
    extension :math:`\Delta_k = \Delta/\sqrt{s_k}`: the patterns are
    :math:`y_k = [l_k x_k,\ l_k \rho,\ l_k \Delta_k e_k]`, so
    :math:`B = a\cdot y_k = l_k (w\cdot x_k + b\rho) + \Delta_k^2 g_k`
    and :math:`C = \|y_k\|^2 = \|x_k\|^2 + \rho^2 + \Delta_k^2`, and the
    update above is unchanged. Aggressive ROMMA on these patterns keeps
    :math:`\|a\| \le 1/\gamma_d` and, on convergence,
    :math:`\gamma'_d \ge (1-\epsilon)\gamma_d`, with γ_d the margin of the
    weighted problem (``margin_bound_``, ``directional_margin_`` are taken
    in that extended space). Without extension a positive weight cannot
    change the problem (its solution is the maximum-margin separator), and
    weights other than 0 and 1 are refused.

    .. warning::
       The PDM paper gives no pseudo-code for its ROMMA runs (only
       "aggressive ROMMA", accuracy 0.01, PDM's active sets and per-epoch
       permutations). Here the update condition is Li & Long's
       :math:`a\cdot y_k < 1-\epsilon`, convergence is a full pass without
       updates, and the active sets collect :math:`a\cdot y_k \le c
       (1-\epsilon)` (PDM's Sec. 4 factors with 1-ε for PDM's threshold).
       A pattern with ``y_k = 0`` (possible only with ρ = 0 and no
       extension) is skipped; one anti-parallel to a (no feasible update)
       restarts a at :math:`y_k/\|y_k\|^2`.

    References
    ----------
    .. [1] Y. Li and P. M. Long. The relaxed online maximum margin
       algorithm. Machine Learning 46(1-3):361-387, 2002.
    .. [2] C. Panagiotakopoulos and P. Tsampouka. The perceptron with
       dynamic margin. ALT 2011, LNCS 6925, pp. 204-218, 2011.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from perceptrons import ROMMA
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = ROMMA(epsilon=0.05, random_state=0).fit(X[y < 2], y[y < 2])
    >>> bool(clf.converged_[0]) and clf.score(X[y < 2], y[y < 2]) == 1.0
    True
    """

    _parameter_constraints = {
        key: value
        for key, value in MARGIN_CONSTRAINTS.items()
        if key != "multiple_updates"
    }
    _parameter_constraints["epsilon"] = [Interval(Real, 0, 1,
                                                  closed="neither")]
    _algorithm = AggressiveROMMA

    @classmethod
    def _test_params(cls):
        return [
            {},
            {"extension": 1.0, "epsilon": 0.1},
            # Plain passes are slow on the checks' offset data (x ≈ 100):
            # a larger Δ raises the margin of the extended space.
            {"extension": 10.0, "epsilon": 0.3, "active_sets": False,
             "max_iter": 50000},
        ]

    def __init__(self, *, epsilon=0.01, augmentation=1.0,
                 extension=DEFAULT_EXTENSION, active_sets=True, store_dual=False, max_iter=1000,
                 shuffle=True, random_state=None,
                 class_weight=None, warm_start=False, n_jobs=None):
        self.epsilon = epsilon
        super().__init__(augmentation=augmentation, extension=extension,
                         active_sets=active_sets, store_dual=store_dual,
                         max_iter=max_iter, shuffle=shuffle,
                         random_state=random_state,
                         class_weight=class_weight, warm_start=warm_start,
                         n_jobs=n_jobs)
