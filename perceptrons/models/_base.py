"""What every online perceptron estimator shares.

:class:`BaseOnlinePerceptron` validates input, encodes labels, runs the epoch
loop in Python (one compiled call per pass over the data, STYLE habit 3),
checks the weights stay finite, and handles ``fit``/``partial_fit``/
``predict``. A fitted estimator is its state, ``state_``: one typed,
versioned, validated object (:mod:`perceptrons.models._state`) and nothing
else; its public attributes (``coef_``, ``classes_``, ``t_``, ...) are views
of it, set again from it after every call and every load. A model class
supplies its docstring, ``_parameter_constraints``, its state type
``_state_type``, ``__init__`` and its hooks: ``_new_state``, ``_begin_call``,
``_run_epoch``, ``_end_call``, ``_public_model`` and ``_decision``. Every
training hook gets the call's :class:`TrainingCall`: scratch sized by the
call's rows lives there and is gone when the call ends.
"""

import warnings
from abc import abstractmethod
from concurrent.futures import ThreadPoolExecutor
from numbers import Integral
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (_check_feature_names, check_is_fitted,
                                      validate_data)

from .._loops._common import (
    column_sq_sums,
    few_distinct_values,
    label_codes,
    row_sq_norms,
)
from ._kernel import BLOCK_ROWS as PREDICTION_BLOCK_ROWS
from ._weighting import UNIT_WEIGHTS as _UNIT_WEIGHTS
from ._stopping import NoImprovement, validation_split
from ._state import appended
from ._weighting import row_weights, subset_call
from ..utils._param_validation import (Interval, InvalidParameterError,
                                       StrOptions)
from ..utils.parallel import (compiled_threads, contiguous_parts,
                              effective_n_jobs)
from ..utils.random import epoch_orders
from ..utils.validation import (as_loop_arrays, check_sparse_structure,
                                outside_columns,
                                plain_repr, plain_reprs)


def checked_column_sq_sums(loop_arrays, n_features):
    """``sum_i x_ij²`` for every column of X, rejecting non-finite input
    and CSR column indices outside ``[0, n_features)``.

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
        If X holds NaN or infinity, the squares overflow float64, or a
        column index is out of range.
    """
    col_sq = np.zeros(n_features)
    bad = column_sq_sums(*loop_arrays, n_features, col_sq)
    if bad >= 0:
        raise outside_columns(loop_arrays[1], bad, n_features)
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


def _validated(estimator, X, y="no_validation", reset=True,
               columns_checked_later=False, **kwargs):
    """scikit-learn's ``validate_data`` for the loops: float64, C order, CSR.

    A sparse X has its index arrays checked first (scipy checks none of
    them, and its conversion of a CSC or COO matrix to CSR writes through
    them); complex X is refused in one line, where scikit-learn's message
    prints the whole array. Input that is already what the loops read
    takes :func:`_plain_input` instead. ``columns_checked_later``: a CSR
    matrix's column indices are left to the caller's next pass
    (:func:`checked_column_sq_sums`), which nothing before it follows.
    """
    if sp.issparse(X):
        check_sparse_structure(X, "X", columns=not columns_checked_later)
    plain = _plain_input(estimator, X, y, reset,
                         kwargs.get("ensure_all_finite", True))
    if plain is not None:
        return plain
    try:
        return validate_data(estimator, X, y, accept_sparse="csr",
                             dtype=(np.float64, np.float32), order="C",
                             reset=reset, **kwargs)
    except ValueError as exc:
        if str(exc).startswith("Complex data not supported"):
            raise ValueError(
                "Complex data not supported in X: pass real features (e.g. "
                "X.real, or the real and imaginary parts as separate "
                "columns)") from None
        raise


_PLAIN_SPARSE = (sp.csr_matrix, sp.csr_array)


def _plain_input(estimator, X, y, reset, check_finite):
    """What ``validate_data`` makes of input it would pass through as it is.

    A non-empty 2-D C-ordered float64/float32 ndarray or CSR matrix (exact
    types: no data frame, hence no feature names) with, if given, a 1-D
    ndarray of finite numeric labels of the same length: scikit-learn's
    ``validate_data`` returns these unchanged and sets ``n_features_in_``,
    after checks (data frame detection, tags, feature names) that cost
    about 0.5 ms a call, a fifth of a one-pass ``fit`` on a9a. Here the
    same bookkeeping is done directly (a mismatch in the number of
    features still raises scikit-learn's own message); anything else,
    non-finite X included when ``check_finite``, returns None and goes
    through ``validate_data``, which raises its own messages.

    Returns
    -------
    X or (X, y) or None
    """
    if type(X) is np.ndarray:
        if X.ndim != 2 or not X.flags.c_contiguous:
            return None
    elif type(X) not in _PLAIN_SPARSE:
        return None
    if (X.dtype not in (np.float64, np.float32) or X.shape[0] == 0
            or X.shape[1] == 0):
        return None
    # scikit-learn's own shortcut: a finite sum means finite entries.
    if check_finite and not np.isfinite(np.sum(X.data if sp.issparse(X)
                                               else X)):
        return None
    no_y = isinstance(y, str) and y == "no_validation"
    if not no_y and (type(y) is not np.ndarray or y.ndim != 1
                     or y.shape[0] != X.shape[0]
                     or y.dtype.kind not in "iubf"
                     or (y.dtype.kind == "f" and not np.isfinite(y).all())):
        return None
    if reset:
        estimator.n_features_in_ = X.shape[1]
        estimator.__dict__.pop("feature_names_in_", None)
    else:
        if getattr(estimator, "feature_names_in_", None) is not None:
            # scikit-learn's warning: fitted with names, given none.
            _check_feature_names(estimator, X, reset=False)
        expected = getattr(estimator, "n_features_in_", X.shape[1])
        if X.shape[1] != expected:
            raise ValueError(
                f"X has {X.shape[1]} features, but "
                f"{type(estimator).__name__} is expecting {expected} "
                "features as input.")
    return X if no_y else (X, y)


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

