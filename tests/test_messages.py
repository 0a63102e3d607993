"""Messages that name the problem and the remedy in one line (issue #26,
item 9, outside model-state loading)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from perceptrons import Perceptron, SecondOrderPerceptron
from perceptrons.distributed import ParameterMixing
from tests import _registry as reg
from perceptrons.streaming import CacheWarning, fit_file
from tests._states import assert_same_state


def _xy(n=20, d=4):
    rng = np.random.RandomState(0)
    X = rng.randn(n, d)
    return X, (X[:, 0] > 0).astype(int)


@reg.mark()
@pytest.mark.parametrize("cls", reg.estimator_classes(), ids=reg.class_id)
def test_complex_input_refused_in_one_line(cls):
    X, y = _xy()
    for call in (lambda: cls().fit(X + 1j, y),
                 lambda: cls().fit(X, y).predict(X * 1j)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(ValueError) as err:
                call()
        message = str(err.value)
        assert message.startswith("Complex data not supported in X: pass "
                                  "real features")
        assert "\n" not in message and "[" not in message


def test_no_numpy_reprs_in_messages():
    X, y = _xy()
    for labels in (np.array(["label"] * 20), np.ones(20)):
        with pytest.raises(ValueError) as err:
            Perceptron().fit(X, labels)
        assert "np." not in str(err.value)
        assert "only one class ('label')" in str(err.value) or \
            "only one class (1.0)" in str(err.value)
    with pytest.raises(ValueError) as err:
        Perceptron(max_iter=np.float64(1.5)).fit(X, y)
    assert "Got 1.5 instead" in str(err.value)


def test_second_order_auto_form_takes_the_dual_form_of_wide_input():
    """Issue #39: form="auto" runs the linear kernel's dual form where the
    primal matrix would not fit, and says so once (a warning naming why and
    how to choose); the model is kernel="linear"'s bit for bit."""
    X = sp.random(10, 10**6, density=1e-5, format="csr", random_state=0)
    y = np.arange(10) % 2
    with pytest.warns(UserWarning, match=r"chose the dual form \(the linear "
                      r"kernel\).* 1000000 features take 7.28 TiB per "
                      r"problem, over the 1 GiB form='auto' allows.*Pass "
                      r"kernel='linear' to choose it without this warning, "
                      r"or form='primal'") as record:
        auto = SecondOrderPerceptron(random_state=0).fit(X, y)
    assert len(record) == 1
    assert auto.form_ == "dual"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        linear = SecondOrderPerceptron(kernel="linear",
                                       random_state=0).fit(X, y)
        # Continuing the model does not warn again.
        auto.partial_fit(X, y)
        linear.partial_fit(X, y)
    assert_same_state(auto.state_, linear.state_)
    assert_array_equal(auto.decision_function(X),
                       linear.decision_function(X))
    with pytest.raises(ValueError, match="form='dual' keeps the model over "
                                         "kernel values: pass a kernel"):
        SecondOrderPerceptron(form="dual").fit(X, y)
    assert SecondOrderPerceptron().fit(*_xy()).form_ == "primal"


def test_second_order_auto_form_takes_the_dual_form_when_memory_fails(
        monkeypatch):
    """A primal matrix under the 1 GiB that cannot be allocated: "auto"
    takes the dual form with the reason, "primal" refuses with it."""
    from perceptrons.models import second_order

    def no_memory(*args):
        raise MemoryError

    monkeypatch.setattr(second_order.SOPrimalModel, "zeros", no_memory)
    X, y = _xy()
    with pytest.warns(UserWarning, match="more than this machine could "
                                         "allocate"):
        assert SecondOrderPerceptron().fit(X, y).form_ == "dual"
    with pytest.raises(ValueError, match="more than this machine can "
                                         "allocate; use kernel='linear'"):
        SecondOrderPerceptron(form="primal").fit(X, y)


def test_mixing_weights_of_an_epoch_without_updates():
    """Separable data: the second epoch makes no update on any shard."""
    X = np.array([[1.0, 0], [-1, 0], [2, 0], [-2, 0]] * 5)
    y = (X[:, 0] > 0).astype(int)
    for mixing in ("uniform", "mistakes"):
        ipm = ParameterMixing(Perceptron(max_iter=3, shuffle=False,
                                         theta_init=0.0),
                              n_shards=2, mixing=mixing).fit(X, y)
        quiet = ~ipm.updates_per_shard_.any(axis=1)
        assert quiet[-1]
        np.testing.assert_array_equal(ipm.mixing_weights_[quiet], 0.5)


def _cache_file(tmp_path):
    path = tmp_path / "t.svm"
    path.write_text("1 1:1 2:0.5\n-1 1:-1\n1 2:2\n-1 1:-2 2:0.5\n")
    cache = tmp_path / "t.pcache"
    fit_file(Perceptron(max_iter=2), path, cache=cache)
    cache.write_bytes(cache.read_bytes()[:-5])  # truncated
    return path, cache


def test_cache_warning_points_at_the_callers_line(tmp_path):
    path, cache = _cache_file(tmp_path)
    with pytest.warns(CacheWarning, match="it is truncated") as record:
        fit_file(Perceptron(max_iter=2), path, cache=cache)
    assert record[0].filename == __file__


def test_cli_prints_a_warning_as_one_line(tmp_path):
    """In a process of its own: pytest records warnings instead of
    printing them."""
    import subprocess
    import sys

    path, cache = _cache_file(tmp_path)
    run = subprocess.run(
        [sys.executable, "-m", "perceptrons.cli", "train", str(path),
         "--stream", "--cache-file", str(cache), "--max-iter", "2", "-o",
         str(tmp_path / "m.npz")], capture_output=True, text=True,
        timeout=300)
    assert run.returncode == 0, run.stderr
    err = run.stderr
    assert err.startswith("perceptrons: warning: rebuilding the cache file")
    assert err.count("\n") == 1 and "fit_file(" not in err
