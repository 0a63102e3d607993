"""Higher-order Perceptron HO_p(c), Figure 1, transcribed line by line (test oracle).

Slow on purpose: the product matrix B is an explicit n×n array, multiplied by
an explicit factor ``I - ρ x g(x)ᵀ`` on every matrix update, and the margin
``g(B v)ᵀ (B x)`` is recomputed from B and v on every trial. Sparse input is
densified here (``densify`` of the Khardon-Wachman oracle), and only here.
Nothing is imported from ``perceptrons``.

The transcription follows Figure 1 and Sec. 2, 3) of

    C. Brotto, C. Gentile and F. Vitale. On higher-order perceptron
    algorithms. In *Advances in Neural Information Processing Systems 20*
    (NIPS 2007), pp. 521-528.

with the readings fixed by issue #10:

* instances are normalised, ``x̂ = x / ‖x‖_p`` (Euclidean for p = 2; a zero
  row cannot be normalised and raises), unless ``normalize=False``;
* ``g(θ) = ∇‖θ‖²_p / 2 = sign(θ)|θ|^{p-1} / ‖θ‖_p^{p-2}`` (g(0) = 0; the
  identity for p = 2);
* the margin is ``g(B_{k-1} v_{k-1})ᵀ B_{k-1} x̂`` and a trial is a mistake iff
  ``y · margin <= 0`` (ties are mistakes, as everywhere in the package);
* on the k-th mistake ``ρ_k = c/k`` -- or, ``sparse=True`` (Sec. 4, "sparse
  dual version"), ``c/k`` only if ``y v_{k-1}·x̂ >= 0`` and 0 otherwise -- then
  ``B_k = B_{k-1}(I - ρ_k x̂ g(x̂)ᵀ)`` and ``v_k = v_{k-1} + y x̂``; a matrix
  update is counted when ``ρ_k > 0``;
* mistakes and ``k`` run on across epochs (one long sequence);
* sample weights (issue #23): a mistake on row t of weight ``s_t > 0`` adds
  s_t times its terms to both statistics, ``B_k = B_{k-1}(I - s_t ρ_k x̂
  g(x̂)ᵀ)`` and ``v_k = v_{k-1} + s_t y x̂``; k counts mistakes (one each),
  the sparse gate reads ``y v_{k-1}·x̂`` as before, and rows of weight 0 are
  not presented at all;
* one-vs-rest: K independent binary problems over the same presentation
  order (two classes: one problem, ``classes_[1]`` positive).

A Mercer kernel enters through :func:`embed_gram`: with ``L Lᵀ = K`` over the
training *and* test points, Figure 1 on the rows of L (row-normalised, which is
the feature-space normalisation ``k(x,x')/√(k(x,x)k(x',x'))``) is the kernel
algorithm on those points, to rounding.

The common entry is :func:`fit` (``fit(X, y, **params) -> OvRResult``, the
parameter names of ``perceptrons.HigherOrderPerceptron``, rows in their given
order unless ``orders`` says otherwise).
"""

import dataclasses
from typing import Optional

import numpy as np

from tests.reference.kernels import densify  # dense float64 rows
from tests.reference.kernels import gram as _plain_gram


# --------------------------------------------------------------------------
# p-norm, its gradient map and the normalisation of Sec. 2, 3).
# --------------------------------------------------------------------------
def p_norm(x, p):
    """‖x‖_p, computed as max|x| · ‖x / max|x|‖_p so that large p cannot overflow."""
    scale = float(np.max(np.abs(x))) if x.size else 0.0
    if scale == 0.0:
        return 0.0
    if p == 2.0:
        return float(np.linalg.norm(x))
    return scale * float(np.sum((np.abs(x) / scale) ** p)) ** (1.0 / p)


