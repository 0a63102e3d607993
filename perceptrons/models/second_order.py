"""The Second-order Perceptron of Cesa-Bianchi, Conconi & Gentile (2005).

The update is :mod:`perceptrons._loops.second_order`'s, run by the one pass
of the matrix perceptrons; forms, normalisation, kernels and one-vs-rest are
:class:`~perceptrons.models._matrix_perceptron.MatrixAlgorithm`'s. Here: the
two forms as two model types (:class:`SOPrimalModel`, :class:`SODualModel`),
one of which the state (:class:`SecondOrderState`) holds; the algorithm
:class:`SecondOrder` (the forms' choice, their zero models and loop stores,
and the last hypothesis's margins, not linear in x); and the estimator
:class:`SecondOrderPerceptron`.
"""

import dataclasses
import warnings
from numbers import Real

import numpy as np
import scipy.sparse as sp

from .._loops._common import row_sq_norms
from .._loops.second_order import SODualStore, SOPrimalStore
from ..utils._param_validation import Interval, StrOptions
from ..utils.validation import as_loop_arrays, linear_scores
from ._kernel import KernelSpec
from ._matrix_perceptron import (
    DualForm,
    MatrixAlgorithm,
    MatrixPerceptronBase,
    MatrixState,
    PrimalForm,
    divide_rows,
    row_p_norms,
)
from ._state import State, array, sub
from ._stopping import with_stopping_docs
from ._support import SupportPool

__all__ = ["SecondOrder", "SecondOrderPerceptron", "SecondOrderState"]

#: Largest primal matrix form="auto" allocates per problem: A⁻¹ is an
#: n × n float64 matrix, so 1 GiB is 11,585 features (and each mistake
#: costs n² operations). Wider input needs the dual form, whose memory
#: grows with the mistakes instead.
_PRIMAL_MAX_BYTES = 2**30


