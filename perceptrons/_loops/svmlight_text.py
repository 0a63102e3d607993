"""svmlight / LIBSVM text to CSR arrays: one pass over the bytes of a chunk.

:func:`parse_svmlight_lines` reads whole lines of a ``uint8`` array into
preallocated output arrays and stops, with a status, when an array is full
or when a line needs the Python wrapper
(:mod:`perceptrons.datasets.svmlight_chunks`), which then grows the arrays or
reads that one line and calls it again from the next line. The grammar is
scikit-learn's reader (``datasets/_svmlight_format_fast.pyx``), the
correctness oracle:

* lines end at ``\\n`` only; tokens are separated by the ASCII whitespace of
  ``bytes.split`` (space, ``\\t``, ``\\r``, ``\\v``, ``\\f``), so ``\\r\\n``
  line ends need nothing special;
* ``#`` starts a comment (scikit-learn finds it with ``strchr``, which stops at a
  NUL byte: a line with a NUL byte is left to the wrapper);
* the first token is the label; a first feature token that starts with
  ``qid`` and holds a ``:`` is skipped, its value unread;
* every other token is ``index:value``, the index a decimal integer in
  ``[0, 2**31)`` (scikit-learn stores it in a C ``int``), strictly increasing
  along the line.

Numbers. scikit-learn converts labels and values with Python's ``float`` (David
Gay's correctly rounded conversion, as C ``strtod``). A token of the plain
form ``[+-]digits[.digits][(e|E)[+-]digits]`` (``"1."``, ``".5"``, ``"+3"``
included) whose significant digits fit 18 decimal digits gets its value
here when that value is exact by Clinger's fast path: a mantissa ``m <=
2**53`` times or divided by an exactly representable power of ten
(``10**e``, ``|e| <= 22``; or ``m * 10**k`` still ``<= 2**53`` times
``1e22``). One IEEE multiplication or division of two exact operands is
correctly rounded, so these are the bits ``float`` gives. Zero is ``±0.0``
at any exponent. Any other number token (long mantissas, large exponents,
``inf``, ``nan``, ``1_000``, junk) is left at 0.0 and its byte span is
recorded for the wrapper to convert with ``float`` itself: exact, and it
raises exactly where scikit-learn does.

Index tokens, the ``qid`` token and sortedness are checked here; anything
unusual there (signs on nonzero indices, ``1_0``, a missing ``:``, an index
beyond ``2**31 - 1``, unsorted or repeated indices, a NUL byte, an empty
value) stops the loop at that line's start with :data:`STATUS_LINE`, and the
wrapper reads the line as scikit-learn would, either appending the row (e.g.
``1_0:1`` is index 10 for Python's ``int``) or raising its error.
"""

import numpy as np
from numba import njit

__all__ = ["STATUS_DONE", "STATUS_GROW_NNZ", "STATUS_GROW_ROWS",
           "STATUS_GROW_SLOW", "STATUS_LINE", "count_lines_and_colons",
           "find_line_end", "find_line_start", "parse_svmlight_lines"]

#: The whole buffer was read.
STATUS_DONE = 0
#: ``labels``/``indptr`` are full: grow them and call again.
STATUS_GROW_ROWS = 1
#: ``indices``/``data`` are full: grow them and call again.
STATUS_GROW_NNZ = 2
#: The slow-token arrays are full: grow them and call again.
STATUS_GROW_SLOW = 3
#: The line at the returned position must be read by the wrapper.
STATUS_LINE = 4

_NL, _HASH, _COLON, _DOT, _PLUS, _MINUS = 10, 35, 58, 46, 43, 45
_ZERO, _E_LOWER, _E_UPPER = 48, 101, 69
_Q, _I, _D = 113, 105, 100

