"""Issue #13: the command line keeps every row, column and encoding
straight, and every user error is one line. Each test runs the CLI on the
small files of ``tests/cli/corpus`` (binary and compressed ones are made in
``tmp_path``)."""

import io
import json
import lzma
import random
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from perceptrons import registry
from perceptrons.cli import main
from perceptrons.datasets import load_svmlight
from perceptrons.persistence import load_model, read_header
from tests import _registry as reg
from tests._data_home import skip_without_data_home

CORPUS = Path(__file__).parent / "corpus"


def _train(tmp_path, data, *extra, name="m.npz"):
    model = tmp_path / name
    assert main(["train", str(CORPUS / data), "-o", str(model),
                 "--max-iter", "5", "--random-state", "0", *extra]) == 0
    return model


def _predict(capsys, model, data, *extra):
    """Exit status, output lines and stderr of ``perceptrons predict``."""
    capsys.readouterr()
    rc = main(["predict", str(model), str(data), *extra])
    out = capsys.readouterr()
    return rc, out.out.splitlines(), out.err


# ------------------------------------------------------ CSV schema (item 1)
def test_csv_schema_saved_and_unseen_levels_zero(tmp_path, capsys):
    model = _train(tmp_path, "colors_train.csv", "--missing", "mean")
    schema = read_header(model)["input"]
    assert schema["format"] == "csv" and schema["label_column"] == 3
    assert dict(map(tuple, schema["categories"]))[1] == ["blue", "green",
                                                         "red"]
    rc, lines, err = _predict(capsys, model, CORPUS / "colors_test.csv")
    assert rc == 0 and len(lines) == 5
    # 'yellow' (twice) is counted once, in one note, as all-zero indicators
    assert err.count("not seen in training") == 1
    assert "2 values" in err and "'yellow' x2" in err
    from perceptrons.datasets import CSVSchema, load_csv

    X, _, info = load_csv(CORPUS / "colors_test.csv",
                          schema=CSVSchema.from_dict(schema),
                          return_info=True)
    colour = slice(1, 4)  # x0, then blue/green/red
    assert list(info.feature_names[colour]) == ["x1=blue", "x1=green",
                                                "x1=red"]
    np.testing.assert_array_equal(X[[1, 3], colour], 0)  # yellow: no level
    assert lines == [str(v) for v in load_model(model).predict(X)]


# ------------------------------------------------------ missing (item 2)
@pytest.mark.parametrize("missing, rows", [("drop", 8), ("zero", 10),
                                           ("mean", 10), ("mode", 10)])
def test_train_reports_missing_rows(tmp_path, capsys, missing, rows):
    _train(tmp_path, "colors_train.csv", "--missing", missing)
    out = capsys.readouterr().out
    assert f"{rows} rows" in out
    if missing == "drop":
        assert "dropped 2 of 10 rows with a missing value (lines 9, 10)" \
            in out
    else:
        assert f"filled the missing values of 2 rows (--missing {missing})" \
            in out


def test_predict_writes_one_line_per_row_with_missing_values(tmp_path,
                                                             capsys):
    model = _train(tmp_path, "colors_train.csv")  # trained with drop
    out = tmp_path / "pred.txt"
    rc, _, err = _predict(capsys, model, CORPUS / "colors_test.csv", "-o",
                          str(out))
    assert rc == 0
    assert len(out.read_text().splitlines()) == 5  # 2 rows have a '?'
    assert "2 rows have missing values, filled with 0 and no level" in err


# ------------------------------------------------------ no label (item 3)
@pytest.mark.parametrize("flag", [[], ["--label-column", "none"]])
def test_unlabelled_csv(tmp_path, capsys, flag):
    model = _train(tmp_path, "colors_train.csv")
    rc, lines, err = _predict(capsys, model, CORPUS / "colors_unlabelled.csv",
                              *flag)
    assert rc == 0 and len(lines) == 5
    assert "no label column" in err
    _, labelled, _ = _predict(capsys, model, CORPUS / "colors_test.csv")
    assert lines == labelled


# ------------------------------------------------------ zero_based (item 4)
def test_svmlight_indexing_decided_at_train(tmp_path, capsys):
    model = _train(tmp_path, "zero_train.svm")
    assert read_header(model)["input"] == {
        "format": "svmlight", "zero_based": True, "n_features": 3}
    rc, lines, _ = _predict(capsys, model, CORPUS / "zero_test.svm")
    assert rc == 0
    # the test file (no 0: index) is read zero-based as in training, not
    # shifted one column to the left as a per-file "auto" would
    X, _ = load_svmlight(CORPUS / "zero_test.svm", zero_based=True,
                         n_features=3)
    assert X[2, 2] == 3.0
    assert lines == [str(int(v)) for v in load_model(model).predict(X)]


