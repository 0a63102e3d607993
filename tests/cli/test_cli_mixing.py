"""``perceptrons train --shards N [--scheduler ADDR]`` and ``train`` with
several shard files: iterative parameter mixing from the command line."""

import numpy as np
import pytest

from perceptrons import Perceptron
from perceptrons.cli import main
from perceptrons.datasets import load_svmlight
from perceptrons.distributed import ParameterMixing
from perceptrons.persistence import load_model


def test_shards_of_one_file_save_the_mixed_model(files, tmp_path, capsys):
    model = tmp_path / "m.npz"
    assert main(["train", str(files / "train.svm"), "--shards", "3",
                 "--mixing", "mistakes", "--max-iter", "4",
                 "--random-state", "1", "-o", str(model)]) == 0
    out = capsys.readouterr().out
    assert "3 shards on this process, mistakes mixing, 4 passes" in out
    est, schema = load_model(model, return_input_schema=True)
    assert schema == {"format": "svmlight", "zero_based": False,
                      "n_features": 6}
    X, y = load_svmlight(files / "train.svm")
    expected = ParameterMixing(Perceptron(max_iter=4, random_state=1),
                               n_shards=3, mixing="mistakes").fit(X, y)
    np.testing.assert_array_equal(est.coef_, expected.coef_)
    np.testing.assert_array_equal(est.intercept_, expected.intercept_)
    assert main(["predict", str(model), str(files / "test.svm"), "-o",
                 str(tmp_path / "p.txt")]) == 0
    assert len((tmp_path / "p.txt").read_text().splitlines()) == 40


def test_shard_files_on_a_local_cluster(files, tmp_path, capsys):
    X, y = load_svmlight(files / "train.svm")
    paths = []
    for i, rows in enumerate((slice(0, 40), slice(40, 80))):
        paths.append(str(tmp_path / f"part{i}.svm"))
        with open(paths[-1], "w") as fh:  # the same text as the file
            fh.writelines((files / "train.svm").read_text()
                          .splitlines(keepends=True)[rows])
    model = tmp_path / "m.npz"
    assert main(["train", *paths, "--scheduler", "local:2", "--max-iter",
                 "3", "--random-state", "0", "-o", str(model)]) == 0
    out = capsys.readouterr().out
    assert "2 shard files" in out and "2 shards on local:2" in out
    est = load_model(model)
    expected = ParameterMixing(Perceptron(max_iter=3, random_state=0),
                               n_shards=2).fit(X, y)
    np.testing.assert_array_equal(est.coef_, expected.coef_)


@pytest.mark.parametrize("argv,message", [
    (["--shards", "2", "--model", "pdm"], "PDM cannot be trained by "
                                          "parameter mixing"),
    (["--shards", "2", "--stream"], "do not combine"),
    (["--shards", "2", "--scale", "standard"], "--scale is not available"),
    (["--scheduler", "local:x"], "expected local:N"),
    (["--scheduler", "tcp://127.0.0.1:9"], "no Dask scheduler answered"),
])
def test_mixing_errors_are_one_line(files, tmp_path, error_line, argv,
                                    message):
    code = main(["train", str(files / "train.svm"), "-o",
                 str(tmp_path / "m.npz"), *argv])
    assert code == 2
    assert message in error_line()


def test_shard_files_must_be_svmlight(files, tmp_path, error_line):
    code = main(["train", str(files / "train.svm"), str(files / "train.csv"),
                 "-o", str(tmp_path / "m.npz")])
    assert code == 2
    assert "must be svmlight" in error_line()
