"""Save and load fitted estimators without pickle.

A model file is a zip archive (numpy's ``.npz`` layout) that holds

``header.json``
    UTF-8 JSON: the format name ``"perceptrons-model"``, the format
    version (:data:`FORMAT_VERSION`), the package version that wrote it,
    the estimator's public name (``"perceptrons.Perceptron"``), its
    ``get_params()``, its fitted state (``state_``, the typed, versioned
    state of :mod:`perceptrons.models._state`, absent for an unfitted
    estimator), the scalers of a :class:`~sklearn.pipeline.Pipeline` ending
    in the estimator (``StandardScaler``, ``MaxAbsScaler``, ``Normalizer``:
    their parameters and fitted statistics), ``input``, plain JSON data
    describing the input files (the command line keeps the CSV encoding and
    the svmlight indexing there), and the name, dtype and shape of every
    array member.
``a<N>.npy``
    One member per array, in numpy's ``.npy`` format. Object arrays are
    never written, so the file loads with ``allow_pickle=False``.

A model file holds the model and nothing else: the estimator's state, a
tree of state nodes (``{"type": "state", "class": "PerceptronState",
"version": 1, "fields": {...}}``, one per nested state too) whose leaves are

====================  ====================================================
Python value          node ``{"type": ...}``
====================  ====================================================
``None``              ``"none"``
``bool, int, str``    ``"bool"``, ``"int"``, ``"str"`` with ``"value"``
``float``             ``"float"``; ``"value"`` is the number, or the string
                      ``"nan"``, ``"inf"``, ``"-inf"``
numpy scalar          ``"npscalar"``: a 0-d array member
``ndarray``           ``"ndarray"``: an array member (object arrays only if
                      every element is a ``str``, or every one an ``int``;
                      ``"object": true`` restores the object dtype)
list, tuple, dict     ``"list"``, ``"tuple"`` (``"items"``), ``"dict"``
                      (``"items"``: ``[key_node, value_node]`` pairs), for
                      parameters
scipy.sparse          ``"sparse"``: ``format`` (csr, csc or coo), ``shape``,
                      ``container`` (``"matrix"`` or ``"array"``) and the
                      members of its index and data arrays
RandomState           ``"random_state"``: its ``get_state()`` tuple (a
                      ``random_state`` parameter)
====================  ====================================================

Anything else raises :class:`TypeError` when saving, naming the attribute.
An array or sparse matrix referenced twice (``a is b``) is stored once and
shared again after loading. Floats round-trip exactly (JSON numbers are
written with ``repr``), so predictions after loading are identical bit for
bit and ``partial_fit`` continues exactly where it stopped.

Loading never unpickles and never imports anything a file names: the
estimator's class must be one of :mod:`perceptrons.registry`'s, a state
node's class one of the state types those estimators declare (looked up by
name, never imported), a scaler one of the three above.

The zip layer is checked from the archive's directory before anything is
decompressed or allocated: every member is ``header.json`` or an
``a<N>.npy`` (no path, no ``..``), named once, not encrypted, stored or
deflated, within the file and overlapping no other member; a member
declares at most :data:`MAX_COMPRESSION_RATIO` times its compressed size
(a zip bomb is refused, not inflated) and all members together at most
:data:`MAX_MODEL_BYTES` (raise it for a larger model you trust: see the
constant). The header is at most :data:`MAX_HEADER_BYTES`, its array
manifest names exactly the archive's array members, each of the size its
entry declares. Still before any member is decompressed, every member is
sized from the header alone: the state's node tree is checked against its
types' declarations with each array as the manifest declares it (each
node's version is its type's; dtypes; shapes, whose shared symbols such as
``n_features`` or ``n_classes`` must agree across arrays and with the
scalars that state them), each symbol that only arrays bind is bounded by
a count the header states (epochs and rows seen by ``t``, a pool's rows by
its rows seen, a vote log by ``n_updates``, ...), each axis no symbol names
by the one it must stay within, a scaler's statistics by the features and
a parameter's members by a few KiB; the reasoning and every bound are in
``_declared``'s notes. A member enlarged alone is therefore refused
without being read; only a file consistently large, as a real model that
large is, reaches :data:`MAX_MODEL_BYTES`. Then each member's ``.npy``
header is checked against its entry before its data is allocated, the
parameters satisfy the estimator's constraints, and the state passes its
type's validation (values: index ranges, finiteness, the relations
between arrays: :meth:`~perceptrons.models._state.State.validate`) before
any compiled loop can read it. Anything else is refused with one
:class:`ValueError` naming the file and the field.

Version policy: format 4 holds the typed state. A newer file is refused
with a message asking for an upgrade; an older one (which saved the
estimator's private attributes) with a message saying to refit and save
again. A state type that changes what it holds changes its ``VERSION``
(a test keeps the types and their versions in step); a file of the
version before loads when the type lists what that version lacks in
``UPGRADES`` (the value an older model means by its absence: no budget,
no label columns), and any other version is refused the same way.

This module holds the public functions, the format's constants and its
version policy, and drives four private modules: ``_estimators`` (what a
file may name, and how decoded nodes become a checked estimator),
``_declared`` (every member sized from the header), ``_codec`` (the node
tree, encoded and decoded, or decoded from the header alone) and
``_archive`` (the zip layer: the directory, the manifest and the members,
read and written). ``_declared`` uses ``_codec``, which reads members
through ``_archive``.
"""

