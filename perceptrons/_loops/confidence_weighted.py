r"""The confidence-weighted family: its rules and its Gaussian forms.

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
With :math:`\Sigma = I` for ever the step is Passive-Aggressive's (AROW's
mean step is PA-II's with :math:`1/(2C) = r`), and the family runs in
Passive-Aggressive's one pass,
:func:`~perceptrons._loops.passive_aggressive.pa_epoch`: the rule is the
type of its ``rule`` argument (:data:`CWRule`, :data:`AROWRule`,
:data:`SCW1Rule`, :data:`SCW2Rule`, :data:`NAROWRule`, :data:`NHERDRule`)
and the covariance its ``form``, one-vs-rest problems whose weights are
Gaussians (:data:`DiagonalGaussians`, :data:`FullGaussians`), on which the
helpers below are specialised when the loop is compiled
(:func:`~perceptrons._loops._common.specialised`): one source, no run-time
branch on the rule or the form in the sample loop.

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
from .storage import store_class

__all__ = ["AROWRule", "CWRule", "DiagonalGaussians", "FullGaussians",
           "GAUSSIAN_FORMS", "LOSSES", "MARGIN_DECIDES", "NAROWRule",
           "NHERDRule", "RULES", "SCW1Rule", "SCW2Rule", "STEPS",
           "TINY_VARIANCE", "gaussian_move",
           "gaussian_settle", "gaussian_variance"]

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

#: One-vs-rest problems (``cov.shape[0]`` of them) whose weights are
#: Gaussians: ``cov`` the diagonals of their Σ over ``[x, 1]``, shape
#: (n_rows, d + 1), or the matrices, (n_rows, d + 1, d + 1); ``u`` a work
#: row of d + 1 (:math:`\Sigma x'` of the full form).
DiagonalGaussians = namedtuple("DiagonalGaussians", ["cov", "u"])
FullGaussians = namedtuple("FullGaussians", ["cov", "u"])
GAUSSIAN_FORMS = (DiagonalGaussians, FullGaussians)

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


#: Each rule's loss, whose positivity triggers an update: the hinge
#: :math:`1 - m` (AROW, NHERD), :math:`\phi\sqrt{v} - m` (CW, SCW), or
#: NAROW's hinge of the margin its prediction looks ahead to,
#: :math:`1 - m\,r_t/(r_t + v)`.
LOSSES = {CWRule: _confidence_loss, SCW1Rule: _confidence_loss,
          SCW2Rule: _confidence_loss, AROWRule: _hinge_loss,
          NHERDRule: _hinge_loss, NAROWRule: _narow_loss}

#: The rules whose passive rounds m alone decides (the hinge, 1 - m), so
#: that v is computed only for an update.
MARGIN_DECIDES = (AROWRule, NHERDRule)


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


#: Each rule's ``(α, β, γ)`` of a non-passive round, from ``(m, v, loss,
#: s)``, s the row's weight > 0: it scales SCW's and NHERD's C and divides
#: AROW's r and NAROW's r_t (the row counts s times in NAROW's sums); CW,
#: whose constraint is hard, reads any positive weight as one presentation.
STEPS = {CWRule: _cw_step, SCW1Rule: _scw1_step, SCW2Rule: _scw2_step,
         AROWRule: _arow_step, NAROWRule: _narow_step,
         NHERDRule: _nherd_step}


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
def _by_gaussians(diagonal, full):
    """The ``choose`` of a helper of the Gaussian forms (first argument)."""
    return lambda form, *args: (full if store_class(form) is FullGaussians
                                else diagonal)


def _diag_variance(form, k, store, i, bias):
    sig = form.cov[k]
    d = sig.shape[0] - 1
    return (diagonal_variance(sig, store.X_data, store.X_indices,
                              store.X_indptr, i) + bias * sig[d])


def _full_variance(form, k, store, i, bias):
    S = form.cov[k]
    u = form.u
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


@specialised(_by_gaussians(_diag_variance, _full_variance))
def gaussian_variance(form, k, store, i, bias):
    """:math:`v = x'^\\top\\Sigma_k x'` of row i, with ``x' = [x, bias]``;
    the full form leaves :math:`\\Sigma_k x'` in ``form.u``."""


def _diag_move(form, store, k, a, i, offsets, bias, rows):
    sig = form.cov[k]
    diagonal_mean_step(rows[k], a, sig, store.X_data, store.X_indices,
                       store.X_indptr, i)
    if bias:
        offsets[k] += a * sig[sig.shape[0] - 1]


def _full_move(form, store, k, a, i, offsets, bias, rows):
    u = form.u
    d = u.shape[0] - 1
    w = rows[k]
    for q in range(d):
        w[q] += a * u[q]
    if bias:
        offsets[k] += a * u[d]


@specialised(_by_gaussians(_diag_move, _full_move))
def gaussian_move(form, store, k, a, i, offsets, bias, rows):
    """``rows[k] += a Σ_k x`` and ``offsets[k] += a (Σ_k x')_d`` (the
    bias's, if learnt): the mean's step (``rows`` the means) or its
    accumulator's (``rows`` their running sum), Σ before its step."""


def _diag_settle(form, rule, k, store, i, bias, beta, gamma):
    sig = form.cov[k]
    diagonal_shrink(rule, sig, gamma, store.X_data, store.X_indices,
                    store.X_indptr, i)
    if bias:
        d = sig.shape[0] - 1
        sig[d] = shrunk(rule, sig[d], gamma, 1.0)


def _full_settle(form, rule, k, store, i, bias, beta, gamma):
    S = form.cov[k]
    u = form.u
    n = u.shape[0]
    # Σ -= β u uᵀ, each entry as (u_p u_q) β: the same bits for (p, q) and
    # (q, p), so Σ stays exactly symmetric.
    for p in range(n):
        up = u[p]
        if up != 0.0:
            row = S[p]
            for q in range(n):
                row[q] -= (up * u[q]) * beta


@specialised(_by_gaussians(_diag_settle, _full_settle))
def gaussian_settle(form, rule, k, store, i, bias, beta, gamma):
    """The covariance's step of problem k on row i (module notes), after
    the mean's."""
