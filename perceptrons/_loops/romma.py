r"""Aggressive ROMMA (Li & Long 2002) in the augmented/extended space.

One binary problem at a time, on the patterns of the PDM loops
(:mod:`perceptrons._loops.margin`): :math:`y_k = [l_k x_k,\ l_k \rho,\
l_k \Delta e_k]` (Δ = 0: no extension). Aggressive ROMMA updates whenever
:math:`a \cdot y_k < 1 - \epsilon` (ε = 0 is plain aggressive ROMMA;
ε > 0 makes a batch run stop with :math:`\min_k a\cdot y_k \ge
1-\epsilon`) to the shortest vector satisfying both the new constraint and
the relaxed old ones,

.. math::

    a' = \arg\min \{\|v\| : v\cdot y_k \ge 1,\ v\cdot a \ge \|a\|^2\}.

With :math:`A = \|a\|^2`, :math:`B = a\cdot y_k < 1`, :math:`C =
\|y_k\|^2`: if :math:`AC - B > 0` both constraints are active (their KKT
multipliers c, d are then positive) and

.. math::

    a' = c\,a + d\,y_k,\quad c = \frac{AC - B}{AC - B^2},\quad
    d = \frac{A(1 - B)}{AC - B^2},\quad \|a'\|^2 = cA + d;

otherwise (in particular at a = 0, and when y_k is parallel to a) the old
half-space is slack at :math:`a' = y_k / C`, which is then the minimiser
(:math:`\|a'\|^2 = 1/C`). If :math:`AC = B^2` with B < 0 (y_k
anti-parallel to a) the two constraints are incompatible; the loop then also
restarts from :math:`y_k / C`.

The vector is stored as ``a = s · u`` with a global scale s, so that the
:math:`c\,a` part costs O(1): ``s ← c s``, ``u ← u + (d / s) y_k``. The
extension block of u is :math:`l_k \Delta g_k` with real per-example
coefficients g_k, so

.. math::

    a \cdot y_k = s\,[\,l_k (u_w \cdot x_k + u_b \rho) + \Delta^2 g_k\,],

and an update costs O(nnz(x_k)); ‖a‖² is carried as above. A restart
(a' = y_k / C) clears u: O(d + m), done at the first update and rarely
after. s is folded back into u when it leaves [1e-150, 1e150].

Divergence. Every a' satisfies :math:`a'\cdot a \ge \|a\|^2`, so ‖a‖
never decreases, and if the patterns are separable with directional margin
γ_d then :math:`\|a\| \le 1/\gamma_d` (a is the shortest point of a set
containing every v with :math:`v\cdot y_k \ge 1`). Without a separating
a (no extension, inseparable data) nothing bounds it: an update on a
misclassified pattern at angle θ to a multiplies ‖a‖² by about
:math:`1/\sin^2\theta`, so ‖a‖ grows geometrically with the mistakes and
leaves float64's range within a few hundred epochs even on standardised
data. The pass therefore stops *before* an update whose
:math:`\|a'\|^2 \|y_k\|^2` would exceed :data:`NORM_LIMIT` (1e200),
keeping the last representable a and setting ``status[0] = 1``: by the
bound above this certifies :math:`\gamma_d < 10^{-100} \|y_k\|`, i.e.
that the training set is not separable in the augmented space. Further
passes return at once while the flag is set. A separable run never reaches
the limit, so the flag changes nothing where the algorithm converges.

Weights. As in PDM (:mod:`perceptrons._loops.margin`, notes: weights), a
row's weight :math:`s_k` is its weight in the 2-norm soft-margin loss,
:math:`\sum_k s_k \xi_k^2/\Delta^2`, i.e. its own extension
:math:`\Delta_k^2 = \Delta^2/s_k`: with :math:`y_k = [l_k x_k,\ l_k\rho,\
l_k \Delta_k e_k]`,

.. math::

    a \cdot y_k = s\,[\,l_k (u_w \cdot x_k + u_b \rho) + (\Delta^2/s_k)
    g_k\,], \qquad \|y_k\|^2 = \|x_k\|^2 + \rho^2 + \Delta^2/s_k,

and the update above is unchanged: the run is aggressive ROMMA on those
patterns, so every a is still the shortest point of a set containing
:math:`\{v : v\cdot y_k \ge 1\}`, :math:`\|a\| \le 1/\gamma_d` and
convergence gives :math:`\gamma'_d \ge (1-\epsilon)\gamma_d`, all for
the weighted problem. Without extension a positive weight cannot change
the problem (its solution is the maximum-margin separator whatever the
weights), and the pass ignores it (the estimator refuses such weights).

Without extension (Δ = 0) the coefficients g_k are not part of a; they are
still kept (they are ``dual_coef_``), but never multiplied by Δ² = 0: on
inseparable data a = Σ g_k y_k cancels ever larger g_k, which may overflow
while a stays finite, and 0 · inf would turn a·y_k into NaN.

ROMMA's pass (:func:`romma_pass`) is registered for its rule,
:data:`RommaRule`, with :func:`perceptrons._loops.margin.register_pass`: the
active sets of the PDM family
(:func:`~perceptrons._loops.margin.active_set_epoch`) drive it.

References
----------
Y. Li and P. M. Long. The relaxed online maximum margin algorithm. Machine
Learning 46(1-3):361-387, 2002.
"""

from collections import namedtuple

from numba import njit

