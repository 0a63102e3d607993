r"""The Passive-Aggressive algorithms of Crammer et al. (JMLR 2006), and the
confidence-weighted family beside them, one pass per call.

One loop, :func:`pa_epoch`, for every variant and multiclass form: the
binary algorithm of Figure 1 of the paper run on one weight vector (two
classes) or on one per class (one-vs-rest, every problem in the same read
of X), or the multi-prototype multiclass update of the paper's multiclass
section, the form the type of its ``form`` argument (:data:`OneVsRest`,
:data:`Prototypes`) on which the helpers below are specialised. w is kept
as a vector (primal) or as coefficients over support vectors with a Mercer
kernel (the kernel form of Sec. 3), chosen by the type of its store
(:mod:`perceptrons._loops.storage`).

The same pass runs the confidence-weighted family (CW, AROW, SCW, NAROW,
NHERD: :mod:`perceptrons._loops.confidence_weighted`), whose step is
Passive-Aggressive's with the covariance Σ of a Gaussian over the weights
in place of the identity: :math:`w \mathrel{+}= \alpha y\,\Sigma x`, Σ
shrunk along x. Their forms are one-vs-rest problems whose weights are
Gaussians (:data:`~perceptrons._loops.confidence_weighted.DiagonalGaussians`,
:data:`~perceptrons._loops.confidence_weighted.FullGaussians`), their rules
types of ``rule`` beside PA's: a round's margin m, its norm (PA:
:math:`\|x\|^2`; the family: :math:`v = x^\top\Sigma x`), its loss and its
step ``(α, β, γ)`` are helpers specialised on the rule and the form
(:func:`signed_margin`, :func:`problem_norm`, :func:`rule_loss`,
:func:`rule_step`), and a Passive-Aggressive step leaves β = γ = 0 and no
covariance (:func:`settle`).

On example :math:`(x_t, y_t)`, :math:`y_t \in \{-1, +1\}`, with the hinge
loss of Eq. (1), :math:`\ell_t = \max\{0,\ 1 - y_t (w_t\cdot x_t)\}`, the
update of Eq. (3) and (6) is

.. math::

    w_{t+1} = w_t + \tau_t y_t x_t,\qquad
    \tau_t = \frac{\ell_t}{\|x_t\|^2}\ \text{(PA)},\quad
    \min\Bigl\{C, \frac{\ell_t}{\|x_t\|^2}\Bigr\}\ \text{(PA-I)},\quad
    \frac{\ell_t}{\|x_t\|^2 + \frac{1}{2C}}\ \text{(PA-II)}.

Multi-prototype (one prototype :math:`w^r` per class, the score of class r
:math:`w^r\cdot x`): with :math:`s_t` the highest-scoring class other than
:math:`y_t` (lowest index among equals),
:math:`\ell_t = \max\{0,\ 1 - (w^{y_t}\cdot x_t - w^{s_t}\cdot x_t)\}`,
and the step is Figure 1's on :math:`\Phi(x_t, y_t) - \Phi(x_t, s_t)`,
whose squared norm is :math:`2\|x_t\|^2` (:math:`\Phi(x, r)` puts x in
block r): :math:`w^{y_t} \mathrel{+}= \tau_t x_t`,
:math:`w^{s_t} \mathrel{-}= \tau_t x_t`, τ_t as above with
:math:`2\|x_t\|^2` in place of :math:`\|x_t\|^2` (with a bias, each
prototype has its own b, and the norm is :math:`2(\|x_t\|^2 + 1)`).

The variant is the type of the ``rule`` argument (:data:`PARule`,
:data:`PA1Rule`, :data:`PA2Rule`), and :func:`step_size` is specialised on
it when the loop is compiled (:func:`~perceptrons._loops._common.specialised`):
one source, one compiled loop per variant, no run-time branch on the
variant in the sample loop (STYLE habit 1; scikit-learn's ``_plain_sgd``
branches on ``learning_rate == PA1/PA2`` per example).

Bias (``rule.bias``, PA's ``rule.intercept_step``). The intercept b is
the weight of a constant feature 1: the rule runs on :math:`x' = [x, 1]`,
:math:`w' = [w, b]`, so the score is :math:`w\cdot x + b`, the norm in τ is
:math:`\|x\|^2 + 1` (``bias`` True) and an update adds :math:`\tau y` to b
(``intercept_step`` True). Without it (both False), b is left as it is
(0, or the ``intercept_init`` given). scikit-learn's intercept step is
``bias`` False (τ from :math:`\|x\|^2` alone) with the float
``intercept_step`` 1.0 (b gains :math:`\tau y`), or 0.01 on sparse input
(its ``SPARSE_INTERCEPT_DECAY``); a float share is a compiled variant of
its own (:func:`by_share`), so the constant feature's arithmetic is the one
it always was. The family's rules have no such choice: their b gains its
share of the step when ``bias`` is set (:func:`intercept_share`).

Row weights (``weights``, sample_weight × class_weight). A row of weight
:math:`s > 0` has the aggressiveness :math:`sC` in the paper's problems
(Eq. (4): :math:`\tfrac12\|w - w_t\|^2 + sC\xi`; Eq. (5):
:math:`\tfrac12\|w - w_t\|^2 + sC\xi^2`): PA-I :math:`\tau =
\min\{sC, \ell/\|x\|^2\}`, PA-II :math:`\tau = \ell/(\|x\|^2 +
\tfrac{1}{2sC})`; PA (:math:`C = \infty`) does not read it (the
estimator refuses weights other than 0 and 1 for PA). For PA-I an integer
weight k is then k consecutive presentations of the row. s = 1 is the
unweighted arithmetic bit for bit.

Rounding. A step is an update when :math:`\ell_t >` :data:`LOSS_ROUNDING`
(:math:`2^{-40} \approx 9.1 \cdot 10^{-13}`), not :math:`\ell_t > 0`.
An unclipped step leaves :math:`y_t w_{t+1}\cdot x_t = 1` in exact
arithmetic (Eq. (2)); in float64 the score comes out 1 give or take the
rounding of its sum, so an example met again at the margin "suffers" a
loss of ~1e-16 and makes a step of that size. On separable data the
examples at the margin then trade such steps for ever (measured: 2 of 300
rows every pass, for 400 passes, through the origin), and the last
hypothesis never has a pass without an update, which is what ends it
(``tol``). A loss below :math:`2^{-40}` is the rounding of a margin
already attained (it leaves room for scores whose terms are 10³ times the
margin); treating it as 0 changes w by less than :math:`2^{-40}/\|x\|`
per such step, and makes those runs stop.

Averaged hypothesis (``averaged``). The loop keeps
:math:`A = \sum_s (s - 1)\,\Delta_s` over the updates :math:`\Delta_s` made
at global step s (``t_start`` steps before this pass), in ``summed`` and
``intercept_acc``, so that the average of the T hypotheses after each
step is :math:`\frac1T\sum_{t=1}^T w_t = w_T - A/T` (the Perceptron's
accumulator, :mod:`perceptrons._loops.perceptron`): an update costs twice
as much, a step without one nothing.

References
----------
K. Crammer, O. Dekel, J. Keshet, S. Shalev-Shwartz and Y. Singer. Online
passive-aggressive algorithms. JMLR 7:551-585, 2006.
"""

