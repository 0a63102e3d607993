"""How fast does the compiled svmlight chunk parser read text, beside scikit-learn's reader?

Question
--------
:func:`perceptrons.datasets.svmlight_chunks.parse_svmlight_chunk` turns
whole lines of svmlight/LIBSVM text into CSR arrays (labels, indptr,
indices, data) in one compiled pass over the bytes, with the same bits as
``sklearn.datasets.load_svmlight_file``. How many megabytes per second
(1 MB = 10^6 bytes) does it parse, and scikit-learn's reader on the same
bytes, when a file is read in chunks of 64 MB cut at line boundaries (the
out-of-core setting), and what peak memory (RSS) does each need? Goal: at
least 90 MB/s on the a9a-shaped file (scikit-learn: about 13 MB/s).

Two generated files (seeded, written to a temporary folder and deleted at
the end, never committed), ``--size-mb`` each:

* **a9a-like**: labels ``+1``/``-1`` (24 % positive), 14 distinct sorted
  indices out of 1..123 per row, every value ``1``, a space before the
  newline, as LIBSVM's a9a is written (about 75 bytes a row);
* **real-valued**: labels ``1``/``-1``, 50 distinct sorted indices out of
  1..100000 per row, values ``'%.6g' % (N(0, 1) * 10**U{-3..3})`` (about
  800 bytes a row; every value is on the parser's exact fast path).

Each file repeats a block of distinct random rows (100000 a9a-like rows,
20000 real-valued ones) until it reaches the size.

Command
-------
::

    python benchmarks/bench_svmlight_parser.py          # 2 x 200 MB, ~1.5 min
    python benchmarks/bench_svmlight_parser.py --write  # ... and BENCHMARKS.md
    python benchmarks/bench_svmlight_parser.py --quick  # 2 x 24 MB, 8 MB chunks

``--size-mb`` and ``--chunk-mb`` change the sizes.

What is timed
-------------
Each (file, parser) run is a fresh child process (so that its peak RSS is
its own): it imports everything, parses one small chunk untimed (numba's
compiled code loaded from its cache), notes its RSS, then reads the file
with ``readinto`` in blocks of ``--chunk-mb``, cuts each block after its
last ``\\n`` (the rest is carried to the next block) and parses the chunk:

* **ours**: ``parse_svmlight_chunk(memoryview_of_chunk, path=..., offset=...,
  first_line=...)``;
* **sklearn**: ``load_svmlight_file(io.BytesIO(chunk), zero_based=True,
  dtype=np.float64)`` (the ``BytesIO`` copy is made outside the timed
  call).

The result of a chunk is dropped before the next one is parsed. "parse
MB/s" = file bytes / the sum of the timed parse calls; "end-to-end MB/s"
adds the reads (from the page cache: the file was just written) and the
cuts. Runs alternate between the parsers, ``--repeat`` rounds; the table
gives the best run with the median beside it. Peak RSS is the child's
``VmHWM`` (from /proc) at the end, the largest over the rounds, beside its
RSS after the imports and the warm-up (which includes neither the chunk
buffer nor any result). Before timing, the first 4 MB of each file
(cut at a line) are parsed by both and compared bit for bit.

The machine is shared (2 cores, other jobs running); the parsers run on one
core (``NUMBA_NUM_THREADS=1``).
"""

import os

for _var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
             "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

SECTION = "bench_svmlight_parser"
GOAL_MB_S = 90.0
PARSERS = ("ours", "sklearn")
MB = 10**6


# ----------------------------------------------------------------------------
# Data
# ----------------------------------------------------------------------------


def a9a_block(rng, n_rows=100_000):
    """Distinct a9a-shaped rows: ±1 labels, 14 of 123 one-hot features."""
    keys = rng.random((n_rows, 123))
    idx = np.sort(np.argpartition(keys, 14, axis=1)[:, :14], axis=1) + 1
    pos = rng.random(n_rows) < 0.24
    lines = [("+1 " if p else "-1 ") + ":1 ".join(map(str, row)) + ":1 \n"
             for p, row in zip(pos.tolist(), idx.tolist())]
    return "".join(lines).encode()


def real_block(rng, n_rows=20_000, nnz=50, n_features=100_000):
    """Distinct rows of 50 real values ('%.6g') among 10**5 features."""
    lines = []
    for _ in range(n_rows):
        idx = np.sort(rng.choice(n_features, nnz, replace=False)) + 1
        val = rng.standard_normal(nnz) * 10.0 ** rng.integers(-3, 4, nnz)
        lines.append(("1" if rng.random() < 0.5 else "-1") + " "
                     + " ".join("%d:%.6g" % (j, v)
                                for j, v in zip(idx.tolist(), val.tolist()))
                     + "\n")
    return "".join(lines).encode()


