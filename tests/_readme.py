"""The code of the README and of the documentation's home page, block by
block, for the tests that run it as written (``tests/test_readme_python.py``
runs the Python blocks, ``tests/cli/test_readme.py`` the shell commands,
``tests/test_repository.py`` checks the quick start against CI's)."""

import re
import shlex
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
HOME_PAGE = ROOT / "docs" / "index.rst"
#: The documents whose code must run as written.
DOCUMENTS = (README, HOME_PAGE)
#: User guide pages whose Python blocks are a whole example (the others'
#: are fragments over a reader's own X and y: alma, probabilities,
#: from_sklearn_passive_aggressive, out_of_core).
GUIDE_PAGES = tuple(ROOT / "docs" / "user_guide" / f"{name}.rst" for name in (
    "budget", "dask", "khardon_wachman", "model_files", "multilabel",
    "perceptron", "weights_and_online"))

# A fenced Markdown block, and a reST code block (its body indented).
_MARKDOWN = re.compile(r"^```(\w+)\n(.*?)^```", re.M | re.S)
_REST = re.compile(r"^\.\. code-block:: (\w+)\n((?:[ \t]*\n|[ \t]+\S.*\n)+)",
                   re.M)
_HEADING = re.compile(r"^#+ (.+)$|^(.+)\n[-=~^]{3,}$", re.M)


def code_blocks(path, language):
    """The ``language`` code blocks of a Markdown or reST file, in order.

    Returns
    -------
    list of (str, str)
        Each block's section heading (the last heading above it) and its
        text, dedented.
    """
    text = Path(path).read_text(encoding="utf-8")
    pattern = _REST if Path(path).suffix == ".rst" else _MARKDOWN
    matches = list(pattern.finditer(text))
    # headings outside the code ("# a comment" in a block is none)
    headings = [(h.start(), h.group(1) or h.group(2))
                for h in _HEADING.finditer(text)
                if not any(m.start() < h.start() < m.end() for m in matches)]
    blocks = []
    for match in matches:
        if match.group(1) == language:
            above = [name for at, name in headings if at < match.start()]
            blocks.append((above[-1] if above else "",
                           textwrap.dedent(match.group(2)).strip("\n") + "\n"))
    return blocks


def split_commands(line):
    """The commands of a shell line, comment dropped, split at ``&&``, each
    as its list of arguments (quotes resolved, so that two spellings of a
    command compare equal)."""
    commands = [[]]
    for token in shlex.split(line, comments=True):
        if token == "&&":
            commands.append([])
        else:
            commands[-1].append(token)
    return [command for command in commands if command]


def shell_commands(path):
    """Every command of the file's bash blocks, in order (see
    :func:`split_commands`).

    Returns
    -------
    list of (str, list of str)
        Each command's section heading and arguments.
    """
    return [(heading, command)
            for heading, block in code_blocks(path, "bash")
            for line in block.splitlines()
            for command in split_commands(line)]


def perceptrons_commands(path):
    """The ``perceptrons ...`` commands of the file's bash blocks, as the
    argument lists of :func:`perceptrons.cli.main`."""
    return [command[1:] for _, command in shell_commands(path)
            if command[0] == "perceptrons"]
