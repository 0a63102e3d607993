"""Several label columns of a CSV file: a multi-label problem.

``--label-column a,b,c`` (or ``--label-column a --label-column b ...``)
names one 0/1 column per label; the model learns one binary problem per
label (the estimators' multi-label ``y``, a 2-D indicator). The file is read
by :func:`perceptrons.datasets.load_csv` once per label column, with that
column as the label and the other label columns dropped, so that every read
encodes the same features and the header, names and missing values are
handled as for one label column. The model file's input schema is the first
read's, with ``label_columns`` (the columns' indices) added: ``predict``
reads a later file the same way, and writes one column per label.

Nothing here imports numpy or scikit-learn at module level.
"""

import argparse

__all__ = ["LabelColumns", "column_refs", "is_multilabel", "label_names",
           "load_labels", "load_new_labels", "prediction_lines",
           "scores_text"]


class LabelColumns(argparse.Action):
    """``--label-column``: one column, or several (comma-separated, the
    option repeated, or both): a multi-label problem, one 0/1 label per
    column. One column is stored as before (an index, a name, None or
    "auto"), several as a list."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = getattr(namespace, "label_columns_given", [])
        columns = given + (values if isinstance(values, list) else [values])
        namespace.label_columns_given = columns
        if len(columns) > 1:
            for c in columns:
                if c is None or c == "auto":
                    raise argparse.ArgumentError(self, (
                        f"{'none' if c is None else 'auto'!r} names no "
                        "column: several label columns are indices or "
                        "header names, one 0/1 label each"))
        setattr(namespace, self.dest,
                columns[0] if len(columns) == 1 else columns)


def column_refs(convert):
    """An argument type: comma-separated ``convert`` results, a list of
    two or more, or one as itself (so that a default string, which
    argparse converts too, stays one column)."""
    def parse(text):
        parts = [part for part in text.split(",") if part.strip()]
        if not parts:
            raise argparse.ArgumentTypeError(
                f"expected a column index or name, got {text!r}")
        columns = [convert(part) for part in parts]
        return columns if len(columns) > 1 else columns[0]
    return parse


def is_multilabel(columns):
    """Whether ``--label-column`` named several columns."""
    return isinstance(columns, list) and len(columns) > 1


def _not_binary(y, name, lines):
    """The message for label column ``name`` if its values are not 0/1."""
    import numpy as np

    if y.dtype.kind in "iuf":
        bad = ~np.isin(y, (0, 1))
    else:
        bad = np.ones(y.shape[0], dtype=bool)
    if not bad.any():
        return None
    k = int(np.argmax(bad))
    return (f"label column {name} holds {y[k].item()!r} (line "
            f"{int(lines[k])}): each of several label columns is one "
            "label of a multi-label problem, 1 (on) or 0 (off); name only "
            "0/1 columns in --label-column")


def _read(load_csv, path, known, message, **kwargs):
    """``load_csv(path, return_info=True, **kwargs)``; a ValueError whose
    text holds ``known`` becomes the CLIError ``message``."""
    from .options import CLIError

    try:
        return load_csv(path, return_info=True, **kwargs)
    except ValueError as exc:
        if known not in str(exc):
            raise
        raise CLIError(message) from None


def _column_name(schema, j):
    return (f"{j} ({schema.column_names[j]!r})" if schema.header
            else str(j))


def load_labels(load_csv, path, columns, drop_columns, **kwargs):
    """X, the (n, L) 0/1 labels and the info of a CSV file whose
    ``columns`` are labels (see the module notes). A row with a missing
    label in any column is dropped (``info.dropped_lines``) unless
    ``handle_missing="error"``.

    Returns
    -------
    X, Y, info : as :func:`~perceptrons.datasets.load_csv` (``Y`` int64 of
        shape (n_samples, L)); ``info.label_columns`` the columns' indices.
    """
    import numpy as np

    from .options import CLIError

    reads = []
    for k, column in enumerate(columns):
        others = list(columns[:k]) + list(columns[k + 1:])
        reads.append(_read(
            load_csv, path, "is also in drop_columns",
            f"--label-column names column {column!r} twice (as an index "
            "and a name, say), or --drop-columns or --id-column names it "
            "too: each label column is named once",
            label_column=column, drop_columns=list(drop_columns) + others,
            **kwargs))
    X, _, info = reads[0]
    indices = [r[2].schema.label_column for r in reads]
    common = info.lines
    for _, _, other in reads[1:]:
        common = np.intersect1d(common, other.lines)
    Y = np.empty((common.shape[0], len(reads)), dtype=np.int64)
    for k, (_, y, read) in enumerate(reads):
        problem = _not_binary(y, _column_name(read.schema, indices[k]),
                              read.lines)
        if problem:
            raise CLIError(problem)
        Y[:, k] = y[np.isin(read.lines, common)]
    dropped = np.union1d(np.concatenate([r[2].dropped_lines for r in reads]),
                         np.setdiff1d(info.lines, common))
    kept = np.isin(info.lines, common)
    info.dropped_lines = dropped.astype(np.int64)
    info.lines = common
    info.label_columns = indices
    return X[kept], Y, info


def label_names(schema):
    """The names of a multi-label model's labels, from its saved input
    schema (its training file's header names, else ``x<j>``)."""
    names = schema.get("column_names") or []
    return [names[j] if j < len(names) else f"label{k}"
            for k, j in enumerate(schema["label_columns"])]


def load_new_labels(load_csv, CSVSchema, path, schema, label_column,
                    **kwargs):
    """X, the labels and the info of a later file for a multi-label model
    (``schema``: its saved input schema, with ``label_columns``): read once
    per label column with the training file's schema made for that label.
    ``label_column``: "auto" (the training file's columns), None (the file
    has none) or a list of one column per label.

    Returns
    -------
    X, Y, info, labelled : ``Y`` None without label columns, else the
        labels of the rows that have every label (``labelled``).
    """
    import numpy as np

    from .options import CLIError

    columns = schema["label_columns"]
    if isinstance(label_column, list) and len(label_column) != len(columns):
        raise CLIError(f"the model learnt {len(columns)} labels "
                       f"({', '.join(label_names(schema))}); --label-column "
                       f"names {len(label_column)} columns")
    base = CSVSchema.from_dict(schema)
    reads = []
    for k, j in enumerate(columns):
        made = dict(schema, label_column=j, drop_columns=sorted(
            set(schema["drop_columns"]) - {j} | {columns[0]}))
        given = label_column[k] if isinstance(label_column, list) \
            else label_column
        reads.append(_read(
            load_csv, path, "(label included)",
            f"{path!r} does not have the training file's {base.n_columns} "
            "columns: a multi-label model reads a file without a header row "
            "by position, its label columns included (with a header row, "
            "columns are matched by name and the label columns may be left "
            "out)",
            label_column=given,
            schema=CSVSchema.from_dict(made) if k else base, **kwargs))
    X, _, info = reads[0]
    if any(y is None for _, y, _ in reads):
        return X, None, info, None
    labelled = np.logical_and.reduce([r[2].labelled for r in reads])
    Y = np.empty((int(labelled.sum()), len(reads)), dtype=np.int64)
    for k, (_, y, read) in enumerate(reads):
        full = np.zeros(read.labelled.shape[0], dtype=y.dtype)
        full[read.labelled] = y
        name = _column_name(read.schema, columns[k])
        problem = _not_binary(full[labelled], name, info.lines[labelled])
        if problem:
            raise CLIError(problem)
        Y[:, k] = full[labelled]
    return X, Y, info, labelled


def prediction_lines(pred, names):
    """A multi-label model's predictions as CSV text: a header row of the
    label names, then one row of 0/1 per example."""
    rows = [",".join(names)]
    rows.extend(",".join("1" if v else "0" for v in row) for row in pred)
    return "".join(row + "\n" for row in rows)


def scores_text(pred, Y):
    """Accuracies of 0/1 predictions against the labels: per label
    (Hamming) and per row (every label right)."""
    import numpy as np

    right = np.asarray(pred) == np.asarray(Y)
    return (f"{100 * right.mean():.2f}% of the labels, "
            f"{100 * right.all(axis=1).mean():.2f}% of the rows (every "
            "label right)")