from collections import namedtuple

from numba.core import types

from ._common import best_other, loop_helper, specialised
from .confidence_weighted import (GAUSSIAN_FORMS, LOSSES, MARGIN_DECIDES,
                                  STEPS, gaussian_move, gaussian_settle,
                                  gaussian_variance)
from .storage import (
    add_example,
    add_example_sum,
    add_pair,
    add_pair_sum,
    admits,
    begin_pass,
    raw_scores,
    self_sq_norm,
    storage_loop,
    store_class,
)
from .storage import settle as make_room
from .targets import is_online_mistake, problem_sign

__all__ = ["LOSS_ROUNDING", "OneVsRest", "PA1Rule", "PA2Rule", "PARule",
           "Prototypes", "RULES", "biased_scores", "pa_epoch", "rule_loss",
           "rule_step", "step_size"]

#: The hinge loss below which a step is passive (module notes: rounding).
LOSS_ROUNDING = 2.0 ** -40

#: PA (Eq. (3)): ``bias`` (True: the constant feature's 1 is in ``‖x'‖²``;
#: False: no bias, or scikit-learn's step), and ``intercept_step``, what b
#: gains of each step ``τ y``: True the whole step (the constant feature's),
#: False nothing (b not learnt), a float that share (scikit-learn's: 1.0 on
#: dense input, 0.01 on sparse; module notes: bias).
PARule = namedtuple("PARule", ["C", "bias", "intercept_step"])
#: PA-I (Eq. (6), first case): aggressiveness ``C`` > 0.
PA1Rule = namedtuple("PA1Rule", ["C", "bias", "intercept_step"])
#: PA-II (Eq. (6), second case): aggressiveness ``C`` > 0.
PA2Rule = namedtuple("PA2Rule", ["C", "bias", "intercept_step"])

