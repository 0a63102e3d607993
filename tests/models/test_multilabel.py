"""Multi-label targets (issue #39, point 2): a 2-D 0/1 indicator y.

Every registry estimator either learns it, one binary problem per label in
one pass over X (label k's problem is the binary fit on column k, weight
for weight), or refuses it with its algorithm's reason; the other forms of
the loops that took it last (PassiveAggressive's kernel and variants, the
full covariance, ALMA_p and its kernel form, Projectron++) too. Then,
mostly on the Perceptron and PDM: scikit-learn's multi-label metrics and
``GridSearchCV``, model files, ``partial_fit``, ``n_jobs``, ``warm_start``
and the messages on bad input.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_multilabel_classification
from sklearn.metrics import f1_score, hamming_loss, jaccard_score
from sklearn.model_selection import GridSearchCV

from perceptrons import (ALMA, AROW, CW, PDM, SCW, Ballseptron,
                         PassiveAggressive, Perceptron, Projectron)
from perceptrons.models._driver import Algorithm
from perceptrons.persistence import load_model, save_model
from tests import _registry as reg

X, Y = make_multilabel_classification(n_samples=60, n_features=6,
                                      n_classes=3, random_state=0)
X = X / X.max()

#: Parameters that make a binary fit on one column the same run as the
#: multi-label fit's problem for that label: each problem of PDM, PFM,
#: ROMMA and MPU shuffles with a seed of its own (the k-th of the fit's
#: draws), a binary fit with the first.
_SAME_RUN = {"shuffle": False, "random_state": 0, "max_iter": 3}


def _takes(est):
    return reg.refusal(est, "multilabel") is None


def _sparse_or_dense(sparse):
    return sp.csr_matrix(X) if sparse else X


def _fitted_views(est):
    """The per-problem arrays of a fitted model, by name."""
    out = {}
    for name in ("coef_", "intercept_"):
        try:
            out[name] = np.atleast_2d(getattr(est, name)) if name == "coef_" \
                else np.atleast_1d(getattr(est, name))
        except AttributeError:
            pass
    return out


@reg.mark(group="multilabel")
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize(
    "cls, params", list(reg.cases(_takes, first=True, fixed=_SAME_RUN)))
def test_each_label_is_its_binary_problem(cls, params, sparse):
    _check_each_label(cls, params, _sparse_or_dense(sparse))


#: Forms of the loops that took multi-label last besides their defaults.
_FORMS = [
    (PassiveAggressive, {"variant": "PA-II", "C": 0.1}),
    (PassiveAggressive, {"kernel": "rbf", "gamma": 0.5}),
    (PassiveAggressive, {"intercept_update": "sklearn"}),
    (CW, {"covariance": "full", "hypothesis": "last"}),
    (AROW, {"covariance": "full"}),
    (SCW, {"variant": "SCW-II", "C": 0.1}),
    (ALMA, {"p": 3.0, "alpha": 0.5}),
    (ALMA, {"kernel": "rbf", "gamma": 0.5}),
    (Projectron, {"plus": True, "eta": 0.3, "hypothesis": "last"}),
]


@reg.mark(group="multilabel")
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("cls, params", _FORMS,
                         ids=[f"{c.__name__}-{i}"
                              for i, (c, _) in enumerate(_FORMS)])
def test_other_forms_each_label_is_its_binary_problem(cls, params, sparse):
    names = cls._get_param_names()
    same = {k: v for k, v in _SAME_RUN.items() if k in names}
    # A kernel form's problems share one support pool: a problem's kernel
    # sums run over the other problems' vectors too (coefficient 0), which
    # the compiler's reassociation may round otherwise in the last bit, and
    # PassiveAggressive's and ALMA's steps are read from those scores.
    _check_each_label(cls, {**same, **params}, _sparse_or_dense(sparse),
                      exact="kernel" not in params)


def _check_each_label(cls, params, Xs, exact=True):
    multi = cls(**params).fit(Xs, Y)
    assert multi.classes_.tolist() == [0, 1, 2]
    scores = multi.decision_function(Xs)
    assert scores.shape == (X.shape[0], 3)
    assert np.array_equal(multi.predict(Xs), (scores > 0).astype(int))
    mistakes = updates = 0
    for k in range(Y.shape[1]):
        binary = cls(**params).fit(Xs, Y[:, k])
        assert binary.classes_.tolist() == [0, 1]
        # Scores of three rows of weights and of one: BLAS may round a
        # product of another shape differently; the weights are exact.
        np.testing.assert_allclose(scores[:, k], binary.decision_function(Xs),
                                   rtol=1e-12, atol=1e-12)
        for name, value in _fitted_views(binary).items():
            if not exact:
                np.testing.assert_allclose(_fitted_views(multi)[name][k],
                                           value[0], rtol=1e-12, atol=1e-12)
                continue
            assert np.array_equal(_fitted_views(multi)[name][k], value[0]), \
                (name, k)
        mistakes += binary.n_mistakes_
        updates += binary.n_updates_
    # A mistake per wrong label: the labels' binary counts summed.
    assert multi.n_mistakes_ == mistakes
    assert multi.n_updates_ == updates


@reg.mark(group="multilabel")
@pytest.mark.parametrize(
    "cls, params", list(reg.cases(lambda est: not _takes(est), first=True)))
def test_refused_with_its_reason(cls, params):
    est = cls(**params)
    reason = reg.refusal(est, "multilabel")
    with pytest.raises(ValueError, match="cannot learn a multi-label y"):
        est.fit(X, Y)
    with pytest.raises(ValueError, match="cannot learn a multi-label y"):
        cls(**params).partial_fit(X, Y)
    assert reason and "MultiOutputClassifier" in reason or "ovr" in reason
    # The algorithm's own reason, not the protocol's default.
    assert reason != Algorithm.multilabel_refusal(
        type("Any", (), {"takes_multilabel": False})())


def test_ballseptron_says_why():
    reason = reg.refusal(Ballseptron(), "multilabel")
    assert "prototypes of Sec. 4" in reason
    assert "MultiOutputClassifier(Ballseptron())" in reason


def test_prototype_rule_refused():
    with pytest.raises(ValueError, match="multiclass='ovr'"):
        Perceptron(multiclass="prototype").fit(X, Y)


def test_shuffled_passes_share_one_order():
    # The Perceptron's problems run in one pass over X: its shuffled
    # epochs give each label the binary fit's order.
    multi = Perceptron(random_state=3, max_iter=4).fit(X, Y)
    for k in range(3):
        binary = Perceptron(random_state=3, max_iter=4).fit(X, Y[:, k])
        assert np.array_equal(multi.coef_[k], binary.coef_[0])


def test_one_problem_per_label_even_for_two():
    est = Perceptron(random_state=0).fit(X, Y[:, :2])
    assert est.coef_.shape == (2, X.shape[1])
    assert est.classes_.tolist() == [0, 1]
    assert est.decision_function(X).shape == (X.shape[0], 2)
    assert est.predict(X).shape == (X.shape[0], 2)


def test_a_column_vector_is_one_label_per_example():
    # scikit-learn's convention (check_supervised_y_2d): (n, 1) is 1-D y.
    with pytest.warns(Warning, match="column-vector y"):
        est = Perceptron(random_state=0).fit(X, Y[:, :1])
    assert est.state_.n_labels == 0 and est.predict(X).ndim == 1
    single = Perceptron(random_state=0).fit(X, Y[:, 0])
    assert np.array_equal(est.coef_, single.coef_)


def test_constant_label_column_learns():
    y = Y.copy()
    y[:, 1] = 1
    est = Perceptron(random_state=0).fit(X, y)
    assert est.predict(X)[:, 1].mean() > 0.5


def test_bool_and_sparse_indicator():
    ref = Perceptron(random_state=0).fit(X, Y)
    for y in (Y.astype(bool), Y.astype(float), sp.csr_matrix(Y)):
        est = Perceptron(random_state=0).fit(X, y)
        assert np.array_equal(est.coef_, ref.coef_)


def test_sklearn_metrics_and_grid_search():
    est = Perceptron(random_state=0).fit(X, Y)
    pred = est.predict(X)
    assert pred.dtype.kind == "i"
    for average in ("samples", "micro", "macro"):
        assert 0.0 <= f1_score(Y, pred, average=average) <= 1.0
    assert 0.0 <= hamming_loss(Y, pred) <= 1.0
    assert 0.0 <= jaccard_score(Y, pred, average="samples") <= 1.0
    assert 0.0 <= est.score(X, Y) <= 1.0  # subset accuracy
    search = GridSearchCV(Perceptron(random_state=0),
                          {"max_iter": [1, 5]}, scoring="f1_micro", cv=3)
    search.fit(X, Y)
    assert search.best_estimator_.predict(X).shape == Y.shape


@pytest.mark.parametrize("cls", [Perceptron, PDM, PassiveAggressive, AROW,
                                 ALMA, Projectron])
def test_model_file_round_trip(cls, tmp_path):
    est = cls(random_state=0).fit(X, Y)
    path = tmp_path / "multi.model"
    save_model(est, path)
    loaded = load_model(path)
    assert loaded.state_.n_labels == 3
    assert np.array_equal(loaded.predict(X), est.predict(X))
    assert np.array_equal(loaded.decision_function(X),
                          est.decision_function(X))
    loaded.partial_fit(X, Y)  # continues as a multi-label model


def test_state_checks_its_labels():
    est = Perceptron(random_state=0).fit(X, Y)
    bad = est.state_.replace(classes=np.array([0, 1, 5]))
    with pytest.raises(ValueError, match="arange"):
        Perceptron()._set_state(bad)
    with pytest.raises(ValueError, match="arange"):
        Perceptron()._set_state(est.state_.replace(n_labels=2))
    with pytest.raises(ValueError, match="weight rows"):
        Perceptron()._set_state(est.state_.replace(
            n_labels=2, classes=np.arange(2)))


def _chain(est, y, classes):
    est.partial_fit(X[:25], y[:25], classes=classes)
    return est.partial_fit(X[25:], y[25:])


@pytest.mark.parametrize("cls", [Perceptron, PDM])
def test_partial_fit_chain(cls):
    chain = _chain(cls(random_state=0), Y, [0, 1, 2])
    for k in range(3):
        binary = _chain(cls(random_state=0), Y[:, k], [0, 1])
        assert np.array_equal(chain.coef_[k], binary.coef_[0])
        assert chain.intercept_[k] == binary.intercept_[0]
    # One pass of partial_fit in two calls, or in one.
    whole = cls(random_state=0).partial_fit(X, Y)
    if cls is PDM:
        assert np.array_equal(chain.coef_, whole.coef_)


def test_warm_start_continues():
    est = Perceptron(random_state=0, warm_start=True, max_iter=2).fit(X, Y)
    t = est.t_
    est.fit(X, Y)
    assert est.t_ == 2 * t
    with pytest.raises(ValueError, match="multi-label indicator of 3"):
        est.fit(X, Y[:, 0])


@pytest.mark.parametrize("cls, params", [
    (Perceptron, {"random_state": 0, "max_iter": 3}),
    (PDM, {"random_state": 0, "max_iter": 3})])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_n_jobs_same_bits(cls, params, sparse):
    Xs = _sparse_or_dense(sparse)
    one = cls(**params, n_jobs=1).fit(Xs, Y)
    two = cls(**params, n_jobs=2).fit(Xs, Y)
    assert np.array_equal(one.coef_, two.coef_)
    assert np.array_equal(one.intercept_, two.intercept_)
    assert one.n_mistakes_ == two.n_mistakes_
    assert np.array_equal(one.mistakes_per_epoch_, two.mistakes_per_epoch_)


@pytest.mark.parametrize("y, match", [
    (np.where(Y == 1, 2, 0), r"0/1 indicator; y\[\d+, \d+\] is 2"),
    (np.where(Y == 1, np.nan, 0.0), "no NaN"),
    (Y.astype(str), "dtype"),
    (Y[:10], "rows but X has"),
    (np.zeros((60, 0)), "at least one label"),
])
def test_bad_indicator(y, match):
    with pytest.raises(ValueError, match=match):
        Perceptron().fit(X, y)


def test_partial_fit_keeps_its_kind_of_y():
    est = Perceptron().partial_fit(X, Y)
    with pytest.raises(ValueError, match="2 label columns.*fitted on 3"):
        est.partial_fit(X, Y[:, :2])
    with pytest.raises(ValueError, match="got a 1-D y"):
        est.partial_fit(X, Y[:, 0])
    with pytest.raises(ValueError, match="classes="):
        est.partial_fit(X, Y, classes=[0, 1, 3])
    single = Perceptron().partial_fit(X, Y[:, 0], classes=[0, 1])
    with pytest.raises(ValueError, match="got a 2-D y"):
        single.partial_fit(X, Y)
    with pytest.raises(ValueError, match="arange"):
        Perceptron().partial_fit(X, Y, classes=["a", "b", "c"])


def test_learn_one_refuses_and_predict_one_gives_the_indicator():
    est = Perceptron(random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="partial_fit"):
        est.learn_one(X[0], 1)
    with pytest.raises(ValueError, match="partial_fit"):
        Perceptron().learn_one(X[0], Y[0])
    assert np.array_equal(est.predict_one(X[0]), est.predict(X[:1])[0])


def test_class_weight_and_early_stopping_refused():
    with pytest.raises(ValueError, match="sample_weight instead"):
        Perceptron(class_weight="balanced").fit(X, Y)
    with pytest.raises(ValueError, match="early_stopping=False"):
        Perceptron(early_stopping=True).fit(X, Y)
    w = np.linspace(0.5, 2.0, X.shape[0])
    multi = Perceptron(random_state=0).fit(X, Y, sample_weight=w)
    binary = Perceptron(random_state=0).fit(X, Y[:, 2], sample_weight=w)
    assert np.array_equal(multi.coef_[2], binary.coef_[0])
