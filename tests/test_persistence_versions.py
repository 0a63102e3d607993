"""Model files of an earlier state version load: a state type that gained
fields since lists them in ``UPGRADES`` with the values an older model
means by their absence (:meth:`perceptrons.models._state.State`), and the
loaded model decides exactly as the one saved.

The fixtures were saved by perceptrons at 5d7009a (before the budget of
the dual weights, the precomputed kernel and multi-label targets), from
``make_classification(n_samples=150, n_features=6, n_informative=4,
n_classes=3, random_state=0)``, with their decision values then.
"""

from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import make_classification

from perceptrons.persistence import load_model

FIXTURES = Path(__file__).parent / "fixtures" / "models_5d7009a"
SAVED = {  # file: what was saved
    "perc": "Perceptron(max_iter=2)",
    "kp_rbf": 'Perceptron(kernel="rbf", gamma=0.1, max_iter=2)',
    "pa_rbf": 'PassiveAggressive(kernel="rbf", gamma=0.1, max_iter=2)',
    "ball_poly": 'Ballseptron(kernel="poly", degree=2, max_iter=2)',
}


@pytest.mark.parametrize("name", sorted(SAVED))
def test_a_file_of_the_version_before_loads_and_decides_the_same(name):
    X, _ = make_classification(n_samples=150, n_features=6, n_informative=4,
                               n_classes=3, random_state=0)
    model = load_model(FIXTURES / f"{name}.npz")
    assert model.state_.n_labels == 0  # one class per example
    assert_array_equal(model.decision_function(X),
                       np.load(FIXTURES / f"{name}_decision.npy"))


def test_a_version_without_an_upgrade_is_refused(monkeypatch):
    from perceptrons.models._weights import DualWeights
    monkeypatch.setattr(DualWeights, "UPGRADES", {})
    with pytest.raises(ValueError, match=r"DualWeights version 1 .*refit"):
        load_model(FIXTURES / "kp_rbf.npz")


def test_upgrades_reach_one_version_back():
    from perceptrons.models._state import FittedState
    from perceptrons.models._weights import DualWeights
    assert DualWeights.UPGRADES == {1: {"budget": None}}
    for cls in FittedState.__subclasses__():
        assert set(cls.UPGRADES) <= {cls.VERSION - 1}, cls
