"""numba's on-disk cache of the loops, made stale by an edit to any of them.

numba keys a cached function by the contents of its own source file. A loop
here is compiled with helpers of other files of this folder inlined (the
``specialised`` helpers of :mod:`._common`, the rules of :mod:`.hypotheses`,
the kernel layer of :mod:`.support`), so an edit to a helper left the cached
loops of the other files in use: a checkout updated in place (an editable
install after ``git pull``) could run compiled code of an older source,
silently. The locators below key every function of this folder by the
contents of all its files instead, so that any edit here recompiles every
loop. They take the place of numba's own two source-file locators (cache
beside the source, or under ``NUMBA_CACHE_DIR``) for these files only;
other files, and an override by ``NUMBA_CACHE_LOCATOR_CLASSES``, keep
numba's.
"""

import functools
import hashlib
import os

from numba.core import caching

_FOLDER = os.path.dirname(os.path.abspath(__file__))


def sources_stamp(folder=_FOLDER):
    """A digest of every ``.py`` file of ``folder`` (names and contents).

    Recomputed only when a file's name, size or modification time changes.
    """
    listing = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            st = os.stat(os.path.join(folder, name))
            listing.append((name, st.st_mtime_ns, st.st_size))
    return _digest(folder, tuple(listing))


@functools.lru_cache(maxsize=8)
def _digest(folder, listing):
    digest = hashlib.sha256()
    for name, _, _ in listing:
        digest.update(name.encode() + b"\0")
        with open(os.path.join(folder, name), "rb") as f:
            digest.update(f.read())
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
        return sources_stamp()


class LoopsUserProvidedCacheLocator(_FolderStamped,
                                    caching.UserProvidedCacheLocator):
    """numba's ``NUMBA_CACHE_DIR`` locator, stamped by the whole folder."""


class LoopsInTreeCacheLocator(_FolderStamped, caching.InTreeCacheLocator):
    """numba's ``__pycache__`` locator, stamped by the whole folder."""


def install():
    """Put the folder's locators first in numba's list (once)."""
    classes = caching.CacheImpl._locator_classes
    for cls in (LoopsInTreeCacheLocator, LoopsUserProvidedCacheLocator):
        if cls not in classes:
            classes.insert(0, cls)