def write_file(path, block, size):
    """Repeat ``block`` into ``path`` up to ``size`` bytes (whole lines)."""
    written = 0
    with open(path, "wb") as fh:
        while written + len(block) <= size:
            fh.write(block)
            written += len(block)
        rest = block[:size - written]
        rest = rest[:rest.rfind(b"\n") + 1]
        fh.write(rest)
        written += len(rest)
    return written


# ----------------------------------------------------------------------------
# The child: one parser over one file
# ----------------------------------------------------------------------------


def rss_kib(field="VmRSS"):
    """Resident set size (``VmRSS``) or its peak (``VmHWM``) in KiB, from
    /proc (``ru_maxrss`` would carry the parent's peak over ``exec``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def iter_chunks(path, chunk_bytes):
    """``(memoryview, offset)`` of whole-line chunks of about
    ``chunk_bytes``, read with ``readinto`` (the view is reused)."""
    buf = bytearray(chunk_bytes)
    view = memoryview(buf)
    carry = 0
    offset = 0
    with open(path, "rb") as fh:
        while True:
            if carry == len(buf):  # a line longer than a chunk: grow
                grown = bytearray(2 * len(buf))
                grown[:carry] = buf
                buf, view = grown, memoryview(grown)
            n = fh.readinto(view[carry:])
            end = carry + n
            if n == 0:
                if end:
                    yield view[:end], offset
                return
            cut = buf.rfind(b"\n", 0, end) + 1
            if cut == 0:
                carry = end
                continue
            yield view[:cut], offset
            offset += cut
            buf[:end - cut] = buf[cut:end]
            carry = end - cut


def child(parser, path, chunk_bytes):
    """Parse ``path`` in chunks with ``parser``; print one JSON line."""
    from sklearn.datasets import load_svmlight_file

    from perceptrons.datasets.svmlight_chunks import parse_svmlight_chunk

    with open(path, "rb") as fh:
        head = fh.read(1 << 16)
    head = head[:head.rfind(b"\n") + 1]
    parse_svmlight_chunk(head)
    load_svmlight_file(io.BytesIO(head), zero_based=True, dtype=np.float64)
    rss_start = rss_kib()
    t_parse = 0.0
    rows = nnz = n_bytes = 0
    line = 1
    t_total = time.perf_counter()
    for view, offset in iter_chunks(path, chunk_bytes):
        n_bytes += len(view)
        if parser == "ours":
            t0 = time.perf_counter()
            res = parse_svmlight_chunk(view, path=path, offset=offset,
                                       first_line=line)
            t_parse += time.perf_counter() - t0
            line += res.n_lines
            rows += res.labels.shape[0]
            nnz += res.data.shape[0]
        else:
            bio = io.BytesIO(view)
            t0 = time.perf_counter()
            X, _ = load_svmlight_file(bio, zero_based=True, dtype=np.float64)
            t_parse += time.perf_counter() - t0
            rows += X.shape[0]
            nnz += X.nnz
            del bio
        res = X = None  # drop the chunk's result before the next read
    t_total = time.perf_counter() - t_total
    peak = rss_kib("VmHWM")
    print(json.dumps({"parse": t_parse, "total": t_total, "bytes": n_bytes,
                      "rows": rows, "nnz": nnz, "rss_start_kib": rss_start,
                      "rss_peak_kib": peak}))


def run_child(parser, path, chunk_bytes):
    out = subprocess.run(
        [sys.executable, __file__, "--child", parser, str(path),
         str(chunk_bytes)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------
# Agreement
# ----------------------------------------------------------------------------


def agree(path, n_bytes=4 * MB):
    """Our parse of the first ``n_bytes`` (whole lines) equals sklearn's."""
    from sklearn.datasets import load_svmlight_file

    from perceptrons.datasets.svmlight_chunks import parse_svmlight_chunk

    with open(path, "rb") as fh:
        buf = fh.read(n_bytes)
    buf = buf[:buf.rfind(b"\n") + 1]
    got = parse_svmlight_chunk(buf)
    X, y = load_svmlight_file(io.BytesIO(buf), zero_based=True,
                              dtype=np.float64)
    return (np.array_equal(got.labels.view(np.int64),
                           np.asarray(y, np.float64).view(np.int64))
            and np.array_equal(got.indptr, X.indptr)
            and np.array_equal(got.indices, X.indices)
            and np.array_equal(got.data.view(np.int64),
                               X.data.view(np.int64)))


# ----------------------------------------------------------------------------
# Report
# ----------------------------------------------------------------------------


