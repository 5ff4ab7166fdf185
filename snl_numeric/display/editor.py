"""The report as an editor: the page of :mod:`.report` with a solver in its own script.

:func:`editable_page` takes the finished report page and adds one section at the top, the
editor (controls for the jumps and the rules, the key numbers, the board, the distribution
and each jump's impact, all redrawn on every edit by ``editor.js``), the board as JSON and
the script, inlined: still one file, nothing fetched, and it works from a ``file://`` URL.
The report's own sections stay beneath as the page reads without a script; the script hides
those it redraws, and the others (visits, candidates, ...) while the board differs from
the one they describe.
"""

from __future__ import annotations

import json
import re
from html import escape
from importlib import resources
from typing import Any

import numpy as np

from .._core.text import dice_text
from ..dice import parse_dice

__all__ = ["editable_page", "editor_script", "dice_field", "LIVE_SECTIONS"]

#: The report's sections that the editor redraws (hidden once the script runs).
LIVE_SECTIONS = ("numbers", "board", "length", "impact")

EDITOR_CSS = """
#snl-editor h3 { font-size: 1.05rem; margin: 1rem 0 0.3rem; }
#snl-editor label { display: block; margin: 0.25rem 0; }
#snl-editor input[type=number] { width: 5.5em; }
#snl-editor input[type=text] { width: 14em; }
#snl-editor input, #snl-editor select, #snl-editor button { font: inherit; }
#snl-editor :focus-visible { outline: 3px solid #4c78a8; outline-offset: 1px; }
#snl-status { border-left: 4px solid #d62728; background: #fdf0f0; padding: 0.3rem 0.6rem;
  color: var(--ink); }
.snl-key { display: inline-block; width: 1.4em; height: 0.35em; margin-right: 0.35em;
  vertical-align: 0.2em; }
.snl-key.ladder { background: #2ca02c; }
.snl-key.snake { background: repeating-linear-gradient(90deg, #d62728 0 6px, transparent 6px 9px); }
.snl-bar-cell { width: 40%; min-width: 6rem; }
.snl-bar { display: block; height: 0.8em; }
.snl-bar.ladder { background: #2ca02c; }
.snl-bar.snake { background: repeating-linear-gradient(90deg, #d62728 0 6px, #f4b6b6 6px 9px); }
"""

_BODY = """
<div id="snl-editor" hidden>
<h2>Edit the board</h2>
<p>Change the rules or the jumps below: every number, the board and the distribution are
solved again in this page (exactly, from the board's Markov chain) on each edit. Type a
value and press Enter or Tab; an edit the rules forbid is refused with the reason.</p>
<div id="snl-status" role="alert" hidden></div>
<div class="cols">
<div><h3>Rules</h3>
<label>Goal square (size) <input id="snl-size" type="number" min="1" max="2000"></label>
<label>Start square <input id="snl-start" type="number" min="0"></label>
<label>Overshooting the goal <select id="snl-overshoot">
<option value="win">wins</option><option value="exact">stays (exact landing)</option>
<option value="bounce">bounces back</option></select></label>
<label><input id="snl-chain" type="checkbox"> chained jumps (follow jumps until rest)</label>
<label>Dice <input id="snl-dice" type="text" aria-describedby="snl-dice-help"></label>
<small id="snl-dice-help" class="muted">As <code>snl --dice</code> reads them: d6, 6
(a fair die), 1-3 (fair faces 1 to 3), 2d6 (two dice summed), 1:0.5,2:1/2 (face:probability
pairs).</small>
</div>
<div><h3>Key numbers</h3>
<div class="scroll"><table class="kv"><tbody id="snl-numbers"></tbody></table></div>
<p id="snl-timing" class="muted" aria-live="off"></p>
</div>
</div>
<div class="cols">
<div><h3>Jumps</h3>
<div class="scroll"><table><thead><tr><th>from square</th><th>to square</th><th>kind</th>
<th><span class="muted">edit</span></th></tr></thead><tbody id="snl-jumps-body"></tbody>
<tfoot><tr><td><input id="snl-add-from" type="number" aria-label="new jump: from square"></td>
<td><input id="snl-add-to" type="number" aria-label="new jump: to square"></td><td></td>
<td><button id="snl-add" type="button">Add jump</button></td></tr></tfoot></table></div>
<p><a id="snl-download" download="board.json" href="#">Download the board (JSON, as
<code>snl analyze FILE</code> and <code>Board.from_json</code> read it)</a> ·
<a id="snl-share" href="#">link to this board</a> ·
<button id="snl-reset" type="button">Undo all edits</button></p></div>
<div><h3>The board</h3><figure class="board" id="snl-board-figure"></figure>
<figcaption>Square 1 bottom-left, rows alternating (square 0 left of 1); ladders green and
straight, snakes red, dashed and curved, each ending in a dot; the start outlined, the goal
gold.</figcaption></div>
</div>
<h3>How long the game lasts</h3>
<figure id="snl-dist-figure"></figure>
<figcaption>P(T = k): bars (left axis); P(T ≤ k): line (right axis), up to 99.9% of the
games; the dashed line is the mean.</figcaption>
<h3>Jump impact: each jump removed alone</h3>
<p id="snl-no-jumps">The board has no jumps.</p>
<div class="scroll"><table><thead><tr><th>jump</th><th>kind</th>
<th>change of expected throws</th><th></th></tr></thead>
<tbody id="snl-impact-body"></tbody></table></div>
<p id="snl-static-note" class="muted" hidden>The report's other sections describe the board
as it was written and are hidden while it differs (“Undo all edits” shows them again).</p>
</div>
<noscript><p>This report is also an editor: open it with JavaScript turned on to change the
board and see the answers solved again in the page.</p></noscript>
"""


def editor_script() -> str:
    """The editor's JavaScript (the package data file ``display/editor.js``)."""
    return resources.files(__package__).joinpath("editor.js").read_text(encoding="utf-8")


def dice_field(dice: Any) -> str:
    """How the editor's dice field shows the board's dice: the short form when it reads back
    as exactly the same dice, else every ``face:probability`` in full."""
    text = dice_text(dice)
    try:
        again = parse_dice(text)
    except ValueError:
        again = None
    if (again is not None and np.array_equal(again.faces, dice.faces)
            and np.array_equal(again.probs, dice.probs)):
        return text
    return ",".join(f"{int(f)}:{float(p)!r}" for f, p in zip(dice.faces, dice.probs, strict=True))


def editable_page(html: str, board: Any) -> str:
    """The report page ``html`` with the editor of ``board`` added."""
    data = json.dumps({"board": board.to_dict(), "dice_text": dice_field(board.dice)})
    # no "<" at all in the <script> block: "</script" would end it and "<!--<script" would
    # keep its own end tag from ending it (user text: a board name); JSON reads \u003c as "<"
    data = data.replace("<", "\\u003c")
    script = editor_script().replace("</script", "<\\/script")

    def mark(m: re.Match[str]) -> str:
        what = "data-live" if m.group(1) in LIVE_SECTIONS else "data-static"
        return f'<section id="{m.group(1)}" {what}>'

    body = re.sub(r'<section id="([^"]+)">', mark, html)
    section = (f'<section id="editor">{_BODY}</section>'
               f'<script type="application/json" id="snl-board-data">{data}</script>')
    body = body.replace("</style></head>", f"{EDITOR_CSS}</style></head>", 1)
    body = body.replace("<main>", "<main>" + section, 1)
    body = body.replace("</body></html>", f"<script>{script}</script></body></html>", 1)
    return body.replace("<title>Report: ", f"<title>{escape('Editor')}: ", 1)
