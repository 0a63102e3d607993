"""``--label-column`` naming several 0/1 columns: a multi-label problem
(issue #39, point 2) trained, predicted and cross-validated from a CSV
file."""

import numpy as np
import pytest

from perceptrons import Perceptron
from perceptrons.cli import main
from perceptrons.persistence import load_model, read_header

_NAMES = ["sports", "politics", "tech"]


def _write(path, X, Y, columns, header=True):
    """A CSV file of ``columns``: features a-d and the labels' 0/1."""
    data = dict(zip([*"abcd", *_NAMES], [*X.T, *Y.T]))
    np.savetxt(path, np.column_stack([data[c] for c in columns]),
               fmt="%.6g", delimiter=",", comments="",
               header=",".join(columns) if header else "")
    return str(path)


def _table(path):
    return np.loadtxt(path, delimiter=",", skiprows=1)


@pytest.fixture
def data(tmp_path):
    rng = np.random.RandomState(0)
    X = rng.randn(60, 4)
    Y = (X @ rng.randn(4, 3) > 0).astype(int)
    cols = ["a", "sports", "b", "c", "politics", "d", "tech"]
    return {
        "X": X, "Y": Y, "dir": tmp_path,
        "train": _write(tmp_path / "train.csv", X, Y, cols),
        "reordered": _write(tmp_path / "r.csv", X, Y,
                            ["tech", "d", "c", "b", "a", "politics",
                             "sports"]),
        "unlabelled": _write(tmp_path / "u.csv", X, Y, list("abcd")),
        "plain": _write(tmp_path / "p.csv", X, Y, cols, header=False),
    }


def _train(data, *label_args, name="m.npz", extra=()):
    model = str(data["dir"] / name)
    assert main(["train", data["train"], *label_args, "--random-state", "0",
                 "-o", model, *extra]) == 0
    return model


def test_train_learns_one_problem_per_label(data, capsys):
    model = _train(data, "--label-column", "sports,politics,tech")
    out = capsys.readouterr().out
    assert "60 rows, 4 features, 3 labels" in out
    assert "of the labels" in out and "of the rows (every label right)" \
        in out
    schema = read_header(model)["input"]
    assert schema["label_columns"] == [1, 4, 6]
    est = load_model(model)
    # The features are the non-label columns, in file order: a, b, c, d;
    # the labels sports, politics, tech.
    table = _table(data["train"])
    ref = Perceptron(random_state=0).fit(table[:, [0, 2, 3, 5]],
                                         table[:, [1, 4, 6]])
    assert np.array_equal(est.coef_, ref.coef_)
    assert np.array_equal(est.intercept_, ref.intercept_)


def test_repeated_option_is_the_comma_list(data, capsys):
    one = _train(data, "--label-column", "sports,politics,tech", name="1.npz")
    two = _train(data, "--label-column", "sports", "--label-column",
                 "politics,tech", name="2.npz")
    capsys.readouterr()
    assert np.array_equal(load_model(one).coef_, load_model(two).coef_)


