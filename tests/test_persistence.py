"""save_model / load_model: exact round trips, safe failure on bad files."""

import io
import json
import pickle
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

import perceptrons
from perceptrons import Perceptron
from perceptrons.persistence import (
    FORMAT_NAME,
    FORMAT_VERSION,
    estimator_registry,
    load_model,
    read_header,
    save_model,
)
from tests import _registry as reg
from tests._zips import rewrite as _rewrite

HYPOTHESES = ["last", "longest", "voted", "averaged"]
MULTICLASS = ["ovr", "prototype"]


def _data(n_classes, seed=0, n=90, d=6):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    X[rng.rand(n, d) < 0.3] = 0.0  # some sparsity, and all-zero entries
    X[3] = 0.0  # an all-zero row
    centers = rng.randn(n_classes, d) * 2
    y = rng.randint(n_classes, size=n)
    X += centers[y]
    return X, y


def assert_equal(a, b, where="value"):
    """Exact (bit for bit) equality of two estimator states."""
    assert type(a) is type(b), where
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"), where
    elif sp.issparse(a):
        assert a.format == b.format and a.shape == b.shape, where
        for part in ("data", "indices", "indptr"):
            assert_equal(getattr(a, part), getattr(b, part),
                               f"{where}.{part}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (u, v) in enumerate(zip(a, b)):
            assert_equal(u, v, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            assert_equal(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, np.random.RandomState):
        assert_equal(a.get_state(), b.get_state(), where)
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b), where
    elif hasattr(a, "__dict__") and not isinstance(a, (np.generic, type)):
        assert_equal(vars(a), vars(b), where)
    else:
        assert a == b, where


def _state(est):
    """An estimator's attributes in name order (its state and the public
    views of it)."""
    return dict(sorted(vars(est).items()))


def _field(header, *path):
    """The node of a state field in a header: ``_field(h, "voted",
    "support")`` is ``state_.voted.support``'s."""
    node = header["state"]
    for name in path:
        node = node["fields"][name]
    return node


def _roundtrip(est, tmp_path, name="model.npz"):
    path = tmp_path / name
    save_model(est, path)
    return load_model(path)


# ----------------------------------------------------------------- round trips
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("multiclass", MULTICLASS)
@pytest.mark.parametrize("hypothesis", HYPOTHESES)
def test_perceptron_roundtrip_predictions_and_partial_fit(
        tmp_path, hypothesis, multiclass, n_classes, sparse):
    X, y = _data(n_classes)
    if sparse:
        X = sp.csr_matrix(X)
    A, B = slice(0, 60), slice(60, None)
    clf = Perceptron(hypothesis=hypothesis, multiclass=multiclass,
                     max_iter=3, lam=0.5, margin=0.5, alpha_bound=4,
                     random_state=0).fit(X[A], y[A])
    loaded = _roundtrip(clf, tmp_path)
    assert type(loaded) is Perceptron
    assert loaded.get_params() == clf.get_params()
    assert_equal(_state(clf), _state(loaded))
    np.testing.assert_array_equal(loaded.decision_function(X),
                                  clf.decision_function(X))
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))
    # partial_fit continues exactly where the saved model stopped
    clf.partial_fit(X[B], y[B])
    loaded.partial_fit(X[B], y[B])
    assert_equal(_state(clf), _state(loaded))
    np.testing.assert_array_equal(loaded.decision_function(X),
                                  clf.decision_function(X))
    # and a second save of the continued model round-trips too
    again = _roundtrip(loaded, tmp_path, "again.npz")
    np.testing.assert_array_equal(again.decision_function(X),
                                  clf.decision_function(X))


def _registry_cases():
    """Every estimator's test parameter sets, ``Class-<index>``."""
    def index(cls, params):
        return f"{cls.__name__}-{cls._test_params().index(params)}"
    return list(reg.cases(id=index))


# The registry's test parameters stop PDM/PFM short of convergence on
# purpose (a round trip needs a state, not a converged one).
@reg.mark()
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("cls, params", _registry_cases())
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_every_public_estimator_roundtrips(tmp_path, cls, params, sparse):
    X, y = _data(3, seed=1, n=60, d=5)
    if sparse:
        X = sp.csr_matrix(X)
    est = cls(**{"max_iter": 2, "random_state": 0, **params})
    est.fit(X[:40], y[:40])
    loaded = _roundtrip(est, tmp_path)
    assert_equal(_state(est), _state(loaded))
    np.testing.assert_array_equal(loaded.decision_function(X),
                                  est.decision_function(X))
    est.partial_fit(X[40:], y[40:])
    loaded.partial_fit(X[40:], y[40:])
    np.testing.assert_array_equal(loaded.decision_function(X),
                                  est.decision_function(X))


