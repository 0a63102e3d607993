"""``perceptrons train data.csv --label-column label`` on the CSV files
people have (pandas' ``to_csv``, with and without its index), and predict
checking the columns by name (issue #26, item 8)."""

import numpy as np
import pytest

from perceptrons.cli import main
from perceptrons.persistence import read_header


def _to_csv(path, X, labels, columns, index):
    """``pd.DataFrame(X, columns=...).assign(label=labels).to_csv(path,
    index=index)`` without pandas."""
    lines = [("," if index else "") + ",".join(columns)]
    data = {**{c: X[:, j] for j, c in enumerate(["a", "b", "c"])},
            "label": labels}
    for i in range(len(labels)):
        lines.append((f"{i}," if index else "")
                     + ",".join(str(data[c][i]) for c in columns))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.fixture
def frames(tmp_path):
    rng = np.random.RandomState(0)
    X = rng.randn(80, 3)
    labels = np.where(X[:, 0] - X[:, 1] > 0, "yes", "no")
    cols = ["a", "b", "c", "label"]
    return {
        "index": _to_csv(tmp_path / "i.csv", X, labels, cols, True),
        "plain": _to_csv(tmp_path / "p.csv", X, labels, cols, False),
        "reordered": _to_csv(tmp_path / "r.csv", X, labels,
                             ["label", "c", "a", "b"], False),
        "missing": _to_csv(tmp_path / "m.csv", X, labels, ["a", "c"], False),
        "dir": tmp_path,
    }


@pytest.mark.parametrize("which", ["index", "plain"])
def test_train_on_a_pandas_csv_with_a_named_label(frames, which, capsys):
    model = str(frames["dir"] / f"{which}.npz")
    assert main(["train", frames[which], "--label-column", "label",
                 "--random-state", "0", "-o", model]) == 0
    out = capsys.readouterr().out
    assert "80 rows, 3 features, 2 classes" in out
    assert "read the first row as the column names" in out
    assert ("ignored the unnamed first column" in out) == (which == "index")
    schema = read_header(model)["input"]
    assert schema["header"] is True and schema["column_names"][-1] == "label"
    # predict reads the reordered file by name: same predictions
    pred = frames["dir"] / "pred.txt"
    assert main(["predict", model, frames["plain"], "-o", str(pred)]) == 0
    assert main(["predict", model, frames["reordered"], "-o",
                 str(frames["dir"] / "pred2.txt")]) == 0
    assert pred.read_text() == (frames["dir"] / "pred2.txt").read_text()
    assert "accuracy on the file's labels" in capsys.readouterr().err


def test_predict_refuses_missing_and_unknown_columns(frames, error_line):
    model = str(frames["dir"] / "m.npz")
    assert main(["train", frames["plain"], "-o", model]) == 0
    assert main(["predict", model, frames["missing"]]) == 2
    assert "missing 'b'" in error_line()
    extra = frames["dir"] / "x.csv"
    extra.write_text("a,b,c,zz\n1,2,3,4\n")
    assert main(["predict", model, str(extra)]) == 2
    assert "unknown 'zz'" in error_line()


def test_header_options_and_messages(frames, error_line, capsys):
    head = frames["dir"] / "h.csv"
    head.write_text("a,b,c,label\n")
    out = str(frames["dir"] / "o.npz")
    assert main(["train", str(head), "-o", out]) == 2
    assert "has a header row but no data rows" in error_line()
    assert main(["train", str(head), "--label-column", "label", "-o",
                 out]) == 2
    assert "no data rows" in error_line()
    assert main(["train", frames["plain"], "--no-header", "--label-column",
                 "label", "-o", out]) == 2
    assert "need a header row" in error_line()
    assert main(["train", frames["plain"], "--label-column", "lbl", "-o",
                 out]) == 2
    assert "'lbl' is not a column" in error_line()
    one = frames["dir"] / "one.csv"
    one.write_text("a,label\n1,x\n2,x\n")
    assert main(["train", str(one), "-o", out]) == 2
    line = error_line()
    assert "only one class ('x')" in line and "np." not in line
    # --header forces a header on nominal-only data; named id columns
    nominal = frames["dir"] / "n.csv"
    nominal.write_text("id,colour,label\n1,red,yes\n2,blue,no\n3,red,yes\n")
    assert main(["train", str(nominal), "--header", "--id-column", "id",
                 "--label-column", "label", "-o", out]) == 0
    assert "3 rows, 2 features" in capsys.readouterr().out
