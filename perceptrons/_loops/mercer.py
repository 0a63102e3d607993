"""Mercer kernels of the dual perceptrons: compiled rows and Python Gram blocks.

Three kernels, named by the public ``kernel=`` parameters:

* linear: ``k(x, z) = <x, z>``;
* poly: ``k(x, z) = (γ <x, z> + c0)^degree``;
* rbf: ``k(x, z) = exp(-γ ‖x - z‖²)``, with
  ``‖x - z‖² = ‖x‖² + ‖z‖² - 2<x, z>`` clipped at 0 (as scikit-learn's
  ``euclidean_distances``).

Every kernel value is a function of ``<x, z>``, ``‖x‖²`` and ``‖z‖²``
(:func:`kernel_from_dot`), so one inner product per pair serves all three.
The compiled functions read a data matrix as ``(data, indices, indptr,
n_features, is_dense)`` (see :mod:`perceptrons._loops`) and never densify CSR
input: a CSR row is scattered into a dense work vector once, and each partner
row is then a gather over its own non-zeros. :func:`gram_block` is the
Python-level counterpart for prediction: one BLAS product ``A @ B.T`` per
block, transformed in place.

Dense inner products: one fixed order
-------------------------------------
Every inner product of two dense rows that the compiled code computes is the
same sum, the chain of fused multiply-adds in feature order::

    s = 0;  s = fma(a[k], b[k], s)  for k = 0, 1, ..., d - 1

whatever computes it: one pair (:func:`chain_dot`), one row against many
(:func:`dense_dots`, a few chains interleaved) or a block of rows against
the support vectors packed in panels (:func:`panel_kernel_values`, a
register-blocked kernel that runs the chains of a 4-row,
``PANEL_WIDTH``-column tile side by side in SIMD registers, then turns the
tile into kernel values; :mod:`perceptrons._loops.support` uses it for its
blocks). Each element of a tile is its own chain, so the tile's shape, the
element's position in it, the vector width and the block around it change
nothing: a pair gets the same bits from every path. No BLAS is involved, so
neither the OpenBLAS kernel nor its thread count changes a bit (an element
of an OpenBLAS product depends on the product's shape, its thread count and
the kernel OpenBLAS picks for the CPU). ``fma`` is LLVM's ``llvm.fmuladd``,
no fast-math flags: fused on CPUs with FMA (x86-64 since Haswell, arm64),
a multiply and an add elsewhere (or with ``NUMBA_CPU_NAME=generic``), the
same on every path of one machine.
The functions that compute these sums say ``fastmath=False`` explicitly:
numba compiles a function without a ``fastmath`` option with its caller's
flags (and caches that version); ``reassoc`` on the ``fma`` calls would let
LLVM split a chain into vector partial sums. The tile kernel is as fast
as OpenBLAS's dgemm (50 vs 43 GFLOP/s, one Zen 4 core, 128 x 2048 x 256),
but runs on one thread. CSR rows are summed over the partner's non-zeros
in index order (:func:`fill_kernel_values`).
"""

import llvmlite.binding as llvm_binding
import numpy as np
from llvmlite import ir
from numba import config, njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from ._common import FASTMATH, renamed, row_sq_norms

KERNEL_LINEAR = 0
KERNEL_POLY = 1
KERNEL_RBF = 2

KERNELS = {"linear": KERNEL_LINEAR, "poly": KERNEL_POLY, "rbf": KERNEL_RBF}


# Every top-level function here (and the dual loops, which inline the
# helpers) is compiled with ``fastmath=FASTMATH`` (see
# :mod:`perceptrons._loops._common`); the inlined helpers take their caller's
# flags. The support set, the kernel-row cache and the BLAS blocks that
# compute the dual loops' kernel rows live in :mod:`perceptrons._loops.support`.


@njit(cache=True, inline="always")
def dot_n(a, b, n):
    """``sum_j a[j] * b[j]`` for ``j < n``.

    Pass row *views* (``data[base:base + n]``), not a base offset: with an
    index ``base + j`` where ``base`` was loaded from memory, numba's
    negative-index wraparound check stays in the loop and blocks
    vectorisation (4x slower on 64-feature rows).

    Parameters
    ----------
    a, b : ndarray of shape (>= n,), float64
    n : int

    Returns
    -------
    float
    """
    s = 0.0
    for j in range(n):
        s += a[j] * b[j]
    return s


