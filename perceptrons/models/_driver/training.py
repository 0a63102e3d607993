"""``fit`` and ``partial_fit``, written once for every algorithm.

A call validates its input (:mod:`.inputs`), resolves the rows' weights
(``sample_weight`` times ``class_weight``; rows of weight 0 leave the call),
sets the ``early_stopping`` rows aside, starts a state (a fresh one, or the
fitted one continued by ``warm_start`` and ``partial_fit``, or one started
from ``coef_init``) and runs the passes: one compiled pass of the algorithm
per epoch (STYLE habit 3), the weights checked finite after each, the
stopping rules of :mod:`~perceptrons.models._stopping` between them. The
algorithm (:class:`~perceptrons.models._driver.protocol.Algorithm`) is asked
only for what is its own: a fresh state, a pass, the state after a call.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ...utils.parallel import compiled_threads
from ...utils.random import epoch_orders
from ...utils.validation import plain_repr
from .._state import appended
from .._stopping import NoImprovement, validation_split
from .._weighting import row_weights, subset_call
from .call import UNIT_WEIGHTS
from .inputs import (call_targets, is_indicator, target_shape,
                     validate_input)

__all__ = ["fit", "partial_fit", "start", "train"]


def fit(est, X, y, coef_init=None, intercept_init=None, sample_weight=None):
    """:meth:`OnlineClassifier.fit`: ``max_iter`` passes over (X, y), from
    scratch or, with ``warm_start``, from the fitted state."""
    algo = est._algorithm_of_params()
    # warm_start checks X against the fitted model, which it continues.
    X, y, call = validate_input(
        est, algo, X, y, reset=not (algo.warm_start and hasattr(est, "state_")))
    if call.n_labels:
        check_multilabel(est, algo)
        classes = np.arange(call.n_labels)
    else:
        classes = np.unique(y) if call.labels is None else call.labels[0]
    if classes.shape[0] < 2 and not call.n_labels:
        raise ValueError(
            f"the training data has only one class "
            f"({plain_repr(classes[0]) if classes.shape[0] else 'none'});"
            " a classifier needs at least two"
        )
    call.classes = classes
    targets = call_targets(call, y)
    targets = _weigh(algo, call, y, targets, sample_weight, fitting=True)
    targets = _hold_out(algo, call, targets)
    if _continues(est, algo, call, coef_init, intercept_init):
        # warm_start: the fitted state goes on, whole (scikit-learn's
        # warm_start keeps coef_; here every part of the model is kept).
        _fit_passes(est, algo, call, targets)
        return
    start(est, algo, call)
    _start_from(est, algo, coef_init, intercept_init)
    _fit_passes(est, algo, call, targets)


def partial_fit(est, X, y, classes, sample_weight, row_checked=False):
    """:meth:`OnlineClassifier.partial_fit`: one pass over (X, y) in the
    given order, continuing the state (``row_checked``: one row from
    ``learn_one``)."""
    first = not hasattr(est, "state_")
    algo = est._algorithm_of_params(validate=first)
    if first and is_indicator(y):
        check_multilabel(est, algo)
        classes = _multilabel_classes(classes, target_shape(y))
    elif first:
        if classes is None:
            raise ValueError(
                "classes must be passed to the first call to partial_fit"
            )
        classes = np.unique(np.asarray(classes))
        if classes.shape[0] < 2:
            raise ValueError("classes must contain at least two labels")
    else:
        algo.check_continued(est.state_)
        _check_same_labels(est.state_, y, classes)
    X, y, call = validate_input(est, algo, X, y, reset=first,
                                row_checked=row_checked)
    if X.shape[0] == 0:
        raise ValueError("cannot fit on zero samples")
    if not first and not call.n_labels:
        _take_new_classes(est, algo, call, y, classes)
    call.classes = classes if first else est.state_.classes
    targets = call_targets(call, y)
    targets = _weigh(algo, call, y, targets, sample_weight, fitting=False)
    if first:
        start(est, algo, call)
    if algo.partial_pass is not None:
        call.state = est.state_
        _publish_then_warn(est, call, algo.partial_pass(call, targets))
        return
    order = np.arange(call.X.shape[0], dtype=np.int64)
    train(est, algo, call, targets, [order], 1)


def check_multilabel(est, algo):
    """ValueError unless the estimator, with its parameters, learns a
    multi-label y (:meth:`~perceptrons.models._driver.protocol.Algorithm.multilabel_refusal`
    says why not)."""
    refusal = algo.multilabel_refusal()
    if refusal is None and getattr(algo, "early_stopping", False):
        refusal = ("early_stopping holds out rows by class, which a "
                   "multi-label y does not give; set early_stopping=False")
    if refusal is None and algo.class_weight is not None:
        refusal = ("class_weight weighs a row by its one class; pass "
                   "sample_weight instead")
    if refusal is not None:
        raise ValueError(
            f"{type(est).__name__} cannot learn a multi-label y (a 2-D "
            f"indicator): {refusal}")


def _multilabel_classes(classes, shape):
    """The classes of a first ``partial_fit`` on a multi-label y of shape
    ``shape``: ``arange(n_labels)``, the only ``classes=`` accepted."""
    labels = np.arange(shape[1]) if len(shape) == 2 else np.arange(0)
    if classes is not None and not np.array_equal(
            np.asarray(classes), labels):
        raise ValueError(
            f"a multi-label y of {labels.shape[0]} label columns has the "
            f"classes arange({labels.shape[0]}); classes="
            f"{plain_repr(np.asarray(classes).tolist())} does not match "
            "(leave it out)")
    return labels


def _check_same_labels(state, y, classes):
    """ValueError unless a later ``partial_fit``'s y is of the fitted
    model's kind: a multi-label y of as many label columns, or labels of
    one class per example."""
    n_labels = state.n_labels
    if not is_indicator(y):
        if n_labels:
            raise ValueError(
                f"this model was fitted on a multi-label y of {n_labels} "
                "label columns (a 2-D indicator); got a 1-D y of labels: "
                "pass the same kind of y to every partial_fit call")
        return
    width = target_shape(y)[1] if len(target_shape(y)) == 2 else 0
    if not n_labels:
        raise ValueError(
            "this model was fitted on a 1-D y of labels; got a 2-D y (a "
            "multi-label indicator): pass the same kind of y to every "
            "partial_fit call")
    if width != n_labels:
        raise ValueError(
            f"y has {width} label columns; this multi-label model was "
            f"fitted on {n_labels}: every partial_fit call gives the same "
            "labels")
    _multilabel_classes(classes, target_shape(y))


def _take_new_classes(est, algo, call, y, classes):
    """Grow the fitted model to the labels of ``y`` (and of ``classes``,
    when given) it has not seen, as its algorithm allows
    (:meth:`~perceptrons.models._driver.protocol.Algorithm.grow_classes`).

    Raises
    ------
    ValueError
        If ``classes`` leaves out a fitted class, or the algorithm cannot
        take a new class (its reason).
    """
    known = est.state_.classes
    seen = call.labels[0] if call.labels is not None else np.unique(y)
    if classes is not None:
        declared = np.unique(np.asarray(classes))
        missing = np.setdiff1d(known, declared)
        if missing.size:
            raise ValueError(
                f"classes={declared.tolist()!r} leaves out the fitted "
                f"classes {missing.tolist()!r} (classes_ "
                f"{known.tolist()!r}); pass every class")
        seen = np.union1d(seen, declared)
    try:
        new = np.setdiff1d(seen, known)
        classes_after = np.union1d(known, new)
    except TypeError:
        raise ValueError(
            f"labels {np.unique(y).tolist()!r} cannot be ordered with "
            f"classes_ {known.tolist()!r}: use labels of one type") from None
    if new.size == 0:
        return
    refusal = algo.class_growth_refusal(est.state_)
    if refusal is not None:
        raise ValueError(
            f"labels {new.tolist()!r} are not in classes_ "
            f"{known.tolist()!r}, and {refusal}: pass every class to the "
            "first partial_fit call with classes=, or fit afresh")
    est._set_state(algo.grow_classes(est.state_, classes_after))


def start(est, algo, call):
    """A fresh state for ``call.classes`` (published once trained)."""
    if call.X.shape[0] == 0:
        raise ValueError("cannot fit on zero samples")
    est.state_ = algo.new_state(call, est._fitted_fields(call.classes,
                                                         call.n_labels))


def train(est, algo, call, targets, orders, n_passes, carry=None, stop=None):
    """Run the passes ``orders`` (an iterable of row orders) as one call:
    the algorithm's ``begin_call``, one ``run_epoch`` each, ``end_call``;
    the state is then published.

    ``carry`` holds per-example scratch of an earlier call over the same
    rows; ``stop(n_mistakes, n_updates)``, called after each pass, ends
    the call when it returns True. Returns the scratch to carry on
    (the algorithm's ``carried_scratch``).
    """
    call.n_passes = n_passes
    call.state = est.state_
    call.t = call.state.t
    algo.begin_call(call)
    # Per-example scratch of an earlier pass over the same rows
    # (parameter mixing runs one call per epoch and shard).
    if carry:
        algo.carry_in(call, carry)
    mistakes, updates = [], []
    call.n_iter = call.state.n_iter
    for order in orders:
        with compiled_threads(algo.n_jobs):
            n_mistakes, n_updates = algo.run_epoch(call, targets, order)
        call.t += order.shape[0]
        call.n_iter += 1
        mistakes.append(n_mistakes)
        updates.append(n_updates)
        if not algo.is_finite(call):
            raise ValueError(
                f"floating-point overflow at epoch {call.n_iter}: the "
                "weights are no longer finite; scale the input (e.g. "
                "StandardScaler) or lower eta"
            )
        if stop is not None and stop(n_mistakes, n_updates):
            break
    s = call.state
    call.state = s.replace(
        t=call.t, n_iter=call.n_iter,
        n_mistakes=s.n_mistakes + int(np.sum(mistakes)),
        n_updates=s.n_updates + int(np.sum(updates)),
        mistakes_per_epoch=appended(s.mistakes_per_epoch, mistakes),
        updates_per_epoch=appended(s.updates_per_epoch, updates))
    carry = algo.carry_out(call)
    est._adopt_state(algo.end_call(call, targets))
    return carry


def _continues(est, algo, call, coef_init, intercept_init):
    """Whether this ``fit`` continues the fitted state (``warm_start``).

    Raises
    ------
    ValueError
        If the data's classes or width differ from the fitted model's,
        or ``coef_init``/``intercept_init`` is given as well.
    """
    if not (algo.warm_start and hasattr(est, "state_")):
        return False
    if coef_init is not None or intercept_init is not None:
        raise ValueError("warm_start=True continues the fitted model; "
                         "coef_init/intercept_init would replace it: "
                         "pass one or the other")
    s = est.state_
    algo.check_continued(s)
    if call.n_labels != s.n_labels:
        raise ValueError(
            f"warm_start=True: the data's y is "
            f"{_kind_of_y(call.n_labels)}, the fitted model's "
            f"{_kind_of_y(s.n_labels)}; set warm_start=False to start "
            "afresh")
    if not np.array_equal(call.classes, s.classes):
        raise ValueError(
            f"warm_start=True: the data's classes "
            f"{plain_repr(call.classes.tolist())} differ from the fitted "
            f"model's {plain_repr(s.classes.tolist())}; set "
            "warm_start=False to start afresh")
    if call.X.shape[1] != s.n_features_in:
        raise ValueError(
            f"warm_start=True: X has {call.X.shape[1]} features, the "
            f"fitted model {s.n_features_in}; set warm_start=False to "
            "start afresh")
    return True


def _kind_of_y(n_labels):
    return (f"a multi-label indicator of {n_labels} labels" if n_labels
            else "1-D labels")


def _hold_out(algo, call, targets):
    """With ``early_stopping``, set the validation rows aside: they leave
    the call (as rows of weight 0 do) and become ``call.validation``
    ``(X, targets, weights)``.

    Returns
    -------
    targets : ndarray of int64
        The training rows' class indices.
    """
    call.validation = None
    if not getattr(algo, "early_stopping", False):
        return targets
    held = validation_split(targets, call.weights,
                            algo.validation_fraction, algo.random_state)
    weights = call.weights
    call.validation = (call.X[held], targets[held],
                       weights[held] if weights.shape[0] else None)
    subset_call(call, ~held)
    if weights.shape[0]:
        call.weights = weights[~held]
    return targets[~held]


def _weigh(algo, call, y, targets, sample_weight, fitting):
    """Resolve the rows' weights into ``call.weights``; leave out the
    rows of weight 0.

    ``call.weights`` is empty when every weight is 1 (the loops' unit
    step, bit for bit the unweighted run), else the weight of each kept
    row. Rows of weight 0 are dropped from the call before anything is
    computed from it (θ_Init "auto", the row norms, the α counters), so
    the model is the one trained without them.

    Returns
    -------
    targets : ndarray of int64
        The kept rows' class indices.
    """
    call.weights = UNIT_WEIGHTS
    if sample_weight is None and algo.class_weight is None:
        return targets
    weights = row_weights(sample_weight, algo.class_weight, call.X, y,
                          call.classes, targets, fitting=fitting)
    keep = weights > 0.0
    if not keep.all():
        subset_call(call, keep)
        weights, targets = weights[keep], targets[keep]
    if not np.all(weights == 1.0):
        refusal = algo.weights_refusal()
        if refusal:
            raise ValueError(refusal)
        call.weights = weights
    return targets


def _fit_passes(est, algo, call, targets):
    """The passes of ``fit``: ``max_iter`` epochs, shuffled if asked,
    fewer when a stopping rule (:mod:`~perceptrons.models._stopping`)
    ends them; or the algorithm's own passes (a run to convergence)."""
    if algo.fit_passes is not None:
        call.state = est.state_
        _publish_then_warn(est, call, algo.fit_passes(call, targets))
        return
    orders = epoch_orders(algo.random_state, call.X.shape[0],
                          algo.max_iter, algo.shuffle)
    if not hasattr(algo, "tol"):
        train(est, algo, call, targets, orders, algo.max_iter)
        return
    rule = (None if algo.tol is None
            else NoImprovement(algo.tol, algo.n_iter_no_change))
    outcome = {"stopped": False}

    def after_epoch(n_mistakes, n_updates):
        # tol=None runs max_iter passes exactly (the papers' protocol:
        # every pass is counted in t_ and mistakes_per_epoch_).
        if rule is None:
            return False
        if n_updates == 0 and algo.final_after_quiet_pass():
            outcome["stopped"] = True
        elif call.validation is None:
            outcome["stopped"] = rule.stops(n_mistakes / call.X.shape[0])
        return outcome["stopped"]

    if call.validation is None:
        train(est, algo, call, targets, orders, algo.max_iter,
              stop=after_epoch)
    else:
        # One call per pass (the per-example scratch carried, as
        # parameter mixing does), so that the model is whole for the
        # validation score after each.
        carry = None
        for order in orders:
            carry = train(est, algo, call, targets, [order], algo.max_iter,
                          carry, stop=after_epoch)
            if outcome["stopped"]:
                break
            if rule is not None and rule.stops(
                    -_validation_score(est, call.validation)):
                outcome["stopped"] = True
                break
    if rule is not None and not outcome["stopped"]:
        warnings.warn(
            f"{type(est).__name__} stopped at max_iter={algo.max_iter} "
            f"passes before its stopping rule (tol={algo.tol}, "
            f"n_iter_no_change={algo.n_iter_no_change}) was met; raise "
            "max_iter, or set tol=None to run max_iter passes without "
            "this check", ConvergenceWarning)


def _publish_then_warn(est, call, issued):
    """Publish the state an algorithm's own passes left in ``call``, then
    issue their warnings (``(message, category)`` pairs): a warning turned
    into an error leaves the fitted model whole."""
    est._adopt_state(call.state)
    for message, category in issued or ():
        warnings.warn(message, category)


def _validation_score(est, validation):
    """Accuracy of the model on the held-out rows (weighted)."""
    X, targets, weights = validation
    predicted = est._labels(est._scores(X))
    right = (predicted == est.state_.classes[targets]).astype(np.float64)
    if weights is None:
        return float(np.mean(right))
    return float(np.sum(right * weights) / np.sum(weights))


def _start_from(est, algo, coef_init, intercept_init):
    """Set the initial weights of a fresh start, when given."""
    if coef_init is None and intercept_init is None:
        return
    state = est.state_
    coef, intercept = _initial_arrays(
        algo, state, *algo.initial_shapes(state, coef_init, intercept_init))
    replaced = algo.set_initial(state, coef, intercept)
    if replaced is not None:
        est.state_ = replaced


def _initial_arrays(algo, state, coef_init, intercept_init):
    """Validate ``coef_init`` and ``intercept_init`` against the data.

    Returns
    -------
    coef : ndarray of shape (n_problems, n_features), float64, or None
    intercept : ndarray of shape (n_problems,), float64, or None

    Raises
    ------
    ValueError
        On a wrong shape or a non-finite value.
    """
    n_problems = algo.n_problems(state)
    n_classes = state.classes.shape[0]
    n_features = state.n_features_in
    out = []
    for name, value, shape in (
            ("coef_init", coef_init, (n_problems, n_features)),
            ("intercept_init", intercept_init, (n_problems,))):
        if value is None:
            out.append(None)
            continue
        try:
            arr = np.array(value, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} is not an array of numbers "
                             f"({exc})") from None
        if arr.ndim == len(shape) - 1 and n_problems == 1:
            arr = arr[None]
        if arr.shape != shape:
            raise ValueError(f"{name} has shape {arr.shape}; expected "
                             f"{shape} for {n_classes} classes "
                             f"and {n_features} features")
        if not np.isfinite(arr).all():
            raise ValueError(f"{name} contains NaN or infinity")
        out.append(arr)
    return tuple(out)
