"""Every parametrization built from the registry holds every estimator.

The tests marked ``registry`` (``tests/_registry.py``) take their
estimators from :data:`perceptrons.registry.ESTIMATORS`. Read from their
``parametrize`` marks, each must hold every registered estimator class, or,
with a rule, exactly those the rule selects; the tests of a group (e.g. the
estimators parameter mixing averages, and those it refuses) every one
between them. A test that went back to a list of its own, or a rule that
lets a new estimator fall through, fails here.
"""

import importlib
import importlib.util
import inspect
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from _pytest.mark.structures import ParameterSet

from tests import _registry as reg

TESTS = Path(__file__).resolve().parent

#: Test modules that must hold registry-driven tests (issue #36, point 7:
#: the common, persistence, streaming, warm-start, mixing, schema and
#: one-at-a-time tests, and the command line).
MODULES = ("test_common.py", "test_persistence.py", "test_streaming.py",
           "test_distributed.py", "test_one_at_a_time.py", "test_n_jobs.py",
           "test_messages.py", "test_sparse_structure.py",
           "models/test_defaults.py", "models/test_warm_start_weights.py",
           "models/test_state_schemas.py", "models/test_float32.py",
           "models/test_sample_weight.py", "models/test_stopping.py",
           "models/test_precomputed.py", "cli/test_cli_registry.py",
           "cli/test_cli_corpus.py")


def _module(path):
    """The test module at ``path``, as pytest imported it if it did."""
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) and \
                Path(module.__file__).resolve() == path:
            return module
    parts = path.relative_to(TESTS.parent).with_suffix("").parts
    if all((TESTS.parent / Path(*parts[:i]) / "__init__.py").exists()
           for i in range(1, len(parts))):
        return importlib.import_module(".".join(parts))
    # A folder without __init__.py (tests/cli): pytest imports it by its
    # base name; read it under a name of its own.
    spec = importlib.util.spec_from_file_location(
        f"_registry_coverage_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _marked_tests():
    """``(where, mark, classes held)`` of every test marked ``registry``."""
    classes = set(reg.estimator_classes())
    found = []
    for path in sorted(TESTS.rglob("test_*.py")):
        if "_registry" not in path.read_text():
            continue
        module = _module(path)
        for name, func in vars(module).items():
            if not (name.startswith("test_") and inspect.isfunction(func)):
                continue
            marks = getattr(func, "pytestmark", [])
            registry = [m for m in marks if m.name == "registry"]
            if not registry:
                continue
            held = set()
            for m in marks:
                if m.name == "parametrize":
                    held |= _classes_in(m, classes)
            where = f"{path.relative_to(TESTS)}::{name}"
            found.append((where, registry[0], held))
    return found


def _classes_in(parametrize, classes):
    """The registry classes among a parametrize mark's values: classes, or
    the classes of instances."""
    argnames, argvalues = parametrize.args[:2]
    held = set()
    for value in argvalues:
        values = value.values if isinstance(value, ParameterSet) else (
            value if isinstance(value, tuple) else (value,))
        for v in values:
            if isinstance(v, type) and v in classes:
                held.add(v)
            elif type(v) in classes:
                held.add(type(v))
    return held


MARKED = _marked_tests()


def _names(classes):
    return sorted(c.__name__ for c in classes)


@pytest.mark.parametrize("where, mark, held",
                         [m for m in MARKED if not m[1].kwargs.get("group")],
                         ids=[m[0] for m in MARKED
                              if not m[1].kwargs.get("group")])
def test_each_registry_parametrization_holds_its_estimators(where, mark,
                                                            held):
    rule = mark.kwargs.get("rule")
    expected = {cls for cls in reg.estimator_classes()
                if rule is None or rule(cls)}
    assert expected, f"{where}: its rule selects no estimator"
    assert held == expected, (
        f"{where} misses {_names(expected - held)} and holds "
        f"{_names(held - expected)} beyond "
        + (f"its rule ({rule.__doc__})" if rule else "the registry"))


def _groups():
    groups = defaultdict(list)
    for where, mark, held in MARKED:
        if mark.kwargs.get("group"):
            groups[mark.kwargs["group"]].append((where, held))
    return sorted(groups.items())


@pytest.mark.parametrize("group, members", _groups(),
                         ids=[g for g, _ in _groups()])
def test_each_registry_group_holds_every_estimator(group, members):
    held = set().union(*(h for _, h in members))
    missing = set(reg.estimator_classes()) - held
    assert not missing, (f"no test of the group {group!r} "
                         f"({', '.join(w for w, _ in members)}) holds "
                         f"{_names(missing)}")


def test_the_registry_driven_modules_are_marked():
    marked = {where.split("::")[0] for where, _, _ in MARKED}
    assert set(MODULES) <= marked, sorted(set(MODULES) - marked)


def test_a_missing_estimator_is_found():
    # The check itself: a parametrization of every class but one fails.
    classes = reg.estimator_classes()
    held = _classes_in(pytest.mark.parametrize("cls", classes[1:]).mark,
                       set(classes))
    assert held == set(classes) - {classes[0]}
    with pytest.raises(AssertionError, match=f"misses \\['{classes[0].__name__}'\\]"):
        test_each_registry_parametrization_holds_its_estimators(
            "example", reg.mark().mark, held)
