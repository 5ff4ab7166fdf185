"""``edit(board)``: the board editor in Jupyter, with the library's own solver behind it.

The controls are those of the editable report (:func:`~snl_numeric.report` with
``editable=True``): the goal square, the start square, the overshoot rule, chained jumps,
the dice (a string as ``parse_dice`` reads it) and one row per jump (from, to, delete),
plus a row to add one; a capture rule (``capture``, ``safe``) has no control and is kept.
Every edit builds a new :class:`~snl_numeric.Board` (an edit the
rules forbid is refused with the library's own message and the controls return to the
board as it was) and answers it with :func:`~snl_numeric.analyze`,
:func:`~snl_numeric.jump_impact` and :func:`~snl_numeric.win_probabilities`;
``editor.board`` is the board as it stands, for the next cell. Needs the ``notebook``
extra (ipywidgets).
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

from .analysis import analyze
from .board import Board, check_board
from .dice import parse_dice
from .display.editor import dice_field
from .display.html import board_title, fmt
from .display.impact import signed
from .display.svg import board_svg_figure, distribution_svg
from .display.text import rules_line
from .impact import jump_impact
from .players import win_probabilities

__all__ = ["edit", "BoardEditor"]


def _widgets() -> Any:
    try:
        import ipywidgets
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("edit() needs ipywidgets: pip install 'snl_numeric[notebook]'") from None
    return ipywidgets


class BoardEditor:
    """A board editor for Jupyter; see :func:`edit`.

    Attributes
    ----------
    board : Board
        The board as edited so far.
    widget : ipywidgets.VBox
        The whole editor (what a notebook shows).
    size, start, overshoot, chain, dice : ipywidgets widgets
        The rules' controls (``dice`` a text such as ``"2d6"``).
    jump_rows : list of ipywidgets.HBox
        One row a jump: its ``from`` and ``to`` squares (``IntText``) and a delete button.
    add_from, add_to, add_button
        The row that adds a jump.
    numbers, figures, message : ipywidgets.HTML
        The key numbers, the board and distribution drawn, and why an edit was refused.
    """

    def __init__(self, board: Board) -> None:
        w = _widgets()
        self._w = w
        self.board = check_board(board)
        self._busy = False
        self.size = w.BoundedIntText(min=1, max=10**6, description="goal square")
        self.start = w.BoundedIntText(min=0, max=10**6, description="start square")
        self.overshoot = w.Dropdown(options=[("overshoot wins", "win"),
                                             ("exact landing", "exact"),
                                             ("bounce back", "bounce")], description="overshoot")
        self.chain = w.Checkbox(description="chained jumps")
        self.dice = w.Text(description="dice", placeholder="d6, 1-3, 2d6, 1:0.5,2:0.5",
                           continuous_update=False)
        self.add_from = w.IntText(description="new jump")
        self.add_to = w.IntText(description="to")
        self.add_button = w.Button(description="Add jump")
        self.message = w.HTML()
        self.numbers = w.HTML()
        self.figures = w.HTML()
        self.jump_rows: list[Any] = []
        self._jumps_box = w.VBox()
        for control in (self.size, self.start, self.overshoot, self.chain, self.dice):
            control.observe(self._on_change, names="value")
        self.add_button.on_click(self._on_add)
        rules = w.VBox([self.size, self.start, self.overshoot, self.chain, self.dice])
        adding = w.HBox([self.add_from, self.add_to, self.add_button])
        self.widget = w.VBox([rules, w.HTML("<b>Jumps</b>"), self._jumps_box, adding,
                              self.message, self.numbers, self.figures])
        self._show(self.board)

    # -- edits --------------------------------------------------------------------------------
    def _try(self, make) -> None:
        if self._busy:
            return
        try:
            board = make()
        except (ValueError, TypeError) as exc:
            self.message.value = f'<p style="color:#d62728">refused: {escape(str(exc))}</p>'
            self._show(self.board, solve=False)
            return
        self.message.value = ""
        self._show(board)

    def _rules(self) -> dict[str, Any]:
        """The rules as the controls read, and the capture rule (no control: kept)."""
        return {"start": self.start.value, "overshoot": self.overshoot.value,
                "chain": self.chain.value, "dice": parse_dice(self.dice.value),
                "capture": self.board.capture, "safe": self.board.safe}

    def _jumps(self) -> list[tuple[int, int]]:
        return [(row.children[0].value, row.children[1].value) for row in self.jump_rows]

    def _on_change(self, change: Any) -> None:
        """A rule or a jump's square edited: the board of every field as it now reads."""
        self._try(lambda: Board(self.size.value, self._jumps(), **self._rules()))

    def _on_delete(self, button: Any) -> None:
        jumps = [j for row, j in zip(self.jump_rows, self._jumps(), strict=True)
                 if row.children[2] is not button]
        self._try(lambda: Board(self.size.value, jumps, **self._rules()))

    def _on_add(self, button: Any) -> None:
        jumps = [*self._jumps(), (self.add_from.value, self.add_to.value)]
        self._try(lambda: Board(self.size.value, jumps, **self._rules()))

    # -- drawing ------------------------------------------------------------------------------
    def _show(self, board: Board, *, solve: bool = True) -> None:
        """Set every control to ``board`` (without firing the edits) and answer it."""
        w = self._w
        self._busy = True
        try:
            self.size.value = board.size
            self.start.max = board.size
            self.start.value = board.start
            self.overshoot.value = board.overshoot
            self.chain.value = board.chain
            self.dice.value = dice_field(board.dice)
            rows = []
            for s, d in board.jumps.items():
                src, dst = w.IntText(value=s, layout={"width": "7em"}), w.IntText(
                    value=d, layout={"width": "7em"})
                delete = w.Button(description="Delete", layout={"width": "6em"},
                                  tooltip=f"delete the jump {s}->{d}")
                src.observe(self._on_change, names="value")
                dst.observe(self._on_change, names="value")
                delete.on_click(self._on_delete)
                rows.append(w.HBox([src, dst, delete,
                                    w.Label("ladder" if d > s else "snake")]))
            self.jump_rows = rows
            self._jumps_box.children = rows
        finally:
            self._busy = False
        if solve:
            self.board = board
            self._answer(board)

    def _answer(self, board: Board) -> None:
        a = analyze(board)
        rows = [("expected throws", fmt(a.mean, 10)),
                ("standard deviation", fmt(a.std, 10)),
                ("fewest throws", str(a.min_throws) if a.min_throws >= 0 else "unreachable")]
        if a.finish_probability < 1.0:
            rows.append(("finish probability", fmt(a.finish_probability, 10)))
        first = float(win_probabilities(board, 2)[0])
        rows.append(("two players: the first wins", f"{fmt(first, 8)} (edge "
                                                    f"{signed(first - 0.5)} over 1/2)"))
        if math.isfinite(a.mean) and board.jumps:
            imp = jump_impact(board)
            top = imp.order()[:5].tolist()
            rows.append(("jumps that matter most (removed alone)", ", ".join(
                f"{imp.source[j]}→{imp.destination[j]} {signed(imp.mean_change[j])}"
                for j in top)))
        table = "".join(f'<tr><th style="text-align:left;padding-right:1em">{escape(k)}</th>'
                        f'<td data-key="{escape(k)}">{escape(v)}</td></tr>' for k, v in rows)
        self.numbers.value = (f"<p>{escape(board_title(board))}: {escape(rules_line(board))}"
                              f"</p><table>{table}</table>")
        figures = ""
        if board.size <= 2500:
            figures += ('<div style="max-width:30rem">' + board_svg_figure(
                board, title=board_title(board), numbers=board.size <= 400) + "</div>")
        if a.pmf is not None and a.cdf is not None:
            last = max(int(a.min_throws), 10, min(len(a.pmf) - 1, int(a.percentiles.get(99, 0)
                                                                    or len(a.pmf) - 1)))
            marks = {"mean": a.mean} if math.isfinite(a.mean) else {}
            figures += ('<div style="max-width:36rem">' + distribution_svg(
                a.pmf, a.cdf, last=min(last, len(a.pmf) - 1), marks=marks,
                title="Distribution of the number of throws") + "</div>")
        self.figures.value = figures

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)


def edit(board: Board) -> BoardEditor:
    """An editor of ``board`` for Jupyter: change the jumps, rules and dice with its
    controls; the numbers and figures follow, solved by the library.

    Parameters
    ----------
    board : Board

    Returns
    -------
    BoardEditor
        Shown by the notebook when it is a cell's value; ``.board`` is the board as edited.

    Examples
    --------
    >>> from snl_numeric import boards, edit
    >>> e = edit(boards.get("seed-30"))
    >>> e.overshoot.value = "win"
    >>> e.board.overshoot, e.board.jumps == boards.get("seed-30").jumps
    ('win', True)
    """
    return BoardEditor(board)
