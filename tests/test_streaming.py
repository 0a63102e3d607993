"""Out-of-core training and prediction (perceptrons.streaming).

The reference for every result is the estimator itself on arrays read by
``load_svmlight``: ``fit`` when one chunk holds the file, else a loop of
``partial_fit`` over the row ranges of the chunks, which the tests compute
from the bytes with the rule of the module docstring (``_chunk_rows``), not
with the module's reader.
"""

import doctest
import gzip
import os
import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.linear_model import SGDClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler

import perceptrons.streaming as streaming
from perceptrons import PDM, Perceptron
from perceptrons.datasets import dump_svmlight, load_svmlight
from perceptrons.streaming import (CacheWarning, fit_file, iter_svmlight,
                                   predict_file, scan_svmlight)
from tests import _registry as reg
from tests._states import assert_same_state


# ----------------------------------------------------------------- helpers
def _data(n=90, d=7, n_classes=2, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d) * (rng.rand(n, d) < 0.6)
    X[3] = 0.0  # an all-zero row: a line with a label only
    W = rng.randn(d, n_classes)
    y = np.argmax(X @ W + 0.1 * rng.randn(n, n_classes), axis=1)
    y = np.where(y == 1, 1.0, -1.0) if n_classes == 2 else y.astype(float)
    return X, y


def _write(path, X, y, zero_based=False):
    dump_svmlight(X, y, path, zero_based=zero_based)
    return path


def _chunk_rows(data, chunk_bytes):
    """Rows of each chunk of ``data`` (bytes), by the rule of the module
    docstring: greedy runs of whole lines of at most ``chunk_bytes`` bytes,
    a longer line alone; chunks without rows are dropped."""
    lines = data.split(b"\n")
    lines = [line + b"\n" for line in lines[:-1]] + (
        [lines[-1]] if lines[-1] else [])
    spans, current, size = [], [], 0
    for line in lines:
        if current and size + len(line) > chunk_bytes:
            spans.append(current)
            current, size = [], 0
        current.append(line)
        size += len(line)
    if current:
        spans.append(current)
    rows = [sum(1 for ln in span if ln.split(b"#")[0].strip())
            for span in spans]
    return [r for r in rows if r]


def _bounds(rows):
    edges = np.concatenate([[0], np.cumsum(rows)])
    return list(zip(edges[:-1], edges[1:]))


def _partial_fit_loop(est, X, y, blocks, epochs):
    """The reference: ``partial_fit`` over ``blocks`` (row ranges or index
    arrays), ``epochs`` times."""
    classes = np.unique(y)
    for _ in range(epochs):
        for block in blocks:
            rows = np.arange(*block) if isinstance(block, tuple) else block
            est.partial_fit(X[rows], y[rows], classes=classes)
    return est


@pytest.fixture(scope="module")
def binary(tmp_path_factory):
    X, y = _data()
    return _write(tmp_path_factory.mktemp("stream") / "binary.svm", X, y)


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    X, y = _data(n_classes=3, seed=1)
    return _write(tmp_path_factory.mktemp("stream") / "three.svm", X, y)


#: Every registry estimator with its first test parameters (its defaults),
#: and Figure 2's last hypothesis with a margin τ.
ESTIMATORS = [*reg.cases(first=True, id=lambda cls, params: cls.__name__),
              pytest.param(Perceptron, {"hypothesis": "last", "tau": 0.5},
                           id="Perceptron-last-tau")]


def _runs_to_convergence(cls):
    """Whether ``fit`` runs to convergence, ``max_iter`` only capping it
    (the margin family): a file's epochs are plain passes instead."""
    return cls._algorithm.max_iter_is_a_cap


# ----------------------------------------------------------------- exactness
@reg.mark()
@pytest.mark.parametrize("cls, params", [
    *reg.cases(first=True, id=lambda cls, params: cls.__name__),
    pytest.param(Perceptron, {"hypothesis": "last"}, id="Perceptron-last")])
