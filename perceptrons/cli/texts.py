"""The help texts of ``perceptrons``: epilogs with examples and references,
and docstring summaries with their citations written as the papers' names
(:func:`cite_by_name`, also used by the documentation's API pages)."""

import re
import textwrap

PROG = "perceptrons"

PAPERS = """\
papers:
  R. Khardon, G. Wachman. Noise tolerant variants of the perceptron algorithm.
    JMLR 8:227-248, 2007 (the threshold perceptron with margin tau, lambda-trick,
    alpha-bound, longest survivor and voted hypotheses; the 10-fold CV with a
    95% T-interval of their footnote 5).
  Y. Freund, R. Schapire. Large margin classification using the perceptron
    algorithm. Machine Learning 37(3), 1999 (voted perceptron).
  F. Rosenblatt. The perceptron. Psychological Review 65(6), 1958.
"""

MAIN = """\
examples:
  perceptrons demo                          # compare the family on built-in data
  perceptrons train a9a.svm -o model.npz --hypothesis voted
  perceptrons predict model.npz a9a.t.svm -o predictions.txt
  perceptrons evaluate wdbc.data --id-column 0 --label-column 1 --scale standard
  perceptrons reproduce pdm --quick         # a paper's tables and figures
  perceptrons models                        # estimators and their parameters
  perceptrons COMMAND --help                # details of one command

""" + PAPERS

DATA = """\
data files:
  svmlight/LIBSVM text ("label index:value ..."), optionally .gz/.bz2/.xz
  compressed, or CSV with or without a header row (--format csv,
  --label-column N or NAME; several columns, comma-separated or the option
  repeated, each 0/1, are a multi-label problem: one binary problem per
  label, predicted as one column per label).
  --format auto picks CSV for *.csv and *.data (after a compression suffix),
  svmlight otherwise. Nominal CSV columns are one-hot encoded (K&W Sec. 3.1).
  train saves how the file was read in the model (CSV columns, levels and
  missing values; svmlight zero- or one-based indices; --scale statistics),
  and predict reads its file the same way.
"""

TRAIN = DATA + """
algorithm options (unset options keep the estimator's defaults; see
`perceptrons models`):
  --eta            learning rate eta (K&W: 0.1)
  --theta-init     initial threshold theta_Init, a number or "auto" = avg <x,x>
  --threshold-step C: an update on label y moves theta by -eta*y*C ("auto")
  --margin         absolute margin: update when y(<w,x> - theta) <= margin
  --tau            the margin in units of theta_Init, as K&W state it
                   (margin = tau * theta_Init, theta_Init from the training data)
  --lam            lambda of the lambda-trick, K&W Eq. (1)
  --alpha-bound    at most this many updates per example ("none": unbounded)
  --hypothesis     last | longest | voted | averaged
  --multiclass     ovr | prototype
  --NAME VALUE     any other parameter of the model, e.g. --extension 1

streaming (--stream; svmlight files larger than memory):
  the file is read --chunk-bytes at a time and each chunk goes to the model's
  partial_fit, so memory is bounded by the chunk, not the file. Every pass but
  the first reads a binary cache of the parsed chunks (a temporary file, or
  --cache-file, kept and reused while the data file is unchanged). The rows
  come in file order, or shuffled within buffers of --shuffle-buffer rows.
  Quantities fit derives from all the data (e.g. theta_init "auto", the
  average <x,x>) come from the first chunk; --scale is not available.

parameter mixing (--shards, --scheduler, or several svmlight files):
  McDonald, Hall & Mann's iterative parameter mixing: every shard runs one pass
  of the model from the mixed weights, the shards' weights are averaged
  (--mixing uniform, or by each shard's updates), and so on for --max-iter
  passes. Shard files are read by the Dask workers themselves. Perceptron
  (hypothesis last or averaged) and Ballseptron, without a kernel; one shard
  is the plain fit, bit for bit.

examples:
  perceptrons train train.svm -o model.npz
  perceptrons train part-0.svm part-1.svm part-2.svm --scheduler tcp://host:8786
  perceptrons train train.svm --shards 4 --scheduler local:2 --mixing mistakes
  perceptrons train train.svm.gz -o model.npz --hypothesis voted --max-iter 100
  perceptrons train wdbc.data --id-column 0 --label-column 1 --scale standard \\
      --tau 1 -o wdbc.npz
  perceptrons train crx.data --missing mean -o crx.npz
  perceptrons train news.csv --label-column sports,politics,tech -o news.npz
  perceptrons train train.svm --model kernel-perceptron --kernel poly --degree 4
  perceptrons train big.svm --stream --max-iter 5 --shuffle-buffer 100000 \\
      --cache-file big.pcache -o big.npz

The model file is a zip of .npy arrays plus a JSON header, loaded without
pickle (see perceptrons.persistence).

""" + PAPERS

