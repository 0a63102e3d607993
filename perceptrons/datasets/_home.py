"""Where the offline benchmark data lives.

The real data sets are never copied into the repository. They sit in a
read-only folder described by a ``MANIFEST.md`` (in development and CI the
repository is ``<root>/main`` and the data ``<root>/shared/data``).
"""

import os
from pathlib import Path

__all__ = ["DATA_HOME_ENV", "find_data_file", "get_data_home"]

#: Name of the environment variable that points at the data folder.
DATA_HOME_ENV = "PERCEPTRONS_DATA"

# The default search looks for ``<ancestor>/shared/data/MANIFEST.md``.
_SHARED_DATA = ("shared", "data")
_MANIFEST = "MANIFEST.md"


def _candidate_starts():
    """Directories whose ancestors the default search walks, in order."""
    starts = []
    try:
        starts.append(Path.cwd().resolve())
    except OSError:  # the working directory was deleted
        pass
    starts.append(Path(__file__).resolve().parent)
    return starts


def _search_default():
    """Return the first ``<ancestor>/shared/data`` holding a MANIFEST.md."""
    seen = set()
    for start in _candidate_starts():
        for folder in (start, *start.parents):
            if folder in seen:
                continue
            seen.add(folder)
            candidate = folder.joinpath(*_SHARED_DATA)
            if (candidate / _MANIFEST).is_file():
                return candidate
    return None


def get_data_home(data_home=None):
    """Return the folder that holds the offline benchmark data sets.

    The folder is chosen by the first rule that applies:

    1. the ``data_home`` argument;
    2. the ``PERCEPTRONS_DATA`` environment variable (if set and non-empty);
    3. a search that walks up from the current working directory, then from
       the location of this package's source, and returns the first
       ``<ancestor>/shared/data`` folder that contains a ``MANIFEST.md``.
       With the repository checked out at ``<root>/main`` this finds
       ``<root>/shared/data``.

    Nothing is downloaded or copied: the data are read in place.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Explicit data folder. ``~`` is expanded.

    Returns
    -------
    pathlib.Path
        The data folder (an existing directory).

    Raises
    ------
    FileNotFoundError
        If the folder given by ``data_home`` or by ``PERCEPTRONS_DATA`` is
        not an existing directory, or if the default search finds nothing.
        The message explains how to set ``PERCEPTRONS_DATA``.
    """
    return _resolve_home(data_home)[0]


def _resolve_home(data_home=None):
    """The data folder of :func:`get_data_home` and how it was chosen (for
    messages: ``"data_home=..."``, ``"PERCEPTRONS_DATA"``, ``"found ..."``)."""
    if data_home is not None:
        path = Path(os.fspath(data_home)).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(
                f"data_home={str(path)!r} is not an existing directory."
            )
        return path, "given as data_home"

    env = os.environ.get(DATA_HOME_ENV, "").strip()
    if env:
        path = Path(env).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(
                f"The {DATA_HOME_ENV} environment variable is set to "
                f"{env!r}, which is not an existing directory."
            )
        return path, f"set by {DATA_HOME_ENV}"

    found = _search_default()
    if found is not None:
        return found, (f"the shared/data folder found by the default "
                       f"search; {DATA_HOME_ENV} chooses another")

    searched = ", ".join(str(s) for s in _candidate_starts())
    raise FileNotFoundError(
        "Could not find the benchmark data folder: no ancestor of "
        f"{searched} has a 'shared/data' folder containing {_MANIFEST}. "
        f"Set the {DATA_HOME_ENV} environment variable to the folder that "
        f"holds {_MANIFEST} (e.g. `export {DATA_HOME_ENV}=/path/to/shared/data`)"
        " or pass data_home=... explicitly."
    )


def find_data_file(path, data_home=None):
    """Return a data file's path, looking a relative one up in the data home.

    A path that exists is returned as it is. A relative path that does not
    exist (from the current directory) is looked up in the data folder of
    :func:`get_data_home`, the way :func:`load_named` reads its files, so
    ``find_data_file("libsvm/a9a.gz")`` finds the data home's a9a from any
    directory. The command line reads every data file argument this way.

    Parameters
    ----------
    path : str or path-like
        The file, absolute or relative. ``~`` is expanded.
    data_home : str or path-like, default=None
        The data folder; see :func:`get_data_home`.

    Returns
    -------
    pathlib.Path
        ``path`` itself if it exists, else the data home's file.

    Raises
    ------
    FileNotFoundError
        If neither exists. The message names both places and how the data
        home was chosen, or why there is none (``PERCEPTRONS_DATA``).

    Examples
    --------
    >>> from perceptrons.datasets import find_data_file
    >>> find_data_file("libsvm/a9a.gz")  # doctest: +SKIP
    PosixPath('/data/shared/data/libsvm/a9a.gz')
    """
    path = Path(os.fspath(path)).expanduser()
    if path.exists():
        return path
    missing = f"No such data file: {str(path)!r}"
    if path.is_absolute():
        raise FileNotFoundError(f"{missing}.")
    try:
        home, how = _resolve_home(data_home)
    except FileNotFoundError as exc:
        raise FileNotFoundError(
            f"{missing} (a relative path is also looked up in the data "
            f"home, and there is none: {exc})") from None
    candidate = home / path
    if candidate.exists():
        return candidate
    raise FileNotFoundError(
        f"{missing}, neither in the current directory nor in the data home "
        f"{str(home)!r} ({how}).")
