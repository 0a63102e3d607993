"""Malformed sparse input is refused before anything follows its index
arrays: every estimator's entry points, the bound functions, the
hypotheses of a voted run, parameter mixing and the --stream cache blocks
(issue #26, item 3)."""

import struct
import warnings
import zlib

import numpy as np
import pytest
import scipy.sparse as sp

from perceptrons import bounds
from perceptrons.distributed import ParameterMixing
from perceptrons.experiments.hypotheses import hypothesis_predictions
from perceptrons.streaming import fit_file
from perceptrons.streaming._cache import _layout, _read_cache_meta
from perceptrons.utils.validation import check_sparse_structure
from tests import _registry as reg


def _data(n=40, d=6, n_classes=3, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    X[rng.rand(n, d) < 0.4] = 0.0
    X[:, 0] += 0.1  # no empty row: indptr attacks move real entries
    return sp.csr_matrix(X), rng.randint(n_classes, size=n)


def _attack(X, kind):
    """A copy of CSR ``X`` with one index array made hostile."""
    X = X.copy()
    if kind in ("big", "negative", "n_features"):
        X.indices[3] = {"big": 10**6, "negative": -7,
                        "n_features": X.shape[1]}[kind]
    elif kind == "indptr_decreasing":
        X.indptr[5] = X.indptr[4] - 1
    elif kind == "indptr_past_end":
        X.indptr[-1] += 50
    else:
        X.indptr[2] = 10**7
    return X


ATTACKS = ["big", "negative", "n_features", "indptr_decreasing",
           "indptr_past_end", "indptr_huge"]


def _estimators():
    """Each estimator class with its defaults, and every kernel variant."""
    return reg.decision_cases()


@reg.mark()
@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("cls, params", list(_estimators()))
@pytest.mark.parametrize("entry", ["fit", "partial_fit", "predict",
                                   "decision_function"])
def test_every_entry_point_refuses_malformed_csr(cls, params, entry):
    X, y = _data()
    for kind in ATTACKS:
        bad = _attack(X, kind)
        est = cls(**{"max_iter": 2, "random_state": 0, **params})
        if entry in ("predict", "decision_function"):
            est.fit(X, y)
        elif entry == "partial_fit":
            est.partial_fit(X, y, classes=np.unique(y))
        with pytest.raises(ValueError, match=r"^X: (a )?CSR "):
            if entry == "fit":
                est.fit(bad, y)
            elif entry == "partial_fit":
                est.partial_fit(bad, y)
            else:
                getattr(est, entry)(bad)


@pytest.mark.parametrize("fmt", ["csc", "coo"])
def test_other_formats_checked_before_their_conversion(fmt):
    """scipy's conversion to CSR writes through a CSC or COO matrix's row
    indices: they are checked first."""
    from perceptrons import KernelPerceptron

    X, y = _data(n_classes=2)
    bad = X.asformat(fmt)
    if fmt == "coo":
        bad.row[3] = 10**6
    else:
        bad.indices[3] = 10**6
    with pytest.raises(ValueError, match=f"X: a {fmt.upper()} row index is "
                                         "1000000"):
        KernelPerceptron().fit(bad, y)
    check_sparse_structure(X.asformat(fmt))  # a good one passes


def test_voted_hypotheses_refuse_malformed_csr():
    from perceptrons import Perceptron

    X, y = _data(n_classes=2)
    est = Perceptron(hypothesis="voted", max_iter=2, random_state=0).fit(X, y)
    for kind in ATTACKS:
        bad = _attack(X, kind)
        for hypothesis in ("last", "longest"):
            with pytest.raises(ValueError, match="^X: "):
                est.decision_function(bad, hypothesis=hypothesis)
        with pytest.raises(ValueError, match="^X: "):
            hypothesis_predictions(est, bad)


@pytest.mark.parametrize("call", [
    lambda X, y: bounds.radius(X),
    lambda X, y: bounds.multiclass_radius(X),
    lambda X, y: bounds.directional_radius(X),
    lambda X, y: bounds.augment(X),
    lambda X, y: bounds.mistake_bounds(X, y, np.ones(X.shape[1]) / 3, 0.1),
    lambda X, y: bounds.hinge_losses(X, y, np.ones(X.shape[1]) / 3, 0.1),
])
def test_bound_functions_refuse_malformed_csr(call):
    X, y = _data(n_classes=2)
    y = np.where(y > 0, 1, -1)
    call(X, y)  # the good matrix works
    for kind in ATTACKS:
        with pytest.raises(ValueError, match="^X: "):
            call(_attack(X, kind), y)


def test_parameter_mixing_checks_before_slicing_shards():
    from perceptrons import Perceptron

    X, y = _data(n_classes=2)
    for kind in ATTACKS:
        with pytest.raises(ValueError, match="^X: "):
            ParameterMixing(Perceptron(), n_shards=2).fit(_attack(X, kind), y)


# ---------------------------------------------------------------- cache
def _cache(tmp_path):
    X, y = _data(n=60, n_classes=2)
    from sklearn.datasets import dump_svmlight_file

    path = tmp_path / "d.svm"
    dump_svmlight_file(X, y, str(path), zero_based=True)
    cache = tmp_path / "d.pcache"
    from perceptrons import Perceptron

    fit_file(Perceptron(max_iter=2), path, cache=cache, chunk_bytes=512)
    return path, cache


def _tamper_block(cache, k, edit):
    """Edit block ``k``'s arrays with ``edit(labels, indptr, indices)`` and
    recompute its checksum in the block table, as an attacker would."""
    meta = _read_cache_meta(cache)
    offset, n_rows, nnz, itemsize, _ = meta["table"][k].tolist()
    starts, size = _layout(n_rows, nnz, itemsize)
    raw = bytearray(cache.read_bytes())
    block = raw[offset:offset + size]
    index = np.dtype(f"<i{itemsize}")
    labels = np.frombuffer(block, "<f8", n_rows, starts[0]).copy()
    indptr = np.frombuffer(block, index, n_rows + 1, starts[1]).copy()
    indices = np.frombuffer(block, index, nnz, starts[2]).copy()
    edit(labels, indptr, indices)
    for arr, start in ((labels, starts[0]), (indptr, starts[1]),
                       (indices, starts[2])):
        block[start:start + arr.nbytes] = arr.tobytes()
    raw[offset:offset + size] = block
    row = meta["table_at"] + 8 * (5 * k + 4)
    raw[row:row + 8] = struct.pack("<q", zlib.crc32(bytes(block)))
    cache.write_bytes(bytes(raw))


@pytest.mark.parametrize("edit, words", [
    (lambda lab, ptr, idx: idx.__setitem__(3, 10**6), "column index"),
    (lambda lab, ptr, idx: idx.__setitem__(3, -7), "column index"),
    (lambda lab, ptr, idx: ptr.__setitem__(2, 10**6), "indptr"),
    (lambda lab, ptr, idx: ptr.__setitem__(-1, ptr[-1] - 1), "indptr"),
    (lambda lab, ptr, idx: lab.__setitem__(0, 7.0), "label 7"),
])
def test_tampered_cache_block_with_a_valid_checksum_is_refused(
        tmp_path, edit, words):
    from perceptrons import Perceptron

    path, cache = _cache(tmp_path)
    _tamper_block(cache, 1, edit)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the cache is reused, not rebuilt
        with pytest.raises(ValueError) as err:
            fit_file(Perceptron(max_iter=2), path, cache=cache,
                     chunk_bytes=512)
    message = str(err.value)
    assert str(cache.name) in message and "block 1" in message
    assert words in message and "--no-cache" in message
