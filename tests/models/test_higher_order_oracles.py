"""HigherOrderPerceptron and SecondOrderPerceptron against independent
oracles, and the HO_p(c) and SO references (``tests/reference/``) against the
same oracles.

Each oracle below is a second, independent derivation of what the estimator
must compute; each test runs it, the reference, and the estimator on the same
presentation order, and the three must agree:

* HO with c = 0 is the Perceptron (p = 2) and the p-norm Perceptron (p > 2),
  written here as explicit loops;
* p = 2: ``w = Bᵀ g(B v) = BᵀB v``; the primal update of A = BᵀB (Sec. 2, 1))
  and the dual D_k, H_k, g_k recursion (Sec. 2, 2)) reproduce the margins
  trial by trial, the latter with an RBF kernel too;
* g is the gradient of ‖θ‖²_p/2 (finite differences) with its duality
  identities; the sparse variant gates ρ_k on ``y v·x >= 0``;
* SO's explicit-inverse margin equals the Sherman-Morrison form
  ``vᵀA⁻¹x/(1 + xᵀA⁻¹x)`` and the dual ``βᵀk/(1 + (k(x,x) - kᵀ(aI+K)⁻¹k)/a)``;
* ``embed_gram`` reproduces K; kernel oracles with the linear kernel equal the
  primal ones; one-vs-rest bookkeeping; CSR equals dense; zero rows raise in
  the reference.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from perceptrons.utils.random import epoch_orders
from tests.models._paper_matrix import (HigherOrderPerceptron,
                                         SecondOrderPerceptron, linear_part,
                                         paper_margins)
from tests.reference import higher_order, second_order
from tests.reference.higher_order import (
    embed_gram,
    gram,
    higher_order_kernel_reference,
    higher_order_reference,
    joint_gram,
    link,
    ovr_reference,
)
from tests.reference.second_order import (
    second_order_kernel_reference,
    second_order_reference,
)
from tests.reference.streams import make_stream

TOL = 1e-9


def stream(seed, n=60, d=5, flip=0.1, unit=True):
    """Linearly labelled Gaussian rows (unit norm unless ``unit=False``),
    labels ±1 with label noise."""
    s = make_stream(seed, n=n, d=d, values="unit" if unit else "float",
                    noise=flip, every_class=False, labels=[-1.0, 1.0])
    return s.X, s.y


def fitted(cls, X, y, n_epochs, seed, **params):
    """(estimator, its presentation orders): shuffled epochs from ``seed``;
    the oracles then run on the same orders."""
    est = cls(max_iter=n_epochs, shuffle=True, random_state=seed,
              **params).fit(X, y)
    return est, list(epoch_orders(seed, X.shape[0], n_epochs, True))


def unit(X):
    return X / np.linalg.norm(X, axis=1, keepdims=True)


# ---------------------------------------------------------------------------
# Higher-order Perceptron
# ---------------------------------------------------------------------------


def perceptron_loop(X, y, order_list):
    """Rosenblatt's Perceptron from w = 0, ties are mistakes."""
    w = np.zeros(X.shape[1])
    flags = []
    for order in order_list:
        for t in order:
            mistake = y[t] * (w @ X[t]) <= 0.0
            flags.append(mistake)
            if mistake:
                w = w + y[t] * X[t]
    return flags, w


def p_norm_loop(X, y, order_list, p):
    """The p-norm Perceptron (Grove et al.; Gentile 2003) on p-normalised rows,
    with g written directly as sign(θ)|θ|^{p-1}/‖θ‖_p^{p-2}."""
    w = np.zeros(X.shape[1])
    flags, margins = [], []
    for order in order_list:
        for t in order:
            x = X[t] / np.sum(np.abs(X[t]) ** p) ** (1.0 / p)
            norm = np.sum(np.abs(w) ** p) ** (1.0 / p)
            g = (np.sign(w) * np.abs(w) ** (p - 1) / norm ** (p - 2)
                 if norm > 0 else np.zeros_like(w))
            margin = g @ x
            margins.append(margin)
            flags.append(y[t] * margin <= 0.0)
            if flags[-1]:
                w = w + y[t] * x
    return flags, margins, w


