"""Out of core: how fast does ``fit_file`` stream an svmlight file, beside Vowpal Wabbit?

Question
--------
Issue #14. On an a9a-shaped svmlight file of more than 2 GB (a9a repeated,
about 30 M rows), read in chunks of 64 MiB (``fit_file``'s default;
1 MB = 10^6 bytes, 1 MiB = 2^20 bytes):

* is the peak memory (RSS) of
  ``fit_file(Perceptron(hypothesis="last"), path, max_iter=1 or 3)``
  bounded by the chunk size and not by the file size?
* how long do its first pass (over the text) and each later pass (over its
  binary cache) take, beside the bandwidth floor (the file's bytes divided
  by the speed at which plain Python ``readinto`` reads the same file in
  64 MiB blocks)? And how large is the cache?
* beside Vowpal Wabbit (``vowpalwabbit``, hinge loss, ``--binary``) on the
  same rows in its own text format: goal **ours ≤ 2× VW's first pass over
  the text**, and **ours ≤ VW over 3 passes with its cache** (each writing
  its cache during the first pass);
* are both learners working (accuracy on a9a.t)?

and where our time goes (reading, parsing, checks, cache, ``partial_fit``,
Python per chunk), measured inside the same runs.

Files (written to a temporary folder under ``$TMPDIR`` or /tmp and deleted
at the end, never committed): LIBSVM's a9a (32,561 rows, 123 one-hot
features, 14 ones a row, labels ±1) from ``shared/data``, repeated
``--reps`` times (930: 30.3 M rows, 2.17 GB) and ``--mid-reps`` times
(150: 4.9 M rows, 350 MB); the same rows in VW's text format
(``-1 |f 3:1 11:1 ...``, labels ``1``/``-1``, converted once from a9a and
repeated: conversion is not timed); a9a.t in both formats for the
accuracies.

Command
-------
::

    python benchmarks/bench_streaming.py          # full run (~15 min)
    python benchmarks/bench_streaming.py --write  # ... and BENCHMARKS.md
    python benchmarks/bench_streaming.py --quick  # smoke run (< 1 min)

``--reps``, ``--mid-reps``, ``--chunk-mib`` and ``--repeat`` change the
sizes and rounds; ``--quick`` uses a9a×20 and a9a×5 in 8 MiB chunks, one
round, no extra runs. ``--json FILE`` also writes every measurement.

What is timed
-------------
Every run is a fresh child process, so that its peak RSS (``VmHWM`` from
/proc, which ``exec`` resets) is its own; the table also gives its RSS
after imports and warm-up, and its CPU time (user + system, all threads).

* **ours**: ``fit_file(Perceptron(hypothesis="last"), path,
  n_features=123, classes=[-1, 1], zero_based=False, chunk_bytes=64 MiB,
  max_iter=1 or 3, cache=<path in the temporary folder>)`` after an untimed
  warm-up ``fit_file`` and ``predict_file`` on a9a itself (numba's
  compiled code loaded from its cache). The width, classes and indexing
  are given, so no scan pass runs (VW needs none either). With
  ``max_iter=1`` no cache is written (``fit_file`` writes one only for
  later epochs); with 3 the first epoch writes it and epochs 2 and 3 read
  it. Each epoch is timed from ``fit_file``'s callback. The cache file is
  deleted before each run, so every run starts from the text, and kept
  after the run only to measure its size and read speed.
* **VW**: ``vowpalwabbit.Workspace(arg_list=[...])``, which runs VW's own
  driver on the file (as the ``vw`` command line does), then ``finish()``
  (the model is written): ``-d FILE --loss_function hinge --binary
  --quiet -f MODEL`` for one pass; ``... --passes 3 -c --cache_file C -k
  --holdout_off`` for three (``-k``: the cache is rebuilt from the text in
  pass 1; ``--holdout_off``: VW trains on every row, as ``fit_file`` does,
  instead of holding out one row in ten for early stopping). VW parses in
  a second thread: its CPU time can exceed its wall time.
* **bandwidth floor**: the same file read start to end with ``readinto``
  into one buffer of the chunk size, best of 3, with how much of it was in
  the page cache just before (``fincore``). The text files are (they were
  just written); a cache file may not be, memory permitting (the machine
  is shared; the page cache holds what other processes leave). A run's
  floor is the reads it makes: the text once (one pass), or the text and
  twice the cache file (3 passes; VW: its text and twice its cache).

Rounds run the four timed cases back to back (ours 1 pass, VW 1 pass,
ours 3 passes, VW 3 passes) on each file; the tables give the best run
with the median beside it, and ratios of best runs with the ratios of the
rounds (each pair measured back to back). The 1-minute load average is
recorded before each run (the machine has 2 cores and other jobs run).

Once per file (not timed in rounds): ``hypothesis="averaged"`` (the
default) over 3 passes, for its accuracy; both tools over 3 passes reusing
the cache of a previous run (VW's per-cache-pass time, which its 3-pass
total does not split); and on the large file one pass in 16 MiB chunks
(peak RSS against the chunk size).

Profile. In our runs the functions of :mod:`perceptrons.streaming` and
``Perceptron`` are wrapped with timers (a few calls per chunk, so the
wrappers cost microseconds): reading and cutting the text
(``_line_chunks``), parsing (``parse_svmlight_chunk``), checks and index
conversion (the rest of ``_text_blocks``), appending to the cache
(``_CacheWriter.add``), reading a cache block (``_cache_blocks``), CRC-32
(within the last two), building the CSR matrix (``_Block.csr``),
``partial_fit`` split into validation (``validate_input``), label
encoding (``call_targets``), the compiled pass (``train``) and the rest;
"other" is the epoch minus all of these (the loop, the cache's finish).
"""

