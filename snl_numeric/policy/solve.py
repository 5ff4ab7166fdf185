"""``optimal_policy``: policy iteration (default) or value iteration."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast, overload

import numpy as np

from .._core.numba_config import njit
from .._core.sizes import policy_warm_sweeps
from .._core.solve import WARN_ERROR
from .._core.validation import choice, positive_int, probability
from .._core.warn import warn_user
from ..board import Board
from ..dice import DiceLike
from .evaluate import face_sums, proper
from .graph import TIE, sure_region, worst_region
from .improve import Improved, Uncertified, improve
from .matrices import check_not_single, is_matrix_actions, matrix_problem
from .problem import Problem, Words, build_problem, check_common, jump_pairs
from .result import ChainPolicyResult, Convergence, PolicyResult

OBJECTIVES = ("min", "max")
METHODS = ("policy", "value")


@overload
def optimal_policy(
    board: Board,
    actions: Sequence[DiceLike | None],
    *,
    objective: str = ...,
    optional_jumps: bool = ...,
    method: str = ...,
    tol: float | None = ...,
    max_iter: int | None = ...,
) -> PolicyResult: ...


@overload
def optimal_policy(
    board: Sequence[Any] | np.ndarray,
    actions: Any = ...,
    *,
    objective: str = ...,
    optional_jumps: bool = ...,
    method: str = ...,
    tol: float | None = ...,
    max_iter: int | None = ...,
    costs: Any = ...,
    absorbing: Any = ...,
    labels: Any = ...,
    start: int | None = ...,
) -> ChainPolicyResult: ...


def optimal_policy(
    board: Board | Sequence[Any] | np.ndarray,
    actions: Sequence[DiceLike | None] | Any = None,
    *,
    objective: str = "min",
    optional_jumps: bool = False,
    method: str = "policy",
    tol: float | None = None,
    max_iter: int | None = None,
    costs: Any = None,
    absorbing: Any = None,
    labels: Any = None,
    start: int | None = None,
) -> PolicyResult | ChainPolicyResult:
    """The best (or worst) choice of die on every square, and of every jump; or of an
    action on every state of a chain given as one transition matrix per action.

    ``optimal_policy(board, actions, ...)`` plays a board (a :class:`PolicyResult`);
    ``optimal_policy([P_0, P_1, ...], costs=None, ...)`` solves the undiscounted
    stochastic shortest-path problem on matrices (a :class:`ChainPolicyResult`): on each
    state the player picks an action ``a``, pays ``costs[a]`` and moves by ``P_a``,
    until an absorbing state; it minimises (maximises) the expected total cost, 1 per
    step by default (the expected steps). The board form is this problem on the board's
    per-die chains, with jumps.

    Parameters
    ----------
    board : Board, or sequence of matrices or Chain
        The board and rules (its own dice are ignored); or one transition matrix per
        action over the same states (SciPy sparse, dense arrays or
        :class:`~snl_numeric.Chain` objects, each validated as a ``Chain``).
    actions : sequence of Dice, mapping, str or None
        The dice the player chooses from before each throw (a string is
        read by :func:`~snl_numeric.dice.parse_dice`). A ``None`` entry is a fair
        d6, not the board's die (which is ignored here).
        With matrices, the second argument is ``costs``.
    objective : {"min", "max"}, default "min"
        Minimise (best play) or maximise (worst play) the expected throws.
    optional_jumps : bool, default False
        Let the player decline any snake or ladder after landing on it.
    method : {"policy", "value"}, default "policy"
        Policy iteration with exact evaluation, or Gauss-Seidel value
        iteration followed by an exact evaluation of its greedy policy. Value
        iteration hands over to policy iteration (from its greedy policy) when its
        changes shrink so slowly that ``tol`` is more than 10,000 sweeps away (a
        long game with a lopsided die): ``convergence.note`` says so.
    tol : float, optional
        Policy iteration: the relative accuracy the decisions are certified to,
        at least the certified error of the expected throws (default 0: that
        error). Value iteration: it stops when no value moves by more than
        ``tol`` times the largest value (default ``1e-12``); its greedy policy is
        then improved and certified as policy iteration's.
    max_iter : int, optional
        Cap on improvement steps (default 1000) or sweeps (default 1_000_000);
        ``RuntimeError`` when reached.
    costs : number, or sequence of numbers or of arrays, optional
        Matrices only: the cost of a step of each action, a number for all (default 1:
        the expected steps) or one entry per action, each a number or an array with one
        cost per state. Costs must be finite and non-negative. A step of cost 0 still
        counts for termination: only plays that reach an absorbing state with
        probability 1 count. Under "min" the answer is the least expected cost over them
        (the proper policies of the stochastic shortest path), so a loop of free steps,
        which never ends, is no way out although it costs nothing: with free steps the
        Bellman equation has several solutions (value iteration from 0 finds the loops'
        0), and this is the one above them (Bertsekas and Yu, 2016). The least is always
        attained, by one action per state that finishes surely from every state where
        some play does (where staying in a free loop ties with leaving it, the policy
        leaves), and ``expected`` are its values. Under "max" a loop a player can keep to
        forever is an error whatever it costs.
    absorbing : sequence of int or boolean mask, optional
        Matrices only: the absorbing states (each one's row ``P[i, i] = 1`` in every
        matrix); by default the states absorbing in every matrix.
    labels : sequence of hashable, optional
        Matrices only: the states' names, for messages and tables.
    start : int, optional
        Matrices only: the state ``mean`` is read at (default 0).

    Returns
    -------
    PolicyResult or ChainPolicyResult

    Warns
    -----
    RuntimeWarning
        When the expected throws are certified only above a relative error of
        ``1e-10``, or when a single switch of die or jump decision could not be
        shown to improve them by less than the certified error (the bound is
        ``convergence.gap``).

    Raises
    ------
    ValueError
        Under ``objective="max"`` when a player can keep the token away from
        the goal forever with positive probability from the start square (the
        worst expected number of throws is infinite); the message names a
        square and the die that does it (a state and an action, with matrices).
        Matrices that are not transition matrices, of different sizes, or
        negative or non-finite costs.
    RuntimeError
        When ``max_iter`` is reached; or when a policy met on the way finishes surely but
        after so many steps (loops of free steps with tiny ways out) that its expected
        costs cannot be certified.

    Examples
    --------
    >>> from snl_numeric import boards
    >>> r = optimal_policy(boards.get("milton-bradley"), ["1-3", "4-6"])
    >>> round(r.mean, 4)
    17.0874
    >>> r.policy[:10].tolist()
    [0, 0, 0, 1, 1, 1, 0, 1, 1, 1]

    On matrices: from state 0 of 0 -> 1 -> 2 (absorbing), walk one step at a time (``A``)
    or jump straight to 2 at a cost of 1.5 (``B``):

    >>> import numpy as np
    >>> A = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 1.0]])
    >>> B = np.array([[0, 0, 1], [0, 0, 1], [0, 0, 1.0]])
    >>> r = optimal_policy([A, B], [1.0, 1.5])
    >>> r.policy.tolist(), r.expected.tolist(), r.mean
    ([1, 0, -1], [1.5, 1.0, 0.0], 1.5)
    """
    if is_matrix_actions(board):
        if optional_jumps is not False:
            raise TypeError("optional_jumps is for a board; a problem given as matrices has "
                            "no jumps")
        if actions is not None and costs is not None:
            raise TypeError("give the costs once: as the second argument or as costs=")
        mp = matrix_problem(board, costs if actions is None else actions,
                            absorbing=absorbing, labels=labels, start=start)
        objective, method, tol, max_iter = _check_options(objective, method, tol, max_iter)
        die, _, res, iterations, note = _play(mp.problem, mp.words, objective, method, tol,
                                              max_iter, "costs")
        return mp.result(objective, die, res.values, Convergence(
            method, int(iterations), res.residual, note, res.error, res.gap))
    check_not_single(board)
    if actions is None:
        raise TypeError("optimal_policy() missing the dice to choose from: actions")
    for name, value in (("costs", costs), ("absorbing", absorbing), ("labels", labels),
                        ("start", start)):
        if value is not None:
            raise TypeError(f"{name}= is for a problem given as matrices, not a board "
                            f"(got {name}={value!r})")
    board, dice = check_common(cast(Board, board), actions, optional_jumps)
    objective, method, tol, max_iter = _check_options(objective, method, tol, max_iter)
    p = build_problem(board, dice, bool(optional_jumps))
    die, take, res, iterations, note = _play(p, (board, dice), objective, method, tol,
                                             max_iter, "throws")
    for arr in (die, take, res.values):
        arr.flags.writeable = False
    return PolicyResult(
        board=board, actions=dice, objective=objective, optional_jumps=bool(optional_jumps),
        policy=die, jumps=jump_pairs(board), take=take, expected=res.values,
        mean=float(res.values[board.start]),
        convergence=Convergence(method, int(iterations), res.residual, note, res.error,
                                res.gap),
    )


def _check_options(objective: str, method: str, tol: float | None, max_iter: int | None
                   ) -> tuple[str, str, float, int]:
    objective = choice(objective, "objective", OBJECTIVES)
    method = choice(method, "method", METHODS)
    if tol is None:
        tol = 0.0 if method == "policy" else 1e-12
    tol = probability(tol, "tol")
    if not 0 <= tol < 1:
        raise ValueError(f"tol must be a number in [0, 1), got {tol!r}")
    if max_iter is None:
        max_iter = 1000 if method == "policy" else 1_000_000
    return objective, method, tol, positive_int(max_iter, "max_iter")


def _play(p: Problem, names: tuple[Board, tuple] | Words, objective: str, method: str,
          tol: float, max_iter: int, what: str
          ) -> tuple[np.ndarray, np.ndarray, Improved, int, str]:
    """The optimal (worst) policy of ``p``: its dice (-1 on the goal), jump decisions,
    values, the iterations and a note (``names``: the board and dice, or how to name a
    problem's states from matrices, for the error of an infinite worst play; ``what``
    the quantity, for the warnings)."""
    sense = 1.0 if objective == "min" else -1.0
    if objective == "min":
        finite, die, take = sure_region(p, policy_warm_sweeps(p.n - 1, p.nxt.shape[2])
                                          if method == "policy" and not p.large else 0)
    elif isinstance(names, Words):
        finite, die, take = worst_region(names, (), p)
    else:
        finite, die, take = worst_region(*names, p)
    active = finite[: p.n].copy()
    active[p.goal] = False
    jactive = finite[p.n:]

    note = ""
    if method == "policy":
        res = improve(p, die, take, active, jactive, sense, tol, max_iter)
        iterations = res.steps
    else:
        values, iterations, slow = _value_iteration(p, active, sense, tol, max_iter)
        if slow:
            note = (f"value iteration contracted slowly (each sweep kept {slow:.6g} of the "
                    f"change): handed over to policy iteration after {iterations} sweeps; ")
        greedy_die, greedy_take = _greedy(p, values, active, jactive, sense, die, take)
        greedy: Improved | None = None
        if proper(p, greedy_die, greedy_take, active):
            try:
                greedy = improve(p, greedy_die, greedy_take, active, jactive, sense, 0.0, 1000)
                die, take = greedy_die, greedy_take
            except Uncertified:  # (values far from converged: a play of astronomic length)
                note += "greedy policy of value iteration could not be evaluated; "
        else:  # a near-tie with an improper choice, or values far from converged
            note += "greedy policy of value iteration was improper; "
        res = greedy or improve(p, die, take, active, jactive, sense, 0.0, 1000)
        if res.steps or note:
            note += f"{res.steps} policy step{'s' * (res.steps != 1)} after value iteration"
    if res.error > WARN_ERROR:
        note = (note + "; " if note else "") + (
            f"expected {what} certified only to a relative error of {res.error:.1g}")
        warn_user(f"optimal_policy: the expected {what} of this policy are certified only to "
                  f"a relative error of {res.error:.1g} (see .convergence)")
    if res.gap > 0:
        by = "an amount not bounded" if np.isinf(res.gap) else f"a relative {res.gap:.1g}"
        note = (note + "; " if note else "") + f"a single switch might still gain {by}"
        warn_user(f"optimal_policy: these decisions are not certified: a single switch of "
                  f"{'die or jump decision' if what == 'throws' else 'action'} might still "
                  f"improve the expected {what} by {by}, beyond their certified error "
                  f"{res.error:.1g} (see .convergence)")
    die[p.goal] = -1
    return die, take, res, iterations, note


def _landing_values(p: Problem, values: np.ndarray, sense: float, jactive: np.ndarray | None,
                    tie: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Values of every node under the best jump decisions (``take`` unless declining is
    better by more than ``tie`` relative), level by level along chains."""
    n = p.n
    w = np.concatenate([values, np.zeros(len(p.src))])
    take = np.ones(len(p.src), dtype=bool)
    for js in p.levels:
        wt, ws = w[p.tgt[js]], values[p.src[js]]
        if p.optional:
            with np.errstate(invalid="ignore"):
                decline = sense * (wt - ws) > tie * (1.0 + np.abs(ws))
            if jactive is not None:
                decline &= jactive[js]
            take[js] = ~decline
        w[n + js] = np.where(take[js], wt, ws)
    return w, take