PREDICT = """\
Writes exactly one predicted label per line for every row of DATA, in order;
a multi-label model (trained on several --label-column columns) writes a CSV
of one 0/1 column per label, after a header row of the label names.
DATA is read as the model's training file was: a CSV file's columns, levels
and missing values as saved in the model (a missing value is filled as in
training, a level never seen in training gives all-zero indicators, and both
are counted on stderr); an svmlight file with the saved indexing (it may omit
trailing features, but more features than the model is an error). A CSV file
with one column fewer than the training file has no label column
(--label-column none says so). If DATA holds labels, the accuracy is
reported on stderr (silence it with -q), or the reason there is none.

examples:
  perceptrons predict model.npz test.svm
  perceptrons predict model.npz test.svm -o predictions.txt
  perceptrons predict crx.npz crx_test.data --label-column none
  perceptrons predict big.npz big_test.svm --stream -o predictions.txt

""" + DATA

EVALUATE = """\
Stratified, shuffled k-fold cross-validation (the same folds for a given
--seed). Reports the mean accuracy with the T-confidence interval of Khardon
& Wachman (2007), footnote 5:
    mean +/- t_{k-1, 0.975} * sqrt( sum_i (acc_i - mean)^2 / (k (k-1)) )
and the online mistakes: the fraction of the rows presented in training
(over all passes, n_mistakes_ / t_) the model predicted wrongly before
learning from them, averaged over the folds. With --tau, theta_Init (and so
the margin) is resolved on each training fold.

examples:
  perceptrons evaluate train.svm
  perceptrons evaluate train.svm --hypothesis voted --folds 5 --seed 1
  perceptrons evaluate wdbc.data --id-column 0 --label-column 1 --tau 0.5 --scale

""" + DATA + "\n" + PAPERS

DEMO = """\
Runs the Khardon & Wachman (2007) family - classic (last), longest survivor,
voted, averaged, margin tau = 0.5 and 1 (units of theta_Init), lambda-trick,
alpha-bound - and scikit-learn's Perceptron on built-in data only (K&W's
artificial data f=50, M=0.1, N in {0, 0.1}; scikit-learn's breast cancer
(WDBC) and digits), with 10-fold CV accuracy, 95% T-interval and online
mistake rate. Prints a Markdown table and writes into --output-dir:
  demo_records.jsonl (a record per fold, with the package and numba
  versions and the git SHA), demo_run.json (wall time, executor),
  demo_results.json, demo_results.csv, demo_table.md, demo_accuracy.png.

examples:
  perceptrons demo
  perceptrons demo --quick --output-dir /tmp/demo
  perceptrons demo --datasets wdbc digits --folds 5

""" + PAPERS


def wrap(text):
    """``text`` as one paragraph of at most 78 columns."""
    return textwrap.fill(text, width=78)


