"""The paper data sets by name: where each sits in the data folder, how it is
read, and what it holds.

:func:`load_named` looks a name of :data:`NAMED_DATASETS` up in one table
(its files, relative to :func:`~perceptrons.datasets.get_data_home`, their
reader and a description) and returns a :class:`~sklearn.utils.Bunch`. The
readers are those of :mod:`.svmlight`, :mod:`.uci_csv` and :mod:`.images`;
the descriptions quote the row and attribute counts of Khardon & Wachman
(2007), Table 1 (cited in full in :mod:`.uci_csv`).
"""

from functools import partial

import numpy as np
from sklearn.utils import Bunch

from ._files import where
from ._home import DATA_HOME_ENV, get_data_home
from .images import read_mnist, read_usps
from .svmlight import load_svmlight
from .uci_csv import load_csv, read_promoters

__all__ = ["NAMED_DATASETS", "load_named"]

_KW = "Khardon & Wachman (2007), Sec. 3.1 and Table 1"

_ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education-num",
    "marital-status", "occupation", "relationship", "race", "sex",
    "capital-gain", "capital-loss", "hours-per-week", "native-country",
    "income",
]


# --------------------------------------------------------------------------
# Readers: each takes {file name: path} and handle_missing, and returns the
# arrays of the Bunch.
# --------------------------------------------------------------------------


def _read_libsvm(files, handle_missing, *, n_features):
    (path,) = files.values()
    X, y = load_svmlight(path, n_features=n_features, zero_based=False)
    return dict(X=X, y=y)


def _read_uci(files, handle_missing, *, label_column, drop_columns=None):
    (path,) = files.values()
    X, y, info = load_csv(
        path, label_column=label_column, drop_columns=drop_columns,
        handle_missing=handle_missing, return_info=True,
    )
    return dict(X=X, y=y, feature_names=info.feature_names)


def _read_promoters(files, handle_missing):
    (path,) = files.values()
    X, y, names = read_promoters(path)
    return dict(X=X, y=y, feature_names=np.array(names, dtype=str))


def _read_adult(files, handle_missing):
    train, test = files.values()
    X_train, y_train, info = load_csv(
        train, label_column=-1, handle_missing=handle_missing,
        column_names=_ADULT_COLUMNS, return_info=True,
    )
    X_test, y_test = load_csv(
        test, label_column=-1, handle_missing=handle_missing,
        skip_rows=1, categories=info.categories,
        column_names=_ADULT_COLUMNS,
    )
    return dict(X_train=X_train, y_train=y_train, X_test=X_test,
                y_test=np.char.rstrip(y_test, "."),
                feature_names=info.feature_names)


def _read_mnist(files, handle_missing):
    return read_mnist(files)


def _read_usps(files, handle_missing):
    (path,) = files.values()
    return read_usps(path)


# --------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------

_MNIST_FILES = [f"mnist/{part}-{kind}-idx{ndim}-ubyte.gz"
                for part in ("train", "t10k")
                for kind, ndim in (("images", 3), ("labels", 1))]