import json
import os
import zipfile
import zlib
from pathlib import Path

import numpy as np

from ._archive import (_HEADER, _ZIP_ERRORS, _Archive, _check_manifest,
                       _fail, _write_zip, _zip_error)
from ._codec import _Decoder, _Encoder, _HeaderDecoder
from ._declared import check_declared
from ._estimators import (_PREPROCESSORS, _build, _build_estimator,
                          _check_fitted, _preprocessor_classes,
                          _split_pipeline, estimator_registry, state_types)

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "MAX_COMPRESSION_RATIO",
           "MAX_HEADER_BYTES", "MAX_MODEL_BYTES", "load_model", "read_header",
           "save_model"]

#: ``"format"`` field of the header.
FORMAT_NAME = "perceptrons-model"
#: Format version this module writes and reads (the typed state).
FORMAT_VERSION = 4
#: Oldest format version it reads.
_OLDEST_READ = 4
#: Largest ``header.json`` read: parameters and state nodes, never arrays.
MAX_HEADER_BYTES = 8 * 2**20


def _bytes_from_env(name, default):
    """A byte count from the environment variable ``name`` (``default`` if
    unset); a value that is not a positive integer is refused, not
    ignored."""
    text = os.environ.get(name)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"{name}={text!r:.40} must be a positive number of "
                         "bytes")
    return value


#: Largest total size the members of a model file may declare (their
#: uncompressed bytes, header included), checked from the zip directory
#: before anything is decompressed: a file over it is refused, never
#: allocated. At the widest input the command line trains
#: (``--max-features``, 2**24 features: 128 MiB per weight vector), the
#: linear models' files declare 128 to 256 MiB for two classes and 384 to
#: 768 MiB for three (measured: Perceptron, PDM, ROMMA, Ballseptron), so
#: those fit; more classes at that width, or a kernel model holding
#: millions of support vectors, need more. To load a larger model you
#: trust, raise it: set the environment variable
#: ``PERCEPTRONS_MAX_MODEL_BYTES`` (read at import; the command line reads
#: it too) or assign ``perceptrons.persistence.MAX_MODEL_BYTES``.
MAX_MODEL_BYTES = _bytes_from_env("PERCEPTRONS_MAX_MODEL_BYTES", 2**30)
#: Largest ratio of a member's declared size to its compressed size.
#: Deflate cannot exceed about 1032:1 (64 MiB of zeros: 1029:1), and the
#: most compressible real model files, the weights of hashed features
#: (2**22 columns, almost all 0), reach 1023:1
#: (``benchmarks/bench_model_file_ratio.py``): no honest member comes near
#: this bound, and one that declares more lies about its size. Honest
#: bombs (about 1030:1) meet :data:`MAX_MODEL_BYTES` instead.
MAX_COMPRESSION_RATIO = 1100