import os

for _var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
             "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import gzip  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The children import only what they run (their RSS after imports is
# reported): _common imports the package, numba and scikit-learn.
if sys.argv[1:2] != ["--child"]:
    import _common as C  # noqa: E402

    from perceptrons.streaming import DEFAULT_CHUNK_BYTES  # noqa: E402

SECTION = "bench_streaming"
TITLE = "## Out of core: streaming an svmlight file (vs Vowpal Wabbit)"
MB = 10**6
MiB = 2**20
GOAL_FIRST_PASS = 2.0   # ours / VW, one pass over the text
GOAL_THREE_PASSES = 1.0  # ours / VW, three passes with their caches


# ----------------------------------------------------------------------------
# Data
# ----------------------------------------------------------------------------


def _data_dir():
    """The folder holding ``a9a.gz`` and ``a9a.t.gz`` (``PERCEPTRONS_DATA``,
    else the ``shared/data`` beside the repository, as ``load_named``)."""
    candidates = []
    if os.environ.get("PERCEPTRONS_DATA"):
        candidates.append(Path(os.environ["PERCEPTRONS_DATA"]))
    root = C.REPO_ROOT
    candidates += [root.parent / "shared" / "data", root / "shared" / "data",
                   Path("/work/shared/data")]
    for base in candidates:
        for sub in (base / "libsvm", base):
            if (sub / "a9a.gz").exists() and (sub / "a9a.t.gz").exists():
                return sub
    raise SystemExit("a9a.gz and a9a.t.gz not found (set PERCEPTRONS_DATA)")


def svm_to_vw(text):
    """svmlight lines (``+1 3:1 11:1 \\n``) as VW lines
    (``1 |f 3:1 11:1\\n``)."""
    out = []
    for line in text.split(b"\n"):
        line = line.split(b"#", 1)[0].strip()
        if not line:
            continue
        label, _, feats = line.partition(b" ")
        label = b"1" if float(label) > 0 else b"-1"
        out.append(label + b" |f " + feats.strip() + b"\n")
    return b"".join(out)


def write_repeated(path, block, reps):
    with open(path, "wb") as fh:
        for _ in range(reps):
            fh.write(block)
    return path.stat().st_size


def resident_bytes(path):
    """Bytes of ``path`` in the page cache (``fincore``), or None."""
    exe = shutil.which("fincore")
    if exe is None or not Path(path).exists():
        return None
    try:
        out = subprocess.run([exe, "--bytes", "--noheadings", "--output",
                              "RES", str(path)], capture_output=True,
                             text=True, check=True).stdout.split()
        return int(out[0])
    except (OSError, subprocess.CalledProcessError, ValueError, IndexError):
        return None


def cold_read_speed(path, block):
    """One read of ``path`` after dropping its pages from the page cache
    (``fsync``, then ``posix_fadvise(POSIX_FADV_DONTNEED)`` on this file
    only): the disk's speed, not the page cache's."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    return read_speed(path, block, repeat=1)


def read_speed(path, block, repeat=3):
    """Best time to read ``path`` with ``readinto`` into one ``block``-byte
    buffer, and the fraction resident in the page cache before each read."""
    buf = bytearray(block)
    view = memoryview(buf)
    size = Path(path).stat().st_size
    best, resident = float("inf"), []
    for _ in range(repeat):
        res = resident_bytes(path)
        resident.append(None if res is None else res / max(size, 1))
        t0 = time.perf_counter()
        with open(path, "rb", buffering=0) as fh:
            while fh.readinto(view):
                pass
        best = min(best, time.perf_counter() - t0)
    return {"bytes": size, "seconds": best, "gb_s": size / best / 1e9,
            "resident": resident, "load": C.load_average()}


# ----------------------------------------------------------------------------
# Children
# ----------------------------------------------------------------------------


def rss_kib(field="VmRSS"):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def cpu_seconds():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime, ru.ru_utime, ru.ru_stime


class _Profile:
    """Seconds spent in wrapped functions, per epoch."""

    def __init__(self):
        self.acc = {}
        self.calls = {}

    def add(self, key, seconds):
        self.acc[key] = self.acc.get(key, 0.0) + seconds
        self.calls[key] = self.calls.get(key, 0) + 1

    def take(self):
        acc, calls = self.acc, self.calls
        self.acc, self.calls = {}, {}
        return acc, calls

    def func(self, key, fn):
        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.add(key, time.perf_counter() - t0)
        return timed

    def gen(self, key, fn):
        """A generator function whose ``next`` calls are timed."""
        def timed(*args, **kwargs):
            it = fn(*args, **kwargs)
            try:
                while True:
                    t0 = time.perf_counter()
                    try:
                        item = next(it)
                    except StopIteration:
                        self.add(key, time.perf_counter() - t0)
                        return
                    self.add(key, time.perf_counter() - t0)
                    yield item
            finally:
                it.close()
        return timed


def _instrument(prof, cls):
    """Wrap the streaming functions and ``cls``' partial_fit steps."""
    import types
    import zlib

    from perceptrons import streaming as S
    from perceptrons.streaming import _cache, _text

    # Each name is replaced where its callers look it up.
    _text._line_chunks = prof.gen("read text", _text._line_chunks)
    _text.parse_svmlight_chunk = prof.func("parse",
                                           _text.parse_svmlight_chunk)
    S._text_blocks = prof.gen("text blocks", S._text_blocks)
    S._cache_blocks = prof.gen("cache read", S._cache_blocks)
    _cache._CacheWriter.add = prof.func("cache write",
                                        _cache._CacheWriter.add)
    _text._Block.csr = prof.func("csr", _text._Block.csr)
    _cache.zlib = types.SimpleNamespace(crc32=prof.func("crc32",
                                                        zlib.crc32))
    from perceptrons.models._driver import training

    cls.partial_fit = prof.func("partial_fit", cls.partial_fit)
    # The driver's steps, where training.partial_fit looks them up.
    for name, key in (("validate_input", "pf: validate"),
                      ("call_targets", "pf: labels"),
                      ("train", "pf: compiled pass")):
        setattr(training, name, prof.func(key, getattr(training, name)))


