"""Shared fixtures of the dataset tests."""

import pytest

from perceptrons.datasets import get_data_home


@pytest.fixture(scope="module")
def home():
    """The data home; the test is skipped when there is none."""
    try:
        return get_data_home()
    except FileNotFoundError as exc:
        pytest.skip(f"shared data not available: {exc}")
