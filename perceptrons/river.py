"""Every estimator as a river classifier.

:class:`RiverClassifier` (or :func:`as_river`) wraps an estimator of this
package in a ``river.base.Classifier``: river's ``learn_one`` and
``predict_one`` go to the estimator's own (``learn_one`` of
:class:`~perceptrons.models._driver.OnlineClassifier`), so river's
pipelines and ``evaluate.progressive_val_score`` run the paper's update one
example at a time. It is built from the estimator alone, as river's models
are: labels are learnt as they arrive, features too (a new feature's weight
starts at zero, where the algorithm's rule allows it), and the parameters
the estimator resolves from a whole training set ("auto") have their
stream definitions (each estimator's docstring states them).

river is an optional dependency (``pip install 'perceptrons[river]'``):
importing this module without it raises an :class:`ImportError` that says
so; ``import perceptrons`` never imports river.
"""

import copy
import math

import numpy as np

try:
    from river import base as _river_base
except ImportError:  # pragma: no cover - exercised with river hidden
    raise ImportError("perceptrons.river needs river: pip install "
                      "'perceptrons[river]'") from None

from .models._driver.online import scores_one
from .registry import ESTIMATORS

__all__ = ["OnlinePlatt", "RiverClassifier", "as_river"]

#: Examples of one label the adapter keeps until a second label arrives
#: (a classifier of the package needs two classes to start): the model
#: then learns them in order, as if told both labels up front.
PREFIX_LIMIT = 1000


def as_river(estimator, classes=None):
    """The estimator as a river classifier: :class:`RiverClassifier`.

    Parameters
    ----------
    estimator : OnlineClassifier
        An estimator of this package, with its parameters; never changed
        (the adapter learns a copy).
    classes : sequence, default=None
        The labels, if known up front; otherwise learnt as they arrive.

    Returns
    -------
    RiverClassifier
    """
    return RiverClassifier(estimator, classes=classes)


