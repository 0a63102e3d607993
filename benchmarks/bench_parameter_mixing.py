"""Does iterative parameter mixing scale out on Dask, what does an epoch's mixing cost, and is it as accurate?

Question
--------
Issue #14's performance goals for :class:`perceptrons.distributed.ParameterMixing`
(McDonald, Hall & Mann 2010, Alg. 2), one pass of the estimator's compiled
loop per shard and epoch, the states mixed on the client:

1. **Scaling.** On a generated click-log-shaped sparse binary set (39 one-hot
   fields, one feature per field and row, Zipf-like feature frequencies,
   labels from a hidden hyperplane with 5 % flipped), the wall time of one
   epoch of ``ParameterMixing(Perceptron(hypothesis="averaged",
   shuffle=False))`` on a ``LocalCluster(n_workers=k, threads_per_worker=1,
   processes=True)`` for k = 1 (S = 1 and S = 2 shards) and k = 2 (S = 2),
   the serial ``Perceptron.fit`` epoch on the same rows beside them, and the
   ratio 1 worker ÷ 2 workers (goal ≥ 1.7).
2. **Mixing and broadcast overhead.** The fixed cost of an epoch: the same
   model size on shards of 2 rows each, so that the pass itself is nothing
   and what remains is sending the start to every shard, gathering the
   states and mixing them. As a percentage of item 1's epoch (goal ≤ 10 %
   for a 10^6-feature model), and where the time goes (client: submit,
   gather, mixing; worker: the task's compute, split into its parts;
   transport: the bytes of the start and of the states and what Dask takes
   to move them).
3. **Accuracy.** IPM with S = 2, 4, 8 shards, uniform and mistake-weighted
   mixing, against the serial ``fit``: a9a → a9a.t, w8a → a held-out part of
   w8a (w8a.t is not in the data folder), MNIST one-vs-rest (pixels / 255) →
   MNIST test; ``Perceptron(random_state=0)`` (averaged hypothesis, shuffled
   epochs) and the same with ``hypothesis="last"``; test accuracy after
   every epoch 1..10, final difference to serial in points (goal: within 1),
   epochs to converge.
4. **Projection.** From the measured per-shard rate and model sizes, the
   epoch time and network bytes of an epoch at 100 workers for a 1 TB
   svmlight click log with 10^7 features, and where that projection breaks.

Command
-------
::

    python benchmarks/bench_parameter_mixing.py           # ~20 min on 2 idle cores
    python benchmarks/bench_parameter_mixing.py --write   # ... and BENCHMARKS.md
    python benchmarks/bench_parameter_mixing.py --quick   # smoke run (< 2 min)

The full run writes ``reports/scale_out/`` (README.md, results.json,
accuracy.csv, timings.csv, accuracy.png); ``--quick`` writes the same files
to ``/tmp/bench_parameter_mixing_quick`` unless ``--out-dir`` is given.
``--scaling-cases``, ``--overhead-features``, ``--parts`` and ``--epochs``
change the sizes; ``PERCEPTRONS_DATA`` overrides the data search.

What is timed
-------------
* **epoch (item 1)**: ``fit`` with ``max_iter=1`` and with ``max_iter=4``
  on data already in the workers' memory (a persisted Dask array whose
  blocks were generated on the workers: one block per shard, one per worker
  when k = S = 2, checked with ``who_has``); epoch = (best of the 4-epoch
  fits − best of the 1-epoch fits) / 3, so the one-time costs (shard
  checks, first-epoch allocation) cancel. Fits alternate 1, 4, 1, 4, ...
  ``--repeat`` times. The serial reference is ``Perceptron.fit`` run the
  same way inside the 1-worker cluster's worker, on the same block (no copy
  in the client). The per-shard compute of each ``_shard_epoch`` task is
  read from Dask's task stream: "overhead" = wall per epoch − the slower
  shard's compute. A warm-up fit runs on every worker first (numba's cache).
* **fixed cost (item 2)**: the same difference with ``max_iter=1`` and
  ``max_iter=6`` on shards of 2 rows whose model has F features, in this
  process (no client) and on 1- and 2-worker clusters; its parts: the
  client's time in ``submit``, ``gather`` and the rest (mixing, the next
  start), timed by wrapping the runner; a shard-epoch's parts timed alone in
  this process (``copy.deepcopy`` of the start state, ``shard_pass``,
  pickling of the states); ``mix_states`` for S = 2, 4, 8;
  and Dask's own price for moving a start-sized argument to a worker and a
  state-sized result back (a task that does nothing with them).
* **accuracy (item 3)**: not timed; ``fit(max_iter=e)`` for every e (the
  run is deterministic, so e epochs of a longer run), in this process.

The machine has 2 cores shared with other jobs: every timing carries the
1-minute load average sampled before and after it. BLAS/numba pools are
limited to one thread (environment, inherited by the workers).
"""

import os

for _var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
             "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import copy  # noqa: E402
import cProfile  # noqa: E402
import csv  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import pickle  # noqa: E402
import pstats  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

from perceptrons.datasets import load_named  # noqa: E402
from perceptrons.models._driver import mixing  # noqa: E402

SECTION = "bench_parameter_mixing"
TITLE = "## Parameter mixing on Dask (scale-out)"
GOALS = {"scaling": 1.7, "overhead": 0.10, "accuracy_points": 1.0}
N_FIELDS = 39          # Criteo-like: 13 integer + 26 categorical fields
CHUNK = 200_000        # rows generated at a time (fixed: same rows any layout)


def log(msg, _t0=[time.perf_counter()]):
    print(f"[{time.perf_counter() - _t0[0]:7.1f}s] {msg}", file=sys.stderr,
          flush=True)


def load1():
    return C.load_average()


# ----------------------------------------------------------------------------
# Generated click-log-shaped data (built on the workers)
# ----------------------------------------------------------------------------


def click_rows(parts, rows_per_part, n_features, n_fields=N_FIELDS,
               skew=3.0, noise=0.05, seed=0):
    """Rows of a click-log-shaped binary set: parts ``parts`` (each its own
    seeded generator, so a block of parts [0, 1] is the two blocks [0] and
    [1] stacked), CSR float64 with int32 indices, sorted, one feature per
    field (field f owns columns [f·W, (f+1)·W), W = n_features // n_fields;
    the value's rank r = ⌊W·u^skew⌋ under a fixed permutation, so a few values
    per field are frequent), values 1. Labels: sign of a hidden Gaussian
    hyperplane, thresholded at its upper quartile (about 25 % positive),
    then a fraction ``noise`` flipped. Memory: 12 bytes per nonzero plus the
    labels; no temporary larger than CHUNK rows."""
    width = n_features // n_fields
    base = np.random.default_rng(seed)
    perms = np.stack([base.permutation(width).astype(np.int32)
                      for _ in range(n_fields)])
    w_true = base.standard_normal(n_features)
    offsets = np.arange(n_fields, dtype=np.int32) * np.int32(width)
    cols = np.arange(n_fields)[None, :]
    threshold = 0.6745 * np.sqrt(n_fields)   # upper quartile of N(0, fields)
    n = len(parts) * rows_per_part
    idx = np.empty((n, n_fields), dtype=np.int32)
    y = np.empty(n, dtype=np.int64)
    for j, part in enumerate(parts):
        rng = np.random.default_rng([seed, part])
        for a in range(0, rows_per_part, CHUNK):
            b = min(a + CHUNK, rows_per_part)
            u = rng.random((b - a, n_fields), dtype=np.float32)
            rank = np.minimum((width * u ** skew).astype(np.int32), width - 1)
            rows = idx[j * rows_per_part + a:j * rows_per_part + b]
            rows[:] = perms[cols, rank] + offsets
            label = np.where(w_true[rows].sum(axis=1) > threshold, 1, -1)
            flip = rng.random(b - a) < noise
            label[flip] = -label[flip]
            y[j * rows_per_part + a:j * rows_per_part + b] = label
    nnz = n * n_fields
    index_dtype = np.int32 if nnz < 2**31 else np.int64
    X = sp.csr_matrix((np.ones(nnz), idx.reshape(-1),
                       np.arange(0, nnz + 1, n_fields, dtype=index_dtype)),
                      shape=(n, n_features))
    X.has_sorted_indices = True
    return X, y


def dask_click_data(layout, rows_per_part, n_features):
    """A Dask array (X, y), one row chunk per entry of ``layout`` (a list of
    lists of parts); nothing is computed here."""
    import dask
    import dask.array as da

    xs, ys = [], []
    for parts in layout:
        rows = len(parts) * rows_per_part
        block = dask.delayed(click_rows, pure=False)(list(parts),
                                                     rows_per_part, n_features)
        xs.append(da.from_delayed(block[0], shape=(rows, n_features),
                                  dtype=np.float64,
                                  meta=sp.csr_matrix((0, n_features))))
        ys.append(da.from_delayed(block[1], shape=(rows,), dtype=np.int64))
    return da.concatenate(xs), da.concatenate(ys)


def csr_bytes(X):
    return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes


