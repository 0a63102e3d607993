"""Worker of tests/fuzz/test_fuzz_files.py: runs cases in its own process.

``python _files_worker.py CASES.json`` reads a list of cases and, for each,
prints ``TRY <i>`` before it and ``RESULT <json>`` after it (flushed), so
that the parent pins a crash to its case and goes on with a new worker.

A case is ``{"kind": "load", "path": ...}``: ``load_model(path)``, or
``{"kind": "cli", "argv": [...], "inputs": [...], "folder": ...}``: the
command line run in-process, its inputs hashed before and after, the
folder listed for stray files. Outcomes (the ``outcome`` field):

``refused``
    one ValueError naming the file (load), or exit status 2 with one
    ``perceptrons: error:`` line and every input intact (cli);
``loaded`` / ``ran``
    the file loaded; the command line succeeded with its inputs intact;
``bad-message``
    refused, but the message does not name the file or is not one line;
``destroyed``
    an input changed, or a temporary file was left behind;
``error:<type>``
    any other exception.
"""

import contextlib
import hashlib
import io
import json
import os
import sys
import warnings


def _digest(path):
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def _load(case):
    from perceptrons.persistence import load_model

    path = case["path"]
    try:
        load_model(path)
    except ValueError as exc:
        message = str(exc)
        ok = message.startswith(path) and "\n" not in message
        return {"outcome": "refused" if ok else "bad-message",
                "message": message[:300]}
    except BaseException as exc:  # noqa: BLE001 - every other is a defect
        if isinstance(exc, KeyboardInterrupt):
            raise
        return {"outcome": f"error:{type(exc).__name__}",
                "message": str(exc)[:300]}
    return {"outcome": "loaded"}


def _cli(case):
    from perceptrons.cli import main

    before = {p: _digest(p) for p in case["inputs"]}
    listing = set(os.listdir(case["folder"]))
    err, out = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            status = main(case["argv"])
    except BaseException as exc:  # noqa: BLE001 - every other is a defect
        if isinstance(exc, KeyboardInterrupt):
            raise
        return {"outcome": f"error:{type(exc).__name__}",
                "message": str(exc)[:300]}
    after = {p: _digest(p) if os.path.exists(p) else None for p in before}
    stray = sorted(n for n in set(os.listdir(case["folder"])) - listing
                   if n.endswith(".tmp"))
    lines = [ln for ln in err.getvalue().splitlines()
             if ln.startswith("perceptrons: error:")]
    result = {"status": status, "message": err.getvalue()[-300:]}
    if after != before or stray:
        result["outcome"] = "destroyed"
    elif status == 2 and len(lines) == 1 and \
            "Traceback" not in err.getvalue():
        result["outcome"] = "refused"
    elif status == 0:
        result["outcome"] = "ran"
    else:
        result["outcome"] = "bad-message"
    return result


def main(path):
    with open(path) as fh:
        cases = json.load(fh)
    warnings.simplefilter("ignore")
    for i, case in enumerate(cases):
        print(f"TRY {i}", flush=True)
        result = (_load if case["kind"] == "load" else _cli)(case)
        print("RESULT " + json.dumps({"i": i, **result}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
