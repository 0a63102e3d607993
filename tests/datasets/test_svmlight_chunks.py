"""The compiled svmlight chunk parser agrees with scikit-learn's reader.

The oracle is ``load_svmlight_file(io.BytesIO(buf), zero_based=True,
dtype=np.float64)``: the same labels, indptr, indices and values, bit for
bit, on every file it accepts, and a located ValueError on every file it
rejects (it raises OverflowError for an index over 2**31 - 1). Non-finite
labels and values, which it accepts, are refused.
"""

import gzip
import io
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_svmlight_file

from perceptrons._loops import svmlight_text as loops
from perceptrons.datasets import svmlight_chunks as chunks
from perceptrons.datasets.svmlight_chunks import parse_svmlight_chunk

CORPUS = Path(__file__).resolve().parent.parent / "cli" / "corpus"
PATH = "data/chunk.svm"


# ----------------------------------------------------------------- helpers
def sklearn_parse(buf):
    """``(labels, indptr, indices, data)`` from scikit-learn, or the
    exception it raises."""
    try:
        X, y = load_svmlight_file(io.BytesIO(bytes(buf)), zero_based=True,
                                  dtype=np.float64)
    except (ValueError, OverflowError) as exc:
        return exc
    return (np.asarray(y, dtype=np.float64), X.indptr, X.indices, X.data)


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.int64)


def assert_same(got, ref):
    labels, indptr, indices, data = ref
    assert got.labels.dtype == np.float64 and got.data.dtype == np.float64
    assert got.indptr.dtype == np.int64 and got.indices.dtype == np.int64
    np.testing.assert_array_equal(bits(got.labels), bits(labels))
    np.testing.assert_array_equal(got.indptr, indptr)
    np.testing.assert_array_equal(got.indices, indices)
    np.testing.assert_array_equal(bits(got.data), bits(data))


def finite(ref):
    return bool(np.isfinite(ref[0]).all() and np.isfinite(ref[3]).all())


def check_agrees(buf, **kw):
    """Parse ``buf`` both ways; they agree (or both refuse). Returns our
    result or our ValueError."""
    ref = sklearn_parse(buf)
    if isinstance(ref, Exception) or not finite(ref):
        with pytest.raises(ValueError) as err:
            parse_svmlight_chunk(buf, **kw)
        return err.value
    got = parse_svmlight_chunk(buf, **kw)
    assert_same(got, ref)
    assert got.n_lines == bytes(buf).count(b"\n")
    return got


def located(err, offset, line):
    msg = str(err)
    assert PATH in msg, msg
    assert f"line {line}" in msg, msg
    assert f"byte offset {offset}" in msg, msg
    return msg


# ------------------------------------------------------------------ corpus
@pytest.mark.reference
@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("*.svm")))
def test_corpus_files(name):
    buf = (CORPUS / name).read_bytes()
    check_agrees(buf, path=PATH)


# -------------------------------------------------------------- edge cases
ACCEPTED = [
    b"",
    b"\n\n\n",
    b"# only a comment\n",
    b"  \t \n# c\n\t\n",
    b"1",
    b"1\n",
    b"-1 2:1",
    b"1 3:1\r\n-1 4:2\r\n",
    b"1\t3:1\t\t5:2  \t\n",
    b"  1 3:1\n",
    b"1 3:1 # a comment with x:y tokens\n",
    b"1 3:1#glued comment\n",
    b"1#3:1\n",
    b"#1 3:1\n1 2:2\n",
    b"1 3:1 #\n",
    b"1\x0b3:1\x0c4:2\n",
    b"1 qid:7 3:1\n",
    b"1 qid:abc 3:1\n",
    b"1 qidx:y 3:1\n",
    b"1 qid:\n",
    b"1 qid:1:2 3:4\n",
    b"1 0:1 1:2\n",
    b"1 -0:1 +3:1 04:2\n",
    b"1 -0:1 5:2\n",
    b"1 1_0:1 2_0:3\n",
    b"1 2147483647:1\n",
    b"1 3:1.\n",
    b"1 3:.5\n",
    b"1 3:+3\n",
    b"1 3:1e5 4:1E-3 5:1e+5 6:-2.5E+02\n",
    b"+1 3:0001.2500 4:-.0 5:-0 6:0e999999 7:-0.0e-999999\n",
    b"-0 3:0\n",
    b"1 3:1_000.5 4:.5_0 5:1_0. 6:-1_0e1_0\n",
    # Cython's float (scikit-learn's) reads these; Python's float does not
    b"1e-_3 1:1e-_3 2:1e+_3 3:1e-_3_0\n",
    b"1 3:4.9e-324 4:2.2250738585072014e-308 5:1.7976931348623157e308\n",
    b"1 3:1e-400 4:-1e-400\n",
    b"1 3:123456789012345678901234567890e-20\n",
    b"1 3:9007199254740993 4:9007199254740992 5:9007199254740991\n",
    b"1 3:1e22 4:1e23 5:3e37 6:9e37 7:1e-22 8:1e-23\n",
    b"1 3:0.1 4:0.2 5:0.30000000000000004\n",
    b"2.5 3:1\n1e2 4:1\n",
    b"1 3:1 \n\n\n-1 3:2",
    b"1 3:1\n   ",
    b"1 3:1\n#",
    b"1 3:1 # \x00 after the hash\n",
    b"1 qid:\x00 3:1\n",
    b"1 3:1 # caf\xc3\xa9\n",
]


