"""The HTML report page: sections built from results (duck-typed), one style sheet.

One self-contained file: inline SVG figures and PNG data URIs (:mod:`.svg`), one
``<style>`` block, no script and nothing fetched. The layout is a single column that
reflows from a phone's width up (figures scale with ``viewBox``; wide tables scroll
sideways) and prints on A4 (``@page``, sections kept whole where they fit).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import Any

import numpy as np

from .._core.table import quantiles
from .._core.text import capture_words, dice_text, label
from .html import LADDER_COLOR, SNAKE_COLOR, board_title, fmt
from .impact import impact_rows, signed
from .svg import (
    CATEGORICAL,
    DIVERGING,
    RED_GREEN,
    SEQUENTIAL,
    bars_svg,
    board_svg_figure,
    distribution_svg,
    heat_rgb,
    png_data_uri,
)
from .text import chain_play, is_chain, plural, rules_line

__all__ = ["page", "key_numbers_section", "board_section", "distribution_section",
           "visits_section", "impact_section", "candidates_section", "policy_section",
           "race_section", "players_section", "sensitivity_section", "chain_section", "chain_visits_section", "ends_section",
           "DRAWN_MAX_SIZE", "STATES_SHOWN"]

#: Boards up to this many squares are drawn square by square.
DRAWN_MAX_SIZE = 2500
#: A chain's states drawn in its visits chart and ends listed (the largest first).
STATES_SHOWN = 30
#: Steps of a shortest walk written out.
PLAY_MAX = 12
#: Jumps drawn in the impact chart (largest effects first).
BARS_MAX = 30

CSS = """
:root { color-scheme: light; --ink: #1f2328; --muted: #59636e; --rule: #d8dee4; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 60rem; padding: 1rem; color: var(--ink); background: #fff;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif; }
header { border-bottom: 2px solid var(--ink); margin-bottom: 1rem; }
h1 { font-size: 1.6rem; margin: 0.2rem 0; }
h2 { font-size: 1.25rem; margin: 0 0 0.5rem; border-bottom: 1px solid var(--rule); }
section { margin: 0 0 1.6rem; }
p, figcaption, .muted { color: var(--muted); }
figure { margin: 0.5rem 0; }
svg, img { display: block; width: 100%; height: auto; }
.board { max-width: 34rem; }
.heat { display: grid; grid-template-columns: auto 1fr; gap: 0.25rem; max-width: 30rem; }
.heat img { image-rendering: pixelated; border: 1px solid var(--rule); }
.heat .ylab { writing-mode: vertical-rl; transform: rotate(180deg); text-align: center;
  font-size: 0.85rem; color: var(--muted); }
.heat .xlab { grid-column: 2; text-align: center; font-size: 0.85rem; color: var(--muted); }
.scale { height: 0.8rem; border: 1px solid var(--rule); }
.ends { display: flex; justify-content: space-between; font-size: 0.8rem; color: var(--muted); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 0.4rem 0; font-variant-numeric: tabular-nums; }
th, td { padding: 0.2rem 0.6rem; border-bottom: 1px solid var(--rule); text-align: right;
  vertical-align: top; white-space: nowrap; }
table.kv td { white-space: normal; }
th:first-child, td:first-child { text-align: left; }
table.kv th { text-align: left; font-weight: 600; white-space: nowrap; }
table.kv td { text-align: left; }
.cols { display: grid; grid-template-columns: repeat(auto-fit, minmax(17rem, 1fr));
  gap: 0 1.5rem; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; vertical-align: -0.1em;
  border: 1px solid #999; margin-right: 0.3em; }
footer { border-top: 1px solid var(--rule); padding-top: 0.5rem; font-size: 0.85rem;
  color: var(--muted); }
@media (max-width: 30rem) { body { padding: 0.6rem; font-size: 15px; }
  th, td { padding: 0.2rem 0.35rem; } }
@media print {
  @page { size: A4; margin: 14mm; }
  body { max-width: none; padding: 0; font-size: 10pt; }
  section { break-inside: avoid; page-break-inside: avoid; }
  h2 { break-after: avoid; }
  .board, .heat { max-width: 10cm; }
  .scroll { overflow: visible; }
}
"""


def _table(header: Sequence[str] | None, rows: Sequence[Sequence[Any]], cls: str = "") -> str:
    head = "" if header is None else "<thead><tr>" + "".join(
        f"<th>{escape(str(h))}</th>" for h in header) + "</tr></thead>"
    body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in r) + "</tr>"
                   for r in rows)
    klass = f' class="{cls}"' if cls else ""
    return f'<div class="scroll"><table{klass}>{head}<tbody>{body}</tbody></table></div>'


def _kv(rows: Sequence[tuple[str, str]]) -> str:
    body = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows)
    return f'<div class="scroll"><table class="kv"><tbody>{body}</tbody></table></div>'


def _figure(inner: str, caption: str, cls: str = "") -> str:
    klass = f' class="{cls}"' if cls else ""
    return f"<figure{klass}>{inner}<figcaption>{escape(caption)}</figcaption></figure>"


def _scale(anchors: Sequence[tuple[int, int, int]], lo: str, hi: str) -> str:
    stops = ", ".join(f"rgb{tuple(c)}" for c in anchors)
    return (f'<div class="scale" style="background: linear-gradient(to right, {stops})"></div>'
            f'<div class="ends"><span>{escape(lo)}</span><span>{escape(hi)}</span></div>')


def _heat(uri: str, alt: str, xlab: str, ylab: str, scale: str) -> str:
    return (f'<div class="heat"><span class="ylab">{escape(ylab)}</span>'
            f'<img src="{uri}" alt="{escape(alt)}"><span class="xlab">{escape(xlab)}</span>'
            f'<span></span><div>{scale}</div></div>')


def page(title: str, subtitle: str, sections: Sequence[tuple[str, str, str]], footer: str) -> str:
    """The whole document: ``sections`` as ``(id, heading, html)``."""
    body = "".join(f'<section id="{escape(sid)}"><h2>{escape(head)}</h2>{html}</section>'
                   for sid, head, html in sections if html)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
            f"<header><h1>{escape(title)}</h1><p>{escape(subtitle)}</p></header>"
            f"<main>{body}</main><footer>{escape(footer)}</footer></body></html>\n")


# -- sections ------------------------------------------------------------------------------
def key_numbers_section(a: Any, error: float, method: str) -> str:
    """The key numbers of an analysis, the mean with its certified bound (in steps, with
    the states' labels, for a chain's)."""
    chain = is_chain(a.board)
    unit, goal = ("steps", "no absorbing state is") if chain else ("throws", "the goal is not")
    bound = a.mean * error if math.isfinite(a.mean) else math.nan
    rows = [(f"expected {unit}", f"{fmt(a.mean, 10)} ± {bound:.1g}" if math.isfinite(a.mean)
             else f"∞ ({goal} reached with probability 1)"),
            ("standard deviation", f"{fmt(a.std, 10)} (variance {fmt(a.variance, 10)})"),
            (f"fewest {unit}", str(a.min_throws) if a.min_throws >= 0 else "unreachable"),
            ("median / mode", f"{fmt(a.median)} / {fmt(a.mode)}")]
    if chain:
        rows.insert(0, ("start", f"state {a.board.labels[a.start]!s}"))
    if a.finish_probability < 1.0:
        rows.insert(2 if chain else 1, ("absorption probability" if chain
                                        else "finish probability",
                                        fmt(a.finish_probability, 10)))
    if a.percentiles:
        rows.append(("percentiles", ", ".join(f"p{q:g} = {fmt(v)}"
                                              for q, v in a.percentiles.items())))
    if a.shortest_path:
        rows.append(("a shortest walk", chain_play(a.board, a.shortest_path[:PLAY_MAX])
                     + (" …" if len(a.shortest_path) > PLAY_MAX else "")) if chain else
                    ("a shortest play", " ".join(f"{x}–[{d}]→{y}"
                                                 for x, d, y in a.shortest_path)))
    how = (f"Expected {unit} from (I − Q) t = 1 ({method}), certified to a relative error of "
           f"{error:.1g} (the ± above); variances and visits are certified below 1e-10 "
           f"(otherwise a warning says so); the distribution is exact up to an unlisted tail "
           f"below {a.tail:g}.")
    if a.note:
        how += " " + a.note
    return _kv(rows) + f"<p>{escape(how)}</p>"


def board_section(board: Any) -> str:
    """The board drawn, with its jumps listed."""
    figure = ""
    if board.size <= DRAWN_MAX_SIZE:
        svg = board_svg_figure(board, title=board_title(board), numbers=board.size <= 400)
        figure = _figure(svg, "Square 1 bottom-left, rows alternating; ladders green, snakes "
                              "red (curved), each ending in a dot; the start outlined, the "
                              "goal gold.", "board")
    ladders = ", ".join(f"{s}→{d}" for s, d in board.ladders.items()) or "none"
    snakes = ", ".join(f"{s}→{d}" for s, d in board.snakes.items()) or "none"
    rows = [("rules", rules_line(board)), (plural(len(board.ladders), "ladder"), ladders),
            (plural(len(board.snakes), "snake"), snakes)]
    return _kv(rows) + figure


def distribution_section(a: Any) -> str:
    """The distribution of the number of throws (of steps, for a chain)."""
    if a.pmf is None:
        return f"<p>{escape(a.note)}</p>"
    unit = "steps" if is_chain(a.board) else "throws"
    k = quantiles(a.cdf, [0.999 * a.finish_probability])[0]
    last = len(a.pmf) - 1 if k is None else max(k, a.min_throws, 1)
    marks = {"mean": a.mean} if math.isfinite(a.mean) else {}
    if a.median is not None:
        marks["median"] = a.median
    svg = distribution_svg(a.pmf, a.cdf, last=last, marks=marks,
                           title=f"Distribution of the number of {unit}", unit=unit)
    return _figure(svg, f"P(T = k): bars (left axis); P(T ≤ k): line (right axis); shown up "
                        f"to {last} {unit} (99.9% of the {'walks' if unit == 'steps' else 'games'}).")


def visits_section(a: Any) -> str:
    """Expected throws made from each square, on the board."""
    v = a.expected_visits
    if v is None or a.board.size > DRAWN_MAX_SIZE:
        return "<p>Expected visits are not drawn for this board.</p>" if v is None else ""
    top = float(v.max()) or 1.0
    svg = board_svg_figure(a.board, values=v / top, title="Expected visits per square",
                           numbers=a.board.size <= 400, jumps=False)
    busiest = np.argsort(-v, kind="stable")[:5]
    text = ", ".join(f"{int(k)} ({v[k]:.3f})" for k in busiest)
    return _figure(svg + _scale(SEQUENTIAL, "0", f"{top:.3g}"),
                   f"Expected throws made from each square in one game (they add up to the "
                   f"expected throws). Busiest: {text}.", "board")


def impact_section(imp: Any) -> str:
    """Bars and table of each jump's removal."""
    if not len(imp.source):
        return "<p>The board has no jumps.</p>"
    order = imp.order()[:BARS_MAX]
    labels = [f"{imp.source[j]}→{imp.destination[j]}" for j in order.tolist()]
    colours = [LADDER_COLOR if imp.destination[j] > imp.source[j] else SNAKE_COLOR
               for j in order.tolist()]
    svg = bars_svg(labels, imp.mean_change[order], colours, uid="impact",
                   title="Change of expected throws without each jump",
                   xlabel="change of expected throws when the jump alone is removed")
    header, rows = impact_rows(imp)
    note = f"<p>{escape(imp.note)}</p>" if imp.note else ""
    return (_figure(svg, "Each jump removed alone, largest effect on top: ladders green, snakes "
                         "red; ∞: the goal would no longer be reached with probability 1.")
            + _table(header, rows) + note)


def candidates_section(c: Any, top: int = 8) -> str:
    """The heat map of every jump one could add, and the extremes."""
    change = c.change
    finite = change[np.isfinite(change)]
    lo, hi = float(finite.min(initial=0.0)), float(finite.max(initial=0.0))
    uri = png_data_uri(heat_rgb(change, DIVERGING, lo=min(lo, -1e-12), hi=max(hi, 1e-12),
                                centre=0.0))
    n = change.shape[0] - 1
    heat = _heat(uri, "change of expected throws for each new jump a to b",
                 f"destination b (0 … {n}) →", f"new jump's square a (0 … {n}) →",
                 _scale(DIVERGING, f"{lo:+.3g} (shorter)", f"{hi:+.3g} (longer)"))
    tables = []
    for longer, what in ((True, "New jumps that lengthen the game most"),
                         (False, "New jumps that shorten it most")):
        rows = [[f"{a}→{b}", "ladder" if b > a else "snake", signed(x)]
                for a, b, x in c.top(top, longer=longer)]
        tables.append(f"<div><h3>{escape(what)}</h3>{_table(['jump', 'kind', 'change'], rows)}"
                      "</div>")
    return (_figure(heat, "Every single jump a → b one could add: blue shortens the game, red "
                          "lengthens it, black makes it endless, white is not allowed.")
            + f'<div class="cols">{"".join(tables)}</div>')


def sensitivity_section(mean_dice: Any, var_dice: Any, mean_map: Any) -> str:
    """Where the expected throws hang (the elasticity summed per square, on the board) and
    the derivatives with respect to the dice (:func:`~snl_numeric.sensitivity`)."""
    out = []
    board = mean_map.board
    el = mean_map.by_square
    if board.size <= DRAWN_MAX_SIZE:
        top = float(el.max(initial=0.0)) or 1.0
        svg = board_svg_figure(board, values=el / top, title="Elasticity of the expected throws "
                               "per square", numbers=board.size <= 400, jumps=True)
        most = np.argsort(-el, kind="stable")[:5]
        text = ", ".join(f"{int(k)} ({el[k]:.3f})" for k in most)
        out.append(_figure(svg + _scale(SEQUENTIAL, "0", f"{top:.3g}"),
                           "The relative change of the expected throws per relative change of "
                           "every move out of each square (the elasticities of its row of the "
                           f"transition matrix, summed): where the game is decided. Most: {text}.",
                           "board"))
    probs = np.asarray(board.dice.probs, dtype=float)
    rows = []
    for f, face in enumerate(mean_dice.faces.tolist()):
        toward = np.eye(len(probs))[f] - probs  # one unit of probability moved onto the face
        rows.append([str(face), f"{probs[f]:.4g}", f"{mean_dice.gradient[f]:.4g}",
                     signed(float(mean_dice.gradient @ toward)),
                     signed(float(var_dice.gradient @ toward))])
    out.append(_table(["face", "probability", "∂ mean / ∂ p", "mean, toward the face",
                       "variance, toward the face"], rows))
    out.append("<p>∂ mean / ∂ p: each face's probability treated as free. <i>Toward the "
               "face</i>: the rate of change when probability moves from the die as it is "
               "onto that face, the faces still summing to 1 (per unit of probability moved; "
               "negative shortens the game or narrows its spread).</p>")
    return "".join(out)


def policy_section(p: Any, alone: Sequence[float]) -> str:
    """The optimal choice of die on every square."""
    b = p.board
    size = b.size
    colours = [CATEGORICAL[int(i) % len(CATEGORICAL)] if i >= 0 else "#f2c14e"
               for i in p.policy.tolist()]
    rows = [[f"{label(i)}", dice_text(d), int((p.policy[:size] == i).sum()), fmt(alone[i])]
            for i, d in enumerate(p.actions)]
    legend = " ".join(f'<span class="swatch" style="background:{CATEGORICAL[i % 10]}"></span>'
                      f"{escape(label(i))} = {escape(dice_text(d))}"
                      for i, d in enumerate(p.actions))
    figure = ""
    if size <= DRAWN_MAX_SIZE:
        figure = _figure(board_svg_figure(b, colours=colours, title="Die to throw on each square",
                                          numbers=size <= 400), "The die to throw on each "
                         "square.", "board") + f"<p>{legend}</p>"
    best = f"Expected throws with the best choice on every square: {fmt(p.mean, 10)}."
    return (f"<p>{escape(best)}</p>"
            + _table(["die", "faces", "squares where thrown", "expected throws with it alone"],
                     rows) + figure)


def race_section(r: Any) -> str:
    """Two players choosing dice to win: the chance to win and its map."""
    size = r.board.size
    rows = [("first player wins", f"{r.win_probability:.12f}"),
            ("second player wins", f"{r.lose_probability:.12f}"),
            ("dice", ", ".join(f"{label(i)} = {dice_text(d)}" for i, d in enumerate(r.dice))),
            ("certificate", f"bracket {r.convergence.bracket:.1e} after "
                            f"{r.convergence.sweeps} sweeps")]
    if r.no_winner > 0:
        rows.insert(2, ("nobody wins", f"{r.no_winner:.12f}"))
    uri = png_data_uri(heat_rgb(r.value[:size, :size], RED_GREEN, lo=0.0, hi=1.0))
    heat = _heat(uri, "chance that the mover wins, by both squares",
                 f"other player's square (0 … {size - 1}) →",
                 f"mover's square (0 … {size - 1}) →", _scale(RED_GREEN, "0", "1"))
    return _kv(rows) + _figure(heat, "Chance that the player about to throw wins, by the "
                                     "mover's square (up) and the other player's (across); "
                                     "both play to win.")


def players_section(g: Any, board: Any) -> str:
    """``g.players`` players racing on ``board`` (a :class:`~snl_numeric.GameLength`): each
    one's win chance, the first player's edge, the mean rounds and throws and the
    distribution of the number of rounds, under the board's capture rule when set."""
    k = g.players
    rule = capture_words(board)[2:]
    rule = (f"{rule}: a token that comes to rest on an opponent's square captures it"
            if rule else "none: the players never interact")
    edge = float(g.win_probabilities[0]) - 1.0 / k
    rows = [("capture rule", rule),
            ("first player's edge", f"{edge:+.12f} (player 1's win chance − 1/{k})"),
            ("expected rounds", fmt(g.mean_rounds, 10)),
            ("expected throws", fmt(g.mean_throws, 10))]
    if g.no_winner > 0:
        rows.insert(2, ("nobody wins", f"{g.no_winner:.12f}"))
    wins = _table(["player", "start", "win chance"],
                  [[i + 1, s, f"{w:.12f}"] for i, (s, w)
                   in enumerate(zip(g.starts, g.win_probabilities.tolist(), strict=True))])
    method = ("the joint chain of every player's position" if board.capture is not None
              else "the independent-players formula")
    how = (f"Player 1 throws first; a round is one throw by each player. Exact, from {method}, "
           f"up to a tail below {g.tail:g} per chance.")
    pmf = np.asarray(g.rounds_pmf, dtype=np.float64)
    if not pmf.any():  # no distribution to draw
        return (_kv(rows) + wins + "<p>Nobody can win from these starts: no round ends the "
                f"game.</p><p>{escape(how)}</p>")
    cdf = np.cumsum(pmf)
    last = quantiles(cdf, [0.999 * (1.0 - g.no_winner)])[0]
    last = len(pmf) - 1 if last is None else max(last, 1)
    marks = {"mean": g.mean_rounds} if math.isfinite(g.mean_rounds) else {}
    svg = distribution_svg(pmf, cdf, last=last, marks=marks, unit="rounds",
                           title=f"Distribution of the number of rounds, {k} players")
    caption = (f"P(R = k), the game ends in round k: bars (left axis); P(R ≤ k): line (right "
               f"axis); shown up to {last} round{'s' * (last > 1)} (99.9% of the games"
               f"{' someone wins' if g.no_winner > 0 else ''}).")
    return _kv(rows) + wins + _figure(svg, caption) + f"<p>{escape(how)}</p>"


# -- chains --------------------------------------------------------------------------------
def chain_section(chain: Any) -> str:
    """What the chain is: its states, absorbing states and transitions."""
    names = [str(chain.labels[i]) for i in chain.absorbing[:STATES_SHOWN].tolist()]
    more = len(chain.absorbing) - len(names)
    rows = [("states", f"{chain.n_states:,} ({chain.n_states - len(chain.absorbing):,} not "
                       f"absorbing)"),
            (plural(len(chain.absorbing), "absorbing state"),
             ", ".join(names) + (f" and {more:,} more" if more > 0 else "")),
            ("transitions", f"{int(chain.P.nnz):,}")]
    return _kv(rows)


def chain_visits_section(a: Any) -> str:
    """Expected steps made from each state of a chain, the busiest first, by label."""
    v = a.expected_visits
    if v is None:
        return "<p>Expected visits are infinite: the walk may never be absorbed.</p>"
    chain = a.board
    v = np.where(chain.is_absorbing, 0.0, np.nan_to_num(np.asarray(v, dtype=float)))
    order = np.argsort(-v, kind="stable")[:STATES_SHOWN]
    order = order[v[order] > 0.0]
    labels = [str(chain.labels[i]) for i in order.tolist()]
    svg = bars_svg(labels, v[order], [CATEGORICAL[0]] * len(order), uid="visits",
                   title="Expected steps made from each state",
                   xlabel="expected steps made from the state in one walk")
    shown = ("every state visited" if len(order) == np.count_nonzero(v > 0.0)
             else f"the {len(order)} busiest states")
    return _figure(svg, f"Expected steps made from each state in one walk from state "
                        f"{chain.labels[a.start]!s} ({shown}; they add up to the expected "
                        f"steps, {fmt(a.mean, 10)}).")


def ends_section(ab: Any) -> str:
    """Where the walk from the start ends: each absorbing state's chance, and the expected
    steps and their spread given that end, with their certified bounds."""
    s = ab.start
    p = ab.probabilities[s]
    order = np.argsort(-p, kind="stable")[:STATES_SHOWN]
    rows = []
    for j in order.tolist():
        mean, var = float(ab.conditional_mean[s, j]), float(ab.conditional_variance[s, j])
        err = float(ab.conditional_error[s, j])
        rows.append([str(ab.labels[j]), f"{p[j]:.12f}",
                     "—" if math.isnan(mean) else f"{fmt(mean, 10)} ± {mean * err:.1g}",
                     "—" if math.isnan(var) else fmt(math.sqrt(max(var, 0.0)), 10)])
    more = len(p) - len(order)
    svg = bars_svg([r[0] for r in rows], p[order], [CATEGORICAL[j % len(CATEGORICAL)]
                                                    for j in range(len(order))],
                   uid="ends", title="Chance of ending in each absorbing state",
                   xlabel="probability of ending there")
    note = (f"From state {ab.chain.labels[s]!s}. Probabilities certified to ± "
            f"{ab.probability_error:.1g} (absolute); the expected steps given the end, "
            f"to the ± shown." + (f" {more:,} less likely ends not listed." if more > 0 else ""))
    return (_figure(svg, "One bar per absorbing state, the likeliest on top.")
            + _table(["end", "probability", "expected steps given the end",
                      "std deviation given the end"], rows) + f"<p>{escape(note)}</p>")
