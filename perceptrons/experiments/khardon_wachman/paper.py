"""Khardon & Wachman (2007), Sec. 3: the paper's grids and numbers.

:func:`paper_columns` builds K&W's columns over the grids :data:`TAU_GRID`,
:data:`LAMBDA_GRID` and :data:`ALPHA_GRID` (:data:`INACTIVE` is each
parameter's "Nothing"); ``PAPER_TABLE<n>`` hold the paper's Tables 2 to 7
as transcribed, in %.
"""

from .._grid import Column

__all__ = ["ALPHA_GRID", "INACTIVE", "LAMBDA_GRID", "PAPER_TABLE2",
           "PAPER_TABLE3", "PAPER_TABLE4", "PAPER_TABLE5", "PAPER_TABLE6",
           "PAPER_TABLE6_SVM", "PAPER_TABLE7", "TAU_GRID", "paper_columns"]

#: τ in units of θ_Init (K&W Sec. 3.2), from no effect to a strong one.
TAU_GRID = (0.0, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0)
#: α-bound; None is ∞ (no bound).
ALPHA_GRID = (None, 80, 60, 40, 20, 10, 5)
#: λ of the λ-trick.
LAMBDA_GRID = (0.0, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0)
#: The inactive value of each parameter (K&W's "Nothing").
INACTIVE = {"tau": 0.0, "lam": 0.0, "alpha_bound": None}

_PAPER_VALUES = {"tau": TAU_GRID, "lam": LAMBDA_GRID,
                 "alpha_bound": ALPHA_GRID}
_SYMBOL = {"tau": "τ", "lam": "λ", "alpha_bound": "α"}


def paper_columns(kind="optimization", parameters=("tau", "lam",
                                                   "alpha_bound")):
    """K&W's columns: Nothing, τ, λ, α, τ×λ, τ×α and (optimisation) τ→α, τ→λ.

    Parameters
    ----------
    kind : {"optimization", "search"}, default="optimization"
        "search" excludes each parameter's inactive value from its columns
        (Tables 3 and 4); "optimization" includes it (Tables 6 and 7) and
        adds the sequential columns.
    parameters : tuple of str, default=("tau", "lam", "alpha_bound")
        The parameters to use; drop "alpha_bound" for Adult and MNIST (K&W:
        "too few iterations to justify any reasonable α-bound").

    Returns
    -------
    list of Column
        Names "Nothing", "τ", "λ", "α", "τ×λ", "τ×α", "τ→α", "τ→λ".

    Examples
    --------
    >>> cols = paper_columns("search")
    >>> [c.name for c in cols]
    ['Nothing', 'τ', 'λ', 'α', 'τ×λ', 'τ×α']
    >>> len(cols[4].cells())  # 6 active τ × 6 active λ
    36
    """
    if kind not in ("optimization", "search"):
        raise ValueError(f"kind must be 'optimization' or 'search', got "
                         f"{kind!r}")
    unknown = set(parameters) - set(_PAPER_VALUES)
    if unknown:
        raise ValueError(f"unknown paper parameter(s) {sorted(unknown)}; "
                         f"known: {sorted(_PAPER_VALUES)}")
    off = {p: (INACTIVE[p],) for p in parameters}
    values = {p: (_PAPER_VALUES[p] if kind == "optimization"
                  else _PAPER_VALUES[p][1:]) for p in parameters}
    cols = [Column("Nothing", (dict(off),))]
    for p in ("tau", "lam", "alpha_bound"):
        if p in parameters:
            cols.append(Column(_SYMBOL[p], ({**off, p: values[p]},)))
    for p in ("lam", "alpha_bound"):
        if "tau" in parameters and p in parameters:
            cols.append(Column(f"τ×{_SYMBOL[p]}", (
                {**off, "tau": values["tau"], p: values[p]},)))
    if kind == "optimization" and "tau" in parameters:
        for p in ("alpha_bound", "lam"):
            if p in parameters:
                cols.append(Column(f"τ→{_SYMBOL[p]}", (
                    {**off, "tau": values["tau"]}, {p: values[p]})))
    return cols


