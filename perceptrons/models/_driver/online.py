"""One example at a time: ``learn_one`` and ``predict_one``.

The online learner's interface (river's): ``learn_one(x, y)`` is the
paper's update on one example, the same as ``partial_fit`` on that row
alone, bit for bit; ``x`` is a 1-D array or a dict from feature names to
values (a missing feature is 0, as in river).

A ``partial_fit`` call validates its input, starts a call's scratch, builds
the loop's arguments and publishes the state: about 150 µs of Python around
a step of a microsecond. One example at a time, the estimator keeps an
:class:`OnlineSession` instead (never part of the model: it is dropped on
pickling and rebuilt when needed): the algorithm and the feature schema,
resolved once, a one-row buffer, and the algorithm's compiled step bound to
the state's arrays (:meth:`~perceptrons.models._driver.protocol.Algorithm.online_step`),
so that a call maps ``x`` into the buffer, runs the step in place and
counts it. Whatever the fast path cannot take as it is (the first call, a
new class or feature, a missing feature, NaN, a float32 row, class
weights, an algorithm without a step) goes through ``partial_fit``, whose
messages and results it then has.
"""

import math
import operator
import warnings

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..._loops._common import entry_point, row_sq_norms
from ...utils.validation import as_loop_arrays
from .._state import HistoryTail
from .training import partial_fit

__all__ = ["CompiledStep", "OnlineSession", "learn_one", "one_row",
           "predict_one", "scores_one"]

# The smallest normal float64: a row whose ‖x‖² is below it goes through
# partial_fit, which refuses squares that underflow (or takes a zero row).
# Python floats: comparing numpy's float64 to numpy scalars costs twice as
# much (a tenth of a call).
_SMALLEST_NORMAL = float(np.finfo(np.float64).tiny)
_INF = math.inf
_FLOAT64 = np.dtype(np.float64)


class OnlineSession:
    """What ``learn_one``/``predict_one`` keep between calls.

    Parameters
    ----------
    est : OnlineClassifier
        Fitted; its parameters and state at this moment are the session's.

    Attributes
    ----------
    state : State
        The state the compiled step is bound to: the session is used only
        while it is still the estimator's.
    algo : Algorithm
        The estimator's algorithm, made once.
    row : ndarray of shape (1, n_features), float64
        The buffer each call writes its example into.
    sq_norm : ndarray of shape (1,), float64
        ``<x, x>`` of the buffer's row, when the step reads it.
    step : callable or None
        The algorithm's compiled step
        (:meth:`~perceptrons.models._driver.protocol.Algorithm.online_step`),
        None when it has none.
    class_index : dict
        Each class's index.
    getter : callable or None
        The feature values of a dict in schema order
        (``operator.itemgetter``), None without feature names.
    """

    def __init__(self, est):
        state = est.state_
        self.state = state
        self.algo = est._algorithm_of_params(validate=False)
        d = state.n_features_in
        self.row = np.zeros((1, d))
        self.values = self.row[0]
        self.sq_norm = np.zeros(1)
        self.row_sq_norms = None
        if self.algo.needs_row_sq_norms():
            # <x, x> as partial_fit computes it, without numba's dispatch.
            args = (*as_loop_arrays(self.row), 1)
            norms = entry_point(row_sq_norms, args)
            self.row_sq_norms = lambda: norms(*args)[0]
        self.step = None
        if getattr(est, "class_weight", None) is None and not (
                state.n_labels):
            self.step = self.algo.online_step(
                state, as_loop_arrays(self.row), self.sq_norm)
        self.class_index = {label: k for k, label in
                            enumerate(state.classes.tolist())}
        names = state.feature_names_in
        self.getter = (operator.itemgetter(*names.tolist())
                       if names is not None else None)
        self.n_features = d
        self.score_one = self.algo.one_row_scores(state)
        self.mistakes_tail, self.updates_tail = HistoryTail(), HistoryTail()

    def values_of(self, x):
        """x's values as a float64 1-D array, the buffer's (a dict, written
        into it) or x itself (an array): None when the fast path cannot take
        x as it is. Nothing is checked for finiteness: the scores say."""
        if type(x) is np.ndarray:
            if x.dtype is _FLOAT64 and x.shape == self.values.shape:
                return x
        elif type(x) is dict and self.getter is not None and (
                len(x) == self.n_features):
            try:
                self.values[:] = self.getter(x)
            except (KeyError, TypeError, ValueError):
                return None
            return self.values
        return None

    def take(self, x):
        """Write ``x`` into the row buffer; False when the fast path cannot
        take it as it is (the slow path then does, or says why not)."""
        values = self.values
        if type(x) is np.ndarray:
            if x.dtype is not _FLOAT64 or x.shape != values.shape:
                return False
            values[:] = x
        elif type(x) is dict and self.getter is not None:
            if len(x) != self.n_features:
                return False
            try:
                values[:] = self.getter(x)
            except (KeyError, TypeError, ValueError):
                return False
        else:
            return False
        # ‖x‖² finite and normal: x is finite and its squares do not
        # underflow (what partial_fit would otherwise refuse).
        return _SMALLEST_NORMAL <= np.dot(values, values) < _INF


