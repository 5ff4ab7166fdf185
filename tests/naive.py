"""Slow, obvious reference implementations.

Every fast path in :mod:`snl_numeric` is compared with a twin in this file.
Nothing here is optimised; clarity is the point.
"""

from __future__ import annotations

import math
from collections import deque
from fractions import Fraction

import numpy as np
import scipy.linalg

# --- core: moves, BFS, exact and dense solves, step-by-step distribution ---


def naive_move(board, pos, face):
    """Where a token on ``pos`` rests after throwing ``face``, straight from the rules."""
    if pos == board.size:
        return pos
    target = pos + face
    if target > board.size:
        if board.overshoot == "win":
            target = board.size
        elif board.overshoot == "exact":
            return pos
        else:
            target = 2 * board.size - target
    if target in board.jumps:
        target = board.jumps[target]
        while board.chain and target in board.jumps:
            target = board.jumps[target]
    return target


def naive_first_jump(board, pos, face):
    """The square of the first jump a throw of ``face`` from ``pos`` lands on, or None,
    straight from the rules (an overshoot that stays, or a throw from the goal, lands on
    none)."""
    if pos == board.size:
        return None
    target = pos + face
    if target > board.size:
        if board.overshoot == "exact":
            return None
        target = board.size if board.overshoot == "win" else 2 * board.size - target
    return target if target in board.jumps else None


def naive_outcomes(board, pos):
    """List of (face, probability, landing) for one throw from ``pos``."""
    return [(int(f), float(p), naive_move(board, pos, int(f)))
            for f, p in zip(board.dice.faces, board.dice.probs, strict=False)]


def naive_min_throws(board, start=None):
    """Plain queue BFS forwards from the start; -1 when the goal is unreachable."""
    start = board.start if start is None else start
    seen = {start: 0}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        if v == board.size:
            return seen[v]
        for _, _, w in naive_outcomes(board, v):
            if w not in seen:
                seen[w] = seen[v] + 1
                queue.append(w)
    return -1


def naive_reachable(board, start):
    """Squares reachable from ``start`` (depth-first, iterative)."""
    seen = {start}
    stack = [start]
    while stack:
        v = stack.pop()
        for _, _, w in naive_outcomes(board, v):
            if w not in seen:
                seen.add(w)
                stack.append(w)
    return seen


def naive_sure(board):
    """Squares from which the goal is reached with probability 1."""
    can_finish = {x for x in range(board.size + 1) if board.size in naive_reachable(board, x)}
    return {x for x in range(board.size + 1)
            if naive_reachable(board, x) <= can_finish}


def dense_system_solve(board, b):
    """``(I - Q)^-1 b`` over the sure squares (``b`` of shape ``(size + 1, m)``, read there)
    by dense ``numpy.linalg.solve``; 0 off them (the goal included)."""
    n = board.size
    sure = sorted(naive_sure(board) - {n})
    index = {x: i for i, x in enumerate(sure)}
    a = np.eye(len(sure))
    for x in sure:
        for _, p, w in naive_outcomes(board, x):
            if w != n:
                a[index[x], index[w]] -= p
    out = np.zeros((n + 1, b.shape[1]))
    if sure:
        out[sure] = np.linalg.solve(a, b[sure])
    return out


def naive_expected_dense(board):
    """Expected throws and variance from every square by dense ``numpy.linalg.solve``
    (:func:`dense_system_solve`: ``t = N 1``, ``u = N t``); inf off the sure set."""
    n = board.size
    sure = sorted(naive_sure(board) - {n})
    out = np.full(n + 1, np.inf)
    var = np.full(n + 1, np.inf)
    out[n] = var[n] = 0.0
    if sure:
        t = dense_system_solve(board, np.ones((n + 1, 1)))
        u = dense_system_solve(board, t)
        out[sure] = t[sure, 0]
        var[sure] = 2 * u[sure, 0] - t[sure, 0] - t[sure, 0] ** 2
    return out, var


def naive_expected_gth(board):
    """Expected throws from every square by state elimination without subtraction (GTH).

    Squares are removed one at a time, the moves into each rerouted through it. The
    chance of leaving a square is always summed from its moves (to the goal and to the
    squares left), never computed as ``1 - p``, so every operation adds, multiplies or
    divides non-negative numbers and the answer is accurate to a small multiple of ``n``
    roundings however large it is. ``inf`` off the sure set.
    """
    n = board.size
    sure = sorted(naive_sure(board) - {n})
    index = {x: i for i, x in enumerate(sure)}
    m = len(sure)
    q = np.zeros((m, m))  # moves between squares of the system; a square's own row and
    goal = np.zeros(m)  # column meet on the diagonal, which is kept at 0 (staying put)
    cost = np.zeros(m)  # the die's row sum (1 within 1e-12): A t = rowsum, as the solver
    for x in sure:
        for _, p, w in naive_outcomes(board, x):
            cost[index[x]] += p
            if w == n:
                goal[index[x]] += p
            elif w != x:
                q[index[x], index[w]] += p
    leave = np.zeros(m)
    for k in range(m - 1, -1, -1):  # squares k+1.. are gone; remove k
        leave[k] = goal[k] + q[k, :k].sum()
        w = q[:k, k] / leave[k]
        q[:k, :k] += np.outer(w, q[k, :k])
        q[np.arange(k), np.arange(k)] = 0.0  # i -> k -> i: a stay on i
        goal[:k] += w * goal[k]
        cost[:k] += w * cost[k]
    t = np.zeros(m)
    for k in range(m):
        t[k] = (cost[k] + q[k, :k] @ t[:k]) / leave[k]
    out = np.full(n + 1, np.inf)
    out[n] = 0.0
    out[sure] = t
    return out



def gth_costs(moves, ends, cost):
    """``x`` with ``x = cost + moves x`` over a chain's transient states (``moves``: the
    probabilities between them, ``ends``: each one's chance of ending), by
    :func:`naive_expected_gth`'s elimination without subtraction: accurate to a small
    multiple of ``m`` roundings however long the play (free loops that end after 1e13
    steps, where a dense solve and its refinement lose every digit)."""
    q = np.array(moves, dtype=float)
    q[np.arange(len(q)), np.arange(len(q))] = 0.0  # (a stay: only its chance of leaving)
    goal, cost = np.array(ends, dtype=float), np.array(cost, dtype=float)
    m = len(q)
    leave = np.zeros(m)
    for k in range(m - 1, -1, -1):
        leave[k] = goal[k] + q[k, :k].sum()
        w = q[:k, k] / leave[k]
        q[:k, :k] += np.outer(w, q[k, :k])
        q[np.arange(k), np.arange(k)] = 0.0
        goal[:k] += w * goal[k]
        cost[:k] += w * cost[k]
    x = np.zeros(m)
    for k in range(m):
        x[k] = (cost[k] + q[k, :k] @ x[:k]) / leave[k]
    return x

def _fraction(p):
    return Fraction(p).limit_denominator(10**9)


def naive_expected_fraction(board, start=None):
    """Exact expected throws and variance from ``start`` by Fraction Gauss-Jordan elimination.

    Only for small boards whose goal is reached with probability 1 from ``start``.
    """
    return _fraction_moments(board, start, lambda x: [(_fraction(p), w) for _, p, w
                                                      in naive_outcomes(board, x)])


def gauss_jordan(a):
    """Solve the augmented Fraction rows ``a`` (``m x (m + 1)``, changed in place) by
    Gauss-Jordan elimination with pivoting on a non-zero; the solution as a list."""
    m = len(a)
    for c in range(m):
        piv = next(r for r in range(c, m) if a[r][c] != 0)
        a[c], a[piv] = a[piv], a[c]
        inv = 1 / a[c][c]
        a[c] = [v * inv for v in a[c]]
        for r in range(m):
            if r != c and a[r][c] != 0:
                f = a[r][c]
                a[r] = [v - f * w for v, w in zip(a[r], a[c], strict=True)]
    return [a[i][m] for i in range(m)]


def exact_system_solve(succ, probs, active, b):
    """``A^-1 b`` with no rounding at all, for the die's ``A`` over the ``active`` squares
    of the successor table ``succ`` (as the solvers form it: a square's pivot is the chance
    that a throw moves it, each move to another active square subtracted): the float data
    read as the Fractions they are, Gauss-Jordan elimination, a list of rows of Fractions
    (0 off the system). For systems of a few dozen squares."""
    squares = [int(x) for x in np.flatnonzero(active)]
    index = {x: i for i, x in enumerate(squares)}
    p = [Fraction(float(q)) for q in probs]
    rows = [[Fraction(0)] * len(squares) for _ in squares]
    for x in squares:
        for f, y in enumerate(succ[x]):
            if int(y) != x:
                rows[index[x]][index[x]] += p[f]
                if int(y) in index:
                    rows[index[x]][index[int(y)]] -= p[f]
    out = [[Fraction(0)] * b.shape[1] for _ in range(len(succ))]
    for j in range(b.shape[1]):
        col = gauss_jordan([r[:] + [Fraction(float(b[x, j]))] for x, r in zip(squares, rows,
                                                                                 strict=True)])
        for x, v in zip(squares, col, strict=True):
            out[x][j] = v
    return out


def _fraction_moments(board, start, outcomes):
    """Mean and variance from ``start`` by Fraction Gauss-Jordan elimination, the chain's
    moves from square ``x`` given as ``outcomes(x)``: pairs (probability, square)."""
    start = board.start if start is None else start
    n = board.size
    if start == n:
        return Fraction(0), Fraction(0)
    states = sorted(naive_reachable(board, start) - {n})
    index = {x: i for i, x in enumerate(states)}
    m = len(states)
    rows = [[Fraction(int(i == j)) for j in range(m)] for i in range(m)]
    for x in states:
        for p, w in outcomes(x):
            if w != n:
                rows[index[x]][index[w]] -= p

    t = gauss_jordan([r[:] + [Fraction(1)] for r in rows])  # then u = A^-1 t
    u = gauss_jordan([r[:] + [t[i]] for i, r in enumerate(rows)])
    i = index[start]
    return t[i], 2 * u[i] - t[i] - t[i] * t[i]


def naive_distribution(board, start=None, throws=200):
    """``pmf[k] = P(T = k)`` for ``k <= throws`` by moving a dict of masses one throw at a time."""
    start = board.start if start is None else start
    pmf = [0.0] * (throws + 1)
    if start == board.size:
        pmf[0] = 1.0
        return pmf
    mass = {start: 1.0}
    for k in range(1, throws + 1):
        nxt = {}
        for x, m in mass.items():
            for _, p, w in naive_outcomes(board, x):
                nxt[w] = nxt.get(w, 0.0) + m * p
        pmf[k] = nxt.pop(board.size, 0.0)
        mass = nxt
    return pmf


def naive_gauss_seidel(board, eps=1e-9, max_iter=100_000):
    """Seed 004's Gauss-Seidel iteration for expected throws (sweeps from the goal down)."""
    n = board.size
    e = [0.0] * (n + 1)
    outcomes = [naive_outcomes(board, x) for x in range(n + 1)]
    for _ in range(max_iter):
        diff = 0.0
        for x in range(n - 1, -1, -1):
            new = 1.0 + sum(p * e[w] for _, p, w in outcomes[x])
            diff = max(diff, abs(new - e[x]))
            e[x] = new
        if diff < eps:
            break
    return e


def seed_min_dice_throw(move):
    """The C++ seeds' ``minDiceThrow`` written plainly in Python (for reference)."""
    cell = len(move)
    visited = [False] * cell
    visited[0] = True
    queue = deque([(0, 0)])
    while queue:
        v, dist = queue[0]
        if v == cell - 1:
            return dist
        queue.popleft()
        for j in range(v + 1, min(v + 6, cell - 1) + 1):
            if not visited[j]:
                visited[j] = True
                queue.append((move[j] if move[j] != -1 else j, dist + 1))
    return -1


def naive_visits(board, start=None):
    """Expected throws made from each square: row ``start`` of ``inv(I - Q)`` (dense)."""
    start = board.start if start is None else start
    n = board.size
    sure = sorted(naive_sure(board) - {n})
    index = {x: i for i, x in enumerate(sure)}
    q = np.zeros((len(sure), len(sure)))
    for x in sure:
        for _, p, w in naive_outcomes(board, x):
            if w != n:
                q[index[x], index[w]] += p
    out = np.zeros(n + 1)
    if start != n:
        out[sure] = np.linalg.inv(np.eye(len(sure)) - q)[index[start]]
    return out


def naive_jump_use(board, start=None):
    """Expected uses and probability of at least one use of every jump, by dense solves.

    Follows the definitions directly: ``a[x]`` is the chance that one throw from
    ``x`` fires the jump (first or later in a chain); expected uses are
    ``e_start^T N a``; the probability of a first use solves
    ``h = a + Q_without_j h`` where ``Q_without_j`` drops the firing throws.
    """
    start = board.start if start is None else start
    n = board.size
    sure = sorted(naive_sure(board) - {n})
    index = {x: i for i, x in enumerate(sure)}
    m = len(sure)

    def fired(x, face):
        if x == n:
            return []
        t = x + face
        if t > n:
            if board.overshoot == "exact":
                return []
            t = n if board.overshoot == "win" else 2 * n - t
        out = []
        while t in board.jumps:
            out.append(t)
            t = board.jumps[t]
            if not board.chain:
                break
        return out

    q = np.zeros((m, m))
    for x in sure:
        for _, p, w in naive_outcomes(board, x):
            if w != n:
                q[index[x], index[w]] += p
    nmat = np.linalg.inv(np.eye(m) - q)
    uses, prob = {}, {}
    for src, dst in board.jumps.items():
        a = np.zeros(m)
        q_without = q.copy()
        for x in sure:
            for f, p, w in naive_outcomes(board, x):
                if src in fired(x, f):
                    a[index[x]] += p
                    if w != n:
                        q_without[index[x], index[w]] -= p
        h = np.linalg.solve(np.eye(m) - q_without, a)
        uses[(src, dst)] = float((nmat @ a)[index[start]]) if start != n else 0.0
        prob[(src, dst)] = float(h[index[start]]) if start != n else 0.0
    return uses, prob