def link(theta, p):
    """g(θ) = ∇‖θ‖²_p / 2 = sign(θ)|θ|^{p-1} / ‖θ‖_p^{p-2}; g(0) = 0.

    Written as ``s · sign(θ)(|θ|/s)^{p-1}`` with ``s = ‖θ‖_p`` (the same
    value, without overflow for large p). For p = 2 it returns θ itself.
    """
    theta = np.asarray(theta, dtype=np.float64)
    if p == 2.0:
        return theta.copy()
    s = p_norm(theta, p)
    if s == 0.0:
        return np.zeros_like(theta)
    return s * np.sign(theta) * (np.abs(theta) / s) ** (p - 1.0)


def normalized(x, p, row=None):
    """x / ‖x‖_p; a zero row cannot be normalised (Sec. 1 assumes ‖x_t‖ = 1)."""
    norm = p_norm(x, p)
    if norm == 0.0:
        where = "" if row is None else f" (row {row})"
        raise ValueError(f"cannot normalise a zero instance{where}")
    return x / norm


# --------------------------------------------------------------------------
# One binary problem: Figure 1.
# --------------------------------------------------------------------------
@dataclasses.dataclass
class HigherOrderResult:
    """Everything Figure 1 did on one binary problem.

    Per trial, in presentation order over all epochs: ``margins`` (the value
    ``g(B v)ᵀ(B x̂)`` the prediction used), ``mistakes`` (bool), ``rows`` (the
    row of X presented). Per mistake k = 1..m, in order: ``mistake_rows``
    (t(k) as a row of X), ``instances`` (x̂_{t(k)}), ``labels`` (y_{t(k)}),
    ``transformed`` (B_{k-1} x̂_{t(k)}: the instances of Eq. (1)'s S̃),
    ``rhos`` (ρ_k used), ``v_dots`` (v_{k-1}·x̂_{t(k)}, before the update).
    Final state: ``B``, ``v`` and ``w = Bᵀ g(B v)``.
    """

    p: float
    normalize: bool
    margins: list
    mistakes: list
    rows: list
    n_mistakes: int
    n_matrix_updates: int
    mistakes_per_epoch: list
    matrix_updates_per_epoch: list
    B: np.ndarray
    v: np.ndarray
    w: np.ndarray
    mistake_rows: np.ndarray
    instances: np.ndarray
    labels: np.ndarray
    transformed: np.ndarray
    rhos: np.ndarray
    v_dots: np.ndarray

    def decision_function(self, Z):
        """Margins ``g(B v)ᵀ(B ẑ)`` of the final state on the rows of Z.

        ẑ is normalised as in training; a zero row scores 0 (its margin under
        any scaling).
        """
        Z = densify(Z)
        u = link(self.B @ self.v, self.p)
        out = np.zeros(Z.shape[0])
        for i, z in enumerate(Z):
            if self.normalize:
                if p_norm(z, self.p) == 0.0:
                    continue
                z = normalized(z, self.p)
            out[i] = float(u @ (self.B @ z))
        return out