@pytest.mark.parametrize("name", ["HigherOrderPerceptron",
                                  "SecondOrderPerceptron"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_matrix_last_hypothesis_roundtrips(tmp_path, name, n_classes):
    """The last hypothesis keeps no running sum, yet a row per problem: a
    trained model's state is one its file can be read back as."""
    X, y = _data(n_classes, seed=2, n=60, d=5)
    est = estimator_registry()[f"perceptrons.{name}"](hypothesis="last", max_iter=2,
                                     random_state=0).fit(X, y)
    loaded = _roundtrip(est, tmp_path)
    assert_equal(_state(est), _state(loaded))


def test_registry_is_public_estimators():
    reg = estimator_registry()
    assert reg["perceptrons.Perceptron"] is Perceptron
    for name, cls in reg.items():
        assert name.split(".", 1)[1] in perceptrons.__all__
        assert hasattr(cls, "fit")


def test_string_labels_unfitted_and_randomstate(tmp_path):
    X, y = _data(3)
    labels = np.array(["ant", "bee", "cat"])[y]
    clf = Perceptron(max_iter=2, random_state=0).fit(X, labels)
    loaded = _roundtrip(clf, tmp_path)
    assert loaded.classes_.dtype == clf.classes_.dtype
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))

    obj_labels = labels.astype(object)  # e.g. from a pandas column
    clf = Perceptron(max_iter=2, random_state=0).fit(X, obj_labels)
    loaded = _roundtrip(clf, tmp_path)
    assert loaded.classes_.dtype == object
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))

    unfitted = _roundtrip(Perceptron(eta=0.5, alpha_bound=7), tmp_path)
    assert unfitted.get_params() == Perceptron(eta=0.5,
                                               alpha_bound=7).get_params()
    assert not hasattr(unfitted, "coef_")

    rs = np.random.RandomState(42)
    rs.rand(3)
    clf = Perceptron(random_state=rs, max_iter=2)
    loaded = _roundtrip(clf, tmp_path)
    assert_equal(loaded.random_state, rs)
    np.testing.assert_array_equal(
        clf.fit(X, y).decision_function(X),
        loaded.fit(X, y).decision_function(X))


def test_shared_arrays_stored_once(tmp_path):
    X, y = _data(2)
    clf = Perceptron(hypothesis="last", max_iter=2, random_state=0).fit(X, y)
    # Two fields, one array (theta_ls is not read by "last").
    clf._set_state(clf.state_.replace(theta_ls=clf.state_.theta))
    loaded = _roundtrip(clf, tmp_path)
    assert loaded.state_.theta_ls is loaded.state_.theta
    header = read_header(tmp_path / "model.npz")
    assert _field(header, "theta") == _field(header, "theta_ls")


def test_only_the_state_is_saved(tmp_path):
    X, y = _data(2)
    clf = Perceptron(max_iter=2, random_state=0).fit(X, y)
    clf._scratch = np.zeros(X.shape[0])  # not part of the model
    save_model(clf, tmp_path / "m.npz")
    header = read_header(tmp_path / "m.npz")
    assert "attributes" not in header
    assert list(header["state"]["fields"]) == [
        name for name, _ in type(clf.state_).specs()]
    assert "_scratch" not in json.dumps(header)


def test_header_contents(tmp_path):
    X, y = _data(2)
    clf = Perceptron(max_iter=2, random_state=0).fit(X, y)
    save_model(clf, tmp_path / "m.npz")
    with zipfile.ZipFile(tmp_path / "m.npz") as zf:
        header = json.loads(zf.read("header.json"))
        members = set(zf.namelist())
    assert header["format"] == FORMAT_NAME
    assert header["format_version"] == FORMAT_VERSION == 4
    assert header["perceptrons_version"] == perceptrons.__version__
    assert header["estimator"] == "perceptrons.Perceptron"
    assert header["params"]["eta"] == {"type": "float", "value": 0.1}
    assert header["state"]["class"] == "PerceptronState"
    assert header["state"]["version"] == type(clf.state_).VERSION
    assert {f"{k}.npy" for k in header["arrays"]} | {"header.json"} == members
    # numpy reads it without pickle
    with np.load(tmp_path / "m.npz", allow_pickle=False) as npz:
        for key in header["arrays"]:
            npz[key]


