"""The Higher-order Perceptron HO_p(c) of Brotto, Gentile & Vitale (2006).

The update is :mod:`perceptrons._loops.higher_order`'s, run by the one pass
of the matrix perceptrons; forms, normalisation, kernels and one-vs-rest are
:class:`~perceptrons.models._matrix_perceptron.MatrixAlgorithm`'s. Here: the
three forms of Sec. 2 as three model types (:class:`HOPrimalModel`,
:class:`HOImplicitModel`, :class:`HODualModel`), one of which the state
(:class:`HigherOrderState`) holds; the algorithm :class:`HigherOrder` (the
forms' choice, their zero models and loop stores); and the estimator
:class:`HigherOrderPerceptron`.
"""

import dataclasses
from numbers import Real

import numpy as np

from .._loops.higher_order import HODualStore, HOImplicitStore, HOPrimalStore
from ..utils._param_validation import Interval, StrOptions
from ._kernel import KernelSpec
from ._matrix_perceptron import (
    DualForm,
    MatrixAlgorithm,
    MatrixPerceptronBase,
    MatrixState,
    PrimalForm,
    grown,
)
from ._state import State, array, sub
from ._stopping import with_stopping_docs
from ._support import SupportPool

__all__ = ["HigherOrder", "HigherOrderPerceptron", "HigherOrderState"]

# form="auto" keeps A = BᵀB (n² floats per problem) up to this many features.
_PRIMAL_MAX_FEATURES = 1024


@dataclasses.dataclass(frozen=True)
class HOPrimalModel(PrimalForm, State):
    """HO₂ in primal form: ``A = BᵀB`` per problem, v and ``w = A v``."""

    w: np.ndarray = array("float", ("n_problems", "n_features"))
    v: np.ndarray = array("float", ("n_problems", "n_features"))
    A: np.ndarray = array("float", ("n_problems", "n_features", "n_features"))

    @classmethod
    def zeros(cls, n_problems, n_features):
        """B = I, v = 0."""
        return cls(np.zeros((n_problems, n_features)),
                   np.zeros((n_problems, n_features)),
                   np.repeat(np.eye(n_features)[None], n_problems, axis=0))


@dataclasses.dataclass(frozen=True)
class HOImplicitModel(PrimalForm, State):
    """HO_p in implicit primal form: the rank-one factors of B per problem
    (:data:`perceptrons._loops.higher_order.HOImplicitStore`)."""

    w: np.ndarray = array("float", ("n_problems", "n_features"))
    v: np.ndarray = array("float", ("n_problems", "n_features"))
    fx: np.ndarray = array("float", ("n_problems", "n_entries"))
    fg: np.ndarray = array("float", ("n_problems", "n_entries"))
    fi: np.ndarray = array("int", ("n_problems", "n_entries"), low=0,
                           high="n_features")
    fptr: np.ndarray = array("int", ("n_problems", "n_ptr"), low=0,
                             high=1 << 62)
    frho: np.ndarray = array("float", ("n_problems", None))
    n_factors: np.ndarray = array("int", ("n_problems",), low=0)

    @classmethod
    def zeros(cls, n_problems, n_features):
        """No factor yet."""
        return cls(np.zeros((n_problems, n_features)),
                   np.zeros((n_problems, n_features)),
                   np.zeros((n_problems, 0)), np.zeros((n_problems, 0)),
                   np.zeros((n_problems, 0), dtype=np.int64),
                   np.zeros((n_problems, 1), dtype=np.int64),
                   np.zeros((n_problems, 0)),
                   np.zeros(n_problems, dtype=np.int64))

    def check(self, sizes, where):
        _check_factors = (self.n_factors.size and (
            self.n_factors.max() + 1 > self.fptr.shape[1]
            or self.n_factors.max() > self.frho.shape[1]))
        if _check_factors:
            raise ValueError(f"{where}.n_factors exceeds the factors kept")
        for k, n in enumerate(self.n_factors):
            ptr = self.fptr[k, :n + 1]
            if ptr[0] != 0 or np.any(np.diff(ptr) < 0) or (
                    ptr[-1] > self.fx.shape[1]):
                raise ValueError(f"{where}.fptr of problem {k} must rise "
                                 f"from 0 to at most {self.fx.shape[1]}")

    @property
    def factors(self):
        """The loop's factor tuple."""
        return (self.fx, self.fg, self.fi, self.fptr, self.frho,
                self.n_factors)


