"""Behaviour of perceptrons.Perceptron beyond the reference agreement."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_digits, make_classification

from perceptrons import Perceptron
from tests._states import assert_same_state, final_hypothesis

HYPOTHESES = ["last", "longest", "voted", "averaged"]


@pytest.fixture(scope="module")
def binary():
    X, y = make_classification(n_samples=200, n_features=8, n_informative=5,
                               random_state=0)
    return X, y


@pytest.fixture(scope="module")
def multiclass():
    X, y = make_classification(n_samples=240, n_features=10, n_informative=6,
                               n_classes=4, n_clusters_per_class=1,
                               random_state=1)
    return X, y


# ------------------------------------------------------------- bad input
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_X_rejected(binary, bad):
    X, y = binary
    X = X.copy()
    X[3, 2] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        Perceptron().fit(X, y)
    clf = Perceptron().fit(*binary)
    with pytest.raises(ValueError, match="NaN|infinity"):
        clf.predict(X)


def test_non_finite_sparse_rejected(binary):
    X, y = binary
    Xs = sp.csr_matrix(X)
    Xs.data[5] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Perceptron().fit(Xs, y)


def test_wrong_shapes_rejected(binary):
    X, y = binary
    with pytest.raises(ValueError, match="2D"):
        Perceptron().fit(X[:, 0], y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        Perceptron().fit(X, y[:-1])


def test_single_class_rejected(binary):
    X, _ = binary
    with pytest.raises(ValueError, match="only one class"):
        Perceptron().fit(X, np.ones(X.shape[0]))


def test_empty_data_rejected():
    with pytest.raises(ValueError, match="0 sample"):
        Perceptron().fit(np.zeros((0, 3)), np.zeros(0))


def test_continuous_labels_rejected(binary):
    X, _ = binary
    with pytest.raises(ValueError, match="Unknown label type"):
        Perceptron().fit(X, np.linspace(0, 1, X.shape[0]))


def test_feature_count_mismatch_at_predict(binary):
    X, y = binary
    clf = Perceptron().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :-1])


def test_partial_fit_needs_classes_then_takes_new_ones(binary):
    X, y = binary
    with pytest.raises(ValueError, match="classes must be passed"):
        Perceptron().partial_fit(X, y)
    clf = Perceptron().partial_fit(X, y, classes=[0, 1])
    clf.partial_fit(X[:3], np.array([0, 7, 1]))
    np.testing.assert_array_equal(clf.classes_, [0, 1, 7])
    clf.partial_fit(X, y, classes=[0, 1, 2, 7])
    np.testing.assert_array_equal(clf.classes_, [0, 1, 2, 7])
    with pytest.raises(ValueError, match=r"leaves out the fitted classes"):
        clf.partial_fit(X, y, classes=[0, 1])


def test_overflow_is_reported_with_epoch():
    X = np.array([[1e10, 1.0], [-1e10, 2.0], [1e10, -1.0]])
    y = np.array([0, 1, 1])
    with pytest.raises(ValueError, match="overflow at epoch 1"):
        Perceptron(eta=1e300, theta_init=0.0, threshold_step=0.0,
                   max_iter=50, shuffle=False).fit(X, y)


@pytest.mark.parametrize("params, match", [
    ({"eta": 0.0}, "eta"),
    ({"margin": -1.0}, "margin"),
    ({"hypothesis": "best"}, "hypothesis"),
    ({"alpha_bound": 0}, "alpha_bound"),
    ({"max_iter": 0}, "max_iter"),
    ({"multiclass": "ovo"}, "multiclass"),
])
def test_bad_parameters_named(binary, params, match):
    with pytest.raises(ValueError, match=match):
        Perceptron(**params).fit(*binary)


# ------------------------------------------------------------- determinism
@pytest.mark.parametrize("hypothesis", HYPOTHESES)
def test_same_seed_same_model_bit_for_bit(multiclass, hypothesis):
    X, y = multiclass
    a = Perceptron(hypothesis=hypothesis, random_state=3).fit(X, y)
    b = Perceptron(hypothesis=hypothesis, random_state=3).fit(X, y)
    c = Perceptron(hypothesis=hypothesis, random_state=4).fit(X, y)
    assert np.array_equal(final_hypothesis(a)[0], final_hypothesis(b)[0])
    assert np.array_equal(final_hypothesis(a)[1], final_hypothesis(b)[1])
    assert np.array_equal(a.decision_function(X), b.decision_function(X))
    assert a.n_mistakes_ == b.n_mistakes_
    assert not np.array_equal(final_hypothesis(a)[0], final_hypothesis(c)[0])


@pytest.mark.parametrize("hypothesis", HYPOTHESES)
@pytest.mark.parametrize("multiclass_mode", ["ovr", "prototype"])
def test_sparse_equals_dense(multiclass, hypothesis, multiclass_mode):
    X, y = multiclass
    X = X.copy()
    X[np.abs(X) < 0.7] = 0.0  # genuinely sparse rows
    params = dict(hypothesis=hypothesis, multiclass=multiclass_mode,
                  margin=0.5, lam=0.25, random_state=0, max_iter=3)
    dense = Perceptron(**params).fit(X, y)
    sparse = Perceptron(**params).fit(sp.csr_matrix(X), y)
    assert dense.n_mistakes_ == sparse.n_mistakes_
    assert dense.n_updates_ == sparse.n_updates_
    np.testing.assert_allclose(final_hypothesis(dense)[0], final_hypothesis(sparse)[0], rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_array_equal(dense.predict(X),
                                  sparse.predict(sp.csr_matrix(X)))


@pytest.mark.parametrize("hypothesis", HYPOTHESES)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("params", [
    {}, {"margin": 0.5, "lam": 0.25}, {"alpha_bound": 2, "eta": 0.7},
    {"tau": 0.3, "class_weight": {0: 2.0, 1: 0.5}}])
def test_binary_rule_is_the_threshold_rule_bit_for_bit(
        binary, monkeypatch, hypothesis, sparse, params):
    """The binary rule's compiled loop (its counts constants) makes the
    steps of the generic threshold rule with one problem, bit for bit."""
    import perceptrons.models._figure2 as module
    from perceptrons._loops.hypotheses import BinaryRule, ThresholdRule

    X, y = binary
    X = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X)) if sparse else X
    params = dict(hypothesis=hypothesis, max_iter=3, random_state=0,
                  **params)
    used = []
    real = module.threshold_rule

    def record(n_problems, *, primal):
        used.append(real(n_problems, primal=primal))
        return used[-1]

    monkeypatch.setattr(module, "threshold_rule", record)
    binary_fit = Perceptron(**params).fit(X, y)
    assert used and set(used) == {BinaryRule}
    monkeypatch.setattr(module, "threshold_rule",
                        lambda n_problems, *, primal: ThresholdRule)
    generic_fit = Perceptron(**params).fit(X, y)
    assert_same_state(binary_fit, generic_fit)
    assert binary_fit.n_updates_ > 0


def test_int64_indexed_csr_accepted(binary):
    X, y = binary
    Xs = sp.csr_matrix(X)
    Xs.indices = Xs.indices.astype(np.int64)
    Xs.indptr = Xs.indptr.astype(np.int64)
    a = Perceptron(shuffle=False).fit(Xs, y)
    b = Perceptron(shuffle=False).fit(X, y)
    np.testing.assert_allclose(final_hypothesis(a)[0], final_hypothesis(b)[0], rtol=1e-12)


# ------------------------------------------------------------- behaviour
def test_separable_data_is_learned_exactly():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    u = rng.normal(size=5)
    score = X @ u - 0.3
    keep = np.abs(score) > 0.2
    X, y = X[keep], np.where(score[keep] > 0, 1, -1)
    # K&W defaults (threshold learned with theta_init = C = avg <x,x>).
    clf = Perceptron(max_iter=200, random_state=0).fit(X, y)
    assert clf.score(X, y) == 1.0
    assert clf.mistakes_per_epoch_[-1] == 0
    # An epoch with no mistake and no margin makes no update.
    assert clf.updates_per_epoch_[-1] == 0


def test_counters_are_consistent(multiclass):
    X, y = multiclass
    clf = Perceptron(max_iter=4, random_state=0).fit(X, y)
    assert clf.n_iter_ == 4
    assert clf.t_ == 4 * X.shape[0]
    assert clf.n_mistakes_ == clf.mistakes_per_epoch_.sum()
    assert clf.n_updates_ == clf.updates_per_epoch_.sum()
    # One-vs-rest: one row per class, and updates count every problem.
    assert final_hypothesis(clf)[0].shape == (4, X.shape[1])
    assert clf.n_updates_ >= clf.n_mistakes_


def test_margin_makes_more_updates(binary):
    X, y = binary
    plain = Perceptron(random_state=0).fit(X, y)
    wide = Perceptron(margin=2.0 * plain.theta_init_, random_state=0).fit(X, y)
    assert wide.n_updates_ > plain.n_updates_


def test_alpha_bound_caps_updates_per_example(binary):
    X, y = binary
    y = y.copy()
    y[::5] = 1 - y[::5]  # label noise: some examples keep causing updates
    clf = Perceptron(alpha_bound=2, max_iter=20, random_state=0).fit(X, y)
    free = Perceptron(max_iter=20, random_state=0).fit(X, y)
    # α_i is per-call scratch; its cap shows in the totals (the reference
    # tests check every α_i).
    assert clf.n_updates_ <= 2 * X.shape[0] < free.n_updates_


def test_prototype_two_classes_is_binary_with_double_step(binary):
    # With θ_Init = 0 the prototypes' difference follows the binary rule with
    # step 2η (Eq. 18 adds x to one prototype and subtracts it from the other).
    X, y = binary
    proto = Perceptron(multiclass="prototype", theta_init=0.0, eta=0.5,
                       shuffle=False, max_iter=3).fit(X, y)
    binary_clf = Perceptron(theta_init=0.0, eta=1.0, shuffle=False,
                            max_iter=3).fit(X, y)
    assert proto.n_mistakes_ == binary_clf.n_mistakes_
    assert proto.n_updates_ == binary_clf.n_updates_
    np.testing.assert_allclose(final_hypothesis(proto)[0][1] - final_hypothesis(proto)[0][0],
                               final_hypothesis(binary_clf)[0][0], rtol=1e-12)
    np.testing.assert_allclose(proto.decision_function(X),
                               binary_clf.decision_function(X), rtol=1e-10,
                               atol=1e-10)


@pytest.mark.parametrize("hypothesis", HYPOTHESES)
def test_real_data_accuracy(hypothesis):
    X, y = load_digits(return_X_y=True)
    clf = Perceptron(hypothesis=hypothesis, random_state=0).fit(X[:1500],
                                                                y[:1500])
    assert clf.score(X[1500:], y[1500:]) > 0.85


def test_voted_beats_last_on_noisy_data():
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    rng = np.random.default_rng(0)
    y = np.where(rng.random(y.shape[0]) < 0.15, 1 - y, y)
    last, voted = [], []
    for seed in range(5):
        tr = rng.permutation(X.shape[0])
        a, b = tr[:400], tr[400:]
        last.append(Perceptron(random_state=seed).fit(X[a], y[a])
                    .score(X[b], y[b]))
        voted.append(Perceptron(hypothesis="voted", random_state=seed)
                     .fit(X[a], y[a]).score(X[b], y[b]))
    assert np.mean(voted) > np.mean(last)


def test_caller_csr_matrix_is_not_modified():
    # Unsorted indices with a duplicate: training must not reorder or sum
    # the caller's arrays in place.
    X = sp.csr_matrix((np.array([1.0, 2.0, 3.0, -1.0, 4.0]),
                       np.array([2, 0, 0, 1, 1]),
                       np.array([0, 3, 5])), shape=(2, 3))
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    clf = Perceptron(shuffle=False).fit(X, [0, 1])
    assert np.array_equal(X.data, before[0])
    assert np.array_equal(X.indices, before[1])
    assert np.array_equal(X.indptr, before[2])
    dense = Perceptron(shuffle=False).fit(X.toarray(), [0, 1])
    np.testing.assert_array_equal(final_hypothesis(clf)[0], final_hypothesis(dense)[0])


def test_float_labels_with_fractions_rejected_and_integral_accepted(binary):
    X, y = binary
    Perceptron().fit(X, y.astype(float))
    with pytest.raises(ValueError, match="Unknown label type"):
        Perceptron().fit(X, y + 0.5)


# ------------------------------------------------------------- voted, at scale
def test_voted_sparse_gram_paths_agree_bit_for_bit(monkeypatch):
    """CSR test rows get their Gram blocks from the dense-block loop or from
    scikit-learn's sparse product, whichever is cheaper: the same votes.
    Non-canonical CSR input (unsorted indices) takes the sparse product and
    predicts the same."""
    import perceptrons.models._voted as forms

    X, y = make_classification(n_samples=300, n_features=30, n_informative=8,
                               random_state=3)
    X[np.abs(X) < 0.8] = 0.0
    Xs = sp.csr_matrix(X)
    X_test = sp.csr_matrix(X[::-1] * 1.5)
    est = Perceptron(hypothesis="voted", max_iter=3, random_state=0).fit(Xs,
                                                                         y)
    decisions = []
    for speedup in (np.inf, 0.0):  # dense block always / never
        monkeypatch.setattr(forms, "_DENSE_BLOCK_SPEEDUP", speedup)
        decisions.append(est.decision_function(X_test))
    np.testing.assert_array_equal(decisions[0], decisions[1])
    shuffled = X_test.copy()
    for i in range(shuffled.shape[0]):  # reverse each row's index order
        lo, hi = shuffled.indptr[i], shuffled.indptr[i + 1]
        shuffled.indices[lo:hi] = shuffled.indices[lo:hi][::-1].copy()
        shuffled.data[lo:hi] = shuffled.data[lo:hi][::-1].copy()
    shuffled.has_sorted_indices = False
    np.testing.assert_array_equal(est.predict(shuffled), est.predict(X_test))
    np.testing.assert_allclose(est.decision_function(shuffled), decisions[0])
    # Dense test rows against CSR support vectors, and a dense fit.
    np.testing.assert_array_equal(est.predict(X_test.toarray()),
                                  est.predict(X_test))
    dense = Perceptron(hypothesis="voted", max_iter=3, random_state=0).fit(
        X, y)
    np.testing.assert_array_equal(dense.predict(X_test.toarray()),
                                  est.predict(X_test))


def test_voted_predict_in_blocks_equals_one_block(monkeypatch):
    """The number of CSR test rows per Gram block changes no vote (dense
    rows keep blocks of a fixed size: BLAS may round another shape
    differently)."""
    import perceptrons.models._voted as voted

    X, y = make_classification(n_samples=200, n_features=12, n_informative=6,
                               n_classes=3, n_clusters_per_class=1,
                               random_state=4)
    X[np.abs(X) < 0.5] = 0.0
    X = sp.csr_matrix(X)
    for multiclass in ("ovr", "prototype"):
        est = Perceptron(hypothesis="voted", multiclass=multiclass,
                         random_state=0).fit(X, y)
        whole = est.decision_function(X)
        monkeypatch.setattr(voted, "_block_rows", lambda fill, n_support: 8)
        np.testing.assert_array_equal(est.decision_function(X), whole)
        monkeypatch.undo()


# ------------------------------------------------------------- labels
@pytest.mark.parametrize("n_classes", [2, 5, 20])
def test_numeric_labels_encode_as_their_strings(n_classes):
    """The one-pass encoding of numeric labels (up to 16 classes) and the
    general path (np.unique, one pass per class) give the same model."""
    X, y = make_classification(n_samples=400, n_features=10, n_informative=8,
                               n_classes=n_classes, n_clusters_per_class=1,
                               random_state=5)
    names = np.array([f"c{k:02d}" for k in range(n_classes)])
    for labels in (y, y.astype(np.float32), (y * 3 - 7).astype(np.int16)):
        a = Perceptron(random_state=0).fit(X, labels)
        b = Perceptron(random_state=0).fit(X, names[y])
        np.testing.assert_array_equal(a.classes_, np.unique(labels))
        np.testing.assert_array_equal(final_hypothesis(a)[0], final_hypothesis(b)[0])
        np.testing.assert_array_equal(final_hypothesis(a)[1], final_hypothesis(b)[1])


def test_partial_fit_with_a_subset_of_the_classes():
    X, y = make_classification(n_samples=300, n_features=8, n_informative=6,
                               n_classes=3, n_clusters_per_class=1,
                               random_state=6)
    names = np.array(["a", "b", "c"])
    a = Perceptron(random_state=0)
    b = Perceptron(random_state=0)
    for part in (y != 1, y == 1, slice(None)):
        a.partial_fit(X[part], y[part], classes=[0, 1, 2])
        b.partial_fit(X[part], names[y[part]], classes=names)
        np.testing.assert_array_equal(final_hypothesis(a)[0], final_hypothesis(b)[0])
    a.partial_fit(X[:5], np.array([0, 1, 3, 2, 0]))  # a class later
    np.testing.assert_array_equal(a.classes_, [0, 1, 2, 3])


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("params", [
    {}, {"tau": 0.5, "lam": 0.5, "alpha_bound": 2, "max_iter": 4},
    {"kernel": "rbf"}, {"multiclass": "prototype"}])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_a_voted_fit_predicts_with_the_other_hypotheses_of_its_run(
        sparse, params, n_classes):
    """K&W Sec. 3.2: last, longest and voted from one run. Each derived
    hypothesis has the bits of a separate fit with that hypothesis."""
    X, y = make_classification(240, 8, n_informative=5, n_classes=n_classes,
                               flip_y=0.1, random_state=n_classes)
    X = sp.csr_matrix(X) if sparse else X
    kw = {"max_iter": 3, "random_state": 1, **params}
    voted = Perceptron(hypothesis="voted", **kw).fit(X, y)
    np.testing.assert_array_equal(voted.predict(X, hypothesis="voted"),
                                  voted.predict(X))
    kept = ["last"] if ("kernel" in params or "multiclass" in params) \
        else ["last", "longest"]
    for h in kept:
        alone = Perceptron(hypothesis=h, **kw).fit(X, y)
        np.testing.assert_array_equal(
            voted.decision_function(X, hypothesis=h),
            alone.decision_function(X))
        np.testing.assert_array_equal(voted.predict(X, hypothesis=h),
                                      alone.predict(X))
    for h in {"longest", "averaged"} - set(kept):
        with pytest.raises(ValueError, match=f"fit with hypothesis='{h}'"):
            voted.predict(X, hypothesis=h)
    last = Perceptron(hypothesis="last", **kw).fit(X, y)
    with pytest.raises(ValueError, match="only a voted fit"):
        last.predict(X, hypothesis="longest")
    with pytest.raises(ValueError, match="got 'best'"):
        voted.predict(X, hypothesis="best")


@pytest.mark.parametrize("kernel", [None, "rbf"])
def test_early_stopping_carries_each_rows_alpha_count(binary, kernel):
    """``early_stopping`` trains one call per pass and carries each row's α
    count (the λ-trick's indicator, the α-bound's count) from pass to pass,
    as one ``fit`` of several passes keeps it: the same steps as that fit
    on the kept rows (the same bits in the primal form; in the dual form,
    whose calls put the support pool in front, to rounding). The dual form
    carried the counts by loop row, shifted by the growing pool, and read
    past their end."""
    from perceptrons.models._stopping import validation_split

    X, y = binary
    params = dict(hypothesis="last", lam=0.5, alpha_bound=2, shuffle=False,
                  max_iter=4, random_state=0, kernel=kernel)
    held = validation_split((y == y.max()).astype(np.int64), np.zeros(0),
                            0.1, 0)
    stopped = Perceptron(early_stopping=True, **params).fit(X, y)
    whole = Perceptron(**params).fit(X[~held], y[~held])
    np.testing.assert_array_equal(stopped.mistakes_per_epoch_,
                                  whole.mistakes_per_epoch_)
    np.testing.assert_array_equal(stopped.updates_per_epoch_,
                                  whole.updates_per_epoch_)
    if kernel is None:
        assert_same_state(stopped.state_, whole.state_)
    else:
        np.testing.assert_allclose(stopped.decision_function(X),
                                   whole.decision_function(X), rtol=1e-12,
                                   atol=1e-12)
