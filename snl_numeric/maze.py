"""Number mazes: every path, how many, and the shortest one.

A number maze is an ``R x C`` array of non-negative integers. A walker on
cell ``(r, c)`` holding ``n`` moves exactly ``n`` cells up, down, left or
right, to ``(r - n, c)``, ``(r + n, c)``, ``(r, c - n)`` or ``(r, c + n)``,
and only to cells inside the maze. A cell holding 0 is therefore a dead end
(unless it is the goal).

The moves define a directed graph on the ``R * C`` cells with at most four
out-edges per cell. The questions answered here are about *simple* paths in
that graph (no cell visited twice) from a start cell to a goal cell. A path
ends as soon as it reaches the goal: it never continues through it. A path
from a cell to itself is the single-cell path.

Paths are returned as ``(L, 2)`` ``int64`` arrays of ``(row, col)`` pairs,
start first and goal last (``path.tolist()`` gives plain lists). Every
function that returns paths returns them in the same order: depth-first,
trying the directions up, down, left, right -- the order of seed 003's
recursive backtracker.

``corner_paths`` answers seed 003's question: every path from the four
corners -- top-left, top-right, bottom-left, bottom-right, in that order, each
searched afresh -- to the middle cell ``(R // 2, C // 2)``. For odd ``R`` and
``C`` that is the true centre; for an even side it is the lower (or right)
of the two central rows (or columns). A corner shared by two names (in a
maze with a single row or column) is searched once.

The number of simple paths grows combinatorially, so nothing here builds an
unbounded list by accident: :func:`paths` and :func:`corner_paths` refuse to
return more than :data:`MAX_PATHS` paths unless given an explicit ``limit``;
:func:`iter_paths` is lazy; :func:`count_paths` counts without building paths
and stops at an optional ``bound``.

All searches run in one Numba kernel: an iterative depth-first search over a
precomputed ``(R * C, 4)`` successor table with a preallocated stack and a
visited bitmap. It can stop with its stack intact and resume later, so
:func:`iter_paths` yields paths chunk by chunk without searching twice.
:func:`shortest_path` is a breadth-first search
(:func:`scipy.sparse.csgraph.breadth_first_order`): fewest moves.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse
from scipy.sparse import csgraph

from ._core.memory import check_memory
from ._core.numba_config import njit
from ._core.progress import Progress
from ._core.validation import int_pairs, shown

__all__ = ["MAX_PATHS", "PathCount", "corner_paths", "count_paths", "format_path", "iter_paths",
           "middle", "paths", "shortest_path"]

#: Most paths :func:`paths` and :func:`corner_paths` return when ``limit`` is
#: None. Pass an explicit ``limit`` (or use :func:`iter_paths`) for more.
MAX_PATHS = 1_000_000

#: A ``(row, col)`` cell: a tuple, list or length-2 array of integers.
Cell = tuple[int, int] | Sequence[int] | np.ndarray

_NO_BOUND = np.iinfo(np.int64).max
#: DFS steps per kernel call (a few milliseconds): between calls the search can
#: report progress and be interrupted (Ctrl-C), and resumes exactly where it was.
STEPS_PER_CALL = 1 << 22
#: Bytes per cell :func:`shortest_path` allocates at most (its successor table and graph, for
#: four moves from every cell; a maze of dead ends needs about half).
SHORTEST_PATH_BYTES = 264
# Directions in seed 003's order: up, down, left, right.
_DROW = np.array([-1, 1, 0, 0], dtype=np.int64)
_DCOL = np.array([0, 0, -1, 1], dtype=np.int64)


@dataclass(frozen=True)
class PathCount:
    """Result of :func:`count_paths`.

    Attributes
    ----------
    count : int
        Number of simple paths found. When ``exceeded`` is True the search
        stopped early and this is ``bound + 1``, a lower bound.
    exceeded : bool
        True when there are more than ``bound`` paths.
    steps : int
        Depth-first search steps taken: cells entered, the start and every
        arrival at the goal included (one call of seed 003's recursive
        ``solve`` per step).
    """

    count: int
    exceeded: bool
    steps: int


# -- Validation and conversion ---------------------------------------------


def _show(value: object) -> str:
    """``repr`` with NumPy scalars shown as plain Python numbers."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _bad_type(value: object, where: str) -> TypeError:
    return TypeError(
        f"maze cells must be non-negative integers; got {_show(value)} "
        f"({type(value).__name__}) at {where}"
    )


