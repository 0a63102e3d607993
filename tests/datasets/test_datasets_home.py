"""Data-home resolution: argument > PERCEPTRONS_DATA > shared/data search."""

import pytest

from perceptrons.datasets import DATA_HOME_ENV, get_data_home
from perceptrons.datasets import _home


def _make_shared(root):
    data = root / "shared" / "data"
    data.mkdir(parents=True)
    (data / "MANIFEST.md").write_text("# test manifest\n")
    return data


def test_argument_wins_over_env(tmp_path, monkeypatch):
    arg, env = tmp_path / "arg", tmp_path / "env"
    arg.mkdir()
    env.mkdir()
    monkeypatch.setenv(DATA_HOME_ENV, str(env))
    assert get_data_home(arg) == arg
    assert get_data_home(str(arg)) == arg


def test_env_wins_over_default_search(tmp_path, monkeypatch):
    shared = _make_shared(tmp_path / "root")
    work = tmp_path / "root" / "main"
    work.mkdir()
    monkeypatch.chdir(work)
    env = tmp_path / "env"
    env.mkdir()
    monkeypatch.setenv(DATA_HOME_ENV, str(env))
    assert get_data_home() == env
    monkeypatch.delenv(DATA_HOME_ENV)
    assert get_data_home() == shared


def test_empty_env_is_ignored(tmp_path, monkeypatch):
    shared = _make_shared(tmp_path / "root")
    deep = tmp_path / "root" / "main" / "a" / "b"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    monkeypatch.setenv(DATA_HOME_ENV, "  ")
    assert get_data_home() == shared


def test_default_search_needs_manifest(tmp_path, monkeypatch):
    # A shared/data folder without MANIFEST.md is not a data home.
    (tmp_path / "root" / "shared" / "data").mkdir(parents=True)
    (tmp_path / "root" / "main").mkdir()
    monkeypatch.delenv(DATA_HOME_ENV, raising=False)
    monkeypatch.setattr(
        _home, "_candidate_starts", lambda: [tmp_path / "root" / "main"]
    )
    with pytest.raises(FileNotFoundError, match=DATA_HOME_ENV):
        get_data_home()


def test_default_search_walks_from_package_location(tmp_path, monkeypatch):
    # cwd has no shared/data above it; the second start (package) does.
    shared = _make_shared(tmp_path / "root")
    pkg = tmp_path / "root" / "main" / "perceptrons" / "datasets"
    pkg.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.delenv(DATA_HOME_ENV, raising=False)
    monkeypatch.setattr(_home, "_candidate_starts", lambda: [elsewhere, pkg])
    assert get_data_home() == shared


def test_not_found_message_explains_env(tmp_path, monkeypatch):
    monkeypatch.delenv(DATA_HOME_ENV, raising=False)
    monkeypatch.setattr(_home, "_candidate_starts", lambda: [tmp_path])
    with pytest.raises(FileNotFoundError) as err:
        get_data_home()
    msg = str(err.value)
    assert DATA_HOME_ENV in msg and "MANIFEST.md" in msg and "export" in msg


def test_bad_argument_and_bad_env(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match="not an existing directory"):
        get_data_home(tmp_path / "nope")
    monkeypatch.setenv(DATA_HOME_ENV, str(tmp_path / "nope"))
    with pytest.raises(FileNotFoundError, match=DATA_HOME_ENV):
        get_data_home()
