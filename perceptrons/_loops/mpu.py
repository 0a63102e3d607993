r"""The margin perceptron with unlearning (MPU), Panagiotakopoulos & Tsampouka
(ICML 2010), on the patterns of the PDM loops.

One binary problem at a time, in the augmented, reflected (and optionally
extended) space of :mod:`perceptrons._loops.margin`: pattern k is
:math:`y_k = [l_k x_k,\ l_k \rho,\ l_k \Delta_k e_k]` and the weight vector
is :math:`a = \sum_k I_k y_k` with integer dual variables
:math:`I_k \ge 0`, the net number of times pattern k was added. Two steps:

.. math::

    \text{learn:}\quad a\cdot y_k \le b \ (\text{and } I_k + 1 \le C_k)
    \;\Rightarrow\; a \leftarrow a + y_k,\ I_k \leftarrow I_k + 1;

    \text{unlearn:}\quad a\cdot y_k > b + \delta b \text{ and } I_k > 0
    \;\Rightarrow\; a \leftarrow a - y_k,\ I_k \leftarrow I_k - 1.

b is the margin threshold of the perceptron with margin, δb the gap above
it beyond which a pattern counts as "very well classified" and its
contributions are taken back; :math:`C_k` (``rule.cap`` times the row's
weight; ``cap <= 0``: none) is the box of the 1-norm soft-margin target.
With ``rule.multiple`` a step is made λ times at once, as many as repeated
presentations of the pattern would make: learning
:math:`\lambda = \lfloor (b - a\cdot y_k)/\|y_k\|^2 \rfloor + 1` (at most
:math:`\lfloor C_k - I_k \rfloor`), unlearning
:math:`\lambda = \min(I_k, \lceil (a\cdot y_k - b - \delta b)/\|y_k\|^2
\rceil)`.

The extension block of a is kept as the counts (:math:`a\cdot y_k = l_k
(w\cdot x_k + b_a\rho) + \Delta_k^2 I_k`, :math:`b_a` the augmented
coordinate) and :math:`\|a\|^2` incrementally, as in PDM; a step costs
O(nnz(x_k)).

The pass (:func:`mpu_pass`) is registered for its rule, :data:`MpuRule`,
with :func:`perceptrons._loops.margin.register_pass`, so the active sets of
the PDM family (:func:`~perceptrons._loops.margin.active_set_epoch`) drive
it. A pattern is collected into the next active set when
:math:`a\cdot y_k \le c\,(b + \delta b)` before its step (c the
collection factor).

References
----------
C. Panagiotakopoulos and P. Tsampouka. The margin perceptron with
unlearning. ICML 2010, pp. 855-862.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from .margin import extended_margin, margin_step, present, register_pass

__all__ = ["MpuRule", "mpu_pass", "mpu_steps"]

# A multiple step never makes more than this many steps at once.
_MAX_LAMBDA = 1 << 40

#: MPU's rule: margin threshold b, gap δb, box C (per unit row weight;
#: <= 0: no box, the maximal-margin target) and multiple steps (1/0). Its
#: arrays: ``w`` (n_features,); ``st = [b_a, ‖a‖², N, t_-]`` (the augmented
#: coordinate of a, its squared norm, N = Σ_k I_k, unlearning steps made);
#: ``cell`` (1,), int64, every step made (learning and unlearning);
#: ``per_row`` (n_samples,), int64, the dual variables I_k.
MpuRule = namedtuple("MpuRule", ["b", "gap", "cap", "multiple"])


@njit(cache=True, nogil=True)
def mpu_steps(ay, yy, count, cap_k, b, gap, multiple):
    """The step MPU makes on one pattern.

    Parameters
    ----------
    ay, yy : float
        :math:`a\\cdot y_k` and :math:`\\|y_k\\|^2`.
    count : int
        I_k.
    cap_k : float
        The pattern's box :math:`C_k` (<= 0: none).
    b, gap : float
        b and δb.
    multiple : int

    Returns
    -------
    int
        +λ to learn λ times, -λ to unlearn λ times, 0 for no step.
    """
    if ay <= b:
        room = _MAX_LAMBDA
        if cap_k > 0.0:
            room_f = np.floor(cap_k - count)
            if room_f < 1.0:
                return 0
            if room_f < _MAX_LAMBDA:
                room = int(room_f)
        if not multiple or yy <= 0.0:
            return 1
        mu = np.floor((b - ay) / yy)
        if not mu >= 0.0:
            mu = 0.0
        if mu + 1.0 >= room:
            return room
        return int(mu) + 1
    if count > 0 and ay > b + gap:
        if not multiple or yy <= 0.0:
            return -1
        mu = np.ceil((ay - b - gap) / yy)
        if not mu >= 1.0:
            mu = 1.0
        if mu >= count:
            return -count
        return -int(mu)
    return 0


@njit(cache=True, nogil=True)
def mpu_pass(rows, n_rows, collect_factor, collected, X_data, X_indices,
             X_indptr, signs, y_sq_norms, rho, delta_sq, weights, rule, w,
             st, cell, counts):
    """MPU's pass (the arguments of
    :func:`perceptrons._loops.margin.margin_pass`, run by
    :func:`~perceptrons._loops.margin.active_set_epoch`): learn where
    ``a·y_k <= b`` (within the box), unlearn where ``a·y_k > b + δb`` and
    ``I_k > 0`` (:func:`mpu_steps`).

    ``st = [b_a, ‖a‖², N, t_-]``, ``cell`` (1,) every step made, ``counts``
    the I_k (:data:`MpuRule`). A weighted row (weight s_k) has its own
    extension :math:`\\Delta^2/s_k` (the 2-norm soft margin) and its own box
    :math:`C s_k` (the 1-norm soft margin). Returns ``(steps, collected,
    mistakes)``; a multiple step counts λ.
    """
    n_steps = 0
    n_collected = 0
    n_mistakes = 0
    b_a = st[0]
    sq_norm_a = st[1]
    net = st[2]
    unlearned = st[3]
    tt = cell[0]
    weighted = weights.shape[0] != 0
    collect_at = collect_factor * (rule.b + rule.gap)
    for step in range(n_rows):
        i, label_margin = present(rows, step, n_rows, X_data, X_indices,
                                  X_indptr, signs, y_sq_norms, counts, w, b_a,
                                  rho)
        n_mistakes += label_margin <= 0.0
        ay = extended_margin(label_margin, delta_sq, weights, counts, i)
        if collect_factor > 0.0 and ay <= collect_at:
            collected[n_collected] = i
            n_collected += 1
        cap_k = rule.cap
        if cap_k > 0.0 and weighted:
            cap_k = cap_k * weights[i]
        yy = y_sq_norms[i]
        lam = mpu_steps(ay, yy, counts[i], cap_k, rule.b, rule.gap,
                        rule.multiple)
        if lam == 0:
            continue
        b_a, sq_norm_a = margin_step(w, b_a, sq_norm_a, lam, ay, yy,
                                     signs[i], rho, X_data, X_indices,
                                     X_indptr, counts, i)
        net += lam
        if lam < 0:
            lam = -lam
            unlearned += lam
        tt += lam
        n_steps += lam
    st[0] = b_a
    st[1] = sq_norm_a
    st[2] = net
    st[3] = unlearned
    cell[0] = tt
    return n_steps, n_collected, n_mistakes


register_pass(MpuRule, mpu_pass)