# ---------------------------------------------------------------- saving
def save_model(estimator, path, *, input_schema=None):
    """Write a fitted (or unfitted) estimator to ``path``.

    Parameters
    ----------
    estimator : estimator or Pipeline
        An instance of a public ``perceptrons`` estimator class, or a
        :class:`~sklearn.pipeline.Pipeline` of ``StandardScaler``,
        ``MaxAbsScaler`` or ``Normalizer`` steps ending in one.
    path : str or path-like
        Destination file; ``.npz`` is the conventional suffix. The file is
        written to a temporary name and renamed, so an existing file is
        never left half-written.
    input_schema : dict, default=None
        JSON data saved with the model and returned by
        ``load_model(path, return_input_schema=True)``: how input files are
        read (the command line saves the CSV encoding or the svmlight
        indexing here).

    Raises
    ------
    TypeError
        If the estimator's class is not a public perceptrons estimator (or a
        Pipeline step not a supported scaler), or one of its parameters or
        attributes has a type the format cannot store (the message names
        it), or ``input_schema`` is not JSON data.
    OSError
        If the file cannot be written; the message names ``path``.

    See Also
    --------
    load_model : the inverse.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> from perceptrons import Perceptron
    >>> from perceptrons.persistence import save_model, load_model
    >>> X = np.array([[0., 1.], [1., 0.], [2., 1.], [0., 2.]])
    >>> clf = Perceptron(random_state=0).fit(X, [0, 1, 1, 0])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.npz")
    >>> save_model(clf, path)
    >>> bool((load_model(path).predict(X) == clf.predict(X)).all())
    True
    """
    import perceptrons

    scalers, name, estimator = _split_pipeline(estimator)
    enc = _Encoder()

    def encode_step(obj, names, what):
        params = {k: enc.encode(v, f"{what}parameter {k!r}")
                  for k, v in obj.get_params(deep=False).items()}
        attrs = {k: enc.encode(vars(obj)[k], f"{what}attribute {k!r}")
                 for k in names if k in vars(obj)}
        return params, attrs

    params_node, _ = encode_step(estimator, (), "")
    state = getattr(estimator, "state_", None)
    preprocessing = []
    for step, cls_name, scaler in scalers:
        params, attrs = encode_step(scaler, _PREPROCESSORS[cls_name],
                                    f"step {step!r} ")
        preprocessing.append({"name": step, "class": cls_name,
                              "params": params, "attributes": attrs})
    header = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "perceptrons_version": perceptrons.__version__,
        "numpy_version": np.__version__,
        "estimator": name,
        "params": params_node,
        "arrays": {},
    }
    if state is not None:
        header["state"] = enc.encode(state, "state_")
    header["arrays"] = {k: {"dtype": a.dtype.str, "shape": list(a.shape)}
                        for k, a in enc.arrays.items()}
    if preprocessing:
        header["preprocessing"] = preprocessing
    if input_schema is not None:
        header["input"] = input_schema
    try:
        payload = json.dumps(header, indent=1, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"cannot save input_schema: not JSON data ({exc})") \
            from exc
    _write_zip(Path(os.fspath(path)), payload.encode("utf-8"), enc.arrays)


# ---------------------------------------------------------------- loading
def _parse_header(zf, path):
    """The checked JSON header of an archive whose directory is checked."""
    size = zf.getinfo(_HEADER).file_size
    if size > MAX_HEADER_BYTES:
        raise _fail(path, f"header.json is {size} bytes, over the limit of "
                          f"{MAX_HEADER_BYTES}")
    try:
        with zf.open(_HEADER) as fh:
            raw = fh.read(MAX_HEADER_BYTES + 1)
    except _ZIP_ERRORS as exc:
        raise _fail(path, _zip_error(exc)) from exc
    if len(raw) > MAX_HEADER_BYTES:
        raise _fail(path, "header.json is over the size limit")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _fail(path, f"header.json is not valid JSON ({exc})") from exc
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise _fail(path, f"header.json does not declare format "
                          f"{FORMAT_NAME!r}")
    version = header.get("format_version")
    if type(version) is not int or version < 1:
        raise _fail(path, f"bad format_version {version!r:.40}")
    if version < _OLDEST_READ:
        raise ValueError(
            f"{str(path)} uses perceptrons model format version {version} "
            f"(written by perceptrons "
            f"{str(header.get('perceptrons_version', '?')):.40}), which "
            "saved the estimator's private attributes rather than its "
            "declared, validated state; this perceptrons reads version "
            f"{FORMAT_VERSION}: refit the model on its training data and "
            "save it again (perceptrons train ... -o MODEL)")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{str(path)} uses perceptrons model format version {version}, "
            f"newer than the version this perceptrons can read "
            f"({FORMAT_VERSION}; written by perceptrons "
            f"{str(header.get('perceptrons_version', '?')):.40}): upgrade "
            "perceptrons")
    return header


