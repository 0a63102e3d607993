"""``n_jobs``: every value gives the same fitted state and predictions, bit
for bit (issue #24: work is split only where its pieces are computed the
same way whatever thread runs them)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.datasets import make_classification

import perceptrons
from perceptrons.utils.parallel import compiled_threads, effective_n_jobs
from tests import _registry as reg
from tests._states import assert_same_state


def _fit(cls, params, X, y, n_jobs, **fit_params):
    # A fixed seed: the shuffles must be the same for both fits.
    est = cls(**{"random_state": 0, **params}).set_params(n_jobs=n_jobs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y, **fit_params)


def _assert_same_model(a, b, X):
    assert_same_state(a, b)
    assert_array_equal(a.decision_function(X), b.decision_function(X),
                       strict=True)
    assert_array_equal(a.predict(X), b.predict(X))


@reg.mark()
@pytest.mark.parametrize("cls, params", list(reg.cases()))
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("sparse", [False, True])
def test_every_estimator_gives_the_same_model_for_every_n_jobs(
        cls, params, n_classes, sparse):
    X, y = make_classification(n_samples=240, n_features=10, n_informative=6,
                               n_redundant=0, n_classes=n_classes,
                               n_clusters_per_class=1, random_state=1)
    if sparse:
        X[np.abs(X) < 0.7] = 0.0
        X = sp.csr_matrix(X)
    serial = _fit(cls, params, X, y, None)
    for n_jobs in (1, 2, 3, -1):
        _assert_same_model(serial, _fit(cls, params, X, y, n_jobs), X)


@pytest.mark.parametrize("params", [
    {}, {"hypothesis": "last"}, {"hypothesis": "voted"},
    {"hypothesis": "longest"}, {"lam": 0.5, "alpha_bound": 2, "tau": 0.2},
    {"shuffle": "blocks", "eta": 1.0, "theta_init": 0.3}])
@pytest.mark.parametrize("n_jobs", [2, 3, 7])
def test_threaded_one_vs_rest_pass_is_the_serial_pass(params, n_jobs,
                                                      monkeypatch):
    """Problems split into groups of one (binary labels) and more (shifted
    class indices), passes cut into chunks of 97 rows (the score logs that
    count the online mistakes), row weights: the state of the serial pass."""
    import perceptrons.models._ovr as module

    monkeypatch.setattr(module, "_OVR_CHUNK_STEPS", 97)
    X, y = make_classification(n_samples=500, n_features=15,
                               n_informative=8, n_classes=7,
                               n_clusters_per_class=1, random_state=3)
    weights = np.random.default_rng(0).integers(0, 3, size=y.shape[0])
    for data in (X, sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))):
        serial = _fit(perceptrons.Perceptron, dict(params, random_state=0,
                                                   max_iter=3), data, y, 1,
                      sample_weight=weights.astype(float))
        threaded = _fit(perceptrons.Perceptron, dict(params, random_state=0,
                                                     max_iter=3), data, y,
                        n_jobs, sample_weight=weights.astype(float))
        assert serial.n_mistakes_ > 0
        _assert_same_model(serial, threaded, data)


#: The kernels of the tiles' test, a Gaussian and a polynomial one; they
#: alternate along the registry's kernel estimators (each is run once).
KERNELS = {"rbf": {"kernel": "rbf", "gamma": 0.05},
           "poly": {"kernel": "poly", "degree": 3}}


def _kernel_cases():
    kernel_classes = [c for c in reg.estimator_classes()
                      if reg.has_param("kernel")(c)]
    for i, cls in enumerate(kernel_classes):
        kernel = list(KERNELS)[i % len(KERNELS)]
        yield pytest.param(cls, kernel, id=f"{cls.__name__}-{kernel}")


@reg.mark(rule=reg.has_param("kernel"))
@pytest.mark.parametrize("cls, kernel", list(_kernel_cases()))
def test_threaded_kernel_tiles_give_the_serial_model(cls, kernel):
    """Blocks large enough for their tiles to be split across threads
    (``THREADED_TILE_WORK``): the same kernel values, hence the same model
    (two passes: the second reads cached rows too)."""
    from perceptrons._loops.support import BLOCK_ROWS, THREADED_TILE_WORK

    X, y = make_classification(n_samples=1500, n_features=64,
                               n_informative=20, n_classes=3,
                               flip_y=0.15, random_state=2)

    def make():
        return cls(**KERNELS[kernel], max_iter=2, random_state=0)

    serial = make().set_params(n_jobs=1).fit(X, y)
    n_support = serial.support_vectors_.shape[0]
    assert BLOCK_ROWS * n_support * X.shape[1] >= 4 * THREADED_TILE_WORK
    # 1,500 rows: three prediction blocks, split across the threads.
    _assert_same_model(serial, make().set_params(n_jobs=2).fit(X, y), X)


@reg.mark()
@pytest.mark.parametrize("cls, params", list(reg.decision_cases()))
def test_threaded_prediction_is_the_serial_prediction(cls, params):
    """Rows split in whole prediction blocks across threads where the
    decision is made in blocks (kernel scores over support vectors, votes),
    whole otherwise (BLAS products): the decision of every row, bit for bit
    (1,300 rows: blocks of 512, 512 and 276)."""
    X, y = make_classification(n_samples=1300, n_features=20,
                               n_informative=10, n_classes=3,
                               random_state=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = cls(**params).set_params(max_iter=2, random_state=0).fit(
            X[:400], y[:400])
    in_blocks = (getattr(est, "dual_coef_", None) is not None
                 or getattr(est, "hypothesis", None) == "voted")
    algo = est._algorithm_of_params(validate=False)
    assert algo.decides_in_blocks(est.state_, vars(est)) == in_blocks
    serial = est.decision_function(X)
    for n_jobs in (2, 3, -1):
        est.set_params(n_jobs=n_jobs)
        assert_array_equal(est.decision_function(X), serial, strict=True)
        assert_array_equal(est.predict(X), est.classes_[serial.argmax(1)])


def test_effective_n_jobs_follows_scikit_learn():
    import numba

    pool = numba.config.NUMBA_NUM_THREADS
    assert effective_n_jobs(None) == 1
    assert effective_n_jobs(1) == 1
    assert effective_n_jobs(-1) == min(pool, __import__("os").cpu_count())
    assert effective_n_jobs(10 ** 6) == pool
    assert effective_n_jobs(-10 ** 6) == 1


def test_compiled_threads_restores_numba_setting():
    import numba

    before = numba.get_num_threads()
    with compiled_threads(2):
        assert numba.get_num_threads() == effective_n_jobs(2)
    assert numba.get_num_threads() == before


def test_n_jobs_is_validated():
    X, y = make_classification(n_samples=40, random_state=0)
    with pytest.raises(ValueError, match="n_jobs"):
        perceptrons.Perceptron(n_jobs="two").fit(X, y)
