"""Checks on the repository itself: the import graph and the quick start."""

import ast
import pathlib
import re

from tests._readme import README, code_blocks

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "perceptrons"

# What each part of the package may import (STYLE.md: utils <- _loops <-
# models <- experiments <- cli; datasets imports utils only).
# registry.py names modules as strings and imports them only when asked, so
# every part may read it. Every subpackage and top-level module is listed:
# a new one fails test_every_part_has_rules until it is given its rules.
ALLOWED = {
    "registry": {"registry"},
    "utils": {"utils"},
    "_loops": {"_loops", "utils"},
    "datasets": {"datasets", "utils", "_loops"},
    "bounds": {"bounds", "utils", "_loops"},
    "models": {"models", "_loops", "utils", "registry"},
    "persistence": {"persistence", "registry", "models", "utils"},
    "experiments": {"experiments", "models", "datasets", "bounds", "utils",
                    "_loops", "persistence", "registry"},
    "streaming": {"streaming", "datasets", "utils"},
    "evaluation": {"evaluation"},
    "river": {"river", "models", "registry"},
    "distributed": {"distributed", "models", "datasets", "utils",
                    "persistence", "registry"},
    "precompile": {"precompile", "registry"},
    "cli": {"cli", "experiments", "models", "datasets", "bounds", "utils",
            "persistence", "registry", "streaming", "distributed",
            "precompile"},
}


def _internal_imports(path):
    tree = ast.parse(path.read_text())
    rel = path.relative_to(PACKAGE).parts
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(rel[:-1])[: len(rel) - node.level]
                mod = (node.module or "").split(".")
                parts = base + [p for p in mod if p]
                yield parts[0] if parts else None
            elif node.module and node.module.startswith("perceptrons."):
                yield node.module.split(".")[1]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("perceptrons."):
                    yield alias.name.split(".")[1]


def _part_files(part):
    folder = PACKAGE / part
    if folder.is_dir():
        return sorted(folder.rglob("*.py"))
    return [PACKAGE / f"{part}.py"]


def test_every_part_has_rules():
    parts = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    parts |= {p.name for p in PACKAGE.iterdir()
              if p.is_dir() and (p / "__init__.py").exists()}
    assert parts == set(ALLOWED), sorted(parts ^ set(ALLOWED))


def test_import_direction():
    bad = []
    for part, allowed in ALLOWED.items():
        for path in _part_files(part):
            for target in _internal_imports(path):
                if target is not None and target not in allowed:
                    bad.append(f"{path.relative_to(ROOT)} imports {target}")
    assert not bad, "\n".join(bad)


#: A file longer than this, or a class longer than the other, is a room that
#: holds more than one responsibility (issue #36): split it by what lives
#: there.
MAX_FILE_LINES, MAX_CLASS_LINES = 800, 400
#: Compiled training entry points of the loops (``*_epoch``/``*_pass`` that
#: a module exports): one per algorithm family, plus the active-set driver.
MAX_LOOP_ENTRY_POINTS = 10


def test_no_file_or_class_outgrows_its_room():
    too_long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        n_lines = len(text.splitlines())
        if n_lines > MAX_FILE_LINES:
            too_long.append(f"{path.relative_to(ROOT)}: {n_lines} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                size = node.end_lineno - node.lineno + 1
                if size > MAX_CLASS_LINES:
                    too_long.append(f"{path.relative_to(ROOT)}: class "
                                    f"{node.name}, {size} lines")
    assert not too_long, "\n".join(too_long)


def _exported(path):
    """The names a module's ``__all__`` lists (empty without one)."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(
                getattr(t, "id", None) == "__all__" for t in node.targets):
            return [elt.value for elt in node.value.elts]
    return []


def test_one_compiled_entry_point_per_algorithm_family():
    """The passes the models call (``*_epoch``, ``*_pass``; not the helpers
    that begin a pass or register one)."""
    entry_points = sorted(
        f"{path.stem}.{name}" for path in (PACKAGE / "_loops").glob("*.py")
        for name in _exported(path)
        if name.endswith(("_epoch", "_pass"))
        and not name.startswith(("begin_", "register_")))
    assert len(entry_points) <= MAX_LOOP_ENTRY_POINTS, entry_points


def test_loops_import_no_sklearn():
    for path in (PACKAGE / "_loops").rglob("*.py"):
        assert "sklearn" not in path.read_text(), path


def _readme_commands():
    """The quick start's command lines (tests/_readme.py reads the README's
    code; tests/cli/test_readme.py and tests/test_readme_python.py run it)."""
    (block,) = [text for heading, text in code_blocks(README, "bash")
                if heading == "Quick start"]
    return [line for line in block.splitlines()
            if line.strip() and not line.startswith("#")]


def test_quick_start_has_two_commands_and_ci_runs_the_test_one():
    commands = _readme_commands()
    assert len(commands) == 2
    install_and_run, install_and_test = commands
    assert "perceptrons demo" in install_and_run
    assert "pytest" in install_and_test
    ci = (ROOT / ".ci" / "run").read_text()
    assert install_and_test in ci.splitlines()


def test_the_full_benchmark_run_writes_every_section():
    """``benchmarks/run_all.py`` runs one script per marked section of
    BENCHMARKS.md, and every benchmark script with a section is in it: a
    new section cannot be left out of the full run, nor a script run for a
    section that is gone."""
    text = (ROOT / "BENCHMARKS.md").read_text()
    sections = set(re.findall(r"^<!-- BEGIN (\S+) -->$", text, re.M))
    assert sections == set(re.findall(r"^<!-- END (\S+) -->$", text, re.M))
    source = (ROOT / "benchmarks" / "run_all.py").read_text()
    run = dict(ast.literal_eval(
        source.split("SCRIPTS = ", 1)[1].split("\n\n", 1)[0]))
    written = {"run_all"}
    for script in run:
        path = ROOT / "benchmarks" / f"{script}.py"
        assert path.exists(), script
        named = re.search(r'^SECTION = "([^"]+)"|publish\(report, "([^"]+)"',
                          path.read_text(), re.M)
        written.add(named.group(1) or named.group(2))
    assert written == sections
    unrun = {p.stem for p in (ROOT / "benchmarks").glob("bench_*.py")
             if "--write" in p.read_text()} - set(run)
    assert unrun == set()


def test_the_build_resolves_the_runtime_numba():
    """setup.py's precompilation runs in the build's environment: it needs
    what fitting imports, under the bounds the install resolves, so that
    the numba that compiles is the numba that loads (else the cache is
    ignored)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    build = set(project["build-system"]["requires"])
    runtime = set(project["project"]["dependencies"])
    needed = {r for r in runtime if re.split(r"[<>=!~ ]", r)[0] in
              ("numpy", "scipy", "numba", "scikit-learn", "joblib",
               "threadpoolctl")}
    assert len(needed) == 6 and needed <= build, sorted(needed - build)