#: The rule of each ``variant`` of the estimator.
RULES = {"PA": PARule, "PA-I": PA1Rule, "PA-II": PA2Rule}

#: The binary problem(s): one weight row for two classes, one per class
#: (one-vs-rest) otherwise; ``n_rows`` of them.
OneVsRest = namedtuple("OneVsRest", ["n_rows"])
#: One prototype per class, ``n_rows`` of them (the multiclass update).
Prototypes = namedtuple("Prototypes", ["n_rows"])


def _pa_step(rule, loss, sq_norm, weight):
    return loss / sq_norm


def _pa1_step(rule, loss, sq_norm, weight):
    return min(weight * rule.C, loss / sq_norm)


def _pa2_step(rule, loss, sq_norm, weight):
    return loss / (sq_norm + 0.5 / (weight * rule.C))


_STEPS = {PARule: _pa_step, PA1Rule: _pa1_step, PA2Rule: _pa2_step}


@specialised(lambda rule, loss, sq_norm, weight:
             _STEPS[store_class(rule)])
def step_size(rule, loss, sq_norm, weight):
    """τ_t of Eq. (3) (PA) or Eq. (6) (PA-I, PA-II), the row's weight s
    scaling C (module notes).

    Parameters
    ----------
    rule : PARule, PA1Rule or PA2Rule
    loss : float
        ℓ_t > 0.
    sq_norm : float
        ``‖x_t‖²`` (plus 1 with ``rule.bias``), > 0.
    weight : float
        The row's weight s > 0.
    """


def _pa_rule_step(rule, m, v, loss, s):
    return step_size(rule, loss, v, s), 0.0, 0.0


@specialised(lambda rule, m, v, loss, s: STEPS.get(store_class(rule),
                                                   _pa_rule_step))
def rule_step(rule, m, v, loss, s):
    """``(α, β, γ)`` of a non-passive round: PA's ``(τ_t, 0, 0)``
    (:func:`step_size`, v the norm :math:`\\|x'\\|^2`), the family's from
    its rule (:data:`~perceptrons._loops.confidence_weighted.STEPS`, v
    :math:`x'^\\top\\Sigma x'`).

    Parameters
    ----------
    rule : named tuple
        A rule of PA or of the family.
    m : float
        The margin (:func:`signed_margin`).
    v : float
        The norm (:func:`problem_norm`), > 0.
    loss : float
        :func:`rule_loss`, above :data:`LOSS_ROUNDING`.
    s : float
        The row's weight, > 0.
    """


def _pa_intercept_share(rule):
    return rule.intercept_step


def _family_intercept_share(rule):
    return rule.bias


@specialised(lambda rule: _pa_intercept_share
             if store_class(rule) in _STEPS else _family_intercept_share)
def intercept_share(rule):
    """The ``bias`` argument of :func:`move`: PA's ``rule.intercept_step``
    (b gains that share of ``τ y``), the family's ``rule.bias`` (b gains
    its share of the Gaussian's step when set; module notes: bias)."""


def _hinge(rule, m, v):
    return 1.0 - m


@specialised(lambda rule, m, v: LOSSES.get(store_class(rule), _hinge))
def rule_loss(rule, m, v):
    """The loss whose positivity makes a step: PA's hinge :math:`1 - m`,
    the family's from its rule
    (:data:`~perceptrons._loops.confidence_weighted.LOSSES`)."""


def _hinge_passive(rule, m):
    return 1.0 - m <= LOSS_ROUNDING


def _never_passive(rule, m):
    return False


@specialised(lambda rule, m: _never_passive
             if store_class(rule) in LOSSES
             and store_class(rule) not in MARGIN_DECIDES else _hinge_passive)
def passive_by_margin(rule, m):
    """Whether the round is passive whatever its norm: the hinge rules
    decide from m alone (so that the family's v is computed only for a
    step); CW's, SCW's and NAROW's losses read v."""


@loop_helper
def biased_scores(store, ctx, order, step, scores, intercept):
    """``scores[r] = w_r·x_i + b_r`` for every row, ``i = order[step]``
    (:func:`~perceptrons._loops.storage.raw_scores` plus the bias); returns
    the pass context."""
    ctx = raw_scores(store, ctx, order, step, scores,
                     store.current.shape[0])
    for r in range(intercept.shape[0]):
        scores[r] = scores[r] + intercept[r]
    return ctx