# name -> (files in the data folder, reader, description)
_CATALOGUE = {
    "a9a": (
        ["libsvm/a9a.gz"], partial(_read_libsvm, n_features=123),
        "LIBSVM 'a9a' (UCI Adult, binarised), training part: 32,561 x 123, "
        "labels -1/+1."),
    "a9a.t": (
        ["libsvm/a9a.t.gz"], partial(_read_libsvm, n_features=123),
        "LIBSVM 'a9a.t' (UCI Adult, binarised), test part: 16,281 x 123 "
        "(highest index present is 122), labels -1/+1."),
    "w8a": (
        ["libsvm/w8a.gz"], partial(_read_libsvm, n_features=300),
        "LIBSVM 'w8a' (Platt's web data), training part: 49,749 x 300, "
        "labels -1/+1; some rows have no features."),
    "breast-cancer-wisconsin": (
        ["uci/breast-cancer-wisconsin.data"],
        partial(_read_uci, label_column=-1, drop_columns=[0]),
        "UCI Breast Cancer Wisconsin (original): 699 rows, id + 9 integer "
        "attributes (1-10) + class (2 benign / 4 malignant); 16 '?' in "
        "column 6 (bare nuclei). K&W Table 1: 9 features, 699 examples, "
        "baseline 65.5."),
    "bupa": (
        ["uci/bupa.data"], partial(_read_uci, label_column=-1),
        "UCI Liver Disorders (BUPA): 345 rows, 6 numeric attributes; the "
        "label is the 7th column, the 'selector' (1: 145 / 2: 200), used as "
        "the class by convention. K&W Table 1: 6 features, 345 examples, "
        "baseline 58."),
    "wdbc": (
        ["uci/wdbc.data"], partial(_read_uci, label_column=1, drop_columns=[0]),
        "UCI Wisconsin Diagnostic Breast Cancer: 569 rows, id, diagnosis (M "
        "212 / B 357), 30 real attributes. K&W Table 1: 30 features, 569 "
        "examples, baseline 62.7."),
    "wpbc": (
        ["uci/wpbc.data"], partial(_read_uci, label_column=1, drop_columns=[0]),
        "UCI Wisconsin Prognostic Breast Cancer: 198 rows, id, outcome (N "
        "151 / R 47), 33 attributes (time, 30 cell features, tumour size, "
        "lymph-node status); 4 '?' in lymph-node status. K&W Table 1: 33 "
        "features, 198 examples, baseline 76.3."),
    "crx": (
        ["uci/crx.data"], partial(_read_uci, label_column=-1),
        "UCI Credit Approval: 690 rows, 15 attributes (6 numeric, 9 nominal, "
        "one-hot encoded into 46 attributes), class +/-; 37 rows contain "
        "'?'. K&W Table 1: 46 features, 690 examples, baseline 55.5."),
    "ionosphere": (
        ["uci/ionosphere.data"], partial(_read_uci, label_column=-1),
        "UCI Ionosphere: 351 rows, 34 numeric attributes (column 1 is "
        "constant 0), class g 225 / b 126. K&W Table 1: 34 features, 351 "
        "examples, baseline 64.4."),
    "sonar": (
        ["uci/sonar.all-data"], partial(_read_uci, label_column=-1),
        "UCI Connectionist Bench (Sonar, Mines vs. Rocks): 208 rows, 60 "
        "numeric attributes in [0, 1], class M 111 / R 97. K&W Table 1 "
        "('sonar.all-data'): 60 features, 208 examples, baseline 53.4."),
    "promoters": (
        ["uci/promoters.data"], _read_promoters,
        "UCI E. coli promoter gene sequences: 106 rows (+ 53 / - 53), each a "
        "57-nucleotide sequence one-hot encoded per position over (a, c, g, "
        "t): 228 binary attributes. Format: 'class,name,<TAB><TAB>sequence'; "
        "the name is dropped."),
    "adult": (
        ["uci/adult.data.gz", "uci/adult.test.gz"], _read_adult,
        "UCI Adult: training file adult.data (32,561 rows) and test file "
        "adult.test (16,281 rows; its first line '|1x3 Cross validator' is "
        "skipped and the trailing '.' of its labels removed); 6 numeric and "
        "8 nominal attributes, the nominal ones one-hot encoded with the "
        "training vocabulary. Labels '<=50K' / '>50K'. K&W Table 1: 105 "
        "features, 32561 examples, baseline 75.9 (reproduced with "
        "handle_missing='zero'; with the default 'drop', 30,162 training "
        "rows and 104 attributes remain)."),
    "mnist": (
        _MNIST_FILES, _read_mnist,
        "MNIST handwritten digits (LeCun, Cortes, Burges): 60,000 training "
        "and 10,000 test 28x28 images as rows of 784 float64 pixel values "
        "in 0..255, labels 0-9. K&W use the 60000/10000 split."),
    "usps": (
        ["usps/usps.npz"], _read_usps,
        "USPS handwritten digits (Hull 1994, as distributed with ESL), from "
        "usps.npz: 7,291 training and 2,007 test 16x16 images as rows of 256 "
        "float64 values in [0, 1] (= (ESL value + 1) / 2), labels 0-9. K&W "
        "use the 7291/2007 split."),
}

#: Names accepted by :func:`load_named`.
NAMED_DATASETS = tuple(sorted(_CATALOGUE))


