"""UCI-style CSV loader (nominal one-hot, missing values, errors) and IDX."""

import gzip
import struct

import numpy as np
import pytest

from perceptrons.datasets import load_csv, load_idx

MIXED = (
    "1.5,red,10,yes\n"
    "2.0,blue,?,no\n"
    "?,green,30,yes\n"
    "3.0,blue,40,no\n"
    "4.5,green,50,yes\n"
)


def _write(path, text):
    path.write_text(text)
    return path


def test_nominal_one_hot_and_drop_missing(tmp_path):
    p = _write(tmp_path / "m.data", MIXED)
    X, y, info = load_csv(p, return_info=True)
    # rows on lines 2 and 3 hold '?' and are dropped; 'red' only on line 1.
    assert X.dtype == np.float64
    np.testing.assert_array_equal(
        X,
        [[1.5, 0, 0, 1, 10], [3.0, 1, 0, 0, 40], [4.5, 0, 1, 0, 50]],
    )
    np.testing.assert_array_equal(y, ["yes", "no", "yes"])
    assert list(info.feature_names) == ["x0", "x1=blue", "x1=green", "x1=red", "x2"]
    assert info.categories == {1: ["blue", "green", "red"]}
    assert info.numeric_columns == [0, 2] and info.nominal_columns == [1]
    np.testing.assert_array_equal(info.lines, [1, 4, 5])
    np.testing.assert_array_equal(info.dropped_lines, [2, 3])
    # each nominal block is an indicator: exactly one 1 per row
    np.testing.assert_array_equal(X[:, 1:4].sum(axis=1), 1)


def test_missing_zero_keeps_rows(tmp_path):
    p = _write(tmp_path / "m.data", MIXED)
    X, y = load_csv(p, handle_missing="zero")
    assert X.shape == (5, 5)
    assert X[1, 4] == 0.0 and X[2, 0] == 0.0  # missing numeric -> 0
    np.testing.assert_array_equal(X[2, 1:4], [0, 1, 0])
    assert len(y) == 5


def test_missing_zero_nominal_gives_all_zero_block(tmp_path):
    p = _write(tmp_path / "n.data", "a,1,+\n?,2,-\nb,3,+\n")
    X, y, info = load_csv(p, handle_missing="zero", return_info=True)
    assert info.categories == {0: ["a", "b"]}  # '?' is not a category
    np.testing.assert_array_equal(X[:, :2], [[1, 0], [0, 0], [0, 1]])


def test_missing_error_names_line_and_column(tmp_path):
    p = _write(tmp_path / "m.data", MIXED)
    with pytest.raises(ValueError, match=r"m\.data.*line 2, column 2"):
        load_csv(p, handle_missing="error")


def test_missing_label_dropped(tmp_path):
    p = _write(tmp_path / "l.data", "1,2,a\n3,4,?\n5,6,b\n")
    for mode in ("drop", "zero"):
        X, y = load_csv(p, handle_missing=mode)
        np.testing.assert_array_equal(y, ["a", "b"])
    with pytest.raises(ValueError, match="line 2"):
        load_csv(p, handle_missing="error")


def test_custom_missing_tokens_and_empty_fields(tmp_path):
    p = _write(tmp_path / "t.data", "1,NA,x\n2,,y\n3,4,z\n")
    X, y = load_csv(p, missing=["NA"])
    np.testing.assert_array_equal(X, [[3, 4]])
    np.testing.assert_array_equal(y, ["z"])


def test_label_column_drop_columns_and_label_types(tmp_path):
    p = _write(tmp_path / "w.data", "101,M,1.0,2.0\n102,B,3.0,4.0\n")
    X, y = load_csv(p, label_column=1, drop_columns=[0])
    np.testing.assert_array_equal(X, [[1, 2], [3, 4]])
    np.testing.assert_array_equal(y, ["M", "B"])
    X, y = load_csv(p, label_column=0, drop_columns=[1])
    assert y.dtype == np.int64 and list(y) == [101, 102]
    p2 = _write(tmp_path / "f.data", "1,0.5\n2,-1.5\n")
    _, y2 = load_csv(p2)
    assert y2.dtype == np.float64 and list(y2) == [0.5, -1.5]


