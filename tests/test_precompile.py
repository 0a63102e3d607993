"""The cache the build compiles (:mod:`perceptrons.precompile`, run by
``setup.py``): a later process's first fit loads it and compiles nothing
(issue #39.5)."""

import os
import subprocess
import sys

#: A fresh process's first calls, as precompile makes them (defaults,
#: dense float64, three classes then two), on other rows; prints how many
#: functions numba compiled.
FIRST_CALLS = """
import sys, warnings
import numpy as np
from numba.core import event
import perceptrons
cls = getattr(perceptrons, sys.argv[1])
rng = np.random.default_rng(1)
X = rng.normal(size=(200, 5))
warnings.simplefilter("ignore")
with event.install_recorder("numba:compile") as rec:
    for k in (3, 2):
        y = rng.integers(0, k, 200)
        est = cls().fit(X, y)
        est.predict(X)
        est.decision_function(X)
print(sum(1 for _, e in rec.buffer if e.is_start))
"""


def _run(args, env):
    done = subprocess.run([sys.executable, *args], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_precompiled_first_fit_compiles_nothing(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path),
           "PYTHONWARNINGS": "ignore"}
    env.pop("NUMBA_DISABLE_JIT", None)
    out = _run(["-m", "perceptrons.cli", "precompile", "--only", "nherd"],
               env)
    assert "NHERD()" in out and "in all" in out
    assert int(_run(["-c", FIRST_CALLS, "NHERD"], env)) == 0
    # The count is real: an estimator left out compiles its own loop.
    assert int(_run(["-c", FIRST_CALLS, "AROW"], env)) > 0
