"""HigherOrderPerceptron and SecondOrderPerceptron against their oracles.

Every form (primal, implicit primal, dual with the linear and the RBF kernel)
must make the oracle's mistakes, trial for trial in count, the same matrix
updates, and the same predictions, with weights and margins equal to
rounding; on dense and CSR, float and integer data, two and three classes,
one and three epochs, in file order and shuffled. The oracles are
``higher_order.fit`` and ``second_order.fit`` of ``tests/reference``; the
form grids are all pairs plus corners (``tests/_pairwise.py``).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from perceptrons import Perceptron
from perceptrons.models._stopping import validation_split
from perceptrons.utils.random import epoch_orders
from tests.models._paper_matrix import (HigherOrderPerceptron,
                                         SecondOrderPerceptron, linear_part,
                                         paper_margins)
from tests._pairwise import all_pairs, corners_of, parametrize
from tests._states import assert_same_state
from tests.reference import higher_order, second_order
from tests.reference.streams import make_stream


def stream(seed, n_classes=2, n=70, d=6, integer=False, flip=0.1):
    """Noisy linearly labelled rows (no zero row), labels 0..n_classes-1."""
    s = make_stream(seed, n_classes=n_classes, n=n, d=d,
                    values="integer" if integer else "float", int_range=20,
                    feature_scale=None if integer else (0.5, 3.0),
                    nonzero_rows=True, noise=flip, every_class=False)
    return s.X, s.y


CASES = [dict(seed=s, n_classes=k, integer=i)
         for s, k, i in [(0, 2, False), (1, 3, False), (2, 2, True),
                         (3, 3, True)]]


def _orders(est, n):
    return list(epoch_orders(est.random_state, n, est.max_iter, est.shuffle))


def _check_against(est, ref, X_test, rtol=1e-8, atol=1e-10):
    """The estimator's public attributes equal the reference state's (an
    ``OvRResult`` fitted with ``X_test``)."""
    assert est.n_mistakes_ == ref.n_mistakes
    assert est.n_matrix_updates_ == ref.n_matrix_updates
    assert_array_equal(est.mistakes_per_epoch_, ref.mistakes_per_epoch)
    assert_array_equal(est.n_mistakes_per_problem_,
                       ref.n_mistakes_per_problem)
    scores = ref.test_scores
    assert_allclose(paper_margins(est, X_test).reshape(scores.shape),
                    scores, rtol=rtol, atol=atol)
    if ref.kernel is None:
        assert_array_equal(est.predict(X_test), ref.predict(X_test))


# Stream × form × sparse variant × storage: every pair (48 in the product).
HO_FACTORS = {"case": CASES, "form": ["primal", "implicit", "dual"],
              "sparse_variant": [False, True], "csr": [False, True]}


@pytest.mark.reference
@parametrize(all_pairs(HO_FACTORS, corners_of(HO_FACTORS, by="case")))
def test_higher_order_forms_match_figure1(case, form, sparse_variant, csr):
    X, y = stream(**case)
    X_test, _ = stream(case["seed"] + 100, case["n_classes"])
    Xf = sp.csr_matrix(X) if csr else X
    kernel = "linear" if form == "dual" else None
    max_iter = 3 if case["seed"] % 2 else 1
    est = HigherOrderPerceptron(c=0.6, sparse=sparse_variant, form=form,
                                kernel=kernel, max_iter=max_iter,
                                shuffle=bool(case["seed"] % 2),
                                random_state=case["seed"]).fit(Xf, y)
    # The dual form with the linear kernel is the primal algorithm.
    ref = higher_order.fit(X, y, c=0.6, sparse=sparse_variant,
                           orders=_orders(est, len(y)), X_test=X_test)
    _check_against(est, ref, X_test)
    # The dual form with the linear kernel exposes the same w as coef_.
    assert_allclose(linear_part(est), ref.coef, rtol=1e-8, atol=1e-10)


@pytest.mark.reference
@pytest.mark.parametrize("p", [3.0, 4.0, 7.0])
@pytest.mark.parametrize("csr", [False, True])
def test_implicit_p_norm_matches_figure1(p, csr):
    X, y = stream(5, 3)
    X_test, _ = stream(105, 3)
    est = HigherOrderPerceptron(p=p, c=0.4, max_iter=2, shuffle=False).fit(
        sp.csr_matrix(X) if csr else X, y)
    assert est.form_ == "implicit"
    ref = higher_order.fit(X, y, p=p, c=0.4, max_iter=2, X_test=X_test)
    _check_against(est, ref, X_test)
    assert_allclose(linear_part(est), ref.coef, rtol=1e-8, atol=1e-12)


@pytest.mark.reference
@pytest.mark.parametrize("kernel, params", [("rbf", dict(gamma=0.3)),
                                            ("poly", dict(degree=2,
                                                          coef0=1.0))])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_dual_kernel_matches_figure1_in_feature_space(kernel, params,
                                                      n_classes):
    X, y = stream(7, n_classes, n=50, d=4)
    X_test, _ = stream(107, n_classes, n=20, d=4)
    est = HigherOrderPerceptron(c=0.4, kernel=kernel, max_iter=2,
                                shuffle=False, **params).fit(X, y)
    ref = higher_order.fit(X, y, c=0.4, kernel=kernel, max_iter=2,
                           X_test=X_test, **params)
    _check_against(est, ref, X_test, rtol=1e-6, atol=1e-8)


def test_first_order_is_the_packages_perceptron_on_unit_rows():
    """FO = HO₂(0) is Rosenblatt's perceptron through the origin."""
    X, y = stream(11, 2, n=200, d=8)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    for form in ["primal", "implicit", "dual"]:
        ho = HigherOrderPerceptron(c=0.0, form=form,
                                   kernel="linear" if form == "dual" else None,
                                   max_iter=3, random_state=4).fit(X, y)
        fo = Perceptron(eta=1, theta_init=0, threshold_step=0, max_iter=3,
                        hypothesis="last",
                        random_state=4).fit(X, y)
        assert ho.n_mistakes_ == fo.n_mistakes_
        assert ho.n_matrix_updates_ == 0
        assert_array_equal(ho.predict(X), fo.predict(X))
        if form != "dual":
            assert_allclose(linear_part(ho), linear_part(fo), rtol=1e-12, atol=1e-12)