@njit(cache=True, inline="always")
def kernel_from_dot(dot, sq_a, sq_b, kernel, degree, gamma, coef0):
    """Kernel value from ``<x, z>`` and the squared norms of x and z.

    Parameters
    ----------
    dot, sq_a, sq_b : float
        ``<x, z>``, ``‖x‖²``, ``‖z‖²`` (the norms are read by "rbf" only).
    kernel : int
        One of ``KERNEL_LINEAR``, ``KERNEL_POLY``, ``KERNEL_RBF``.
    degree : int
    gamma, coef0 : float

    Returns
    -------
    float
    """
    if kernel == KERNEL_LINEAR:
        return dot
    if kernel == KERNEL_POLY:
        base = gamma * dot + coef0
        out = 1.0
        for _ in range(degree):
            out *= base
        return out
    d2 = sq_a + sq_b - 2.0 * dot
    if d2 < 0.0:
        d2 = 0.0
    return np.exp(-gamma * d2)


# ------------------------------------------------------ dense inner products
def _simd_doubles():
    """Doubles per SIMD register of the CPU numba compiles for: 8 with
    AVX-512, else 4. It sets the shape of a tile, never a result."""
    if config.CPU_NAME:  # NUMBA_CPU_NAME (e.g. "generic" for portable caches)
        features = config.CPU_FEATURES or ""
    else:
        features = llvm_binding.get_host_cpu_features().flatten()
    return 8 if "+avx512f" in features.split(",") else 4


#: Doubles per SIMD vector of the tile kernel (8 with AVX-512, else 4).
SIMD_WIDTH = _simd_doubles()
#: Rows of a tile of :func:`panel_kernel_values` (the tile kernel takes
#: its four rows' starts).
TILE_ROWS = 4
#: Panels of one task of :func:`panel_kernel_values`: 8 x 24 columns, a
#: 1.2 MB group of panels on MNIST (within a core's 2 MB L2 here).
PANELS_PER_TASK = 8
#: Support vectors per panel, the columns of a tile: 4 x 3 vectors of
#: accumulators (12 of the 16 AVX2 or 32 AVX-512 registers); 4 x 24 and
#: 8 x 16 were the fastest on Zen 4 (50 GFLOP/s against OpenBLAS's 43).
PANEL_WIDTH = 3 * SIMD_WIDTH


def _fmuladd(builder, ty):
    """LLVM's ``llvm.fmuladd`` for ``ty`` (double or a vector of doubles)."""
    suffix = ("f64" if isinstance(ty, ir.DoubleType)
              else f"v{ty.count}f64")
    return cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(ty, [ty, ty, ty]),
        f"llvm.fmuladd.{suffix}")


def _fma_intrinsic(typingctx, a, b, c):
    """``a * b + c``, rounded once where the CPU has FMA (module notes)."""
    if not all(t == types.float64 for t in (a, b, c)):
        return None

    def codegen(context, builder, sig, args):
        return builder.call(_fmuladd(builder, ir.DoubleType()), list(args))

    return types.float64(a, b, c), codegen