# ----------------------------------------------------- the multiclass form
def by_form(one_vs_rest, prototypes, gaussians=None):
    """The ``choose`` of :func:`~perceptrons._loops._common.specialised`
    for a helper of the forms: its implementation for :data:`OneVsRest`,
    :data:`Prototypes` or the family's Gaussian forms (the first argument;
    one-vs-rest's unless ``gaussians`` is given)."""
    def choose(form, *args):
        cls = store_class(form)
        if cls is Prototypes:
            return prototypes
        if cls in GAUSSIAN_FORMS and gaussians is not None:
            return gaussians
        return one_vs_rest

    return choose


def by_share(flagged, scaled):
    """The ``choose`` of a helper whose last argument is the intercept's
    share of a step (:func:`intercept_share`): ``flagged(*args)`` for a
    bool (b gains the whole step, or nothing: the constant feature's step,
    with the arithmetic it always had), ``scaled(*args)`` for a float (b
    gains that share: scikit-learn's step). The choice is made by the
    type, when the loop is compiled: a float share multiplied by a flag's
    1.0 would change no value but lets the compiler fuse the products
    otherwise (measured: the dual averaged form's coefficients moved by
    ~1e-16 when every share was a float)."""
    def choose(*args):
        bias = args[-1]
        flag = isinstance(bias, (bool, types.Boolean))
        return (flagged if flag else scaled)(*args)

    return choose


def _rows_count(form):
    return form.n_rows


def _gaussians_count(form):
    return form.cov.shape[0]


@specialised(by_form(_rows_count, _rows_count, _gaussians_count))
def n_problems(form):
    """The weight rows: ``n_rows``, or one Gaussian per problem."""


def _ovr_counters(form):
    return n_problems(form)


def _prototype_counters(form):
    return 1


@specialised(by_form(_ovr_counters, _prototype_counters))
def counters(form):
    """Losses per step: one per problem (one-vs-rest), one (prototypes)."""


def _ovr_rival(form, scores, target):
    return -1


def _prototype_rival(form, scores, target):
    return best_other(scores, target)


@specialised(by_form(_ovr_rival, _prototype_rival))
def rival(form, scores, target):
    """The highest-scoring class other than the target (lowest index among
    equals), -1 one-vs-rest."""


def _ovr_mistake(form, scores, target, other):
    return is_online_mistake(scores, target, n_problems(form))


def _prototype_mistake(form, scores, target, other):
    return scores[other] >= scores[target]


@specialised(by_form(_ovr_mistake, _prototype_mistake))
def is_mistake(form, scores, target, other):
    """The online mistake: ``y (w·x + b) <= 0`` for one problem, another
    class scoring at least the true one otherwise; a multi-label example's
    count of problems with ``y_k (w_k·x + b_k) <= 0``
    (:func:`~perceptrons._loops.targets.is_online_mistake`)."""


def _ovr_sq_norm(form, store, i, bias):
    return self_sq_norm(store, i) + bias


def _prototype_sq_norm(form, store, i, bias):
    return 2.0 * (self_sq_norm(store, i) + bias)


def _gaussians_sq_norm(form, store, i, bias):
    return 1.0


@specialised(by_form(_ovr_sq_norm, _prototype_sq_norm, _gaussians_sq_norm))
def step_sq_norm(form, store, i, bias):
    """The squared norm in τ: ``‖x'‖²`` of row i with ``x' = [x, bias]``,
    or ``‖Φ(x, y) - Φ(x, s)‖² = 2 ‖x'‖²`` (prototypes); 1 for the
    Gaussian forms, whose norms are each problem's (:func:`problem_norm`),
    so that they do not read the rows' norms."""


def _row_norm(form, store, k, i, bias, sq_norm):
    return sq_norm


def _gaussians_norm(form, store, k, i, bias, sq_norm):
    return gaussian_variance(form, k, store, i, bias)


@specialised(by_form(_row_norm, _row_norm, _gaussians_norm))
def problem_norm(form, store, k, i, bias, sq_norm):
    """The norm in problem k's step: the row's (PA's ``sq_norm``, from
    :func:`step_sq_norm`), or :math:`v = x'^\\top\\Sigma_k x'` (the
    Gaussian forms; the full form's :math:`\\Sigma_k x'` left in
    ``form.u``)."""