STEM = "khardon_wachman"
PAPER_HYPS = ("last", "longest", "voted")
_HYP_LABEL = {"last": "Last", "longest": "Longest", "voted": "Voted",
              "averaged": "Averaged (ours)"}
SEARCH_COLS = ("Nothing", "τ", "λ", "α", "τ×λ", "τ×α")
OPT_COLS = ("Nothing", "τ", "λ", "α", "τ×α", "τ×λ", "τ→α", "τ→λ")
NOISE = (0.0, 0.05, 0.1, 0.15, 0.25)
MARGINS = (0.05, 0.1, 0.25, 0.5, 0.75)
FEATURES = (50, 200, 500)


def _rows3(text, cols, pairs=False):
    """Parse paper rows: 'dataset|Last v v ..|Longest ..|Voted ..'."""
    out = {}
    for line in text.strip().splitlines():
        name, *hyps = [p.strip() for p in line.split("|")]
        for hyp, row in zip(PAPER_HYPS, hyps):
            vals = [float(v) for v in row.replace("+/-", " ").split()]
            if pairs:
                vals = list(zip(vals[0::2], vals[1::2]))
            out[(name, hyp)] = dict(zip(cols, vals))
    return out


#: Table 3, UCI rows (search columns), in %.
PAPER_TABLE3 = _rows3("""
breast-cancer-wisconsin|90.6 96.8 97.2 96.9 97.3 97.2|96.9 97.0 97.2 97.0 97.3 97.2|96.9 96.8 97.2 96.9 97.3 97.2
bupa|57.5 71.8 64.1 69.2 71.5 67.8|64.1 58.2 64.8 68.4 60.9 61.2|68.9 65.9 67.7 70.7 67.4 66.0
wdbc|92.4 93.2 92.8 93.3 93.9 92.6|92.4 93.2 92.6 92.4 92.8 92.8|92.3 92.0 93.2 92.4 93.2 92.4
crx|62.5 68.6 65.5 66.7 69.0 66.7|55.1 63.6 65.5 63.5 65.5 65.2|64.9 65.4 65.5 66.7 65.5 66.4
promoters|78.8 92.8 82.1 78.8 94.4 93.8|78.8 92.8 82.1 78.8 94.4 94.4|78.8 93.4 82.1 78.8 94.4 93.8
ionosphere|86.6 87.5 86.9 87.7 88.6 87.2|87.2 87.5 87.8 88.0 88.3 87.7|88.0 87.7 87.5 88.6 88.9 87.5
wpbc|77.3 76.4 80.6 76.9 79.0 76.4|77.2 76.4 77.4 78.5 76.9 76.4|78.8 76.4 80.6 77.4 78.5 76.4
sonar|71.9 74.6 72.5 77.1 75.8 79.1|75.3 77.1 73.3 77.2 77.7 78.7|75.1 77.2 73.8 77.1 78.7 77.7
""", SEARCH_COLS)

#: Table 3's "other data sets" (K&W: no α on MNIST).
PAPER_TABLE3.update(_rows3("""
usps|91.5 94.1 90.4 92.8 94.3 94.1|86.9 93.9 90.4 92 93.9 93.9|93.5 94.2 93.4 93.6 94.3 94.3
""", SEARCH_COLS))
PAPER_TABLE3.update(_rows3("""
mnist|85.2 89.2 85.2 89.2|81.7 88.6 81.7 88.6|90.2 90.6 90.2 90.6
""", ("Nothing", "τ", "λ", "τ×λ")))

#: Table 4 (f = 50, M = 0.05), by noise level N, in %.
PAPER_TABLE4 = _rows3("""
0|95.4 97 95.6 96.1 96.8 97|95.4 96.6 95.6 95.9 97.3 96.8|95.4 96.6 95.4 96.1 96.8 97
0.05|81.7 89.4 87 89.5 89.7 89.9|86.6 89.7 87 89.3 89.9 89.9|87.5 89.4 87 89.5 89.7 90.2
0.1|77.8 84.6 81.9 85.1 84.9 85.8|77.2 84.9 81.9 85.1 84.6 85.5|81.6 84.9 81.9 85.1 84.9 85.6
0.15|71.2 81.6 79.9 80.6 81.6 81.7|72.9 80.7 79.9 79.2 80.7 81.7|75.6 81.6 79.9 80.6 82.1 81.6
0.25|59.9 70.7 68.2 70.7 71.1 71.1|65 70.7 68.2 70.1 70.4 70.6|68 70.4 69.4 70.7 70.6 71.1
""", SEARCH_COLS)

