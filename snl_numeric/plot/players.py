"""Players racing: in which round the game ends, and who wins it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.text import capture_words
from .._core.validation import positive_int
from ..board import Board
from ..players import GameLength, expected_game_length
from .common import axes, check_coverage

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def plot_players(
    game: GameLength | Board,
    players: int | None = None,
    *,
    coverage: float = 0.999,
    ax: Axes | None = None,
    title: str | None = None,
) -> Any:
    """The distribution of the number of rounds of a k-player game, stacked by winner.

    Bar ``n`` is the chance that the game ends in round ``n``, split into the chance that
    each player wins then (``GameLength.win_pmf``); the legend gives each player's win
    chance. With a :class:`~snl_numeric.Board` the game is solved first by
    :func:`~snl_numeric.expected_game_length` (exactly, under the board's capture rule if
    it has one), and the title names the rule.

    Parameters
    ----------
    game : GameLength or Board
        A game's length (:func:`~snl_numeric.expected_game_length`) or a board.
    players : int, optional
        Number of players, for a board (required then).
    coverage : float, default 0.999
        The rounds shown cover at least this share of the games.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    title : str, optional
        Title of the axes. Players are numbered from 1 (player 1 throws first), as in
        the text and HTML displays.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from snl_numeric import boards
    >>> from snl_numeric.plot import plot_players
    >>> ax = plot_players(boards.get("milton-bradley").replace(capture="start"), 2)
    >>> ax.get_title()
    '2 players, capture to the start: player 1 wins 0.5056'
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['player 1: 0.5056', 'player 2: 0.4944']
    """
    coverage = check_coverage(coverage)
    if players is not None:  # (an empty array raised NumPy's "truth value ... ambiguous")
        players = positive_int(players, "players")
    rule = None
    if isinstance(game, Board):
        if players is None:
            raise ValueError("players is required with a board: plot_players(board, k)")
        rule = capture_words(game)[2:] or "no capture"
        game = expected_game_length(game, players)
    elif not isinstance(game, GameLength):
        raise TypeError(f"game must be a GameLength or a Board, got {type(game).__name__}")
    elif players is not None and players != game.players:
        raise ValueError(f"players={players} but the game has {game.players} players")
    k = game.players
    done = np.cumsum(game.rounds_pmf)
    last = int(np.searchsorted(done, coverage * done[-1])) + 1 if len(done) else 1
    rounds = np.arange(last)
    one = axes(ax, (8, 4.5))
    bottom = np.zeros(last)
    for i in range(k):
        share = game.win_pmf[i, :last]
        one.bar(rounds, share, bottom=bottom, width=1.0, color=f"C{i % 10}", linewidth=0,
                label=f"player {i + 1}: {game.win_probabilities[i]:.4f}")
        bottom += share
    one.set_xlabel("round in which the game ends")
    one.set_ylabel("probability")
    one.set_xlim(-0.5, last - 0.5)
    one.legend(title="wins", fontsize=8)
    if title is None:
        title = f"{k} players" + (f", {rule}" if rule else "") + \
            f": player 1 wins {game.win_probabilities[0]:.4f}"
    one.set_title(title)
    return one
