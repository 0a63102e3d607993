"""Where the offline benchmark data lives.

The real data sets are never copied into the repository. They sit in a
read-only folder described by a ``MANIFEST.md`` (in development and CI the
repository is ``<root>/main`` and the data ``<root>/shared/data``).
"""

import os
from pathlib import Path

__all__ = ["DATA_HOME_ENV", "get_data_home"]

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
    if data_home is not None:
        path = Path(os.fspath(data_home)).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(
                f"data_home={str(path)!r} is not an existing directory."
            )
        return path

    env = os.environ.get(DATA_HOME_ENV, "").strip()
    if env:
        path = Path(env).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(
                f"The {DATA_HOME_ENV} environment variable is set to "
                f"{env!r}, which is not an existing directory."
            )
        return path

    found = _search_default()
    if found is not None:
        return found

    searched = ", ".join(str(s) for s in _candidate_starts())
    raise FileNotFoundError(
        "Could not find the benchmark data folder: no ancestor of "
        f"{searched} has a 'shared/data' folder containing {_MANIFEST}. "
        f"Set the {DATA_HOME_ENV} environment variable to the folder that "
        f"holds {_MANIFEST} (e.g. `export {DATA_HOME_ENV}=/path/to/shared/data`)"
        " or pass data_home=... explicitly."
    )
