r"""The confidence-weighted family: one pass per call, every rule and form.

CW (Crammer, Dredze & Pereira's exact convex form), AROW (Crammer, Kulesza
& Dredze 2009), SCW-I/II (Wang, Zhao & Hoi 2012), NAROW (Orabona & Crammer
2010) and NHERD (Crammer & Lee 2010) keep a Gaussian :math:`N(\mu,
\Sigma)` over the weights of each binary problem and share the shape of
their step: with :math:`m = y\,\mu\cdot x` and :math:`v = x^\top\Sigma x`,
a rule decides from (m, v) whether the round is passive and, if not, gives
three numbers,

.. math::

    \mu \leftarrow \mu + \alpha\, y\, \Sigma x,\qquad
    \Sigma \leftarrow \Sigma - \beta\, \Sigma x x^\top \Sigma
    \ \text{(full)},\qquad
    \sigma_j \leftarrow \frac{\sigma_j}{(1 + \gamma\,\sigma_j x_j^2)^k}
    \ \text{(diagonal)},

with :math:`k = 1` (the diagonal of the precision update
:math:`\Sigma^{-1} \mathrel{+}= \gamma\, x x^\top`, as SOL and DOGMA keep
AROW's and CW's diagonal) but for NHERD's own diagonal form, :math:`k = 2`.
One loop, :func:`cw_epoch`, runs every rule: the rule is the type of its
``rule`` argument (:data:`CWRule`, :data:`AROWRule`, :data:`SCW1Rule`,
:data:`SCW2Rule`, :data:`NAROWRule`, :data:`NHERDRule`) and the form the
dimension of ``cov`` (2: the diagonals, 3: the full matrices), on which the
helpers below are specialised when the loop is compiled
(:func:`~perceptrons._loops._common.specialised`): one source, no run-time
branch on the rule or the form in the sample loop (as
:mod:`perceptrons._loops.passive_aggressive` does with its variants).

Bias. The intercept b is the mean weight of a constant feature 1 with its
own variance (the last entry of each diagonal, the last row and column of
each matrix, ``cov[k, d]``): the rule runs on :math:`x' = [x, 1]`. Without
it the constant feature is 0, so b and its variance stay as they are.

Row weights (sample_weight × class_weight): a weight s > 0 is passed to
the rule, which reads it as its paper's trade-off allows (each rule's
function below); s = 1 is the unweighted arithmetic bit for bit.

Rounding. A round is passive when the rule's loss is at most
:data:`~perceptrons._loops.passive_aggressive.LOSS_ROUNDING`: an update that
attains its constraint exactly (CW, SCW within C) leaves, in float64, a
loss of the order of the score's rounding when the row is met again.

CW's variance. CW's hard constraint lets the variance along a row it
keeps mistaking collapse quadratically, :math:`v' \approx v^2/m^2` per
step, while its α grows as 1/v (the mean's step, :math:`\alpha\Sigma x`,
stays of the size of m). Once :math:`v <` :data:`TINY_VARIANCE`
(:math:`2^{-900}`) α and γ would leave float64: the round is passive, the
direction known for certain; a variance that underflows to 0 stays 0.

Averaged hypothesis. ``summed`` and ``intercept_acc`` keep
:math:`A = \sum_s (s-1)\Delta_s` over the mean's changes :math:`\Delta_s`
at global step s, so that :math:`\frac1T\sum_t \mu_t = \mu_T - A/T`
(:mod:`perceptrons._loops.passive_aggressive`'s accumulator).

Floating point: float32 rows are read as float64 values (every product of
a row's value is taken in float64), so a fit on float32 X is the fit on the
same values in float64, bit for bit.
"""

import math
from collections import namedtuple

import numpy as np
from numba import njit

from ._common import column, row_span, specialised
from .hypotheses import is_online_mistake, problem_sign
from .passive_aggressive import LOSS_ROUNDING, biased_scores
from .storage import begin_pass, store_class