def child_ours(spec):
    """One ``fit_file`` run; prints a JSON line."""
    import numpy as np

    from perceptrons import Perceptron
    from perceptrons.streaming import fit_file, predict_file

    warm_cache = Path(spec["cache"] + ".warm")
    for hyp in ("last", "averaged"):
        est = fit_file(Perceptron(hypothesis=hyp, max_iter=2), spec["warm"],
                       n_features=123, classes=[-1.0, 1.0], zero_based=False,
                       chunk_bytes=spec["chunk_bytes"], max_iter=2,
                       cache=warm_cache)
        predict_file(est, spec["test"], zero_based=False)
        warm_cache.unlink()
    rss_start = rss_kib()
    prof = _Profile()
    _instrument(prof, Perceptron)
    epochs = []
    cpu0 = cpu_seconds()
    t_start = time.perf_counter()
    last = [t_start]

    def callback(est, info):
        now = time.perf_counter()
        acc, calls = prof.take()
        epochs.append({"epoch": info.epoch, "source": info.source,
                       "seconds": now - last[0], "rows": info.n_rows,
                       "blocks": info.n_blocks, "profile": acc,
                       "calls": calls})
        last[0] = time.perf_counter()

    est = fit_file(Perceptron(hypothesis=spec["hypothesis"],
                              max_iter=spec["passes"]),
                   spec["path"], n_features=123, classes=[-1.0, 1.0],
                   zero_based=False, chunk_bytes=spec["chunk_bytes"],
                   max_iter=spec["passes"],
                   cache=spec["cache"] if spec["passes"] > 1 else None,
                   callback=callback)
    total = time.perf_counter() - t_start
    cpu1 = cpu_seconds()
    peak = rss_kib("VmHWM")
    acc = predict_file(est, spec["test"], zero_based=False).accuracy
    print(json.dumps({
        "seconds": total, "epochs": epochs, "rss_start_kib": rss_start,
        "rss_peak_kib": peak, "cpu": cpu1[0] - cpu0[0],
        "cpu_user": cpu1[1] - cpu0[1], "cpu_sys": cpu1[2] - cpu0[2],
        "accuracy": acc, "n_updates": int(np.sum(est.n_updates_))}))


def child_vw(spec):
    """One VW run (its own driver over the file); prints a JSON line."""
    import numpy as np
    import vowpalwabbit

    rss_start = rss_kib()
    cpu0 = cpu_seconds()
    t0 = time.perf_counter()
    vw = vowpalwabbit.Workspace(arg_list=spec["args"])
    vw.finish()
    total = time.perf_counter() - t0
    cpu1 = cpu_seconds()
    peak = rss_kib("VmHWM")
    pred = spec["model"] + ".pred"
    vw = vowpalwabbit.Workspace(arg_list=["-t", "-i", spec["model"], "-d",
                                          spec["test"], "-p", pred,
                                          "--quiet"])
    vw.finish()
    p = np.loadtxt(pred)
    with open(spec["test"]) as fh:
        y = np.array([float(line.split(None, 1)[0]) for line in fh])
    os.remove(pred)
    print(json.dumps({
        "seconds": total, "rss_start_kib": rss_start, "rss_peak_kib": peak,
        "cpu": cpu1[0] - cpu0[0], "cpu_user": cpu1[1] - cpu0[1],
        "cpu_sys": cpu1[2] - cpu0[2],
        "accuracy": float(np.mean(p == y)) if p.shape == y.shape else None}))


