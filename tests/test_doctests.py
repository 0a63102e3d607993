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
import pkgutil

import pytest

import perceptrons

#: Packages outside the core dependencies that a module may import.
OPTIONAL = {"dask", "distributed", "liblinear", "liblinearutil",
            "vowpalwabbit"}


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
