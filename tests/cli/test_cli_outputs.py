"""No command line destroys one of its inputs, and no failure leaves half
an output file (issue #26, item 4)."""

import os
import stat

import pytest

from perceptrons.cli import main


@pytest.fixture
def d(files, tmp_path):
    """A private copy of the data files and a trained model."""
    out = tmp_path / "d"
    out.mkdir()
    for name in ("train.csv", "test.csv", "train.svm", "test.svm", "bad.svm"):
        (out / name).write_bytes((files / name).read_bytes())
    assert main(["train", str(out / "train.svm"), "-o",
                 str(out / "m.npz")]) == 0
    assert main(["train", str(out / "train.csv"), "--label-column", "0",
                 "-o", str(out / "c.npz")]) == 0
    return out


def _contents(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("args, fragment", [
    (["train", "{d}/train.csv", "--label-column", "0", "-o",
      "{d}/train.csv"], "is the data file"),
    (["train", "{d}/train.svm", "-o", "{d}/train.svm"], "is the data file"),
    (["train", "{d}/train.svm", "{d}/test.svm", "-o", "{d}/test.svm"],
     "is the data file"),
    (["train", "{d}/train.svm", "--stream", "-o", "{d}/train.svm"],
     "is the data file"),
    (["train", "{d}/train.svm", "--stream", "--cache-file", "{d}/m2.npz",
      "-o", "{d}/m2.npz"], "is the cache file"),
    (["train", "{d}/train.svm", "--stream", "--cache-file",
      "{d}/train.svm", "-o", "{d}/new.npz"], "is the data file"),
    (["predict", "{d}/m.npz", "{d}/test.svm", "-o", "{d}/test.svm"],
     "is the data file"),
    (["predict", "{d}/m.npz", "{d}/test.svm", "--stream", "-o",
      "{d}/test.svm"], "is the data file"),
    (["predict", "{d}/m.npz", "{d}/test.svm", "-o", "{d}/m.npz"],
     "is the model file"),
    (["predict", "{d}/c.npz", "{d}/test.csv", "-o", "{d}/test.csv"],
     "is the data file"),
    (["predict", "{d}/m.npz", "{d}/test.svm", "--stream", "-o",
      "{d}/m.npz"], "is the model file"),
    (["evaluate", "{d}/train.svm", "--folds", "2", "--json",
      "{d}/train.svm"], "is the data file"),
])
def test_output_that_is_an_input_is_refused(d, error_line, args, fragment):
    before = _contents(d)
    assert main([a.format(d=d) for a in args]) == 2
    line = error_line()
    assert fragment in line and "choose another path" in line
    assert _contents(d) == before  # nothing written, nothing removed


@pytest.mark.parametrize("link", ["symlink", "hardlink", "dotted"])
def test_output_naming_an_input_another_way_is_refused(d, error_line, link):
    target = d / "test.svm"
    if link == "symlink":
        other = d / "alias.svm"
        other.symlink_to(target)
    elif link == "hardlink":
        other = d / "hard.svm"
        os.link(target, other)
    else:
        other = d / "." / ".." / d.name / "test.svm"
    before = target.read_bytes()
    assert main(["predict", str(d / "m.npz"), str(target), "-o",
                 str(other)]) == 2
    assert "is the data file" in error_line()
    assert target.read_bytes() == before


def test_failed_stream_prediction_keeps_the_old_output(d, capsys):
    """A malformed line in the middle of the file: the earlier chunks'
    predictions were written, but only to a temporary file, removed."""
    lines = (d / "test.svm").read_text().splitlines(keepends=True)
    (d / "half.svm").write_text("".join(lines[:20]) + "1 2:abc\n"
                                + "".join(lines[20:]))
    out = d / "pred.txt"
    out.write_text("old predictions\n")
    assert main(["predict", str(d / "m.npz"), str(d / "half.svm"),
                 "--stream", "--chunk-bytes", "256", "-o", str(out)]) == 2
    assert "half.svm" in capsys.readouterr().err
    assert out.read_text() == "old predictions\n"
    assert not [p for p in d.iterdir() if p.name.endswith(".tmp")]


def test_outputs_are_written_whole_with_the_umask(d, capsys):
    out = d / "pred.txt"
    assert main(["predict", str(d / "m.npz"), str(d / "test.svm"), "--stream",
                 "-o", str(out)]) == 0
    assert main(["predict", str(d / "m.npz"), str(d / "test.svm"), "-o",
                 str(d / "pred2.txt")]) == 0
    assert out.read_text() == (d / "pred2.txt").read_text()
    assert len(out.read_text().splitlines()) == 40
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask
    assert main(["evaluate", str(d / "train.svm"), "--folds", "2", "--json",
                 str(d / "cv.json")]) == 0
    assert (d / "cv.json").read_text().startswith("{")
    assert not [p for p in d.iterdir() if p.name.endswith(".tmp")]


def test_output_through_a_symlink_and_to_a_device(d, capsys):
    """A link is written through (the file it names gets the output); a
    device such as /dev/null is written in place, never replaced."""
    real = d / "real.txt"
    real.write_text("")
    (d / "link.txt").symlink_to(real)
    assert main(["predict", str(d / "m.npz"), str(d / "test.svm"), "-o",
                 str(d / "link.txt")]) == 0
    assert (d / "link.txt").is_symlink()
    assert len(real.read_text().splitlines()) == 40
    assert main(["predict", str(d / "m.npz"), str(d / "test.svm"), "-o",
                 os.devnull]) == 0
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