def _size(n_bytes):
    """A byte count in binary units (``7.28 TiB``)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n_bytes < 1024 or unit == "TiB":
            return f"{n_bytes:.3g} {unit}" if unit != "B" else f"{n_bytes} B"
        n_bytes /= 1024


def _primal_refusal(n_features, why):
    return ValueError(
        f"SecondOrderPerceptron's primal form keeps an n x n matrix per "
        f"problem: {n_features} features take {_size(8 * n_features**2)} "
        f"per problem{why}; use kernel='linear' (the same linear model in "
        "dual form, whose memory grows with the mistakes), or reduce the "
        "features")


def _dual_chosen(n_features, why):
    """The warning of ``form="auto"`` choosing the dual form."""
    return (
        f"SecondOrderPerceptron(form='auto') chose the dual form (the "
        f"linear kernel): the primal form keeps an n x n matrix per "
        f"problem, and {n_features} features take "
        f"{_size(8 * n_features**2)} per problem{why}. The dual form is the "
        "same linear model, its memory growing with the mistakes instead. "
        "Pass kernel='linear' to choose it without this warning, or "
        "form='primal' to insist on the primal form")


class _PrimalUnallocatable(Exception):
    """The primal matrices of ``form="auto"`` could not be allocated."""


@dataclasses.dataclass(frozen=True)
class SOPrimalModel(PrimalForm, State):
    """Primal form: ``A⁻¹`` per problem, v and ``w = A⁻¹ v``."""

    w: np.ndarray = array("float", ("n_problems", "n_features"))
    v: np.ndarray = array("float", ("n_problems", "n_features"))
    A_inv: np.ndarray = array("float",
                              ("n_problems", "n_features", "n_features"))

    @classmethod
    def zeros(cls, n_problems, n_features, a):
        """``A = aI``, v = 0."""
        return cls(np.zeros((n_problems, n_features)),
                   np.zeros((n_problems, n_features)),
                   np.repeat(np.eye(n_features)[None] / a, n_problems,
                             axis=0))


@dataclasses.dataclass(frozen=True)
class SODualModel(DualForm, State):
    """Dual form: β (``coef``) by pool slot, and per problem
    ``M = (aI + K)⁻¹`` over its mistaken instances, their slots and labels
    (the first ``n_mistaken[k]`` kept)."""

    kernel: KernelSpec = sub(KernelSpec)
    pool: SupportPool = sub(SupportPool)
    coef: np.ndarray = array("float", ("n_problems", "n_pool"))
    M: np.ndarray = array("float", ("n_problems", "q", "q"))
    slots: np.ndarray = array("int", ("n_problems", "q"), low=0,
                              high="n_pool")
    signs: np.ndarray = array("float", ("n_problems", "q"), low=-1.0,
                              high=1.0)
    n_mistaken: np.ndarray = array("int", ("n_problems",), low=0)

    @classmethod
    def empty(cls, kernel, n_problems, n_features, sparse):
        """No support vector yet."""
        return cls(kernel, SupportPool.empty(n_features, sparse),
                   np.zeros((n_problems, 0)), np.zeros((n_problems, 0, 0)),
                   np.zeros((n_problems, 0), dtype=np.int64),
                   np.zeros((n_problems, 0)),
                   np.zeros(n_problems, dtype=np.int64))

    matrix_fields = ("M", "slots", "signs", "n_mistaken")
    # β = M (signs) and the mistaken instances' labels are odd, M even.
    odd_fields = ("coef", "signs")
    matrix_store = "inverse"


@dataclasses.dataclass(frozen=True)
class SecondOrderState(MatrixState):
    """The fitted state of :class:`SecondOrderPerceptron`: the counters of
    :class:`~perceptrons.models._matrix_perceptron.MatrixState` and the
    model of the form in use."""

    VERSION = 3  # 3: n_labels (multi-label models)

    model: object = sub(SOPrimalModel, SODualModel)

    form_models = {"primal": SOPrimalModel, "dual": SODualModel}


class SecondOrder(MatrixAlgorithm):
    """The second-order Perceptron as the driver runs it (the algorithm of
    :class:`SecondOrderPerceptron`; see its docstring for the
    parameters)."""

    state_type = SecondOrderState
    last_is_linear = False
    precision_remedy = "raise a or normalise the input (normalize=True)"

    #: Set when the primal matrices of ``form="auto"`` could not be
    #: allocated (the algorithm is made afresh for every call).
    primal_unallocatable = False

    # ----------------------------------------------------------- forms
    def auto_form(self, n_features):
        """The primal form while its matrix takes at most
        :data:`_PRIMAL_MAX_BYTES` per problem and can be allocated, else
        the dual form of the linear kernel, with a warning that says why
        (issue #39: wide input is not refused)."""
        form = super().auto_form(n_features)
        if form != "primal":
            return form
        if 8 * n_features**2 > _PRIMAL_MAX_BYTES:
            why = f", over the {_size(_PRIMAL_MAX_BYTES)} form='auto' allows"
        elif self.primal_unallocatable:
            why = ", more than this machine could allocate"
        else:
            return form
        warnings.warn(_dual_chosen(n_features, why), UserWarning,
                      stacklevel=2)
        return "dual"

    def kernel_spec(self, n_features, name=None):
        # The dual form form="auto" chose for wide input (kernel=None) is
        # the linear kernel's, as kernel="linear" gives it.
        if name is None and self.kernel is None:
            name = "linear"
        return super().kernel_spec(n_features, name)

    def new_state(self, call, fitted):
        try:
            return super().new_state(call, fitted)
        except _PrimalUnallocatable:
            # auto_form chooses the dual form this time.
            self.primal_unallocatable = True
            return super().new_state(call, fitted)

    def new_model(self, form, n_problems, n_features, kernel, sparse):
        if form == "primal":
            try:
                return SOPrimalModel.zeros(n_problems, n_features,
                                           float(self.a))
            except MemoryError:
                if self.form == "auto":
                    raise _PrimalUnallocatable() from None
                raise _primal_refusal(n_features, ", more than this "
                                      "machine can allocate") from None
        if kernel.precomputed and self.hypothesis == "last":
            # The last hypothesis scores x by v·(A + x xᵀ)⁻¹x, which reads
            # k(x, x).
            raise ValueError(
                "hypothesis='last' scores a row with its k(x, x), which a "
                "precomputed kernel's values against the training rows do "
                "not hold: use hypothesis='averaged' with "
                "kernel='precomputed', or a named kernel")
        return SODualModel.empty(kernel, n_problems, n_features, sparse)

    # ----------------------------------------------------------- passes
    def begin_call(self, call):
        if self.kernel is None and isinstance(call.state.model,
                                              SODualModel):
            # The dual form form="auto" chose for wide input: its kernel
            # values read float64 rows and their <x, x>, which the driver
            # reads only for a kernel (needs_row_sq_norms).
            if call.X.dtype != np.float64:
                call.X = call.X.astype(np.float64)
                call.loop_arrays = as_loop_arrays(call.X)
            call.sq_norms = row_sq_norms(*call.loop_arrays, call.X.shape[0])
        super().begin_call(call)

    def loop_store(self, model, call):
        """The loop's store of this call (:mod:`perceptrons._loops.second_order`)."""
        if isinstance(model, SOPrimalModel):
            work = call.work
            return SOPrimalStore(*work.rows, work.x_work, work.nz_work,
                                 model.w, model.A_inv, model.v,
                                 np.empty(model.w.shape[1]))
        kc = call.dual
        return SODualStore(*kc.loop_args, kc.coef, float(self.a),
                           model.matrix_copy(), np.empty(16))

    def model_arrays(self, store):
        if isinstance(store, SOPrimalStore):
            return [store.w, store.v, store.A_inv]
        return [store.coef, store.inverse[0]]

    # ----------------------------------------------------------- results
    def no_coef_reason(self, state, view):
        if state.hypothesis == "last":
            return ("the last hypothesis decides by v·(A + x xᵀ)⁻¹x, not "
                    "linear in x (hypothesis='averaged' is; the linear part "
                    "A⁻¹v, same sign, is state_.model.w in primal form)")
        return super().no_coef_reason(state, view)

    def last_scores(self, model, X):
        """The paper's margins ``vᵀ(A + x xᵀ)⁻¹x`` of the rows of X (the
        class docstring's Notes), of the rows normalised when
        normalising."""
        if isinstance(model, SOPrimalModel):
            norms = row_p_norms(X, self.norm_p()) if self.normalize else None
            return self._primal_scores(model, X, norms)
        if model.coef.shape[1] == 0:
            return np.zeros((X.shape[0], model.coef.shape[0]))
        return self._dual_scores(model, X)

    def _primal_scores(self, model, X, norms):
        """:meth:`last_scores` of a primal model, the rows divided by
        ``norms`` (None: as given)."""
        if norms is not None:
            X = divide_rows(X, np.where(norms > 0, norms, 1.0))
        raw = linear_scores(X, model.w)
        out = np.empty_like(raw)
        for k in range(raw.shape[1]):
            XA = linear_scores(X, model.A_inv[k].T)
            quad = (np.asarray(X.multiply(XA).sum(axis=1)).ravel()
                    if sp.issparse(X) else np.einsum("ij,ij->i", X, XA))
            out[:, k] = raw[:, k] / (1.0 + quad)
        return out

    def _dual_scores(self, model, X):
        """:meth:`last_scores` of a dual model with support vectors."""
        n_problems = model.coef.shape[0]
        out = np.zeros((X.shape[0], n_problems))
        a = float(self.a)
        for lo, hi, G in model.gram_blocks(X, normalize=self.normalize):
            raw = G @ model.coef.T
            diag = model.diag_of(X[lo:hi], normalize=self.normalize)
            for k in range(n_problems):
                q = model.n_mistaken[k]
                kappa = G[:, model.slots[k, :q]]
                M = model.M[k, :q, :q]
                quad = (diag - np.einsum("ij,ij->i", kappa @ M, kappa)) / a
                out[lo:hi, k] = raw[:, k] / (1.0 + quad)
        return out


@with_stopping_docs
class SecondOrderPerceptron(MatrixPerceptronBase):
    r"""Second-order Perceptron, Cesa-Bianchi, Conconi & Gentile [1]_.

    With S the matrix whose columns are the past mistaken instances and the
    current :math:`x_t`, and v the sum of :math:`y\,x` over the past
    mistakes, the prediction is

    .. math::

        \hat y_t = \mathrm{sign}\big(v^\top (aI + S S^\top)^{-1} x_t\big);

    on a mistake :math:`x_t` stays in S and :math:`v \leftarrow v + y_t
    x_t`; otherwise S forgets :math:`x_t`. By Sherman–Morrison
    :math:`(A + xx^\top)^{-1}x = A^{-1}x / (1 + x^\top A^{-1}x)` with
    :math:`A = aI + \sum x_s x_s^\top` over the past mistakes, so the sign
    is that of :math:`v^\top A^{-1} x_t`, which a trial computes in O(n)
    (primal, :math:`w = A^{-1}v` kept) or O(k) kernel values (dual,
    :math:`\beta = (aI + K)^{-1} y` kept). :math:`y\,v^\top A^{-1}x \le 0`
    is a mistake.

    The matrix changes on mistakes only (the paper's algorithm); a
    variant that adds every instance to the matrix is a different
    algorithm.

    Parameters
    ----------
    a : float, default=20.0
        The regulariser a > 0 of :math:`aI`. The defaults (a = 20 on
        normalised rows, 10 passes, the averaged hypothesis) are measured:
        on noisy ``make_classification`` data (2-4 classes, 9 sets, 5
        seeds) they come within 4.2 points of LinearSVC on every run (a =
        10: 5.0, a = 50: 3.7); a = 1, raw rows, one pass and the last
        hypothesis fell up to 14 points short.
    kernel : {None, "linear", "poly", "rbf"}, default=None
        None: the primal form; otherwise the dual form with this kernel.
    degree : int, default=3
    gamma : float or None, default=None
        Kernel γ; None means ``1 / n_features``.
    coef0 : float, default=0.0
    form : {"auto", "primal", "dual"}, default="auto"
        ``"primal"`` keeps :math:`A^{-1}` (n × n per problem),
        ``"dual"`` :math:`(aI + K)^{-1}` over the mistaken instances.
        ``"auto"``: dual with a kernel, else primal while its matrix takes
        at most 1 GiB per problem (11,585 features) and can be allocated;
        wider input without a kernel runs the dual form of the linear
        kernel, the same model as ``kernel="linear"`` bit for bit, with a
        warning (once, when the model starts) that says why and how to
        choose explicitly. ``"primal"`` refuses a matrix it cannot
        allocate, naming ``kernel="linear"``.
    normalize : bool, default=True
        Divide every instance by its Euclidean norm (with a kernel, use
        :math:`k(x,z)/\sqrt{k(x,x)k(z,z)}`), in training and prediction.
    cache_size : float, default=200
        MB of kernel rows kept between passes (dual form).
    hypothesis : {"averaged", "last"}, default="averaged"
        The hypothesis to predict with: the average of the weights
        :math:`w_\tau = A_\tau^{-1} v_\tau` after each of the t trials,
        scored linearly, :math:`\bar w^\top x` (steadier on noisy data), or
        the last one with the paper's rule (Notes). Training is the same:
        the average is kept lazily, a mistake on trial τ adding the
        outgoing w times the trials it was held, O(n) (dual: O(support))
        per mistake. The paper's protocols pass ``hypothesis="last"``.
    max_iter : int, default=10
        Passes over the data.
    %(stopping_parameters)s
    shuffle : bool or "blocks", default=True
        A fresh random order for each pass.
        "blocks": a windowed shuffle for data larger than the cache
        (:func:`~perceptrons.utils.random.draw_order`).
    random_state : int, RandomState instance or None, default=None
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes' rows, multiplied by ``sample_weight``
        (scikit-learn's meaning; see Notes for what a weight does).
    warm_start : bool, default=False
        ``fit`` continues the fitted state (matrix and v of every problem)
        instead of starting afresh.
    %(n_jobs)s

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    form_ : str
    coef_ : ndarray of shape (n_problems, n_features)
        ``hypothesis="averaged"`` only: the averaged :math:`\bar w`, and
        ``decision_function(X) = X @ coef_.T + intercept_`` (raveled for two
        classes). Primal form and the linear kernel; absent with other
        kernels. ``intercept_`` is zeros. The last hypothesis has neither:
        its decision :math:`v^\top(A + xx^\top)^{-1}x` is not linear in x
        (its linear part :math:`A^{-1}v` is ``state_.model.w``, primal).
    intercept_ : ndarray of shape (n_problems,)
    support_ : ndarray of shape (n_support,), int64
        Dual form: the mistaken instances' rows, numbered across calls.
    support_vectors_ : ndarray or CSR matrix of shape (n_support, n_features) or None
        The mistaken instances (dual form; with ``kernel="precomputed"``
        their rows of the training Gram matrix).
    dual_coef_ : ndarray of shape (n_problems, n_support) or None
        β by support vector, summed over repeated instances, of the final
        hypothesis (averaged: the average of the β's).
    n_mistakes_ : int
        Summed over the one-vs-rest problems.
    n_mistakes_per_problem_ : ndarray of shape (n_problems,), int64
    n_matrix_updates_ : int
        Equal to ``n_mistakes_`` (every mistake updates the matrix).
    n_updates_, mistakes_per_epoch_, updates_per_epoch_, n_iter_, t_
        As for every estimator of the package.
    gamma_ : float or None
    n_features_in_ : int

    Notes
    -----
    With ``hypothesis="last"``, ``decision_function`` returns the paper's
    margin :math:`v^\top(A + xx^\top)^{-1}x = v^\top A^{-1}x / (1 + x^\top
    A^{-1}x)`; in dual form :math:`x^\top A^{-1}x = (k(x,x) -
    \kappa^\top(aI+K)^{-1}\kappa)/a`. One-vs-rest predicts the class of
    largest margin. The factor :math:`1/(1 + x^\top A^{-1}x)` differs from
    problem to problem, so no weight vector gives these scores (no
    ``coef_``). With ``hypothesis="averaged"`` the decision is
    :math:`\bar w^\top x`.

    Row weights (``sample_weight`` times ``class_weight``): a mistake on a
    row of weight :math:`s > 0` adds s times its terms to both statistics,

    .. math::

        A \leftarrow A + s\, x x^\top, \qquad v \leftarrow v + s\, y\, x,

    so :math:`A = aI + X S X^\top` and :math:`v = X S y` over the mistaken
    instances X with :math:`S = \mathrm{diag}(s)`. The primal form's
    Sherman–Morrison step is
    :math:`A^{-1} - s\,uu^\top/(1 + s\,x^\top u)`, :math:`u = A^{-1}x`; the
    dual keeps :math:`M = (aS^{-1} + K)^{-1}` (a new mistake borders it
    with the diagonal :math:`a/s + k(x,x)`), since
    :math:`v^\top A^{-1}x = y^\top M\kappa` and
    :math:`x^\top A^{-1}x = (k(x,x) - \kappa^\top M\kappa)/a`: β and the
    scores read M as before. The prediction does not read the weight (the
    trial's x enters :math:`(A + xx^\top)^{-1}` unweighted). A row of
    weight 0 is left out; weights of 1 give the unweighted run bit for
    bit. There is no intercept for a heavy class to move (append a
    constant feature for one).

    References
    ----------
    .. [1] N. Cesa-Bianchi, A. Conconi and C. Gentile. A second-order
       perceptron algorithm. SIAM Journal on Computing 34(3):640-668, 2005.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from perceptrons import SecondOrderPerceptron
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = SecondOrderPerceptron(a=1.0, random_state=0).fit(X / 16, y)
    >>> clf.form_
    'primal'
    """

    _parameter_constraints = {
        **MatrixPerceptronBase._parameter_constraints,
        "a": [Interval(Real, 0, None, closed="neither")],
        "form": [StrOptions({"auto", "primal", "dual"})],
    }

    _algorithm = SecondOrder

    @classmethod
    def _test_params(cls):
        return [{}, {"kernel": "rbf", "normalize": True, "max_iter": 2}]

    def __init__(self, *, a=20.0, kernel=None, degree=3, gamma=None,
                 coef0=0.0, form="auto", normalize=True, cache_size=200,
                 hypothesis="averaged", max_iter=10, tol=None,
                 n_iter_no_change=5, early_stopping=False,
                 validation_fraction=0.1, shuffle=True, random_state=None,
                 class_weight=None, warm_start=False, n_jobs=None):
        self.a = a
        super().__init__(form=form, normalize=normalize,
                         hypothesis=hypothesis, kernel=kernel,
                         degree=degree, gamma=gamma, coef0=coef0,
                         cache_size=cache_size, max_iter=max_iter, tol=tol,
                         n_iter_no_change=n_iter_no_change,
                         early_stopping=early_stopping,
                         validation_fraction=validation_fraction,
                         shuffle=shuffle, random_state=random_state,
                         class_weight=class_weight, warm_start=warm_start,
                         n_jobs=n_jobs)
