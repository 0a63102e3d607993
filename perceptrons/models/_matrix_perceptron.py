"""What the higher- and second-order perceptrons share (not public).

Both keep a matrix beside the Perceptron's sum vector v, are mistake
driven, one-vs-rest, one pass per epoch, and run the one pass of
:func:`perceptrons._loops.matrix_perceptron.matrix_epoch`
(:class:`MatrixPerceptronBase`). Their state holds the model of the form in
use, one state type per algorithm and form, picked once when the state is
made; each form's model builds its loop store, its state after a call and
its scores:

* **primal forms** (``kernel=None``, :class:`PrimalForm`) read the rows,
  normalised first when ``normalize=True`` (a copy of X divided by its row
  norms, so the loops see exactly the instances the papers assume);
  ``coef_`` is the weight vector w of each problem and the model has no
  intercept (the papers' hyperplanes pass through the origin: append a
  constant feature for one);
* **dual forms** (any kernel, :class:`DualForm`) keep a
  :class:`~perceptrons.models._support.SupportPool` whose rows a call puts
  in front of its own, in their slots, so that every slot-indexed array of
  the model (coefficients, matrices) carries over unchanged; the support
  layer's normalised kernel ``k(x, z) / sqrt(k(x, x) k(z, z))`` is the
  feature-space normalisation.

All problems of a one-vs-rest fit see the same row at the same step: a
trial computes one kernel row (dual) or scatters one row (primal) for all
of them. ``n_mistakes_`` sums the problems' mistakes (the papers' "Train"
column).

Row weights (``sample_weight`` × ``class_weight``): a mistake on a row of
weight s adds s times its terms to the statistics, the matrix's and v's
(each algorithm's module says how); the prediction, the mistake test and
the mistake counts do not read the weight.
"""

import dataclasses
from numbers import Integral

import numpy as np
import scipy.sparse as sp

from .._loops.matrix_perceptron import matrix_epoch
from .._loops.mercer import KERNEL_LINEAR, row_sq_norms_of
from ..utils._param_validation import Interval, StrOptions
from ..utils.validation import as_loop_arrays
from ._base import BaseOnlinePerceptron
from ._stopping import STOPPING_CONSTRAINTS
from ._kernel import BLOCK_ROWS, KernelMixin, linear_coef
from ._state import FittedState, array, check_problems, scalar

__all__ = ["DualForm", "MatrixPerceptronBase", "MatrixState", "PrimalForm",
           "divide_rows", "grown", "row_p_norms"]


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


def grown(array, n, axis_from=1):
    """``array`` zero-padded to ``n`` entries along its last axis (slots)."""
    out = np.zeros(array.shape[:axis_from] + (n,), dtype=array.dtype)
    out[..., :array.shape[-1]] = array
    return out


@dataclasses.dataclass(frozen=True)
class MatrixState(FittedState):
    """What the fitted states of the matrix perceptrons share: the counters
    and the ``model`` of the form in use (a subclass declares ``model`` and
    the model type of each form, ``form_models``).

    Binds ``n_problems``.

    Attributes
    ----------
    form : str
        The form in use.
    n_matrix_updates : int
        Mistakes that updated the matrix, summed over problems.
    n_mistakes_per_problem : ndarray of shape (n_problems,)
        Each problem's mistakes (the k of HO's ``ρ_k = c/k``).
    """

    form: str = scalar("str", choices=("primal", "implicit", "dual"))
    n_matrix_updates: int = scalar("int", low=0)
    n_mistakes_per_problem: np.ndarray = array("int", ("n_problems",),
                                               low=0)

    form_models = {}

    def check(self, sizes, where):
        super().check(sizes, where)
        check_problems(sizes, where)
        want = self.form_models.get(self.form)
        if type(self.model) is not want:
            raise ValueError(f"{where}.model is a {type(self.model).__name__}"
                             f" but form is {self.form!r}")


class PrimalForm:
    """What a primal form's model does (a mixin of its state type, whose
    fields include ``w`` (n_problems, n_features) and ``v``)."""

    def begin_call(self, est, call):
        """The rows as the loops read them: normalised when the estimator
        normalises, scattered one at a time into a zeroed work row."""
        X = call.X
        if est.normalize:
            # The same norms as prediction's (_decision).
            norms = row_p_norms(X, est._norm_p())
            est._check_finite_norms(norms)
            # A zero row has no direction: it stays 0 (its margin is 0, a
            # mistake that changes nothing but the mistake count k).
            X = divide_rows(X, np.where(norms > 0, norms, 1.0))
        call.rows = as_loop_arrays(X)
        call.x_work = np.zeros(X.shape[1])
        call.nz_work = np.zeros(X.shape[1], dtype=np.int64)

    def padded(self, call, targets, order):
        """The call's targets and order as the loops index them."""
        return targets, order

    def padded_weights(self, call):
        """The call's row weights as the loops index them (empty: all 1)."""
        return call.weights

    def end_call(self, call, store):
        """The model after the call."""
        return self

    def weights(self):
        """The arrays whose finiteness the passes keep."""
        return [self.w, self.v]

    def public(self, est):
        """Public attributes of this form."""
        return {"coef_": self.w, "support_vectors_": None,
                "dual_coef_": None, "gamma_": None}

    def scores(self, est, X):
        """Raw scores of rows X, given their norms when normalising."""
        norms = row_p_norms(X, est._norm_p()) if est.normalize else None
        return est._primal_scores(self, X, norms)


