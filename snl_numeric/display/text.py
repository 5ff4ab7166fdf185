"""Plain-text reports (the ``str()`` of results, and what ``snl`` prints).

Every report has one label column (:data:`LABEL_WIDTH` wide), says what its
notation means, counts with correct plurals, prints ``-`` for a missing
number and names dice the way people write them (``d6``, ``2d6``, ``1-3``).
The results' ``__str__`` call down into these functions, which import only
the private layer.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from .._core.text import capture_words, dice_text

__all__ = ["analysis_text", "design_text", "game_length_text", "plural", "rules_line",
           "simulation_text", "table", "value"]

#: Width of the label column of every report.
LABEL_WIDTH = 18
#: Jumps listed one per line before the report refers to the attributes instead.
MAX_JUMP_LINES = 60


def plural(n: int, word: str, many: str | None = None) -> str:
    """``"1 ladder"``, ``"2 ladders"``.

    Examples
    --------
    >>> plural(1, "snake"), plural(0, "snake"), plural(3, "die", "dice")
    ('1 snake', '0 snakes', '3 dice')
    """
    return f"{n} {word if n == 1 else (many or word + 's')}"


def value(x: Any, digits: int = 6) -> str:
    """A number for a report: ``-`` when missing, ``inf`` spelled out, floats fixed.

    Examples
    --------
    >>> value(None), value(39.22512230), value(math.inf), value(7)
    ('-', '39.225122', 'inf', '7')
    """
    if x is None:
        return "-"
    if isinstance(x, float):
        if math.isnan(x):
            return "-"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return f"{x:.{digits}f}"
    return str(x)


def line(name: str, text: str) -> str:
    """One report line: the label padded to the label column."""
    return f"  {name:<{LABEL_WIDTH}}{text}"


def table(header: Sequence[str], rows: Iterable[Sequence[str]], *,
          right: Sequence[bool] | None = None) -> list[str]:
    """Lines of an aligned table (columns as wide as their widest cell).

    Examples
    --------
    >>> print("\\n".join(table(["jump", "P"], [["1->38", "0.5"], ["80->100", "0.25"]])))
      jump     P
      1->38    0.5
      80->100  0.25
    """
    rows = [list(r) for r in rows]
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=False)]
    right = right or [False] * len(header)

    def fmt(cells: Sequence[str]) -> str:
        parts = [f"{c:>{w}}" if r else f"{c:<{w}}"
                 for c, w, r in zip(cells, widths, right, strict=True)]
        return ("  " + "  ".join(parts)).rstrip()

    return [fmt(header)] + [fmt(r) for r in rows]


def rules_line(board: Any, start: int | None = None) -> str:
    """The rules of a board in words (``start``: when not the board's own).

    Examples
    --------
    >>> from snl_numeric import boards
    >>> rules_line(boards.get("milton-bradley"))
    'exact landing on 100, one jump per throw, dice d6, start 0'
    """
    overshoot = {"win": f"overshooting {board.size} wins",
                 "exact": f"exact landing on {board.size}",
                 "bounce": f"bounce back from {board.size}"}[board.overshoot]
    chain = "jumps chain" if board.chain else "one jump per throw"
    start = board.start if start is None else start
    return (f"{overshoot}, {chain}, dice {dice_text(board.dice)}, start {start}"
            f"{capture_words(board)}")



def title(board: Any) -> str:
    """``name: 9 ladders, 10 snakes``."""
    name = board.name or f"board of size {board.size}"
    return f"{name}: {plural(len(board.ladders), 'ladder')}, {plural(len(board.snakes), 'snake')}"


def is_chain(model: Any) -> bool:
    """Whether ``model`` is a :class:`~snl_numeric.Chain` (states and absorbing states, no
    squares or dice) rather than a board."""
    return hasattr(model, "absorbing") and hasattr(model, "labels")


def chain_title(chain: Any) -> str:
    """``chain of 5 states (2 absorbing, 6 transitions)``."""
    return (f"chain of {plural(chain.n_states, 'state')} ({len(chain.absorbing)} absorbing, "
            f"{plural(int(chain.P.nnz), 'transition')})")


def analysis_text(a: Any) -> str:
    """The report of an :class:`~snl_numeric.Analysis`."""
    b = a.board
    if is_chain(b):
        return _chain_analysis_text(a)
    lines = [title(b), line("rules", rules_line(b, a.start))]
    lines.append(line("fewest throws", str(a.min_throws) if a.min_throws >= 0
                      else "- (the goal cannot be reached)"))
    if a.shortest_path:
        lines.append(line("a shortest play", " ".join(f"{x}-[{d}]->{y}"
                                                      for x, d, y in a.shortest_path)))
        lines.append(line("", "(a-[f]->b: from square a, face f, the token rests on b)"))
    lines += _moment_lines(a, "throws")
    if a.jump_uses and len(a.jump_uses) <= MAX_JUMP_LINES:
        probs = a.jump_probability or {}
        rows = [["ladder" if d > s else "snake", f"{s}->{d}",
                 f"{probs[(s, d)]:.4f}" if (s, d) in probs else "-", f"{uses:.4f}"]
                for (s, d), uses in a.jump_uses.items()]
        lines += table(["jump", "", "P(used)", "E[uses]"], rows,
                       right=[False, False, True, True])
        lines.append("  (P(used): chance it is used at least once; E[uses]: times used on "
                     "average)")
    elif a.jump_uses:
        lines.append(line("jumps", f"{len(a.jump_uses)} (see .jump_uses, .jump_probability, "
                                   ".to_frame('jumps'))"))
    if a.note:
        lines.append(line("note", a.note))
    return "\n".join(lines)


def _moment_lines(a: Any, unit: str) -> list[str]:
    """Mean, spread, finish chance and quantiles of an analysis (``unit``: throws or
    steps)."""
    lines = [line(f"expected {unit}", value(a.mean)),
             line("std deviation", f"{value(a.std)}   (variance {value(a.variance)})")]
    if a.finish_probability < 1.0:
        lines.append(line("finish chance", value(a.finish_probability)))
    lines.append(line("median / mode", f"{value(a.median)} / {value(a.mode)}"))
    lines.append(line("percentiles", "  ".join(f"p{q:g}={value(v)}"
                                               for q, v in a.percentiles.items())))
    return lines


def chain_play(chain: Any, path: Sequence[tuple[int, float, int]]) -> str:
    """A chain's shortest path by its labels: ``a-(0.5)->b b-(1)->c``."""
    names = chain.labels
    return " ".join(f"{names[x]}-({p:.6g})->{names[y]}" for x, p, y in path)


def _chain_analysis_text(a: Any) -> str:
    """The report of an :class:`~snl_numeric.Analysis` of a chain (steps, state labels)."""
    c = a.board
    lines = [chain_title(c), line("start", f"state {c.labels[a.start]!s}")]
    lines.append(line("fewest steps", str(a.min_throws) if a.min_throws >= 0
                      else "- (no absorbing state can be reached)"))
    if a.shortest_path:
        lines.append(line("a shortest walk", chain_play(c, a.shortest_path)))
        lines.append(line("", "(a-(p)->b: from state a, a step of chance p to b)"))
    lines += _moment_lines(a, "steps")
    if a.note:
        lines.append(line("note", a.note))
    return "\n".join(lines)


def simulation_text(r: Any) -> str:
    """The report of a :class:`~snl_numeric.SimulationResult`."""
    b = r.board
    unit = "steps" if is_chain(b) else "throws"
    if is_chain(b):
        lines = [f"{chain_title(b)}: {plural(r.games, 'simulated walk')}",
                 line("start", f"state {b.labels[r.start]!s}")]
    else:
        name = b.name or f"board of size {b.size}"
        lines = [f"{name}: {plural(r.games, 'simulated game')} "
                 f"({plural(len(b.ladders), 'ladder')}, {plural(len(b.snakes), 'snake')})",
                 line("rules", rules_line(b, r.start))]
    lines += [line(f"mean {unit}", f"{value(r.mean, 4)} +/- {value(r.stderr, 4)} "
                                   "(standard error)"),
             line(f"{100 * r.confidence:g}% interval",
                  f"[{value(r.ci[0], 4)}, {value(r.ci[1], 4)}]"),
             line("std deviation", f"{value(r.std, 4)}   (variance {value(r.variance, 4)})"),
             line("min / max", f"{value(r.min)} / {value(r.max)}")]
    if r.censored:
        lines.append(line("CENSORED", f"{plural(r.censored, 'game')} did not finish "
                                      f"({r.stranded} stranded, {r.censored - r.stranded} at "
                                      f"max_throws={r.max_throws}); the statistics describe "
                                      f"the {r.finished} finished only"))
    lines.append(line("seed", f"entropy={r.entropy} spawn_key={r.spawn_key}"))
    rate = r.throws_per_second
    lines.append(line("speed", f"{plural(r.total_throws, unit[:-1])} in {r.elapsed:.3f} s "
                               f"({rate / 1e6:.1f} M/s on {plural(r.threads, 'thread')}, "
                               "compilation not counted)"))
    return "\n".join(lines)


def design_text(d: Any) -> str:
    """The report of a :class:`~snl_numeric.DesignResult`."""
    b = d.board
    goal = (f"expected length closest to {d.target:g} (off by {d.value:.6g})"
            if d.objective == "target" else
            f"smallest first-player edge of {d.players} players ({d.value:+.6g})"
            if d.objective == "fair" else
            {"max": "longest expected game", "min": "shortest expected game"}[d.objective])
    ladders = " ".join(f"{s}->{t}" for s, t in b.ladders.items())
    snakes = " ".join(f"{s}->{t}" for s, t in b.snakes.items())
    return "\n".join([
        f"Designed board: size {b.size}, {plural(len(b.ladders), 'ladder')}, "
        f"{plural(len(b.snakes), 'snake')}",
        line("goal", goal),
        line("rules", rules_line(b)),
        line("ladders", ladders or "-"),
        line("snakes", snakes or "-"),
        line("expected throws", f"{value(d.mean)} (std deviation {value(math.sqrt(d.variance), 4)})"),
        line("search", f"{d.method}, {plural(d.evaluations, 'evaluation')}, "
                       f"{plural(d.chains, 'chain')} x {plural(d.iterations, 'iteration')}"),
    ])


def game_length_text(g: Any) -> str:
    """The report of a :class:`~snl_numeric.GameLength`."""
    starts = list(g.starts) if len(g.starts) == g.players else ["-"] * g.players
    lines = [line("players", f"{g.players} (player 1 throws first)")]
    lines += table(["player", "start", "wins"],
                   [[str(i + 1), str(s), value(float(p))]
                    for i, (s, p) in enumerate(zip(starts, g.win_probabilities, strict=True))],
                   right=[True, True, True])
    if g.no_winner > 0:
        lines.append(line("nobody wins", value(g.no_winner)))
    lines.append(line("expected rounds", value(g.mean_rounds)))
    lines.append(line("expected throws", f"{value(g.mean_throws)}   (all players together)"))
    return "\n".join(lines)


def game_simulation_text(r: Any) -> str:
    """The report of a :class:`~snl_numeric.simulate.result.GameSimulationResult`: the
    rules (with the capture rule), each player's win share with its standard error, the
    mean rounds and throws."""
    b = r.board
    name = b.name or f"board of size {b.size}"
    lines = [f"{name}: {plural(r.games, 'simulated race')} of {r.players} players",
             line("rules", rules_line(b)),
             line("players", f"{r.players} (player 1 throws first)")]
    lines += table(["player", "start", "wins", "+/-"],
                   [[str(i + 1), str(s), value(float(p)), value(float(e))]
                    for i, (s, p, e) in enumerate(zip(r.starts, r.win_shares, r.win_stderr,
                                                      strict=True))],
                   right=[True, True, True, True])
    lines.append(line("mean rounds", f"{value(r.mean_rounds, 4)} +/- "
                                     f"{value(r.rounds_stderr, 4)} (standard error)"))
    lines.append(line("mean throws", f"{value(r.mean_throws, 4)} +/- "
                                     f"{value(r.throws_stderr, 4)}   (all players together)"))
    if r.censored:
        lines.append(line("CENSORED", f"{plural(r.censored, 'game')} had no winner "
                                      f"({r.stranded} stranded, {r.censored - r.stranded} at "
                                      f"max_throws={r.max_throws}); rounds and throws describe "
                                      f"the {r.finished} finished only"))
    lines.append(line("seed", f"entropy={r.entropy} spawn_key={r.spawn_key}"))
    return "\n".join(lines)