@dataclasses.dataclass(frozen=True)
class HODualModel(DualForm, State):
    """HO₂ in dual form (Sec. 2, 2)): over the pool's rows, w (``coef``)
    and v (``v_coef``) by slot, and per problem D, the slots of the
    matrix-updating instances and h (the first ``n_matrix[k]`` kept)."""

    kernel: KernelSpec = sub(KernelSpec)
    pool: SupportPool = sub(SupportPool)
    coef: np.ndarray = array("float", ("n_problems", "n_pool"))
    v_coef: np.ndarray = array("float", ("n_problems", "n_pool"))
    D: np.ndarray = array("float", ("n_problems", "q", "q"))
    slots: np.ndarray = array("int", ("n_problems", "q"), low=0,
                              high="n_pool")
    h: np.ndarray = array("float", ("n_problems", "q"))
    n_matrix: np.ndarray = array("int", ("n_problems",), low=0)

    @classmethod
    def empty(cls, kernel, n_problems, n_features, sparse):
        """No support vector yet."""
        zeros = np.zeros((n_problems, 0))
        return cls(kernel, SupportPool.empty(n_features, sparse), zeros,
                   zeros, np.zeros((n_problems, 0, 0)),
                   np.zeros((n_problems, 0), dtype=np.int64), zeros,
                   np.zeros(n_problems, dtype=np.int64))

    slot_fields = ("coef", "v_coef")
    matrix_fields = ("D", "slots", "h", "n_matrix")
    # h = X_kᵀ X_k y_k (Sec. 2, 2)) is odd in y, D even.
    odd_fields = ("coef", "v_coef", "h")
    matrix_store = "matrix"


@dataclasses.dataclass(frozen=True)
class HigherOrderState(MatrixState):
    """The fitted state of :class:`HigherOrderPerceptron`: the counters of
    :class:`~perceptrons.models._matrix_perceptron.MatrixState` and the
    model of the form in use."""

    VERSION = 3  # 3: n_labels (multi-label models)

    model: object = sub(HOPrimalModel, HOImplicitModel, HODualModel)

    form_models = {"primal": HOPrimalModel, "implicit": HOImplicitModel,
                   "dual": HODualModel}