@pytest.mark.reference
@pytest.mark.parametrize("buf", ACCEPTED)
def test_accepted_edge_cases(buf):
    ref = sklearn_parse(buf)
    assert not isinstance(ref, Exception), ref  # the list is of good files
    got = parse_svmlight_chunk(buf)
    assert_same(got, ref)
    assert got.n_lines == buf.count(b"\n")


# (bad line, fragment of the problem in words)
MALFORMED = [
    (b"1 1:0.5 foo 3:2", "bad token 'foo'"),
    (b"1 1:abc", "value 'abc' in token '1:abc' is not a number"),
    (b"1 x:1", "feature index 'x'"),
    (b"1 1.5:2", "feature index '1.5'"),
    (b"1 :1", "feature index ''"),
    (b"1:0.5 3:2", "missing label"),
    (b"abc 1:0.5", "label 'abc' is not a number"),
    (b"1 3:1 1:2", "not sorted and unique (1 follows 3)"),
    (b"1 2:1 2:2", "not sorted and unique (2 follows 2)"),
    (b"1 -1:2", "negative feature index -1"),
    (b"1 1:2:3", "bad token '1:2:3'"),
    (b"1 1:", "value '' in token '1:'"),
    (b"1 1: 2", "value '' in token '1:'"),
    (b"1 3 :1", "bad token '3'"),
    (b"1 1:nan", "not finite"),
    (b"1 2:inf", "not finite"),
    (b"1 2:-Infinity", "not finite"),
    (b"1 2:1e309", "not finite"),
    (b"nan 1:1", "label 'nan' is not finite"),
    (b"-inf 1:1", "label '-inf' is not finite"),
    (b"1 2:0x10", "value '0x10'"),
    (b"1 2:1e", "value '1e'"),
    (b"1 2:.", "value '.'"),
    (b"1 2:1__0", "value '1__0'"),
    (b"1 2:1_.5", "value '1_.5'"),
    (b"1 2:._5", "value '._5'"),
    (b"1 2:+_1", "value '+_1'"),
    (b"1 2:inf_", "value 'inf_'"),
    (b"1 2:1e5_", "value '1e5_'"),
    (b"1 2:1-_3", "value '1-_3'"),
    (b"1 +_1:2", "feature index '+_1'"),
    (b"1 1__0:2", "feature index '1__0'"),
    (b"1 2:1,5", "value '1,5'"),
    (b"1 3000000000:1", "too large"),
    (b"1 2147483648:1", "too large"),
    (b"1 qid", "bad token 'qid'"),
    (b"1 3:1 qid:2", "feature index 'qid'"),
    (b"1 qid:1 qid:2", "feature index 'qid'"),
    (b"1 qi:1", "feature index 'qi'"),
    (b"1 3:1\r2 4:1", "bad token '2'"),
    (b"1 3:1\x00", "value '1\\x00'"),
    (b"1 qid:a\x00 # the hash is no comment after a NUL", "bad token '#'"),
    (b"\xef\xbb\xbf1 3:1", "label '\\ufeff1' is not a number"),
    (b"1 3:\xa01", "value '\\xa01'"),
    (b"1 3:1\x1c", "is not a number"),
]


