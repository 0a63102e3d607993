"""Sample and class weights of ``PDM``, ``PFM`` and ``ROMMA`` (issue #23).

A row's weight s_k is its weight in the 2-norm soft-margin loss that the
extension makes the runs solve: ``‖[w, b]‖² + Σ_k s_k ξ_k² / Δ²``, i.e. the
row's own extension coordinate ``l_k Δ/√s_k`` (notes of
:mod:`perceptrons._loops.margin`). The tests check

* the estimators against the slow references (``tests/reference/pdm.py``,
  ``tests/reference/romma.py``, which materialise ``Δ/√s_k``) with random
  positive weights, as ``tests/models/test_pdm.py`` and ``test_romma.py``
  do without: same updates, the same a up to rounding;
* unit weights (and class weights of 1) give the unweighted bits, zero
  weights the bits of the run without those rows, ``class_weight`` the bits
  of the same ``sample_weight``;
* the reading itself: a weighted run is the unweighted run on explicitly
  extended rows ``[x_k, Δ/√s_k e_k]`` without extension; weights 4 at
  extension 2Δ are weights 1 at Δ, bit for bit; the margin is that of
  LinearSVC's weighted squared-hinge problem (and integer weights that of
  duplicated rows);
* without extension a weight other than 0 and 1 is refused.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from perceptrons import PDM, PFM, ROMMA
from tests.models.test_pdm import _check_agrees as _check_pdm
from tests.models.test_romma import _check_agrees as _check_romma
from tests.reference import pdm as pdm_reference
from tests.reference import romma as romma_reference
from tests.reference.streams import make_stream as _make_stream
from tests.reference.streams import margin_stream as make_stream

# name: (estimator, its parameters, data kwargs)
CASES = {
    "pdm": (PDM, dict(epsilon=0.1, extension=0.7, augmentation=2.0),
            dict(noise=0.15)),
    "pdm-succ": (PDM, dict(epsilon=0.05, successive=3.0, extension=1.0),
                 dict(noise=0.1)),
    "pfm": (PFM, dict(beta=0.05, extension=1.0, augmentation=0.5),
            dict(noise=0.2)),
    "pfm-auto": (PFM, dict(extension=1.0), dict(noise=0.1)),
    "romma": (ROMMA, dict(epsilon=0.05, extension=1.0), dict(noise=0.15)),
    "romma-rho": (ROMMA, dict(epsilon=0.02, extension=0.5, augmentation=2.0),
                  dict(noise=0.1, n=60)),
}


def _fmt(X, sparse):
    return sp.csr_matrix(X) if sparse else X


def _weights(seed, n, low=0.2, high=3.0):
    return np.random.default_rng(1000 + seed).uniform(low, high, n)


def _options(cls, active):
    """The Sec. 4 machinery on (defaults, 8 epochs) or off (plain passes)."""
    if active:
        return dict(max_iter=8)
    options = dict(active_sets=False, max_iter=60)
    if cls is not ROMMA:
        options["multiple_updates"] = False
    return options


def _fit(cls, params, X, y, sample_weight=None, **kw):
    est = cls(**{"store_dual": True, "shuffle": False, **params, **kw})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y, sample_weight=sample_weight)


def _reference(cls, X, y, params, sample_weight):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if cls is ROMMA:
            return romma_reference.fit(X, y, sample_weight=sample_weight,
                                       **params)
        if cls is PFM:
            params = {"beta": "auto", **params}
        return pdm_reference.fit(X, y, sample_weight=sample_weight, **params)


def _check(cls, est, ref):
    if cls is ROMMA:
        _check_romma(est, ref)
        assert est.n_iter_ == ref.n_iter
        assert_allclose(est.margin_bound_, ref.margin_bound, rtol=1e-8)
    else:
        _check_pdm(est, ref)
    assert est.n_active_passes_ == ref.n_active_passes


def _assert_same_bits(a, b):
    """Every array of the two fitted states equal, bit for bit."""
    for name, value in vars(a.state_).items():
        other = getattr(b.state_, name)
        if isinstance(value, np.ndarray):
            assert value.dtype == other.dtype, name
            assert value.tobytes() == other.tobytes(), name
        else:
            assert value == other or (value != value and other != other), \
                name


# ------------------------------------------------------ against references
@pytest.mark.reference
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("active", [False, True], ids=["plain", "active"])
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("seed", [0, 1])
def test_weighted_matches_reference(case, seed, active, sparse):
    cls, params, data_kwargs = CASES[case]
    X, y = make_stream(seed, **data_kwargs)
    w = _weights(seed, X.shape[0])
    params = {**params, **_options(cls, active)}
    est = _fit(cls, params, _fmt(X, sparse), y, w)
    ref = _reference(cls, X, y, params, w)
    _check(cls, est, ref)
    assert est.n_updates_ > 0
    # The weights matter: the unweighted run differs.
    plain = _fit(cls, params, X, y)
    assert not np.allclose(plain.coef_, est.coef_, rtol=1e-6)


@pytest.mark.reference
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("active", [False, True], ids=["plain", "active"])
@pytest.mark.parametrize("cls", [PDM, PFM, ROMMA])
def test_weighted_multiclass_matches_reference(cls, active, sparse):
    X, y, _, _, _ = _make_stream(5, n_classes=3, n=45, d=4,
                                 labels=[7, 17, 27])
    w = _weights(5, X.shape[0])
    params = {"extension": 1.0, **_options(cls, active),
              **({"beta": 0.02} if cls is PFM else {"epsilon": 0.1})}
    est = _fit(cls, params, _fmt(X, sparse), y, w)
    ref = _reference(cls, X, y, params, w)
    assert est.coef_.shape == (3, 4)
    assert_array_equal(est.n_updates_per_problem_, ref.n_updates_per_problem)
    assert_array_equal(est.n_iter_per_problem_, ref.n_iter_per_problem)
    assert est.n_mistakes_ == ref.n_mistakes
    assert est.n_active_passes_ == ref.n_active_passes
    assert_allclose(est.coef_, ref.coef, rtol=1e-9, atol=1e-9)
    assert_allclose(est.intercept_, ref.intercept, rtol=1e-9, atol=1e-9)
    assert_allclose(est.directional_margin_, ref.directional_margin,
                    rtol=1e-8, atol=1e-12)
    assert_allclose(est.margin_bound_, ref.margin_bound, rtol=1e-8)
    if cls is not ROMMA:
        assert_array_equal(est.dual_coef_, ref.dual_coef[:, est.support_])


@pytest.mark.reference
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("cls", [PDM, PFM, ROMMA])
def test_weighted_partial_fit_is_one_reference_pass(cls, sparse):
    X, y = make_stream(6, noise=0.1)
    w = _weights(6, X.shape[0])
    params = {"extension": 1.0,
              **({"beta": 0.1} if cls is PFM else {"epsilon": 0.3})}
    est = cls(store_dual=True, **params)
    est.partial_fit(_fmt(X, sparse), y, classes=[-1, 1], sample_weight=w)
    options = dict(active_sets=False, max_iter=1)
    if cls is not ROMMA:
        options["multiple_updates"] = False
    ref = _reference(cls, X, y, {**params, **options}, w)
    assert ref.n_updates > 0
    (_check_romma if cls is ROMMA else _check_pdm)(est, ref)
    # A second call: fresh (weighted) extension coordinates, the earlier
    # ones retired into ‖a‖², which stays the norm of the whole a.
    est.partial_fit(X, y, sample_weight=w[::-1])
    assert est.n_iter_ == 2
    assert np.all(np.isfinite(est.margin_bound_))


def test_retired_extension_is_weighted():
    # Two partial_fit calls: ‖a‖² = ‖w‖² + b² + Σ_calls Σ_k (Δ²/s_k) c_k².
    X, y = make_stream(18, noise=0.2)
    delta = 0.8
    w1, w2 = _weights(1, X.shape[0]), _weights(2, X.shape[0])
    est = PDM(store_dual=True, epsilon=0.2, extension=delta)
    est.partial_fit(X, y, classes=[-1, 1], sample_weight=w1)
    c1 = np.zeros(X.shape[0])
    c1[est.support_] = np.abs(est.dual_coef_[0])
    est.partial_fit(X[::-1], y[::-1], sample_weight=w2)
    c2 = np.zeros(X.shape[0])
    c2[est.support_] = np.abs(est.dual_coef_[0])
    wv, b = est.coef_[0], est.intercept_[0]
    sq_a = (wv @ wv + b * b + delta ** 2 * (c1 @ (c1 / w1))
            + delta ** 2 * (c2 @ (c2 / w2)))
    assert est.n_updates_ == c1.sum() + c2.sum()
    assert_allclose(est.margin_bound_[0], np.sqrt(sq_a) / est.n_updates_,
                    rtol=1e-12)
    assert_allclose(est.state_.scalars[0, 1], sq_a, rtol=1e-10)


# ------------------------------------------------------------- bit for bit
BIT_CASES = [
    (PDM, dict(epsilon=0.05, extension=1.0)),
    (PDM, dict(epsilon=0.05, extension=1.0, successive=4.0)),
    (PDM, dict(epsilon=0.2, extension=None)),
    (PFM, dict(extension=1.0)),
    (PFM, dict(beta=0.05, extension=None)),
    (ROMMA, dict(epsilon=0.05, extension=1.0)),
    (ROMMA, dict(epsilon=0.05, extension=None)),
]
BIT_IDS = [f"{cls.__name__}-{i}" for i, (cls, _) in enumerate(BIT_CASES)]


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("cls, params", BIT_CASES, ids=BIT_IDS)
def test_unit_weights_are_no_weights(cls, params, sparse):
    X, y = make_stream(7, noise=0.1 if params["extension"] else 0.0)
    X = _fmt(X, sparse)
    params = {**params, "shuffle": True, "random_state": 3}
    plain = _fit(cls, params, X, y)
    for kw in ({"sample_weight": np.ones(X.shape[0])},
               {"class_weight": {-1: 1.0, 1: 1.0}}):
        sw = kw.get("sample_weight")
        est = _fit(cls, {**params, **{k: v for k, v in kw.items()
                                      if k != "sample_weight"}}, X, y, sw)
        _assert_same_bits(plain, est)
    one = cls(store_dual=True, **params).partial_fit(X, y, classes=[-1, 1])
    other = cls(store_dual=True, **params).partial_fit(
        X, y, classes=[-1, 1], sample_weight=np.ones(X.shape[0]))
    _assert_same_bits(one, other)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("cls, params", BIT_CASES, ids=BIT_IDS)
def test_zero_weights_are_absent_rows(cls, params, sparse):
    X, y = make_stream(8, n=50, noise=0.1 if params["extension"] else 0.0)
    rng = np.random.default_rng(8)
    keep = rng.random(X.shape[0]) > 0.3
    if params["extension"] is None:
        w = keep.astype(np.float64)  # 0 and 1: all a hard margin takes
    else:
        w = np.where(keep, _weights(8, X.shape[0]), 0.0)
    absent = _fit(cls, params, _fmt(X[keep], sparse), y[keep], w[keep])
    zero = _fit(cls, params, _fmt(X, sparse), y, w)
    _assert_same_bits(absent, zero)


@pytest.mark.parametrize("cls, params", BIT_CASES[:2] + BIT_CASES[3:4]
                         + BIT_CASES[5:6], ids=lambda v: getattr(
                             v, "__name__", ""))
def test_class_weight_is_its_sample_weight(cls, params):
    X, y = make_stream(9, noise=0.15)
    class_weight = {-1: 2.5, 1: 0.4}
    by_class = _fit(cls, {**params, "class_weight": class_weight}, X, y)
    by_row = _fit(cls, params, X, y,
                  np.where(y == 1, 0.4, 2.5))
    _assert_same_bits(by_class, by_row)


@pytest.mark.parametrize("cls", [PDM, PFM, ROMMA])
def test_without_extension_weights_are_refused(cls):
    X, y = make_stream(10)
    est = cls(extension=None)
    with pytest.raises(ValueError, match="set extension"):
        est.fit(X, y, sample_weight=_weights(10, X.shape[0]))
    with pytest.raises(ValueError, match="set extension"):
        cls(extension=None, class_weight="balanced").fit(X[:-3], y[:-3])


def test_too_small_weight_for_the_extension_is_refused():
    X, y = make_stream(11)
    w = np.ones(X.shape[0])
    w[3] = 1e-305
    with pytest.raises(ValueError, match="overflows"):
        PDM(extension=1.0).fit(X, y, sample_weight=w)


# --------------------------------------------------- what a weight means
@pytest.mark.parametrize("cls, params", [
    (PDM, dict(epsilon=0.05)),
    (PDM, dict(epsilon=0.05, active_sets=False, multiple_updates=False)),
    (PFM, dict(beta=0.03)),
    (ROMMA, dict(epsilon=0.05)),
    (ROMMA, dict(epsilon=0.05, active_sets=False)),
], ids=["pdm", "pdm-plain", "pfm", "romma", "romma-plain"])
def test_weight_is_an_explicit_per_row_extension(cls, params):
    # PDM(extension=Δ, sample_weight=s) on X is the unweighted run without
    # extension on X' = [X, diag(Δ/√s)], patterns [l x_k, l ρ, l Δ_k e_k]
    # with the extension written out: same updates, same a up to rounding.
    X, y = make_stream(12, noise=0.2)
    n, d = X.shape
    delta = 0.6
    w = _weights(12, n)
    ext = delta / np.sqrt(w)
    params = {**params, "shuffle": True, "random_state": 5}
    weighted = _fit(cls, {**params, "extension": delta}, X, y, w)
    explicit = _fit(cls, {**params, "extension": None},
                    np.hstack([X, np.diag(ext)]), y)
    assert weighted.converged_[0] and explicit.converged_[0]
    assert weighted.n_updates_ == explicit.n_updates_
    assert weighted.n_iter_ == explicit.n_iter_
    # (not n_mistakes_: a prediction leaves out the extension coordinates,
    # which the explicit rows hold as features)
    assert_allclose(weighted.coef_, explicit.coef_[:, :d], rtol=1e-9,
                    atol=1e-12)
    assert_allclose(weighted.intercept_, explicit.intercept_, rtol=1e-9,
                    atol=1e-12)
    # The explicit extension block of a is Δ_k l_k c_k (dual_coef_ = l c).
    c = np.zeros(n)
    c[weighted.support_] = weighted.dual_coef_[0]
    assert_allclose(explicit.coef_[0, d:], ext * c, rtol=1e-9, atol=1e-12)
    for name in ("directional_margin_", "margin_bound_",
                 "accuracy_estimate_"):
        assert_allclose(getattr(weighted, name), getattr(explicit, name),
                        rtol=1e-8, atol=1e-12)


def _margin_interval(X, y, delta, rho, sample_weight):
    """Bounds on γ_d of the weighted problem, and LinearSVC's [w, b].

    Lower: LinearSVC's squared-hinge solution at C = 1/(2Δ²) with the same
    sample weights, completed by the slacks, is a feasible point of the
    extended problem (``a·y_k >= 1``, ‖a‖² = ‖w‖² + b² + Σ_k s_k ξ_k²/Δ²),
    so γ_d >= 1/‖a‖. Upper: any α >= 0 of the dual ``Σα - ½ αᵀ Y Yᵀ α``
    bounds ½‖a*‖² from below (weak duality), so γ_d <= 1/√(2 D(α)); α
    from L-BFGS-B on the materialised weighted patterns.
    """
    from scipy.optimize import minimize

    labels = np.where(y == 1, 1.0, -1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        svm = LinearSVC(loss="squared_hinge", C=1.0 / (2.0 * delta ** 2),
                        intercept_scaling=rho, tol=1e-10, max_iter=100_000,
                        dual=True).fit(X, y, sample_weight=sample_weight)
    w, intercept = svm.coef_[0], svm.intercept_[0]
    xi = np.maximum(0.0, 1.0 - labels * (X @ w + intercept))
    s = np.ones(X.shape[0]) if sample_weight is None else sample_weight
    sq = w @ w + (intercept / rho) ** 2 + (s * xi * xi).sum() / delta ** 2
    lower = 1.0 / np.sqrt(sq)
    Y = pdm_reference.extended_patterns(X, labels, rho, delta, sample_weight)
    G = Y @ Y.T
    res = minimize(lambda a: (0.5 * a @ G @ a - a.sum(), G @ a - 1.0),
                   np.zeros(X.shape[0]), jac=True, method="L-BFGS-B",
                   bounds=[(0.0, None)] * X.shape[0],
                   options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10_000})
    alpha = res.x
    dual = alpha.sum() - 0.5 * alpha @ G @ alpha
    upper = 1.0 / np.sqrt(2.0 * dual)
    return lower, upper, np.append(w, intercept)


@pytest.mark.parametrize("cls", [PDM, ROMMA])
def test_weighted_margin_is_linear_svc_weighted_squared_hinge(cls):
    # The guarantee γ'_d >= (1-ε)γ_d of PDM and ROMMA, γ_d the margin of
    # the *weighted* 2-norm soft-margin problem (LinearSVC's, with the same
    # sample weights), known to within [lower, upper]; the unweighted
    # problem's γ_d lies elsewhere.
    X, y = make_stream(13, n=60, noise=0.2)
    delta, rho, eps = 0.5, 1.0, 0.005
    w = _weights(13, X.shape[0], 0.1, 5.0)
    lower, upper, svm = _margin_interval(X, y, delta, rho, w)
    assert upper - lower < 1e-6 * upper
    plain_lower, plain_upper, _ = _margin_interval(X, y, delta, rho, None)
    assert plain_upper < (1 - 3 * eps) * lower or plain_lower > upper
    est = cls(epsilon=eps, extension=delta, augmentation=rho,
              random_state=0).fit(X, y, sample_weight=w)
    assert est.converged_[0]
    margin = est.directional_margin_[0]
    assert (1 - eps) * lower <= margin <= upper * (1 + 1e-12)
    ours = np.append(est.coef_[0], est.intercept_[0])
    cosine = ours @ svm / np.linalg.norm(ours) / np.linalg.norm(svm)
    assert cosine > 0.999


def test_integer_weight_is_duplicated_rows_at_the_optimum():
    # A row of weight 3 and three copies of it share one slack at the
    # optimum (3 ξ² / Δ² either way): the same γ_d, reached by both runs.
    X, y = make_stream(14, noise=0.2)
    w = np.ones(X.shape[0])
    w[::4] = 3.0
    rows = np.repeat(np.arange(X.shape[0]), w.astype(int))
    eps = 0.005
    weighted = PDM(epsilon=eps, random_state=0).fit(X, y, sample_weight=w)
    copies = PDM(epsilon=eps, random_state=0).fit(X[rows], y[rows])
    lower, upper, _ = _margin_interval(X, y, 1.0, 1.0, w)
    for est in (weighted, copies):
        assert est.converged_[0]
        margin = est.directional_margin_[0]
        assert (1 - eps) * lower <= margin <= upper * (1 + 1e-12)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("cls, params", [
    (PDM, dict(epsilon=0.05)),
    (PDM, dict(epsilon=0.05, successive=4.0)),
    (PFM, dict()),
    (ROMMA, dict(epsilon=0.05)),
], ids=["pdm", "pdm-succ", "pfm-auto", "romma"])
def test_uniform_weights_scale_the_loss(cls, params, sparse):
    # The loss (2Δ)⁻² Σ 4 ξ_k² is Δ⁻² Σ ξ_k²: weight 4 at extension 2Δ is
    # the problem of weight 1 at Δ, and Δ_k² = 4Δ²/4 = Δ² exactly (powers
    # of two), so the same run, bit for bit, reported margins and ‖a‖²
    # (Δ² Σ c²/s) included; PFM's "auto" β too, 2Δ/(2√(4m)) = Δ/(2√m).
    # Only the recorded Δ² differs.
    X, y = make_stream(15, n=50, noise=0.2)
    X = _fmt(X, sparse)
    params = {**params, "random_state": 2}
    unit = _fit(cls, {**params, "extension": 0.7}, X, y)
    four = _fit(cls, {**params, "extension": 1.4}, X, y,
                np.full(X.shape[0], 4.0))
    assert four.state_.delta_sq == 4.0 * unit.state_.delta_sq
    four.state_ = four.state_.replace(delta_sq=unit.state_.delta_sq)
    _assert_same_bits(unit, four)
    # Twice the weights at the same Δ: a different (harder-margin) problem.
    twice = _fit(cls, {**params, "extension": 0.7}, X, y,
                 np.full(X.shape[0], 2.0))
    assert twice.n_updates_ != unit.n_updates_