def _ovr_margin(form, scores, target, k, other):
    y = problem_sign(target, k, n_problems(form))
    return y, y * scores[k]


def _prototype_margin(form, scores, target, k, other):
    return 1.0, scores[target] - scores[other]


@specialised(by_form(_ovr_margin, _prototype_margin))
def signed_margin(form, scores, target, k, other):
    """``(y, m)``: the label of loss k and its margin, ``y (w_k·x + b_k)``
    (problem k), ``w^y·x - w^s·x`` (prototypes, y = 1)."""


def _ovr_move(form, store, target, k, other, a, i, offsets, bias):
    add_example(store, k, a, i)
    if bias:
        offsets[k] += a


def _prototype_move(form, store, target, k, other, a, i, offsets, bias):
    add_pair(store, target, other, a, i)
    if bias:
        offsets[target] += a
        offsets[other] -= a


def _ovr_shift(form, target, k, other, v, offsets, share):
    offsets[k] += share * v


def _prototype_shift(form, target, k, other, v, offsets, share):
    offsets[target] += share * v
    offsets[other] -= share * v


@specialised(by_form(_ovr_shift, _prototype_shift))
def shift(form, target, k, other, v, offsets, share):
    """The intercepts' part of a step v when b gains the float ``share``
    of it (scikit-learn's step, :func:`by_share`): ``b_k``, or ``b^y`` and
    ``-b^s`` (prototypes)."""


def _move_scaled(form, store, target, k, other, a, i, offsets, bias):
    move(form, store, target, k, other, a, i, offsets, False)
    shift(form, target, k, other, a, offsets, bias)


def _gaussians_move(form, store, target, k, other, a, i, offsets, bias):
    gaussian_move(form, store, k, a, i, offsets, bias, store.current)


@specialised(by_share(by_form(_ovr_move, _prototype_move, _gaussians_move),
                      lambda *args: _move_scaled))
def move(form, store, target, k, other, a, i, offsets, bias):
    """The step of loss k on row i: ``w_k += a x`` (problem k), or
    ``w^y += a x``, ``w^s -= a x`` (prototypes), or ``μ_k += a Σ_k x``
    (Gaussians); the intercepts (``offsets``) gain the step if ``bias``
    is True, or ``bias`` times the step if it is a float (PA's
    scikit-learn step: :func:`intercept_share`)."""


def _ovr_move_sum(form, store, target, k, other, c, i, offsets, bias):
    add_example_sum(store, k, c, i)
    if bias:
        offsets[k] += c


def _prototype_move_sum(form, store, target, k, other, c, i, offsets, bias):
    add_pair_sum(store, target, other, c, i)
    if bias:
        offsets[target] += c
        offsets[other] -= c


def _move_sum_scaled(form, store, target, k, other, c, i, offsets, bias):
    move_sum(form, store, target, k, other, c, i, offsets, False)
    shift(form, target, k, other, c, offsets, bias)


def _gaussians_move_sum(form, store, target, k, other, c, i, offsets,
                       bias):
    gaussian_move(form, store, k, c, i, offsets, bias, store.summed)


@specialised(by_share(by_form(_ovr_move_sum, _prototype_move_sum,
                             _gaussians_move_sum),
                     lambda *args: _move_sum_scaled))
def move_sum(form, store, target, k, other, c, i, offsets, bias):
    """:func:`move` on the averaged hypothesis's accumulators (``offsets``
    the intercepts')."""


def _no_settle(form, rule, k, store, i, bias, beta, gamma):
    pass


def _gaussians_settle(form, rule, k, store, i, bias, beta, gamma):
    gaussian_settle(form, rule, k, store, i, bias, beta, gamma)


@specialised(by_form(_no_settle, _no_settle, _gaussians_settle))
def settle(form, rule, k, store, i, bias, beta, gamma):
    """After a step's moves: the Gaussian's covariance step (nothing for
    PA's forms, whose Σ is the identity for ever)."""


def _ovr_counted(form, target, k):
    return k


def _prototype_counted(form, target, k):
    return target


@specialised(by_form(_ovr_counted, _prototype_counted))
def counted(form, target, k):
    """The counter an update of loss k counts at: its problem, or the true
    class (prototypes)."""