class RiverClassifier(_river_base.Classifier):
    """An estimator of this package behind river's classifier interface.

    The adapter learns a copy of ``estimator`` (:attr:`model`): ``clone``
    gives a fresh adapter that has learnt nothing, and the adapter pickles.
    ``learn_one(x, y)`` is the estimator's ``learn_one`` (the paper's update
    on one example: :meth:`~perceptrons.models._driver.OnlineClassifier.learn_one`).

    * **Labels** are learnt as they arrive (the estimator's algorithm grows
      its state by a fresh problem or prototype per new label, or refuses
      with its reason). A model starts with two labels: until a second one
      arrives the adapter keeps the examples (at most :data:`PREFIX_LIMIT`,
      the latest) and predicts the one label seen; the model then learns
      them in order, as if it had been told both labels up front.
    * **Features** are dict keys; a key the model has not seen extends it
      (its weight starts at zero; a kernel model reads it as zero in its
      support vectors), where the algorithm allows it, else the estimator
      says why not; a missing key is 0.
    * **Before any learning** ``predict_one`` answers as river's linear
      models do: the first of ``classes`` when given (a zero model's
      label), else ``False`` (river's binary models' first answer: a zero
      score, its tie to ``False``).
    * **Probabilities** (``predict_proba_one``) come from an online Platt
      scaling of the model's scores (:class:`OnlinePlatt`): each example's
      scores *before* it is learnt (progressive, so held out) fit a sigmoid
      per problem, which is not the model's own claim: the perceptrons give
      scores, not probabilities. ``predict_one`` stays the estimator's
      decision (the largest score), which the calibrated probabilities may
      rank otherwise on a multiclass model.

    Parameters
    ----------
    estimator : OnlineClassifier
        An estimator of :mod:`perceptrons` with its parameters (unfitted,
        or fitted: the adapter then continues a copy of it).
    classes : sequence, default=None
        The labels, if known up front (river's ``classes`` of its sklearn
        wrappers); a model is then started on them at the first example.

    Attributes
    ----------
    model : OnlineClassifier or None
        The copy being trained; None until a model could start.
    calibration : OnlinePlatt
        The Platt scaling of its scores.

    Examples
    --------
    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from perceptrons import PassiveAggressive
    >>> from perceptrons.river import as_river
    >>> model = preprocessing.StandardScaler() | as_river(PassiveAggressive())
    >>> evaluate.progressive_val_score(datasets.Phishing(), model,
    ...                                metrics.Accuracy())
    Accuracy: 89.36%
    """

    def __init__(self, estimator, classes=None):
        self.estimator = estimator
        self.classes = classes
        self.model = None
        self.calibration = OnlinePlatt()
        self._prefix = []

    @classmethod
    def _unit_test_params(cls):
        # Every estimator of the registry at its defaults.
        for entry in ESTIMATORS:
            yield {"estimator": entry.load()()}

    @property
    def _multiclass(self):
        return True

    def _more_tags(self):
        # Real-valued features of either sign (not river's "positive
        # input"), no text.
        return set()

    # ----------------------------------------------------------- learning
    def learn_one(self, x, y):
        """Learn one example: the estimator's ``learn_one``, after the
        calibration has read the example's scores (held out: before the
        model learns it)."""
        model = self.model
        if model is None:
            self._start(x, y)
            return
        state, scores = _scores_or_none(model, x)
        if state is not None:
            self.calibration.learn_one(state.classes, scores, y)
        model.learn_one(x, y)

    def _start(self, x, y):
        """Keep the example until the model can start (two labels), then
        start it on every example kept, in order."""
        if hasattr(self.estimator, "state_"):  # a fitted estimator goes on
            self.model = copy.deepcopy(self.estimator)
            self.learn_one(x, y)
            return
        if self.classes is not None:
            labels = list(self.classes)
        else:
            labels = sorted({label for _, label in self._prefix} | {y},
                            key=_label_order)
            if len(labels) < 2:
                self._prefix.append((dict(x), y))
                del self._prefix[:-PREFIX_LIMIT]
                return
        (x_first, y_first), *rest = [*self._prefix, (x, y)]
        self._prefix = []
        model = copy.deepcopy(self.estimator)
        model.learn_one(x_first, y_first, classes=labels)
        self.model = model
        for x_kept, y_kept in rest:
            self.learn_one(x_kept, y_kept)

    # ----------------------------------------------------------- prediction
    def predict_one(self, x):
        """The estimator's predicted label (the first answer before any
        learning: see the class notes)."""
        if self.model is not None:
            return self.model.predict_one(x)
        if self._prefix:
            return self._prefix[-1][1]
        if self.classes is not None and len(self.classes):
            return list(self.classes)[0]
        return False

    def predict_proba_one(self, x):
        """A probability for every label seen: the online Platt scaling of
        the model's scores (:class:`OnlinePlatt`). Before a model started,
        Laplace's rule of succession over the labels known: ``classes``
        when given, else river's binary labels ``{False, True}`` while the
        labels seen are booleans (``{False: 0.5, True: 0.5}`` before any,
        as river's binary models start), else the one label seen."""
        if self.model is not None:
            state, scores = scores_one(self.model, x)
            return self.calibration.predict_proba_one(state.classes, scores)
        seen = [label for _, label in self._prefix]
        if self.classes is not None and len(self.classes):
            labels = list(self.classes)
        elif all(isinstance(label, (bool, np.bool_)) for label in seen):
            labels = [False, True]
        else:
            labels = seen[-1:]
        return {label: (seen.count(label) + 1.0) / (len(seen) + len(labels))
                for label in labels}


def _scores_or_none(model, x):
    """The scores :func:`scores_one` gives (a dict with a feature the
    model has not seen: the grown model's), or ``(None, None)`` where the
    example cannot be scored (NaN, a feature the model refuses:
    ``learn_one`` then says why)."""
    try:
        return scores_one(model, x)
    except ValueError:
        return None, None


def _label_order(label):
    """Sort key of labels of mixed types (the model sorts them again)."""
    return (type(label).__name__, label)