#: Table 6 (parameter optimisation), (mean, T-interval half-width) in %.
PAPER_TABLE6 = _rows3("""
breast-cancer-wisconsin|90.6 +/- 2.3 95.2 +/- 2.1 95.2 +/- 3.1 94.7 +/- 3.3 95.3 +/- 2.6 96.3 +/- 2.1 95.1 +/- 2.3 96.9 +/- 1.3|96.9 +/- 1.2 96.8 +/- 1.7 97.2 +/- 1.4 96.3 +/- 1.9 96.8 +/- 1.6 97 +/- 1.6 96.8 +/- 1.7 96.9 +/- 1.8|96.9 +/- 1.3 96.8 +/- 1.4 97 +/- 1.4 96.6 +/- 1.6 97 +/- 1.6 97.2 +/- 1.4 96.8 +/- 1.4 96.9 +/- 1.5
bupa|57.5 +/- 7.8 69.8 +/- 6.5 61.5 +/- 6.3 68.9 +/- 4.1 69.9 +/- 5.7 69.8 +/- 5.8 69.8 +/- 6.5 70.9 +/- 5.9|64.1 +/- 7.1 64.1 +/- 7.1 64.1 +/- 6.6 65.3 +/- 4.3 65.3 +/- 4.3 64.1 +/- 6.6 65.3 +/- 4.3 64.1 +/- 6.6|68.9 +/- 5.8 68.9 +/- 5.8 67.5 +/- 6.4 68.9 +/- 6.3 68.9 +/- 6.3 67.5 +/- 6.2 68.9 +/- 6.3 67.2 +/- 6.0
wdbc|92.4 +/- 2.9 93 +/- 2.7 93.2 +/- 2.5 91.6 +/- 2.7 92.8 +/- 2.8 93.2 +/- 2.8 93 +/- 2.7 93.5 +/- 2.2|92.4 +/- 2.0 91.7 +/- 2.5 92.1 +/- 2.5 92.3 +/- 2.3 93.2 +/- 1.7 92.5 +/- 2.1 92.6 +/- 2.1 91.4 +/- 2.9|92.3 +/- 2.3 92.3 +/- 2.6 92.8 +/- 2.7 91.7 +/- 1.9 91.6 +/- 2.2 92.4 +/- 2.4 91.6 +/- 2.6 92.8 +/- 2.3
crx|62.5 +/- 5.1 68.7 +/- 2.9 64.5 +/- 4.1 65.8 +/- 4.1 68.1 +/- 3.5 68.7 +/- 2.2 68.7 +/- 2.9 67.8 +/- 2.8|55.1 +/- 7.3 60.4 +/- 6.5 62.6 +/- 4.8 62.6 +/- 4.4 64.5 +/- 4.9 60.9 +/- 5.7 62.9 +/- 4.6 59.4 +/- 6.7|64.9 +/- 4.0 64.2 +/- 2.7 65.4 +/- 3.2 66.2 +/- 3.8 66.4 +/- 3.7 64.9 +/- 2.6 65.7 +/- 3.3 64.3 +/- 3.1
ionosphere|86.6 +/- 3.8 87.2 +/- 3.4 86.3 +/- 3.5 85.7 +/- 4.8 86.9 +/- 3.4 86.9 +/- 2.6 86.6 +/- 3.0 86.6 +/- 2.6|87.2 +/- 3.8 86.9 +/- 2.6 87.8 +/- 3.6 87.5 +/- 3.5 86.9 +/- 4.0 87.2 +/- 3.2 86.9 +/- 3.4 87.7 +/- 2.9|88 +/- 3.7 86.3 +/- 4.3 86.6 +/- 3.5 87.7 +/- 3.2 87.5 +/- 3.2 87.7 +/- 3.1 86 +/- 4.9 86 +/- 3.9
wpbc|77.3 +/- 4.7 76.7 +/- 4.4 76.4 +/- 4.4 75.1 +/- 6.1 75.1 +/- 6.1 77 +/- 5.2 75.7 +/- 6.2 78.3 +/- 5.1|77.2 +/- 3.8 76.7 +/- 5.3 75.8 +/- 3.6 75.8 +/- 6.0 76.9 +/- 4.4 74.8 +/- 4.3 75.8 +/- 4.4 74.6 +/- 5.4|78.8 +/- 4.7 78.5 +/- 4.8 79 +/- 5.0 76.4 +/- 4.8 76.9 +/- 4.8 79 +/- 5.0 76.9 +/- 4.8 78.5 +/- 5.1
sonar|71.9 +/- 6.3 73.1 +/- 5.4 72.4 +/- 6.0 75.5 +/- 6.4 72.1 +/- 7.4 71.1 +/- 6.5 74.1 +/- 6.4 73.6 +/- 5.1|75.3 +/- 5.1 77.6 +/- 6.2 73.3 +/- 6.0 74.3 +/- 6.9 73.5 +/- 5.9 74.1 +/- 7.5 74 +/- 5.5 78.1 +/- 6.6|75.1 +/- 6.0 75.6 +/- 6.9 74.3 +/- 5.6 77.5 +/- 7.0 78.1 +/- 7.0 77.1 +/- 7.2 76.1 +/- 7.9 75.6 +/- 6.9
kw-f50-M0.05-N0.05|81.7 +/- 6.5 87.7 +/- 6.1 84.6 +/- 6.6 87.2 +/- 5.2 88 +/- 5.2 89.4 +/- 4 89 +/- 4.6 89.5 +/- 4.2|86.6 +/- 4.3 88.2 +/- 4.2 85.6 +/- 4.7 87.3 +/- 6.1 89.4 +/- 4.5 88.2 +/- 3.9 89 +/- 5.4 88.8 +/- 3.6|87.5 +/- 3.3 88.8 +/- 4.8 86.3 +/- 3.9 88.3 +/- 4.2 88.2 +/- 4.9 88.8 +/- 4.8 88.7 +/- 4.9 88.8 +/- 4.8
""", OPT_COLS, pairs=True)

