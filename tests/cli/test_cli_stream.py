"""``perceptrons train --stream`` and ``predict --stream``: the file read a
chunk at a time (perceptrons.streaming), with the model file and the report
of the in-memory commands."""

import numpy as np
import pytest

from perceptrons import Perceptron
from perceptrons.cli import main
from perceptrons.cli.options import byte_size
from perceptrons.datasets import load_svmlight
from perceptrons.persistence import load_model
from perceptrons.streaming import fit_file


def _train(files, model, *extra):
    return main(["train", "--stream", str(files / "train.svm"), "-o",
                 str(model), "--max-iter", "3", *extra])


def test_train_stream_saves_what_fit_file_fits(files, tmp_path, capsys):
    model = tmp_path / "m.npz"
    assert _train(files, model, "--chunk-bytes", "200", "--shuffle-buffer",
                  "16", "--random-state", "3") == 0
    out = capsys.readouterr().out
    assert "80 rows, 6 features, 2 classes" in out
    assert "passes:     3 over the 80 rows" in out
    assert "(text)" in out and "(cache)" in out
    est, schema = load_model(model, return_input_schema=True)
    assert schema == {"format": "svmlight", "zero_based": False,
                      "n_features": 6}
    expected = fit_file(Perceptron(max_iter=3, random_state=3),
                        files / "train.svm", chunk_bytes=200,
                        shuffle_buffer=16, random_state=3)
    np.testing.assert_array_equal(est.coef_, expected.coef_)
    np.testing.assert_array_equal(est.intercept_, expected.intercept_)
    assert est.n_updates_ == expected.n_updates_


def test_predict_stream_equals_predict(files, tmp_path, capsys):
    model = tmp_path / "m.npz"
    # a model trained in memory, with a scaler, read back by --stream
    assert main(["train", str(files / "train.svm"), "-o", str(model),
                 "--scale", "maxabs"]) == 0
    capsys.readouterr()
    for data in ("test.svm", "short.svm"):
        assert main(["predict", str(model), str(files / data)]) == 0
        plain = capsys.readouterr()
        assert main(["predict", "--stream", "--chunk-bytes", "64",
                     str(model), str(files / data)]) == 0
        streamed = capsys.readouterr()
        assert streamed.out == plain.out
        assert len(streamed.out.splitlines()) == 40
        assert streamed.err == plain.err
        assert "accuracy on the file's labels" in streamed.err
    pred = tmp_path / "pred.txt"
    assert main(["predict", "--stream", str(model), str(files / "test.svm"),
                 "-o", str(pred), "-q"]) == 0
    assert capsys.readouterr().err == ""
    assert len(pred.read_text().splitlines()) == 40


def test_train_stream_then_predict(files, tmp_path, capsys):
    model = tmp_path / "m.npz"
    assert _train(files, model, "--no-cache") == 0
    capsys.readouterr()
    assert main(["predict", "--stream", str(model),
                 str(files / "test.svm")]) == 0
    lines = capsys.readouterr().out.splitlines()
    X, _ = load_svmlight(files / "test.svm", n_features=6, zero_based=False)
    assert lines == [str(int(v)) for v in load_model(model).predict(X)]


def test_cache_file_is_reused(files, tmp_path, capsys):
    cache = tmp_path / "train.pcache"
    model = tmp_path / "m.npz"
    assert _train(files, model, "--cache-file", str(cache)) == 0
    first = capsys.readouterr().out
    assert cache.exists() and "from the text" in first
    assert _train(files, model, "--cache-file", str(cache)) == 0
    second = capsys.readouterr().out
    assert "from the cache" in second and "(text)" not in second
    mistakes = [ln for ln in first.splitlines() if ln.startswith("mistakes")]
    assert mistakes == [ln for ln in second.splitlines()
                        if ln.startswith("mistakes")]


@pytest.mark.parametrize("args, fragment", [
    (["train", "--stream", "{d}/train.csv"], "svmlight/LIBSVM files only"),
    (["train", "--stream", "--scale", "standard", "{d}/train.svm"],
     "--scale cannot be combined with --stream"),
    (["train", "--cache-file", "{d}/x.pcache", "{d}/train.svm"],
     "--cache-file applies to --stream only"),
    (["train", "--shuffle-buffer", "10", "{d}/train.svm"],
     "--shuffle-buffer applies to --stream only"),
    (["predict", "--chunk-bytes", "1M", "{d}/m.npz", "{d}/test.svm"],
     "--chunk-bytes applies to --stream only"),
    (["train", "--stream", "{d}/bad.svm"], "line 1"),
    (["train", "--stream", "--max-features", "4", "{d}/train.svm"],
     "over the limit of 4 features"),
    (["train", "--stream", "--shuffle-buffer", "-2", "{d}/train.svm"],
     "shuffle_buffer must be a non-negative integer"),
    (["train", "--stream", "--cache-file", "{d}/train.svm",
      "{d}/train.svm"], "is the data file"),
    (["train", "--stream", "--cache-file", "{d}/test.svm",
      "{d}/train.svm"], "not a perceptrons cache file"),
])
def test_stream_errors(files, tmp_path, capsys, error_line, args, fragment):
    d = tmp_path / "d"
    d.mkdir()
    for name in ("train.csv", "train.svm", "test.svm", "bad.svm"):
        (d / name).write_bytes((files / name).read_bytes())
    assert main(["train", str(d / "train.svm"), "-o", str(d / "m.npz")]) == 0
    capsys.readouterr()
    args = [a.format(d=d) for a in args]
    if args[0] == "train":
        args += ["-o", str(tmp_path / "out.npz")]
    assert main(args) == 2
    assert fragment in error_line()


def test_predict_stream_refuses_a_csv_model(files, tmp_path, capsys,
                                            error_line):
    model = tmp_path / "m.npz"
    assert main(["train", str(files / "train.csv"), "--label-column", "0",
                 "-o", str(model)]) == 0
    capsys.readouterr()
    assert main(["predict", "--stream", str(model),
                 str(files / "test.csv")]) == 2
    assert "svmlight/LIBSVM files only" in error_line()


def test_predict_stream_unknown_labels(files, tmp_path, capsys):
    model = tmp_path / "m.npz"
    assert main(["train", str(files / "train.svm"), "-o", str(model)]) == 0
    data = tmp_path / "new.svm"
    data.write_text("3 1:1\n-1 2:1\n5 1:0.5\n")
    capsys.readouterr()
    assert main(["predict", "--stream", str(model), str(data)]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 3
    assert "no accuracy: 2 labels in the file are not among the model's " \
           "classes ('3', '5'" in captured.err


def test_byte_sizes():
    assert byte_size("64M") == 64 * 2**20
    assert byte_size("1G") == 2**30
    assert byte_size("512k") == 512 * 2**10
    assert byte_size("4096") == 4096
    assert byte_size("16MiB") == 16 * 2**20


@pytest.mark.parametrize("size", ["0", "-1", "12Q", "lots", "inf"])
def test_bad_byte_size_is_a_usage_error(files, capsys, size):
    with pytest.raises(SystemExit) as exc:
        main(["train", "--stream", "--chunk-bytes", size,
              str(files / "train.svm")])
    assert exc.value.code == 2
    assert "expected a size in bytes" in capsys.readouterr().err


def test_cache_options_exclude_each_other(files, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["train", "--stream", "--no-cache", "--cache-file", "x",
              str(files / "train.svm")])
    assert exc.value.code == 2
    assert "not allowed with" in capsys.readouterr().err