class DualForm:
    """What a dual form's model does (a mixin of its state type, whose
    fields include ``kernel``, ``pool`` and ``coef`` (n_problems, n_pool)).

    A dual model declares the fields its loop store grows: ``slot_fields``,
    arrays by support slot (n_problems, n_pool), and ``matrix_fields``, the
    per-problem matrix arrays whose last entry counts the filled rows
    (``q = count[k]``); the store holds them as the tuple ``matrix_store``.
    """

    slot_fields = ("coef",)
    matrix_fields = ()
    matrix_store = None

    def check(self, sizes, where):
        count = getattr(self, self.matrix_fields[-1])
        if count.size and count.max() > sizes["q"]:
            raise ValueError(f"{where}.{self.matrix_fields[-1]} exceeds the "
                             "matrices kept")

    def matrix_copy(self):
        """The matrices as the loop store holds them (copies: the loop grows
        and fills them)."""
        return tuple(getattr(self, name).copy() for name in
                     self.matrix_fields)

    def end_call(self, call, store):
        """The model after the call: every support slot, the matrices cut
        to the filled rows of the fullest problem."""
        m = call.dual.support_size
        *matrices, count = getattr(store, self.matrix_store)
        q = int(count.max()) if count.size else 0
        fields = {name: np.ascontiguousarray(getattr(store, name)[:, :m])
                  for name in self.slot_fields}
        for name, value in zip(self.matrix_fields, matrices):
            fields[name] = np.ascontiguousarray(
                value[:, :q, :q] if value.ndim == 3 else value[:, :q])
        fields[self.matrix_fields[-1]] = count
        return self.replace(pool=self.kept_pool(call), **fields)

    def begin_call(self, est, call):
        """The pool's rows in front of the call's, the coefficients with the
        pool's in front (:class:`~perceptrons.models._support.KernelCall`)."""
        rows, sq = self.pool.in_front_of(call.X, call.sq_norms)
        kc = est._new_kernel_call(self.kernel, rows, sq, call.n_passes,
                                  self.pool.size, normalized=est.normalize)
        if est.normalize:
            # ‖φ(x)‖ of the call's rows, as the kernel call normalises by.
            est._check_kernel_norms(kc.norms[self.pool.size:])
        kc.coef = grown(self.coef, rows.shape[0])
        call.dual = kc

    def padded(self, call, targets, order):
        """The call's targets and order as the loops index them (after the
        pool's rows)."""
        return call.dual.padded(targets, order)

    def padded_weights(self, call):
        """The call's row weights as the loops index them (after the pool's
        rows)."""
        return call.dual.padded_weights(call.weights)

    def kept_pool(self, call):
        """The pool after the call: every support slot, in slot order (the
        matrices index slots)."""
        kc = call.dual
        return self.pool.kept(kc.X, kc.slots(), call.X.shape[0])

    def weights(self):
        return [self.coef]

    def public(self, est):
        coef = None
        if self.kernel.code == KERNEL_LINEAR:
            # The primal weights the coefficients stand for (of the
            # normalised support vectors when normalising).
            dual = self.coef
            if est.normalize:
                norms = np.sqrt(row_sq_norms_of(self.pool.X))
                dual = dual / np.where(norms > 0, norms, 1.0)
            coef = linear_coef(dual, self.pool.X)
        return {"coef_": coef, "support_vectors_": self.pool.X,
                "dual_coef_": self.coef, "gamma_": self.kernel.gamma}

    def scores(self, est, X):
        if self.coef.shape[1] == 0:
            return np.zeros((X.shape[0], self.coef.shape[0]))
        return est._dual_scores(self, X)

    def gram_blocks(self, est, X):
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
        sv = self.pool.X
        sv_sq = row_sq_norms_of(sv)
        col = np.sqrt(self.kernel.diag(sv_sq)) if est.normalize else None
        for lo in range(0, X.shape[0], BLOCK_ROWS):
            hi = min(lo + BLOCK_ROWS, X.shape[0])
            block = X[lo:hi]
            G = self.kernel.gram(block, sv, sv_sq)
            if est.normalize:
                row = np.sqrt(self.kernel.diag(row_sq_norms_of(block)))
                scale = np.outer(row, col)
                G = np.divide(G, scale, out=np.zeros_like(G),
                              where=scale > 0)
            yield lo, hi, G

    def diag_of(self, est, X):
        """``k(x, x)`` of the kernel in use for the rows of X."""
        d = self.kernel.diag(row_sq_norms_of(X))
        if est.normalize:
            return (d > 0).astype(np.float64)
        return d


