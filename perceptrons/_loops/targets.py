"""An example's target as the one-vs-rest loops read it: a problem's sign
and the online mistake.

A loop over binary problems (Figure 2's threshold rule, Passive-Aggressive
and the confidence-weighted family, ALMA, the Projectron, the matrix
perceptrons) receives ``targets`` in one of two kinds, told apart by its
type when the loop is compiled (:func:`~perceptrons._loops._common.specialised`),
so a loop over class indices compiles as it did before multi-label targets:

* class indices (1-D, integer): one problem, class 1 positive; K problems
  (one-vs-rest), problem k's positive class k;
* a multi-label y's labels ±1 (2-D, int8; ``targets[i]`` is row i's
  labels), problem k's label in column k.
"""

from ._common import specialised

__all__ = ["is_online_mistake", "problem_sign"]


def _class_sign(target, k, n_problems):
    positive = target == 1 if n_problems == 1 else target == k
    return 1.0 if positive else -1.0


def _label_sign(target, k, n_problems):
    return float(target[k])


def _class_mistake(scores, target, n_problems):
    if n_problems == 1:
        return (1.0 if target == 1 else -1.0) * scores[0] <= 0.0
    for r in range(n_problems):
        if r != target and scores[r] >= scores[target]:
            return True
    return False


def _label_mistakes(scores, target, n_problems):
    n = 0
    for k in range(target.shape[0]):
        if target[k] * scores[k] <= 0.0:
            n += 1
    return n


@specialised(lambda target, k, n_problems: (
    _label_sign if getattr(target, "ndim", 0) == 1 else _class_sign))
def problem_sign(target, k, n_problems):
    """Label ±1 of an example in problem k.

    ``target`` is a class index: with one problem class index 1 is
    positive, with K problems (one-vs-rest) problem k's positive class is
    k. Or it is a multi-label example's row of labels ±1 (int8), one per
    problem: problem k's label is ``target[k]``. Picked by the type when
    the loop is compiled, so a loop over class indices compiles as before.
    """


@specialised(lambda scores, target, n_problems: (
    _label_mistakes if getattr(target, "ndim", 0) == 1 else _class_mistake))
def is_online_mistake(scores, target, n_problems):
    """Whether the current hypothesis mispredicts, ties counted as mistakes.

    One problem: ``y (<w,x> - θ) <= 0``; one-vs-rest: the true class's
    score is not strictly above every other class's. A multi-label
    example (``target`` its labels ±1): the number of problems whose
    ``y_k (<w_k,x> - θ_k) <= 0``, a mistake per wrong label (Hamming), so
    that the counts are those of the labels' binary problems summed.
    """