__all__ = ["AROWRule", "CWRule", "NAROWRule", "NHERDRule", "RULES",
           "SCW1Rule", "SCW2Rule", "cw_epoch", "rule_step"]

#: CW, exact convex form: φ = Φ⁻¹(η), ψ = 1 + φ²/2, ζ = 1 + φ².
CWRule = namedtuple("CWRule", ["phi", "psi", "zeta", "bias"])
#: AROW: the regulariser r > 0.
AROWRule = namedtuple("AROWRule", ["r", "bias"])
#: SCW-I: CW's constants and the aggressiveness C > 0.
SCW1Rule = namedtuple("SCW1Rule", ["phi", "psi", "zeta", "C", "bias"])
#: SCW-II: CW's constants and the aggressiveness C > 0.
SCW2Rule = namedtuple("SCW2Rule", ["phi", "psi", "zeta", "C", "bias"])
#: NAROW: b > 0 (r_t = v/(b v - 1) when v > 1/b, else +∞).
NAROWRule = namedtuple("NAROWRule", ["b", "bias"])
#: NHERD: C > 0.
NHERDRule = namedtuple("NHERDRule", ["C", "bias"])

#: CW's rounds with v below this are passive (module notes: CW's variance).
TINY_VARIANCE = 2.0 ** -900

#: Each rule class by the estimator name.
RULES = {"CW": CWRule, "AROW": AROWRule, "SCW-I": SCW1Rule,
         "SCW-II": SCW2Rule, "NAROW": NAROWRule, "NHERD": NHERDRule}

# ------------------------------------------------------------------ losses
def _hinge_loss(rule, m, v):
    return 1.0 - m


def _confidence_loss(rule, m, v):
    return rule.phi * math.sqrt(v) - m


def _narow_loss(rule, m, v):
    # r_t / (r_t + v) = 1 / (b v) when v > 1/b, else 1 (r_t = +∞).
    return 1.0 - m * min(1.0, 1.0 / (rule.b * v))


_LOSSES = {CWRule: _confidence_loss, SCW1Rule: _confidence_loss,
           SCW2Rule: _confidence_loss, AROWRule: _hinge_loss,
           NHERDRule: _hinge_loss, NAROWRule: _narow_loss}


@specialised(lambda rule, m, v: _LOSSES[store_class(rule)])
def rule_loss(rule, m, v):
    """The loss whose positivity triggers an update: the hinge
    :math:`1 - m` (AROW, NHERD), :math:`\\phi\\sqrt{v} - m` (CW, SCW), or
    NAROW's hinge of the margin its prediction looks ahead to,
    :math:`1 - m\\,r_t/(r_t + v)`."""


def _hinge_passive(rule, m):
    return 1.0 - m <= LOSS_ROUNDING


def _confidence_passive(rule, m):
    return False


@specialised(lambda rule, m: _hinge_passive
             if store_class(rule) in (AROWRule, NHERDRule)
             else _confidence_passive)
def passive_by_margin(rule, m):
    """Whether the round is passive whatever v is (AROW and NHERD decide
    from m alone, so v is computed only for an update)."""


# ------------------------------------------------------------------ steps
@njit(cache=True, inline="always")
def _cw_alpha(rule, m, v):
    r"""α of the exact convex CW (and of SCW-I before its cap),
    :math:`\max\{0, (-m\psi + \sqrt{m^2\phi^4/4 + v\phi^2\zeta})
    / (v\zeta)\}`. For m > 0 its numerator is the difference of two
    close numbers; multiplied out by its conjugate it is
    :math:`\zeta(\phi^2 v - m^2) / (\sqrt{\cdot} + m\psi)`, the same
    value without the cancellation."""
    phi = rule.phi
    phi2 = phi * phi
    root = math.sqrt(m * m * phi2 * phi2 / 4.0 + v * phi2 * rule.zeta)
    if m > 0.0:
        return max(0.0, (phi2 * v - m * m) / (v * (root + m * rule.psi)))
    return max(0.0, (-m * rule.psi + root) / (v * rule.zeta))


