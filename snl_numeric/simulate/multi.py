"""``simulate(..., players=k)``: races of ``k`` players who may capture each other.

Players throw in turn, player 0 first; a throw moves the mover's token as in the
one-player game, and the first player to rest on the goal wins. Under a capture rule a
throw that moves the mover onto a square that is not safe sends every opponent standing
there to its own start (``mode`` 1) or back ``back`` squares, where the jump of that
square applies (``mode`` 2; followed along a chain when jumps chain); a captured token
captures nobody, and one sent onto the goal (by a ladder into it) wins. The games share
the one-player simulation's machinery: the same blocks and streams (reproducible for a
seed whatever the thread count), the same alias tables, rounds that report progress and
stop on Ctrl-C.
"""

from __future__ import annotations

import time
from typing import Any, cast

import numpy as np
from scipy.special import ndtri

from .._core.memory import check_memory
from .._core.progress import Progress
from .._core.vectorised import landing_rest
from ..board import Board, capture_rule
from ..lineup import player_boards, player_count
from .kernel import (
    FIRST_BUDGET,
    RACE_COLUMNS,
    RACE_TALLIES,
    ROUND_BINS,
    alias_tables,
    block_bounds,
    block_seeds,
    race_kernel,
    run_rounds,
)
from .result import BLOCKS, GameSimulationResult, pooled_moments


def players_count(players: Any, starts: Any, dice: Any) -> int:
    """The number of players: ``players``, or the length of the list ``starts`` or ``dice``
    (:func:`~snl_numeric.lineup.player_count`; there is no default)."""
    return player_count(players, None, starts=starts, dice=dice)


def _distinct(board: Board, k: int, starts: Any, dice: Any
              ) -> tuple[list[Board], np.ndarray, np.ndarray]:
    """The distinct boards (``board`` first, then one per other die), each player's index
    into them, and the starts (:func:`~snl_numeric.lineup.player_boards`)."""
    per, per_start = player_boards(board, k, starts, dice)
    boards_: list[Board] = [board]
    table = np.zeros(k, dtype=np.int64)
    for i, b in enumerate(per):
        known = [j for j, c in enumerate(boards_) if c is b]
        if not known:
            boards_.append(b)
            known = [len(boards_) - 1]
        table[i] = known[0]
    return boards_, table, np.array(per_start, dtype=np.int64)


def capture_destinations(board: Board, starts: np.ndarray, mode: int, back: int
                         ) -> np.ndarray:
    """``dest[j, p]``: where player ``j`` captured on square ``p`` goes: its start
    (``mode`` 1), or where a token resting after landing on ``max(0, p - back)`` rests
    (``mode`` 2: the jump there, along its chain when jumps chain); zeros for ``mode`` 0."""
    k, n = len(starts), board.size + 1
    if mode == 1:
        return np.repeat(starts[:, None], n, axis=1).astype(np.int64)
    if mode == 2:
        src, dst = board.jump_arrays
        jump_to = np.full(n, -1, dtype=np.intp)
        jump_to[src] = dst
        rest = landing_rest(jump_to, board.chain)
        landed = np.maximum(np.arange(n) - back, 0)
        return np.repeat(rest[landed][None, :], k, axis=0).astype(np.int64)
    return np.zeros((k, n), dtype=np.int64)


