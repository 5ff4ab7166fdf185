"""One self-contained HTML page about a board, to hand to someone else.

:func:`report` answers the questions a board designer asks first (how long is the
game, how does it spread, where do the tokens go, which jump matters, where one more
would hurt) and, when dice to choose from are given, how to play them, and lays the
answers out with :mod:`snl_numeric.display.report`: figures are inline SVG or PNG data
URIs, so the file opens anywhere, offline, with nothing else beside it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

from ._core.files import write_text_atomic
from ._core.validation import flag
from .analysis import analyze
from .board import Board, check_board, check_start
from .chain import expected_throws, solver_report
from .display.editor import editable_page
from .display.html import board_title
from .display.report import (
    board_section,
    candidates_section,
    distribution_section,
    impact_section,
    key_numbers_section,
    page,
    policy_section,
    race_section,
    visits_section,
)
from .impact import candidates, jump_impact
from .policy import optimal_policy
from .race import optimal_race

__all__ = ["report", "CANDIDATES_MAX_SIZE"]

#: Boards up to this many squares get the map of every jump one could add.
CANDIDATES_MAX_SIZE = 400


def report(board: Board, path: str | os.PathLike[str] | None = None, *,
           actions: Sequence[Any] | None = None, race: bool = False,
           start: int | None = None, editable: bool = False) -> str:
    """Write one self-contained HTML report about ``board``.

    The page holds the board drawn, the key numbers with their certified error
    bounds, the distribution of the game length, the expected visits per square,
    what each jump does (:func:`~snl_numeric.jump_impact`), the best and worst jumps
    one could add (:func:`~snl_numeric.jump_candidates`, boards up to
    :data:`CANDIDATES_MAX_SIZE` squares that finish surely) and, with ``actions``, the
    optimal choice between those dice (:func:`~snl_numeric.optimal_policy`); with
    ``race``, two players choosing dice to win (:func:`~snl_numeric.optimal_race`).
    No script, nothing fetched; it reads on a phone and prints on A4.

    Parameters
    ----------
    board : Board
        Not a :class:`~snl_numeric.Chain`: the page is about a board's drawing and jumps
        (a ``TypeError`` says so; :func:`~snl_numeric.analyze` and the distribution and
        visits plots take a chain).
    path : str or path-like, optional
        Where to write the page (UTF-8); not written when omitted.
    actions : sequence of dice, optional
        Dice to choose from before each throw (``Dice``, mappings, or strings such as
        ``"1-3"``, ``"2d6"``).
    race : bool, default False
        Add the race of two players choosing between ``actions`` (the board's own die
        when no ``actions`` are given).
    start : int, optional
        Start square; the board's own by default.
    editable : bool, default False
        Make the page an editor as well: controls to add, move, delete and retarget jumps
        and to change the rules and dice, with a solver in the page's own script (no
        network, no framework) that redraws the key numbers, the board, the distribution
        and each jump's impact on every edit; the edited board downloads as a JSON board
        file and its link (the URL fragment) shares it. See :doc:`/user_guide/editor`.

    Returns
    -------
    str
        The HTML page.

    Examples
    --------
    >>> from snl_numeric import boards, report
    >>> html = report(boards.get("seed-30"))
    >>> html.startswith("<!DOCTYPE html>"), "<script" in html, "Jump impact" in html
    (True, False, True)
    >>> "Edit the board" in report(boards.get("seed-30"), editable=True)
    True
    """
    from .markov import Chain

    if isinstance(board, Chain):
        raise TypeError(
            "report takes a Board, got a Chain: the page is built around a board (its "
            "drawing, each jump's impact, the jumps one could add, the choice of dice); for "
            "a chain use analyze(chain) (shown as HTML in a notebook) and "
            "snl_numeric.plot.plot_distribution / plot_visits, which take a Chain")
    start = check_start(check_board(board), start)
    race = flag(race, "race")
    editable = flag(editable, "editable")
    if path is not None and not isinstance(path, (str, os.PathLike)):  # (an int: a descriptor)
        raise TypeError(f"path must be a file name (str or path-like) or None, got {path!r}")
    if actions is not None and (isinstance(actions, (str, bytes)) or not len(actions)):
        raise ValueError(f"actions must be a non-empty list of dice, got {actions!r}")
    if start != board.start:
        board = board.replace(start=start)
    a = analyze(board)
    solved = solver_report(board)
    impact = jump_impact(board)
    sections = [
        ("numbers", "Key numbers", key_numbers_section(a, solved.error_estimate, solved.method)),
        ("board", "The board", board_section(board)),
        ("length", "How long the game lasts", distribution_section(a)),
        ("visits", "Where the tokens go", visits_section(a)),
        ("impact", "Jump impact: each jump removed alone", impact_section(impact)),
    ]
    if board.size <= CANDIDATES_MAX_SIZE and math.isfinite(a.mean):
        sections.append(("candidates", "Adding one more jump",
                         candidates_section(candidates(board))))
    if actions is not None:
        policy = optimal_policy(board, list(actions))
        alone = [expected_throws(board.replace(dice=d)) for d in policy.actions]
        sections.append(("policy", "Choosing a die before each throw",
                         policy_section(policy, alone)))
    if race:
        result = optimal_race(board, list(actions) if actions is not None else [board.dice])
        sections.append(("race", "A race of two players choosing dice", race_section(result)))
    html = page(f"Report: {board_title(board)}",
                f"{len(board.ladders)} ladders, {len(board.snakes)} snakes on squares 0 … "
                f"{board.size}; start on square {start}.", sections,
                "Made by snl_numeric: exact answers from the absorbing Markov chain of the "
                "board (no simulation).")
    if editable:
        html = editable_page(html, board)
    if path is not None:
        write_text_atomic(path, html)
    return html
