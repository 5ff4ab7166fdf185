"""Removing each jump, adding any jump: low-rank updates of one factorisation.

With ``N = (I - Q)^-1`` over the sure squares ``S`` (:func:`~snl_numeric.chain.fundamental`),
``t = N 1`` and ``u = N t`` (so ``var = 2 u - t - t**2``), a change of the chain of the
form ``Q' = Q + c (e_p - e_q)^T`` (the throws counted by ``c`` now rest on ``p`` instead
of ``q``) has, by Sherman-Morrison with ``z = N c`` and ``d = 1 - z_p + z_q``,

    N' = N + z (e_p - e_q)^T N / d,        t' = t + a z,   a = (t_p - t_q) / d,
    u' = N' t' = u + a N z + z (u_p - u_q + a ((N z)_p - (N z)_q)) / d.

**Removing jump j** (from ``s``; it and, with ``chain=True``, every chain through it
ended on ``r = cb.rests[j]``): the throws that fired ``j`` (``c = A[:, j]``, the fire
matrix) rest on ``p = s`` instead of ``q = r``. ``Z = N A`` and ``N Z`` for all jumps
are two multi-column solves; ``z_start / (1 + z_r)`` is the chance ``j`` is used.

**Adding a -> b**: the throws that come to rest on ``a`` by a move (landing there; with
``chain=True`` also ending a chain there; not a throw that stays put under ``"exact"``)
go on to ``p = b'`` (``b``'s resting square under ``chain=True``, else ``b``) instead of
``q = a``: ``Z = N C`` for every source ``a`` in one solve, then each ``b`` costs O(1).

**When the goal stops being sure.** A change never makes a sure square unsure unless
the start can reach the changed throws, and then exactly when ``p`` is not sure or
every way from ``p`` to the goal passes through such a throw (``d = 0``: the token
would come back to ``p`` forever). Both are read off a graph of the moves with one node
per event ("jump j fires", "a throw comes to rest on a"): a forward search from the
start, and the dominator tree of the reversed graph rooted at the goal
(:mod:`snl_numeric._core.dominators`). Such a change is infinite, and said so; every
other one keeps ``S`` closed, so the update above is exact. Off ``S`` (the start does
not finish surely) removals are re-solved board by board, and additions refused.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

from .._core.dominators import dominator_ranges
from .._core.memory import check_memory
from .._core.progress import Progress, check_progress
from .._core.sizes import sweep_targets
from .._core.solve import WARN_ERROR
from .._core.solve.sweeps import Swept, sweep_solve
from .._core.table import quantiles
from .._core.validation import choice, flag, positive_int
from .._core.warn import warn_user
from ..board import Board, check_board, check_start
from ..chain import (
    expected_throws,
    fundamental,
    mean_all,
    moments,
    throws_variance,
)
from ..compile import CompiledBoard
from ..distribution import length_distribution
from ..markov import Chain
from ..players import check_race_memory, win_probabilities
from .certify import (
    CERTIFIED,
    MAX_RESOLVES,
    CandidateTerms,
    Removal,
    removal_certified,
)
from .result import KINDS, JumpCandidates, JumpImpact

__all__ = ["jump_impact", "jump_candidates"]


# -- the move graph with event nodes --------------------------------------------------
def _stays(board: Board, cb: CompiledBoard) -> np.ndarray:
    """``stay[x, f]``: the throw overshoots under ``"exact"`` and the token stays put (no
    landing)."""
    if board.overshoot != "exact":
        return np.zeros(cb.succ.shape, dtype=bool)
    return np.arange(cb.n_states)[:, None] + cb.faces[None, :] > cb.size


def _rest_weights(board: Board, cb: CompiledBoard) -> tuple[sp.csc_array, np.ndarray]:
    """``(C, moved)``: ``C[x, a]`` the probability (the die's, not normalised) that a throw
    from ``x`` comes to rest on ``a`` by a move that adding a jump at ``a`` would send on;
    ``moved[x, f]``: face ``f`` from ``x`` is such a move."""
    moved = ~_stays(board, cb)
    if not cb.chained:  # one jump per throw: only a direct landing goes on
        moved &= cb.fired < 0
    x, f = np.nonzero(moved)
    weights = sp.csc_array((cb.probs[f], (x, cb.succ[x, f])),
                           shape=(cb.n_states, cb.n_states))
    weights.sum_duplicates()
    return weights, moved


def _rest_reached(cb: CompiledBoard, moved: np.ndarray, start: int) -> np.ndarray:
    """Which squares a throw can come to rest on by such a move in a game from ``start``
    (the event "rest on a" of :func:`_events` reached, by a search over the squares)."""
    n, faces = cb.succ.shape
    # (row x's moves, but none from the goal, the last square: a CSR as it is)
    graph = sp.csr_array((np.ones((n - 1) * faces, dtype=bool), cb.succ[:-1].ravel(),
                          np.minimum(np.arange(n + 1) * faces, (n - 1) * faces)), shape=(n, n))
    seen = breadth_first_order(graph, start, directed=True, return_predecessors=False)
    seen = seen[seen != cb.size]
    out = np.zeros(n, dtype=bool)
    out[cb.succ[seen][moved[seen]]] = True
    return out


def _passes(board: Board, cb: CompiledBoard, a: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Whether every way from square ``r`` to the goal comes to rest on ``a`` by a move
    (elementwise; the dominator tree of :func:`_events`)."""
    _, tin, tout = _events(board, cb)
    node = cb.n_states + len(cb.jump_src) + a
    return (tin[node] <= tin[r]) & (tin[r] <= tout[node])


def _events(board: Board, cb: CompiledBoard) -> tuple[sp.csr_array, np.ndarray, np.ndarray]:
    """``(graph, tin, tout)``: the moves as a graph over squares ``0 .. size``, then one
    node per jump (``size + 1 + j``: "jump j fires"), then one per square
    (``size + 1 + jumps + a``: "a throw comes to rest on a" by a move); ``tin, tout``:
    preorder ranges of the dominator tree of the reversed graph from the goal (node
    ``v`` lies on every way from square ``x`` to the goal exactly when
    ``tin[v] <= tin[x] <= tout[v]``). Built once per board."""
    return cb.cache.get("impact_events", lambda: _build_events(board, cb))


def _build_events(board: Board, cb: CompiledBoard) -> tuple[sp.csr_array, np.ndarray,
                                                              np.ndarray]:
    n, nj = cb.n_states, len(cb.jump_src)
    fire0, rest0 = n, n + nj
    x, f = np.nonzero(~_stays(board, cb))
    keep = x != cb.size
    x, f = x[keep], f[keep]
    first = cb.fired[x, f]
    heads = np.where(first >= 0, fire0 + first, rest0 + cb.succ[x, f])
    nxt = cb.jump_index[cb.jump_dst]
    if cb.chained:  # a chain goes on to the next jump, or comes to rest (an event)
        after = np.where(nxt >= 0, fire0 + nxt, rest0 + cb.jump_dst)
    else:
        after = cb.jump_dst
    rows = np.concatenate([x, fire0 + np.arange(nj), rest0 + np.arange(n)])
    cols = np.concatenate([heads, after, np.arange(n)])
    total = n + nj + n
    graph = sp.csr_array((np.ones(len(rows), dtype=bool), (rows, cols)),
                         shape=(total, total))
    tin, tout = dominator_ranges(sp.csr_array(graph.T), cb.size)
    return graph, tin, tout


def _reached(graph: sp.csr_array, start: int) -> np.ndarray:
    reach = np.zeros(graph.shape[0], dtype=bool)
    reach[breadth_first_order(graph, start, directed=True, return_predecessors=False)] = True
    return reach


def _warn_error(error: float, what: str) -> None:
    if error > WARN_ERROR:
        warn_user(f"{what} on this board are certified only to a relative error of "
                  f"{error:.1g}")


def _clean(x: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Solutions zero off the system (the goal included)."""
    x = np.array(x, dtype=np.float64)
    x[~active] = 0.0
    return x


# -- removing each jump ----------------------------------------------------------------
#: Right-hand sides are solved in blocks of at most this many bytes (a few such arrays are
#: alive at once), so memory stays bounded however many jumps or squares there are.
BLOCK_BYTES = 1 << 26


def _blocks(n: int, m: int) -> list[np.ndarray]:
    step = max(1, BLOCK_BYTES // (8 * n))
    return [np.arange(i, min(i + step, m)) for i in range(0, m, step)]


def _removals(board: Board, cb: CompiledBoard, start: int, mean: float, var: float
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and variance from ``start`` without each jump, and the chance each is used,
    for a start that finishes surely (see the module docstring)."""
    nj, n = len(cb.jump_src), cb.n_states
    mean_w, var_w, prob = np.full(nj, mean), np.full(nj, var), np.zeros(nj)
    graph, tin, tout = _events(board, cb)
    cols = np.flatnonzero(_reached(graph, start)[n: n + nj])  # jumps the start can fire
    if not len(cols):
        return mean_w, var_w, prob
    solver = fundamental(cb)
    act = solver.active
    check_memory(6 * 8 * n * len(_blocks(n, len(cols))[0]),
                 f"the impact of {len(cols):,} jumps on a board of {n:,} squares")
    t = np.where(act, moments(cb)[0], 0.0)
    sol = solver.solve(t)
    u, error = _clean(sol.x, act), sol.error  # u = N t
    fire = sp.csc_array(cb.fire_matrix)
    s = cb.jump_src[cols]
    r = cb.rests[cols]
    et = solver.throws().error
    redo: list[int] = []
    for part in _blocks(n, len(cols)):
        first = solver.solve(fire[:, cols[part]].toarray() / cb.probs.sum())
        z = _clean(first.x, act)  # z = N c, one column per jump
        second = solver.solve(z)
        y = _clean(second.x, act)  # N z
        error = max(error, first.error, second.error)
        sp_, rp, k = s[part], r[part], np.arange(len(part))
        z0, zs, zr = z[start], z[sp_, k], z[rp, k]
        prob[cols[part]] = np.clip(z0 / (1.0 + zr), 0.0, 1.0)
        node = n + cols[part]  # "jump j fires": on every way from s to the goal?
        blocked = ~act[sp_] | ((tin[node] <= tin[sp_]) & (tin[sp_] <= tout[node]))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            d = 1.0 - zs + zr
            a = (t[sp_] - t[rp]) / d
            dt = a * z0
            inner = u[sp_] - u[rp] + a * (y[sp_, k] - y[rp, k])
            du = a * y[start] + z0 * inner / d
            dvar = 2.0 * du - dt * (1.0 + 2.0 * t[start] + dt)
            mean_w[cols[part]] = np.where(blocked, np.inf, mean + dt)
            var_w[cols[part]] = np.where(blocked, np.inf, np.maximum(var + dvar, 0.0))
            bad = ~blocked & ~removal_certified(
                Removal(z, first.error, y, second.error, u, sol.error, t, et, start, sp_, rp,
                         d, a, dt, inner, du, dvar), mean, var)
        redo.extend(cols[part][bad].tolist())
    if redo:
        _resolve_removals(board, start, np.array(redo), mean_w, var_w)
    _warn_error(error, "jump impacts")
    return mean_w, var_w, prob


def _resolve_removals(board: Board, start: int, cols: np.ndarray, mean_w: np.ndarray,
                      var_w: np.ndarray) -> None:
    """Removals the update could not certify, each solved afresh as a board of its own
    (at most :data:`MAX_RESOLVES`, NaN beyond with a warning)."""
    for j in cols[:MAX_RESOLVES].tolist():
        b = _without(board, j)
        mean_w[j], var_w[j] = expected_throws(b, start), throws_variance(b, start)
    if len(cols) > MAX_RESOLVES:
        mean_w[cols[MAX_RESOLVES:]] = var_w[cols[MAX_RESOLVES:]] = np.nan
        warn_user(f"{len(cols) - MAX_RESOLVES:,} jump removals could not be certified to a "
                  f"relative error of {CERTIFIED:g} (at most {MAX_RESOLVES:,} are solved "
                  "afresh); their mean and standard deviation are NaN")


def _without(board: Board, j: int) -> Board:
    src = int(board.jump_arrays[0][j])
    return board.replace(jumps={s: d for s, d in board.jumps.items() if s != src})


def _median(board: Board, start: int) -> float:
    with _advice("median", "length_distribution"):
        m = quantiles(np.cumsum(length_distribution(board, start)), [0.5])[0]
    return math.nan if m is None else float(m)


@contextmanager
def _advice(what: str, where: str) -> Iterator[None]:
    """A re-solved board's ``ValueError`` without advice about arguments ``jump_impact``
    does not take (``max_throws``, ``tail``): it names the function that takes them."""
    try:
        yield
    except ValueError as exc:
        text = re.sub(r"; raise max_throws or tail$", "", str(exc))
        if text != str(exc):
            text += (f"; jump_impact's {what} uses {where}'s default max_throws and tail: "
                     f"call {where} on the board (or on it without the jump) to choose them")
        raise ValueError(text) from None


def _per_board(board: Board, nj: int, value: Callable[[Board], float], bar: Progress
               ) -> np.ndarray:
    """``value`` of the board without each jump, board by board (one ``bar`` unit each)."""
    out = np.empty(nj)
    for j in range(nj):
        out[j] = value(_without(board, j))
        bar.update(1)
    return out


def jump_impact(board: Board, *, start: int | None = None, median: bool = False,
                players: int | None = None, progress: bool | str = False) -> JumpImpact:
    """What each snake and ladder does: the game without it, jump by jump.

    For every jump: the chance it is used in a game, and the exact expected throws
    and standard deviation of the game when that jump alone is removed, from one
    factorisation of the board plus a rank-one update per jump (two multi-column
    solves in all; see :mod:`snl_numeric.impact.compute`). A removal after which the
    goal is no longer reached with probability 1 gives ``inf``.

    Parameters
    ----------
    board : Board
    start : int, optional
        Start square; the board's own by default.
    median : bool, default False
        Also the median number of throws without each jump (one distribution per
        jump).
    players : int, optional
        Also the first player's chance to win a race of ``players`` (>= 2) without
        each jump (one race per jump), all players starting on ``start``.
    progress : bool or "always", default False
        A progress bar on standard error (a widget in Jupyter) counting the boards solved
        one jump removal at a time (``median``, ``players``, or a start that does not
        finish surely; the long part of such calls): True shows it on a terminal or in a
        notebook only, ``"always"`` in pipes and files too. Ctrl-C
        (``KeyboardInterrupt``) stops the run between boards.

    Returns
    -------
    JumpImpact
        One row per jump, sorted by square; ``to_frame()`` gives the table.

    Notes
    -----
    When the start does not finish surely (infinite mean), each removal is re-solved
    as a board of its own and the chance of use is NaN.

    Each removal's mean and variance are certified to ``1e-10`` relative from the
    update's denominator and the certified errors of the solves it came from; a
    removal that is not (a long game under a lopsided die) is solved afresh as a
    board of its own (at most 2,000 per call; beyond, NaN with a ``RuntimeWarning``).

    Examples
    --------
    >>> from snl_numeric import boards, jump_impact
    >>> imp = jump_impact(boards.get("milton-bradley"))
    >>> imp.ranked()[0]                     # the jump whose removal changes most
    (80, 100)
    >>> j = imp.order()[0]                  # its position in the arrays
    >>> round(float(imp.mean_change[j]), 2)
    19.77
    """
    if isinstance(board, Chain):
        raise TypeError("jump_impact takes a Board, got a Chain: a chain has no jumps to "
                        "remove (its report, report(chain), shows what each state does: "
                        "expected visits and where the walk ends)")
    start = check_start(check_board(board), start)
    median = flag(median, "median")
    progress = check_progress(progress)
    if players is not None:
        players = positive_int(players, "players", low=2)
        check_race_memory(players, 1)  # before the list of starts (was a bare MemoryError)
    cb = board.compiled
    t_all, var_all = moments(cb)
    mean, var = float(t_all[start]), float(var_all[start])
    nj = len(cb.jump_src)
    finite = math.isfinite(mean)
    passes = 2 * (not finite) + median + (players is not None)  # boards solved per jump
    with Progress(passes * nj, "jump_impact", enabled=progress if passes else False) as bar:
        return _impact(board, cb, start, mean, var, median, players, bar)


def _impact(board: Board, cb: CompiledBoard, start: int, mean: float, var: float,
            median: bool, players: int | None, bar: Progress) -> JumpImpact:
    """:func:`jump_impact` once its arguments are checked."""
    nj = len(cb.jump_src)
    note = ""
    if math.isfinite(mean):
        mean_w, var_w, prob = _removals(board, cb, start, mean, var)
    else:
        note = (f"the goal is not reached with probability 1 from square {start}: each "
                "removal was solved as a board of its own; chances of use not given")
        mean_w = _per_board(board, nj, lambda b: expected_throws(b, start), bar)
        var_w = _per_board(board, nj, lambda b: throws_variance(b, start), bar)
        prob = np.full(nj, np.nan)
    extras: dict[str, Any] = {}
    if median:
        base = _median(board, start)
        extras.update(median=None if math.isnan(base) else int(base),
                      median_without=_per_board(board, nj, lambda b: _median(b, start), bar))
    if players is not None:
        def win(b: Board) -> float:
            with _advice("race", "win_probabilities"):
                return float(win_probabilities(b, players, starts=[start] * players)[0])

        extras.update(players=players, win_probability=win(board),
                      win_probability_without=_per_board(board, nj, win, bar))
    return JumpImpact(board=board, start=start, mean=mean, std=math.sqrt(var),
                      source=cb.jump_src.copy(), destination=cb.jump_dst.copy(),
                      probability=prob, mean_without=mean_w, std_without=np.sqrt(var_w),
                      note=note, **extras)


# -- adding any jump -----------------------------------------------------------------
def _allowed(rest: np.ndarray, kind: str, a: np.ndarray) -> np.ndarray:
    """``allowed[i, b]``: a new jump ``a[i] -> b`` of ``kind`` is a jump (``b`` does not rest
    on ``a[i]``), for sources ``a`` that start none."""
    squares = np.arange(len(rest))
    ok = rest[None, :] != a[:, None]
    if kind == "ladder":
        ok &= squares[None, :] > a[:, None]
    elif kind == "snake":
        ok &= squares[None, :] < a[:, None]
    return ok


def _some_allowed(rest: np.ndarray, kind: str) -> np.ndarray:
    """Whether any new jump of ``kind`` may start on each square (ignoring the jumps it
    holds): some ``b`` of the kind's range that does not rest on it."""
    n = len(rest)
    squares = np.arange(n)
    count = {"both": np.full(n, n), "ladder": n - 1 - squares, "snake": squares}[kind]
    lands = rest[squares != rest] if kind == "both" else (
        rest[rest < squares] if kind == "ladder" else rest[rest > squares])
    return count - (kind == "both") > np.bincount(lands, minlength=n)


def _forbid(ct: np.ndarray, rest: np.ndarray, kind: str) -> None:
    """NaN into ``ct[b, a]`` (``change[a, b]``) wherever :func:`_allowed` says no."""
    n = len(rest)
    ct[np.arange(n), rest] = np.nan  # b rests on a (b == a among them)
    if kind == "ladder":  # b <= a
        for b in range(n):
            ct[b, b:] = np.nan
    elif kind == "snake":  # b >= a
        for b in range(n):
            ct[b, : b + 1] = np.nan


def _resting(cb: CompiledBoard) -> np.ndarray:
    """Where a token sent to each square rests (its chain followed under ``chain=True``)."""
    rest = np.arange(cb.n_states)
    if cb.chained:
        rest[cb.jump_src] = cb.rests
    return rest


def jump_candidates(board: Board, *, kind: str = "both", start: int | None = None,
                    progress: bool | str = False) -> np.ndarray:
    """The exact change of expected throws for every single jump one could add.

    ``out[a, b]`` is the expected throws from the start with a new jump ``a -> b`` minus
    those without it (see :func:`~snl_numeric.impact.candidates` for the method, the rules
    and the errors).

    Parameters
    ----------
    board : Board
    kind : {"both", "snake", "ladder"}
        Which jumps to consider: snakes go down (``b < a``), ladders up.
    start : int, optional
        Start square; the board's own by default.
    progress : bool or "always", default False
        A progress bar on standard error (a widget in Jupyter) counting the squares whose
        new jumps are done (a block of them per solve): True shows it on a terminal or in
        a notebook only, ``"always"`` in pipes and files too. Ctrl-C
        (``KeyboardInterrupt``) stops the run between blocks.

    Returns
    -------
    ndarray of float64, shape (size + 1, size + 1)
        Read-only; NaN where the rules (or ``kind``) forbid the jump, ``inf`` where the
        goal would no longer be reached with probability 1.

    Warns
    -----
    RuntimeWarning
        When some entries could not be certified and are NaN (see
        :func:`~snl_numeric.impact.candidates`).

    See Also
    --------
    snl_numeric.impact.candidates : the same with the board, a top list, a table and HTML.
    top_candidates : the jumps that lengthen (or shorten) the game most.
    snl_numeric.plot.plot_candidates : the heat map.

    Examples
    --------
    >>> from snl_numeric import boards, jump_candidates, top_candidates
    >>> change = jump_candidates(boards.get("milton-bradley"), kind="snake")
    >>> change.shape, round(float(change[94, 1]), 2)
    ((101, 101), 15.09)
    >>> [(a, b, round(c, 2)) for a, b, c in top_candidates(change, 1)]  # the longest
    [(94, 1, 15.09)]
    """
    start = check_start(check_board(board), start)
    return _changes(board, choice(kind, "kind", KINDS), start, check_progress(progress))


def _recompute(board: Board, start: int, mean: float, change: np.ndarray,
               pairs: np.ndarray) -> None:
    """Entries the update could not certify, each solved afresh as a board of its own (at
    most :data:`MAX_RESOLVES`; beyond, and where the fresh solve is not certified either,
    NaN with one warning)."""
    lost = max(len(pairs) - MAX_RESOLVES, 0)
    for a, b in pairs[:MAX_RESOLVES].tolist():
        jumps = dict(board.jumps)
        jumps[a] = b
        cb = board.replace(jumps=jumps).compiled
        solver = fundamental(cb)
        sol = solver.throws()
        new = float(sol.x[start])
        if sol.error <= CERTIFIED and math.isfinite(new):
            change[a, b] = new - mean
        else:
            change[a, b] = np.nan
            lost += 1
    change[tuple(pairs[MAX_RESOLVES:].T)] = np.nan
    if lost:
        warn_user(f"{lost:,} jump candidates could not be certified to a relative error of "
                  f"{CERTIFIED:g} (the low-rank update loses accuracy where the new jump "
                  f"lengthens the game enormously, and at most {MAX_RESOLVES:,} entries are "
                  "solved afresh); they are NaN")


def candidates(board: Board, *, kind: str = "both", start: int | None = None,
               progress: bool | str = False) -> JumpCandidates:
    """The exact change of expected throws for every single jump one could add.

    ``change[a, b]`` is the expected throws from the start with a new jump ``a -> b``
    minus those without it, for every square ``a`` without a jump (not the goal) and
    every ``b``: one solve with a right-hand side per square ``a``, then O(1) per
    ``b`` (see :mod:`snl_numeric.impact.compute`). ``inf`` where the new jump means the
    goal is no longer reached with probability 1.

    Parameters
    ----------
    board : Board
    kind : {"both", "snake", "ladder"}
        Which jumps to consider: snakes go down (``b < a``), ladders up.
    start : int, optional
        Start square; the board's own by default.
    progress : bool or "always", default False
        A progress bar on standard error (a widget in Jupyter) counting the squares whose
        new jumps are done (a block of them per solve): True shows it on a terminal or in
        a notebook only, ``"always"`` in pipes and files too. Ctrl-C
        (``KeyboardInterrupt``) stops the run between blocks.

    Returns
    -------
    JumpCandidates
        ``change`` is an ``(size + 1) x (size + 1)`` array, NaN where the rules forbid
        the jump (``a`` is the goal or already starts a jump, ``b == a``, the other
        kind, a cycle of jumps under ``chain=True``); ``np.asarray(result)`` is that
        array, ``top(k)`` the best and worst ones.

    Raises
    ------
    ValueError
        When the start does not finish surely (the change of an infinite mean is not
        defined), or the ``n x n`` arrays would not fit in memory.

    Warns
    -----
    RuntimeWarning
        When entries could not be certified: they are NaN (see Notes).

    Notes
    -----
    Every entry is certified: a bound on its error, from the update's denominator
    ``1 - z_b + z_a`` and the certified errors of the solves it came from, is below
    ``1e-10`` of the larger of the old and new mean (a row at a time on ordinary
    boards, entry by entry where that fails). Where it is not, as when the new jump
    multiplies the game's length by 10^3 or more under a lopsided die, the entry is
    solved afresh as a board of its own; at most 2,000 entries per call are, and any
    beyond (or whose fresh solve is not certified either) are NaN with a
    ``RuntimeWarning``.

    Examples
    --------
    >>> from snl_numeric import boards
    >>> cand = candidates(boards.get("milton-bradley"), kind="snake")
    >>> a, b, change = cand.top(1)[0]       # the snake that lengthens the game most
    >>> a, b, round(change, 2)
    (94, 1, 15.09)
    """
    start = check_start(check_board(board), start)
    kind = choice(kind, "kind", KINDS)
    progress = check_progress(progress)
    change = _changes(board, kind, start, progress)
    return JumpCandidates(board=board, start=start, kind=kind,
                          mean=float(mean_all(board.compiled)[start]), change=change)


def _changes(board: Board, kind: str, start: int, progress: bool | str) -> np.ndarray:
    """:func:`candidates`'s table once its arguments are checked. The expected throws ``t``
    the changes are formed from come from the first block's sweep (one more right-hand side,
    certified as the others; no factorisation of the board unless the sweep cannot be
    used, where ``t`` is the solver's). A column the sweep's bound leaves in doubt is solved
    again, with the solver's ``t`` (its residuals' tighter error: fewer entries afresh)."""
    cb = board.compiled
    n = cb.n_states
    # (the blocks of right-hand sides are n x min(n, BLOCK_BYTES // 8n): a small board was
    # refused 384 MiB for six full blocks)
    check_memory(10 * n * n + 6 * 8 * n * len(_blocks(n, n)[0]),
                 f"the jump candidates of a board of {n:,} squares (arrays of {n:,} x {n:,})")
    act = cb.sure.copy()  # the system: the sure squares but the goal
    act[cb.size] = False
    sure = act.copy()
    sure[cb.size] = True
    if not sure[start]:
        _infinite(start)
    rest = _resting(cb)
    free = (cb.jump_index < 0) & _some_allowed(rest, kind)  # may start a new jump
    free[cb.size] = False
    weights, moved = _rest_weights(board, cb)
    rows = free & _rest_reached(cb, moved, start)  # the others: nobody rests there
    keep = rows[np.repeat(np.arange(n), np.diff(weights.indptr))]
    scale = cb.probs.sum()
    on = np.flatnonzero(act)  # column 0: the die's total on the system (its solve is t)
    weights = sp.csc_array((np.concatenate([np.full(len(on), scale),
                                            np.where(keep, weights.data, 0.0)]),
                            np.concatenate([on, weights.indices]),
                            np.concatenate([[0], weights.indptr + len(on)])),
                           shape=(n, n + 1))  # then column 1 + a: a's (rows only)
    error = 0.0
    terms: CandidateTerms | None = None
    # every square's column, the others' zero: ct[b, a] = change[a, b], each block of
    # sources a written along the rows of z (over z itself when it is one block)
    parts = _blocks(n, n)
    identity = bool((rest == np.arange(n)).all())
    ct = None if len(parts) == 1 and identity else np.empty((n, n))
    fixes: list[tuple[np.ndarray, np.ndarray]] = []
    with Progress(n, "jump_candidates", enabled=progress) as bar:
        for part in parts:
            a = part
            lo, hi = int(a[0]), int(a[-1]) + 1
            head = int(terms is None)  # (1: the first block, with t's column first)
            c = weights if hi - lo == n else weights[:, lo + 1 - head: hi + 1]
            swept = sweep_solve(cb.succ, cb.probs, act, c, max_targets=sweep_targets(n))
            if swept is None:  # too many backward moves: the solver's factorisation
                sol, peak = fundamental(cb).solve(c[:, head:].toarray() / scale), None
                x = z = _clean(sol.x, act)  # (0 off the system; a new array)
                if head:
                    terms = _terms(cb, start, rest, act)
            else:
                sol, x, peak = swept, swept.x, swept.peak
                z = x[:, head:]
                if head:
                    terms = _terms(cb, start, rest, act, swept)
            assert terms is not None  # (set by the first block)
            error = max(error, sol.error)
            if ct is None:  # one block, no chains: over the solve itself, t's column too (as
                # the goal's, a source without candidates: NaN), so each row is contiguous
                ct, zz, out = z, x, x
                src = np.concatenate([np.full(x.shape[1] - len(a), cb.size), a])
            else:
                src, zz, out = a, z, ct[:, lo:hi]
                peak = None if peak is None else peak[x.shape[1] - len(a):]
            doubt, good = terms.block(zz, sol.error, src, out, signed=swept is None, peak=peak,
                                      blank=~free[src])
            real = rows[src[doubt]]  # (the other columns are set below)
            doubt, good = doubt[real] - (len(src) - len(a)), good[real]
            fix = _allowed(rest, kind, a[doubt]) & ~good & sure[rest][None, :]
            if fix.any() and swept is not None:  # the columns in doubt by the sweep's bound:
                again = fundamental(cb).solve(c[:, head + doubt].toarray() / scale)
                error = max(error, again.error)  # (solved again: certified by residuals,
                redone = np.empty((n, len(doubt)))  # with the solver's t, as certified)
                doubt2, good2 = _terms(cb, start, rest, act).block(_clean(again.x, act),
                                                                   again.error, a[doubt], redone)
                ct[:, lo + doubt] = redone
                good = np.ones(fix.shape, dtype=bool)
                good[doubt2] = good2
                fix = _allowed(rest, kind, a[doubt]) & ~good & sure[rest][None, :]
            if fix.any():
                i, b = np.nonzero(fix)
                fixes.append((a[doubt[i]], b))
            bar.update(len(part))
    assert ct is not None  # (parts is never empty)
    _warn_error(error, "jump candidates")
    ct[~sure[rest]] = np.where(free, np.inf, np.nan)  # resting on b would strand the token
    ct[:, ~rows & free] = 0.0  # nobody rests on a: no change (no a -> b: NaN, from block)
    _forbid(ct, rest, kind)
    change = ct.T
    redo: list[np.ndarray] = []
    for a, b in fixes:  # every way from rest[b] to the goal rests on a: endless
        endless = _passes(board, cb, a, rest[b])
        change[a[endless], b[endless]] = np.inf
        redo.append(np.stack([a[~endless], b[~endless]], axis=1))
    if redo:  # (against the solver's mean, as expected_throws gives it)
        _recompute(board, start, float(mean_all(cb)[start]), change, np.concatenate(redo))
    ct.flags.writeable = change.flags.writeable = False
    return change


def _terms(cb: CompiledBoard, start: int, rest: np.ndarray, act: np.ndarray,
           swept: Swept | None = None) -> CandidateTerms:
    """The :class:`CandidateTerms` from the expected throws: the sweep's first column, else
    the solver's (certified by residuals); a ``ValueError`` where the start's are infinite."""
    if swept is None:
        t, et = mean_all(cb), fundamental(cb).throws().error if act.any() else 0.0
    else:
        t, et = np.where(act, swept.x[:, 0], np.inf), swept.error
        t[cb.size] = 0.0
    if not math.isfinite(mean := float(t[start])):
        _infinite(start)
    return CandidateTerms(start, rest, t, et, float(np.max(t, where=act, initial=0.0)), mean)


def _infinite(start: int) -> None:
    raise ValueError(f"the expected throws from square {start} are infinite (the goal is "
                     "not reached with probability 1): the change of adding a jump is "
                     "not defined")
