"""Players who meet: the exact joint chain of ``k`` tokens under a capture rule.

When a token that moved comes to rest on an unsafe square ``r`` holding opponents, they are
captured (:func:`~snl_numeric.board.capture_rule`): sent to their start square, or back
``back`` squares and through the jump there. The players' lengths are no longer
independent, so the game is followed as one chain whose state is the tuple of the ``k``
positions; whose turn it is follows from the throw count (player ``t mod k`` makes throw
``t``), so it is not part of the state.

The mass array ``M`` of shape ``(m,) * k`` (``m`` the squares any token can rest on, the
goal left out) holds ``P(game not over, positions)`` and is pushed one throw at a time.
It is kept with the mover's axis first: the mover's single-player matrix splits into
its diagonal ``d`` (the token did not move: no capture) and the moved part ``O``; the
moved mass ``M^T O`` comes out with the mover's axis last, which is the layout of the
next throw rotated by one, so no axis is ever moved. The capture then moves, for each
unsafe square ``r`` and each opponent ``i``, the mass with ``p_mover = p_i = r`` to
``p_i = dest_i(r)`` (one fancy-indexed scatter per opponent: the moves act on each
coordinate alone, so one opponent after the other composes them). The mass ``g . M`` that
reaches the goal at throw ``t`` is player ``t mod k``'s win in round ``t // k + 1``.

A capture under ``capture=k`` whose square ``max(0, r - k)`` jumps (along its chain) to the
goal sends the captured token home: that player wins at once, and when several opponents
stood on ``r`` the first of them after the mover in turn order wins. The game ends in the
round of the mover's throw, after the throws made so far (the rule of
``simulate(..., players=k)``). The push takes that mass out opponent by opponent, in turn
order, as wins of the captured player at throw ``t``; so the throws of a game are kept
per throw (``ends``), not derived from the winner and the round.

Stranded states (no sequence of throws ends the game: e.g. every player stuck below the
goal under ``"exact"``) are found first, by pulling the indicator of "the game can end"
backwards through the same moves until it stops growing; mass that enters them is
``no_winner``. The rest of the mass leaves the chain geometrically. With ``q`` the largest
chance that the game lasts more than ``r`` further throws (the all-ones survival pulled
``r`` throws back), at most ``B = k - 1 + r / (1 - q)`` throws are expected from any
state, so the push stops when the mass still racing, ``rho``, has ``rho * B < tail``:
each win chance then lies in ``[w, w + rho]`` and the cut tail's share of the mean
throws is below ``tail`` (where stranded states exist, when ``rho < tail``).
Where none exist, no throw ends the game with a chance above ``e`` (the largest, over
movers and squares, of reaching the goal or capturing onto a square that sends an
opponent home), so ``max_throws`` throws leave at least ``(1 - e)**max_throws`` racing:
a game that cannot finish is refused before the push (with a factor 2 to spare against
the push's roundings), not after ``max_throws`` throws.

Cost: ``O(m^k)`` memory (a few arrays of that size) and ``O(nnz(O) m^(k-1))`` per throw.
Milton Bradley (81 squares a token can rest on): 6,561 states for 2 players, 531,441 for 3
and 43 million for 4, past ``MAX_JOINT_STATES`` (refused, with the estimate).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ._core.memory import check_memory, format_bytes
from ._core.progress import Progress
from ._core.sizes import MAX_JOINT_STATES
from ._core.vectorised import landing_rest
from .board import Board, capture_rule

__all__ = ["MeetResult", "meet_game"]

#: Arrays of ``m^k`` float64 alive at once in a push (mass, moved, stayed, the live masks).
WORK_ARRAYS = 5


class MeetResult(NamedTuple):
    """The joint chain's answer: ``win_pmf[i, n] = P(player i wins in round n)``, the mass
    that can never win, the mass still racing when the push stopped, and
    ``ends[t] = P(the game ends after t throws in total)``."""

    win_pmf: np.ndarray
    no_winner: float
    remaining: float
    ends: np.ndarray


def _capture_targets(board: Board, starts: list[int], mode: int, back: int) -> np.ndarray:
    """``dest[i, r]``: where player ``i`` captured on square ``r`` goes."""
    n = board.size + 1
    if mode == 1:
        return np.repeat(np.array(starts, dtype=np.int64)[:, None], n, axis=1)
    jump_to = np.full(n, -1, dtype=np.int64)
    src, dst = board.jump_arrays
    jump_to[src] = dst
    rest = landing_rest(jump_to, board.chain)
    dest = rest[np.maximum(np.arange(n) - back, 0)]
    return np.repeat(dest[None, :], len(starts), axis=0)


def _resting_squares(succs: list[np.ndarray], starts: list[int], dest: np.ndarray,
                     unsafe: np.ndarray, goal: int) -> np.ndarray:
    """The squares (goal left out) a token can rest on: the starts, closed under every
    player's throws and the captures."""
    seen = np.zeros(goal + 1, dtype=bool)
    frontier = np.unique(np.array(starts, dtype=np.int64))
    while frontier.size:
        seen[frontier] = True
        nxt = [s[frontier].ravel() for s in succs]
        hit = frontier[unsafe[frontier]]
        nxt += [d[hit] for d in dest]
        cand = np.unique(np.concatenate(nxt))
        frontier = cand[~seen[cand]]
    seen[goal] = False
    return np.flatnonzero(seen)


