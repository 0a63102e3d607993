"""The one estimator driver: what every online classifier of the package is.

:class:`OnlineClassifier` is the scikit-learn (and river) interface of every
estimator: ``fit``, ``partial_fit``, ``learn_one``, ``predict``,
``decision_function``, ``predict_one``, parameter validation, the fitted
state and its public views. Its methods are written once, in the modules of
this package (:mod:`.training`, :mod:`.online`, :mod:`.prediction`,
:mod:`.mixing`), and drive the estimator's algorithm, a small object of the
protocol of :mod:`.protocol` that the estimator class names as
``_algorithm``. An estimator class holds its docstring, its
``_parameter_constraints``, its ``__init__``, its algorithm and the
parameter sets its tests run with; nothing of the driver is overridden.

A fitted estimator is its state, ``state_``: one typed, versioned, validated
object (:mod:`perceptrons.models._state`) and nothing else; its public
attributes (``coef_``, ``classes_``, ``t_``, ...) are views of it, set again
from it after every call and every load.
"""

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from ...utils._param_validation import (Interval, InvalidParameterError,
                                        StrOptions)
from ...utils.validation import plain_reprs
from . import online, prediction, training
from .inputs import as_read

__all__ = ["N_JOBS_DOC", "OnlineClassifier"]

#: The ``n_jobs`` entry of every estimator's parameters, written in place of
#: a ``%(n_jobs)s`` line (:meth:`OnlineClassifier.__init_subclass__`).
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

#: Parameter sets already found valid (:meth:`OnlineClassifier._validate_params`).
_VALID_PARAMS = set()
_MAX_VALID_PARAMS = 4096
_PLAIN_TYPES = (type(None), bool, int, float, str)