def svmlight_bytes_per_row(n_features, n_rows=20_000):
    """Bytes per row of the generated data written as svmlight text (one-
    based indices, as LIBSVM files), from a sample of rows."""
    from sklearn.datasets import dump_svmlight_file

    X, y = click_rows([0], n_rows, n_features)
    buf = io.BytesIO()
    dump_svmlight_file(X, y, buf, zero_based=False)
    return len(buf.getvalue()) / n_rows, csr_bytes(X) / n_rows


# ----------------------------------------------------------------------------
# Dask helpers
# ----------------------------------------------------------------------------


def quiet_dask():
    import dask

    dask.config.set({"logging.distributed": "error"})
    logging.getLogger("distributed").setLevel(logging.ERROR)
    # ParameterMixing embeds the start in each epoch's tasks; Dask warns
    # "Sending large graph" about it every epoch (item 2 measures its price).
    warnings.filterwarnings("ignore", message=".*large graph.*")
    warnings.filterwarnings("ignore", message=".*Maximum number of iteration")


def open_cluster(k):
    from distributed import Client, LocalCluster

    t0 = time.perf_counter()
    cluster = LocalCluster(n_workers=k, threads_per_worker=1, processes=True,
                           dashboard_address=":0")
    client = Client(cluster)
    client.run(_warm_worker)
    return cluster, client, time.perf_counter() - t0


def _warm_worker():
    """numba's compiled code loaded from its cache in this worker."""
    from perceptrons import Perceptron

    X = sp.random(50, 100, density=0.1, format="csr", random_state=0)
    y = np.arange(50) % 2
    Perceptron(hypothesis="averaged", shuffle=False, max_iter=2).fit(X, y)
    Perceptron(hypothesis="last", shuffle=False, max_iter=2).fit(X, y)


def _worker_rss():
    try:
        import psutil

        return psutil.Process().memory_info().rss
    except ImportError:
        return None


def _cpu_seconds():
    """CPU seconds (user + system, all threads) of this process so far."""
    t = os.times()
    return t.user + t.system


def persist_data(client, layout, rows_per_part, n_features):
    """Generate on the workers and keep there; returns X, y, seconds,
    {block: worker}."""
    from distributed import wait

    t0 = time.perf_counter()
    X, y = dask_click_data(layout, rows_per_part, n_features)
    X, y = client.persist([X, y])
    wait([X, y])
    seconds = time.perf_counter() - t0
    who = client.who_has()
    placement = {}
    for i in range(len(layout)):
        key = (X.name, i, 0)
        placement[i] = list(who.get(key, who.get(str(key), ())))
    return X, y, seconds, placement


def _serial_epochs(X, y, rounds, n_epochs):
    """Serial ``Perceptron.fit`` on one block, run inside the worker that
    holds it: best-of-rounds times of fit(max_iter=1) and fit(max_iter=N),
    and the validation pass alone (what every IPM epoch repeats)."""
    from perceptrons import Perceptron

    def load():
        try:
            return float(Path("/proc/loadavg").read_text().split()[0])
        except OSError:
            return None

    def est(it):
        return Perceptron(hypothesis="averaged", shuffle=False, max_iter=it)

    out = {"fit_1": [], f"fit_{n_epochs}": [], "validate": [], "loads": [],
           "updates_per_epoch": None}
    out["loads"].append(load())
    out["cpu_1"], out[f"cpu_{n_epochs}"] = [], []
    for _ in range(rounds):
        for it in (1, n_epochs):
            c0 = time.process_time()
            t0 = time.perf_counter()
            e = est(it).fit(X, y)
            out[f"fit_{it}"].append(time.perf_counter() - t0)
            out[f"cpu_{it}"].append(time.process_time() - c0)
            if it == n_epochs:
                out["updates_per_epoch"] = e.updates_per_epoch_.tolist()
        t0 = time.perf_counter()
        mixing.prepared_shard(est(1), X, y)
        out["validate"].append(time.perf_counter() - t0)
        out["loads"].append(load())
    return out


def time_serial_on_worker(client, X, y, rounds, n_epochs):
    from distributed import wait

    xf = client.compute(X.to_delayed().ravel()[0])
    yf = client.compute(y.to_delayed().ravel()[0])
    wait([xf, yf])
    res = client.submit(_serial_epochs, xf, yf, rounds, n_epochs,
                        pure=False).result()
    best1, bestn = min(res["fit_1"]), min(res[f"fit_{n_epochs}"])
    res["epoch"] = (bestn - best1) / (n_epochs - 1)
    res["epoch_cpu"] = (min(res[f"cpu_{n_epochs}"]) - min(res["cpu_1"])) / (
        n_epochs - 1)
    res["validate_best"] = min(res["validate"])
    del xf, yf
    return res


def _epoch_tasks(stream):
    """Per-task compute seconds of the ``_shard_epoch`` tasks of a task
    stream, grouped by worker."""
    out = []
    for t in stream:
        key = t["key"] if isinstance(t["key"], str) else str(t["key"])
        if "_shard_epoch" not in key:
            continue
        comp = sum(s["stop"] - s["start"] for s in t["startstops"]
                   if s["action"] == "compute")
        out.append({"worker": t["worker"], "compute": comp,
                    "start": min(s["start"] for s in t["startstops"]),
                    "stop": max(s["stop"] for s in t["startstops"])})
    return out


def time_ipm(client, X, y, rounds, n_epochs, hypothesis="averaged"):
    """Epoch time of ParameterMixing on a persisted Dask array."""
    from distributed import get_task_stream

    from perceptrons import Perceptron
    from perceptrons.distributed import ParameterMixing

    def fit(it):
        return ParameterMixing(
            Perceptron(hypothesis=hypothesis, shuffle=False), max_iter=it,
            client=client).fit(X, y)

    times = {1: [], n_epochs: []}
    cpu = {1: [], n_epochs: []}
    client_cpu = {1: [], n_epochs: []}
    loads = [load1()]
    tasks, updates = [], None
    for _ in range(rounds):
        for it in (1, n_epochs):
            w0 = sum(client.run(_cpu_seconds).values())
            c0 = _cpu_seconds()
            with get_task_stream(client) as ts:
                t0 = time.perf_counter()
                m = fit(it)
                times[it].append(time.perf_counter() - t0)
            client_cpu[it].append(_cpu_seconds() - c0)
            cpu[it].append(sum(client.run(_cpu_seconds).values()) - w0)
            if it == n_epochs:
                epochs = _epoch_tasks(ts.data)
                tasks.append(epochs)
                updates = m.updates_per_shard_.tolist()
            loads.append(load1())
    best1, bestn = min(times[1]), min(times[n_epochs])
    epoch = (bestn - best1) / (n_epochs - 1)
    # The run whose wall time was the best: its per-shard computes, epochs
    # 2..N (the first epoch allocates and makes more updates).
    best_run = tasks[int(np.argmin(times[n_epochs]))]
    n_shards = X.numblocks[0]
    later = sorted(best_run, key=lambda t: t["start"])[n_shards:]
    by_epoch = [later[i:i + n_shards] for i in range(0, len(later), n_shards)]
    slowest = [max(t["compute"] for t in ep) for ep in by_epoch]
    busiest = [max(sum(t["compute"] for t in ep if t["worker"] == w)
                   for w in {t["worker"] for t in ep}) for ep in by_epoch]
    mean_shard = [np.mean([t["compute"] for t in ep]) for ep in by_epoch]
    i1, iN = int(np.argmin(times[1])), int(np.argmin(times[n_epochs]))
    workers_cpu = (cpu[n_epochs][iN] - cpu[1][i1]) / (n_epochs - 1)
    this_cpu = (client_cpu[n_epochs][iN] - client_cpu[1][i1]) / (n_epochs - 1)
    return {"fit_1": times[1], f"fit_{n_epochs}": times[n_epochs],
            "epoch": epoch, "loads": loads, "updates_per_shard": updates,
            "workers_cpu_per_epoch": workers_cpu,
            "client_cpu_per_epoch": this_cpu,
            "shard_compute_slowest": float(np.mean(slowest)),
            "busiest_worker_compute": float(np.mean(busiest)),
            "shard_compute_mean": float(np.mean(mean_shard)),
            "shard_imbalance": float(np.mean(np.array(slowest)
                                              / np.array(mean_shard))),
            "overhead": epoch - float(np.mean(slowest)),
            "workers_used": sorted({t["worker"] for t in best_run})}


# ----------------------------------------------------------------------------
# Item 1: scaling
# ----------------------------------------------------------------------------


