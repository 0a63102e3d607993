"""Row weights (sample_weight × class_weight) of the Higher-order and the
Second-order Perceptron, every form (issue #23).

A mistake on a row of weight s adds s times its terms to the statistics:

* HO_p(c): ``B_k = B_{k-1}(I - s ρ_k x g(x)ᵀ)``, ``v_k = v_{k-1} + s y x``
  (k counts mistakes, one each);
* SO: ``A ← A + s x xᵀ``, ``v ← v + s y x`` (dual: ``M = (aS⁻¹ + K)⁻¹``).

The estimators are checked against the weighted line-by-line references of
``tests/reference`` (the same mistakes, decisions and weights to rounding),
the forms against each other, and the weighting's edges bit for bit: a
weight of exactly 1 fed through the loops is the unweighted run, a weight of
0 is the row left out, and ``class_weight`` is the per-class
``sample_weight``.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from perceptrons import Perceptron
from perceptrons.models._matrix_perceptron import DualForm, PrimalForm
from tests.models._paper_matrix import (HigherOrderPerceptron,
                                         SecondOrderPerceptron, linear_part)
from tests.models.test_higher_order import _check_against, _orders, stream
from tests.reference import higher_order, second_order


def weights_for(seed, n, low=0.2, high=3.0):
    """Random positive row weights."""
    return np.random.default_rng(1000 + seed).uniform(low, high, n)


def _both(X, csr):
    return sp.csr_matrix(X) if csr else X


# ------------------------------------------------------- against references
HO_FORMS = [
    dict(form="primal"),
    dict(form="implicit"),
    dict(form="implicit", p=3.0),
    dict(form="dual", kernel="linear"),
    dict(form="dual", kernel="rbf", gamma=0.3),
]


@pytest.mark.reference
@pytest.mark.parametrize("params", HO_FORMS,
                         ids=lambda d: "-".join(map(str, d.values())))
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("csr", [False, True])
@pytest.mark.parametrize("sparse_variant", [False, True])
def test_higher_order_weighted_matches_reference(params, n_classes, csr,
                                                 sparse_variant):
    seed = 20 + n_classes
    X, y = stream(seed, n_classes, n=60, d=5)
    X_test, _ = stream(seed + 100, n_classes, n=30, d=5)
    sw = weights_for(seed, len(y))
    max_iter = 2
    est = HigherOrderPerceptron(c=0.6, sparse=sparse_variant, shuffle=True,
                                random_state=seed, max_iter=max_iter,
                                **params).fit(_both(X, csr), y,
                                              sample_weight=sw)
    ref_params = {k: v for k, v in params.items() if k != "form"}
    if ref_params.get("kernel") == "linear":
        del ref_params["kernel"]  # the linear dual is the primal algorithm
    ref = higher_order.fit(X, y, c=0.6, sparse=sparse_variant,
                           orders=_orders(est, len(y)), X_test=X_test,
                           sample_weight=sw, **ref_params)
    tol = (1e-6, 1e-8) if params["form"] == "dual" else (1e-8, 1e-10)
    _check_against(est, ref, X_test, *tol)
    if ref.coef is not None and linear_part(est) is not None:
        assert_allclose(linear_part(est), ref.coef, rtol=tol[0] * 100, atol=tol[1])


SO_FORMS = [
    dict(form="primal"),
    dict(form="primal", normalize=True),
    dict(form="dual", kernel="linear"),
    dict(form="dual", kernel="rbf", gamma=0.4),
    dict(form="dual", kernel="rbf", gamma=0.4, normalize=True),
]


@pytest.mark.reference
@pytest.mark.parametrize("params", SO_FORMS,
                         ids=lambda d: "-".join(map(str, d.values())))
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("csr", [False, True])
def test_second_order_weighted_matches_reference(params, n_classes, csr):
    seed = 30 + n_classes
    X, y = stream(seed, n_classes, n=60, d=5)
    X_test, _ = stream(seed + 100, n_classes, n=30, d=5)
    sw = weights_for(seed, len(y))
    est = SecondOrderPerceptron(a=0.7, shuffle=True, random_state=seed,
                                max_iter=2, **params).fit(
        _both(X, csr), y, sample_weight=sw)
    ref_params = {k: v for k, v in params.items() if k != "form"}
    if ref_params.get("kernel") == "linear":
        del ref_params["kernel"]
    ref = second_order.fit(X, y, a=0.7, orders=_orders(est, len(y)),
                           X_test=X_test, sample_weight=sw, **ref_params)
    tol = (1e-8, 1e-10) if params["form"] == "primal" else (1e-6, 1e-8)
    _check_against(est, ref, X_test, *tol)
    if ref.coef is not None and linear_part(est) is not None:
        assert_allclose(linear_part(est), ref.coef, rtol=tol[0] * 100, atol=tol[1])


@pytest.mark.reference
def test_weighted_references_reduce_to_the_unweighted():
    """The references' weight 1 is their unweighted run, and a weight of 0
    leaves the row out (the references' own checks)."""
    X, y = stream(5, 3, n=50, d=4)
    keep = np.arange(len(y)) % 4 != 1
    sw = np.where(keep, 1.0, 0.0)
    for ref in (higher_order, second_order):
        plain = ref.fit(X, y, max_iter=2)
        ones = ref.fit(X, y, max_iter=2, sample_weight=np.ones(len(y)))
        assert_array_equal(ones.coef, plain.coef)
        dropped = ref.fit(X, y, max_iter=2, sample_weight=sw)
        subset = ref.fit(X[keep], y[keep], max_iter=2)
        assert dropped.n_mistakes == subset.n_mistakes
        assert_array_equal(dropped.coef, subset.coef)


# ----------------------------------------------------------- forms agree
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("csr", [False, True])
def test_weighted_forms_agree(n_classes, csr):
    """Primal, implicit (p = 2) and linear dual forms make the same weighted
    mistakes and decisions (HO), as do SO's primal and linear dual."""
    X, y = stream(40 + n_classes, n_classes, n=80, d=6)
    sw = weights_for(40, len(y), 0.1, 4.0)
    Xf = _both(X, csr)
    fits = [HigherOrderPerceptron(c=0.5, max_iter=3, random_state=1,
                                  **params).fit(Xf, y, sample_weight=sw)
            for params in (dict(form="primal"), dict(form="implicit"),
                           dict(form="dual", kernel="linear"))]
    fits_so = [SecondOrderPerceptron(a=0.8, max_iter=3, random_state=1,
                                     **params).fit(Xf, y, sample_weight=sw)
               for params in (dict(form="primal"),
                              dict(form="dual", kernel="linear"))]
    for group in (fits, fits_so):
        first = group[0]
        for other in group[1:]:
            assert other.n_mistakes_ == first.n_mistakes_
            assert other.n_matrix_updates_ == first.n_matrix_updates_
            assert_array_equal(other.mistakes_per_epoch_,
                               first.mistakes_per_epoch_)
            assert_allclose(other.decision_function(X),
                            first.decision_function(X), rtol=1e-7,
                            atol=1e-9)
            assert_allclose(linear_part(other), linear_part(first), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("form", ["primal", "implicit", "dual"])
def test_weighted_first_order_is_the_weighted_perceptron(form):
    """HO₂(0) on unit rows is Rosenblatt's perceptron; weighted, its steps
    ``s y x`` are the package's Perceptron(eta=1)'s weighted steps."""
    X, y = stream(11, 2, n=150, d=8)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    sw = weights_for(11, len(y))
    ho = HigherOrderPerceptron(c=0.0, form=form,
                               kernel="linear" if form == "dual" else None,
                               max_iter=3, random_state=4).fit(
        X, y, sample_weight=sw)
    fo = Perceptron(eta=1, theta_init=0, threshold_step=0, max_iter=3,
                    hypothesis="last", random_state=4).fit(
        X, y, sample_weight=sw)
    assert ho.n_mistakes_ == fo.n_mistakes_
    assert ho.n_matrix_updates_ == 0
    assert_array_equal(ho.predict(X), fo.predict(X))
    assert_allclose(linear_part(ho), linear_part(fo), rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------ bit for bit
ALL_FORMS = [
    (HigherOrderPerceptron, dict(form="primal")),
    (HigherOrderPerceptron, dict(form="implicit", p=3.0, sparse=True)),
    (HigherOrderPerceptron, dict(form="dual", kernel="rbf", gamma=0.3)),
    (HigherOrderPerceptron, dict(form="dual", kernel="linear", sparse=True)),
    (SecondOrderPerceptron, dict(form="primal")),
    (SecondOrderPerceptron, dict(form="dual", kernel="rbf", gamma=0.4,
                                 normalize=True)),
]
FORM_IDS = [f"{cls.__name__[:6]}-{'-'.join(map(str, p.values()))}"
            for cls, p in ALL_FORMS]


def _state_arrays(est):
    """Every array of the fitted model, by name."""
    model = est.state_.model
    out = {"decision": est.decision_function(est._X_check)}
    for name in type(model).__dataclass_fields__:
        value = getattr(model, name)
        if isinstance(value, np.ndarray):
            out[name] = value
    return out


def _assert_same_bits(one, two):
    a, b = _state_arrays(one), _state_arrays(two)
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].dtype == b[name].dtype, name
        assert_array_equal(a[name], b[name], err_msg=name, strict=True)
    assert one.n_mistakes_ == two.n_mistakes_
    assert one.n_matrix_updates_ == two.n_matrix_updates_


def _fit_in_two(cls, params, X, y, sample_weight=None):
    """fit on the first 45 rows, partial_fit on the rest (the dual forms'
    second call has a support pool in front of its rows)."""
    est = cls(shuffle=False, max_iter=2, **params)
    first = None if sample_weight is None else sample_weight[:45]
    rest = None if sample_weight is None else sample_weight[45:]
    est.fit(X[:45], y[:45], sample_weight=first)
    est.partial_fit(X[45:], y[45:], sample_weight=rest)
    est._X_check = X
    return est


@pytest.mark.parametrize("cls, params", ALL_FORMS, ids=FORM_IDS)
@pytest.mark.parametrize("csr", [False, True])
def test_unit_weights_through_the_loops_are_the_unweighted_run(
        cls, params, csr, monkeypatch):
    """A weight of exactly 1.0 read by every mistake's update leaves the
    unweighted bits: the loops are fed an explicit array of ones (the
    estimators pass an empty array when every weight is 1)."""
    X, y = stream(50, 3, n=90, d=5)
    Xf = _both(X, csr)
    plain = _fit_in_two(cls, params, Xf, y)

    def ones_primal(self, call):
        return np.ones(call.X.shape[0])

    def ones_dual(self, call):
        return np.ones(call.dual.n_pool + call.X.shape[0])

    monkeypatch.setattr(PrimalForm, "padded_weights", ones_primal)
    monkeypatch.setattr(DualForm, "padded_weights", ones_dual)
    ones = _fit_in_two(cls, params, Xf, y)
    _assert_same_bits(plain, ones)


@pytest.mark.parametrize("cls, params", ALL_FORMS, ids=FORM_IDS)
@pytest.mark.parametrize("csr", [False, True])
def test_zero_weights_are_rows_left_out(cls, params, csr):
    """Rows of weight 0 are absent, bit for bit (file order), the other
    rows keeping their weights; the pool of the second call included."""
    X, y = stream(60, 3, n=90, d=5)
    sw = weights_for(60, len(y))
    sw[::5] = 0.0
    keep = sw > 0
    weighted = _fit_in_two(cls, params, _both(X, csr), y, sw)
    # The same split point: rows 0..44 of X are the first call.
    est = cls(shuffle=False, max_iter=2, **params)
    first = keep[:45]
    est.fit(_both(X[:45][first], csr), y[:45][first],
            sample_weight=sw[:45][first])
    rest = keep[45:]
    est.partial_fit(_both(X[45:][rest], csr), y[45:][rest],
                    sample_weight=sw[45:][rest])
    est._X_check = _both(X, csr)
    _assert_same_bits(weighted, est)


@pytest.mark.parametrize("cls, params", ALL_FORMS, ids=FORM_IDS)
def test_class_weight_is_the_per_class_sample_weight(cls, params):
    X, y = stream(70, 3, n=80, d=5)
    cw = {0: 0.5, 1: 2.0, 2: 1.25}
    sw = np.array([cw[c] for c in y])
    by_class = cls(class_weight=cw, max_iter=2, random_state=3,
                   **params).fit(X, y)
    by_row = cls(max_iter=2, random_state=3, **params).fit(
        X, y, sample_weight=sw)
    by_class._X_check = by_row._X_check = X
    _assert_same_bits(by_class, by_row)


@pytest.mark.parametrize("cls, params", ALL_FORMS, ids=FORM_IDS)
def test_weighted_partial_fit_continues_the_weighted_run(cls, params):
    """Two weighted calls are one weighted fit over the concatenated stream
    (the dual forms' pool rows take no weight of the second call)."""
    X, y = stream(80, 3, n=90, d=5)
    sw = weights_for(80, len(y))
    one = cls(shuffle=False, **params).fit(X, y, sample_weight=sw)
    two = cls(shuffle=False, **params)
    two.fit(X[:45], y[:45], sample_weight=sw[:45])
    two.partial_fit(X[45:], y[45:], sample_weight=sw[45:])
    assert two.n_mistakes_ == one.n_mistakes_
    assert two.n_matrix_updates_ == one.n_matrix_updates_
    assert_allclose(two.decision_function(X), one.decision_function(X),
                    rtol=1e-9, atol=1e-11)


def test_weights_change_the_model():
    """The weights are read: uneven weights give another model than none."""
    X, y = stream(90, 3, n=80, d=5)
    sw = weights_for(90, len(y), 0.1, 5.0)
    for cls, params in ALL_FORMS:
        plain = cls(random_state=0, **params).fit(X, y)
        weighted = cls(random_state=0, **params).fit(X, y, sample_weight=sw)
        assert not np.array_equal(plain.decision_function(X),
                                  weighted.decision_function(X))


@pytest.mark.parametrize("n_centers", [2, 3])
@pytest.mark.parametrize("cls, params", [
    (HigherOrderPerceptron, dict(max_iter=100)),
    (HigherOrderPerceptron, dict(form="implicit", p=4.0, sparse=True,
                                 max_iter=100)),
    (HigherOrderPerceptron, dict(kernel="linear", max_iter=5)),
    (SecondOrderPerceptron, dict(max_iter=100)),
    (SecondOrderPerceptron, dict(kernel="linear", max_iter=5)),
], ids=["ho-primal", "ho-implicit-p4", "ho-dual", "so-primal", "so-dual"])
def test_class_weight_favours_the_heavy_class_given_a_bias_feature(
        cls, params, n_centers):
    """scikit-learn's check_class_weight_classifiers with a constant feature.

    On its blobs (centred near the origin, std 20) no hyperplane through the
    origin puts more than 60% (two classes) or 70% (three) of the test rows
    on one side, so HO and SO, which have no intercept, cannot reach the
    check's 87% of class 0 on the raw rows; with a constant feature (their
    intercept) a weight of 1000 on class 0 against 1e-4 must.
    """
    from sklearn.datasets import make_blobs
    from sklearn.model_selection import train_test_split

    X, y = make_blobs(centers=n_centers, random_state=0, cluster_std=20)
    X = np.hstack([X, np.full((X.shape[0], 1), 20.0)])
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.5,
                                                   random_state=0)
    class_weight = {k: 1e-4 for k in range(n_centers)}
    class_weight[0] = 1000.0
    est = cls(class_weight=class_weight, random_state=0, **params).fit(
        X_train, y_train)
    assert np.mean(est.predict(X_test) == 0) > 0.87