@pytest.mark.reference
@pytest.mark.parametrize("form", ["primal", "implicit"])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("n_epochs", [1, 3])
def test_c_zero_is_the_perceptron(seed, n_epochs, form):
    X, y = stream(seed)
    est, order_list = fitted(HigherOrderPerceptron, X, y, n_epochs, seed,
                             c=0.0, form=form)
    run = higher_order_reference(X, y, order_list, c=0.0)
    flags, w = perceptron_loop(X, y, order_list)
    assert run.mistakes == flags
    assert run.n_mistakes == sum(flags) == sum(run.mistakes_per_epoch)
    assert run.n_matrix_updates == 0
    assert_array_equal(run.B, np.eye(X.shape[1]))
    assert_allclose(run.v, w, atol=1e-12)
    assert_allclose(run.w, w, atol=1e-12)
    # The package: the Perceptron's mistakes, epoch by epoch, and its w.
    assert est.n_mistakes_ == sum(flags)
    assert_array_equal(est.mistakes_per_epoch_, run.mistakes_per_epoch)
    assert est.n_matrix_updates_ == 0
    assert_allclose(linear_part(est)[0], w, atol=1e-12)
    assert_allclose(paper_margins(est, X), X @ w, atol=1e-12)


@pytest.mark.reference
def test_normalize_divides_by_the_norm():
    X, y = stream(4, unit=False)
    X *= np.random.default_rng(0).uniform(0.1, 10.0, (len(y), 1))
    est, order_list = fitted(HigherOrderPerceptron, X, y, 2, 4, c=0.5)
    a = higher_order_reference(X, y, order_list, c=0.5)
    b = higher_order_reference(unit(X), y, order_list, c=0.5,
                               normalize=False)
    assert a.mistakes == b.mistakes
    assert_allclose(a.margins, b.margins, rtol=1e-9, atol=1e-12)
    # The package normalises too: unit rows without normalisation are the
    # same run.
    est_unit = HigherOrderPerceptron(c=0.5, normalize=False, max_iter=2,
                                     shuffle=True, random_state=4).fit(
        unit(X), y)
    assert est.n_mistakes_ == est_unit.n_mistakes_ == a.n_mistakes
    assert_allclose(linear_part(est)[0], a.w, rtol=1e-9, atol=1e-12)
    assert_allclose(linear_part(est_unit)[0], a.w, rtol=1e-9, atol=1e-12)