class OnlinePlatt:
    """Platt's sigmoid of a score, fitted online on the scores it is shown.

    Platt [1]_ maps a classifier's score s to ``P(y = 1 | s) = 1 / (1 +
    exp(-(a s + b)))``, fitting (a, b) by maximum likelihood on held-out
    scores with the targets ``t+ = (N+ + 1) / (N+ + 2)`` and ``t- = 1 /
    (N- + 2)`` (N± the positive and negative examples, Sec. 2.2 of [1]_).
    Here the held-out scores are the progressive ones (each example's
    score before the model learns it) and the fit is online: one Newton
    step per example on that example's log loss, with the curvature summed
    over the examples so far (iteratively reweighted least squares run one
    example at a time; the summed Fisher information ``p(1 - p) (s, 1)(s,
    1)ᵀ``, floored at 0.01 per example and started at the identity, so the
    steps shrink as 1/t on a stationary stream). It starts at ``a = 1, b =
    0``, the logistic sigmoid of the raw score (river's choice for its
    linear models).

    A model of one problem (two classes) has one sigmoid, of class 1; a
    model of several has one per class on its one-vs-rest (or prototype)
    score, normalised to sum to 1. Each label keeps its sigmoid as the
    model grows (two classes becoming one-vs-rest keep class 1's problem).

    References
    ----------
    .. [1] J. Platt, "Probabilistic Outputs for Support Vector Machines and
       Comparisons to Regularized Likelihood Methods", in *Advances in
       Large Margin Classifiers*, MIT Press, 1999.
    """

    def __init__(self):
        #: label -> [a, b, h_aa, h_ab, h_bb, n_pos, n_neg]
        self.sigmoids = {}
        self.n_seen = 0

    def _sigmoid(self, label):
        sig = self.sigmoids.get(label)
        if sig is None:
            sig = self.sigmoids[label] = [1.0, 0.0, 1.0, 0.0, 1.0, 0, 0]
        return sig

    def learn_one(self, classes, scores, y):
        """One Newton step of each problem's sigmoid on the example's
        scores (taken before the model learnt it) and label ``y``."""
        self.n_seen += 1
        if type(scores) is float:
            _step(self._sigmoid(classes[1]), scores, y == classes[1])
            return
        for label, score in zip(classes.tolist(), scores.tolist()):
            _step(self._sigmoid(label), score, y == label)

    def predict_proba_one(self, classes, scores):
        """``{label: probability}`` for every class of the model."""
        labels = classes.tolist()
        if type(scores) is float:
            p = _probability(self._peek(labels[1]), scores)
            return {labels[0]: 1.0 - p, labels[1]: p}
        ps = [_probability(self._peek(label), score)
              for label, score in zip(labels, scores.tolist())]
        total = sum(ps)
        if not total > 0.0:
            return {label: 1.0 / len(labels) for label in labels}
        return {label: p / total for label, p in zip(labels, ps)}

    def _peek(self, label):
        return self.sigmoids.get(label) or (1.0, 0.0)


def _probability(sig, score):
    z = sig[0] * score + sig[1]
    if z >= 0.0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def _step(sig, score, positive):
    """One Newton step of Platt's log loss on (score, label)."""
    a, b, h_aa, h_ab, h_bb, n_pos, n_neg = sig
    if positive:
        target = (n_pos + 1.0) / (n_pos + 2.0)
        sig[5] = n_pos + 1
    else:
        target = 1.0 / (n_neg + 2.0)
        sig[6] = n_neg + 1
    if not math.isfinite(score):
        return
    p = _probability(sig, score)
    w = max(p * (1.0 - p), 0.01)
    h_aa += w * score * score
    h_ab += w * score
    h_bb += w
    g = p - target
    g_a, g_b = g * score, g
    det = h_aa * h_bb - h_ab * h_ab
    if det > 0.0 and math.isfinite(det):
        a -= (h_bb * g_a - h_ab * g_b) / det
        b -= (h_aa * g_b - h_ab * g_a) / det
    sig[0:5] = a, b, h_aa, h_ab, h_bb
