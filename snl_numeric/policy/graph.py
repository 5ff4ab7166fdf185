"""Where the answer is finite: graph analysis of the decision problem with SciPy.

A *choice* is a die thrown on a square (id ``a * n + x``) or a decision at jump ``j``
(``A n + 2 j`` declines, ``A n + 2 j + 1`` takes); its edges lead to the nodes it
reaches with positive probability.

- Under "min", the squares from which some play finishes with probability 1 form the
  almost-sure attractor of the goal: keep the choices that stay in a set and the nodes
  that can reach the goal through them, until nothing changes.
- Under "max", a player can keep the token from the goal forever with positive
  probability exactly where the token can reach a *trap*, a node with a choice that
  never leads outside the traps. The other nodes are those from which every play
  reaches the goal with positive probability: the goal's attractor for every play,
  found layer by layer from the goal (a choice is hit once one of its edges leads
  into the attractor, a node joins once all its choices are hit).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, dijkstra

from .._core.numba_config import njit
from .._core.text import dice_text, few, label
from ..board import Board
from ..dice import Dice
from .evaluate import face_sums, proper
from .problem import Problem, Words, csr_graph, resolve


@dataclass(frozen=True)
class _Edges:
    owner: np.ndarray   # per choice: the node deciding
    exists: np.ndarray  # per choice: available (declining needs optional jumps)
    choice: np.ndarray  # per edge
    src: np.ndarray     # per edge: the choice's owner
    dst: np.ndarray     # per edge


def _edges(p: Problem) -> _Edges:
    n, m, n_act = p.n, len(p.src), p.n_actions
    jumps = np.arange(m)
    owner = np.concatenate([np.tile(np.arange(n), n_act), np.repeat(n + jumps, 2)])
    exists = owner != p.goal
    exists[n_act * n::2] = p.optional
    cid = np.broadcast_to(np.arange(n_act * n).reshape(n_act, n, 1), p.nxt.shape)
    live = np.broadcast_to(p.live, p.nxt.shape).copy()
    live[:, p.goal, :] = False
    decline, take = n_act * n + 2 * jumps, n_act * n + 2 * jumps + 1
    choice = np.concatenate([cid[live], take, decline[:p.optional * m]])
    dst = np.concatenate([p.nxt[live], p.tgt, p.src[:p.optional * m]])
    return _Edges(owner, exists, choice, owner[choice], dst)


def _moves(p: Problem) -> tuple[np.ndarray, np.ndarray]:
    """``(dst, src)``: every edge of every choice (as :func:`_edges` lists them)."""
    n, m, goal = p.n, len(p.src), p.goal
    dst = p.nxt[:, :goal, :]
    src = np.broadcast_to(np.arange(goal)[:, None], dst.shape)
    if not np.all(p.probs > 0):
        live = np.broadcast_to(p.live, p.nxt.shape)[:, :goal, :]
        dst, src = dst[live], src[live]
    jumps = np.arange(n, n + m)
    if p.optional:
        return (np.concatenate([dst.ravel(), p.tgt, p.src]),
                np.concatenate([src.ravel(), jumps, jumps]))
    return np.concatenate([dst.ravel(), p.tgt]), np.concatenate([src.ravel(), jumps])


def _once(items: np.ndarray, size: int) -> np.ndarray:
    """``items`` without repeats (in ``range(size)``; no sort)."""
    last = np.empty(size, dtype=np.intp)
    last[items] = np.arange(len(items))
    return items[last[items] == np.arange(len(items))]


def _leaving(e: _Edges, outside: np.ndarray) -> np.ndarray:
    """Per choice: whether one of its edges is ``outside`` (per edge)."""
    return np.bincount(e.choice, weights=outside, minlength=len(e.owner)) > 0


def _layers(graph: sp.csr_matrix, root: int) -> np.ndarray:
    """Breadth-first distance from ``root`` (``inf`` where not reached): the depth in the
    search tree, by pointer doubling along the predecessors."""
    order, pred = breadth_first_order(graph, root, return_predecessors=True)
    ptr = np.where(pred >= 0, pred, np.arange(len(pred)))
    depth = (pred >= 0).astype(np.int64)  # the distance up to ``ptr``
    for _ in range(len(pred).bit_length()):  # 2**k steps up after k rounds
        depth += depth[ptr]
        ptr = ptr[ptr]
    dist = np.full(len(pred), np.inf)
    dist[order] = depth[order]
    return dist


def sure_region(p: Problem, sweeps: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nodes from which some play finishes surely, and a play that does (proper there).

    The play moves down a layer of the attractor (breadth-first distance to the goal
    through choices that stay in it) with positive probability, preferring the die with
    the smallest expected layer; a jump is taken unless declining is closer. With
    ``sweeps``, the play is that of :func:`bellman_start` (dice, and the optional jumps of
    the region) when it finishes surely too.
    """
    n_nodes = p.n + len(p.src)
    dist = _layers(csr_graph(*_moves(p), n_nodes), p.goal)  # every node inside, at first
    reached = np.isfinite(dist)
    down_ok = None
    if not reached.all():
        e, inside = _edges(p), np.zeros(0, dtype=np.bool_)
        while not np.array_equal(reached, inside):
            inside = reached
            allowed = e.exists & inside[e.owner] & ~_leaving(e, ~inside[e.dst])
            keep = allowed[e.choice]
            dist = _layers(csr_graph(e.dst[keep], e.src[keep], n_nodes), p.goal)
            reached = np.isfinite(dist)
        down_ok = allowed[: p.n_actions * p.n].reshape(p.n_actions, p.n)
    n = p.n
    take = np.ones(len(p.src), dtype=bool)
    if p.optional:
        dt, ds = dist[p.tgt], dist[p.src]
        take = ~reached[n:] | (np.isfinite(dt) & (dt <= ds))
    everywhere = bool(reached.all())  # (the layers' dice are then needed on no square
    # off the region: only when the warm start fails)
    die = np.zeros(n, dtype=np.intp) if sweeps and everywhere else _layer_dice(p, dist,
                                                                               down_ok)
    if sweeps:
        active = reached[:n].copy()
        active[p.goal] = False
        choose = reached[n:] if p.optional else None
        greedy, greedy_take, descends = bellman_start(p, dist[:n], active, die, take, sweeps,
                                                      choose)
        if descends or proper(p, greedy, greedy_take, active):
            return reached, greedy, greedy_take
        if everywhere:
            die = _layer_dice(p, dist, down_ok)
    return reached, die, take