#: Table 6's SVM columns (SVMlight, parameter search), (mean, ±) in %.
PAPER_TABLE6_SVM = {
    name: {"SVM L1": (l1, l1w), "SVM L2": (l2, l2w)}
    for name, l1, l1w, l2, l2w in (
        ("breast-cancer-wisconsin", 96.8, 2.2, 96.7, 1.7),
        ("bupa", 66.5, 8.6, 63.2, 5.2), ("wdbc", 92.8, 4.4, 94.7, 2.1),
        ("crx", 76.6, 13.7, 65.9, 22.8), ("ionosphere", 87.1, 7.1, 86.9, 4.2),
        ("wpbc", 78.6, 7.8, 78.6, 8.4), ("sonar", 57.2, 11.9, 55.0, 11.8))}

#: Table 5: Adult by training-set size, (accuracy, std. dev.) in %, per
#: (τ, hypothesis) and size.
TABLE5_SIZES = (10, 100, 1000, 5000, 10000, 20000)
PAPER_TABLE5 = {}
for _line in """
0|Last|75.6 3.5 70.2 9.2 77.8 3.1 78.3 4.1 80.3 2.8 76.5 11.1
0|Longest|75.7 3.5 76.5 3.6 79.9 3.5 81.8 1.8 82.9 0.7 82.3 1.3
0|Voted|75.8 3.4 79.4 1.8 82.5 0.5 84 0.7 84.2 0.6 84.5 0.5
0.125|Last|72.7 4.6 73.3 8.9 79.7 3.7 80.8 2.7 82.7 1.4 80.4 3.9
0.125|Longest|73.1 4.6 76.6 3.9 81 2.1 81.1 2.4 81.8 1.5 82.1 1.7
0.125|Voted|74.1 4.4 79.6 1.4 82.7 0.5 83.9 0.7 84.2 0.6 84.3 0.4
0.25|Last|74.5 1.8 75.1 7.4 79.3 5.1 80.5 2.8 81.5 2.2 80.6 3.7
0.25|Longest|73.9 3.9 77.2 2.1 80.3 2.6 81.8 1.8 81.7 1.7 82.3 2.4
0.25|Voted|74.1 4.7 79.5 1.5 82.7 0.5 83.8 0.7 84.1 0.7 84.3 0.5
0.5|Last|71.8 6.3 75.5 1.9 80.4 3.4 82.6 1 82.7 1 82.8 1.5
0.5|Longest|74 5.7 77.2 7.5 80.4 2.3 82.1 1.6 82.5 1.6 80.8 2.9
0.5|Voted|73.6 5.6 78.3 0.8 82.6 0.6 83.7 0.7 84 0.7 84.2 0.5
1|Last|72.9 6.6 78.4 2.5 81.9 1.2 83 1.1 82.7 1.5 83.5 0.8
1|Longest|75.9 0.3 75.9 0.9 78.3 2.8 82.5 1.1 83 1 81.9 2.7
1|Voted|74.8 3.4 76.4 0.9 82.4 0.6 83.5 0.7 83.7 0.7 84.1 0.5
2|Last|75.5 1.2 75.8 2.6 82.4 0.4 83.2 0.9 82.8 1.2 83.6 0.8
2|Longest|70.7 15.6 75.9 0.9 77.8 2.7 81.4 2.9 82.5 2 81.9 2.8
2|Voted|70.7 15.6 76.4 1.8 81.8 1 83.2 0.7 83.5 0.6 83.8 0.6
4|Last|75.9 0.3 75.7 1.4 81.8 1 83.1 2.1 83.3 0.6 83.6 0.6
4|Longest|70.7 15.6 75.9 0.9 75.9 0.5 81.8 0.7 79.4 3.4 80.8 3.1
4|Voted|70.7 15.6 75.9 0.9 78.4 2.1 83 0.7 83.2 0.6 83.5 0.6
""".strip().splitlines():
    _tau, _hyp, _vals = _line.split("|")
    _v = [float(v) for v in _vals.split()]
    PAPER_TABLE5[(float(_tau), _hyp.lower())] = dict(
        zip(TABLE5_SIZES, zip(_v[0::2], _v[1::2])))

