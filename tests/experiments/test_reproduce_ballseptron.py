"""The Fig. 3 reproduction of the Ballseptron paper, on tiny configurations."""

import csv
import json

import numpy as np
import pytest

from perceptrons import Ballseptron
from perceptrons.bounds import d1_bound, freund_schapire_bound
from perceptrons.experiments import reproduce_ballseptron as rb

PNG = b"\x89PNG\r\n\x1a\n"

TINY = dict(n_samples=300, seeds=[0, 1], label_noise=[0.0, 0.05, 0.1],
            instance_noise=[0.0, 0.1, 0.2])


class _FakeBallseptron:
    """Takes the kernel parameters but runs the primal Ballseptron.

    Lets the top-panel code path run whatever the installed build offers.
    """

    _names = ("radius", "max_iter", "shuffle", "random_state", "kernel",
              "degree", "gamma", "coef0")

    def __init__(self, *, radius=0.1, max_iter=10, shuffle=True,
                 random_state=None, kernel=None, degree=3, gamma=None,
                 coef0=0.0):
        self.radius, self.max_iter = radius, max_iter
        self.shuffle, self.random_state = shuffle, random_state
        self.kernel, self.degree = kernel, degree
        self.gamma, self.coef0 = gamma, coef0

    def get_params(self, deep=True):
        return {k: getattr(self, k) for k in self._names}

    def set_params(self, **params):
        for k, v in params.items():
            if k not in self._names:
                raise ValueError(k)
            setattr(self, k, v)
        return self

    def fit(self, X, y):
        clf = Ballseptron(radius=self.radius, max_iter=self.max_iter,
                          shuffle=self.shuffle,
                          random_state=self.random_state).fit(X, y)
        self.n_mistakes_ = clf.n_mistakes_
        self.n_margin_errors_ = clf.n_margin_errors_
        return self


class _NoKernelBallseptron(_FakeBallseptron):
    """A build without the kernel form."""

    _names = ("radius", "max_iter", "shuffle", "random_state")

    def __init__(self, *, radius=0.1, max_iter=10, shuffle=True,
                 random_state=None):
        super().__init__(radius=radius, max_iter=max_iter, shuffle=shuffle,
                         random_state=random_state)


def _blobs(name):
    rng = np.random.RandomState(7)
    centers = rng.normal(size=(3, 5)) * 3
    y = rng.randint(0, 3, size=90)
    return centers[y] + rng.normal(size=(90, 5)), y


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("rb")
    return out, rb.run(out, quick=True, progress=False, kernel_datasets={},
                       **TINY)