@njit(cache=True, inline="always")
def _confidence_beta(alpha, v, phi):
    r"""``(β, γ)`` of CW/SCW from α: :math:`u = \frac14(-\alpha v\phi +
    \sqrt{\alpha^2 v^2\phi^2 + 4v})^2`, :math:`\beta = \alpha\phi /
    (\sqrt u + v\alpha\phi)` and :math:`\gamma = \alpha\phi/\sqrt u`,
    the precision's increment (:math:`\beta = \gamma/(1 + \gamma v)`).
    :math:`\sqrt u` is taken as :math:`2v / (\alpha v\phi +
    \sqrt{\alpha^2 v^2\phi^2 + 4v})`, its value without the cancellation
    of the paper's difference (which rounds to 0 once :math:`\alpha
    v\phi` is large)."""
    avp = alpha * v * phi
    sqrt_u = 2.0 * v / (avp + math.sqrt(avp * avp + 4.0 * v))
    return alpha * phi / (sqrt_u + avp), alpha * phi / sqrt_u


def _cw_step(rule, m, v, loss, s):
    # A hard constraint met is met: a positive weight is one presentation.
    if v < TINY_VARIANCE:
        # α ∝ 1/v would leave float64 (module notes).
        return 0.0, 0.0, 0.0
    alpha = _cw_alpha(rule, m, v)
    beta, gamma = _confidence_beta(alpha, v, rule.phi)
    return alpha, beta, gamma


def _scw1_step(rule, m, v, loss, s):
    alpha = min(s * rule.C, _cw_alpha(rule, m, v))
    beta, gamma = _confidence_beta(alpha, v, rule.phi)
    return alpha, beta, gamma


def _scw2_step(rule, m, v, loss, s):
    # α of SCW-II, max{0, (-(2mn + φ²mv) + γ) / (2(n² + nvφ²))}; for m > 0,
    # multiplied out by the conjugate of its numerator, 2(φ²v - m²) /
    # (γ + m(2n + φ²v)): the same value without the cancellation.
    phi = rule.phi
    phi2 = phi * phi
    n = v + 0.5 / (s * rule.C)
    root = phi * math.sqrt(phi2 * m * m * v * v
                           + 4.0 * n * v * (n + v * phi2))
    if m > 0.0:
        alpha = max(0.0, 2.0 * (phi2 * v - m * m)
                    / (root + m * (2.0 * n + phi2 * v)))
    else:
        alpha = (-(2.0 * m * n + phi2 * m * v) + root) / (
            2.0 * (n * n + n * v * phi2))
    beta, gamma = _confidence_beta(alpha, v, phi)
    return alpha, beta, gamma


def _arow_step(rule, m, v, loss, s):
    r = rule.r / s
    beta = 1.0 / (v + r)
    return loss * beta, beta, 1.0 / r


def _narow_step(rule, m, v, loss, s):
    b = rule.b
    if not v * b > 1.0:
        # r_t = +∞: the mean's step with A (Σ) as it is.
        return s, 0.0, 0.0
    r = v / (b * v - 1.0)
    beta = 1.0 / (r / s + v)
    return (r - m) * beta, beta, s / r


def _nherd_step(rule, m, v, loss, s):
    c = s * rule.C
    cv1 = 1.0 + c * v
    return loss * c / cv1, (c * c * v + 2.0 * c) / (cv1 * cv1), c


_STEPS = {CWRule: _cw_step, SCW1Rule: _scw1_step, SCW2Rule: _scw2_step,
          AROWRule: _arow_step, NAROWRule: _narow_step,
          NHERDRule: _nherd_step}