# ------------------------------------------------------ scaling (item 5)
@pytest.mark.parametrize("scale", ["maxabs", "standard", "unit-norm"])
def test_train_scale_saved_and_applied(files, tmp_path, capsys, scale):
    model = tmp_path / "s.npz"
    assert main(["train", str(files / "train.svm"), "-o", str(model),
                 "--scale", scale, "--max-iter", "3"]) == 0
    assert f"scale={scale}" in capsys.readouterr().out
    pipe = load_model(model)
    assert [name for name, _ in pipe.steps] == ["scale", "model"]
    X, _ = load_svmlight(files / "test.svm", n_features=6)
    scaled = pipe[0].transform(X)
    assert scaled.format == "csr"  # sparse input stays sparse
    rc, lines, _ = _predict(capsys, model, files / "test.svm")
    assert rc == 0
    assert lines == [str(int(v)) for v in pipe[1].predict(scaled)]
    assert main(["evaluate", str(files / "train.svm"), "--folds", "3",
                 "--scale", scale]) == 0
    assert "accuracy:" in capsys.readouterr().out


def test_id_and_drop_columns(tmp_path, capsys):
    model = _train(tmp_path, "colors_train.csv", "--id-column", "0",
                   "--drop-columns", "2")
    out = capsys.readouterr().out
    assert "3 features" in out  # only the colour's 3 levels
    schema = read_header(model)["input"]
    assert schema["drop_columns"] == [0, 2]


# ------------------------------------------------------ messages
def test_delimiter_escape(tmp_path, capsys):
    model = _train(tmp_path, "tabbed.tsv", "--format", "csv", "--delimiter",
                   "\\t")
    assert "4 rows, 3 features" in capsys.readouterr().out
    assert read_header(model)["input"]["delimiter"] == "\t"
    # predict reads with the saved delimiter
    rc, lines, _ = _predict(capsys, model, CORPUS / "tabbed.tsv", "--format",
                            "csv")
    assert rc == 0 and len(lines) == 4 and set(lines) <= {"yes", "no"}


def test_huge_svmlight_index_refused_before_allocating(tmp_path,
                                                       error_line):
    assert main(["train", str(CORPUS / "huge_index.svm"), "-o",
                 str(tmp_path / "m.npz")]) == 2
    line = error_line()
    assert "line 1" in line and "feature index 2000000000" in line
    assert "14.9 GiB per weight vector" in line
    assert not (tmp_path / "m.npz").exists()


def test_xz_svmlight_is_read(files, tmp_path, capsys):
    xz = tmp_path / "train.svm.xz"
    xz.write_bytes(lzma.compress((files / "train.svm").read_bytes()))
    model = _train(tmp_path, xz)
    assert "80 rows, 6 features" in capsys.readouterr().out
    assert load_model(model).n_features_in_ == 6


def _binary_files(tmp_path):
    npz = tmp_path / "usps.npz"
    np.savez(npz, X=np.ones(3))
    idx = tmp_path / "labels-idx1-ubyte"
    idx.write_bytes(b"\x00\x00\x08\x01\x00\x00\x00\x03\x01\x02\x03")
    h5 = tmp_path / "usps.h5"
    h5.write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(range(256)) * 4)
    return {npz: "zip archive", idx: "NUL bytes", h5: "HDF5"}


@pytest.mark.parametrize("fmt", ["auto", "csv"])
def test_binary_files_refused_in_one_line(tmp_path, error_line, fmt):
    for path, what in _binary_files(tmp_path).items():
        assert main(["train", str(path), "--format", fmt, "-o",
                     str(tmp_path / "m.npz")]) == 2
        line = error_line()
        assert "is not a text svmlight/CSV file" in line and what in line
        assert len(line) < 300


def test_bom_is_ignored(tmp_path, capsys):
    _train(tmp_path, "bom.csv")
    # x0 is numeric (1 attribute, not 3 levels of '\ufeff1.0', ...)
    assert "3 rows, 6 features" in capsys.readouterr().out
    model = _train(tmp_path, "bom.svm", name="b.npz")
    assert set(load_model(model).classes_) == {-1.0, 1.0}


def test_csv_error_names_cli_options(tmp_path, error_line):
    assert main(["train", str(CORPUS / "mixed.csv"), "-o",
                 str(tmp_path / "m.npz")]) == 2
    line = error_line()
    assert "'4x'" in line and "line 2, column 1" in line
    assert "--missing-values" in line and "--nominal-columns" in line