from ._common import row_axpy
from .margin import present, register_pass

__all__ = ["NORM_LIMIT", "RommaRule", "fold_scale", "romma_pass"]

_SCALE_LOW, _SCALE_HIGH = 1e-150, 1e150
#: Largest ‖a'‖²‖y_k‖² an update may produce (module notes: divergence).
NORM_LIMIT = 1e200

#: ROMMA's rule, run by :func:`perceptrons._loops.margin.active_set_epoch`
#: and :func:`romma_pass`: the threshold 1 - ε. Its arrays (:func:`romma_pass`) are ``w, st, status,
#: g``.
RommaRule = namedtuple("RommaRule", ["threshold"])


@njit(cache=True, nogil=True)
def fold_scale(w, st, g):
    """Fold the global scale into the stored vector: ``u ← s u``, s ← 1.

    Parameters
    ----------
    w : ndarray of shape (n_features,)
        u_w, scaled in place.
    st : ndarray of shape (4,)
        ``[u_b, ‖a‖², s, Δ² Σ g² of retired rows (in u units)]``.
    g : ndarray of shape (n_samples,)
        Extension coefficients g_k, scaled in place.
    """
    s = st[2]
    if s == 1.0:
        return
    for j in range(w.shape[0]):
        w[j] *= s
    for j in range(g.shape[0]):
        g[j] *= s
    st[0] *= s
    st[3] *= s * s
    st[2] = 1.0


@njit(cache=True, nogil=True)
def romma_pass(rows, n_rows, collect_factor, collected, X_data, X_indices,
               X_indptr, signs, y_sq_norms, rho, delta_sq, weights, rule, w,
               st, status, g):
    """ROMMA's pass (the arguments of
    :func:`perceptrons._loops.margin.margin_pass`, run by
    :func:`~perceptrons._loops.margin.active_set_epoch`): update whenever
    ``a·y_k < rule.threshold`` (1 - ε).

    Parameters
    ----------
    rows, n_rows, collect_factor, collected, X_data, X_indices, X_indptr,
    signs, y_sq_norms, rho, delta_sq, weights, rule
        As in :func:`~perceptrons._loops.margin.margin_pass`.
    w : ndarray of shape (n_features,), float64
        u_w, updated in place.
    st : ndarray of shape (4,), float64
        ``[u_b, ‖a‖², s, retired]`` (see :func:`fold_scale`), in place.
    status : ndarray of shape (1,), int64
        Set to 1 when an update would take ‖a‖²‖y_k‖² past
        :data:`NORM_LIMIT` (the update is not made and the pass stops); a
        pass called with it set returns at once (module notes: divergence).
    g : ndarray of shape (n_samples,), float64
        Extension coefficients of the current rows (in u units), in place.

    Returns
    -------
    n_updates, n_collected, n_mistakes : int
        As in :func:`~perceptrons._loops.margin.margin_pass`.
    """
    threshold = rule.threshold
    n_updates = 0
    n_collected = 0
    n_mistakes = 0
    if status[0] != 0:
        return n_updates, n_collected, n_mistakes
    b = st[0]
    sq_norm_a = st[1]
    s = st[2]
    for step in range(n_rows):
        i, label_margin = present(rows, step, n_rows, X_data, X_indices,
                                  X_indptr, signs, y_sq_norms, g, w, b, rho)
        li = signs[i]
        n_mistakes += label_margin <= 0.0
        ay = label_margin
        if delta_sq != 0.0:
            # Never 0 · g_k: without extension g_k may overflow (notes).
            # Δ_k² = Δ²/s_k: a row's weight is its own extension (notes).
            if weights.shape[0] == 0:
                ay += delta_sq * g[i]
            else:
                ay += delta_sq / weights[i] * g[i]
        ay *= s
        if collect_factor > 0.0 and ay <= collect_factor * threshold:
            collected[n_collected] = i
            n_collected += 1
        if not ay < threshold:
            continue
        yy = y_sq_norms[i]
        if yy <= 0.0:
            continue  # y_k = 0: no vector satisfies a·y_k >= 1
        A = sq_norm_a
        num_c = A * yy - ay
        det = A * yy - ay * ay
        if A > 0.0 and num_c > 0.0 and det > 0.0:
            c = num_c / det
            d = A * (1.0 - ay) / det
            if not (c * A + d) * yy <= NORM_LIMIT:  # also NaN
                status[0] = 1
                break
            n_updates += 1
            s = s * c
            step_size = li * d / s
            row_axpy(w, step_size, X_data, X_indices, X_indptr, i)
            b += step_size * rho
            g[i] += d / s
            sq_norm_a = c * A + d
            if not (_SCALE_LOW < s < _SCALE_HIGH):
                st[0] = b
                st[2] = s
                fold_scale(w, st, g)
                b = st[0]
                s = 1.0
        else:
            # Restart at y_k / ‖y_k‖²: the old half-space is slack there.
            n_updates += 1
            w[:] = 0.0
            g[:] = 0.0
            st[3] = 0.0
            s = 1.0
            step_size = li / yy
            row_axpy(w, step_size, X_data, X_indices, X_indptr, i)
            b = step_size * rho
            g[i] = 1.0 / yy
            sq_norm_a = 1.0 / yy
    st[0] = b
    st[1] = sq_norm_a
    st[2] = s
    return n_updates, n_collected, n_mistakes


register_pass(RommaRule, romma_pass)
