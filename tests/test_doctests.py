"""The examples of every docstring of the package run, so none can drift.

Every module of ``perceptrons`` (found by walking the package, so a new
module is covered with no edit here) has its docstrings' examples run by
:func:`doctest.testmod`, one test per module. A module whose import needs
an optional package (the ``dask``/``test`` extras) is skipped only when that
package is absent; any other import error fails.

Some modules also have a doctest test of their own beside their other tests
(``test_streaming.py``, ``test_distributed.py``, ...); this file is the one
that guarantees every module is covered.
"""

import doctest
import importlib
import inspect
import pkgutil
import re

import pytest

import perceptrons

#: Packages outside the core dependencies that a module may import.
OPTIONAL = {"dask", "distributed", "liblinear", "liblinearutil",
            "vowpalwabbit", "river"}


def _module_names():
    names = [perceptrons.__name__]
    for info in pkgutil.walk_packages(perceptrons.__path__,
                                      perceptrons.__name__ + "."):
        # ``python -m perceptrons.cli`` runs the command line on import
        if info.name.rsplit(".", 1)[-1] != "__main__":
            names.append(info.name)
    return sorted(names)


MODULES = _module_names()


def test_every_module_is_found():
    assert {"perceptrons.models.perceptron", "perceptrons.bounds",
            "perceptrons.streaming", "perceptrons.distributed",
            "perceptrons.persistence",
            "perceptrons.experiments.model_selection"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").split(".")[0]
        if missing in OPTIONAL:
            pytest.skip(f"{name} needs the optional package {missing!r}")
        raise
    # report=False: a failure's diff is printed to (captured) stdout
    result = doctest.testmod(module, report=False)
    assert result.failed == 0, (
        f"{result.failed} of {result.attempted} docstring examples of "
        f"{name} failed (the captured stdout shows them)")


def _import_or_skip(name):
    try:
        return importlib.import_module(name)
    except (ModuleNotFoundError, ImportError) as exc:
        missing = (getattr(exc, "name", None) or "").split(".")[0]
        if missing in OPTIONAL or "perceptrons[river]" in str(exc):
            pytest.skip(f"{name} needs an optional package")
        raise


def _public_docstrings(module):
    """``(name, docstring)`` of the module and of every public class,
    function and method it defines."""
    yield module.__name__, module.__doc__
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != \
                module.__name__:
            continue
        if inspect.isclass(obj):
            yield f"{module.__name__}.{name}", obj.__doc__
            for attr, member in vars(obj).items():
                if not attr.startswith("_") and callable(member):
                    yield f"{module.__name__}.{name}.{attr}", member.__doc__
        elif inspect.isfunction(obj):
            yield f"{module.__name__}.{name}", obj.__doc__


#: A printf-style placeholder a docstring decorator should have filled
#: (one quoted as ``literal`` text, as the decorator's own docstring quotes
#: it, is not).
PLACEHOLDER = re.compile(r"%\(\w+\)s")
LITERAL = re.compile(r"``.*?``", re.S)


@pytest.mark.parametrize("name", MODULES)
def test_no_docstring_keeps_a_placeholder(name):
    """No public docstring shows an unexpanded ``%(...)s`` (a decorator
    such as ``with_stopping_docs`` put on the wrong object, as it once was
    on the Perceptron)."""
    module = _import_or_skip(name)
    left = {where: PLACEHOLDER.findall(LITERAL.sub("", doc))
            for where, doc in _public_docstrings(module) if doc}
    left = {where: found for where, found in left.items() if found}
    assert not left, left


def test_the_placeholder_check_finds_one():
    class Example:
        """Parameters: %(stopping_parameters)s"""
    assert PLACEHOLDER.findall(Example.__doc__) == ["%(stopping_parameters)s"]
