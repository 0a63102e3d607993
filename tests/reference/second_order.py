"""Second-order Perceptron (SO), transcribed line by line (test oracle).

Slow on purpose: on every trial the matrix ``a I + S Sᵀ`` is built from
scratch from the stored mistaken instances plus the current one, and the
margin is obtained with :func:`numpy.linalg.solve` -- no Sherman-Morrison, no
incremental inverse -- so that the identities the estimators rely on are
tested, not assumed. Nothing is imported from ``perceptrons``.

The rule (Cesa-Bianchi, Conconi & Gentile 2005, Sec. 3, as summarised in
issue #10): with S the n×(k+1) matrix whose columns are the k past mistaken
instances followed by the current x_t, and v the sum of y x over the past
mistakes, predict ``sign(vᵀ(a I + S Sᵀ)⁻¹ x_t)``; a trial is a mistake iff
``y · margin <= 0`` (ties are mistakes); on a mistake x_t stays in S for good
and ``v += y_t x_t``. Nothing changes on a correct trial (the matrix is
updated only on mistakes).

    N. Cesa-Bianchi, A. Conconi and C. Gentile. A second-order perceptron
    algorithm. *SIAM J. Comput.* 34(3):640-668, 2005.
    https://doi.org/10.1137/S0097539703432542

Sample weights (issue #23): a mistake on row t of weight ``s_t > 0`` adds
s_t times its terms to both statistics, so ``S Sᵀ`` becomes
``Σ s_j x_j x_jᵀ`` over the past mistakes (plus the current ``x_t xᵀ_t``,
unweighted: the prediction does not read the weight) and ``v += s_t y_t x_t``;
rows of weight 0 are not presented.

``normalize=True`` divides every instance by its Euclidean norm (zero rows
raise). The common entry is :func:`fit` (``fit(X, y, **params) ->
tests.reference.higher_order.OvRResult``, the parameter names of
``perceptrons.SecondOrderPerceptron``). Kernels go through
:func:`tests.reference.higher_order.embed_gram`: SO's margin
depends on the instances only through their inner products, so SO on the rows
of L with ``L Lᵀ = K`` is kernel SO.
"""

import dataclasses

import numpy as np

from tests.reference.higher_order import (  # noqa: F401
    OvRResult,
    densify,
    kernel_features,
    kernel_ovr,
    normalized,
    ovr_reference,
)


@dataclasses.dataclass
class SecondOrderResult:
    """Everything SO did on one binary problem.

    Per trial, in presentation order over all epochs: ``margins``,
    ``mistakes`` (bool), ``rows``. Per mistake: ``mistake_rows``,
    ``instances`` (the (normalised) x_t, the columns of S), ``labels``.
    Final state: ``v`` and ``A = a I + Σ_{mistakes} s x xᵀ`` (s the rows'
    weights, 1 unweighted).
    """

    a: float
    normalize: bool
    margins: list
    mistakes: list
    rows: list
    n_mistakes: int
    mistakes_per_epoch: list
    v: np.ndarray
    A: np.ndarray
    mistake_rows: np.ndarray
    instances: np.ndarray
    labels: np.ndarray

    @property
    def n_matrix_updates(self):
        """Every mistake updates the matrix (for :func:`ovr_reference`)."""
        return self.n_mistakes

    def decision_function(self, Z):
        """The paper's margin ``vᵀ(A + z zᵀ)⁻¹ z`` on each row z of Z.

        z is normalised as in training; a zero row scores 0.
        """
        Z = densify(Z)
        out = np.zeros(Z.shape[0])
        for i, z in enumerate(Z):
            if self.normalize:
                if not np.any(z):
                    continue
                z = normalized(z, 2.0)
            out[i] = float(self.v @ np.linalg.solve(self.A + np.outer(z, z), z))
        return out


