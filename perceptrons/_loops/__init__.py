"""Compiled numba loops: one module per algorithm family.

Loops take only ndarrays and scalars, mutate preallocated state in place and
return counts. Nothing here imports scikit-learn or performs I/O. A data
matrix reaches a primal loop as ``(X_data, X_indices, X_indptr)``: the 2-D
matrix and empty index arrays for dense input, the three CSR arrays
otherwise; the loops are compiled once per layout (see
:mod:`perceptrons._loops._common`). The dual loops take the flat form
``(data, indices, indptr, n_features, is_dense)`` of
:func:`perceptrons.utils.validation.as_flat_loop_arrays`.
"""
