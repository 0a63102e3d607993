"""``Perceptron`` against the line-by-line transcription of K&W Figure 2.

STYLE habits 11-12: with ``shuffle=False`` the estimator must reproduce the
reference (``tests/reference/khardon_wachman.py``) on dense and CSR input:
the same online mistakes and updates, epoch by epoch, the same final (w, θ)
and the same predictions, for every combination of margin τ, λ-trick,
α-bound, final hypothesis and multiclass rule. Four settings:

* ``"kw-auto"``: float data with exact zeros but no zero row, K&W's defaults
  (η = 0.1, θ_Init = C = average <x, x>). No zero row because with these
  defaults θ = C(1 - 0.1 m) after m net positive updates: at m = 10 it is 0
  only up to rounding, and a zero row (score exactly -θ) is then classified
  by the sign of that rounding, which no two summation orders share (the
  loops are compiled with FMA contraction and reassociation);
* ``"float"``: float data with zero rows and dyadic η, θ_Init, C, τ, so θ is
  exact and zero rows tie (or not) exactly;
* ``"exact"``: small integers with η = 1 and integer θ_Init, C, τ and a dyadic
  λ, so every score is computed exactly and ties (ŷ = 0, equal class scores)
  really happen;
* ``"rosenblatt"``: the same integer data with η = 1, θ_Init = 0, C = 0.

Where scores are not exact, test points within ``TIE_TOL`` of a decision
are left out of the prediction checks. The grids are all-pairs covering sets
(``tests/_pairwise.py``) plus their corners, not full products.

Equivalences checked without the reference: ``partial_fit`` one pass per call
equals ``fit``; the averaged ``coef_`` equals the mean of the iterates; the
voted ``predict`` equals a brute-force vote over the hypotheses.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from perceptrons import Perceptron
from tests._pairwise import all_pairs, corners_of, parametrize
from tests.reference import khardon_wachman
from tests.reference.khardon_wachman import (
    KhardonWachmanReference,
    average_sq_norm,
    densify,
    first_argmax,
)
from tests.reference.streams import make_stream as _make_stream
from tests.reference.streams import seed_of as _seed
from tests.reference.streams import storages
from tests._states import final_hypothesis

HYPOTHESES = ["last", "longest", "voted", "averaged"]
RTOL = 1e-10
TIE_TOL = 1e-9


# ----------------------------------------------------------------- data
def make_stream(setting, n_classes, seed):
    """(X_train, y_train, X_test): a small stream with zeros and duplicates.

    Labels are not 0..K-1 (to exercise the encoding) and every class occurs.
    Zero rows everywhere except under "kw-auto" (see module docstring).
    """
    labels = [-1, 1] if n_classes == 2 else [0, 2, 5, 7][:n_classes]
    common = dict(n_classes=n_classes, n=(30, 80), d=(3, 12), duplicate=True,
                  bias=1.0, noise=0.15, labels=labels, n_test=25)
    if setting == "kw-auto":
        s = _make_stream(seed, sparsity=0.25, nonzero_rows=True, **common)
    elif setting == "float":
        s = _make_stream(seed, sparsity=0.25, zero_rows=2, **common)
    else:  # zero test row: every output sits on -θ
        s = _make_stream(seed, values="integer", sparsity=0.2, zero_rows=2,
                         zero_test_row=True, **common)
    return s.X, s.y, s.X_test


def settings(setting, X, margin_on, lam_on):
    """Estimator parameters of each setting (τ and λ off or on)."""
    if setting == "kw-auto":
        avg = float(np.mean(np.einsum("ij,ij->i", X, X)))
        params = dict(eta=0.1, theta_init="auto", threshold_step="auto")
        margin, lam = 0.37 * avg, 0.3  # τ = 0.37 in K&W's units of θ_Init
    elif setting == "float":
        params = dict(eta=0.5, theta_init=2.5, threshold_step=1.5)
        margin, lam = 1.25, 0.3
    elif setting == "exact":
        params = dict(eta=1.0, theta_init=3.0, threshold_step=2.0)
        margin, lam = 2.0, 0.5
    else:
        params = dict(eta=1.0, theta_init=0.0, threshold_step=0.0)
        margin, lam = 1.0, 0.5
    params["margin"] = margin if margin_on else 0.0
    params["lam"] = lam if lam_on else 0.0
    return params


# ----------------------------------------------------------------- checks
def assert_same_training(est, ref, scale):
    """The estimator's public attributes equal the reference state's."""
    assert est.n_mistakes_ == ref.n_mistakes
    assert est.n_updates_ == ref.n_updates
    assert_array_equal(est.mistakes_per_epoch_, ref.mistakes_per_epoch)
    assert_array_equal(est.updates_per_epoch_, ref.updates_per_epoch)
    assert est.t_ == ref.t
    assert_array_equal(est.classes_, ref.classes)
    assert_allclose(est.theta_init_, ref.theta_init, rtol=RTOL)
    assert_allclose(est.threshold_step_, ref.threshold_step, rtol=RTOL)
    assert final_hypothesis(est)[0].shape == ref.coef.shape
    assert_allclose(final_hypothesis(est)[0], ref.coef, rtol=RTOL, atol=RTOL * scale)
    assert_allclose(final_hypothesis(est)[1], ref.intercept, rtol=RTOL,
                    atol=RTOL * scale)


def reference_predictions(ref, X_test, exact):
    """(kept rows, predict, decision_function) of the reference on X_test.

    Unless every score is exact, test points whose prediction hinges on a
    comparison within ``TIE_TOL`` are left out (rounding may decide them).
    """
    keep = np.ones(X_test.shape[0], dtype=bool)
    if not exact:
        keep = ~ref.ambiguous(X_test, TIE_TOL)
        assert keep.sum() >= X_test.shape[0] // 2
    return keep, ref.predict(X_test[keep]), ref.decision_function(X_test[keep])


def assert_same_predictions(est, X_test, expected):
    """Same predict(); decision_function close (vote totals equal), for
    dense and CSR test input."""
    keep, want_predict, want = expected
    for _, X_pred in storages(X_test[keep]):
        assert_array_equal(est.predict(X_pred), want_predict)
        got = est.decision_function(X_pred)
        assert got.shape == want.shape
        if est.hypothesis == "voted":
            assert_array_equal(got, want)
        else:
            assert_allclose(got, want, rtol=RTOL,
                            atol=RTOL * (1.0 + np.abs(want).max()))


# ----------------------------------------------------------------- main grid
CASES = [("kw-auto", 2), ("kw-auto", 3), ("float", 2), ("float", 4),
         ("exact", 2), ("exact", 4), ("rosenblatt", 2), ("rosenblatt", 3)]


def reference_for(est, params, X, y, max_iter):
    """The reference run with the estimator's resolved θ_Init and C.

    "auto" is checked against the reference's own average <x, x> first,
    then the estimator's bits are used: they depend on the summation order
    (dense and CSR may differ), and K&W's defaults θ_Init = C, η = 0.1 bring
    θ back to about 0 after ten net positive updates.
    """
    avg = average_sq_norm(densify(X))
    for name in ("theta_init", "threshold_step"):
        want = avg if params[name] == "auto" else params[name]
        assert_allclose(getattr(est, name + "_"), want, rtol=1e-12)
    resolved = dict(params, theta_init=est.theta_init_,
                    threshold_step=est.threshold_step_)
    return khardon_wachman.fit(X, y, max_iter=max_iter, **resolved)


def _scale(ref):
    return 1.0 + np.abs(ref.coef).max() + np.abs(ref.intercept).max()


# The full product (setting × classes × multiclass × hypothesis × α-bound ×
# λ × τ) has 768 rows that mostly repeat one another: every pair of values
# of every two factors, plus all-off and all-on for each (setting, classes).
FIGURE2_FACTORS = {
    "case": CASES, "multiclass": ["ovr", "prototype"],
    "hypothesis": HYPOTHESES, "alpha_bound": [None, 1, 2],
    "lam_on": [False, True], "margin_on": [False, True],
}
FIGURE2_GRID = all_pairs(FIGURE2_FACTORS,
                         corners_of(FIGURE2_FACTORS, by="case"))


@pytest.mark.reference
@parametrize(FIGURE2_GRID)
def test_fit_matches_figure2(case, multiclass, hypothesis, alpha_bound,
                             lam_on, margin_on):
    setting, n_classes = case
    seed = _seed(setting, n_classes, multiclass, hypothesis, alpha_bound,
                 lam_on, margin_on)
    X, y, X_test = make_stream(setting, n_classes, seed)
    params = dict(settings(setting, X, margin_on, lam_on),
                  alpha_bound=alpha_bound, hypothesis=hypothesis,
                  multiclass=multiclass)
    exact = setting in ("exact", "rosenblatt") and hypothesis != "averaged"
    refs = {}  # by the resolved (θ_Init, C): dense and CSR may differ in bits
    for _, X_fit in storages(X):
        ests = {max_iter: Perceptron(**params, max_iter=max_iter,
                                     shuffle=False).fit(X_fit, y)
                for max_iter in (1, 3)}
        key = (ests[3].theta_init_, ests[3].threshold_step_)
        if key not in refs:
            refs[key] = {}
            for max_iter, est in ests.items():
                ref = reference_for(est, params, X, y, max_iter)
                refs[key][max_iter] = (
                    ref, reference_predictions(ref, X_test, exact))
        for max_iter, (ref, expected) in refs[key].items():
            assert_same_training(ests[max_iter], ref, _scale(ref))
            assert_same_predictions(ests[max_iter], X_test, expected)


# ----------------------------------------------------------------- partial_fit
PARTIAL_FACTORS = {"case": CASES, "multiclass": ["ovr", "prototype"],
                   "hypothesis": HYPOTHESES, "margin_on": [False, True]}


@parametrize(all_pairs(PARTIAL_FACTORS, corners_of(PARTIAL_FACTORS)))
def test_partial_fit_passes_equal_fit(case, multiclass, hypothesis,
                                      margin_on):
    """λ = 0, α-bound = None: per-call counters do not matter."""
    setting, n_classes = case
    seed = _seed("partial", setting, n_classes, multiclass, hypothesis,
                 margin_on)
    X, y, X_test = make_stream(setting, n_classes, seed)
    params = dict(settings(setting, X, margin_on, False),
                  hypothesis=hypothesis, multiclass=multiclass, shuffle=False)
    for name, X_fit in storages(X):
        full = Perceptron(**params, max_iter=3).fit(X_fit, y)
        part = Perceptron(**params)
        for _ in range(3):
            part.partial_fit(X_fit, y, classes=np.unique(y))
        assert part.n_iter_ == full.n_iter_ == 3
        assert part.n_mistakes_ == full.n_mistakes_
        assert part.n_updates_ == full.n_updates_
        assert_array_equal(part.mistakes_per_epoch_, full.mistakes_per_epoch_)
        assert_array_equal(final_hypothesis(part)[0], final_hypothesis(full)[0])
        assert_array_equal(final_hypothesis(part)[1], final_hypothesis(full)[1])
        assert_array_equal(part.predict(X_test), full.predict(X_test))
        assert_allclose(part.decision_function(X_test),
                        full.decision_function(X_test), rtol=1e-12,
                        atol=1e-12)


CHUNK_FACTORS = {"case": [("exact", 2), ("exact", 4), ("kw-auto", 3)],
                 "multiclass": ["ovr", "prototype"],
                 "hypothesis": HYPOTHESES, "lam_on": [False, True],
                 "alpha_bound": [None, 1]}


@pytest.mark.reference
@parametrize(all_pairs(CHUNK_FACTORS, corners_of(CHUNK_FACTORS, by="case")))
def test_partial_fit_chunks_match_reference(case, multiclass, hypothesis,
                                            lam_on, alpha_bound):
    """Mini-batches: α and the λ indicator restart at zero in every call
    (documented), everything else carries over; θ_Init "auto" comes from the
    first call's data."""
    setting, n_classes = case
    seed = _seed("chunks", setting, n_classes, multiclass, hypothesis, lam_on,
                 alpha_bound)
    X, y, X_test = make_stream(setting, n_classes, seed)
    params = dict(settings(setting, X, True, lam_on), alpha_bound=alpha_bound,
                  hypothesis=hypothesis, multiclass=multiclass)
    cuts = [0, 7, 8, 20, X.shape[0]]
    classes = np.unique(y)
    exact = setting in ("exact", "rosenblatt") and hypothesis != "averaged"

    def feed(model, X_fit):
        for _pass in range(2):
            for lo, hi in zip(cuts[:-1], cuts[1:]):
                model.partial_fit(X_fit[lo:hi], y[lo:hi], classes=classes)
        return model

    refs = {}
    for _, X_fit in storages(X):
        est = feed(Perceptron(**params, shuffle=False), X_fit)
        assert est.n_iter_ == 2 * (len(cuts) - 1)
        # "auto" comes from the first call's rows only.
        first = average_sq_norm(densify(X[:cuts[1]]))
        for name in ("theta_init", "threshold_step"):
            want = first if params[name] == "auto" else params[name]
            assert_allclose(getattr(est, name + "_"), want, rtol=1e-12)
        key = (est.theta_init_, est.threshold_step_)
        if key not in refs:
            ref = feed(KhardonWachmanReference(**dict(
                params, theta_init=key[0], threshold_step=key[1])), X).state()
            refs[key] = ref, reference_predictions(ref, X_test, exact)
        ref, expected = refs[key]
        assert_same_training(est, ref, _scale(ref))
        assert_same_predictions(est, X_test, expected)