def test_writes_files(tiny):
    out, res = tiny
    names = {p.name for p in res["files"]}
    assert {"reproduce_ballseptron_results.json",
            "reproduce_ballseptron_noise.csv",
            "reproduce_ballseptron_radius.csv", "reproduce_ballseptron.md",
            "reproduce_ballseptron_fig3_bottom.png"} <= names
    for p in res["files"]:
        assert p.exists() and p.parent == out
    png = out / "reproduce_ballseptron_fig3_bottom.png"
    assert png.read_bytes()[:8] == PNG and png.stat().st_size > 5000
    md = (out / "reproduce_ballseptron.md").read_text(encoding="utf-8")
    assert md == res["markdown"]
    for s in ("Label noise", "Instance noise", "D1 bound", "D2 bound",
              "The paper's claims and ours", "Not run"):
        assert s in md
    data = json.loads((out / "reproduce_ballseptron_results.json")
                      .read_text(encoding="utf-8"))
    for key in ("perceptrons_version", "numba_version", "git_sha",
                "numpy_version", "created_utc", "wall_seconds"):
        assert key in data["meta"]
    assert len(data["noise"]) == 2 * 2 * 3
    with open(out / "reproduce_ballseptron_noise.csv", newline="",
              encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 12
    assert {r["numba_version"] for r in rows} == {data["meta"]["numba_version"]}


def test_report_rendered_from_json(tiny):
    out, res = tiny
    again = rb.read_results(out / "reproduce_ballseptron_results.json")
    assert rb.render_markdown(again) == res["markdown"]
    bad = out / "bad.json"
    bad.write_text('{"schema": "other"}', encoding="utf-8")
    with pytest.raises(ValueError):
        rb.read_results(bad)


def test_bounds_at_least_mistakes(tiny):
    # Eq. (3) and Thm. 2 (r = 0) hold on every sequence, at every level.
    _, res = tiny
    for r in res["results"]["noise"]:
        assert r["d2_bound"] >= r["mistakes"] >= 1
        assert r["d1_bound"] >= r["mistakes"]
        assert r["d2_bound"] == pytest.approx(
            freund_schapire_bound(r["R"], r["gamma"], r["D2"]))
        assert r["d1_bound"] == pytest.approx(
            d1_bound(r["R"], r["gamma"], r["D1"]))
        if r["level"] == 0.0:
            assert r["D1"] == 0.0 and r["D2"] == 0.0
        if r["panel"] == "instance" and r["level"] == 0.0:
            assert r["R"] == pytest.approx(1.0)
    for kind in ("label", "instance"):
        for s in rb._summary(res["results"], kind):
            assert s["d1_holds"] and s["d2_holds"]
            assert s["d2"] >= s["eps"] and s["d1"] >= s["eps"]


def test_deterministic(tiny, tmp_path):
    _, res = tiny
    again = rb.run(tmp_path, quick=True, progress=False, kernel_datasets={},
                   **TINY)
    assert again["results"]["noise"] == res["results"]["noise"]
    other = rb.run(tmp_path / "other", quick=True, progress=False,
                   kernel_datasets={}, **{**TINY, "seeds": [5]})
    assert other["results"]["noise"][0]["u"] != res["results"]["noise"][0]["u"]


def test_kernel_panels_skipped_explicitly(tmp_path, monkeypatch):
    monkeypatch.setattr(rb, "_estimator_class", lambda: _NoKernelBallseptron)
    assert not rb.kernel_available()
    res = rb.run(tmp_path, quick=True, progress=False,
                 kernel_datasets={"usps": 50, "mnist": 50},
                 **{**TINY, "seeds": [0]})
    md = res["markdown"]
    assert "kernel form not available in this build" in md
    assert "Top panels skipped" in md
    assert "Top panel USPS: kernel form not available" in md
    assert "Top panel MNIST: kernel form not available" in md
    assert res["results"]["radius"] == []
    assert res["results"]["config"]["kernel_available"] is False
    assert not (tmp_path / "reproduce_ballseptron_fig3_top.png").exists()


def _check_top(res, out, radii):
    rows = res["results"]["radius"]
    assert len(rows) == 2 * len(radii)
    for r in rows:
        assert "error" not in r, r
        assert r["T"] in (60, 90)
        assert 0.0 < r["mistake_rate"] <= 1.0
        if r["radius"] == 0.0:
            assert r["margin_errors"] == 0
    md = res["markdown"]
    assert "### USPS" in md and "### MNIST" in md and "Best r = " in md
    assert "Only part of the data: the paper uses 7291" in md
    assert "kernel form not available" not in md
    png = out / "reproduce_ballseptron_fig3_top.png"
    assert png.read_bytes()[:8] == PNG


def test_kernel_path_runs(tmp_path, monkeypatch):
    # The top-panel code path, with a stand-in estimator taking the kernel
    # parameters and tiny synthetic data in place of USPS / MNIST.
    monkeypatch.setattr(rb, "_estimator_class", lambda: _FakeBallseptron)
    monkeypatch.setattr(rb, "_load_kernel_dataset", _blobs)
    radii = (0.0, 0.1, 0.5)
    res = rb.run(tmp_path, quick=True, progress=False, radii=radii,
                 kernel_datasets={"usps": 60, "mnist": None},
                 **{**TINY, "seeds": [0]})
    _check_top(res, tmp_path, radii)
    assert res["results"]["config"]["kernel_params"] == {
        "kernel": "poly", "degree": 5, "coef0": 0.5, "gamma": 1.0}


@pytest.mark.skipif(not rb.kernel_available(),
                    reason="this build's Ballseptron has no kernel form")
def test_kernel_path_real_estimator(tmp_path, monkeypatch):
    monkeypatch.setattr(rb, "_load_kernel_dataset", _blobs)
    radii = (0.0, 0.2)
    res = rb.run(tmp_path, quick=True, progress=False, radii=radii,
                 kernel_datasets={"usps": 60, "mnist": None},
                 **{**TINY, "seeds": [0]})
    _check_top(res, tmp_path, radii)
    again = rb.run(tmp_path / "again", quick=True, progress=False,
                   radii=radii, kernel_datasets={"usps": 60, "mnist": None},
                   **{**TINY, "seeds": [0]})

    def strip(rows):
        return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]
    assert strip(again["results"]["radius"]) == strip(res["results"]["radius"])