def test_labels_outside_classes_say_why_no_accuracy(tmp_path, capsys):
    model = _train(tmp_path, "colors_train.csv")
    rc, lines, err = _predict(capsys, model,
                              CORPUS / "colors_newlabels.csv")
    assert rc == 0 and len(lines) == 5
    assert "no accuracy: 5 labels in the file are not among the model's " \
           "classes ('maybe', 'never'" in err
    assert "'no', 'yes'" in err


def test_output_paths_checked_before_the_work(files, tmp_path, error_line,
                                             monkeypatch):
    import perceptrons.experiments.evaluation as evaluation

    def never(*args, **kwargs):
        raise AssertionError("the cross-validation must not start")
    monkeypatch.setattr(evaluation, "cross_validate", never)
    missing = tmp_path / "no" / "cv.json"
    assert main(["evaluate", str(files / "train.svm"), "--json",
                 str(missing)]) == 2
    line = error_line()
    assert str(missing) in line and "no such directory" in line
    assert main(["train", str(files / "train.svm"), "-o",
                 str(tmp_path / "no" / "m.npz")]) == 2
    assert "no such directory" in error_line()
    assert main(["predict", str(files / "corrupt.npz"),
                 str(files / "test.svm"), "-o", str(tmp_path)]) == 2
    assert "is a directory" in error_line()


def test_save_error_names_the_users_path(files, tmp_path, error_line,
                                         monkeypatch):
    import os

    target = tmp_path / "m.npz"

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied", str(src))
    monkeypatch.setattr(os, "replace", refuse)
    assert main(["train", str(files / "train.svm"), "-o", str(target),
                 "--max-iter", "1"]) == 2
    line = error_line()
    assert repr(str(target)) in line and ".tmp" not in line
    assert list(tmp_path.iterdir()) == []