class MatrixPerceptronBase(KernelMixin, BaseOnlinePerceptron):
    """Forms, normalisation, one-vs-rest and kernels of the matrix perceptrons."""

    _parameter_constraints = {
        **BaseOnlinePerceptron._parameter_constraints,
        **STOPPING_CONSTRAINTS,
        **KernelMixin.KERNEL_CONSTRAINTS,
        "kernel": [StrOptions({"linear", "poly", "rbf"}), None],
        "normalize": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    #: Forms the class implements; the first is the primal default.
    _forms = ("primal", "dual")

    def _keeps_float32(self):
        # Normalising makes a float64 copy of X in any case.
        return super()._keeps_float32() and not self.normalize

    def _xfail_checks(self):
        expected = super()._xfail_checks()
        if self.kernel is not None:
            expected["check_class_weight_classifiers"] = (
                "the default γ = 1/n_features = 0.5 on the check's blobs of "
                "standard deviation 20 leaves every test point's kernel "
                "values near 0, so every score is near 0, weighted or not")
            return expected
        expected["check_class_weight_classifiers"] = (
            "HO_p(c) and the second-order Perceptron have no intercept: the "
            "best hyperplane through the origin puts 0.60 (2 classes) and "
            "0.70 (3 classes) of the check's test rows on class 0's side, "
            "below its 0.87; with a constant feature appended, the weights "
            "take the fraction from 0.24-0.54 to 0.96-1.00 in every form "
            "(tests/models/test_matrix_weights.py)")
        return expected

    def __init__(self, *, form, normalize, tol, n_iter_no_change,
                 early_stopping, validation_fraction, **params):
        self.form = form
        self.normalize = normalize
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        super().__init__(**params)

    def _final_after_quiet_pass(self):
        # Every mistake updates: a pass without one leaves the model as it
        # is, and the next pass the same.
        return True

    # ----------------------------------------------------------- hooks
    def _norm_p(self):
        """The p of the norm the instances are normalised by."""
        return 2.0

    def _auto_form(self, n_features):
        return "dual" if self.kernel is not None else "primal"

    def _new_model(self, form, n_problems, n_features, kernel, sparse):
        """The zero model of ``form`` (a state of the form's type)."""
        raise NotImplementedError

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

    def _new_state(self, call, fitted):
        n_classes = fitted["classes"].shape[0]
        n_problems = 1 if n_classes == 2 else n_classes
        n_features = call.X.shape[1]
        form = self._resolve_form(n_features)
        kernel = self._kernel_spec(n_features) if form == "dual" else None
        return self._state_type(
            **fitted, form=form, n_matrix_updates=0,
            n_mistakes_per_problem=np.zeros(n_problems, dtype=np.int64),
            model=self._new_model(form, n_problems, n_features, kernel,
                                  sp.issparse(call.X)))

    def _begin_call(self, call):
        self.state_.model.begin_call(self, call)
        call.stats = np.zeros(2, dtype=np.int64)

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
        s = self.state_
        before = call.stats.copy()
        if not hasattr(call, "store"):
            call.store = self._store(s.model, call)
        targets, order = s.model.padded(call, targets, order)
        call.store, failed = matrix_epoch(
            call.store, targets, order, s.model.padded_weights(call),
            s.n_mistakes_per_problem, call.stats)
        if failed:
            self._fail(failed - 1, call)
        n_mistakes, n_matrix = (call.stats - before).tolist()
        self.state_ = s.replace(n_matrix_updates=s.n_matrix_updates
                                + n_matrix)
        # Every mistake updates v: updates and mistakes are the same count.
        return n_mistakes, n_mistakes

    def _fail(self, step, call):
        raise ValueError(
            f"the matrix lost its precision at step {step} of epoch "
            f"{call.n_iter + 1} (its update divided by a non-positive or "
            f"non-finite number); {self._precision_remedy}")

    _precision_remedy = "scale the input"

    def _state_is_finite(self, call):
        arrays = self._model_arrays(call.store)
        if not all(np.isfinite(a).all() for a in arrays):
            raise ValueError(
                f"floating-point overflow at epoch {call.n_iter}: the "
                f"weights are no longer finite; {self._precision_remedy}")
        return True

    def _end_call(self, call, targets):
        s = self.state_
        return s.replace(model=s.model.end_call(call, call.store))

    def _public_model(self):
        s = self.state_
        n_problems = s.n_mistakes_per_problem.shape[0]
        return {"form_": s.form, "n_matrix_updates_": s.n_matrix_updates,
                "n_mistakes_per_problem_": s.n_mistakes_per_problem,
                "intercept_": np.zeros(n_problems),
                **s.model.public(self)}

    # ------------------------------------------------------------ prediction
    def _weights_refusal(self):
        # Every form weighs its mistakes' statistics (the loops' on_mistake).
        return None

    def _mixing_refusal(self):
        return (f"{type(self).__name__}'s state is a matrix updated "
                "multiplicatively on each mistake (and the mistakes' own "
                "instances): a weighted average of shards' matrices is not a "
                "state the algorithm can reach")

    def _decision(self, X):
        return self.state_.model.scores(self, X)

