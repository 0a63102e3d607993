"""What a model file may name, and how its nodes become an estimator: the
registry's estimators and the state types they declare, the scalers a
saved Pipeline may hold, and the checks of the whole before it is returned
(see :mod:`perceptrons.persistence`).
"""

import numpy as np

# Scalers a saved Pipeline may hold before its estimator, with their fitted
# statistics (what transform needs).
_PREPROCESSORS = {
    "sklearn.preprocessing.StandardScaler": (
        "n_features_in_", "n_samples_seen_", "mean_", "var_", "scale_"),
    "sklearn.preprocessing.MaxAbsScaler": (
        "n_features_in_", "n_samples_seen_", "max_abs_", "scale_"),
    "sklearn.preprocessing.Normalizer": ("n_features_in_",),
}


def _preprocessor_classes():
    import sklearn.preprocessing

    return {name: getattr(sklearn.preprocessing, name.rpartition(".")[2])
            for name in _PREPROCESSORS}


# ---------------------------------------------------------------- registry
def estimator_registry():
    """Public estimator classes by saved name (``"perceptrons.Perceptron"``).

    Returns
    -------
    dict of str to type
        The classes of :data:`perceptrons.registry.ESTIMATORS`.
    """
    from ..registry import estimator_classes

    return {f"perceptrons.{name}": cls
            for name, cls in estimator_classes().items()}


def state_types():
    """Every state type a model file may hold, by name.

    The state types of :data:`perceptrons.registry.ESTIMATORS` and the
    types nested in them (their ``sub`` fields).

    Returns
    -------
    dict of str to type
    """
    out = {}
    todo = [cls._state_type for cls in estimator_registry().values()]
    while todo:
        cls = todo.pop()
        if cls.__name__ in out:
            continue
        out[cls.__name__] = cls
        for _, spec in cls.specs():
            if spec.what == "sub":
                todo.extend(spec.kind)
    return out


# ---------------------------------------------------------------- saving
def _split_pipeline(model):
    """``(scalers, estimator)`` of a model; TypeError if it cannot be saved."""
    registry = estimator_registry()
    steps = [("model", model)]
    if type(model).__name__ == "Pipeline" and hasattr(model, "steps"):
        steps = list(model.steps)
    *before, (_, estimator) = steps
    names = [n for n, c in registry.items() if type(estimator) is c]
    if not names:
        raise TypeError(
            f"cannot save an estimator of type {type(estimator).__name__}: "
            f"only {', '.join(sorted(registry))} can be saved, alone or at "
            "the end of a Pipeline of scalers")
    classes = {cls: name for name, cls in _preprocessor_classes().items()}
    for step, scaler in before:
        if type(scaler) not in classes:
            raise TypeError(
                f"cannot save pipeline step {step!r} of type "
                f"{type(scaler).__name__}: only {', '.join(sorted(classes.values()))}"
                " can precede the estimator")
    return [(step, classes[type(scaler)], scaler)
            for step, scaler in before], names[0], estimator


# ---------------------------------------------------------------- loading
def _build_estimator(dec, cls, header):
    """An instance of ``cls`` with the header's parameters and its state,
    validated."""
    estimator = _build(dec, cls, {"params": header.get("params"),
                                  "attributes": {}}, (), "")
    node = header.get("state")
    if node is not None:
        state = dec.decode(node, "state_")
        estimator._set_state(state, where="state_")
    elif "attributes" in header:
        raise ValueError("header holds attributes, not a state")
    return estimator


def _build(dec, cls, node, declared, what):
    """An instance of ``cls`` with the node's parameters and state."""
    params, attrs = node.get("params"), node.get("attributes")
    if not all(isinstance(d, dict) for d in (params, attrs)):
        raise ValueError(f"{what}header lacks params/attributes/arrays")
    values = {k: dec.decode(v, f"{what}parameter {k!r}")
              for k, v in params.items()}
    state = {k: dec.decode(v, f"{what}attribute {k!r}")
             for k, v in attrs.items()}
    obj = cls()
    known = obj.get_params(deep=False)
    unknown = set(values) - set(known)
    if unknown:
        raise ValueError(f"{what}parameters {sorted(unknown)} are not "
                         f"parameters of {cls.__name__} in this version")
    obj.set_params(**values)
    try:
        obj._validate_params()  # the class's declared constraints
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what}invalid parameter: {exc}") from exc
    for key, value in state.items():
        if key not in declared:
            raise ValueError(f"{what}attribute {key!r:.40} is not part of "
                             f"the fitted state of {cls.__name__}")
        setattr(obj, key, value)
    return obj


def _check_fitted(model, estimator, scalers):
    """ValueError unless the fitted model can predict: the scalers against
    the estimator's input, then one all-zero row through ``model`` (the
    state is validated already; this checks the whole as it will be used)."""
    state = getattr(estimator, "state_", None)
    if state is None:
        return  # an unfitted estimator
    n = state.n_features_in
    for scaler in scalers:
        _check_scaler(scaler, n)
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pred = model.predict(np.zeros((1, n)))
    except Exception as exc:  # noqa: BLE001 - any failure means bad state
        raise ValueError(f"the saved state cannot predict ("
                         f"{type(exc).__name__}: {exc})") from exc
    if state.n_labels:
        # A multi-label model predicts a row of its labels' indicator.
        if np.shape(pred) != (1, state.n_labels) or not np.isin(
                pred, (0, 1)).all():
            raise ValueError(
                f"the saved state does not predict an indicator of its "
                f"{state.n_labels} labels")
    elif np.shape(pred) != (1,) or not np.isin(pred, state.classes).all():
        raise ValueError("the saved state predicts labels outside classes_")


def _check_scaler(scaler, n):
    state = vars(scaler)
    if state.get("n_features_in_") != n or type(
            state.get("n_features_in_")) is bool:
        raise ValueError(f"scaler {type(scaler).__name__} was fitted on "
                         f"{state.get('n_features_in_')!r:.40} features, "
                         f"the estimator on {n}")
    for key in ("mean_", "var_", "scale_", "max_abs_"):
        value = state.get(key)
        if value is not None and not (
                isinstance(value, np.ndarray) and value.shape == (n,)
                and value.dtype.kind == "f"):
            raise ValueError(f"{type(scaler).__name__}.{key} must be a "
                             f"float array of {n} values")