def _greedy(p: Problem, values: np.ndarray, active: np.ndarray, jactive: np.ndarray,
            sense: float, die: np.ndarray, take: np.ndarray, tie: float = TIE
            ) -> tuple[np.ndarray, np.ndarray]:
    """The greedy policy of approximate values: jumps as :func:`_landing_values`, on each
    active square the smallest die index within ``tie`` (relative) of the best."""
    w, greedy_take = _landing_values(p, values, sense, jactive, tie)
    q = p.costs + face_sums(p, w)
    best = q.min(axis=0) if sense > 0 else q.max(axis=0)
    with np.errstate(invalid="ignore"):
        near = sense * (q - best) <= tie * (1.0 + np.abs(best))
    new_die = die.copy()
    new_die[active] = np.argmax(near, axis=0)[active]
    return new_die, np.where(jactive, greedy_take, take)


#: Value iteration checks its rate of contraction every this many sweeps ...
CHECK_SWEEPS = 64
#: ... and hands over to policy iteration when the changes shrink so slowly that reaching
#: ``tol`` would take more than this many more sweeps (or have not shrunk by then).
SLOW_SWEEPS = 10_000


def _slow(sweeps: int, change: float, before: float, target: float, span: int) -> float:
    """The rate of contraction per sweep when value iteration should hand over (the changes
    went from ``before`` to ``change`` in the last ``span`` sweeps), else 0."""
    if not (change > target and 0.0 < before < math.inf and span > 0):
        return 0.0
    rate = (change / before) ** (1.0 / span)
    if not 0.0 < rate < 1.0:
        return max(rate, 1.0) if sweeps >= SLOW_SWEEPS else 0.0
    return rate if math.log(target / change) / math.log(rate) > SLOW_SWEEPS else 0.0