def test_reproduce_without_data_fails_and_says_where(tmp_path, monkeypatch,
                                                     capsys):
    from perceptrons.experiments.pdm import tasks as pdm_tasks

    monkeypatch.setattr(pdm_tasks, "_warm_up", lambda: None)  # speed
    monkeypatch.setenv("PERCEPTRONS_DATA", str(tmp_path))
    assert main(["reproduce", "pdm", "--quick", "--no-progress",
                 "--output-dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    line = err.strip().splitlines()[-1]  # after the list of files written
    assert line.startswith("perceptrons: error: reproduce pdm: 2 task(s) "
                           "not run, e.g. data not found")
    assert "PERCEPTRONS_DATA" in line and "a9a.gz" in line


def test_broken_pipe_is_quiet(files, tmp_path, capsys, monkeypatch):
    model = _train(tmp_path, files / "train.svm")

    class Closed(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdout", Closed())
    rc = main(["predict", str(model), str(files / "test.svm")])
    monkeypatch.undo()
    assert rc == 141
    assert capsys.readouterr().err == ""


def _extends_and_stores_dual(cls):
    """estimators with the parameters extension and store_dual"""
    return {"extension", "store_dual"} <= set(cls._get_param_names())


@reg.mark(rule=_extends_and_stores_dual)
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name, cls", [
    pytest.param(e.name, e.load(), id=e.name) for e in registry.ESTIMATORS
    if _extends_and_stores_dual(e.load())])
def test_registry_names_and_derived_flags(files, tmp_path, capsys, name,
                                          cls):
    model = _train(tmp_path, files / "train.svm", "--model", name,
                   "--extension", "1.0", "--store-dual=true")
    est = load_model(model)
    assert type(est) is cls
    assert est.extension == 1.0 and est.store_dual is True


def test_other_commands_refuse_unknown_flags():
    with pytest.raises(SystemExit) as exc:  # argparse's own usage error
        main(["models", "--extension", "1"])
    assert exc.value.code == 2


def test_models_prints_each_flag(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "    extension = " in out and "(--extension)" in out
    assert "    theta_init = 'auto'    (--theta-init)" in out


# ------------------------------------------------------ model files
def _edit_header(src, dst, edit, members=None):
    """Copy a model file with its header edited (and members replaced)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for name in zin.namelist():
            data = (members or {}).get(name) or zin.read(name)
            if name == "header.json":
                header = json.loads(data)
                edit(header)
                data = json.dumps(header).encode()
            zout.writestr(name, data)
    return dst


def _set(where, key, node):
    return lambda h: h[where].update({key: node})


def _set_field(key, node):
    return lambda h: h["state"]["fields"].update({key: node})


@pytest.mark.parametrize("edit, words", [
    (_set_field("classes", {"type": "none"}), "classes is missing"),
    (_set_field("n_features_in", {"type": "str", "value": "6"}),
     "n_features_in must be a int"),
    (_set_field("predict", {"type": "int", "value": 1}),
     "PerceptronState must have the fields"),
    (_set_field("__class__", {"type": "str", "value": "x"}),
     "PerceptronState must have the fields"),
    (_set("params", "eta", {"type": "float", "value": -5}), "eta"),
    (lambda h: h["input"].update(categories=[[1, 5]]), "categories"),
])
def test_bad_model_headers_refused_in_one_line(tmp_path, capsys, error_line,
                                               edit, words):
    model = _train(tmp_path, "colors_train.csv")
    bad = _edit_header(model, tmp_path / "bad.npz", edit)
    capsys.readouterr()
    assert main(["predict", str(bad), str(CORPUS / "colors_test.csv")]) == 2
    line = error_line()
    assert "not a valid perceptrons model file" in line and words in line


def test_wrong_coef_shape_refused(files, tmp_path, error_line):
    model = tmp_path / "m.npz"
    assert main(["train", str(files / "train.svm"), "-o", str(model),
                 "--max-iter", "1"]) == 0
    weights = read_header(model)["state"]["fields"]["weights"]
    key = weights["fields"]["current"]["key"]
    raw = io.BytesIO()
    np.lib.format.write_array(raw, np.zeros((6, 1)))
    _edit_header(model, tmp_path / "bad.npz",
                 lambda h: h["arrays"][key].update(shape=[6, 1]),
                 {f"{key}.npy": raw.getvalue()})
    assert main(["predict", str(tmp_path / "bad.npz"),
                 str(files / "test.svm")]) == 2
    assert ("state_.weights.current (axis 0): n_rows is 6 here but 1 "
            "elsewhere" in error_line())


def test_flipped_compression_method_refused(files, tmp_path, error_line):
    model = tmp_path / "m.npz"
    assert main(["train", str(files / "train.svm"), "-o", str(model),
                 "--max-iter", "1"]) == 0
    raw = bytearray(model.read_bytes())
    # the compression method of every member (local and central headers)
    for sig, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        start = raw.find(sig)
        while start >= 0:
            raw[start + offset] = 99
            start = raw.find(sig, start + 4)
    (tmp_path / "bad.npz").write_bytes(bytes(raw))
    assert main(["predict", str(tmp_path / "bad.npz"),
                 str(files / "test.svm")]) == 2
    assert "not a valid perceptrons model file" in error_line()


def test_header_bomb_refused_without_reading_it(tmp_path, error_line):
    bomb = tmp_path / "bomb.npz"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", b"{" + b" " * (40 * 2**20) + b"}")
    assert bomb.stat().st_size < 100_000
    assert main(["predict", str(bomb), str(CORPUS / "bom.svm")]) == 2
    line = error_line()
    assert "header.json is 41943042 bytes, over the limit" in line


# ------------------------------------------------------ real data
def _shared_file(*parts):
    path = skip_without_data_home().joinpath(*parts)
    if not path.is_file():
        pytest.skip(f"{'/'.join(parts)} is not in the data home")
    return path


def test_crx_held_out_split_train_predict(tmp_path, capsys):
    """crx (37 rows with '?') split 500/190: every test row predicted, and
    the accuracy predict reports is the accuracy of its lines."""
    rows = [r for r in _shared_file("uci", "crx.data").read_text()
            .splitlines() if r.strip()]
    random.Random(0).shuffle(rows)
    train, test = tmp_path / "train.data", tmp_path / "test.data"
    train.write_text("\n".join(rows[:500]) + "\n")
    test.write_text("\n".join(rows[500:]) + "\n")
    n_missing = sum("?" in r for r in rows[500:])
    assert n_missing > 0
    model = tmp_path / "crx.npz"
    assert main(["train", str(train), "-o", str(model), "--missing", "mean",
                 "--scale", "standard", "--random-state", "0"]) == 0
    assert "500 rows, 46 features" in capsys.readouterr().out
    pred = tmp_path / "pred.txt"
    assert main(["predict", str(model), str(test), "-o", str(pred)]) == 0
    err = capsys.readouterr().err
    lines = pred.read_text().splitlines()
    assert len(lines) == len(rows) - 500 == 190
    truth = [r.rsplit(",", 1)[1] for r in rows[500:]]
    accuracy = 100 * np.mean(np.array(lines) == np.array(truth))
    assert f"accuracy on the file's labels: {accuracy:.2f}%" in err
    assert f"{n_missing} rows have missing values" in err
    assert accuracy > 75
    assert main(["evaluate", str(train), "--missing", "mean", "--scale",
                 "standard", "--folds", "5"]) == 0
    assert "accuracy:" in capsys.readouterr().out
