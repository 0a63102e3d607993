"""scikit-learn's ``PassiveAggressiveClassifier`` parameters in
:class:`~perceptrons.PassiveAggressive`'s names (issue #39).

scikit-learn deprecated ``PassiveAggressiveClassifier`` in 1.8 and removes it
in 1.10. :func:`from_sklearn_params` translates its parameters, one by one:
a name whose meaning is the same here is taken (under our name where ours
differs: ``loss`` is ``variant``, ``average`` is ``hypothesis``); a value
with no counterpart is refused, the message naming what to use instead.
Only the parameters given are translated: the others keep
:class:`~perceptrons.PassiveAggressive`'s defaults, several of which differ
from scikit-learn's (:data:`SKLEARN_DEFAULTS`; the user guide's migration
page maps every parameter). It reads no scikit-learn class, so it works
after scikit-learn has removed it.

:class:`SklearnNames` gives :class:`~perceptrons.PassiveAggressive` the two
ways in: :meth:`~SklearnNames.from_sklearn` (an estimator, or its
parameters, of scikit-learn's), and ``set_params`` taking scikit-learn's
names that are not ours (``loss``, ``average``, ``verbose``), so that a
``GridSearchCV`` grid written for scikit-learn's class runs unchanged.
"""

from numbers import Integral

__all__ = ["SKLEARN_DEFAULTS", "SklearnNames", "from_sklearn_params",
           "given_params"]

#: ``PassiveAggressiveClassifier``'s parameters and defaults (scikit-learn
#: 1.8-1.9, the last releases that have the class).
SKLEARN_DEFAULTS = {
    "C": 1.0, "fit_intercept": True, "max_iter": 1000, "tol": 1e-3,
    "early_stopping": False, "validation_fraction": 0.1,
    "n_iter_no_change": 5, "shuffle": True, "verbose": 0, "loss": "hinge",
    "n_jobs": None, "random_state": None, "warm_start": False,
    "class_weight": None, "average": False,
}

#: Names of scikit-learn's whose meaning is the same here.
_SAME = ("C", "fit_intercept", "max_iter", "early_stopping",
         "validation_fraction", "n_iter_no_change", "shuffle", "n_jobs",
         "random_state", "warm_start", "class_weight")

#: scikit-learn's names that are not ours: ``set_params`` translates them.
FOREIGN = ("loss", "average", "verbose")

#: ``loss`` -> ``variant`` (scikit-learn: "hinge: equivalent to PA-I in the
#: reference paper. squared_hinge: equivalent to PA-II").
_VARIANT = {"hinge": "PA-I", "squared_hinge": "PA-II"}


def given_params(estimator):
    """The parameters a scikit-learn estimator (or a dict of its
    parameters) sets to other than scikit-learn's defaults (a value of
    another type than the default's counts as set: ``average=1``)."""
    params = (estimator.get_params(deep=False)
              if hasattr(estimator, "get_params") else dict(estimator))
    return {name: value for name, value in params.items()
            if not _is_default(name, value)}


def _is_default(name, value):
    if name not in SKLEARN_DEFAULTS:
        return False
    default = SKLEARN_DEFAULTS[name]
    return type(value) is type(default) and value == default


def from_sklearn_params(params):
    """Our parameters of scikit-learn's ``PassiveAggressiveClassifier``
    parameters ``params`` (see the module notes).

    Parameters
    ----------
    params : dict
        scikit-learn's names and values.

    Returns
    -------
    dict
        :class:`~perceptrons.PassiveAggressive`'s names and values.

    Raises
    ------
    TypeError
        On a name that is not one of scikit-learn's classifier's.
    ValueError
        On a value with no counterpart here (the message says what to use).
    """
    unknown = sorted(set(params) - set(SKLEARN_DEFAULTS))
    if unknown:
        raise TypeError(
            f"{', '.join(map(repr, unknown))}: not a parameter of "
            "scikit-learn's PassiveAggressiveClassifier (its parameters: "
            f"{', '.join(SKLEARN_DEFAULTS)}); set PassiveAggressive's own "
            "parameters with set_params or its constructor")
    ours = {name: params[name] for name in _SAME if name in params}
    if "loss" in params:
        loss = params["loss"]
        if loss not in _VARIANT:
            raise ValueError(
                f"loss={loss!r}: scikit-learn's PassiveAggressiveClassifier "
                "takes 'hinge' (PA-I) or 'squared_hinge' (PA-II); "
                "PassiveAggressive names them variant='PA-I' and 'PA-II' "
                "(and has PA itself, variant='PA')")
        ours["variant"] = _VARIANT[loss]
    if "average" in params:
        ours["hypothesis"] = _hypothesis(params["average"])
    if "verbose" in params and params["verbose"]:
        raise ValueError(
            f"verbose={params['verbose']!r}: PassiveAggressive prints "
            "nothing while it trains; after fit, read mistakes_per_epoch_ "
            "and updates_per_epoch_ (per pass), n_mistakes_, n_updates_ "
            "and n_iter_")
    if "tol" in params:
        tol = params["tol"]
        early = params.get("early_stopping",
                           SKLEARN_DEFAULTS["early_stopping"])
        if tol is not None and not early:
            raise ValueError(
                f"tol={tol!r} without early_stopping: scikit-learn stops "
                "when a pass's average hinge loss has not fallen by tol for "
                "n_iter_no_change passes; PassiveAggressive's tol watches "
                "the pass's mistakes per row instead, a different quantity "
                "for which the same number means another thing. Pass "
                "tol=None (max_iter passes, as the papers run), "
                "early_stopping=True (the same rule on held-out accuracy in "
                "both), or set PassiveAggressive's tol yourself")
        ours["tol"] = tol
    return ours