def run_scaling_case(n_features, n_rows, args, rounds=None):
    rows_per_part = n_rows // 2
    n_epochs = 4
    rounds = rounds or args.repeat
    case = {"n_features": n_features, "n_rows": 2 * rows_per_part,
            "n_fields": N_FIELDS, "nnz": 2 * rows_per_part * N_FIELDS,
            "csr_bytes": 2 * rows_per_part * N_FIELDS * 12
            + (2 * rows_per_part + 1) * 4, "epochs_timed": n_epochs,
            "rounds": rounds}
    log(f"scaling, {n_features:.0e} features x {case['n_rows']:,} rows "
        f"({case['csr_bytes'] / 2**30:.2f} GiB CSR)")
    # k = 1: one block (S = 1) and the serial reference; then two blocks.
    cluster, client, start = open_cluster(1)
    try:
        case["startup_k1"] = start
        X, y, gen, where = persist_data(client, [[0, 1]], rows_per_part,
                                        n_features)
        case["generate_k1_S1"] = gen
        case["worker_rss_k1_S1"] = list(client.run(_worker_rss).values())
        log(f"  k=1: generated one block in {gen:.1f} s; worker RSS "
            f"{case['worker_rss_k1_S1'][0] / 2**30:.2f} GiB; serial fit")
        case["serial"] = time_serial_on_worker(client, X, y, rounds,
                                               n_epochs)
        log(f"  serial epoch {case['serial']['epoch']:.2f} s "
            f"(validation pass {case['serial']['validate_best']:.2f} s)")
        case["k1_S1"] = time_ipm(client, X, y, rounds, n_epochs)
        log(f"  k=1 S=1 epoch {case['k1_S1']['epoch']:.2f} s")
        del X, y
        client.restart()   # frees the block for sure before the next one
        client.run(_warm_worker)
        X, y, gen, where = persist_data(client, [[0], [1]], rows_per_part,
                                        n_features)
        case["generate_k1_S2"] = gen
        case["k1_S2"] = time_ipm(client, X, y, rounds, n_epochs)
        log(f"  k=1 S=2 epoch {case['k1_S2']['epoch']:.2f} s")
        del X, y
    finally:
        client.close()
        cluster.close()
    cluster, client, start = open_cluster(2)
    try:
        case["startup_k2"] = start
        X, y, gen, where = persist_data(client, [[0], [1]], rows_per_part,
                                        n_features)
        case["generate_k2_S2"] = gen
        case["placement_k2_S2"] = where
        case["worker_rss_k2_S2"] = list(client.run(_worker_rss).values())
        case["k2_S2"] = time_ipm(client, X, y, rounds, n_epochs)
        log(f"  k=2 S=2 epoch {case['k2_S2']['epoch']:.2f} s "
            f"(blocks on {where})")
        del X, y
    finally:
        client.close()
        cluster.close()
    case["ratio_k1S1_k2S2"] = case["k1_S1"]["epoch"] / case["k2_S2"]["epoch"]
    case["ratio_k1S2_k2S2"] = case["k1_S2"]["epoch"] / case["k2_S2"]["epoch"]
    case["ratio_serial_k2S2"] = case["serial"]["epoch"] / case["k2_S2"]["epoch"]
    # Per-shard pass rate (2 workers, one shard each): rows and bytes per s.
    shard_rows = rows_per_part
    comp = case["k2_S2"]["shard_compute_mean"]
    case["shard_rate_rows_per_s"] = shard_rows / comp
    case["shard_rate_csr_bytes_per_s"] = case["csr_bytes"] / 2 / comp
    case["serial_rate_rows_per_s"] = case["n_rows"] / case["serial"]["epoch"]
    return case


# ----------------------------------------------------------------------------
# Item 2: fixed cost of an epoch
# ----------------------------------------------------------------------------


def tiny_shards(n_features, n_shards):
    """Shards of 2 rows (one of each class), 2 nonzeros each, whose model
    has ``n_features`` columns."""
    Xs, ys = [], []
    for s in range(n_shards):
        X = sp.csr_matrix((np.ones(4), np.array([s, n_features - 1, s + 1,
                                                 n_features - 2 - s]),
                           np.array([0, 2, 4])), shape=(2, n_features))
        X.sort_indices()
        Xs.append(X)
        ys.append(np.array([1, -1]))
    return Xs, ys


class _TimedRunner:
    """Wraps ParameterMixing's runner: seconds in submit, gather and part."""

    def __init__(self, runner, clock):
        self.runner, self.clock = runner, clock

    def _timed(self, name, func, *args):
        t0, w0 = time.perf_counter(), time.time()
        out = func(*args)
        self.clock[name] = self.clock.get(name, 0.0) + time.perf_counter() - t0
        self.clock.setdefault("events", []).append((name, w0, time.time()))
        return out

    def submit(self, func, *args):
        name = ("submit epoch" if getattr(func, "__name__", "") ==
                "_shard_epoch" else "submit other")
        return self._timed(name, self.runner.submit, func, *args)

    def gather(self, values):
        return self._timed("gather", self.runner.gather, values)

    def part(self, value, index):
        return self._timed("part", self.runner.part, value, index)


def timed_mixing_class():
    from perceptrons.distributed import ParameterMixing

    class TimedMixing(ParameterMixing):
        """ParameterMixing whose runner records where the client's time
        goes (the algorithm is untouched)."""

        def _runner(self):
            runner, owned = super()._runner()
            self.clock_ = {}
            return _TimedRunner(runner, self.clock_), owned

        def fit(self, *args, **kwargs):
            super().fit(*args, **kwargs)
            self.clock_["fit end"] = time.time()
            return self

    return TimedMixing


def fixed_cost(client, n_features, n_shards, rounds, n_epochs=6):
    """Per-epoch fixed cost on tiny shards, and the client's split of it."""
    from perceptrons import Perceptron

    TimedMixing = timed_mixing_class()
    Xs, ys = tiny_shards(n_features, n_shards)
    est = Perceptron(hypothesis="averaged", shuffle=False)
    walls = {1: [], n_epochs: []}
    clocks = {1: [], n_epochs: []}
    loads = [load1()]
    TimedMixing(est, max_iter=1, client=client).fit(Xs, ys)   # warm-up
    for _ in range(rounds):
        for it in (1, n_epochs):
            m = TimedMixing(est, max_iter=it, client=client)
            t0 = time.perf_counter()
            m.fit(Xs, ys)
            wall = time.perf_counter() - t0
            walls[it].append(wall)
            clk = {k: v for k, v in m.clock_.items()
                   if k not in ("events", "fit end")}
            clk["rest (mixing, next start)"] = wall - sum(clk.values())
            clocks[it].append(clk)
            loads.append(load1())
    i1, iN = int(np.argmin(walls[1])), int(np.argmin(walls[n_epochs]))
    per_epoch = (walls[n_epochs][iN] - walls[1][i1]) / (n_epochs - 1)
    names = sorted(set(clocks[1][i1]) | set(clocks[n_epochs][iN]))
    split = {k: (clocks[n_epochs][iN].get(k, 0.0) - clocks[1][i1].get(k, 0.0))
             / (n_epochs - 1) for k in names}
    out = {"per_epoch": per_epoch, "split": split, "loads": loads,
           "walls": {str(k): v for k, v in walls.items()}}
    if client is not None:
        out["timeline"] = epoch_timeline(client, TimedMixing, est, Xs, ys,
                                         n_epochs)
    return out


def epoch_timeline(client, TimedMixing, est, Xs, ys, n_epochs):
    """One more run with Dask's task stream: where an epoch's wall time
    goes, from the client's calls (time.time) and the workers' task records
    (same machine, same clock). Averaged over epochs 2..N."""
    from distributed import get_task_stream

    m = TimedMixing(est, max_iter=n_epochs, client=client)
    with get_task_stream(client) as ts:
        m.fit(Xs, ys)
    events = m.clock_["events"]
    S = len(Xs)
    subs = [e for e in events if e[0] == "submit epoch"]
    gathers = [e for e in events if e[0] == "gather"][1:]   # [0]: facts
    tasks = sorted((t for t in ts.data if "_shard_epoch" in str(t["key"])),
                   key=lambda t: min(s["start"] for s in t["startstops"]))
    actions = sorted({s["action"] for t in ts.data for s in t["startstops"]})
    rows = []
    for e in range(1, n_epochs):
        sub0 = subs[e * S][1]
        sub1 = subs[e * S + S - 1][2]
        ep = tasks[e * S:(e + 1) * S]
        c0 = min(s["start"] for t in ep for s in t["startstops"]
                 if s["action"] == "compute")
        c1 = max(s["stop"] for t in ep for s in t["startstops"]
                 if s["action"] == "compute")
        g1 = gathers[e][2]
        nxt = (subs[(e + 1) * S][1] if e + 1 < n_epochs
               else m.clock_["fit end"])
        per_task = [sum(s["stop"] - s["start"] for s in t["startstops"]
                        if s["action"] == "compute") for t in ep]
        rows.append({
            "submit (client: graph with the start)": sub1 - sub0,
            "submitted → first shard computes (start to the workers)":
                c0 - sub1,
            "shard computes (first start → last end)": c1 - c0,
            "... of which one task's compute (mean)": float(np.mean(per_task)),
            "last compute end → states at the client (parts, gather)":
                g1 - c1,
            "states at the client → next submit (scratch parts, mixing)":
                nxt - g1})
    return {"mean": {k: float(np.mean([r[k] for r in rows]))
                     for k in rows[0]}, "actions": actions}


def _top_functions(profile, n=8):
    st = pstats.Stats(profile)
    rows = []
    for (file, line, func), (cc, nc, tt, ct, callers) in st.stats.items():
        rows.append((tt, ct, nc, f"{Path(file).name}:{line}({func})"))
    rows.sort(reverse=True)
    return [{"function": r[3], "tottime": r[0], "cumtime": r[1],
             "calls": r[2]} for r in rows[:n]]