@pytest.mark.reference
@pytest.mark.parametrize("p", [3.0, 4.0, 7.0, 10.0])
def test_c_zero_is_the_p_norm_perceptron(p):
    X, y = stream(5, n=80, d=8, unit=False)
    est, order_list = fitted(HigherOrderPerceptron, X, y, 2, 5, p=p, c=0.0)
    run = higher_order_reference(X, y, order_list, p=p, c=0.0)
    flags, margins, w = p_norm_loop(X, y, order_list, p)
    assert run.mistakes == flags
    assert_allclose(run.margins, margins, rtol=1e-9, atol=1e-12)
    assert_allclose(run.v, w, atol=1e-12)
    # The package: the p-norm Perceptron's mistakes, and its margins g(w)·x̂
    # on new rows.
    assert est.n_mistakes_ == sum(flags)
    Z = make_stream(6, n=15, d=8).X
    Zp = Z / np.sum(np.abs(Z) ** p, axis=1, keepdims=True) ** (1.0 / p)
    norm = np.sum(np.abs(w) ** p) ** (1.0 / p)
    g = np.sign(w) * np.abs(w) ** (p - 1) / norm ** (p - 2)
    assert_allclose(paper_margins(est, Z), Zp @ g, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("p", [2.0, 3.0, 4.5, 10.0])
def test_link_is_the_gradient_of_half_the_squared_p_norm(p):
    rng = np.random.default_rng(int(p))
    theta = rng.standard_normal(6)
    f = lambda z: 0.5 * np.sum(np.abs(z) ** p) ** (2.0 / p)  # noqa: E731
    h = 1e-6
    numeric = np.array([(f(theta + h * e) - f(theta - h * e)) / (2 * h)
                        for e in np.eye(6)])
    g = link(theta, p)
    assert_allclose(g, numeric, rtol=1e-6, atol=1e-8)
    # θᵀg(θ) = ‖θ‖_p² and ‖g(θ)‖_q = ‖θ‖_p with 1/p + 1/q = 1.
    norm_p = np.sum(np.abs(theta) ** p) ** (1 / p)
    q = p / (p - 1.0)
    assert theta @ g == pytest.approx(norm_p**2)
    assert np.sum(np.abs(g) ** q) ** (1 / q) == pytest.approx(norm_p)
    assert_array_equal(link(np.zeros(3), p), np.zeros(3))
    # Huge entries do not overflow for large p.
    assert np.all(np.isfinite(link(np.array([1e300, -3e299]), 10.0)))


@pytest.mark.reference
@pytest.mark.parametrize("form", ["primal", "implicit"])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("c", [0.2, 0.8])
def test_p2_weights_and_the_primal_update_of_sec2(seed, c, form):
    """w = BᵀBv, and A_k = A - ρAxxᵀ - ρxxᵀA + ρ²(xᵀAx)xxᵀ gives margins vᵀAx."""
    X, y = stream(seed)
    est, order_list = fitted(HigherOrderPerceptron, X, y, 2, seed, c=c,
                             form=form)
    run = higher_order_reference(X, y, order_list, c=c)
    assert_allclose(run.w, run.B.T @ run.B @ run.v, atol=1e-12)
    n = X.shape[1]
    A, v, k = np.eye(n), np.zeros(n), 0
    margins = []
    for order in order_list:
        for t in order:
            x = X[t] / np.linalg.norm(X[t])
            margins.append(v @ A @ x)
            if y[t] * margins[-1] <= 0.0:
                k += 1
                rho = c / k
                Ax = A @ x
                A = (A - rho * np.outer(Ax, x) - rho * np.outer(x, Ax)
                     + rho**2 * (x @ Ax) * np.outer(x, x))
                v = v + y[t] * x
    assert_allclose(margins, run.margins, rtol=1e-9, atol=1e-12)
    assert k == run.n_mistakes
    assert_allclose(A, run.B.T @ run.B, atol=1e-12)
    # The package: k mistakes (every one a matrix update), w = Av, and the
    # margins vᵀAx̂ of the final state.
    assert est.n_mistakes_ == est.n_matrix_updates_ == k
    assert_allclose(linear_part(est)[0], A @ v, rtol=1e-9, atol=1e-12)
    assert_allclose(paper_margins(est, X), unit(X) @ A @ v, rtol=1e-9,
                    atol=1e-12)


def dual_sec2(K, y, order_list, c, sparse=False):
    """Sec. 2, 2): D_k, H_k = DIAG(h_k), g_k = y_k + D_k h_k, from inner
    products only (K normalised: k(x,x) = 1). Returns margins, matrix
    updates, and the final margins ``g_k·K[idx, t]`` of every row t."""
    idx, D, h, ys = [], np.zeros((0, 0)), np.zeros(0), np.zeros(0)
    margins, n_updates = [], 0
    for order in order_list:
        for t in order:
            kx = K[idx, t]  # X_{k-1}ᵀ x
            g = ys + D @ h
            margin = float(g @ kx)
            margins.append(margin)
            if y[t] * margin > 0.0:
                continue
            k = len(idx) + 1
            rho = c / k
            if sparse and y[t] * float(ys @ kx) < 0.0:
                rho = 0.0
            n_updates += rho > 0.0
            b = D @ kx
            d_kk = rho**2 * float(kx @ b) - 2 * rho + rho**2
            D = np.block([[D, -rho * b[:, None]], [-rho * b[None, :], np.array([[d_kk]])]])
            h = np.append(h + y[t] * kx, float(ys @ kx) + y[t])
            ys = np.append(ys, y[t])
            idx.append(t)
    final = (ys + D @ h) @ K[idx, :] if idx else np.zeros(K.shape[0])
    return margins, n_updates, final


@pytest.mark.reference
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_dual_recursion_of_sec2_reproduces_the_oracle(kernel, sparse):
    X, y = stream(6, n=50, d=4, unit=False)
    est, order_list = fitted(HigherOrderPerceptron, X, y, 2, 6, c=0.6,
                             sparse=sparse, kernel=kernel, gamma=0.5)
    K = joint_gram(X, None, kernel, gamma=0.5)
    diag = np.sqrt(np.diag(K))
    Kn = K / np.outer(diag, diag)
    margins, n_updates, final = dual_sec2(Kn, y, order_list, 0.6, sparse)
    run, _ = higher_order_kernel_reference(X, y, order_list, kernel=kernel,
                                           gamma=0.5, c=0.6, sparse=sparse)
    assert_allclose(margins, run.margins, rtol=1e-8, atol=1e-10)
    assert run.mistakes == [y[t] * m <= 0.0 for t, m in zip(run.rows, margins)]
    assert n_updates == run.n_matrix_updates
    if sparse:
        assert 0 < run.n_matrix_updates < run.n_mistakes
    # The package's dual loop: the same mistakes and matrix updates, and the
    # recursion's final margins on the training rows.
    assert est.form_ == "dual"
    assert est.n_mistakes_ == run.n_mistakes
    assert est.n_matrix_updates_ == n_updates
    assert_allclose(paper_margins(est, X), final, rtol=1e-8, atol=1e-10)


@pytest.mark.reference
def test_sparse_gate_and_matrix_update_count():
    X, y = stream(7, n=80)
    est, order_list = fitted(HigherOrderPerceptron, X, y, 3, 7, c=0.4,
                             sparse=True)
    run = higher_order_reference(X, y, order_list, c=0.4, sparse=True)
    k = np.arange(1, run.n_mistakes + 1)
    gate = run.labels * run.v_dots >= 0.0
    assert_allclose(run.rhos, np.where(gate, 0.4 / k, 0.0))
    assert run.n_matrix_updates == int(np.sum(run.rhos > 0.0))
    assert sum(run.matrix_updates_per_epoch) == run.n_matrix_updates
    assert 0 < run.n_matrix_updates < run.n_mistakes
    assert est.n_mistakes_ == run.n_mistakes
    assert est.n_matrix_updates_ == run.n_matrix_updates
    assert_allclose(linear_part(est)[0], run.w, rtol=1e-9, atol=1e-12)


def test_rho_callable_overrides_c_over_k():
    """The reference only (Theorem 1's condition; no estimator has it)."""
    X, y = stream(8)
    seen = []

    def rho(k, v, x, y_t):
        seen.append(k)
        return 0.5 / (1.0 + abs(v @ x))

    run = higher_order_reference(X, y, [np.arange(len(y))] * 2, c=0.9,
                                 rho=rho)
    assert seen == list(range(1, run.n_mistakes + 1))
    assert_allclose(run.rhos, 0.5 / (1.0 + np.abs(run.v_dots)))


@pytest.mark.reference
def test_csr_equals_dense_and_integer_input():
    X, y, _, _, _ = make_stream(9, n=40, d=6, values="integer", int_range=3,
                                sparsity=0.5, nonzero_rows=True, noise=0.5,
                                every_class=False, labels=[-1, 1])
    X = X.astype(np.int64)
    for kw in (dict(p=2.0, c=0.4), dict(p=4.0, c=0.3, sparse=True)):
        a = higher_order_reference(X, y, [np.arange(40)] * 2, **kw)
        b = higher_order_reference(sp.csr_matrix(X), y, [np.arange(40)] * 2,
                                   **kw)
        assert a.mistakes == b.mistakes
        assert_array_equal(a.margins, b.margins)
        for Xs in (X, sp.csr_matrix(X)):
            est = HigherOrderPerceptron(max_iter=2, shuffle=False,
                                        **kw).fit(Xs, y)
            assert est.n_mistakes_ == a.n_mistakes
            assert est.n_matrix_updates_ == a.n_matrix_updates
            assert_allclose(linear_part(est)[0], a.w, rtol=1e-9, atol=1e-12)


def test_zero_row_raises_when_normalising():
    """The references refuse what they cannot normalise (the estimators'
    own convention, a zero row scores 0, is tested in test_higher_order)."""
    X, y = stream(10, n=10)
    X[3] = 0.0
    with pytest.raises(ValueError, match="row 3"):
        higher_order_reference(X, y, [np.arange(10)])
    with pytest.raises(ValueError, match="row 3"):
        second_order_reference(X, y, [np.arange(10)], normalize=True)
    # Without normalisation a zero row scores 0: a tie, hence a mistake.
    run = second_order_reference(X, y, [np.array([3])])
    assert run.mistakes == [True] and run.margins == [0.0]


@pytest.mark.reference
def test_decision_function_is_the_next_margin():
    X, y = stream(11, n=41)
    run = higher_order_reference(X[:40], y[:40], [np.arange(40)], c=0.4)
    nxt = higher_order_reference(X, y, [np.arange(41)], c=0.4)
    assert run.decision_function(X[40:])[0] == pytest.approx(nxt.margins[40])
    so = second_order_reference(X[:40], y[:40], [np.arange(40)], a=0.7)
    so_next = second_order_reference(X, y, [np.arange(41)], a=0.7)
    assert so.decision_function(X[40:])[0] == pytest.approx(so_next.margins[40])
    # The package: its decision on a new row is the margin it would predict
    # with on that row next.
    ho_est = HigherOrderPerceptron(c=0.4, shuffle=False).fit(X[:40], y[:40])
    so_est = SecondOrderPerceptron(a=0.7, shuffle=False).fit(X[:40], y[:40])
    assert paper_margins(ho_est, X[40:])[0] == pytest.approx(
        nxt.margins[40], rel=1e-9)
    assert paper_margins(so_est, X[40:])[0] == pytest.approx(
        so_next.margins[40], rel=1e-9)


# ---------------------------------------------------------------------------
# Second-order Perceptron
# ---------------------------------------------------------------------------


@pytest.mark.reference
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("a", [0.1, 1.0, 10.0])
def test_so_margin_is_sherman_morrison(seed, a):
    """vᵀ(A + xxᵀ)⁻¹x = vᵀA⁻¹x / (1 + xᵀA⁻¹x), A = aI + past mistakes' xxᵀ."""
    X, y = stream(seed, unit=False)
    est, order_list = fitted(SecondOrderPerceptron, X, y, 2, seed, a=a)
    run = second_order_reference(X, y, order_list, a=a)
    n = X.shape[1]
    A, v = a * np.eye(n), np.zeros(n)
    for t, margin, mistake in zip(run.rows, run.margins, run.mistakes):
        x = X[t]
        Ainv = np.linalg.inv(A)
        assert margin == pytest.approx((v @ Ainv @ x) / (1.0 + x @ Ainv @ x),
                                       rel=1e-8, abs=1e-12)
        assert mistake == (y[t] * margin <= 0.0)
        if mistake:
            A = A + np.outer(x, x)
            v = v + y[t] * x
    assert_allclose(A, run.A, atol=1e-12)
    assert_allclose(v, run.v, atol=1e-12)
    assert_allclose(run.instances.T @ run.labels, run.v, atol=1e-12)
    # The package: the same mistakes, w = A⁻¹v, and the Sherman-Morrison
    # margins of the final A and v on new rows.
    assert est.n_mistakes_ == run.n_mistakes
    Ainv = np.linalg.inv(A)
    assert_allclose(linear_part(est)[0], Ainv @ v, rtol=1e-8, atol=1e-12)
    Z = make_stream(seed + 50, n=15, d=X.shape[1]).X
    quad = np.einsum("ij,jk,ik->i", Z, Ainv, Z)
    assert_allclose(paper_margins(est, Z), (Z @ Ainv @ v) / (1.0 + quad),
                    rtol=1e-8, atol=1e-12)


@pytest.mark.reference
@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf"])
def test_so_dual_form(kernel):
    """With β = (aI + K_M)⁻¹y_M: margin = βᵀk / (1 + (k(x,x) - kᵀ(aI+K_M)⁻¹k)/a)."""
    X, y = stream(12, n=50, d=4, unit=False)
    a = 0.8
    est, order_list = fitted(SecondOrderPerceptron, X, y, 2, 12, a=a,
                             kernel=kernel, degree=2, gamma=0.5, coef0=1.0)
    K = joint_gram(X, None, kernel, degree=2, gamma=0.5, coef0=1.0)
    run, _ = second_order_kernel_reference(X, y, order_list, kernel=kernel,
                                           degree=2, gamma=0.5, coef0=1.0, a=a)
    idx = []
    for t, margin, mistake in zip(run.rows, run.margins, run.mistakes):
        kx = K[idx, t]
        G = a * np.eye(len(idx)) + K[np.ix_(idx, idx)]
        beta = np.linalg.solve(G, y[idx])
        quad = K[t, t] - kx @ np.linalg.solve(G, kx)
        assert margin == pytest.approx((beta @ kx) / (1.0 + quad / a),
                                       rel=1e-6, abs=1e-9)
        if mistake:
            idx.append(t)
    assert len(idx) == run.n_mistakes
    # The package's dual loop: the same mistakes and the final margins of
    # the formula on the training rows.
    assert est.form_ == "dual"
    assert est.n_mistakes_ == len(idx)
    G = a * np.eye(len(idx)) + K[np.ix_(idx, idx)]
    beta = np.linalg.solve(G, y[idx])
    Kx = K[idx, :]
    quad = np.diag(K) - np.einsum("it,it->t", Kx, np.linalg.solve(G, Kx))
    assert_allclose(paper_margins(est, X), (beta @ Kx) / (1.0 + quad / a),
                    rtol=1e-6, atol=1e-9)


# ---------------------------------------------------------------------------
# Kernels and one-vs-rest
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kernel, params", [
    ("linear", {}), ("poly", dict(degree=3, gamma=0.3, coef0=1.0)),
    ("rbf", dict(gamma=0.7)), ("rbf", {}),
])
def test_embed_gram_reproduces_k(kernel, params):
    rng = np.random.default_rng(13)
    X, Z = rng.standard_normal((30, 4)), rng.standard_normal((10, 4))
    K = joint_gram(X, Z, kernel, **params)
    L = embed_gram(K)
    assert_allclose(L @ L.T, K, atol=1e-10 * max(1.0, np.abs(K).max()))
    # The joint Gram matrix is the kernel of the stacked points.
    assert_allclose(K[:30, 30:], gram(X, Z, kernel, **params), rtol=1e-12)
    with pytest.raises(ValueError, match="positive semidefinite"):
        embed_gram(-np.eye(3))