def _moves(succ: np.ndarray, probs: np.ndarray, squares: np.ndarray, index: np.ndarray,
           goal: int) -> tuple[sp.csr_matrix, sp.csr_matrix, np.ndarray, np.ndarray]:
    """One player's throw on the resting squares: the moved part ``O`` (and its transpose),
    the diagonal ``d`` (the token stays) and ``g`` (it reaches the goal)."""
    m = len(squares)
    rows = np.repeat(np.arange(m), succ.shape[1])
    to = succ[squares].ravel()
    q = np.tile(probs, m)
    won, stay = to == goal, to == np.repeat(squares, succ.shape[1])
    g = np.bincount(rows[won], weights=q[won], minlength=m)
    d = np.bincount(rows[stay], weights=q[stay], minlength=m)
    keep = ~(won | stay)
    moved = sp.csr_matrix((q[keep], (rows[keep], index[to[keep]])), shape=(m, m))
    moved.sum_duplicates()
    return moved, moved.T.tocsr(), d, g


class _Game:
    """The arrays of one game: per player the moves, the capture targets, the unsafe squares."""

    def __init__(self, boards: list[Board], starts: list[int]) -> None:
        board = boards[0]
        self.k = len(boards)
        mode, back, safe_mask = capture_rule(board)
        goal = board.size
        dest = _capture_targets(board, starts, mode, back)
        unsafe = ~safe_mask
        succs = [b.compiled.succ for b in boards]
        squares = _resting_squares(succs, starts, dest, unsafe, goal)
        index = np.full(goal + 1, -1, dtype=np.int64)
        index[squares] = np.arange(len(squares))
        self.m = m = len(squares)
        self.squares, self.index = squares, index
        self.moves = [_moves(b.compiled.succ, b.compiled.probs, squares, index, goal)
                      for b in boards]
        # the unsafe squares a capture sends back, and those it sends home (a jump to the goal)
        at_risk = np.flatnonzero(unsafe[squares])
        home = dest[0][squares[at_risk]] == goal  # (the same for every player: mode 2 only)
        self.unsafe, self.home = at_risk[~home], at_risk[home]
        self.dest = [index[d[squares]][self.unsafe] for d in dest]
        self.start = tuple(int(index[s]) for s in starts)
        states = float(m) ** self.k
        what = f"the joint chain of {self.k} players on {m:,} squares ({states:,.0f} states)"
        if states > MAX_JOINT_STATES:
            raise ValueError(f"{what} is too large for the exact answer (at most "
                             f"{MAX_JOINT_STATES:,} states; it would need about "
                             f"{format_bytes(8.0 * WORK_ARRAYS * states)} and hundreds of "
                             "throws over all of them): estimate it by simulation")
        check_memory(8.0 * WORK_ARRAYS * states, what)

    def _meeting(self, s: int, squares: np.ndarray) -> tuple:
        """Indices of the entries with the opponent on axis ``s`` on the mover's square, one
        of ``squares``, in the layout with the mover's axis last."""
        src: list = [slice(None)] * self.k
        src[s] = src[-1] = squares
        return tuple(src)

    def _pairs(self, mover: int, s: int) -> tuple[tuple, tuple]:
        """Indices of the entries (opponent on axis ``s`` on the mover's square ``r``) and of
        where a capture sends them, in the layout with the mover's axis last."""
        i = (mover + 1 + s) % self.k
        src = self._meeting(s, self.unsafe)
        dst = list(src)
        dst[s] = self.dest[i]
        return src, tuple(dst)

    def push(self, mass: np.ndarray, mover: int) -> tuple[np.ndarray, np.ndarray]:
        """One throw by ``mover`` (its axis first in ``mass``): the mass after it, the next
        mover's axis first, and per player the mass that won (the mover reaching the goal,
        or an opponent a capture sent there)."""
        _, moved_t, d, g = self.moves[mover]
        flat = mass.reshape(self.m, -1)
        won = np.zeros(self.k)
        won[mover] = g @ flat.sum(axis=1)
        out = np.ascontiguousarray((moved_t @ flat).T).reshape(mass.shape)
        for s in range(self.k - 1):  # the opponents in turn order after the mover
            if self.home.size:  # (sent home: the first such opponent wins)
                src = self._meeting(s, self.home)
                won[(mover + 1 + s) % self.k] += out[src].sum()
                out[src] = 0.0
            src, dst = self._pairs(mover, s)
            caught = out[src]
            out[src] = 0.0
            out[dst] += caught
        out.reshape(-1, self.m)[...] += flat.T * d
        return out, won

    def pull(self, value: np.ndarray, mover: int, goal: float = 1.0) -> np.ndarray:
        """The transpose of :meth:`push` with the goal worth ``goal``: ``value`` in the next
        mover's layout -> the expected value before ``mover``'s throw, in its layout."""
        moved, _, d, g = self.moves[mover]
        after = value.copy()
        for s in range(self.k - 1):
            src, dst = self._pairs(mover, s)
            after[src] = after[dst]
            if self.home.size:
                after[self._meeting(s, self.home)] = goal
        flat, before = after.reshape(-1, self.m), value.reshape(-1, self.m)
        out = np.asarray(moved @ flat.T)
        out += before.T * d[:, None]
        if goal:
            out += goal * g[:, None]
        return out.reshape(value.shape)

    def live(self) -> list[np.ndarray] | None:
        """Per mover, the states (in its layout) from which the game can end; None when it
        can end from every state."""
        shape = (self.m,) * self.k
        live = [np.zeros(shape, dtype=bool) for _ in range(self.k)]
        changed = True
        while changed:
            changed = False
            for j in reversed(range(self.k)):
                grown = self.pull(live[(j + 1) % self.k].astype(np.float64), j) > 0.0
                if not np.array_equal(grown, live[j]):
                    live[j] = grown
                    changed = True
        if all(v.all() for v in live):
            return None
        return live

    def exit_bound(self) -> float:
        """The largest chance, over the movers and their squares, that one throw ends the
        game: the mover reaching the goal, or coming to rest on a square from which a
        capture sends an opponent home. Where no state is stranded, nothing else takes mass
        out of the push, so each throw takes at most this share of the mass still racing."""
        out = 0.0
        for moved, _, _, g in self.moves:
            chance = g + np.asarray(moved[:, self.home].sum(axis=1)).ravel()
            out = max(out, float(chance.max(initial=0.0)))
        return out

    def throws_bound(self) -> float:
        """A bound on the expected throws left from any state: with ``q`` the largest
        chance (over player 0's states) that the game lasts more than ``r`` further throws
        (``r`` a multiple of ``k``, the all-ones survival pulled ``r`` throws back),
        ``k - 1 + r / (1 - q)``; ``inf`` when no ``r`` tried gives ``q <= 1/2``."""
        survival = np.ones((self.m,) * self.k)
        r = 0
        for _ in range(5):
            for _ in range(16):
                for j in reversed(range(self.k)):
                    survival = self.pull(survival, j, goal=0.0)
                r += self.k
            q = float(survival.max())
            if q <= 0.5:
                return self.k - 1 + r / (1.0 - q)
        return np.inf