def reproduce_epilog(entries):
    """The list of reproductions, a name and its summary each, and examples."""
    lines = ["reproductions:"]
    for entry in entries:
        lines.append(f"  {entry.name}")
        lines.extend(textwrap.wrap(entry.summary, width=78,
                                   initial_indent=" " * 4,
                                   subsequent_indent=" " * 4))
    example = entries[0].name if entries else "NAME"
    lines += ["", "examples:",
              f"  perceptrons reproduce {example} --quick",
              f"  perceptrons reproduce {example} --jobs 2 --resume "
              "--output-dir results",
              f"  perceptrons reproduce {example} --scheduler "
              "tcp://host:8786",
              f"  perceptrons reproduce {example} --render-only "
              "--output-dir results"]
    return "\n".join(lines) + "\n"


# A numpydoc reference ".. [1] R. Khardon and G. Wachman. Title. ...", its
# continuation lines indented; a citation "[1]_" of one.
_REFERENCE = re.compile(r"^\s*\.\. \[(\w+)\]\s+(.*(?:\n(?!\s*\.\. \[)\s+\S.*)*)",
                        re.M)
_CITATION = re.compile(r"\s*\[(\w+)\]_")
# "C. Brotto, C. Gentile and F. Vitale" (initials, then a surname, each)
_AUTHOR = r"(?:[A-Z][a-z]?\.\s*)+[\w'-]+"
_AUTHORS = re.compile(rf"{_AUTHOR}(?:(?:,\s*|,?\s+and\s+){_AUTHOR})*")
_YEAR = re.compile(r"\b(?:1[89]|20)\d\d\b")


def _names(reference):
    """"Brotto, Gentile & Vitale" and "2007" of a reference's text."""
    reference = " ".join(reference.split())
    authors = _AUTHORS.match(reference)
    surnames = re.findall(r"(?:[A-Z][a-z]?\.\s*)+([\w'-]+)",
                          authors.group(0)) if authors else []
    if len(surnames) > 3:
        names = f"{surnames[0]} et al."
    else:
        names = " & ".join(filter(None, (", ".join(surnames[:-1]),
                                         surnames[-1] if surnames else "")))
    year = _YEAR.search(reference, authors.end() if authors else 0)
    return names, year.group(0) if year else ""


def cite_by_name(text, doc):
    r"""``text`` with its numpydoc citations written as the papers' names.

    A summary line shown out of its docstring (``perceptrons models``, the
    API index's tables) cannot link ``[1]_`` to its reference, and showed
    it as ``[1]_`` or numpydoc's ``[R0ad330fde0c6-1]``; this writes it as
    scikit-learn's pages do, "(authors year)", from the References section
    of ``doc``: ``"..., Brotto, Gentile & Vitale [1]_."`` becomes ``"...,
    Brotto, Gentile & Vitale (2007)."``, and a citation not preceded by its
    authors' names gets them, ``"(Khardon & Wachman 2007)"``.

    Parameters
    ----------
    text : str
        The text citing (a docstring's summary line).
    doc : str
        The docstring holding the references; a citation without one is
        left as it is.

    Returns
    -------
    str

    Examples
    --------
    >>> doc = ("References\n----------\n"
    ...        ".. [1] C. Brotto, C. Gentile and F. Vitale. On higher-order\n"
    ...        "   perceptron algorithms. NIPS 20, 2007.\n")
    >>> cite_by_name("HO_p(c), Brotto, Gentile & Vitale [1]_.", doc)
    'HO_p(c), Brotto, Gentile & Vitale (2007).'
    >>> cite_by_name("Higher-order perceptron [1]_.", doc)
    'Higher-order perceptron (Brotto, Gentile & Vitale 2007).'
    """
    references = {key: _names(body)
                  for key, body in _REFERENCE.findall(doc or "")}

    def name(match):
        if match.group(1) not in references:
            return match.group(0)
        names, year = references[match.group(1)]
        before = text[:match.start()].rstrip()
        if names and before.endswith(names):
            return f" ({year})"
        return f" ({' '.join(filter(None, (names, year)))})"

    return _CITATION.sub(name, text)
