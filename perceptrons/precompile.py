"""Ahead-of-time compilation: numba's cache filled with the loops a first
call needs (issue #39.5).

With an empty numba cache, a process's first ``fit`` compiles its loop and
helpers before it runs: 2.5-4.7 CPU s for a primal estimator, 24-85 s for
a kernel one (``benchmarks/bench_first_fit.py``); a later process loads
what was compiled in 0.2-0.4 s. The package's build (``setup.py``) runs
:func:`precompile` once, so that an installed package carries numba's
cache of the calls of :data:`WORKLOADS` beside its loops (the
``__pycache__`` folders numba writes next to the sources) and a user's
first call of them loads instead of compiling. ``perceptrons precompile``
fills the cache wherever numba's locators put it (``NUMBA_CACHE_DIR``, the
package's folders, the user-wide cache), e.g. after an install that
skipped it.

numba uses a cached function only on the CPU (name and features) and the
numba version that compiled it, and this package's loops only while their
sources are the ones compiled (:mod:`perceptrons._loops._freshness`): a
cache built where the package is installed serves that machine; anywhere
else numba ignores it and compiles, as without it.
"""

import time
import warnings

import numpy as np

from . import registry

__all__ = ["WORKLOADS", "precompile"]

#: The estimators, by class name, whose ``kernel`` names a kernel form;
#: each is also compiled with the RBF kernel. The Projectron and
#: KernelPerceptron are kernel models at their defaults.
KERNEL_FORMS = ("Perceptron", "Ballseptron", "PassiveAggressive", "ALMA",
                "HigherOrderPerceptron", "SecondOrderPerceptron")


def _datasets():
    """The inputs of a typical first call: dense float64 rows, int64
    labels, three classes and two."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    return [(X, rng.integers(0, 3, 60)), (X, rng.integers(0, 2, 60))]


def _workloads():
    for entry in registry.ESTIMATORS:
        yield entry.class_name, {}
        if entry.class_name in KERNEL_FORMS:
            yield entry.class_name, {"kernel": "rbf"}
    # The rest of ``perceptrons demo`` (the main job): the voted vote.
    yield "Perceptron", {"hypothesis": "voted"}


#: ``(class name, parameters)`` of every estimator compiled: each registry
#: estimator at its defaults, the kernel forms with an RBF kernel, and what
#: else ``perceptrons demo`` needs. Each is fitted on every input of
#: :func:`_datasets` and predicts.
WORKLOADS = tuple(_workloads())


def precompile(only=None, verbose=False):
    """Compile (or load from numba's cache) every call of :data:`WORKLOADS`.

    Parameters
    ----------
    only : iterable of str, optional
        Class names: only their workloads.
    verbose : bool, default=False
        Print each workload's CPU seconds.

    Returns
    -------
    dict
        CPU seconds by ``"ClassName(parameters)"``.
    """
    seconds = {}
    for class_name, params in WORKLOADS:
        if only is not None and class_name not in only:
            continue
        cls = registry.estimator_class(class_name)
        start = time.process_time()
        with warnings.catch_warnings():
            # Defaults that stop short on 60 rows say so; not the point here.
            warnings.simplefilter("ignore")
            for X, y in _datasets():
                est = cls(**params).fit(X, y)
                est.predict(X)
                est.decision_function(X)
        arguments = ", ".join(f"{k}={v!r}" for k, v in params.items())
        label = f"{class_name}({arguments})"
        seconds[label] = time.process_time() - start
        if verbose:
            print(f"{seconds[label]:7.2f} s  {label}", flush=True)
    return seconds
