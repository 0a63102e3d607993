"""What the command line says to a new user (issue #41): the data home in a
missing file's message, the column taken as the label, ``--X``/``--no-X``
for every boolean parameter, one-line argument errors, swapped or
mismatched files named as such, and summaries counted in rows and passes
with one vocabulary."""

import re

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

from perceptrons.cli import main
from perceptrons.datasets import DATA_HOME_ENV, _home
from perceptrons.persistence import load_model


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A data home with an svmlight file and a CSV file whose header names
    the label column first (the default takes the last)."""
    home = tmp_path_factory.mktemp("home")
    (home / "MANIFEST.md").write_text("# test data home\n")
    (home / "libsvm").mkdir()
    rng = np.random.RandomState(0)
    X = rng.randn(60, 3)
    y = np.where(X[:, 0] > 0, 1, -1)
    dump_svmlight_file(X, y, str(home / "libsvm" / "d.svm"),
                       zero_based=False)
    with open(home / "people.csv", "w") as fh:
        fh.write("label,height,weight,age\n")
        for row, label in zip(X, y):
            fh.write(f"{'yes' if label > 0 else 'no'},"
                     + ",".join(f"{v:.3f}" for v in row) + "\n")
    with open(home / "people_noheader.csv", "w") as fh:
        for row, label in zip(X, y):
            fh.write(f"{label}," + ",".join(f"{v:.3f}" for v in row) + "\n")
    return home


@pytest.fixture
def elsewhere(tmp_path, monkeypatch, data):
    """A working folder that is not beside the data home, which is named
    by PERCEPTRONS_DATA."""
    monkeypatch.setenv(DATA_HOME_ENV, str(data))
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ------------------------------------------------ 2: the data home
def test_a_relative_data_path_is_looked_up_in_the_data_home(elsewhere, data,
                                                            capsys):
    assert main(["train", "libsvm/d.svm", "-o", "m.npz"]) == 0
    out = capsys.readouterr().out
    assert f"data:       {data / 'libsvm' / 'd.svm'}: 60 rows" in out
    assert main(["predict", "m.npz", "libsvm/d.svm", "-q"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 60


def test_a_missing_data_file_names_the_data_home(elsewhere, data,
                                                 error_line):
    assert main(["train", "../shared/data/libsvm/a9a.gz"]) == 2
    assert error_line() == (
        "perceptrons: error: no such data file: "
        "'../shared/data/libsvm/a9a.gz', neither in the current directory "
        f"nor in the data home {str(data)!r} (set by {DATA_HOME_ENV}).")


def test_a_missing_data_file_without_a_data_home(elsewhere, monkeypatch,
                                                 error_line):
    monkeypatch.delenv(DATA_HOME_ENV)
    monkeypatch.setattr(_home, "_candidate_starts", lambda: [elsewhere])
    assert main(["evaluate", "libsvm/d.svm"]) == 2
    line = error_line()
    assert "no such data file: 'libsvm/d.svm' (a relative path is also " \
           "looked up in the data home, and there is none" in line
    assert f"Set the {DATA_HOME_ENV} environment variable" in line


# ------------------------------------------------ 3: the label column
@pytest.mark.parametrize("command", ["train", "evaluate"])
def test_a_continuous_label_column_is_named_with_the_flag(elsewhere, command,
                                                          error_line):
    assert main([command, "people.csv"]) == 2
    assert error_line() == (
        "perceptrons: error: took column 3, 'age', as the label (the last "
        "column, --label-column's default), but its values are not class "
        "labels (0.979, -0.977, -0.103, ...: continuous); name the label "
        "column with --label-column label (the columns: label, height, "
        "weight, age)")


def test_a_continuous_label_column_without_a_header(elsewhere, error_line,
                                                    capsys):
    assert main(["train", "people_noheader.csv", "--label-column", "2"]) == 2
    assert error_line() == (
        "perceptrons: error: took column 2 as the label (--label-column 2), "
        "but its values are not class labels (0.4, 1.868, -0.151, ...: "
        "continuous); name the label column with --label-column N (0 to 3, "
        "or -1 for the last)")
    assert main(["train", "people.csv", "--label-column", "label",
                 "-o", "m.npz"]) == 0


# ------------------------------------------------ 4: boolean parameters
@pytest.mark.filterwarnings("ignore:PDM did not converge")  # 3 passes
def test_every_boolean_parameter_has_a_no_flag(elsewhere, capsys):
    for flags, expected in (([], True), (["--no-active-sets"], False),
                            (["--active-sets"], True),
                            (["--active-sets", "false"], False)):
        assert main(["train", "libsvm/d.svm", "--model", "pdm",
                     "--max-iter", "3", "-o", "m.npz", *flags]) == 0
        assert load_model("m.npz").active_sets is expected, flags
    assert main(["train", "libsvm/d.svm", "--no-shuffle", "--early-stopping",
                 "-o", "m.npz"]) == 0
    model = load_model("m.npz")
    assert model.shuffle is False and model.early_stopping is True
    capsys.readouterr()
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "    active_sets = True    (--[no-]active-sets)" in out
    assert "    shuffle = True    (--[no-]shuffle)" in out
    assert "    extension = 1.0    (--extension)" in out


# ------------------------------------------------ 9: citations by name
def test_models_names_the_papers_it_cites(capsys):
    # a summary line shows "[1]_" no more: "(authors year)" from the
    # docstring's References, as the API index does (docs/_ext)
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "]_" not in out
    assert ": Higher-order Perceptron HO_p(c), Brotto, Gentile & Vitale " \
           "(2007).\n" in out
    assert ": Approximate Large Margin Algorithm ALMA_p(α; B, C) of " \
           "Gentile (2001).\n" in out


# ------------------------------------------------ 5: argument errors
@pytest.mark.parametrize("flag, value, message", [
    ("--max-iter", "2.5", "argument --max-iter: invalid int value: '2.5'"),
    ("--eta", "abc", "argument --eta: invalid float value: 'abc'"),
    ("--hypothesis", "best", "argument --hypothesis: invalid choice: 'best' "
                             "(choose from 'last', 'longest', 'voted', "
                             "'averaged')"),
])
def test_an_argument_error_is_one_line_and_a_pointer_to_help(
        flag, value, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["train", "d.svm", flag, value])
    assert exc.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        f"perceptrons train: error: {message}",
        "Try 'perceptrons train --help' for more information."]


def test_an_unknown_argument_points_to_its_commands_help(capsys):
    with pytest.raises(SystemExit):
        main(["demo", "--fast"])
    assert capsys.readouterr().err.splitlines() == [
        "perceptrons demo: error: unrecognized arguments: --fast",
        "Try 'perceptrons demo --help' for more information."]


# ------------------------------------------------ 6: swapped files
@pytest.fixture
def models(elsewhere, capsys):
    assert main(["train", "libsvm/d.svm", "-o", "svm.npz"]) == 0
    assert main(["train", "people.csv", "--label-column", "label",
                 "-o", "csv.npz"]) == 0
    capsys.readouterr()


def test_a_data_file_given_as_the_model(models, data, error_line):
    path = str(data / "libsvm" / "d.svm")
    assert main(["predict", path, "svm.npz"]) == 2
    assert error_line() == (
        f"perceptrons: error: {path!r} is not a model file: it looks like "
        "svmlight/LIBSVM data; the arguments are swapped: perceptrons "
        f"predict svm.npz {path}")
    assert main(["predict", path, "libsvm/d.svm"]) == 2
    assert error_line().endswith(
        "it looks like svmlight/LIBSVM data; the model comes first: "
        "perceptrons predict MODEL DATA")


def test_data_of_the_other_format_than_the_models(models, error_line):
    assert main(["predict", "csv.npz", "libsvm/d.svm"]) == 2
    line = error_line()
    assert "d.svm' looks like svmlight/LIBSVM data (index:value pairs), " \
           "its first line '1 1:1.764052345967664 2:0.40015720836722', but " \
           "the model was trained on CSV data of 4 columns (label, height, " \
           "weight, age); give a file in the training file's format" in line
    assert main(["predict", "svm.npz", "people.csv"]) == 2
    assert "people.csv' looks like CSV data, its first line " \
           "'label,height,weight,age', but the model was trained on " \
           "svmlight/LIBSVM data (index:value pairs)" in error_line()


# ------------------------------------------------ 7: counts
def _line(out, name):
    return re.search(rf"^{name}: +(.*)$", out, re.M).group(1)


def test_summaries_count_rows_passes_and_mistakes(elsewhere, capsys):
    # PDM: its full passes and its passes over the active sets (Sec. 4)
    assert main(["train", "libsvm/d.svm", "--model", "pdm", "--scale",
                 "standard", "--random-state", "0", "-o", "m.npz"]) == 0
    out = capsys.readouterr().out
    est = load_model("m.npz").steps[-1][1]
    assert _line(out, "model") == "pdm (random_state=0, scale=standard)"
    assert _line(out, "data").endswith(": 60 rows, 3 features, 2 classes")
    assert _line(out, "passes") == (
        f"{est.n_iter_} over the 60 rows, and {est.n_active_passes_} over "
        "active sets")
    assert est.t_ > 60 * est.n_iter_  # the active passes present rows too
    assert _line(out, "mistakes") == (
        f"{est.n_mistakes_} online, in the {est.t_} rows presented "
        f"({100 * est.n_mistakes_ / est.t_:.2f}%)")
    # the Perceptron: rows presented = passes x rows
    assert main(["train", "libsvm/d.svm", "--max-iter", "4", "-o",
                 "m.npz"]) == 0
    out = capsys.readouterr().out
    assert _line(out, "passes") == "4 over the 60 rows"
    assert re.fullmatch(r"\d+ online, in the 240 rows presented \(.*%\)",
                        _line(out, "mistakes"))
    # evaluate: the same words
    assert main(["evaluate", "libsvm/d.svm", "--scale", "--folds", "3"]) == 0
    out = capsys.readouterr().out
    assert _line(out, "model") == "perceptron (scale=standard)"
    assert _line(out, "data").endswith(": 60 rows, 3 features")
    assert re.fullmatch(r"[\d.]+% online, of the rows presented in training "
                        r"\(mean over folds\)", _line(out, "mistakes"))


def test_the_demo_lists_every_file_it_writes(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--datasets", "wdbc", "--folds", "2", "--max-iter",
                 "2", "--output-dir", str(out), "--no-progress"]) == 0
    wrote = re.search(r"^wrote (.*) in [\d.]+ s$", capsys.readouterr().err,
                      re.M).group(1)
    assert set(wrote.split(", ")) == {str(p) for p in out.iterdir()}
    assert len(wrote.split(", ")) == 6
