"""Slow, obvious reference implementations.

Every fast path in :mod:`snl_numeric` is compared with a twin in this file.
Nothing here is optimised; clarity is the point.
"""

from __future__ import annotations


# --- design ---
def design_layouts(size, snakes, ladders, *, min_length=1, max_length=None, forbidden=(),
                   start=0, overshoot="win", chain=False, dice=None):
    """Every feasible layout (as a Board) in :func:`snl_numeric.design_board`'s sense.

    Sources in ``1 .. size - 1`` except ``start`` and ``forbidden``; ends in
    ``0 .. size`` except ``forbidden``; all endpoints distinct; snakes down,
    ladders up, lengths in ``min_length .. max_length``.
    """
    from itertools import combinations

    from snl_numeric import Board

    max_length = size if max_length is None else max_length
    bad = set(forbidden)
    jumps = {True: [], False: []}
    for s in range(1, size):
        if s == start or s in bad:
            continue
        for d in range(0, size + 1):
            if d in bad or d == s or not min_length <= abs(d - s) <= max_length:
                continue
            jumps[d < s].append((s, d))
    for snake_set in combinations(jumps[True], snakes):
        for ladder_set in combinations(jumps[False], ladders):
            pairs = snake_set + ladder_set
            ends = [x for pair in pairs for x in pair]
            if len(set(ends)) == len(ends):
                yield Board(size, pairs, start=start, overshoot=overshoot, chain=chain,
                            dice=dice)


def design_values(size, snakes, ladders, **kw):
    """Expected lengths (core expected_throws) of every feasible layout with a finite one."""
    import math

    from snl_numeric import expected_throws

    values = [expected_throws(b) for b in design_layouts(size, snakes, ladders, **kw)]
    return [v for v in values if math.isfinite(v)]


def design_brute_force(size, snakes, ladders, objective, target=None, **kw):
    """Best objective value over every feasible finite layout."""
    values = design_values(size, snakes, ladders, **kw)
    if objective == "max":
        return max(values)
    if objective == "min":
        return min(values)
    return min(abs(v - target) for v in values)
