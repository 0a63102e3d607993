"""The all-pairs generator of ``tests/_pairwise.py`` that trims the test grids."""

import itertools

import pytest

from tests._pairwise import all_pairs, corners_of, parametrize, row_id


def _pairs_of(rows, factors):
    names = list(factors)
    seen = set()
    for row in rows:
        for f, g in itertools.combinations(names, 2):
            seen.add((f, repr(row[f]), g, repr(row[g])))
    return seen


def _all_pairs_needed(factors):
    names = list(factors)
    return {(f, repr(a), g, repr(b))
            for f, g in itertools.combinations(names, 2)
            for a in factors[f] for b in factors[g]}


FACTOR_SETS = [
    {"a": [0, 1], "b": [0, 1], "c": [0, 1]},
    {"setting": ["kw", "float", "exact", "ros"], "k": [2, 3]},
    {"x": list(range(8)), "mc": ["ovr", "prototype"],
     "h": ["last", "longest", "voted", "averaged"], "ab": [None, 1, 2],
     "lam": [False, True], "tau": [False, True]},
    {"only": [1, 2, 3]},
    {"p": [1], "q": ["a", "b", "c"], "r": [0.5, 1.5]},
]


@pytest.mark.parametrize("factors", FACTOR_SETS)
def test_every_pair_and_every_value_is_covered(factors):
    rows = all_pairs(factors)
    assert _pairs_of(rows, factors) >= _all_pairs_needed(factors)
    for name, vals in factors.items():
        assert {repr(v) for v in vals} == {repr(r[name]) for r in rows}
    for row in rows:
        assert list(row) == list(factors)
    # Distinct rows, and fewer than the full product when that is large.
    assert len({tuple(map(repr, r.values())) for r in rows}) == len(rows)
    product = 1
    for vals in factors.values():
        product *= len(set(map(repr, vals)))
    assert len(rows) <= product


def test_far_smaller_than_the_product_and_near_the_lower_bound():
    factors = FACTOR_SETS[2]
    rows = all_pairs(factors)
    # The two largest factors alone need 8 x 4 = 32 rows; greedy stays close.
    assert 32 <= len(rows) <= 40 < 768


def test_deterministic():
    factors = FACTOR_SETS[2]
    assert all_pairs(factors) == all_pairs(dict(factors))


def test_three_binary_factors_need_four_rows():
    rows = all_pairs(FACTOR_SETS[0])
    assert len(rows) == 4


def test_corners_come_first_and_are_kept():
    factors = FACTOR_SETS[2]
    corners = corners_of(factors, by="x")
    rows = all_pairs(factors, corners)
    unique_corners = []
    for c in corners:
        if c not in unique_corners:
            unique_corners.append(c)
    assert rows[:len(unique_corners)] == unique_corners
    assert {"x": 0, "mc": "ovr", "h": "last", "ab": None, "lam": False,
            "tau": False} in rows
    assert {"x": 3, "mc": "prototype", "h": "averaged", "ab": 2, "lam": True,
            "tau": True} in rows
    assert _pairs_of(rows, factors) >= _all_pairs_needed(factors)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="at least one value"):
        all_pairs({"a": [], "b": [1]})
    with pytest.raises(ValueError, match="exactly the factors"):
        all_pairs({"a": [1], "b": [2]}, corners=[{"a": 1}])
    with pytest.raises(ValueError, match="not a value"):
        all_pairs({"a": [1], "b": [2]}, corners=[{"a": 1, "b": 3}])


def test_parametrize_ids_and_values():
    rows = all_pairs({"n": [2.0, 3], "name": ["ovr", None]})
    mark = parametrize(rows)
    assert mark.args[0] == "n,name"
    assert [tuple(r.values()) for r in rows] == mark.args[1]
    assert row_id({"n": 2.0, "name": "ovr", "f": len}) == "2-ovr-len"