def run_child(spec, log):
    path = spec.get("path") or spec["args"][spec["args"].index("-d") + 1]
    resident = resident_bytes(path)
    load = C.load_average()
    out = subprocess.run([sys.executable, __file__, "--child",
                          json.dumps(spec)], capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"child failed: {spec}\n{out.stderr}")
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["load"] = load
    res["load_after"] = C.load_average()
    res["resident"] = (None if resident is None
                       else resident / Path(path).stat().st_size)
    log(f"{spec['label']}: {res['seconds']:.2f} s, peak RSS "
        f"{res['rss_peak_kib'] / 1024:.0f} MiB, load {load}, accuracy "
        f"{res['accuracy']}")
    return res


# ----------------------------------------------------------------------------
# The runs
# ----------------------------------------------------------------------------


def ours_spec(f, tmp, files, passes, chunk_bytes, label,
              hypothesis="last"):
    return {"tool": "ours", "label": label, "path": str(f["svm"]),
            "passes": passes, "chunk_bytes": chunk_bytes,
            "hypothesis": hypothesis, "cache": str(tmp / "ours.pcache"),
            "warm": str(files["warm"]), "test": str(files["test_svm"])}


def vw_spec(f, tmp, files, passes, label, reuse=False):
    model = str(tmp / "vw.model")
    args = ["-d", str(f["vw"]), "--loss_function", "hinge", "--binary",
            "--quiet", "-f", model]
    if passes > 1:
        args += ["--passes", str(passes), "-c", "--cache_file",
                 str(tmp / "vw.cache"), "--holdout_off"]
        if not reuse:
            args.append("-k")
    return {"tool": "vw", "label": label, "args": args, "model": model,
            "test": str(files["test_vw"])}


def remove(*paths):
    for p in paths:
        try:
            os.remove(p)
        except FileNotFoundError:
            pass


def measure_file(name, f, tmp, files, args, rounds, extras, log):
    """The rounds and extra runs on one file; returns a dict of results."""
    ours_cache, vw_cache = tmp / "ours.pcache", tmp / "vw.cache"
    res = {"runs": {k: [] for k in ("ours1", "vw1", "ours3", "vw3")},
           "extra": {}}
    res["floor_text"] = read_speed(f["svm"], args.chunk_bytes)
    res["floor_vw_text"] = read_speed(f["vw"], args.chunk_bytes)
    log(f"{name}: text read at {res['floor_text']['gb_s']:.2f} GB/s "
        f"(resident {res['floor_text']['resident']})")
    for r in range(rounds):
        remove(ours_cache, vw_cache)
        res["runs"]["ours1"].append(run_child(ours_spec(
            f, tmp, files, 1, args.chunk_bytes, f"{name} ours 1 pass"), log))
        res["runs"]["vw1"].append(run_child(vw_spec(
            f, tmp, files, 1, f"{name} VW 1 pass"), log))
        res["runs"]["ours3"].append(run_child(ours_spec(
            f, tmp, files, 3, args.chunk_bytes, f"{name} ours 3 passes"),
            log))
        if r == 0:
            res["ours_cache_bytes"] = ours_cache.stat().st_size
            res["ours_cache_resident_after"] = (
                (resident_bytes(ours_cache) or 0) / ours_cache.stat().st_size)
            res["floor_cache"] = read_speed(ours_cache, args.chunk_bytes)
            if extras:
                res["extra"]["ours3 reuse"] = run_child(ours_spec(
                    f, tmp, files, 3, args.chunk_bytes,
                    f"{name} ours 3 passes, cache reused"), log)
        remove(ours_cache)
        res["runs"]["vw3"].append(run_child(vw_spec(
            f, tmp, files, 3, f"{name} VW 3 passes"), log))
        if r == 0:
            res["vw_cache_bytes"] = vw_cache.stat().st_size
            res["floor_vw_cache"] = read_speed(vw_cache, args.chunk_bytes)
            if extras:
                res["extra"]["vw3 reuse"] = run_child(vw_spec(
                    f, tmp, files, 3, f"{name} VW 3 passes, cache reused",
                    reuse=True), log)
        remove(vw_cache)
    if extras:
        res["extra"]["ours3 averaged"] = run_child(ours_spec(
            f, tmp, files, 3, args.chunk_bytes,
            f"{name} ours averaged 3 passes", hypothesis="averaged"), log)
        remove(ours_cache)
        if f.get("small_chunk"):
            res["extra"]["ours1 small chunk"] = run_child(ours_spec(
                f, tmp, files, 1, f["small_chunk"],
                f"{name} ours 1 pass, {f['small_chunk'] // MiB} MiB chunks"),
                log)
    return res


# ----------------------------------------------------------------------------
# Report
# ----------------------------------------------------------------------------


def _best(runs, key="seconds"):
    xs = [r[key] for r in runs]
    return min(xs), statistics.median(xs)


def _sec(x):
    """Seconds with 3 significant digits or so."""
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}" if x >= 0.1 else f"{x:.3f}"


