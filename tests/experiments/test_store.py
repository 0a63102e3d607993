"""The experiment store: stable keys, resume, damaged files."""

import json
import math
import pickle

import numpy as np
import pytest

from perceptrons.experiments.store import (
    STARTING,
    Store,
    Task,
    canonical_json,
    make_record,
    progress_bar,
    run_tasks,
    task_key,
)


def _square(task):
    return make_record(task, {"value": task.params["x"] ** 2})


def _tasks(n=4):
    return [Task("exp", "data", i, {"x": i}) for i in range(n)]


def test_key_is_stable_and_canonical():
    key = Task("exp", "data", 0, {"a": 1, "b": [0.5, None]}, version="1.0").key
    # the order of the params, tuples for lists, numpy scalars and NaN
    # (written as null) do not change it
    assert key == task_key("exp", "data", 0,
                           {"b": (np.float64(0.5), math.nan),
                            "a": np.int64(1)}, "1.0")
    assert len(key) == 64 and int(key, 16) >= 0
    assert canonical_json({"b": (1.0, np.float64("nan")), "a": "τ"}) == \
        '{"a":"τ","b":[1.0,null]}'
    # every part of the identity matters; the inputs do not
    base = ("exp", "data", 0, {"a": 1, "b": [0.5, None]}, "1.0")
    others = {task_key(*base[:i], change, *base[i + 1:])
              for i, change in enumerate(
                  ["exp2", "data2", 1, {"a": 1, "b": [0.6, None]}, "1.1"])}
    assert len(others | {key}) == 6
    assert Task("exp", "data", 0, {"a": 1, "b": [0.5, None]}, np.ones(3),
                version="1.0").key == key


def test_key_golden_value():
    # Changing the canonical form changes every stored key, so resume would
    # silently rerun everything: it must be a deliberate act.
    assert task_key("exp", "data", 0, {"x": 1}, "0.1.0") == (
        "7ae2999f505a2f0b2aec3bd2e0599b271ec6a0183f740d229b3bb25f1d3eff02")


def test_tasks_and_records_pickle():
    task = Task("exp", "data", 3, {"x": 3}, inputs=np.arange(3))
    again = pickle.loads(pickle.dumps(task))
    assert again.key == task.key
    record = _square(again)
    assert record["result"] == {"value": 9}
    assert record["task"] == {"experiment": "exp", "dataset": "data",
                              "fold": 3, "params": {"x": 3},
                              "version": task.version}
    for key in ("perceptrons_version", "numba_version", "git_sha",
                "created_utc", "load_average"):
        assert key in record["meta"]
    json.dumps(record, allow_nan=False)


def test_records_written_as_they_finish_and_read_back(tmp_path):
    store = Store(tmp_path / "sub" / "r.jsonl")
    seen = []

    def worker(task):
        # the records of the tasks before this one are on disk already
        seen.append(len(store.read()))
        return _square(task)

    records = run_tasks(worker, _tasks(), store)
    assert seen == [0, 1, 2, 3]
    assert [r["result"]["value"] for r in records] == [0, 1, 4, 9]
    assert list(store.read().values()) == records


def test_resume_skips_done_tasks(tmp_path):
    path = tmp_path / "r.jsonl"
    first = run_tasks(_square, _tasks(3), Store.open(path))
    calls = []

    def worker(task):
        calls.append(task.fold)
        return _square(task)

    again = run_tasks(worker, _tasks(5), Store.open(path, resume=True),
                      resume=True)
    assert calls == [3, 4]
    assert again[:3] == first
    # without resume every task runs again, and the file starts empty
    calls.clear()
    run_tasks(worker, _tasks(2), Store.open(path), resume=False)
    assert calls == [0, 1] and len(Store(path).read()) == 2


def test_resume_runs_failed_tasks_again_and_last_record_wins(tmp_path):
    store = Store(tmp_path / "r.jsonl")

    def failing(task):
        return make_record(task, {"error": "boom"}, status="error")

    run_tasks(failing, _tasks(2), store)
    records = run_tasks(_square, _tasks(2), store, resume=True)
    assert [r["status"] for r in records] == ["ok", "ok"]
    assert len(store.path.read_text().splitlines()) == 4
    assert [r["status"] for r in store.read().values()] == ["ok", "ok"]


def test_corrupt_line_is_a_clear_error(tmp_path):
    store = Store(tmp_path / "r.jsonl")
    run_tasks(_square, _tasks(2), store)
    lines = store.path.read_text().splitlines()
    store.path.write_text(lines[0] + "\n" + lines[1][:40] + "\n")
    with pytest.raises(ValueError, match=r"r\.jsonl, line 2: corrupt record"):
        run_tasks(_square, _tasks(2), store, resume=True)
    store.path.write_text(lines[0] + '\n{"schema": "other"}\n')
    with pytest.raises(ValueError, match="line 2: not a perceptrons-record"):
        store.read()


def test_mapper_is_the_parallel_hook():
    used = []

    def mapper(fn, tasks):
        used.append(len(tasks))
        return [fn(t) for t in reversed(tasks)]

    records = run_tasks(_square, _tasks(3), mapper=mapper)
    assert used == [3]
    assert [r["task"]["fold"] for r in records] == [0, 1, 2]


def test_progress_bar_says_it_is_starting_until_the_first_task(capsys):
    # A first run compiles numba's loops inside the first task: the bar
    # says so rather than sit at 0/N, and its clock (rate, ETA) starts when
    # that task is done, not before the compilation (issue #41).
    bar = progress_bar(4, progress=True, desc="demo")
    assert STARTING in capsys.readouterr().err
    started = bar.start_t
    bar.update()
    assert bar.n == 1 and bar.start_t > started and not bar.postfix
    bar.update(2)
    bar.refresh()
    assert bar.n == 3
    assert STARTING not in capsys.readouterr().err.split("\r")[-1]
    bar.close()
