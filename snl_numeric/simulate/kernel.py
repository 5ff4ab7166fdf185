"""The simulation kernel, and the rounds of it that the threads run over the blocks of games."""

from __future__ import annotations

import time

import numpy as np

from .._core.memory import check_memory
from .._core.numba_config import njit
from .._core.parallel import run_tasks, split
from .._core.rng import MASK32, U32, alias_pick, alias_table, column, stream_words, xoshiro
from .result import BLOCKS

#: Histogram bins kept per thread in the first pass; longer games are re-run.
HIST_BINS = 1 << 16
#: Longest game counted in the dense histogram; longer ones are listed sparsely
#: (``long_games``), so memory never grows with the length of a game.
HIST_DENSE_MAX = 1 << 20

#: Seconds a round of the kernel aims at: the caller regains control (progress,
#: Ctrl-C) this often. The steps per round (first ``FIRST_BUDGET``, then adapted,
#: never below ``MIN_BUDGET``) never change the result.
ROUND_SECONDS = 0.15
FIRST_BUDGET = 1 << 14
MIN_BUDGET = 256

# -- kernels ------------------------------------------------------------------
#: Games a block plays at once, interleaved (their random draws alternate).
LANES = 4
#: ``n0`` of a parked lane: never limits the steps before the cap.
_PARKED = np.int64(1) << np.int64(62)
#: Columns of a block's saved state: step, next game, then per lane (square offset,
#: step its game started, active, game id), then the phase (0 new, 1 running, 2 done).
LANE_COLUMNS = 3 + 4 * LANES
ACTIVE = 2 + 2 * LANES
_PHASE = LANE_COLUMNS - 1


@njit()
def _settle(p, t, n, a, gid, g, end, start, goal, k, lo, hist, tid, tally, throws,
            final):  # pragma: no cover - jitted
    """Record a lane's game of ``t`` throws (in ``throws`` and ``final`` too unless they
    are None), then start the block's next game or park.

    ``p`` is an offset ``square * k`` into the flat successor table (``goal``
    for the goal, above it when stranded, below it when stopped by the cap);
    ``tally`` holds the block's (longest, censored, stranded, throws).
    Returns the lane's new ``(p, n0, active (1 or 0), game)`` and the next game ``g``.
    """
    if not a:
        return p, _PARKED, 0, gid, g
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
        return start, n, 1, g, g + 1
    return goal, _PARKED, 0, gid, g