def _pct(x):
    return "?" if x is None else f"{100 * x:.0f} %"


def _loads(runs):
    xs = [r["load"] for r in runs if r.get("load") is not None]
    return ", ".join(f"{x:.1f}" for x in xs) or "?"


def _mib(kib):
    return kib / 1024


def _floor(r, key):
    """Seconds a run's reads take at the measured read speeds: the text
    once per text pass, the cache file once per cached pass."""
    t, c = r["floor_text"]["seconds"], r["floor_cache"]["seconds"]
    vt, vc = r["floor_vw_text"]["seconds"], r["floor_vw_cache"]["seconds"]
    return {"ours1": t, "vw1": vt, "ours3": t + 2 * c, "vw3": vt + 2 * vc,
            "ours3 reuse": 3 * c, "vw3 reuse": 3 * vc,
            "ours3 averaged": t + 2 * c, "ours1 small chunk": t}[key]


def _epoch_parts(ep):
    """Seconds of an epoch by part (exclusive), from the profile."""
    p = ep["profile"]
    g = p.get
    parts = {"read + cut text": g("read text", 0.0),
             "parse": g("parse", 0.0)}
    parts["checks + int32 indices"] = (g("text blocks", 0.0)
                                       - parts["read + cut text"]
                                       - parts["parse"])
    parts["cache write"] = g("cache write", 0.0)
    parts["cache read"] = g("cache read", 0.0)
    parts["CSR matrix"] = g("csr", 0.0)
    parts["partial_fit"] = g("partial_fit", 0.0)
    parts["other"] = ep["seconds"] - sum(parts.values())
    parts["crc"] = g("crc32", 0.0)
    parts["pf validate"] = g("pf: validate", 0.0)
    parts["pf labels"] = g("pf: labels", 0.0)
    parts["pf compiled"] = g("pf: compiled pass", 0.0)
    parts["pf rest"] = (parts["partial_fit"] - parts["pf validate"]
                        - parts["pf labels"] - parts["pf compiled"])
    return parts


def _profile_rows(name, run):
    rows = []
    for ep in run["epochs"]:
        q = _epoch_parts(ep)
        text = ep["source"] == "text"

        def cell(key, show=True):
            return f"{q[key]:.2f}" if show else "–"
        rows.append([
            name, f"{ep['epoch']} ({ep['source']})",
            f"**{ep['seconds']:.2f}**",
            cell("read + cut text", text), cell("parse", text),
            cell("checks + int32 indices", text),
            cell("cache write", text and q["cache write"] > 0),
            cell("cache read", not text), cell("crc", q["crc"] > 0),
            cell("CSR matrix"),
            f"{q['partial_fit']:.2f} ({q['pf validate']:.2f} / "
            f"{q['pf labels']:.2f} / {q['pf compiled']:.2f} / "
            f"{q['pf rest']:.2f})",
            cell("other"), ep["blocks"]])
    return rows


RUN_KEYS = (("ours1", "ours", 1), ("vw1", "VW", 1), ("ours3", "ours", 3),
            ("vw3", "VW", 3))
EXTRA_KEYS = (("ours3 reuse", "ours, cache reused", 3),
              ("vw3 reuse", "VW, cache reused", 3),
              ("ours3 averaged", "ours, hypothesis=\"averaged\"", 3),
              ("ours1 small chunk", "ours, 16 MiB chunks", 1))


def _run_row(name, f, r, key, label, passes, runs):
    b, m = _best(runs)
    if "epochs" in runs[0]:
        per = []
        for i, ep in enumerate(runs[0]["epochs"]):
            ts = [x["epochs"][i]["seconds"] for x in runs]
            ref = (r["floor_text"] if ep["source"] == "text"
                   else r["floor_cache"])["seconds"]
            per.append(f"{i + 1} ({ep['source']}): {min(ts):.2f}"
                       + (f" ({statistics.median(ts):.2f})" if len(ts) > 1
                          else "") + f", {min(ts) / ref:.0f}×")
        per = "; ".join(per)
    elif key == "vw3 reuse":
        per = f"{b / 3:.2f} per cached pass"
    else:
        per = "–"
    text_bytes = f["svm_bytes"] if label.startswith("ours") else f["vw_bytes"]
    peak = max(x["rss_peak_kib"] for x in runs)
    start = max(x["rss_start_kib"] for x in runs)
    acc = runs[0]["accuracy"]
    return [name, label, passes,
            f"**{b:.2f}**" + (f" ({m:.2f})" if len(runs) > 1 else ""),
            per,
            f"{text_bytes / b / MB:.0f}" if passes == 1 else "–",
            f"{b / _floor(r, key):.0f}×",
            f"{_mib(peak):.0f} (+{_mib(peak - start):.0f})",
            f"{min(x['cpu'] for x in runs):.1f}",
            "–" if acc is None else f"{acc:.4f}", _loads(runs)]