def meet_game(boards: list[Board], starts: list[int], tail: float, max_throws: int,
              bar: Progress | None = None) -> MeetResult:
    """Win chances per player and round of ``k = len(boards)`` players racing under
    ``boards[0]``'s capture rule (the boards differ at most in their dice); ``starts``
    are squares. ``ValueError`` if the mass still racing is not below ``tail`` after
    ``max_throws`` throws. ``bar`` counts the throws."""
    k = len(boards)
    goal = boards[0].size
    if goal in starts:  # a player on the goal has won before anyone throws
        w = np.zeros((k, 1))
        w[starts.index(goal), 0] = 1.0
        return MeetResult(w, 0.0, 0.0, np.ones(1))
    game = _Game(boards, starts)
    live = game.live()
    mass = np.zeros((game.m,) * k)
    mass[game.start] = 1.0
    never = 0.0
    if live is not None and not live[0][game.start]:
        never, mass[game.start] = 1.0, 0.0
    # the push stops when the remaining mass and its share of the mean throws are below tail
    factor = 1.0 if live is not None else game.throws_bound()
    if not np.isfinite(factor):  # (no bound found: the mass alone decides)
        factor = 1.0
    wins: list[np.ndarray] = []
    remaining = 1.0 - never
    if live is None:  # refuse at once what max_throws throws cannot bring below tail (docs)
        exit_max = game.exit_bound()
        floor = remaining * math.exp(max_throws * math.log1p(-exit_max)) if exit_max < 1 else 0.0
        if floor >= 2.0 * tail:
            raise ValueError(f"the mass still racing cannot fall below {tail:g} within "
                             f"max_throws={max_throws} throws (at least {floor:.3g} is left: "
                             f"no throw ends the game with a chance above {exit_max:.3g}); "
                             "raise max_throws or tail")
    t = 0
    while (remaining >= tail or remaining * factor >= tail) and t < max_throws:
        mover = t % k
        mass, won = game.push(mass, mover)
        wins.append(won)
        t += 1
        if live is not None:
            dead = ~live[t % k]
            never += float(mass[dead].sum())
            mass[dead] = 0.0
        remaining = float(mass.sum())
        if bar is not None:
            bar.update(1)
    if remaining >= tail:
        raise ValueError(f"the mass still racing did not fall below {tail:g} within "
                         f"max_throws={max_throws} throws (remaining {remaining:.3g}); raise "
                         "max_throws or tail")
    rounds = -(-len(wins) // k)
    w = np.zeros((k, rounds + 1))
    padded = np.zeros((rounds * k, k))  # (throw, winner)
    if wins:
        padded[: len(wins)] = wins
    w[:, 1:] = padded.reshape(rounds, k, k).sum(axis=1).T
    ends = np.zeros(rounds * k + 1)
    ends[1:] = padded.sum(axis=1)
    return MeetResult(w, never, remaining, ends)
