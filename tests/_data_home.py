"""Tests that need the shared data folder skip without it."""

import pytest


def skip_without_data_home():
    """Skip the calling test unless the data home (``../shared/data`` or
    ``PERCEPTRONS_DATA``) is found: what reads real data sets, or renders
    reports that name them, needs it (README: such tests skip)."""
    from perceptrons.datasets import get_data_home

    try:
        get_data_home()
    except Exception:  # noqa: BLE001 - any reason it is not there
        pytest.skip("the shared data folder is not found (set "
                    "PERCEPTRONS_DATA)")