def build_report(args, files, results, loads, total):
    import vowpalwabbit

    chunk = f"{args.chunk_mib} MiB"
    out = [TITLE, ""]
    out.append(C.command_line(
        "bench_streaming.py", args,
        f"a9a×{args.reps} and a9a×{args.mid_reps}, {chunk} chunks, one "
        "round",
        extra=f" (`--reps {args.reps} --mid-reps {args.mid_reps} "
              f"--chunk-mib {args.chunk_mib}`)"))
    out.append("")
    out.append(C.machine_description(loads))
    out.append(f"- vowpalwabbit {vowpalwabbit.__version__} (the Python "
               "package, its own driver); wall time of the benchmark "
               f"{total / 60:.1f} min")
    out.append("")
    out.append(
        "Question (issue #14): is the peak RSS of `fit_file` bounded by the "
        "chunk, not the file; how do its first pass over the text and its "
        "cached passes compare with the bandwidth floor; and, on the same "
        f"rows, is its first pass ≤ {GOAL_FIRST_PASS:g}× Vowpal Wabbit's "
        "and are its 3 passes ≤ VW's 3 passes with its cache? Ours: "
        "`fit_file(Perceptron(hypothesis=\"last\"), path, n_features=123, "
        f"classes=[-1, 1], zero_based=False)` (no scan pass), {chunk} "
        "chunks"
        + (" (the default)" if args.chunk_bytes == DEFAULT_CHUNK_BYTES
           else "")
        + ", a cache file for 3 passes; VW: `-d FILE "
        "--loss_function hinge --binary`, for 3 passes `--passes 3 -c -k "
        "--holdout_off`. Every run is its own process; times are best of "
        "the rounds with the median in parentheses; the load column is "
        "the 1-minute load average before each run (2 cores, other jobs "
        "running).")
    out.append("")

    rows = []
    for name, f in files.items():
        r = results[name]
        ft, fv = r["floor_text"], r["floor_vw_text"]
        fc, fvc = r["floor_cache"], r["floor_vw_cache"]
        rows.append([
            name, f"{f['rows']:,}", f"{f['nnz']:,}",
            f"{f['svm_bytes'] / MB:,.0f}",
            f"{ft['gb_s']:.2f} GB/s, **{_sec(ft['seconds'])} s** "
            f"({_pct(ft['resident'][0])})",
            (f"{r['cold_text']['gb_s']:.2f} GB/s, "
             f"{_sec(r['cold_text']['seconds'])} s"
             if r.get("cold_text") else "–"),
            f"**{r['ours_cache_bytes'] / MB:,.0f}** "
            f"({r['ours_cache_bytes'] / f['svm_bytes']:.2f}× the text)",
            f"{fc['gb_s']:.2f} GB/s, {_sec(fc['seconds'])} s "
            f"({_pct(fc['resident'][0])})",
            f"{f['vw_bytes'] / MB:,.0f}; {_sec(fv['seconds'])} s",
            f"{r['vw_cache_bytes'] / MB:,.0f} "
            f"({r['vw_cache_bytes'] / f['vw_bytes']:.2f}× its text); "
            f"{_sec(fvc['seconds'])} s"])
    out.append("### Files and the bandwidth floor")
    out.append("")
    out.append(C.md_table(
        ["file", "rows", "nonzeros", "svmlight MB", f"read in {chunk} "
         "`readinto` blocks, best of 3 (in page cache before)",
         "the same from the disk (after the runs)",
         "our cache MB", "its read (in page cache after the run)",
         "VW text MB; its read", "VW cache MB; its read"], rows))
    out.append("")

    rows = []
    for name, f in files.items():
        r = results[name]
        for key, label, passes in RUN_KEYS:
            rows.append(_run_row(name, f, r, key, label, passes,
                                 r["runs"][key]))
        for key, label, passes in EXTRA_KEYS:
            if key in r["extra"]:
                rows.append(_run_row(name, f, r, key, label, passes,
                                     [r["extra"][key]]))
    out.append("### Runs")
    out.append("")
    out.append(C.md_table(
        ["file", "run", "passes", "wall s", "our passes: s, × the floor "
         "of that pass", "text MB/s", "÷ floor of its reads",
         "peak RSS MiB (over start)", "CPU s", "a9a.t accuracy",
         "load before"], rows))
    out.append("")

    rows, verdicts = [], {}
    for name, f in files.items():
        runs = results[name]["runs"]
        for key, vkey, goal, label in (
                ("ours1", "vw1", GOAL_FIRST_PASS, "first pass over the text"),
                ("ours3", "vw3", GOAL_THREE_PASSES,
                 "3 passes, each with its cache")):
            ratio = _best(runs[key])[0] / _best(runs[vkey])[0]
            rounds = [a["seconds"] / b["seconds"]
                      for a, b in zip(runs[key], runs[vkey])]
            verdicts[name, label] = ratio <= goal
            rows.append([name, label, f"≤ {goal:g}", f"**{ratio:.2f}**",
                         ", ".join(f"{x:.2f}" for x in rounds),
                         "met" if ratio <= goal else "**not met**"])
    out.append("### Goals: ours ÷ VW")
    out.append("")
    out.append(C.md_table(["file", "goal", "target", "best ÷ best",
                           "each round (back to back)", "verdict"], rows))
    out.append("")

    rows = []
    for name, f in files.items():
        r = results[name]
        cases = [(chunk, r["runs"]["ours1"] + r["runs"]["ours3"],
                  args.chunk_bytes)]
        if "ours1 small chunk" in r["extra"]:
            cases.append((f"{f['small_chunk'] // MiB} MiB",
                          [r["extra"]["ours1 small chunk"]],
                          f["small_chunk"]))
        for label, runs, size in cases:
            peak = max(x["rss_peak_kib"] for x in runs) * 1024
            start = max(x["rss_start_kib"] for x in runs) * 1024
            rows.append([name, f"{f['svm_bytes'] / MB:,.0f}", f"ours, {label}",
                         f"**{peak / MiB:.0f}**",
                         f"{(peak - start) / MiB:.0f}",
                         f"{(peak - start) / size:.1f}×",
                         f"{peak / f['svm_bytes']:.3f}"])
        vw = r["runs"]["vw1"] + r["runs"]["vw3"]
        peak = max(x["rss_peak_kib"] for x in vw) * 1024
        start = max(x["rss_start_kib"] for x in vw) * 1024
        rows.append([name, f"{f['vw_bytes'] / MB:,.0f}", "VW",
                     f"{peak / MiB:.0f}", f"{(peak - start) / MiB:.0f}", "–",
                     f"{peak / f['vw_bytes']:.3f}"])
    out.append("### Memory: peak RSS against the chunk and the file")
    out.append("")
    out.append(C.md_table(
        ["file", "file MB", "run", "peak RSS MiB", "over start MiB",
         "over start ÷ chunk", "peak ÷ file"], rows))
    out.append("")

    rows = []
    for name in files:
        runs = results[name]["runs"]
        rows += _profile_rows(f"{name}, 1 pass",
                              min(runs["ours1"], key=lambda x: x["seconds"]))
        rows += _profile_rows(f"{name}, 3 passes",
                              min(runs["ours3"], key=lambda x: x["seconds"]))
    out.append("### Where our time goes (seconds; the best run of each case)")
    out.append("")
    out.append(C.md_table(
        ["run", "epoch", "epoch", "read + cut text", "parse",
         "checks + int32 indices", "cache write", "cache read",
         "CRC-32 (within write / read)", "CSR matrix",
         "partial_fit (validate / labels / compiled pass / rest)", "other",
         "chunks"], rows))
    out.append("")
    out.append(_reading(args, files, results))
    return "\n".join(out), verdicts


