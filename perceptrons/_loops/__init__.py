"""Compiled numba loops: one loop per algorithm, whatever the storage.

Loops take only ndarrays, scalars and (named) tuples of them, mutate
preallocated state in place and return counts. Nothing here imports
scikit-learn or performs I/O. A data matrix reaches a primal loop as
``(X_data, X_indices, X_indptr)``: the 2-D matrix and empty index arrays
for dense input, the three CSR arrays otherwise; the loops are compiled once
per layout (see :mod:`perceptrons._loops._common`). Weights reach a loop as
a *store* (:mod:`perceptrons._loops.storage`): weight rows over the
features (primal) or coefficients over a support set scored through a
Mercer kernel (dual, read through the kernel layer
:mod:`perceptrons._loops.support`; :mod:`.mercer` holds the kernels), and
each loop body is compiled once per storage, so that an algorithm is one
loop whatever its form.

Arrays travel to a loop's helpers one by one or inside a store; numba's
pruning of the reference counts that a helper call takes leaves some in the
sample loop when a helper with branches receives a tuple of arrays, and
those cost the simple loops 2-3x. :func:`._common.inline_call` says how the
``specialised`` helpers are compiled against that; timing every hot path
old against new (``benchmarks/bench_checkouts.py``) is what catches it.

* the algorithms: :mod:`.perceptron` (Khardon & Wachman's Figure 2, its
  rules in :mod:`.hypotheses`), :mod:`.ballseptron` (binary and
  prototypes), :mod:`.margin` (the pass of PDM/PFM and the active sets
  that also drive the passes of :mod:`.romma` and :mod:`.mpu`),
  :mod:`.matrix_perceptron` (the
  pass of :mod:`.higher_order` and :mod:`.second_order`);
* shared: :mod:`._common` (rows, dots, prefetching, the ``specialised``
  helpers), :mod:`.targets` (a problem's sign and the online mistake,
  of a class index or of a multi-label row), :mod:`.storage`,
  :mod:`.support`, :mod:`.mercer`, :mod:`.matrix_rows`, :mod:`.voted`
  (voted prediction);
* input: :mod:`.svmlight_text` (svmlight text parsed from a byte array, for
  the out-of-core reader).

numba's on-disk cache of every function here is keyed by the contents of
the whole folder (:mod:`._freshness`): helpers are inlined across files, so
an edit to any file makes every cached loop stale.
"""

from ._freshness import install as _install_cache_locators

_install_cache_locators()
