"""Fuzz of the files: hostile zip layers of model files, and command lines
whose outputs name their inputs (issue #26). Seeded, small and fast in the
default run; a larger run is marked ``slow``.

Every case runs in a worker process (``_files_worker.py``): a crash is
counted, pinned to its case, and the run goes on. What must hold: nothing
crashes, hangs or raises anything but one ValueError naming the file (a
model file), and no command line changes one of its inputs or leaves a
temporary file behind (command lines).

The zip cases start from saved models (a voted perceptron, a kernel
perceptron, a pipeline with a scaler) and apply one or two mutations each:
byte flips in the central directory, the local headers or anywhere;
truncation; a central directory field set to a hostile value (sizes, the
compression method, the flags, the offset, the CRC); a member duplicated,
dropped, added under a hostile name, replaced by random bytes or by a
deflate bomb; a manifest entry's shape or dtype changed; a .npy header's
shape changed. The cap on the members' declared bytes is lowered to
64 MiB in the worker, so that a bomb that passes the ratio bound meets it
cheaply.
"""

import io
import json
import os
import random
import struct
import subprocess
import sys
import warnings
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tests._zips import FIELDS, central_records

WORKER = Path(__file__).with_name("_files_worker.py")
REPO = Path(__file__).resolve().parents[2]
#: Seconds a worker may take per case before it counts as hung.
_CASE_SECONDS = 60


# ---------------------------------------------------------------- running
def run_cases(cases, folder, env_extra=None):
    """Each case's result, run in workers; a worker that dies or hangs
    marks its case ``crashed`` and a new one takes the rest."""
    env = {**os.environ, "PYTHONPATH": str(REPO), **(env_extra or {})}
    results, start = [None] * len(cases), 0
    while start < len(cases):
        todo = folder / f"cases-{start}.json"
        todo.write_text(json.dumps(cases[start:]))
        try:
            run = subprocess.run(
                [sys.executable, str(WORKER), str(todo)], env=env,
                capture_output=True, text=True, cwd=folder,
                timeout=_CASE_SECONDS * (len(cases) - start) + 60)
            out, died = run.stdout, run.returncode != 0
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode() if isinstance(exc.stdout, bytes) \
                else (exc.stdout or "")
            died = True
        tried = None
        for line in out.splitlines():
            if line.startswith("TRY "):
                tried = start + int(line.split()[1])
            elif line.startswith("RESULT "):
                result = json.loads(line[7:])
                results[start + result["i"]] = result
        if not died:
            break
        crashed = tried if tried is not None else start
        if results[crashed] is None:
            results[crashed] = {"outcome": "crashed"}
        start = crashed + 1
    return [r if r is not None else {"outcome": "crashed"} for r in results]


# ---------------------------------------------------------------- models
def _models(folder):
    """A few saved models whose zip layers are mutated."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from perceptrons import KernelPerceptron, Perceptron
    from perceptrons.persistence import save_model

    rng = np.random.RandomState(0)
    X = rng.randn(60, 5)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    y3 = np.digitize(X[:, 2], [-0.5, 0.5])
    paths = []
    for name, model, labels in [
            ("voted", Perceptron(hypothesis="voted", max_iter=2,
                                 random_state=0), y),
            ("kernel", KernelPerceptron(kernel="rbf", max_iter=2,
                                        random_state=0), y3),
            ("scaled", make_pipeline(StandardScaler(), Perceptron(
                max_iter=2, random_state=0)), y3)]:
        path = folder / f"{name}.npz"
        save_model(model.fit(X, labels), path)
        paths.append(path)
    return paths


def _npy(arr):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr)
    return buf.getvalue()


def _rebuilt(raw, rng, edit):
    """The archive ``raw`` written again with ``edit(members)`` applied to
    its list of ``[name, bytes]`` (deflated); ``raw`` itself if an earlier
    mutation left it unreadable."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            members = [[n, zf.read(n)] for n in zf.namelist()]
        edit(members)
    except Exception:  # noqa: BLE001 - an earlier mutation broke it
        return raw
    out = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, data in members:
                zf.writestr(name, data)
    return out.getvalue()


_HOSTILE_NAMES = ["../a0.npy", "/etc/x", "a/../a1.npy", "dir/", "a1.npy/",
                  "..", "a 1.npy", "header.json.bak", "A0.npy", "a0.npz",
                  "\\a0.npy", "a99999999999.npy"]
_BIG = [0, 1, 2**31 - 1, 2**32 - 1, 10**9, 65535]


