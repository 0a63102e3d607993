"""Unit tests of perceptrons.bounds on hand-computed cases, and its input checks."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from perceptrons.bounds import (
    arow_bound,
    arow_sequence_bound,
    MistakeBounds,
    augment,
    comparator_margin,
    d1,
    d1_bound,
    d2,
    freund_schapire_bound,
    higher_order_bound,
    higher_order_condition,
    higher_order_sequence_bound,
    hinge_losses,
    mistake_bounds,
    multiclass_radius,
    novikoff_bound,
    radius,
    second_order_bound,
    second_order_sequence_bound,
)

# Hand-computed case used throughout:
#   x_1 = (3, 4), y_1 = +1;  x_2 = (0, -2), y_2 = -1;  u = (0, 2) -> (0, 1).
#   ||x_1|| = 5, ||x_2|| = 2                        => R = 5
#   y_t u.x_t = (+1)(4) = 4 and (-1)(-2) = 2        => comparator margin 2
#   gamma = 3: l_1 = max(0, 3 - 4) = 0, l_2 = max(0, 3 - 2) = 1
#              => D1 = 1, D2 = 1
#   Novikoff (5/3)^2 = 25/9 -- but u does not attain margin 3, so not applicable
#   Freund-Schapire ((5 + 1)/3)^2 = 4
#   Thm 2 (r = 0)   ((5 + sqrt(3 * 1))/3)^2 = (28 + 10 sqrt 3)/9 ~= 5.0356
#   gamma = 2: l = (0, 0), D1 = D2 = 0, every bound (5/2)^2 = 6.25.
X_HAND = np.array([[3.0, 4.0], [0.0, -2.0]])
Y_HAND = np.array([1, -1])
U_HAND = np.array([0.0, 2.0])


def test_hand_case_quantities():
    assert radius(X_HAND) == 5.0
    assert comparator_margin(X_HAND, Y_HAND, U_HAND) == 2.0
    np.testing.assert_array_equal(hinge_losses(X_HAND, Y_HAND, U_HAND, 3.0), [0.0, 1.0])
    assert d1(X_HAND, Y_HAND, U_HAND, 3.0) == 1.0
    assert d2(X_HAND, Y_HAND, U_HAND, 3.0) == 1.0
    np.testing.assert_array_equal(hinge_losses(X_HAND, Y_HAND, U_HAND, 2.0), [0.0, 0.0])


def test_hand_case_bounds():
    assert novikoff_bound(5.0, 3.0) == pytest.approx(25 / 9)
    assert freund_schapire_bound(5.0, 3.0, 1.0) == pytest.approx(4.0)
    assert d1_bound(5.0, 3.0, 1.0) == pytest.approx((28 + 10 * math.sqrt(3)) / 9)

    b = mistake_bounds(X_HAND, Y_HAND, U_HAND, 3.0)
    assert isinstance(b, MistakeBounds)
    assert (b.R, b.gamma, b.D1, b.D2, b.comparator_margin, b.n_passes) == (
        5.0, 3.0, 1.0, 1.0, 2.0, 1)
    assert b.novikoff_bound == math.inf  # u does not attain margin 3
    assert b.freund_schapire_bound == pytest.approx(4.0)
    assert b.d1_bound == pytest.approx((28 + 10 * math.sqrt(3)) / 9)
    assert b.best == pytest.approx(4.0)
    assert set(b.as_dict()) >= {"R", "gamma", "D1", "D2", "novikoff_bound"}

    b = mistake_bounds(X_HAND, Y_HAND, U_HAND, 2.0)
    assert b.D1 == b.D2 == 0.0
    assert b.novikoff_bound == b.freund_schapire_bound == b.d1_bound == 6.25


def test_scalar_bounds_hand_values():
    # (2 / 0.5)^2 = 16; ((1 + 1) / 0.5)^2 = 16; ((1 + sqrt(0.25 * 4)) / 0.25)^2 = 64.
    assert novikoff_bound(2.0, 0.5) == 16.0
    assert freund_schapire_bound(1.0, 0.5, 1.0) == 16.0
    assert d1_bound(1.0, 0.25, 4.0) == 64.0
    # All three coincide when the losses vanish (Eq. (3) and Thm. 2 reduce to Eq. (1)).
    assert novikoff_bound(3.0, 0.7) == freund_schapire_bound(3.0, 0.7, 0.0)
    assert novikoff_bound(3.0, 0.7) == d1_bound(3.0, 0.7, 0.0)
    # R = 0 is allowed (all-zero instances): the bound is 0 for separable data.
    assert novikoff_bound(0.0, 1.0) == 0.0
    # numpy scalars are accepted.
    assert novikoff_bound(np.float32(2.0), np.int64(1)) == 4.0


def test_comparator_is_normalised():
    """u and 7u give the same losses; margins are in units of ||u|| = 1."""
    for scale in (1e-8, 0.5, 7.0, 1e8):
        np.testing.assert_allclose(
            hinge_losses(X_HAND, Y_HAND, scale * U_HAND, 3.0), [0.0, 1.0])
        assert comparator_margin(X_HAND, Y_HAND, scale * U_HAND) == pytest.approx(2.0)


def test_n_passes_scales_d1_and_d2():
    # Four passes over the hand case: losses (0, 1, 0, 1, ...): D1 = 4, D2 = 2.
    assert d1(X_HAND, Y_HAND, U_HAND, 3.0, n_passes=4) == 4.0
    assert d2(X_HAND, Y_HAND, U_HAND, 3.0, n_passes=4) == 2.0
    b = mistake_bounds(X_HAND, Y_HAND, U_HAND, 3.0, n_passes=4)
    assert (b.R, b.D1, b.D2, b.n_passes) == (5.0, 4.0, 2.0, 4)
    assert b.freund_schapire_bound == pytest.approx(((5 + 2) / 3) ** 2)


def test_negative_margin_when_u_does_not_separate():
    # u = (1, 0): y_t u.x_t = 3 and 0 -> margin 0; u = (-1, 0): -3 and 0 -> -3.
    assert comparator_margin(X_HAND, Y_HAND, [1.0, 0.0]) == 0.0
    assert comparator_margin(X_HAND, Y_HAND, [-1.0, 0.0]) == -3.0


def test_augment():
    Xa = augment(X_HAND, 5.0)
    np.testing.assert_array_equal(Xa, [[3, 4, 5], [0, -2, 5]])
    Xs = augment(sp.csr_matrix(X_HAND), 5.0)
    assert sp.issparse(Xs)
    np.testing.assert_array_equal(Xs.toarray(), Xa)
    assert radius(Xa) == pytest.approx(math.sqrt(50))
    np.testing.assert_array_equal(augment(X_HAND)[:, -1], [1.0, 1.0])


def test_d1_bound_beats_d2_bound_iff_gamma_d1_le_d2_squared():
    """End of Sec. 3 of Shalev-Shwartz & Singer: Thm 2 <= Thm 1 iff γ·D1 <= D2²."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = rng.choice([-1, 1], 40)
    for gamma in (0.01, 0.3, 1.0, 3.0, 10.0):
        u = rng.standard_normal(3)
        b = mistake_bounds(X, y, u, gamma)
        better = b.d1_bound <= b.freund_schapire_bound
        assert better == (gamma * b.D1 <= b.D2**2 * (1 + 1e-12))


