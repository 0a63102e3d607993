"""The registry as the tests read it: every public estimator, the
parameter sets it is tested with, and what its algorithm says it refuses.

A test that runs "on every estimator" takes its estimators from
:data:`perceptrons.registry.ESTIMATORS` through this module, with the
parameter sets each class declares (``_test_params``), so that a new
registry entry is tested without editing a test. What a test needs to know
of one estimator it asks the estimator: its algorithm's refusals
(:func:`refusal`), its parameters, or a test hook of
:class:`~perceptrons.models._driver.estimator.OnlineClassifier`
(``_test_params``, ``_xfail_checks``, ``_one_at_a_time_params``).

Each parametrization built from the registry carries the mark
``registry`` (:func:`mark`); ``tests/test_registry_coverage.py`` checks
that it holds every estimator, or every one its rule selects, or that the
tests of its group hold every estimator between them.
"""

import pytest

from perceptrons.registry import ESTIMATORS


def estimator_classes():
    """Every public estimator class, in registry order."""
    return [entry.load() for entry in ESTIMATORS]


def class_id(cls):
    """The id of a class case: its name."""
    return cls.__name__


def case_id(cls, params):
    """The id of a (class, parameters) case: ``"Class-{params}"``."""
    return f"{cls.__name__}-{params}"


def cases(select=None, *, first=False, fixed=None, id=case_id):
    """``pytest.param(cls, params)`` of every registry estimator and each
    of its test parameter sets.

    Parameters
    ----------
    select : callable, optional
        ``select(estimator) -> bool`` on ``cls(**params)``: the cases kept
        (default: all).
    first : bool, default=False
        Each class's first selected parameter set only (one representative
        per estimator; ``{}``, its defaults, unless ``select`` skips them).
    fixed : dict, optional
        Parameters set on every case, over the class's own (e.g.
        ``max_iter``), where the class has them.
    id : callable, default=case_id
        ``id(cls, params) -> str``.
    """
    for cls in estimator_classes():
        for params in cls._test_params():
            params = dict(params)
            names = cls._get_param_names()
            params.update({k: v for k, v in (fixed or {}).items()
                           if k in names})
            if select is not None and not select(cls(**params)):
                continue
            yield pytest.param(cls, params, id=id(cls, params))
            if first:
                break


def decision_cases(id=None):
    """Each estimator's defaults and every test parameter set that decides
    another way: over support vectors (a ``kernel``) or by a vote; ids
    ``Class-<index>``."""
    for cls in estimator_classes():
        for i, params in enumerate(cls._test_params()):
            if i == 0 or "kernel" in params or params.get(
                    "hypothesis") == "voted":
                yield pytest.param(cls, params, id=f"{cls.__name__}-{i}")


def primal_by_default(cls):
    """estimators whose default model is not over support vectors (no
    kernel)"""
    return getattr(cls(), "kernel", None) is None


def xfail(est, test):
    """``est``'s ``_xfail_checks()`` entry for the test named ``test``, as a
    strict xfail mark (None when it is expected to pass)."""
    reason = est._xfail_checks().get(test)
    return None if reason is None else pytest.mark.xfail(
        reason=reason, strict=True)


def refusal(est, what):
    """Why ``est``'s algorithm, with its parameters, refuses ``what``
    (``"mixing"``, ``"weights"``, ``"one_at_a_time"``): the algorithm's
    ``<what>_refusal()``, None when it does not refuse."""
    algo = est._algorithm_of_params(validate=False)
    return getattr(algo, f"{what}_refusal")()


def mixable(est):
    """Whether parameter mixing can average ``est``'s state."""
    return refusal(est, "mixing") is None


def with_a_case(select, doc):
    """A class rule: some test parameter set of the estimator passes
    ``select`` (see :func:`cases`); ``doc`` says which estimators."""
    def rule(cls):
        return any(select(cls(**params)) for params in cls._test_params())
    rule.__doc__ = doc
    return rule


def has_param(name):
    """A class rule: the estimator has the parameter ``name``."""
    def rule(cls):
        return name in cls._get_param_names()
    rule.__doc__ = f"estimators with a parameter {name!r}"
    return rule


def mark(rule=None, group=None):
    """The mark of a parametrization built from the registry.

    Parameters
    ----------
    rule : callable, optional
        ``rule(cls) -> bool``: the estimators the parametrization must
        hold (default: every one). Its docstring says which.
    group : str, optional
        Tests that hold every estimator between them (e.g. those that
        can be mixed, and those refused): each holds the estimators it
        selects, the group every one.
    """
    return pytest.mark.registry(rule=rule, group=group)
