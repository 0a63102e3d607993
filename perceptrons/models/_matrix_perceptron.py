"""What the higher- and second-order perceptrons share (not public).

Both keep a matrix beside the Perceptron's sum vector v and are mistake
driven, one-vs-rest, one pass per epoch (:class:`MatrixPerceptronBase`):

* **primal forms** (``kernel=None``) read the rows, normalised first when
  ``normalize=True`` (a copy of X divided by its row norms, so the loops
  see exactly the instances the papers assume); ``coef_`` is the weight
  vector w of each problem and the model has no intercept (the papers'
  hyperplanes pass through the origin: append a constant feature for one);
* **dual forms** (any kernel) run on the support layer of
  :mod:`perceptrons._loops.support`, whose normalised kernel
  ``k(x, z) / sqrt(k(x, x) k(z, z))`` is the feature-space normalisation.
  A ``partial_fit`` call puts the support vectors of the earlier calls in
  front of its rows, in their slots, so that every slot-indexed array of
  the model (coefficients, matrices) carries over unchanged.

All problems of a one-vs-rest fit see the same row at the same step: a
trial computes one kernel row (dual) or scatters one row (primal) for all
of them. ``n_mistakes_`` sums the problems' mistakes (the papers' "Train"
column).
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp

from .._loops.mercer import row_sq_norms_of
from ..utils._param_validation import Interval, StrOptions
from ..utils.validation import as_loop_arrays
from ._base import BaseOnlinePerceptron
from ._kernel import KernelMixin, linear_coef
from ._voted import _BLOCK_ROWS

__all__ = ["MatrixPerceptronBase", "divide_rows", "row_p_norms"]


def row_p_norms(X, p):
    """``‖x_i‖_p`` of every row (p >= 2; float64).

    Parameters
    ----------
    X : {ndarray, CSR matrix} of shape (n_samples, n_features)
    p : float

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    if sp.issparse(X):
        if p == 2.0:
            return np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        # Scaled by the row's largest |x_j| so that |x_j|^p cannot overflow.
        big = np.asarray(abs(X).max(axis=1).todense()).ravel()
        safe = np.where(big > 0, big, 1.0)
        scaled = sp.diags(1.0 / safe) @ abs(X)
        return big * np.asarray(scaled.power(p).sum(axis=1)).ravel() ** (1 / p)
    if p == 2.0:
        return np.sqrt(np.einsum("ij,ij->i", X, X))
    big = np.abs(X).max(axis=1) if X.shape[1] else np.zeros(X.shape[0])
    safe = np.where(big > 0, big, 1.0)
    return big * np.sum((np.abs(X) / safe[:, None]) ** p, axis=1) ** (1 / p)


def divide_rows(X, norms):
    """X with row i divided by ``norms[i]`` (a new array or CSR matrix)."""
    if sp.issparse(X):
        out = X.copy()
        out.data /= np.repeat(norms, np.diff(out.indptr))
        return out
    return X / norms[:, None]


