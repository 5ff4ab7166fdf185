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
from ._core.validation import flag, positive_int, shown
from .analysis import analyze
from .absorption import absorption_probabilities
from .board import Board, check_board, check_start
from .chain import expected_throws, solver_report
from .display.editor import editable_page
from .display.html import board_title
from .display.report import (
    board_section,
    candidates_section,
    chain_section,
    chain_visits_section,
    distribution_section,
    ends_section,
    impact_section,
    key_numbers_section,
    page,
    players_section,
    policy_section,
    race_section,
    sensitivity_section,
    visits_section,
)
from .impact import candidates, jump_impact
from .markov import Chain
from .players import expected_game_length
from .policy import optimal_policy
from .race import optimal_race
from .sensitivity import sensitivity

__all__ = ["report", "CANDIDATES_MAX_SIZE"]

#: Boards up to this many squares get the map of every jump one could add.
CANDIDATES_MAX_SIZE = 400


def report(board: Board | Chain, path: str | os.PathLike[str] | None = None, *,
           actions: Sequence[Any] | None = None, race: bool = False,
           start: int | None = None, players: int | None = None,
           editable: bool = False) -> str:
    """Write one self-contained HTML report about ``board``.

    The page holds the board drawn, the key numbers with their certified error
    bounds, the distribution of the game length, the expected visits per square,
    what each jump does (:func:`~snl_numeric.jump_impact`), how sensitive the expected
    throws and the variance are to the dice and to each square's moves
    (:func:`~snl_numeric.sensitivity`, when the game ends surely), the best and worst jumps
    one could add (:func:`~snl_numeric.jump_candidates`, boards up to
    :data:`CANDIDATES_MAX_SIZE` squares that finish surely) and, with ``actions``, the
    optimal choice between those dice (:func:`~snl_numeric.optimal_policy`); with
    ``race``, two players choosing dice to win (:func:`~snl_numeric.optimal_race`);
    with ``players``, that many players racing (:func:`~snl_numeric.expected_game_length`).
    No script, nothing fetched; it reads on a phone and prints on A4.

    Parameters
    ----------
    board : Board or Chain
        For a :class:`~snl_numeric.Chain` the page counts steps and names states by their
        labels: the key numbers with their bounds, the distribution of the number of
        steps, the expected steps made from each state and, from
        :func:`~snl_numeric.absorption_probabilities`, the chance of ending in each
        absorbing state with the expected steps given that end. A chain has no drawing,
        jumps or dice: ``actions``, ``race``, ``players`` and ``editable`` are refused for
        it (``TypeError``).
    path : str or path-like, optional
        Where to write the page (UTF-8); not written when omitted.
    actions : sequence of dice, optional
        Dice to choose from before each throw (``Dice``, mappings, or strings such as
        ``"1-3"``, ``"2d6"``), as :func:`~snl_numeric.optimal_policy` takes them: a
        ``None`` entry is a fair d6 (``actions=None``, the default: no policy section).
    race : bool, default False
        Add the race of two players choosing between ``actions`` (the board's own die
        when no ``actions`` are given).
    start : int, optional
        Start square (a chain's start state); the board's own by default.
    players : int, optional
        Add a section on ``players`` (at least 2) players racing from ``start``, player 1
        first: each one's exact win chance (:func:`~snl_numeric.win_probabilities`), the
        first player's edge (:func:`~snl_numeric.first_player_advantage`), the expected
        rounds and throws and the distribution of the number of rounds
        (:func:`~snl_numeric.expected_game_length`). Under the board's capture rule when
        it has one (the section names it), through the joint chain of every position:
        refused with the memory estimate where that does not fit (see
        :doc:`/user_guide/players_who_meet`).
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
    >>> "How sensitive the game is" in html
    True
    >>> "Edit the board" in report(boards.get("seed-30"), editable=True)
    True

    Two players who send each other back to the start:

    >>> mb = boards.get("milton-bradley").replace(capture="start")
    >>> html = report(mb, players=2)
    >>> "capture to the start" in html, "0.505571" in html, "28.04" in html
    (True, True, True)

    A chain: gambler's ruin on 0..4 from 2, a fair coin, two ends.

    >>> import numpy as np
    >>> from snl_numeric import Chain
    >>> P = np.zeros((5, 5))
    >>> P[0, 0] = P[4, 4] = 1.0
    >>> for i in range(1, 4):
    ...     P[i, i - 1] = P[i, i + 1] = 0.5
    >>> html = report(Chain(P, labels=["ruin", 1, 2, 3, "rich"], start=2))
    >>> "Where the walk ends" in html, "expected steps" in html, "rich" in html
    (True, True, True)
    """
    if isinstance(board, Chain):
        return _chain_report(board, path, actions=actions, race=race, start=start,
                             players=players, editable=editable)
    start = check_start(check_board(board), start)
    race = flag(race, "race")
    editable = flag(editable, "editable")
    if path is not None and not isinstance(path, (str, os.PathLike)):  # (an int: a descriptor)
        raise TypeError(f"path must be a file name (str or path-like) or None, got {path!r}")
    if players is not None:
        players = positive_int(players, "players", low=2)
    if actions is not None and (isinstance(actions, (str, bytes)) or not hasattr(actions, "__len__")):
        raise TypeError(f"actions must be a list of dice, got {shown(actions)}")
    if actions is not None and not len(actions):
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
    if math.isfinite(a.mean):
        sections.append(("sensitivity", "How sensitive the game is", sensitivity_section(
            sensitivity(board, wrt="dice"), sensitivity(board, of="variance", wrt="dice"),
            sensitivity(board, wrt="transitions"))))
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
    if players is not None:
        game = expected_game_length(board, players)
        sections.append(("players", f"{players} players racing", players_section(game, board)))
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


def _chain_report(chain: Chain, path: str | os.PathLike[str] | None, *,
                  actions: Sequence[Any] | None, race: bool, start: int | None,
                  players: int | None, editable: bool) -> str:
    """:func:`report` of a chain."""
    for name, given in (("actions", actions is not None), ("race", race is not False),
                        ("players", players is not None), ("editable", editable is not False)):
        if given:
            raise TypeError(f"report({name}=...) needs a Board (dice to choose, players to "
                            f"race, a board to draw and edit); a Chain has none: leave {name} "
                            "out")
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file name (str or path-like) or None, got {path!r}")
    a = analyze(chain, start=start)
    solved = solver_report(chain)
    ends = absorption_probabilities(chain, a.start, visit_probability=False)
    sections = [
        ("numbers", "Key numbers", key_numbers_section(a, solved.error_estimate, solved.method)),
        ("chain", "The chain", chain_section(chain)),
        ("length", "How long the walk lasts", distribution_section(a)),
        ("visits", "Where the walk goes", chain_visits_section(a)),
        ("ends", "Where the walk ends", ends_section(ends)),
    ]
    html = page(f"Report: {board_title(chain)}",
                f"{chain.n_states:,} states, {len(chain.absorbing):,} absorbing; start on "
                f"state {chain.labels[a.start]!s}.", sections,
                "Made by snl_numeric: exact answers from the absorbing Markov chain (no "
                "simulation).")
    if path is not None:
        write_text_atomic(path, html)
    return html