#: Exact powers of ten, 1e0 .. 1e22 (every one is a float64 exactly).
_POW10 = np.array([10.0 ** k for k in range(23)], dtype=np.float64)
#: Exact integer powers of ten for the extended fast path.
_IPOW10 = np.array([10 ** k for k in range(19)], dtype=np.int64)
_TWO53 = 2 ** 53
#: More significant digits than this and a token goes to ``float``.
_MAX_DIGITS = 18
#: Index digits beyond this (leading zeros aside) cannot fit a C int.
_MAX_INDEX_DIGITS = 11
_INT_MAX = 2 ** 31 - 1
#: Exponents are accumulated up to this, then saturate (slow path anyway).
_EXP_CAP = 100000

_KIND_EXACT, _KIND_SLOW, _KIND_LINE = 0, 1, 2


@njit(cache=True, inline="always")
def _is_space(c):
    """ASCII whitespace of ``bytes.split`` other than ``\\n``."""
    return c == 32 or (9 <= c <= 13 and c != _NL)


@njit(cache=True, inline="always")
def _ends_token(c):
    """A byte that ends a token: whitespace, ``\\n`` or ``#``."""
    return c == 32 or (9 <= c <= 13) or c == _HASH


@njit(cache=True)
def _skip_token(buf, p, end):
    """End of the token at ``p`` and whether it holds a NUL byte.

    Returns
    -------
    q : int
        Position of the first byte that ends the token (or ``end``).
    has_nul : bool
    """
    has_nul = False
    while p < end:
        c = int(buf[p])
        if _ends_token(c):
            break
        if c == 0:
            has_nul = True
        p += 1
    return p, has_nul


@njit(cache=True, inline="always")
def _scan_number(buf, p, end):
    """Read the number token at ``p`` (not at a token end).

    Returns
    -------
    kind : int
        0: ``value`` is exact (fast path); 1: the token ``[p, q)`` needs
        Python's ``float``; 2: the token holds a NUL byte (the line goes to
        the wrapper).
    value : float
    q : int
        Position of the byte that ends the token (or ``end``).
    """
    start = p
    neg = False
    c = int(buf[p])
    if c == _PLUS or c == _MINUS:
        neg = c == _MINUS
        p += 1
    m = 0
    n_sig = 0
    n_digits = 0
    dexp = 0
    ok = True
    while p < end:
        d = int(buf[p]) - _ZERO
        if d < 0 or d > 9:
            break
        n_digits += 1
        if m != 0 or d != 0:
            if n_sig < _MAX_DIGITS:
                m = m * 10 + d
                n_sig += 1
            else:
                ok = False
        p += 1
    if p < end and buf[p] == _DOT:
        p += 1
        # The integer digits' loop again, counting the decimal exponent:
        # one helper for both measured 12-15 % slower on a9a-like text.
        while p < end:
            d = int(buf[p]) - _ZERO
            if d < 0 or d > 9:
                break
            n_digits += 1
            if m != 0 or d != 0:
                if n_sig < _MAX_DIGITS:
                    m = m * 10 + d
                    n_sig += 1
                else:
                    ok = False
            dexp -= 1
            p += 1
    if n_digits == 0:
        ok = False
    if ok and p < end and (buf[p] == _E_LOWER or buf[p] == _E_UPPER):
        p += 1
        eneg = False
        if p < end and (buf[p] == _PLUS or buf[p] == _MINUS):
            eneg = buf[p] == _MINUS
            p += 1
        e = 0
        n_exp = 0
        while p < end:
            d = int(buf[p]) - _ZERO
            if d < 0 or d > 9:
                break
            if e < _EXP_CAP:
                e = e * 10 + d
            n_exp += 1
            p += 1
        if n_exp == 0:
            ok = False
        dexp += -e if eneg else e
    if ok and p < end and not _ends_token(int(buf[p])):
        ok = False
    if ok:
        if m == 0:
            return _KIND_EXACT, -0.0 if neg else 0.0, p
        if m <= _TWO53:
            if 0 <= dexp <= 22:
                v = float(m) * _POW10[dexp]
                return _KIND_EXACT, -v if neg else v, p
            if -22 <= dexp < 0:
                v = float(m) / _POW10[-dexp]
                return _KIND_EXACT, -v if neg else v, p
            if 22 < dexp <= 22 + 15:
                k = dexp - 22
                if m <= _TWO53 // _IPOW10[k]:
                    v = float(m * _IPOW10[k]) * _POW10[22]
                    return _KIND_EXACT, -v if neg else v, p
    q, has_nul = _skip_token(buf, start, end)
    if has_nul:
        return _KIND_LINE, 0.0, q
    return _KIND_SLOW, 0.0, q