@pytest.mark.reference
def test_linear_kernel_oracles_equal_the_primal_ones():
    X, y = stream(14, n=60, d=5, unit=False)
    Z = make_stream(1, n=15, d=5).X
    order_list = [np.arange(60)] * 2
    primal = higher_order_reference(X, y, order_list, c=0.5)
    kern, scores = higher_order_kernel_reference(X, y, order_list, kernel="linear",
                                                 c=0.5, X_test=Z)
    assert primal.mistakes == kern.mistakes
    assert_allclose(kern.margins, primal.margins, rtol=1e-7, atol=1e-9)
    assert_allclose(scores, primal.decision_function(Z), rtol=1e-7, atol=1e-9)
    so = second_order_reference(X, y, order_list, a=2.0, normalize=True)
    so_k, so_scores = second_order_kernel_reference(X, y, order_list, kernel="linear",
                                                    a=2.0, normalize=True, X_test=Z)
    assert so.mistakes == so_k.mistakes
    assert_allclose(so_scores, so.decision_function(Z), rtol=1e-7, atol=1e-9)
    # The package's linear-kernel dual forms give the primal margins.
    ho_est = HigherOrderPerceptron(c=0.5, kernel="linear", max_iter=2,
                                   shuffle=False).fit(X, y)
    so_est = SecondOrderPerceptron(a=2.0, normalize=True, kernel="linear",
                                   max_iter=2, shuffle=False).fit(X, y)
    assert ho_est.n_mistakes_ == primal.n_mistakes
    assert so_est.n_mistakes_ == so.n_mistakes
    assert_allclose(paper_margins(ho_est, Z), primal.decision_function(Z),
                    rtol=1e-7, atol=1e-9)
    assert_allclose(paper_margins(so_est, Z), so.decision_function(Z),
                    rtol=1e-7, atol=1e-9)


