"""What an algorithm gives the estimator driver: the algorithm protocol.

The driver (:class:`~perceptrons.models._driver.estimator.OnlineClassifier`
and its modules) validates input, encodes labels, resolves weights,
stopping rules, warm starts, ``partial_fit``, ``learn_one``, parameter
mixing and threaded prediction, once for every algorithm. What differs from
one algorithm to the next is a small object, an :class:`Algorithm`: its
state type, how a fresh state looks, one compiled pass, and the public view
of a state (river's small classes, optax's ``init``/``update``). An
estimator class names its algorithm (``_algorithm``) and holds nothing else
but its docstring, parameters and constraints.

An algorithm is made from its estimator's parameters for each call
(:meth:`Algorithm.of`): it reads the parameters as attributes of its own
(``self.eta``), never the estimator. During a training call its hooks read
and replace the state through ``call.state``; outside one they receive the
state (and, where they score, the public view ``view``: the estimator's
published attributes). Every hook but :meth:`new_state`,
:meth:`run_epoch`, :meth:`public` and :meth:`decision` has a default that
suits a plain linear algorithm.
"""

import numpy as np

from ..._loops._common import row_sq_norms
from .._features import padded_state
from .._state import n_problems_of

__all__ = ["Algorithm", "linear_row_scores", "prototype_multilabel_refusal"]

_NO_ROW_NORMS = np.zeros(0)


