"""The shell commands of the README and of the documentation's home page
run as written, from a folder of their own (not the repository's parent)
with the data home named once, and do what their comments say.

Every command is run somewhere: the ``perceptrons`` commands here, in the
order written (a ``predict`` reads the model the ``train`` before it
wrote), the others (virtualenv, installs, the test and documentation
builds) by CI's ``.ci/run``. The rule for the slow ones: a command that
runs an experiment (``demo``, ``reproduce``) or starts a Dask cluster
(``--scheduler``) takes tens of seconds to minutes, so it is marked
``slow`` (``python -m pytest -m slow``). Everything here is skipped when
there is no data home.
"""

import re
from pathlib import Path

import pytest

from perceptrons.cli import main
from perceptrons.datasets import DATA_HOME_ENV
from tests._data_home import skip_without_data_home
from tests._readme import (DOCUMENTS, README, ROOT, perceptrons_commands,
                           shell_commands, split_commands)


def _slow(argv):
    return argv[0] in ("demo", "reproduce") or "--scheduler" in argv


def _commands(slow):
    commands = []
    for document in DOCUMENTS:
        for argv in perceptrons_commands(document):
            if _slow(argv) == slow and argv not in commands:
                commands.append(argv)
    return commands


@pytest.fixture
def data_home(tmp_path, monkeypatch):
    """The data home named once, as the README says, and a working folder
    that is not the repository's parent."""
    home = skip_without_data_home()
    monkeypatch.setenv(DATA_HOME_ENV, str(home))
    monkeypatch.chdir(tmp_path)
    return home


def _run(argv, capsys):
    try:
        rc = main(argv)
    except SystemExit as exc:  # --help
        rc = exc.code
    assert rc == 0, (argv, capsys.readouterr().err)


def test_the_data_home_is_named_once():
    """One ``export PERCEPTRONS_DATA=`` line, and no command names the data
    home's folder: a data file is a path relative to it."""
    exports = [command for _, command in shell_commands(README)
               if command[0] == "export"]
    assert exports == [["export", f"{DATA_HOME_ENV}=/path/to/shared/data"]]
    for argv in _commands(False) + _commands(True):
        assert not any("shared" in a or "$" in a for a in argv), argv


def test_every_shell_command_is_run_somewhere():
    """A command that is not ``perceptrons ...`` (run here) is one CI runs:
    an install of the package (CI installs ``.[test]`` and ``.[docs]``,
    which include ``.``) or a command of ``.ci/run``."""
    ci = [command for line in (ROOT / ".ci" / "run").read_text().splitlines()
          for command in split_commands(line)]
    for document in DOCUMENTS:
        for heading, command in shell_commands(document):
            if command[0] in ("perceptrons", "export"):
                continue
            assert command in ci or command == ["pip", "install", "-e", "."], (
                document.name, heading, command)


def test_commands_run_as_written(data_home, capsys):
    ran = _commands(False)
    assert len(ran) >= 12
    for argv in ran:
        _run(argv, capsys)
    out = capsys.readouterr().out
    # predict writes one line per row of a9a.t, and wdbc is learnt
    assert len(Path("a9a_predictions.txt").read_text().splitlines()) == 16281
    assert len(Path("a9a_stream_predictions.txt").read_text()
               .splitlines()) == 16281
    assert len(Path("crx_predictions.txt").read_text().splitlines()) == 690
    accuracy = float(re.search(r"accuracy: ([\d.]+)%", out).group(1))
    assert accuracy > 90  # not the 62.6 % majority class of the ID column
    # the data files were found in the data home, and counted in rows
    assert f"{data_home / 'uci' / 'wdbc.data'}: 569 rows, 30 features" in out
    assert re.search(r"passes: +\d+ over 512 of the 569 rows", out)  # held out


@pytest.mark.slow
@pytest.mark.parametrize("argv", _commands(True), ids=" ".join)
def test_slow_commands_run_as_written(argv, data_home, capsys):
    _run(argv, capsys)