class CompiledStep:
    """An algorithm's compiled pass on ``learn_one``'s one row, its
    arguments made once: what
    :meth:`~perceptrons.models._driver.protocol.Algorithm.online_step`
    returns, for a state that counts its updates in
    ``n_updates_per_problem``.

    A subclass gives the loop's arguments for a row (:meth:`arguments`) and
    the arrays whose finiteness an update must keep (:meth:`finite`); the
    loop is called through its compiled entry point, made at the first call
    (:func:`~perceptrons._loops._common.entry_point`).

    Parameters
    ----------
    loop : numba dispatcher
        The primal loop.
    state : State
        The fitted state, whose arrays the loop updates in place.
    target_dtype : dtype, default=np.int64
        The type the loop reads the class index in.
    """

    def __init__(self, loop, state, target_dtype=np.int64):
        self.loop, self.state = loop, state
        self.targets = np.zeros(1, dtype=target_dtype)
        self.order = np.zeros(1, dtype=np.int64)
        self.entry = None

    def arguments(self, weights, t):
        """The loop's arguments for the row in ``targets``, of weight
        ``weights`` (empty: 1), ``t`` steps after the first."""
        raise NotImplementedError

    def finite(self):
        """The arrays an update must leave finite."""
        raise NotImplementedError

    def __call__(self, target, weights, t):
        self.targets[0] = target
        updates = self.state.n_updates_per_problem
        # (sum of a list: numpy's sum costs more on a few entries)
        before = sum(updates.tolist())
        args = self.arguments(weights, t)
        if self.entry is None:
            self.entry = entry_point(self.loop, args)
        n_mistakes = self.entry(*args)
        return n_mistakes, sum(updates.tolist()) - before

    def is_finite(self):
        """Whether the state's arrays are still finite."""
        return all(bool(np.isfinite(a).all()) for a in self.finite())


def _session(est):
    """The estimator's session, made or remade as needed (None before the
    first call)."""
    session = est.__dict__.get("_online")
    state = est.__dict__.get("state_")
    if state is None:
        return None
    if session is None or session.state is not state:
        session = est.__dict__["_online"] = OnlineSession(est)
    return session


def learn_one(est, x, y, classes=None, sample_weight=1.0):
    """:meth:`OnlineClassifier.learn_one`."""
    session = est.__dict__.get("_online")
    if session is None or session.state is not est.__dict__.get("state_"):
        session = _session(est)
    if (session is not None and session.step is not None
            and (classes is None or _same_classes(session, classes))):
        try:
            target = session.class_index.get(y)
        except TypeError:  # an unhashable label: partial_fit says why
            target = None
        weights = (_UNIT if type(sample_weight) is float
                   and sample_weight == 1.0 else _step_weights(sample_weight))
        if target is not None and weights is not None and session.take(x):
            _learn_in_place(est, session, target, weights)
            return
    _learn_through_partial_fit(est, x, y, classes, sample_weight)


_UNIT = np.zeros(0)


def _step_weights(sample_weight):
    """The loops' ``weights`` of one row: empty for 1, the weight for a
    positive finite number, None for anything else (partial_fit then
    judges it)."""
    if type(sample_weight) in (int, float) and sample_weight == 1.0:
        return _UNIT
    if (isinstance(sample_weight, (int, float, np.integer, np.floating))
            and 0.0 < sample_weight < np.inf):
        return np.array([float(sample_weight)])
    return None


