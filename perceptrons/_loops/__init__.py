"""Compiled numba loops: one module per algorithm family.

Loops take only ndarrays and scalars, mutate preallocated state in place and
return counts. Nothing here imports scikit-learn or performs I/O. A data
matrix reaches a loop as ``(X_data, X_indices, X_indptr, n_features,
is_dense)``: for dense input ``X_data`` is the C-contiguous matrix raveled
(a view, no copy) and the index arrays are empty; for CSR input they are the
matrix's own arrays (see :func:`perceptrons.utils.validation.as_loop_arrays`).
"""
