"""What every online perceptron estimator shares.

:class:`BaseOnlinePerceptron` validates input, encodes labels, runs the epoch
loop in Python (one compiled call per pass over the data, STYLE habit 3),
checks the weights stay finite, and handles ``fit``/``partial_fit``/
``predict``. A model class supplies its docstring, ``_parameter_constraints``,
``_model_state``, ``__init__`` and its hooks: ``_allocate``, ``_begin_call``,
``_run_epoch``, ``_end_call`` and ``_decision``. Every training hook gets
the call's :class:`TrainingCall`: scratch sized by the call's rows lives
there and is gone when the call ends, so a fitted estimator is its declared
state (``_model_state``) and nothing else.
"""

from abc import abstractmethod
from numbers import Integral
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._loops._common import (
    column_sq_sums,
    few_distinct_values,
    label_codes,
    row_sq_norms,
)
from ..utils._param_validation import Interval, StrOptions
from ..utils.random import epoch_orders
from ..utils.validation import as_loop_arrays


def checked_column_sq_sums(loop_arrays, n_features):
    """``sum_i x_ij²`` for every column of X, rejecting non-finite input.

    Parameters
    ----------
    loop_arrays : tuple
        X as the primal loops read it
        (:func:`~perceptrons.utils.validation.as_loop_arrays`).
    n_features : int

    Returns
    -------
    ndarray of shape (n_features,)

    Raises
    ------
    ValueError
        If X holds NaN or infinity, or the squares overflow float64.
    """
    col_sq = column_sq_sums(*loop_arrays, n_features)
    if not np.isfinite(col_sq).all():
        data = loop_arrays[0]
        if np.isnan(data).any():
            raise ValueError("Input X contains NaN.")
        if not np.isfinite(data).all():
            raise ValueError("Input X contains infinity.")
        column = int(np.flatnonzero(~np.isfinite(col_sq))[0])
        raise ValueError(
            f"the squares of column {column} overflow float64; scale the "
            "input (e.g. StandardScaler)")
    return col_sq


def _plain_class_labels(y):
    """True for integer or boolean labels, or finite integral floats.

    Such labels are classification targets by construction, so the cost of
    scikit-learn's ``type_of_target`` (about 0.15 ms on a9a) is spared;
    anything else goes through ``check_classification_targets``.
    """
    if y.ndim != 1:
        return False
    if y.dtype.kind in "iub":
        return True
    if y.dtype.kind == "f":
        return bool(np.isfinite(y).all() and np.array_equal(y, np.rint(y)))
    return False


#: Most distinct labels the one-pass encoding handles; more go through
#: ``np.unique`` (a sort) and one comparison pass per class.
_FEW_CLASSES = 16


def _few_label_encoding(y):
    """Sorted classes and class indices of numeric labels, in two passes.

    ``np.unique`` sorts the labels (50 ms for 4.9 million of them) and
    :meth:`BaseOnlinePerceptron._encode` makes one pass per class; for
    integer labels, or finite integral floats (the labels
    :func:`_plain_class_labels` accepts), with at most ``_FEW_CLASSES``
    distinct values, one pass finds them and one pass encodes.

    Returns
    -------
    (classes, targets) or None
        ``classes`` equals ``np.unique(y)``; ``targets`` (int64) indexes
        it. None when y is of another kind or has more distinct values.
    """
    if (y.ndim != 1 or y.shape[0] == 0 or not y.dtype.isnative
            or not (y.dtype.kind in "iu"
                    or y.dtype in (np.float32, np.float64))):
        return None
    values = np.empty(_FEW_CLASSES, dtype=y.dtype)
    n = few_distinct_values(y, values)
    if n < 0:
        return None
    classes = np.sort(values[:n])
    if y.dtype.kind == "f" and not (np.isfinite(classes).all()
                                    and np.array_equal(classes,
                                                       np.rint(classes))):
        return None
    targets = np.empty(y.shape[0], dtype=np.int64)
    label_codes(y, classes, targets)
    return classes, targets


_NO_ROW_NORMS = np.zeros(0)


def mix(arrays, mu):
    """``Σ_i μ_i a_i`` (Algorithm 2 of McDonald, Hall & Mann 2010), in
    shard order so that the result does not depend on where shards ran."""
    total = mu[0] * arrays[0]
    for weight, array in zip(mu[1:], arrays[1:]):
        total += weight * array
    return total