@pytest.mark.reference
@pytest.mark.parametrize("bad, fragment", MALFORMED)
@pytest.mark.parametrize("newline", [b"\n", b"\r\n"])
def test_malformed_line_is_located(bad, fragment, newline):
    good = b"1 1:0.5 3:2" + newline
    head = b"# header" + newline + good
    buf = head + bad + newline + good
    ref = sklearn_parse(buf)
    if not isinstance(ref, Exception):
        assert not finite(ref)  # only non-finite numbers are ours to refuse
    offset, first_line = 1000, 41
    with pytest.raises(ValueError) as err:
        parse_svmlight_chunk(buf, path=PATH, offset=offset,
                             first_line=first_line)
    bad_at = len(head)
    msg = located(err.value, offset + bad_at, first_line + 2)
    assert fragment in msg, msg
    # the line is quoted, cut to 80 characters
    assert "the line reads" in msg
    # and the same line alone, last in its chunk, without its newline
    with pytest.raises(ValueError) as err:
        parse_svmlight_chunk(bad, path=PATH, offset=7, first_line=3)
    assert fragment in located(err.value, 7, 3)


def test_long_bad_line_is_cut():
    bad = b"1 " + b" ".join(b"%d:1" % j for j in range(1, 200)) + b" 5:1\n"
    with pytest.raises(ValueError) as err:
        parse_svmlight_chunk(b"1 1:1\n" + bad, path=PATH)
    msg = located(err.value, 6, 2)
    assert "(5 follows 199)" in msg
    assert msg.endswith("...") and len(msg) < 400


def test_first_bad_line_wins():
    # a bad slow token (read by float() after the compiled pass) on line 2
    # is reported before a structural error on line 3
    for bad in (b"1 1:abc\n", b"1 1:1e999\n", b"abc 1:1\n"):
        buf = b"1 1:1\n" + bad + b"1 3:1 2:1\n"
        with pytest.raises(ValueError) as err:
            parse_svmlight_chunk(buf, path=PATH)
        located(err.value, 6, 2)
    # and the other way round
    buf = b"1 1:1\n1 3:1 2:1\n1 1:abc\n"
    with pytest.raises(ValueError) as err:
        parse_svmlight_chunk(buf, path=PATH)
    assert "(2 follows 3)" in located(err.value, 6, 2)


def test_path_none_still_locates():
    with pytest.raises(ValueError, match=r"line 2 \(byte offset 6\)"):
        parse_svmlight_chunk(b"1 1:1\n1 x:1\n")


@pytest.mark.parametrize("kind", ["bytes", "bytearray", "memoryview",
                                  "ndarray"])
def test_buffer_types(kind):
    buf = b"1 1:0.5 3:2\n-1 2:1.25e-3\n"
    arg = {"bytes": buf, "bytearray": bytearray(buf),
           "memoryview": memoryview(buf),
           "ndarray": np.frombuffer(buf, np.uint8).copy()}[kind]
    assert_same(parse_svmlight_chunk(arg), sklearn_parse(buf))


@pytest.mark.reference
def test_chunks_equal_the_whole():
    rng = np.random.default_rng(1)
    buf = _random_file(rng, 300)
    lines = buf.splitlines(keepends=True)
    cuts = np.sort(rng.choice(len(lines), 5, replace=False))
    pieces = [b"".join(lines[a:b]) for a, b in
              zip([0, *cuts], [*cuts, len(lines)])]
    _assert_chunked(pieces, sklearn_parse(buf))


def test_growing_arrays(monkeypatch):
    """Tiny starting capacities: every array grows, every row is resumed."""
    monkeypatch.setattr(chunks, "count_lines_and_colons", lambda arr: (0, 0))
    monkeypatch.setattr(chunks, "_SLOW_CAPACITY", 1)
    rng = np.random.default_rng(2)
    buf = _random_file(rng, 200) + b"1 1_0:0.1 2_0:0.2\n"
    assert_same(parse_svmlight_chunk(buf), sklearn_parse(buf))