@specialised(lambda rule, m, v, loss, s: _STEPS[store_class(rule)])
def rule_step(rule, m, v, loss, s):
    """``(α, β, γ)`` of a non-passive round (module notes).

    Parameters
    ----------
    rule : CWRule, AROWRule, SCW1Rule, SCW2Rule, NAROWRule or NHERDRule
    m : float
        :math:`y(\\mu\\cdot x + b)`.
    v : float
        :math:`x'^\\top\\Sigma x' > 0`.
    loss : float
        :func:`rule_loss`, > 0.
    s : float
        The row's weight, > 0: it scales SCW's and NHERD's C and divides
        AROW's r and NAROW's r_t (the row counts s times in NAROW's sums);
        CW, whose constraint is hard, reads any positive weight as one
        presentation.
    """


def _inverse_shrink(rule, sigma, gamma, x2):
    # σ = 0 stays 0 (γ may have overflowed: inf · 0 is no variance).
    return sigma / (1.0 + gamma * sigma * x2) if sigma > 0.0 else sigma


def _nherd_shrink(rule, sigma, gamma, x2):
    d = 1.0 + gamma * sigma * x2
    return sigma / (d * d) if sigma > 0.0 else sigma


@specialised(lambda rule, sigma, gamma, x2: _nherd_shrink
             if store_class(rule) is NHERDRule else _inverse_shrink)
def shrunk(rule, sigma, gamma, x2):
    """A diagonal entry after the step: :math:`\\sigma/(1 + \\gamma\\sigma
    x^2)`, NHERD's :math:`\\sigma/(1 + C\\sigma x^2)^2`."""


# ------------------------------------------------------ the diagonal form
def _dense_variance(sig, X_data, X_indices, X_indptr, i):
    x = X_data[i]
    s = 0.0
    for j in range(x.shape[0]):
        v = np.float64(x[j])
        s += sig[j] * (v * v)
    return s


def _csr_variance(sig, X_data, X_indices, X_indptr, i):
    s = 0.0
    lo, hi = row_span(X_indptr, i)
    for p in range(lo, hi):
        v = np.float64(X_data[p])
        s += sig[column(X_indices, p)] * (v * v)
    return s


@specialised(lambda sig, X_data, X_indices, X_indptr, i:
             _dense_variance if X_data.ndim == 2 else _csr_variance)
def diagonal_variance(sig, X_data, X_indices, X_indptr, i):
    """:math:`\\sum_j \\sigma_j x_{ij}^2` (bias excluded)."""


def _dense_mean_step(w, a, sig, X_data, X_indices, X_indptr, i):
    x = X_data[i]
    for j in range(x.shape[0]):
        w[j] += a * (sig[j] * np.float64(x[j]))


def _csr_mean_step(w, a, sig, X_data, X_indices, X_indptr, i):
    lo, hi = row_span(X_indptr, i)
    for p in range(lo, hi):
        j = column(X_indices, p)
        w[j] += a * (sig[j] * np.float64(X_data[p]))


@specialised(lambda w, a, sig, X_data, X_indices, X_indptr, i:
             _dense_mean_step if X_data.ndim == 2 else _csr_mean_step)
def diagonal_mean_step(w, a, sig, X_data, X_indices, X_indptr, i):
    """``w += a Σx`` for a diagonal Σ (features only), O(nnz(x))."""


def _dense_shrink(rule, sig, gamma, X_data, X_indices, X_indptr, i):
    x = X_data[i]
    for j in range(x.shape[0]):
        v = np.float64(x[j])
        if v != 0.0:
            sig[j] = shrunk(rule, sig[j], gamma, v * v)


def _csr_shrink(rule, sig, gamma, X_data, X_indices, X_indptr, i):
    lo, hi = row_span(X_indptr, i)
    for p in range(lo, hi):
        j = column(X_indices, p)
        v = np.float64(X_data[p])
        sig[j] = shrunk(rule, sig[j], gamma, v * v)


@specialised(lambda rule, sig, gamma, X_data, X_indices, X_indptr, i:
             _dense_shrink if X_data.ndim == 2 else _csr_shrink)
def diagonal_shrink(rule, sig, gamma, X_data, X_indices, X_indptr, i):
    """Every entry of row i's features through :func:`shrunk`."""