def _is_whole(value: object) -> bool:
    """True for an integer or an integral finite float; False for bools."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, numbers.Integral):
        return True
    return (
        isinstance(value, numbers.Real) and math.isfinite(value) and value == math.floor(value)
    )


def _rows_to_array(rows: list) -> np.ndarray:
    """A list of equal-length rows as a 2-D object array (no type coercion)."""
    if not rows:
        raise ValueError("maze is empty; expected at least one row and one column")
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not isinstance(row, (Sequence, np.ndarray)):
            raise ValueError(f"maze must be 2-D (a list of rows); row {i} is {row!r}, not a row")
        if len(row) != len(rows[0]):
            raise ValueError(
                f"maze rows must all have the same length; row 0 has {len(rows[0])} "
                f"cells but row {i} has {len(row)}"
            )
    arr = np.empty((len(rows), len(rows[0])), dtype=object)
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            arr[i, j] = value
    return arr


def as_maze(maze: ArrayLike) -> np.ndarray:
    """Validate ``maze`` and return it as a C-contiguous 2-D int64 array.

    Values too large to move anywhere are clipped to ``max(R, C)``.
    """
    if isinstance(maze, np.ndarray):
        arr = maze
    elif isinstance(maze, Sequence) and not isinstance(maze, (str, bytes)):
        arr = _rows_to_array(list(maze))
    else:
        raise TypeError(f"maze must be a 2-D array or a list of rows; got {type(maze).__name__}")
    if arr.ndim != 2:
        raise ValueError(f"maze must be 2-D; got {arr.ndim}-D array of shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"maze is empty (shape {arr.shape}); expected at least 1 x 1")
    if arr.dtype == np.bool_:
        raise TypeError("maze cells must be non-negative integers; got a boolean array")
    if arr.dtype.kind not in "iufO":
        raise TypeError(f"maze cells must be non-negative integers; got dtype {arr.dtype}")
    if arr.dtype.kind in "fO":
        for (i, j), value in np.ndenumerate(arr):
            if not _is_whole(value):
                raise _bad_type(value, f"row {i}, column {j}")
    # a mask and the int64 copy: before NumPy allocates them (a broadcast view, a memmap)
    check_memory(17.0 * arr.size, f"a {arr.shape[0]:,} x {arr.shape[1]:,} maze")
    negative = np.argwhere(arr < 0)
    if len(negative):
        i, j = negative[0]
        raise ValueError(f"maze cells must be non-negative; got {_show(arr[i, j])} at row {i}, column {j}")
    big = max(arr.shape)  # a value >= big moves nowhere
    if arr.dtype.kind in "iu":  # (a narrow dtype cannot hold big: nothing in it exceeds big)
        return np.ascontiguousarray(np.minimum(arr, min(big, np.iinfo(arr.dtype).max)), np.int64)
    return np.array([[min(int(v), big) for v in row] for row in arr], dtype=np.int64)


def _as_cell(cell: Cell, shape: tuple[int, int], name: str) -> int:
    """Validate a ``(row, col)`` pair; return its flat index ``row * C + col``."""
    try:
        parts = list(cell)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"{name} must be a (row, col) pair of integers; got {cell!r}") from None
    if len(parts) != 2:
        raise ValueError(f"{name} must be a (row, col) pair; got {cell!r}")
    for part in parts:
        if isinstance(part, (bool, np.bool_)) or not isinstance(part, numbers.Integral):
            raise TypeError(f"{name} must be a (row, col) pair of integers; got {cell!r}")
    r, c = int(parts[0]), int(parts[1])
    rows, cols = shape
    if not (0 <= r < rows and 0 <= c < cols):
        raise ValueError(
            f"{name} ({r}, {c}) is outside the {rows}x{cols} maze "
            f"(rows 0..{rows - 1}, columns 0..{cols - 1})"
        )
    return r * cols + c


def _as_count(value: object, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a non-negative integer or None; got {value!r}")
    if not 0 <= (count := int(value)) < 2**63:
        raise ValueError(f"{name} must be between 0 and 2**63 - 1; got {value}")
    return count


def _successors(m: np.ndarray) -> np.ndarray:
    """``(R * C, 4)`` table: the cell reached by each direction, or -1."""
    rows, cols = m.shape
    r = np.arange(rows)[:, None, None]
    c = np.arange(cols)[None, :, None]
    n = m[:, :, None]
    nr = r + _DROW * n
    nc = c + _DCOL * n
    ok = (n > 0) & (nr >= 0) & (nr < rows) & (nc >= 0) & (nc < cols)
    return np.where(ok, nr * cols + nc, -1).reshape(rows * cols, 4)


def _to_pairs(flat: np.ndarray, cols: int) -> np.ndarray:
    return np.stack(np.divmod(flat, cols), axis=-1).astype(np.int64)


# -- Kernel ----------------------------------------------------------------


@njit()
def _dfs_kernel(succ, goal, stack, nextdir, visited, state, max_count, max_steps, out_cells,
                out_ends):  # pragma: no cover - jitted
    """Resumable iterative DFS over ``succ`` towards ``goal``.

    The search state lives in ``stack`` (cells on the current path),
    ``nextdir`` (next direction to try at each depth), ``visited`` (bitmap)
    and ``state = [depth, count, steps]``; all are updated in place, so a
    second call continues where the first stopped. Paths found are written
    to ``out_cells`` (flat cell indices, concatenated) with their end offsets
    in ``out_ends``; an empty ``out_ends`` means count only. Returns the
    number of paths written. Stops when the search is over (``depth == 0``),
    when ``count`` reaches ``max_count``, when the output buffers are full or
    on backtracking after ``max_steps`` more steps (the caller regains control).
    """
    depth = state[0]
    count = state[1]
    steps = state[2]
    stop = steps + max_steps
    emit = out_ends.shape[0] > 0
    n_out = 0
    used = 0
    while depth > 0 and count < max_count:
        top = depth - 1
        d = nextdir[top]
        cur = stack[top]
        if d == 4:  # all directions tried: backtrack
            visited[cur] = 0
            depth = top
            if steps >= stop:  # tested here only: the hot path stays as fast
                break
            continue
        nxt = succ[cur, d]
        if nxt < 0 or visited[nxt]:
            nextdir[top] = d + 1
            continue
        if nxt == goal:
            if emit:
                if n_out == out_ends.shape[0] or used + depth + 1 > out_cells.shape[0]:
                    break  # buffers full; resume here next call
                for i in range(depth):
                    out_cells[used + i] = stack[i]
                out_cells[used + depth] = goal
                used += depth + 1
                out_ends[n_out] = used
                n_out += 1
            count += 1
            steps += 1
            nextdir[top] = d + 1
            continue
        nextdir[top] = d + 1
        steps += 1
        visited[nxt] = 1
        stack[depth] = nxt
        nextdir[depth] = 0
        depth += 1
    state[0] = depth
    state[1] = count
    state[2] = steps
    return n_out


class _Search:
    """Arrays of one resumable search from ``start`` to ``goal``."""

    def __init__(self, m: np.ndarray, start: int, goal: int) -> None:
        ncells = m.size
        # the successor table and its temporaries, the DFS stack, the output buffer
        check_memory(200 * ncells, f"searching a {m.shape[0]:,} x {m.shape[1]:,} maze")
        self.cols = m.shape[1]
        self.succ = _successors(m)
        self.goal = goal
        self.stack = np.zeros(ncells, dtype=np.int64)
        self.nextdir = np.zeros(ncells, dtype=np.int64)
        self.visited = np.zeros(ncells, dtype=np.uint8)
        self.stack[0] = start
        self.visited[start] = 1
        # [depth, count, steps]; a start on the goal is the one-cell path.
        self.state = np.array([0 if start == goal else 1, 0, 1], dtype=np.int64)
        self.trivial = start == goal

    @property
    def done(self) -> bool:
        return bool(self.state[0] == 0)

    def run(self, max_count: int, out_cells: np.ndarray, out_ends: np.ndarray) -> int:
        """One call of the kernel (at most :data:`STEPS_PER_CALL` steps); paths written."""
        return _dfs_kernel(self.succ, self.goal, self.stack, self.nextdir, self.visited,
                           self.state, max_count, STEPS_PER_CALL, out_cells, out_ends)

    def count(self, max_count: int, bar: Progress) -> None:
        """Count on until the search is over or ``max_count`` paths are found."""
        empty = np.zeros(0, dtype=np.int64)
        while not self.done and self.state[1] < max_count:
            before = int(self.state[1])
            self.run(max_count, empty, empty)
            bar.update(int(self.state[1]) - before)

    def chunks(self, max_count: int) -> Iterator[list[np.ndarray]]:
        """Yield lists of paths, small chunks first, until ``max_count`` paths."""
        if self.trivial:
            if max_count > 0:
                yield [_to_pairs(np.array([self.goal]), self.cols)]
            return
        size = 1
        ncells = self.stack.shape[0]
        while not self.done and self.state[1] < max_count:
            out_ends = np.zeros(size, dtype=np.int64)
            out_cells = np.zeros(max(ncells, 32 * size), dtype=np.int64)
            n = self.run(max_count, out_cells, out_ends)
            if n:
                pairs = _to_pairs(out_cells[: out_ends[n - 1]], self.cols)
                yield np.split(pairs, out_ends[: n - 1])
            size = min(2 * size, 1 << 16)


def _prepare(maze: ArrayLike, start: Cell, goal: Cell) -> tuple[np.ndarray, int, int]:
    m = as_maze(maze)
    return m, _as_cell(start, m.shape, "start"), _as_cell(goal, m.shape, "goal")


def _collect(searches: list[_Search], limit: int | None) -> list[np.ndarray]:
    max_count = MAX_PATHS + 1 if limit is None else limit
    found: list[np.ndarray] = []
    cells = 0  # the paths' memory grows with their number and length: checked as they come
    for search in searches:
        for chunk in search.chunks(max_count - len(found)):
            cells += sum(len(p) for p in chunk)
            check_memory(16 * cells + 100 * len(found),
                         f"keeping {len(found) + len(chunk):,} paths ({cells:,} cells; iterate "
                         "with iter_paths or count with count_paths instead)")
            found.extend(chunk)
        if len(found) >= max_count:
            break
    if limit is None and len(found) > MAX_PATHS:
        raise ValueError(
            f"more than MAX_PATHS = {MAX_PATHS:,} paths; pass an explicit limit=, "
            "iterate with iter_paths() or count with count_paths()"
        )
    return found


# -- Public API ------------------------------------------------------------


def middle(maze: ArrayLike) -> tuple[int, int]:
    """The middle cell ``(R // 2, C // 2)`` of an ``R x C`` maze.

    For an odd side this is the centre; for an even side it is the lower
    (row) or right (column) of the two central lines.

    Parameters
    ----------
    maze : array_like of int, shape (R, C)
        The maze (validated as everywhere in this module).

    Returns
    -------
    tuple of int
        ``(R // 2, C // 2)``.

    Examples
    --------
    >>> middle([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    (1, 1)
    >>> middle([[1, 2, 3, 4], [5, 6, 7, 8]])
    (1, 2)
    """
    rows, cols = as_maze(maze).shape
    return rows // 2, cols // 2


def iter_paths(maze: ArrayLike, start: Cell, goal: Cell) -> Iterator[np.ndarray]:
    """Lazily yield every simple path from ``start`` to ``goal``.

    The search runs in chunks (1 path, then 2, 4, ... up to 65536) and keeps
    its stack between chunks, so taking the first few paths of a maze with
    astronomically many costs little, and nothing is searched twice. (Finding
    the next path can still take long: a huge dead subtree may lie between
    two paths.)

    Parameters
    ----------
    maze : array_like of int, shape (R, C)
        Non-negative integers; a cell holding ``n`` moves exactly ``n`` cells
        up, down, left or right.
    start, goal : (int, int)
        ``(row, col)`` cells inside the maze.

    Yields
    ------
    ndarray of int64, shape (L, 2)
        One path, ``(row, col)`` per cell, start first and goal last. Paths
        come in depth-first order, directions tried up, down, left, right.

    Raises
    ------
    TypeError
        If ``maze`` holds something other than integers, or ``start`` or
        ``goal`` is not a pair of integers.
    ValueError
        If ``maze`` is empty, ragged or negative somewhere, or ``start`` or
        ``goal`` lies outside it.

    See Also
    --------
    paths : the same paths as a list.
    count_paths : how many there are, without building them.

    Examples
    --------
    >>> from itertools import islice
    >>> maze = [[1, 1, 1], [1, 1, 1], [1, 1, 1]]
    >>> first = next(iter_paths(maze, (0, 0), (1, 1)))
    >>> first.tolist()
    [[0, 0], [1, 0], [2, 0], [2, 1], [1, 1]]
    >>> [len(p) for p in islice(iter_paths(maze, (0, 0), (1, 1)), 4)]
    [5, 9, 7, 3]
    """
    m, s, g = _prepare(maze, start, goal)
    return _iter(_Search(m, s, g))


def _iter(search: _Search) -> Iterator[np.ndarray]:
    for chunk in search.chunks(_NO_BOUND):
        yield from chunk


def paths(
    maze: ArrayLike, start: Cell, goal: Cell, *, limit: int | None = None
) -> list[np.ndarray]:
    """Every simple path from ``start`` to ``goal``, or the first ``limit``.

    Parameters
    ----------
    maze : array_like of int, shape (R, C)
        Non-negative integers; a cell holding ``n`` moves exactly ``n`` cells
        up, down, left or right.
    start, goal : (int, int)
        ``(row, col)`` cells inside the maze.
    limit : int or None, optional
        Return at most this many paths (the first ones in search order).
        None (default) means all of them, up to :data:`MAX_PATHS`: with more
        than that a ``ValueError`` is raised rather than exhausting memory.

    Returns
    -------
    list of ndarray of int64, shape (L, 2)
        Each path's cells as ``(row, col)``, start first and goal last, in
        depth-first order (directions up, down, left, right). A path stops at
        the goal. ``start == goal`` gives the one-cell path.

    Raises
    ------
    TypeError
        If ``maze`` holds something other than integers, ``start`` or
        ``goal`` is not a pair of integers, or ``limit`` is not an integer.
    ValueError
        For an empty, ragged or negative maze, a cell outside it, a negative
        ``limit``, or more than :data:`MAX_PATHS` paths with ``limit=None``.

    See Also
    --------
    iter_paths : lazily, without any cap.
    corner_paths : seed 003's question.

    Examples
    --------
    >>> maze = [[1, 1], [1, 0]]
    >>> [p.tolist() for p in paths(maze, (0, 0), (1, 1))]
    [[[0, 0], [1, 0], [1, 1]], [[0, 0], [0, 1], [1, 1]]]
    >>> len(paths(maze, (0, 0), (1, 1), limit=1))
    1
    >>> paths(maze, (1, 1), (0, 0))  # a 0 cell goes nowhere
    []
    """
    m, s, g = _prepare(maze, start, goal)
    return _collect([_Search(m, s, g)], _as_count(limit, "limit"))


def corner_paths(maze: ArrayLike, *, limit: int | None = None) -> list[np.ndarray]:
    """Every simple path from the four corners to the middle (seed 003).

    Corners are searched in the order top-left, top-right, bottom-left,
    bottom-right, each afresh; within a corner, paths come in depth-first
    order trying up, down, left, right. The middle is ``(R // 2, C // 2)``
    (see :func:`middle`). A corner shared by two names (one row or one
    column) is searched once.

    Parameters
    ----------
    maze : array_like of int, shape (R, C)
        Non-negative integers; a cell holding ``n`` moves exactly ``n`` cells
        up, down, left or right.
    limit : int or None, optional
        At most this many paths in total. None (default) means all of them,
        up to :data:`MAX_PATHS` (more raise ``ValueError``).

    Returns
    -------
    list of ndarray of int64, shape (L, 2)
        The paths, ``(row, col)`` per cell, each ending on the middle.

    Raises
    ------
    TypeError, ValueError
        For a bad maze or ``limit``, as in :func:`paths`.

    Examples
    --------
    Seed 003's 9 x 9 maze has five paths:

    >>> maze = [[3, 4, 4, 4, 7, 3, 4, 6, 3],
    ...         [6, 7, 5, 6, 6, 2, 6, 6, 2],
    ...         [3, 3, 4, 3, 2, 5, 4, 7, 2],
    ...         [6, 5, 5, 1, 2, 3, 6, 5, 6],
    ...         [3, 3, 4, 3, 0, 1, 4, 3, 4],
    ...         [3, 5, 4, 3, 2, 1, 3, 3, 5],
    ...         [3, 5, 4, 3, 2, 6, 4, 4, 3],
    ...         [3, 5, 1, 3, 7, 5, 3, 6, 3],
    ...         [6, 2, 4, 3, 4, 5, 4, 5, 1]]
    >>> for p in corner_paths(maze)[-2:]:
    ...     print(format_path(p))
    (0, 0)->(0, 3)->(0, 7)->(0, 1)->(4, 1)->(4, 4)->MIDDLE
    (8, 8)->(7, 8)->(4, 8)->(4, 4)->MIDDLE
    """
    m = as_maze(maze)
    limit = _as_count(limit, "limit")
    rows, cols = m.shape
    goal = (rows // 2) * cols + cols // 2
    corners = dict.fromkeys([0, cols - 1, (rows - 1) * cols, (rows - 1) * cols + cols - 1])
    return _collect([_Search(m, c, goal) for c in corners], limit)


def count_paths(
    maze: ArrayLike, start: Cell, goal: Cell, *, bound: int | None = None,
    progress: bool | str = False,
) -> PathCount:
    """Count the simple paths from ``start`` to ``goal`` without building them.

    Parameters
    ----------
    maze : array_like of int, shape (R, C)
        Non-negative integers; a cell holding ``n`` moves exactly ``n`` cells
        up, down, left or right.
    start, goal : (int, int)
        ``(row, col)`` cells inside the maze.
    bound : int or None, optional
        Stop as soon as more than ``bound`` paths are found and report
        ``exceeded=True`` (``count == bound + 1``). None (default) counts
        them all, which on a large maze can take astronomically long (the
        search runs in short calls: Ctrl-C stops it at once).
    progress : bool or "always", default False
        Show the count on standard error (as ``simulate`` shows its bar).

    Returns
    -------
    PathCount
        ``count``, ``exceeded`` and the number of DFS ``steps`` taken.

    Raises
    ------
    TypeError, ValueError
        For a bad maze, cell or ``bound``, as in :func:`paths`.

    Examples
    --------
    >>> maze = [[1, 1, 1], [1, 1, 1], [1, 1, 1]]
    >>> count_paths(maze, (0, 0), (2, 2))
    PathCount(count=12, exceeded=False, steps=51)
    >>> count_paths(maze, (0, 0), (2, 2), bound=5)
    PathCount(count=6, exceeded=True, steps=26)
    """
    m, s, g = _prepare(maze, start, goal)
    bound = _as_count(bound, "bound")
    if s == g:
        return PathCount(1, bound == 0, 1)
    max_count = _NO_BOUND if bound is None else min(bound, _NO_BOUND - 1) + 1  # (int64)
    search = _Search(m, s, g)
    search.run(0, search.stack[:0], search.stack[:0])  # compile before the bar starts
    with Progress(bound + 1 if bound is not None else 0, "counting paths",
                  enabled=progress) as bar:
        search.count(max_count, bar)
    count, steps = int(search.state[1]), int(search.state[2])
    return PathCount(count, bound is not None and count > bound, steps)


def shortest_path(maze: ArrayLike, start: Cell, goal: Cell) -> np.ndarray | None:
    """One path from ``start`` to ``goal`` with the fewest moves (BFS).

    Parameters
    ----------
    maze : array_like of int, shape (R, C)
        Non-negative integers; a cell holding ``n`` moves exactly ``n`` cells
        up, down, left or right.
    start, goal : (int, int)
        ``(row, col)`` cells inside the maze.

    Returns
    -------
    ndarray of int64, shape (L, 2) or None
        The path's cells as ``(row, col)``, start first and goal last
        (``L - 1`` moves), or None when the goal cannot be reached. When
        several paths tie, which one is returned is deterministic but
        unspecified (it follows SciPy's breadth-first order).

    Raises
    ------
    TypeError, ValueError
        For a bad maze or cell, as in :func:`paths`; ``MemoryLimitError`` (a
        ``ValueError``) for a maze too large for the memory available.

    Examples
    --------
    >>> maze = [[1, 1, 1], [1, 1, 1], [1, 1, 1]]
    >>> shortest_path(maze, (0, 0), (2, 2)).tolist()
    [[0, 0], [0, 1], [0, 2], [1, 2], [2, 2]]
    >>> shortest_path([[1, 1], [1, 0]], (1, 1), (0, 0)) is None
    True
    """
    m, s, g = _prepare(maze, start, goal)
    cols = m.shape[1]
    if s == g:
        return _to_pairs(np.array([s]), cols)
    check_memory(SHORTEST_PATH_BYTES * m.size,
                 f"the shortest path in a {m.shape[0]:,} x {m.shape[1]:,} maze")
    succ = _successors(m)
    src, _ = np.nonzero(succ >= 0)
    dst = succ[succ >= 0]
    graph = sparse.csr_array(
        (np.ones(dst.size, dtype=np.int8), (src, dst)), shape=(m.size, m.size)
    )
    _, pred = csgraph.breadth_first_order(graph, s, directed=True, return_predecessors=True)
    if pred[g] < 0:
        return None
    cells = [g]
    while cells[-1] != s:
        cells.append(int(pred[cells[-1]]))
    return _to_pairs(np.array(cells[::-1]), cols)


def format_path(path: ArrayLike, goal_label: str | None = "MIDDLE") -> str:
    """Format a path in seed 003's style: ``(0, 0)->(0, 3)->...->MIDDLE``.

    Parameters
    ----------
    path : array_like of int, shape (L, 2)
        ``(row, col)`` cells, as returned by :func:`paths`.
    goal_label : str or None, optional
        Appended after the last cell (seed 003 prints ``MIDDLE``); None
        appends nothing.

    Returns
    -------
    str
        The cells joined by ``->``.

    Examples
    --------
    >>> format_path([(8, 8), (7, 8), (4, 8), (4, 4)])
    '(8, 8)->(7, 8)->(4, 8)->(4, 4)->MIDDLE'
    >>> format_path([(0, 0), (0, 1)], goal_label=None)
    '(0, 0)->(0, 1)'
    """
    parts = [f"({r}, {c})" for r, c in int_pairs(path, "path").tolist()]
    if not isinstance(goal_label, (str, type(None))):
        raise TypeError(f"goal_label must be a string or None; got {shown(goal_label)}")
    return "->".join(parts if goal_label is None else [*parts, goal_label])