def _mutate(raw, rng):
    """One hostile variant of the archive ``raw`` (bytes)."""
    kind = rng.choice(["flip", "flip_directory", "truncate", "field",
                       "field", "duplicate", "drop", "add", "random_member",
                       "manifest", "npy_shape", "bomb", "overlap"])
    records = central_records(raw)
    names = sorted(records)
    if not raw:
        return raw
    if len(names) < 2 and kind in ("field", "overlap", "flip_directory"):
        kind = "flip"  # an earlier mutation left too little directory
    if kind == "flip" or kind == "flip_directory":
        data = bytearray(raw)
        lo = min(records.values()) if kind == "flip_directory" else 0
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(lo, len(data))] ^= 1 << rng.randrange(8)
        return bytes(data)
    if kind == "truncate":
        return raw[:rng.randrange(len(raw))]
    if kind == "field":
        data = bytearray(raw)
        field = rng.choice(sorted(FIELDS))
        offset, fmt = FIELDS[field]
        top = 2**16 - 1 if fmt == "<H" else 2**32 - 1
        value = rng.choice([rng.randrange(top + 1), *[
            v for v in _BIG if v <= top]])
        struct.pack_into(fmt, data, records[rng.choice(names)] + offset,
                         value)
        return bytes(data)
    if kind == "overlap":
        data = bytearray(raw)
        a, b = rng.sample(names, 2)
        offset = struct.unpack_from("<I", data, records[a] + 42)[0]
        struct.pack_into("<I", data, records[b] + 42, offset)
        return bytes(data)

    def edit(members):
        arrays = [m for m in members if m[0].endswith(".npy")]
        header = next(m for m in members if m[0] == "header.json")
        if kind == "duplicate":
            members.append(list(rng.choice(members)))
        elif kind == "drop":
            members.remove(rng.choice(members))
        elif kind == "add":
            members.append([rng.choice(_HOSTILE_NAMES),
                            rng.randbytes(rng.randrange(64))])
        elif kind == "random_member":
            target = rng.choice(members)
            target[1] = rng.randbytes(rng.randrange(1, 4096))
        elif kind == "bomb":
            # 80 MiB of zeros: past the ratio check, refused by the cap
            key = rng.choice(arrays)[0][:-4]
            rows = 10 * 2**20
            h = json.loads(header[1])
            h["arrays"][key] = {"dtype": "<f8", "shape": [rows]}
            header[1] = json.dumps(h).encode()
            for m in members:
                if m[0] == f"{key}.npy":
                    m[1] = _npy(np.zeros(rows))
        elif kind == "manifest":
            h = json.loads(header[1])
            key = rng.choice(sorted(h["arrays"]))
            entry = h["arrays"][key]
            choice = rng.randrange(4)
            if choice == 0:
                entry["shape"] = [rng.choice([0, 1, 7, 10**12, -1])
                                  for _ in range(rng.randint(0, 3))]
            elif choice == 1:
                entry["dtype"] = rng.choice(["<f4", "<i4", "|O", "|V8",
                                             ">f8", "<U3", "|b1", "zzz", 3])
            elif choice == 2:
                del h["arrays"][key]
            else:
                h["arrays"][f"a{rng.randrange(10**6)}"] = dict(entry)
            header[1] = json.dumps(h).encode()
        elif kind == "npy_shape":
            # the .npy header's shape rewritten in place (same length)
            target = rng.choice(arrays)
            head, sep, body = target[1].partition(b"\n")
            text = head.decode("latin1")
            start = text.find("'shape': ") + len("'shape': ")
            end = text.find(")", start) + 1
            new = text[:start] + rng.choice([
                "(10000000000000,)", "(1099511627776, 3)", "(-1,)", "()",
                "(5,)"]) + text[end:]
            target[1] = new[:len(text)].ljust(len(text)).encode(
                "latin1") + sep + body
    return _rebuilt(raw, rng, edit)


def zip_cases(folder, n, seed):
    rng = random.Random(seed)
    bases = [p.read_bytes() for p in _models(folder)]
    cases = []
    for i in range(n):
        raw = rng.choice(bases)
        for _ in range(rng.choice([1, 1, 2])):
            raw = _mutate(raw, rng)
        path = folder / f"m{i}.npz"
        path.write_bytes(raw)
        cases.append({"kind": "load", "path": str(path)})
    return cases