def higher_order_reference(X, y, orders, *, p=2.0, c=0.4, sparse=False,
                           normalize=True, rho=None, sample_weight=None):
    """Run Figure 1 of Brotto, Gentile & Vitale (2007) on one binary problem.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
    y : array of shape (n_samples,), values in {-1, +1}
    orders : list of index arrays
        The rows presented in each epoch, in order (one array per epoch).
    p : float, default=2.0
        Norm parameter p >= 2 of the dual-norm extension (Sec. 2, 3)).
    c : float, default=0.4
        ρ_k = c/k on the k-th mistake.
    sparse : bool, default=False
        Sec. 4's sparse version: ρ_k = 0 when y v_{k-1}·x̂ < 0.
    normalize : bool, default=True
        Divide each instance by its p-norm (zero rows raise ValueError).
    rho : callable, optional
        ``rho(k, v_{k-1}, x̂, y) -> ρ_k`` replacing c/k (the sparse gate, if
        on, still applies after it). For Theorem 1's condition.
    sample_weight : array of shape (n_samples,), optional
        Row weights s_t >= 0: a mistake on row t takes the steps
        ``s_t ρ_k`` (B) and ``s_t y`` (v); rows of weight 0 are skipped
        (never presented). None: every weight is 1.

    Returns
    -------
    HigherOrderResult
    """
    X = densify(X)
    y = np.asarray(y, dtype=np.float64)
    weight = (np.ones(X.shape[0]) if sample_weight is None
              else np.asarray(sample_weight, dtype=np.float64))
    p = float(p)
    n = X.shape[1]
    # Initialisation: B_0 = I, v_0 = 0, k = 0.
    B = np.eye(n)
    v = np.zeros(n)
    k = 0
    margins, flags, rows = [], [], []
    per_epoch, updates_per_epoch = [], []
    mistake_rows, instances, labels, transformed, rhos, v_dots = [], [], [], [], [], []
    n_updates = 0
    for order in orders:
        epoch_mistakes = epoch_updates = 0
        for t in order:
            t = int(t)
            if weight[t] == 0.0:
                continue  # a row of weight 0 is not presented
            x = X[t]
            if normalize:
                x = normalized(x, p, row=t)
            y_t = float(y[t])
            s_t = float(weight[t])
            # Prediction: ŷ = sign(g(B_{k-1} v_{k-1})ᵀ B_{k-1} x̂).
            Bx = B @ x
            margin = float(link(B @ v, p) @ Bx)
            margins.append(margin)
            rows.append(t)
            mistake = y_t * margin <= 0.0
            flags.append(mistake)
            if not mistake:
                continue
            # k-th mistake.
            k += 1
            epoch_mistakes += 1
            v_dot = float(v @ x)
            rho_k = c / k if rho is None else float(rho(k, v.copy(), x.copy(), y_t))
            if sparse and y_t * v_dot < 0.0:
                rho_k = 0.0
            # The row's weight multiplies the matrix step.
            rho_k = s_t * rho_k
            mistake_rows.append(t)
            instances.append(x.copy())
            labels.append(y_t)
            transformed.append(Bx.copy())
            rhos.append(rho_k)
            v_dots.append(v_dot)
            # B_k = B_{k-1} (I - s ρ_k x̂ g(x̂)ᵀ)  (ρ_k here already s ρ_k)
            if rho_k > 0.0:
                B = B @ (np.eye(n) - rho_k * np.outer(x, link(x, p)))
                n_updates += 1
                epoch_updates += 1
            # v_k = v_{k-1} + s y x̂
            v = v + s_t * y_t * x
        per_epoch.append(epoch_mistakes)
        updates_per_epoch.append(epoch_updates)
    return HigherOrderResult(
        p=p,
        normalize=bool(normalize),
        margins=margins,
        mistakes=flags,
        rows=rows,
        n_mistakes=k,
        n_matrix_updates=n_updates,
        mistakes_per_epoch=per_epoch,
        matrix_updates_per_epoch=updates_per_epoch,
        B=B,
        v=v,
        w=B.T @ link(B @ v, p),
        mistake_rows=np.array(mistake_rows, dtype=np.int64),
        instances=np.array(instances).reshape(-1, n),
        labels=np.array(labels),
        transformed=np.array(transformed).reshape(-1, n),
        rhos=np.array(rhos),
        v_dots=np.array(v_dots),
    )


# --------------------------------------------------------------------------
# One-vs-rest.
# --------------------------------------------------------------------------
@dataclasses.dataclass
class OvRResult:
    """K binary runs over the same presentation order (the state of
    :func:`fit`).

    ``problems[k]`` is the result of problem k (class ``classes[k]`` against
    the rest; with two classes a single problem with ``classes[1]``
    positive). ``n_mistakes`` (and ``n_matrix_updates`` when the runs have
    it) total over the problems, like the paper's "Train" column;
    ``mistakes_per_epoch`` sums the problems epoch by epoch;
    ``n_mistakes_per_problem`` lists them. ``coef`` holds each problem's
    primal weight vector (None for kernel runs, which live in an embedding
    of the Gram matrix); ``test_scores`` the decision values on the
    ``X_test`` given to :func:`fit` (kernel runs can score no other rows).
    """

    classes: np.ndarray
    problems: list
    n_mistakes: int
    n_matrix_updates: int
    mistakes_per_epoch: Optional[np.ndarray] = None
    n_mistakes_per_problem: Optional[np.ndarray] = None
    coef: Optional[np.ndarray] = None
    test_scores: Optional[np.ndarray] = None
    kernel: Optional[str] = None

    def decision_function(self, Z):
        """(n,) scores for two classes, else (n, K)."""
        if self.kernel is not None:
            raise ValueError("a kernel run scores only the X_test given to "
                             "fit (see test_scores)")
        scores = np.column_stack([r.decision_function(Z) for r in self.problems])
        return scores[:, 0] if len(self.classes) == 2 else scores

    def predict(self, Z):
        """classes[1] where the score is > 0 (two classes), else the argmax
        (lowest index among equals), as the package's estimators."""
        scores = self.decision_function(Z)
        if scores.ndim == 1:
            return self.classes[(scores > 0.0).astype(int)]
        return self.classes[np.argmax(scores, axis=1)]