class OnlineClassifier(ClassifierMixin, BaseEstimator):
    """Base of every estimator of the package (not public): the driver.

    A subclass sets ``_algorithm`` (an
    :class:`~perceptrons.models._driver.protocol.Algorithm` class), its
    ``_parameter_constraints`` (extending these) and an ``__init__``
    listing all of its parameters (scikit-learn reads them there) that
    passes the common ones on.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__doc__:
            cls.__doc__ = cls.__doc__.replace("    %(n_jobs)s\n", N_JOBS_DOC)
        if cls._algorithm is not None:
            # What a model file of this class holds.
            cls._state_type = cls._algorithm.state_type

    _parameter_constraints = {
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean", StrOptions({"blocks"})],
        "random_state": ["random_state"],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "warm_start": ["boolean"],
        "n_jobs": [Integral, None],
    }

    #: The algorithm the driver runs
    #: (:class:`~perceptrons.models._driver.protocol.Algorithm`).
    _algorithm = None
    #: Parameters with which a fresh estimator learns one example at a time
    #: (read by tests/test_one_at_a_time.py; not to be changed): a value for
    #: each one its defaults resolve from the training data ("auto"), which
    #: one example does not give (the algorithm's ``one_at_a_time_refusal``
    #: says which). Empty: nothing to resolve.
    _one_at_a_time_params = {}
    #: Its state type, what a model file of the class holds (set from
    #: ``_algorithm``).
    _state_type = None

    def __init__(self, *, max_iter, shuffle, random_state, class_weight,
                 warm_start, n_jobs):
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    @classmethod
    def _test_params(cls):
        """Parameter sets the common estimator checks run with (river's
        ``_unit_test_params``); a class lists its own."""
        return [{}]

    def _xfail_checks(self):
        """Checks expected to fail, and why: scikit-learn's common checks
        (read by tests/test_common.py) and, by test name, the package's
        own tests of every estimator (tests/_registry.py)."""
        reason = (
            "an online algorithm depends on the order of its rows: the "
            "check's repeated rows follow one another where its weighted "
            "rows are shuffled, and a weight k scales a step where k copies "
            "are k chances to update (scikit-learn xfails this check for its "
            "own Perceptron and SGDClassifier for the same reason)")
        return {"check_sample_weight_equivalence_on_dense_data": reason,
                "check_sample_weight_equivalence_on_sparse_data": reason}


    # ----------------------------------------------------------- training
    def fit(self, X, y, coef_init=None, intercept_init=None,
            sample_weight=None):
        """Train for ``max_iter`` passes over (X, y): from scratch, or with
        ``warm_start=True`` from the fitted state.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training instances; CSR input is used without densifying.
        y : array-like of shape (n_samples,), or (n_samples, n_labels)
            Labels; at least two classes. A 2-D 0/1 indicator (dense or
            scipy.sparse) is a multi-label y: one binary problem per label,
            ``classes_`` ``arange(n_labels)``, where the algorithm's
            multiclass form is one-vs-rest (others refuse it, saying why;
            see the user guide's multi-label page).
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
        training.fit(self, X, y, coef_init, intercept_init, sample_weight)
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One pass over (X, y) in the given order, continuing the state.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), or (n_samples, n_labels)
            Labels, or a multi-label 0/1 indicator (as in :meth:`fit`;
            every call gives the same number of label columns).
        classes : array-like of shape (n_classes,), default=None
            Required on the first call (multi-label: ``arange(n_labels)``
            or None). A later new label becomes a class as the algorithm
            allows (a fresh problem or prototype; ``classes_`` sorted), or
            the call is refused with the algorithm's reason before any step.
        sample_weight : array-like of shape (n_samples,), default=None
            As in :meth:`fit`; ``class_weight="balanced"`` is refused here
            (its weights depend on the whole training set: pass
            ``compute_class_weight``'s result as a dict).

        Returns
        -------
        self : object
        """
        training.partial_fit(self, X, y, classes, sample_weight)
        return self

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
            unless the model already has ``feature_names_in_``; a feature
            that appears later extends the model (its weight starts at
            zero) where the algorithm allows. A 1-D array gives every
            feature by position.
        y : label
        classes : array-like, default=None
            The classes; required on the first call (a linear model's
            shape depends on them); a later new label as in
            :meth:`partial_fit`.
        sample_weight : float, default=1.0

        Returns
        -------
        self : object

        Raises
        ------
        ValueError
            On the first call without ``classes``; for a label or feature
            the algorithm cannot take (the message says why); for input
            ``partial_fit`` refuses (NaN, infinity, a wrong length).
        """
        online.learn_one(self, x, y, classes, sample_weight)
        return self

    # ----------------------------------------------------------- prediction
    def predict_one(self, x):
        """The predicted label of one example (``x`` as in
        :meth:`learn_one`)."""
        return online.predict_one(self, x)

    def decision_function(self, X):
        """Raw scores; the predicted class has the largest.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes (positive favours
        ``classes_[1]``), else (n_samples, n_classes); a multi-label
        model's (n_samples, n_labels), a column per label.
        """
        algo = self._algorithm_of_params(validate=False)
        return prediction.scores(
            self, algo, prediction.validate_for_prediction(self, algo, X))

    def predict(self, X):
        """Predicted labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_labels)
            For two classes, ``classes_[1]`` where the score is strictly
            positive, else ``classes_[0]``; otherwise the class of largest
            score (lowest index among equals). A multi-label model's 0/1
            indicator: 1 where a label's score is strictly positive.
        """
        return self._labels(self.decision_function(X))

    def _validate_for_prediction(self, X):
        """X as :meth:`decision_function` reads it, checked against the
        fitted input (for code that scores X its own way)."""
        return prediction.validate_for_prediction(
            self, self._algorithm_of_params(validate=False), X)

    def _scores(self, X):
        """:meth:`decision_function` of validated X."""
        return prediction.scores(self, self._algorithm_of_params(
            validate=False), X)

    def _labels(self, scores):
        """The labels :meth:`predict` gives for these scores."""
        return prediction.labels(self.state_, scores)

    def _as_read(self, X):
        """X in the precision the model reads."""
        return as_read(self._algorithm_of_params(validate=False), X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def __getattr__(self, name):
        # Reached only for attributes not found. learn_one leaves the public
        # views to be made when first read (_adopt_state_lazily).
        if (name.endswith("_") and not name.startswith("_")
                and vars(self).get("_stale")):
            self._publish()
            return getattr(self, name)
        # Say why a fitted model has no weight vector rather than just that
        # it has none.
        if name in ("coef_", "intercept_") and "state_" in vars(self):
            reason = self._algorithm_of_params(
                validate=False).no_coef_reason(self.state_, vars(self))
            if reason is not None:
                raise AttributeError(
                    f"this {type(self).__name__} has no {name}: {reason}")
        raise AttributeError(f"{type(self).__name__!r} object has no "
                             f"attribute {name!r}")

    def __setattr__(self, name, value):
        # A parameter set between learn_one calls: the online session was
        # made from the old parameters.
        if not name.endswith("_"):
            self.__dict__.pop("_online", None)
        super().__setattr__(name, value)

    def __getstate__(self):
        # A pickle or a copy holds the model: the public views made, the
        # online session (work space bound to the arrays) left out.
        if self.__dict__.get("_stale"):
            self._publish()
        state = super().__getstate__()
        state.pop("_online", None)
        return state

    def __dir__(self):
        if self.__dict__.get("_stale"):
            self._publish()
        return super().__dir__()

    # ----------------------------------------------------------- parameters
    def _algorithm_of_params(self, validate=True):
        """The algorithm of the current parameters, validated first
        (``validate``: a call that starts a model)."""
        if validate:
            self._validate_params()
        return self._algorithm.of(self)

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
            Of this class's state type.
        where : str, optional
            Where it comes from, for messages.

        Raises
        ------
        ValueError
            If the state is of another type or fails validation (the
            message names the field).
        """
        state_type = self._state_type
        if type(state) is not state_type:
            raise ValueError(
                f"{type(self).__name__} holds a {state_type.__name__}"
                f", not a {type(state).__name__}")
        state.validate(where=where)
        self._algorithm_of_params(validate=False).check_state(state)
        self._adopt_state(state)

    def _adopt_state(self, state):
        """Make ``state`` the fitted model without validating it: for a
        state this package made (a training call's, or a mixed state
        validated when it was mixed)."""
        self.state_ = state
        self._publish()

    def _adopt_state_lazily(self, state):
        """:meth:`_adopt_state` for ``learn_one``: the public views are
        made when one is first read (a stream that only learns and
        predicts never makes them)."""
        attrs = self.__dict__
        attrs["state_"] = state
        if not attrs.get("_stale"):
            self._unpublish()
            attrs["_stale"] = True

    def _published_view(self):
        """The public attributes, made first if stale (the ``view`` an
        algorithm's decision reads)."""
        if self.__dict__.get("_stale"):
            self._publish()
        return vars(self)

    def _unpublish(self):
        for name in [n for n in vars(self) if n.endswith("_")
                     and not n.startswith("_") and n != "state_"]:
            del self.__dict__[name]

    def _publish(self):
        """Set the public attributes from ``state_`` (views of it)."""
        self._unpublish()
        self.__dict__.pop("_stale", None)
        s = self.state_
        public = {
            "classes_": s.classes, "n_features_in_": s.n_features_in,
            "t_": s.t, "n_iter_": s.n_iter, "n_mistakes_": s.n_mistakes,
            "n_updates_": s.n_updates,
            "mistakes_per_epoch_": s.mistakes_per_epoch,
            "updates_per_epoch_": s.updates_per_epoch}
        if s.feature_names_in is not None:
            public["feature_names_in_"] = s.feature_names_in
        public.update(self._algorithm_of_params(validate=False).public(s))
        vars(self).update(public)

    def _fitted_fields(self, classes, n_labels=0):
        """The FittedState fields of a fresh start (after validate_data)."""
        return {"classes": classes, "n_labels": int(n_labels), "n_features_in": int(self.n_features_in_),
                "feature_names_in": getattr(self, "feature_names_in_", None),
                "t": 0, "n_iter": 0, "n_mistakes": 0, "n_updates": 0,
                "mistakes_per_epoch": np.zeros(0, dtype=np.int64),
                "updates_per_epoch": np.zeros(0, dtype=np.int64)}