def build_report(args, files, runs, checks, loads, total):
    rows = []
    speed = {}
    for name, (path, size) in files.items():
        for parser in PARSERS:
            rs = runs[name][parser]
            parse = [r["bytes"] / r["parse"] / MB for r in rs]
            e2e = [r["bytes"] / r["total"] / MB for r in rs]
            speed[name, parser] = max(parse)
            start = max(r["rss_start_kib"] for r in rs) / 1024
            peak = max(r["rss_peak_kib"] for r in rs) / 1024
            rows.append([
                name if parser == "ours" else "",
                f"{size / MB:.0f}" if parser == "ours" else "",
                f"{rs[0]['rows']:,}" if parser == "ours" else "",
                f"{rs[0]['nnz']:,}" if parser == "ours" else "",
                parser,
                f"**{max(parse):.1f}** ({statistics.median(parse):.1f})",
                f"{max(e2e):.1f} ({statistics.median(e2e):.1f})",
                f"{min(r['parse'] for r in rs):.2f}",
                f"{peak:.0f} (+{peak - start:.0f})",
            ])
    table = C.md_table(
        ["file", "MB", "rows", "nonzeros", "parser",
         "parse MB/s best (median)", "end-to-end MB/s best (median)",
         "parse s (best)", "peak RSS MiB (over start)"], rows)
    a9a = speed["a9a-like", "ours"]
    ratio_rows = [
        [name, f"{speed[name, 'ours'] / speed[name, 'sklearn']:.1f}×"]
        for name in files]
    verdict = ("met" if a9a >= GOAL_MB_S else "**not met**")
    return "\n".join([
        "## svmlight/LIBSVM text: compiled chunk parser vs scikit-learn",
        "",
        C.command_line("bench_svmlight_parser.py", args,
                       f"{args.size_mb} MB files, {args.chunk_mb} MB chunks",
                       f" (`--size-mb {args.size_mb} --chunk-mb "
                       f"{args.chunk_mb}`)"),
        C.machine_description(loads),
        f"- wall time of the benchmark: {total:.0f} s",
        "",
        f"Two generated files of {args.size_mb} MB (1 MB = 10^6 bytes), "
        f"read in chunks of {args.chunk_mb} MB cut after the last newline; "
        "each (file, parser) run is a fresh process, "
        f"{args.repeat} round(s), best run with the median beside it. "
        "Peak RSS: the child's `VmHWM`, beside its RSS after imports "
        "and warm-up.",
        "",
        table,
        "",
        C.md_table(["file", "ours / sklearn (parse MB/s, best runs)"],
                   ratio_rows),
        "",
        f"Goal: ≥ {GOAL_MB_S:.0f} MB/s on the a9a-like file: "
        f"{a9a:.0f} MB/s, {verdict}. Agreement on the first 4 MB of each "
        "file (labels, indptr, indices, data bit for bit): "
        + ", ".join(f"{k} {'yes' if v else '**no**'}"
                    for k, v in checks.items()) + ".",
    ])


def add_arguments(parser):
    parser.add_argument("--size-mb", type=int, default=None,
                        help="size of each generated file in MB (default "
                             "200; quick: 24)")
    parser.add_argument("--chunk-mb", type=int, default=None,
                        help="chunk size in MB (default 64; quick: 8)")
    parser.add_argument("--child", nargs=3, default=None,
                        help=argparse.SUPPRESS)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        child(argv[1], argv[2], int(argv[3]))
        return
    args = C.parse_bench_args(
        argv, __doc__, "2 x 24 MB files in 8 MB chunks, one round",
        (3, 1), (0.0, 0.0), add_arguments)
    args.size_mb = args.size_mb or (24 if args.quick else 200)
    args.chunk_mb = args.chunk_mb or (8 if args.quick else 64)
    t_start = time.time()
    loads = [C.load_average()]
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory(prefix="bench_svmlight_") as tmp:
        files = {}
        for name, block in (("a9a-like", a9a_block(rng)),
                            ("real-valued", real_block(rng))):
            path = Path(tmp) / f"{name}.svm"
            files[name] = (path, write_file(path, block, args.size_mb * MB))
        checks = {name: agree(path) for name, (path, _) in files.items()}
        runs = {name: {p: [] for p in PARSERS} for name in files}
        for _ in range(args.repeat):
            for name, (path, _) in files.items():
                for parser in PARSERS:
                    r = run_child(parser, path, args.chunk_mb * MB)
                    runs[name][parser].append(r)
                    print(f"{name:12s} {parser:8s} "
                          f"{r['bytes'] / r['parse'] / MB:7.1f} MB/s",
                          file=sys.stderr, flush=True)
    loads.append(C.load_average())
    report = build_report(args, files, runs, checks, loads,
                          time.time() - t_start)
    C.publish(report, SECTION, args.write)


if __name__ == "__main__":
    main()