def test_adult_style_gzip_spaces_header_and_trailing_blank(tmp_path):
    text = "|1x3 Cross validator\n25, Private, 7, <=50K.\n38, Self-emp, 9, >50K.\n\n"
    p = tmp_path / "a.test.gz"
    p.write_bytes(gzip.compress(text.encode()))
    X, y, info = load_csv(p, skip_rows=1, return_info=True,
                          column_names=["age", "work", "edu", "income"])
    np.testing.assert_array_equal(X, [[25, 1, 0, 7], [38, 0, 1, 9]])
    assert list(info.feature_names) == ["age", "work=Private", "work=Self-emp", "edu"]
    np.testing.assert_array_equal(y, ["<=50K.", ">50K."])


def test_categories_reused_for_test_file(tmp_path):
    train = _write(tmp_path / "train.data", "a,1,+\nb,2,-\nc,3,+\n")
    test = _write(tmp_path / "test.data", "c,5,+\nb,6,-\n")
    _, _, info = load_csv(train, return_info=True)
    X, _ = load_csv(test, categories=info.categories)
    np.testing.assert_array_equal(X, [[0, 0, 1, 5], [0, 1, 0, 6]])
    unknown = _write(tmp_path / "u.data", "d,5,+\n")
    with pytest.raises(ValueError, match=r"Unknown category 'd'.*line 1, column 0"):
        load_csv(unknown, categories=info.categories)
    X, _ = load_csv(unknown, categories=info.categories, handle_unknown="ignore")
    np.testing.assert_array_equal(X, [[0, 0, 0, 5]])
    # a column that is numeric in the vocabulary's file must stay numeric
    textual = _write(tmp_path / "x.data", "a,zz,+\n")
    with pytest.raises(ValueError, match=r"Non-numeric value 'zz'.*line 1, column 1"):
        load_csv(textual, categories=info.categories)


def test_nominal_columns_forces_one_hot(tmp_path):
    p = _write(tmp_path / "c.data", "1,5,+\n2,5,-\n3,7,+\n")
    X, _, info = load_csv(p, nominal_columns=[1], return_info=True)
    assert list(info.feature_names) == ["x0", "x1=5", "x1=7"]
    np.testing.assert_array_equal(X[:, 1:], [[1, 0], [1, 0], [0, 1]])


def test_ragged_rows(tmp_path):
    p = _write(tmp_path / "r.data", "1,2,a\n3,4,b\n5,c\n")
    with pytest.raises(ValueError) as err:
        load_csv(p)
    msg = str(err.value)
    assert "r.data" in msg and "line 3" in msg and "expected 3 fields" in msg


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_empty_file(tmp_path, text):
    p = _write(tmp_path / "e.data", text)
    with pytest.raises(ValueError, match=r"e\.data.*empty"):
        load_csv(p)


def test_mixed_numeric_column_is_unparseable(tmp_path):
    p = _write(tmp_path / "x.data", "1,2,a\n3,4x,b\n5,6,c\n")
    with pytest.raises(ValueError, match=r"Unparseable value '4x'.*line 2, column 1"):
        load_csv(p)


def test_binary_garbage(tmp_path):
    p = tmp_path / "g.data"
    p.write_bytes(b"\xff\xfe\x00\x81,1\n")
    with pytest.raises(ValueError, match=r"g\.data.*UTF-8"):
        load_csv(p)


def test_single_column_and_all_rows_missing(tmp_path):
    p = _write(tmp_path / "s.data", "a\nb\n")
    with pytest.raises(ValueError, match="single column"):
        load_csv(p)
    p = _write(tmp_path / "q.data", "?,a\n?,b\n")
    with pytest.raises(ValueError, match="No rows left"):
        load_csv(p)


def test_bad_column_arguments(tmp_path):
    p = _write(tmp_path / "b.data", "1,2,a\n")
    with pytest.raises(ValueError, match="out of range"):
        load_csv(p, label_column=3)
    with pytest.raises(ValueError, match="also in drop_columns"):
        load_csv(p, drop_columns=[-1])
    with pytest.raises(ValueError, match="handle_missing"):
        load_csv(p, handle_missing="median")
    with pytest.raises(ValueError, match="column_names"):
        load_csv(p, column_names=["a"])
    with pytest.raises(FileNotFoundError):
        load_csv(tmp_path / "nope.data")


# ---------------------------------------------------------------- IDX