# ----------------------------------------------------------------- equivalences
def _iterates_one_row_at_a_time(params, X, y):
    """(w, θ) after every step, from ``hypothesis="last"`` fed row by row."""
    est = Perceptron(**dict(params, hypothesis="last"))
    classes = np.unique(y)
    coefs, intercepts, updates = [], [], []
    for i in range(X.shape[0]):
        before = est.n_updates_ if hasattr(est, "n_updates_") else 0
        est.partial_fit(X[i:i + 1], y[i:i + 1], classes=classes)
        coefs.append(final_hypothesis(est)[0].copy())
        intercepts.append(final_hypothesis(est)[1].copy())
        updates.append(est.n_updates_ - before)
    return np.array(coefs), np.array(intercepts), np.array(updates)


@pytest.mark.parametrize("multiclass", ["ovr", "prototype"])
@pytest.mark.parametrize("setting,n_classes", CASES)
def test_averaged_is_mean_of_iterates(setting, n_classes, multiclass):
    seed = _seed("avg", setting, n_classes, multiclass)
    X, y, _ = make_stream(setting, n_classes, seed)
    params = dict(settings(setting, X, True, False), multiclass=multiclass,
                  shuffle=False)
    if params["theta_init"] == "auto":  # row-by-row calls would resolve it
        avg = float(np.mean(np.einsum("ij,ij->i", X, X)))
        params.update(theta_init=avg, threshold_step=avg)
    X2, y2 = np.vstack([X, X]), np.concatenate([y, y])  # two passes
    coefs, intercepts, _ = _iterates_one_row_at_a_time(params, X2, y2)
    est = Perceptron(**params, hypothesis="averaged", max_iter=2).fit(X, y)
    scale = 1.0 + np.abs(coefs).max() + np.abs(intercepts).max()
    assert_allclose(final_hypothesis(est)[0], coefs.mean(axis=0), rtol=RTOL,
                    atol=RTOL * scale)
    assert_allclose(final_hypothesis(est)[1], intercepts.mean(axis=0), rtol=RTOL,
                    atol=RTOL * scale)