# ------------------------------------------------------------ the full form
def _dense_cov_row(S, X_data, X_indices, X_indptr, i, bias, u):
    x = X_data[i]
    n = u.shape[0]
    for q in range(n):
        u[q] = 0.0
    for j in range(x.shape[0]):
        v = np.float64(x[j])
        if v != 0.0:
            row = S[j]
            for q in range(n):
                u[q] += v * row[q]
    v2 = 0.0
    for j in range(x.shape[0]):
        v2 += np.float64(x[j]) * u[j]
    return v2


def _csr_cov_row(S, X_data, X_indices, X_indptr, i, bias, u):
    n = u.shape[0]
    for q in range(n):
        u[q] = 0.0
    lo, hi = row_span(X_indptr, i)
    for p in range(lo, hi):
        v = np.float64(X_data[p])
        row = S[column(X_indices, p)]
        for q in range(n):
            u[q] += v * row[q]
    v2 = 0.0
    for p in range(lo, hi):
        v2 += np.float64(X_data[p]) * u[column(X_indices, p)]
    return v2


@specialised(lambda S, X_data, X_indices, X_indptr, i, bias, u:
             _dense_cov_row if X_data.ndim == 2 else _csr_cov_row)
def full_times_row(S, X_data, X_indices, X_indptr, i, bias, u):
    """``u = Σ x`` over the features (rows of the symmetric Σ, so that a
    CSR row reads its rows of Σ), returning ``xᵀ u`` (bias excluded)."""


# ------------------------------------------------------------ by the form
def _diag_variance(cov, k, store, i, bias, u):
    sig = cov[k]
    d = sig.shape[0] - 1
    return (diagonal_variance(sig, store.X_data, store.X_indices,
                              store.X_indptr, i) + bias * sig[d])


def _full_variance(cov, k, store, i, bias, u):
    S = cov[k]
    d = S.shape[0] - 1
    v = full_times_row(S, store.X_data, store.X_indices, store.X_indptr, i,
                       bias, u)
    if bias:
        # u += Σ[d], the constant feature's row; then x'ᵀu = xᵀΣx + 2 xᵀΣ[d]
        # + Σ_dd, and xᵀΣ[d] is u_d before the addition (Σ is symmetric).
        row = S[d]
        vb = u[d]
        for q in range(u.shape[0]):
            u[q] += row[q]
        v += vb + u[d]
    else:
        u[d] = 0.0
    return v


@specialised(lambda cov, k, store, i, bias, u:
             _diag_variance if cov.ndim == 2 else _full_variance)
def variance(cov, k, store, i, bias, u):
    """:math:`v = x'^\\top\\Sigma_k x'` of row i, with ``x' = [x, bias]``;
    the full form leaves :math:`\\Sigma_k x'` in ``u``."""


def _diag_step(rule, cov, k, store, i, bias, u, a, c, beta, gamma,
               intercept, intercept_acc, averaged):
    sig = cov[k]
    d = sig.shape[0] - 1
    X_data, X_indices, X_indptr = store.X_data, store.X_indices, store.X_indptr
    diagonal_mean_step(store.current[k], a, sig, X_data, X_indices,
                       X_indptr, i)
    if bias:
        intercept[k] += a * sig[d]
    if averaged:
        diagonal_mean_step(store.summed[k], c, sig, X_data, X_indices,
                           X_indptr, i)
        if bias:
            intercept_acc[k] += c * sig[d]
    diagonal_shrink(rule, sig, gamma, X_data, X_indices, X_indptr, i)
    if bias:
        sig[d] = shrunk(rule, sig[d], gamma, 1.0)


def _full_step(rule, cov, k, store, i, bias, u, a, c, beta, gamma,
               intercept, intercept_acc, averaged):
    S = cov[k]
    n = u.shape[0]
    d = n - 1
    w = store.current[k]
    for q in range(d):
        w[q] += a * u[q]
    if bias:
        intercept[k] += a * u[d]
    if averaged:
        ws = store.summed[k]
        for q in range(d):
            ws[q] += c * u[q]
        if bias:
            intercept_acc[k] += c * u[d]
    # Σ -= β u uᵀ, each entry as (u_p u_q) β: the same bits for (p, q) and
    # (q, p), so Σ stays exactly symmetric.
    for p in range(n):
        up = u[p]
        if up != 0.0:
            row = S[p]
            for q in range(n):
                row[q] -= (up * u[q]) * beta


