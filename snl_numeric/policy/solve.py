"""``optimal_policy``: policy iteration (default) or value iteration."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

from .._core.solve import WARN_ERROR
from .._core.text import dice_text, few, label
from .._core.warn import warn_user
from ..board import Board
from ..dice import Dice, DiceLike
from .evaluate import evaluate, greedy_kernel, value_iteration_kernel
from .problem import (
    Problem,
    attractor_kernel,
    build_problem,
    check_common,
    jump_pairs,
    reverse,
    trap_kernel,
)
from .result import Convergence, PolicyResult

OBJECTIVES = ("min", "max")
METHODS = ("policy", "value")


def optimal_policy(
    board: Board,
    actions: Sequence[DiceLike | None],
    *,
    objective: str = "min",
    optional_jumps: bool = False,
    method: str = "policy",
    tol: float | None = None,
    max_iter: int | None = None,
) -> PolicyResult:
    """The best (or worst) choice of die on every square, and of every jump.

    Parameters
    ----------
    board : Board
        The board and rules; its own dice are ignored.
    actions : sequence of Dice, mapping, str or None
        The dice the player chooses from before each throw (a string is
        read by :func:`~snl_numeric.dice.parse_dice`, ``None`` is a fair d6).
    objective : {"min", "max"}, default "min"
        Minimise (best play) or maximise (worst play) the expected throws.
    optional_jumps : bool, default False
        Let the player decline any snake or ladder after landing on it.
    method : {"policy", "value"}, default "policy"
        Policy iteration with exact evaluation, or Gauss-Seidel value
        iteration followed by an exact evaluation of its greedy policy.
    tol : float, optional
        Relative threshold: policy iteration switches a choice only when it
        gains more than ``tol * (1 + value)`` (default ``1e-9``); value
        iteration stops when no value moves by more than ``tol`` times the
        largest value (default ``1e-12``).
    max_iter : int, optional
        Cap on improvement steps (default 1000) or sweeps (default 1_000_000);
        ``RuntimeError`` when reached.

    Returns
    -------
    PolicyResult

    Raises
    ------
    ValueError
        Under ``objective="max"`` when a player can keep the token away from
        the goal forever with positive probability from the start square (the
        worst expected number of throws is infinite); the message names a
        square and the die that does it.

    Examples
    --------
    >>> from snl_numeric import boards
    >>> r = optimal_policy(boards.get("milton-bradley"), ["1-3", "4-6"])
    >>> round(r.mean, 4)
    17.0874
    >>> r.policy[:10].tolist()
    [0, 0, 0, 1, 1, 1, 0, 1, 1, 1]
    """
    board, dice = check_common(board, actions, optional_jumps)
    if not isinstance(objective, str) or objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if tol is None:
        tol = 1e-9 if method == "policy" else 1e-12
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not 0 <= tol < 1:
        raise ValueError(f"tol must be a number in [0, 1), got {tol!r}")
    if max_iter is None:
        max_iter = 1000 if method == "policy" else 1_000_000
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral):
        raise TypeError(f"max_iter must be an integer, got {max_iter!r}")
    if max_iter < 1:
        raise ValueError(f"max_iter must be at least 1, got {max_iter}")
    p = build_problem(board, dice, bool(optional_jumps))
    sense = 1.0 if objective == "min" else -1.0
    indptr, choice = reverse(p)
    n, m = p.n, len(p.src)
    die = np.zeros(n, dtype=np.int64)
    take = np.ones(m, dtype=np.bool_)
    if objective == "min":
        dist = np.empty(n + m, dtype=np.int64)
        attractor_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional, p.goal, indptr, choice,
                          dist, die, take)
        finite = dist >= 0
    else:
        finite = _worst_case_region(board, dice, p, indptr, choice, die, take)
    active = finite[:n].copy()
    active[p.goal] = False
    jactive = finite[n:].copy()

    note = ""
    if method == "policy":
        values, error, iterations = _policy_iteration(p, die, take, active, jactive, sense,
                                                      float(tol), int(max_iter))
    else:
        values = np.where(active, 0.0, np.inf)
        values[p.goal] = 0.0
        # rounds of about 2e7 updates each, so Ctrl-C is honoured between them
        per_round = max(1, int(2e7 // max(1, p.nxt.size)))
        sweeps, change, converged = 0, np.inf, False
        while sweeps < max_iter and not converged:
            done, change, converged = value_iteration_kernel(
                p.nxt, p.probs, p.src, p.tgt, p.optional, values, active, sense, float(tol),
                min(per_round, max_iter - sweeps))
            sweeps += int(done)
        if not converged:
            raise RuntimeError(f"value iteration did not converge within max_iter={max_iter} "
                               f"sweeps (last change {change:.3g}); raise max_iter or tol")
        iterations = int(sweeps)
        trial_die, trial_take = die.copy(), take.copy()
        greedy_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional, p.order, values, active,
                       jactive, sense, 1e-9, False, trial_die, trial_take)
        trial, error = evaluate(p, trial_die, trial_take, active)
        if np.all(np.isfinite(trial[active])):
            die, take, values = trial_die, trial_take, trial
        else:  # pragma: no cover - needs a near-tie with an improper choice
            values, error, extra = _policy_iteration(p, die, take, active, jactive, sense, 1e-9,
                                                     1000)
            note = f"greedy policy of value iteration was improper; {extra} policy steps"

    # canonical tie-breaking (smallest die index, take on ties); keep it if proper
    canon_die, canon_take = die.copy(), take.copy()
    changes, _ = greedy_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional, p.order, values,
                                active, jactive, sense, 1e-9, False, canon_die, canon_take)
    if changes:
        canon, canon_error = evaluate(p, canon_die, canon_take, active)
        c, v = canon[active], values[active]
        if np.all(np.isfinite(c)) and np.all(sense * (c - v) <= 1e-7 * (1 + np.abs(v))):
            die, take, values, error = canon_die, canon_take, canon, canon_error
    _, residual = greedy_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional, p.order, values,
                                 active, jactive, sense, 0.0, False, die.copy(), take.copy())
    if error > WARN_ERROR:
        note = (note + "; " if note else "") + (
            f"expected throws certified only to a relative error of {error:.1g}")
        warn_user(f"optimal_policy: the expected throws of this policy are certified only to a "
                  f"relative error of {error:.1g} (see .convergence)")
    die[p.goal] = -1
    for arr in (die, take, values):
        arr.flags.writeable = False
    return PolicyResult(
        board=board, actions=dice, objective=objective, optional_jumps=bool(optional_jumps),
        policy=die, jumps=jump_pairs(board, p),
        take=take, expected=values, mean=float(values[board.start]),
        convergence=Convergence(method, iterations, float(residual), note),
    )


def _policy_iteration(p: Problem, die: np.ndarray, take: np.ndarray, active: np.ndarray,
                      jactive: np.ndarray, sense: float, tol: float, max_iter: int
                      ) -> tuple[np.ndarray, float, int]:
    """Policy iteration in place on ``die``/``take``; returns values, their certified
    relative error and the steps."""
    values, error = evaluate(p, die, take, active)
    steps = 0
    while True:
        changes, _ = greedy_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional, p.order,
                                    values, active, jactive, sense, tol, True, die, take)
        if changes == 0:
            return values, error, steps
        steps += 1
        if steps > max_iter:
            raise RuntimeError(f"policy iteration did not converge within max_iter={max_iter} "
                               "steps; raise max_iter or tol")
        values, error = evaluate(p, die, take, active)


def _worst_case_region(board: Board, dice: tuple[Dice, ...], p: Problem,
                       indptr: np.ndarray, choice: np.ndarray, die: np.ndarray,
                       take: np.ndarray) -> np.ndarray:
    """Nodes where every play finishes surely; ``ValueError`` if the start is not one."""
    n, m, n_act = p.n, len(p.src), p.n_actions
    trap = np.zeros(n + m, dtype=np.bool_)
    bad = np.zeros(n * n_act + 2 * m, dtype=np.int64)
    doomed = np.zeros(n + m, dtype=np.bool_)
    via = np.full(n + m, -1, dtype=np.int64)
    level = np.full(n + m, -1, dtype=np.int64)
    trap_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional, p.goal, indptr, choice,
                 trap, bad, doomed, via, level)
    # a play that never finishes from the doomed nodes: stay in the trap, or head for it
    for v in np.flatnonzero(doomed).tolist():
        if trap[v]:
            owned = (range(v * n_act, (v + 1) * n_act) if v < n
                     else range(n * n_act + 2 * (v - n), n * n_act + 2 * (v - n) + 2))
            c = next(c for c in owned if bad[c] == 0)
        else:
            c = int(via[v])
        if v < n:
            die[v] = c - v * n_act
        else:
            take[v - n] = (c - n * n_act) % 2 == 1
    if doomed[board.start]:
        raise ValueError(
            f"objective='max': the worst expected number of throws from square {board.start} "
            "is infinite: a player can keep the token away from the goal forever with "
            f"positive probability ({_trap_witness(board, dice, p, trap, bad, via, level)})")
    return ~doomed


def _trap_witness(board: Board, dice: tuple[Dice, ...], p: Problem, trap: np.ndarray,
                  bad: np.ndarray, via: np.ndarray, level: np.ndarray) -> str:
    """Why the worst play never finishes: preferably a square where a die never moves."""
    n, n_act = p.n, p.n_actions
    # every node the token can reach from the start, under any play
    rows = [np.repeat(np.arange(n), p.nxt.shape[2])] * n_act
    cols = [p.nxt[a].ravel() for a in range(n_act)]
    keep = [np.tile(p.probs[a] > 0, n) for a in range(n_act)]
    rows = [r[k] for r, k in zip(rows, keep, strict=True)] + [n + np.arange(len(p.src))]
    cols = [c[k] for c, k in zip(cols, keep, strict=True)] + [p.tgt]
    if p.optional:
        rows.append(n + np.arange(len(p.src)))
        cols.append(p.src)
    r, c = np.concatenate(rows), np.concatenate(cols)
    graph = sp.csr_matrix((np.ones(len(r), dtype=np.int8), (r, c)), shape=(n + len(p.src),) * 2)
    reach = np.zeros(graph.shape[0], dtype=bool)
    reach[breadth_first_order(graph, board.start, return_predecessors=False)] = True
    for x in np.flatnonzero(trap[:n] & reach[:n]).tolist():
        for a in range(n_act):
            if bad[x * n_act + a] == 0 and all(y == x for y in _choice_targets(p, x * n_act + a)):
                return (f"the token can reach square {x}, where die {label(a)} "
                        f"({dice_text(dice[a])}) never moves it under overshoot "
                        f"{board.overshoot!r}")
    # follow the witness choices from the start into the trap, one level down each step
    # (a target that is merely doomed may lead back up: the walk could circle)
    v = board.start
    while not trap[v]:
        v = next(y for y in _choice_targets(p, int(via[v])) if 0 <= level[y] < level[v])
    if v >= n:
        s = int(p.src[v - n])
        return f"after landing on square {s}, the jump {s}->{board.jumps[s]} leads into a loop"
    a = next(a for a in range(n_act) if bad[v * n_act + a] == 0)
    targets = _choice_targets(p, v * n_act + a)
    keep_sq = sorted({y if y < n else int(p.src[y - n]) for y in targets})
    return (f"on square {v}, die {label(a)} ({dice_text(dice[a])}) only leads to squares "
            f"{few(keep_sq)}, from which this can go on forever")


def _choice_targets(p: Problem, c: int) -> list[int]:
    n, n_act = p.n, p.n_actions
    if c < n * n_act:
        x, a = divmod(c, n_act)
        return [int(v) for v, q in zip(p.nxt[a, x], p.probs[a], strict=True) if q > 0]
    j, o = divmod(c - n * n_act, 2)
    return [int(p.tgt[j]) if o else int(p.src[j])]