# --- players ---
def players_joint_solve(boards, starts=None):
    """Win probabilities of ``k`` players by the joint chain over everyone's square.

    Seed 004's pair recursion generalised: a state is (every player's
    square, whose turn); ``W_p(state)`` is the chance that player ``p`` wins.
    Built with Python loops from each board's compiled successor table (so
    every rule variant is covered) and solved with ``scipy.sparse``. States
    from which nobody can ever reach the goal have value 0. ``n^k`` states:
    small boards only (the pair-state solve for ``k = 2``).
    """
    import itertools

    import numpy as np
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    k = len(boards)
    starts = starts or [None] * k
    starts = [b.start if s is None else s for b, s in zip(boards, starts, strict=True)]
    cbs = [b.compiled for b in boards]
    for i, s in enumerate(starts):
        if s == cbs[i].size:  # first player (in turn order) already home wins at once
            out = np.zeros(k)
            out[i] = 1.0
            return out
    can_finish = []
    for cb in cbs:  # plain backward search: squares with some path to the goal
        ok = [False] * cb.n_states
        ok[cb.size] = True
        changed = True
        while changed:
            changed = False
            for x in range(cb.n_states):
                if not ok[x] and any(ok[int(y)] for y in cb.succ[x]):
                    ok[x] = changed = True
        can_finish.append(ok)
    ranges = [range(cb.size) for cb in cbs]  # squares before the goal
    index = {}
    for pos in itertools.product(*ranges):
        if any(can_finish[i][pos[i]] for i in range(k)):
            for turn in range(k):
                index[(pos, turn)] = len(index)
    rows, cols, vals = [], [], []
    rhs = np.zeros((len(index), k))
    for (pos, turn), r in index.items():
        rows.append(r)
        cols.append(r)
        vals.append(1.0)
        cb = cbs[turn]
        for f in range(len(cb.probs)):
            y = int(cb.succ[pos[turn], f])
            p = float(cb.probs[f])
            if y == cb.size:
                rhs[r, turn] += p
                continue
            new = list(pos)
            new[turn] = y
            c = index.get((tuple(new), (turn + 1) % k))
            if c is not None:  # otherwise nobody can win from there: value 0
                rows.append(r)
                cols.append(c)
                vals.append(-p)
    a = sp.csc_matrix((vals, (rows, cols)), shape=(len(index), len(index)))
    start = index.get((tuple(starts), 0))
    if start is None:
        return np.zeros(k)
    sol = spla.spsolve(a, rhs)
    return np.asarray(sol).reshape(len(index), k)[start].copy()


def players_simulate(boards, starts=None, *, games, rng, max_rounds=100_000):
    """Play ``games`` races turn by turn (vectorised over games).

    Returns ``(winner, rounds)``: the winning player per game (-1 if nobody
    won within ``max_rounds``) and the round it ended in.
    """
    import numpy as np

    k = len(boards)
    starts = starts or [None] * k
    starts = [b.start if s is None else s for b, s in zip(boards, starts, strict=True)]
    cbs = [b.compiled for b in boards]
    pos = np.array([[s] * games for s in starts], dtype=np.int64)  # (k, games)
    winner = np.full(games, -1, dtype=np.int64)
    rounds = np.zeros(games, dtype=np.int64)
    for i in range(k):  # already home before anyone throws
        home = (winner < 0) & (pos[i] == cbs[i].size)
        winner[home] = i
    live = np.flatnonzero(winner < 0)
    for n in range(1, max_rounds + 1):
        if len(live) == 0:
            break
        for i, cb in enumerate(cbs):
            faces = rng.choice(len(cb.probs), size=len(live), p=cb.probs)
            pos[i, live] = cb.succ[pos[i, live], faces]
            done = pos[i, live] == cb.size
            winner[live[done]] = i
            rounds[live[done]] = n
            live = live[~done]
    return winner, rounds


# --- fairness ---
def fair_extra_throws_wins(board, extras):
    """Win chances of independent players when player ``i`` first makes ``extras[i]`` throws
    (players in order, before round 1): every sequence of faces of those throws enumerated
    from the rules; a player reaching the goal then wins at once, otherwise the race goes on
    from where everybody stands by the joint chain (:func:`players_joint_solve`)."""
    k = len(extras)
    out = np.zeros(k)
    # (positions, probability) after the pre-round, player by player
    states = [((board.start,) * k, 1.0)]
    for i, e in enumerate(extras):
        for _ in range(e):
            nxt = []
            for pos, p in states:
                if pos[i] == board.size:
                    nxt.append((pos, p))
                    continue
                for _, q, w in naive_outcomes(board, pos[i]):
                    new = list(pos)
                    new[i] = w
                    nxt.append((tuple(new), p * q))
            states = nxt
        done = [(pos, p) for pos, p in states if pos[i] == board.size]
        out[i] += sum(p for _, p in done)
        states = [(pos, p) for pos, p in states if pos[i] != board.size]
    for pos, p in states:
        out += p * players_joint_solve([board] * k, list(pos))
    return out


def fair_brute_force(board, k, handicap="starts", *, dice=None, move_first=True, max_extra=2):
    """Every handicap assignment evaluated one by one (``win_probabilities`` per candidate for
    start squares and dice, :func:`fair_extra_throws_wins` for extra throws): a dict
    assignment -> largest deviation from ``1/k``. Start squares: every square but the goal
    from which the goal can be reached (breadth-first search), player 0 on the board's start
    unless ``move_first``."""
    import itertools

    from snl_numeric import win_probabilities

    if handicap == "starts":
        squares = [x for x in range(board.size) if naive_min_throws(board, x) >= 0]
        first = squares if move_first else [board.start]
        options = [first] + [squares] * (k - 1)
    elif handicap == "dice":
        options = [list(range(len(dice)))] * k
    else:
        options = [list(range(max_extra + 1))] * k
    out = {}
    for assign in itertools.product(*options):
        if handicap == "starts":
            w = win_probabilities(board, k, starts=list(assign))
        elif handicap == "dice":
            w = win_probabilities(board, k, dice=[dice[i] for i in assign])
        else:
            w = fair_extra_throws_wins(board, assign)
        out[assign] = float(np.abs(np.asarray(w) - 1.0 / k).max())
    return out


# --- simulate ---
def simulate_play(board, rnd, start=None, max_throws=10**6):
    """One game played square by square from the rules (no compiled table).

    Returns the number of throws, or ``None`` if the game did not finish
    within ``max_throws`` throws.
    """
    import bisect
    import itertools

    faces = [int(f) for f in board.dice.faces]
    cumulative = list(itertools.accumulate(float(p) for p in board.dice.probs))
    pos = board.start if start is None else start
    throws = 0
    while pos != board.size:
        if throws == max_throws:
            return None
        u = rnd.random() * cumulative[-1]
        face = faces[min(bisect.bisect_right(cumulative, u), len(faces) - 1)]
        throws += 1
        target = pos + face
        if target > board.size:
            if board.overshoot == "win":
                target = board.size
            elif board.overshoot == "exact":
                continue  # the token stays; the throw counts
            else:  # bounce
                target = 2 * board.size - target
        if target in board.jumps:
            target = board.jumps[target]
            while board.chain and target in board.jumps:
                target = board.jumps[target]
        pos = target
    return throws


def simulate_naive(board, games, seed=0, start=None, max_throws=10**6):
    """Throws of ``games`` games (``None`` for unfinished ones), with ``random.Random(seed)``."""
    import random

    rnd = random.Random(seed)
    return [simulate_play(board, rnd, start, max_throws) for _ in range(games)]

# --- k-player races with capture (CAPTURE.md), straight from the rules ---
def capture_rest(board, square):
    """Where a token put on ``square`` by a capture rests: the jump there (along its chain
    when jumps chain)."""
    while square in board.jumps:
        square = board.jumps[square]
        if not board.chain:
            break
    return square


def capture_after(board, positions, mover, old, starts):
    """The squares after ``mover`` moved from ``old`` to ``positions[mover]`` under the
    board's capture rule (``board.capture``, ``board.safe``), and the player a capture sent
    onto the goal (or None): CAPTURE.md's rule, written out. Every opponent on the mover's
    new square is captured when the token moved there and the square is not safe (a safe
    square, the board's start or the goal): to its own start, or back ``board.capture``
    squares and through the jump there. Sent onto the goal (a ladder into it), the first
    such opponent after the mover in turn order wins at once, in the mover's round."""
    pos = list(positions)
    r = pos[mover]
    safe = set(board.safe) | {board.start, board.size}
    if board.capture is None or r == old or r in safe:
        return pos, None
    home = None
    k = len(pos)
    for step in range(1, k):  # the opponents, in turn order after the mover
        j = (mover + step) % k
        if pos[j] != r:
            continue
        pos[j] = (starts[j] if board.capture == "start"
                  else capture_rest(board, max(0, r - board.capture)))
        if pos[j] == board.size and home is None:
            home = j
    return pos, home


def capture_race_play(board, rnd, starts, max_throws=10**6):
    """One race of ``len(starts)`` players under the board's capture rule, throw by throw
    with ``random.Random`` ``rnd``: ``(winner, throws)``, winner -1 when nobody won within
    ``max_throws`` throws."""
    faces = [int(f) for f in board.dice.faces]
    weights = [float(p) for p in board.dice.probs]
    k = len(starts)
    pos = list(starts)
    for i in range(k):
        if pos[i] == board.size:
            return i, 0
    throws, mover = 0, 0
    while throws < max_throws:
        face = rnd.choices(faces, weights)[0]
        old = pos[mover]
        pos[mover] = naive_move(board, old, face)
        throws += 1
        if pos[mover] == board.size:
            return mover, throws
        pos, home = capture_after(board, pos, mover, old, starts)
        if home is not None:
            return home, throws
        mover = (mover + 1) % k
    return -1, throws


# --- number mazes ---
# Seed 003's recursive backtracker, for any R x C maze, start and goal.
# Cells are (row, col) tuples; directions are tried up, down, left, right.

_MAZE_DIRS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def maze_moves(maze, cell):
    """Cells reachable from ``cell`` in one move, in direction order."""
    rows, cols = len(maze), len(maze[0])
    r, c = cell
    n = maze[r][c]
    out = []
    for dr, dc in _MAZE_DIRS:
        x, y = r + dr * n, c + dc * n
        if 0 <= x < rows and 0 <= y < cols and (x, y) != cell:
            out.append((x, y))
    return out


def maze_paths(maze, start, goal):
    """Every simple path from ``start`` to ``goal`` (lists of tuples)."""
    found = []
    path = [tuple(start)]
    visited = {tuple(start)}

    def solve(cur):
        if cur == tuple(goal):
            found.append(list(path))
            return
        for nxt in maze_moves(maze, cur):
            if nxt not in visited:
                visited.add(nxt)
                path.append(nxt)
                solve(nxt)
                path.pop()
                visited.remove(nxt)

    solve(tuple(start))
    return found