def test_loop_resumes_after_each_status():
    """The compiled pass stops with a status and resumes at a line start."""
    buf = np.frombuffer(b"1 2:1\n-1 x:1\n1 2:3.14159265358979312 4:1\n",
                        np.uint8)
    z = np.zeros(8, np.int64)
    out = (np.zeros(8), np.zeros(9, np.int64), np.zeros(8, np.int64),
           np.zeros(8))
    status, pos, line_no, n_rows, nnz, n_slow = loops.parse_svmlight_lines(
        buf, 0, 0, *out, 0, 0, z[:0], z[:0], z[:0], 0)
    assert (status, pos, line_no, n_rows, nnz) == (loops.STATUS_LINE, 6, 1,
                                                   1, 1)
    status, pos, line_no, n_rows, nnz, n_slow = loops.parse_svmlight_lines(
        buf, 13, 2, *out, n_rows, nnz, z[:0], z[:0], z[:0], 0)
    assert (status, pos, n_rows, nnz) == (loops.STATUS_GROW_SLOW, 13, 1, 1)
    status, pos, line_no, n_rows, nnz, n_slow = loops.parse_svmlight_lines(
        buf, 13, 2, *out, n_rows, nnz, z.copy(), z.copy(), z.copy(), 0)
    assert (status, pos, line_no, n_rows, nnz, n_slow) == (
        loops.STATUS_DONE, buf.shape[0], 3, 2, 3, 1)


# -------------------------------------------------------------- numbers
@pytest.mark.reference
def test_fast_path_is_exact_on_many_decimals():
    """Many plain decimals (most on the fast path) against ``float``."""
    rng = np.random.default_rng(3)
    n = 60000
    mant = rng.integers(1, 2**53, n, dtype=np.int64)
    mant //= 10 ** rng.integers(0, 15, n)
    exps = rng.integers(-25, 40, n)
    tokens = []
    for m, e, style in zip(mant.tolist(), exps.tolist(),
                           rng.integers(0, 4, n).tolist()):
        s = str(m)
        if style == 0:
            tok = f"{s}e{e}"
        elif style == 1 and e < 0 and -e < len(s):
            tok = f"{s[:e]}.{s[e:]}"
        elif style == 2:
            tok = f"-{s}E{e:+d}"
        else:
            tok = f"0.{'0' * min(abs(e), 20)}{s}"
        tokens.append(tok)
    tokens.append(str(2**53))
    tokens.append(f"{2**53 + 1}")
    tokens.append(f"{2**53 // 10**15}e37")
    buf = "".join(f"1 1:{t}\n" for t in tokens).encode()
    got = parse_svmlight_chunk(buf)
    expected = np.array([float(t) for t in tokens])
    np.testing.assert_array_equal(bits(got.data), bits(expected))


def _formats(x, rng):
    """``x`` written in one of many ways (all read back by ``float``)."""
    k = rng.integers(0, 12)
    if k == 0:
        return repr(x)
    if k == 1:
        return "%.17g" % x
    if k == 2:
        return "%.3e" % x
    if k == 3:
        return "%.6g" % x
    if k == 4:
        return "%d" % round(x) if abs(x) < 1e18 else repr(x)
    if k == 5:  # a long mantissa
        digits = "".join(rng.choice(list("0123456789"), rng.integers(20, 45)))
        return f"{digits[:3]}.{digits[3:]}e{rng.integers(-30, 30)}"
    if k == 6:  # subnormal
        return repr(float(x) * 1e-310)
    if k == 7:  # huge exponents, still finite (or rounding to 0)
        return f"{rng.integers(1, 10)}e{rng.integers(-340, 308)}"
    if k == 8:
        return "%.10f" % x
    if k == 9:
        return ("+" if x >= 0 else "") + ("%.4g" % x).upper()
    if k == 10:  # ".5", "-.5", "12."
        s = "%.5f" % x
        if s.lstrip("-").startswith("0."):
            return s.replace("0.", ".", 1)
        return "%d." % x if abs(x) < 1e18 else s
    return "000" + "%g" % abs(x)


def _random_file(rng, n_rows, weird=False):
    """A random svmlight file: many number formats, comments, blank lines,
    CRLF, tabs, qid; with ``weird``, odd but legal tokens too."""
    out = []
    for _ in range(n_rows):
        r = rng.random()
        if r < 0.05:
            out.append("\n")
            continue
        if r < 0.08:
            out.append("# comment 1:2 x\n")
            continue
        x = float(rng.standard_normal() * 10.0 ** int(rng.integers(-8, 8)))
        label = _formats(float(rng.integers(-3, 4)) if rng.random() < 0.7
                         else x, rng)
        idx = np.sort(rng.choice(10**6, rng.integers(0, 30), replace=False))
        toks = [label]
        if rng.random() < 0.1:
            toks.append(f"qid:{rng.integers(0, 100)}")
        for j in idx.tolist():
            v = float(rng.standard_normal()
                      * 10.0 ** int(rng.integers(-12, 12)))
            i = str(j)
            if weird and rng.random() < 0.05:
                i = "+" + i if rng.random() < 0.5 else "0" + i
            toks.append(f"{i}:{_formats(v, rng)}")
        sep = [" ", "\t", "  ", " \t "][rng.integers(0, 4)]
        line = sep.join(toks)
        if rng.random() < 0.1:
            line += " # trailing 3:4"
        if rng.random() < 0.1:
            line += " "
        out.append(line + ("\r\n" if rng.random() < 0.1 else "\n"))
    text = "".join(out)
    if rng.random() < 0.3:
        text = text.rstrip("\n")
    return text.encode()