#: Table 7: parameter optimisation on a fixed train/test split, in %.
T7_COLS = ("Nothing", "τ", "λ", "τ×λ", "τ→λ")
PAPER_TABLE7 = _rows3("""
usps|87.4 90.7 87.4 90.3 90.2|87.5 89.9 87.4 90.3 89.9|89.7 90.9 89.6 90.9 90.9
adult|81.9 83.9 83 83.8 83.8|83.4 83.4 83.4 83.6 83.4|84.4 84.2 84.4 84.3 84.3
mnist|85.6 87.1 85.5 87.1 87.1|79.8 86.8 79.8 86.8 86.8|88 88.4 88 88.4 88.4
usps (poly 4)|92.9 93.6|91.6 92.9|92.7 93.2
mnist (poly 4)|95.2 95.4|93.2 94.9|94.8 95
""", T7_COLS)
#: Sec. 3.2: (η, passes) for the large sets (USPS: parameter optimisation's).
T7_SETTINGS = {"usps": (0.1, 10), "adult": (0.4, 5), "mnist": (1.0, 1)}

#: Table 2: per noise level, counts over 30 sets (3 f × 5 M × 2 sets).
TABLE2_COLS = ("V>C", "V>LS", "LS>C", "LS>V", "C>LS", "C>V", "V=LS=C")
PAPER_TABLE2 = {0.0: (0, 0, 0, 0, 0, 0, 30), 0.05: (12, 10, 11, 3, 0, 2, 16),
                0.1: (15, 15, 14, 3, 3, 3, 12),
                0.15: (16, 14, 13, 5, 6, 3, 10),
                0.25: (16, 12, 13, 8, 7, 4, 10)}