def _layer_dice(p: Problem, dist: np.ndarray, down_ok: np.ndarray | None) -> np.ndarray:
    """On every square, the die that moves down a layer (``dist``) with positive
    probability with the smallest expected layer (among the choices ``down_ok``)."""
    pos = p.live
    after = np.where(pos, dist[p.nxt], 0.0)
    down = np.any(pos & (after < dist[: p.n, None]), axis=2)
    if down_ok is not None:
        down &= down_ok
    return np.argmin(np.where(down, p.weighted(after), np.inf), axis=0)


#: Dice whose one-step sums are within this (relative) of the best are tied in a greedy play
#: (the warm start's, value iteration's).
TIE = 1e-9


def bellman_start(p: Problem, layers: np.ndarray, active: np.ndarray, die: np.ndarray,
                  take: np.ndarray, sweeps: int, choose: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, bool]:
    """The greedy play after ``sweeps`` Jacobi sweeps of the Bellman equation ("min")
    from the breadth-first layers ``layers`` on the ``active`` squares (0 on the goal,
    ``inf`` off them): its dice (``die`` off the active squares) and jump decisions (those
    of ``take`` but on the jumps ``choose``, where the player may decline: the better of
    resting and following, taking on a tie). Also whether that play surely finishes by
    descent: on every active square the die lands only on nodes of finite value (squares
    of the region, or the goal) and with positive probability on one of a smaller value,
    so a path of decreasing values leads from every square to the goal (else the caller
    searches, :func:`~.evaluate.proper`).

    A start for policy iteration, not an answer: a sweep carries the goal's information
    about one throw down the board, so the sweeps of
    :func:`~snl_numeric._core.sizes.policy_warm_sweeps` leave the greedy play of a random
    board of a few hundred squares optimal or a step away (each step saved is an
    evaluation).
    """
    rows = np.flatnonzero(active)
    n_act, m, n_jumps = p.n_actions, len(rows), len(p.src)
    # the values in the system's order: the active squares, the goal (0), the squares off
    # it (inf), then (with choices) the jump nodes; every die's one-step sums over the
    # active squares gathered through ``sub``
    pos = np.full(p.n, m + 1, dtype=np.int32)
    pos[rows] = np.arange(m, dtype=np.int32)
    pos[p.goal] = m
    chosen = np.zeros(n_jumps, dtype=bool) if choose is None else choose
    free = bool(chosen.any())
    if free:
        pos = np.concatenate([pos, np.arange(m + 2, m + 2 + n_jumps, dtype=np.int32)])
        sub = pos[p.nxt[:, rows]]
        v = np.concatenate([layers[rows], [0.0, np.inf], np.zeros(n_jumps)])
    else:
        sub = pos[resolve(p, take)[p.nxt[:, rows]]]
        v = np.concatenate([layers[rows], [0.0, np.inf]])
    if p.per_row:  # (probabilities per square: one sparse product a sweep, row a * m + i,
        # faces of probability 0 left out)
        pr = p.probs[:, rows]
        live = pr > 0.0
        indptr = np.zeros(n_act * m + 1, dtype=np.int32)
        np.cumsum(np.count_nonzero(live, axis=2).ravel(), out=indptr[1:])
        sums = sp.csr_matrix((pr[live], sub[live], indptr), shape=(n_act * m, len(v)))

        def one_step(v: np.ndarray) -> np.ndarray:
            return (sums @ v).reshape(n_act, m)
    else:  # (a board's dice: the values gathered and summed, no matrix built; faces of
        # probability 0 lead to the goal, 0: faster than the product on these sizes)
        sub = np.ascontiguousarray(sub, dtype=np.intp)  # (a gather by C-ordered indices)

        def one_step(v: np.ndarray) -> np.ndarray:
            return face_sums(p, v, sub)
    cost = p.costs if p.cost is None else p.cost[:, rows]

    def landing() -> None:
        """The jump nodes' values: the better of resting and following where the player
        chooses, else as ``take`` decides (along chains: level by level)."""
        for js in p.levels:
            rest, follow = v[pos[p.src[js]]], v[pos[p.tgt[js]]]
            better = np.minimum(rest, follow)
            v[m + 2 + js] = np.where(chosen[js], better, np.where(take[js], follow, rest))

    here = v[:m]  # (each sweep's least sum written in place)
    for _ in range(sweeps):  # (each from the last sweep's values: Jacobi)
        if free:
            landing()
        q = one_step(v)
        if p.cost is None:
            np.minimum.reduce(q, axis=0, out=here)
            here += 1.0
        else:
            np.minimum.reduce(q + cost, axis=0, out=here)
    new_take = take
    if free:
        landing()
        new_take = np.where(chosen, v[pos[p.tgt]] <= v[pos[p.src]], take)
    best = die.copy()  # the smallest die index within TIE (relative) of the least sum, as
    q = one_step(v) + cost  # the answer's ties go (fewer steps to them)
    least = q.min(axis=0)
    best[rows] = np.argmax(q <= least + TIE * np.abs(least), axis=0)
    after = v[sub[best[rows], np.arange(m)]]
    live = p.face_probs(best[rows], rows) > 0.0
    descends = bool(np.all(np.isfinite(after) | ~live)
                    and np.all(np.any(live & (after < v[:m, None]), axis=1)))
    return best, new_take, descends


