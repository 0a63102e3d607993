r"""LIBLINEAR's dual coordinate descent (DCD) as the baseline of the PDM paper.

Panagiotakopoulos & Tsampouka (ALT 2011), Sec. 5, compare PDM with DCD
(Hsieh et al., 2008) through LIBLINEAR. This module runs it through the
official Python binding (PyPI ``liblinear-official``, module
``liblinear.liblinearutil``; install the ``reproduce`` extra) and measures
the solution the way PDM's is measured.

The hard-margin problem in the extended space
---------------------------------------------
For inseparable data the paper places every instance in a space extended by
one dimension per instance, ``y_k = [l_k x_k, l_k ρ, l_k Δ e_k]`` (footnote
2): augmentation ρ for the bias and distance Δ along the k-th extra axis.
The hard-margin problem in that space,

.. math:: \min \tfrac12\|u\|^2 \quad\text{s.t.}\quad u\cdot y_k \ge 1,

has the dual ``min_α ½ αᵀ(Q + Δ² I)α − Σα``, ``α ≥ 0``, with
``Q_ij = l_i l_j ([x_i, ρ]·[x_j, ρ])``, and primal solution
``u = Σ_k α_k y_k = [w, b, Δ l_1 α_1, …, Δ l_m α_m]``. LIBLINEAR's
L2-regularized L2-loss SVC (``-s 1``, dual) minimises
``½‖[w, b]‖² + C Σ_k ξ_k²`` with ``ξ_k = max(0, 1 − l_k(w·x_k + bρ))``
(the bias column ρ comes from ``-B ρ`` and is regularised); its dual is
``min_α ½ αᵀ(Q + I/(2C))α − Σα``. With ``C = 1/(2Δ²)`` the two duals are
the same function — the paper's equivalence of the hard margin in the
extended space with the 2-norm soft margin ``‖w‖² + Δ⁻² Σ ξ²`` — so
DCD-L2 solves PDM's problem (:func:`fit_dcd_l2`). The same dual is obtained
by the L1-loss solver (``-s 3``) run on the explicitly extended data
``[x_k, Δ e_k]`` with ``C = ∞`` (the upper bound α ≤ C never binds):
DCD-L1 of the paper (:func:`fit_dcd_l1`). Both make the same coordinate
steps (``G = l_i w·x_i − 1 + Δ² α_i`` and ``Q̄_ii = ‖x_i‖² + ρ² + Δ²`` in
both), so for the same random order they produce the same iterates.

The extension coordinates of a DCD-L2 solution
----------------------------------------------
LIBLINEAR returns only ``[w, b]``. The extended vector needs, in addition,
the extension block ``Δ l_k α_k``. The binding does not expose α, so it is
reconstructed from the KKT condition of the L2-loss problem: stationarity of
the Lagrangian in ξ_k gives ``2C ξ_k = α_k``, i.e. ``α_k = ξ_k / Δ²`` with
the slack ``ξ_k = max(0, 1 − l_k(w·x_k + bρ))`` of the returned (w, b).
Hence ``u·y_k = l_k(w·x_k + bρ) + Δ² α_k = max(1, l_k(w·x_k + bρ))`` and

.. math:: \gamma'_d = \frac{\min_k \max(1, l_k(w\cdot x_k + b\rho))}
          {\sqrt{\|w\|^2 + b^2 + \Delta^{-2}\sum_k \xi_k^2}}.

At the exact optimum this is the solver's own α; for a solution stopped at
LIBLINEAR's tolerance it is the extension that the solver's (w, b) calls
for, which is never worse than the solver's current α (it is a feasible
vector of the extended space, so γ'_d ≤ γ_d still holds) and is typically a
little larger. For DCD-L1 on the explicitly extended data the solver's own
extension coordinates are in its weight vector and are used as they are
(``α_k = l_k w_{n+k} / Δ``); that is how the paper's Table 2 reports both.

``directional_margin`` computes ``min_k u·y_k / ‖u‖`` exactly as
:class:`perceptrons.PDM` computes ``directional_margin_`` (there the extension block is
``Δ l_k c_k``, c_k the update counts): pass ``alpha=c`` to reproduce it.

LIBLINEAR's own log (printed by its C code) is captured during a second
``train`` with the same seed and parsed for the outer iteration count and
its "reaching max number of iterations" warning (``DCDResult.info``), which
its dual solvers stop at without reaching the tolerance; the timed ``train``
runs quiet (``-q``), so printing the log is not counted.

Randomness: LIBLINEAR draws its coordinate order from the C library's
``rand()``; the global C generator is reseeded (``srand(seed)``) before
each training call so that repeated runs are identical.
"""

