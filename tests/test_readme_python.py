"""The Python code of the README, of the documentation's home page and of
the user guide pages that hold whole examples runs as written: each
document's blocks in order, in one namespace (as a reader pasting them
into one session), from a folder of their own. A block that
reads the data home (``find_data_file``) is skipped when there is none; the
others need only the package and scikit-learn's bundled data."""

import pytest

from perceptrons.datasets import get_data_home
from tests._readme import DOCUMENTS, GUIDE_PAGES, code_blocks


def _has_data_home():
    try:
        get_data_home()
    except FileNotFoundError:
        return False
    return True


@pytest.mark.parametrize("document", DOCUMENTS + GUIDE_PAGES,
                         ids=lambda d: d.name)
def test_python_blocks_run_as_written(document, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # what the blocks write lands here
    blocks = code_blocks(document, "python")
    assert blocks
    namespace, skipped = {}, []
    for heading, code in blocks:
        if "find_data_file" in code and not _has_data_home():
            skipped.append(heading)
            continue
        exec(compile(code, f"{document.name}, {heading}", "exec"), namespace)
    if skipped:
        pytest.skip(f"no data home for the blocks of {skipped}")