@pytest.mark.parametrize("data", ["binary", "three"])
def test_one_chunk_equals_fit(request, data, cls, params):
    # fit with shuffle=False and max_iter=1; for a fit that runs to
    # convergence, partial_fit's one plain pass (fit_file's docstring).
    path = request.getfixturevalue(data)
    X, y = load_svmlight(path)
    streamed = fit_file(cls(**params, max_iter=1), path,
                        chunk_bytes=2**20, cache=None)
    if _runs_to_convergence(cls):
        fitted = cls(**params).partial_fit(X, y, classes=np.unique(y))
    else:
        fitted = cls(**params, max_iter=1, shuffle=False).fit(X, y)
    assert_same_state(streamed, fitted)
    if hasattr(fitted, "coef_"):
        np.testing.assert_array_equal(streamed.coef_, fitted.coef_)
    # Examples presented: the rows, or those of every one-vs-rest problem
    # (PDM/PFM/ROMMA/MPU count so); Figure 2 counts the rows.
    n_classes = np.unique(y).shape[0]
    rows = X.shape[0]
    assert streamed.t_ == fitted.t_ in (rows, rows * n_classes)
    if cls is Perceptron:
        assert streamed.t_ == rows


@reg.mark()
@pytest.mark.parametrize("cls, params", ESTIMATORS)
@pytest.mark.parametrize("chunk_bytes", [5, 150, 1000])
def test_chunks_equal_partial_fit_loop(binary, three, cls, params,
                                       chunk_bytes):
    # 5 bytes: every line is a chunk of its own (each is longer); 150: two
    # or three lines; 1000: a dozen. Epochs 2 and 3 come from the cache.
    for path in (binary, three):
        X, y = load_svmlight(path)
        rows = _chunk_rows(path.read_bytes(), chunk_bytes)
        if chunk_bytes == 5:
            assert rows == [1] * X.shape[0]
        expected = _partial_fit_loop(cls(**params), X, y, _bounds(rows), 3)
        sources = []
        cached = fit_file(cls(**params), path, chunk_bytes=chunk_bytes,
                          max_iter=3,
                          callback=lambda e, info: sources.append(
                              (info.source, info.n_blocks)))
        assert sources == [("text", len(rows)), ("cache", len(rows)),
                           ("cache", len(rows))]
        assert_same_state(cached, expected)
        text = fit_file(cls(**params), path, chunk_bytes=chunk_bytes,
                        max_iter=3, cache=None)
        assert_same_state(text, expected)


@reg.mark()
@pytest.mark.parametrize("cls", reg.estimator_classes(), ids=reg.class_id)
def test_default_epochs_are_max_iter(binary, cls):
    # A max_iter that caps a fit that stops at convergence: one pass here.
    epochs = []
    fit_file(cls(max_iter=4), binary, chunk_bytes=300,
             callback=lambda e, info: epochs.append(info.epoch))
    assert epochs == ([1] if _runs_to_convergence(cls) else [1, 2, 3, 4])


def test_default_epochs_of_a_convergence_run_and_other_estimators(binary):
    assert fit_file(PDM(), binary, chunk_bytes=300).n_iter_ == fit_file(
        PDM(max_iter=1), binary, chunk_bytes=300).n_iter_
    sgd = fit_file(SGDClassifier(max_iter=2, random_state=0), binary,
                   chunk_bytes=300, max_iter=2)
    assert sgd.coef_.shape == (1, 7)  # any estimator with partial_fit


def test_refit_starts_from_scratch(binary):
    est = fit_file(Perceptron(max_iter=2), binary, chunk_bytes=200)
    first = Perceptron(max_iter=2)
    first.fit(*load_svmlight(binary))
    fit_file(first, binary, chunk_bytes=200)
    assert_same_state(first, est)


