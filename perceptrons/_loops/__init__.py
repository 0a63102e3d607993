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

* the algorithms: :mod:`.perceptron` (Khardon & Wachman's Figure 2, its
  rules in :mod:`.hypotheses`), :mod:`.ballseptron` (binary and
  prototypes), :mod:`.margin` (the pass and active sets of PDM/PFM, whose
  other rule is :mod:`.romma`'s), :mod:`.matrix_perceptron` (the pass of
  :mod:`.higher_order` and :mod:`.second_order`);
* shared: :mod:`._common` (rows, dots, prefetching, the ``specialised``
  helpers), :mod:`.storage`, :mod:`.support`, :mod:`.mercer`,
  :mod:`.matrix_rows`, :mod:`.voted` (voted prediction);
* input: :mod:`.svmlight_text` (svmlight text parsed from a byte array, for
  the out-of-core reader).
"""