def pooled_sum(start, sums):
    """The running sum of every hypothesis visited by any shard.

    Each shard's sum ``sums[i]`` continues the sum it started from,
    ``start`` (None: zero); the pool adds what every shard added to it.
    """
    if start is None:
        total = sums[0].copy()
        for s in sums[1:]:
            total += s
        return total
    total = start.copy()
    for s in sums:
        total += s - start
    return total


class TrainingCall(SimpleNamespace):
    """Scratch of one ``fit``/``partial_fit`` call, never kept on the model.

    Created when a call starts and dropped when it ends, so that a fitted
    estimator holds its declared state (``_model_state``) and nothing sized
    by the training set that is not part of the model. The base class sets
    ``X``, ``loop_arrays`` (X as the primal loops take it), ``labels``
    (classes and class indices of numeric labels with few classes, or
    None: :func:`_few_label_encoding`), ``sq_norms``
    (``<x_i, x_i>`` per row, or empty when the model does not read them),
    ``sq_norm_sum`` and ``mean_sq_norm`` (the sum and the average of
    ``<x_i, x_i>``) and ``n_passes``; a model
    adds its own per-example arrays and work space in ``_begin_call``.
    """


class BaseOnlinePerceptron(ClassifierMixin, BaseEstimator):
    """Shared machinery of the online perceptron estimators (not public)."""

    _parameter_constraints = {
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean", StrOptions({"blocks"})],
        "random_state": ["random_state"],
    }

    #: The fitted state: what prediction and ``partial_fit`` need, and all a
    #: model file holds (:func:`perceptrons.persistence.model_state`). A
    #: subclass extends it; nothing else stays on a fitted estimator.
    _model_state = ("classes_", "n_features_in_", "feature_names_in_", "t_",
                    "n_iter_", "n_mistakes_", "n_updates_",
                    "mistakes_per_epoch_", "updates_per_epoch_")

    # ----------------------------------------------------------- hooks
    @abstractmethod
    def _allocate(self, call, n_classes):
        """Create the fitted state for a fresh start on ``call.X``."""

    @abstractmethod
    def _run_epoch(self, call, targets, order):
        """Run one compiled pass; return (n_mistakes, n_updates)."""

    def _begin_call(self, call):
        """Add the model's per-call scratch to ``call`` (before the passes)."""

    def _end_call(self, call, targets):
        """Derive public attributes once a fit/partial_fit call is done."""

    @abstractmethod
    def _decision(self, X):
        """Raw scores, shape (n_samples, n_problems)."""

    # ----------------------------------------------------------- input
    def _validate_input(self, X, y, reset):
        """Validate (X, y) and start the call's :class:`TrainingCall`.

        Returns
        -------
        X, y
            The validated data.
        call : TrainingCall
            With ``X``, ``loop_arrays``, ``sq_norms`` and ``mean_sq_norm``.
        """
        # Finiteness is checked by the squared-norm pass below instead of
        # scikit-learn's own scan: one read of X serves both.
        X, y = validate_data(
            self, X, y, accept_sparse="csr", dtype=np.float64, order="C",
            reset=reset, y_numeric=False, ensure_all_finite=False,
        )
        # Numeric labels with few classes are found and encoded in two
        # passes; they are plain class labels by construction.
        labels = _few_label_encoding(y)
        if labels is None and not _plain_class_labels(y):
            check_classification_targets(y)
        if sp.issparse(X) and not X.has_canonical_format:
            # The loops and the row norms want sorted, unique indices; never
            # reorder the caller's matrix in place.
            X = X.copy()
            X.sum_duplicates()
        # One pass checks finiteness and gives the average ⟨x, x⟩; the
        # per-row norms cost a second pass, made only for models that read
        # them (0.4 ms of a 1.5 ms fit on a9a).
        loop_arrays = as_loop_arrays(X)
        col_sq = checked_column_sq_sums(loop_arrays, X.shape[1])
        sq_norm_sum = float(np.sum(col_sq))
        call = TrainingCall(
            X=X, loop_arrays=loop_arrays, n_passes=1, labels=labels,
            sq_norm_sum=sq_norm_sum,
            mean_sq_norm=sq_norm_sum / X.shape[0] if X.shape[0] else 0.0,
            sq_norms=(row_sq_norms(*loop_arrays, X.shape[0])
                      if self._needs_row_sq_norms() else _NO_ROW_NORMS))
        return X, y, call

    def _needs_row_sq_norms(self):
        """Whether ``call.sq_norms`` (``<x_i, x_i>`` per row) is needed."""
        return True

    def _call_targets(self, call, y):
        """The call's labels as indices into ``classes_``: from the labels'
        one-pass encoding when there is one (:func:`_few_label_encoding`),
        else :meth:`_encode`."""
        if call.labels is None:
            return self._encode(y)
        values, codes = call.labels
        classes = self.classes_
        if values.shape[0] == classes.shape[0] and np.array_equal(
                values, classes):
            return codes
        if classes.dtype.kind not in "iuf":
            return self._encode(y)
        # partial_fit with a subset of classes_: map the call's few values.
        position = np.searchsorted(classes, values)
        position = np.clip(position, 0, len(classes) - 1)
        if np.any(classes[position] != values):
            return self._encode(y)  # raises on the unseen labels
        return position.astype(np.int64)[codes]

    def _encode(self, y):
        """Map labels to indices into ``classes_``; reject unseen labels."""
        classes = self.classes_
        if classes.shape[0] <= 16:
            # A pass per class beats searchsorted's binary search for few
            # classes (0.05 vs 0.2 ms on a9a).
            targets = np.full(y.shape[0], -1, dtype=np.int64)
            for k, label in enumerate(classes):
                targets[y == label] = k
            unseen = targets < 0
        else:
            targets = np.searchsorted(classes, y)
            targets = np.clip(targets, 0, len(classes) - 1)
            unseen = classes[targets] != y
        if np.any(unseen):
            raise ValueError(
                f"labels {np.unique(y[unseen]).tolist()!r} are not in "
                f"classes_ {self.classes_.tolist()!r}; pass every class to "
                "the first partial_fit call with classes="
            )
        return targets.astype(np.int64, copy=False)

    # ----------------------------------------------------------- training
    def _start_fit(self, X, y):
        """Validate parameters and training data and set ``classes_``.

        Returns
        -------
        X, y
            The validated data.
        call : TrainingCall
        """
        self._validate_params()
        X, y, call = self._validate_input(X, y, reset=True)
        classes = np.unique(y) if call.labels is None else call.labels[0]
        if classes.shape[0] < 2:
            raise ValueError(
                f"the training data has only one class ({classes[0]!r}); "
                "a classifier needs at least two"
            )
        self.classes_ = classes
        return X, y, call

    def fit(self, X, y, coef_init=None, intercept_init=None):
        """Train from scratch for ``max_iter`` passes over (X, y).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training instances; CSR input is used without densifying.
        y : array-like of shape (n_samples,)
            Labels; at least two classes.
        coef_init : ndarray of shape (n_problems, n_features), default=None
            Weights to start from instead of zero (linear models only), as
            scikit-learn's ``SGDClassifier.fit``: one row for two classes
            (a 1-D array is taken as that row), one per class otherwise.
        intercept_init : ndarray of shape (n_problems,), default=None
            Intercepts to start from.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y, call = self._start_fit(X, y)
        self._start(call)
        self._start_from(coef_init, intercept_init)
        self._fit_passes(call, self._call_targets(call, y))
        return self

    def _fit_passes(self, call, targets):
        """The passes of ``fit``: ``max_iter`` epochs, shuffled if asked."""
        orders = epoch_orders(self.random_state, call.X.shape[0],
                              self.max_iter, self.shuffle)
        self._train(call, targets, orders, self.max_iter)

    def _start_from(self, coef_init, intercept_init):
        """Set the initial weights of a fresh start, when given."""
        if coef_init is None and intercept_init is None:
            return
        coef, intercept = self._initial_arrays(coef_init, intercept_init)
        self._set_initial(coef, intercept)

    def _set_initial(self, coef, intercept):
        """Write validated ``coef_init`` / ``intercept_init`` into the state.

        Parameters
        ----------
        coef : ndarray of shape (n_problems, n_features) or None
        intercept : ndarray of shape (n_problems,) or None
        """
        raise ValueError(f"{type(self).__name__} does not take coef_init/"
                         "intercept_init (its model is not a weight vector "
                         "of the input space)")

    def _n_problems(self):
        """Rows of ``coef_``: one for two classes, else one per class."""
        return 1 if len(self.classes_) == 2 else len(self.classes_)

    def _initial_arrays(self, coef_init, intercept_init):
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
        n_problems = self._n_problems()
        out = []
        for name, value, shape in (
                ("coef_init", coef_init, (n_problems, self.n_features_in_)),
                ("intercept_init", intercept_init, (n_problems,))):
            if value is None:
                out.append(None)
                continue
            arr = np.array(value, dtype=np.float64)
            if arr.ndim == len(shape) - 1 and n_problems == 1:
                arr = arr[None]
            if arr.shape != shape:
                raise ValueError(f"{name} has shape {arr.shape}; expected "
                                 f"{shape} for {len(self.classes_)} classes "
                                 f"and {self.n_features_in_} features")
            if not np.isfinite(arr).all():
                raise ValueError(f"{name} contains NaN or infinity")
            out.append(arr)
        return tuple(out)

    def _start_partial_fit(self, X, y, classes):
        """Validate a partial_fit call; on the first, set ``classes_``.

        Returns
        -------
        X, y
            The validated data.
        call : TrainingCall
        first : bool
            Whether this is the first call (the caller allocates the state).
        """
        first = not hasattr(self, "classes_")
        if first:
            self._validate_params()
            if classes is None:
                raise ValueError(
                    "classes must be passed to the first call to partial_fit"
                )
            classes = np.unique(np.asarray(classes))
            if classes.shape[0] < 2:
                raise ValueError("classes must contain at least two labels")
        elif classes is not None and not np.array_equal(
            np.unique(np.asarray(classes)), self.classes_
        ):
            raise ValueError(
                f"classes={np.unique(classes).tolist()!r} differs from the "
                f"classes of the first partial_fit call {self.classes_.tolist()!r}"
            )
        X, y, call = self._validate_input(X, y, reset=first)
        if X.shape[0] == 0:
            raise ValueError("cannot fit on zero samples")
        if first:
            self.classes_ = classes
        return X, y, call, first

    def partial_fit(self, X, y, classes=None):
        """One pass over (X, y) in the given order, continuing the state.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every class; required on the first call.

        Returns
        -------
        self : object
        """
        X, y, call, first = self._start_partial_fit(X, y, classes)
        if first:
            self._start(call)
        self._partial_pass(call, self._call_targets(call, y))
        return self

    def _partial_pass(self, call, targets):
        """The pass of ``partial_fit``: the rows once, in the given order."""
        order = np.arange(call.X.shape[0], dtype=np.int64)
        self._train(call, targets, [order], 1)

    def _start(self, call):
        if call.X.shape[0] == 0:
            raise ValueError("cannot fit on zero samples")
        self._allocate(call, len(self.classes_))
        self.t_ = 0
        self.n_iter_ = 0
        self.n_mistakes_ = 0
        self.n_updates_ = 0
        self.mistakes_per_epoch_ = np.zeros(0, dtype=np.int64)
        self.updates_per_epoch_ = np.zeros(0, dtype=np.int64)

    def _train(self, call, targets, orders, n_passes, carry=None):
        call.n_passes = n_passes
        self._begin_call(call)
        # Per-example scratch of an earlier pass over the same rows
        # (parameter mixing runs one call per epoch and shard).
        for name, value in (carry or {}).items():
            setattr(call, name, value)
        mistakes, updates = [], []
        for order in orders:
            n_mistakes, n_updates = self._run_epoch(call, targets, order)
            self.t_ += order.shape[0]
            self.n_iter_ += 1
            mistakes.append(n_mistakes)
            updates.append(n_updates)
            if not self._state_is_finite(call):
                raise ValueError(
                    f"floating-point overflow at epoch {self.n_iter_}: the "
                    "weights are no longer finite; scale the input (e.g. "
                    "StandardScaler) or lower eta"
                )
        self.n_mistakes_ += int(np.sum(mistakes))
        self.n_updates_ += int(np.sum(updates))
        self.mistakes_per_epoch_ = np.concatenate(
            [self.mistakes_per_epoch_, np.asarray(mistakes, dtype=np.int64)])
        self.updates_per_epoch_ = np.concatenate(
            [self.updates_per_epoch_, np.asarray(updates, dtype=np.int64)])
        self._end_call(call, targets)

    def _state_is_finite(self, call):
        return True

    # ----------------------------------------------------------- mixing
    #: Per-example scratch that a multi-epoch ``fit`` keeps from one epoch
    #: to the next (e.g. the α counts of the λ-trick): iterative parameter
    #: mixing hands it from a shard's epoch to the same shard's next one.
    _carried_scratch = ()

    #: Counters a mixed epoch adds up over the shards: running totals, and
    #: per-epoch arrays that gain one entry (the shards' sum) per epoch.
    _mixed_totals = ("n_mistakes_", "n_updates_")
    _mixed_per_epoch = ("mistakes_per_epoch_", "updates_per_epoch_")

    def _mixing_refusal(self):
        """Why iterative parameter mixing cannot average this model's state
        (None when it can, with the parameters as they are)."""
        return (f"{type(self).__name__}'s state is not a weight vector: a "
                "weighted average of several runs' states is not a state of "
                "the algorithm")

    def _shard_pass(self, call, y, order, *, fitted_names, classes,
                    mean_sq_norm, carry=None):
        """One epoch of iterative parameter mixing on one shard.

        Continues the fitted state when there is one; else starts afresh as
        ``fit`` would on the union of the shards, whose average ``<x, x>``
        (``mean_sq_norm``) resolves the "auto" quantities and whose classes
        are ``classes``. With one shard, the epochs of this method are those
        of ``fit`` bit for bit.

        Parameters
        ----------
        call : TrainingCall
            The shard as :meth:`_validate_input` returned it (validated once,
            read by every epoch; each pass adds its scratch afresh).
        y : ndarray
            The shard's validated labels.
        order : ndarray of int64
            The rows to present.
        fitted_names : dict
            What validation set on the estimator (``n_features_in_``, ...).
        classes : ndarray
            Every class of the union of the shards.
        mean_sq_norm : float
            The average ``<x_i, x_i>`` over the union of the shards.
        carry : dict, default=None
            What the previous call on this shard returned.

        Returns
        -------
        carry : dict
            The per-example scratch to pass to the next call on this shard.
        """
        if call.X.shape[0] == 0:
            raise ValueError("cannot fit on zero samples")
        call.mean_sq_norm = float(mean_sq_norm)
        if not hasattr(self, "classes_"):
            self._validate_params()
            vars(self).update(fitted_names)
            self.classes_ = np.asarray(classes)
            self._start(call)
        self._train(call, self._call_targets(call, y), [order], 1, carry)
        return {name: getattr(call, name) for name in self._carried_scratch}

    def _mix_states(self, start, states, mu):
        """Set this model to the mix of the shards' states (Algorithm 2 of
        McDonald, Hall & Mann 2010).

        Parameters
        ----------
        start : dict
            The declared state every shard started the epoch from (empty
            for the first epoch).
        states : list of dict
            Each shard's declared state after its epoch.
        mu : ndarray of shape (n_shards,)
            The mixing weights, summing to one.

        The counters (``_mixed_totals``, ``_mixed_per_epoch``) add up what
        each shard did in the epoch; the model's own arrays are mixed by
        :meth:`_mix_arrays`.
        """
        # What is not mixed (classes, parameters resolved from the data) is
        # the same in every shard.
        vars(self).update(states[0])
        t0 = start.get("t_", 0)
        self.t_ = t0 + sum(s["t_"] - t0 for s in states)
        self.n_iter_ = start.get("n_iter_", 0) + 1
        for name in self._mixed_totals:
            setattr(self, name, start.get(name, 0)
                    + sum(s[name] - start.get(name, 0) for s in states))
        for name in self._mixed_per_epoch:
            before = start.get(name, np.zeros(0, dtype=np.int64))
            epoch = sum(int(s[name][-1]) for s in states)
            setattr(self, name, np.append(before, epoch).astype(np.int64))
        self._mix_arrays(start, states, mu)

    def _mix_arrays(self, start, states, mu):
        """Mix the model's own arrays; see :meth:`_mix_states`."""
        raise ValueError(self._mixing_refusal())

    # ----------------------------------------------------------- prediction
    def decision_function(self, X):
        """Raw scores; the predicted class has the largest.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes (positive favours
        ``classes_[1]``), else (n_samples, n_classes).
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64,
                          order="C", reset=False)
        scores = self._decision(X)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X):
        """Predicted labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            For two classes, ``classes_[1]`` where the score is strictly
            positive, else ``classes_[0]``; otherwise the class of largest
            score (lowest index among equals).
        """
        return self._labels(self.decision_function(X))

    def _labels(self, scores):
        """The labels :meth:`predict` gives for ``decision_function``'s
        scores."""
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