# ----------------------------------------------------------------- save errors
def test_save_rejects_unsupported_attribute(tmp_path):
    X, y = _data(2)
    # Declared attributes holding what the format cannot store.
    clf = Perceptron(max_iter=2).fit(X, y)
    clf.state_ = clf.state_.replace(theta_ls=lambda: None)
    with pytest.raises(TypeError, match="theta_ls"):
        save_model(clf, tmp_path / "m.npz")
    assert not (tmp_path / "m.npz").exists()
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind

    clf = Perceptron(max_iter=2).fit(X, y)
    clf.state_ = clf.state_.replace(
        theta=np.array([1, "a", None], dtype=object))
    with pytest.raises(TypeError, match="theta"):
        save_model(clf, tmp_path / "m.npz")

    clf = Perceptron(max_iter=2).fit(X, y)
    clf.state_ = clf.state_.replace(theta={"a": [1, (2.0, object())]})
    with pytest.raises(TypeError, match="theta"):
        save_model(clf, tmp_path / "m.npz")


def test_save_rejects_foreign_estimator(tmp_path):
    from sklearn.linear_model import Perceptron as SkPerceptron

    with pytest.raises(TypeError, match="cannot save"):
        save_model(SkPerceptron(), tmp_path / "m.npz")


# ----------------------------------------------------------------- bad files
@pytest.fixture
def good_file(tmp_path):
    X, y = _data(3)
    clf = Perceptron(hypothesis="voted", max_iter=2, random_state=0).fit(X, y)
    path = tmp_path / "good.npz"
    save_model(clf, path)
    return path


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_model(tmp_path / "nope.npz")


@pytest.mark.parametrize("cut", [0, 10, 100, 0.5, 0.9, -1])
def test_truncated_file(good_file, tmp_path, cut):
    raw = good_file.read_bytes()
    n = int(cut * len(raw)) if isinstance(cut, float) else (
        len(raw) + cut if cut < 0 else cut)
    bad = tmp_path / "cut.npz"
    bad.write_bytes(raw[:n])
    with pytest.raises(ValueError, match="not a valid perceptrons model"):
        load_model(bad)


def test_corrupted_bytes(good_file, tmp_path):
    raw = bytearray(good_file.read_bytes())
    rng = np.random.RandomState(0)
    for trial in range(20):
        data = bytearray(raw)
        for pos in rng.randint(0, len(data), size=8):
            data[pos] ^= 0xFF
        bad = tmp_path / f"flip{trial}.npz"
        bad.write_bytes(bytes(data))
        try:
            model = load_model(bad)
        except ValueError as exc:
            assert "not a valid perceptrons model" in str(exc)
        else:  # flips in unused bytes (e.g. zip comments) may be harmless
            assert isinstance(model, Perceptron)


def test_foreign_files(tmp_path):
    text = tmp_path / "model.txt"
    text.write_text("1 1:0.5 2:3\n")
    with pytest.raises(ValueError, match="not a readable zip"):
        load_model(text)
    plain = tmp_path / "plain.npz"
    np.savez(plain, coef_=np.ones(3))
    with pytest.raises(ValueError, match="no header.json"):
        load_model(plain)
    other = tmp_path / "other.npz"
    with zipfile.ZipFile(other, "w") as zf:
        zf.writestr("header.json", json.dumps({"format": "something-else"}))
    with pytest.raises(ValueError, match="does not declare format"):
        load_model(other)
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    with pytest.raises(ValueError):
        load_model(empty)


def test_bad_json(good_file, tmp_path):
    bad = _rewrite(good_file, tmp_path / "b.npz",
                   replace={"header.json": b"{not json"})
    with pytest.raises(ValueError, match="not valid JSON"):
        load_model(bad)
    bad = _rewrite(good_file, tmp_path / "c.npz",
                   replace={"header.json": b"\xff\xfe"})
    with pytest.raises(ValueError, match="not valid JSON"):
        load_model(bad)


def test_newer_version_refused(good_file, tmp_path):
    bad = _rewrite(good_file, tmp_path / "v2.npz",
                   header=lambda h: h.update(format_version=FORMAT_VERSION + 1))
    with pytest.raises(ValueError, match="newer.*upgrade"):
        load_model(bad)
    bad = _rewrite(good_file, tmp_path / "v0.npz",
                   header=lambda h: h.update(format_version="1"))
    with pytest.raises(ValueError, match="format_version"):
        load_model(bad)


@pytest.mark.parametrize("version", [1, 2, 3])
def test_older_versions_refused_with_the_remedy(good_file, tmp_path, version):
    old = _rewrite(good_file, tmp_path / "old.npz",
                   header=lambda h: h.update(format_version=version))
    with pytest.raises(ValueError, match=f"version {version}.*refit the "
                                         "model"):
        load_model(old)


