"""Every state type's declarations change only with its version.

A model file holds an estimator's typed state (``perceptrons.models._state``):
what a state type declares is the file format. ``STATE_SCHEMAS`` below
records, for every state type a file may hold, its ``VERSION`` and the
digest of its declarations (nested types included). A change of what a type
holds without a new version fails here; after bumping the version (and
deciding what becomes of files of the old one: they are refused), record the
new digest with::

    python -m tests.models.test_state_schemas

The types are those of the registry's estimators (``state_types()``), and
every estimator's fitted states, for each of its test parameter sets, hold
only those: a new estimator's state types fail here until recorded.

A digest covers the nested state types too: when a nested type changes
(with a new version of its own), the types that hold it are recorded again
at their versions, their own fields unchanged; a file holding the nested
type's old version is refused by that node (KernelSpec 2, "precomputed":
the kernel models' files of version 1 are refused, the primal ones load).
"""

import dataclasses

import pytest
from sklearn.datasets import make_classification

from perceptrons.persistence import state_types
from tests import _registry as reg

#: name -> (VERSION, schema digest)
STATE_SCHEMAS = {
    'ALMAState': (2, 'b2d37b6f571d02c5'),
    'BallseptronState': (2, 'b1271d21874448d5'),
    'BudgetState': (1, 'a5bd4ff68f41df79'),
    'ConfidenceWeightedState': (2, 'e0ac2cb80b0737e0'),
    'DualWeights': (2, 'cd48b97d280d535d'),
    'HODualModel': (1, '5a7bb3a99b3336f8'),
    'HOImplicitModel': (1, 'cf0c12906083fa05'),
    'HOPrimalModel': (1, 'ea003e0f88eb85f5'),
    'HigherOrderState': (3, '3d90ae4d7cde1c07'),
    'KernelSpec': (2, 'fa75f4677b02e874'),
    'MarginState': (2, 'a2d7c35e0d3cca8c'),
    'PassiveAggressiveState': (2, 'e405b806bcf6d478'),
    'PerceptronState': (2, '7ad8e619c241e103'),
    'ProjectronState': (2, '24901906b72fc78c'),
    'SODualModel': (1, '5399702d5764ba67'),
    'SOPrimalModel': (1, '7eb6adc8e567c99b'),
    'SecondOrderState': (3, '9de83a7f070ff788'),
    'SupportPool': (1, 'cb1d81eeb9ab06c4'),
    'VotedLog': (2, '71a36f1cf9bc0d07'),
    'WeightRows': (1, '2151c3650526bd7d'),
}


@pytest.mark.parametrize("name", sorted(state_types()))
def test_schema_changes_only_with_the_version(name):
    cls = state_types()[name]
    assert name in STATE_SCHEMAS, (
        f"{name} is a new state type: record it (module docstring)")
    version, digest = STATE_SCHEMAS[name]
    assert cls.VERSION == version, (
        f"{name}.VERSION is {cls.VERSION}, recorded {version}: record the "
        "new schema (module docstring)")
    assert cls.schema_digest() == digest, (
        f"what {name} holds changed without a new VERSION: bump "
        f"{name}.VERSION, then record the schema (module docstring)")


def test_recorded_types_exist():
    assert set(STATE_SCHEMAS) == set(state_types())


def _held_types(state):
    """The state types a state holds: its own and its nested states'."""
    held = {type(state)}
    for field in dataclasses.fields(state):
        value = getattr(state, field.name)
        if dataclasses.is_dataclass(value):
            held |= _held_types(value)
    return held


@reg.mark()
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("cls, params", list(reg.cases()))
def test_every_estimator_holds_recorded_state_types(cls, params):
    """A fitted state is of its class's state type, and every type it
    holds (each form's nested model) is one a file may hold
    (``state_types()``, from the registry), hence recorded above."""
    X, y = make_classification(n_samples=40, n_features=4, n_informative=3,
                               n_redundant=0, n_classes=3, random_state=0)
    est = cls(**params).set_params(max_iter=2, random_state=0).fit(X, y)
    assert type(est.state_) is cls._state_type
    for held in _held_types(est.state_):
        assert state_types().get(held.__name__) is held, held.__name__


def test_a_changed_declaration_changes_the_digest():
    import dataclasses

    from perceptrons.models._state import State, array

    @dataclasses.dataclass(frozen=True)
    class A(State):
        w: object = array("float", ("n",))

    @dataclasses.dataclass(frozen=True)
    class B(State):
        w: object = array("float", ("n", "m"))

    B.__name__ = "A"
    assert A.schema_digest() != B.schema_digest()


if __name__ == "__main__":
    table = {name: (cls.VERSION, cls.schema_digest())
             for name, cls in sorted(state_types().items())}
    path = __file__
    text = open(path).read()
    start = text.index("STATE_SCHEMAS = {")
    end = text.index("}\n", start) + 2
    body = "STATE_SCHEMAS = {\n" + "".join(
        f"    {name!r}: {entry!r},\n" for name, entry in table.items()) + "}\n"
    open(path, "w").write(text[:start] + body + text[end:])
    print(f"recorded {len(table)} state types in {path}")