#: Parameter sets already found valid (:meth:`BaseOnlinePerceptron._validate_params`).
_VALID_PARAMS = set()
_MAX_VALID_PARAMS = 4096
_PLAIN_TYPES = (type(None), bool, int, float, str)


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


def pooled_accumulator(start, states, t, mixed, value, acc):
    """The accumulator of a mixed state that keeps ``Σ_t w_t = t·w - A``.

    Parameters
    ----------
    start : State or None
        The state every shard started the epoch from.
    states : list of State
        Each shard's state after its epoch.
    t : int
        The mixed state's step count.
    mixed : ndarray
        The mixed w.
    value, acc : callable
        A state's w and A.

    Returns
    -------
    ndarray
        ``t·w - Σ`` with Σ the pooled sum of every hypothesis any shard
        visited (:func:`pooled_sum`), so that the mixed state's average is
        the average of all of them.
    """
    before = (start.t * value(start) - acc(start) if start is not None
              else None)
    return t * mixed - pooled_sum(before, [s.t * value(s) - acc(s)
                                           for s in states])


def mixed_rows_and_offset(start, states, mu, counted, averaged, offset,
                          offset_acc):
    """The mixed arrays of states of weight rows and per-row offsets.

    The states hold weight rows, an offset per row (θ, b) and, averaged,
    their accumulators ``A`` with ``Σ_t w_t = t·w - A`` (the Perceptron's
    and PA's states).

    Parameters
    ----------
    start : State or None
        The state every shard started the epoch from.
    states : list of State
        Each shard's state after its epoch.
    mu : ndarray of shape (n_shards,)
        The mixing weights.
    counted : State
        The first shard's state with the counters added up
        (:meth:`BaseOnlinePerceptron._mix_states`).
    averaged : bool
        Whether the states keep the accumulators.
    offset, offset_acc : str
        The state fields of the offset and its accumulator.

    Returns
    -------
    dict
        The replaced fields: ``weights`` (current rows mixed by μ,
        accumulator pooled), the offset and its accumulator,
        ``n_updates_per_problem`` (added up).
    """
    current = mix([s.weights.current for s in states], mu)
    off = mix([getattr(s, offset) for s in states], mu)
    summed = counted.weights.summed
    off_acc = getattr(counted, offset_acc)
    if averaged:
        summed = pooled_accumulator(
            start, states, counted.t, current, lambda s: s.weights.current,
            lambda s: s.weights.summed)
        off_acc = pooled_accumulator(
            start, states, counted.t, off, lambda s: getattr(s, offset),
            lambda s: getattr(s, offset_acc))
    n_updates = pooled_sum(
        start.n_updates_per_problem if start is not None else None,
        [s.n_updates_per_problem for s in states])
    return {"weights": counted.weights.replace(current=current,
                                               summed=summed),
            offset: off, offset_acc: off_acc,
            "n_updates_per_problem": n_updates}


class TrainingCall(SimpleNamespace):
    """Scratch of one ``fit``/``partial_fit`` call, never kept on the model.

    Created when a call starts and dropped when it ends, so that a fitted
    estimator holds its state (``state_``) and nothing sized by the
    training set that is not part of the model. The base class sets
    ``X``, ``loop_arrays`` (X as the primal loops take it), ``labels``
    (classes and class indices of numeric labels with few classes, or
    None: :func:`_few_label_encoding`), ``sq_norms``
    (``<x_i, x_i>`` per row, or empty when the model does not read them),
    ``sq_norm_sum`` and ``mean_sq_norm`` (the sum and the average of
    ``<x_i, x_i>``), ``weights`` (each row's weight, or empty when every
    weight is 1: :meth:`BaseOnlinePerceptron._weigh`) and ``n_passes``; a model
    adds its own per-example arrays and work space in ``_begin_call``.
    """