@pytest.mark.reference
@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("margin_on", [False, True], ids=["tau0", "tau"])
@pytest.mark.parametrize("multiclass", ["ovr", "prototype"])
@pytest.mark.parametrize("n_classes", [2, 4])
def test_voted_predict_is_brute_force_vote(n_classes, multiclass, margin_on,
                                           layout):
    """Rebuild every hypothesis and its vote from a row-by-row run, vote.

    Exact setting: integer data and C != 0, so every update changes θ (an
    update is visible in the iterates) and every score is exact. CSR input
    takes the sparse Gram blocks of the primal voted prediction.
    """
    seed = _seed("vote", n_classes, multiclass, margin_on)
    X, y, X_test = make_stream("exact", n_classes, seed)
    params = dict(settings("exact", X, margin_on, False),
                  multiclass=multiclass, shuffle=False)
    X2, y2 = np.vstack([X, X]), np.concatenate([y, y])  # two passes
    coefs, intercepts, _ = _iterates_one_row_at_a_time(params, X2, y2)
    fmt = sp.csr_matrix if layout == "csr" else np.asarray
    est = Perceptron(**params, hypothesis="voted", max_iter=2).fit(fmt(X), y)
    prototype = multiclass == "prototype"
    n_rows = coefs.shape[1]
    # Each problem's hypotheses: h_0 = (0, θ_Init), then one per update. With
    # λ = 0 and no α-bound, a step that changes nothing had ŷ = y: a vote.
    problems = [slice(None)] if prototype else [slice(k, k + 1)
                                                for k in range(n_rows)]
    totals = np.zeros((X_test.shape[0], n_rows))
    for k, rows in enumerate(problems):
        W_h = np.zeros((n_rows, X.shape[1]))[rows]
        b_h = np.full(n_rows, -params["theta_init"])[rows]
        hypotheses, vote = [], 0
        for W_s, b_s in zip(coefs[:, rows], intercepts[:, rows]):
            if np.array_equal(W_s, W_h) and np.array_equal(b_s, b_h):
                vote += 1
            else:
                hypotheses.append((W_h, b_h, vote))
                W_h, b_h, vote = W_s, b_s, 0
        hypotheses.append((W_h, b_h, vote))
        for W, b, v in hypotheses:
            s = X_test @ W.T + b
            if prototype:
                for t in range(X_test.shape[0]):
                    totals[t, first_argmax(list(s[t]))] += v
            else:
                totals[:, k] += v * np.sign(s[:, 0])
    if prototype and n_rows == 2:
        want = totals[:, 1] - totals[:, 0]
    elif n_rows == 1:
        want = totals[:, 0]
    else:
        want = totals
    assert_array_equal(est.decision_function(fmt(X_test)), want)
    if want.ndim == 1:
        expected = est.classes_[(want > 0).astype(int)]
    else:
        expected = est.classes_[[first_argmax(list(r)) for r in want]]
    assert_array_equal(est.predict(fmt(X_test)), expected)


