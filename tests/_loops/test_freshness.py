"""numba's cache of the loops goes stale with an edit to any of their files
(perceptrons._loops._freshness)."""

import importlib
import pkgutil
import shutil

import numba
import pytest
from numba.core.caching import NullCache
from numba.core.registry import CPUDispatcher

import perceptrons._loops as loops
from perceptrons._loops._freshness import (LoopsInTreeCacheLocator,
                                           LoopsUserProvidedCacheLocator,
                                           sources_stamp)
from perceptrons._loops.storage import StorageLoop


def _cached_dispatchers():
    for info in pkgutil.iter_modules(loops.__path__):
        module = importlib.import_module(f"{loops.__name__}.{info.name}")
        for name, value in vars(module).items():
            if getattr(value, "__module__", None) != module.__name__:
                continue
            if isinstance(value, StorageLoop):
                yield f"{info.name}.{name}", value.primal
                yield f"{info.name}.{name}_dual", value.dual
            elif isinstance(value, CPUDispatcher):
                yield f"{info.name}.{name}", value


def test_every_cached_loop_is_stamped_by_the_whole_folder():
    if numba.config.DISABLE_JIT:
        pytest.skip("no compiled functions, hence no caches, without the JIT")
    found = 0
    for name, dispatcher in _cached_dispatchers():
        if isinstance(dispatcher._cache, NullCache):
            continue
        locator = dispatcher._cache._impl._locator
        assert isinstance(locator, (LoopsInTreeCacheLocator,
                                    LoopsUserProvidedCacheLocator)), name
        assert locator.get_source_stamp() == sources_stamp(), name
        found += 1
    assert found >= 10


def test_an_edit_to_any_file_changes_the_stamp(tmp_path):
    folder = tmp_path / "loops"
    shutil.copytree(loops.__path__[0], folder,
                    ignore=shutil.ignore_patterns("__pycache__"))
    before = sources_stamp(str(folder))
    assert sources_stamp(str(folder)) == before
    helper = folder / "hypotheses.py"
    source = helper.read_text()
    helper.write_text(source.replace("return -1", "return -2", 1))
    assert sources_stamp(str(folder)) != before
    helper.write_text(source)
    assert sources_stamp(str(folder)) == before
    (folder / "new_helper.py").write_text("x = 1\n")
    assert sources_stamp(str(folder)) != before