def simulate_players(board: Board, games: int, players: Any, *, starts: Any = None,
                     dice: Any = None, ss: np.random.SeedSequence, max_throws: int, threads: int,
                     progress: bool | str = False, confidence: float = 0.95
                     ) -> GameSimulationResult:
    """``games`` races of ``players`` players on ``board`` (validated ``games``,
    ``max_throws``, ``threads``, ``confidence``; ``ss`` the seed) under the board's capture
    rule (:func:`~snl_numeric.board.capture_rule`). Games without a winner are counted in
    ``censored``; :func:`~.run.simulate` warns about them."""
    if not isinstance(board, Board):
        raise TypeError(f"players= races on a Board, got {type(board).__name__}")
    k = players_count(players, starts, dice)
    n = board.size + 1
    # the per-player part of the estimate below, before the per-player lists are built
    check_memory(16 * k * n + threads * 8 * ROUND_BINS * (k + 1),
                 f"a race of {k:,} players on a board of {n:,} squares")
    mode, back, mask = capture_rule(board)
    safe = np.array(mask, dtype=np.bool_)  # (a writable copy: one kernel signature)
    boards_, table, starts_ = _distinct(board, k, starts, dice)
    cbs = [b.compiled for b in boards_]
    width = max(len(cb.probs) for cb in cbs)
    check_memory(8 * len(cbs) * n * (width + 1) + 16 * k * n
                 + threads * 8 * ROUND_BINS * (k + 1),
                 f"a race of {k:,} players on a board of {n:,} squares")
    succ = np.zeros((len(cbs), n, width), dtype=np.int64)
    alias = np.zeros((len(cbs), width), dtype=np.int64)
    thresh = np.zeros((len(cbs), width), dtype=np.uint64)
    faces = np.zeros(len(cbs), dtype=np.int64)
    fair = np.zeros(len(cbs), dtype=np.bool_)
    dead = np.zeros((len(cbs), n), dtype=np.bool_)
    for d, cb in enumerate(cbs):
        f = len(cb.probs)
        succ[d, :, :f] = cb.succ
        a, th, fair[d] = alias_tables(cb)
        alias[d, :f], thresh[d, :f], faces[d] = a, th, f
        dead[d] = cb.reach[0] < 0
    dest = capture_destinations(board, starts_, int(mode), int(back))
    # a game with every player on a dead square is stranded unless a capture there could send
    # someone to a live square (captures happen only off the goal and the safe squares)
    pdead = dead[table]  # (k, n): player j's dead squares
    hit = pdead & ~safe
    hit[:, -1] = False
    strand = (dead if mode != 0 and pdead.any()
              and not (hit & ~np.take_along_axis(pdead, dest, axis=1)).any() else None)
    bounds = block_bounds(games)
    run = RaceRun((succ, alias, None if fair.all() else thresh, faces, fair, dead, table,
                   starts_, int(mode), dest, safe, strand), min(max_throws, 1 << 53),
                  block_seeds(ss, bounds), bounds, threads)
    run.compile()
    t0 = time.perf_counter()
    with Progress(games, "simulate", enabled=progress) as bar:
        wins, rounds, throws, tallies, squares = run.play(bar)
    elapsed = time.perf_counter() - t0

    censored, stranded, total, n_long, long_rounds, long_throws = (
        int(x) for x in tallies.sum(axis=0))
    sq = squares.sum(axis=0)
    mean_rounds, rounds_se = pooled_moments(rounds, n_long, long_rounds, float(sq[0]))
    mean_throws, throws_se = pooled_moments(throws, n_long, long_throws, float(sq[1]))
    shares = wins / games
    se = np.sqrt(shares * (1.0 - shares) / games)
    z = float(ndtri(0.5 + confidence / 2.0))
    ci = np.column_stack([shares - z * se, shares + z * se])
    for arr in (wins, shares, se, ci, rounds, throws):
        arr.flags.writeable = False
    return GameSimulationResult(
        board=board, players=k, starts=tuple(int(s) for s in starts_),
        capture=(int(mode), int(back) if mode == 2 else 0,
                 tuple(int(s) for s in np.flatnonzero(safe))),
        games=games, finished=games - censored, censored=censored, stranded=stranded,
        max_throws=max_throws, wins=wins, win_shares=shares, win_stderr=se, win_ci=ci,
        mean_rounds=mean_rounds, rounds_stderr=rounds_se, mean_throws=mean_throws,
        throws_stderr=throws_se, confidence=float(confidence), rounds_histogram=rounds,
        throws_histogram=throws, long_games=n_long, total_throws=total,
        entropy=int(cast(int, ss.entropy)), spawn_key=tuple(int(x) for x in ss.spawn_key), blocks=BLOCKS,
        threads=threads, elapsed=elapsed)