def _reading(args, files, results):
    """A paragraph of the main numbers, computed (on the largest file)."""
    name = list(files)[-1]
    f, r = files[name], results[name]
    runs = r["runs"]
    one = min(runs["ours1"], key=lambda x: x["seconds"])
    three = min(runs["ours3"], key=lambda x: x["seconds"])
    q1 = _epoch_parts(one["epochs"][0])
    t1 = one["epochs"][0]["seconds"]
    cached = [_epoch_parts(ep) for ep in three["epochs"][1:]]
    tc = [ep["seconds"] for ep in three["epochs"][1:]]
    vw1 = _best(runs["vw1"])[0]
    peaks = {n: max(x["rss_peak_kib"] for x in results[n]["runs"]["ours1"]
                    + results[n]["runs"]["ours3"]) / 1024 for n in files}
    spread = max(peaks.values()) / min(peaks.values()) - 1
    q3 = _epoch_parts(three["epochs"][0])
    cold = ""
    if r.get("cold_text"):
        c = r["cold_text"]
        cold = (f" Read from the disk instead (after `fsync` and "
                "`posix_fadvise(DONTNEED)` on the file alone, "
                f"{_pct(c['resident'][0])} left in the page cache), the text "
                f"takes {_sec(c['seconds'])} s ({c['gb_s']:.2f} GB/s): the "
                f"first pass is {t1 / c['seconds']:.0f}× that floor too.")

    def both(key):
        return " and ".join(_sec(q[key]) for q in cached)
    return (
        f"Reading the tables ({name}): the first pass reads "
        f"{f['svm_bytes'] / MB / t1:.0f} MB of text a second "
        f"(VW {f['vw_bytes'] / MB / vw1:.0f}); of its {_sec(t1)} s, parsing "
        f"takes {_sec(q1['parse'])} s ({100 * q1['parse'] / t1:.0f} %), "
        f"reading and cutting the text {_sec(q1['read + cut text'])} s (the "
        f"floor reads the file in {_sec(r['floor_text']['seconds'])} s), "
        "checks and the int32 copy of the indices "
        f"{_sec(q1['checks + int32 indices'])} s, `partial_fit` "
        f"{_sec(q1['partial_fit'])} s (its compiled pass "
        f"{_sec(q1['pf compiled'])} s). Appending to the cache "
        f"({r['ours_cache_bytes'] / f['svm_bytes']:.2f}× the text: float64 "
        "labels and values, int32 indices) takes "
        f"{_sec(q3['cache write'])} s of the first of 3 passes "
        f"({_sec(three['epochs'][0]['seconds'])} s). The cached passes take "
        + " and ".join(f"{_sec(t)} s" for t in tc)
        + f" (reading the cache file: {_sec(r['floor_cache']['seconds'])} "
        f"s), of which reading the blocks {both('cache read')} s (CRC-32 "
        f"{both('crc')}), building the CSR matrices {both('CSR matrix')} s, "
        f"`partial_fit` {both('partial_fit')} s. Peak RSS with "
        f"{args.chunk_mib} MiB chunks: "
        + ", ".join(f"{peaks[n]:.0f} MiB on {n} "
                    f"({files[n]['svm_bytes'] / MB:,.0f} MB)" for n in files)
        + (f" (within {100 * spread:.1f} %)." if len(files) > 1 else "")
        + cold)