def test_partial_fit_continues_the_run():
    """Two partial_fit calls are one fit over the concatenated stream."""
    X, y = stream(13, 3, n=80)
    for params in [dict(), dict(form="implicit"), dict(kernel="rbf"),
                   dict(kernel="linear", sparse=True)]:
        one = HigherOrderPerceptron(shuffle=False, **params).fit(X, y)
        two = HigherOrderPerceptron(shuffle=False, **params)
        two.partial_fit(X[:37], y[:37], classes=np.unique(y))
        two.partial_fit(X[37:], y[37:])
        assert two.n_mistakes_ == one.n_mistakes_
        assert two.n_matrix_updates_ == one.n_matrix_updates_
        assert_allclose(two.decision_function(X), one.decision_function(X),
                        rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("cls, params", [
    (HigherOrderPerceptron, dict()),
    (HigherOrderPerceptron, dict(form="implicit", p=3.0)),
    (HigherOrderPerceptron, dict(kernel="rbf", gamma=0.3)),
    (SecondOrderPerceptron, dict()),
    (SecondOrderPerceptron, dict(kernel="rbf", gamma=0.3)),
], ids=["HO-primal", "HO-implicit", "HO-dual", "SO-primal", "SO-dual"])
def test_early_stopping_passes_are_warm_started_passes(cls, params):
    """``early_stopping`` trains one call per pass, each continuing the
    model (its support pool in front, in the dual form) from its state:
    the same bits as ``warm_start`` fits of one pass on the kept rows. (The
    old base class kept the first call's loop store across the calls: the
    dual forms then read kernel rows outside X and corrupted the heap.)"""
    X, y = stream(21, 3, n=90)
    classes = np.unique(y)
    held = validation_split(np.searchsorted(classes, y), np.zeros(0), 0.1, 0)
    stopped = cls(early_stopping=True, max_iter=3, shuffle=False,
                  random_state=0, **params).fit(X, y)
    passes = cls(warm_start=True, max_iter=1, shuffle=False, **params)
    for _ in range(3):
        passes.fit(X[~held], y[~held])
    assert stopped.n_iter_ == passes.n_iter_ == 3
    assert_same_state(stopped, passes)


# --------------------------------------------------------------- second order
SO_FACTORS = {"case": CASES, "form": ["primal", "dual"], "csr": [False, True],
              "normalize": [False, True]}


@pytest.mark.reference
@parametrize(all_pairs(SO_FACTORS, corners_of(SO_FACTORS, by="case")))
def test_second_order_forms_match_the_explicit_inverse(case, form, csr,
                                                       normalize):
    X, y = stream(**case)
    X_test, _ = stream(case["seed"] + 100, case["n_classes"])
    max_iter = 3 if case["seed"] % 2 else 1
    est = SecondOrderPerceptron(a=0.7, form=form, normalize=normalize,
                                kernel="linear" if form == "dual" else None,
                                max_iter=max_iter,
                                shuffle=bool(case["seed"] % 2),
                                random_state=case["seed"]).fit(
        sp.csr_matrix(X) if csr else X, y)
    ref = second_order.fit(X, y, a=0.7, normalize=normalize,
                           orders=_orders(est, len(y)), X_test=X_test)
    # (aI + K)⁻¹ of unnormalised integer rows (entries ~10³) is the least
    # well conditioned path: margins agree to ~1e-7 relative there.
    tol = (1e-8, 1e-10) if form == "primal" else (1e-6, 1e-8)
    _check_against(est, ref, X_test, *tol)
    # w = A⁻¹v (the primal form and the linear kernel).
    assert_allclose(linear_part(est), ref.coef, rtol=tol[0] * 100, atol=tol[1])


@pytest.mark.reference
@pytest.mark.parametrize("n_classes", [2, 3])
def test_second_order_rbf_matches_in_feature_space(n_classes):
    X, y = stream(17, n_classes, n=50, d=4)
    X_test, _ = stream(117, n_classes, n=20, d=4)
    est = SecondOrderPerceptron(a=0.5, kernel="rbf", gamma=0.4, max_iter=2,
                                shuffle=False).fit(X, y)
    ref = second_order.fit(X, y, a=0.5, kernel="rbf", gamma=0.4, max_iter=2,
                           X_test=X_test)
    _check_against(est, ref, X_test, rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("params, match", [
    (dict(p=1.5), "p"), (dict(c=1.0), "c"), (dict(c=-0.1), "c"),
    (dict(p=3.0, form="primal"), "p=2"), (dict(kernel="rbf", form="primal"),
                                          "kernel"),
    (dict(form="dual"), "pass a kernel"),
])
def test_higher_order_refuses_bad_parameters(params, match):
    X, y = stream(0)
    with pytest.raises(ValueError, match=match):
        HigherOrderPerceptron(**params).fit(X, y)


def test_second_order_refuses_bad_parameters():
    X, y = stream(0)
    with pytest.raises(ValueError, match="'a'"):
        SecondOrderPerceptron(a=0.0).fit(X, y)
    with pytest.raises(ValueError, match="implicit"):
        SecondOrderPerceptron(form="implicit").fit(X, y)
    with pytest.raises(ValueError, match="pass a kernel"):
        SecondOrderPerceptron(form="dual").fit(X, y)


def test_zero_kernel_norm_is_refused_naming_the_row():
    X, y = stream(0)
    X[4] = 0.0
    with pytest.raises(ValueError, match="row 4 of X has k"):
        HigherOrderPerceptron(kernel="poly", coef0=0.0).fit(X, y)
    # In the primal forms a zero row has no direction and stays zero.
    est = HigherOrderPerceptron(shuffle=False).fit(X, y)
    assert np.isfinite(linear_part(est)).all()


def test_overflow_is_refused_with_the_remedy():
    X, y = stream(0)
    X[3] *= 1e200
    with pytest.raises(ValueError, match="overflow|scale"):
        SecondOrderPerceptron().fit(X, y)
