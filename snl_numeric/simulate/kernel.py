"""The parallel simulation kernel and the passes over the blocks of games."""

from __future__ import annotations

import numba
import numpy as np

from .._core.memory import check_memory
from .._core.numba_config import PARALLEL_LOCK, njit, pjit
from .rng import BLOCKS, MASK32, U32, column, draw_face, xoshiro

#: Histogram bins kept per thread in the first pass; longer games are re-run.
HIST_BINS = 1 << 16
#: Longest game counted in the dense histogram; longer ones are listed sparsely
#: (``long_games``), so memory never grows with the length of a game.
HIST_DENSE_MAX = 1 << 20

# -- kernels ------------------------------------------------------------------
#: ``n0`` of a parked lane: never limits the steps before the cap.
_PARKED = np.int64(1) << np.int64(62)


@njit()
def _settle(p, t, n, a, gid, g, end, start, goal, k, lo, hist, tid, tally, throws,
            final):  # pragma: no cover - jitted
    """Record a lane's game of ``t`` throws, then start the block's next game or park.

    ``p`` is an offset ``square * k`` into the flat successor table (``goal``
    for the goal, above it when stranded, below it when stopped by the cap);
    ``tally`` holds the block's (longest, censored, stranded, throws).
    Returns the lane's new ``(p, n0, active, game)`` and the next game ``g``.
    """
    if not a:
        return p, _PARKED, a, gid, g
    if p == goal:
        if t > tally[0]:
            tally[0] = t
        j = t - lo
        if 0 <= j < hist.shape[1]:
            hist[tid, j] += 1
    else:
        tally[1] += 1
        if p > goal:
            tally[2] += 1
    tally[3] += t
    if throws is not None:
        throws[gid] = t
        final[gid] = p // k
    if g < end:
        return start, n, True, g, g + 1
    return goal, _PARKED, False, gid, g


@njit(inline="always")
def _fire(p, f, fired, jump_next, used, gid):  # pragma: no cover - jitted
    j = fired[p + f]
    while j >= 0:
        used[gid, j] = True
        j = jump_next[j]