def shard_epoch_parts(n_features, repeat):
    """A tiny shard's epoch in this process, part by part, from a real
    mixed start (after one epoch of two shards)."""
    from sklearn.base import clone

    import perceptrons.distributed as D

    template, start, shard, facts = _tiny_epoch_inputs(n_features)
    best = {}

    def t(name, func):
        t0 = time.perf_counter()
        out = func()
        best[name] = min(best.get(name, np.inf), time.perf_counter() - t0)
        return out

    for _ in range(repeat):
        t("whole _shard_epoch", lambda: D._shard_epoch(
            template, start, shard, None, {}, facts))
        est = t("clone(template)", lambda: clone(template))
        st = t("copy.deepcopy(start)", lambda: copy.deepcopy(start))
        mixing.adopt(est, st)
        order = np.arange(2, dtype=np.int64)
        t("shard_pass (the pass: begin call, loop, end of call)",
          lambda: mixing.shard_pass(
              est, shard.call, shard.y, order, classes=facts["classes"],
              mean_sq_norm=facts["mean_sq_norm"], carry={}))
        state = t("state_", lambda: est.state_)
        t("pickle.dumps(start)", lambda: pickle.dumps(start, protocol=5))
        blob = pickle.dumps(state, protocol=5)
        t("pickle.dumps(state)", lambda: pickle.dumps(state, protocol=5))
        t("pickle.loads(state)", lambda: pickle.loads(blob))
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(3):
        D._shard_epoch(template, start, shard, None, {}, facts)
    prof.disable()
    sizes = {"start_pickled": len(pickle.dumps(start, protocol=5)),
             "state_pickled": len(blob),
             "state_arrays": _large_arrays(state),
             "start_arrays": _large_arrays(start)}
    return {"parts": best, "sizes": sizes,
            "profile_top": _top_functions(prof)}


def _large_arrays(state, prefix=""):
    """``{field path: bytes}`` of a state's arrays over 1,000 bytes."""
    from perceptrons.models._state import State

    out = {}
    for name, _ in state.specs():
        value = getattr(state, name)
        if isinstance(value, State):
            out.update(_large_arrays(value, f"{prefix}{name}."))
        elif getattr(value, "nbytes", 0) > 1000:
            out[prefix + name] = int(value.nbytes)
    return out


def _tiny_shard(template, X, y, name):
    """A shard as ParameterMixing's workers hold it (validated once)."""
    import perceptrons.distributed as D

    return D._prepare_shard(template, D._as_shard(X, y, name))


def _tiny_epoch_inputs(n_features):
    """What ``_shard_epoch`` takes for a tiny shard from a real mixed
    start (after one epoch of two shards): template, start, shard, facts."""
    import perceptrons.distributed as D
    from perceptrons import Perceptron

    Xs, ys = tiny_shards(n_features, 2)
    template = Perceptron(hypothesis="averaged", shuffle=False)
    first = D.ParameterMixing(template, max_iter=1).fit(Xs, ys)
    start = first.estimator_.state_
    shard = _tiny_shard(template, Xs[0], ys[0], "0")
    facts = {"classes": np.array([-1, 1]), "mean_sq_norm": 2.0}
    return template, start, shard, facts


def tiny_epoch_times(n_features, repeat=6):
    """Seconds of ``_shard_epoch`` on a tiny shard from a mixed start, in
    the calling process (every run after the first)."""
    import perceptrons.distributed as D

    template, start, shard, facts = _tiny_epoch_inputs(n_features)
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        D._shard_epoch(template, start, shard, None, {}, facts)
        out.append(time.perf_counter() - t0)
    return out[1:]


def allocator_check(client, n_features):
    """The same tiny shard epoch here, in a child process with and without
    Dask's MALLOC_TRIM_THRESHOLD_ (its nanny sets it in every worker), and
    in a Dask worker: best seconds of each."""
    import subprocess

    code = ("import sys, json; sys.path.insert(0, %r); "
            "import bench_parameter_mixing as B; "
            "print(json.dumps(B.tiny_epoch_times(%d)))"
            % (str(Path(__file__).resolve().parent), n_features))
    out = {"this process": min(tiny_epoch_times(n_features))}
    trim = client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_"))
    trim = next(iter(trim.values()))
    for label, value in (("child process", None),
                         (f"child process, MALLOC_TRIM_THRESHOLD_={trim}",
                          trim)):
        env = dict(os.environ)
        env.pop("MALLOC_TRIM_THRESHOLD_", None)
        if value is not None:
            env["MALLOC_TRIM_THRESHOLD_"] = str(value)
        res = subprocess.run([sys.executable, "-c", code], env=env,
                             capture_output=True, text=True, check=True)
        out[label] = min(json.loads(res.stdout.strip().splitlines()[-1]))
    worker = client.run(tiny_epoch_times, n_features)
    out[f"Dask worker (its MALLOC_TRIM_THRESHOLD_={trim})"] = min(
        next(iter(worker.values())))
    return out


def mixing_cost(n_features, shard_counts, repeat):
    """``mix_states`` + the next start, on the client, for S shards."""
    import perceptrons.distributed as D
    from perceptrons import Perceptron
    from sklearn.base import clone

    out = {}
    template = Perceptron(hypothesis="averaged", shuffle=False)
    for S in shard_counts:
        Xs, ys = tiny_shards(n_features, S)
        first = D.ParameterMixing(template, max_iter=1).fit(Xs, ys)
        start = first.estimator_.state_
        facts = {"classes": np.array([-1, 1]), "mean_sq_norm": 2.0}
        states = [D._shard_epoch(template, start,
                                 _tiny_shard(template, x, y_, str(i)),
                                 None, {}, facts)[0]
                  for i, (x, y_) in enumerate(zip(Xs, ys))]
        mu = np.full(S, 1.0 / S)
        best = np.inf
        prof = cProfile.Profile()
        for r in range(repeat):
            model = clone(template)
            if r == repeat - 1:
                prof.enable()
            t0 = time.perf_counter()
            mixing.mix_states(model, start, states, mu)
            best = min(best, time.perf_counter() - t0)
            if r == repeat - 1:
                prof.disable()
        out[S] = {"seconds": best, "profile_top": _top_functions(prof, 6)}
    return out


def _consume(start):
    return len(start)


