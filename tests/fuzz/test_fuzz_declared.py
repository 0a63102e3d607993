"""No member of a model file can be enlarged alone (issue #36, point 6).

For one saved model per estimator family and form
(:data:`tests.fuzz._model_fuzz.MODELS`) and a pipeline with a scaler, every
array member is enlarged by 1,000 entries along its first axis (a 0-d
member becomes 1,000 values) and, when it has two or more axes, along its
last; its manifest entry and ``.npy`` header agree, its data are zeros.
Each such file must be refused from the header alone (its message ends
with the header check's words), before any member is decompressed: every
axis of every member is bound to its state type's symbols, which the
other members or the header's scalars fix, or to a bound of its own.
"""

import json
import zipfile

import numpy as np
import pytest

from perceptrons.persistence import load_model, save_model
from tests._zips import resized
from tests.fuzz._model_fuzz import save_models

_FROM_HEADER = "(from the header's manifest, before any array is read)"
_MORE = 1000


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from perceptrons import Perceptron

    folder = tmp_path_factory.mktemp("declared")
    paths = save_models(folder)
    X = np.random.RandomState(0).randn(40, 5)
    paths["scaled"] = folder / "scaled.npz"
    save_model(make_pipeline(StandardScaler(), Perceptron(
        random_state=0)).fit(X, X[:, 0] > 0), paths["scaled"])
    return paths


def _enlargements(path):
    """``(key, shape)`` of each member enlarged along one axis."""
    with zipfile.ZipFile(path) as zf:
        manifest = json.loads(zf.read("header.json"))["arrays"]
    for key, entry in sorted(manifest.items()):
        shape = entry["shape"]
        if not shape:
            yield key, [_MORE]
            continue
        yield key, [shape[0] + _MORE, *shape[1:]]
        if len(shape) > 1:
            yield key, [*shape[:-1], shape[-1] + _MORE]


def test_every_member_enlarged_alone_is_refused_from_the_header(files,
                                                               tmp_path):
    tried, loaded, late = 0, [], []
    for name, path in files.items():
        load_model(path)  # the file itself is fine
        for key, shape in _enlargements(path):
            bad = resized(path, tmp_path / f"{name}-{key}.npz", {key: shape})
            tried += 1
            try:
                load_model(bad)
            except ValueError as exc:
                if not str(exc).endswith(_FROM_HEADER):
                    late.append((name, key, shape, str(exc)[-200:]))
            else:
                loaded.append((name, key, shape))
            bad.unlink()
    print(f"\n{tried} members enlarged alone, in {len(files)} files")
    assert tried > 250
    assert not loaded, loaded[:5]
    assert not late, late[:5]
