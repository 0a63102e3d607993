"""numba's on-disk cache of the loops, made stale by an edit to any of them.

numba keys a cached function by the contents of its own source file. A loop
here is compiled with helpers of other files of this folder inlined (the
``specialised`` helpers of :mod:`._common`, the rules of :mod:`.hypotheses`,
the kernel layer of :mod:`.support`), so an edit to a helper left the cached
loops of the other files in use wherever the cache outlived the edit: a
checkout updated in place (an editable install after ``git pull``), a cache
under ``NUMBA_CACHE_DIR`` or in the user-wide cache folder (used when the
package's own ``__pycache__`` is read-only) across an upgrade. Those ran
compiled code of an older source, silently. The locators below key every
function of this folder by the contents of all its files instead, so that
any edit here recompiles every loop. They take the place of numba's three
locators of source files on disk (``NUMBA_CACHE_DIR``, ``__pycache__``
beside the source, the user-wide folder), in numba's order, for these files
only. A frozen application or a zip import keeps numba's stamp (of the
executable, of the archive), which any upgrade changes; other files, and
an override by ``NUMBA_CACHE_LOCATOR_CLASSES``, keep numba's locators.
"""

import functools
import hashlib
import os
import sys

from numba.core import caching

_FOLDER = os.path.dirname(os.path.abspath(__file__))


def sources_stamp(folder=_FOLDER):
    """A digest of every ``.py`` file of ``folder`` (names and contents).

    Recomputed only when a file's name, size or modification time changes.
    """
    listing = []
    for name in sorted(os.listdir(folder)):
        # Editors' lock files (".#name.py", dangling links) are no source.
        if name.endswith(".py") and not name.startswith("."):
            try:
                st = os.stat(os.path.join(folder, name))
            except OSError:  # removed meanwhile (a checkout under way)
                continue
            listing.append((name, st.st_mtime_ns, st.st_size))
    return _digest(folder, tuple(listing))


@functools.lru_cache(maxsize=8)
def _digest(folder, listing):
    digest = hashlib.sha256()
    for name, _, _ in listing:
        digest.update(name.encode() + b"\0")
        try:
            with open(os.path.join(folder, name), "rb") as f:
                digest.update(f.read())
        except OSError:
            continue
        digest.update(b"\0")
    return digest.digest()


class _FolderStamped:
    """Mixin: only for this folder's files, stamped by :func:`sources_stamp`."""

    @classmethod
    def from_function(cls, py_func, py_file):
        if os.path.dirname(os.path.abspath(py_file)) != _FOLDER:
            return None
        return super().from_function(py_func, py_file)

    def get_source_stamp(self):
        if getattr(sys, "frozen", False) or not os.path.isdir(_FOLDER):
            return super().get_source_stamp()
        return sources_stamp()


class LoopsUserProvidedCacheLocator(_FolderStamped,
                                    caching.UserProvidedCacheLocator):
    """numba's ``NUMBA_CACHE_DIR`` locator, stamped by the whole folder."""


class LoopsInTreeCacheLocator(_FolderStamped, caching.InTreeCacheLocator):
    """numba's ``__pycache__`` locator, stamped by the whole folder."""


class LoopsUserWideCacheLocator(_FolderStamped,
                                caching.UserWideCacheLocator):
    """numba's user-wide locator (a read-only ``__pycache__``), stamped by
    the whole folder."""


_REPLACES = {LoopsUserProvidedCacheLocator: caching.UserProvidedCacheLocator,
             LoopsInTreeCacheLocator: caching.InTreeCacheLocator,
             LoopsUserWideCacheLocator: caching.UserWideCacheLocator}


def install():
    """Put each of the folder's locators just before the numba locator it
    stands in for, keeping numba's order (once)."""
    classes = caching.CacheImpl._locator_classes
    for ours, theirs in _REPLACES.items():
        if ours not in classes:
            at = classes.index(theirs) if theirs in classes else 0
            classes.insert(at, ours)