def test_chunks_follow_the_rule(tmp_path):
    # comments, blank lines, a BOM, a line much longer than the chunk, no
    # final newline
    X, y = _data(n=30)
    long_row = " ".join(f"{j}:1" for j in range(1, 400))
    text = ("# header\n\n" + _write(tmp_path / "a.svm", X, y).read_text()
            + f"1 {long_row}\n# tail comment\n-1 2:0.5")
    path = tmp_path / "b.svm"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    Xl, yl = load_svmlight(path)
    for chunk_bytes in (1, 40, 333, 5000, 10**6):
        rows = [X.shape[0] for X, _ in iter_svmlight(
            path, n_features=Xl.shape[1], zero_based=False,
            chunk_bytes=chunk_bytes)]
        assert rows == _chunk_rows(text.encode(), chunk_bytes), chunk_bytes
        blocks = list(iter_svmlight(path, n_features=Xl.shape[1],
                                    zero_based=False,
                                    chunk_bytes=chunk_bytes))
        Xs = np.vstack([X.toarray() for X, _ in blocks])
        np.testing.assert_array_equal(Xs, Xl.toarray())
        np.testing.assert_array_equal(np.concatenate([y for _, y in blocks]),
                                      yl)


def test_parser_gets_offsets_and_line_numbers(binary, monkeypatch):
    calls = []
    parse = streaming._text.parse_svmlight_chunk

    def spy(buf, *, path, offset, first_line):
        calls.append((bytes(buf), offset, first_line))
        return parse(buf, path=path, offset=offset, first_line=first_line)

    monkeypatch.setattr(streaming._text, "parse_svmlight_chunk", spy)
    scan_svmlight(binary, chunk_bytes=100)
    data = binary.read_bytes()
    assert len(calls) > 10
    assert b"".join(buf for buf, _, _ in calls) == data
    for buf, offset, first_line in calls:
        assert data[offset:offset + len(buf)] == buf
        assert first_line == data[:offset].count(b"\n") + 1


def test_compressed_file_equals_plain(binary, tmp_path):
    gz = tmp_path / "binary.svm.gz"
    gz.write_bytes(gzip.compress(binary.read_bytes()))
    a = fit_file(Perceptron(max_iter=3), binary, chunk_bytes=256)
    b = fit_file(Perceptron(max_iter=3), gz, chunk_bytes=256)
    assert_same_state(a, b)


# ----------------------------------------------------------------- shuffle
def test_shuffle_buffer(binary):
    X, y = load_svmlight(binary)
    kw = dict(chunk_bytes=200, max_iter=3, shuffle_buffer=16)
    a = fit_file(Perceptron(), binary, random_state=7, **kw)
    b = fit_file(Perceptron(), binary, random_state=7, cache=None, **kw)
    c = fit_file(Perceptron(), binary, random_state=8, **kw)
    assert_same_state(a, b)
    assert not np.array_equal(a.coef_, c.coef_)
    # the reference: runs of 16 rows in file order, across chunk boundaries,
    # each permuted by one RandomState, epoch after epoch
    rng = np.random.RandomState(7)
    runs = [np.arange(s, min(s + 16, len(y))) for s in range(0, len(y), 16)]
    expected = Perceptron()
    for _ in range(3):
        blocks = [run[rng.permutation(len(run))] for run in runs]
        _partial_fit_loop(expected, X, y, blocks, 1)
    assert_same_state(a, expected)


def test_shuffle_buffer_larger_than_file(binary):
    X, y = load_svmlight(binary)
    a = fit_file(Perceptron(max_iter=1), binary, chunk_bytes=300,
                 shuffle_buffer=10**6, random_state=0)
    order = np.random.RandomState(0).permutation(len(y))
    expected = _partial_fit_loop(Perceptron(), X, y, [order], 1)
    assert_same_state(a, expected)


# ----------------------------------------------------------------- cache
def test_cache_is_kept_and_reused_without_reading_text(binary, tmp_path,
                                                      monkeypatch):
    cache = tmp_path / "c.pcache"
    a = fit_file(Perceptron(max_iter=2), binary, chunk_bytes=300,
                 cache=cache)
    assert cache.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["c.pcache"]

    def no_text(*args, **kwargs):
        raise AssertionError("the text was parsed")

    monkeypatch.setattr(streaming._text, "parse_svmlight_chunk", no_text)
    info = scan_svmlight(binary, chunk_bytes=300, cache=cache)
    assert info.source == "cache"
    sources = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = fit_file(Perceptron(max_iter=2), binary, chunk_bytes=300,
                     cache=cache, callback=lambda e, i: sources.append(
                         i.source))
    assert sources == ["cache", "cache"]
    assert_same_state(a, b)