import ctypes
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

__all__ = ["DCDResult", "available", "directional_margin", "extend",
           "fit_dcd_l1", "fit_dcd_l2", "liblinear_version", "signed_labels",
           "MISSING_MESSAGE"]

#: Shown instead of the DCD rows when the binding is absent.
MISSING_MESSAGE = ("not run: LIBLINEAR's Python binding is not installed "
                   "(pip install 'perceptrons[reproduce]' or "
                   "pip install liblinear-official)")

#: C used for "C = ∞" of DCD-L1 on the extended data.
C_INFINITY = 1e12


def _liblinearutil():
    from liblinear import liblinearutil

    return liblinearutil


def available():
    """True when ``liblinear.liblinearutil`` can be imported."""
    try:
        _liblinearutil()
    except ImportError:
        return False
    return True


def liblinear_version():
    """Version of the installed ``liblinear-official``, or None."""
    try:
        from importlib.metadata import version

        return version("liblinear-official")
    except Exception:  # noqa: BLE001 - metadata only
        return None


def signed_labels(y):
    """Map two classes to ``l ∈ {-1, +1}`` (+1 for the larger label)."""
    y = np.asarray(y)
    classes = np.unique(y)
    if classes.shape[0] != 2:
        raise ValueError(f"need exactly two classes, got {classes.shape[0]}")
    return np.where(y == classes[1], 1.0, -1.0)


def extend(X, delta):
    """``[X, Δ I]``: the data of the extended space, as CSR (footnote 2)."""
    X = sp.csr_matrix(X, dtype=np.float64)
    m = X.shape[0]
    E = sp.csr_matrix((np.full(m, float(delta)), np.arange(m),
                       np.arange(m + 1)), shape=(m, m))
    return sp.hstack([X, E], format="csr")


@dataclass
class DCDResult:
    """A LIBLINEAR solution in the notation of :class:`perceptrons.PDM`.

    ``w`` is the weight vector on the original features, ``b`` the
    augmented coordinate of a (so the decision function is ``w·x + ρ b``),
    ``alpha`` the dual variable of each row in the extended space (the
    extension block of u is ``Δ l_k α_k``), ``seconds`` the wall time of
    LIBLINEAR's quiet ``train`` call alone (the data conversion to
    LIBLINEAR's format is made before the clock starts).
    """

    solver: str
    w: np.ndarray
    b: float
    alpha: np.ndarray
    seconds: float
    C: float
    options: str
    alpha_source: str
    info: dict = field(default_factory=dict)


def _seed_c_rand(seed):
    try:
        ctypes.CDLL(None).srand(int(seed))
    except (OSError, AttributeError):  # pragma: no cover - non-POSIX
        pass


class _CStdout:
    """Redirect file descriptor 1 (LIBLINEAR's C ``printf``) to a file."""

    def __enter__(self):
        sys.stdout.flush()
        self._file = tempfile.TemporaryFile(mode="w+b")
        self._saved = os.dup(1)
        os.dup2(self._file.fileno(), 1)
        return self

    def __exit__(self, *exc):
        try:
            ctypes.CDLL(None).fflush(None)
        except (OSError, AttributeError):  # pragma: no cover
            pass
        os.dup2(self._saved, 1)
        os.close(self._saved)
        self._file.seek(0)
        self.text = self._file.read().decode("utf-8", "replace")
        self._file.close()
        return False


def _solver_log(text):
    iters = re.findall(r"#iter\s*=\s*(\d+)", text)
    return {"n_iter": int(iters[-1]) if iters else None,
            "max_iter_reached": "reaching max number of iterations" in text}


def _train(X, labels, options, seed):
    ll = _liblinearutil()
    X = sp.csr_matrix(X, dtype=np.float64)
    prob = ll.problem(labels, X)
    # Timed quiet (its log printing would count against LIBLINEAR), then
    # again, same seed and same result, for the log's iteration count.
    _seed_c_rand(seed)
    quiet = ll.parameter(options + " -q")
    t0 = time.perf_counter()
    model = ll.train(prob, quiet)
    seconds = time.perf_counter() - t0
    _seed_c_rand(seed)
    with _CStdout() as out:
        ll.train(prob, ll.parameter(options))
    info = _solver_log(out.text)
    n = model.get_nr_feature()
    w, intercept = model.get_decfun(0)
    w = np.asarray(w, dtype=np.float64)[:n]
    sign = 1.0 if model.get_labels()[0] == 1 else -1.0
    return sign * w, sign * float(intercept), seconds, info


