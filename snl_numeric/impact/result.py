"""Results of the jump questions: what each jump does, and every jump one could add."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._core.equality import value_eq
from .._core.validation import choice, flag, positive_int, readonly
from ..board import Board

__all__ = ["JumpImpact", "JumpCandidates", "KINDS", "top_candidates"]

#: The ``kind`` options of :func:`jump_candidates`.
KINDS = ("both", "snake", "ladder")


def _change(new: np.ndarray, old: float) -> np.ndarray:
    """``new - old``; NaN where both are infinite (the mean stays infinite)."""
    with np.errstate(invalid="ignore"):
        return readonly(np.asarray(new, dtype=np.float64) - old)


@dataclass(frozen=True, eq=False)
class JumpImpact:
    """What each jump of a board does: the game with that jump alone removed.

    Attributes
    ----------
    board : Board
    start : int
        The start square.
    mean, std : float
        Expected throws and their standard deviation on the board as it is.
    source, destination : ndarray of int64, shape (jumps,)
        The jumps, sorted by square.
    probability : ndarray of float64
        The chance each jump is used at least once in a game (NaN when the start
        does not finish surely).
    mean_without, std_without : ndarray of float64
        Expected throws and standard deviation without the jump (``inf``: the goal
        would no longer be reached with probability 1).
    note : str
        Anything unusual, empty otherwise.
    median : int or None
        The median number of throws (only with ``median=True``).
    median_without : ndarray of float64 or None
        The median without each jump (NaN where the goal is reached with probability
        below 1/2); ``None`` unless asked for.
    players : int or None
        Racers in ``win_probability`` (only with ``players=k``).
    win_probability : float or None
        The first player's chance to win a race of ``players``.
    win_probability_without : ndarray of float64 or None
        The same without each jump.

    The ``*_change`` properties are each ``*_without`` minus the board's own value
    (NaN where both are infinite).
    """

    __eq__ = value_eq  # (value equality: see snl_numeric._core.equality)
    __hash__ = None  # type: ignore[assignment]

    board: Board
    start: int
    mean: float
    std: float
    source: np.ndarray
    destination: np.ndarray
    probability: np.ndarray
    mean_without: np.ndarray
    std_without: np.ndarray
    note: str = ""
    median: int | None = None
    median_without: np.ndarray | None = field(default=None, repr=False)
    players: int | None = None
    win_probability: float | None = None
    win_probability_without: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        for name in ("source", "destination", "probability", "mean_without", "std_without",
                     "median_without", "win_probability_without"):
            arr = getattr(self, name)
            if arr is not None:
                object.__setattr__(self, name, readonly(arr))

    @property
    def kind(self) -> tuple[str, ...]:
        """``"ladder"`` or ``"snake"`` for each jump."""
        return tuple("ladder" if d > s else "snake"
                     for s, d in zip(self.source.tolist(), self.destination.tolist(), strict=True))

    @property
    def mean_change(self) -> np.ndarray:
        """Change of expected throws when each jump alone is removed."""
        return _change(self.mean_without, self.mean)

    @property
    def std_change(self) -> np.ndarray:
        """Change of the standard deviation when each jump alone is removed."""
        return _change(self.std_without, self.std)

    @property
    def median_change(self) -> np.ndarray | None:
        """Change of the median (``None`` unless computed)."""
        if self.median_without is None:
            return None
        return _change(self.median_without, math.nan if self.median is None else self.median)

    @property
    def win_probability_change(self) -> np.ndarray | None:
        """Change of the first player's chance to win (``None`` unless computed)."""
        if self.win_probability_without is None or self.win_probability is None:
            return None
        return _change(self.win_probability_without, float(self.win_probability))

    def ranked(self, by: str = "mean") -> list[tuple[int, int]]:
        """The jumps ``(source, destination)`` sorted by the size of their effect (largest
        first; endless first, undefined last); :meth:`order` gives their positions.

        Parameters
        ----------
        by : {"mean", "std", "median", "win_probability"}
            Which change to sort by.

        Examples
        --------
        >>> from snl_numeric import boards, jump_impact
        >>> jump_impact(boards.get("milton-bradley")).ranked()[:2]
        [(80, 100), (28, 84)]
        """
        order = self.order(by).tolist()
        return list(zip(self.source[order].tolist(), self.destination[order].tolist(),
                        strict=True))

    def order(self, by: str = "mean") -> np.ndarray:
        """Positions of the jumps (indices into ``source``, ``mean_change``, ...) sorted by
        the size of their effect, as :meth:`ranked` lists the jumps.

        Parameters
        ----------
        by : {"mean", "std", "median", "win_probability"}
            Which change to sort by.

        Examples
        --------
        >>> from snl_numeric import boards, jump_impact
        >>> imp = jump_impact(boards.get("milton-bradley"))
        >>> j = imp.order()[0]
        >>> int(imp.source[j]), round(float(imp.mean_change[j]), 2)
        (80, 19.77)
        """
        by = choice(by, "by", ("mean", "std", "median", "win_probability"))
        change = getattr(self, f"{by}_change")
        if change is None:
            raise ValueError(f"no {by} changes: ask jump_impact for them "
                             f"({'median=True' if by == 'median' else 'players=2'})")
        size = np.where(np.isnan(change), -1.0, np.abs(change))
        return np.argsort(-size, kind="stable")

    def to_frame(self) -> Any:
        """One row per jump: ``source``, ``destination`` (named as the attributes), ``kind``,
        ``probability``, ``mean_without``,
        ``mean_change``, ``std_without``, ``std_change`` (and the median and win-chance
        columns when computed).

        Examples
        --------
        >>> from snl_numeric import boards, jump_impact
        >>> df = jump_impact(boards.get("milton-bradley")).to_frame()
        >>> len(df), df.columns.tolist()[:4]
        (19, ['source', 'destination', 'kind', 'probability'])
        """
        from ..display.impact import impact_frame

        return impact_frame(self)

    def to_dict(self) -> dict[str, Any]:
        """A summary of Python numbers and lists (``math.inf`` stays a float)."""
        def floats(arr: np.ndarray | None) -> list[Any] | None:
            return None if arr is None else arr.tolist()

        out: dict[str, Any] = {"start": self.start, "mean": self.mean,
                               "std": self.std, "note": self.note,
                               "jumps": [[int(s), int(d)] for s, d in
                                         zip(self.source, self.destination, strict=True)]}
        for name in ("probability", "mean_without", "mean_change", "std_without",
                     "std_change", "median_without", "win_probability_without"):
            out[name] = floats(getattr(self, name))
        if self.median_without is not None:
            out["median"] = self.median
        if self.players is not None:
            out.update(players=self.players, win_probability=self.win_probability)
        return out

    def __str__(self) -> str:
        from ..display.impact import impact_text

        return impact_text(self)

    def _repr_html_(self) -> str:
        from ..display.impact import impact_html

        return impact_html(self)


