"""Benchmark data: loaders for the papers' real data sets and generators of
synthetic data with a known separator.

The real data are read in place from the folder given by
:func:`get_data_home` (argument, ``PERCEPTRONS_DATA``, or a ``shared/data``
folder next to the repository); nothing is downloaded or copied.
"""

from ._home import DATA_HOME_ENV, get_data_home
from .loaders import (
    NAMED_DATASETS,
    dump_svmlight,
    load_csv,
    load_idx,
    load_named,
    load_svmlight,
)
from .synthetic import make_khardon_wachman, make_separable, make_unit_circle

__all__ = [
    "DATA_HOME_ENV",
    "NAMED_DATASETS",
    "dump_svmlight",
    "get_data_home",
    "load_csv",
    "load_idx",
    "load_named",
    "load_svmlight",
    "make_khardon_wachman",
    "make_separable",
    "make_unit_circle",
]
