"""Names from :mod:`perceptrons.registry`: ``perceptrons models``,
``--model NAME``, ``perceptrons reproduce NAME`` and its run options, and
``--tau`` as the estimator's ``tau``."""

import subprocess
import sys
import types

import pytest

from perceptrons import registry
from perceptrons.cli import main
from perceptrons.datasets import load_svmlight
from perceptrons.experiments.options import RunOptions
from perceptrons.persistence import load_model
from tests import _registry as reg
from tests._states import assert_same_state

#: Names users have scripts for: they stay (the registry may grow).
NAMES = ["perceptron", "kernel-perceptron", "ballseptron", "pdm", "pfm",
         "romma"]

#: Every registry entry: (command-line name, class).
ENTRIES = [pytest.param(e.name, e.load(), id=e.name)
           for e in registry.ESTIMATORS]


# ----------------------------------------------------------------- models
def test_models_lists_the_registry_names(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    listed = [line.split("  (")[0] for line in out.splitlines()
              if not line.startswith(" ")]
    # the registry may grow (new estimators appear in `models` by themselves)
    assert listed == [e.name for e in registry.ESTIMATORS]
    assert set(NAMES) <= set(listed)
    assert "pdm  (perceptrons.PDM)" in out
    assert "romma  (perceptrons.ROMMA)" in out
    assert "    hypothesis = " in out and "    tau = None" in out
    assert "p-d-m" not in out


@reg.mark()
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name, cls", ENTRIES)
def test_every_model_trains_saves_and_predicts(files, tmp_path, capsys,
                                               name, cls):
    """``train --model NAME`` saves the model the class fits in Python on
    the same file, bit for bit; ``predict`` prints its predictions;
    ``models`` lists every parameter with its flag."""
    model = tmp_path / "m.npz"
    assert main(["train", str(files / "train.svm"), "-o", str(model),
                 "--model", name, "--max-iter", "3", "--random-state",
                 "0"]) == 0
    assert capsys.readouterr().out.startswith(f"model:      {name} (")
    est = load_model(model)
    X, y = load_svmlight(files / "train.svm")
    assert_same_state(est, cls(max_iter=3, random_state=0).fit(X, y))
    assert main(["predict", str(model), str(files / "test.svm"), "-q"]) == 0
    X_test, _ = load_svmlight(files / "test.svm", n_features=X.shape[1])
    assert capsys.readouterr().out.splitlines() == [
        str(int(v)) for v in est.predict(X_test)]
    assert main(["models"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index(next(line for line in lines if line.startswith(
        f"{name}  (perceptrons.{cls.__name__}): ")))
    listed = []
    for line in lines[start + 1:]:
        if not line.startswith("    "):
            break
        listed.append(line.split(" = ")[0].strip())
        assert line.endswith(")") and "(--" in line, line
    assert listed == list(cls().get_params())


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", ["pdm", "PDM", "perceptrons.PDM"])
def test_model_by_cli_or_class_name(files, tmp_path, capsys, name):
    model = tmp_path / "pdm.npz"
    assert main(["train", str(files / "train.svm"), "-o", str(model),
                 "--model", name, "--max-iter", "3"]) == 0
    assert capsys.readouterr().out.startswith("model:      pdm (")
    assert type(load_model(model)).__name__ == "PDM"


def test_unknown_model_lists_the_names(files, tmp_path, error_line):
    assert main(["train", str(files / "train.svm"), "-o",
                 str(tmp_path / "m.npz"), "--model", "p-d-m"]) == 2
    line = error_line()
    assert "unknown model 'p-d-m'" in line
    assert ", ".join(e.name for e in registry.ESTIMATORS) in line


# ----------------------------------------------------------------- tau
def test_tau_is_the_estimators_parameter(files, tmp_path, capsys):
    model = tmp_path / "k.npz"
    assert main(["train", str(files / "train.svm"), "-o", str(model),
                 "--model", "kernel-perceptron", "--kernel", "linear",
                 "--max-iter", "2", "--tau", "1.5"]) == 0
    assert "tau=1.5" in capsys.readouterr().out
    est = load_model(model)
    assert est.tau == 1.5 and est.margin == 0
    assert est.margin_ == pytest.approx(1.5 * est.theta_init_)


def test_tau_reaches_each_fold(files, capsys):
    assert main(["evaluate", str(files / "train.svm"), "--folds", "3",
                 "--tau", "0.5", "--scale"]) == 0
    assert "perceptron (tau=0.5, scale=standard)" in capsys.readouterr().out


@pytest.mark.parametrize("flag, name", [("--tau", "tau"),
                                        ("--no-such", "no_such")])
def test_parameter_the_model_lacks(files, tmp_path, error_line, flag, name):
    """A flag the model has no parameter for, with or without its own
    option, is refused naming it and listing the model's flags."""
    assert main(["train", str(files / "train.svm"), "-o",
                 str(tmp_path / "m.npz"), "--model", "pdm", flag,
                 "1"]) == 2
    line = error_line()
    assert f"model 'pdm' has no parameter {name!r} ({flag})" in line
    assert "--extension" in line
    assert not (tmp_path / "m.npz").exists()


# ----------------------------------------------------------------- reproduce
@pytest.fixture
def fake_run(monkeypatch, tmp_path):
    """Every reproduction's run replaced by one that records its options."""
    calls = []

    def run(options):
        calls.append(options)
        path = options.output_dir / "table.md"
        return {"markdown": "| fake | table |\n", "files": [path]}

    monkeypatch.setattr(registry.ReproductionEntry, "load",
                        lambda self: run)
    return calls


@pytest.mark.parametrize("entry", registry.REPRODUCTIONS,
                         ids=lambda e: e.name)
def test_reproduce_passes_the_run_options(fake_run, tmp_path, capsys, entry):
    assert main(["reproduce", entry.name, "--output-dir", str(tmp_path),
                 "--quick", "--no-progress", "--jobs", "3",
                 "--resume"]) == 0
    assert fake_run == [RunOptions(output_dir=tmp_path, quick=True,
                                   progress=False, jobs=3, resume=True)]
    captured = capsys.readouterr()
    assert captured.out == "| fake | table |\n"
    assert f"wrote {tmp_path / 'table.md'} in " in captured.err


def test_reproduce_scheduler_and_render_only(fake_run):
    assert main(["reproduce", "pdm", "--scheduler", "local:2",
                 "--render-only"]) == 0
    assert fake_run == [RunOptions(scheduler="local:2", render_only=True)]


def test_reproduce_defaults(fake_run, capsys):
    assert main(["reproduce", registry.REPRODUCTIONS[0].name]) == 0
    assert fake_run == [RunOptions()]


def test_reproduce_a_registered_entry(monkeypatch, capsys):
    """A new registry entry is a new ``reproduce`` name, in its help too."""
    seen = []
    entry = types.SimpleNamespace(
        name="example-paper", summary="Example & Paper 2026, Table 1",
        load=lambda: lambda options: seen.append(options) or {
            "markdown": "", "files": []})
    monkeypatch.setattr(registry, "REPRODUCTIONS",
                        (*registry.REPRODUCTIONS, entry))
    assert main(["reproduce", "example-paper", "--jobs", "2"]) == 0
    assert seen == [RunOptions(jobs=2)]
    with pytest.raises(SystemExit):
        main(["reproduce", "--help"])
    out = capsys.readouterr().out
    assert "example-paper" in out and "Example & Paper 2026, Table 1" in out


def test_reproduce_help_lists_each_summary(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["reproduce", "--help"])
    assert exc.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    for entry in registry.REPRODUCTIONS:
        assert entry.name in out and entry.summary in out
    assert "--jobs N" in out and "--resume" in out


def test_reproduce_unknown_name(fake_run, error_line):
    assert main(["reproduce", "no-such-paper"]) == 2
    line = error_line()
    assert "unknown reproduction 'no-such-paper'; available:" in line
    assert not fake_run


def test_reproduce_bad_jobs(fake_run, error_line):
    assert main(["reproduce", registry.REPRODUCTIONS[0].name, "--jobs",
                 "0"]) == 2
    assert "jobs must be at least 1" in error_line()
    assert not fake_run


# ----------------------------------------------------------------- startup
def test_help_loads_no_heavy_module():
    code = ("import sys\n"
            "from perceptrons.cli import main\n"
            "for argv in (['--help'], ['reproduce', '--help'],\n"
            "             ['train', '--help']):\n"
            "    try:\n"
            "        main(argv)\n"
            "    except SystemExit:\n"
            "        pass\n"
            "heavy = {'numba', 'sklearn', 'matplotlib', 'numpy', 'scipy'}\n"
            "print(sorted(heavy & set(sys.modules)))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "[]"
