"""Compiled numba loops: one module per algorithm family.

Loops take only ndarrays, scalars and tuples of them, mutate preallocated
state in place and return counts. Nothing here imports scikit-learn or
performs I/O. A data matrix reaches a primal loop as
``(X_data, X_indices, X_indptr)``: the 2-D matrix and empty index arrays
for dense input, the three CSR arrays otherwise; the loops are compiled once
per layout (see :mod:`perceptrons._loops._common`). The dual loops take four
tuples, ``data, kernel, support, cache``, built once per call and read by
the shared kernel layer :mod:`perceptrons._loops.support` (the support set,
the kernel-row cache and the BLAS-block engine); :mod:`.mercer` holds the
kernel functions themselves.

* primal: :mod:`.perceptron` and :mod:`.multiclass` (Khardon & Wachman's
  Figure 2, one-vs-rest and prototypes), :mod:`.ballseptron`,
  :mod:`.margin` (PDM/PFM and the active-set driver), :mod:`.romma`;
* dual: :mod:`.perceptron_dual`, :mod:`.ballseptron_dual`;
* shared: :mod:`._common` (rows, dots, prefetching), :mod:`.hypotheses`
  (Figure 2's bookkeeping), :mod:`.voted` (voted prediction);
* input: :mod:`.svmlight_text` (svmlight text parsed from a byte array, for
  the out-of-core reader).
"""