def _assert_chunked(pieces, ref):
    """Parse ``pieces`` as consecutive chunks; the concatenation is ``ref``."""
    offset, line = 0, 1
    parts = []
    for piece in pieces:
        got = parse_svmlight_chunk(piece, path=PATH, offset=offset,
                                   first_line=line)
        assert got.n_lines == piece.count(b"\n")
        parts.append(got)
        offset += len(piece)
        line += got.n_lines
    labels = np.concatenate([p.labels for p in parts])
    indices = np.concatenate([p.indices for p in parts])
    data = np.concatenate([p.data for p in parts])
    indptr, base = [np.zeros(1, np.int64)], 0
    for p in parts:
        indptr.append(p.indptr[1:] + base)
        base += p.indptr[-1]
    indptr = np.concatenate(indptr)

    class Whole:
        pass

    whole = Whole()
    whole.labels, whole.indptr, whole.indices, whole.data = (
        labels, indptr, indices, data)
    assert_same(whole, ref)


@pytest.mark.reference
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), weird=st.booleans())
def test_fuzz_random_files(seed, weird):
    rng = np.random.default_rng(seed)
    buf = _random_file(rng, int(rng.integers(1, 60)), weird)
    got = check_agrees(buf)
    assert not isinstance(got, Exception)


FLOATS = st.floats(allow_nan=False, allow_infinity=False, width=64)


@pytest.mark.reference
@settings(max_examples=150, deadline=None)
@given(values=st.lists(FLOATS, min_size=1, max_size=20),
       fmt=st.sampled_from(["{!r}", "{:.17g}", "{:.3e}", "{:.6g}", "{:.0f}",
                            "{:.20e}", "{:.25f}", "{:+.15E}"]))
def test_fuzz_float_formats(values, fmt):
    toks = [fmt.format(v) for v in values]
    buf = ("0 " + " ".join(f"{j}:{t}" for j, t in enumerate(toks))).encode()
    got = check_agrees(buf)
    if isinstance(got, Exception):  # "%.0f" of 1e308 is fine; 1e309 is not
        assert not all(math.isfinite(float(t)) for t in toks)


TOKEN_BYTES = b"0123456789 .:+-eE#\t\r\n\x0b\x00qid_nafxI"


@pytest.mark.reference
@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([b"1 2:3 4:5\n", b"-1 qid:2 7:0.25\n",
                                 b"1e3 10:1.5e-3\n", b"# c\n", b"\n"]),
                min_size=1, max_size=6),
       st.lists(st.tuples(st.integers(0, 200),
                          st.sampled_from(list(TOKEN_BYTES))),
                max_size=4))
def test_fuzz_mutated_bytes(lines, edits):
    """Odd bytes in odd places: accept and refuse exactly as scikit-learn."""
    buf = bytearray(b"".join(lines))
    for at, byte in edits:
        buf.insert(at % (len(buf) + 1), byte)
    check_agrees(bytes(buf), path=PATH)


# ------------------------------------------------------------ real files
@pytest.mark.shared_data
@pytest.mark.parametrize("name", ["a9a", "w8a"])
def test_real_file_in_chunks(home, name):
    path = Path(home) / "libsvm" / f"{name}.gz"
    if not path.is_file():
        pytest.skip(f"{path} not available")
    buf = gzip.decompress(path.read_bytes())
    ref = sklearn_parse(buf)
    assert_same(parse_svmlight_chunk(buf), ref)
    # four chunks of about a quarter each, cut after a newline
    cuts, start = [], 0
    for k in (1, 2, 3):
        at = buf.index(b"\n", k * len(buf) // 4) + 1
        cuts.append(buf[start:at])
        start = at
    cuts.append(buf[start:])
    _assert_chunked(cuts, ref)