def _idx_bytes(array, code=0x08):
    header = bytes([0, 0, code, array.ndim]) + b"".join(
        struct.pack(">I", d) for d in array.shape
    )
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


def test_idx_roundtrip(tmp_path):
    images = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    p = tmp_path / "img-idx3-ubyte.gz"
    p.write_bytes(gzip.compress(_idx_bytes(images)))
    np.testing.assert_array_equal(load_idx(p), images)
    ints = np.array([1, -2, 300], dtype=np.int32)
    q = tmp_path / "ints.idx"
    q.write_bytes(_idx_bytes(ints, code=0x0C))
    out = load_idx(q)
    np.testing.assert_array_equal(out, ints)
    assert out.dtype.isnative


def test_idx_errors(tmp_path):
    p = tmp_path / "bad.idx"
    p.write_bytes(b"\x01\x02\x03\x04" + b"\x00" * 8)
    with pytest.raises(ValueError, match="bad magic"):
        load_idx(p)
    labels = np.arange(5, dtype=np.uint8)
    p.write_bytes(_idx_bytes(labels)[:-1])
    with pytest.raises(ValueError, match=r"needs 13 bytes but the file has 12"):
        load_idx(p)


# ---------------------------------------------------------------- schema


def test_schema_reads_a_test_file_as_its_training_file(tmp_path):
    from perceptrons.datasets import CSVSchema

    train = _write(tmp_path / "train.data", MIXED)
    _, _, info = load_csv(train, handle_missing="mean", return_info=True)
    schema = CSVSchema.from_dict(info.schema.to_dict())  # JSON round trip
    assert schema.to_dict() == info.schema.to_dict()
    assert schema.fill == {0: 2.75, 1: "blue", 2: 32.5}  # mean; mode level
    test = _write(tmp_path / "test.data", "?,yellow,?,yes\n2.0,red,20,?\n")
    X, y, info = load_csv(test, schema=schema, return_info=True)
    # every row kept; missing -> training mean; unseen level -> no 1
    np.testing.assert_array_equal(
        X, [[2.75, 0, 0, 0, 32.5], [2.0, 0, 0, 1, 20]])
    assert info.n_filled == 1 and dict(info.unseen[1]) == {"yellow": 1}
    np.testing.assert_array_equal(info.labelled, [True, False])
    np.testing.assert_array_equal(y, ["yes"])
    # the same rows without their label column
    bare = _write(tmp_path / "bare.data", "?,yellow,?\n2.0,red,20\n")
    X2, y2 = load_csv(bare, schema=schema)
    assert y2 is None
    np.testing.assert_array_equal(X2, X)
    wrong = _write(tmp_path / "wrong.data", "1,2\n")
    with pytest.raises(ValueError, match="has 2 columns, but the training "
                                         "file had 4"):
        load_csv(wrong, schema=schema)


def test_missing_mode_and_schema_validation(tmp_path):
    from perceptrons.datasets import CSVSchema

    p = _write(tmp_path / "m.data", "1,a,+\n1,b,-\n?,b,+\n3,?,-\n")
    X, _, info = load_csv(p, handle_missing="mode", return_info=True)
    np.testing.assert_array_equal(X[:, 0], [1, 1, 1, 3])
    np.testing.assert_array_equal(X[3, 1:], [0, 1])  # mode level 'b'
    good = info.schema.to_dict()
    for field, value in [("n_columns", "3"), ("label_column", 7),
                         ("categories", [[1, ["a", "a"]]]),
                         ("fill", [[1, "zz"]]), ("delimiter", ",,"),
                         ("numeric_columns", [])]:
        with pytest.raises(ValueError, match="CSV schema"):
            CSVSchema.from_dict({**good, field: value})


def test_bom_and_binary_files(tmp_path):
    p = tmp_path / "bom.data"
    p.write_bytes(b"\xef\xbb\xbf1.5,a\n2.5,b\n")
    X, y = load_csv(p)
    np.testing.assert_array_equal(X, [[1.5], [2.5]])
    npz = tmp_path / "x.data"
    np.savez(npz.with_suffix(".npz"), a=np.ones(2))
    npz.write_bytes(npz.with_suffix(".npz").read_bytes())
    with pytest.raises(ValueError, match=r"not a text svmlight/CSV file "
                                         r"\(a zip archive"):
        load_csv(npz)
