"""The decision problem as arrays: squares, dice, jumps, and how a decision resolves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._core.memory import check_memory
from .._core.sizes import policy_kernels
from .._core.solve.eft import two_sum
from .._core.table import OVERSHOOT_CODES
from .._core.validation import find_board_problem, problem_message
from .._core.vectorised import succ_table
from ..board import Board, check_board
from ..compile import table_bytes
from ..dice import Dice, as_dice, parse_dice

@dataclass(frozen=True, eq=False)
class Problem:
    """The decision problem; node ``v < n`` is a square, ``n + j`` jump ``j``.

    ``nxt[a, x, f]`` is the node reached by face ``f`` of die ``a`` from
    square ``x`` (faces of probability 0, such as padding, lead to the goal);
    ``probs[a, f]`` its probability, the same on every square (a board's dice), or
    ``probs[a, x, f]`` per square (one transition matrix per action, as a fixed-stride
    table); ``tgt[j]`` the node reached by following jump ``j`` (a jump node when
    chained into the next jump); ``order`` lists jumps with every jump after
    the one it chains into. ``cost[a, x]`` is the cost of a step of action ``a`` from
    ``x`` (``None``: 1, a throw).
    """

    n: int
    nxt: np.ndarray
    probs: np.ndarray
    src: np.ndarray
    tgt: np.ndarray
    order: np.ndarray
    optional: bool
    cost: np.ndarray | None = None

    @property
    def goal(self) -> int:
        return self.n - 1

    @property
    def n_actions(self) -> int:
        return self.nxt.shape[0]

    @property
    def per_row(self) -> bool:
        """Whether the probabilities are given per square (``probs[a, x, f]``)."""
        return self.probs.ndim == 3

    @property
    def large(self) -> bool:
        """Whether the problem is beyond ``POLICY_KERNEL_SQUARES`` squares
        (:func:`~snl_numeric._core.sizes.policy_kernels`): the graph searches loop in
        Numba kernels there."""
        return policy_kernels(self.n - 1)

    @property
    def kernels(self) -> bool:
        """Whether the steps that loop (improvement sums, value iteration, backward
        induction) run in the package's Numba kernels: on boards of more than
        ``POLICY_KERNEL_SQUARES`` squares (:func:`~snl_numeric._core.sizes.policy_kernels`);
        up to it everything is NumPy and SciPy, with nothing to compile. Problems with
        probabilities or costs per square (from matrices) always take the NumPy path."""
        return self.large and not self.per_row and self.cost is None

    @cached_property
    def _sums(self) -> tuple[np.ndarray, np.ndarray]:
        """:attr:`rowsum` and :attr:`rowsum_lo`, from one pass over the faces."""
        total, lo = self.probs[..., 0].copy(), np.zeros(self.probs.shape[:-1])
        for f in range(1, self.probs.shape[-1]):
            total, err = two_sum(total, self.probs[..., f])
            lo += err
        return total, lo

    @property
    def rowsum(self) -> np.ndarray:
        """Each die's probabilities summed face by face, as the core's solver sums them
        (its chain has every row scaled to sum to 1): shape ``(A,)``, or ``(A, n)`` per
        square."""
        return self._sums[0]

    @property
    def rowsum_lo(self) -> np.ndarray:
        """What :attr:`rowsum` lost to rounding: ``rowsum + rowsum_lo`` is each row's exact
        sum (its errors summed in floating point: about ``2**-100`` relative), as
        :func:`~.evaluate.exact_rows` divides the rows."""
        return self._sums[1]

    def rowsum_lo_at(self, dies: np.ndarray | int, rows: np.ndarray | int) -> np.ndarray:
        """:attr:`rowsum_lo` of die ``dies[i]`` on square ``rows[i]``."""
        return self.rowsum_lo[dies, rows] if self.per_row else self.rowsum_lo[dies]

    @property
    def rowsums(self) -> np.ndarray:
        """:attr:`rowsum` broadcastable to ``(A, n)``."""
        return self.rowsum if self.per_row else self.rowsum[:, None]

    @property
    def live(self) -> np.ndarray:
        """Which faces have a positive probability, broadcastable to ``nxt``'s shape."""
        return self.probs > 0 if self.per_row else (self.probs > 0)[:, None, :]

    def face_probs(self, dies: np.ndarray | int, rows: np.ndarray | int) -> np.ndarray:
        """The faces' probabilities of die ``dies[i]`` on square ``rows[i]``."""
        return self.probs[dies, rows] if self.per_row else self.probs[dies]

    def rowsum_at(self, dies: np.ndarray | int, rows: np.ndarray | int) -> np.ndarray:
        """:attr:`rowsum` of die ``dies[i]`` on square ``rows[i]``."""
        return self.rowsum[dies, rows] if self.per_row else self.rowsum[dies]

    def weighted(self, x: np.ndarray) -> np.ndarray:
        """``sum_f probs[a, (x,) f] x[a, x, f]`` for every die and square."""
        if self.per_row:
            return np.einsum("anf,anf->an", self.probs, x)
        return np.einsum("af,anf->an", self.probs, x)

    @property
    def costs(self) -> np.ndarray | float:
        """The cost of a step of every die on every square, broadcastable to ``(A, n)``."""
        return 1.0 if self.cost is None else self.cost

    def cost_at(self, dies: np.ndarray | int, rows: np.ndarray | int) -> np.ndarray | float:
        """The cost of a step of die ``dies[i]`` on square ``rows[i]``."""
        return 1.0 if self.cost is None else self.cost[dies, rows]

    @cached_property
    def least_cost(self) -> float:
        """The smallest cost of a step off the goal (1 for a board)."""
        if self.cost is None:
            return 1.0
        return float(np.delete(self.cost, self.goal, axis=1).min(initial=1.0))

    @cached_property
    def levels(self) -> list[np.ndarray]:
        """The jumps by depth: first those leading to a square, then those chained into
        the jumps of the previous level."""
        if not np.any(self.tgt >= self.n):  # no jump leads into another
            return [self.order] if len(self.order) else []
        depth = _chain_depth(self.tgt, self.n)
        return [self.order[depth[self.order] == d] for d in range(int(depth.max(initial=-1)) + 1)]


@dataclass(frozen=True)
class Words:
    """How messages name the states of a problem from matrices: ``names[x]`` for the
    state of internal index ``x`` (the absorbing states merged last), and the start."""

    names: tuple[str, ...]
    start: int

    def state(self, x: int) -> str:
        return self.names[x]


def _as_actions(actions: Any) -> tuple[Dice, ...]:
    if isinstance(actions, (Dice, Mapping, str)) or not isinstance(actions, Sequence):
        raise TypeError(
            "actions must be a list of dice (Dice objects, mappings face -> probability "
            f"or strings such as '1-3'), got {type(actions).__name__}"
        )
    if len(actions) == 0:
        raise ValueError("actions must hold at least one die, got an empty list")
    out = []
    for i, a in enumerate(actions):
        if isinstance(a, str):
            out.append(parse_dice(a))
        elif a is None or isinstance(a, (Dice, Mapping)):
            out.append(as_dice(a))
        else:
            raise TypeError(f"actions[{i}] must be a Dice, a mapping or a string, got {a!r}")
    return tuple(out)


def build_problem(board: Board, dice: tuple[Dice, ...], optional: bool) -> Problem:
    n = board.size + 1
    goal = board.size
    n_act = len(dice)
    width = max(len(d.faces) for d in dice)
    # nxt and the values gathered through it per die and face, and the successor tables
    entries = n_act * n * width
    check_memory(entries * 16 + table_bytes(board.size, n_act * width, index=8),
                 f"a decision problem over {n:,} squares x {n_act} dice x {width} faces")
    src, dst = (a.astype(np.intp) for a in board.jump_arrays)
    code = OVERSHOOT_CODES[board.overshoot]
    none = np.zeros(0, dtype=np.int64)
    faces = np.ones((n_act, width), dtype=np.intp)  # padding: face 1 of probability 0
    probs = np.zeros((n_act, width))
    for a, d in enumerate(dice):
        # the board's rules that concern a die (its jumps are checked already)
        problem, i, j = find_board_problem(board.size, board.start, code, board.chain, none,
                                           none, d.faces, d.probs)
        if problem:
            raise ValueError(f"actions[{a}]: " + problem_message(
                problem, i, j, size=board.size, start=board.start, code=code, src=none,
                dst=none, faces=d.faces, probs=d.probs))
        faces[a, :len(d.faces)] = d.faces
        probs[a, :len(d.faces)] = d.probs
    jump_to = np.full(n, -1, dtype=np.intp)
    jump_to[src] = dst
    index = np.full(n, -1, dtype=np.intp)
    index[src] = np.arange(len(src))
    # every die's faces in one table: where each throw rests, and the first jump it lands on
    succ, landed = succ_table(board.size, jump_to, board.overshoot, board.chain,
                              faces.ravel(), landing=True)
    assert landed is not None  # asked for
    nxt = np.where(landed >= 0, n + index[landed], succ).reshape(n, n_act, width)
    # faces that never come up lead to the goal (C order: the kernels take it so)
    nxt = np.ascontiguousarray(np.where(probs[:, None, :] > 0, nxt.transpose(1, 0, 2), goal))
    tgt = dst.copy()
    if board.chain and len(src):
        tgt = np.where(index[dst] >= 0, n + index[dst], dst)
        order = np.argsort(_chain_depth(tgt, n), kind="stable").astype(np.intp)
    else:
        order = np.arange(len(src))
    return Problem(n, nxt, probs, src, tgt, order, bool(optional))


def table_problem(succ: Sequence[np.ndarray], probs: Sequence[np.ndarray],
                  cost: np.ndarray | None) -> Problem:
    """The problem of choosing, on every state, one of several chains over the same states
    (the goal last), each given as a fixed-stride successor table ``succ[a]`` (shape ``(n,
    width_a)``) with probabilities per row ``probs[a]``; ``cost`` of shape ``(A, n)`` or
    ``None`` (1 per step). Tables are padded to the widest with faces of probability 0
    leading to the goal; the goal's row is one sure step to itself."""
    n = len(succ[0])
    goal = n - 1
    width = max(max(s.shape[1] for s in succ), 1)
    n_act = len(succ)
    check_memory(n_act * n * width * 24,
                 f"a decision problem over {n:,} states x {n_act} actions x {width} moves")
    nxt = np.full((n_act, n, width), goal, dtype=np.intp)
    pr = np.zeros((n_act, n, width))
    for a, (s, q) in enumerate(zip(succ, probs, strict=True)):
        w = s.shape[1]
        pr[a, :, :w] = q
        nxt[a, :, :w] = np.where(q > 0, s, goal)
    nxt[:, goal] = goal
    pr[:, goal] = 0.0
    pr[:, goal, 0] = 1.0
    none = np.zeros(0, dtype=np.intp)
    if cost is not None:
        cost = np.ascontiguousarray(cost, dtype=np.float64)
    return Problem(n, nxt, pr, none, none, none, False, cost)


def _chain_depth(tgt: np.ndarray, n: int) -> np.ndarray:
    """``depth[j]``: the number of jumps chained after jump ``j`` (list ranking by pointer
    doubling; chains have no cycles: checked by Board)."""
    m = len(tgt)
    chained = tgt >= n
    ptr = np.where(chained, tgt - n, np.arange(m))
    depth = chained.astype(np.int64)
    while m and np.any(ptr[ptr] != ptr):
        depth += depth[ptr] * (ptr != np.arange(m))
        ptr = ptr[ptr]
    return depth


def resolve(p: Problem, take: np.ndarray) -> np.ndarray:
    """The square every node leads to under the jump decisions ``take`` (a square leads
    to itself; pointer doubling along chains)."""
    to = np.arange(p.n + len(p.src))
    to[p.n:] = np.where(take, p.tgt, p.src)
    while True:
        nxt = to[to]
        if np.array_equal(nxt, to):
            return to
        to = nxt


def jump_pairs(board: Board) -> tuple[tuple[int, int], ...]:
    """``(source, destination)`` of every jump, in the order of the board's jump arrays,
    the order :func:`build_problem` gives the jumps (read without building the board's
    mapping of jumps)."""
    src, dst = board.jump_arrays
    return tuple(zip(src.tolist(), dst.tolist(), strict=True))


def check_common(board: Board, actions: Any, optional_jumps: Any) -> tuple[Board, tuple]:
    check_board(board)
    dice = _as_actions(actions)
    if not isinstance(optional_jumps, (bool, np.bool_)):
        raise TypeError(f"optional_jumps must be True or False, got {optional_jumps!r}")
    return board, dice


def csr_graph(src: np.ndarray, dst: np.ndarray, size: int) -> sp.csr_matrix:
    """The adjacency ``src -> dst`` over ``size`` nodes (repeats allowed) as a CSR matrix
    for :mod:`scipy.sparse.csgraph`, built directly (no COO conversion)."""
    order = np.argsort(src, kind="stable")
    indptr = np.zeros(size + 1, dtype=np.int32)
    np.cumsum(np.bincount(src, minlength=size), out=indptr[1:])
    return sp.csr_matrix((np.ones(len(src)), dst[order].astype(np.int32), indptr),
                         shape=(size, size))