def maze_corner_paths(maze):
    """Seed 003: paths from each distinct corner to (R // 2, C // 2)."""
    rows, cols = len(maze), len(maze[0])
    corners = dict.fromkeys([(0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1)])
    out = []
    for corner in corners:
        out.extend(maze_paths(maze, corner, (rows // 2, cols // 2)))
    return out


def maze_shortest_moves(maze, start, goal):
    """Fewest moves from ``start`` to ``goal`` by plain BFS; -1 if none."""
    start, goal = tuple(start), tuple(goal)
    dist = {start: 0}
    queue = [start]
    for cur in queue:
        if cur == goal:
            return dist[cur]
        for nxt in maze_moves(maze, cur):
            if nxt not in dist:
                dist[nxt] = dist[cur] + 1
                queue.append(nxt)
    return -1


def maze_count(maze, start, goal, bound=None):
    """(count, steps) of seed 003's search, stopping once count > bound.

    A step is one call of the recursive ``solve`` (one cell entered).
    """
    start, goal = tuple(start), tuple(goal)
    visited = {start}
    count = steps = 0

    def solve(cur):
        nonlocal count, steps
        steps += 1
        if cur == goal:
            count += 1
            return bound is not None and count > bound
        for nxt in maze_moves(maze, cur):
            if nxt not in visited:
                visited.add(nxt)
                stop = solve(nxt)
                visited.remove(nxt)
                if stop:
                    return True
        return False

    solve(start)
    return count, steps


# --- design ---
def design_layouts(size, snakes, ladders, *, min_length=1, max_length=None, forbidden=(),
                   start=0, overshoot="win", chain=False, dice=None):
    """Every feasible layout (as a Board) in :func:`snl_numeric.design_board`'s sense.

    Sources in ``1 .. size - 1`` except ``start`` and ``forbidden``; ends in
    ``0 .. size`` except ``forbidden``; all endpoints distinct; snakes down,
    ladders up, lengths in ``min_length .. max_length``.
    """
    from itertools import combinations

    from snl_numeric import Board

    max_length = size if max_length is None else max_length
    bad = set(forbidden)
    jumps = {True: [], False: []}
    for s in range(1, size):
        if s == start or s in bad:
            continue
        for d in range(0, size + 1):
            if d in bad or d == s or not min_length <= abs(d - s) <= max_length:
                continue
            jumps[d < s].append((s, d))
    for snake_set in combinations(jumps[True], snakes):
        for ladder_set in combinations(jumps[False], ladders):
            pairs = snake_set + ladder_set
            ends = [x for pair in pairs for x in pair]
            if len(set(ends)) == len(ends):
                yield Board(size, pairs, start=start, overshoot=overshoot, chain=chain,
                            dice=dice)


def naive_expected_start(board):
    """Expected throws from the board's start, straight from the rules, with no library solver.

    Every square's throws come from :func:`naive_outcomes` once; the squares that can still
    finish are searched backwards from the goal, the squares that may be trapped (can reach
    one that cannot finish) backwards from those, and ``t = 1 + Q t`` over the rest is
    one dense LAPACK solve. ``inf`` when the start may never finish.
    """
    n = board.size
    moves = {x: naive_outcomes(board, x) for x in range(n + 1)}

    into = {x: [] for x in range(n + 1)}  # the squares with a throw into each square
    for x in range(n + 1):
        for _, p, w in moves[x]:
            if p > 0:
                into[w].append(x)

    def grow(seed):  # seed and every square with throws leading into it (backward search)
        out, todo = set(seed), list(seed)
        while todo:
            for x in into[todo.pop()]:
                if x not in out:
                    out.add(x)
                    todo.append(x)
        return out

    trapped = grow(set(range(n + 1)) - grow({n}))
    if board.start in trapped:
        return math.inf
    if board.start == n:
        return 0.0
    sure = [x for x in range(n) if x not in trapped]
    index = {x: i for i, x in enumerate(sure)}
    a = np.eye(len(sure))
    for x in sure:
        for _, p, w in moves[x]:
            if w != n:
                a[index[x], index[w]] -= p
    # (SciPy's LAPACK: NumPy's hands a 100 x 100 solve to worker threads, 0.1 s each on a
    # busy machine against 0.3 ms)
    return float(scipy.linalg.solve(a, np.ones(len(sure)))[index[board.start]])


def design_values(size, snakes, ladders, **kw):
    """Expected lengths (:func:`naive_expected_start`) of every feasible layout with a finite
    one."""
    values = [naive_expected_start(b) for b in design_layouts(size, snakes, ladders, **kw)]
    return [v for v in values if math.isfinite(v)]


def design_brute_force(size, snakes, ladders, objective, target=None, **kw):
    """Best objective value over every feasible finite layout."""
    values = design_values(size, snakes, ladders, **kw)
    if objective == "max":
        return max(values)
    if objective == "min":
        return min(values)
    return min(abs(v - target) for v in values)


# --- large ---
import numpy as _np  # noqa: E402
import scipy.sparse as _sp  # noqa: E402
import scipy.sparse.linalg as _spla  # noqa: E402


def large_successor(board, x, face):
    """Where a token on ``x`` rests after throwing ``face``, from the rules."""
    size = board.size
    if x == size:
        return size
    t = x + face
    if t > size:
        if board.overshoot == "win":
            t = size
        elif board.overshoot == "exact":
            return x
        else:
            t = 2 * size - t
    if t in board.jumps:
        t = board.jumps[t]
        while board.chain and t in board.jumps:
            t = board.jumps[t]
    return t


def large_transitions(board):
    """The transition matrix P (CSR) built square by square."""
    rows, cols, vals = [], [], []
    for x in range(board.size + 1):
        for face, p in board.dice.to_dict().items():
            rows.append(x)
            cols.append(large_successor(board, x, face))
            vals.append(p)
    n = board.size + 1
    return _sp.csr_matrix((vals, (rows, cols)), shape=(n, n))


def _predecessors(moves):
    """``{y: [x, ...]}``: the squares ``x`` of the moves ``(x, y)`` into each square."""
    pred = {}
    for x, y in moves:
        pred.setdefault(y, []).append(x)
    return pred


def _matrix_moves(p):
    """The moves ``(x, y)`` of the entries of a sparse matrix."""
    coo = p.tocoo()
    return zip(coo.row.tolist(), coo.col.tolist(), strict=True)


def large_reach(p, targets):
    """Squares with a path (of positive-probability throws) into ``targets``."""
    pred = _predecessors(_matrix_moves(p))
    seen = set(targets)
    todo = list(targets)
    while todo:
        y = todo.pop()
        for x in pred.get(y, []):
            if x not in seen:
                seen.add(x)
                todo.append(x)
    return seen


def large_moments(board):
    """Expected throws and variance from every square by ``spsolve`` on ``I - Q``.

    Squares that can reach a square from which the goal is unreachable get ``inf``.
    """
    size = board.size
    p = large_transitions(board)
    can_finish = large_reach(p, [size])
    stuck = [x for x in range(size + 1) if x not in can_finish]
    unsure = large_reach(p, stuck) if stuck else set()
    sure = _np.array([x for x in range(size) if x not in unsure], dtype=int)
    mean = _np.full(size + 1, _np.inf)
    var = _np.full(size + 1, _np.inf)
    mean[size] = var[size] = 0.0
    if len(sure):
        a = (_sp.identity(len(sure)) - p[sure][:, sure]).tocsc()
        t = _spla.spsolve(a, _np.ones(len(sure)))
        u = _spla.spsolve(a, t)
        mean[sure] = t
        var[sure] = 2 * u - t - t * t
    return mean, var, sure, p


def large_pmf(board, start, n_throws):
    """``P(T = k)`` for ``k < n_throws`` by repeated sparse products."""
    p = large_transitions(board).T.tocsr()
    mass = _np.zeros(board.size + 1)
    mass[start] = 1.0
    pmf = _np.zeros(n_throws)
    if start == board.size:
        pmf[0] = 1.0
        return pmf
    for k in range(1, n_throws):
        mass = p @ mass
        pmf[k] = mass[board.size]
        mass[board.size] = 0.0
    return pmf


def large_distances(board):
    """Fewest throws to the goal from every square by plain BFS over the rules."""
    pred = _predecessors(_matrix_moves(large_transitions(board)))
    dist = [-1] * (board.size + 1)
    dist[board.size] = 0
    frontier = [board.size]
    while frontier:
        nxt = []
        for y in frontier:
            for x in pred.get(y, []):
                if dist[x] == -1:
                    dist[x] = dist[y] + 1
                    nxt.append(x)
        frontier = nxt
    return _np.array(dist)


def table_reach(succ):
    """Fewest throws to the last square (-1: never) and whether it is reached with
    probability 1, from a bare successor table (row ``x``: where each face leads; the last
    square's row is ignored): a queue BFS backwards, then a depth-first search forwards
    from every square for one that cannot reach the goal."""
    n = len(succ)
    goal = n - 1
    moves = {x: [int(y) for y in succ[x]] for x in range(goal)}
    pred = _predecessors((x, y) for x, ys in moves.items() for y in ys)
    dist = [-1] * n
    dist[goal] = 0
    queue = deque([goal])
    while queue:
        y = queue.popleft()
        for x in pred.get(y, []):
            if dist[x] == -1:
                dist[x] = dist[y] + 1
                queue.append(x)
    sure = []
    for x in range(n):
        seen, stack = {x}, [x]
        while stack:
            v = stack.pop()
            for w in moves.get(v, []):
                if w not in seen:
                    seen.add(w)
                    stack.append(w)
        sure.append(all(dist[v] >= 0 for v in seen))
    return _np.array(dist), _np.array(sure)


def rotation_costs(succ, probs, active):
    """For each ``c``, the moves (between squares of the system, of positive probability,
    not onto their own square) that go backward when the squares are taken in the order
    ``c .. n-1, 0 .. c-1``: counted move by move, order by order."""
    n, nf = succ.shape
    probs = _np.broadcast_to(probs, succ.shape)
    moves = [(x, int(succ[x, f])) for x in range(n) for f in range(nf)
             if active[x] and active[succ[x, f]] and succ[x, f] != x and probs[x, f] > 0]
    return _np.array([sum((y - c) % n < (x - c) % n for x, y in moves) for c in range(n)])



def greedy_paths(succ, probs, active, block_start, targets, threshold=0.5):
    """For each target square (in the order of ``targets``), its most likely path one move
    at a time: the likeliest square moved to (faces to one square summed, a face onto its
    own square left out and the others scaled to sum to 1), followed until a move goes
    below the block of the square it leaves. Returns ``(phi, w)``: the column of the
    target that move lands on and the path's chance, or ``-1`` and 0 where the chance
    falls to ``threshold`` or the path leaves the system first."""
    n, nf = succ.shape
    probs = _np.broadcast_to(probs, succ.shape)
    block = _np.searchsorted(block_start, _np.arange(n), side="right") - 1
    col = {int(t): c for c, t in enumerate(targets)}
    phi, w = [], []
    for t in targets:
        x, chance, found = int(t), 1.0, (-1, 0.0)
        for _ in range(10 * n):
            if not active[x]:
                break
            to = {}
            for f in range(nf):
                if succ[x, f] != x and probs[x, f] > 0:
                    to[int(succ[x, f])] = to.get(int(succ[x, f]), 0.0) + probs[x, f]
            if not to:
                break
            best = max(to, key=lambda y: (to[y], -list(to).index(y)))
            chance *= to[best] / sum(to.values())
            if chance <= threshold or not active[best]:
                break
            if best < block_start[block[x]]:
                found = (col.get(best, -1), chance if best in col else 0.0)
                break
            x = best
        phi.append(found[0])
        w.append(found[1])
    return _np.array(phi), _np.array(w)


def block_sweep(succ, probs, active, block_start, rhs, back):
    """``P^-1 (rhs + R back)`` (columns of ``rhs``, ``back``: ``(n, m)``) square by square:
    ``P`` is ``I - Q`` over the ``active`` squares with each diagonal entry the chance of
    leaving the square, without the moves that go below the block they leave (``R``, read
    from ``back``); the blocks from the top down, each by dense ``numpy.linalg.solve`` of
    its squares' equations, the values above it and ``back`` below it known, refined
    against the block's exact matrix (:func:`refined_solve`)."""
    n, nf = succ.shape
    probs = _np.broadcast_to(probs, succ.shape)
    out = _np.zeros(rhs.shape)
    for b in range(len(block_start) - 2, -1, -1):
        lo, hi = int(block_start[b]), int(block_start[b + 1])
        a = [{i: Fraction(1)} for i in range(hi - lo)]  # the rows' entries, no rounding
        terms = _np.zeros((hi - lo, rhs.shape[1]))
        for x in range(lo, hi):
            if not active[x]:
                continue  # out[x] = 0
            i = x - lo
            a[i][i] = Fraction(0)
            terms[i] = rhs[x]
            for f in range(nf):
                y, p = int(succ[x, f]), float(probs[x, f])
                if y == x or p == 0.0:
                    continue
                a[i][i] += Fraction(p)
                if y >= hi:
                    terms[i] += p * out[y]
                elif y < lo:
                    terms[i] += p * back[y]
                elif active[y]:
                    a[i][y - lo] = a[i].get(y - lo, Fraction(0)) - Fraction(p)
        out[lo:hi] = refined_solve(a, terms)
    return out


def refined_solve(rows, b, rounds=2):
    """``A^-1 b`` for ``A`` given exactly (``rows[i]``: column -> Fraction):
    ``numpy.linalg.solve`` of ``A`` rounded, then ``rounds`` rounds of refinement, each
    solving for the residual ``b - A x`` formed as Fractions and rounded once.

    The solve alone is off by about ``cond(A)`` units in the last place, and so is the exact
    solve of ``A`` rounded: a diagonal entry, the chance of leaving a square, rounds as a sum
    (``0.2 + 0.8`` is 1, the Fractions of the two floats sum to ``1 + 2^-54``), which a
    block the game rarely leaves amplifies (cond 3e3 on a 31-square block of snakes). Each
    round takes the error down by ``cond(A) u``, to about the rounding of the answer."""
    m = len(rows)
    a = _np.zeros((m, m))
    for i, row in enumerate(rows):
        for j, v in row.items():
            a[i, j] = float(v)
    x = _np.linalg.solve(a, b)
    for _ in range(rounds if m > 1 else 0):  # (one square: a division, rounded once)
        r = _np.array([[float(Fraction(float(b[i, c])) - sum(v * Fraction(float(x[j, c]))
                                                             for j, v in row.items()))
                        for c in range(b.shape[1])] for i, row in enumerate(rows)])
        x = x + _np.linalg.solve(a, r.reshape(b.shape))
    return x

# --- batch ---
def batch_row(size, jumps, start=0, overshoot="win", chain=False, dice=None):
    """Fewest throws, mean, variance and median of one board, the obvious way.

    Plain Python BFS over the moves, dense ``numpy.linalg.solve`` for
    ``(I - Q) t = 1`` and ``(I - Q) u = t`` on the squares that surely
    finish, and the median by pushing the probability mass throw by throw.
    ``dice`` is a mapping face -> probability (fair d6 by default).
    """
    import numpy as np

    dice = dice or {f: 1 / 6 for f in range(1, 7)}
    jumps = dict(jumps)

    def move(x, f):
        if x == size:
            return size
        t = x + f
        if t > size:
            if overshoot == "win":
                t = size
            elif overshoot == "exact":
                return x
            else:
                t = 2 * size - t
        if t in jumps:
            t = jumps[t]
            while chain and t in jumps:
                t = jumps[t]
        return t

    n = size + 1
    moves = {x: [(move(x, f), p) for f, p in dice.items() if p > 0] for x in range(n)}
    # BFS backwards from the goal
    dist = {size: 0}
    frontier = [size]
    while frontier:
        nxt = []
        for x in range(n):
            if x not in dist and any(y in frontier for y, _ in moves[x]):
                dist[x] = dist[frontier[0]] + 1
                nxt.append(x)
        frontier = nxt
    # squares from which some path leads to a dead square are not sure
    dead = {x for x in range(n) if x not in dist}
    changed = True
    while changed:
        changed = False
        for x in range(n):
            if x not in dead and any(y in dead for y, _ in moves[x]):
                dead.add(x)
                changed = True
    sure = [x for x in range(size) if x not in dead]
    pos = {x: i for i, x in enumerate(sure)}
    a = np.eye(len(sure))
    for x in sure:
        for y, p in moves[x]:
            if y in pos:
                a[pos[x], pos[y]] -= p
    mean = var = float("inf")
    if start == size:
        mean = var = 0.0
    elif start in pos:
        t = np.linalg.solve(a, np.ones(len(sure))) if sure else np.zeros(0)
        u = np.linalg.solve(a, t) if sure else np.zeros(0)
        i = pos[start]
        mean = float(t[i])
        var = max(float(2 * u[i] - t[i] - t[i] ** 2), 0.0)
    # median: first k with P(T <= k) >= 1/2
    median = None
    if start == size:
        median = 0
    elif start in dist:
        mass = {start: 1.0}
        cum, k = 0.0, 0
        while median is None and sum(mass.values()) > 1e-13 and k < 100_000:
            k += 1
            new = {}
            for x, m in mass.items():
                for y, p in moves[x]:
                    new[y] = new.get(y, 0.0) + m * p
            cum += new.pop(size, 0.0)
            mass = {x: m for x, m in new.items() if x in dist}
            if cum >= 0.5 * (1 - 1e-12):
                median = k
    return {"min_throws": dist.get(start, -1), "mean": mean, "variance": var,
            "median": median}


# --- policy ---
# Helpers import what they need locally (itertools, numpy as np) to keep this
# section self-contained.


def _policy_dice(d):
    """A die as a plain list of (face, probability)."""
    return [(int(f), float(p)) for f, p in zip(d.faces, d.probs, strict=True)]


def policy_landing(board, x, face):
    """Where a throw of ``face`` from ``x`` lands (before jumps), and whether it landed."""
    n = board.size
    t = x + face
    if t <= n:
        return t, True
    if board.overshoot == "win":
        return n, True
    if board.overshoot == "exact":
        return x, False
    return 2 * n - t, True


def policy_rest(board, square, take):
    """Resting square after landing on ``square``; ``take[s]`` says whether to follow jump s."""
    while square in board.jumps and take.get(square, True):
        square = board.jumps[square]
        if not board.chain:
            break
    return square


def policy_matrix(board, dice_list, die, take):
    """Dense transition matrix of the chain a policy induces (goal absorbing)."""
    import numpy as np
    n = board.size
    P = np.zeros((n + 1, n + 1))
    P[n, n] = 1.0
    for x in range(n):
        for face, p in _policy_dice(dice_list[die[x]]):
            land, landed = policy_landing(board, x, face)
            y = policy_rest(board, land, take) if landed else land
            P[x, y] += p
    return P


def policy_expected(board, dice_list, die, take):
    """Expected throws from every square under a policy (dense solve; inf off the sure set)."""
    import numpy as np
    n = board.size
    P = policy_matrix(board, dice_list, die, take)
    reach = {n}
    changed = True
    while changed:  # squares that can reach the goal
        changed = False
        for x in range(n + 1):
            if x not in reach and any(P[x, y] > 0 for y in reach):
                reach.add(x)
                changed = True
    bad = set(range(n + 1)) - reach
    changed = True
    while changed:  # squares that can reach a square that cannot finish
        changed = False
        for x in range(n + 1):
            if x not in bad and any(P[x, y] > 0 for y in bad):
                bad.add(x)
                changed = True
    sure = [x for x in range(n) if x not in bad]
    out = np.full(n + 1, np.inf)
    out[n] = 0.0
    if sure:
        Q = P[np.ix_(sure, sure)]
        a = np.eye(len(sure)) - Q
        out[sure] = np.linalg.solve(a, np.ones(len(sure)))
    return out


def policy_brute_force(board, dice_list, *, objective="min", optional_jumps=False):
    """Best (min) or worst (max) expected throws from every square, over every
    deterministic stationary policy: one die per square, one decision per jump."""
    import itertools

    import numpy as np
    n = board.size
    srcs = sorted(board.jumps) if optional_jumps else []
    best = None
    for die in itertools.product(range(len(dice_list)), repeat=n):
        for bits in itertools.product([True, False], repeat=len(srcs)):
            take = dict(zip(srcs, bits, strict=True))
            v = policy_expected(board, dice_list, die, take)
            if best is None:
                best = v
            else:
                pick = np.minimum if objective == "min" else np.maximum
                best = pick(best, v)
    return best


def policy_value_iteration(board, dice_list, *, optional_jumps=False, sweeps=100000, tol=1e-13):
    """Seed-style Gauss-Seidel value iteration for the fewest expected throws (finite case)."""
    import numpy as np
    n = board.size
    V = [0.0] * (n + 1)

    def landing_value(square):
        # best resting value after landing on ``square`` (deciding each jump of a chain)
        best = float("inf")
        while True:
            if square not in board.jumps:
                return min(best, V[square])
            if optional_jumps:
                best = min(best, V[square])
            square = board.jumps[square]
            if not board.chain:
                return min(best, V[square])

    for _ in range(sweeps):
        change = 0.0
        for x in range(n - 1, -1, -1):
            q_best = float("inf")
            for d in dice_list:
                q = 1.0
                for face, p in _policy_dice(d):
                    land, landed = policy_landing(board, x, face)
                    q += p * (landing_value(land) if landed else V[x])
                q_best = min(q_best, q)
            change = max(change, abs(q_best - V[x]))
            V[x] = q_best
        if change < tol * max(1.0, max(V)):
            break
    return np.array(V)


def policy_finish_within(board, dice_list, k, *, optional_jumps=False):
    """Best chance to finish within k throws from every square (plain backward induction)."""
    import numpy as np
    n = board.size
    P = [0.0] * n + [1.0]
    for _ in range(k):
        prev = P

        def landing_value(square, prev=prev):
            best = 0.0
            while True:
                if square not in board.jumps:
                    return max(best, prev[square])
                if optional_jumps:
                    best = max(best, prev[square])
                square = board.jumps[square]
                if not board.chain:
                    return max(best, prev[square])

        P = [0.0] * n + [1.0]
        for x in range(n):
            q_best = 0.0
            for d in dice_list:
                q = 0.0
                for face, p in _policy_dice(d):
                    land, landed = policy_landing(board, x, face)
                    q += p * (landing_value(land) if landed else prev[x])
                q_best = max(q_best, q)
            P[x] = q_best
    return np.array(P)


def policy_time_dependent_chance(board, dice_list, policy, take_table, jumps, start):
    """Chance to finish within K throws when following a time-dependent policy
    (``policy[i, x]``, ``take_table[i, j]`` after throw i), by pushing the mass forward."""
    import numpy as np
    n = board.size
    mass = np.zeros(n + 1)
    mass[start] = 1.0
    for i in range(policy.shape[0]):
        take = {s: bool(take_table[i, j]) for j, (s, _) in enumerate(jumps)}
        nxt = np.zeros(n + 1)
        nxt[n] = mass[n]
        for x in range(n):
            if mass[x] == 0:
                continue
            for face, p in _policy_dice(dice_list[policy[i, x]]):
                land, landed = policy_landing(board, x, face)
                y = policy_rest(board, land, take) if landed else land
                nxt[y] += mass[x] * p
        mass = nxt
    return mass[n]


def policy_simulate(board, dice_list, die, take, games, rng, max_throws=100000):
    """Monte Carlo of a stationary policy: (mean throws, standard error)."""
    import numpy as np
    n = board.size
    P = policy_matrix(board, dice_list, die, take)
    cum = np.cumsum(P, axis=1)
    pos = np.full(games, board.start)
    throws = np.zeros(games, dtype=np.int64)
    for _ in range(max_throws):
        live = pos != n
        if not live.any():
            break
        u = rng.random(int(live.sum()))
        rows = cum[pos[live]]
        pos[live] = np.minimum((rows < u[:, None]).sum(axis=1), n)
        throws[live] += 1
    return throws.mean(), throws.std(ddof=1) / np.sqrt(games)


# --- plot ---
def plot_square_cells_naive(size):
    """Walk the printed board square by square: ``{square: (column, row)}``.

    Square 1 bottom-left, the bottom row left to right, the next right to
    left, ... on ``n`` columns, the smallest ``n`` with ``n * n >= size``;
    square 0 just left of square 1.
    """
    n = 1
    while n * n < size:
        n += 1
    cells = {0: (-1, 0)}
    col, row, step = 0, 0, 1
    for k in range(1, size + 1):
        cells[k] = (col, row)
        if 0 <= col + step < n:
            col += step
        else:
            row += 1
            step = -step
    return cells


# --- race ---
def race_options(board, x, face, optional):
    """Squares where a token on ``x`` may rest after throwing ``face``.

    One square with compulsory jumps; with optional jumps, the square landed on
    and every square further along its chain of jumps (declining there).
    """
    land, landed = policy_landing(board, x, face)
    if not landed:
        return [x]
    if not optional:
        return [policy_rest(board, land, {})]
    options = [land]
    square = land
    while square in board.jumps:
        square = board.jumps[square]
        options.append(square)
        if not board.chain:
            break
    return options


def race_follow(board, x, face, take):
    """Resting square for a player who follows jump ``s`` iff ``take(s)``."""
    land, landed = policy_landing(board, x, face)
    if not landed:
        return x
    square = land
    while square in board.jumps and take(square):
        square = board.jumps[square]
        if not board.chain:
            break
    return square


def race_value_iteration(board, dice_list, *, optional_jumps=False, first=None, second=None,
                         tol=1e-14, max_iter=200_000, both=False):
    """Plain pair-state value iteration (seed 004, section 6.1, with choices).

    ``A[i][j]``: chance that the first player wins when about to throw on ``i``, the
    second player on ``j``; ``B[j][i]`` the same for the second player. Each step
    ``A <- T(B)``, ``B <- T(A)`` with ``T(Z)[i][j] = max over dice of
    sum_f p_f * max over resting squares r of (1 if r is the goal else 1 - Z[j][r])``.
    A player given as ``(die, take)`` (``die[i][j]``: die index; ``take(s, j)``:
    follow the jump from ``s``) does not maximise. From 0 the even iterates rise
    to the chance to win, the odd ones fall to the chance not to lose; iterate
    until both stop moving. Returns ``(win, lose)`` for the first player about to
    throw, shape ``(size, size)`` (``both``: and the same for the second player).
    """
    n = board.size
    dice = [_policy_dice(d) for d in dice_list]

    def step(z, player):
        out = np.zeros((n, n))
        for i in range(n):
            for j in range(n):
                if player is None:
                    choices = range(len(dice))
                else:
                    choices = [player[0][i][j]]
                best = 0.0
                for a in choices:
                    q = 0.0
                    for face, p in dice[a]:
                        if player is None:
                            rests = race_options(board, i, face, optional_jumps)
                        else:
                            rests = [race_follow(board, i, face,
                                                 lambda s, j=j: player[1](s, j))]
                        q += p * max(1.0 if r == n else 1.0 - z[j][r] for r in rests)
                    best = max(best, q)
                out[i, j] = best
        return out

    a_hist = [np.zeros((n, n))]  # iterate number it - len + 1 .. it
    b_hist = [np.zeros((n, n))]
    it = 0
    for _ in range(max_iter):
        a_new = step(b_hist[-1], first)
        b_new = step(a_hist[-1], second)
        a_hist = (a_hist + [a_new])[-3:]
        b_hist = (b_hist + [b_new])[-3:]
        it += 1
        if len(a_hist) == 3 and max(np.max(np.abs(h[2] - h[0])) for h in (a_hist, b_hist)) < tol:
            break
    even, odd = (a_hist[2], a_hist[1]) if it % 2 == 0 else (a_hist[1], a_hist[2])
    if not both:
        return even, 1.0 - odd
    b_even, b_odd = (b_hist[2], b_hist[1]) if it % 2 == 0 else (b_hist[1], b_hist[2])
    return even, 1.0 - odd, b_even, 1.0 - b_odd


def race_policy(board, dice_list, win0, win1, keep1, *, optional_jumps=False, second=None,
                tie=1e-9):
    """Slow twin of the race read-out (``snl_numeric/race/readout.py``).

    ``win0[i][j]``: the first player's chance to win about to throw on ``i`` against
    ``j``; ``win1``/``keep1``: the second player's chances to win and not to lose when
    it is about to throw. The first player's value-optimal dice (within ``tie``), then,
    positions ranked in the order in which they are found to reach the goal (the
    second player's positions first on each pair of squares, diagonals from the last),
    the first die that reaches an earlier ranked position with the largest chance not
    to lose. ``second``: ``(die, take)`` of a fixed second player, else it may play any
    of its own value-optimal dice (rests likewise). Returns ``(policy, take)`` with
    ``take[(s, j)]`` for each jump ``s`` and opponent square ``j``.
    """
    n = board.size
    dice = [_policy_dice(d) for d in dice_list]

    def rests(x, face, opt):
        return race_options(board, x, face, opt)

    def val(r, other, z):
        return 1.0 if r == n else 1.0 - z[other][r]

    def die_value(me, other, a, z, opt):
        total = sum(p for _, p in dice[a])
        return sum(p * max(val(r, other, z) for r in rests(me, f, opt)) for f, p in dice[a]) / total

    def tied(me, other, f, z, opt):
        options = rests(me, f, opt)
        best = max(val(r, other, z) for r in options)
        return [r for r in options if val(r, other, z) >= best - tie]

    cand0, fallback, cand1 = {}, {}, {}
    for i in range(n):
        for j in range(n):
            v = [die_value(i, j, a, keep1, optional_jumps) for a in range(len(dice))]
            cand0[i, j] = [a for a in range(len(dice)) if v[a] >= max(v) - tie]
            pick, pick_keep = -1, -1.0
            for a in cand0[i, j]:
                k = die_value(i, j, a, win1, optional_jumps)
                if k > pick_keep + tie:
                    pick, pick_keep = a, k
            fallback[i, j] = pick
            if second is None:  # the second player on i against the first on j
                w = [die_value(i, j, b, win0, optional_jumps) for b in range(len(dice))]
                cand1[i, j] = [b for b in range(len(dice)) if w[b] >= max(w) - tie]
    policy = dict(fallback)
    rank0, rank1 = {}, {}
    counter = 0
    changed = True
    while changed:
        changed = False
        for s in range(2 * n - 2, -1, -1):
            for i in range(max(0, s - n + 1), min(s, n - 1) + 1):
                j = s - i
                if (j, i) not in rank1:  # the second player on j to throw
                    if second is None:
                        choices = cand1[j, i]
                    else:
                        choices = [second[0][j][i]]
                    every = True
                    for b in choices:
                        some = False
                        for f, p in dice[b]:
                            if p == 0.0:
                                continue
                            if second is None:
                                options = tied(j, i, f, win0, optional_jumps)
                            else:
                                options = [race_follow(board, j, f,
                                                       lambda q, i=i: second[1](q, i))]
                            if all(r != n and (i, r) in rank0 for r in options):
                                some = True
                                break
                        if not some:
                            every = False
                            break
                    if every:
                        rank1[j, i] = counter
                        counter += 1
                        changed = True
                if (i, j) in rank0:
                    continue
                pick, pick_keep = -1, -1.0
                for a in cand0[i, j]:
                    ok = any(any(r == n or (j, r) in rank1
                                 for r in tied(i, j, f, keep1, optional_jumps))
                             for f, p in dice[a] if p > 0.0)
                    if ok:
                        k = die_value(i, j, a, win1, optional_jumps)
                        if k > pick_keep + tie:
                            pick, pick_keep = a, k
                if pick >= 0:
                    rank0[i, j] = counter
                    counter += 1
                    policy[i, j] = pick
                    changed = True
    take = {}
    if optional_jumps:
        big = float("inf")
        for j in range(n):
            outcome = {}

            def decide(src, j=j, outcome=outcome):
                """Value and rank of resting after landing on jump ``src``, deciding it."""
                if src in outcome:
                    return outcome[src]
                dst = board.jumps[src]
                if board.chain and dst in board.jumps:
                    fv, fr = decide(dst)
                elif dst == n:
                    fv, fr = 1.0, -1
                else:
                    fv, fr = 1.0 - keep1[j][dst], rank1.get((j, dst), big)
                dv, dr = 1.0 - keep1[j][src], rank1.get((j, src), big)
                follow = fv >= dv - tie and (fv > dv + tie or fr <= dr)
                take[src, j] = follow
                outcome[src] = (fv, fr) if follow else (dv, dr)
                return outcome[src]

            for src in board.jumps:
                decide(src)
    return [[policy[i, j] for j in range(n)] for i in range(n)], take




def race_chain(board, dice_list, die0, die1, *, exact=False):
    """Both players fixed (compulsory jumps): the first player's chance to win and the
    second's, the first about to throw on ``i`` against ``j``, by one dense solve of
    the chain on ``(i, j, mover)`` (``exact``: in fractions, each die scaled to sum to
    1). ``die_k[i][j]``: side ``k``'s die on ``i`` against ``j``. Returns ``(win, lose)``
    as nested lists."""
    from fractions import Fraction

    import numpy as np

    n = board.size
    dice = [_policy_dice(d) for d in dice_list]
    keys = [(i, j, k) for i in range(n) for j in range(n) for k in range(2)]
    index = {key: pos for pos, key in enumerate(keys)}
    m = len(keys)
    zero = Fraction(0) if exact else 0.0
    a = [[zero] * m for _ in range(m)]
    rhs = [[zero, zero] for _ in range(m)]  # side 0 wins, side 1 wins
    for (i, j, k), row in index.items():
        a[row][row] += 1
        die = dice[(die0 if k == 0 else die1)[i][j]]
        total = sum(Fraction(p) for _, p in die) if exact else 1.0
        for face, p in die:
            q = Fraction(p) / total if exact else p
            r = race_follow(board, i, face, lambda s: True)
            if r == n:
                rhs[row][k] += q
            else:
                a[row][index[j, r, 1 - k]] -= q
    if exact:
        for c in range(m):  # Gauss-Jordan in fractions (an M-matrix: no pivoting needed)
            for r in range(m):
                if r != c and a[r][c] != 0:
                    f = a[r][c] / a[c][c]
                    a[r] = [x - f * y for x, y in zip(a[r], a[c], strict=True)]
                    rhs[r] = [x - f * y for x, y in zip(rhs[r], rhs[c], strict=True)]
        x = [[v / a[r][r] for v in rhs[r]] for r in range(m)]
    else:
        x = np.linalg.solve(np.array(a), np.array(rhs)).tolist()
    win = [[x[index[i, j, 0]][0] for j in range(n)] for i in range(n)]
    lose = [[x[index[i, j, 0]][1] for j in range(n)] for i in range(n)]
    return win, lose


def race_avoid(board, dice_list, *, optional_jumps=False, used=None):
    """Squares from which one token can keep off the goal for ever, for sure: remove,
    until none is left to remove, every square none of whose dice keeps all throws
    (any rest along a jump chain) off the goal and on the remaining squares. ``used[a][x]``:
    die ``a`` may be thrown on square ``x`` (default: every die everywhere)."""
    n = board.size
    dice = [_policy_dice(d) for d in dice_list]
    inside = set(range(n))
    changed = True
    while changed:
        changed = False
        for x in sorted(inside):
            if not any(all(any(r != n and r in inside
                               for r in race_options(board, x, f, optional_jumps))
                           for f, p in die if p > 0.0)
                       for a, die in enumerate(dice) if used is None or used[a][x]):
                inside.discard(x)
                changed = True
    return inside


def race_alive(board, dice_list, *, optional_jumps=False):
    """Squares from which some play reaches the goal (the goal too): add, until none is
    left to add, every square some throw of some die takes (any rest along a jump chain)
    to the goal or to an added square."""
    n = board.size
    dice = [_policy_dice(d) for d in dice_list]
    alive = {n}
    changed = True
    while changed:
        changed = False
        for x in range(n):
            if x not in alive and any(r in alive for die in dice for f, p in die if p > 0.0
                                      for r in race_options(board, x, f, optional_jumps)):
                alive.add(x)
                changed = True
    return alive


def race_trapped(board, dice_list, policy, take, *, optional_jumps=False, second=None):
    """Positions ``(i, j)`` of a player A who throws ``policy[i][j]`` (following jump
    ``s`` iff ``take(s, j)``) from which the other player B (any die and rest, or
    ``second = (die, take)``) can keep the game going for ever: a greatest fixed point
    on A's and B's positions; both staying put for sure does not count."""
    n = board.size
    dice = [_policy_dice(d) for d in dice_list]

    def stuck(die, x):  # every throw of this die leaves the token on x
        return all(race_options(board, x, f, optional_jumps) == [x]
                   and race_follow(board, x, f, lambda s: True) == x for f, p in die if p > 0)

    in_a = {(i, j) for i in range(n) for j in range(n)}
    in_b = set(in_a)  # (j, i): B on j to throw, A on i
    changed = True
    while changed:
        changed = False
        for i, j in sorted(in_a):
            die = dice[policy[i][j]]
            ok = all((r := race_follow(board, i, f, lambda s, j=j: take(s, j))) != n
                     and (j, r) in in_b for f, p in die if p > 0)
            if not ok:
                in_a.discard((i, j))
                changed = True
        for j, i in sorted(in_b):
            choices = range(len(dice)) if second is None else [second[0][j][i]]
            keep = False
            for b in choices:
                if stuck(dice[b], j):
                    ok = not stuck(dice[policy[i][j]], i) and (i, j) in in_a
                elif second is None:
                    ok = all(any(r != n and (i, r) in in_a
                                 for r in race_options(board, j, f, optional_jumps))
                             for f, p in dice[b] if p > 0)
                else:
                    ok = all((r := race_follow(board, j, f, lambda s, i=i: second[1](s, i))) != n
                             and (i, r) in in_a for f, p in dice[b] if p > 0)
                if ok:
                    keep = True
                    break
            if not keep:
                in_b.discard((j, i))
                changed = True
    return in_a

# -- accuracy references (issue 15) -------------------------------------------------
def plain_moments(n):
    """Exact mean and variance of the throws on ``Board(n)`` (no jumps, a fair d6, a throw
    past the goal wins), by first-step analysis from the goal down, in Fractions:
    ``t_x = 1 + sum_f t_{x+f} / 6`` and ``E[T_x^2] = 1 + sum_f (2 t_{x+f} + E[T_{x+f}^2]) / 6``."""
    t = [Fraction(0)] * (n + 1)
    s = [Fraction(0)] * (n + 1)
    for x in range(n - 1, -1, -1):
        nxt = [min(x + f, n) for f in range(1, 7)]
        t[x] = 1 + sum(t[y] for y in nxt) / 6
        s[x] = 1 + sum(2 * t[y] + s[y] for y in nxt) / 6
    return t[0], s[0] - t[0] ** 2


def run_board(n):
    """``Board(6n)`` with a snake to 0 on every square that is not a multiple of 6."""
    from snl_numeric import Board

    return Board(6 * n, {s: 0 for s in range(1, 6 * n) if s % 6})


def run_moments(n):
    """Exact mean and variance of the throws on :func:`run_board` (Fractions).

    From square ``6j`` a 6 (probability 1/6) moves to ``6(j+1)``, anything else lands on
    a snake to 0: the walk on the levels ``0 .. n`` is solved by first-step analysis,
    ``t_j = 1 + t_{j+1}/6 + 5 t_0/6`` and ``s_j = E[T_j^2]`` likewise, each level's value an
    affine function of level 0's, by plain Fraction arithmetic.
    """
    p, q = Fraction(1, 6), Fraction(5, 6)
    # t_j = a_j + b_j t_0, from t_n = 0 downwards
    a, b = Fraction(0), Fraction(0)
    coeffs = [(a, b)]
    for _ in range(n):
        a, b = 1 + p * a, p * b + q
        coeffs.append((a, b))
    t0 = coeffs[-1][0] / (1 - coeffs[-1][1])
    ts = [ca + cb * t0 for ca, cb in reversed(coeffs)]  # ts[j] = t_j, j = 0 .. n
    # E[T_j^2] = 1 + 2 E[T_next] + E[T_next^2] averaged over the next level
    c, d = Fraction(0), Fraction(0)
    for j in range(n - 1, -1, -1):
        up = ts[j + 1]
        c, d = 1 + 2 * (p * up + q * ts[0]) + p * c, p * d + q
    s0 = c / (1 - d)
    return ts[0], s0 - ts[0] ** 2


def chained_snakes_mean(size, step, low, digits=100):
    """Expected throws from 0 on ``Board(size, {s: s - step for s in range(size - 1, low,
    -step)}, chain=True)`` (fair d6, overshoot wins) in ``digits``-digit decimal arithmetic.

    Every snake chains down to the same square ``F``: each ``t_x`` is affine in ``t_F``,
    swept from the goal down, then ``t_F`` solved for.
    """
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = digits
        snakes = set(range(size - 1, low, -step))
        bottom = min(snakes) - step
        sixth = Decimal(1) / 6
        a = [Decimal(0)] * (size + 1)
        b = [Decimal(0)] * (size + 1)
        for x in range(size - 1, -1, -1):
            sa, sb = Decimal(1), Decimal(0)
            for f in range(1, 7):
                y = min(x + f, size)
                if y in snakes:
                    sb += sixth
                else:
                    sa += sixth * a[y]
                    sb += sixth * b[y]
            a[x], b[x] = sa, sb
        t_bottom = a[bottom] / (1 - b[bottom])
        return a[0] + b[0] * t_bottom


# -- issue 28: optimal policies in exact rational arithmetic ---------------------------
def policy_exact(board, dice_list, *, objective="min", optional_jumps=False):
    """Optimal expected throws from every square (``Fraction``; ``None`` where infinite),
    by policy iteration in exact rational arithmetic: each policy evaluated by Gauss-Jordan
    elimination over ``Fraction``, a choice switched only for a strict gain.

    Nodes are the squares and, with optional jumps, ``("j", s)``: landing on the start
    ``s`` of a jump, where the player declines (rests on ``s``) or follows. The chain is
    the one the core's solver defines: each face's probability (the float, exactly)
    divided by their exact sum, so that every row sums to 1. Returns
    ``None`` under "max" when a play never finishes from the start.
    """
    from fractions import Fraction

    n, jumps = board.size, board.jumps
    sense = 1 if objective == "min" else -1
    dice = []
    for d in dice_list:
        total = sum(map(Fraction, d.probs.tolist()))
        dice.append([(int(f), Fraction(q) / total)
                     for f, q in zip(d.faces.tolist(), d.probs.tolist(), strict=True)])

    def arrive(square):  # the node reached on landing on a square
        if square not in jumps:
            return square
        if optional_jumps:
            return ("j", square)
        return arrive(jumps[square]) if board.chain else jumps[square]

    def follow(s):  # the node reached by following the jump at s
        return arrive(jumps[s]) if board.chain else jumps[s]

    def throw(x, a):  # node -> probability
        out = {}
        for face, q in dice[a]:
            land, landed = policy_landing(board, x, face)
            v = arrive(land) if landed else land
            out[v] = out.get(v, 0) + q
        return out

    squares = list(range(n))
    nodes = squares + [("j", s) for s in sorted(jumps)] * bool(optional_jumps)
    choices = {x: [set(throw(x, a)) for a in range(len(dice))] for x in squares}
    choices.update({v: [{v[1]}, {follow(v[1])}] for v in nodes[n:]})  # decline, take
    if objective == "min":  # the almost-sure attractor of the goal, in layers
        inside = set(nodes) | {n}
        while True:
            layer, pick, k = {n: 0}, {}, 0
            while True:
                k += 1
                new = {}
                for v in nodes:
                    if v in inside and v not in layer:
                        c = next((i for i, e in enumerate(choices[v]) if e <= inside
                                  and any(layer.get(y, k) < k for y in e)), None)
                        if c is not None:
                            new[v] = c
                if not new:
                    break
                layer.update(dict.fromkeys(new, k))
                pick.update(new)
            if set(layer) == inside:
                break
            inside = set(layer)
        finite = inside
    else:  # plays that never finish: from a trap (a choice never leaving the traps)
        trap, changed = set(nodes), True
        while changed:
            changed = False
            for v in list(trap):
                if not any(e <= trap for e in choices[v]):
                    trap.discard(v)
                    changed = True
        doomed, changed = set(trap), True
        while changed:
            changed = False
            for v in nodes:
                if v not in doomed and any(e & doomed for e in choices[v]):
                    doomed.add(v)
                    changed = True
        if board.start in doomed:
            return None
        finite = (set(nodes) | {n}) - doomed
        pick = {v: 0 if v in squares else 1 for v in nodes}
    pick = {v: pick.get(v, 0 if v in squares else 1) for v in nodes}

    def resolve(v):
        while not isinstance(v, int):
            v = v[1] if pick[v] == 0 else follow(v[1])
        return v

    live = [x for x in squares if x in finite]

    def evaluate():
        index = {x: i for i, x in enumerate(live)}
        m = len(live)
        a = [[Fraction(0)] * m + [Fraction(1)] for _ in range(m)]
        for x in live:
            a[index[x]][index[x]] += 1
            for v, q in throw(x, pick[x]).items():
                y = resolve(v)
                if y != n:
                    a[index[x]][index[y]] -= q
        x_ = gauss_jordan(a)
        out = {x: x_[index[x]] for x in live}
        out[n] = Fraction(0)
        return out

    while True:
        values = evaluate()
        changed = False
        for v in nodes:
            if v not in finite:
                continue
            options = choices[v] if v in squares else [{v[1]}, {follow(v[1])}]
            best, best_i = None, pick[v]
            for i, e in enumerate(options):
                if not e <= finite:
                    continue
                if v in squares:
                    val = 1 + sum(q * values[resolve(y)] for y, q in throw(v, i).items())
                else:
                    val = values[resolve(next(iter(e)))]
                if i == pick[v]:
                    cur = val
                if best is None or sense * (val - best) < 0:
                    best, best_i = val, i
            if sense * (best - cur) < 0:
                pick[v], changed = best_i, True
        if not changed:
            return [values.get(x) for x in range(n + 1)]


# -- best responses to a fixed opponent (issue 28) ---------------------------------------
def race_best_response(board, dice_list, opponent, *, optional_jumps=False,
                       opponent_take=None, gain=1e-12, max_iter=500):
    """The first player's best response to a fixed second player, by policy iteration
    with dense solves over the pair chain.

    States ``(me, other, k)``: side ``k`` (0: the first player) on ``me`` to throw.
    ``opponent[j][i]``: the second player's die on ``j`` against ``i``; it follows jump
    ``s`` iff ``opponent_take(s, i)`` (default: every jump). The first player picks a
    die and, with optional jumps, a resting square per face; a choice switches only
    when it gains more than ``gain`` against the dense solve of the current policy
    (``numpy.linalg.solve`` over the states from which the first player can still win;
    elsewhere 0). Returns ``(win, win_second, policy)``: the first player's chance about
    to throw on ``i`` against ``j``, its chance when the second player on ``j`` is about
    to throw against ``i`` (``win_second[j][i]``), and its dice ``policy[i][j]``.
    """
    import numpy as np

    n = board.size
    dice = []
    for d in dice_list:
        faces = _policy_dice(d)
        total = sum(p for _, p in faces)
        dice.append([(f, p / total) for f, p in faces if p > 0.0])
    take1 = opponent_take or (lambda s, i: True)
    keys = [(me, other, k) for me in range(n) for other in range(n) for k in range(2)]
    index = {key: pos for pos, key in enumerate(keys)}

    def rests(i, f):
        return race_options(board, i, f, optional_jumps)

    die = {(i, j): 0 for i in range(n) for j in range(n)}
    rest = {(i, j, a, f): rests(i, f)[0] for i in range(n) for j in range(n)
            for a in range(len(dice)) for f, _ in dice[a]}

    def evaluate():
        m = len(keys)
        q = np.zeros((m, m))
        b = np.zeros(m)
        for (me, other, k), row in index.items():
            if k == 0:
                for f, p in dice[die[me, other]]:
                    r = rest[me, other, die[me, other], f]
                    if r == n:
                        b[row] += p
                    else:
                        q[row, index[other, r, 1]] += p
            else:
                for f, p in dice[opponent[me][other]]:
                    r = race_follow(board, me, f, lambda s, i=other: take1(s, i))
                    if r != n:
                        q[row, index[other, r, 0]] += p
        can = b > 0  # the states from which the first player can still win
        changed = True
        while changed:
            reach = can | (q[:, can].sum(axis=1) > 0)
            changed = bool((reach != can).any())
            can = reach
        x = np.zeros(m)
        sub = np.ix_(can, can)
        x[can] = np.linalg.solve(np.eye(int(can.sum())) - q[sub], b[can])
        return x

    def after(r, j, x):
        return 1.0 if r == n else x[index[j, r, 1]]

    for _ in range(max_iter):
        x = evaluate()
        changed = False
        for i in range(n):
            for j in range(n):
                for a in range(len(dice)):
                    for f, _ in dice[a]:
                        cur = rest[i, j, a, f]
                        best = max(rests(i, f), key=lambda r, j=j: after(r, j, x))
                        if after(best, j, x) > after(cur, j, x) + gain:
                            rest[i, j, a, f] = best
                            changed = True
                values = [sum(p * after(rest[i, j, a, f], j, x) for f, p in dice[a])
                          for a in range(len(dice))]
                best = int(np.argmax(values))
                if values[best] > values[die[i, j]] + gain:
                    die[i, j] = best
                    changed = True
        if not changed:
            break
    win = [[x[index[i, j, 0]] for j in range(n)] for i in range(n)]
    win_second = [[x[index[j, i, 1]] for i in range(n)] for j in range(n)]
    return win, win_second, [[die[i, j] for j in range(n)] for i in range(n)]


def race_policy_value(board, dice_list, first, first_take, opponent, *, opponent_take=None):
    """The first player's chance to win, ``win[i][j]`` (about to throw on ``i`` against
    ``j``), when it throws ``first[i][j]`` and follows jump ``s`` iff ``first_take(s, j)``
    against the second player's ``opponent[j][i]`` (and ``opponent_take(s, i)``): one
    dense solve of the pair chain (0 where the first player can no longer win)."""
    import numpy as np

    n = board.size
    take1 = opponent_take or (lambda s, i: True)
    dice = []
    for d in dice_list:
        faces = _policy_dice(d)
        total = sum(p for _, p in faces)
        dice.append([(f, p / total) for f, p in faces if p > 0.0])
    keys = [(me, other, k) for me in range(n) for other in range(n) for k in range(2)]
    index = {key: pos for pos, key in enumerate(keys)}
    m = len(keys)
    q = np.zeros((m, m))
    b = np.zeros(m)
    for (me, other, k), row in index.items():
        die, take = (first[me][other], first_take) if k == 0 else (opponent[me][other], take1)
        for f, p in dice[die]:
            r = race_follow(board, me, f, lambda s, o=other, tk=take: tk(s, o))
            if r == n:
                b[row] += p if k == 0 else 0.0
            else:
                q[row, index[other, r, 1 - k]] += p
    can = b > 0
    changed = True
    while changed:
        reach = can | (q[:, can].sum(axis=1) > 0)
        changed = bool((reach != can).any())
        can = reach
    x = np.zeros(m)
    x[can] = np.linalg.solve(np.eye(int(can.sum())) - q[np.ix_(can, can)], b[can])
    return [[x[index[i, j, 0]] for j in range(n)] for i in range(n)]


# -- issue 24: the single-board paths; issue 28: bounds and game length ------------------------
def exact_chain_moments(board, start=None):
    """Exact mean and variance from ``start`` of the chain the library solves: the dice's
    binary probabilities as exact rationals, each row scaled to sum to 1 (Fraction
    Gauss-Jordan elimination; small boards whose goal is reached surely from ``start``)."""
    probs = [Fraction(float(p)) for p in board.dice.probs]
    total = sum(probs)
    probs = [p / total for p in probs]
    return _fraction_moments(board, start, lambda x: [
        (p, naive_move(board, x, int(face)))
        for face, p in zip(board.dice.faces, probs, strict=True)])


def players_joint_length(boards, starts):
    """Expected total throws until someone wins, by the joint chain over everyone's square
    and whose turn it is (dense float solve; tiny boards, everyone sure to finish)."""
    import itertools

    import numpy as np

    k = len(boards)
    cbs = [b.compiled for b in boards]
    index = {}
    for pos in itertools.product(*[range(cb.size) for cb in cbs]):
        for turn in range(k):
            index[(pos, turn)] = len(index)
    a = np.eye(len(index))
    for (pos, turn), r in index.items():
        cb = cbs[turn]
        for f in range(len(cb.probs)):
            y = int(cb.succ[pos[turn], f])
            if y != cb.size:
                new = list(pos)
                new[turn] = y
                a[r, index[(tuple(new), (turn + 1) % k)]] -= float(cb.probs[f])
    t = np.linalg.solve(a, np.ones(len(index)))
    return float(t[index[(tuple(starts), 0)]])

# -- jump impact and jump candidates (issue 26) ---------------------------------------
def impact_without(board, start=None):
    """Mean and variance from ``start`` with each jump removed alone: the board rebuilt
    without it and solved from scratch (dense), in the order of ``board.jumps``."""
    start = board.start if start is None else start
    out = []
    for src in board.jumps:
        smaller = board.replace(jumps={s: d for s, d in board.jumps.items() if s != src})
        t, var = naive_expected_dense(smaller)
        out.append((float(t[start]), float(var[start])))
    return out


def candidates_with(board, kind="both", start=None, pairs=None):
    """``change[a, b]``: expected throws from ``start`` with a jump ``a -> b`` added (the
    board rebuilt and solved from scratch) minus without; NaN where ``Board`` refuses the
    jump or ``kind`` excludes it. ``pairs``: only these ``(a, b)`` (others NaN)."""
    start = board.start if start is None else start
    n = board.size + 1
    base = naive_expected_dense(board)[0][start]
    out = np.full((n, n), np.nan)
    for a in range(n):
        for b in range(n):
            if pairs is not None and (a, b) not in pairs:
                continue
            if a in board.jumps or (kind == "ladder" and b <= a) or (kind == "snake" and b >= a):
                continue
            try:
                bigger = board.replace(jumps={**board.jumps, a: b})
            except ValueError:  # from the goal, onto itself, a cycle under chain=True
                continue
            out[a, b] = naive_expected_dense(bigger)[0][start] - base
    return out


def ranked_candidates(board, kind="both"):
    """``[(a, b, change), ...]``, largest change first: every jump ``a -> b`` that ``Board``
    accepts on a square without one (snakes only or ladders only as ``kind`` says) and the
    change of expected throws from the start it makes, the board rebuilt with it and solved
    by :func:`naive_expected_start` (no library solver)."""
    base = naive_expected_start(board)
    out = []
    for a in range(board.size + 1):
        for b in range(board.size + 1):
            if a in board.jumps or (kind == "ladder" and b <= a) or (kind == "snake" and b >= a):
                continue
            try:
                bigger = board.replace(jumps={**board.jumps, a: b})
            except ValueError:  # from the goal, onto itself, a cycle under chain=True
                continue
            out.append((a, b, naive_expected_start(bigger) - base))
    return sorted(out, key=lambda t: -t[2])


def dominated_naive(graph, root):
    """``dom[u, v]``: every path from ``root`` to ``v`` passes through ``u`` (for ``v``
    reachable): ``v`` is not reachable once ``u`` is taken out (``u == v``: True)."""
    n = graph.shape[0]
    succ = [list(graph.indices[graph.indptr[i]:graph.indptr[i + 1]]) for i in range(n)]

    def reach(skip):
        seen = set() if root == skip else {root}
        stack = list(seen)
        while stack:
            v = stack.pop()
            for w in succ[v]:
                if w != skip and w not in seen:
                    seen.add(w)
                    stack.append(w)
        return seen

    everything = reach(-1)
    dom = np.zeros((n, n), dtype=bool)
    for u in range(n):
        left = reach(u)
        for v in everything:
            dom[u, v] = v == u or v not in left
    return dom, everything


# --- export (issue 27) ---
def export_matrix(board):
    """The dense transition matrix, one throw at a time from the rules."""
    n = board.size + 1
    p = np.zeros((n, n))
    for x in range(n):
        for _, q, w in naive_outcomes(board, x):
            p[x, w] += q
    return p


def padded_dd_residual(moving, src, dst, prob, b, hi, lo):
    """``b - A (hi + lo)`` in double-double, every row padded to the longest (the layout
    :class:`snl_numeric._core.solve.certify.Rows` had): the twin of ``Rows.dd_residual``."""
    from snl_numeric._core.solve.eft import two_prod, two_sum

    m = len(moving)
    counts = np.bincount(src, minlength=m)
    order = np.argsort(src, kind="stable")
    slot = np.arange(len(src)) - np.repeat(np.cumsum(counts) - counts, counts)
    off_to = np.zeros((m, int(counts.max(initial=0))), dtype=np.intp)
    off_p = np.zeros(off_to.shape)
    off_to[src[order], slot] = dst[order]
    off_p[src[order], slot] = prob[order]
    rh, rl = b.copy(), np.zeros_like(b)
    for f in range(moving.shape[1]):
        p = moving[:, f, None]
        ph, pl = two_prod(p, hi)
        rh, e = two_sum(rh, -ph)
        rl = rl + (e - (pl + p * lo))
    for t in range(off_p.shape[1]):
        p, to = off_p[:, t, None], off_to[:, t]
        qh, ql = two_prod(p, hi[to])
        rh, e = two_sum(rh, qh)
        rl = rl + (e + (ql + p * lo[to]))
    return rh + rl


def xoshiro256ss(words):
    """xoshiro256** (Blackman and Vigna, the reference C code) in Python integers: an
    endless iterator of 64-bit outputs from the four state ``words``."""
    mask = (1 << 64) - 1
    s = [int(w) for w in words]

    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & mask

    while True:
        yield (rotl((s[1] * 5) & mask, 7) * 9) & mask
        t = (s[1] << 17) & mask
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)


# --- sensitivity ---
def sensitivity_matrices(board):
    """One dense 0/1 matrix per face of the dice: ``M_f[x, y] = 1`` when a throw of face
    ``f`` moves a token from ``x`` to ``y`` (the goal's row empty), from the rules."""
    n = board.size + 1
    out = []
    for face in board.dice.faces.tolist():
        m = np.zeros((n, n))
        for x in range(board.size):
            m[x, naive_move(board, x, face)] += 1.0
        out.append(m)
    return out


def sensitivity_answers(p, start, sure):
    """``(mean, variance)`` from ``start`` of the chain with the dense matrix ``p`` (rows
    need not sum to 1; the goal is the last state), over the squares ``sure``
    (``numpy.linalg.solve``). A complex ``p`` gives complex answers (the complex step
    ``Im f(x + i h) / h`` is a derivative with no subtraction in it)."""
    goal = len(p) - 1
    states = sorted(set(sure) - {goal})
    if start == goal:
        return 0.0, 0.0
    q = p[np.ix_(states, states)]
    a = np.eye(len(states)) - q
    t = np.linalg.solve(a, np.ones(len(states)))
    u = np.linalg.solve(a, t)
    i = states.index(start)
    return t[i].item(), (2 * u[i] - t[i] - t[i] ** 2).item()


def sensitivity_answers_exact(p, start, sure):
    """``(mean, variance)`` as ``sensitivity_answers`` for a matrix ``p`` of Fractions
    (nested lists), by Fraction Gauss-Jordan elimination."""
    goal = len(p) - 1
    states = sorted(set(sure) - {goal})
    if start == goal:
        return Fraction(0), Fraction(0)
    rows = [[Fraction(int(x == y)) - p[x][y] for y in states] for x in states]
    t = gauss_jordan([r[:] + [Fraction(1)] for r in rows])
    u = gauss_jordan([r[:] + [t[i]] for i, r in enumerate(rows)])
    i = states.index(start)
    return t[i], 2 * u[i] - t[i] - t[i] * t[i]


def _can_finish(p):
    """The states of the dense matrix ``p`` (the goal last) from which the goal can be
    reached, by growing the set backwards until it stops growing."""
    can = np.zeros(len(p), dtype=bool)
    can[-1] = True
    while True:
        grown = can | ((p[:, can] > 0).any(axis=1))
        if (grown == can).all():
            return can
        can = grown


def sensitivity_win(p, start, throws=2_000_000, tail=1e-16):
    """The first of two players' chance to win on the chain with the dense matrix ``p``
    (the goal last): ``sum_m p_m P(T >= m)`` from the distribution pushed throw by throw."""
    goal = len(p) - 1
    if start == goal:
        return 1.0
    mass = np.zeros(len(p))
    mass[start] = 1.0
    done, win = 0.0, 0.0
    live = _can_finish(p)
    live[goal] = False
    for _ in range(throws):
        step = mass @ p
        pm = step[goal]
        step[goal] = 0.0
        win += pm * (1.0 - done)
        done += pm
        mass = step
        if mass[live].sum() < tail:  # (mass that can never finish: no more wins)
            return win
    raise AssertionError(f"the mass left did not fall below {tail} in {throws} throws")


def sensitivity_win_derivative(p, start, i, j, throws=2_000_000, tail=1e-16):
    """``d sensitivity_win(p, start) / d p[i, j]`` by forward-mode differentiation of the
    same push (each mass carried with its derivative; exact arithmetic on the naive
    algorithm, like a complex step, in real arrays)."""
    goal = len(p) - 1
    if start == goal:
        return 0.0
    mass, dmass = np.zeros(len(p)), np.zeros(len(p))
    mass[start] = 1.0
    done = ddone = win = dwin = 0.0
    live = _can_finish(p)
    live[goal] = False
    for _ in range(throws):
        step = mass @ p
        dstep = dmass @ p
        dstep[j] += mass[i]
        pm, dpm = step[goal], dstep[goal]
        step[goal] = dstep[goal] = 0.0
        win += pm * (1.0 - done)
        dwin += dpm * (1.0 - done) - pm * ddone
        done += pm
        ddone += dpm
        mass, dmass = step, dstep
        if mass[live].sum() < tail and np.abs(dmass[live]).sum() < tail:
            return dwin
    raise AssertionError(f"the mass left did not fall below {tail} in {throws} throws")


def naive_visit_probability(board, start=None):
    """The chance of ever resting on each square from ``start`` (the goal reached surely):
    for each target ``j`` a dense solve of the hitting probabilities ``x_i = sum_k P_ik x_k``
    with ``x_j = 1`` and ``x = 0`` on the goal (``j`` not the goal)."""
    start = board.start if start is None else start
    n = board.size
    out = np.zeros(n + 1)
    if start == n:
        out[n] = 1.0
        return out
    for j in range(n + 1):
        if j == n or j == start:
            out[j] = 1.0
            continue
        states = [x for x in sorted(naive_reachable(board, start)) if x not in (j, n)]
        if j not in naive_reachable(board, start):
            continue
        index = {x: i for i, x in enumerate(states)}
        a = np.eye(len(states))
        b = np.zeros(len(states))
        for x in states:
            for _, p, w in naive_outcomes(board, x):
                if w == j:
                    b[index[x]] += p
                elif w != n:
                    a[index[x], index[w]] -= p
        out[j] = np.linalg.solve(a, b)[index[start]]
    return out


def players_joint_fraction(board, start=None):
    """Both players' chances to win, exactly, by the alternating joint chain (state: both
    squares and whose turn; Fraction Gauss-Jordan, tiny boards). States from which neither
    token can reach the goal have value 0 and are left out."""
    start = board.start if start is None else start
    n = board.size
    if start == n:
        return Fraction(1), Fraction(0)
    can = {x for x in range(n + 1) if n in naive_reachable(board, x)}
    states = [(a, b, t) for a in range(n) for b in range(n) for t in (0, 1)
              if a in can or b in can]
    if (start, start, 0) not in states:
        return Fraction(0), Fraction(0)
    index = {s: i for i, s in enumerate(states)}
    m = len(states)
    probs = [_fraction(p) for p in board.dice.probs]
    out = []
    for player in (0, 1):
        rows = [[Fraction(int(i == j)) for j in range(m)] + [Fraction(0)] for i in range(m)]
        for (a, b, t), i in index.items():
            here = a if t == 0 else b
            for face, p in zip(board.dice.faces.tolist(), probs, strict=True):
                w = naive_move(board, here, face)
                if w == n:
                    rows[i][m] += p if t == player else 0
                    continue
                nxt = (w, b, 1) if t == 0 else (a, w, 0)
                if nxt in index:
                    rows[i][index[nxt]] -= p
        out.append(gauss_jordan(rows)[index[(start, start, 0)]])
    return tuple(out)


# --- any absorbing chain (snl_numeric.Chain) -------------------------------------------------


def chain_dense(P, absorbing):
    """Dense ``numpy.linalg.solve`` on ``I - Q`` of a chain given as a (sparse or dense)
    matrix and its absorbing states: ``(mean, var, B, cond)`` over all states in the chain's
    order: expected steps and variance (inf where absorption is not sure, 0 on absorbing
    states), ``B[i, j]`` the chance of ending in ``absorbing[j]`` and ``cond[i, j]`` the
    expected steps given that end (NaN where it cannot happen)."""
    P = P.toarray() if hasattr(P, "toarray") else np.asarray(P, dtype=float)
    n = len(P)
    absorbing = sorted(absorbing)
    transient = [i for i in range(n) if i not in absorbing]
    # states that reach an absorbing state (BFS backwards), then those that do so surely
    edges = {i: [j for j in range(n) if P[i, j] > 0] for i in range(n)}
    live = set(absorbing)
    changed = True
    while changed:
        changed = False
        for i in transient:
            if i not in live and any(j in live for j in edges[i]):
                live.add(i)
                changed = True

    def reach(i):
        seen, todo = {i}, [i]
        while todo:
            for j in edges[todo.pop()]:
                if j not in seen:
                    seen.add(j)
                    todo.append(j)
        return seen

    sure = [i for i in transient if reach(i) <= live]
    mean = np.full(n, np.inf)
    var = np.full(n, np.inf)
    mean[absorbing] = var[absorbing] = 0.0
    if sure:
        Q = P[np.ix_(sure, sure)]
        a = np.eye(len(sure)) - Q
        t = np.linalg.solve(a, np.ones(len(sure)))
        u = np.linalg.solve(a, t)
        mean[sure] = t
        var[sure] = 2 * u - t - t * t
    B = np.zeros((n, len(absorbing)))
    cond = np.full((n, len(absorbing)), np.nan)
    for j, s in enumerate(absorbing):
        B[s, j] = 1.0
        cond[s, j] = 0.0
    lv = [i for i in transient if i in live]
    if lv:
        a = np.eye(len(lv)) - P[np.ix_(lv, lv)]
        b = np.linalg.solve(a, P[np.ix_(lv, absorbing)])
        g = np.linalg.solve(a, b)
        # a state that cannot reach an end has chance 0 of it (not LU's roundings)
        for j, s in enumerate(absorbing):
            b[[k for k, i in enumerate(lv) if s not in reach(i)], j] = 0.0
        B[lv] = b
        with np.errstate(invalid="ignore", divide="ignore"):
            cond[lv] = np.where(b > 0, g / b, np.nan)
    return mean, var, B, cond


def chain_exact_mean(P, states):
    """The expected steps from each of ``states`` (states whose absorption is sure, so each
    step from them stays among them or is absorbed) with no rounding, as the library
    defines a chain's answers: each row scaled to sum to exactly 1 (``Chain``'s doc). The
    float entries read as the Fractions they are, Gauss-Jordan elimination; a list of
    Fractions in the order of ``states``. For chains of a few dozen states.

    (``chain_dense`` solves the rows as given: where they sum to 1 only within roundings,
    the two differ by about the chain's condition number times those roundings.)"""
    P = P.toarray() if hasattr(P, "toarray") else np.asarray(P, dtype=float)
    states = [int(i) for i in states]
    index = {x: k for k, x in enumerate(states)}
    rows = []
    for x in states:
        entries = [(int(j), Fraction(float(P[x, j]))) for j in np.flatnonzero(P[x])]
        total = sum((p for _, p in entries), Fraction(0))
        row = [Fraction(0)] * (len(states) + 1)
        row[index[x]] = total  # s x_i - sum_j P_ij x_j = s: x_i = 1 + sum_j (P_ij / s) x_j
        row[-1] = total
        for j, p in entries:
            if j in index:
                row[index[j]] -= p
        rows.append(row)
    return gauss_jordan(rows)


def chain_conditional_variance(P, absorbing):
    """The variance of the steps given each end, by building each conditioned chain (Doob's
    h-transform) densely: over the transient states ``i`` with ``B_j(i) > 0`` (``B`` from
    :func:`chain_dense`), ``Q~[i, k] = Q[i, k] B_j(k) / B_j(i)``, then the conditioned
    chain's own mean ``t~ = (I - Q~)^-1 1`` and variance ``2 (I - Q~)^-1 t~ - t~ - t~^2``.
    ``(n, k)``: NaN where the end cannot be reached, 0 on the end itself."""
    P = P.toarray() if hasattr(P, "toarray") else np.asarray(P, dtype=float)
    n = len(P)
    absorbing = sorted(absorbing)
    _, _, B, _ = chain_dense(P, absorbing)
    var = np.full((n, len(absorbing)), np.nan)
    for j, s in enumerate(absorbing):
        var[s, j] = 0.0
        on = [i for i in range(n) if i not in absorbing and B[i, j] > 0]
        if not on:
            continue
        bj = B[on, j]
        qt = P[np.ix_(on, on)] * bj[None, :] / bj[:, None]
        a = np.eye(len(on)) - qt
        t = np.linalg.solve(a, np.ones(len(on)))
        var[on, j] = 2 * np.linalg.solve(a, t) - t - t * t
    return var



def chain_pmf(P, absorbing, start, steps):
    """``pmf[k] = P(T = k)``, ``k = 0 .. steps``, for the chain with the (sparse or dense)
    matrix ``P`` and its absorbing states, from ``start``, by matrix powers:
    ``P(T = k) = e_start Q^(k-1) R 1`` (``Q`` transient to transient, ``R`` transient to
    absorbing; each row scaled to sum to 1, as the library reads a chain)."""
    P = P.toarray() if hasattr(P, "toarray") else np.asarray(P, dtype=float)
    P = P / P.sum(axis=1, keepdims=True)
    absorbing = sorted(absorbing)
    pmf = np.zeros(steps + 1)
    if start in absorbing:
        pmf[0] = 1.0
        return pmf
    transient = [i for i in range(len(P)) if i not in absorbing]
    Q = P[np.ix_(transient, transient)]
    r = P[np.ix_(transient, absorbing)].sum(axis=1)
    row = np.zeros(len(transient))
    row[transient.index(start)] = 1.0
    for k in range(1, steps + 1):
        pmf[k] = row @ r
        row = row @ Q
    return pmf

# -- issue 50: optimal play on matrices (stochastic shortest path) ----------------------
def ssp_brute_force(mats, costs=None, *, objective="min", absorbing=None):
    """Optimal expected costs on every state of one matrix per action, by trying every
    deterministic stationary policy: each evaluated exactly (``Fraction``: each row's
    floats divided by their exact sum, Gauss-Jordan elimination) on the states from which
    it ends surely (every state it reaches can reach an absorbing state). Under "min" the
    least value per state (``None`` where no policy ends surely); under "max" the largest,
    ``None`` where some policy may never end. ``costs[a][x]``: 1 when None. Tiny problems
    only (``A ** transient`` policies)."""
    from itertools import product

    mats = [np.asarray(m.toarray() if hasattr(m, "toarray") else m, dtype=float)
            for m in mats]
    n = mats[0].shape[0]
    if absorbing is None:
        absorbing = [x for x in range(n) if all(m[x, x] == 1.0 for m in mats)]
    absorbing = set(absorbing)
    transient = [x for x in range(n) if x not in absorbing]
    rows = {}
    for a, m in enumerate(mats):
        for x in transient:
            ps = {y: Fraction(float(m[x, y])) for y in range(n) if m[x, y] > 0}
            total = sum(ps.values())
            rows[a, x] = {y: q / total for y, q in ps.items()}

    def cost(a, x):
        return Fraction(1) if costs is None else Fraction(float(costs[a][x]))

    best = {x: None for x in transient}
    infinite = set()
    for pol in product(range(len(mats)), repeat=len(transient)):
        choice = dict(zip(transient, pol, strict=True))
        ends = set(absorbing)  # can reach absorption
        changed = True
        while changed:
            changed = False
            for x in transient:
                if x not in ends and any(y in ends for y in rows[choice[x], x]):
                    ends.add(x)
                    changed = True
        sure = set(x for x in transient if x in ends)
        changed = True
        while changed:  # drop states that may reach a state that cannot end
            changed = False
            for x in list(sure):
                if any(y not in sure and y not in absorbing for y in rows[choice[x], x]):
                    sure.discard(x)
                    changed = True
        infinite |= set(transient) - sure
        order = sorted(sure)
        pos = {x: i for i, x in enumerate(order)}
        a_rows = []
        for x in order:
            row = [Fraction(0)] * (len(order) + 1)
            row[pos[x]] += 1
            for y, q in rows[choice[x], x].items():
                if y in pos:
                    row[pos[y]] -= q
            row[-1] = cost(choice[x], x)
            a_rows.append(row)
        values = gauss_jordan(a_rows) if order else []
        for x, v in zip(order, values, strict=True):
            if best[x] is None or (v < best[x] if objective == "min" else v > best[x]):
                best[x] = v
    if objective == "max":
        for x in infinite:
            best[x] = None
    return {**best, **{x: Fraction(0) for x in absorbing}}



def ssp_proper_values(mats, costs=None, *, sweeps=1_000_000, tol=1e-14):
    """The least expected cost over the plays that finish surely ("min", proper policies),
    on every state of one matrix per action, by value iteration from above: first the
    states from which some play finishes surely (drop every action that may leave the set,
    then the states that cannot reach an absorbing state with the actions left, until
    nothing changes), then Jacobi sweeps from the values of a proper play found on the way
    (above the answer). With free steps
    the Bellman equation has many solutions (a free loop that never ends has cost 0:
    iteration from 0 finds that one); the least over proper policies is the only one above
    it, and iteration from above converges to it (Bertsekas and Yu, Stochastic shortest
    path problems under weak conditions, 2016). Returns ``(values, policy)``: ``inf``
    and ``-1`` where no play finishes surely (``policy``: each state's first action within
    ``1e-9`` of the best, -1 on the absorbing states). Dense loops; small chains only."""
    mats = [np.asarray(m.toarray() if hasattr(m, "toarray") else m, dtype=float)
            for m in mats]
    mats = [m / m.sum(axis=1, keepdims=True) for m in mats]
    n_act, n = len(mats), mats[0].shape[0]
    cost = np.ones((n_act, n)) if costs is None else np.broadcast_to(
        np.asarray([np.broadcast_to(c, (n,)) for c in costs], dtype=float), (n_act, n))
    absorbing = [x for x in range(n) if all(m[x, x] == 1.0 for m in mats)]
    inside = np.ones(n, dtype=bool)
    while True:
        ok = [[bool(np.all(inside[mats[a][x] > 0])) for x in range(n)] for a in range(n_act)]
        reach = np.zeros(n, dtype=bool)
        reach[absorbing] = True
        down = np.full(n, -1)  # an action that moves closer to the end: a proper play
        grown = True
        while grown:
            grown = False
            for x in range(n):
                for a in range(n_act):
                    if (inside[x] and not reach[x] and ok[a][x]
                            and np.any(reach[mats[a][x] > 0])):
                        reach[x], down[x], grown = True, a, True
        if np.array_equal(reach, inside):
            break
        inside = reach
    transient = [x for x in range(n) if inside[x] and x not in absorbing]
    v = np.where(inside, 0.0, math.inf)
    if transient:  # start from the proper play's own values: above the answer
        a_mat = np.eye(len(transient)) - np.array(
            [mats[down[x]][x, transient] for x in transient])
        v[transient] = np.linalg.solve(a_mat, [cost[down[x], x] for x in transient])
    for _ in range(sweeps):  # from above: each sweep lowers v towards the answer
        q = np.array([cost[a] + mats[a] @ np.where(inside, v, 0.0) for a in range(n_act)])
        q[~np.array(ok)] = math.inf
        new = v.copy()
        new[transient] = q[:, transient].min(axis=0)
        done = np.all(np.abs(new[transient] - v[transient])
                      <= tol * np.maximum(new[transient], 1.0))
        v = new
        if done:
            break
    else:
        raise RuntimeError("ssp_proper_values: value iteration did not converge")
    q = np.array([cost[a] + mats[a] @ np.where(inside, v, 0.0) for a in range(n_act)])
    q[~np.array(ok)] = math.inf
    policy = np.full(n, -1)
    for x in transient:
        policy[x] = int(np.argmax(q[:, x] <= q[:, x].min() * (1 + 1e-9) + 1e-300))
    return v, policy


def ssp_is_proper(mats, policy, states):
    """Whether the policy (one action per state, -1 on the absorbing ones) finishes surely
    from every state of ``states``: it never leaves them but for an absorbing state, and
    every one of them can reach an absorbing state (breadth-first, backwards)."""
    mats = [np.asarray(m.toarray() if hasattr(m, "toarray") else m, dtype=float)
            for m in mats]
    n = mats[0].shape[0]
    states = set(int(x) for x in states)
    ends = set(x for x in range(n) if policy[x] < 0)
    succ = {x: set(np.flatnonzero(mats[policy[x]][x] > 0).tolist()) for x in states}
    if any(not succ[x] <= states | ends for x in states):
        return False
    reached = set(ends)
    grown = True
    while grown:
        grown = False
        for x in states - reached:
            if succ[x] & reached:
                reached.add(x)
                grown = True
    return states <= reached

def alias_table_loop(probs):
    """Walker's alias table with Vose's pairing for one distribution, in plain Python (lists
    as stacks, exact integers for the thresholds ``floor(q * 2**64)``): the slow twin of
    ``snl_numeric._core.rng.alias_table``. Returns ``(alias, thresh)``."""
    k = len(probs)
    q = [float(x) * k for x in probs]
    alias = list(range(k))
    small = [i for i in range(k) if q[i] < 1.0]
    large = [i for i in range(k) if q[i] >= 1.0]
    while small and large:
        s, g = small.pop(), large.pop()
        alias[s] = g
        q[g] = (q[g] + q[s]) - 1.0
        (small if q[g] < 1.0 else large).append(g)
    for i in small + large:  # rounding leftovers: full columns
        q[i] = 1.0
    top = 2**64 - 1
    thresh = [min(int(math.ldexp(x, 64)), top) for x in q]
    return np.array(alias, dtype=np.int64), np.array(thresh, dtype=np.uint64)


def alias_rows_loop(probs):
    """An alias table per row of ``probs``, :func:`alias_table_loop` row by row."""
    alias = np.empty(probs.shape, dtype=np.int64)
    thresh = np.empty(probs.shape, dtype=np.uint64)
    for i, row in enumerate(probs):
        alias[i], thresh[i] = alias_table_loop(row)
    return alias, thresh


def ruin(N: int, p: float) -> np.ndarray:
    """Gambler's ruin on 0..N: up with ``p``, down with ``1 - p``; 0 and N absorbing."""
    P = np.zeros((N + 1, N + 1))
    P[0, 0] = P[N, N] = 1.0
    for i in range(1, N):
        P[i, i + 1] = p
        P[i, i - 1] = 1.0 - p
    return P


# -- players who meet (issue 51): the joint chain written from the capture rules -------------
def meet_joint(board, k, starts=None, dice=None):
    """``(wins, no_winner, mean_throws, mean_rounds)`` of ``k`` players on ``board`` under its
    capture rule, from the rules in words: a state is (every position, whose turn), found
    by a search from the start; the mover's token moves as in the one-player game
    (:func:`naive_move`), then the capture rule applies (:func:`capture_after`: a captured
    token sent onto the goal wins at once; ``capture=None`` is the game without
    interaction): the one exact reference under capture of every test. Dense
    ``numpy.linalg.solve`` over the states from which someone can still win; the rest never
    end (``no_winner``; the means are then inf).
    """
    starts = [board.start if s is None else s for s in (starts or [None] * k)]
    per = [board if d is None else board.replace(dice=d) for d in (dice or [None] * k)]
    size = board.size
    if size in starts:
        wins = np.zeros(k)
        wins[starts.index(size)] = 1.0
        return wins, 0.0, 0.0, 0.0

    def throws(state):
        """(probability, next state or ('win', winner)) for each face of the mover."""
        pos, turn = state
        out = []
        for face, p in zip(per[turn].dice.faces, per[turn].dice.probs, strict=True):
            old = pos[turn]
            r = naive_move(per[turn], old, int(face))
            if r == size:
                out.append((float(p), ("win", turn)))
                continue
            new = list(pos)
            new[turn] = r
            new, home = capture_after(board, new, turn, old, starts)
            if home is not None:  # a captured token sent onto the goal wins
                out.append((float(p), ("win", home)))
                continue
            out.append((float(p), (tuple(new), (turn + 1) % k)))
        return out

    first = (tuple(starts), 0)
    index, order, edges = {first: 0}, [first], {}
    queue = deque([first])
    while queue:
        state = queue.popleft()
        edges[state] = throws(state)
        for _, nxt in edges[state]:
            if nxt[0] != "win" and nxt not in index:
                index[nxt] = len(order)
                order.append(nxt)
                queue.append(nxt)
    ends = {s for s in order if any(n[0] == "win" for _, n in edges[s])}  # backward search
    changed = True
    while changed:
        changed = False
        for s in order:
            if s not in ends and any(n[0] != "win" and n in ends for _, n in edges[s]):
                ends.add(s)
                changed = True
    live = [s for s in order if s in ends]
    if first not in ends:
        return np.zeros(k), 1.0, math.inf, math.inf
    at = {s: i for i, s in enumerate(live)}
    a = np.eye(len(live))
    rhs = np.zeros((len(live), k + 3))  # wins, nobody, throws, rounds
    for s in live:
        r = at[s]
        rhs[r, k + 1] = 1.0
        rhs[r, k + 2] = 1.0 if s[1] == 0 else 0.0
        for p, nxt in edges[s]:
            if nxt[0] == "win":
                rhs[r, nxt[1]] += p
            elif nxt in at:
                a[r, at[nxt]] -= p
            else:
                rhs[r, k] += p
    sol = np.linalg.solve(a, rhs)[at[first]]
    no_winner = float(sol[k])
    if no_winner > 0.0:
        return sol[:k], no_winner, math.inf, math.inf
    return sol[:k], 0.0, float(sol[k + 1]), float(sol[k + 2])


def naive_envelope(board, active):
    """The envelope of the backward moves of the direct solver's SuperLU system (the
    squares of ``active`` that some square of it moves to, in increasing order): for each
    such square ``t`` that a square ``x > t`` of the system reaches in one throw, the
    squares of the system above ``t`` up to the highest such ``x``, counted; summed."""
    n = board.size
    system = [x for x in range(n + 1) if active[x]]
    fed = sorted({w for x in system for _, p, w in naive_outcomes(board, x)
                  if p > 0 and w != x and w != n and active[w]})
    top = {}
    for x in fed:
        for _, _, w in naive_outcomes(board, x):
            if w in top or w in fed:
                if w < x:
                    top[w] = max(top.get(w, x), x)
    return sum(fed.index(top[t]) - fed.index(t) for t in top)
