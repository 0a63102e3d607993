"""Shared fixtures of the command-line tests: data files and the error line."""

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Small train/test files in svmlight and CSV formats."""
    d = tmp_path_factory.mktemp("cli")
    rng = np.random.RandomState(0)
    n, f = 120, 6
    w = rng.randn(f)
    X = rng.randn(n, f)
    y = np.where(X @ w > 0, 1, -1)
    dump_svmlight_file(X[:80], y[:80], str(d / "train.svm"), zero_based=False)
    dump_svmlight_file(X[80:], y[80:], str(d / "test.svm"), zero_based=False)
    # a test file whose last feature is never non-zero: still 6 features
    Xs = X[80:].copy()
    Xs[:, -1] = 0.0
    dump_svmlight_file(Xs, y[80:], str(d / "short.svm"), zero_based=False)
    wide = np.hstack([X[80:], np.ones((40, 2))])
    dump_svmlight_file(wide, y[80:], str(d / "wide.svm"), zero_based=False)
    labels = np.where(y > 0, "pos", "neg")
    with open(d / "train.csv", "w") as fh:
        for row, lab in zip(X[:80], labels[:80]):
            fh.write(lab + "," + ",".join(f"{v:.6g}" for v in row) + "\n")
    with open(d / "test.csv", "w") as fh:
        for row, lab in zip(X[80:], labels[80:]):
            fh.write(lab + "," + ",".join(f"{v:.6g}" for v in row) + "\n")
    with open(d / "narrow.csv", "w") as fh:
        for row, lab in zip(X[80:], labels[80:]):
            fh.write(lab + "," + ",".join(f"{v:.6g}" for v in row[:4]) + "\n")
    (d / "bad.svm").write_text("1 1:0.5 2:abc\n-1 1:0.2\n")
    (d / "corrupt.npz").write_bytes(b"PK\x03\x04 definitely not a model")
    return d


@pytest.fixture
def error_line(capsys):
    """A function returning the one ``perceptrons: error: ...`` line on
    stderr, checking that there is no traceback and nothing else."""
    def read():
        err = capsys.readouterr().err
        assert "Traceback" not in err
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert len(lines) == 1, err
        assert lines[0].startswith("perceptrons: error: ")
        return lines[0]
    return read