def _data_file(home, relative):
    path = home / relative
    if not path.is_file():
        raise FileNotFoundError(
            f"Data file {where(path)} not found. The data folder in use is "
            f"{where(home)}; point the {DATA_HOME_ENV} environment variable "
            "(or data_home=...) at the folder that holds MANIFEST.md."
        )
    return path


def _descr(name, text, files):
    listed = ", ".join(files)
    return (
        f"{name}\n{'=' * len(name)}\n\n{text}\n\nFiles: {listed} (see the data "
        f"folder's MANIFEST.md for origins and checksums).\nUsed in: {_KW}."
    )


def load_named(name, data_home=None, *, handle_missing="drop"):
    """Load one of the paper benchmark data sets from the data folder.

    The files are read in place from the folder given by
    :func:`~perceptrons.datasets.get_data_home`; see its ``MANIFEST.md`` for
    origins and checksums.

    ============================  ===========================================
    name                          contents
    ============================  ===========================================
    ``a9a``, ``a9a.t``            LIBSVM, CSR, 123 features, y in {-1, +1}
    ``w8a``                       LIBSVM, CSR, 300 features, y in {-1, +1}
    ``breast-cancer-wisconsin``   id dropped, 9 attributes, y in {2, 4}
    ``bupa``                      6 attributes, y = "selector" in {1, 2}
    ``wdbc``, ``wpbc``            id dropped, y = column 1 ('M'/'B', 'N'/'R')
    ``crx``                       nominal attributes one-hot (46), y '+'/'-'
    ``ionosphere``, ``sonar``     34 / 60 numeric attributes, y string
    ``promoters``                 57 nucleotides one-hot (228), y '+'/'-'
    ``adult``                     train/test, nominal one-hot, y '<=50K'/'>50K'
    ``mnist``                     train 60000 / test 10000, 784 pixels 0..255
    ``usps``                      train 7291 / test 2007, 256 pixels in [0, 1]
    ============================  ===========================================

    Nominal attributes are translated to binary indicators as in Khardon &
    Wachman (2007), Sec. 3.1; the UCI labels are returned as in the file
    (map them to {-1, +1} as the experiment requires).

    Parameters
    ----------
    name : str
        One of :data:`NAMED_DATASETS` (case-insensitive).
    data_home : str or path-like, default=None
        The data folder; see :func:`~perceptrons.datasets.get_data_home`.
    handle_missing : {"drop", "error", "zero"}, default="drop"
        For the UCI CSV sets: what to do with rows holding a ``?``; see
        :func:`load_csv`. Khardon & Wachman's Table 1 counts (699, 690, 198,
        32561 rows) correspond to ``"zero"``. Ignored by the other sets.

    Returns
    -------
    Bunch
        Single-file sets: ``X`` (CSR for LIBSVM, else dense float64),
        ``y``, ``feature_names`` (CSV sets), ``DESCR``, ``filename``, ``name``.
        ``adult``, ``mnist`` and ``usps``: ``X_train``, ``y_train``,
        ``X_test``, ``y_test`` (dense float64 / labels), ``DESCR``,
        ``filenames``, ``name`` (and ``feature_names`` for ``adult``).

    Raises
    ------
    ValueError
        If ``name`` is unknown (the message lists the known names) or a file
        is malformed.
    FileNotFoundError
        If the data folder or a data file is missing; the message names the
        path and the ``PERCEPTRONS_DATA`` variable.

    Examples
    --------
    >>> from perceptrons.datasets import load_named
    >>> wdbc = load_named("wdbc")  # doctest: +SKIP
    >>> wdbc.X.shape  # doctest: +SKIP
    (569, 30)
    """
    if not isinstance(name, str) or name.lower() not in NAMED_DATASETS:
        raise ValueError(
            f"Unknown data set {name!r}; known names: {', '.join(NAMED_DATASETS)}."
        )
    name = name.lower()
    home = get_data_home(data_home)
    relatives, read, text = _CATALOGUE[name]
    files = {f: _data_file(home, f) for f in relatives}
    arrays = read(files, handle_missing)
    paths = [str(p) for p in files.values()]
    where_read = (dict(filename=paths[0]) if len(paths) == 1
                  else dict(filenames=paths))
    return Bunch(**arrays, DESCR=_descr(name, text, relatives), **where_read,
                 name=name)
