"""The ``perceptrons`` command line, run in-process and once as a process."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from perceptrons.cli import main
from perceptrons.persistence import load_model


# ----------------------------------------------------------------- help
def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith("perceptrons ")


@pytest.mark.parametrize("command", [[], ["train"], ["predict"],
                                     ["evaluate"], ["demo"]])
def test_help_teaches(capsys, command):
    with pytest.raises(SystemExit) as exc:
        main(command + ["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out
    assert "perceptrons " in out
    if command != ["predict"]:
        assert "Khardon" in out


def test_no_command_prints_usage(capsys):
    assert main([]) == 2
    assert "usage:" in capsys.readouterr().err


# ----------------------------------------------------------------- round trip
def test_train_predict_evaluate_svmlight(files, tmp_path, capsys):
    model = tmp_path / "m.npz"
    rc = main(["train", str(files / "train.svm"), "-o", str(model),
               "--hypothesis", "voted", "--max-iter", "5",
               "--random-state", "0", "--alpha-bound", "3", "--tau", "0.5"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "passes:     5 over the 80 rows" in out
    assert "online, in the 400 rows presented" in out and "updates:" in out
    assert "train acc:" in out and str(model) in out
    est = load_model(model)
    assert est.hypothesis == "voted" and est.alpha_bound == 3
    assert est.tau == 0.5
    assert est.margin_ == pytest.approx(0.5 * est.theta_init_)

    # predictions to stdout, one per line, equal to the model's
    assert main(["predict", str(model), str(files / "test.svm")]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert len(lines) == 40 and set(lines) <= {"1", "-1"}
    from perceptrons.datasets import load_svmlight

    X, y = load_svmlight(files / "test.svm")
    assert lines == [str(int(v)) for v in est.predict(X)]
    assert "accuracy" in captured.err

    # to a file; a file that omits the last feature still has 6 features
    pred = tmp_path / "pred.txt"
    assert main(["predict", str(model), str(files / "short.svm"), "-o",
                 str(pred), "-q"]) == 0
    assert capsys.readouterr().err == ""
    assert len(pred.read_text().splitlines()) == 40

    assert main(["evaluate", str(files / "train.svm"), "--folds", "4",
                 "--hypothesis", "averaged", "--json",
                 str(tmp_path / "cv.json")]) == 0
    out = capsys.readouterr().out
    assert "T-interval, 4 folds" in out
    assert "online, of the rows presented in training" in out
    cv = json.loads((tmp_path / "cv.json").read_text())
    assert len(cv["accuracies"]) == 4


def test_train_predict_csv(files, tmp_path, capsys):
    model = tmp_path / "c.npz"
    assert main(["train", str(files / "train.csv"), "--label-column", "0",
                 "-o", str(model), "--multiclass", "prototype",
                 "--param", "max_iter=3", "--no-shuffle"]) == 0
    capsys.readouterr()
    est = load_model(model)
    assert est.max_iter == 3 and est.shuffle is False
    assert main(["predict", str(model), str(files / "test.csv"),
                 "--label-column", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 40 and set(lines) <= {"pos", "neg"}
    assert main(["evaluate", str(files / "train.csv"), "--label-column", "0",
                 "--folds", "3", "--scale"]) == 0
    assert "(scale=standard)" in capsys.readouterr().out  # as train says


# ----------------------------------------------------------------- errors
def test_missing_data_file(files, tmp_path, capsys, error_line):
    assert main(["train", str(tmp_path / "nope.svm")]) == 2
    assert "no such data file" in error_line()


def test_malformed_svmlight(files, tmp_path, capsys, error_line):
    assert main(["train", str(files / "bad.svm"), "-o",
                 str(tmp_path / "x.npz")]) == 2
    line = error_line()
    assert "bad.svm" in line and "line 1" in line
    assert not (tmp_path / "x.npz").exists()


def test_corrupt_and_missing_model(files, tmp_path, capsys, error_line):
    assert main(["predict", str(files / "corrupt.npz"),
                 str(files / "test.svm")]) == 2
    assert "not a valid perceptrons model" in error_line()
    assert main(["predict", str(files / "train.svm"),
                 str(files / "test.svm")]) == 2
    assert "is not a model file: it looks like svmlight" in error_line()
    assert main(["predict", str(tmp_path / "none.npz"),
                 str(files / "test.svm")]) == 2
    assert "no such model file" in error_line()


def test_wrong_feature_count(files, tmp_path, capsys, error_line):
    model = tmp_path / "m.npz"
    assert main(["train", str(files / "train.svm"), "-o", str(model),
                 "--max-iter", "2"]) == 0
    capsys.readouterr()
    assert main(["predict", str(model), str(files / "wide.svm")]) == 2
    line = error_line()
    assert "8 features" in line and "trained on 6" in line

    csv_model = tmp_path / "c.npz"
    assert main(["train", str(files / "train.csv"), "--label-column", "0",
                 "-o", str(csv_model), "--max-iter", "2"]) == 0
    capsys.readouterr()
    assert main(["predict", str(csv_model), str(files / "narrow.csv"),
                 "--label-column", "0"]) == 2
    line = error_line()
    assert "has 5 columns" in line and "training file had 7" in line


def test_bad_options(files, tmp_path, capsys, error_line):
    out = str(tmp_path / "m.npz")
    assert main(["train", str(files / "train.svm"), "-o", out, "--model",
                 "no-such-model"]) == 2
    assert "unknown model" in error_line()
    assert main(["train", str(files / "train.svm"), "-o", out, "--model",
                 "pdm", "--degree", "3"]) == 2
    assert "no parameter 'degree'" in error_line()
    assert main(["train", str(files / "train.svm"), "-o", out, "--margin",
                 "1", "--tau", "1"]) == 2
    line = error_line()
    assert "margin=1.0 and tau=1.0 are both set" in line
    assert main(["train", str(files / "train.svm"), "-o", out, "--eta",
                 "-1"]) == 2
    assert "eta" in error_line()
    with pytest.raises(SystemExit) as exc:  # argparse's own usage errors
        main(["train", str(files / "train.svm"), "--hypothesis", "best"])
    assert exc.value.code == 2


# ----------------------------------------------------------------- demo
def test_demo_quick_in_process(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--quick", "--datasets", "wdbc", "--folds", "3",
                 "--max-iter", "2", "--output-dir", str(out),
                 "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "| classic (last) |" in captured.out
    assert "| voted |" in captured.out
    for name in ("demo_table.md", "demo_accuracy.png", "demo_results.json",
                 "demo_results.csv"):
        assert (out / name).is_file(), name
    assert (out / "demo_accuracy.png").read_bytes()[:4] == b"\x89PNG"


def test_demo_unknown_dataset(tmp_path, capsys, error_line):
    assert main(["demo", "--datasets", "nope", "--output-dir",
                 str(tmp_path)]) == 2
    assert "unknown demo data set" in error_line()


# ----------------------------------------------------------------- process
def _command():
    exe = Path(sys.executable).parent / "perceptrons"
    if exe.is_file():
        return [str(exe)]
    found = shutil.which("perceptrons")
    return [found] if found else [sys.executable, "-m", "perceptrons.cli"]


def test_subprocess_round_trip_and_error(files, tmp_path):
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    model = tmp_path / "p.npz"
    run = subprocess.run(
        _command() + ["train", str(files / "train.svm"), "-o", str(model),
                      "--max-iter", "3"],
        capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "saved:" in run.stdout
    run = subprocess.run(
        _command() + ["predict", str(model), str(files / "wide.svm")],
        capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.startswith("perceptrons: error: ")
    assert "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1