sparse_formats = st.sampled_from(["csr_matrix", "csr_array", "csc_matrix", "coo_matrix"])


@settings(max_examples=40, deadline=None, database=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 30),
    d=st.integers(1, 8),
    density=st.floats(0.0, 1.0),
    gamma=st.floats(1e-3, 10.0),
    n_passes=st.integers(1, 5),
    fmt=sparse_formats,
)
def test_sparse_equals_dense(seed, n, d, density, gamma, n_passes, fmt):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    y = rng.choice([-1, 1], n)
    u = rng.standard_normal(d) + 1e-3
    Xs = getattr(sp, fmt)(X)
    dense = mistake_bounds(X, y, u, gamma, n_passes=n_passes)
    sparse = mistake_bounds(Xs, y, u, gamma, n_passes=n_passes)
    for field, value in dense.as_dict().items():
        assert getattr(sparse, field) == pytest.approx(value, rel=1e-12, abs=1e-12), field
    np.testing.assert_allclose(hinge_losses(Xs, y, u, gamma), hinge_losses(X, y, u, gamma))
    assert radius(Xs) == pytest.approx(radius(X))


@settings(max_examples=40, deadline=None, database=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 20),
    d=st.integers(1, 5),
    gamma=st.floats(1e-3, 10.0),
    n_passes=st.integers(1, 6),
)
def test_n_passes_equals_tiled_sequence(seed, n, d, gamma, n_passes):
    """D1, D2 over E passes are those of the concatenated sequence."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = rng.choice([-1, 1], n)
    u = rng.standard_normal(d) + 1e-3
    passes = mistake_bounds(X, y, u, gamma, n_passes=n_passes)
    tiled = mistake_bounds(np.tile(X, (n_passes, 1)), np.tile(y, n_passes), u, gamma)
    for field in ("R", "D1", "D2", "comparator_margin", "novikoff_bound",
                  "freund_schapire_bound", "d1_bound"):
        assert getattr(passes, field) == pytest.approx(getattr(tiled, field), rel=1e-9)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------

GOOD = dict(X=X_HAND, y=Y_HAND, u=U_HAND, gamma=3.0)
SEQUENCE_FUNCTIONS = [hinge_losses, d1, d2, mistake_bounds]


def _call(func, **overrides):
    kw = {**GOOD, **overrides}
    if func in (comparator_margin,):
        return func(kw["X"], kw["y"], kw["u"])
    return func(kw["X"], kw["y"], kw["u"], kw["gamma"])


@pytest.mark.parametrize("func", SEQUENCE_FUNCTIONS + [comparator_margin])
@pytest.mark.parametrize(
    "overrides, message",
    [
        (dict(X=np.array([[3.0, np.nan], [0.0, -2.0]])), "NaN or infinity"),
        (dict(X=np.array([[3.0, np.inf], [0.0, -2.0]])), "NaN or infinity"),
        (dict(X=sp.csr_matrix(np.array([[3.0, np.nan], [0.0, -2.0]]))), "NaN or infinity"),
        (dict(X=np.array([3.0, 4.0])), "2-d"),
        (dict(X=np.zeros((0, 2)), y=np.zeros(0)), "no rows"),
        (dict(X=np.array([["a", "b"], ["c", "d"]])), "real-valued"),
        (dict(y=np.array([1, -1, 1])), "mismatched lengths"),
        (dict(y=np.array([1])), "mismatched lengths"),
        (dict(y=np.array([1, 0])), "-1 and \\+1"),
        (dict(y=np.array([2.0, -2.0])), "-1 and \\+1"),
        (dict(y=np.array([1.0, np.nan])), "-1 and \\+1"),
        (dict(y=np.array([[1, -1]])), "y must be 1-d"),
        (dict(y=np.array(["a", "b"])), "labels -1 and \\+1"),
        (dict(u=np.zeros(2)), "zero vector"),
        (dict(u=np.array([0.0, np.nan])), "u contains NaN"),
        (dict(u=np.array([1.0, 0.0, 0.0])), "u must have shape \\(2,\\)"),
        (dict(u=np.array([[1.0, 0.0]])), "u must have shape \\(2,\\)"),
    ],
)
def test_bad_sequence_or_comparator(func, overrides, message):
    with pytest.raises(ValueError, match=message):
        _call(func, **overrides)


@pytest.mark.parametrize("func", SEQUENCE_FUNCTIONS)
@pytest.mark.parametrize(
    "gamma, message",
    [(0.0, "gamma must be > 0"), (-1.0, "gamma must be > 0"),
     (np.nan, "gamma must be finite"), (np.inf, "gamma must be finite"),
     ("1", "gamma must be a real number"), (True, "gamma must be a real number")],
)
def test_bad_gamma(func, gamma, message):
    with pytest.raises(ValueError, match=message):
        _call(func, gamma=gamma)


@pytest.mark.parametrize("n_passes", [0, -1, 1.5, True])
def test_bad_n_passes(n_passes):
    for func in (d1, d2, mistake_bounds):
        with pytest.raises(ValueError, match="n_passes must be an integer >= 1"):
            func(X_HAND, Y_HAND, U_HAND, 3.0, n_passes=n_passes)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: novikoff_bound(-1.0, 1.0), "R must be >= 0"),
        (lambda: novikoff_bound(1.0, 0.0), "gamma must be > 0"),
        (lambda: novikoff_bound(np.nan, 1.0), "R must be finite"),
        (lambda: freund_schapire_bound(1.0, -0.5, 0.0), "gamma must be > 0"),
        (lambda: freund_schapire_bound(1.0, 0.5, -1.0), "D2 must be >= 0"),
        (lambda: freund_schapire_bound(1.0, 0.5, np.inf), "D2 must be finite"),
        (lambda: d1_bound(1.0, 0.5, -1.0), "D1 must be >= 0"),
        (lambda: d1_bound(1.0, 0.0, 1.0), "gamma must be > 0"),
        (lambda: d1_bound(None, 0.5, 1.0), "R must be a real number"),
        (lambda: radius(np.array([[np.nan]])), "NaN or infinity"),
        (lambda: augment(X_HAND, 0.0), "value must be > 0"),
    ],
)
def test_bad_scalar_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ---------------------------------------------------------------------------
# Higher-order (Brotto et al. 2007, Thm. 1) and second-order (Cesa-Bianchi et
# al. 2005, Thm. 1) Perceptron bounds
# ---------------------------------------------------------------------------
#   Eq. (2), α = (2 - c)/c:  c = 0.5 -> α = 3; γ = 1, D = 0 -> 9/2 + 3·√(9/4) = 9
#                            D = 2   -> 6 + 4.5 + 3·√(6 + 2.25) = 10.5 + 3√8.25
#   c' = min(1, min_k 1 - ρ_k(1 + |v·x|)): (0.1, 2.0) -> 0.7; (0.25, -1.0) -> 0.5
#   SO: D = 1, γ = 0.5, a = 2, uᵀX Xᵀu = 2, λ = (2, 6) -> ln 2 + ln 4 = ln 8
#       bound = 2 + 2·√(4 ln 8)


def test_higher_order_bound_hand_values():
    assert higher_order_bound(0.0, 1.0, 0.5) == pytest.approx(9.0)
    assert higher_order_bound(2.0, 1.0, 0.5) == pytest.approx(10.5 + 3 * math.sqrt(8.25))
    assert higher_order_condition([0.1, 0.25], [2.0, -1.0]) == pytest.approx(0.5)
    assert higher_order_condition([0.1], [2.0]) == pytest.approx(0.7)
    assert higher_order_condition([], []) == 1.0
    assert higher_order_condition([0.0, 0.0], [3.0, -9.0]) == 1.0
    assert higher_order_condition([0.9], [4.0]) < 0.0  # the theorem does not apply


def test_second_order_bound_hand_values():
    expected = 2.0 + 2.0 * math.sqrt(4.0 * math.log(8.0))
    assert second_order_bound(1.0, 0.5, 2.0, 2.0, [2.0, 6.0]) == pytest.approx(expected)
    # Zero eigenvalues add ln 1 = 0; rounding noise below 0 is clipped.
    assert second_order_bound(1.0, 0.5, 2.0, 2.0, [0.0, 2.0, 6.0, -1e-15]) == (
        pytest.approx(expected))
    # Mistaken rows x_1 = (√2, 0), x_2 = (0, √6) (λ = 2, 6), u = (1, 0),
    # γ = 0.5: margins √2 and 0 -> D = 0.5; uᵀXXᵀu = 2.
    X = np.array([[math.sqrt(2.0), 0.0], [0.0, math.sqrt(6.0)]])
    got = second_order_sequence_bound(X, [1, 1], [3.0, 0.0], 0.5, 2.0)
    assert got == pytest.approx(1.0 + 2.0 * math.sqrt(4.0 * math.log(8.0)))
    assert second_order_sequence_bound(sp.csr_matrix(X), [1, 1], [1.0, 0.0], 0.5,
                                       2.0) == pytest.approx(got)
    # More rows than features: the n×n Gram side, same eigenvalues.
    X3 = np.vstack([X, [[0.0, 0.0]]])
    assert second_order_sequence_bound(X3, [1, 1, 1], [1.0, 0.0], 0.5, 2.0) == (
        pytest.approx(got + 0.5 / 0.5))
    assert second_order_sequence_bound(np.zeros((0, 2)), [], [1.0, 0.0], 0.5, 2.0) == 0.0


def test_arow_bound_hand_values():
    # Theorem 2 of Crammer, Kulesza & Dredze (2009):
    # sqrt(r|u|^2 + u'X_A u) * sqrt(logdet + U) + sum g - U.
    assert arow_bound(0.0, 1.0, 4.0, 1.0, 0) == 2.0
    assert arow_bound(1.5, 2.0, 9.0, 2.0, 2) == pytest.approx(3.0 * 2.0 + 1.5 - 2)
    # Rows x_1 = (2, 0) (label +1), x_2 = (0, 1) (label -1), r = 2,
    # u = (1, 0): margins 2 and 0 -> g = (0, 1); r|u|^2 + sum (u.x)^2 = 2 + 4;
    # X_A = diag(4, 1): logdet(I + X_A/2) = log 3 + log 1.5.
    X = np.array([[2.0, 0.0], [0.0, 1.0]])
    expected = math.sqrt(6.0) * math.sqrt(math.log(4.5) + 1) + 1.0 - 1
    assert arow_sequence_bound(X, [1, -1], [1.0, 0.0], 2.0, 1) == (
        pytest.approx(expected))
    assert arow_sequence_bound(sp.csr_matrix(X), [1, -1], [1.0, 0.0], 2.0,
                               1) == pytest.approx(expected)
    # u is used as given (margin 1), and may be zero: then g_t = 1 each.
    assert arow_sequence_bound(X, [1, -1], [0.0, 0.0], 2.0, 0) == 2.0
    assert arow_sequence_bound(np.zeros((0, 2)), [], [1.0, 0.0], 2.0, 0) == 0.0
    with pytest.raises(ValueError, match="r must be > 0"):
        arow_bound(0.0, 0.0, 1.0, 1.0, 0)
    with pytest.raises(ValueError, match="n_margin_errors"):
        arow_bound(0.0, 1.0, 1.0, 1.0, -1)


def test_higher_order_sequence_bound_hand_values():
    # Rows (0.5, 0) and (0, 1) with labels +1, -1, u = (1, 0), γ = 1:
    # margins 0.5 and 0 -> D = 0.5 + 1 = 1.5.
    X = np.array([[0.5, 0.0], [0.0, 1.0]])
    assert higher_order_sequence_bound(X, [1, -1], [2.0, 0.0], 1.0, 0.6) == (
        pytest.approx(higher_order_bound(1.5, 1.0, 0.6)))
    assert higher_order_sequence_bound(np.zeros((0, 2)), [], [1.0, 0.0], 1.0, 0.6) == (
        pytest.approx(higher_order_bound(0.0, 1.0, 0.6)))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: higher_order_bound(-1.0, 1.0, 0.5), "hinge_loss must be >= 0"),
        (lambda: higher_order_bound(0.0, 0.0, 0.5), "gamma must be > 0"),
        (lambda: higher_order_bound(0.0, 1.0, 0.0), "c must be > 0"),
        (lambda: higher_order_bound(0.0, 1.0, 1.5), "c must lie in \\(0, 1\\]"),
        (lambda: higher_order_bound(0.0, 1.0, np.nan), "c must be finite"),
        (lambda: higher_order_condition([0.1, 0.2], [0.0]), "same length"),
        (lambda: higher_order_condition([[0.1]], [[0.0]]), "1-d"),
        (lambda: higher_order_condition([-0.1], [0.0]), "rhos must be >= 0"),
        (lambda: higher_order_condition([0.1], [np.inf]), "finite"),
        (lambda: higher_order_sequence_bound(X_HAND, [1, 2], U_HAND, 1.0, 0.5),
         "-1 and \\+1"),
        (lambda: higher_order_sequence_bound(X_HAND, Y_HAND, np.zeros(2), 1.0, 0.5),
         "zero vector"),
        (lambda: second_order_bound(0.0, 1.0, 0.0, 1.0, [1.0]), "a must be > 0"),
        (lambda: second_order_bound(0.0, 1.0, 1.0, -1.0, [1.0]),
         "comparator_term must be >= 0"),
        (lambda: second_order_bound(0.0, 1.0, 1.0, 1.0, [-1.0]), "eigenvalues must be >= 0"),
        (lambda: second_order_bound(0.0, 1.0, 1.0, 1.0, [np.nan]), "eigenvalues must be finite"),
        (lambda: second_order_sequence_bound(X_HAND, Y_HAND, U_HAND, 1.0, -2.0),
         "a must be > 0"),
        (lambda: second_order_sequence_bound(X_HAND, Y_HAND, [1.0], 1.0, 1.0),
         "u must have shape"),
        (lambda: second_order_sequence_bound(np.zeros((0, 2)), [], [1.0], 1.0, 1.0),
         "u must have shape"),
    ],
)
def test_higher_and_second_order_bounds_reject_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_radius_does_not_depend_on_the_storage():
    """R of a matrix and of its CSR twin (unsorted, duplicated entries
    included) are the same bits, so that γ = R read from one storage is
    accepted by a bound given the other (scipy's and numpy's own row norms
    differ in the last bit on about one matrix in seven)."""
    rng = np.random.default_rng(0)
    for _ in range(300):
        X = rng.standard_normal((int(rng.integers(5, 40)),
                                 int(rng.integers(2, 20))))
        X *= rng.uniform(0.1, 50.0)
        X[rng.random(X.shape) < 0.3] = 0.0
        csr = sp.csr_matrix(X)
        rows, cols = csr.nonzero()
        # The same matrix as unsorted COO with each value split in two.
        halves = sp.coo_matrix(
            (np.concatenate([csr.data / 2, csr.data / 2])[::-1],
             (np.concatenate([rows, rows])[::-1],
              np.concatenate([cols, cols])[::-1])), shape=X.shape)
        for fn in (radius, multiclass_radius):
            assert fn(csr) == fn(X)
            assert fn(csr.astype(np.float32)) == fn(X.astype(np.float32))
        assert radius(halves.tocsr()) == pytest.approx(radius(X), rel=1e-15)