def test_older_state_version_refused_with_the_remedy(good_file, tmp_path):
    bad = _rewrite(good_file, tmp_path / "sv.npz",
                   header=lambda h: _field(h, "voted").update(version=0))
    with pytest.raises(ValueError, match="VotedLog version 0.*refit"):
        load_model(bad)


def test_undeclared_field_in_file_refused(good_file, tmp_path):
    def add(header):
        header["state"]["fields"]["_scratch"] = {"type": "int", "value": 1}
    bad = _rewrite(good_file, tmp_path / "extra.npz", header=add)
    with pytest.raises(ValueError, match="PerceptronState must have the "
                                         "fields"):
        load_model(bad)


def test_class_not_whitelisted(good_file, tmp_path):
    for name in ["os.system", "sklearn.linear_model.Perceptron",
                 "perceptrons.persistence", None]:
        bad = _rewrite(good_file, tmp_path / "cls.npz",
                       header=lambda h: h.update(estimator=name))
        with pytest.raises(ValueError, match="is not one of"):
            load_model(bad)


def test_state_class_not_whitelisted(good_file, tmp_path):
    for name in ("builtins.dict", "perceptrons.cli.__main__",
                 "perceptrons.models.Perceptron", 7):
        bad = _rewrite(good_file, tmp_path / "s.npz",
                       header=lambda h: _field(h, "voted").update(
                           **{"class": name}))
        with pytest.raises(ValueError, match="is not one of this "
                                             "perceptrons' state types"):
            load_model(bad)
    # A known type in the wrong place fails validation.
    bad = _rewrite(good_file, tmp_path / "s2.npz",
                   header=lambda h: h["state"]["fields"].update(
                       voted=_field(h, "vote_rows")))
    with pytest.raises(ValueError, match="voted must be a VotedLog"):
        load_model(bad)


def test_missing_and_mistyped_arrays(good_file, tmp_path):
    header = read_header(good_file)
    key = _field(header, "theta")["key"]
    bad = _rewrite(good_file, tmp_path / "m.npz", drop=(f"{key}.npy",))
    with pytest.raises(ValueError, match="missing"):
        load_model(bad)

    def edit(h):
        h["arrays"][key]["dtype"] = "<i8"
    bad = _rewrite(good_file, tmp_path / "d.npz", header=edit)
    with pytest.raises(ValueError, match="manifest"):
        load_model(bad)

    def edit2(h):
        h["state"]["fields"]["theta"] = {"type": "ndarray", "key": "zzz"}
    bad = _rewrite(good_file, tmp_path / "k.npz", header=edit2)
    with pytest.raises(ValueError, match="manifest"):
        load_model(bad)

    for node in [{"type": "int", "value": "3"}, {"type": "weird"}, [1, 2],
                 {"type": "list", "items": 5}, {"no": "type"}]:
        bad = _rewrite(good_file, tmp_path / "t.npz",
                       header=lambda h: h["state"]["fields"].update(t=node))
        with pytest.raises(ValueError, match="not a valid perceptrons model"):
            load_model(bad)

    bad = _rewrite(good_file, tmp_path / "p.npz",
                   header=lambda h: h["params"].update(
                       no_such_param={"type": "int", "value": 1}))
    with pytest.raises(ValueError, match="no_such_param"):
        load_model(bad)


def test_object_array_member_is_not_unpickled(good_file, tmp_path,
                                              monkeypatch):
    header = read_header(good_file)
    key = _field(header, "theta")["key"]
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.array([{"evil": 1}], dtype=object),
                              allow_pickle=True)

    def edit(h):
        h["arrays"][key] = {"dtype": "|O", "shape": [1]}
    bad = _rewrite(good_file, tmp_path / "o.npz", header=edit,
                   replace={f"{key}.npy": buf.getvalue()})

    def boom(*args, **kwargs):
        raise AssertionError("pickle must never be used to load a model")
    monkeypatch.setattr(pickle, "loads", boom)
    monkeypatch.setattr(pickle, "load", boom)
    with pytest.raises(ValueError, match="not a valid perceptrons model"):
        load_model(bad)
    load_model(good_file)  # the good file loads with pickle disabled


@reg.mark(rule=reg.primal_by_default)
@pytest.mark.parametrize("cls", [c for c in reg.estimator_classes()
                                 if reg.primal_by_default(c)],
                         ids=reg.class_id)