def _tile_intrinsic(typingctx, a, a_0, a_1, a_2, a_3, p, p_start, d, g,
                    g_start, g_stride):
    """One tile of :func:`panel_kernel_values`, in LLVM vector code.

    ``g[g_start + r * g_stride + c] = Σ_k a[a_r + k]
    p[p_start + k * PANEL_WIDTH + c]`` for ``r < TILE_ROWS`` (the rows start
    at ``a_0, ..., a_3``, anywhere in ``a``),
    ``c < PANEL_WIDTH``, each element the chain of fused multiply-adds over
    ``k = 0, ..., d - 1`` (module notes): its accumulator holds it alone, a
    lane of a SIMD register that the loop over k updates with one
    ``llvm.fmuladd`` per step. ``a``, ``p``, ``g``: C-contiguous float64
    arrays addressed flat, unchecked (the caller checks the bounds).
    """
    f64 = types.float64
    arrays = (a, p, g)
    if not all(isinstance(t, types.Array) and t.dtype == f64
               and t.layout == "C" for t in arrays):
        return None
    ints = (a_0, a_1, a_2, a_3, p_start, d, g_start, g_stride)
    if not all(isinstance(t, types.Integer) for t in ints):
        return None
    sig = types.void(a, a_0, a_1, a_2, a_3, p, p_start, d, g, g_start,
                     g_stride)

    def codegen(context, builder, sig, args):
        n_vec = PANEL_WIDTH // SIMD_WIDTH
        vec = ir.VectorType(ir.DoubleType(), SIMD_WIDTH)
        i32 = ir.IntType(32)
        fma = _fmuladd(builder, vec)
        _, a_0, a_1, a_2, a_3, _, p_start, d, _, g_start, g_stride = [
            context.cast(builder, v, t, types.intp)
            if isinstance(t, types.Integer) else v
            for v, t in zip(args, sig.args)]

        def data(k):
            return context.make_array(sig.args[k])(context, builder,
                                                   args[k]).data

        def const(n):
            return context.get_constant(types.intp, n)

        a_rows = [builder.gep(data(0), [start])
                  for start in (a_0, a_1, a_2, a_3)]
        p_base = builder.gep(data(5), [p_start])
        acc = [[cgutils.alloca_once(builder, vec) for _ in range(n_vec)]
               for _ in range(TILE_ROWS)]
        zero = ir.Constant(vec, [0.0] * SIMD_WIDTH)
        for row in acc:
            for slot in row:
                builder.store(zero, slot)
        splat = ir.Constant(ir.VectorType(i32, SIMD_WIDTH), [0] * SIMD_WIDTH)
        with cgutils.for_range(builder, d) as loop:
            k = loop.index
            p_k = builder.gep(p_base, [builder.mul(k, const(PANEL_WIDTH))])
            columns = [builder.load(builder.bitcast(
                builder.gep(p_k, [const(v * SIMD_WIDTH)]), vec.as_pointer()),
                align=8) for v in range(n_vec)]
            for r in range(TILE_ROWS):
                x = builder.load(builder.gep(a_rows[r], [k]))
                x = builder.insert_element(ir.Constant(vec, ir.Undefined), x,
                                           ir.Constant(i32, 0))
                x = builder.shuffle_vector(x, ir.Constant(vec, ir.Undefined),
                                           splat)
                for v in range(n_vec):
                    builder.store(builder.call(fma, [
                        x, columns[v], builder.load(acc[r][v])]), acc[r][v])
        g_base = builder.gep(data(8), [g_start])
        for r in range(TILE_ROWS):
            g_row = builder.gep(g_base, [builder.mul(g_stride, const(r))])
            for v in range(n_vec):
                builder.store(builder.load(acc[r][v]), builder.bitcast(
                    builder.gep(g_row, [const(v * SIMD_WIDTH)]),
                    vec.as_pointer()), align=8)
        return context.get_dummy_value()

    return sig, codegen


if config.DISABLE_JIT:
    def fma(a, b, c):
        """Plain Python (``NUMBA_DISABLE_JIT=1``): ``a * b + c``, not fused."""
        return a * b + c

    def _tile(a, a_0, a_1, a_2, a_3, p, p_start, d, g, g_start, g_stride):
        """Plain Python: the tile's chains, unfused as :func:`fma` here."""
        a, g = a.reshape(-1), g.reshape(-1)
        panel = p[p_start:p_start + d * PANEL_WIDTH].reshape(d, PANEL_WIDTH)
        starts = np.array([a_0, a_1, a_2, a_3])
        acc = np.zeros((TILE_ROWS, PANEL_WIDTH))
        for k in range(d):
            acc = a[starts + k][:, None] * panel[k] + acc
        for r in range(TILE_ROWS):
            start = g_start + r * g_stride
            g[start:start + PANEL_WIDTH] = acc[r]
else:
    fma = intrinsic(_fma_intrinsic)
    _tile = intrinsic(_tile_intrinsic)