@pjit()
def _simulate_kernel(off, alias, thresh, fair, start, goal, max_throws, seeds, bounds, blocks,
                     lo, hist, tallies, fired, jump_next, throws, final, used):  # pragma: no cover
    """Play the games of ``blocks``, four interleaved games (lanes) per block.

    ``off[p + f]`` is the offset ``square * k`` of the square reached from the
    square at offset ``p`` with face index ``f``; offsets beyond ``goal``
    (``size * k``) mark stranded squares. A finished game of ``t`` throws with
    ``lo <= t < lo + hist.shape[1]`` adds one to ``hist[thread, t - lo]``;
    ``tallies[b]`` receives block ``b``'s (longest finished game, censored,
    stranded, throws). With ``throws`` not None (a compile-time switch) every
    game is recorded in ``throws``, ``final`` (square) and ``used`` (jumps
    fired, first ``fired[p + f]`` then ``jump_next`` along a chain).

    The lanes step together; lane ``l``'s game started at step ``n_l``, so it
    has made ``n - n_l`` throws, and no lane can reach ``max_throws`` before
    step ``min(n_l) + max_throws``: the hot loop runs to there without a cap
    test. The lanes consume one stream in a fixed order, so block ``b``'s
    games depend only on ``seeds[b]``.
    """
    k = np.uint64(alias.shape[0])
    ki = alias.shape[0]
    nbins = hist.shape[1]
    for i in numba.prange(blocks.shape[0]):
        b = blocks[i]
        tid = numba.get_thread_id()
        tally = tallies[b]
        s0, s1, s2, s3 = seeds[b, 0], seeds[b, 1], seeds[b, 2], seeds[b, 3]
        g, end = bounds[b], bounds[b + 1]
        n = 0
        longest = 0  # of the finished games counted in the loop (the rest: _settle)
        done = 0  # their throws
        # a parked lane sits on the absorbing goal row
        p0 = p1 = p2 = p3 = goal
        n0 = n1 = n2 = n3 = _PARKED
        a0 = a1 = a2 = a3 = False
        g0 = g1 = g2 = g3 = g
        if g < end:
            p0, n0, a0, g0, g = start, 0, True, g, g + 1
        if g < end:
            p1, n1, a1, g1, g = start, 0, True, g, g + 1
        if g < end:
            p2, n2, a2, g2, g = start, 0, True, g, g + 1
        if g < end:
            p3, n3, a3, g3, g = start, 0, True, g, g + 1
        while a0 or a1 or a2 or a3:
            stop = min(min(n0, n1), min(n2, n3)) + max_throws
            while n < stop:
                if fair:  # two faces per 64-bit word
                    r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
                    f0, s0, s1, s2, s3 = column(r >> U32, k, s0, s1, s2, s3)
                    f1, s0, s1, s2, s3 = column(r & MASK32, k, s0, s1, s2, s3)
                    r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
                    f2, s0, s1, s2, s3 = column(r >> U32, k, s0, s1, s2, s3)
                    f3, s0, s1, s2, s3 = column(r & MASK32, k, s0, s1, s2, s3)
                else:
                    r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
                    f0, s0, s1, s2, s3 = draw_face(r, k, alias, thresh, s0, s1, s2, s3)
                    r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
                    f1, s0, s1, s2, s3 = draw_face(r, k, alias, thresh, s0, s1, s2, s3)
                    r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
                    f2, s0, s1, s2, s3 = draw_face(r, k, alias, thresh, s0, s1, s2, s3)
                    r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
                    f3, s0, s1, s2, s3 = draw_face(r, k, alias, thresh, s0, s1, s2, s3)
                if throws is not None:
                    _fire(p0, f0, fired, jump_next, used, g0)
                    _fire(p1, f1, fired, jump_next, used, g1)
                    _fire(p2, f2, fired, jump_next, used, g2)
                    _fire(p3, f3, fired, jump_next, used, g3)
                p0 = off[p0 + f0]
                p1 = off[p1 + f1]
                p2 = off[p2 + f2]
                p3 = off[p3 + f3]
                n += 1
                if p0 >= goal or p1 >= goal or p2 >= goal or p3 >= goal:
                    if p0 >= goal:
                        if p0 == goal and a0 and g < end and throws is None:  # common case
                            t = n - n0
                            longest = max(longest, t)
                            done += t
                            if 0 <= t - lo < nbins:
                                hist[tid, t - lo] += 1
                            p0, n0, g0, g = start, n, g, g + 1
                        else:
                            p0, n0, a0, g0, g = _settle(
                                p0, n - n0, n, a0, g0, g, end, start, goal, ki, lo, hist, tid,
                                tally, throws, final)
                    if p1 >= goal:
                        if p1 == goal and a1 and g < end and throws is None:  # common case
                            t = n - n1
                            longest = max(longest, t)
                            done += t
                            if 0 <= t - lo < nbins:
                                hist[tid, t - lo] += 1
                            p1, n1, g1, g = start, n, g, g + 1
                        else:
                            p1, n1, a1, g1, g = _settle(
                                p1, n - n1, n, a1, g1, g, end, start, goal, ki, lo, hist, tid,
                                tally, throws, final)
                    if p2 >= goal:
                        if p2 == goal and a2 and g < end and throws is None:  # common case
                            t = n - n2
                            longest = max(longest, t)
                            done += t
                            if 0 <= t - lo < nbins:
                                hist[tid, t - lo] += 1
                            p2, n2, g2, g = start, n, g, g + 1
                        else:
                            p2, n2, a2, g2, g = _settle(
                                p2, n - n2, n, a2, g2, g, end, start, goal, ki, lo, hist, tid,
                                tally, throws, final)
                    if p3 >= goal:
                        if p3 == goal and a3 and g < end and throws is None:  # common case
                            t = n - n3
                            longest = max(longest, t)
                            done += t
                            if 0 <= t - lo < nbins:
                                hist[tid, t - lo] += 1
                            p3, n3, g3, g = start, n, g, g + 1
                        else:
                            p3, n3, a3, g3, g = _settle(
                                p3, n - n3, n, a3, g3, g, end, start, goal, ki, lo, hist, tid,
                                tally, throws, final)
                    if not (a0 or a1 or a2 or a3):
                        break
            # lanes that used all max_throws throws are stopped (censored)
            if a0 and n - n0 >= max_throws:
                p0, n0, a0, g0, g = _settle(
                    p0, n - n0, n, a0, g0, g, end, start, goal, ki, lo, hist, tid, tally,
                    throws, final)
            if a1 and n - n1 >= max_throws:
                p1, n1, a1, g1, g = _settle(
                    p1, n - n1, n, a1, g1, g, end, start, goal, ki, lo, hist, tid, tally,
                    throws, final)
            if a2 and n - n2 >= max_throws:
                p2, n2, a2, g2, g = _settle(
                    p2, n - n2, n, a2, g2, g, end, start, goal, ki, lo, hist, tid, tally,
                    throws, final)
            if a3 and n - n3 >= max_throws:
                p3, n3, a3, g3, g = _settle(
                    p3, n - n3, n, a3, g3, g, end, start, goal, ki, lo, hist, tid, tally,
                    throws, final)
        tally[0] = max(tally[0], longest)
        tally[3] += done