class HigherOrder(MatrixAlgorithm):
    """HO_p(c) as the driver runs it (the algorithm of
    :class:`HigherOrderPerceptron`; see its docstring for the parameters)."""

    state_type = HigherOrderState
    forms = ("primal", "implicit", "dual")
    precision_remedy = "normalise the input (normalize=True) or lower c"

    # ----------------------------------------------------------- forms
    def norm_p(self):
        return float(self.p)

    def auto_form(self, n_features):
        if self.kernel is not None:
            return "dual"
        if self.p == 2 and n_features <= _PRIMAL_MAX_FEATURES:
            return "primal"
        return "implicit"

    def resolve_form(self, n_features):
        form = super().resolve_form(n_features)
        if form in ("primal", "dual") and self.p != 2:
            raise ValueError(f"form={form!r} needs p=2 (got p={self.p}); "
                             "the implicit form takes any p")
        return form

    def new_model(self, form, n_problems, n_features, kernel, sparse):
        if form == "primal":
            return HOPrimalModel.zeros(n_problems, n_features)
        if form == "implicit":
            return HOImplicitModel.zeros(n_problems, n_features)
        return HODualModel.empty(kernel, n_problems, n_features, sparse)

    # ----------------------------------------------------------- passes
    def loop_store(self, model, call):
        """The loop's store of this call (:mod:`perceptrons._loops.higher_order`)."""
        c, sparse = float(self.c), bool(self.sparse)
        work = call.work
        if isinstance(model, HOPrimalModel):
            return HOPrimalStore(*work.rows, work.x_work, work.nz_work,
                                 model.w, c, sparse, model.A, model.v,
                                 np.empty(model.w.shape[1]))
        if isinstance(model, HOImplicitModel):
            return HOImplicitStore(*work.rows, work.x_work, work.nz_work,
                                   model.w, c, sparse, float(self.p),
                                   model.v, model.factors,
                                   np.empty((3, model.w.shape[1])))
        kc = call.dual
        return HODualStore(*kc.loop_args, kc.coef, c, sparse,
                           grown(model.v_coef, kc.X.shape[0]),
                           model.matrix_copy(), np.empty(16))

    def model_arrays(self, store):
        if isinstance(store, HOPrimalStore):
            return [store.w, store.v, store.A]
        if isinstance(store, HOImplicitStore):
            fx, fg, _, _, frho, _ = store.factors
            return [store.w, store.v, fx, fg, frho]
        D, _, h, _ = store.matrix
        return [store.coef, store.v_coef, D, h]

    def model_of_store(self, model, store):
        if isinstance(model, HOImplicitModel):
            # The loop reallocates the factors when they grow.
            model = model.replace(**dict(zip(
                ("fx", "fg", "fi", "fptr", "frho", "n_factors"),
                store.factors)))
        return model


