"""What the higher- and second-order perceptrons share (not public).

Both keep a matrix beside the Perceptron's sum vector v, are mistake
driven, one-vs-rest, one pass per epoch, and run the one pass of
:func:`perceptrons._loops.matrix_perceptron.matrix_epoch`. What lives here:

* :class:`MatrixState`, the fitted state's counters and final hypothesis;
  it holds the model of the form in use, one model type per algorithm and
  form (declared in :mod:`~perceptrons.models.higher_order` and
  :mod:`~perceptrons.models.second_order`), picked once when the state is
  made. Each form's model starts a call, gives the state after a call,
  its public view and its linear scores, through the form adapters
  (mixins of the model types; they take the parameters they read as
  values, never the estimator):

  * **primal forms** (``kernel=None``, :class:`PrimalForm`) read the rows,
    normalised first when ``normalize=True`` (a copy of X divided by its
    row norms, so the loops see exactly the instances the papers assume);
    ``coef_`` is the weight vector w of each problem and the model has no
    intercept (the papers' hyperplanes pass through the origin: append a
    constant feature for one);
  * **dual forms** (any kernel, :class:`DualForm`) keep a
    :class:`~perceptrons.models._support.SupportPool` whose rows a call
    puts in front of its own, in their slots, so that every slot-indexed
    array of the model (coefficients, matrices) carries over unchanged; the
    support layer's normalised kernel ``k(x, z) / sqrt(k(x, x) k(z, z))``
    is the feature-space normalisation.

* :class:`MatrixAlgorithm` (with its per-call scratch :class:`MatrixWork`),
  the driver's algorithm for both: forms, normalisation, the pass, the
  averaged hypothesis, the public view and the decision; each algorithm
  adds its update's loop store and model types.
* :class:`MatrixPerceptronBase`, the estimators' shared parameters and
  constraints.

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
from ..utils.validation import as_loop_arrays, linear_scores, refuse_underflow
from ._driver import Algorithm, OnlineClassifier
from ._kernel import (BLOCK_ROWS, KERNEL_NAMES, KernelAlgorithm,
                      KernelParams, linear_coef)
from ._classes import RowGrowth
from ._features import inserted_coordinates, padded, padded_state
from ._state import (FittedState, array, check_problems, n_problems_of,
                     scalar)
from ._stopping import STOPPING_CONSTRAINTS
from ._support import PoolInFront

__all__ = ["DualForm", "MatrixAlgorithm", "MatrixPerceptronBase",
           "MatrixState", "MatrixWork", "PrimalForm", "check_finite_norms",
           "check_kernel_norms", "divide_rows", "grown", "row_p_norms"]


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
    if p != 2.0:
        return _scaled_p_norms(X, p)
    if sp.issparse(X):
        sq = np.asarray(X.multiply(X).sum(axis=1)).ravel()
    else:
        sq = np.einsum("ij,ij->i", X, X)
    norms = np.sqrt(sq)
    # Rows whose squares underflow or overflow (norms down to 1e-308 and up
    # to 1e308 exist): again, scaled.
    redo = np.flatnonzero(~(sq >= np.finfo(np.float64).tiny)
                          | ~np.isfinite(sq))
    if redo.size:
        norms[redo] = _scaled_p_norms(X[redo], p)
    return norms


def _scaled_p_norms(X, p):
    """``‖x_i‖_p`` computed on each row divided by its largest ``|x_j|``,
    so that ``|x_j|^p`` can neither overflow nor underflow."""
    if sp.issparse(X):
        big = np.asarray(abs(X).max(axis=1).todense()).ravel()
        safe = np.where(big > 0, big, 1.0)
        scaled = sp.diags(1.0 / safe) @ abs(X)
        return big * np.asarray(scaled.power(p).sum(axis=1)).ravel() ** (1 / p)
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
    hypothesis: str = scalar("str", choices=("last", "averaged"))
    summed: np.ndarray = array("float", ("n_problems", None))
    held_since: np.ndarray = array("int", ("n_problems",), low=0)

    form_models = {}

    def check(self, sizes, where):
        super().check(sizes, where)
        check_problems(sizes, where, n_labels=self.n_labels)
        want = self.form_models.get(self.form)
        if type(self.model) is not want:
            raise ValueError(f"{where}.model is a {type(self.model).__name__}"
                             f" but form is {self.form!r}")
        width = (self.model.hypothesis_weights().shape[1]
                 if self.hypothesis == "averaged" else 0)
        if self.summed.shape[1] != width:
            raise ValueError(f"{where}.summed has {self.summed.shape[1]} "
                             f"columns, the {self.hypothesis} hypothesis "
                             f"{width}")
        if self.held_since.size and self.held_since.max() > self.t:
            raise ValueError(f"{where}.held_since exceeds t")

    def final_weights(self):
        """The hypothesis the model predicts with, in the model's own layout
        (w by feature, or coefficients by support slot): the last, or the
        average of the hypotheses after each of the t trials."""
        w = self.model.hypothesis_weights()
        if self.hypothesis == "last" or self.t == 0:
            return w.copy()
        held = (self.t - self.held_since).astype(np.float64)[:, None]
        return (self.summed + held * w) / self.t


def check_finite_norms(norms):
    """Refuse rows whose norm overflows float64 (ValueError)."""
    if not np.isfinite(norms).all():
        row = int(np.flatnonzero(~np.isfinite(norms))[0])
        raise ValueError(f"the norm of row {row} of X overflows float64; "
                         "scale the input")


def check_kernel_norms(norms):
    """Refuse rows of ``‖φ(x)‖ = 0``, which the feature-space
    normalisation cannot divide by (ValueError)."""
    zero = np.flatnonzero(~(norms > 0))
    if zero.size:
        raise ValueError(
            f"row {int(zero[0])} of X has k(x, x) = 0 ({zero.size} such "
            "rows): it cannot be normalised in feature space; drop those "
            "rows, use another kernel (e.g. coef0 > 0), or pass "
            "normalize=False")


class PrimalForm:
    """What a primal form's model does (a mixin of its state type, whose
    fields include ``w`` (n_problems, n_features) and ``v``).

    Its methods take the parameters they read (``normalize``, ``p``) as
    values, from the algorithm.
    """

    #: The arrays odd in the labels (negated for class 0's problem when a
    #: binary model grows): v and w.
    odd_fields = ("w", "v")

    def begin_call(self, call, *, normalize, p, new_kernel_call):
        """The rows as the loops read them (``call.work``'s ``rows``,
        ``x_work``, ``nz_work``): divided by their p-norm when
        ``normalize``, scattered one at a time into a zeroed work row.
        (``new_kernel_call`` is the dual form's.)"""
        X = call.X
        if normalize:
            # The same norms as prediction's (decision).
            norms = row_p_norms(X, p)
            check_finite_norms(norms)
            # A zero row has no direction: it stays 0 (its margin is 0, a
            # mistake that changes nothing but the mistake count k).
            X = divide_rows(X, np.where(norms > 0, norms, 1.0))
        work = call.work
        work.rows = as_loop_arrays(X)
        work.x_work = np.zeros(X.shape[1])
        work.nz_work = np.zeros(X.shape[1], dtype=np.int64)

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

    def hypothesis_weights(self):
        """The current hypothesis w (n_problems, n_features)."""
        return self.w

    @staticmethod
    def store_weights(store):
        """The loop store's array of the hypothesis."""
        return store.w

    def public(self, weights, linear, *, normalize):
        """Public attributes of this form, given the final hypothesis's
        ``weights``; ``coef_`` only when the decision is ``X coef_ᵀ``."""
        public = {"support_vectors_": None, "dual_coef_": None,
                  "gamma_": None}
        if linear:
            public["coef_"] = weights
        return public

    def linear_scores(self, X, weights, *, normalize):
        """``X weightsᵀ``: the linear decision, of the rows as given."""
        return linear_scores(X, weights)


class DualForm(PoolInFront):
    """What a dual form's model does (a mixin of its state type, whose
    fields include ``kernel``, ``pool`` and ``coef`` (n_problems, n_pool)).

    A dual model declares the fields its loop store grows: ``slot_fields``,
    arrays by support slot (n_problems, n_pool), and ``matrix_fields``, the
    per-problem matrix arrays whose last entry counts the filled rows
    (``q = count[k]``); the store holds them as the tuple ``matrix_store``.
    Its methods take the parameters they read (``normalize``) as values,
    and the kernel call's factory, from the algorithm.
    """

    slot_fields = ("coef",)
    matrix_fields = ()
    matrix_store = None
    #: As the primal form's (a model adds its own): w's coefficients.
    odd_fields = ("coef",)

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

    def begin_call(self, call, *, normalize, p, new_kernel_call):
        """The pool's rows in front of the call's, the coefficients with the
        pool's in front (``call.dual``, a
        :class:`~perceptrons.models._support.KernelCall` made by
        ``new_kernel_call``, the algorithm's
        :meth:`~perceptrons.models._kernel.KernelAlgorithm.new_kernel_call`),
        normalised in feature space when ``normalize``. (``p`` is the
        primal form's.)"""
        rows, sq = self.pool.in_front_of(call.X, call.sq_norms)
        kc = new_kernel_call(self.kernel, rows, sq, call.n_passes,
                             self.pool.size, normalized=normalize)
        if normalize:
            # ‖φ(x)‖ of the call's rows, as the kernel call normalises by.
            check_kernel_norms(kc.norms[self.pool.size:])
        kc.coef = grown(self.coef, rows.shape[0])
        call.dual = kc

    def kept_pool(self, call):
        """The pool after the call: every support slot, in slot order (the
        matrices index slots)."""
        kc = call.dual
        return self.pool.kept(kc.X, kc.slots(), call.X.shape[0])

    def weights(self):
        return [self.coef]

    def hypothesis_weights(self):
        """The current hypothesis's coefficients by support slot."""
        return self.coef

    @staticmethod
    def store_weights(store):
        return store.coef

    def public(self, weights, linear, *, normalize):
        public = {"support_": self.pool.index, "support_vectors_": self.pool.X,
                  "dual_coef_": weights, "gamma_": self.kernel.gamma}
        if linear and self.kernel.code == KERNEL_LINEAR:
            # The primal weights the coefficients stand for (of the
            # normalised support vectors when normalising).
            if normalize:
                norms = np.sqrt(row_sq_norms_of(self.pool.X))
                weights = weights / np.where(norms > 0, norms, 1.0)
            public["coef_"] = linear_coef(weights, self.pool.X)
        return public

    def linear_scores(self, X, weights, *, normalize):
        """``Σ_s weights[:, s] k(s, x)`` over the support vectors s (each
        normalised in feature space when ``normalize``; the rows x as
        given)."""
        out = np.zeros((X.shape[0], weights.shape[0]))
        if weights.shape[1]:
            for lo, hi, G in self.gram_blocks(X, normalize=normalize,
                                              normalize_rows=False):
                out[lo:hi] = G @ weights.T
        return out

    def gram_blocks(self, X, *, normalize, normalize_rows=True):
        """Gram blocks of X's rows against the support vectors.

        Normalised in feature space when ``normalize`` (0 where a norm is
        0), as in training, the rows of X too unless
        ``normalize_rows=False``; the support vectors' norms are computed
        once for all blocks.

        Yields
        ------
        lo, hi : int
            The block's rows of X.
        G : ndarray of shape (hi - lo, n_support)
        """
        sv = self.pool.X
        sv_sq = row_sq_norms_of(sv)
        col = np.sqrt(self.pool.kernel_diag(self.kernel)) if normalize else None
        for lo in range(0, X.shape[0], BLOCK_ROWS):
            hi = min(lo + BLOCK_ROWS, X.shape[0])
            block = X[lo:hi]
            G = self.kernel.gram(block, sv, sv_sq, self.pool.index)
            if normalize:
                row = (np.sqrt(self.kernel.diag(row_sq_norms_of(block)))
                       if normalize_rows else np.ones(hi - lo))
                scale = np.outer(row, col)
                G = np.divide(G, scale, out=np.zeros_like(G),
                              where=scale > 0)
            yield lo, hi, G

    def diag_of(self, X, *, normalize):
        """``k(x, x)`` of the kernel in use for the rows of X (1, or 0 for
        a row of norm 0, when ``normalize``)."""
        d = self.kernel.diag(row_sq_norms_of(X))
        if normalize:
            return (d > 0).astype(np.float64)
        return d


@dataclasses.dataclass(eq=False)
class MatrixWork:
    """Per-call scratch of a :class:`MatrixAlgorithm`.

    Attributes
    ----------
    stats : ndarray of shape (2,), int64
        The loop's counts over the call: mistakes, and mistakes that
        updated the matrix, summed over problems.
    rows : tuple or None
        Primal forms: the call's rows as the loops read them
        (:func:`~perceptrons.utils.validation.as_loop_arrays`), divided by
        their p-norm when normalising.
    x_work : ndarray of shape (n_features,) or None
        Primal forms: the zeroed work row a trial scatters its row into.
    nz_work : ndarray of shape (n_features,), int64, or None
        Primal forms: the scattered row's non-zero columns.
    store : tuple or None
        The algorithm's loop store (:meth:`MatrixAlgorithm.loop_store`),
        made by the call's first pass and returned by each (the loop
        reallocates the arrays it grows).
    summed : ndarray of shape (n_problems, n_columns) or None
        The running sum of the hypotheses, by feature or by the store's
        support slots (``(0, 0)`` for the last hypothesis).
    held_since : ndarray of shape (n_problems,), int64, or None
        The trial since which each problem holds its hypothesis.
    """

    stats: np.ndarray
    rows: tuple = None
    x_work: np.ndarray = None
    nz_work: np.ndarray = None
    store: tuple = None
    summed: np.ndarray = None
    held_since: np.ndarray = None


class MatrixAlgorithm(KernelAlgorithm, Algorithm):
    """Forms, normalisation, one-vs-rest and kernels of the matrix
    perceptrons, as the driver runs them (the base of
    :class:`~perceptrons.models.higher_order.HigherOrder` and
    :class:`~perceptrons.models.second_order.SecondOrder`).

    A subclass gives its ``state_type``, :meth:`new_model` (the zero model
    of a form), :meth:`loop_store` (the loop's store of a call),
    :meth:`model_arrays` and, where its loop reallocates a model's arrays,
    :meth:`model_of_store`; one whose last hypothesis is not linear in x
    sets ``last_is_linear = False`` and gives :meth:`last_scores`.
    """

    #: Whether the last hypothesis decides by ``wᵀx`` (HO); the
    #: second-order Perceptron's ``vᵀ(A + x xᵀ)⁻¹x`` is not linear in x.
    last_is_linear = True
    #: One-vs-rest problems, each its own matrix: a problem per label.
    takes_multilabel = True

    #: Forms the algorithm implements; the first is the primal default.
    forms = ("primal", "dual")

    #: What to do when the matrix loses its precision or overflows (the
    #: end of the messages).
    precision_remedy = "scale the input"

    # ----------------------------------------------------------- input
    def keeps_float32(self):
        # Normalising makes a float64 copy of X in any case.
        return super().keeps_float32() and not self.normalize

    def needs_row_sq_norms(self):
        # Only the kernels' k(x, x) reads them; the primal forms normalise
        # by row_p_norms, as prediction does.
        return self.kernel is not None

    def weights_refusal(self):
        # Every form weighs its mistakes' statistics (the loops' on_mistake).
        return None

    def final_after_quiet_pass(self):
        # Every mistake updates: a pass without one leaves the last
        # hypothesis as it is, and the next pass the same (the average
        # moves on towards it). A continued fit keeps its state's
        # hypothesis, which check_continued holds equal to this one.
        return self.hypothesis == "last"

    # ----------------------------------------------------------- forms
    def norm_p(self):
        """The p of the norm the instances are normalised by."""
        return 2.0

    def auto_form(self, n_features):
        """The form ``form="auto"`` picks for ``n_features`` features."""
        return "dual" if self.kernel is not None else "primal"

    def new_model(self, form, n_problems, n_features, kernel, sparse):
        """The zero model of ``form`` (a state of the form's type)."""
        raise NotImplementedError

    def resolve_form(self, n_features):
        """The form of a fresh state, ``form="auto"`` resolved.

        Raises
        ------
        ValueError
            If the form is not one of the algorithm's, or does not fit
            ``kernel``.
        """
        form = self.form
        if form == "auto":
            form = self.auto_form(n_features)
        if form not in self.forms:
            raise ValueError(f"form={form!r} is not one of "
                             f"{self.estimator_name}'s forms {self.forms}")
        if self.kernel is not None and form != "dual":
            raise ValueError(f"form={form!r} has no kernel; with "
                             f"kernel={self.kernel!r} use form='dual' or "
                             "'auto'")
        if self.kernel is None and form == "dual" and self.form == "dual":
            # (form="auto" may choose it: the algorithm's auto_form then
            # says why and gives the kernel, kernel_spec.)
            raise ValueError("form='dual' keeps the model over kernel "
                             "values: pass a kernel (kernel='linear' for the "
                             "dual form of the linear model)")
        return form

    # ----------------------------------------------------------- state
    def new_state(self, call, fitted):
        n_problems = n_problems_of(fitted["classes"], fitted["n_labels"])
        n_features = call.X.shape[1]
        form = self.resolve_form(n_features)
        kernel = self.kernel_spec(n_features) if form == "dual" else None
        model = self.new_model(form, n_problems, n_features, kernel,
                               sp.issparse(call.X))
        width = (model.hypothesis_weights().shape[1]
                 if self.hypothesis == "averaged" else 0)
        return self.state_type(
            **fitted, form=form, n_matrix_updates=0,
            n_mistakes_per_problem=np.zeros(n_problems, dtype=np.int64),
            hypothesis=self.hypothesis, summed=np.zeros((n_problems, width)),
            held_since=np.zeros(n_problems, dtype=np.int64), model=model)

    # ----------------------------------------------------------- training
    def class_growth_refusal(self, state):
        return None

    def feature_growth_refusal(self, state):
        return None

    def grow_features(self, state, n_new):
        """New features, each as if it had been 0 in every row: w = v = 0,
        the primal matrix's fresh entries (B = I's, A = aI's: a diagonal
        entry no step has coupled to another coordinate, whose value was
        always 0), the implicit factors and the dual pool's rows padded with
        zeros (a kernel model reads a missing feature as zero)."""
        s, model, d = state, state.model, state.n_features_in
        overrides, summed = {}, s.summed
        if s.form != "dual":
            fresh = self.new_model(s.form, 1, 1, None, False)
            for field in dataclasses.fields(model):
                value = getattr(model, field.name)
                if isinstance(value, np.ndarray) and value.ndim == 3 and (
                        value.shape[1:] == (d, d)):
                    overrides[field.name] = inserted_coordinates(
                        value, d, n_new, getattr(fresh, field.name)[0, 0, 0])
            if summed.shape[1] == d:
                summed = padded(summed, [1], n_new)
        return padded_state(s, n_new, d, {
            "model": padded_state(model, n_new, d, overrides),
            "summed": summed})

    def grow_classes(self, state, classes):
        """More one-vs-rest problems, each the form's fresh problem (its
        row of :meth:`new_model`'s zero model: ``B = I`` or ``A = aI``, no
        factor, no matrix-updating instance, w = v = 0) padded to the
        other problems' sizes (the dual form's pool and matrices, the
        implicit form's factors: a fresh problem fills none of them), its
        counters zero.

        Two classes (one problem, class 1 against class 0) become class
        1's problem, the old one, and class 0's, the old one on the labels
        -y: the arrays odd in y negated (each model type's
        ``odd_fields``, and the averaged sum), the others copied. HO's
        matrix step ``B_k = B_{k-1}(I - ρ_k x g(x)ᵀ)`` (and A = BᵀB, the
        implicit factors, the dual D) reads x alone, ρ_k = c/k the
        mistake count, the sparse gate ``y v_{k-1}ᵀx`` is even; v (``v ←
        v + y x``), w = Bᵀg(Bv) (g odd) and the dual h = Xᵀ X y are odd.
        SO's A = aI + Σ x xᵀ (its inverse, the dual M) is even; v, w, β
        and the dual's stored labels are odd. A mistake ``y wᵀx <= 0``
        is even, so the run on -y from the negated problem is the binary
        run negated step for step: bit for bit in the primal forms, and in
        the dual forms up to the order of the sums over the shared pool
        (a model told of class 0 up front pools other problems' support
        too; tests/models/test_new_classes.py)."""
        s, model = state, state.model
        grow = RowGrowth(s.classes, classes,
                         s.n_mistakes_per_problem.shape[0] == 1)
        if s.form == "dual":
            fresh = self.new_model(s.form, 1, model.pool.X.shape[1],
                                   model.kernel, sp.issparse(model.pool.X))
        else:
            fresh = self.new_model(s.form, 1, model.w.shape[1], None, False)

        def rows(array, start=None, negate=False):
            fill = 0.0
            if start is not None and start.shape[1:] == array.shape[1:]:
                fill = start[0]
            return grow(array, negate, fill)

        grown = {}
        for field in dataclasses.fields(model):
            value = getattr(model, field.name)
            if isinstance(value, np.ndarray):
                grown[field.name] = rows(value, getattr(fresh, field.name),
                                         field.name in model.odd_fields)
        return s.replace(
            classes=classes, model=model.replace(**grown),
            n_mistakes_per_problem=rows(s.n_mistakes_per_problem),
            summed=rows(s.summed, negate=True),
            held_since=rows(s.held_since))

    def begin_call(self, call):
        if not self.normalize:
            # Normalised rows have unit norm whatever their scale.
            refuse_underflow(call.loop_arrays[0], call.mean_sq_norm)
        call.work = MatrixWork(stats=np.zeros(2, dtype=np.int64))
        call.state.model.begin_call(call, normalize=self.normalize,
                                    p=self.norm_p(),
                                    new_kernel_call=self.new_kernel_call)

    def loop_store(self, model, call):
        """The loop's store of this call, over ``model``'s arrays."""
        raise NotImplementedError

    def model_arrays(self, store):
        """The store's arrays whose finiteness the passes keep."""
        raise NotImplementedError

    def model_of_store(self, model, store):
        """``model`` with the arrays the loop reallocated in ``store``."""
        return model

    def run_epoch(self, call, targets, order):
        s, work = call.state, call.work
        before = work.stats.copy()
        if work.store is None:
            work.store = self.loop_store(s.model, call)
            # The running sum, by feature or by the store's support slots.
            work.summed = (grown(s.summed,
                                 s.model.store_weights(work.store).shape[1])
                           if s.hypothesis == "averaged"
                           else np.zeros((0, 0)))
            work.held_since = s.held_since.copy()
        targets, order = s.model.padded(call, targets, order)
        work.store, failed = matrix_epoch(
            work.store, targets, order, s.model.padded_weights(call),
            s.n_mistakes_per_problem, work.stats, work.summed,
            work.held_since, call.t)
        if failed:
            self._fail(failed - 1, call)
        n_mistakes, n_matrix = (work.stats - before).tolist()
        call.state = s.replace(n_matrix_updates=s.n_matrix_updates
                               + n_matrix)
        # Every mistake updates v: updates and mistakes are the same count.
        return n_mistakes, n_mistakes

    def _fail(self, step, call):
        raise ValueError(
            f"the matrix lost its precision at step {step} of epoch "
            f"{call.n_iter + 1} (its update divided by a non-positive or "
            f"non-finite number); {self.precision_remedy}")

    def is_finite(self, call):
        arrays = self.model_arrays(call.work.store) + [call.work.summed]
        if not all(np.isfinite(a).all() for a in arrays):
            raise ValueError(
                f"floating-point overflow at epoch {call.n_iter}: the "
                f"weights are no longer finite; {self.precision_remedy}")
        return True

    def end_call(self, call, targets):
        s, work = call.state, call.work
        if work.store is None:
            return s
        model = self.model_of_store(s.model, work.store).end_call(
            call, work.store)
        if s.hypothesis == "averaged":
            width = model.hypothesis_weights().shape[1]
            summed = np.ascontiguousarray(work.summed[:, :width])
        else:  # no sum, but a row per problem as the state declares
            summed = np.zeros((s.held_since.shape[0], 0))
        return s.replace(model=model, held_since=work.held_since,
                         summed=summed)

    # ----------------------------------------------------------- results
    def decides_linearly(self, state):
        """Whether the final hypothesis of ``state`` decides by ``wᵀx``
        (in feature space): the average, or a linear last hypothesis."""
        return state.hypothesis == "averaged" or self.last_is_linear

    def public(self, state):
        s = state
        n_problems = s.n_mistakes_per_problem.shape[0]
        linear = self.decides_linearly(s)
        public = {"form_": s.form, "n_matrix_updates_": s.n_matrix_updates,
                  "n_mistakes_per_problem_": s.n_mistakes_per_problem,
                  **s.model.public(s.final_weights(), linear,
                                   normalize=self.normalize)}
        if linear:
            public["intercept_"] = np.zeros(n_problems)
        return public

    def decision(self, state, view, X):
        if self.decides_linearly(state):
            # The final weights as published (coef_ or dual_coef_), not
            # averaged again on every call.
            final = (view["coef_"] if view["dual_coef_"] is None
                     else view["dual_coef_"])
            return state.model.linear_scores(X, final,
                                             normalize=self.normalize)
        return self.last_scores(state.model, X)

    def last_scores(self, model, X):
        """Scores of the last hypothesis where it is not linear in x
        (``last_is_linear = False``), shape (n_samples, n_problems)."""
        raise NotImplementedError

    # ----------------------------------------------------------- mixing
    def mixing_refusal(self):
        return (f"{self.estimator_name}'s state is a matrix updated "
                "multiplicatively on each mistake (and the mistakes' own "
                "instances): a weighted average of shards' matrices is not a "
                "state the algorithm can reach")


class MatrixPerceptronBase(KernelParams, OnlineClassifier):
    """The parameters every matrix perceptron has (forms, normalisation,
    the final hypothesis, the stopping rules, kernels), their constraints
    and the common checks they fail; the driver runs the class's
    :class:`MatrixAlgorithm`."""

    _parameter_constraints = {
        **OnlineClassifier._parameter_constraints,
        **STOPPING_CONSTRAINTS,
        **KernelParams.KERNEL_CONSTRAINTS,
        "kernel": [StrOptions(set(KERNEL_NAMES)), None],
        "normalize": ["boolean"],
        "hypothesis": [StrOptions({"last", "averaged"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

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
            "below its 0.87, so no weighting can pass it (tests/test_common"
            ".py, test_class_weight_check_through_the_origin_is_out_of_reach)"
            "; with a constant feature appended, the weights take the "
            "fraction from 0.24-0.54 to 0.96-1.00 in every form "
            "(tests/models/test_matrix_weights.py)")
        return expected

    def __init__(self, *, form, normalize, hypothesis, tol, n_iter_no_change,
                 early_stopping, validation_fraction, **params):
        self.form = form
        self.normalize = normalize
        self.hypothesis = hypothesis
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        super().__init__(**params)
