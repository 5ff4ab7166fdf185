"""Slow, obvious reference implementations.

Every fast path in :mod:`snl_numeric` is compared with a twin in this file.
Nothing here is optimised; clarity is the point.
"""

from __future__ import annotations


# --- simulate ---
def simulate_play(board, rnd, start=None, max_throws=10**6):
    """One game played square by square from the rules (no compiled table).

    Returns the number of throws, or ``None`` if the game did not finish
    within ``max_throws`` throws.
    """
    import bisect
    import itertools

    faces = [int(f) for f in board.dice.faces]
    cumulative = list(itertools.accumulate(float(p) for p in board.dice.probs))
    pos = board.start if start is None else start
    throws = 0
    while pos != board.size:
        if throws == max_throws:
            return None
        u = rnd.random() * cumulative[-1]
        face = faces[min(bisect.bisect_right(cumulative, u), len(faces) - 1)]
        throws += 1
        target = pos + face
        if target > board.size:
            if board.overshoot == "win":
                target = board.size
            elif board.overshoot == "exact":
                continue  # the token stays; the throw counts
            else:  # bounce
                target = 2 * board.size - target
        if target in board.jumps:
            target = board.jumps[target]
            while board.chain and target in board.jumps:
                target = board.jumps[target]
        pos = target
    return throws


def simulate_naive(board, games, seed=0, start=None, max_throws=10**6):
    """Throws of ``games`` games (``None`` for unfinished ones), with ``random.Random(seed)``."""
    import random

    rnd = random.Random(seed)
    return [simulate_play(board, rnd, start, max_throws) for _ in range(games)]