@njit(cache=True, fastmath=False)
def chain_dot(a, b, n):
    """``Σ_{k < n} a[k] b[k]``, the chain of fused multiply-adds (module notes)."""
    s = 0.0
    for k in range(n):
        s = fma(a[k], b[k], s)
    return s


@njit(cache=True, fastmath=False)
def dense_dots(data, n_features, i, rows, lo, hi, out):
    """``out[p] = <x_i, x_rows[p]>`` for ``lo <= p < hi``, dense rows.

    Each value is the chain of :func:`chain_dot`, bit for bit (a chain
    takes four cycles a step, so eight partners run side by side).

    Parameters
    ----------
    data : ndarray of shape (n_samples * n_features,), float64
        The rows, flat.
    n_features, i : int
    rows : ndarray of shape (>= hi,), int64
    lo, hi : int
    out : ndarray of shape (>= hi,), float64
    """
    d = n_features
    a = data[i * d:(i + 1) * d]
    p = lo
    while p + 8 <= hi:
        j0, j1, j2, j3 = rows[p], rows[p + 1], rows[p + 2], rows[p + 3]
        j4, j5, j6, j7 = rows[p + 4], rows[p + 5], rows[p + 6], rows[p + 7]
        b0, b1 = data[j0 * d:(j0 + 1) * d], data[j1 * d:(j1 + 1) * d]
        b2, b3 = data[j2 * d:(j2 + 1) * d], data[j3 * d:(j3 + 1) * d]
        b4, b5 = data[j4 * d:(j4 + 1) * d], data[j5 * d:(j5 + 1) * d]
        b6, b7 = data[j6 * d:(j6 + 1) * d], data[j7 * d:(j7 + 1) * d]
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
        for k in range(d):
            x = a[k]
            s0 = fma(x, b0[k], s0)
            s1 = fma(x, b1[k], s1)
            s2 = fma(x, b2[k], s2)
            s3 = fma(x, b3[k], s3)
            s4 = fma(x, b4[k], s4)
            s5 = fma(x, b5[k], s5)
            s6 = fma(x, b6[k], s6)
            s7 = fma(x, b7[k], s7)
        out[p], out[p + 1], out[p + 2], out[p + 3] = s0, s1, s2, s3
        out[p + 4], out[p + 5], out[p + 6], out[p + 7] = s4, s5, s6, s7
        p += 8
    for q in range(p, hi):
        j = rows[q]
        out[q] = chain_dot(a, data[j * d:(j + 1) * d], d)


