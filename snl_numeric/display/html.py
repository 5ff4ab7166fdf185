"""Rich HTML displays for notebooks (the ``_repr_html_`` of boards and results).

Plain functions returning small, self-contained HTML fragments: a compact
table of the key numbers and, for boards up to :data:`SVG_MAX_SIZE` squares,
an inline SVG thumbnail of the board (ladders green, snakes red). Every piece
of text is HTML-escaped; no script, no external resource.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from .._core.grid import grid_shape, square_xy
from .._core.text import capture_words, dice_text, label

if TYPE_CHECKING:
    from ..analysis import Analysis
    from ..board import Board
    from ..players import GameLength

__all__ = ["board_html", "analysis_html", "finish_within_html", "game_length_html", "race_html",
           "solve_report_html", "kv_table", "row_table", "fmt"]

#: Boards larger than this get no SVG thumbnail.
SVG_MAX_SIZE = 400
#: Jumps listed in a board's table before "and k more".
MAX_LISTED_JUMPS = 24
#: Steps of a shortest play shown before eliding.
MAX_PLAY_STEPS = 12

_TABLE = 'style="border-collapse:collapse;text-align:left"'
_CELL = 'style="padding:1px 8px;text-align:left"'
LADDER_COLOR = "#2ca02c"
SNAKE_COLOR = "#d62728"
GOAL_COLOR = "#f2c14e"


class Raw(str):
    """Text that is already HTML and must not be escaped again."""


def _cell(value: Any) -> str:
    return value if isinstance(value, Raw) else escape(str(value))


def fmt(x: Any, digits: int = 6) -> str:
    """Numbers for people: ``digits`` significant digits, ``inf``, ``None`` as an em dash.

    Examples
    --------
    >>> fmt(39.2251223), fmt(float("inf")), fmt(None), fmt(7)
    ('39.2251', '∞', '—', '7')
    """
    if x is None:
        return "—"
    if isinstance(x, float):
        if math.isinf(x):
            return "∞" if x > 0 else "-∞"
        if math.isnan(x):
            return "nan"
        return f"{x:.{digits}g}"
    return str(x)


def kv_table(rows: Iterable[tuple[Any, Any]], *, caption: str | None = None) -> str:
    """A two-column table, one ``(label, value)`` pair per row."""
    parts = [f"<table {_TABLE}>"]
    if caption:
        parts.append(f'<caption style="text-align:left;font-weight:bold">{_cell(caption)}'
                     "</caption>")
    for key, value in rows:
        parts.append(f"<tr><th {_CELL}>{_cell(key)}</th><td {_CELL}>{_cell(value)}</td></tr>")
    parts.append("</table>")
    return "".join(parts)


def row_table(header: Sequence[Any], rows: Iterable[Sequence[Any]], *,
              caption: str | None = None) -> str:
    """A table with a header row."""
    parts = [f"<table {_TABLE}>"]
    if caption:
        parts.append(f'<caption style="text-align:left;font-weight:bold">{_cell(caption)}'
                     "</caption>")
    parts.append("<tr>" + "".join(f"<th {_CELL}>{_cell(h)}</th>" for h in header) + "</tr>")
    for row in rows:
        parts.append("<tr>" + "".join(f"<td {_CELL}>{_cell(v)}</td>" for v in row) + "</tr>")
    parts.append("</table>")
    return "".join(parts)


def side_by_side(*blocks: str) -> str:
    """Blocks laid out in a row (wrapping on narrow screens)."""
    inner = "".join(f'<div style="margin-right:16px">{b}</div>' for b in blocks if b)
    return f'<div style="display:flex;flex-wrap:wrap;align-items:flex-start">{inner}</div>'


# -- boards --------------------------------------------------------------------
def board_title(board: Board | Any) -> str:
    from .text import chain_title, is_chain

    if is_chain(board):
        return chain_title(board)
    return board.name if board.name else f"board of size {board.size}"


def rules_text(board: Board) -> str:
    over = {"win": "a throw past the goal wins", "exact": "exact landing on the goal",
            "bounce": "a throw past the goal bounces back"}[board.overshoot]
    chain = "jumps chain" if board.chain else "one jump per throw"
    return f"overshoot {board.overshoot!r} ({over}); {chain}{capture_words(board)}"


def _jump_list(jumps: dict[int, int]) -> str:
    items = [f"{s}→{d}" for s, d in jumps.items()]
    if len(items) > MAX_LISTED_JUMPS:
        more = len(items) - MAX_LISTED_JUMPS
        items = items[:MAX_LISTED_JUMPS] + [f"… and {more} more"]
    return ", ".join(items) if items else "none"


def board_svg(board: Board, *, width: float = 180.0) -> str:
    """An SVG thumbnail of the board, or ``""`` above :data:`SVG_MAX_SIZE` squares."""
    size = board.size
    if size > SVG_MAX_SIZE:
        return ""
    rows, n = grid_shape(size)
    cell = width / (n + 1)  # one extra column on the left for square 0
    height = rows * cell
    x, y = square_xy(range(size + 1), size)
    cx = (x + 1.5) * cell
    cy = (rows - 0.5 - y) * cell
    fill = {s: (LADDER_COLOR if d > s else SNAKE_COLOR) for s, d in board.jumps.items()}
    fill[size] = GOAL_COLOR
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
             f'height="{height:.0f}" viewBox="0 0 {width:.2f} {height:.2f}" role="img">',
             f"<title>{escape(board_title(board))}</title>"]
    for k in range(size + 1):
        colour = fill.get(k, "#f5f0e1" if (x[k] + y[k]) % 2 else "#e6dcc3")
        opacity = ' fill-opacity="0.55"' if k in board.jumps else ""
        parts.append(
            f'<rect x="{cx[k] - cell / 2:.2f}" y="{cy[k] - cell / 2:.2f}" width="{cell:.2f}" '
            f'height="{cell:.2f}" fill="{colour}"{opacity} stroke="#ffffff" stroke-width="0.5">'
            f"<title>square {k}</title></rect>")
    stroke = max(1.0, cell / 8)
    for s, d in board.jumps.items():
        colour = LADDER_COLOR if d > s else SNAKE_COLOR
        parts.append(
            f'<line x1="{cx[s]:.2f}" y1="{cy[s]:.2f}" x2="{cx[d]:.2f}" y2="{cy[d]:.2f}" '
            f'stroke="{colour}" stroke-width="{stroke:.2f}" stroke-linecap="round">'
            f"<title>{s}→{d}</title></line>")
        parts.append(f'<circle cx="{cx[d]:.2f}" cy="{cy[d]:.2f}" r="{1.6 * stroke:.2f}" '
                     f'fill="{colour}"/>')
    parts.append("</svg>")
    return "".join(parts)


def board_rows(board: Board) -> list[tuple[str, str]]:
    ladders, snakes = board.ladders, board.snakes
    return [
        ("squares", f"0..{board.size} (goal {board.size})"),
        ("start", str(board.start)),
        ("rules", rules_text(board)),
        ("dice", repr(board.dice)),
        (f"ladders ({len(ladders)})", _jump_list(ladders)),
        (f"snakes ({len(snakes)})", _jump_list(snakes)),
    ]


def board_html(board: Board) -> str:
    """The HTML display of a :class:`~snl_numeric.Board`."""
    table = kv_table(board_rows(board), caption=f"Board: {board_title(board)}")
    return side_by_side(table, board_svg(board))


# -- analyses ------------------------------------------------------------------
def _play(path: Sequence[tuple[int, Any, int]] | None) -> str:
    if path is None:
        return "unreachable"
    steps = [f"{x} -[{d}]→ {y}" for x, d, y in path]
    if len(steps) > MAX_PLAY_STEPS:
        steps = steps[:MAX_PLAY_STEPS] + [f"… ({len(path) - MAX_PLAY_STEPS} more)"]
    return ", ".join(steps) if steps else "already at the goal"


def _chain_analysis_html(a: Analysis) -> str:
    """The HTML display of an :class:`~snl_numeric.Analysis` of a chain (steps, labels)."""
    from .text import chain_play, chain_title

    c: Any = a.board
    path = a.shortest_path
    walk = ("unreachable" if path is None else "already absorbed" if not path
            else chain_play(c, path[:MAX_PLAY_STEPS])
            + (f" … ({len(path) - MAX_PLAY_STEPS} more)" if len(path) > MAX_PLAY_STEPS else ""))
    rows = [
        ("chain", chain_title(c)),
        ("start", f"state {c.labels[a.start]!s}"),
        ("fewest steps", str(a.min_throws) if a.min_throws >= 0 else "unreachable"),
        ("a shortest walk", walk),
        ("expected steps", fmt(a.mean)),
        ("std deviation", f"{fmt(a.std)} (variance {fmt(a.variance)})"),
        ("median / mode", f"{fmt(a.median)} / {fmt(a.mode)}"),
    ]
    if a.finish_probability < 1.0:
        rows.insert(4, ("absorption probability", fmt(a.finish_probability)))
    key = kv_table(rows, caption="Analysis of a chain")
    pct = row_table([f"p{q:g}" for q in a.percentiles],
                    [[fmt(v) for v in a.percentiles.values()]],
                    caption="Percentiles of the number of steps")
    return side_by_side(key, pct)


def analysis_html(a: Analysis, *, top: int = 5) -> str:
    """The HTML display of an :class:`~snl_numeric.Analysis`."""
    from .text import is_chain

    if is_chain(a.board):
        return _chain_analysis_html(a)
    b: Any = a.board
    rows = [
        ("board", f"{board_title(b)}: {len(b.ladders)} ladders, {len(b.snakes)} snakes"),
        ("rules", f"{rules_text(b)}; dice {b.dice!r}; start {a.start}"),
        ("fewest throws", str(a.min_throws) if a.min_throws >= 0 else "unreachable"),
        ("a shortest play", _play(a.shortest_path)),
        ("expected throws", fmt(a.mean)),
        ("std deviation", f"{fmt(a.std)} (variance {fmt(a.variance)})"),
        ("median / mode", f"{fmt(a.median)} / {fmt(a.mode)}"),
    ]
    if a.finish_probability < 1.0:
        rows.insert(4, ("finish probability", fmt(a.finish_probability)))
    key = kv_table(rows, caption=f"Analysis of {board_title(b)}")
    pct = row_table([f"p{q:g}" for q in a.percentiles],
                    [[fmt(v) for v in a.percentiles.values()]],
                    caption="Percentiles of the number of throws")
    blocks = [key, pct]
    if a.jump_probability:
        ranked = sorted(a.jump_probability.items(), key=lambda kv: -kv[1])[:top]
        uses = a.jump_uses or {}
        jumps = row_table(
            ["jump", "kind", "P(used)", "E[uses]"],
            [[f"{s}→{d}", "ladder" if d > s else "snake", f"{p:.4f}",
              f"{uses.get((s, d), math.nan):.4f}"] for (s, d), p in ranked],
            caption=f"Most used jumps (top {len(ranked)} of {len(a.jump_probability)})")
        blocks.append(jumps)
    return side_by_side(blocks[0], "".join(blocks[1:]))


# -- players -------------------------------------------------------------------
def game_length_html(g: GameLength) -> str:
    """The HTML display of a :class:`~snl_numeric.GameLength`."""
    rows = [("players", f"{g.players} (player 1 throws first)"),
            ("expected rounds", fmt(g.mean_rounds)),
            ("expected throws", f"{fmt(g.mean_throws)} (all players together)")]
    if g.no_winner > 0:
        rows.insert(1, ("nobody ever wins", fmt(g.no_winner)))
    starts = list(g.starts) if len(g.starts) == g.players else [None] * g.players
    wins = row_table(["player", "start", "P(wins)"],
                     [[i + 1, fmt(s), f"{p:.6f}"] for i, (s, p)
                      in enumerate(zip(starts, g.win_probabilities.tolist(), strict=True))],
                     caption="Win probabilities")
    return side_by_side(kv_table(rows, caption=f"A race of {g.players} players"), wins)


# -- simulation ----------------------------------------------------------------
def simulation_html(r: Any) -> str:
    """The HTML display of a :class:`~snl_numeric.simulate.SimulationResult`."""
    b = r.board
    games = f"{r.games:,} ({r.finished:,} finished"
    games += ")"
    if r.censored:
        games += (f"; {r.censored:,} did not finish: {r.stranded:,} stranded where the goal "
                  f"is out of reach, {r.censored - r.stranded:,} stopped at {r.max_throws:,} "
                  "throws")
    from .text import chain_title, is_chain

    chain = is_chain(b)
    unit = "steps" if chain else "throws"
    rows = [
        ("chain", chain_title(b)) if chain else
        ("board", f"{board_title(b)}: {len(b.ladders)} ladders, {len(b.snakes)} snakes"),
        ("start", f"state {b.labels[r.start]!s}") if chain else
        ("rules", f"{rules_text(b)}; dice {b.dice!r}; start {r.start}"),
        ("games", games),
        (f"mean {unit}", f"{fmt(r.mean)} ± {fmt(r.stderr, 3)} (standard error)"),
        (f"{100 * r.confidence:g}% interval", f"[{fmt(r.ci[0])}, {fmt(r.ci[1])}]"),
        ("std deviation", fmt(r.std)),
        ("fewest / most", f"{fmt(r.min)} / {fmt(r.max)}"),
    ]
    elapsed = getattr(r, "elapsed", 0.0)
    if elapsed and elapsed > 0:
        rows.append(("speed", f"{r.total_throws:,} {unit} in {elapsed:.3g} s "
                              f"({r.total_throws / elapsed:.3g} {unit}/s, {r.threads} threads)"))
    rows.append(("seed", f"entropy {r.entropy}, spawn key {tuple(r.spawn_key)}"))
    return kv_table(rows, caption="Simulation of a chain" if chain
                    else f"Simulation of {board_title(b)}")


# -- design --------------------------------------------------------------------
def design_html(r: Any) -> str:
    """The HTML display of a :class:`~snl_numeric.DesignResult`."""
    goal = {"max": "longest expected game", "min": "shortest expected game",
            "fair": f"smallest first-player edge of {r.players} players "
                    f"({r.value:+.3g})"}.get(
        r.objective, f"expected game closest to {fmt(r.target)} (off by {fmt(r.value, 3)})")
    rows = [("objective", goal),
            ("expected throws", f"{fmt(r.mean)} (std deviation {fmt(math.sqrt(r.variance))})"),
            ("search", f"{r.method}: {r.evaluations:,} exact evaluations, {r.chains} chains × "
                       f"{r.iterations:,} iterations"),
            ("seed entropy", str(tuple(r.seed_entropy)))]
    rows += board_rows(r.board)
    return side_by_side(kv_table(rows, caption=f"Designed board of size {r.board.size}"),
                        board_svg(r.board))


# -- policy --------------------------------------------------------------------
def policy_html(r: Any) -> str:
    """The HTML display of a :class:`~snl_numeric.PolicyResult`."""
    b = r.board
    what = "optimal play (fewest expected throws)" if r.objective == "min" else \
        "worst play (most expected throws)"
    c = r.convergence
    rows = [
        ("board", f"{board_title(b)}: {len(b.ladders)} ladders, {len(b.snakes)} snakes"),
        ("rules", f"{rules_text(b)}; start {b.start}"),
        ("objective", what + ("; jumps optional" if r.optional_jumps else "")),
        ("expected throws", f"{fmt(r.mean)} from square {b.start}"),
        ("solver", f"{c.method} iteration, {c.iterations} steps, Bellman residual "
                   f"{c.residual:.2g}" + (f" ({c.note})" if c.note else "")),
    ]
    if r.optional_jumps:
        rows.append(("declined jumps", ", ".join(f"{s}→{d}" for s, d in r.declined) or "none"))
    squares = r.policy[: b.size]
    dice = row_table(
        ["die", "faces", "squares where thrown"],
        [[label(i), dice_text(d), int((squares == i).sum())] for i, d in enumerate(r.actions)],
        caption="The dice")
    return side_by_side(kv_table(rows, caption=f"Policy on {board_title(b)}"), dice)


# -- race ----------------------------------------------------------------------
def race_html(r: Any) -> str:
    """The HTML display of a :class:`~snl_numeric.race.RaceResult`."""
    b = r.board
    s = b.start
    c = r.convergence
    who = ("both players play to win" if r.opponent == "optimal"
           else f"best response to a fixed opponent ({r.opponent})")
    rows = [
        ("board", f"{board_title(b)}: {len(b.ladders)} ladders, {len(b.snakes)} snakes"),
        ("rules", f"{rules_text(b)}; both start on square {s}"
                  + ("; jumps optional" if r.optional_jumps else "")),
        ("players", who),
        ("first player wins", f"{r.win_probability:.12f}"),
        ("second player wins", f"{r.lose_probability:.12f}"),
    ]
    if r.no_winner > 0:
        rows.append(("nobody wins", f"{r.no_winner:.12f}"))
    if r.opponent != "optimal":
        rows.append(("moving second", f"wins {r.win_probability_second:.12f}"))
    rows.append(("certificate", f"bracket {c.bracket:.1e} after {c.sweeps} Gauss-Seidel sweeps"
                                + (f" ({c.note})" if c.note else "")))
    first = int(r.policy[s, s])
    rows.append(("first throw", f"die {label(first)} ({dice_text(r.dice[first])})"
                 if first >= 0 else "none: the game is over"))
    inner = r.policy[: b.size, : b.size]
    dice = row_table(
        ["die", "faces", "share of positions"],
        [[label(i), dice_text(d), f"{100 * float((inner == i).mean()):.1f}%"]
         for i, d in enumerate(r.dice)],
        caption="The dice")
    return side_by_side(kv_table(rows, caption=f"Race on {board_title(b)}"), dice)


# -- finish within ---------------------------------------------------------------
def finish_within_html(r: Any) -> str:
    """The HTML display of a :class:`~snl_numeric.FinishWithinResult`."""
    b = r.board
    rows = [
        ("board", f"{board_title(b)}: {len(b.ladders)} ladders, {len(b.snakes)} snakes"),
        ("rules", f"{rules_text(b)}; start {b.start}"
                  + ("; jumps optional" if r.optional_jumps else "")),
        ("horizon", f"{r.horizon} {'throw' if r.horizon == 1 else 'throws'}"),
        ("best chance", f"{fmt(r.probability_start)} to finish in time from square {b.start}"),
    ]
    if r.horizon:
        first = r.policy[0, : b.size]
        dice = row_table(
            ["die", "faces", "squares (first throw)"],
            [[label(i), dice_text(d), int((first == i).sum())] for i, d in enumerate(r.actions)],
            caption="The dice")
    else:
        dice = ""
    return side_by_side(kv_table(rows, caption=f"Finishing within {r.horizon} on "
                                               f"{board_title(b)}"), dice)


# -- solver report -----------------------------------------------------------------
_SOLVERS = {"empty": "nothing to solve", "triangular": "one sweep",
            "woodbury": "one sweep + a low-rank correction, eliminated exactly",
            "gmres": "GMRES on the correction, refined", "splu": "SciPy sparse LU"}


def solve_report_html(r: Any) -> str:
    """The HTML display of a :class:`~snl_numeric.SolveReport`."""
    rows = [("method", f"{r.method} ({_SOLVERS.get(r.method, r.method)})"),
            ("unknowns", f"{r.unknowns:,}"),
            ("backward targets", f"{r.backward_targets:,}"),
            ("iterations", f"{r.iterations:,}"),
            ("residual", f"{r.residual:.3g} (normwise relative backward error)"),
            ("certified error", f"{r.error_estimate:.3g} (relative, every entry)"),
            ("condition", f"{r.condition:.6g} (max expected throws)"),
            ("blocks", f"{r.blocks:,}")]
    return kv_table(rows, caption="How (I − Q) t = 1 was solved")