def _state_like(n_bytes):
    return {"a": np.ones(n_bytes // 24), "b": np.ones(n_bytes // 24),
            "c": np.ones(n_bytes // 24)}


def transport_cost(client, start_bytes, state_bytes, n_shards, rounds):
    """What Dask takes to move a start-sized argument embedded in a task
    (as ParameterMixing sends it) to every shard's task, and a state-sized
    result back to the client, with tasks that do nothing."""
    from distributed import wait

    # Stand-ins of the start state's two weight arrays (current and summed).
    start = {"current": np.ones(start_bytes // 16),
             "summed": np.ones(start_bytes // 16)}
    best = {"embedded start to each task": np.inf,
            "scattered start (one copy per worker)": np.inf,
            "state-sized result back (gather)": np.inf,
            "state-sized result back (gather, direct=True)": np.inf}
    workers = list(client.scheduler_info()["workers"])
    for _ in range(rounds + 1):
        t0 = time.perf_counter()
        fs = [client.submit(_consume, start, pure=False) for _ in
              range(n_shards)]
        client.gather(fs)
        best["embedded start to each task"] = min(
            best["embedded start to each task"], time.perf_counter() - t0)
        t0 = time.perf_counter()
        sf = client.scatter(start, broadcast=True, hash=False)
        fs = [client.submit(_consume, sf, pure=False) for _ in
              range(n_shards)]
        client.gather(fs)
        best["scattered start (one copy per worker)"] = min(
            best["scattered start (one copy per worker)"],
            time.perf_counter() - t0)
        del sf, fs
        made = [client.submit(_state_like, state_bytes, pure=False,
                              workers=[workers[i % len(workers)]])
                for i in range(n_shards)]
        wait(made)
        t0 = time.perf_counter()
        client.gather(made)
        best["state-sized result back (gather)"] = min(
            best["state-sized result back (gather)"],
            time.perf_counter() - t0)
        t0 = time.perf_counter()
        client.gather(made, direct=True)
        best["state-sized result back (gather, direct=True)"] = min(
            best["state-sized result back (gather, direct=True)"],
            time.perf_counter() - t0)
        del made
    return best


def run_overhead(args):
    out = {}
    for F in args.overhead_features:
        log(f"fixed cost, model of {F:.0e} features")
        res = {"n_features": F}
        res["in-process, S=1"] = fixed_cost(None, F, 1, args.repeat)
        res["in-process, S=2"] = fixed_cost(None, F, 2, args.repeat)
        res["shard_epoch_parts"] = shard_epoch_parts(F, max(args.repeat, 3))
        res["mixing"] = mixing_cost(F, (2, 4, 8) if not args.quick else (2,),
                                    max(args.repeat, 3))
        for k, shard_counts in ((1, (1, 2)), (2, (2,))):
            cluster, client, _ = open_cluster(k)
            try:
                for S in shard_counts:
                    res[f"Dask {k} worker{'s' if k > 1 else ''}, S={S}"] = \
                        fixed_cost(client, F, S, args.repeat)
                if k == 1:
                    res["allocator"] = allocator_check(client, F)
                if k == 2:
                    sizes = res["shard_epoch_parts"]["sizes"]
                    res["transport"] = transport_cost(
                        client, sizes["start_pickled"],
                        sizes["state_pickled"], 2, args.repeat)
            finally:
                client.close()
                cluster.close()
        for name, r in res.items():
            if isinstance(r, dict) and "per_epoch" in r:
                log(f"  {name}: {1e3 * r['per_epoch']:.0f} ms per epoch")
        out[F] = res
    return out


# ----------------------------------------------------------------------------
# Item 3: accuracy
# ----------------------------------------------------------------------------


def accuracy_sets(quick):
    from sklearn.model_selection import train_test_split

    a9a, a9at = load_named("a9a"), load_named("a9a.t")
    w8a = load_named("w8a")
    # w8a.t is not in the data folder: hold out as many rows as it has
    # (14,951), stratified, seed 0.
    Xtr, Xte, ytr, yte = train_test_split(w8a.X, w8a.y, test_size=14951,
                                          stratify=w8a.y, random_state=0)
    m = load_named("mnist")
    n_tr, n_te = (6000, 2000) if quick else (None, None)
    return {
        "a9a": (a9a.X, a9a.y, a9at.X, a9at.y,
                "a9a (32,561 × 123) → a9a.t (16,281)"),
        "w8a": (Xtr, ytr, Xte, yte,
                "w8a, 34,798 rows → 14,951 held out (stratified, seed 0; "
                "w8a.t is not in the data folder)"),
        "mnist": (m.X_train[:n_tr] / 255.0, m.y_train[:n_tr],
                  m.X_test[:n_te] / 255.0, m.y_test[:n_te],
                  f"MNIST {'first 6,000' if quick else '60,000'} train → "
                  f"{'2,000' if quick else '10,000'} test, pixels / 255, "
                  "10 classes one-vs-rest"),
    }


def converged_epoch(acc, tol=0.1):
    """First epoch e after which every epoch's test accuracy (points) stays
    within ``tol`` points of the last epoch's."""
    last = acc[-1]
    e = len(acc)
    while e > 1 and abs(acc[e - 2] - last) <= tol:
        e -= 1
    return e


def run_accuracy(args):
    from perceptrons import Perceptron
    from perceptrons.distributed import ParameterMixing

    sets = accuracy_sets(args.quick)
    shard_counts = (2, 4) if args.quick else (2, 4, 8)
    out = {}
    for name in args.datasets:
        Xtr, ytr, Xte, yte, desc = sets[name]
        out[name] = {"description": desc, "runs": {}}
        for hyp in ("averaged", "last"):
            t0 = time.perf_counter()
            configs = [("serial", None, None)] + [
                (f"S={S} {mix}", S, mix) for S in shard_counts
                for mix in ("uniform", "mistakes")]
            for label, S, mix in configs:
                accs, mistakes = [], None
                for e in range(1, args.epochs + 1):
                    est = Perceptron(hypothesis=hyp, random_state=0,
                                     max_iter=e)
                    if S is None:
                        m = est.fit(Xtr, ytr)
                    else:
                        m = ParameterMixing(est, n_shards=S, mixing=mix,
                                            max_iter=e).fit(Xtr, ytr)
                    accs.append(100.0 * m.score(Xte, yte))
                    if e == args.epochs:
                        mistakes = (m.mistakes_per_epoch_.tolist() if S is None
                                    else m.mistakes_per_shard_.sum(axis=1)
                                    .tolist())
                out[name]["runs"][f"{hyp} | {label}"] = {
                    "hypothesis": hyp, "config": label, "n_shards": S,
                    "mixing": mix, "test_accuracy": accs,
                    "train_mistakes": mistakes,
                    "converged_epoch": converged_epoch(accs)}
            # The serial run's spread over seeds, for scale.
            seeds = [100.0 * Perceptron(hypothesis=hyp, random_state=s,
                                        max_iter=args.epochs)
                     .fit(Xtr, ytr).score(Xte, yte) for s in range(5)]
            out[name][f"serial_seeds_{hyp}"] = seeds
            log(f"  accuracy {name} {hyp}: {time.perf_counter() - t0:.0f} s")
    return out


def plot_accuracy(acc, path, epochs):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(acc)
    fig, axes = plt.subplots(2, len(names), figsize=(5 * len(names), 7.5),
                             squeeze=False)
    colours = {2: "tab:blue", 4: "tab:orange", 8: "tab:green"}
    x = np.arange(1, epochs + 1)
    for j, name in enumerate(names):
        for i, hyp in enumerate(("averaged", "last")):
            ax = axes[i, j]
            for key, run in acc[name]["runs"].items():
                if run["hypothesis"] != hyp:
                    continue
                if run["n_shards"] is None:
                    ax.plot(x, run["test_accuracy"], color="black", lw=2.2,
                            label="serial fit")
                else:
                    ax.plot(x, run["test_accuracy"],
                            color=colours.get(run["n_shards"], "grey"),
                            ls="-" if run["mixing"] == "uniform" else "--",
                            marker="o" if run["mixing"] == "uniform" else "x",
                            ms=3, lw=1.2, label=f"IPM {run['config']}")
            ax.set_title(f"{name}, hypothesis={hyp!r}")
            ax.set_xlabel("epoch")
            ax.set_ylabel("test accuracy (%)")
            ax.grid(alpha=0.3)
            ax.set_xticks(x)
    axes[0, 0].legend(fontsize=7, loc="lower right")
    fig.suptitle("Iterative parameter mixing vs serial fit: test accuracy "
                 "after each epoch (Perceptron(random_state=0))")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ----------------------------------------------------------------------------
# Item 4: projection
# ----------------------------------------------------------------------------


def projection(scaling, overhead, text_bytes, args):
    """The 1 TB / 10^7 features / 100 workers estimate, from measurements."""
    F, S, TB = 10**7, 100, 1e12
    # The rate: the measured case whose model is closest to 10^7 features.
    case = min(scaling, key=lambda c: abs(np.log10(c["n_features"] / F)))
    text_per_row, csr_per_row = text_bytes[case["n_features"]]
    rows = TB / text_per_row
    rows_per_worker = rows / S
    rate = case["shard_rate_rows_per_s"]
    compute = rows_per_worker / rate
    model_array = 8 * F                     # one float64 array of F weights
    out_bytes = 2 * model_array             # start: current and summed weights
    back_bytes = 2 * model_array            # state: the same two arrays
    net = S * (out_bytes + back_bytes)
    # Mixing on the client, per shard, from the measured S-slope.
    ov = overhead.get(F) or overhead[max(overhead)]
    mix = ov["mixing"]
    ss = sorted(mix)
    if len(ss) > 1:
        slope = (mix[ss[-1]]["seconds"] - mix[ss[0]]["seconds"]) / (ss[-1]
                                                                     - ss[0])
    else:
        slope = mix[ss[0]]["seconds"] / ss[0]
    slope *= F / ov["n_features"]
    dask_ov = ov.get("Dask 2 workers, S=2")
    transport = ov.get("transport", {})
    moved = (2 * ov["shard_epoch_parts"]["sizes"]["start_pickled"]
             + 2 * ov["shard_epoch_parts"]["sizes"]["state_pickled"])
    local_rate = moved / dask_ov["per_epoch"] if dask_ov else None
    return {
        "rate_case": {"n_features": case["n_features"],
                      "n_rows": case["n_rows"]},
        "svmlight_bytes_per_row": text_per_row,
        "csr_bytes_per_row": csr_per_row,
        "rows": rows, "rows_per_worker": rows_per_worker,
        "csr_bytes_per_worker": rows_per_worker * csr_per_row,
        "shard_rate_rows_per_s": rate,
        "shard_rate_svmlight_bytes_per_s": rate * text_per_row,
        "compute_per_epoch_s": compute,
        "model_array_bytes": model_array,
        "bytes_to_each_worker": out_bytes, "bytes_from_each_worker":
        back_bytes, "bytes_through_client_per_epoch": net,
        "client_nic_seconds": {"10 Gbit/s": net / 1.25e9,
                               "25 Gbit/s": net / 3.125e9},
        "client_mix_seconds": slope * S,
        "client_mix_seconds_per_shard": slope,
        "client_memory_states": S * back_bytes,
        "local_dask_bytes_per_s": local_rate,
        "transport": transport,
    }


# ----------------------------------------------------------------------------
# Report
# ----------------------------------------------------------------------------


def _s(x):
    if x is None:
        return "–"
    if abs(x) >= 100:
        return f"{x:.0f}"
    if abs(x) >= 1:
        return f"{x:.2f}"
    return f"{x * 1e3:.0f} ms" if abs(x) >= 0.001 else f"{x * 1e3:.2f} ms"


def _loads(ls):
    ls = [x for x in ls if x is not None]
    return f"{min(ls):.1f}–{max(ls):.1f}" if ls else "?"


def _mb(b):
    return f"{b / 1e6:,.0f} MB" if b < 1e9 else f"{b / 1e9:,.1f} GB"


def _goal(value, goal, le=False):
    ok = value <= goal if le else value >= goal
    return "met" if ok else "**not met**"


def _cpu_cell(workers, client, wall):
    if workers is None:
        return "–"
    cell = f"{workers:.2f}"
    if client is not None:
        cell += f" / {client:.2f}"
        return cell + f" ({(workers + client) / wall:.2f})"
    return cell + f" ({workers / wall:.2f})"


def scaling_tables(scaling):
    out = []
    for c in scaling:
        F = c["n_features"]
        out.append(f"**{F:.0e} features**, {c['n_rows']:,} rows × "
                   f"{c['n_fields']} nonzeros ({c['csr_bytes'] / 2**30:.2f} "
                   f"GiB of CSR; worker RSS with it "
                   f"{max(c['worker_rss_k1_S1']) / 2**30:.2f} GiB), "
                   f"generated on the workers in "
                   f"{c['generate_k1_S1']:.0f} s (1 worker) / "
                   f"{c['generate_k2_S2']:.0f} s (2 workers); 2 workers: "
                   f"block 0 on {c['placement_k2_S2'][0]}, block 1 on "
                   f"{c['placement_k2_S2'][1]}; best of {c['rounds']} "
                   "rounds.")
        out.append("")
        rows = []
        s = c["serial"]
        n = c["epochs_timed"]
        rows.append(["serial `Perceptron.fit` (in the worker)", "1", "–",
                     f"{s['epoch']:.2f}", "–", "–", "–",
                     _cpu_cell(s.get("epoch_cpu"), None, s["epoch"]),
                     f"{min(s['fit_1']):.2f} / {min(s[f'fit_{n}']):.2f}",
                     _loads(s["loads"])])
        for key, k, S in (("k1_S1", 1, 1), ("k1_S2", 1, 2), ("k2_S2", 2, 2)):
            r = c[key]
            # Shards on one worker run one after the other: the epoch waits
            # for the busiest worker's computes.
            busiest = r.get("busiest_worker_compute", (
                r["shard_compute_slowest"] if S == k
                else r["shard_compute_mean"] * S / k))
            rows.append(["IPM on Dask", str(k), str(S), f"{r['epoch']:.2f}",
                         f"{r['shard_compute_slowest']:.2f}",
                         f"{busiest:.2f}", f"{r['epoch'] - busiest:.2f}",
                         _cpu_cell(r.get("workers_cpu_per_epoch"),
                                   r.get("client_cpu_per_epoch"), r["epoch"]),
                         f"{min(r['fit_1']):.2f} / {min(r[f'fit_{n}']):.2f}",
                         _loads(r["loads"])])
        out.append(C.md_table(
            ["run", "workers", "shards", "s per epoch",
             "slowest shard's compute s", "busiest worker's compute s",
             "rest s (wall − busiest worker)",
             "CPU s per epoch: workers / client (÷ wall = cores used)",
             f"best fit s, max_iter=1 / {n}", "1-min load"], rows))
        out.append("")
        out.append(C.md_table(
            ["ratio", "value", "goal"],
            [["1 worker (S=1) ÷ 2 workers (S=2)",
              f"{c['ratio_k1S1_k2S2']:.2f}×",
              f"≥ {GOALS['scaling']}× ({_goal(c['ratio_k1S1_k2S2'], GOALS['scaling'])})"],
             ["1 worker (S=2) ÷ 2 workers (S=2), same shards",
              f"{c['ratio_k1S2_k2S2']:.2f}×", ""],
             ["serial fit ÷ 2 workers (S=2)",
              f"{c['ratio_serial_k2S2']:.2f}×", ""]]))
        out.append("")
        out.append(
            f"Per-shard pass (2 workers): {c['shard_rate_rows_per_s'] / 1e6:.2f} "
            f"M rows/s, {c['shard_rate_csr_bytes_per_s'] / 1e9:.2f} GB/s of "
            f"CSR; serial fit {c['serial_rate_rows_per_s'] / 1e6:.2f} M rows/s. "
            f"Input validation (`prepared_shard`: finiteness and "
            f"Σ⟨x, x⟩, one read of X; made once per `fit`, and by "
            f"`ParameterMixing` once per shard in `_prepare_shard`) takes "
            f"{c['serial']['validate_best']:.2f} s on all rows "
            f"({100 * c['serial']['validate_best'] / c['serial']['epoch']:.0f} "
            f"% of a serial epoch). "
            f"Shard imbalance (slowest ÷ mean shard compute, 2 workers): "
            f"{c['k2_S2']['shard_imbalance']:.2f}. Updates per epoch (the "
            f"averaged pass's cost grows with them), epochs 1–{n}: serial "
            + " / ".join(f"{u / 1e6:.2f}" for u in s["updates_per_epoch"])
            + " M; IPM S=2 (both shards) "
            + " / ".join(f"{sum(u) / 1e6:.2f}" for u in
                         c["k2_S2"]["updates_per_shard"])
            + " M (the mixed start makes more mistakes than the serial "
            "model at the same epoch, so an IPM epoch has more work than "
            "a serial one).")
        out.append("")
    return "\n".join(out)


def overhead_tables(overhead, scaling):
    out = []
    main = max(scaling, key=lambda c: c["serial"]["epoch"]) if scaling else None
    for F, r in overhead.items():
        rows = []
        for name in ("in-process, S=1", "in-process, S=2",
                     "Dask 1 worker, S=1", "Dask 1 worker, S=2",
                     "Dask 2 workers, S=2"):
            if name not in r:
                continue
            x = r[name]
            sp_ = x["split"]
            rows.append([name, f"{1e3 * x['per_epoch']:.0f}",
                         f"{1e3 * sp_.get('submit epoch', 0):.0f}",
                         f"{1e3 * sp_.get('gather', 0):.0f}",
                         f"{1e3 * sp_.get('part', 0):.0f}",
                         f"{1e3 * sp_.get('rest (mixing, next start)', 0):.0f}",
                         _loads(x["loads"])])
        out.append(f"**Model of {F:.0e} features** (binary, averaged: "
                   f"the state's current and summed weights travel to each "
                   f"shard, "
                   f"{_mb(r['shard_epoch_parts']['sizes']['start_pickled'])} "
                   f"pickled; the state back (S > 1, without `coef_`): "
                   f"{_mb(r['shard_epoch_parts']['sizes']['state_pickled'])} "
                   f"per shard). Fixed cost per epoch = (best fit with 6 "
                   f"epochs − best with 1) / 5 on shards of 2 rows; the client's "
                   f"split (ms per epoch):")
        out.append("")
        out.append(C.md_table(
            ["runner", "ms per epoch", "submit", "gather (waits for the "
             "workers and the transfers)", "part", "rest: mixing + next "
             "start", "1-min load"], rows))
        out.append("")
        d2 = r.get("Dask 2 workers, S=2")
        if d2 and scaling:
            same = [c for c in scaling if c["n_features"] == F]
            pieces = []
            for c in scaling:
                pieces.append(
                    f"{100 * d2['per_epoch'] / c['serial']['epoch']:.1f} % of "
                    f"the serial epoch ({c['serial']['epoch']:.2f} s) and "
                    f"{100 * d2['per_epoch'] / c['k2_S2']['epoch']:.1f} % of "
                    f"the 2-worker epoch ({c['k2_S2']['epoch']:.2f} s) of the "
                    f"{c['n_features']:.0e}-feature set")
            verdict = ""
            ref = same[0] if same else main
            pct = d2["per_epoch"] / ref["serial"]["epoch"]
            verdict = (f" Goal ≤ 10 % of the epoch (the serial epoch of the "
                       f"{ref['n_features']:.0e}-feature set): "
                       f"{_goal(pct, GOALS['overhead'], le=True)}.")
            out.append(f"Dask, 2 workers: {1e3 * d2['per_epoch']:.0f} ms per "
                       f"epoch = " + "; ".join(pieces) + "." + verdict)
            out.append("")
        tl = [(name, r[name]["timeline"]["mean"]) for name in
              ("Dask 1 worker, S=1", "Dask 1 worker, S=2",
               "Dask 2 workers, S=2") if name in r and "timeline" in r[name]]
        if tl:
            keys = list(tl[0][1])
            out.append("Timeline of an epoch on Dask (one more 6-epoch run "
                       "with the task stream; client call times and the "
                       "workers' task records, mean of epochs 2–6, ms):")
            out.append("")
            out.append(C.md_table(["step"] + [n for n, _ in tl],
                                  [[k] + [f"{1e3 * t[k]:.0f}" for _, t in tl]
                                   for k in keys]))
            out.append("")
        parts = r["shard_epoch_parts"]["parts"]
        out.append("One tiny shard's epoch in this process, part by part "
                   "(best of runs):")
        out.append("")
        out.append(C.md_table(["part", "ms"],
                              [[k, f"{1e3 * v:.1f}"] for k, v in
                               parts.items()]))
        out.append("")
        if "allocator" in r:
            out.append("The same tiny shard epoch (`_shard_epoch`, best of "
                       "5) by where it runs: " + "; ".join(
                           f"{k}: {1e3 * v:.1f} ms" for k, v in
                           r["allocator"].items()) + ".")
            out.append("")
        mix = r["mixing"]
        out.append("Mixing on the client (`mix_states` and the next start, "
                   "in this process): " + ", ".join(
                       f"S={S}: {1e3 * v['seconds']:.0f} ms"
                       for S, v in mix.items()) + ".")
        if "transport" in r:
            out.append("")
            out.append("Dask moving the bytes alone (2 workers, tasks that "
                       "do nothing; best of runs): " + "; ".join(
                           f"{k}: {1e3 * v:.0f} ms" for k, v in
                           r["transport"].items()) + ".")
        out.append("")
    return "\n".join(out)


def accuracy_tables(acc, epochs):
    out = []
    rows = []
    for name, d in acc.items():
        for hyp in ("averaged", "last"):
            serial = d["runs"][f"{hyp} | serial"]
            s_final = serial["test_accuracy"][-1]
            seeds = d[f"serial_seeds_{hyp}"]
            for key, run in d["runs"].items():
                if run["hypothesis"] != hyp:
                    continue
                final = run["test_accuracy"][-1]
                diff = final - s_final
                tail = (np.mean(run["test_accuracy"][-3:])
                        - np.mean(serial["test_accuracy"][-3:]))
                rows.append([
                    name, hyp, run["config"], f"{final:.2f}",
                    "–" if run["n_shards"] is None else f"{diff:+.2f}"
                    + ("" if abs(diff) <= GOALS["accuracy_points"]
                       else " **(> 1)**"),
                    "–" if run["n_shards"] is None else f"{tail:+.2f}",
                    str(run["converged_epoch"]),
                    f"{min(seeds):.2f}–{max(seeds):.2f}"
                    if run["n_shards"] is None else "",
                    " ".join(f"{a:.1f}" for a in run["test_accuracy"])])
    out.append(C.md_table(
        ["data", "hypothesis", "run", f"test acc. after {epochs} epochs (%)",
         "− serial (points)", "mean of last 3 epochs − serial's",
         "epochs to converge",
         "serial, seeds 0–4 (%)", "test acc. per epoch (%)"], rows))
    return "\n".join(out)


def projection_text(p, overhead):
    lines = [
        f"From the measured per-shard pass on the "
        f"{p['rate_case']['n_features']:.0e}-feature set (2 workers, one shard "
        f"each): {p['shard_rate_rows_per_s'] / 1e6:.2f} M rows/s per worker, "
        f"i.e. {p['shard_rate_svmlight_bytes_per_s'] / 1e6:.0f} MB/s of "
        f"svmlight text equivalent ({p['svmlight_bytes_per_row']:.0f} bytes "
        f"of text and {p['csr_bytes_per_row']:.0f} bytes of CSR per row of "
        f"{N_FIELDS} one-hot fields with indices up to 10^7):",
        "",
        C.md_table(["quantity", "1 TB svmlight, 10^7 features, 100 workers"], [
            ["rows", f"{p['rows'] / 1e9:.2f} G"],
            ["rows per worker", f"{p['rows_per_worker'] / 1e6:.0f} M "
             f"({p['csr_bytes_per_worker'] / 1e9:.0f} GB of CSR in memory)"],
            ["pass per epoch (compute, per worker)",
             f"{p['compute_per_epoch_s']:.0f} s"],
            ["model arrays (binary, averaged)", "current and summed "
             "weights, 1 × 10^7 float64 each = "
             f"{_mb(p['model_array_bytes'])} each (× c for c one-vs-rest "
             "problems)"],
            ["to each worker per epoch (the start)",
             _mb(p["bytes_to_each_worker"])],
            ["from each worker per epoch (the state: the same arrays)",
             _mb(p["bytes_from_each_worker"])],
            ["through the client per epoch (100 workers, both directions)",
             _mb(p["bytes_through_client_per_epoch"])],
            ["... at 10 / 25 Gbit/s on the client's link",
             f"{p['client_nic_seconds']['10 Gbit/s']:.0f} s / "
             f"{p['client_nic_seconds']['25 Gbit/s']:.0f} s"],
            ["mixing on the client (measured slope × 100 shards)",
             f"{p['client_mix_seconds']:.0f} s "
             f"({1e3 * p['client_mix_seconds_per_shard']:.0f} ms per shard)"],
            ["client memory for the gathered states",
             _mb(p["client_memory_states"])],
        ]),
        "",
    ]
    nic = p["client_nic_seconds"]["10 Gbit/s"]
    total = p["compute_per_epoch_s"] + nic + p["client_mix_seconds"]
    lines.append(
        f"Projected epoch at 100 workers: about "
        f"{p['compute_per_epoch_s']:.0f} s of pass + {nic:.0f} s of transfer "
        f"(10 Gbit/s) + {p['client_mix_seconds']:.0f} s of mixing ≈ "
        f"{total:.0f} s, of which the client's share "
        f"({100 * (nic + p['client_mix_seconds']) / total:.0f} %) does not "
        f"shrink with more workers; on this machine Dask moved the item-2 "
        f"bytes at about "
        + (f"{p['local_dask_bytes_per_s'] / 1e9:.2f} GB/s over loopback"
           if p["local_dask_bytes_per_s"] else "?")
        + ", which would make the transfer slower still.")
    return "\n".join(lines)


BREAKS = """Where this projection breaks:

- **Mixing is on the client, O(S × model) per epoch.** The client receives
  every shard's state (w and acc), holds all of them at once (`gather`
  returns the list: 100 × 160 MB = 16 GB of client memory at 10^7
  features) and mixes them in one process: 100 × 160 MB of arrays read,
  plus the averaged-hypothesis bookkeeping (t·w − acc per shard). Neither
  shrinks with more workers; a tree reduction on the workers (pairwise sums,
  log2 S rounds) or an all-reduce would make it O(model) per worker.
- **Bytes through one link.** 16 GB to and 16 GB from the workers every
  epoch, all through the client's link (the start also through the
  scheduler: it is embedded in each task's spec; the states are gathered
  straight from the workers). Broadcasting the start once per worker
  (scatter) instead of once per task and sending back w − start (sparse
  when a shard touched few features) would cut it; float32 would halve it.
- **Stragglers.** The epoch is the slowest of 100 shards plus the mixing: a
  shard on a slow, loaded or remote-storage worker holds up all others (the
  2-worker run above shows the imbalance of two equal shards on a shared
  2-core machine). IPM has no asynchrony to hide it.
- **Scheduler and worker memory.** The 160 MB start rides in the task graph
  (Dask warns "Sending large graph" every epoch); each worker also holds its
  start, its state and a deep copy (the task copies its inputs so a retry is
  exact): about 3 × 160 MB per worker next to a 10+ GB shard, and the
  scheduler keeps the epoch's results until their `part` tasks are gathered.
- **The rate.** The per-shard rate is from a set that fits in one machine's
  memory and cache hierarchy as measured here; with 10^7 features the model
  (160 MB for w and acc) does not fit in any cache, which the measurement on
  the 10^7-feature set includes; reading 10 GB of svmlight text per worker
  (parsing) is a one-time cost not counted per epoch, but spilling a shard
  that does not fit in memory would be paid every epoch."""


def build_report(args, results):
    scaling, overhead, acc = (results.get("scaling"), results.get("overhead"),
                              results.get("accuracy"))
    total = results["total_seconds"]
    extra = ""
    parts = results["args"].get("parts") or []
    if results.get("merged") or parts != ["scaling", "overhead", "accuracy"]:
        extra = (f" (this report: `--parts {','.join(parts)}`"
                 + "".join(f"; item '{p}' from an earlier `--parts {p}` run"
                           for p in (results.get("merged") or {}))
                 + ")")
    out = [TITLE, "",
           C.command_line("bench_parameter_mixing.py", args,
                          "small sizes", extra=extra),
           "",
           results["machine"], ""]
    if results.get("busy"):
        b = results["busy"]
        out.insert(5, f"- CPU use of other processes, sampled for 2 s before "
                      f"and after the run: {100 * b[0]:.0f} % / "
                      f"{100 * b[1]:.0f} % of the cores")
    out.append(
        "Question (issue #14): does iterative parameter mixing "
        "(`perceptrons.distributed.ParameterMixing`) scale from 1 to 2 Dask "
        "workers (goal ≥ 1.7×), is its fixed cost per epoch (sending the "
        "start, gathering the states, mixing) ≤ 10 % of the epoch for a "
        "10^6-feature model, is it within 1 point of the serial `fit`, and "
        "what would a 1 TB, 10^7-feature click log on 100 workers take? "
        "Full tables, per-epoch accuracies and the plot are in "
        "`reports/scale_out/`.")
    out.append("")
    if scaling:
        out.append("### 1. Scaling: epoch time, 1 and 2 workers")
        out.append("")
        out.append(
            "Generated click-log-shaped data (39 one-hot fields, one feature "
            "per field and row, Zipf-like frequencies, 25 % positive, 5 % "
            "labels flipped), built on the workers (a persisted Dask array, "
            "one block per shard: the client never holds it). "
            "`ParameterMixing(Perceptron(hypothesis=\"averaged\", "
            "shuffle=False))`; epoch = (best fit with 4 epochs − best with "
            "1) / 3, best of the case's alternating rounds. \"slowest "
            "shard's compute\" is the `_shard_epoch` task's compute from "
            "Dask's task stream (epochs 2–4 of the best run).")
        out.append("")
        out.append(scaling_tables(scaling))
    if overhead:
        out.append("### 2. Fixed cost of an epoch: broadcast, gather, mixing")
        out.append("")
        out.append(overhead_tables(overhead, scaling or []))
    if acc:
        out.append(f"### 3. Accuracy: IPM vs serial fit, {args.epochs} "
                   "epochs")
        out.append("")
        out.append(
            "`Perceptron(random_state=0)` (averaged hypothesis, shuffled "
            "epochs, one generator per shard) and `Perceptron(hypothesis="
            "\"last\", random_state=0)`; shards are contiguous blocks of the "
            "training rows; test accuracy after `fit(max_iter=e)` for e = "
            f"1..{args.epochs}. \"Epochs to converge\": the first epoch from "
            "which every later epoch's test accuracy stays within 0.1 point "
            "of the last epoch's. Data: " + "; ".join(
                d["description"] for d in acc.values()) + ".")
        out.append("")
        out.append(accuracy_tables(acc, args.epochs))
        out.append("")
        out.append("![test accuracy per epoch](reports/scale_out/"
                   "accuracy.png)" if not args.quick else "")
    if results.get("projection"):
        out.append("### 4. Projection: 1 TB svmlight click log, 10^7 "
                   "features, 100 workers (on paper)")
        out.append("")
        out.append(projection_text(results["projection"], overhead))
        out.append("")
        out.append(BREAKS)
        out.append("")
    for part, m in (results.get("merged") or {}).items():
        first = (m.get("machine") or "").splitlines()[:1]
        out.append(f"Item '{part}' was run separately (`--parts {part}`, "
                   f"merged with `--merge`): {first[0][2:] if first else ''}"
                   f", 1-minute load {_loads(m.get('loads') or [])}.")
        out.append("")
    out.append(f"Total benchmark time {total / 60:.0f} min.")
    return "\n".join(out)


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    return x


def write_files(out_dir, results, report, args):
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps(_jsonable(results),
                                                     indent=1))
    if results.get("accuracy"):
        with open(out_dir / "accuracy.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["dataset", "hypothesis", "run", "n_shards", "mixing",
                        "epoch", "test_accuracy", "train_mistakes"])
            for name, d in results["accuracy"].items():
                for run in d["runs"].values():
                    for e, a in enumerate(run["test_accuracy"], 1):
                        mk = run["train_mistakes"][e - 1]
                        w.writerow([name, run["hypothesis"], run["config"],
                                    run["n_shards"] or 1, run["mixing"] or "",
                                    e, f"{a:.4f}", mk])
        plot_accuracy(results["accuracy"], out_dir / "accuracy.png",
                      args.epochs)
    if results.get("scaling"):
        with open(out_dir / "timings.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["n_features", "n_rows", "run", "workers", "shards",
                        "epoch_s", "slowest_shard_compute_s", "fit_1_s",
                        "fit_4_s", "load_min", "load_max"])
            for c in results["scaling"]:
                s = c["serial"]
                ls = [x for x in s["loads"] if x is not None]
                w.writerow([c["n_features"], c["n_rows"], "serial fit", 1, 1,
                            f"{s['epoch']:.4f}", "", f"{min(s['fit_1']):.4f}",
                            f"{min(s['fit_4']):.4f}", min(ls), max(ls)])
                for key, k, S in (("k1_S1", 1, 1), ("k1_S2", 1, 2),
                                  ("k2_S2", 2, 2)):
                    r = c[key]
                    ls = [x for x in r["loads"] if x is not None]
                    w.writerow([c["n_features"], c["n_rows"], "IPM Dask", k,
                                S, f"{r['epoch']:.4f}",
                                f"{r['shard_compute_slowest']:.4f}",
                                f"{min(r['fit_1']):.4f}",
                                f"{min(r['fit_4']):.4f}", min(ls), max(ls)])
    readme = report.replace("(reports/scale_out/accuracy.png)",
                            "(accuracy.png)")
    readme = readme.replace(TITLE, "# Parameter mixing on Dask (scale-out): "
                                   "full results", 1)
    readme += ("\n\nFiles: `results.json` (every measurement, loads, "
               "profiles), `timings.csv` (item 1), `accuracy.csv` (item 3, "
               "per epoch, with training mistakes), `accuracy.png`. The "
               "reading of these numbers (what limits the scaling, where the "
               "fixed cost goes) is the hand-written note after this section "
               "in `BENCHMARKS.md`.\n")
    (out_dir / "README.md").write_text(readme)


def _restore(part, value):
    """JSON turned int keys into strings: back to ints where they were."""
    if part == "overhead":
        out = {}
        for F, r in value.items():
            r = dict(r)
            r["mixing"] = {int(S): v for S, v in r["mixing"].items()}
            out[int(F)] = r
        return out
    if part == "scaling":
        for case in value:
            case["placement_k2_S2"] = {int(k): v for k, v in
                                       case["placement_k2_S2"].items()}
    return value


def parse_cases(text):
    out = []
    for item in text.split(","):
        f, r, *rounds = item.split(":")
        out.append((int(float(f)), int(float(r)),
                    int(rounds[0]) if rounds else None))
    return out


def main(argv=None):
    def options(p):
        p.add_argument("--parts", default="scaling,overhead,accuracy",
                       help="which items to run (comma-separated)")
        p.add_argument("--scaling-cases", default=None,
                       help="features:rows pairs (default "
                            "1e6:8500000,1e7:7000000:2; quick: "
                            "1e6:400000); an optional third field is the "
                            "number of timed rounds of that case")
        p.add_argument("--overhead-features", default=None,
                       help="model sizes of item 2 (default 1e6,1e7; "
                            "quick: 1e6)")
        p.add_argument("--datasets", default="a9a,w8a,mnist")
        p.add_argument("--epochs", type=int, default=None,
                       help="epochs of item 3 (default 10; quick: 3)")
        p.add_argument("--out-dir", default=None)
        p.add_argument("--merge", default=None,
                       help="a results.json of an earlier run: the items "
                            "not in --parts are taken from it (to run the "
                            "timings when the shared machine is quiet)")

    args = C.parse_bench_args(argv, __doc__, "small sizes (< 2 min)",
                              repeat=(3, 1), min_time=(0.0, 0.0),
                              add_arguments=options)
    args.parts = args.parts.split(",")
    args.scaling_cases = parse_cases(args.scaling_cases or (
        "1e6:400000" if args.quick else "1e6:8500000,1e7:7000000:2"))
    args.overhead_features = [int(float(x)) for x in (
        args.overhead_features or ("1e6" if args.quick else "1e6,1e7")
    ).split(",")]
    args.datasets = args.datasets.split(",")
    args.epochs = args.epochs or (3 if args.quick else 10)
    out_dir = Path(args.out_dir) if args.out_dir else (
        Path("/tmp/bench_parameter_mixing_quick") if args.quick
        else C.REPO_ROOT / "reports" / "scale_out")
    quiet_dask()
    report_only = args.parts == ["none"]
    if report_only and not args.merge:
        raise SystemExit("--parts none rebuilds the report of --merge FILE")
    busy = [C.cpu_busy()] if not report_only else []
    loads = [load1()]
    t_start = time.perf_counter()
    results = {"args": {k: v for k, v in vars(args).items()}}
    if args.merge:
        earlier = json.loads(Path(args.merge).read_text())
        for part in ("scaling", "overhead", "accuracy"):
            if part not in args.parts and part in earlier:
                results[part] = _restore(part, earlier[part])
                results.setdefault("merged", {})[part] = (
                    earlier.get("merged", {}).get(part) or {
                        "from": args.merge,
                        "machine": earlier.get("machine"),
                        "loads": earlier.get("loads")})
        if report_only:
            for key in ("loads", "busy", "machine", "total_seconds"):
                if key in earlier:
                    results[key] = earlier[key]
            results["merged"] = earlier.get("merged") or {}
            results["args"] = earlier["args"]
            for key in ("repeat", "quick", "epochs"):
                setattr(args, key, earlier["args"][key])
    if "scaling" in args.parts:
        results["scaling"] = [run_scaling_case(F, n, args, rounds)
                              for F, n, rounds in args.scaling_cases]
    if "overhead" in args.parts:
        results["overhead"] = run_overhead(args)
    if "accuracy" in args.parts:
        log("accuracy")
        results["accuracy"] = run_accuracy(args)
    if results.get("scaling") and results.get("overhead"):
        feats = sorted({10**7} | {c["n_features"] for c in
                                  results["scaling"]})
        text = {F: svmlight_bytes_per_row(F) for F in feats}
        results["svmlight_bytes_per_row"] = text
        results["projection"] = projection(results["scaling"],
                                           results["overhead"], text, args)
    if not report_only:
        loads.append(load1())
        busy.append(C.cpu_busy())
        results["loads"] = loads
        results["busy"] = busy
        results["machine"] = C.machine_description(loads)
        results["total_seconds"] = time.perf_counter() - t_start
    report = build_report(args, results)
    write_files(out_dir, results, report, args)
    log(f"wrote {out_dir}")
    C.publish(report, SECTION, args.write)


if __name__ == "__main__":
    main()