def test_ten_class_model_file_is_small(tmp_path, cls):
    """A 10-class model of 20 features saves to a few KiB, whatever the
    rows, beyond the (features x features) matrices a second-order model
    keeps per problem."""
    import warnings

    from tests._states import state_arrays

    rng = np.random.RandomState(0)
    X = rng.randn(6000, 20)
    y = rng.randint(10, size=6000)
    est = cls(max_iter=2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    path = tmp_path / "model.npz"
    save_model(est, path)
    # a few KiB: the averaged hypothesis keeps three 10 x 20 weight
    # matrices (coef_, the current and the accumulated weights)
    matrices = sum(a.nbytes for _, a in state_arrays(est.state_)
                   if list(a.shape).count(X.shape[1]) >= 2)
    assert path.stat().st_size < 12 * 1024 + matrices, path.stat().st_size
    np.testing.assert_array_equal(load_model(path).predict(X), est.predict(X))


# ----------------------------------------------------------------- scalers
@pytest.mark.parametrize("scaler", ["StandardScaler", "MaxAbsScaler",
                                    "Normalizer"])
def test_pipeline_of_scalers_and_input_schema_roundtrip(tmp_path, scaler):
    import sklearn.preprocessing
    from sklearn.pipeline import Pipeline

    X, y = _data(3)
    pipe = Pipeline([("scale", getattr(sklearn.preprocessing, scaler)()),
                     ("model", Perceptron(max_iter=2, random_state=0))])
    pipe.fit(X, y)
    schema = {"format": "svmlight", "zero_based": False, "n_features": 6}
    save_model(pipe, tmp_path / "p.npz", input_schema=schema)
    assert read_header(tmp_path / "p.npz")["format_version"] == 4
    loaded, saved = load_model(tmp_path / "p.npz", return_input_schema=True)
    assert saved == schema
    assert type(loaded[0]).__name__ == scaler
    assert_equal(_state(loaded[-1]), _state(pipe[-1]))
    np.testing.assert_array_equal(loaded.predict(X), pipe.predict(X))
    np.testing.assert_array_equal(loaded[0].transform(X),
                                  pipe[0].transform(X))


def test_pipeline_steps_must_be_scalers(tmp_path):
    from sklearn.decomposition import PCA
    from sklearn.pipeline import Pipeline

    X, y = _data(2)
    pipe = Pipeline([("pca", PCA(2)), ("model", Perceptron(max_iter=1))])
    with pytest.raises(TypeError, match="'pca' of type PCA"):
        save_model(pipe.fit(X, y), tmp_path / "p.npz")
    with pytest.raises(TypeError, match="input_schema"):
        save_model(Perceptron(), tmp_path / "q.npz",
                   input_schema={"x": object()})


def test_parameters_checked_against_constraints(good_file, tmp_path):
    bad = _rewrite(good_file, tmp_path / "eta.npz",
                   header=lambda h: h["params"].update(
                       eta={"type": "float", "value": -5}))
    with pytest.raises(ValueError, match="invalid parameter.*'eta'"):
        load_model(bad)


@pytest.mark.parametrize("edit, words", [
    (lambda h: h["state"]["fields"].update(classes={"type": "none"}),
     "state_.classes is missing"),
    (lambda h: h["state"]["fields"].update(
        n_features_in={"type": "str", "value": "6"}),
     "state_.n_features_in must be a int"),
    (lambda h: h["state"]["fields"].update(
        n_features_in={"type": "int", "value": 7}),
     "n_features is 6 here but 7 elsewhere"),
])
def test_fitted_state_types_and_shapes_checked(good_file, tmp_path, edit,
                                               words):
    bad = _rewrite(good_file, tmp_path / "s.npz", header=edit)
    with pytest.raises(ValueError, match=words):
        load_model(bad)


def test_oversized_members_refused(good_file, tmp_path):
    header = read_header(good_file)
    key = _field(header, "theta")["key"]
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.zeros(200_000))
    bad = _rewrite(good_file, tmp_path / "big.npz",
                   replace={f"{key}.npy": buf.getvalue()})
    with pytest.raises(ValueError, match="more than its manifest entry"):
        load_model(bad)
    big = tmp_path / "bomb.npz"
    with zipfile.ZipFile(big, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", b" " * (9 * 2**20))
    with pytest.raises(ValueError, match="over the limit"):
        load_model(big)


def test_save_error_names_the_path(tmp_path):
    target = tmp_path / "missing-dir" / "m.npz"
    with pytest.raises(OSError) as err:
        save_model(Perceptron(), target)
    assert str(target) in str(err.value) and ".tmp" not in str(err.value)
