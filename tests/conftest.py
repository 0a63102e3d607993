"""What every test module shares: slow tests run on request only; tests
that read the shared data folder skip without it."""

import pytest

from tests._data_home import skip_without_data_home


@pytest.fixture
def data_home():
    """:func:`tests._data_home.skip_without_data_home` as a fixture."""
    return skip_without_data_home()


def pytest_collection_modifyitems(config, items):
    """Skip the tests marked ``slow`` unless ``-m`` names them (``python -m
    pytest -m slow``): the default run stays a few minutes."""
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