@njit(cache=True, inline="always")
def _scan_index(buf, p, end):
    """Read ``[+-]digits:`` at ``p``.

    Returns
    -------
    ok : bool
        False for anything else, a negative index or one beyond
        ``2**31 - 1`` (the wrapper reads the line).
    index : int
    q : int
        Position after the ``:``.
    """
    neg = False
    c = int(buf[p])
    if c == _PLUS or c == _MINUS:
        neg = c == _MINUS
        p += 1
    v = 0
    n_sig = 0
    n_digits = 0
    while p < end:
        d = int(buf[p]) - _ZERO
        if d < 0 or d > 9:
            break
        n_digits += 1
        if v != 0 or d != 0:
            n_sig += 1
            if n_sig > _MAX_INDEX_DIGITS:
                return False, 0, p
            v = v * 10 + d
        p += 1
    if n_digits == 0 or p >= end or buf[p] != _COLON:
        return False, 0, p
    if (neg and v != 0) or v > _INT_MAX:
        return False, 0, p
    return True, v, p + 1


@njit(cache=True)
def count_lines_and_colons(buf):
    """Numbers of ``\\n`` and ``:`` bytes (bounds on rows and nonzeros).

    Parameters
    ----------
    buf : ndarray of shape (n_bytes,), uint8

    Returns
    -------
    n_newlines : int
    n_colons : int
    """
    n_nl = 0
    n_colon = 0
    for i in range(buf.shape[0]):
        c = buf[i]
        n_nl += c == _NL
        n_colon += c == _COLON
    return n_nl, n_colon