def top_candidates(change: np.ndarray, k: int = 10, *, longer: bool = True
                   ) -> list[tuple[int, int, float]]:
    """The ``k`` jumps ``a -> b`` that lengthen the game most (``longer=False``: shorten it
    most) in a :func:`~snl_numeric.jump_candidates` array, as ``(a, b, change)``, ties in
    square order. Only finite changes are ranked: a jump whose change is ``inf`` makes
    the game endless (count those with ``np.isposinf(change)``), so an array with no
    finite change gives ``[]``.

    Examples
    --------
    >>> from snl_numeric import Board, jump_candidates
    >>> top_candidates(jump_candidates(Board(3, dice={1: 0.5, 2: 0.5}), kind="ladder"), 2,
    ...                longer=False)
    [(1, 3, -0.75), (2, 3, -0.75)]
    """
    k = positive_int(k, "k", low=0)
    longer = flag(longer, "longer")
    change = np.asarray(change)
    if change.ndim != 2 or change.shape[0] != change.shape[1] or change.dtype.kind != "f":
        raise TypeError(f"change must be a square float array (as jump_candidates returns), "
                        f"got {change.dtype} of shape {change.shape}")
    a, b = np.nonzero(np.isfinite(change))  # not NaN (forbidden) nor inf (endless)
    values = change[a, b]
    order = np.argsort(-values if longer else values, kind="stable")[:k]
    return [(int(a[i]), int(b[i]), float(values[i])) for i in order]


@dataclass(frozen=True, eq=False)
class JumpCandidates:
    """The change of expected throws for every single jump one could add, with its board
    (:func:`~snl_numeric.impact.candidates`; :func:`~snl_numeric.jump_candidates` returns
    the array alone).

    Attributes
    ----------
    board : Board
    start : int
        The start square.
    kind : {"both", "snake", "ladder"}
        Which jumps were considered.
    mean : float
        Expected throws on the board as it is.
    change : ndarray of float64, shape (size + 1, size + 1)
        ``change[a, b]``: expected throws with a new jump ``a -> b`` minus ``mean``;
        ``inf`` where the goal would no longer be reached with probability 1, NaN
        where the rules (or ``kind``) forbid the jump. Read-only;
        ``np.asarray(result)`` returns it.
    """

    __eq__ = value_eq  # (value equality: see snl_numeric._core.equality)
    __hash__ = None  # type: ignore[assignment]

    board: Board
    start: int
    kind: str
    mean: float
    change: np.ndarray = field(repr=False)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.change if dtype is None else self.change.astype(dtype)

    def top(self, k: int = 10, *, longer: bool = True) -> list[tuple[int, int, float]]:
        """The ``k`` jumps that lengthen the game most (``longer=False``: shorten it most),
        as ``(a, b, change)``, ties in square order; jumps that make the game endless
        (``inf``) are not ranked (see :func:`~snl_numeric.top_candidates`).

        Examples
        --------
        >>> from snl_numeric import Board
        >>> from snl_numeric.impact import candidates
        >>> candidates(Board(3, dice={1: 0.5, 2: 0.5}), kind="ladder").top(2, longer=False)
        [(1, 3, -0.75), (2, 3, -0.75)]
        """
        return top_candidates(self.change, k, longer=longer)

    def to_frame(self) -> Any:
        """One row per allowed jump: ``source``, ``destination``, ``kind``, ``change``, ``mean`` (the
        expected throws with it).

        Examples
        --------
        >>> from snl_numeric import Board
        >>> from snl_numeric.impact import candidates
        >>> candidates(Board(3), kind="snake").to_frame().shape
        (3, 5)
        """
        from ..display.impact import candidates_frame

        return candidates_frame(self)

    def __str__(self) -> str:
        from ..display.impact import candidates_text

        return candidates_text(self)

    def _repr_html_(self) -> str:
        from ..display.impact import candidates_html

        return candidates_html(self)