class RaceRun:
    """The race kernel's tables for one simulation, and the rounds over the blocks."""

    def __init__(self, tables: tuple, max_throws: int, seeds: np.ndarray, bounds: np.ndarray,
                 threads: int) -> None:
        self.tables, self.max_throws = tables, int(max_throws)
        self.seeds, self.bounds, self.threads = seeds, bounds, threads
        self.k = len(tables[6])
        self._budget = FIRST_BUDGET

    def _call(self, blocks, budget, rounds, throws, tid, rng, state, pos, wins, tallies,
              squares) -> None:
        race_kernel(*self.tables, self.max_throws, self.bounds, blocks, budget, rounds, throws,
                    tid, rng, state, pos, wins, tallies, squares)

    def _arrays(self, rows: int) -> tuple[np.ndarray, ...]:
        """Fresh per-block arrays: state, positions, wins, tallies, squares."""
        return (np.zeros((rows, RACE_COLUMNS), np.int64), np.zeros((rows, self.k), np.int64),
                np.zeros((rows, self.k), np.int64), np.zeros((rows, RACE_TALLIES), np.int64),
                np.zeros((rows, 2), np.float64))

    def compile(self) -> None:
        """Compile (or load) the kernel by a call that plays nothing."""
        self._call(np.empty(0, np.int64), 1, np.zeros((1, ROUND_BINS), np.int64),
                   np.zeros((1, ROUND_BINS * self.k), np.int64), 0, self.seeds.copy(),
                   *self._arrays(BLOCKS))

    def play(self, bar: Progress) -> tuple[np.ndarray, ...]:
        """``(wins, rounds histogram, throws histogram, tallies, squares)``, the tallies
        and squares per block."""
        games, k = int(self.bounds[-1]), self.k
        starts, goal = self.tables[7], self.tables[0].shape[1] - 1
        state, pos, wins, tallies, squares = self._arrays(BLOCKS)
        home = np.flatnonzero(starts == goal)
        dead = self.tables[5][self.tables[6], starts]
        strands = self.tables[8] == 0 or self.tables[11] is not None  # (see race_kernel)
        if len(home) or (strands and dead.all()):  # decided before any throw
            out = np.zeros(k, np.int64)
            hist = np.zeros(1 if len(home) else 0, np.int64)
            if len(home):
                out[home[0]] = hist[0] = games
            else:
                tallies[0, :2] = games
            bar.update(games)
            return out, hist, hist.copy(), tallies, squares
        rounds = np.zeros((self.threads, ROUND_BINS), np.int64)
        throws = np.zeros((self.threads, ROUND_BINS * k), np.int64)
        rng = self.seeds.copy()
        bounds = self.bounds
        todo: Any = np.flatnonzero(np.diff(bounds)).astype(np.int64)
        reported = 0

        def call(share, budget, t):
            self._call(share, budget, rounds, throws, t, rng, state, pos, wins, tallies,
                       squares)

        def report():
            nonlocal reported
            started = state[:, 4] > 0
            finished = int((state[started, 1] - bounds[:-1][started]).sum())
            bar.update(finished - reported)
            reported = finished

        self._budget = run_rounds(todo, self.threads, self._budget, call,
                                  lambda blocks: state[blocks, 4] == 2, report)
        merged = rounds.sum(axis=0)
        last = np.flatnonzero(merged)
        merged = merged[: last[-1] + 1] if len(last) else merged[:0]
        t_merged = throws.sum(axis=0)
        last = np.flatnonzero(t_merged)
        t_merged = t_merged[: last[-1] + 1] if len(last) else t_merged[:0]
        return wins.sum(axis=0), merged, t_merged, tallies, squares