# ----------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------


def add_arguments(parser):
    parser.add_argument("--reps", type=int, default=None,
                        help="copies of a9a in the large file (default 930, "
                             "2.17 GB; quick: 20)")
    parser.add_argument("--mid-reps", type=int, default=None,
                        help="copies of a9a in the second file (default 150, "
                             "350 MB; quick: 5; 0: none)")
    parser.add_argument("--chunk-mib", type=int, default=None,
                        help="chunk size in MiB (default 64, fit_file's "
                             "default; quick: 8)")
    parser.add_argument("--json", default=None,
                        help="also write every measurement to this file")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        spec = json.loads(argv[1])
        (child_ours if spec["tool"] == "ours" else child_vw)(spec)
        return
    args = C.parse_bench_args(
        argv, __doc__, "a9a×20 and a9a×5 in 8 MiB chunks, one round",
        (2, 1), (0.0, 0.0), add_arguments)
    args.reps = args.reps or (20 if args.quick else 930)
    if args.mid_reps is None:
        args.mid_reps = 5 if args.quick else 150
    args.chunk_mib = args.chunk_mib or (8 if args.quick
                                        else DEFAULT_CHUNK_BYTES // MiB)
    args.chunk_bytes = args.chunk_mib * MiB
    extras = not args.quick
    t_start = time.perf_counter()
    loads = [C.load_average()]

    def log(msg):
        print(f"[{time.perf_counter() - t_start:7.1f}s] {msg}",
              file=sys.stderr, flush=True)

    data = _data_dir()
    train = gzip.open(data / "a9a.gz").read()
    test = gzip.open(data / "a9a.t.gz").read()
    n_rows = sum(1 for line in train.split(b"\n") if line.strip())
    nnz = train.count(b":")
    train_vw = svm_to_vw(train)
    with tempfile.TemporaryDirectory(prefix="bench_streaming_") as tmp:
        tmp = Path(tmp)
        files = {"warm": tmp / "a9a.svm", "test_svm": tmp / "a9a.t.svm",
                 "test_vw": tmp / "a9a.t.vw"}
        files["warm"].write_bytes(train)
        files["test_svm"].write_bytes(test)
        files["test_vw"].write_bytes(svm_to_vw(test))
        cases, results = {}, {}
        sizes = [(args.mid_reps, None), (args.reps, 16 * MiB)]
        for i, (reps, small_chunk) in enumerate(sizes):
            if reps <= 0:
                continue
            # Each file is written just before its runs and deleted after
            # them, so that the page cache holds one file pair at a time.
            name = f"a9a×{reps}"
            t0 = time.perf_counter()
            f = {"svm": tmp / f"a9a_x{reps}.svm",
                 "vw": tmp / f"a9a_x{reps}.vw",
                 "rows": n_rows * reps, "nnz": nnz * reps,
                 "small_chunk": small_chunk if extras else None}
            f["svm_bytes"] = write_repeated(f["svm"], train, reps)
            f["vw_bytes"] = write_repeated(f["vw"], train_vw, reps)
            log(f"wrote {name}: {f['svm_bytes'] / MB:,.0f} MB svmlight, "
                f"{f['vw_bytes'] / MB:,.0f} MB VW text in "
                f"{time.perf_counter() - t0:.1f} s")
            cases[name] = f
            # The smaller file's rounds are cheap: at least 3 of them.
            rounds = (max(args.repeat, 3) if i == 0 and not args.quick
                      else args.repeat)
            results[name] = measure_file(name, f, tmp, files, args, rounds,
                                         extras, log)
            if hasattr(os, "posix_fadvise"):
                results[name]["cold_text"] = cold_read_speed(
                    f["svm"], args.chunk_bytes)
                log(f"{name}: text read from disk at "
                    f"{results[name]['cold_text']['gb_s']:.2f} GB/s")
            remove(f["svm"], f["vw"])
        loads.append(C.load_average())
        report, verdicts = build_report(args, cases, results, loads,
                                        time.perf_counter() - t_start)
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"args": vars(args), "results": results, "loads": loads,
             "seconds": time.perf_counter() - t_start,
             "files": {k: {kk: str(vv) for kk, vv in f.items()}
                       for k, f in cases.items()}}, indent=1))
    log("done")
    C.publish(report, SECTION, args.write)


if __name__ == "__main__":
    main()
