"""numba's cache of the loops goes stale with an edit to any of their files
(perceptrons._loops._freshness)."""

import importlib
import os
import pkgutil
import shutil

import numba
import pytest
from numba.core import caching
from numba.core.caching import NullCache
from numba.core.registry import CPUDispatcher

import perceptrons._loops as loops
from perceptrons._loops._freshness import (_REPLACES, _digest,
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
        assert isinstance(locator, tuple(_REPLACES)), name
        assert locator.get_source_stamp() == sources_stamp(), name
        found += 1
    assert found >= 10


def test_each_folder_locator_comes_just_before_the_one_it_replaces():
    classes = caching.CacheImpl._locator_classes
    for ours, theirs in _REPLACES.items():
        assert classes.index(ours) + 1 == classes.index(theirs)


def test_an_edit_to_any_file_changes_the_stamp(tmp_path):
    folder = tmp_path / "loops"
    shutil.copytree(loops.__path__[0], folder,
                    ignore=shutil.ignore_patterns("__pycache__"))

    def stamp():
        # Digests are memoised by (name, mtime, size): an edit of the same
        # size within one tick of a coarse clock must not hit the memo here.
        _digest.cache_clear()
        return sources_stamp(str(folder))

    before = stamp()
    assert stamp() == before
    helper = folder / "hypotheses.py"
    source = helper.read_text()
    helper.write_text(source.replace("return -1", "return -2", 1))
    assert stamp() != before
    helper.write_text(source)
    assert stamp() == before
    # An editor's lock file (a dangling link named like a source) is none.
    os.symlink("nobody@host.1234", folder / ".#hypotheses.py")
    assert stamp() == before
    (folder / "new_helper.py").write_text("x = 1\n")
    assert stamp() != before