@specialised(lambda rule, cov, k, store, i, bias, u, a, c, beta, gamma,
             intercept, intercept_acc, averaged:
             _diag_step if cov.ndim == 2 else _full_step)
def gaussian_step(rule, cov, k, store, i, bias, u, a, c, beta, gamma,
                  intercept, intercept_acc, averaged):
    """The step of problem k on row i: the mean by ``a = α y`` times
    :math:`\\Sigma x'` (and its accumulator by ``c``), then the covariance
    (module notes), Σ before the step in both."""


# ------------------------------------------------------------------ pass
@njit(cache=True, nogil=True)
def cw_epoch(store, cov, targets, order, weights, rule, intercept,
             intercept_acc, t_start, averaged, scores, u, n_updates):
    """One pass of a confidence-weighted rule over ``order``, every
    binary problem (one, or one per class: one-vs-rest) on each row.

    Parameters
    ----------
    store : PrimalStore
        The rows and the means μ (``current``, one row per problem) and
        their accumulator (``summed``, averaged; (n_rows, 0) otherwise).
    cov : ndarray of shape (n_rows, d + 1) or (n_rows, d + 1, d + 1)
        The diagonals of Σ, or the full matrices, over ``[x, 1]``; updated
        in place.
    targets : ndarray of shape (n_samples,), int64
        Class index of each row (one problem: 1 is y = +1).
    order : ndarray of shape (n_steps,), int64
    weights : ndarray of shape (n_samples,) or (0,), float64
        Each row's weight s > 0 (empty: every weight is 1).
    rule : CWRule, AROWRule, SCW1Rule, SCW2Rule, NAROWRule or NHERDRule
        The rule, its parameters and whether the bias is learnt.
    intercept, intercept_acc : ndarray of shape (n_rows,), float64
        b of each problem and its accumulator.
    t_start : int
        Steps presented before this pass.
    averaged : bool
        Keep the accumulators.
    scores : ndarray of shape (n_rows,), float64
        Work space.
    u : ndarray of shape (d + 1,), float64
        Work space (:math:`\\Sigma x'` of the full form).
    n_updates : ndarray of shape (n_rows,), int64
        Rounds whose weights changed, per problem, incremented in place.

    Returns
    -------
    n_mistakes : int
        Online mistakes before the steps: ``y (μ·x + b) <= 0`` for one
        problem, the true class not scoring strictly highest otherwise.
    """
    bias = 1.0 if rule.bias else 0.0
    n_rows = intercept.shape[0]
    n_mistakes = 0
    ctx = begin_pass(store)
    for step in range(order.shape[0]):
        i = order[step]
        target = targets[i]
        ctx = biased_scores(store, ctx, order, step, scores, intercept)
        if is_online_mistake(scores, target, n_rows):
            n_mistakes += 1
        s = 1.0 if weights.shape[0] == 0 else weights[i]
        for k in range(n_rows):
            y = problem_sign(target, k, n_rows)
            m = y * scores[k]
            if passive_by_margin(rule, m):
                continue
            v = variance(cov, k, store, i, bias, u)
            if not v > 0.0:
                # x' = 0: no step moves μ or Σ.
                continue
            loss = rule_loss(rule, m, v)
            if not loss > LOSS_ROUNDING:
                continue
            alpha, beta, gamma = rule_step(rule, m, v, loss, s)
            if not (alpha > 0.0 or beta > 0.0):
                continue
            a = alpha * y
            gaussian_step(rule, cov, k, store, i, bias, u, a,
                          (t_start + step) * a, beta, gamma, intercept,
                          intercept_acc, averaged)
            n_updates[k] += 1
    return n_mistakes
