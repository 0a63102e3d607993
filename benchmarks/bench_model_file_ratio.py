"""How far do real model files compress: the bounds of the zip-bomb check.

:func:`perceptrons.persistence.load_model` refuses a file whose members
declare more bytes than ``MAX_COMPRESSION_RATIO`` times their compressed
size (and than the file's size), before anything is decompressed. The bound
must sit above what legitimate files reach. The most compressible ones hold
zero-heavy weights: a wide, sparse input leaves most weights at 0. This
script saves a model of every estimator and parameter set of the package's
tests, on dense data, on a9a (123 features) and on a wide sparse matrix
(2^18 features, 20 stored values a row) and a hashed one (2^22 features,
5 stored values a row: almost every weight stays 0), and reports the largest ratio of a member (declared size / compressed size) and
of the whole file (declared sizes / file size). It also shows deflate's
ceiling: an all-zero array of 64 MiB.

Run::

    python benchmarks/bench_model_file_ratio.py --quick   # dense and a9a
    python benchmarks/bench_model_file_ratio.py --write   # + wide, updates BENCHMARKS.md
"""

import io
import os
import sys
import tempfile
import warnings
import zipfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import load_libsvm, md_table, parse_bench_args, publish  # noqa: E402

from perceptrons.persistence import (  # noqa: E402
    MAX_COMPRESSION_RATIO, estimator_registry, save_model)


def _ratios(path):
    """(largest member ratio, whole-file ratio, file bytes)."""
    size = os.path.getsize(path)
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
    member = max(i.file_size / max(i.compress_size, 1) for i in infos)
    total = sum(i.file_size for i in infos) / size
    return member, total, size


def _datasets(quick):
    rng = np.random.RandomState(0)
    X = rng.randn(200, 20)
    yield "dense 200x20", X, rng.randint(3, size=200)
    X, y = load_libsvm("a9a")
    yield "a9a 2000 rows", X[:2000], y[:2000]
    if not quick:
        n, d = 300, 2**18
        cols = rng.randint(d, size=(n, 20))
        X = sp.csr_matrix((rng.rand(n * 20), cols.ravel(),
                           np.arange(0, n * 20 + 1, 20)), shape=(n, d))
        X.sum_duplicates()
        yield f"wide {n}x2^18", X, rng.randint(2, size=n)
        # hashed features: 2^22 columns, 5 stored values a row, so that
        # almost every weight stays 0 (the most compressible real files)
        n, d = 100, 2**22
        X = sp.csr_matrix((rng.rand(n * 5), rng.randint(d, size=n * 5),
                           np.arange(0, n * 5 + 1, 5)), shape=(n, d))
        X.sum_duplicates()
        yield "hashed 100x2^22", X, rng.randint(2, size=n)


def _cases():
    for name, cls in sorted(estimator_registry().items()):
        for i, params in enumerate(getattr(cls, "_test_params",
                                           lambda: [{}])()):
            yield f"{cls.__name__}-{i}", cls, params


def _deflate_ceiling():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("zeros", bytes(64 * 2**20))
    with zipfile.ZipFile(buf) as zf:
        info = zf.infolist()[0]
    return info.file_size / info.compress_size


def main(argv=None):
    args = parse_bench_args(argv, __doc__, "dense data and a9a only",
                            (1, 1), (0.0, 0.0))
    rows, worst = [], (0.0, 0.0, "")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.npz"
        for data_name, X, y in _datasets(args.quick):
            best = (0.0, 0.0, "", 0)
            for case, cls, params in _cases():
                if X.shape[1] > 2**12 and cls.__name__ == \
                        "SecondOrderPerceptron" and not params.get("kernel"):
                    continue  # its primal form is a d x d matrix
                if X.shape[1] > 2**20 and (params.get("kernel") or cls.__name__
                                           in ("HigherOrderPerceptron",
                                               "KernelPerceptron",
                                               "SecondOrderPerceptron")):
                    continue  # the linear weight vectors only
                est = cls(**{"max_iter": 2, "random_state": 0, **params})
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        est.fit(X, y)
                    except (ValueError, MemoryError) as exc:
                        print(f"skip {case} on {data_name}: {exc}",
                              file=sys.stderr)
                        continue
                save_model(est, path)
                member, total, size = _ratios(path)
                if member > best[0]:
                    best = (member, total, case, size)
                worst = max(worst, (member, total, f"{case}, {data_name}"))
            rows.append([data_name, best[2], f"{best[0]:.0f}",
                         f"{best[1]:.0f}", f"{best[3]:,}"])
    ceiling = _deflate_ceiling()
    report = "\n".join([
        "## Model file compression ratios (bench_model_file_ratio.py)",
        "",
        "Largest ratio of a member (declared bytes / compressed bytes) "
        "over every estimator and parameter set of the tests, and the "
        "whole-file ratio (declared bytes of all members / file size) of "
        "that file:",
        "",
        md_table(["data", "estimator", "member ratio", "file ratio",
                  "file bytes"], rows),
        "",
        f"Largest member ratio seen: {worst[0]:.0f} ({worst[2]}). Deflate's "
        f"ceiling (64 MiB of zeros): {ceiling:.0f}. The loader's bound, "
        f"`MAX_COMPRESSION_RATIO`: {MAX_COMPRESSION_RATIO}.",
    ])
    publish(report, "bench_model_file_ratio", args.write)


if __name__ == "__main__":
    main()
