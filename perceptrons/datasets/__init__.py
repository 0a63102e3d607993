"""Benchmark data: loaders for the papers' real data sets and generators of
synthetic data with a known separator.

The real data are read in place from the folder given by
:func:`get_data_home` (argument, ``PERCEPTRONS_DATA``, or a ``shared/data``
folder next to the repository); nothing is downloaded or copied.
:func:`find_data_file` looks a relative path up there, as the command line
does with its data file arguments.

* :mod:`.catalogue`: :func:`load_named`, the paper data sets by name;
* :mod:`.svmlight`, :mod:`.uci_csv`, :mod:`.images`: one reader per file
  format (svmlight/LIBSVM; UCI CSV with nominal attributes one-hot, and the
  :class:`CSVSchema` of :mod:`._csv_schema` that reads a test file as its
  training file; MNIST's IDX and the USPS ``.npz``);
* :mod:`.synthetic`: generators of separable data with a known separator
  (and the sparse-target sets of Brotto, Gentile & Vitale).
"""

from ._home import DATA_HOME_ENV, find_data_file, get_data_home
from ._files import sniff_format
from .catalogue import NAMED_DATASETS, load_named
from .images import load_idx
from .svmlight import dump_svmlight, load_svmlight
from .synthetic import (
    make_khardon_wachman,
    make_separable,
    make_sparse_target,
    make_unit_circle,
)
from .uci_csv import HANDLE_MISSING, CSVSchema, load_csv

__all__ = [
    "CSVSchema",
    "DATA_HOME_ENV",
    "HANDLE_MISSING",
    "NAMED_DATASETS",
    "dump_svmlight",
    "find_data_file",
    "get_data_home",
    "load_csv",
    "load_idx",
    "load_named",
    "load_svmlight",
    "make_khardon_wachman",
    "make_separable",
    "make_sparse_target",
    "make_unit_circle",
    "sniff_format",
]