def _hypothesis(average):
    """``hypothesis`` of scikit-learn's ``average`` (bool or int)."""
    if isinstance(average, bool) or average in (0, 1):
        return "averaged" if average else "last"
    if isinstance(average, Integral) and average > 1:
        raise ValueError(
            f"average={average!r} averages the weights from the "
            f"{average}th step on; PassiveAggressive's hypothesis='averaged' "
            "averages them from the first step (the average of every "
            "hypothesis after a training step), hypothesis='last' keeps "
            "the last")
    raise ValueError(f"average={average!r}: scikit-learn takes a bool or "
                     "an int >= 1; PassiveAggressive's hypothesis takes "
                     "'averaged' (average=True) or 'last' (average=False)")


class SklearnNames:
    """scikit-learn's ``PassiveAggressiveClassifier`` names on
    :class:`~perceptrons.PassiveAggressive` (module notes)."""

    @classmethod
    def from_sklearn(cls, estimator=None, **params):
        """The PassiveAggressive of scikit-learn's
        ``PassiveAggressiveClassifier`` parameters.

        scikit-learn deprecated that class in 1.8 and removes it in 1.10.
        Each of its parameters whose meaning is the same here is taken,
        under our name where ours differs (``loss`` is ``variant``,
        ``average`` is ``hypothesis``); a value with no counterpart
        (``average=10``, ``verbose=1``, ``tol`` on the training loss) is
        refused, the message naming what to use. The parameters not given
        keep PassiveAggressive's defaults, several of them not
        scikit-learn's (the user guide's migration page maps every
        parameter, and gives the settings that reproduce scikit-learn's
        weights). scikit-learn's class is not needed.

        Parameters
        ----------
        estimator : PassiveAggressiveClassifier or dict, default=None
            A scikit-learn estimator or a dict of its parameters (as
            ``get_params()`` gives them): the parameters it sets to other
            than scikit-learn's defaults are translated.
        **params
            scikit-learn's parameters by name, translated as given (over
            ``estimator``'s).

        Returns
        -------
        PassiveAggressive
            Unfitted.

        Raises
        ------
        TypeError
            On a name that is not one of scikit-learn's classifier's.
        ValueError
            On a value with no counterpart here.

        Examples
        --------
        >>> from perceptrons import PassiveAggressive
        >>> PassiveAggressive.from_sklearn(C=0.1, loss="squared_hinge",
        ...                                average=True, random_state=0)
        PassiveAggressive(C=0.1, random_state=0, variant='PA-II')
        """
        given = {} if estimator is None else given_params(estimator)
        given.update(params)
        return cls(**from_sklearn_params(given))

    def set_params(self, **params):
        """Set parameters, ours or scikit-learn's names that are not ours
        (``loss``, ``average``, ``verbose``: translated as
        :meth:`from_sklearn` does, or refused naming ours).

        Parameters
        ----------
        **params
            Parameters by name.

        Returns
        -------
        self

        Examples
        --------
        >>> from perceptrons import PassiveAggressive
        >>> PassiveAggressive().set_params(loss="squared_hinge", average=False)
        PassiveAggressive(hypothesis='last', variant='PA-II')
        """
        foreign = {name: params.pop(name) for name in FOREIGN
                   if name in params}
        params.update(from_sklearn_params(foreign))
        return super().set_params(**params)
