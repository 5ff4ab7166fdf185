"""Everything about one board from one start square, in one call."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.sparse.csgraph import connected_components

from ._core.equality import value_eq
from ._core.table import QUANTILE_SLACK, quantile_levels, quantiles
from ._core.validation import DEFAULT_MAX_THROWS, DEFAULT_TAIL, check_tail, optional_flag, shown
from .board import Board, check_model, check_start
from .chain import finish_probability, fundamental, moments, visits_and_jump_use
from .distribution import pushed, tail_floor
from .shortest import min_throws, shortest_path

if TYPE_CHECKING:
    from .markov import Chain

__all__ = ["Analysis", "analyze", "DEFAULT_PERCENTILES"]

DEFAULT_PERCENTILES = (5, 10, 25, 50, 75, 90, 95, 99)
#: Most solve columns ``analyze`` spends on jump-use probabilities unless asked.
AUTO_JUMP_SOLVES = 200


@dataclass(frozen=True, eq=False)
class Analysis:
    """The single-player analysis of a board (or a chain) from one start square.

    For a :class:`~snl_numeric.Chain` every count is of *steps* (a chain has no throws),
    the per-square arrays are per state in the chain's own order (an absorbing state
    visited no step from), and the board-only parts (the jumps) are ``None``.

    Attributes
    ----------
    board : Board or Chain
        The board (or chain) analysed.
    start : int
        The start square (a chain's start state).
    min_throws : int
        Fewest throws to the goal, -1 when unreachable.
    shortest_path : list of (square, face, landing) or None
        One fewest-throws play (a chain's: ``(state, probability, next state)`` steps,
        see :func:`~snl_numeric.shortest_path`).
    mean, variance, std : float
        Moments of the number of throws ``T`` (``inf`` unless the goal is
        reached with probability 1).
    finish_probability : float
        Probability that the goal is ever reached.
    median, mode : int or None
        Of ``T``; ``None`` when undefined (the goal may never be reached) or not decided
        within ``max_throws`` throws.
    percentiles : dict
        ``{q: smallest k with P(T <= k) >= q / 100}``; a value is ``None``
        when that probability is never reached.
    pmf, cdf : ndarray or None
        ``pmf[k] = P(T = k)`` up to the tail tolerance; ``cdf`` its running sum
        (at most 1). ``None`` when the tail did not fall below ``tail`` within
        ``max_throws`` throws (see ``note``); the median, mode and percentiles are then
        given where that many throws decide them, ``None`` beyond.
    expected_visits : ndarray or None
        Expected number of throws made from each square (they sum to
        ``mean``); ``None`` when ``mean`` is infinite.
    jump_uses : dict or None
        ``{(from, to): expected number of times the jump fires}`` (``None`` for a chain,
        which has no jumps, and when ``mean`` is infinite).
    jump_probability : dict or None
        ``{(from, to): probability the jump fires at least once}``; ``None``
        when ``mean`` is infinite or the computation was skipped (see the
        ``jump_probability`` option of :func:`analyze`).
    visit_probability : ndarray or None
        The chance of ever resting on each square (the start included, 1 there):
        ``h_j = N_sj / N_jj``, the expected visits over the expected visits of a token
        that starts on ``j``. ``None`` unless asked for (the ``visit_probability``
        option of :func:`analyze`) or when ``mean`` is infinite. For a chain, an absorbing
        state's is the chance that the walk ends there.
    tail : float
        The tail tolerance used for ``pmf``.
    note : str
        Why a field is missing, empty otherwise.
    """

    __eq__ = value_eq  # (value equality: see snl_numeric._core.equality)
    __hash__ = None  # type: ignore[assignment]

    board: Board | Chain
    start: int
    min_throws: int
    shortest_path: list[tuple[int, int, int]] | list[tuple[int, float, int]] | None
    mean: float
    variance: float
    std: float
    finish_probability: float
    median: int | None
    mode: int | None
    percentiles: dict[int | float, int | None]
    pmf: np.ndarray | None = field(repr=False)
    cdf: np.ndarray | None = field(repr=False)
    expected_visits: np.ndarray | None = field(repr=False)
    jump_uses: dict[tuple[int, int], float] | None = field(repr=False)
    jump_probability: dict[tuple[int, int], float] | None = field(repr=False)
    visit_probability: np.ndarray | None = field(repr=False, default=None)
    tail: float = field(repr=False, default=DEFAULT_TAIL)
    note: str = ""

    def to_frame(self, kind: str = "throws") -> Any:
        """A tidy pandas table.

        Parameters
        ----------
        kind : {"throws", "squares", "jumps", "summary"}
            One row per number of throws (``throws``, ``pmf``, ``cdf``), per
            square (``expected_visits``), per jump (``from``, ``to``, ``kind``,
            ``uses``, ``probability``), or one row of the key numbers.

        Examples
        --------
        >>> import pandas as pd
        >>> from snl_numeric import analyze, boards
        >>> mb = boards.get("milton-bradley")
        >>> df = pd.concat([analyze(mb.replace(overshoot=r)).to_frame("summary").assign(rule=r)
        ...                 for r in ("exact", "win")])
        >>> df[["rule", "min_throws", "median"]].values.tolist()
        [['exact', 7, 32], ['win', 7, 29]]
        >>> analyze(mb).to_frame().columns.tolist()
        ['throws', 'pmf', 'cdf']
        """
        from .display.frames import analysis_frame

        return analysis_frame(self, kind)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (``pmf`` included, arrays as lists)."""

        def key(pair: tuple[int, int]) -> str:
            return f"{pair[0]}->{pair[1]}"

        board = self.board
        return {
            "board": board.to_dict() if isinstance(board, Board) else _chain_dict(board),
            "start": self.start,
            "min_throws": self.min_throws,
            "shortest_path": self.shortest_path,
            "mean": self.mean,
            "variance": self.variance,
            "std": self.std,
            "finish_probability": self.finish_probability,
            "median": self.median,
            "mode": self.mode,
            "percentiles": {str(q): v for q, v in self.percentiles.items()},
            "pmf": None if self.pmf is None else self.pmf.tolist(),
            "note": self.note,
            "expected_visits": None if self.expected_visits is None
            else self.expected_visits.tolist(),
            "jump_uses": None if self.jump_uses is None
            else {key(k): v for k, v in self.jump_uses.items()},
            "jump_probability": None if self.jump_probability is None
            else {key(k): v for k, v in self.jump_probability.items()},
            "visit_probability": None if self.visit_probability is None
            else self.visit_probability.tolist(),
        }

    def __str__(self) -> str:
        from .display.text import analysis_text

        return analysis_text(self)

    def _repr_html_(self) -> str:
        from .display.html import analysis_html

        return analysis_html(self)


def analyze(
    board: Board | Chain,
    *,
    start: int | None = None,
    percentiles: tuple[float, ...] = DEFAULT_PERCENTILES,
    tail: float = DEFAULT_TAIL,
    max_throws: int = DEFAULT_MAX_THROWS,
    jump_probability: bool | None = None,
    visit_probability: bool | None = False,
) -> Analysis:
    """Analyse a board: fewest throws, moments, distribution, visits, jump use.

    Parameters
    ----------
    board : Board or Chain
        A :class:`~snl_numeric.Chain` is analysed the same way, counting steps to
        absorption; its per-state arrays are in its own state order and its jump fields
        are ``None`` (a chain has no jumps, so ``jump_probability`` does nothing).
    start : int, optional
        Start square (a chain's state); the board's own by default.
    percentiles : tuple of float
        Percentiles of the number of throws to report, each in (0, 100).
    tail, max_throws : float, int
        Tail tolerance of the distribution and the most throws followed (see
        :func:`length_distribution`). A distribution that does not finish within
        ``max_throws`` throws leaves the distribution fields ``None`` (with a
        ``note``); the moments, visits and jump use are still given.
    jump_probability : bool or None
        Compute the probability that each jump is used at least once. It
        costs a column of the visits' solve per distinct square where jumps
        leave the token: ``None`` (default) computes it when that is at most
        ``AUTO_JUMP_SOLVES`` columns (and leaves it ``None`` on bigger boards),
        ``True`` always, ``False`` never. Expected uses are always given.
    visit_probability : bool or None, default False
        Compute the chance of ever resting on each square. It costs a column of one
        certified solve per square that a token can come back to (one in a cycle of
        moves; on Milton Bradley that adds half the time of ``analyze``): ``True``
        always, ``None`` when that is at most ``AUTO_JUMP_SOLVES`` columns, ``False``
        (default) never.

    Returns
    -------
    Analysis

    Examples
    --------
    >>> from snl_numeric import analyze, boards
    >>> a = analyze(boards.get("seed-30"))
    >>> a.min_throws, a.shortest_path[0]
    (3, (0, 2, 21))
    >>> bool(abs(a.mean - a.expected_visits.sum()) < 1e-9)
    True

    A chain: gambler's ruin on 0..4 with a fair coin, from 2 (``i * (4 - i)`` steps).

    >>> import numpy as np
    >>> from snl_numeric import Chain
    >>> P = np.zeros((5, 5))
    >>> P[0, 0] = P[4, 4] = 1.0
    >>> for i in range(1, 4):
    ...     P[i, i - 1] = P[i, i + 1] = 0.5
    >>> r = analyze(Chain(P, labels=list("abcde"), start=2), visit_probability=True)
    >>> round(r.mean, 12), r.min_throws, r.jump_uses
    (4.0, 2, None)
    >>> r.expected_visits.round(12).tolist(), r.visit_probability.round(12).tolist()
    ([0.0, 1.0, 2.0, 1.0, 0.0], [0.5, 0.666666666667, 1.0, 0.666666666667, 0.5])
    """
    model = check_model(board)
    chain = None if isinstance(model, Board) else model
    index = check_start(model, start)  # (the start's index in the compiled table)
    if chain is not None:
        start = chain.start if start is None else int(start)
    else:
        start = index
    jump_probability = optional_flag(jump_probability, "jump_probability")
    visit_probability = optional_flag(visit_probability, "visit_probability")
    if isinstance(percentiles, (str, bytes)) or not isinstance(percentiles, Iterable):
        raise TypeError(f"percentiles must be a sequence of numbers, got {shown(percentiles)}")
    percentiles = tuple(percentiles)
    for q in percentiles:
        if isinstance(q, bool) or not isinstance(q, numbers.Real):
            raise TypeError(f"percentiles must be numbers, got {shown(q)}")
        if q >= 100:
            raise ValueError(
                f"percentiles must be below 100, got {q!r}: the 100th percentile is the longest "
                "game, which has no bound when a snake or a throw that moves nothing can make a "
                "game go on (the distribution stops where its tail falls below tail); ask for "
                "99.9 or the like")
        if not q > 0:
            raise ValueError(f"percentiles must be above 0, got {q!r}: the 0th percentile would "
                             "be the shortest game, which is min_throws")
    cb = model.compiled
    mean_all, var_all = moments(cb)
    mean, var = float(mean_all[index]), float(var_all[index])
    tail = check_tail(tail, max_throws)
    pmf: np.ndarray | None
    cdf: np.ndarray | None
    # where the tail cannot fall below tail by max_throws, no push reaches it and none is
    # made (1e16 expected throws: not ten million throws pushed in vain)
    left = tail_floor(cb, index, int(max_throws)) if mean > max_throws else 0.0
    if left >= tail:
        pmf, remaining = np.zeros(1), left
    else:
        pushed_ = pushed(cb, index, tail, int(max_throws))
        pmf, remaining = pushed_.pmf, pushed_.remaining
    cdf = np.minimum(np.cumsum(pmf), 1.0)
    note = ""
    if left >= tail:
        note = (f"the distribution was not computed: the tail cannot fall below {tail:g} "
                f"within max_throws={int(max_throws)} throws (at least {left:.3g} of the mass "
                f"is left: P(T > n) >= (E[T] - n) / max t, E[T] = {mean:.3g}); raise "
                "max_throws or tail")
    elif remaining >= tail:
        note = (f"the distribution was not computed: the tail did not fall below {tail:g} "
                f"within max_throws={int(max_throws)} throws (remaining mass "
                f"{remaining:.3g}); raise max_throws or tail")
    limit = AUTO_JUMP_SOLVES if jump_probability is None else None if jump_probability else -1
    if chain is not None:
        limit = -1
    found = visits_and_jump_use(cb, index, limit) if math.isfinite(mean) else None
    visits = uses = probs = None
    if found is not None:
        visits, u, p = found
        if chain is None:
            pairs = list(zip(cb.jump_src.tolist(), cb.jump_dst.tolist(), strict=True))
            uses = dict(zip(pairs, u.tolist(), strict=True))
            probs = None if p is None else dict(zip(pairs, p.tolist(), strict=True))
    chance = None
    if visits is not None and visit_probability is not False:
        chance = _visit_chance(cb, visits, AUTO_JUMP_SOLVES if visit_probability is None
                               else None)
    if chain is not None and visits is not None:
        visits = cb.in_state_order(visits)
        if chance is not None:
            chance = _chain_chance(chain, cb.in_state_order(chance), visits, start)
    if visits is not None:
        visits.flags.writeable = False
    asked = [0.5, *(q / 100.0 for q in percentiles)]
    at_levels, mode = quantiles(cdf, asked), _mode(pmf, remaining)
    deeper = None if note else _decided_tail(at_levels, mode, cdf, pmf, remaining, asked, tail)
    if deeper is not None:  # the tail cut hides a level or the mode: push further for them
        more = pushed(cb, index, deeper, int(max_throws))
        at_levels = quantiles(np.minimum(np.cumsum(more.pmf), 1.0), asked)
        mode = _mode(more.pmf, more.remaining)
    median, *at = at_levels
    levels = dict(zip(percentiles, at, strict=True))
    if note:
        pmf = cdf = None
    elif deeper is not None and more.remaining >= deeper and None in (median, mode, *at):
        note = (f"the median, mode or percentiles given as None were not decided within "
                f"max_throws={int(max_throws)} throws; raise max_throws")
    for arr in (pmf, cdf):
        if arr is not None:
            arr.flags.writeable = False

    return Analysis(
        board=board,
        start=start,
        min_throws=min_throws(model, start),
        shortest_path=shortest_path(model, start),
        mean=mean,
        variance=var,
        std=math.sqrt(var),
        finish_probability=finish_probability(model, start),
        median=median,
        mode=mode,
        percentiles=levels,
        pmf=pmf,
        cdf=cdf,
        expected_visits=visits,
        jump_uses=uses,
        jump_probability=probs,
        visit_probability=chance,
        tail=tail,
        note=note,
    )


def _chain_dict(chain: Chain) -> dict[str, Any]:
    """A chain's identity in :meth:`Analysis.to_dict` (its matrix is not repeated)."""
    labels = [x if isinstance(x, (int, float, str)) else str(x) for x in chain.labels]
    return {"chain": {"n_states": chain.n_states, "absorbing": chain.absorbing.tolist(),
                      "transitions": int(chain.P.nnz), "labels": labels,
                      "start": chain.start}}


def _chain_chance(chain: Chain, chance: np.ndarray, visits: np.ndarray, start: int
                  ) -> np.ndarray:
    """A chain's chance of ever resting on each state (``chance`` from the compiled table,
    in state order): with several absorbing states merged into the goal, each one's is the
    chance to end there, ``sum_x visits[x] P[x, j]`` (the walk enters it at most once)."""
    ends = chain.absorbing
    if len(ends) > 1:
        chance = np.array(chance)
        if chain.is_absorbing[start]:
            chance[ends] = (ends == start).astype(np.float64)
        else:
            chance[ends] = np.clip(chain.P.T @ visits, 0.0, 1.0)[ends]
        chance.flags.writeable = False
    return chance


def _visit_chance(cb: Any, visits: np.ndarray, limit: int | None) -> np.ndarray | None:
    """``h_j = v_j / N_jj`` (read-only), ``None`` when more than ``limit`` squares need
    their ``N_jj``: a square no move sequence leads back to is visited at most once
    (``N_jj = 1``); for the others, one solve with a column ``e_j`` each."""
    solver = fundamental(cb)
    act = solver.active & (visits > 0)
    mat = cb.matrix
    _, label = connected_components(mat, directed=True, connection="strong")
    size = np.bincount(label)
    back = (size[label] > 1) | (mat.diagonal() > 0)
    back &= act
    back[cb.size] = False
    cols = np.flatnonzero(back)
    if limit is not None and len(cols) > limit:
        return None
    diag = np.ones(cb.n_states)
    if len(cols):
        e = np.zeros((cb.n_states, len(cols)))
        e[cols, np.arange(len(cols))] = 1.0
        sol = solver.solve(e)
        diag[cols] = np.maximum(sol.x[cols, np.arange(len(cols))], 1.0)
    chance = np.clip(visits / diag, 0.0, 1.0)
    chance[cb.size] = 1.0  # (visits are throws: none from the goal, reached surely here)
    chance.flags.writeable = False
    return chance


def _mode(pmf: np.ndarray, remaining: float) -> int | None:
    """The most likely number of throws, None until known: a later throw finishes with at
    most the ``remaining`` mass, so the mode is known once the largest probability so far
    exceeds it (as analyze_many decides)."""
    return int(np.argmax(pmf)) if pmf.max() > remaining * (1.0 + 1e-9) else None


def _decided_tail(found: list[int | None], mode: int | None, cdf: np.ndarray,
                  pmf: np.ndarray, remaining: float, asked: list[float],
                  tail: float) -> float | None:
    """The smaller tail to push to when the cut at ``tail`` leaves a quantile at ``asked``
    (``found``: None where not reached) or the ``mode`` undecided (None when every one is
    known).

    A level above the cdf is still reached while the mass that can finish covers it; the
    quantile rule's slack (``QUANTILE_SLACK`` of the level) is the precision that settles
    it. The mode is known once the mass left is below the largest probability so far.
    """
    need = tail
    for level, k in zip(quantile_levels(asked).tolist(), found, strict=True):
        if k is None and level <= float(cdf[-1]) + remaining:
            need = min(need, QUANTILE_SLACK * level)
    if mode is None and remaining > 0.0:
        best = float(pmf.max())
        need = min(need, (best if best > 0.0 else remaining) / 2.0)
    return need if need < tail else None