def _value_iteration(p: Problem, active: np.ndarray, sense: float, tol: float,
                     max_iter: int) -> tuple[np.ndarray, int, float]:
    """Value iteration to a relative change of ``tol``: Jacobi sweeps in NumPy, or
    Gauss-Seidel sweeps from the goal downwards in a kernel on large boards. A throw
    that leaves the token where it is is solved for exactly. Returns the values, the
    sweeps and, when the contraction was too slow (:data:`SLOW_SWEEPS`), its rate per
    sweep (else 0): the caller then improves the greedy policy by policy iteration."""
    values = np.where(active, 0.0, np.inf)
    values[p.goal] = 0.0
    sweeps, change, converged, slow = 0, np.inf, False, 0.0
    before, mark, scale = np.inf, 0, 1.0
    if p.kernels:
        # rounds of at most 2e7 updates each (Ctrl-C is honoured between them), and at
        # most CHECK_SWEEPS sweeps (the rate is checked between them)
        per_round = max(1, min(CHECK_SWEEPS, int(2e7 // max(1, p.nxt.size))))
        while sweeps < max_iter and not converged and not slow:
            done, change, converged = value_iteration_kernel(
                p.nxt, p.probs, p.src, p.tgt, p.optional, values, active, sense, tol,
                min(per_round, max_iter - sweeps))
            sweeps += int(done)
            if sweeps - mark >= CHECK_SWEEPS:
                scale = max(1.0, float(np.max(np.abs(values[active]), initial=0.0)))
                slow = _slow(sweeps, change, before, tol * scale, sweeps - mark)
                before, mark = change, sweeps
    else:
        n, m = p.n, len(p.src)
        stays = (p.nxt == np.arange(n)[:, None]) & p.live
        p_stay = p.weighted(stays)
        moves = np.where(p_stay < 1.0 - 1e-15, 1.0 - p_stay, 0.0)
        land = np.where(stays, n + m, p.nxt)  # a throw that stays adds nothing: node of 0
        w = np.zeros(n + m + 1)  # every node's value, each sweep
        pick, best = (np.minimum, np.min) if sense > 0 else (np.maximum, np.max)
        states = np.flatnonzero(active)
        with np.errstate(divide="ignore", invalid="ignore"):
            while sweeps < max_iter and not converged and not slow:
                w[:n] = values
                for js in p.levels:  # jumps leading to squares first, then chains into them
                    follow = w[p.tgt[js]]
                    w[n + js] = pick(follow, w[p.src[js]]) if p.optional else follow
                q = (p.costs + face_sums(p, w, land)) / moves
                if p.cost is not None:  # (a free step that never moves: 0 / 0)
                    q[moves == 0] = np.inf
                new = np.where(active, best(q, axis=0), values)
                now = new[states]
                change = float(np.max(np.abs(now - values[states]), initial=0.0))
                scale = max(1.0, float(np.max(now, initial=0.0)))  # values are >= 0
                values = new
                sweeps += 1
                converged = change <= tol * scale
                if not converged and sweeps - mark >= CHECK_SWEEPS:
                    slow = _slow(sweeps, change, before, tol * scale, sweeps - mark)
                    before, mark = change, sweeps
    if not converged and not slow:
        raise RuntimeError(f"value iteration did not converge within max_iter={max_iter} "
                           f"sweeps (last change {change:.3g}); raise max_iter or tol")
    return values, sweeps, slow


@njit()
def value_iteration_kernel(nxt, probs, src, tgt, optional, values, active, sense, tol,
                           max_iter):  # pragma: no cover - jitted
    """Gauss-Seidel value iteration from the goal downwards, in place; returns
    ``(sweeps, last max change, converged)``."""
    n_act, n, width = nxt.shape
    change = np.inf
    it = 0
    while it < max_iter:
        it += 1
        change = 0.0
        scale = 1.0
        for x in range(n - 1, -1, -1):
            if not active[x]:
                continue
            best = np.inf * sense
            for a in range(n_act):
                s = 1.0
                stay = 0.0
                for f in range(width):
                    pf = probs[a, f]
                    if pf > 0.0:
                        v = nxt[a, x, f]
                        if v == x:
                            stay += pf
                        else:  # the best value of landing on node v, along its chain
                            nv = np.inf * sense  # of jump decisions
                            while v >= n:
                                j = v - n
                                if optional and sense * (values[src[j]] - nv) < 0:
                                    nv = values[src[j]]
                                v = tgt[j]
                            if sense * (values[v] - nv) < 0:
                                nv = values[v]
                            s += pf * nv
                q = s / (1.0 - stay) if stay < 1.0 - 1e-15 else np.inf
                if sense * (q - best) < 0:
                    best = q
            change = max(change, abs(best - values[x]))
            scale = max(scale, abs(best))
            values[x] = best
        if change <= tol * scale:
            return it, change, True
    return it, change, False
