"""The one-pass label helpers of ``perceptrons._loops._common``."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from perceptrons._loops._common import few_distinct_values, label_codes


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint16, np.float32,
                                   np.float64])
def test_few_values_and_codes_are_unique_and_its_inverse(dtype):
    rng = np.random.default_rng(0)
    y = rng.choice(np.array([7, 2, 5, 3], dtype=dtype), 101)
    values = np.empty(16, dtype=dtype)
    n = few_distinct_values(y, values)
    classes = np.sort(values[:n])
    assert_array_equal(classes, np.unique(y))
    codes = np.empty(y.shape[0], dtype=np.int64)
    label_codes(y, classes, codes)
    assert_array_equal(classes[codes], y)


def test_too_many_values_or_nan_give_up():
    values = np.empty(4)
    assert few_distinct_values(np.arange(5.0), values) == -1
    assert few_distinct_values(np.arange(4.0), values) == 4
    y = np.array([0.0, np.nan, 1.0, np.nan, np.nan, np.nan, np.nan])
    assert few_distinct_values(y, values) == -1