@njit()
def simulate_kernel(off, alias, thresh, start, goal, max_throws, bounds, blocks, budget,
                    lo, hist, tid, rng, lanes, tallies, fired, jump_next, throws, final,
                    used):  # pragma: no cover - jitted
    """Advance each block of ``blocks`` by at most ``budget`` steps (``LANES`` interleaved
    games).

    ``off[p + f]`` is the offset ``square * k`` of the square reached from the
    square at offset ``p`` with face index ``f``; offsets beyond ``goal``
    (``size * k``) mark stranded squares. Block ``b`` plays games
    ``bounds[b] .. bounds[b + 1] - 1`` from the xoshiro256** state ``rng[b]``;
    its lanes are saved in ``lanes[b]`` (see :data:`LANE_COLUMNS`) and the
    state advanced in place, so the next call resumes exactly where this one
    stopped: the games never depend on ``budget``. A finished game of ``t``
    throws with ``lo <= t < lo + hist.shape[1]`` adds one to ``hist[tid, t - lo]``;
    ``tallies[b]`` accumulates block ``b``'s (longest finished game, censored,
    stranded, throws). Unless ``throws`` is None, every game is also written to
    ``throws``, ``final`` (square) and ``used`` (jumps fired, first
    ``fired[p + f]`` then ``jump_next`` along a chain).

    ``thresh`` (the alias table's thresholds) is None for a fair die, whose faces are
    drawn two per 64-bit word. Both None arguments are compile-time switches: Numba
    compiles a kernel for each combination used, without the branches it does not take.
    ``alias`` and ``thresh`` are one die's, of shape ``(k,)``, or a chain's table of
    shape ``(size + 1, k)``, a row per square (read at the flat offset ``p + f``); their
    number of dimensions is a compile-time switch too.

    The lanes step together; lane ``l``'s game started at step ``n_l``, so it
    has made ``n - n_l`` throws, and no lane can reach ``max_throws`` before
    step ``min(n_l) + max_throws``: the hot loop runs to there (or to the end
    of the budget) without a cap test. The lanes consume one stream in a fixed
    order, so block ``b``'s games depend only on its seed.
    """
    for i in range(blocks.shape[0]):  # each block's lanes read from its saved state
        b = blocks[i]  # st, and written back
        if lanes[b, _PHASE] == 2:
            continue
        st, tally = lanes[b], tallies[b]
        k = np.uint64(alias.shape[-1])
        ki = alias.shape[-1]
        row_alias = alias.reshape(-1)
        if thresh is not None:  # (the fair die's kernel reads no row table)
            row_thresh = thresh.reshape(-1)
        nbins = hist.shape[1]
        s0, s1, s2, s3 = rng[b, 0], rng[b, 1], rng[b, 2], rng[b, 3]
        end = bounds[b + 1]
        # the lanes' state copied, not viewed: a view of an argument may alias `hist` or
        # `tally`, so every store to those reloaded it in the hot loop
        lane_state = st[2: ACTIVE + 2 * LANES].copy()
        p, n0 = lane_state[:LANES], lane_state[LANES: 2 * LANES]
        active, gid = lane_state[2 * LANES: 3 * LANES], lane_state[3 * LANES:]
        face = np.empty(LANES, dtype=np.intp)
        if st[_PHASE] == 0:
            n, g = 0, bounds[b]
            for lane in range(LANES):  # a parked lane sits on the absorbing goal row
                p[lane], n0[lane], active[lane], gid[lane] = goal, _PARKED, 0, bounds[b]
                if g < end:
                    p[lane], n0[lane], active[lane], gid[lane], g = start, 0, 1, g, g + 1
        else:
            n, g = st[0], st[1]
        n_end = n + budget
        longest = 0  # of the finished games counted in the loop (the rest: _settle)
        done = 0  # their throws
        while active.any():
            stop = min(n0.min() + max_throws, n_end)
            while n < stop:
                if thresh is None:  # a fair die: two faces per 64-bit word
                    for lane in range(0, LANES, 2):
                        r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
                        face[lane], s0, s1, s2, s3 = column(r >> U32, k, s0, s1, s2, s3)
                        face[lane + 1], s0, s1, s2, s3 = column(r & MASK32, k, s0, s1, s2, s3)
                elif alias.ndim == 1:  # one die on every square
                    for lane in range(LANES):
                        r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
                        f, s0, s1, s2, s3 = column(r >> U32, k, s0, s1, s2, s3)
                        face[lane], s0, s1, s2, s3 = alias_pick(f, r, thresh[f], alias[f], s0, s1,
                                                                s2, s3)
                else:  # a chain: an alias table per row, read at offset p + f
                    for lane in range(LANES):
                        r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
                        f, s0, s1, s2, s3 = column(r >> U32, k, s0, s1, s2, s3)
                        c = p[lane] + f
                        face[lane], s0, s1, s2, s3 = alias_pick(f, r, row_thresh[c],
                                                                row_alias[c], s0, s1, s2, s3)
                if throws is not None:  # the jumps each throw fires, along a chain
                    for lane in range(LANES):
                        j = fired[p[lane] + face[lane]]
                        while j >= 0:
                            used[gid[lane], j] = True
                            j = jump_next[j]
                ended = False
                for lane in range(LANES):
                    p[lane] = off[p[lane] + face[lane]]
                    ended |= p[lane] >= goal
                n += 1
                if not ended:
                    continue
                for lane in range(LANES):
                    if p[lane] < goal:
                        continue
                    if p[lane] == goal and active[lane] and g < end and throws is None:  # usual
                        t = n - n0[lane]
                        longest = max(longest, t)
                        done += t
                        if 0 <= t - lo < nbins:
                            hist[tid, t - lo] += 1
                        p[lane], n0[lane], gid[lane], g = start, n, g, g + 1
                    else:
                        p[lane], n0[lane], active[lane], gid[lane], g = _settle(
                            p[lane], n - n0[lane], n, active[lane], gid[lane], g, end, start, goal,
                            ki, lo, hist, tid, tally, throws, final)
                if not active.any():
                    break
            for lane in range(LANES):  # lanes that used all max_throws throws are stopped
                if active[lane] and n - n0[lane] >= max_throws:
                    p[lane], n0[lane], active[lane], gid[lane], g = _settle(
                        p[lane], n - n0[lane], n, active[lane], gid[lane], g, end, start, goal, ki,
                        lo, hist, tid, tally, throws, final)
            if n >= n_end:
                break
        tally[0] = max(tally[0], longest)
        tally[3] += done
        rng[b, 0], rng[b, 1], rng[b, 2], rng[b, 3] = s0, s1, s2, s3
        st[0], st[1] = n, g
        for j in range(lane_state.shape[0]):  # (a loop: the sizes match, nothing to check)
            st[2 + j] = lane_state[j]
        st[_PHASE] = 1 if active.any() else 2