class Run:
    """The kernel's inputs for one simulation, and the passes over the blocks."""

    def __init__(self, cb, dead, alias, thresh, fair, start, max_throws, seeds, bounds, rows):
        k = cb.succ.shape[1]
        size = cb.size
        # flat table of offsets square * k; a move onto a dead square (one that
        # cannot reach the goal) lands beyond the goal row: stranded
        dest = np.where(dead[cb.succ], cb.succ + size + 1, cb.succ)
        self.off = np.ascontiguousarray((dest * k).ravel(), dtype=np.intp)
        self.k, self.size, self.goal = k, size, size * k
        self.start_sq = start
        self.start = (start + (size + 1 if dead[start] else 0)) * k
        self.alias, self.thresh, self.fair = alias, thresh, fair
        self.max_throws, self.seeds, self.bounds, self.rows = max_throws, seeds, bounds, rows
        self.games = int(bounds[-1])
        self.cb = cb

    def _kernel(self, blocks, lo, hist, tallies, fired=None, jump_next=None, throws=None,
                final=None, used=None):
        with PARALLEL_LOCK:
            _simulate_kernel(self.off, self.alias, self.thresh, self.fair, self.start,
                             self.goal, self.max_throws, self.seeds, self.bounds, blocks, lo,
                             hist, tallies, fired, jump_next, throws, final, used)

    def play(self, chunks, per_game, bar):
        """``(histogram, (censored, stranded, throws), (throws, final, used), long_games)``."""
        games, size = self.games, self.size
        if self.start >= self.goal:  # starts on the goal (0 throws) or stranded
            done = self.start == self.goal
            hist = np.array([games] if done else [], dtype=np.int64)
            extra = (None, None, None)
            if per_game:  # games-sized arrays only when asked for (and checked by simulate)
                extra = (np.zeros(games, dtype=np.int64), np.full(games, self.start_sq, np.intp),
                         np.zeros((games, len(self.cb.jump_src)), dtype=np.bool_))
            bar.update(games)
            return hist, (0 if done else games, 0 if done else games, 0), extra, None
        nbins = min(self.max_throws, HIST_BINS) + 1
        hist = np.zeros((self.rows, nbins), dtype=np.int64)
        tallies = np.zeros((BLOCKS, 4), dtype=np.int64)
        extra = (None, None, None)
        if per_game:
            cb = self.cb
            n_jumps = len(cb.jump_src)
            jump_next = (cb.jump_index[cb.jump_dst].astype(np.int64) if cb.chained
                         else np.full(n_jumps, -1, dtype=np.int64))
            fired = np.ascontiguousarray(cb.fired, dtype=np.int64).ravel()
            extra = (np.zeros(games, dtype=np.int64), np.zeros(games, dtype=np.intp),
                     np.zeros((games, n_jumps), dtype=np.bool_))
        for blocks in chunks:
            if per_game:
                self._kernel(blocks, 0, hist, tallies, fired, jump_next, *extra)
            else:
                self._kernel(blocks, 0, hist, tallies)
            bar.update(int(self.bounds[blocks[-1] + 1] - self.bounds[blocks[0]]))
        merged = hist.sum(axis=0)
        long_games = None
        over = np.flatnonzero(tallies[:, 0] >= nbins)
        if len(over):  # rare very long games: replay those blocks (same streams) for the tail
            lengths, counts = self._long_games(over, nbins, tallies[:, 0])
            dense = lengths < HIST_DENSE_MAX
            if dense.any():
                merged = np.concatenate([merged, np.zeros(int(lengths[dense][-1]) + 1 - nbins,
                                                          dtype=np.int64)])
                merged[lengths[dense]] += counts[dense]
            if not dense.all():
                long_games = np.column_stack([lengths[~dense], counts[~dense]])
                long_games.flags.writeable = False
        last = np.flatnonzero(merged)
        merged = merged[: last[-1] + 1] if len(last) else merged[:0]
        if per_game:
            final = extra[1]
            final[final > size] -= size + 1
        _, censored, stranded, total = (int(x) for x in tallies.sum(axis=0))
        return merged, (censored, stranded, total), extra, long_games

    def _long_games(self, blocks: np.ndarray, lo: int, longest: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
        """Lengths (increasing) and counts of the finished games of ``blocks`` that took at
        least ``lo`` throws. Each block is replayed alone (same stream, same games), the
        cheaper of two ways: its games' throws recorded (16 bytes per game of the block,
        whatever their length), or a histogram of its long games (8 bytes per thread per
        throw of its longest game, whatever the number of games)."""
        fired = np.full(len(self.off), -1, dtype=np.int64)  # no jump is recorded
        jump_next = np.empty(0, dtype=np.int64)
        hist = np.zeros((self.rows, 1), dtype=np.int64)  # unused: every game is recorded
        tallies = np.zeros((BLOCKS, 4), dtype=np.int64)
        values, counts = [], []
        for b in blocks.tolist():
            n_b = int(self.bounds[b + 1] - self.bounds[b])
            width = int(longest[b]) - lo + 1
            if 8 * self.rows * width < 16 * n_b:
                check_memory(8 * self.rows * width, f"a histogram of games of up to "
                                                     f"{int(longest[b]):,} throws")
                tail = np.zeros((self.rows, width), dtype=np.int64)
                self._kernel(np.array([b], dtype=np.int64), lo, tail, np.zeros_like(tallies))
                merged = tail.sum(axis=0)
                found = np.flatnonzero(merged)
                values.append(found + lo)
                counts.append(merged[found])
                continue
            check_memory(16 * n_b, f"replaying {n_b:,} games to count those longer than "
                                   f"{lo - 1:,} throws")
            throws = np.zeros(n_b, dtype=np.int64)
            final = np.zeros(n_b, dtype=np.intp)
            used = np.zeros((n_b, 0), dtype=np.bool_)
            with PARALLEL_LOCK:  # block b's games numbered from 0: arrays of one block
                _simulate_kernel(self.off, self.alias, self.thresh, self.fair, self.start,
                                 self.goal, self.max_throws, self.seeds,
                                 self.bounds - self.bounds[b], np.array([b], dtype=np.int64),
                                 np.int64(1) << np.int64(62), hist, tallies, fired, jump_next,
                                 throws, final, used)
            v, c = np.unique(throws[(final == self.size) & (throws >= lo)], return_counts=True)
            values.append(v)
            counts.append(c)
        v, inverse = np.unique(np.concatenate(values), return_inverse=True)
        return v, np.bincount(inverse, weights=np.concatenate(counts)).astype(np.int64)
