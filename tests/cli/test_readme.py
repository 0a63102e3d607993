"""The README's command-line examples run as written (with the data home for
``$DATA``), and do what their comments say."""

import re
import shlex
from pathlib import Path

import pytest

from perceptrons.cli import main
from perceptrons.datasets import get_data_home

README = Path(__file__).resolve().parents[2] / "README.md"
# Covered by their own tests; here they would take minutes.
SLOW = {"demo", "reproduce"}


def readme_commands():
    """The ``perceptrons ...`` lines of the README's shell example, split
    into arguments (comments dropped), and the ``DATA=`` value it sets."""
    text = README.read_text()
    block = re.search(r"From the shell.*?```bash\n(.*?)```", text,
                      re.S).group(1)
    data = re.search(r"^DATA=(\S+)$", block, re.M).group(1)
    commands = [shlex.split(line, comments=True)[1:]
                for line in block.splitlines()
                if line.startswith("perceptrons ")]
    return data, commands


def test_readme_data_home_is_the_repositorys_neighbour():
    data, commands = readme_commands()
    assert data == "../shared/data"  # as get_data_home finds it
    assert len(commands) >= 8


def test_readme_commands_run_as_written(tmp_path, monkeypatch, capsys):
    try:
        home = get_data_home()
    except FileNotFoundError:
        pytest.skip("no data home")
    _, commands = readme_commands()
    monkeypatch.chdir(tmp_path)
    ran = []
    for argv in commands:
        argv = [a.replace("$DATA", str(home)) for a in argv]
        if argv[0] in SLOW:
            continue
        missing = [a for a in argv if str(home) in a and not Path(a).exists()]
        if missing:
            pytest.skip(f"{missing[0]} is not in the data home")
        try:
            rc = main(argv)
        except SystemExit as exc:  # --help
            rc = exc.code
        assert rc == 0, (argv, capsys.readouterr().err)
        ran.append(argv)
    out = capsys.readouterr().out
    assert len(ran) >= 7
    # predict writes one line per row of a9a.t, and wdbc is learnt
    assert len((tmp_path / "a9a_predictions.txt").read_text()
               .splitlines()) == 16281
    assert len((tmp_path / "crx_predictions.txt").read_text()
               .splitlines()) == 690
    accuracy = float(re.search(r"accuracy: ([\d.]+)%", out).group(1))
    assert accuracy > 90  # not the 62.6 % majority class of the ID column