@njit(cache=True, fastmath=False)
def pack_panels(data, n_features, rows, lo, hi, panels):
    """Copy ``x_rows[p]``, ``lo <= p < hi``, into the panels of
    :func:`panel_kernel_values`.

    Slot p is column ``p % PANEL_WIDTH`` of panel ``p // PANEL_WIDTH``:
    ``panels[(p // W) * d * W + k * W + p % W] = x_rows[p][k]``
    (``W = PANEL_WIDTH``, ``d = n_features``).

    Parameters
    ----------
    data : ndarray of shape (n_samples * n_features,), float64
    n_features : int
    rows : ndarray of shape (>= hi,), int64
    lo, hi : int
    panels : ndarray of shape (>= ceil(hi / W) * d * W,), float64
    """
    d = n_features
    w = PANEL_WIDTH
    for p in range(lo, hi):
        j = rows[p]
        x = data[j * d:(j + 1) * d]
        out = panels[(p // w) * d * w + p % w:]
        for k in range(d):
            out[k * w] = x[k]


def panel_kernel_values(X, n_features, a_rows, n_rows, panels, t_lo, t_hi,
                        G, n_cols, sq_norms, kernel, b_rows, n_b):
    """Kernel values of rows of X and panel columns, a tile at a time.

    Each tile's inner products are computed first,
    ``G[r * n_cols + (t - t_lo) * W + c] = <x_{a_rows[r]}, column c of
    panel t>`` (``W = PANEL_WIDTH``) for ``r < n_rows`` and
    ``t_lo <= t < t_hi``, each the chain of :func:`chain_dot`, bit for bit,
    so that it does not depend on the tile, the rows or the panels computed
    with it; the rows are read where they are, not copied. Then, while the
    tile is still in the core's cache, its elements of column ``j < n_b``
    become kernel values, the transform of every path
    (:func:`kernel_from_dots`, then :func:`normalize_values`):
    ``k(x_{a_rows[r]}, x_{b_rows[j]})`` with ``j = (t - t_lo) * W + c``.
    A row r with ``a_rows[r] = -1`` pads a tile: it repeats the tile's
    first row as inner products (never read).

    Parameters
    ----------
    X : ndarray of shape (n_samples * n_features,), float64
        The rows, flat (:func:`perceptrons.utils.validation.as_flat_loop_arrays`).
    n_features : int
    a_rows : ndarray of shape (>= n_rows,), int64
        The row of X of each row of G, or -1 (padding, not the first of its
        tile).
    n_rows : int
        A multiple of ``TILE_ROWS``.
    panels : ndarray, float64
        Packed by :func:`pack_panels` with the same ``n_features``.
    t_lo, t_hi : int
        Panels to compute.
    G : ndarray of shape (>= n_rows * n_cols,), float64
    n_cols : int
        ``>= (t_hi - t_lo) * W``.
    sq_norms : ndarray of shape (n_samples,), float64
        ``<x_j, x_j>`` of the rows of X.
    kernel : tuple
        ``(code, degree, gamma, coef0, norms)``
        (:mod:`perceptrons._loops.support`): the linear kernel with empty
        ``norms`` leaves the inner products.
    b_rows : ndarray of shape (>= n_b,), int64
        The row of X of each column of G.
    n_b : int
        Columns to transform, ``<= n_cols``.
    """
    d = n_features
    size = d * PANEL_WIDTH
    n_samples = X.shape[0] // d if d > 0 else 0
    if (n_rows % TILE_ROWS != 0 or a_rows.shape[0] < n_rows or t_lo < 0
            or t_hi * size > panels.shape[0]
            or n_cols < (t_hi - t_lo) * PANEL_WIDTH
            or n_rows * n_cols > G.shape[0]
            or n_b > n_cols or n_b > b_rows.shape[0]):
        raise ValueError("panel_kernel_values: arrays too small for the "
                         "tiles")
    for r in range(n_rows):
        i = a_rows[r]
        if i >= n_samples or (i < 0 and (i != -1 or r % TILE_ROWS == 0)):
            raise ValueError("panel_kernel_values: a row outside X")
    code, degree, gamma, coef0, norms = kernel
    # Tasks write disjoint parts of G, each the same computation whatever
    # thread runs it: panel_kernel_values_threaded splits them across
    # threads without changing a bit. A task is one row tile against a
    # group of at most PANELS_PER_TASK panels, then the transform of those
    # values: ranges long enough that the calls to the transform cost
    # little beside it (one panel a task made USPS's serial pass 10 %
    # slower). Tasks go group by group, so that the threads share a
    # group's panels in cache, and the groups are as even as whole panels
    # allow, so that the threads' equal shares of the tasks are equal
    # shares of the work.
    n_row_tiles = n_rows // TILE_ROWS
    n_panels = t_hi - t_lo
    n_groups = -(-n_panels // PANELS_PER_TASK)
    for q in prange(n_groups * n_row_tiles):
        group = q // n_row_tiles
        t0 = t_lo + n_panels * group // n_groups
        t1 = t_lo + n_panels * (group + 1) // n_groups
        r0 = (q % n_row_tiles) * TILE_ROWS
        # The tile's four rows, for every panel of the group.
        first = a_rows[r0]
        a_0 = first * d
        a_1 = _row_or(a_rows[r0 + 1], first) * d
        a_2 = _row_or(a_rows[r0 + 2], first) * d
        a_3 = _row_or(a_rows[r0 + 3], first) * d
        for t in range(t0, t1):
            _tile(X, a_0, a_1, a_2, a_3, panels, t * size, d, G,
                  r0 * n_cols + (t - t_lo) * PANEL_WIDTH, n_cols)
        lo = (t0 - t_lo) * PANEL_WIDTH
        hi = min((t1 - t_lo) * PANEL_WIDTH, n_b)
        if hi <= lo:
            continue
        for r in range(r0, r0 + TILE_ROWS):
            i = a_rows[r]
            if i < 0:
                continue
            values = G[r * n_cols:(r + 1) * n_cols]
            kernel_from_dots(sq_norms, code, degree, gamma, coef0, i, b_rows,
                             lo, hi, values)
            if norms.shape[0] > 0:
                normalize_values(norms, i, b_rows, lo, hi, values)


@njit(cache=True, inline="always")
def _row_or(row, other):
    """``row``, or ``other`` for a padding row (-1)."""
    return row if row >= 0 else other


#: :func:`panel_kernel_values` with its tiles split across numba's threads
#: (as many as ``numba.get_num_threads()``); the same values, bit for bit.
#: Not cached on its own: numba 0.68 writes a broken cache entry for a
#: function compiled while a function it calls that holds ``parallel=True``
#: code, directly or further down, was loaded from the cache, and loading
#: that entry in another process crashes it (segmentation fault; reproduced
#: with a module of two and of three functions). So this function and every
#: compiled function that calls it other than the loops themselves
#: (``support.fill_kernel_block``, ``ballseptron.support_gram``) say
#: ``cache=False``: compiled afresh whenever a loop is, they are linked into
#: the loop's own cache entry, which loads correctly
#: (tests/_loops/test_mercer.py checks that none is cached).
panel_kernel_values_threaded = njit(cache=False, parallel=True)(
    renamed(panel_kernel_values, "panel_kernel_values_threaded"))
panel_kernel_values = njit(cache=True, fastmath=False)(panel_kernel_values)



# scatter_row and clear_row are deliberately *not* inlined: when their stores
# into a float64 array were inlined beside the dense kernel loop, LLVM stopped
# vectorising that loop (53 ns instead of 5 ns per 64-feature pair).
@njit(cache=True)
def scatter_row(data, indices, indptr, i, dense_work):
    """``dense_work[indices] = x_i`` for a CSR row (undo with :func:`clear_row`)."""
    for p in range(indptr[i], indptr[i + 1]):
        dense_work[indices[p]] = data[p]


@njit(cache=True)
def clear_row(indices, indptr, i, dense_work):
    """Zero the entries :func:`scatter_row` wrote."""
    for p in range(indptr[i], indptr[i + 1]):
        dense_work[indices[p]] = 0.0


# Not inlined either: inlined at two call sites of the dual loop, beside its
# other stores, this loop lost its vectorisation the same way; as a call
# (once per row and step) it keeps it.
@njit(cache=True, fastmath=FASTMATH)
def fill_kernel_values(data, indices, indptr, n_features, is_dense,
                       sq_norms, kernel, degree, gamma, coef0,
                       i, rows, lo, hi, dense_work, out):
    """``out[p] = k(x_i, x_rows[p])`` for ``lo <= p < hi``.

    For CSR input the caller scatters row i into ``dense_work`` first.
    Dense rows get the inner products of :func:`dense_dots`, those of every
    dense path (module notes).
    """
    # Two passes: the inner products first, in a loop free of the kernel's
    # branches, then the transform of each value.
    if is_dense:
        dense_dots(data, n_features, i, rows, lo, hi, out)
    else:
        for p in range(lo, hi):
            j = rows[p]
            s = 0.0
            for q in range(indptr[j], indptr[j + 1]):
                s += dense_work[indices[q]] * data[q]
            out[p] = s
    kernel_from_dots(sq_norms, kernel, degree, gamma, coef0, i, rows, lo, hi,
                     out)


@njit(cache=True, fastmath=FASTMATH)
def kernel_from_dots(sq_norms, kernel, degree, gamma, coef0, i, rows, lo, hi,
                     out):
    """``out[p] = k(x_i, x_rows[p])`` from ``out[p] = <x_i, x_rows[p]>``.

    For ``lo <= p < hi``, in place (:func:`kernel_from_dot`). Every path
    of the compiled code transforms its inner products here, so that equal
    inner products give equal kernel values.
    """
    if kernel == KERNEL_LINEAR:
        return
    sq_i = sq_norms[i]
    for p in range(lo, hi):
        out[p] = kernel_from_dot(out[p], sq_i, sq_norms[rows[p]], kernel,
                                 degree, gamma, coef0)


@njit(cache=True, fastmath=FASTMATH)
def normalize_values(norms, i, rows, lo, hi, out):
    """``out[p] /= ‖φ(x_i)‖ ‖φ(x_rows[p])‖`` for ``lo <= p < hi``.

    A pair with a zero norm gets 0. Every path of the compiled code
    normalises its kernel values here, so that they differ only as the raw
    values do.

    Parameters
    ----------
    norms : ndarray of shape (n_samples,), float64
        ``sqrt(k(x_j, x_j))`` of the kernel before normalisation.
    i : int
    rows : ndarray of shape (>= hi,), int64
    lo, hi : int
    out : ndarray of shape (>= hi,), float64
        Raw kernel values, normalised in place.
    """
    r_i = norms[i]
    for p in range(lo, hi):
        r = r_i * norms[rows[p]]
        out[p] = out[p] / r if r > 0.0 else 0.0


@njit(cache=True, fastmath=FASTMATH)
def kernel_diag(sq_norms, kernel, degree, gamma, coef0):
    """``k(x_i, x_i)`` from the squared norms ``<x_i, x_i>``.

    Returns
    -------
    ndarray of shape (n_rows,), float64
    """
    out = np.empty(sq_norms.shape[0], dtype=np.float64)
    for i in range(sq_norms.shape[0]):
        out[i] = kernel_from_dot(sq_norms[i], sq_norms[i], sq_norms[i],
                                 kernel, degree, gamma, coef0)
    return out


# ---------------------------------------------------------------- Python level
def row_sq_norms_of(A):
    """``<a_i, a_i>`` for a dense ndarray or a CSR matrix (duck-typed).

    Parameters
    ----------
    A : ndarray of shape (n, d) or CSR matrix, float64

    Returns
    -------
    ndarray of shape (n,), float64
    """
    if hasattr(A, "indptr"):
        return row_sq_norms(A.data, A.indices, A.indptr, A.shape[0])
    A = np.ascontiguousarray(A, dtype=np.float64)
    empty = np.empty(0, dtype=np.int32)
    return row_sq_norms(A, empty, empty, A.shape[0])


def gram_block(A, B, kernel, degree, gamma, coef0, sq_a=None, sq_b=None):
    """Dense Gram block ``G[s, t] = k(a_s, b_t)`` through one BLAS product.

    Parameters
    ----------
    A : ndarray of shape (n_a, d) or CSR matrix
    B : ndarray of shape (n_b, d) or CSR matrix
    kernel : int
        One of ``KERNEL_LINEAR``, ``KERNEL_POLY``, ``KERNEL_RBF``.
    degree : int
    gamma, coef0 : float
    sq_a, sq_b : ndarray of shape (n_a,) and (n_b,), optional
        Squared row norms, computed if needed and not given ("rbf" only).

    Returns
    -------
    ndarray of shape (n_a, n_b), float64, C-contiguous
    """
    G = A @ B.T
    if hasattr(G, "toarray"):
        G = G.toarray()
    G = np.ascontiguousarray(G, dtype=np.float64)
    if kernel == KERNEL_LINEAR:
        return G
    if kernel == KERNEL_POLY:
        G *= gamma
        G += coef0
        return _int_power(G, int(degree))
    if sq_a is None:
        sq_a = row_sq_norms_of(A)
    if sq_b is None:
        sq_b = row_sq_norms_of(B)
    G *= -2.0
    G += sq_a[:, None]
    G += sq_b[None, :]
    np.maximum(G, 0.0, out=G)
    G *= -gamma
    np.exp(G, out=G)
    return G


def _int_power(G, degree):
    """``G ** degree`` by repeated multiplication, factor after factor.

    :func:`kernel_from_dot` writes the same product, but the dual loops
    compile it with reassociation, and LLVM groups the factors otherwise
    from degree 4 on: the two agree to rounding there, as the BLAS product
    ``G`` itself does with the loops' inner products.
    """
    if degree == 1:
        return G
    out = G.copy()
    for _ in range(degree - 1):
        out *= G
    return out