def _learn_in_place(est, session, target, weights):
    """The compiled step on the session's row, then the call's counters:
    ``partial_fit``'s one pass over one row."""
    s = session.state
    if session.row_sq_norms is not None:
        session.sq_norm[0] = session.row_sq_norms()
    n_mistakes, n_updates = session.step(target, weights, s.t)
    if n_updates and not session.step.is_finite():
        raise ValueError(
            f"floating-point overflow at epoch {s.n_iter + 1}: the "
            "weights are no longer finite; scale the input (e.g. "
            "StandardScaler) or lower eta")
    # State.replace of the driver's counters, the fields known (a tenth of
    # the call went to replace's check of their names).
    state = object.__new__(type(s))
    fields = state.__dict__
    fields.update(s.__dict__)
    fields["t"] = s.t + 1
    fields["n_iter"] = s.n_iter + 1
    fields["n_mistakes"] = s.n_mistakes + n_mistakes
    fields["n_updates"] = s.n_updates + n_updates
    fields["mistakes_per_epoch"] = session.mistakes_tail.append(
        s.mistakes_per_epoch, n_mistakes)
    fields["updates_per_epoch"] = session.updates_tail.append(
        s.updates_per_epoch, n_updates)
    session.state = state
    est._adopt_state_lazily(state)


def _same_classes(session, classes):
    return np.array_equal(np.unique(np.asarray(classes)),
                          session.state.classes)


def _learn_through_partial_fit(est, x, y, classes, sample_weight):
    """``learn_one`` as ``partial_fit`` on one row (the first call, and
    whatever the session does not take)."""
    if np.asarray(y).ndim or (hasattr(est, "state_")
                              and est.state_.n_labels):
        raise ValueError(
            "learn_one learns one label per example; a multi-label model "
            "learns through partial_fit(X, Y), Y a 2-D 0/1 indicator (one "
            "example: X of shape (1, n_features), Y of shape (1, n_labels))")
    if not hasattr(est, "state_"):
        refusal = est._algorithm_of_params().one_at_a_time_refusal()
        if refusal:
            raise ValueError(refusal)
    elif type(x) is dict:
        grown = _grown_by(est, x)
        if grown is not None:
            est._adopt_state(grown)
    row, names = one_row(est, x)
    weights = None if sample_weight == 1.0 else [sample_weight]
    with warnings.catch_warnings():
        # The row is an array; its names, if any, were checked above.
        warnings.filterwarnings("ignore", "X does not have valid feature")
        partial_fit(est, row, [y], classes, weights, row_checked=True)
    if names is not None and est.state_.feature_names_in is None:
        est._adopt_state(est.state_.replace(feature_names_in=names))


def predict_one(est, x):
    """:meth:`OnlineClassifier.predict_one`."""
    state, score = scores_one(est, x)
    if state.n_labels:
        return (np.atleast_1d(score) > 0.0).astype(np.int64)
    if type(score) is float:
        return state.classes[int(score > 0.0)]
    return _label(state, score)


def scores_one(est, x):
    """``(state, scores)``: the fitted state and one example's decision,
    ``decision_function``'s on the row, bit for bit: a float for one
    problem, else an array of shape (n_problems,) (the river adapter's
    calibration reads them; :func:`predict_one` labels them).

    Raises
    ------
    ValueError
        If x holds NaN or infinity (or as :func:`one_row`).
    """
    attrs = est.__dict__
    session = attrs.get("_online")
    if session is None or session.state is not attrs.get("state_"):
        session = _session(est)
    if session is not None:
        view = est._published_view() if attrs.get("_stale") else attrs
        if session.score_one is not None:
            values = session.values_of(x)
            if values is not None:
                # One problem's score, or the scores of several. x holds
                # NaN or infinity where they are not finite (partial_fit's
                # path then says so).
                score = session.score_one(view, values)
                if type(score) is float:
                    if math.isfinite(score):
                        return session.state, score
                elif np.isfinite(score).all():
                    return session.state, score
        elif session.take(x):
            return session.state, _one_problem(session.algo.decision(
                session.state, view, session.row)[0])
    check_is_fitted(est)
    if type(x) is dict and _new_names(est, x):
        return _scores_grown(est, x)
    row, _ = one_row(est, x)
    if not np.isfinite(row).all():
        raise ValueError("x contains NaN or infinity")
    return est.state_, _one_problem(est._scores(est._as_read(row))[0])