# ------------------------------------------------------------------ pass
@storage_loop
def pa_epoch(store, targets, order, weights, rule, form, intercept,
             intercept_acc, t_start, averaged, scores, n_updates):
    """One pass of Figure 1 over ``order``: every problem of the binary
    algorithm, or the multi-prototype update; or of a confidence-weighted
    rule, every problem's Gaussian (module notes).

    Parameters
    ----------
    store : PrimalStore, DualStore or BudgetStore
        The weights (:mod:`perceptrons._loops.storage`): one row per binary
        problem or per prototype; ``summed`` holds the averaged
        hypothesis's accumulator A (module notes) when ``averaged``.
        Updated in place (a dual store's support set grows; under a
        budget, each step ends with the budget's room-making, and a step
        the Stoptron refuses is not made).
    targets : ndarray of shape (n_samples,) or (n_samples, K), integer
        Class index of each row. One problem: 1 is y = +1, 0 is y = -1; K
        problems: problem k's label is +1 where ``targets == k``, -1
        elsewhere (one-vs-rest); prototypes: the true class. Or,
        multi-label (one-vs-rest and the Gaussian forms), each row's labels
        ±1 (int8), problem k's in column k
        (:mod:`perceptrons._loops.targets`).
    order : ndarray of shape (n_steps,), int64
        Rows to present, in order.
    weights : ndarray of shape (n_samples,) or (0,), float64
        Each row's weight s > 0, scaling C (empty: every weight is 1; the
        family's rules read it as their modules say).
    rule : PARule, PA1Rule or PA2Rule, or a rule of the family
        The variant, its C and the intercept's step (module notes: bias).
    form : OneVsRest, Prototypes, DiagonalGaussians or FullGaussians
        The multiclass form; the Gaussian forms carry each problem's
        covariance (updated in place) and run with a primal store.
    intercept, intercept_acc : ndarray of shape (n_rows,), float64
        The bias b of each row and its accumulator A_b, updated in place.
    t_start : int
        Steps presented before this pass (the global step of
        ``order[0]`` is ``t_start + 1``).
    averaged : bool
        Keep the accumulators of the averaged hypothesis.
    scores : ndarray of shape (n_rows,), float64
        Work space.
    n_updates : ndarray of shape (n_rows,), int64
        Updates per problem (prototypes: counted at the true class),
        incremented in place.

    Returns
    -------
    n_mistakes : int
        Online prediction mistakes, before the update: ``y (w·x + b) <= 0``
        for one problem; otherwise the true class's score not strictly
        above every other class's; multi-label, one per problem with
        ``y_k (w_k·x + b_k) <= 0``.
    """
    bias = 1.0 if rule.bias else 0.0
    b_share = intercept_share(rule)
    n_losses = counters(form)
    n_mistakes = 0
    ctx = begin_pass(store)
    for step in range(order.shape[0]):
        i = order[step]
        target = targets[i]
        ctx = biased_scores(store, ctx, order, step, scores, intercept)
        other = rival(form, scores, target)
        # A bool (one class per example) or a count (a multi-label row).
        n_mistakes += is_mistake(form, scores, target, other)
        # ‖x'‖² of the augmented instance [x, 1] with a bias.
        sq_norm = step_sq_norm(form, store, i, bias)
        if not sq_norm > 0.0:
            # x = 0 and no bias: no step moves w (PA's τ is undefined).
            continue
        weight = 1.0 if weights.shape[0] == 0 else weights[i]
        for k in range(n_losses):
            y, m = signed_margin(form, scores, target, k, other)
            if passive_by_margin(rule, m):
                continue
            v = problem_norm(form, store, k, i, bias, sq_norm)
            if not v > 0.0:
                # A Gaussian's x'ᵀΣx' = 0: no step moves it.
                continue
            loss = rule_loss(rule, m, v)
            if not loss > LOSS_ROUNDING or not admits(store, k, i):
                # Passive, or a full Stoptron's refusal (counted, not made).
                continue
            alpha, beta, gamma = rule_step(rule, m, v, loss, weight)
            if not (alpha > 0.0 or beta > 0.0):
                continue
            a = alpha * y
            move(form, store, target, k, other, a, i, intercept, b_share)
            if averaged:
                # A += (s - 1) Δ at global step s = t_start + step + 1.
                c = (t_start + step) * a
                move_sum(form, store, target, k, other, c, i, intercept_acc,
                         b_share)
            settle(form, rule, k, store, i, bias, beta, gamma)
            n_updates[counted(form, target, k)] += 1
        # A budget makes room once the step's updates are made.
        make_room(store)
    return n_mistakes