def read_header(path):
    """Return the parsed JSON header of a model file (no arrays loaded).

    The zip directory is checked first (see :func:`load_model`).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    dict

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is not a zip archive laid out as a model file, with a
        valid ``header.json``.
    """
    with _open_archive(path) as archive:
        return archive.header


def _open_archive(path):
    """The :class:`_Archive` of ``path``; FileNotFoundError if there is no
    such file, one ValueError naming it for anything else."""
    path = Path(os.fspath(path))
    if not path.is_file():
        raise FileNotFoundError(f"No such model file: {str(path)!r}")
    try:
        # The limits as they are now: an assigned MAX_MODEL_BYTES counts.
        return _Archive(path, _parse_header, MAX_MODEL_BYTES,
                        MAX_COMPRESSION_RATIO)
    except OSError as exc:
        raise _fail(path, f"cannot be read ({exc.strerror or exc})") \
            from exc


def load_model(path, *, return_input_schema=False):
    """Load an estimator written by :func:`save_model`.

    Nothing in the file can execute code: arrays are read as raw ``.npy``
    data, never unpickled. The zip layer is checked before anything is
    decompressed, and the parameters and the fitted state before the
    estimator is returned (see the module docstring).

    Parameters
    ----------
    path : str or path-like
    return_input_schema : bool, default=False
        Also return the ``input_schema`` saved with the model (None if
        none was).

    Returns
    -------
    estimator or Pipeline
        A new instance of the saved class with the saved parameters and
        fitted state; a :class:`~sklearn.pipeline.Pipeline` if scalers were
        saved before it.
    input_schema : dict or None, only if ``return_input_schema``

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is not a perceptrons model (a foreign ``.npz``, a text
        file), is truncated or corrupt (bad JSON, missing, extra, duplicate,
        mistyped, encrypted or oversized members, a zip bomb, a member over
        :data:`MAX_MODEL_BYTES`), names a class outside the whitelist, holds
        parameters outside the estimator's constraints or a fitted state of
        the wrong types or shapes, or was written in a newer format version.
    """
    with _open_archive(path) as archive:
        header = archive.header
        registry = estimator_registry()
        name = header.get("estimator")
        if not isinstance(name, str) or name not in registry:
            raise _fail(path, f"estimator class {name!r:.80} is not one of "
                              f"{', '.join(sorted(registry))}")
        steps = header.get("preprocessing", [])
        if not isinstance(steps, list) or not all(
                isinstance(step, dict) and type(step.get("name")) is str
                for step in steps):
            raise _fail(path, "preprocessing must be a list of named steps")
        try:
            manifest = _check_manifest(archive.zf, header.get("arrays"))
            types = state_types()
            check_declared(header, _HeaderDecoder(archive.zf, manifest,
                                                  types), registry[name])
            dec = _Decoder(archive.zf, manifest, types)
            classes = _preprocessor_classes()
            pipeline = []
            for step in steps:
                if step.get("class") not in classes:
                    raise ValueError(f"preprocessing class "
                                     f"{step.get('class')!r:.80} is not one "
                                     f"of {', '.join(sorted(classes))}")
                cls = classes[step["class"]]
                pipeline.append((step["name"], _build(
                    dec, cls, step, _PREPROCESSORS[step["class"]],
                    f"step {step['name']!r:.80} ")))
            estimator = _build_estimator(dec, registry[name], header)
        except ValueError as exc:
            raise _fail(path, str(exc)) from exc
        except (KeyError, TypeError, IndexError, AttributeError, OSError,
                EOFError, RecursionError, NotImplementedError, MemoryError,
                RuntimeError, OverflowError, zipfile.BadZipFile,
                zlib.error) as exc:
            raise _fail(path, f"corrupt content ({type(exc).__name__}: "
                              f"{exc})") from exc
    model = estimator
    if pipeline:
        from sklearn.pipeline import Pipeline

        try:
            model = Pipeline([*pipeline, ("model", estimator)])
        except (TypeError, ValueError) as exc:
            raise _fail(path, f"bad preprocessing steps ({exc})") from exc
    try:
        _check_fitted(model, estimator, [s for _, s in pipeline])
    except ValueError as exc:
        raise _fail(path, str(exc)) from exc
    if return_input_schema:
        return model, header.get("input")
    return model