def test_predict_writes_a_column_per_label(data, capsys):
    model = _train(data, "--label-column", "sports,politics,tech")
    capsys.readouterr()
    out = data["dir"] / "pred.csv"
    assert main(["predict", model, data["train"], "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "sports,politics,tech"
    pred = np.array([[int(v) for v in ln.split(",")] for ln in lines[1:]])
    assert np.array_equal(pred, load_model(model).predict(
        _table(data["train"])[:, [0, 2, 3, 5]]))
    err = capsys.readouterr().err
    assert "60 predictions" in err and "of the labels" in err
    # By name: the same predictions from reordered columns; none without
    # the label columns, and no accuracy then.
    again = data["dir"] / "again.csv"
    assert main(["predict", model, data["reordered"], "-o", str(again)]) == 0
    assert again.read_text() == out.read_text()
    assert main(["predict", model, data["unlabelled"], "-o",
                 str(again)]) == 0
    assert again.read_text() == out.read_text()
    assert "no label column, so no accuracy" in capsys.readouterr().err


def test_columns_by_index_without_a_header(data, capsys):
    model = str(data["dir"] / "plain.npz")
    assert main(["train", data["plain"], "--label-column", "1,4,-1",
                 "--random-state", "0", "-o", model]) == 0
    assert read_header(model)["input"]["label_columns"] == [1, 4, 6]
    capsys.readouterr()
    assert main(["predict", model, data["plain"]]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "x1,x4,x6" and len(out) == 61
    # Without a header, by position: the label columns cannot be left out.
    short = _write(data["dir"] / "short.csv", data["X"], data["Y"],
                   list("abcd"), header=False)
    assert main(["predict", model, short]) == 2
    assert "the training file's 7 columns" in capsys.readouterr().err


def test_evaluate_cross_validates_per_label(data, capsys):
    assert main(["evaluate", data["train"], "--label-column",
                 "sports,politics,tech", "--folds", "3"]) == 0
    out = capsys.readouterr().out
    assert "60 rows, 4 features, 3 labels" in out
    assert "of the labels (95% T-interval, 3 folds" in out
    assert "online, of the labels of the rows presented" in out


def test_refusals(data, error_line, capsys):
    # A named column that is not a 0/1 label.
    out = str(data["dir"] / "x.npz")
    assert main(["train", data["train"], "--label-column", "sports,a",
                 "-o", out]) == 2
    line = error_line()
    assert "label column 0 ('a') holds" in line and "0/1" in line
    with pytest.raises(SystemExit) as exc:  # an argument error
        main(["train", data["train"], "--label-column", "sports,none",
              "-o", out])
    assert exc.value.code == 2
    assert "'none' names no column" in capsys.readouterr().err
    assert main(["train", data["train"], "--label-column",
                 "sports,politics,1", "-o", out]) == 2
    assert "names column 'sports' twice" in error_line()
    assert main(["train", data["train"], "--label-column", "sports,tech",
                 "--shards", "2", "-o", out]) == 2
    assert "parameter mixing" in error_line()
    # An estimator whose algorithm has no problem per label says why.
    assert main(["train", data["train"], "--label-column", "sports,tech",
                 "--model", "ballseptron", "-o", out]) == 2
    assert "prototypes of Sec. 4" in error_line()
    model = _train(data, "--label-column", "sports,politics,tech")
    assert main(["predict", model, data["train"], "--label-column",
                 "sports,tech"]) == 2
    assert "the model learnt 3 labels (sports, politics, tech)" \
        in error_line()
    single = _train(data, "--label-column", "sports", name="s.npz")
    assert main(["predict", single, data["train"], "--label-column",
                 "sports,tech"]) == 2
    assert "model learnt one label per row" in error_line()


def test_a_row_missing_a_label_is_dropped(data, capsys):
    lines = open(data["train"]).read().splitlines()
    fields = lines[5].split(",")
    fields[-1] = "?"  # row 5's tech label, on line 6
    lines[5] = ",".join(fields)
    holed = data["dir"] / "holed.csv"
    holed.write_text("\n".join(lines) + "\n")
    model = str(data["dir"] / "h.npz")
    assert main(["train", str(holed), "--label-column",
                 "sports,politics,tech", "-o", model]) == 0
    out = capsys.readouterr().out
    assert "59 rows, 4 features, 3 labels" in out
    assert "dropped 1 of 60 rows with a missing value (lines 6)" in out


def test_a_model_saved_from_python_predicts_its_label_columns(data, capsys):
    from perceptrons.persistence import save_model

    table = _table(data["train"])
    est = Perceptron(random_state=0).fit(table[:, :6], table[:, [1, 4, 6]])
    path = str(data["dir"] / "py.npz")
    save_model(est, path)
    assert main(["predict", path, data["plain"]]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0] == "label0,label1,label2" and len(lines) == 61
    assert "one label per row, so no accuracy" in captured.err