@pytest.mark.reference
def test_one_vs_rest():
    rng = np.random.default_rng(15)
    X = rng.standard_normal((60, 4))
    labels = np.array(["a", "b", "c"])[np.argmax(X[:, :3], axis=1)]
    order_list = [np.arange(60)] * 2
    res = ovr_reference(higher_order_reference, X, labels, order_list, c=0.4)
    assert list(res.classes) == ["a", "b", "c"] and len(res.problems) == 3
    for cls, prob in zip(res.classes, res.problems):
        alone = higher_order_reference(X, np.where(labels == cls, 1, -1),
                                       order_list, c=0.4)
        assert prob.mistakes == alone.mistakes
    assert res.n_mistakes == sum(p.n_mistakes for p in res.problems)
    assert res.n_matrix_updates == sum(p.n_matrix_updates for p in res.problems)
    scores = res.decision_function(X)
    assert scores.shape == (60, 3)
    assert_array_equal(res.predict(X), res.classes[np.argmax(scores, axis=1)])
    # Two classes: one problem, classes_[1] positive.
    two = ovr_reference(second_order_reference, X, labels == "a", order_list, a=1.0)
    assert list(two.classes) == [False, True] and len(two.problems) == 1
    alone = second_order_reference(X, np.where(labels == "a", 1, -1), order_list)
    assert two.problems[0].mistakes == alone.mistakes
    s = two.decision_function(X)
    assert s.shape == (60,)
    assert_array_equal(two.predict(X), s > 0)
    # The package's one-vs-rest is the reference's, through fit().
    est = HigherOrderPerceptron(c=0.4, max_iter=2, shuffle=False).fit(
        X, labels)
    ref = higher_order.fit(X, labels, c=0.4, max_iter=2)
    assert_array_equal(est.classes_, ref.classes)
    assert_array_equal(est.n_mistakes_per_problem_,
                       [p.n_mistakes for p in res.problems])
    assert_array_equal(est.predict(X), ref.predict(X))
    assert_allclose(linear_part(est), ref.coef, rtol=1e-9, atol=1e-12)
    so_est = SecondOrderPerceptron(max_iter=2, shuffle=False).fit(
        X, labels == "a")
    so_ref = second_order.fit(X, labels == "a", max_iter=2)
    assert so_est.n_mistakes_ == so_ref.n_mistakes == alone.n_mistakes
    assert_array_equal(so_est.predict(X), so_ref.predict(X))