def worst_region(board: Board | Words, dice: tuple[Dice, ...], p: Problem
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nodes where every play finishes surely, and elsewhere a play that never does
    with positive probability; ``ValueError`` when the start is not one of them
    (``board``: the board, or how to name the states and actions of a problem from
    matrices).

    Where every play finishes surely, the play given is the die that climbs least on
    average, every jump taken. No search is needed when every die on every square but the
    goal may climb to a square that starts no jump: a set of nodes that some play never
    leaves would hold a highest square, which that play's die leaves (and jump nodes
    alone lead on to squares).
    """
    n, n_act, n_nodes = p.n, p.n_actions, p.n + len(p.src)
    take = np.ones(len(p.src), dtype=bool)
    live = p.live
    die = np.argmin(p.weighted(resolve(p, take)[p.nxt]), axis=0)
    climbs = np.any(live & (p.nxt > np.arange(n)[:, None]) & (p.nxt < n), axis=2)
    if climbs[:, : p.goal].all():
        return np.ones(n_nodes, dtype=bool), die, take
    e = _edges(p)
    trap, hit = _traps(e, n_nodes, p.goal, p.large)
    stays = e.exists & ~hit
    if not trap.any():
        return np.ones(n_nodes, dtype=bool), die, take
    # reaching the traps with positive probability, one layer closer at each step
    level, toward, _ = dijkstra(csr_graph(e.dst, e.src, n_nodes), indices=np.flatnonzero(trap),
                                unweighted=True, min_only=True, return_predecessors=True)
    doomed = np.isfinite(level)
    sq = np.flatnonzero(doomed[:n] & ~trap[:n])
    hits = np.any((p.nxt[:, sq, :] == toward[sq][None, :, None])
                  & (live[:, sq, :] if p.per_row else live), axis=2)
    die[sq] = np.argmax(hits, axis=0)
    die_stays = stays[: n_act * n].reshape(n_act, n)
    die[trap[:n]] = np.argmax(die_stays[:, trap[:n]], axis=0)
    js = np.flatnonzero(doomed[n:])
    take[js] = np.where(trap[n + js], ~stays[n_act * n + 2 * js], p.tgt[js] == toward[n + js])
    if isinstance(board, Words):
        if doomed[board.start]:
            raise ValueError(_chain_witness(board, p, e, trap, die_stays, toward))
    elif doomed[board.start]:
        raise ValueError(
            f"objective='max': the worst expected number of throws from square {board.start} "
            "is infinite: a player can keep the token away from the goal forever with "
            f"positive probability ({_witness(board, dice, p, e, trap, die_stays, toward)})")
    return ~doomed, die, take


def _traps(e: _Edges, n_nodes: int, goal: int, kernels: bool
           ) -> tuple[np.ndarray, np.ndarray]:
    """The nodes with a choice that never leads, even with a small probability, to a
    node without one (the complement of the goal's attractor for every play, found
    layer by layer from the goal), and per choice whether it can lead there.

    Layers are as many as the longest chain of forced moves (about a square per
    layer on a plain board), each a few NumPy calls: large boards use a kernel.
    """
    by_dst = np.argsort(e.dst, kind="stable")
    choice_by_dst = e.choice[by_dst]
    start = np.concatenate([[0], np.cumsum(np.bincount(e.dst, minlength=n_nodes))])
    hit = np.zeros(len(e.owner), dtype=bool)
    left = np.bincount(e.owner[e.exists], minlength=n_nodes)
    forced = np.zeros(n_nodes, dtype=bool)
    forced[goal] = True
    if kernels:
        _traps_kernel(choice_by_dst, start, e.owner, left, goal, hit, forced)
        return ~forced, hit
    front = np.array([goal])
    while len(front):
        lens = start[front + 1] - start[front]
        ends = np.cumsum(lens)
        choices = choice_by_dst[np.repeat(start[front] - ends + lens, lens)
                                + np.arange(ends[-1])]
        choices = _once(choices[~hit[choices]], len(hit))
        hit[choices] = True
        owners = e.owner[choices]
        np.subtract.at(left, owners, 1)
        front = _once(owners[(left[owners] == 0) & ~forced[owners]], n_nodes)
        forced[front] = True
    return ~forced, hit


def _witness(board: Board, dice: tuple[Dice, ...], p: Problem, e: _Edges, trap: np.ndarray,
             stays: np.ndarray, toward: np.ndarray) -> str:
    """Why the worst play never finishes: preferably a square where a die never moves."""
    n = p.n
    reach = np.zeros(len(trap), dtype=bool)
    reach[breadth_first_order(csr_graph(e.src, e.dst, len(trap)), board.start,
                              return_predecessors=False)] = True
    for x in np.flatnonzero(trap[:n] & reach[:n]).tolist():
        for a in np.flatnonzero(stays[:, x]).tolist():
            if set(_targets(p, a, x)) == {x}:
                return (f"the token can reach square {x}, where die {label(a)} "
                        f"({dice_text(dice[a])}) never moves it under overshoot "
                        f"{board.overshoot!r}")
    v = board.start
    while not trap[v]:  # one layer closer to the traps at each step
        v = int(toward[v])
    if v >= n:
        s = int(p.src[v - n])
        return f"after landing on square {s}, the jump {s}->{board.jumps[s]} leads into a loop"
    a = int(np.argmax(stays[:, v]))
    keep_sq = sorted({y if y < n else int(p.src[y - n]) for y in _targets(p, a, v)})
    return (f"on square {v}, die {label(a)} ({dice_text(dice[a])}) only leads to squares "
            f"{few(keep_sq)}, from which this can go on forever")


def _chain_witness(words: Words, p: Problem, e: _Edges, trap: np.ndarray,
                   stays: np.ndarray, toward: np.ndarray) -> str:
    """:func:`_witness` for a problem from matrices: the message of the error (preferably
    a state where an action never leaves it)."""
    n = p.n
    reach = np.zeros(len(trap), dtype=bool)
    reach[breadth_first_order(csr_graph(e.src, e.dst, len(trap)), words.start,
                              return_predecessors=False)] = True
    v, a, keep = -1, -1, []
    for x in np.flatnonzero(trap[:n] & reach[:n]).tolist():
        loops = [b for b in np.flatnonzero(stays[:, x]).tolist()
                 if set(_targets(p, b, x)) == {x}]
        if loops:
            v, a, keep = x, loops[0], [x]
            break
    if v < 0:
        v = words.start
        while not trap[v]:  # one layer closer to the traps at each step
            v = int(toward[v])
        a = int(np.argmax(stays[:, v]))
        keep = sorted(set(_targets(p, a, v)))
    how = (f"in state {words.state(v)}, action {a} never leaves it" if keep == [v] else
           f"in state {words.state(v)}, action {a} only leads to states "
           f"{', '.join(words.state(y) for y in keep[:8])}"
           f"{f', ... ({len(keep)} states)' if len(keep) > 8 else ''}, from which this can "
           "go on forever")
    return (f"objective='max': the largest expected cost from state {words.state(words.start)} "
            "is infinite: a player can keep the chain away from its absorbing states forever "
            f"with positive probability ({how})")


def _targets(p: Problem, a: int, x: int) -> list[int]:
    return [int(v) for v, q in zip(p.nxt[a, x], p.face_probs(a, x), strict=True) if q > 0]


@njit()
def _traps_kernel(choice_by_dst, start, owner, left, goal, hit, forced):  # pragma: no cover
    """:func:`_traps` as a queue: ``hit``, ``forced`` and ``left`` updated in place."""
    queue = np.empty(len(forced), dtype=np.int64)
    queue[0] = goal
    head, tail = 0, 1
    while head < tail:
        v = queue[head]
        head += 1
        for k in range(start[v], start[v + 1]):
            c = choice_by_dst[k]
            if not hit[c]:
                hit[c] = True
                u = owner[c]
                left[u] -= 1
                if left[u] == 0 and not forced[u]:
                    forced[u] = True
                    queue[tail] = u
                    tail += 1