#: Rounds a k-player race counts in its dense histograms; longer games are summed in the
#: block's tallies (their moments still count).
ROUND_BINS = 1 << 14
#: Columns of a block's saved race state: throws of the game in play, the game, the
#: mover, the players on squares they cannot leave for the goal, the phase (0 new,
#: 1 running, 2 done).
RACE_COLUMNS = 5
#: Columns of a block's race tallies: censored, stranded, throws, and the games of at
#: least ``ROUND_BINS`` rounds: their number, rounds and throws.
RACE_TALLIES = 6


@njit()
def race_kernel(succ, alias, thresh, faces, fair, dead, table, starts, mode, dest, safe,
                strand, max_throws, bounds, blocks, budget, rounds_hist, throws_hist, tid, rng, state,
                pos, wins, tallies, squares):  # pragma: no cover - jitted
    """Advance each block of ``blocks`` by at most ``budget`` throws of ``k``-player races.

    Player ``i`` throws with die ``table[i]``: ``succ[table[i]]`` is its successor table
    (squares, shape ``(size + 1, K)``), ``faces``, ``fair``, ``alias`` and ``thresh``
    that die's number of faces and alias table, ``dead[table[i]]`` the squares from
    which it can never reach the goal. Players throw in turn from ``starts``; a throw
    that moves the mover onto a square ``r`` not ``safe`` captures (``mode`` not 0)
    every opponent ``j`` on ``r``, sent to ``dest[j, r]``; a capture onto the goal wins
    for the captured player (the first after the mover, in turn order). A game is stranded
    when every player stands on a dead square: without capture (``mode`` 0) always, with
    capture only when ``strand`` is not None but ``dead`` again (no capture can send a player
    from a dead square to a live one; the dead are then counted after each move onto a dead
    square). ``strand`` is a compile-time switch, as ``thresh``.

    Block ``b`` plays games ``bounds[b] .. bounds[b + 1] - 1`` from the xoshiro256**
    state ``rng[b]``, one throw per 64-bit word (the column from its high 32 bits, then
    the alias comparison unless the die is fair); its game in play is saved in
    ``state[b]`` (:data:`RACE_COLUMNS`) and ``pos[b]``, so the next call resumes exactly:
    the games never depend on ``budget``. A finished game of ``n`` rounds and ``t``
    throws won by ``i`` adds one to ``wins[b, i]`` and, when ``n < ROUND_BINS``, to
    ``rounds_hist[tid, n]`` and ``throws_hist[tid, t]``; ``tallies[b]`` and
    ``squares[b]`` (the long games' squared rounds and throws) take the rest.

    ``thresh`` is None when every die is fair: a compile-time switch, as in
    :func:`simulate_kernel` (that kernel has no alias comparison).
    """
    k = table.shape[0]
    goal = succ.shape[1] - 1
    nbins = rounds_hist.shape[1]
    start_dead = 0
    for j in range(k):
        if dead[table[j], starts[j]]:
            start_dead += 1
    for i in range(blocks.shape[0]):
        b = blocks[i]
        if state[b, 4] == 2:
            continue
        at = pos[b].copy()  # (a copy: a view of an argument reloads in the hot loop)
        s0, s1, s2, s3 = rng[b, 0], rng[b, 1], rng[b, 2], rng[b, 3]
        end = bounds[b + 1]
        if state[b, 4] == 0:
            t, g, mover, n_dead = 0, bounds[b], 0, start_dead
            for j in range(k):
                at[j] = starts[j]
        else:
            t, g, mover, n_dead = state[b, 0], state[b, 1], state[b, 2], state[b, 3]
        steps = 0
        while g < end and steps < budget:
            d = table[mover]
            r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
            f, s0, s1, s2, s3 = column(r >> U32, np.uint64(faces[d]), s0, s1, s2, s3)
            if thresh is not None and not fair[d]:
                f, s0, s1, s2, s3 = alias_pick(f, r, thresh[d, f], alias[d, f], s0, s1, s2, s3)
            old = at[mover]
            new = succ[d, old, f]
            at[mover] = new
            t += 1
            steps += 1
            winner = -1
            if new == goal:
                winner = mover
            elif mode != 0:
                if new != old and not safe[new]:
                    j = mover
                    for _ in range(k - 1):  # the opponents, in turn order after the mover
                        j = j + 1 if j + 1 < k else 0
                        if at[j] == new:
                            at[j] = dest[j, new]
                            if at[j] == goal and winner < 0:
                                winner = j
                if strand is not None and strand[d, new]:  # all dead first after such a move
                    n_dead = 0
                    for j in range(k):
                        if strand[table[j], at[j]]:
                            n_dead += 1
            elif dead[d, new] and not dead[d, old]:
                n_dead += 1
            if winner < 0 and t < max_throws and (n_dead < k or (mode != 0 and strand is None)):
                mover = mover + 1 if mover + 1 < k else 0
                continue
            tallies[b, 2] += t
            if winner >= 0:
                wins[b, winner] += 1
                n = (t - 1) // k + 1
                if n < nbins:
                    rounds_hist[tid, n] += 1
                    throws_hist[tid, t] += 1
                else:
                    tallies[b, 3] += 1
                    tallies[b, 4] += n
                    tallies[b, 5] += t
                    squares[b, 0] += float(n) * float(n)
                    squares[b, 1] += float(t) * float(t)
            else:
                tallies[b, 0] += 1
                if t < max_throws:
                    tallies[b, 1] += 1
            g += 1  # the block's next game
            t, mover, n_dead = 0, 0, start_dead
            for j in range(k):
                at[j] = starts[j]
        rng[b, 0], rng[b, 1], rng[b, 2], rng[b, 3] = s0, s1, s2, s3
        state[b, 0], state[b, 1], state[b, 2], state[b, 3] = t, g, mover, n_dead
        state[b, 4] = 1 if g < end else 2
        for j in range(k):
            pos[b, j] = at[j]