class MatrixPerceptronBase(KernelMixin, BaseOnlinePerceptron):
    """Forms, normalisation, one-vs-rest and kernels of the matrix perceptrons."""

    _parameter_constraints = {
        **BaseOnlinePerceptron._parameter_constraints,
        **KernelMixin.KERNEL_CONSTRAINTS,
        "kernel": [StrOptions({"linear", "poly", "rbf"}), None],
        "normalize": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    #: Forms the class implements; the first is the primal default.
    _forms = ("primal", "dual")

    _model_state = BaseOnlinePerceptron._model_state + (
        "form_", "gamma_", "_kernel_code", "n_matrix_updates_", "n_mistakes_per_problem_",
        "coef_", "intercept_", "support_vectors_", "dual_coef_")

    # ----------------------------------------------------------- hooks
    def _norm_p(self):
        """The p of the norm the instances are normalised by."""
        return 2.0

    def _auto_form(self, n_features):
        return "dual" if self.kernel is not None else "primal"

    def _resolve_form(self, n_features):
        form = self.form
        if form == "auto":
            form = self._auto_form(n_features)
        if form not in self._forms:
            raise ValueError(f"form={form!r} is not one of "
                             f"{type(self).__name__}'s forms {self._forms}")
        if self.kernel is not None and form != "dual":
            raise ValueError(f"form={form!r} has no kernel; with "
                             f"kernel={self.kernel!r} use form='dual' or "
                             "'auto'")
        if self.kernel is None and form == "dual":
            raise ValueError("form='dual' keeps the model over kernel "
                             "values: pass a kernel (kernel='linear' for the "
                             "dual form of the linear model)")
        return form

    def _needs_row_sq_norms(self):
        # Only the kernels' k(x, x) reads them; the primal forms normalise
        # by row_p_norms, as prediction does.
        return self.kernel is not None

    def _allocate(self, call, n_classes):
        n_problems = self._n_problems()
        n_features = call.X.shape[1]
        self.form_ = self._resolve_form(n_features)
        if self.form_ == "dual":
            self._resolve_kernel(n_features)
        else:
            self.gamma_ = self._kernel_code = None
        self.n_matrix_updates_ = 0
        self.n_mistakes_per_problem_ = np.zeros(n_problems, dtype=np.int64)
        self.intercept_ = np.zeros(n_problems)
        if self.form_ == "dual":
            self.coef_ = None
            self.support_vectors_ = (
                sp.csr_matrix((0, n_features)) if sp.issparse(call.X)
                else np.zeros((0, n_features)))
            self.dual_coef_ = np.zeros((n_problems, 0))
        else:
            self.coef_ = np.zeros((n_problems, n_features))
            self.support_vectors_ = None
            self.dual_coef_ = None
        self._allocate_matrix(n_problems, n_features)

    def _begin_call(self, call):
        if self.form_ == "dual":
            self._begin_dual_call(call)
            return
        X = call.X
        if self.normalize:
            # The same norms as prediction's (_decision).
            norms = row_p_norms(X, self._norm_p())
            self._check_finite_norms(norms)
            # A zero row has no direction: it stays 0 (its margin is 0, a
            # mistake that changes nothing but the mistake count k).
            X = divide_rows(X, np.where(norms > 0, norms, 1.0))
        call.rows = as_loop_arrays(X)
        n_features = X.shape[1]
        call.x_work = np.zeros(n_features)
        call.nz_work = np.zeros(n_features, dtype=np.int64)
        call.stats = np.zeros(2, dtype=np.int64)
        call.counts = self.n_mistakes_per_problem_

    def _begin_dual_call(self, call):
        X, sq_norms = call.X, call.sq_norms
        n_pool = self.support_vectors_.shape[0]
        if n_pool:
            pool = self.support_vectors_
            if sp.issparse(X) != sp.issparse(pool):
                pool = sp.csr_matrix(pool) if sp.issparse(X) else pool.toarray()
            X = (sp.vstack([pool, X], format="csr") if sp.issparse(X)
                 else np.vstack([pool, X]))
            sq_norms = np.concatenate([row_sq_norms_of(pool), sq_norms])
        dual = self._new_kernel_call(X, sq_norms, call.n_passes, n_pool,
                                     normalized=self.normalize)
        if self.normalize:
            # ‖φ(x)‖ of the call's rows, as the kernel call normalises by.
            self._check_kernel_norms(dual.loop_args[1][4][n_pool:])
        n_problems = self.dual_coef_.shape[0]
        dual.coef = np.zeros((n_problems, X.shape[0]))
        dual.coef[:, :n_pool] = self.dual_coef_
        dual.n_pool = n_pool
        dual.stats = np.zeros(2, dtype=np.int64)
        dual.counts = self.n_mistakes_per_problem_
        self._begin_dual_matrix(dual)
        call.dual = dual

    def _check_kernel_norms(self, norms):
        zero = np.flatnonzero(~(norms > 0))
        if zero.size:
            raise ValueError(
                f"row {int(zero[0])} of X has k(x, x) = 0 ({zero.size} such "
                "rows): it cannot be normalised in feature space; drop those "
                "rows, use another kernel (e.g. coef0 > 0), or pass "
                "normalize=False")

    @staticmethod
    def _check_finite_norms(norms):
        if not np.isfinite(norms).all():
            row = int(np.flatnonzero(~np.isfinite(norms))[0])
            raise ValueError(f"the norm of row {row} of X overflows float64; "
                             "scale the input")

    def _run_epoch(self, call, targets, order):
        stats = call.dual.stats if self.form_ == "dual" else call.stats
        before = stats.copy()
        if self.form_ == "dual":
            dual = call.dual
            if not hasattr(dual, "targets"):
                dual.targets = np.concatenate(
                    [np.zeros(dual.n_pool, dtype=np.int64), targets])
            failed = self._dual_epoch(dual, order + dual.n_pool)
        else:
            failed = self._primal_epoch(call, targets, order)
        if failed:
            self._fail(failed - 1)
        n_mistakes, n_matrix = (stats - before).tolist()
        self.n_matrix_updates_ += n_matrix
        # Every mistake updates v: updates and mistakes are the same count.
        return n_mistakes, n_mistakes

    def _fail(self, step):
        raise ValueError(
            f"the matrix lost its precision at step {step} of epoch "
            f"{self.n_iter_ + 1} (its update divided by a non-positive or "
            f"non-finite number); {self._precision_remedy}")

    _precision_remedy = "scale the input"

    def _state_is_finite(self, call):
        ok = self._matrix_is_finite()
        if self.form_ == "dual":
            ok = ok and bool(np.isfinite(call.dual.coef).all())
        else:
            ok = ok and bool(np.isfinite(self.coef_).all())
        if not ok:
            raise ValueError(
                f"floating-point overflow at epoch {self.n_iter_}: the "
                f"weights are no longer finite; {self._precision_remedy}")
        return True

    def _end_call(self, call, targets):
        if self.form_ != "dual":
            return
        dual = call.dual
        m = dual.support_size
        self.support_vectors_ = dual.X[dual.support[:m]]
        self.dual_coef_ = np.ascontiguousarray(dual.coef[:, :m])
        self._end_dual_matrix(dual, m)
        if self.kernel == "linear":
            # The primal weights the coefficients stand for (of the
            # normalised support vectors when normalising).
            coef = self.dual_coef_
            if self.normalize:
                norms = np.sqrt(row_sq_norms_of(self.support_vectors_))
                coef = coef / np.where(norms > 0, norms, 1.0)
            self.coef_ = linear_coef(coef, self.support_vectors_)

    # ------------------------------------------------------------ prediction
    def _mixing_refusal(self):
        return (f"{type(self).__name__}'s state is a matrix updated "
                "multiplicatively on each mistake (and the mistakes' own "
                "instances): a weighted average of shards' matrices is not a "
                "state the algorithm can reach")

    def _decision(self, X):
        if self.form_ == "dual":
            return self._dual_decision(X)
        norms = None
        if self.normalize:
            norms = row_p_norms(X, self._norm_p())
        return self._primal_decision(X, norms)

    def _gram_blocks(self, X):
        """Gram blocks of X's rows against the support vectors.

        Normalised in feature space when ``normalize=True`` (0 where a
        norm is 0), as in training; the support vectors' norms are computed
        once for all blocks.

        Yields
        ------
        lo, hi : int
            The block's rows of X.
        G : ndarray of shape (hi - lo, n_support)
        """
        sv = self.support_vectors_
        sv_sq = row_sq_norms_of(sv)
        col = np.sqrt(self._kernel_diag(sv_sq)) if self.normalize else None
        for lo in range(0, X.shape[0], _BLOCK_ROWS):
            hi = min(lo + _BLOCK_ROWS, X.shape[0])
            block = X[lo:hi]
            G = self._gram_block(block, sv, sv_sq)
            if self.normalize:
                row = np.sqrt(self._kernel_diag(row_sq_norms_of(block)))
                scale = np.outer(row, col)
                G = np.divide(G, scale, out=np.zeros_like(G),
                              where=scale > 0)
            yield lo, hi, G

    def _diag_of(self, X):
        """``k(x, x)`` of the kernel in use for the rows of X."""
        d = self._kernel_diag(row_sq_norms_of(X))
        if self.normalize:
            return (d > 0).astype(np.float64)
        return d

