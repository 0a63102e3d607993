"""Crafted model files are refused or work; none crashes the process.

A seeded sample of :mod:`tests.fuzz._model_fuzz`'s crafted copies of one
saved model per estimator family and form (an index past the end, negative
or huge; a NaN or an infinity; a dtype, a shape, a node type changed; a
field dropped or added; a version changed), each loaded and used in a worker
process. The whole review (every case, with the loops compiled with numba's
bounds checks, so that a read or write past an array's end is an error
instead of a silent one) is marked slow::

    python -m pytest -m slow tests/fuzz/test_fuzz_states.py
    python -m tests.fuzz._model_fuzz --boundscheck   # prints the counts
"""

import os

import pytest

from tests.fuzz._model_fuzz import fuzz


def _check(counts, defects):
    assert counts["crashed"] == 0, defects
    assert defects == []
    # Most crafted files break the state, and are refused.
    assert counts["refused"] > counts["tried"] // 2, counts


def test_sample_of_crafted_states(tmp_path):
    counts, defects = fuzz(tmp_path, sample=12, seed=0)
    assert counts["tried"] == 12 * 16
    _check(counts, defects)


@pytest.mark.slow
def test_every_crafted_state_with_bounds_checks(tmp_path):
    env = {"NUMBA_BOUNDSCHECK": "1",
           "NUMBA_CACHE_DIR": os.fspath(tmp_path / "numba-cache")}
    counts, defects = fuzz(tmp_path, env=env)
    _check(counts, defects)