def ovr_targets(y_classes):
    """(classes, list of ±1 target vectors), one per binary problem."""
    y_classes = np.asarray(y_classes)
    classes = np.unique(y_classes)
    if len(classes) < 2:
        raise ValueError("one-vs-rest needs at least two classes")
    positives = classes[1:] if len(classes) == 2 else classes
    return classes, [np.where(y_classes == cl, 1.0, -1.0) for cl in positives]


def ovr_reference(fn, X, y_classes, orders, **kw):
    """Run the binary oracle ``fn(X, y, orders, **kw)`` once per OvR problem."""
    classes, targets = ovr_targets(y_classes)
    problems = [fn(X, target, orders, **kw) for target in targets]
    return _collect(classes, problems)


def _collect(classes, problems, test_scores=None, kernel=None):
    return OvRResult(
        classes=classes,
        problems=problems,
        n_mistakes=int(sum(r.n_mistakes for r in problems)),
        n_matrix_updates=int(sum(getattr(r, "n_matrix_updates", 0) for r in problems)),
        mistakes_per_epoch=np.sum([r.mistakes_per_epoch for r in problems],
                                  axis=0),
        n_mistakes_per_problem=np.array([r.n_mistakes for r in problems]),
        coef=(None if kernel is not None
              else np.array([_primal_w(r) for r in problems])),
        test_scores=test_scores,
        kernel=kernel,
    )


def _primal_w(run):
    """w of a primal run: HO's ``Bᵀg(Bv)``; for SO, whose margin is not
    linear in x, ``A⁻¹v`` (the numerator of the Sherman-Morrison form
    ``vᵀA⁻¹x / (1 + xᵀA⁻¹x)``)."""
    if hasattr(run, "w"):
        return run.w
    return np.linalg.solve(run.A, run.v)


def kernel_ovr(fn, X, y_classes, orders, *, kernel, degree, gamma, coef0,
               X_test=None, **kw):
    """One-vs-rest of a kernel oracle ``fn`` (returning ``(result,
    test_scores)``), as an :class:`OvRResult` whose ``test_scores`` are
    ``X_test``'s, (n,) for two classes, else (n, K)."""
    classes, targets = ovr_targets(y_classes)
    runs = [fn(X, target, orders, kernel=kernel, degree=degree, gamma=gamma,
               coef0=coef0, X_test=X_test, **kw) for target in targets]
    scores = None
    if X_test is not None:
        scores = np.column_stack([s for _, s in runs])
        scores = scores[:, 0] if len(classes) == 2 else scores
    return _collect(classes, [r for r, _ in runs], scores, kernel)