@njit(cache=True)
def parse_svmlight_lines(buf, pos, line_no,
                         labels, indptr, indices, data, n_rows, nnz,
                         slow_at, slow_start, slow_end, n_slow):
    """Read the lines of ``buf`` from ``pos`` (a line start) into CSR arrays.

    Every row is committed whole: on any early return, the arrays hold the
    rows before the returned position and nothing of the line there.

    Parameters
    ----------
    buf : ndarray of shape (n_bytes,), uint8
        Whole lines of svmlight text (the last may lack its ``\\n``).
    pos : int
        Where to start: 0 or a position returned by an earlier call.
    line_no : int
        Number of ``\\n`` bytes before ``pos``.
    labels : ndarray of shape (cap_rows,), float64
        Out: the label of row i at ``labels[i]``.
    indptr : ndarray of shape (cap_rows + 1,), int64
        Out: row i's nonzeros are ``[indptr[i], indptr[i + 1])``;
        ``indptr[0]`` must be 0.
    indices : ndarray of shape (cap_nnz,), int64
        Out: feature indices as written.
    data : ndarray of shape (cap_nnz,), float64
        Out: values (0.0 where a slow token was recorded).
    n_rows, nnz : int
        Rows and nonzeros already in the arrays.
    slow_at : ndarray of shape (cap_slow,), int64
        Out: where each slow token's value goes, ``k >= 0`` for ``data[k]``,
        ``-1 - i`` for ``labels[i]``.
    slow_start, slow_end : ndarray of shape (cap_slow,), int64
        Out: the token's bytes, ``buf[slow_start[j]:slow_end[j]]``.
    n_slow : int
        Slow tokens already recorded.

    Returns
    -------
    status : int
        :data:`STATUS_DONE`, a ``STATUS_GROW_*`` (grow that array and call
        again with the returned state) or :data:`STATUS_LINE` (the line at
        ``pos`` is the wrapper's).
    pos, line_no, n_rows, nnz, n_slow : int
        The state to resume from.
    """
    end = buf.shape[0]
    cap_rows = labels.shape[0]
    cap_nnz = data.shape[0]
    cap_slow = slow_at.shape[0]
    while pos < end:
        line_start = pos
        p = pos
        while p < end and _is_space(int(buf[p])):
            p += 1
        if p == end:
            pos = end
            break
        c = int(buf[p])
        if c == _NL:
            pos = p + 1
            line_no += 1
            continue
        if c == _HASH:
            while p < end and buf[p] != _NL:
                p += 1
            if p == end:
                pos = end
                break
            pos = p + 1
            line_no += 1
            continue
        # ---- a row: the label
        if n_rows >= cap_rows:
            return STATUS_GROW_ROWS, line_start, line_no, n_rows, nnz, n_slow
        nnz0 = nnz
        n_slow0 = n_slow
        tok = p
        kind, v, p = _scan_number(buf, p, end)
        if kind == _KIND_LINE:
            return STATUS_LINE, line_start, line_no, n_rows, nnz, n_slow
        if kind == _KIND_SLOW:
            if n_slow >= cap_slow:
                return (STATUS_GROW_SLOW, line_start, line_no, n_rows, nnz,
                        n_slow)
            slow_at[n_slow] = -1 - n_rows
            slow_start[n_slow] = tok
            slow_end[n_slow] = p
            n_slow += 1
        labels[n_rows] = v
        # ---- the features
        status = STATUS_DONE
        first = True
        prev = -1
        while True:
            while p < end and _is_space(int(buf[p])):
                p += 1
            if p == end:
                break
            c = int(buf[p])
            if c == _NL:
                break
            if c == _HASH:
                while p < end and buf[p] != _NL:
                    p += 1
                break
            if (first and c == _Q and p + 2 < end and buf[p + 1] == _I
                    and buf[p + 2] == _D):
                # scikit-learn skips a first "qid..." token whole (query_id=False)
                colon = False
                while p < end:
                    b = int(buf[p])
                    if _ends_token(b):
                        break
                    if b == 0:
                        status = STATUS_LINE
                        break
                    if b == _COLON:
                        colon = True
                    p += 1
                if not colon:
                    status = STATUS_LINE
                if status != STATUS_DONE:
                    break
                first = False
                continue
            first = False
            ok, idx, p = _scan_index(buf, p, end)
            if not ok or idx <= prev or p >= end or _ends_token(int(buf[p])):
                status = STATUS_LINE
                break
            tok = p
            kind, v, p = _scan_number(buf, p, end)
            if kind == _KIND_LINE:
                status = STATUS_LINE
                break
            if nnz >= cap_nnz:
                status = STATUS_GROW_NNZ
                break
            if kind == _KIND_SLOW:
                if n_slow >= cap_slow:
                    status = STATUS_GROW_SLOW
                    break
                slow_at[n_slow] = nnz
                slow_start[n_slow] = tok
                slow_end[n_slow] = p
                n_slow += 1
            indices[nnz] = idx
            data[nnz] = v
            nnz += 1
            prev = idx
        if status != STATUS_DONE:
            return status, line_start, line_no, n_rows, nnz0, n_slow0
        n_rows += 1
        indptr[n_rows] = nnz
        if p < end:  # at the "\n"
            pos = p + 1
            line_no += 1
        else:
            pos = end
    return STATUS_DONE, pos, line_no, n_rows, nnz, n_slow


@njit(cache=True)
def find_line_end(buf, pos):
    """Position of the first ``\\n`` at or after ``pos`` (``len(buf)`` if
    none)."""
    end = buf.shape[0]
    while pos < end and buf[pos] != _NL:
        pos += 1
    return pos


@njit(cache=True)
def find_line_start(buf, pos):
    """Start of the line that holds position ``pos``."""
    while pos > 0 and buf[pos - 1] != _NL:
        pos -= 1
    return pos