def _check(rho, delta, eps):
    if not rho > 0:
        raise ValueError("LIBLINEAR's bias needs rho > 0")
    if not delta > 0:
        raise ValueError("delta must be > 0")
    if not eps > 0:
        raise ValueError("eps must be > 0")


def fit_dcd_l2(X, y, delta, *, rho=1.0, eps=0.01, seed=1):
    """DCD-L2: ``-s 1 -c 1/(2Δ²) -B ρ -e eps`` on the original data.

    Returns
    -------
    DCDResult
        ``alpha`` reconstructed as ``ξ_k / Δ²`` (see the module docstring).
    """
    _check(rho, delta, eps)
    labels = signed_labels(y)
    C = 1.0 / (2.0 * delta * delta)
    options = f"-s 1 -c {C!r} -B {float(rho)!r} -e {float(eps)!r}"
    w, intercept, seconds, info = _train(X, labels, options, seed)
    b = intercept / rho
    f = np.asarray(sp.csr_matrix(X) @ w).ravel() + intercept
    xi = np.maximum(0.0, 1.0 - labels * f)
    return DCDResult("DCD-L2", w, b, xi / (delta * delta), seconds, C,
                     options, "the slacks of (w, b): α = 2Cξ = ξ/Δ² (KKT)",
                     info)


def fit_dcd_l1(X, y, delta, *, rho=1.0, eps=0.01, seed=1, C=C_INFINITY):
    """DCD-L1: ``-s 3 -c ∞ -B ρ -e eps`` on the extended data ``[X, Δ I]``.

    Returns
    -------
    DCDResult
        ``w`` restricted to the original features; ``alpha`` read from the
        solver's extension coordinates, ``α_k = l_k w_{n+k} / Δ``.
    """
    _check(rho, delta, eps)
    labels = signed_labels(y)
    n = X.shape[1]
    options = f"-s 3 -c {float(C)!r} -B {float(rho)!r} -e {float(eps)!r}"
    w_ext, intercept, seconds, info = _train(extend(X, delta), labels,
                                             options, seed)
    full = np.zeros(n + X.shape[0])
    full[:w_ext.shape[0]] = w_ext
    alpha = labels * full[n:] / delta
    return DCDResult("DCD-L1", full[:n], intercept / rho, alpha, seconds,
                     float(C), options, "solver's extension coordinates", info)


def directional_margin(X, y, w, b, *, rho=1.0, delta=None, alpha=None):
    """Directional and geometric margin of (w, b) on the extended data.

    ``u = [w, b, Δ l_1 α_1, …, Δ l_m α_m]`` and ``y_k = [l_k x_k, l_k ρ,
    l_k Δ e_k]``, so ``u·y_k = l_k(w·x_k + ρb) + Δ² α_k``; the directional
    margin is ``min_k u·y_k / ‖u‖`` (``γ'_d``, :attr:`PDM.directional_margin_`) and the
    geometric one divides by ‖u‖ without b (:attr:`PDM.geometric_margin_`).

    Parameters
    ----------
    X : array or sparse matrix of shape (m, n)
    y : array of shape (m,), two classes
    w : array of shape (n,)
    b : float
        The augmented coordinate (decision function ``w·x + ρ b``).
    rho : float, default=1.0
    delta : float or None
        Δ of the extension; None: no extension (alpha is ignored).
    alpha : array of shape (m,) or None
        Dual variables (``α_k ≥ 0``; for PDM the update counts c_k). None:
        reconstructed from the slacks, ``α_k = ξ_k / Δ²`` (DCD-L2's KKT).

    Returns
    -------
    (float, float)
        ``(γ'_d, γ')``.
    """
    labels = signed_labels(y)
    w = np.asarray(w, dtype=np.float64).ravel()
    f = X @ w
    f = np.asarray(f).ravel() + rho * float(b)
    ay = labels * f
    ext_sq = 0.0
    if delta is not None:
        if alpha is None:
            alpha = np.maximum(0.0, 1.0 - ay) / (delta * delta)
        alpha = np.asarray(alpha, dtype=np.float64).ravel()
        ay = ay + delta * delta * alpha
        ext_sq = delta * delta * float(alpha @ alpha)
    w_sq = float(w @ w)
    low = float(ay.min())
    norm = np.sqrt(w_sq + float(b) ** 2 + ext_sq)
    norm_geo = np.sqrt(w_sq + ext_sq)
    return (low / norm if norm > 0 else 0.0,
            low / norm_geo if norm_geo > 0 else 0.0)