def test_scan_matches_load_svmlight(binary, three, tmp_path):
    for path in (binary, three):
        X, y, info = load_svmlight(path, return_info=True)
        found = scan_svmlight(path, chunk_bytes=97)
        assert (found.n_rows, found.n_features, found.zero_based) == (
            X.shape[0], info.n_features, info.zero_based)
        np.testing.assert_array_equal(found.classes, np.unique(y))
        assert found.n_bytes == os.path.getsize(path)
        assert found.nnz == X.nnz
    X, y = _data()
    zero = _write(tmp_path / "zero.svm", X, y, zero_based=True)
    found = scan_svmlight(zero)
    assert found.zero_based is True and found.n_features == X.shape[1]
    with pytest.raises(ValueError, match="zero_based=False"):
        scan_svmlight(zero, zero_based=False)


@pytest.mark.parametrize("change", ["data", "chunk_bytes"])
def test_stale_cache_is_rebuilt(binary, tmp_path, change):
    path = tmp_path / "d.svm"
    path.write_bytes(binary.read_bytes())
    cache = tmp_path / "d.pcache"
    fit_file(Perceptron(max_iter=2), path, chunk_bytes=300, cache=cache)
    chunk_bytes = 300
    if change == "data":
        X, y = _data(seed=5)
        _write(path, X, y)
        os.utime(path, ns=(1, 1))
    else:
        chunk_bytes = 400
    with pytest.warns(CacheWarning, match="rebuilding the cache file"):
        a = fit_file(Perceptron(max_iter=2), path, chunk_bytes=chunk_bytes,
                     cache=cache)
    b = fit_file(Perceptron(max_iter=2), path, chunk_bytes=chunk_bytes,
                 cache=None)
    assert_same_state(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # rebuilt: now valid
        fit_file(Perceptron(max_iter=2), path, chunk_bytes=chunk_bytes,
                 cache=cache)


@pytest.mark.parametrize("damage", ["truncate", "trailer", "metadata"])
def test_damaged_cache_is_rebuilt(binary, tmp_path, damage):
    cache = tmp_path / "c.pcache"
    expected = fit_file(Perceptron(max_iter=2), binary, chunk_bytes=300,
                        cache=cache)
    raw = bytearray(cache.read_bytes())
    if damage == "truncate":
        raw = raw[:len(raw) // 2]
    elif damage == "trailer":
        raw[-3] ^= 0xFF
    else:
        raw[-40] ^= 0x01  # inside the JSON metadata
    cache.write_bytes(bytes(raw))
    with pytest.warns(CacheWarning, match="rebuilding"):
        a = fit_file(Perceptron(max_iter=2), binary, chunk_bytes=300,
                     cache=cache)
    assert_same_state(a, expected)


def test_corrupt_cache_block_is_an_error(binary, tmp_path):
    cache = tmp_path / "c.pcache"
    fit_file(Perceptron(max_iter=2), binary, chunk_bytes=300, cache=cache)
    raw = bytearray(cache.read_bytes())
    raw[100] ^= 0x10  # a value of the first block
    cache.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="corrupt .*block 0 fails its "
                                         "checksum"):
        fit_file(Perceptron(max_iter=2), binary, chunk_bytes=300,
                 cache=cache)


def test_a_file_that_is_not_a_cache_is_never_overwritten(binary, tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("precious")
    with pytest.raises(ValueError, match="not a perceptrons cache file"):
        fit_file(Perceptron(max_iter=2), binary, cache=other)
    before = binary.read_bytes()
    with pytest.raises(ValueError, match="is the data file"):
        fit_file(Perceptron(max_iter=2), binary, cache=binary)
    assert other.read_text() == "precious"
    assert binary.read_bytes() == before


def test_failed_epoch_leaves_no_cache(tmp_path):
    X, y = _data()
    path = _write(tmp_path / "d.svm", X, y)
    with open(path, "a") as fh:
        fh.write("1 2:abc\n")
    cache = tmp_path / "d.pcache"
    with pytest.raises(ValueError):
        fit_file(Perceptron(max_iter=2), path, chunk_bytes=300, cache=cache,
                 n_features=7, classes=[-1, 1], zero_based=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.svm"]


def test_temporary_cache_is_removed(binary, tmp_path, monkeypatch):
    monkeypatch.setattr(streaming.tempfile, "tempdir", str(tmp_path))
    seen = []
    fit_file(Perceptron(max_iter=2), binary, chunk_bytes=300,
             callback=lambda e, i: seen.append(sorted(os.listdir(tmp_path))))
    assert len(seen[0]) == 1 and seen[0][0].endswith(".pcache")
    assert os.listdir(tmp_path) == []


# ----------------------------------------------------------------- memory
def test_memory_is_bounded_by_the_chunk(tmp_path):
    rng = np.random.RandomState(0)
    n, d = 40000, 50
    rows = []
    for i in range(n):
        idx = np.sort(rng.choice(d, 8, replace=False)) + 1
        label = 1 if rng.rand() < 0.5 else -1
        rows.append(f"{label} " + " ".join(f"{j}:{rng.randint(1, 99) / 8}"
                                            for j in idx))
    path = tmp_path / "big.svm"
    path.write_text("\n".join(rows) + "\n")
    chunk_bytes = 2**15
    assert path.stat().st_size > 50 * chunk_bytes
    # compile and load everything first
    small = tmp_path / "small.svm"
    small.write_text("\n".join(rows[:200]) + "\n")
    fit_file(Perceptron(max_iter=2), small, chunk_bytes=chunk_bytes,
             shuffle_buffer=100, random_state=0)
    est = fit_file(Perceptron(max_iter=2), small, chunk_bytes=chunk_bytes)
    predict_file(est, small, chunk_bytes=chunk_bytes, zero_based=False)
    cache = tmp_path / "big.pcache"
    for run in (
            lambda: fit_file(Perceptron(max_iter=2), path, cache=cache,
                             chunk_bytes=chunk_bytes),
            lambda: fit_file(Perceptron(max_iter=2), path, cache=None,
                             chunk_bytes=chunk_bytes, shuffle_buffer=300,
                             random_state=0),
            lambda: predict_file(est, path, os.devnull,
                                 chunk_bytes=chunk_bytes, zero_based=False)):
        tracemalloc.start()
        run()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        # the chunk's text, its parsed arrays and their copies: a few times
        # the chunk, never the file (4.5 MB, 1.6 MB as arrays)
        assert peak < 20 * chunk_bytes, peak


# ----------------------------------------------------------------- bad input
def _lines_file(tmp_path, bad_line, at=40):
    X, y = _data(n=60)
    good = _write(tmp_path / "good.svm", X, y).read_bytes().split(b"\n")
    lines = good[:at - 1] + [bad_line.encode()] + good[at - 1:]
    path = tmp_path / "bad.svm"
    path.write_bytes(b"\n".join(lines))
    offset = sum(len(line) + 1 for line in lines[:at - 1])
    return path, offset


def test_malformed_line_is_located(tmp_path):
    path, offset = _lines_file(tmp_path, "1 1:0.5 2:abc", at=40)
    with pytest.raises(ValueError) as exc:
        fit_file(Perceptron(max_iter=2), path, chunk_bytes=256)
    message = str(exc.value)
    assert str(path) in message and "line 40" in message
    assert f"byte offset {offset}" in message


def test_index_beyond_n_features_is_located(tmp_path):
    path, offset = _lines_file(tmp_path, "1 3:1 9:0.5", at=33)
    with pytest.raises(ValueError) as exc:
        fit_file(Perceptron(max_iter=2), path, chunk_bytes=256,
                 n_features=7, classes=[-1, 1], zero_based=False)
    message = str(exc.value)
    assert str(path) in message and "line 33" in message
    assert f"byte offset {offset}" in message
    assert "feature index 9 is out of range for n_features=7" in message
    with pytest.raises(ValueError, match="line 33"):  # found by a scan too
        scan_svmlight(path, max_features=7, chunk_bytes=256)


def test_index_zero_in_a_one_based_file_is_located(tmp_path):
    path, offset = _lines_file(tmp_path, "1 0:1 2:0.5", at=12)
    with pytest.raises(ValueError, match=f"line 12 .byte offset {offset}.: "
                                         "feature index 0, but zero_based"):
        fit_file(Perceptron(), path, zero_based=False, chunk_bytes=128)


def test_label_not_among_classes_is_located(tmp_path):
    path, offset = _lines_file(tmp_path, "2 1:1", at=50)
    with pytest.raises(ValueError, match=f"line 50 .byte offset {offset}.: "
                                         "label 2 is not among"):
        fit_file(Perceptron(), path, classes=[-1, 1], n_features=7,
                 zero_based=False, chunk_bytes=128)


def test_one_class_and_empty_files(tmp_path):
    one = tmp_path / "one.svm"
    one.write_text("1 1:1\n1 2:1\n")
    with pytest.raises(ValueError, match="only one class"):
        fit_file(Perceptron(), one)
    for text in ("", "# only a comment\n\n"):
        empty = tmp_path / "empty.svm"
        empty.write_text(text)
        with pytest.raises(ValueError, match="contains no examples"):
            fit_file(Perceptron(), empty)
        with pytest.raises(ValueError, match="contains no examples"):
            fit_file(Perceptron(), empty, n_features=3, classes=[0, 1],
                     zero_based=False)


def test_estimator_without_partial_fit_is_refused(binary):
    with pytest.raises(TypeError, match="has no partial_fit"):
        fit_file(make_pipeline(MaxAbsScaler(), Perceptron()), binary)


@pytest.mark.parametrize("kwargs, match", [
    (dict(chunk_bytes=0), "chunk_bytes must be a positive integer"),
    (dict(max_iter=0), "max_iter must be a positive integer"),
    (dict(shuffle_buffer=-1), "shuffle_buffer must be a non-negative"),
    (dict(zero_based="yes"), "zero_based must be"),
])
def test_bad_arguments(binary, kwargs, match):
    with pytest.raises(ValueError, match=match):
        fit_file(Perceptron(), binary, **kwargs)


# ----------------------------------------------------------------- predict
@reg.mark()
@pytest.mark.parametrize("cls, params", [
    *reg.cases(first=True, id=lambda cls, params: cls.__name__),
    pytest.param(make_pipeline, (MaxAbsScaler(), Perceptron()),
                 id="pipeline")])
def test_predict_file_equals_predict(binary, three, tmp_path, cls, params):
    for path in (binary, three):
        X, y = load_svmlight(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a convergence run's 3 passes
            est = (make_pipeline(*params) if cls is make_pipeline
                   else cls(**params, max_iter=3)).fit(X, y)
        out = tmp_path / "pred.txt"
        res = predict_file(est, path, out, chunk_bytes=100, zero_based=False)
        pred = est.predict(X)
        assert out.read_text().splitlines() == [str(int(v)) for v in pred]
        assert res.n_rows == len(y) and res.n_unknown == 0
        assert res.accuracy == np.mean(pred == y)


def test_predict_file_short_rows_and_unknown_labels(tmp_path):
    X, y = _data()
    est = Perceptron().fit(X, y)
    path = tmp_path / "t.svm"
    path.write_text("1 1:0.5\n2 2:1\n-1 3:1\n7 1:1\n2 1:2\n")
    with open(tmp_path / "out.txt", "w") as fh:
        res = predict_file(est, path, fh, zero_based=False)
    assert len((tmp_path / "out.txt").read_text().splitlines()) == 5
    assert res.n_rows == 5 and res.n_unknown == 3
    assert res.unknown_labels == [2.0, 7.0] and res.accuracy is None
    wide = tmp_path / "w.svm"
    wide.write_text("1 1:0.5\n-1 8:1\n")
    with pytest.raises(ValueError, match="line 2 .*out of range for "
                                         "n_features=7"):
        predict_file(est, wide, zero_based=False)
    with pytest.raises(ValueError, match="not fitted"):
        predict_file(Perceptron(), wide)


def test_doctests():
    result = doctest.testmod(streaming)
    assert result.attempted > 0 and result.failed == 0
