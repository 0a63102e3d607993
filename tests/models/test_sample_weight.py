"""``sample_weight`` and ``class_weight`` on every estimator.

What a weight means is each family's (its class docstring); what holds
whatever the family is checked here: a row of weight 0 is an absent row, bit
for bit; weights of 1 are no weights, bit for bit; ``class_weight`` is the
per-row ``sample_weight`` it stands for; bad weights get a clear error; and
``class_weight="balanced"`` lifts the minority class's recall on imbalanced
data at least as far as scikit-learn's balanced ``Perceptron``. The Figure 2
rule's weighted steps are checked against the line-by-line reference.
"""

import re
import warnings
import zlib

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_classification
from sklearn.utils.class_weight import compute_class_weight

from perceptrons import KernelPerceptron, Perceptron
from tests._states import assert_same_state
from tests.reference import khardon_wachman
from tests import _registry as reg
from tests.reference.streams import make_stream, storages


def _data(n_classes, seed=0, n=80):
    X, y = make_classification(n_samples=n, n_features=6, n_informative=4,
                               n_redundant=0, n_classes=n_classes,
                               n_clusters_per_class=1, flip_y=0.05,
                               random_state=seed)
    return X, y


def _fit(cls, params, X, y, **fit_params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls(**dict(params, shuffle=False)).fit(X, y, **fit_params)


@reg.mark()
@pytest.mark.parametrize("cls, params", list(reg.cases()))
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_zero_weight_is_an_absent_row(cls, params, n_classes, sparse):
    """Rows of weight 0 leave the model as if they were not there, bit for
    bit (θ_Init "auto", row norms, averaged and voted bookkeeping, support
    sets); and weights of 1 are no weights."""
    X, y = _data(n_classes, seed=n_classes)
    weights = np.ones(X.shape[0])
    weights[np.random.RandomState(1).permutation(X.shape[0])[:25]] = 0.0
    keep = weights > 0
    convert = sp.csr_matrix if sparse else np.asarray
    absent = _fit(cls, params, convert(X[keep]), y[keep])
    zero = _fit(cls, params, convert(X), y, sample_weight=weights)
    assert_same_state(absent.state_, zero.state_)
    plain = _fit(cls, params, convert(X), y)
    ones = _fit(cls, params, convert(X), y, sample_weight=np.ones(len(y)))
    assert_same_state(plain.state_, ones.state_)
    # partial_fit too: each call's zero rows are absent from that call.
    classes = np.unique(y)
    a, b = cls(**params), cls(**params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for part in (slice(0, 40), slice(40, None)):
            k = keep[part]
            a.partial_fit(convert(X[part][k]), y[part][k], classes=classes)
            b.partial_fit(convert(X[part]), y[part], classes=classes,
                          sample_weight=weights[part])
    assert_same_state(a.state_, b.state_)


def _weights_refusal(est):
    """Why ``est`` refuses weights other than 0 and 1 (None: it takes
    them)."""
    return reg.refusal(est, "weights")


@reg.mark()
@pytest.mark.parametrize("cls, params", list(reg.cases()))
@pytest.mark.parametrize("n_classes", [2, 3])
def test_class_weight_is_the_sample_weight_it_stands_for(cls, params,
                                                         n_classes):
    X, y = _data(n_classes, seed=5)
    classes = np.unique(y)
    per_class = {c: 0.5 + k for k, c in enumerate(classes)}
    refusal = _weights_refusal(cls(**params))
    if refusal is not None:
        # Weights of 0 and 1 need nothing of the algorithm; others, and
        # class_weight, are refused with its reason, whole.
        with pytest.raises(ValueError, match=re.escape(refusal)):
            _fit(cls, params, X, y, sample_weight=np.full(len(y), 2.0))
        with pytest.raises(ValueError, match=re.escape(refusal)):
            _fit(cls, dict(params, class_weight=per_class), X, y)
        return
    by_class = _fit(cls, dict(params, class_weight=per_class), X, y)
    by_row = _fit(cls, params, X, y,
                  sample_weight=np.array([per_class[c] for c in y]))
    assert_same_state(by_class.state_, by_row.state_)
    balanced = dict(zip(classes, compute_class_weight(
        "balanced", classes=classes, y=y)))
    a = _fit(cls, dict(params, class_weight="balanced"), X, y)
    b = _fit(cls, dict(params, class_weight=balanced), X, y)
    assert_same_state(a.state_, b.state_)
    # Multiplied, as scikit-learn combines them.
    sw = np.random.RandomState(0).uniform(0.5, 2.0, size=len(y))
    c = _fit(cls, dict(params, class_weight=per_class), X, y,
             sample_weight=sw)
    d = _fit(cls, params, X, y,
             sample_weight=sw * np.array([per_class[v] for v in y]))
    assert_same_state(c.state_, d.state_)


@reg.mark()
@pytest.mark.parametrize("cls", reg.estimator_classes(), ids=reg.class_id)
def test_bad_weights_get_clear_errors(cls):
    X, y = _data(2)
    n = len(y)
    est = cls()
    for weights, message in [
            (-np.ones(n), "Negative values"),
            (np.full(n, np.nan), "NaN"),
            (np.full(n, np.inf), "infinity"),
            (np.ones(n + 1), r"sample_weight.shape == \(81,\)"),
            (np.ones((n, 2)), "1D array or scalar"),
            (np.zeros(n), "non-zero"),
            (np.full(n, 1e308), None)]:
        if message is None:
            continue
        with pytest.raises(ValueError, match=message):
            est.fit(X, y, sample_weight=weights)
    with pytest.raises(ValueError, match="overflows float64"):
        cls(class_weight={0: 1e308, 1: 1.0}).fit(
            X, y, sample_weight=np.full(n, 10.0))
    with pytest.raises(ValueError, match="not supported by partial_fit"):
        cls(class_weight="balanced").partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="weight zero"):
        cls(class_weight={0: 0.0, 1: 0.0}).fit(X, y)
    with pytest.raises(ValueError, match="has no row of non-zero weight"):
        cls(class_weight="balanced").fit(
            X, y, sample_weight=(y == 1).astype(float))
    with pytest.raises(Exception, match="class_weight"):
        cls(class_weight="heavy").fit(X, y)


# --------------------------------------------- Figure 2 against the reference
def _weighted_stream(seed, n_classes, integer):
    s = make_stream(seed, n_classes=n_classes, n=(30, 60), d=(3, 8),
                    values="integer" if integer else "float", sparsity=0.2,
                    bias=1.0, noise=0.15, n_test=20)
    rng = np.random.RandomState(seed)
    # Integers keep the "exact" setting exact; dyadic fractions otherwise.
    choices = [0.0, 1.0, 2.0, 3.0] if integer else [0.0, 0.25, 0.5, 1.5, 2.0]
    return s.X, s.y, s.X_test, rng.choice(choices, size=s.X.shape[0])


@pytest.mark.reference
@pytest.mark.parametrize("hypothesis", ["last", "longest", "averaged",
                                        "voted"])
@pytest.mark.parametrize("multiclass", ["ovr", "prototype"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("kernel", [None, "poly"])
def test_weighted_steps_match_figure2(hypothesis, multiclass, n_classes,
                                      kernel):
    """η s_i y x per update (Figure 2 with the step times the row's
    weight): the same mistakes and updates as the reference, epoch by
    epoch, and the same decision values to rounding."""
    integer = kernel is None
    X, y, X_test, weights = _weighted_stream(
        zlib.crc32(repr((hypothesis, multiclass, n_classes, kernel)).encode())
        % 1000, n_classes, integer)
    params = dict(eta=1.0 if integer else 0.5, theta_init=2.0,
                  threshold_step=1.0, margin=1.0, hypothesis=hypothesis,
                  multiclass=multiclass)
    if kernel:
        params.update(kernel=kernel, degree=2, coef0=1.0, gamma=0.5)
    ref = khardon_wachman.fit(X, y, max_iter=3, sample_weight=weights,
                              **params)
    for _, X_fit in storages(X):
        est = Perceptron(**params, max_iter=3, shuffle=False).fit(
            X_fit, y, sample_weight=weights)
        assert est.n_mistakes_ == ref.n_mistakes
        assert_array_equal(est.updates_per_epoch_, ref.updates_per_epoch)
        assert_array_equal(est.mistakes_per_epoch_, ref.mistakes_per_epoch)
        want = ref.decision_function(X_test)
        assert_allclose(est.decision_function(X_test), want, rtol=1e-10,
                        atol=1e-10 * (1 + np.abs(want).max()))


@pytest.mark.reference
@pytest.mark.parametrize("kernel", [None, "poly"])
@pytest.mark.parametrize("hypothesis", ["last", "voted"])
def test_a_class_whose_rows_all_weigh_zero_stays_a_class(kernel, hypothesis):
    """Every row of class 0 weighs 0: the class is still one of classes_
    (as in scikit-learn), and its problem is run on the other rows alone,
    as the reference runs it."""
    X, y, X_test, weights = _weighted_stream(519, 2, True)
    weights = np.where(y == 0, 0.0, np.maximum(weights, 1.0))
    params = dict(eta=1.0, theta_init=2.0, threshold_step=1.0, margin=1.0,
                  hypothesis=hypothesis)
    if kernel:
        params.update(kernel=kernel, degree=2, coef0=1.0, gamma=0.5)
    ref = khardon_wachman.fit(X, y, max_iter=3, sample_weight=weights,
                              **params)
    est = Perceptron(**params, max_iter=3, shuffle=False).fit(
        X, y, sample_weight=weights)
    assert_array_equal(ref.classes, [0, 1])
    assert_array_equal(est.classes_, [0, 1])
    assert est.n_mistakes_ == ref.n_mistakes > 0
    assert_array_equal(est.updates_per_epoch_, ref.updates_per_epoch)
    assert_array_equal(est.predict(X_test), ref.predict(X_test))


def test_a_weight_is_a_step_size():
    """Figure 2 from w = 0 with θ = 0 and C = 0 is scale-free: a weight c on
    every row is η·c, the same predictions with weights c times larger."""
    X, y = _data(3, seed=2)
    params = dict(theta_init=0.0, threshold_step=0.0, shuffle=False,
                  hypothesis="last")
    a = Perceptron(eta=0.75, **params).fit(X, y)
    b = Perceptron(eta=0.25, **params).fit(X, y,
                                           sample_weight=np.full(len(y), 3.0))
    assert_allclose(b.coef_, a.coef_, rtol=1e-12)
    assert_array_equal(a.predict(X), b.predict(X))
    k = KernelPerceptron(eta=0.25, kernel="rbf", **params).fit(
        X, y, sample_weight=np.full(len(y), 3.0))
    assert_array_equal(
        k.predict(X),
        KernelPerceptron(eta=0.75, kernel="rbf", **params).fit(X, y)
        .predict(X))


# ------------------------------------------------------------ imbalanced data
def _imbalanced(seed):
    X, y = make_classification(n_samples=3000, n_features=20,
                               weights=[0.95], random_state=seed)
    return X[:2000], y[:2000], X[2000:], y[2000:]


def _balanced_cases():
    for cls in reg.estimator_classes():
        if reg.primal_by_default(cls):
            mark = reg.xfail(cls(), "test_balanced_class_weight_lifts_the_"
                                    "minority")
            yield pytest.param(cls, id=cls.__name__,
                               marks=() if mark is None else mark)


@reg.mark(rule=reg.primal_by_default)
@pytest.mark.parametrize("cls", list(_balanced_cases()))
def test_balanced_class_weight_lifts_the_minority(cls):
    """On 95/5 data, "balanced" gives the minority class a recall and a
    balanced accuracy at least scikit-learn's balanced Perceptron's: on
    average over five draws of the data (one draw alone is a coin toss
    between two close results). Every linear default (the yardstick is
    linear) that takes weights; an estimator's ``_xfail_checks`` says why
    it does not."""
    from sklearn.linear_model import Perceptron as SkPerceptron
    from sklearn.metrics import balanced_accuracy_score, recall_score

    if _weights_refusal(cls()) is not None:
        pytest.skip(f"{cls.__name__} does not weigh its steps")
    ours, theirs = [], []
    for seed in range(5):
        X, y, X_test, y_test = _imbalanced(seed)
        sk = SkPerceptron(class_weight="balanced", random_state=0).fit(X, y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = cls(class_weight="balanced", random_state=0).fit(X, y)
        for out, pred in ((ours, est.predict(X_test)),
                          (theirs, sk.predict(X_test))):
            out.append((recall_score(y_test, pred),
                        balanced_accuracy_score(y_test, pred)))
    recall, balanced = np.mean(ours, axis=0)
    sk_recall, sk_balanced = np.mean(theirs, axis=0)
    assert recall >= sk_recall
    assert balanced >= sk_balanced