class Algorithm:
    """One algorithm as the driver runs it (see the module notes).

    Parameters
    ----------
    params : dict
        The estimator's parameters (``get_params(deep=False)``), made the
        algorithm's attributes.
    estimator_name : str
        The estimator's class name, for messages.
    """

    #: The fitted state's type (:mod:`perceptrons.models._state`): what
    #: prediction and ``partial_fit`` need, and all a model file holds.
    state_type = None

    #: Per-example scratch of ``call.work`` that a multi-epoch ``fit``
    #: keeps from one epoch to the next (e.g. the α counts of the
    #: λ-trick): iterative parameter mixing hands it from a shard's epoch
    #: to the same shard's next one.
    carried_scratch = ()

    #: State counters a mixed epoch adds up over the shards: running totals,
    #: and per-epoch arrays that gain one entry (the shards' sum) per epoch.
    mixed_totals = ("n_mistakes", "n_updates")
    mixed_per_epoch = ("mistakes_per_epoch", "updates_per_epoch")

    #: ``max_iter`` caps the passes of a ``fit`` that stops on its own
    #: (a run to convergence); a streaming trainer, which cannot check
    #: convergence, then runs one pass.
    max_iter_is_a_cap = False

    def __init__(self, params, estimator_name):
        self.__dict__.update(params)
        #: The estimator's class name, for messages.
        self.estimator_name = estimator_name

    @classmethod
    def of(cls, estimator):
        """The algorithm of an estimator's current parameters."""
        return cls({name: getattr(estimator, name)
                    for name in estimator._get_param_names()},
                   type(estimator).__name__)

    # ----------------------------------------------------------- input
    def needs_row_sq_norms(self):
        """Whether the passes read ``call.sq_norms`` (``<x_i, x_i>``)."""
        return True

    def row_sq_norms(self, X, loop_arrays):
        """``call.sq_norms``: ``<x_i, x_i>`` of every row when
        :meth:`needs_row_sq_norms`, else an empty array."""
        if not self.needs_row_sq_norms():
            return _NO_ROW_NORMS
        return row_sq_norms(*loop_arrays, X.shape[0])

    def keeps_float32(self):
        """Whether float32 X is read as it is: the primal forms (float32
        rows, float64 weights and sums). Support-vector forms keep their
        support vectors and kernel values in float64 and read float64 rows."""
        return (getattr(self, "kernel", None) is None
                and getattr(self, "form", None) != "dual")

    def weights_refusal(self):
        """Why this algorithm, with its parameters, cannot weigh its rows'
        steps (None when it can); rows of weight 0 or 1 need nothing."""
        return (f"{self.estimator_name} does not take sample weights other "
                "than 0 and 1 (nor class_weight) yet")

    def multilabel_refusal(self):
        """Why this algorithm, with its parameters, does not learn a
        multi-label y (a 2-D indicator, one problem per label in one pass
        over X); None when it does. An algorithm that does says so
        (``takes_multilabel``)."""
        if self.takes_multilabel:
            return None
        return ("its loop reads one class per example; fit "
                "sklearn.multioutput.MultiOutputClassifier around it")

    #: Whether the algorithm's problems are one-vs-rest, each a label's
    #: ±1, so that a multi-label y is one problem per label.
    takes_multilabel = False

    def one_at_a_time_refusal(self):
        """Why the first ``learn_one`` cannot start this model (None when
        it can): a parameter the data resolve ("auto")."""
        return None

    # ----------------------------------------------------------- state
    def new_state(self, call, fitted):
        """The state of a fresh start on ``call.X``.

        Parameters
        ----------
        call : TrainingCall
        fitted : dict
            The :class:`~perceptrons.models._state.FittedState` fields
            (classes, input width, zero counters).
        """
        raise NotImplementedError

    def check_state(self, state):
        """Relations between a state and the parameters (ValueError)."""

    def n_problems(self, state):
        """Rows of ``coef_``: one for two classes, else one per class (one
        per label of a multi-label model)."""
        return n_problems_of(state.classes, state.n_labels)

    def set_initial(self, state, coef, intercept):
        """Write validated ``coef_init``/``intercept_init`` into a fresh
        state (arrays updated in place, or a new state returned).

        Parameters
        ----------
        state : State
        coef : ndarray of shape (n_problems, n_features) or None
        intercept : ndarray of shape (n_problems,) or None

        Returns
        -------
        State or None
            The state, if replaced.
        """
        raise ValueError(f"{self.estimator_name} does not take coef_init/"
                         "intercept_init (its model is not a weight vector "
                         "of the input space)")

    def initial_shapes(self, state, coef_init, intercept_init):
        """``coef_init`` and ``intercept_init`` as the shapes
        :meth:`set_initial` takes (a rule may map another form onto them);
        the driver then checks the shapes."""
        return coef_init, intercept_init

    # ----------------------------------------------------------- training
    def begin_call(self, call):
        """Add the algorithm's per-call scratch (``call.work``) and the
        storage's, before the passes."""

    def run_epoch(self, call, targets, order):
        """Run one compiled pass over ``order``.

        Returns
        -------
        n_mistakes, n_updates : int
        """
        raise NotImplementedError

    def carry_out(self, call):
        """The per-example scratch (``carried_scratch``) the next call over
        the same rows continues, by the call's rows."""
        return {name: getattr(call.work, name)
                for name in self.carried_scratch}

    def carry_in(self, call, carry):
        """Continue the per-example scratch an earlier call over the same
        rows left (:meth:`carry_out`), after :meth:`begin_call`."""
        for name, value in carry.items():
            setattr(call.work, name, value)

    def is_finite(self, call):
        """Whether the weights are still finite after a pass."""
        return True

    def end_call(self, call, targets):
        """The state after a call (``call.state`` has the call's counters
        already)."""
        return call.state

    def final_after_quiet_pass(self):
        """Whether a pass without an update leaves every later pass without
        one and the final hypothesis as it is (the last hypothesis: yes; a
        running average or a vote: no, they go on counting)."""
        return False

    def class_growth_refusal(self, state):
        """Why this model cannot take a class after its first call (None
        when it can: :meth:`grow_classes`)."""
        return (f"{self.estimator_name}'s rule cannot take a new class "
                "into a fitted model")

    def grow_classes(self, state, classes):
        """The state with ``classes`` (sorted, holding the state's) in place
        of its own: the new classes' rows fresh
        (:mod:`perceptrons.models._classes`). Called only when
        :meth:`class_growth_refusal` is None."""
        raise NotImplementedError

    def feature_growth_refusal(self, state):
        """Why this model cannot take a feature after its first call (None
        when it can: :meth:`grow_features`)."""
        return (f"{self.estimator_name}'s state is not written to take a "
                "feature after its first call: pass every feature from the "
                "first example (a dict's missing key is 0)")

    def grow_features(self, state, n_new):
        """The state with ``n_new`` features appended, each as if it had
        been there from the first example with the value 0 (its weights 0,
        a support vector's value 0: :mod:`perceptrons.models._features`).
        Called only when :meth:`feature_growth_refusal` is None; the
        default pads every array declared along ``n_features`` with
        zeros."""
        return padded_state(state, n_new, state.n_features_in)

    def check_continued(self, state):
        """Refuse to continue ``state`` with parameters it was not made for
        (ValueError): a continued model keeps the hypothesis its
        bookkeeping was made for (sums, snapshots, vote logs); a changed
        ``hypothesis`` would otherwise be silently ignored."""
        kept = getattr(state, "hypothesis", None)
        asked = getattr(self, "hypothesis", None)
        if kept is not None and asked is not None and asked != kept:
            raise ValueError(
                f"hypothesis={asked!r}, but the fitted model keeps the "
                f"{kept!r} hypothesis's bookkeeping and cannot switch while "
                "continuing; set hypothesis back, or fit afresh "
                "(warm_start=False)")

    def online_step(self, state, row_arrays, sq_norm):
        """The compiled step of ``learn_one``, bound to ``state``'s arrays,
        or None (``learn_one`` then runs ``partial_fit`` on the row).

        Offered where a ``partial_fit`` call of one row changes the state
        only in place and in the driver's counters, so that running the
        step and counting it is that call, bit for bit.

        Parameters
        ----------
        state : State
            The fitted state; its arrays are updated in place.
        row_arrays : tuple
            The one-row buffer as the loops read it
            (:func:`~perceptrons.utils.validation.as_loop_arrays`), written
            before each step.
        sq_norm : ndarray of shape (1,)
            Its ``<x, x>``, written before each step when
            :meth:`needs_row_sq_norms`.

        Returns
        -------
        callable or None
            ``step(target, weights, t) -> (n_mistakes, n_updates)``: the
            row's class index, its weight as the loops take it (empty: 1)
            and the steps made before it; with a method ``is_finite()``
            (the weights after an update).
        """
        return None

    def one_row_scores(self, state):
        """The scores of ``predict_one`` without the machinery of a whole
        X, or None (``predict_one`` then scores the row as
        :meth:`decision` does).

        Returns
        -------
        callable or None
            ``scores(view, values)``, the decision of one row (``values``,
            float64 of shape (n_features,)) with the bits :meth:`decision`
            gives it: a float for one problem, else an array of shape
            (n_problems,). Non-finite where the row holds NaN or infinity.
        """
        return None

    #: Passes of ``fit`` and ``partial_fit`` written by the algorithm
    #: itself (a run to convergence), as methods ``fit_passes(call,
    #: targets)`` and ``partial_pass(call, targets)`` that leave the state
    #: in ``call.state`` and return the warnings to issue once it is
    #: published (``(message, category)`` pairs); None: the driver's
    #: (:mod:`~perceptrons.models._driver.training`).
    fit_passes = None
    partial_pass = None

    # ----------------------------------------------------------- results
    def public(self, state):
        """The model's public attributes, views of ``state`` (a dict).

        ``coef_`` (and ``intercept_``) only where ``decision_function(X)``
        is ``X @ coef_.T + intercept_``; otherwise :meth:`no_coef_reason`
        says why there is none.
        """
        return {}

    def no_coef_reason(self, state, view):
        """Why a fitted model has no ``coef_``, or None."""
        if "dual_coef_" in view:
            return ("the model is dual_coef_ over support_vectors_ in its "
                    "kernel's feature space (coef_ exists for "
                    "kernel='linear' only)")
        return None

    def decision(self, state, view, X):
        """Raw scores of validated X, shape (n_samples, n_problems)."""
        raise NotImplementedError

    def decides_in_blocks(self, state, view):
        """Whether :meth:`decision` scores X in blocks of
        :data:`~perceptrons.models._kernel.BLOCK_ROWS` rows from its first
        row, each row's scores from its block alone: the kernel models'
        (``dual_coef_`` over support vectors)."""
        return view.get("dual_coef_") is not None

    # ----------------------------------------------------------- mixing
    def mixing_refusal(self):
        """Why iterative parameter mixing cannot average this model's state
        (None when it can, with the parameters as they are)."""
        return (f"{self.estimator_name}'s state is not a weight vector: a "
                "weighted average of several runs' states is not a state of "
                "the algorithm")

    def mix_arrays(self, start, states, mu, counted):
        """The mixed state: ``counted`` (the first shard's state with the
        counters added up) with the model's arrays mixed
        (:func:`~perceptrons.models._driver.mixing.mix_states`)."""
        raise ValueError(self.mixing_refusal())


def linear_row_scores(view, values):
    """The decision of one row of a linear model, ``coef_ · x +
    intercept_``, with the bits of ``X @ coef_.T + intercept_`` on that row
    (:func:`~perceptrons.utils.validation.linear_scores`): one problem's is
    the same dot product (numpy's matrix product of a row and a column is
    its dot), several problems' the same matrix product. A float for one
    problem, else an array."""
    coef, intercept = view["coef_"], view["intercept_"]
    if coef.shape[0] == 1:
        return float(np.dot(coef[0], values) + intercept[0])
    # A row with NaN is refused by the caller: no warning on the way.
    with np.errstate(invalid="ignore"):
        scores = values[None, :] @ coef.T
    scores += intercept
    return scores[0]


def prototype_multilabel_refusal(multiclass):
    """The multi-label refusal of a rule whose multiclass form is chosen by
    ``multiclass``: None for one-vs-rest ("ovr", one problem per label),
    the reason for "prototype"."""
    if multiclass != "prototype":
        return None
    return ("multiclass='prototype' keeps one prototype per class, "
            "competing for each example's one true class; set "
            "multiclass='ovr' (a problem per label)")