@with_stopping_docs
class HigherOrderPerceptron(MatrixPerceptronBase):
    r"""Higher-order Perceptron HO_p(c), Brotto, Gentile & Vitale [1]_.

    A Perceptron whose sum vector v is read through a product matrix B
    built from the mistaken instances. On the k-th mistake, with ``x`` the
    instance (normalised, as the paper assumes) and :math:`\rho_k = c/k`
    (Figure 1; Sec. 3 for p > 2):

    .. math::

        B_k = B_{k-1}(I - \rho_k\, x\, g(x)^\top), \qquad
        v_k = v_{k-1} + y\, x,

    and a trial predicts :math:`\mathrm{sign}(w^\top x)` with
    :math:`w = B_k^\top g(B_k v_k)`, :math:`g = \nabla\|\theta\|_p^2/2`
    (the identity for p = 2). ``c = 0`` is the p-norm Perceptron (FO for
    p = 2); :math:`y\, w^\top x \le 0` is a mistake (ties are mistakes, as
    everywhere in the package).

    Parameters
    ----------
    p : float, default=2
        The norm, p >= 2.
    c : float, default=0.4
        :math:`\rho_k = c/k`, 0 <= c < 1 (the paper tries 0 to 0.8; 0.4 is
        in the middle of its best settings).
    sparse : bool, default=False
        The sparse variant of Sec. 4: :math:`\rho_k = 0` (v updated, B
        not) when :math:`y\, v_{k-1}^\top x < 0`.
    kernel : {None, "linear", "poly", "rbf"}, default=None
        None: the primal forms; otherwise the dual form with this kernel
        (p = 2 only).
    degree : int, default=3
        Polynomial kernel :math:`(\gamma\langle x, z\rangle + c_0)^d`.
    gamma : float or None, default=None
        Kernel γ; None means ``1 / n_features``.
    coef0 : float, default=0.0
        :math:`c_0` of the polynomial kernel.
    form : {"auto", "primal", "dual", "implicit"}, default="auto"
        How B is kept (Sec. 2): ``"primal"`` keeps :math:`A = B^\top B`
        (n × n; p = 2), ``"implicit"`` the rank-one factors of B (any p),
        ``"dual"`` the paper's D, H, g over the mistaken instances (kernels;
        p = 2). ``"auto"``: dual with a kernel, primal for p = 2 and at
        most 1024 features, implicit otherwise. All forms make the same
        mistakes and predictions (to rounding).
    normalize : bool, default=True
        Divide every instance by its p-norm (with a kernel, use
        :math:`k(x,z)/\sqrt{k(x,x)k(z,z)}`), in training and prediction;
        the paper assumes :math:`\|x\| = 1`. A row of norm 0 is refused.
    cache_size : float, default=200
        MB of kernel rows kept between passes (dual form; never changes a
        result).
    hypothesis : {"averaged", "last"}, default="averaged"
        The hypothesis to predict with: the average of the weights
        :math:`w_\tau` after each of the t trials (as the averaged
        Perceptron of Freund & Schapire; steadier on noisy data), or the
        last w, the paper's. Training is the same: the average is kept
        lazily, a mistake on trial τ adding the outgoing w times the trials
        it was held, O(n) (dual: O(support)) per mistake. The paper's
        protocols pass ``hypothesis="last"``.
    max_iter : int, default=10
        Passes over the data (the paper's OCR runs make one). The defaults
        (10 passes, the averaged hypothesis) are measured: on noisy
        ``make_classification`` data (2-4 classes, 9 sets, 5 seeds) they
        come within 4.2 points of LinearSVC on every run; one pass with
        the last hypothesis fell up to 12 points short.
    %(stopping_parameters)s
    shuffle : bool or "blocks", default=True
        Present each pass in a fresh random order (one order for all
        one-vs-rest problems). The paper's runs use the file order
        (``shuffle=False``).
        "blocks": a windowed shuffle for data larger than the cache
        (:func:`~perceptrons.utils.random.draw_order`).
    random_state : int, RandomState instance or None, default=None
        Seeds the orders.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes' rows, multiplied by ``sample_weight``
        (scikit-learn's meaning; see Notes for what a weight does).
    warm_start : bool, default=False
        ``fit`` continues the fitted state (B, v and k of every problem)
        instead of starting afresh.
    %(n_jobs)s

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    form_ : str
        The form in use.
    coef_ : ndarray of shape (n_problems, n_features)
        w of each problem, of the final hypothesis (averaged or last):
        ``decision_function(X) = X @ coef_.T + intercept_`` (raveled for two
        classes). Primal forms and the linear kernel; absent with other
        kernels. There is no threshold: ``intercept_`` is zeros.
    intercept_ : ndarray of shape (n_problems,)
    support_ : ndarray of shape (n_support,), int64
        Dual form: the mistaken instances' rows, numbered across calls.
    support_vectors_ : ndarray or CSR matrix of shape (n_support, n_features) or None
        The mistaken instances (dual form; with ``kernel="precomputed"``
        their rows of the training Gram matrix).
    dual_coef_ : ndarray of shape (n_problems, n_support) or None
        :math:`w = \sum_s` ``dual_coef_[k, s]`` :math:`\phi(s)` (normalised
        φ when ``normalize``) of the final hypothesis; for the last one the
        paper's g of Sec. 2, 2), summed over repeated instances.
    n_mistakes_ : int
        Mistakes made while training, summed over the one-vs-rest problems
        (the paper's "Train" column).
    n_mistakes_per_problem_ : ndarray of shape (n_problems,), int64
        k of each problem.
    n_matrix_updates_ : int
        Mistakes with :math:`\rho_k > 0` (B updated), summed over problems.
    n_updates_ : int
        Updates of v: equal to ``n_mistakes_``.
    mistakes_per_epoch_, updates_per_epoch_ : ndarray of shape (n_epochs,)
    n_iter_, t_ : int
        Passes made; examples presented.
    gamma_ : float or None
        The kernel γ in use (dual form).
    n_features_in_ : int

    See Also
    --------
    SecondOrderPerceptron : the second-order baseline of [1]_.
    Perceptron : ``Perceptron(eta=1, theta_init=0, threshold_step=0,
        hypothesis="last")`` is HO₂(0) on rows of unit norm.

    Notes
    -----
    Dual form (Sec. 2, 2)): with :math:`X_q` the instances whose mistake
    updated B, :math:`A = I + X_q D X_q^\top`, :math:`h = X_q^\top v` and
    :math:`w = v + X_q D h`. On a mistake with :math:`\rho_k > 0` and
    :math:`\kappa = X_q^\top x`, :math:`b = D\kappa`, D is bordered by
    :math:`-\rho_k b` and
    :math:`d_{kk} = \rho_k^2(\kappa^\top b + k(x,x)) - 2\rho_k` (the paper's
    :math:`\rho^2 x^\top X b - 2\rho + \rho^2` at :math:`k(x,x) = 1`), and h
    by :math:`v_{k-1}^\top x + y\,k(x,x)`. Only instances with
    :math:`\rho_k > 0` enter D, so a mistake costs O(q²) in the matrix
    updates q, not in the mistakes.

    One-vs-rest: each class has its own B, v and k (so :math:`\rho_k =
    c/k` counts that problem's mistakes); a test row goes to the class of
    largest :math:`w^\top x`.

    ``decision_function`` is :math:`w^\top x` of the row as given, also
    when ``normalize=True``: the paper's margin on the normalised row
    :math:`w^\top x/\|x\|_p` times the row's norm, a positive factor that
    every problem shares (same signs, same argmax), so that ``coef_``
    reproduces the decision.

    Row weights (``sample_weight`` times ``class_weight``): a mistake on a
    row of weight :math:`s > 0` adds s times its terms to both statistics,

    .. math::

        B_k = B_{k-1}(I - s\,\rho_k\, x\, g(x)^\top), \qquad
        v_k = v_{k-1} + s\, y\, x,

    in every form (dual: :math:`s\rho_k` borders D, h gains
    :math:`s\,y\,\kappa` and :math:`v^\top x + s\,y\,k(x,x)`). To first
    order :math:`B_k \approx I - \sum s\,\rho\, x\, g(x)^\top`, the
    weighted sum of the mistaken instances' outer products. k still counts
    mistakes (one each), and the sparse variant's gate still reads
    :math:`y\, v_{k-1}^\top x`. Theorem 1's condition
    :math:`\rho_k \le (1-c)/(1+|v_{k-1}^\top x|)` then bears on the step
    taken, :math:`s\rho_k`: weights much above 1 make large matrix steps
    (:math:`s\rho_k > 2` flips and stretches B along x). A row of weight 0
    is left out; weights of 1 give the unweighted run bit for bit.
    Weights only scale mistakes' updates: there is no intercept to move, so
    a heavy class cannot win rows that no hyperplane through the origin
    gives it (append a constant feature for an intercept).

    References
    ----------
    .. [1] C. Brotto, C. Gentile and F. Vitale. On higher-order perceptron
       algorithms. NIPS 20, 2007.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from perceptrons import HigherOrderPerceptron
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = HigherOrderPerceptron(c=0.4, random_state=0).fit(X, y)
    >>> clf.form_, clf.n_mistakes_ == clf.n_matrix_updates_
    ('primal', True)
    """

    _parameter_constraints = {
        **MatrixPerceptronBase._parameter_constraints,
        "p": [Interval(Real, 2, None, closed="left")],
        "c": [Interval(Real, 0, 1, closed="left")],
        "sparse": ["boolean"],
        "form": [StrOptions({"auto", "primal", "dual", "implicit"})],
    }

    _algorithm = HigherOrder

    @classmethod
    def _test_params(cls):
        return [{}, {"p": 4.0, "sparse": True, "max_iter": 3},
                {"kernel": "rbf", "max_iter": 2}]

    def __init__(self, *, p=2.0, c=0.4, sparse=False, kernel=None, degree=3,
                 gamma=None, coef0=0.0, form="auto", normalize=True,
                 cache_size=200, hypothesis="averaged", max_iter=10, tol=None,
                 n_iter_no_change=5, early_stopping=False,
                 validation_fraction=0.1, shuffle=True, random_state=None,
                 class_weight=None, warm_start=False, n_jobs=None):
        self.p = p
        self.c = c
        self.sparse = sparse
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