#: The ``n_jobs`` entry of every estimator's parameters, written in place of
#: a ``%(n_jobs)s`` line (:meth:`BaseOnlinePerceptron.__init_subclass__`).
N_JOBS_DOC = """\
    n_jobs : int, default=None
        Threads for the parts of a call that run in parallel: the kernel
        values of a dual (kernel) pass, a block's tiles at a time; the
        one-vs-rest problems of the Perceptron's primal pass and of PDM,
        PFM, ROMMA and MPU; the rows of a kernel or voted prediction. The
        rest runs on one thread (BLAS products use BLAS's own threads, as
        in scikit-learn). None means 1, as in scikit-learn, and -1 every
        core. Every value gives the same fitted model and the same
        predictions, bit for bit: each parallel part splits work whose
        pieces are computed the same way whatever thread runs them.
"""


class BaseOnlinePerceptron(ClassifierMixin, BaseEstimator):
    """Shared machinery of the online perceptron estimators (not public)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__doc__:
            cls.__doc__ = cls.__doc__.replace("    %(n_jobs)s\n", N_JOBS_DOC)

    _parameter_constraints = {
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean", StrOptions({"blocks"})],
        "random_state": ["random_state"],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "warm_start": ["boolean"],
        "n_jobs": [Integral, None],
    }

    #: The fitted state's type (:mod:`perceptrons.models._state`): what
    #: prediction and ``partial_fit`` need, and all a model file holds.
    _state_type = None

    @classmethod
    def _test_params(cls):
        """Parameter sets the common estimator checks run with (river's
        ``_unit_test_params``); a class lists its own."""
        return [{}]

    def _xfail_checks(self):
        """scikit-learn's common checks expected to fail, and why (read by
        tests/test_common.py)."""
        reason = (
            "an online algorithm depends on the order of its rows: the "
            "check's repeated rows follow one another where its weighted "
            "rows are shuffled, and a weight k scales a step where k copies "
            "are k chances to update (scikit-learn xfails this check for its "
            "own Perceptron and SGDClassifier for the same reason)")
        return {"check_sample_weight_equivalence_on_dense_data": reason,
                "check_sample_weight_equivalence_on_sparse_data": reason}

    def __init__(self, *, max_iter, shuffle, random_state, class_weight,
                 warm_start, n_jobs):
        # The parameters every estimator has; a class lists all of its own
        # in its __init__ (scikit-learn reads them there) and passes these on.
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    # ----------------------------------------------------------- hooks
    @abstractmethod
    def _new_state(self, call, fitted):
        """The state of a fresh start on ``call.X``.

        Parameters
        ----------
        call : TrainingCall
        fitted : dict
            The :class:`~perceptrons.models._state.FittedState` fields
            (classes, input width, zero counters).
        """

    @abstractmethod
    def _run_epoch(self, call, targets, order):
        """Run one compiled pass; return (n_mistakes, n_updates)."""

    def _begin_call(self, call):
        """Add the model's per-call scratch to ``call`` (before the passes)."""

    def _end_call(self, call, targets):
        """The state after a fit/partial_fit call (``state_`` has the call's
        counters already)."""
        return self.state_

    def _public_model(self):
        """The model's public attributes, views of ``state_`` (a dict).

        ``coef_`` (and ``intercept_``) only where ``decision_function(X)``
        is ``X @ coef_.T + intercept_``; otherwise :meth:`_no_coef_reason`
        says why there is none.
        """
        return {}

    def _no_coef_reason(self):
        """Why a fitted model has no ``coef_``, or None."""
        if "dual_coef_" in vars(self):
            return ("the model is dual_coef_ over support_vectors_ in its "
                    "kernel's feature space (coef_ exists for "
                    "kernel='linear' only)")
        return None

    def __getattr__(self, name):
        # Reached only for attributes not found: say why a fitted model
        # has no weight vector rather than just that it has none.
        if name in ("coef_", "intercept_") and "state_" in vars(self):
            reason = self._no_coef_reason()
            if reason is not None:
                raise AttributeError(
                    f"this {type(self).__name__} has no {name}: {reason}")
        raise AttributeError(f"{type(self).__name__!r} object has no "
                             f"attribute {name!r}")

    @abstractmethod
    def _decision(self, X):
        """Raw scores, shape (n_samples, n_problems)."""

    def _validate_params(self):
        """scikit-learn's check of ``_parameter_constraints``, its message
        without numpy reprs (``np.float64(1.5)`` reads ``1.5``).

        Parameters of plain values (None, bool, int, float, str) found
        valid once are not checked again for the same class: the check
        costs 0.3 ms, an eighth of a one-pass ``fit`` on a9a.
        """
        key = self._plain_params_key()
        if key is not None and key in _VALID_PARAMS:
            return
        try:
            super()._validate_params()
        except InvalidParameterError as exc:
            raise InvalidParameterError(plain_reprs(str(exc))) from None
        if key is not None:
            if len(_VALID_PARAMS) >= _MAX_VALID_PARAMS:
                _VALID_PARAMS.clear()
            _VALID_PARAMS.add(key)

    def _plain_params_key(self):
        """The class and its parameters' (name, type, value), or None if a
        value is not plain (a dict, an array, an object: it may change in
        place, so it is checked every time)."""
        items = []
        for name in self._get_param_names():
            value = getattr(self, name)
            if type(value) not in _PLAIN_TYPES:
                return None
            items.append((name, type(value), value))
        return type(self), tuple(items)

    @classmethod
    def _get_param_names(cls):
        """scikit-learn's parameter names (read from ``__init__``'s
        signature, 0.15 ms a call), kept per class."""
        names = cls.__dict__.get("_param_names")
        if names is None:
            names = super()._get_param_names()
            cls._param_names = names
        return names

    # ----------------------------------------------------------- state
    def _set_state(self, state, where=None):
        """Make ``state`` the fitted model, after validating it.

        Parameters
        ----------
        state : State
            Of this class's ``_state_type``.
        where : str, optional
            Where it comes from, for messages.

        Raises
        ------
        ValueError
            If the state is of another type or fails validation (the
            message names the field).
        """
        if type(state) is not self._state_type:
            raise ValueError(
                f"{type(self).__name__} holds a {self._state_type.__name__}"
                f", not a {type(state).__name__}")
        state.validate(where=where)
        self._check_state(state)
        self.state_ = state
        self._publish()

    def _check_state(self, state):
        """Relations between the state and the parameters (ValueError)."""

    def _adopt_state(self, state):
        """Make ``state`` the fitted model without validating it: for a
        state this package made (a parameter-mixing shard continuing the
        mixed state, validated when it was mixed)."""
        self.state_ = state
        self._publish()

    def _publish(self):
        """Set the public attributes from ``state_`` (views of it)."""
        for name in [n for n in vars(self) if n.endswith("_")
                     and not n.startswith("_") and n != "state_"]:
            del self.__dict__[name]
        s = self.state_
        public = {
            "classes_": s.classes, "n_features_in_": s.n_features_in,
            "t_": s.t, "n_iter_": s.n_iter, "n_mistakes_": s.n_mistakes,
            "n_updates_": s.n_updates,
            "mistakes_per_epoch_": s.mistakes_per_epoch,
            "updates_per_epoch_": s.updates_per_epoch}
        if s.feature_names_in is not None:
            public["feature_names_in_"] = s.feature_names_in
        public.update(self._public_model())
        vars(self).update(public)

    def _fitted_fields(self, classes):
        """The FittedState fields of a fresh start (after validate_data)."""
        return {"classes": classes, "n_features_in": int(self.n_features_in_),
                "feature_names_in": getattr(self, "feature_names_in_", None),
                "t": 0, "n_iter": 0, "n_mistakes": 0, "n_updates": 0,
                "mistakes_per_epoch": np.zeros(0, dtype=np.int64),
                "updates_per_epoch": np.zeros(0, dtype=np.int64)}

    # ----------------------------------------------------------- input
    def _validate_input(self, X, y, reset, row_checked=False):
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
        if row_checked and not reset:
            # One row from learn_one, shape and dtype checked there (a
            # tenth of scikit-learn's validate_data per call).
            y = np.asarray(y)
        else:
            # The squared-norm pass checks the CSR column indices too
            # (read once, not twice); until then only scipy's duplicate
            # and order checks read them, within each row's span.
            X, y = _validated(self, X, y, reset=reset, y_numeric=False,
                              ensure_all_finite=False,
                              columns_checked_later=True)
        X = self._as_read(X)
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
            weights=_UNIT_WEIGHTS,
            sq_norm_sum=sq_norm_sum,
            mean_sq_norm=sq_norm_sum / X.shape[0] if X.shape[0] else 0.0,
            sq_norms=(row_sq_norms(*loop_arrays, X.shape[0])
                      if self._needs_row_sq_norms() else _NO_ROW_NORMS))
        return X, y, call

    def _keeps_float32(self):
        """Whether the model reads float32 X as it is: the primal models
        (float32 rows, float64 weights and sums). Support-vector models
        (a kernel, or HO/SO's dual form) keep their support vectors and
        kernel values in float64 and read float64 rows."""
        return (getattr(self, "kernel", None) is None
                and getattr(self, "form", None) != "dual")

    def _as_read(self, X):
        """X in the precision the model reads (a float64 copy of float32
        input for a model that does not keep float32)."""
        if X.dtype == np.float32 and not self._keeps_float32():
            return X.astype(np.float64)
        return X

    def _needs_row_sq_norms(self):
        """Whether ``call.sq_norms`` (``<x_i, x_i>`` per row) is needed."""
        return True

    def _call_targets(self, call, y):
        """The call's labels as indices into ``call.classes``: from the
        labels' one-pass encoding when there is one
        (:func:`_few_label_encoding`), else :meth:`_encode`."""
        classes = call.classes
        if call.labels is None:
            return self._encode(y, classes)
        values, codes = call.labels
        if values.shape[0] == classes.shape[0] and np.array_equal(
                values, classes):
            return codes
        if classes.dtype.kind not in "iuf":
            return self._encode(y, classes)
        # partial_fit with a subset of classes_: map the call's few values.
        position = np.searchsorted(classes, values)
        position = np.clip(position, 0, len(classes) - 1)
        if np.any(classes[position] != values):
            return self._encode(y, classes)  # raises on the unseen labels
        return position.astype(np.int64)[codes]

    @staticmethod
    def _encode(y, classes):
        """Map labels to indices into ``classes``; reject unseen labels."""
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
                f"classes_ {classes.tolist()!r}; pass every class to "
                "the first partial_fit call with classes="
            )
        return targets.astype(np.int64, copy=False)

    # ----------------------------------------------------------- training
    def _start_fit(self, X, y):
        """Validate parameters and training data; ``call.classes`` set.

        Returns
        -------
        X, y
            The validated data.
        call : TrainingCall
        """
        self._validate_params()
        # warm_start checks X against the fitted model, which it continues.
        X, y, call = self._validate_input(
            X, y, reset=not (self.warm_start and hasattr(self, "state_")))
        classes = np.unique(y) if call.labels is None else call.labels[0]
        if classes.shape[0] < 2:
            raise ValueError(
                f"the training data has only one class "
                f"({plain_repr(classes[0]) if classes.shape[0] else 'none'});"
                " a classifier needs at least two"
            )
        call.classes = classes
        return X, y, call

    def fit(self, X, y, coef_init=None, intercept_init=None,
            sample_weight=None):
        """Train for ``max_iter`` passes over (X, y): from scratch, or with
        ``warm_start=True`` from the fitted state.

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
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weight of each row, multiplied by ``class_weight``
            of its label (see :func:`~perceptrons.models._weighting.row_weights`
            and the class docstring for what a weight does to the update).
            A row of weight 0 is left out, as if absent.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y, call = self._start_fit(X, y)
        targets = self._call_targets(call, y)
        targets = self._weigh(call, y, targets, sample_weight, fitting=True)
        targets = self._hold_out(call, targets)
        if self._continues(call, coef_init, intercept_init):
            # warm_start: the fitted state goes on, whole (scikit-learn's
            # warm_start keeps coef_; here every part of the model is kept).
            self._fit_passes(call, targets)
            return self
        self._start(call)
        self._start_from(coef_init, intercept_init)
        self._fit_passes(call, targets)
        return self

    def _continues(self, call, coef_init, intercept_init):
        """Whether this ``fit`` continues the fitted state (``warm_start``).

        Raises
        ------
        ValueError
            If the data's classes or width differ from the fitted model's,
            or ``coef_init``/``intercept_init`` is given as well.
        """
        if not (self.warm_start and hasattr(self, "state_")):
            return False
        if coef_init is not None or intercept_init is not None:
            raise ValueError("warm_start=True continues the fitted model; "
                             "coef_init/intercept_init would replace it: "
                             "pass one or the other")
        self._check_kept_hypothesis()
        s = self.state_
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

    def _check_kept_hypothesis(self):
        """A continued model keeps the hypothesis its state was made for
        (its bookkeeping: sums, snapshots, vote logs); a changed
        ``hypothesis`` parameter would otherwise be silently ignored."""
        kept = getattr(self.state_, "hypothesis", None)
        asked = getattr(self, "hypothesis", None)
        if kept is not None and asked is not None and asked != kept:
            raise ValueError(
                f"hypothesis={asked!r}, but the fitted model keeps the "
                f"{kept!r} hypothesis's bookkeeping and cannot switch while "
                "continuing; set hypothesis back, or fit afresh "
                "(warm_start=False)")

    def _hold_out(self, call, targets):
        """With ``early_stopping``, set the validation rows aside: they leave
        the call (as rows of weight 0 do) and become ``call.validation``
        ``(X, targets, weights)``.

        Returns
        -------
        targets : ndarray of int64
            The training rows' class indices.
        """
        call.validation = None
        if not getattr(self, "early_stopping", False):
            return targets
        held = validation_split(targets, call.weights,
                                self.validation_fraction, self.random_state)
        weights = call.weights
        call.validation = (call.X[held], targets[held],
                           weights[held] if weights.shape[0] else None)
        subset_call(call, ~held)
        if weights.shape[0]:
            call.weights = weights[~held]
        return targets[~held]

    def _weigh(self, call, y, targets, sample_weight, fitting):
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
        call.weights = _UNIT_WEIGHTS
        if sample_weight is None and self.class_weight is None:
            return targets
        weights = row_weights(sample_weight, self.class_weight, call.X, y,
                              call.classes, targets, fitting=fitting)
        keep = weights > 0.0
        if not keep.all():
            subset_call(call, keep)
            weights, targets = weights[keep], targets[keep]
        if not np.all(weights == 1.0):
            refusal = self._weights_refusal()
            if refusal:
                raise ValueError(refusal)
            call.weights = weights
        return targets

    def _weights_refusal(self):
        """Why this model, with its parameters, cannot weigh its rows'
        steps (None when it can); rows of weight 0 or 1 need nothing of
        the model."""
        return (f"{type(self).__name__} does not take sample weights other "
                "than 0 and 1 (nor class_weight) yet")

    def _fit_passes(self, call, targets):
        """The passes of ``fit``: ``max_iter`` epochs, shuffled if asked,
        fewer when a stopping rule (:mod:`~perceptrons.models._stopping`)
        ends them."""
        orders = epoch_orders(self.random_state, call.X.shape[0],
                              self.max_iter, self.shuffle)
        if not hasattr(self, "tol"):
            self._train(call, targets, orders, self.max_iter)
            return
        rule = (None if self.tol is None
                else NoImprovement(self.tol, self.n_iter_no_change))
        outcome = {"stopped": False}

        def after_epoch(n_mistakes, n_updates):
            # tol=None runs max_iter passes exactly (the papers' protocol:
            # every pass is counted in t_ and mistakes_per_epoch_).
            if rule is None:
                return False
            if n_updates == 0 and self._final_after_quiet_pass():
                outcome["stopped"] = True
            elif call.validation is None:
                outcome["stopped"] = rule.stops(n_mistakes / call.X.shape[0])
            return outcome["stopped"]

        if call.validation is None:
            self._train(call, targets, orders, self.max_iter,
                        stop=after_epoch)
        else:
            # One call per pass (the per-example scratch carried, as
            # parameter mixing does), so that the model is whole for the
            # validation score after each.
            carry = None
            for order in orders:
                carry = self._train(call, targets, [order], self.max_iter,
                                    carry, stop=after_epoch)
                if outcome["stopped"]:
                    break
                if rule is not None and rule.stops(
                        -self._validation_score(call.validation)):
                    outcome["stopped"] = True
                    break
        if rule is not None and not outcome["stopped"]:
            warnings.warn(
                f"{type(self).__name__} stopped at max_iter={self.max_iter} "
                f"passes before its stopping rule (tol={self.tol}, "
                f"n_iter_no_change={self.n_iter_no_change}) was met; raise "
                "max_iter, or set tol=None to run max_iter passes without "
                "this check", ConvergenceWarning)

    def _final_after_quiet_pass(self):
        """Whether a pass without an update leaves every later pass without
        one and the final hypothesis as it is (the last hypothesis: yes; a
        running average or a vote: no, they go on counting)."""
        return False

    def _validation_score(self, validation):
        """Accuracy of the model on the held-out rows (weighted)."""
        X, targets, weights = validation
        predicted = self._labels(self._scores(X))
        right = (predicted == self.state_.classes[targets]).astype(np.float64)
        if weights is None:
            return float(np.mean(right))
        return float(np.sum(right * weights) / np.sum(weights))

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
        n_classes = self.state_.classes.shape[0]
        return 1 if n_classes == 2 else n_classes

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
        n_classes = self.state_.classes.shape[0]
        n_features = self.state_.n_features_in
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

    def _start_partial_fit(self, X, y, classes, row_checked=False):
        """Validate a partial_fit call; ``call.classes`` set.

        Returns
        -------
        X, y
            The validated data.
        call : TrainingCall
        first : bool
            Whether this is the first call (the caller starts the state).
        """
        first = not hasattr(self, "state_")
        if first:
            self._validate_params()
            if classes is None:
                raise ValueError(
                    "classes must be passed to the first call to partial_fit"
                )
            classes = np.unique(np.asarray(classes))
            if classes.shape[0] < 2:
                raise ValueError("classes must contain at least two labels")
        else:
            self._check_kept_hypothesis()
        if not first and classes is not None and not np.array_equal(
            np.unique(np.asarray(classes)), self.state_.classes
        ):
            raise ValueError(
                f"classes={np.unique(classes).tolist()!r} differs from the "
                "classes of the first partial_fit call "
                f"{self.state_.classes.tolist()!r}"
            )
        X, y, call = self._validate_input(X, y, reset=first,
                                          row_checked=row_checked)
        if X.shape[0] == 0:
            raise ValueError("cannot fit on zero samples")
        call.classes = classes if first else self.state_.classes
        return X, y, call, first

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One pass over (X, y) in the given order, continuing the state.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every class; required on the first call.
        sample_weight : array-like of shape (n_samples,), default=None
            As in :meth:`fit`; ``class_weight="balanced"`` is refused here
            (its weights depend on the whole training set: pass
            ``compute_class_weight``'s result as a dict).

        Returns
        -------
        self : object
        """
        return self._partial_fit(X, y, classes, sample_weight)

    def _partial_fit(self, X, y, classes, sample_weight, row_checked=False):
        X, y, call, first = self._start_partial_fit(X, y, classes,
                                                    row_checked)
        targets = self._call_targets(call, y)
        targets = self._weigh(call, y, targets, sample_weight, fitting=False)
        if first:
            self._start(call)
        self._partial_pass(call, targets)
        return self

    def _partial_pass(self, call, targets):
        """The pass of ``partial_fit``: the rows once, in the given order."""
        order = np.arange(call.X.shape[0], dtype=np.int64)
        self._train(call, targets, [order], 1)

    def _start(self, call):
        """A fresh state for ``call.classes`` (published once trained)."""
        if call.X.shape[0] == 0:
            raise ValueError("cannot fit on zero samples")
        self.state_ = self._new_state(call, self._fitted_fields(call.classes))

    def _train(self, call, targets, orders, n_passes, carry=None, stop=None):
        """Run the passes ``orders`` (an iterable of row orders) as one call:
        ``_begin_call``, one ``_run_epoch`` each, ``_end_call``.

        ``carry`` holds per-example scratch of an earlier call over the same
        rows; ``stop(n_mistakes, n_updates)``, called after each pass, ends
        the call when it returns True. Returns the scratch to carry on
        (``_carried_scratch``).
        """
        call.n_passes = n_passes
        call.t = self.state_.t
        self._begin_call(call)
        # Per-example scratch of an earlier pass over the same rows
        # (parameter mixing runs one call per epoch and shard).
        for name, value in (carry or {}).items():
            setattr(call, name, value)
        mistakes, updates = [], []
        call.n_iter = self.state_.n_iter
        for order in orders:
            with compiled_threads(self.n_jobs):
                n_mistakes, n_updates = self._run_epoch(call, targets, order)
            call.t += order.shape[0]
            call.n_iter += 1
            mistakes.append(n_mistakes)
            updates.append(n_updates)
            if not self._state_is_finite(call):
                raise ValueError(
                    f"floating-point overflow at epoch {call.n_iter}: the "
                    "weights are no longer finite; scale the input (e.g. "
                    "StandardScaler) or lower eta"
                )
            if stop is not None and stop(n_mistakes, n_updates):
                break
        s = self.state_
        self.state_ = s.replace(
            t=call.t, n_iter=call.n_iter,
            n_mistakes=s.n_mistakes + int(np.sum(mistakes)),
            n_updates=s.n_updates + int(np.sum(updates)),
            mistakes_per_epoch=appended(s.mistakes_per_epoch, mistakes),
            updates_per_epoch=appended(s.updates_per_epoch, updates))
        self.state_ = self._end_call(call, targets)
        self._publish()
        return {name: getattr(call, name) for name in self._carried_scratch}

    def _state_is_finite(self, call):
        return True

    # ----------------------------------------------------------- mixing
    #: Per-example scratch that a multi-epoch ``fit`` keeps from one epoch
    #: to the next (e.g. the α counts of the λ-trick): iterative parameter
    #: mixing hands it from a shard's epoch to the same shard's next one.
    _carried_scratch = ()

    #: State counters a mixed epoch adds up over the shards: running totals,
    #: and per-epoch arrays that gain one entry (the shards' sum) per epoch.
    _mixed_totals = ("n_mistakes", "n_updates")
    _mixed_per_epoch = ("mistakes_per_epoch", "updates_per_epoch")

    def _mixing_refusal(self):
        """Why iterative parameter mixing cannot average this model's state
        (None when it can, with the parameters as they are)."""
        return (f"{type(self).__name__}'s state is not a weight vector: a "
                "weighted average of several runs' states is not a state of "
                "the algorithm")

    def _shard_pass(self, call, y, order, *, classes, mean_sq_norm,
                    carry=None):
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
        if self.class_weight is not None:
            # Its weights would need every shard's labels; refused rather
            # than silently left out.
            raise ValueError(
                f"parameter mixing does not apply class_weight="
                f"{self.class_weight!r} yet: train without it, or weigh the "
                "rows with fit(sample_weight=...) on one machine")
        call.mean_sq_norm = float(mean_sq_norm)
        call.classes = np.asarray(classes)
        if not hasattr(self, "state_"):
            self._validate_params()
            self.n_features_in_ = call.X.shape[1]
            names = getattr(call, "feature_names_in", None)
            if names is not None:
                self.feature_names_in_ = names
            self._start(call)
        self._train(call, self._call_targets(call, y), [order], 1, carry)
        return {name: getattr(call, name) for name in self._carried_scratch}

    def _mix_states(self, start, states, mu):
        """Set this model to the mix of the shards' states (Algorithm 2 of
        McDonald, Hall & Mann 2010).

        Parameters
        ----------
        start : State or None
            The state every shard started the epoch from (None for the
            first epoch).
        states : list of State
            Each shard's state after its epoch.
        mu : ndarray of shape (n_shards,)
            The mixing weights, summing to one.

        The counters (``_mixed_totals``, ``_mixed_per_epoch``) add up what
        each shard did in the epoch; the model's own arrays are mixed by
        :meth:`_mix_arrays`.
        """
        first = states[0]
        t0 = start.t if start is not None else 0
        changes = {"t": t0 + sum(s.t - t0 for s in states),
                   "n_iter": (start.n_iter if start is not None else 0) + 1}
        for name in self._mixed_totals:
            before = getattr(start, name) if start is not None else 0
            changes[name] = before + sum(getattr(s, name) - before
                                         for s in states)
        for name in self._mixed_per_epoch:
            before = (getattr(start, name) if start is not None
                      else np.zeros(0, dtype=np.int64))
            epoch = sum(int(getattr(s, name)[-1]) for s in states)
            changes[name] = np.append(before, epoch).astype(np.int64)
        mixed = self._mix_arrays(start, states, mu, first.replace(**changes))
        self._set_state(mixed)

    def _mix_arrays(self, start, states, mu, counted):
        """The mixed state: ``counted`` (the first shard's state with the
        counters added up) with the model's arrays mixed; see
        :meth:`_mix_states`."""
        raise ValueError(self._mixing_refusal())

    # ----------------------------------------------------------- one at a time
    def learn_one(self, x, y, *, classes=None, sample_weight=1.0):
        """Learn from one example: :meth:`partial_fit` on one row.

        The online learner's interface (river's ``learn_one``): the update
        is the paper's rule on this example, the same as a ``partial_fit``
        call with this row alone.

        Parameters
        ----------
        x : dict or array-like of shape (n_features,)
            A dict maps feature names to values (a missing feature is 0, as
            in river); the first dict fixes the features, in its order,
            unless the model already has ``feature_names_in_``. A 1-D array
            gives every feature by position.
        y : label
        classes : array-like, default=None
            Every class; required on the first call (a linear model's
            shape depends on them).
        sample_weight : float, default=1.0

        Returns
        -------
        self : object

        Raises
        ------
        ValueError
            On the first call, if a parameter is resolved from the data
            ("auto"): one example is no estimate of a data set's average
            (:meth:`_one_at_a_time_refusal` says which and what to pass).
        """
        if not hasattr(self, "state_"):
            refusal = self._one_at_a_time_refusal()
            if refusal:
                raise ValueError(refusal)
        row, names = self._one_row(x)
        weights = None if sample_weight == 1.0 else [sample_weight]
        with warnings.catch_warnings():
            # The row is an array; its names, if any, were checked above.
            warnings.filterwarnings("ignore", "X does not have valid feature")
            self._partial_fit(row, [y], classes, weights, row_checked=True)
        if names is not None and self.state_.feature_names_in is None:
            self.state_ = self.state_.replace(feature_names_in=names)
            self._publish()
        return self

    def predict_one(self, x):
        """The predicted label of one example (``x`` as in
        :meth:`learn_one`)."""
        check_is_fitted(self)
        row, _ = self._one_row(x)
        if not np.isfinite(row).all():
            raise ValueError("x contains NaN or infinity")
        return self._labels(self._scores(self._as_read(row)))[0]

    def _one_at_a_time_refusal(self):
        """Why the first :meth:`learn_one` cannot start this model (None
        when it can): a parameter the data resolve ("auto")."""
        return None

    def _one_row(self, x):
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
            n_features = getattr(self, "n_features_in_", None)
            if n_features is not None and row.shape[0] != n_features:
                raise ValueError(
                    f"x has {row.shape[0]} features, but "
                    f"{type(self).__name__} is expecting {n_features} "
                    "features as input")
            return np.ascontiguousarray(row[None, :]), None
        names = getattr(self, "feature_names_in_", None)
        if names is None and hasattr(self, "state_"):
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
        return self._scores(self._validate_for_prediction(X))

    def _scores(self, X):
        """:meth:`decision_function` of validated X: one column for one
        problem."""
        scores = self._decision_by_threads(X)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def _decides_in_blocks(self):
        """Whether :meth:`_decision` scores X in blocks of
        :data:`~perceptrons.models._kernel.BLOCK_ROWS` rows from its first
        row, each row's scores from its block alone: the kernel models'
        (``dual_coef_`` over support vectors)."""
        return getattr(self, "dual_coef_", None) is not None

    def _decision_by_threads(self, X):
        """:meth:`_decision` of X, its rows split across ``n_jobs`` threads
        where the decision is computed in row blocks
        (:meth:`_decides_in_blocks`): chunks of whole blocks from X's first
        row keep every block's rows, hence every bit. Other decisions (a
        linear model's ``X @ coef_.T``, left to BLAS: a product of another
        shape may round differently) run whole.
        """
        n_threads = effective_n_jobs(self.n_jobs)
        n_blocks = -(-X.shape[0] // PREDICTION_BLOCK_ROWS)
        if n_threads < 2 or n_blocks < 2 or not self._decides_in_blocks():
            return self._decision(X)
        chunks = [X[lo * PREDICTION_BLOCK_ROWS:hi * PREDICTION_BLOCK_ROWS]
                  for lo, hi in contiguous_parts(n_blocks,
                                                 min(n_threads, n_blocks))]
        with ThreadPoolExecutor(len(chunks)) as pool:
            parts = list(pool.map(self._decision, chunks))
        return np.concatenate(parts, axis=0)

    def _validate_for_prediction(self, X):
        """X as the model reads it, checked against the fitted input."""
        check_is_fitted(self)
        return self._as_read(_validated(self, X, reset=False))

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
        classes = self.state_.classes
        if scores.ndim == 1:
            return classes[(scores > 0).astype(np.intp)]
        return classes[np.argmax(scores, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
