"""The result of a race: values, choices and the certificate, with their text forms."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._core.equality import value_eq
from .._core.text import dice_text, grid_text, label, n_dice
from ..board import Board
from ..dice import Dice


@dataclass(frozen=True)
class RaceConvergence:
    """How the values were found and how far they can be off.

    Attributes
    ----------
    sweeps : int
        Gauss-Seidel sweeps over the pair states.
    bracket : float
        The certificate: the largest gap, over all pair states, between a
        proven lower and a proven upper bound on a chance to win or not to
        lose. Every entry of ``value`` and ``opponent_wins`` lies inside such
        an interval with the exact value (at its middle when the bracket
        closed below ``tol``).
    draw_bounds : bool
        Whether nobody may win from some position, so that chances to win
        and not to lose were bracketed separately (four bounds per state).
    note : str
        Anything unusual (e.g. a bracket that did not close), empty otherwise.
    """

    sweeps: int
    bracket: float
    draw_bounds: bool = False
    note: str = ""


@dataclass(frozen=True, eq=False)
class RaceResult:
    """Two players racing, each choosing a die before every throw.

    Attributes
    ----------
    board : Board
        The board and rules (its own dice are replaced by ``dice``).
    dice : tuple of Dice
        The dice to choose from, indexed as in ``policy``.
    optional_jumps : bool
        Whether players may decline snakes and ladders.
    opponent : str
        ``"optimal"`` (both players maximise their chance of winning), or the
        kind of fixed opponent the first player best-responds to.
    value : ndarray of float64, shape (size + 1, size + 1)
        ``value[i, j]``: the chance that the player about to throw, on square
        ``i``, wins against the other player on square ``j`` (1 on row
        ``size``: that player is home; 0 on column ``size`` below it).
        Against a fixed opponent: the chance of the best-responding player
        when it is about to throw.
    opponent_wins : ndarray of float64, shape (size + 1, size + 1)
        The chance that the other player wins from the same position. Where
        nobody may ever win, ``value + opponent_wins < 1``.
    policy : ndarray of int64, shape (size + 1, size + 1)
        ``policy[i, j]``: index into ``dice`` of the die to throw (the
        smallest index among tied choices); -1 where the game is over.
    jumps : tuple of (int, int)
        The board's jumps ``(from, to)``, sorted by square.
    take : ndarray of bool, shape (n_jumps, size + 1)
        ``take[k, j]``: whether the mover follows ``jumps[k]`` after landing on
        it while the other player is on ``j`` (all True unless
        ``optional_jumps``; following on ties).
    win_probability : float
        ``value[start, start]``: the first player's chance to win.
    lose_probability : float
        ``opponent_wins[start, start]``: the second player's chance to win.
    no_winner : float
        The chance that nobody ever wins, ``1 - win_probability -
        lose_probability`` (0 unless some position is a dead end for both).
    win_probability_second : float
        The (best-responding) player's chance to win when the other throws
        first.
    convergence : RaceConvergence
        Sweeps and the certificate (bracket width).
    """

    __eq__ = value_eq  # (value equality: see snl_numeric._core.equality)
    __hash__ = None  # type: ignore[assignment]

    board: Board
    dice: tuple[Dice, ...]
    optional_jumps: bool
    opponent: str
    value: np.ndarray = field(repr=False)
    opponent_wins: np.ndarray = field(repr=False)
    policy: np.ndarray = field(repr=False)
    jumps: tuple[tuple[int, int], ...] = field(repr=False)
    take: np.ndarray = field(repr=False)
    win_probability: float
    lose_probability: float
    no_winner: float
    win_probability_second: float
    convergence: RaceConvergence

    @property
    def bracket(self) -> float:
        """The certificate: width of the proven interval around every value."""
        return self.convergence.bracket

    @property
    def no_winner_table(self) -> np.ndarray:
        """``1 - value - opponent_wins``: the chance that nobody ever wins, per position."""
        return np.clip(1.0 - self.value - self.opponent_wins, 0.0, 1.0)

    def to_dict(self, *, tables: bool = True) -> dict[str, Any]:
        """A JSON-ready summary; ``tables=False`` leaves out the per-position tables."""
        out: dict[str, Any] = {
            "board": self.board.to_dict(),
            "dice": [{"label": label(i), "dice": dice_text(d)} for i, d in enumerate(self.dice)],
            "optional_jumps": self.optional_jumps,
            "opponent": self.opponent,
            "start": self.board.start,
            "win_probability": self.win_probability,
            "lose_probability": self.lose_probability,
            "no_winner": self.no_winner,
            "win_probability_second": self.win_probability_second,
            "policy_start": int(self.policy[self.board.start, self.board.start]),
            "convergence": {"sweeps": self.convergence.sweeps,
                            "bracket": self.convergence.bracket,
                            "draw_bounds": self.convergence.draw_bounds,
                            "note": self.convergence.note},
        }
        if tables:
            out["value"] = self.value.tolist()
            out["opponent_wins"] = self.opponent_wins.tolist()
            out["policy"] = self.policy.tolist()
            out["jumps"] = [{"from": s, "to": d, "take": t.tolist()}
                            for (s, d), t in zip(self.jumps, self.take, strict=True)]
        return out

    def _repr_html_(self) -> str:
        from ..display.html import race_html

        return race_html(self)

    def __str__(self) -> str:
        b = self.board
        s = b.start
        who = ("both players play to win" if self.opponent == "optimal"
               else f"best response to a fixed opponent ({self.opponent})")
        c = self.convergence
        lines = [
            f"race on {b.name or f'a board of size {b.size}'}: {n_dice(self.dice)}"
            + (", optional jumps" if self.optional_jumps else "") + f"; {who}",
            "  dice              " + "  ".join(
                f"{label(i)} = {dice_text(d)}" for i, d in enumerate(self.dice)),
            f"  first player      wins {self.win_probability:.12f} (both start on square {s})",
            f"  second player     wins {self.lose_probability:.12f}",
        ]
        if self.no_winner > 0.0:
            lines.append(f"  nobody wins       {self.no_winner:.12f}")
        if self.opponent != "optimal":
            lines.append(f"  moving second     wins {self.win_probability_second:.12f}")
        lines.append(f"  certificate       proven bracket {c.bracket:.1e} around every value "
                     f"({c.sweeps} Gauss-Seidel sweeps)" + (f"; {c.note}" if c.note else ""))
        if len(self.dice) > 1:
            first = int(self.policy[s, s])
            lines.append("  first throw       " + (f"die {label(first)}" if first >= 0
                                                   else "none: the game is over"))
            lines += choice_map(self)
        if self.optional_jumps:
            lines.append("  jumps declined    " + declined_text(self))
        return "\n".join(lines)


def choice_map(r: RaceResult) -> list[str]:
    """Per own square: the die thrown whatever the opponent does, or the usual one and ``*``."""
    size = r.board.size
    pol = r.policy[:size, :size]
    w = len(str(size))
    labw = max(len(label(i)) for i in range(len(r.dice)))

    def die(i: int) -> str:
        if i == size:
            return " " * (labw + 1)
        counts = np.bincount(pol[i], minlength=len(r.dice))
        top = int(np.argmax(counts))
        return f"{label(top):<{labw}}{' ' if counts[top] == size else '*'}"

    lines = [f"  square 0 (off the board): die {die(0).rstrip()}; square 1 is bottom left"]
    lines += grid_text(size, lambda i: f"{i:>{w}} {die(i)}")
    lines.append("  (own square, die; * the choice depends on the opponent's square, "
                 "the die shown is the most frequent)")
    return lines


def declined_text(r: RaceResult) -> str:
    """Jumps declined, with how often (over the opponent's squares)."""
    size = r.board.size
    parts = []
    for (s, d), t in zip(r.jumps, r.take, strict=True):
        k = int(np.count_nonzero(~t[:size]))
        if k == size:
            parts.append(f"{s}->{d} always")
        elif k:
            parts.append(f"{s}->{d} for {k} opponent squares")
    return ", ".join(parts) if parts else "none"