def fit(X, y, *, p=2.0, c=0.4, sparse=False, normalize=True, kernel=None,
        degree=3, gamma=None, coef0=0.0, max_iter=1, orders=None,
        X_test=None, sample_weight=None):
    """Figure 1, one-vs-rest, for ``max_iter`` passes in order.

    The parameters are ``perceptrons.HigherOrderPerceptron``'s (defaults
    included; the estimator's ``form`` is how it computes, not what). The
    rows are presented in order (``shuffle=False``) unless ``orders`` (one
    index array per epoch) is given. With a ``kernel``, Figure 1 runs on an
    explicit feature map of the joint Gram matrix of X and ``X_test``
    (p = 2), and ``test_scores`` are ``X_test``'s decision values.
    ``sample_weight`` (one per row, >= 0; None: all 1) weighs each
    mistake's steps and leaves out the rows of weight 0
    (:func:`higher_order_reference`); it applies to every OvR problem.

    Returns
    -------
    OvRResult
    """
    n = densify(X).shape[0]
    orders = [np.arange(n)] * max_iter if orders is None else orders
    if kernel is None:
        res = ovr_reference(higher_order_reference, X, y, orders, p=p, c=c,
                            sparse=sparse, normalize=normalize,
                            sample_weight=sample_weight)
        if X_test is not None:
            res.test_scores = res.decision_function(X_test)
        return res
    if p != 2.0:
        raise ValueError("the dual form exists for p = 2 only")
    return kernel_ovr(higher_order_kernel_reference, X, y, orders,
                      kernel=kernel, degree=degree, gamma=gamma, coef0=coef0,
                      X_test=X_test, c=c, sparse=sparse, normalize=normalize,
                      sample_weight=sample_weight)


# --------------------------------------------------------------------------
# Kernels: an explicit feature map of a Gram matrix.
# --------------------------------------------------------------------------
def gram(A, B, kernel, *, degree=3, gamma=None, coef0=0.0):
    """k(a, b) for all rows: linear ``⟨a,b⟩``; poly ``(γ⟨a,b⟩ + coef0)^degree``;
    rbf ``exp(-γ‖a-b‖²)`` (:func:`tests.reference.kernels.gram`, with this
    family's ``coef0=0`` default). ``gamma=None`` is ``1 / n_features`` (the
    estimators' ``gamma_``)."""
    return _plain_gram(A, B, kernel, degree=degree, gamma=gamma, coef0=coef0)


def joint_gram(X_train, X_test=None, kernel="rbf", **params):
    """Gram matrix of the stacked rows ``[X_train; X_test]``."""
    X_train = densify(X_train)
    Z = X_train if X_test is None else np.vstack([X_train, densify(X_test)])
    return gram(Z, Z, kernel, **params)


def embed_gram(K, tol=1e-10):
    """L with ``L Lᵀ = K`` (symmetric eigendecomposition).

    Eigenvalues below 0 are rounding noise of a positive semidefinite K and
    are clipped to 0; a clearly negative one (below ``-tol · max|λ|``) means
    K is not a Gram matrix and raises.
    """
    K = np.asarray(K, dtype=np.float64)
    K = (K + K.T) / 2.0
    lam, V = np.linalg.eigh(K)
    top = float(np.max(np.abs(lam))) if lam.size else 0.0
    if lam.size and lam.min() < -tol * max(top, 1.0):
        raise ValueError(f"K is not positive semidefinite (eigenvalue {lam.min()})")
    return V * np.sqrt(np.clip(lam, 0.0, None))


def kernel_features(X_train, X_test=None, kernel="rbf", **params):
    """(L_train, L_test): rows of :func:`embed_gram` of the joint Gram matrix.

    ``L_test`` is None without test points.
    """
    L = embed_gram(joint_gram(X_train, X_test, kernel, **params))
    n_train = densify(X_train).shape[0]
    return L[:n_train], (None if X_test is None else L[n_train:])


def higher_order_kernel_reference(X, y, orders, *, kernel="rbf", degree=3,
                                  gamma=None, coef0=0.0, X_test=None, **kw):
    """Figure 1 (p = 2) with a kernel, through :func:`kernel_features`.

    Returns ``(result, test_scores)``; ``test_scores`` is None without
    ``X_test``. ``kw`` goes to :func:`higher_order_reference` (c, sparse,
    normalize, rho); p is 2: the dual form of Sec. 2, 2) exists for p = 2 only.
    """
    L, L_test = kernel_features(X, X_test, kernel, degree=degree, gamma=gamma,
                                coef0=coef0)
    result = higher_order_reference(L, y, orders, p=2.0, **kw)
    scores = None if L_test is None else result.decision_function(L_test)
    return result, scores
