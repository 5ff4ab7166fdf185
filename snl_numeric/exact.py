"""Exact rational answers: expected throws and variance as fractions.

When every probability of the dice is a rational number, so is every moment of the
number of throws: ``t = N 1`` and ``u = N t`` with ``N = (I - Q_SS)^-1`` over the squares
``S`` that reach the goal surely, and the variance ``2 u - t - t**2``. This module solves
those systems in exact rational arithmetic (``fractions.Fraction``); it is what
``expected_throws(board, exact=True)`` and friends dispatch to.

**Reading the dice as fractions.** A :class:`~snl_numeric.Dice` stores doubles. Each
probability ``p`` is read as the simplest fraction with denominator at most
``2**26`` that rounds to ``p`` (two such fractions differ by more than ``2**-52``, so
the one that rounds to ``p`` is unique): ``"d6"``, ``"2d6"``, the default die,
``Fraction`` values given in a mapping (``{1: Fraction(1, 3), ...}``) and decimals such
as ``0.1`` are read as the fractions they were written as. When those do not sum to
exactly 1, the doubles' own binary values (``Fraction(p)``, exact) are used if *they*
sum to 1 (a die such as ``{1: 2**-30, 2: 1 - 2**-30}``). Otherwise the dice have no
rational reading and ``ValueError`` says so.

**Elimination.** Throws mostly move forward, so the squares are eliminated from the
goal down: the expected throws from square ``x`` are an affine form
``c_x + sum_y a_xy s_y`` in the unknowns ``s_y`` of the squares ``y`` that some throw
moves *back* to (snake tails, bounces; a throw that stays on ``x`` is divided out), each
form built from the forms of the squares above ``x``. The forms of those backward
targets themselves give a dense system of ``k`` equations (``k`` the number of distinct
backward targets: the Schur complement of ``I - Q`` on them), solved by Gauss-Jordan
elimination; every other square then follows by one substitution. The work is about
``n f k + k**3`` operations on fractions (``n`` squares, ``f`` faces), each on numbers
whose length grows in proportion to ``n``: a tenth of a second for Milton Bradley
(``k = 8``), 12 seconds for 1,000 squares and 60 snakes (``k = 54``). Boards whose cost
``n (n f k + k**3)`` exceeds :data:`MAX_WORK` (about 3 seconds) are refused, with the
estimate, before any work. (Modular elimination vectorised over many primes with
rational reconstruction would reach larger boards; not done.)

**Two players.** :func:`exact_win` gives both players' chances to win from
``sigma = sum_n P(T = n)**2``, the absorption of the pair chain (both tokens moving at
once) into (goal, goal), eliminated the same way over pairs of squares: boards of a dozen
or two squares (:data:`MAX_WIN_WORK`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from .compile import CompiledBoard

__all__ = ["MAX_WORK", "MAX_WIN_WORK", "MAX_DENOMINATOR", "exact_probabilities",
           "exact_moments", "exact_win", "check_exact"]

#: Largest denominator a probability of the dice is read with (see the module docstring).
MAX_DENOMINATOR = 2**26
#: Largest cost ``n (n f k + k**3)`` of an exact solve (fraction operations times the
#: squares, as the numbers' length grows with them): a few seconds (docs: Performance,
#: Limits).
MAX_WORK = 150_000_000
#: The same for the win chances' pair chain, ``m (m**2 f**2 k + k**3)`` over the ``m``
#: squares that can finish and the pairs' ``k`` backward targets.
MAX_WIN_WORK = 20_000_000


def check_exact(exact: object) -> bool:
    """``exact`` as a bool (``TypeError`` unless it is one)."""
    if not isinstance(exact, (bool, np.bool_)):
        raise TypeError(f"exact must be True or False, got {exact!r}")
    return bool(exact)


def exact_probabilities(faces: Sequence[int], probs: Sequence[float]) -> tuple[Fraction, ...]:
    """The dice's probabilities as fractions that sum to exactly 1.

    Parameters
    ----------
    faces, probs : sequences
        The dice's faces (for messages) and probabilities (doubles).

    Returns
    -------
    tuple of Fraction

    Raises
    ------
    ValueError
        When neither the simplest fractions (denominators up to ``MAX_DENOMINATOR``)
        rounding to the probabilities nor their binary values sum to 1.

    Examples
    --------
    >>> from snl_numeric import Dice
    >>> d = Dice.sum_of(2, 6)
    >>> exact_probabilities(d.faces, d.probs)[:2]
    (Fraction(1, 36), Fraction(1, 18))
    >>> exact_probabilities([1, 2], [0.1, 0.9])
    (Fraction(1, 10), Fraction(9, 10))
    """
    values = [float(p) for p in probs]
    simple = [Fraction(p).limit_denominator(MAX_DENOMINATOR) for p in values]
    if all(float(q) == p for q, p in zip(simple, values, strict=True)) and sum(simple) == 1:
        return tuple(simple)
    binary = [Fraction(p) for p in values]
    if sum(binary) == 1:
        return tuple(binary)
    shown = {int(f): p for f, p in zip(faces, values, strict=True)}
    raise ValueError(
        f"the dice {shown} have no exact rational reading: neither the simplest fractions "
        f"(denominators up to 2**26) that round to the probabilities nor their binary "
        f"values sum to exactly 1; give the probabilities as fractions.Fraction values "
        f"that sum to 1 (or a string such as '2d6')")


def _moves(cb: CompiledBoard, probs: tuple[Fraction, ...], active: np.ndarray
           ) -> tuple[list[dict[int, Fraction]], list[Fraction]]:
    """Per square: ``{target: probability}`` over active targets other than itself, and the
    probability of staying (exact)."""
    moves: list[dict[int, Fraction]] = [{} for _ in range(cb.n_states)]
    stay = [Fraction(0)] * cb.n_states
    for x in np.flatnonzero(active).tolist():
        row = moves[x]
        for y, p in zip(cb.succ[x].tolist(), probs, strict=True):
            if y == x:
                stay[x] += p
            elif active[y]:
                row[y] = row.get(y, Fraction(0)) + p
    return moves, stay


def _work(cb: CompiledBoard, active: np.ndarray) -> tuple[int, int]:
    """``(backward targets k, cost n (n f k + k**3))``."""
    xs = np.flatnonzero(active)
    succ = cb.succ[xs]
    back = (succ < xs[:, None]) & active[succ]
    k = len(np.unique(succ[back]))
    return k, len(xs) * (len(xs) * cb.succ.shape[1] * (k + 1) + k**3)


def _solve(moves: list[dict[int, Fraction]], stay: list[Fraction], active: np.ndarray,
           rhs: list[Fraction]) -> list[Fraction]:
    """``x = (I - Q)^-1 rhs`` over the active squares, exactly (zeros elsewhere)."""
    squares = np.flatnonzero(active).tolist()
    symbols = sorted({y for x in squares for y in moves[x] if y < x})
    sym = {y: i for i, y in enumerate(symbols)}
    const: dict[int, Fraction] = {}
    coef: dict[int, dict[int, Fraction]] = {}
    for x in reversed(squares):  # from the goal down: forms in the backward targets
        c = rhs[x]
        a: dict[int, Fraction] = {}
        for y, p in moves[x].items():
            if y in sym:
                a[sym[y]] = a.get(sym[y], Fraction(0)) + p
            else:  # y > x and not a symbol: its form is known
                c += p * const[y]
                for m, v in coef[y].items():
                    a[m] = a.get(m, Fraction(0)) + p * v
        if stay[x]:
            scale = 1 / (1 - stay[x])
            c *= scale
            a = {m: v * scale for m, v in a.items()}
        const[x], coef[x] = c, a
    k = len(symbols)
    rows = []
    for i, y in enumerate(symbols):  # s_y - sum_m a_ym s_m = c_y
        row = [Fraction(0)] * (k + 1)
        row[i] = Fraction(1)
        for m, v in coef[y].items():
            row[m] -= v
        row[k] = const[y]
        rows.append(row)
    s = _gauss_jordan(rows)
    out = [Fraction(0)] * len(active)
    for x in squares:
        out[x] = const[x] + sum((v * s[m] for m, v in coef[x].items()), Fraction(0))
    return out


def _gauss_jordan(rows: list[list[Fraction]]) -> list[Fraction]:
    """Solve the augmented rows (``k x (k + 1)``, an M-matrix: nonzero pivots in order)."""
    k = len(rows)
    for c in range(k):
        piv = next(r for r in range(c, k) if rows[r][c] != 0)
        rows[c], rows[piv] = rows[piv], rows[c]
        inv = 1 / rows[c][c]
        pivot = [v * inv for v in rows[c]]
        rows[c] = pivot
        for r in range(k):
            f = rows[r][c]
            if r != c and f != 0:
                rows[r] = [v - f * w if w else v for v, w in zip(rows[r], pivot, strict=True)]
    return [rows[i][k] for i in range(k)]


def exact_moments(cb: CompiledBoard, *, variance: bool = True
                  ) -> tuple[tuple[Fraction | float, ...], tuple[Fraction | float, ...] | None]:
    """Expected throws and (with ``variance``) variances from every square, exactly.

    Parameters
    ----------
    cb : CompiledBoard
    variance : bool
        Solve the second system too.

    Returns
    -------
    (mean, var) : tuples of Fraction, length ``size + 1``
        ``math.inf`` on squares from which the goal is not reached surely; ``var`` is
        ``None`` without ``variance``. Cached on the compiled board.

    Raises
    ------
    ValueError
        When the dice have no rational reading (:func:`exact_probabilities`), or the
        board needs more than :data:`MAX_WORK` fraction operations.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> mean, var = exact_moments(Board(3, dice={1: 0.5, 2: 0.5}).compiled)
    >>> mean[0], var[0]
    (Fraction(9, 4), Fraction(3, 16))
    """
    mean = cb.cache.get("exact mean", lambda: _exact_mean(cb))
    if not variance:
        return mean, None
    return mean, cb.cache.get("exact variance", lambda: _exact_variance(cb, mean))


def _setup(cb: CompiledBoard) -> tuple[list[dict[int, Fraction]], list[Fraction], np.ndarray]:
    """The exact moves (cached), refused past :data:`MAX_WORK`."""
    return cb.cache.get("exact moves", lambda: _exact_moves(cb))


def _exact_moves(cb: CompiledBoard
                 ) -> tuple[list[dict[int, Fraction]], list[Fraction], np.ndarray]:
    probs = exact_probabilities(cb.faces.tolist(), cb.probs.tolist())
    active = cb.sure.copy()
    active[cb.size] = False
    k, work = _work(cb, active)
    if work > MAX_WORK:
        raise ValueError(
            f"exact answers for this board would take about {work / MAX_WORK * 3:.0f} "
            f"seconds: cost {work:,} = {int(active.sum()):,} squares x ({int(active.sum()):,} "
            f"squares x {cb.succ.shape[1]} faces x {k + 1:,} backward targets + their "
            f"{k:,}x{k:,} system), on fractions whose length grows with the board; the limit "
            f"is {MAX_WORK:,} (about 3 seconds); use the floating-point answer "
            f"(exact=False), certified by solver_report")
    return *_moves(cb, probs, active), active


def _exact_mean(cb: CompiledBoard) -> tuple[Fraction | float, ...]:
    moves, stay, active = _setup(cb)
    t = _solve(moves, stay, active, [Fraction(1)] * cb.n_states)
    return _with_inf(cb, t)


def _exact_variance(cb: CompiledBoard, mean: tuple[Fraction | float, ...]
                    ) -> tuple[Fraction | float, ...]:
    moves, stay, active = _setup(cb)
    t = [v if active[x] and isinstance(v, Fraction) else Fraction(0)
         for x, v in enumerate(mean)]
    u = _solve(moves, stay, active, t)
    return _with_inf(cb, [2 * u[x] - t[x] - t[x] ** 2 for x in range(cb.n_states)])


def _with_inf(cb: CompiledBoard, values: list[Fraction]) -> tuple[Fraction | float, ...]:
    sure = cb.sure
    out: list[Fraction | float] = [v if sure[x] else math.inf for x, v in enumerate(values)]
    out[cb.size] = Fraction(0)
    return tuple(out)


def exact_win(cb: CompiledBoard, start: int) -> tuple[Fraction, Fraction]:
    """The chances that the first and the second of two players (both on ``start``, the
    same board) win, exactly.

    With ``p_n = P(T = n)`` and ``phi = sum_n p_n`` the chance to finish, the first player
    wins with ``sum_n p_n P(T >= n) = phi - (phi**2 - sigma) / 2`` and the second with
    ``phi - (phi**2 + sigma) / 2``, where ``sigma = sum_n p_n**2`` is the chance that two
    independent tokens finish on the same throw: the absorption probability of the pair
    chain (both tokens move at once) into (goal, goal), solved by the same elimination
    over pairs of squares that can finish. The pairs make this a small-board tool: the
    cost counts pairs and their backward targets, refused past :data:`MAX_WORK`.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> exact_win(Board(2, dice={1: 0.5, 2: 0.5}).compiled, 0)
    (Fraction(3, 4), Fraction(1, 4))
    """
    return cb.cache.get(f"exact win from {start}", lambda: _exact_win(cb, start))


def _exact_win(cb: CompiledBoard, start: int) -> tuple[Fraction, Fraction]:
    goal = cb.size
    if start == goal:
        return Fraction(1), Fraction(0)
    probs = exact_probabilities(cb.faces.tolist(), cb.probs.tolist())
    live = cb.reach[0] > 0
    live[goal] = False
    if not live[start]:
        return Fraction(0), Fraction(0)
    squares = np.flatnonzero(live).tolist()
    m = len(squares)
    pos = {x: i for i, x in enumerate(squares)}
    one: list[list[tuple[int, Fraction]]] = []  # per live square: (target or -1 goal, p)
    for x in squares:
        row: dict[int, Fraction] = {}
        for y, p in zip(cb.succ[x].tolist(), probs, strict=True):
            key = -1 if y == goal else pos.get(y, -2)
            row[key] = row.get(key, Fraction(0)) + p
        one.append([(k, p) for k, p in row.items() if k != -2])
    pairs = m * m
    back = {b * m + c for i in range(m) for j in range(m) for b, _ in one[i]
            for c, _ in one[j] if b >= 0 and c >= 0 and b * m + c < i * m + j}
    k = len(back)
    work = m * (pairs * len(probs) ** 2 * (k + 1) + k**3)
    if work > MAX_WIN_WORK:
        raise ValueError(
            f"the exact win chances of this board would take the pair chain of its "
            f"{m:,} squares that can finish ({pairs:,} pairs, {k:,} backward targets; "
            f"cost {work:,}, the limit is {MAX_WIN_WORK:,}, about 3 seconds): exact=True "
            f"is for small boards; use the floating-point answer")
    moves: list[dict[int, Fraction]] = [{} for _ in range(pairs)]
    stay = [Fraction(0)] * pairs
    both = [Fraction(0)] * pairs
    for i in range(m):
        for j in range(m):
            here = i * m + j
            for b, p in one[i]:
                for c, q in one[j]:
                    if b == -1 and c == -1:
                        both[here] += p * q
                    elif b >= 0 and c >= 0:
                        there = b * m + c
                        if there == here:
                            stay[here] += p * q
                        else:
                            moves[here][there] = moves[here].get(there, Fraction(0)) + p * q
    sigma = _solve(moves, stay, np.ones(pairs, dtype=bool), both)[pos[start] * (m + 1)]
    single: list[dict[int, Fraction]] = [{} for _ in range(m)]
    stay1 = [Fraction(0)] * m
    finish = [Fraction(0)] * m
    for i in range(m):
        for b, p in one[i]:
            if b == -1:
                finish[i] += p
            elif b == i:
                stay1[i] += p
            else:
                single[i][b] = single[i].get(b, Fraction(0)) + p
    phi = _solve(single, stay1, np.ones(m, dtype=bool), finish)[pos[start]]
    return phi - (phi * phi - sigma) / 2, phi - (phi * phi + sigma) / 2