def _scores_grown(est, x):
    """The scores of a dict with features the model has not seen: those
    of the model grown by them (their weights 0, as ``learn_one`` would
    grow it), which is left as it is."""
    grown = _grown_by(est, x)
    column = {name: j for j, name in enumerate(grown.feature_names_in)}
    row = np.zeros((1, grown.n_features_in))
    for key, value in x.items():
        row[0, column[str(key)]] = value
    if not np.isfinite(row).all():
        raise ValueError("x contains NaN or infinity")
    algo = est._algorithm_of_params(validate=False)
    return grown, _one_problem(
        algo.decision(grown, algo.public(grown), row)[0])


def _new_names(est, x):
    """The keys of the dict ``x`` that are not among the model's features,
    as strings, in x's order (none for a model trained on arrays, which
    :func:`one_row` refuses a dict)."""
    names = est.state_.feature_names_in
    if names is None:
        return []
    known = set(names.tolist())
    return [str(k) for k in x if str(k) not in known]


def _grown_by(est, x):
    """The fitted state grown by the features of ``x`` it has not seen
    (appended in x's order, each as if it had been 0 in every earlier
    example: :meth:`~perceptrons.models._driver.protocol.Algorithm.grow_features`),
    None when x has none.

    Raises
    ------
    ValueError
        The algorithm's reason when it cannot take a new feature.
    """
    new = _new_names(est, x)
    if not new:
        return None
    state = est.state_
    algo = est._algorithm_of_params(validate=False)
    refusal = algo.feature_growth_refusal(state)
    if refusal is not None:
        raise ValueError(f"features {new[:5]!r} are not among the model's "
                         f"{state.n_features_in} features: {refusal}")
    grown = algo.grow_features(state, len(new)).replace(
        feature_names_in=np.concatenate(
            [state.feature_names_in, np.asarray(new, dtype=object)]))
    grown.validate()
    return grown


def _one_problem(scores):
    """A row's scores as :func:`scores_one` gives them: a float for one
    problem (a 0-d or 1-entry array), else the array."""
    scores = np.asarray(scores, dtype=np.float64)
    return float(scores.reshape(-1)[0]) if scores.size == 1 else scores


def _label(state, scores):
    """predict's label (:func:`~perceptrons.models._driver.prediction.labels`)
    of one row's scores (1-D: one problem's, or one per class)."""
    if scores.shape[0] == 1:
        return state.classes[int(scores[0] > 0)]
    return state.classes[int(np.argmax(scores))]


def one_row(est, x):
    """``(row, names)``: x as a (1, n_features) array, and the feature
    names a first dict fixes (None otherwise).

    Raises
    ------
    ValueError
        On a dict with a feature the model does not have, or an array
        that is not one row.
    """
    if not isinstance(x, dict):
        row = np.asarray(x)
        if row.ndim != 1:
            raise ValueError(
                f"one example is a dict or a 1-D array; got an array of "
                f"shape {row.shape} (use partial_fit for several rows)")
        if row.dtype not in (np.float64, np.float32):
            if row.dtype.kind not in "iub":
                raise ValueError(f"x must hold real numbers, not "
                                 f"{row.dtype}")
            row = row.astype(np.float64)
        n_features = getattr(est, "n_features_in_", None)
        if n_features is not None and row.shape[0] != n_features:
            raise ValueError(
                f"x has {row.shape[0]} features, but "
                f"{type(est).__name__} is expecting {n_features} "
                "features as input")
        return np.ascontiguousarray(row[None, :]), None
    names = getattr(est, "feature_names_in_", None)
    if names is None and hasattr(est, "state_"):
        raise ValueError(
            "this model was trained on arrays, without feature names: "
            "pass x as a 1-D array in its column order")
    if names is None:
        names = np.asarray([str(k) for k in x], dtype=object)
        row = np.asarray([list(x.values())], dtype=np.float64)
        return row, names
    column = {name: j for j, name in enumerate(names)}
    row = np.zeros((1, len(names)))
    unknown = [k for k in x if str(k) not in column]
    if unknown:
        raise ValueError(
            f"features {unknown[:5]!r} are not among the model's "
            f"{len(names)} features (fixed by the first example or "
            "feature_names_in_); a linear model cannot grow")
    for key, value in x.items():
        row[0, column[str(key)]] = value
    return row, None
