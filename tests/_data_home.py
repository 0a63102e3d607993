"""Tests that need the shared data folder skip without it."""

import pytest


def skip_without_data_home():
    """The data home (``../shared/data`` or ``PERCEPTRONS_DATA``); skips
    the calling test when it is not found: what reads real data sets, or
    renders reports that name them, needs it (README: such tests skip)."""
    from perceptrons.datasets import get_data_home

    try:
        return get_data_home()
    except FileNotFoundError as exc:
        pytest.skip(f"the shared data folder is not found: {exc}")
