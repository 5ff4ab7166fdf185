"""``design_board(..., objective="fair", players=k)``: layouts with the smallest first-player edge.

The first player's edge of ``k`` players on one board (each from its start square, with its
dice) is ``w_0 - 1/k`` (:func:`~snl_numeric.first_player_advantage`). Without a capture rule
the players are independent and

.. math::

    w_0 = \\sum_{n \\ge 1} p_n\\, S(n - 1)^{k - 1},

``p_n = P(T = n)`` the length distribution of one player and ``S(n) = P(T > n)``; for two
players ``w_0 - 1/2 = \\tfrac12 \\sum_n p_n^2 > 0`` on every board where the goal is
reached: **no layout makes identical players fair**. The search can only make the edge
small (long, spread-out games); to remove it, give the players a handicap with
:func:`~snl_numeric.fair_starts` (other start squares, extra throws, other dice).

Independent players: each batch of candidate layouts is evaluated at once by a vectorised
push of the length distribution, every candidate's mass moved one throw by one sparse
product with the block-diagonal matrix of all the candidates (built from the rules' table
of targets, shared, composed with each layout's jumps); the survival ``S(n)`` is the mass
still on the board, a sum of non-negative terms. The push stops once every candidate's mass still
racing is below ``tail``. Layouts of infinite expected length are rejected first by the
exact per-board kernel of the other objectives.

Under a capture rule the players are coupled: each candidate is evaluated by the exact joint
chain (:func:`~snl_numeric.first_player_advantage`, ``snl_numeric.meet``), one at a time,
so this is offered for 2 players on boards whose joint states ``(size + 1) ** 2`` are at most
:data:`CAPTURE_MAX_STATES` (boards up to 50 squares, about 20 ms of CPU per evaluation),
and the search minimises ``|edge|`` (the edge may then be negative).

The search is the iterated exact local search of ``method="local"``
(:mod:`snl_numeric.design.local`): the whole neighbourhood of the current layout, shuffled, in
batches; the best of the first improving batch is taken, and a local optimum is kicked by a
few random moves.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from .._core.progress import Progress
from .._core.rng import stream_words
from .._core.table import OVERSHOOT_CODES
from .._core.validation import DEFAULT_MAX_THROWS, DEFAULT_TAIL, positive_int
from .._core.vectorised import succ_table
from ..board import Board
from ..fairness import first_player_advantage
from .kernels import evaluate_kernel
from .local import local_search
from .result import DesignResult

__all__ = ["CAPTURE_MAX_STATES", "capture_edges", "check_fair", "design_fair", "fair_edges"]

#: Under a capture rule, ``objective="fair"`` searches 2 players on boards whose joint
#: states ``(size + 1) ** 2`` are at most this many (each candidate: one exact joint chain).
CAPTURE_MAX_STATES = 2_601
#: Entries (candidates x squares x faces) of one batch's block-diagonal matrix.
_PUSH_ENTRIES = 1 << 20


def fair_edges(space: Any, src: np.ndarray, dst: np.ndarray, players: int, tail: float,
               max_throws: int) -> np.ndarray:
    """The first player's edge ``w_0 - 1/players`` of independent players on each candidate
    layout (rows of ``src``/``dst``, on the rules of ``space``), by one vectorised push of the
    length distributions; ``inf`` where the expected length is infinite.

    Examples
    --------
    >>> import numpy as np
    >>> from snl_numeric.design.kernels import Space
    >>> space = Space(2, 0, np.ones(3, bool), np.ones(3, bool), 1, 2, 0, 0, False,
    ...               np.array([1, 2]), np.array([[0.5, 0.5]]))
    >>> fair_edges(space, np.empty((1, 0), np.int64), np.empty((1, 0), np.int64), 2,
    ...            1e-12, 100).tolist()  # 0.5 * (0.5 ** 2 + 0.5 ** 2)
    [0.25]
    """
    b = len(src)
    out = np.full(b, np.inf)
    if b == 0:
        return out
    mean, var = np.empty(b), np.empty(b)
    evaluate_kernel(space, src, dst, 0, 1, b, False, mean, var)
    finite = np.flatnonzero(np.isfinite(mean))
    n = space.size + 1
    faces, probs = space.faces, space.probs[0]
    chunk = max(1, _PUSH_ENTRIES // (n * len(faces)))
    # where a throw of each face moves a token from each square of the empty board
    rule = next(name for name, code in OVERSHOOT_CODES.items() if code == space.overshoot)
    base = succ_table(space.size, np.full(n, -1, dtype=np.int64), rule, False, faces)[0]
    for lo in range(0, len(finite), chunk):
        rows = finite[lo:lo + chunk]
        out[rows] = _edges(space.size, space.start, base, probs, src[rows], dst[rows],
                           players, tail, max_throws)
    return out


def _edges(size: int, start: int, base: np.ndarray, probs: np.ndarray, src: np.ndarray,
           dst: np.ndarray, players: int, tail: float, max_throws: int) -> np.ndarray:
    """:func:`fair_edges` of candidates of finite expected length."""
    b, n = len(src), size + 1
    rest = np.broadcast_to(np.arange(n), (b, n)).copy()  # no chained jumps in a design
    np.put_along_axis(rest, src, dst, axis=1)
    # (a token never rests on a jump's square, so composing after the overshoot rule's
    # "stay" is harmless; the goal stays the goal)
    succ = rest[:, base]  # (b, n, faces)
    offset = np.arange(b * n).reshape(b, n, 1)
    # one block-diagonal matrix of every candidate, transposed: mass' = P^T mass
    step = sp.csr_matrix((np.broadcast_to(probs, succ.shape).ravel(),
                          ((succ + (offset - offset % n)).ravel(),
                           np.broadcast_to(offset, succ.shape).ravel())), shape=(b * n, b * n))
    mass = np.zeros(b * n)
    mass[np.arange(b) * n + start] = 1.0
    goal = np.arange(b) * n + size
    prev = np.ones(b)  # S(n - 1)
    w0 = np.zeros(b)
    for _ in range(max_throws):
        mass = step @ mass
        w0 += mass[goal] * prev ** (players - 1)
        mass[goal] = 0.0
        prev = mass.reshape(b, n).sum(axis=1)
        if prev.max() < tail:
            return w0 - 1.0 / players
    raise ValueError(f"a candidate's length distribution still has {prev.max():.3g} of its "
                     f"mass racing after {max_throws:,} throws; raise max_throws")


def capture_edges(p: Any, rules: dict[str, Any], src: np.ndarray, dst: np.ndarray,
                  tail: float) -> np.ndarray:
    """The first player's edge of 2 players under the capture rule in ``rules``, each layout
    through the exact joint chain (:func:`~snl_numeric.first_player_advantage`); ``inf``
    where one player alone is not sure to finish."""
    out = np.full(len(src), np.inf)
    mean, var = np.empty(len(src)), np.empty(len(src))
    evaluate_kernel(p.space, src, dst, 0, 1, len(src), False, mean, var)
    for i in np.flatnonzero(np.isfinite(mean)).tolist():
        board = Board(p.size, zip(src[i].tolist(), dst[i].tolist(), strict=True), **rules)
        out[i] = first_player_advantage(board, 2, tail=tail)
    return out


def check_fair(objective: Any, players: Any, capture: Any, safe: Any) -> int | None:
    """``players`` checked: required (at least 2) with ``objective="fair"``; ``players``,
    ``capture`` and ``safe`` refused with any other objective."""
    if objective != "fair":
        for name, given in (("players", players is not None), ("capture", capture is not None),
                            ("safe", not isinstance(safe, (tuple, list)) or len(safe) > 0)):
            if given:
                raise ValueError(f"{name} is for objective='fair' (a race of players), got "
                                 f"objective={objective!r}")
        return None
    if players is None:
        raise ValueError("objective='fair' needs players=k, the number of players racing")
    return positive_int(players, "players", low=2)


def design_fair(p: Any, players: int, capture: Any, safe: Any, iterations: int, chains: int,
                batch: int, seq: np.random.SeedSequence, entropy: tuple[int, ...],
                progress: Any, *, starts: Any, moments: Any) -> DesignResult:
    """``objective="fair"`` of :func:`~snl_numeric.design_board` on the problem ``p``:
    ``starts(generators)`` gives one random layout of finite expected length per generator
    (and their means, variances and the evaluations spent), ``moments(src, dst)`` the mean
    and variance of layouts."""
    rules = dict(p.rules, capture=capture, safe=safe)
    Board(p.size, **rules)  # validates the capture rule and the safe squares
    if capture is not None:
        if players != 2 or (p.size + 1) ** 2 > CAPTURE_MAX_STATES:
            raise ValueError(
                f"objective='fair' under a capture rule searches 2 players on boards of at "
                f"most {CAPTURE_MAX_STATES:,} joint states ((size + 1) ** 2: up to "
                f"{int(CAPTURE_MAX_STATES ** 0.5) - 1} squares), got players={players}, "
                f"size={p.size}; search without capture and check the layout with "
                f"win_probabilities(board.replace(capture=...), {players})")

        def edges(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
            return capture_edges(p, rules, src, dst, DEFAULT_TAIL)
    else:
        del rules["capture"], rules["safe"]

        def edges(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
            return fair_edges(p.space, src, dst, players, DEFAULT_TAIL, DEFAULT_MAX_THROWS)

    def evaluate(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        e = edges(src, dst)
        return np.abs(e), e[:, None]

    children = seq.spawn(chains + 1)  # one per start layout, one for the search's streams
    gens = [np.random.default_rng(ch) for ch in children[:-1]]
    kick_seq, shuffle_seq = children[-1].spawn(2)
    with Progress(iterations * chains, "design (fair)", enabled=progress) as bar:
        src0, dst0, _, _, evals0 = starts(gens)
        bar.update(evals0)
        cost0, edges0 = evaluate(src0, dst0)  # the search minimises |edge|
        bar.update(len(src0))
        c = int(np.argmin(cost0))
        src, dst, _, _, trace, trace_evals, evals = local_search(
            p, src0[c], dst0[c], float(cost0[c]), edges0[c], evaluate, evals=len(src0),
            budget=iterations * chains + len(src0), batch=batch, floor=1e-300,
            shuffle=np.random.default_rng(shuffle_seq),
            kick_state=stream_words(kick_seq)[None, :], bar=bar)
        trace = np.concatenate([[cost0[c]], trace])
        trace_evals = np.concatenate([[len(src0)], trace_evals])
    board = Board(p.size, zip(src.tolist(), dst.tolist(), strict=True), name="design-fair",
                  **rules)
    mean, var = moments(src[None, :], dst[None, :])
    return DesignResult(board=board, mean=float(mean[0]), variance=float(var[0]),
                        objective="fair", target=None,
                        value=first_player_advantage(board, players), method="local",
                        trace=trace, trace_evaluations=trace_evals + evals0,
                        evaluations=int(evals + evals0), iterations=iterations,
                        chains=chains, seed_entropy=entropy, players=players)