@pytest.mark.reference
@pytest.mark.parametrize("alpha_bound", [None, 1])
@pytest.mark.parametrize("multiclass", ["ovr", "prototype"])
@pytest.mark.parametrize("n_classes", [2, 4])
def test_longest_survivor_without_survivor(n_classes, multiclass, alpha_bound):
    """A margin no example meets: every step is an update (or, α-bound
    reached, nothing), no hypothesis is ever correct, and the longest
    survivor stays Figure 2's initial (w_l.s., θ_l.s.) = (0, θ_Init)."""
    X, y, X_test = make_stream("exact", n_classes, _seed("nols", n_classes))
    params = dict(settings("exact", X, False, False), margin=1e9,
                  alpha_bound=alpha_bound, hypothesis="longest",
                  multiclass=multiclass)
    est = Perceptron(**params, max_iter=2, shuffle=False).fit(X, y)
    ref = khardon_wachman.fit(X, y, max_iter=2, **params)
    assert_same_training(est, ref, _scale(ref))
    assert_array_equal(final_hypothesis(est)[0], 0.0)
    assert_array_equal(final_hypothesis(est)[1], -params["theta_init"])
    assert_same_predictions(est, X_test,
                            reference_predictions(ref, X_test, exact=True))


def test_dense_and_csr_fit_the_same_model_with_kw_defaults():
    """STYLE habit 11: the same weights on dense and CSR input."""
    X, y, _, _, _ = _make_stream(12, n=(30, 80), d=(3, 12), sparsity=0.25,
                                 zero_rows=3, bias=0.3, noise=0.1,
                                 labels=[-1, 1])
    dense = Perceptron(max_iter=10, shuffle=False).fit(X, y)
    csr = Perceptron(max_iter=10, shuffle=False).fit(sp.csr_matrix(X), y)
    assert dense.theta_init_ == csr.theta_init_
    assert_array_equal(dense.mistakes_per_epoch_, csr.mistakes_per_epoch_)
    assert_array_equal(final_hypothesis(dense)[0], final_hypothesis(csr)[0])
    assert_array_equal(final_hypothesis(dense)[1], final_hypothesis(csr)[1])