def run_rounds(todo, threads, budget, call, done, report):
    """Play the blocks ``todo`` round after round on ``threads`` threads and return the
    last budget: each round ``call(share, budget, t)`` plays up to ``budget`` throws of
    each block of thread ``t``'s share, ``done(blocks)`` marks the blocks that finished and
    ``report()`` updates the progress. The budget of a full round aims at
    :data:`ROUND_SECONDS` (a chance to stop on Ctrl-C; never below :data:`MIN_BUDGET`);
    budgets do not change the numbers drawn."""
    while len(todo):
        shares = split(todo, threads)
        t0 = time.perf_counter()

        def task(t, shares=shares, budget=budget):
            call(shares[t], budget, t)

        run_tasks(task, len(shares))
        took = time.perf_counter() - t0
        finished = done(todo)
        if not finished.all():  # a full round: aim at ROUND_SECONDS
            scale = ROUND_SECONDS / max(took, 1e-4)
            budget = int(min(max(budget * min(max(scale, 0.25), 4.0), MIN_BUDGET), 1 << 26))
        todo = todo[~finished]
        report()
    return budget


class Run:
    """The kernel's inputs for one simulation, and the rounds over the blocks."""

    def __init__(self, cb, dead, alias, thresh, fair, start, max_throws, seeds, bounds,
                 threads):
        k = cb.succ.shape[1]
        size = cb.size
        # flat table of offsets square * k; a move onto a dead square (one that
        # cannot reach the goal) lands beyond the goal row: stranded
        dest = np.where(dead[cb.succ], cb.succ + size + 1, cb.succ)
        self.off = np.multiply(dest, k, dtype=np.int64).ravel()
        self.k, self.size, self.goal = k, size, size * k
        self.start_sq = start
        self.start = (start + (size + 1 if dead[start] else 0)) * k
        self.alias = alias.astype(np.int64)  # (copies: writable, as every caller's)
        self.thresh = None if fair else thresh.copy()  # None: the fair die's kernel
        self.max_throws, self.seeds, self.bounds = int(max_throws), seeds, bounds
        self.threads = threads
        self.games = int(bounds[-1])
        self.cb = cb
        self._budget = FIRST_BUDGET  # steps per block per round; adapted to ROUND_SECONDS

    def _record_arrays(self, per_game, games=None):
        """The kernel's per-game arguments: Nones, or arrays for ``games`` games (by default
        the run's)."""
        games = self.games if games is None else games
        if not per_game:
            return (None, None, None, None, None)
        cb = self.cb
        n_jumps = len(cb.jump_src)
        jump_next = (cb.jump_index[cb.jump_dst].astype(np.int64) if cb.chained
                     else np.full(n_jumps, -1, dtype=np.int64))
        fired = np.ascontiguousarray(cb.fired, dtype=np.int64).ravel()
        return (fired, jump_next, np.zeros(games, dtype=np.int64),
                np.zeros(games, dtype=np.int64), np.zeros((games, n_jumps), np.bool_))

    def compile(self, per_game: bool) -> None:
        """Compile (or load) the kernel that :meth:`play` will call, by a call that plays
        nothing (with per-game arrays for no game)."""
        rec = self._record_arrays(per_game, games=0)
        simulate_kernel(self.off, self.alias, self.thresh, self.start, self.goal, self.max_throws,
                        self.bounds, np.empty(0, np.int64), 1, 0,
                        np.zeros((1, 1), np.int64), 0, self.seeds.copy(),
                        np.zeros((BLOCKS, LANE_COLUMNS), np.int64),
                        np.zeros((BLOCKS, 4), np.int64), *rec)

    def _rounds(self, blocks, lo, hist, tallies, rec, bar, bounds=None):
        """Run ``blocks`` to the end, round after round, from their original seeds (game
        numbers from ``bounds``, by default the run's)."""
        bounds = self.bounds if bounds is None else bounds
        rng = self.seeds.copy()
        lanes = np.zeros((BLOCKS, LANE_COLUMNS), dtype=np.int64)
        todo = np.asarray(blocks, dtype=np.int64)
        lanes[todo[bounds[todo + 1] == bounds[todo]], _PHASE] = 2  # empty blocks
        todo = todo[lanes[todo, _PHASE] != 2]
        reported = 0

        def call(share, budget, t):
            simulate_kernel(self.off, self.alias, self.thresh, self.start, self.goal,
                            self.max_throws, bounds, share, budget, lo, hist, t, rng, lanes,
                            tallies, *rec)

        def report():
            nonlocal reported
            if bar is not None:
                active = (lanes[:, ACTIVE: ACTIVE + LANES] != 0).sum(axis=1)
                finished = int((lanes[:, 1] - bounds[:-1] - active)[lanes[:, _PHASE] > 0]
                               .sum())
                bar.update(finished - reported)
                reported = finished

        self._budget = run_rounds(todo, self.threads, self._budget, call,
                                  lambda blocks: lanes[blocks, _PHASE] == 2, report)

    def play(self, per_game, bar):
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
        hist = np.zeros((self.threads, nbins), dtype=np.int64)
        tallies = np.zeros((BLOCKS, 4), dtype=np.int64)
        rec = self._record_arrays(per_game)
        self._rounds(np.arange(BLOCKS), 0, hist, tallies, rec, bar)
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
        extra = (None, None, None)
        if per_game:
            final = rec[3].astype(np.intp)
            final[final > size] -= size + 1
            extra = (rec[2], final, rec[4])
        _, censored, stranded, total = (int(x) for x in tallies.sum(axis=0))
        return merged, (censored, stranded, total), extra, long_games

    def _long_games(self, blocks: np.ndarray, lo: int, longest: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
        """Lengths (increasing) and counts of the finished games of ``blocks`` that took at
        least ``lo`` throws. Each block is replayed alone (same stream, same games), the
        cheaper of two ways: its games' throws recorded (16 bytes per game of the block,
        whatever their length), or a histogram of its long games (8 bytes per thread per
        throw of its longest game, whatever the number of games)."""
        values, counts = [], []
        for b in blocks.tolist():
            one = np.array([b], dtype=np.int64)
            n_b = int(self.bounds[b + 1] - self.bounds[b])
            width = int(longest[b]) - lo + 1
            if 8 * self.threads * width < 16 * n_b:
                check_memory(8 * self.threads * width, f"a histogram of games of up to "
                                                        f"{int(longest[b]):,} throws")
                tail = np.zeros((self.threads, width), dtype=np.int64)
                self._rounds(one, lo, tail, np.zeros((BLOCKS, 4), np.int64),
                             self._record_arrays(False), None)
                merged = tail.sum(axis=0)
                found = np.flatnonzero(merged)
                values.append(found + lo)
                counts.append(merged[found])
                continue
            check_memory(16 * n_b, f"replaying {n_b:,} games to count those longer than "
                                   f"{lo - 1:,} throws")
            throws = np.zeros(n_b, dtype=np.int64)
            final = np.zeros(n_b, dtype=np.int64)
            rec = (np.full(len(self.off), -1, dtype=np.int64),  # no jump is recorded
                   np.empty(0, dtype=np.int64), throws, final, np.zeros((n_b, 0), np.bool_))
            # block b's games numbered from 0: arrays of one block; no histogram
            self._rounds(one, np.int64(1) << np.int64(62), np.zeros((self.threads, 1), np.int64),
                         np.zeros((BLOCKS, 4), np.int64), rec, None,
                         bounds=self.bounds - self.bounds[b])
            v, c = np.unique(throws[(final == self.size) & (throws >= lo)], return_counts=True)
            values.append(v)
            counts.append(c)
        v, inverse = np.unique(np.concatenate(values), return_inverse=True)
        return v, np.bincount(inverse, weights=np.concatenate(counts)).astype(np.int64)


def alias_tables(cb) -> tuple[np.ndarray, np.ndarray, bool]:
    """``(alias, thresh, fair)`` of the compiled board ``cb``'s dice, a table per row for a
    chain (:func:`~snl_numeric._core.rng.alias_table`), built once per compiled board and
    read-only (the kernels take writable copies: one signature)."""
    def make():
        alias, thresh, fair = alias_table(cb.probs)
        alias.flags.writeable = thresh.flags.writeable = False
        return alias, thresh, fair

    return cb.cache.get("alias_table", make)


def block_bounds(games: int) -> np.ndarray:
    """``bounds[b] .. bounds[b + 1] - 1``: the games of block ``b`` (:data:`BLOCKS` blocks)."""
    # exact Python integers: b * games overflows int64 beyond 2**63 / 256 games
    return np.array([b * games // BLOCKS for b in range(BLOCKS + 1)], dtype=np.int64)


def block_seeds(ss: np.random.SeedSequence, bounds: np.ndarray) -> np.ndarray:
    """A xoshiro256** stream per non-empty block, from child ``spawn_key + (b,)``."""
    seeds = np.zeros((len(bounds) - 1, 4), dtype=np.uint64)
    for b in np.flatnonzero(np.diff(bounds)).tolist():
        seeds[b] = stream_words(np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, b),
                                                       pool_size=ss.pool_size))
    return seeds
