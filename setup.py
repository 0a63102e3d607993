"""The build's one step beyond setuptools': numba's cache of the loops a
first call needs, compiled into the package as it is built (issue #39.5).

Everything else is in pyproject.toml. After the package's files are in
place (the build folder of a wheel, the source tree of an editable install),
``perceptrons precompile`` runs there with numba's cache beside the
sources, so the installed package carries it; see
:mod:`perceptrons.precompile`. ``PERCEPTRONS_PRECOMPILE=0`` skips it. A
failure leaves a package that compiles on first use, as without the step,
and says so.
"""

import os
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


def precompile(package_root):
    """Run the package's precompilation with ``package_root`` first on the
    path and numba's cache beside the sources."""
    if os.environ.get("PERCEPTRONS_PRECOMPILE", "1").strip() in ("0", ""):
        print("perceptrons: PERCEPTRONS_PRECOMPILE=0, numba's cache not "
              "built", file=sys.stderr)
        return
    env = dict(os.environ)
    # pip's isolated build passes its packages through PYTHONPATH: keep it.
    env["PYTHONPATH"] = os.pathsep.join(
        [package_root] + [p for p in [env.get("PYTHONPATH")] if p])
    for name in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT"):
        env.pop(name, None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # numba's files only, no .pyc
    print(f"perceptrons: compiling the loops into {package_root} "
          "(a few minutes; PERCEPTRONS_PRECOMPILE=0 skips)", file=sys.stderr,
          flush=True)
    done = subprocess.run(
        [sys.executable, "-m", "perceptrons.cli", "precompile"], env=env,
        cwd=package_root, check=False)
    if done.returncode != 0:
        print("perceptrons: WARNING: precompilation failed (exit "
              f"{done.returncode}); the first fit of each estimator will "
              "compile its loops", file=sys.stderr)


class BuildPyWithCache(build_py):
    """``build_py``, then :func:`precompile` where the package was put."""

    def run(self):
        super().run()
        editable = getattr(self, "editable_mode", False)
        precompile(ROOT if editable else os.path.abspath(self.build_lib))


setup(cmdclass={"build_py": BuildPyWithCache})