# ---------------------------------------------------------------- cli
def cli_cases(folder, seed):
    """Command lines whose output names an input (refused) or not (run)."""
    from sklearn.datasets import dump_svmlight_file

    from perceptrons.cli import main

    rng = np.random.RandomState(seed)
    X = rng.randn(60, 4)
    y = (X[:, 0] > 0).astype(int)
    d = folder / "cli"
    d.mkdir()
    dump_svmlight_file(X, y, str(d / "train.svm"), zero_based=False)
    with open(d / "train.csv", "w") as fh:
        fh.write("a,b,c,d,label\n")
        for row, label in zip(X, y):
            fh.write(",".join(f"{v:.6g}" for v in row) + f",{label}\n")
    assert main(["train", str(d / "train.svm"), "-o", str(d / "m.npz")]) == 0
    assert main(["train", str(d / "train.csv"), "-o", str(d / "c.npz")]) == 0
    (d / "alias.svm").symlink_to(d / "train.svm")
    os.link(d / "train.csv", d / "hard.csv")
    (d / "sub").mkdir()
    svm, csv, model, cmodel = (str(d / n) for n in
                               ("train.svm", "train.csv", "m.npz", "c.npz"))

    def aliases(path):
        p = Path(path)
        # the worker runs in ``folder``: a relative path from there
        return [path, str(d / "sub" / ".." / p.name),
                os.path.relpath(path, folder),
                str(d / "alias.svm") if p.name == "train.svm" else
                str(d / "hard.csv") if p.name == "train.csv" else path]

    inputs = [svm, csv, model, cmodel]
    cases = []
    for out in aliases(svm):
        cases += [["train", svm, "-o", out],
                  ["train", svm, "--stream", "-o", out],
                  ["train", svm, "--stream", "--cache-file", out, "-o",
                   str(d / "new.npz")],
                  ["predict", model, svm, "-o", out],
                  ["predict", model, svm, "--stream", "-o", out],
                  ["evaluate", svm, "--folds", "2", "--json", out]]
    for out in aliases(csv):
        cases += [["train", csv, "-o", out], ["predict", cmodel, csv, "-o",
                                              out]]
    for out in aliases(model):
        cases += [["predict", model, svm, "-o", out],
                  ["predict", model, svm, "--stream", "-o", out]]
    cases += [["train", svm, "--stream", "--cache-file", str(d / "x.pc"),
               "-o", str(d / "x.pc")]]
    refused = len(cases)
    cases += [["predict", model, svm, "-o", str(d / "pred.txt")],
              ["predict", model, svm, "--stream", "-o", str(d / "p2.txt")],
              ["train", svm, "--stream", "--cache-file", str(d / "ok.pc"),
               "-o", str(d / "ok.npz"), "--max-iter", "2"],
              ["evaluate", svm, "--folds", "2", "--json",
               str(d / "cv.json")],
              ["predict", model, svm, "-o", os.devnull]]
    return [{"kind": "cli", "argv": argv, "inputs": inputs,
             "folder": str(d), "expect": "refused" if i < refused else "ran"}
            for i, argv in enumerate(cases)]


# ---------------------------------------------------------------- tests
def fuzz(folder, n_zip, seed):
    """Run the zip and command-line cases; the tally and the results."""
    cases = zip_cases(folder, n_zip, seed) + cli_cases(folder, seed)
    results = run_cases(cases, folder,
                        {"PERCEPTRONS_MAX_MODEL_BYTES": str(64 * 2**20)})
    tally = Counter()
    for case, result in zip(cases, results):
        tally[(case["kind"], result["outcome"])] += 1
    return cases, results, tally


def _check(cases, results, tally):
    bad = [(c.get("path") or c["argv"], r) for c, r in zip(cases, results)
           if r["outcome"] not in ("refused", "loaded", "ran")
           or ("expect" in c and r["outcome"] != c["expect"])
           or (c.get("expect") == "refused"
               and "writing it would destroy it" not in r["message"])]
    counts = {f"{kind} {outcome}": n for (kind, outcome), n in
              sorted(tally.items())}
    print(f"\nfuzz of the files: {len(cases)} tried; {counts}")
    assert not bad, bad[:5]
    assert tally[("load", "crashed")] == tally[("cli", "crashed")] == 0


def test_fuzz_files(tmp_path):
    _check(*fuzz(tmp_path, n_zip=300, seed=26))


@pytest.mark.slow
def test_fuzz_files_large(tmp_path):
    _check(*fuzz(tmp_path, n_zip=3000, seed=2026))