def second_order_reference(X, y, orders, *, a=1.0, normalize=False,
                           sample_weight=None):
    """Run the second-order Perceptron on one binary problem.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
    y : array of shape (n_samples,), values in {-1, +1}
    orders : list of index arrays
        The rows presented in each epoch, in order.
    a : float, default=1.0
        The parameter a > 0 of ``a I + S Sᵀ``.
    normalize : bool, default=False
        Divide each instance by its Euclidean norm (zero rows raise).
    sample_weight : array of shape (n_samples,), optional
        Row weights s_t >= 0: a mistake on row t adds ``s_t x xᵀ`` to the
        matrix and ``s_t y x`` to v; rows of weight 0 are skipped. None:
        every weight is 1.

    Returns
    -------
    SecondOrderResult
    """
    X = densify(X)
    y = np.asarray(y, dtype=np.float64)
    n = X.shape[1]
    weight = (np.ones(X.shape[0]) if sample_weight is None
              else np.asarray(sample_weight, dtype=np.float64))
    past = []  # the mistaken instances: columns of S except the last
    past_weights = []  # their weights
    v = np.zeros(n)
    margins, flags, rows, per_epoch = [], [], [], []
    mistake_rows, labels = [], []
    for order in orders:
        epoch_mistakes = 0
        for t in order:
            t = int(t)
            if weight[t] == 0.0:
                continue  # a row of weight 0 is not presented
            x = X[t]
            if normalize:
                x = normalized(x, 2.0, row=t)
            y_t = float(y[t])
            s_t = float(weight[t])
            # S = [past mistakes, x_t], W their weights (the current x_t's
            # 1); margin = vᵀ (a I + S W Sᵀ)⁻¹ x_t.
            S = np.column_stack(past + [x])
            W = np.diag(past_weights + [1.0])
            M = a * np.eye(n) + S @ W @ S.T
            margin = float(v @ np.linalg.solve(M, x))
            margins.append(margin)
            rows.append(t)
            mistake = y_t * margin <= 0.0
            flags.append(mistake)
            if not mistake:
                continue  # x_t leaves S
            epoch_mistakes += 1
            past.append(x.copy())
            past_weights.append(s_t)
            mistake_rows.append(t)
            labels.append(y_t)
            v = v + s_t * y_t * x
        per_epoch.append(epoch_mistakes)
    instances = np.array(past).reshape(-1, n)
    return SecondOrderResult(
        a=float(a),
        normalize=bool(normalize),
        margins=margins,
        mistakes=flags,
        rows=rows,
        n_mistakes=len(past),
        mistakes_per_epoch=per_epoch,
        v=v,
        A=a * np.eye(n) + instances.T @ (np.array(past_weights).reshape(-1, 1)
                                         * instances),
        mistake_rows=np.array(mistake_rows, dtype=np.int64),
        instances=instances,
        labels=np.array(labels),
    )


def second_order_kernel_reference(X, y, orders, *, kernel="rbf", degree=3,
                                  gamma=None, coef0=0.0, X_test=None, **kw):
    """Kernel SO through :func:`higher_order.kernel_features`.

    Returns ``(result, test_scores)`` (None without ``X_test``); ``kw`` goes to
    :func:`second_order_reference` (a, normalize: with it, the feature-space
    normalisation ``k(x,x')/√(k(x,x)k(x',x'))``).
    """
    L, L_test = kernel_features(X, X_test, kernel, degree=degree, gamma=gamma,
                                coef0=coef0)
    result = second_order_reference(L, y, orders, **kw)
    scores = None if L_test is None else result.decision_function(L_test)
    return result, scores


def fit(X, y, *, a=1.0, normalize=False, kernel=None, degree=3, gamma=None,
        coef0=0.0, max_iter=1, orders=None, X_test=None, sample_weight=None):
    """SO, one-vs-rest, for ``max_iter`` passes in order.

    The parameters are ``perceptrons.SecondOrderPerceptron``'s (defaults
    included); ``orders`` and ``X_test`` as in
    :func:`tests.reference.higher_order.fit`. ``coef`` is ``A⁻¹v`` per
    problem (primal runs). ``sample_weight`` as in
    :func:`second_order_reference`, for every OvR problem.

    Returns
    -------
    tests.reference.higher_order.OvRResult
    """
    n = densify(X).shape[0]
    orders = [np.arange(n)] * max_iter if orders is None else orders
    if kernel is None:
        res = ovr_reference(second_order_reference, X, y, orders, a=a,
                            normalize=normalize, sample_weight=sample_weight)
        if X_test is not None:
            res.test_scores = res.decision_function(X_test)
        return res
    return kernel_ovr(second_order_kernel_reference, X, y, orders,
                      kernel=kernel, degree=degree, gamma=gamma, coef0=coef0,
                      X_test=X_test, a=a, normalize=normalize,
                      sample_weight=sample_weight)
