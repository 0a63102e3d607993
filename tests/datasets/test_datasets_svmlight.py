"""svmlight/LIBSVM loader: round trips, compression, and located errors."""

import bz2
import gzip

import numpy as np
import pytest
import scipy.sparse as sp

from perceptrons.datasets import dump_svmlight, load_svmlight

GOOD = "1 1:0.5 3:2\n"


def _write(path, text, compress=None):
    data = text.encode()
    if compress == "gz":
        data = gzip.compress(data)
    elif compress == "bz2":
        data = bz2.compress(data)
    path.write_bytes(data)
    return path


def test_basic_parse(tmp_path):
    p = _write(tmp_path / "d.txt", "# comment\n1 1:0.5 3:2\n-1 2:1 # tail\n\n-1\n")
    X, y = load_svmlight(p)
    assert sp.issparse(X) and X.format == "csr" and X.dtype == np.float64
    assert y.dtype == np.float64
    np.testing.assert_array_equal(y, [1, -1, -1])
    np.testing.assert_array_equal(
        X.toarray(), [[0.5, 0, 2], [0, 1, 0], [0, 0, 0]]
    )


@pytest.mark.parametrize("compress", [None, "gz", "bz2"])
def test_roundtrip_and_compression(tmp_path, compress):
    rng = np.random.RandomState(0)
    X = rng.randn(20, 7) * (rng.rand(20, 7) < 0.4)
    y = np.where(rng.rand(20) < 0.5, -1.0, 1.0)
    plain = tmp_path / "plain.svm"
    dump_svmlight(X, y, plain)
    text = plain.read_text()
    assert " 0:" not in text  # one-based by default, as LIBSVM
    suffix = {None: ".svm", "gz": ".svm.gz", "bz2": ".svm.bz2"}[compress]
    p = _write(tmp_path / f"d{suffix}", text, compress)
    X2, y2 = load_svmlight(p, n_features=7, zero_based=False)
    np.testing.assert_allclose(X2.toarray(), X)
    np.testing.assert_array_equal(y2, y)


def test_n_features_pads_columns(tmp_path):
    p = _write(tmp_path / "d.txt", "1 1:1\n-1 2:1\n")
    X, _ = load_svmlight(p, n_features=123, zero_based=False)
    assert X.shape == (2, 123)


@pytest.mark.parametrize(
    "bad_line, fragment",
    [
        ("1 1:0.5 foo 3:2", "bad token 'foo'"),
        ("1 1:abc", "value 'abc' in token '1:abc' is not a number"),
        ("1 x:1", "feature index 'x'"),
        ("1 1.5:2", "feature index '1.5'"),
        ("1:0.5 3:2", "missing label"),
        ("abc 1:0.5", "label 'abc' is not a number"),
        ("1 3:1 1:2", "not sorted and unique"),
        ("1 2:1 2:2", "not sorted and unique"),
        ("1 -1:2", "negative feature index"),
        ("1 1:2:3", "bad token '1:2:3'"),
        ("1 1:", "value '' in token '1:'"),
        ("1 1:nan", "not finite"),
        ("1 2:inf", "not finite"),
    ],
)
def test_malformed_line_is_located(tmp_path, bad_line, fragment):
    p = _write(tmp_path / "bad.svm", GOOD + bad_line + "\n" + GOOD)
    with pytest.raises(ValueError) as err:
        load_svmlight(p)
    msg = str(err.value)
    assert "bad.svm" in msg
    assert "line 2" in msg
    assert fragment in msg


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n"])
def test_empty_file(tmp_path, text):
    p = _write(tmp_path / "empty.svm", text)
    with pytest.raises(ValueError, match=r"empty\.svm.*no examples"):
        load_svmlight(p)


def test_index_beyond_n_features(tmp_path):
    p = _write(tmp_path / "d.svm", GOOD + "1 9:1\n")
    with pytest.raises(ValueError, match=r"line 2: feature index 9 is out of range"):
        load_svmlight(p, n_features=3, zero_based=False)


def test_index_zero_in_one_based_file(tmp_path):
    p = _write(tmp_path / "d.svm", GOOD + "1 0:1 1:2\n")
    with pytest.raises(ValueError, match=r"line 2: feature index 0"):
        load_svmlight(p, zero_based=False)
    X, _ = load_svmlight(p, zero_based="auto")  # auto: zero-based file
    assert X.shape == (2, 4)


@pytest.mark.parametrize("payload", [b"not gzip at all", gzip.compress(GOOD.encode(), mtime=0)[:12]],
                         ids=["not-gzip", "truncated-gzip"])
def test_corrupt_gzip(tmp_path, payload):
    p = tmp_path / "d.svm.gz"
    p.write_bytes(payload)
    with pytest.raises(ValueError, match=r"d\.svm\.gz.*decompress"):
        load_svmlight(p)


def test_bad_arguments_and_missing_file(tmp_path):
    p = _write(tmp_path / "d.svm", GOOD)
    with pytest.raises(ValueError, match="n_features"):
        load_svmlight(p, n_features=0)
    with pytest.raises(ValueError, match="zero_based"):
        load_svmlight(p, zero_based="yes")
    with pytest.raises(FileNotFoundError, match="nope.svm"):
        load_svmlight(tmp_path / "nope.svm")


def test_zero_based_resolved_once_and_returned(tmp_path):
    p = _write(tmp_path / "z.svm", "1 0:1 2:1\n-1 1:1\n")
    X, _, info = load_svmlight(p, return_info=True)
    assert info.zero_based is True and info.n_features == 3
    q = _write(tmp_path / "o.svm", GOOD)
    X, _, info = load_svmlight(q, return_info=True)
    assert info.zero_based is False and X[0, 2] == 2.0
    # the training file's decision, applied to a file without a 0: index
    X, _ = load_svmlight(q, zero_based=True, n_features=4)
    assert X[0, 3] == 2.0


def test_xz_bom_and_binary(tmp_path):
    import lzma

    p = tmp_path / "d.svm.xz"
    p.write_bytes(lzma.compress(b"\xef\xbb\xbf" + GOOD.encode()))
    X, y = load_svmlight(p)
    assert y.tolist() == [1.0] and X.toarray().tolist() == [[0.5, 0, 2]]
    h5 = tmp_path / "usps.h5"
    h5.write_bytes(b"\x89HDF\r\n\x1a\n\x00\x00")
    with pytest.raises(ValueError, match=r"not a text svmlight/CSV file "
                                         r"\(an HDF5 file\)"):
        load_svmlight(h5)


def test_max_features_refuses_before_allocating(tmp_path):
    p = _write(tmp_path / "h.svm", "1 1:0.5 2000000000:1\n-1 1:0.2\n")
    with pytest.raises(ValueError, match=r"line 1: feature index 2000000000 "
                                         r"needs 2,000,000,000 features, "
                                         r"14\.9 GiB"):
        load_svmlight(p, max_features=2**24)
    X, _ = load_svmlight(p)  # no limit: a sparse matrix, still small
    assert X.shape == (2, 2_000_000_000) and X.nnz == 3
