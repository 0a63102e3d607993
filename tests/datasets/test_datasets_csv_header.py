"""CSV files with a header row: detected or told, columns by name, the
header kept in the schema and later files matched by name (issue #26,
item 8)."""

import numpy as np
import pytest

from perceptrons.datasets import CSVSchema, load_csv

COLUMNS = {"a": [0.5, -1.0, 2.0, -0.25], "b": [1.0, 2.0, -3.0, 0.0],
           "c": ["red", "blue", "red", "green"],
           "label": ["pos", "neg", "pos", "neg"], "id": [10, 11, 12, 13]}


def _frame(path, columns, index=False, rows=4):
    """What pandas' ``DataFrame.to_csv`` writes (``index=True``: an unnamed
    first column of row numbers)."""
    lines = [("," if index else "") + ",".join(columns)]
    for i in range(rows):
        lines.append((f"{i}," if index else "")
                     + ",".join(str(COLUMNS[c][i]) for c in columns))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("index", [False, True], ids=["plain", "pandas-index"])
def test_header_detected_and_columns_named(tmp_path, index):
    path = _frame(tmp_path / "d.csv", ["id", "a", "b", "c", "label"], index)
    X, y, info = load_csv(path, label_column="label", drop_columns=["id"],
                          return_info=True)
    assert info.header and info.index_column == (0 if index else None)
    assert list(y) == COLUMNS["label"]
    assert list(info.feature_names) == ["a", "b", "c=blue", "c=green",
                                        "c=red"]
    np.testing.assert_array_equal(X[:, :2], np.c_[COLUMNS["a"],
                                                  COLUMNS["b"]])
    # detected without any name given, the label last by default
    X2, y2 = load_csv(_frame(tmp_path / "e.csv", ["a", "b", "label"], index))
    assert X2.shape == (4, 2) and list(y2) == COLUMNS["label"]


def test_header_forced_or_refused(tmp_path):
    # nominal columns only: a header cannot be told from data, unless said
    path = _frame(tmp_path / "n.csv", ["c", "label"])
    X, y = load_csv(path)
    assert X.shape[0] == 5  # the header read as a row of data
    X, y, info = load_csv(path, header=True, return_info=True)
    assert X.shape[0] == 4 and info.schema.column_names == ["c", "label"]
    numeric = _frame(tmp_path / "m.csv", ["a", "b", "label"])
    with pytest.raises(ValueError, match="Unparseable value 'a'"):
        load_csv(numeric, header=False)
    with pytest.raises(ValueError, match="need a header row, but header=Fa"):
        load_csv(numeric, header=False, label_column="label")
    with pytest.raises(ValueError, match="header must be True, False or"):
        load_csv(numeric, header="yes")


def test_names_errors(tmp_path):
    path = _frame(tmp_path / "d.csv", ["a", "b", "label"])
    with pytest.raises(ValueError, match="'nope' is not a column of .* its "
                                         "header names 'a', 'b', 'label'"):
        load_csv(path, label_column="nope")
    plain = tmp_path / "p.csv"
    plain.write_text("1,2,pos\n3,4,neg\n")
    with pytest.raises(ValueError, match="'label' is not a column of .* its "
                                         "header names '1', '2', 'pos'"):
        load_csv(plain, label_column="label")  # a name implies a header
    twice = tmp_path / "t.csv"
    twice.write_text("a,a,label\n1,2,pos\n3,4,neg\n")
    with pytest.raises(ValueError, match="names two columns 'a'"):
        load_csv(twice)


def test_header_only_file_has_no_data_rows(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("a,b,label\n")
    for kwargs in ({}, {"label_column": "label"}, {"header": True}):
        with pytest.raises(ValueError, match="has a header row but no data"):
            load_csv(path, **kwargs)


def test_later_file_matched_by_name(tmp_path):
    train = _frame(tmp_path / "train.csv", ["id", "a", "b", "c", "label"],
                   index=True)
    X, _, info = load_csv(train, label_column="label", drop_columns=["id"],
                          return_info=True)
    schema = CSVSchema.from_dict(info.schema.to_dict())
    assert schema.header and schema.column_names[:2] == ["x0", "id"]
    # reordered, without the index or the dropped id: mapped by name
    test = _frame(tmp_path / "test.csv", ["label", "c", "b", "a"])
    X2, y2 = load_csv(test, schema=schema)
    np.testing.assert_array_equal(X2, X)
    assert list(y2) == COLUMNS["label"]
    # without the label column
    X3, y3 = load_csv(_frame(tmp_path / "u.csv", ["b", "a", "c"]),
                      schema=schema)
    np.testing.assert_array_equal(X3, X)
    assert y3 is None
    with pytest.raises(ValueError, match=r"missing 'b'\)"):
        load_csv(_frame(tmp_path / "m.csv", ["a", "c", "label"]),
                 schema=schema)
    with pytest.raises(ValueError, match=r"unknown 'zz'\)"):
        (tmp_path / "x.csv").write_text("a,b,c,zz\n1,2,red,3\n")
        load_csv(tmp_path / "x.csv", schema=schema)
    with pytest.raises(ValueError, match="header row but no data rows"):
        (tmp_path / "h.csv").write_text("a,b,c\n")
        load_csv(tmp_path / "h.csv", schema=schema)


def test_schema_without_header_field_still_reads(tmp_path):
    """Schemas saved before headers were read have no "header" field."""
    path = tmp_path / "p.csv"
    path.write_text("1,2,pos\n3,4,neg\n")
    _, _, info = load_csv(path, return_info=True)
    data = info.schema.to_dict()
    assert data.pop("header") is False
    schema = CSVSchema.from_dict(data)
    assert not schema.header
    X, _ = load_csv(path, schema=schema)
    assert X.shape == (2, 2)
