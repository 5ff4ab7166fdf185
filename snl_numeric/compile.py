"""Compilation of a :class:`~snl_numeric.Board` into arrays.

Every analysis works from a :class:`CompiledBoard`, built once per board
and cached on it (``board.compiled``):

- ``succ[x, f]``: the square where a token on ``x`` comes to rest after
  throwing face ``faces[f]`` (overshoot rule and jumps applied);
- ``fired[x, f]``: the index (into ``jump_src``) of the first jump that this
  throw fires, or -1; under ``chain=True`` the rest of the chain follows
  (:meth:`CompiledBoard.chain`);
- ``matrix``: the transition matrix ``P`` as ``scipy.sparse`` CSR, states
  ``0 .. size`` with the goal ``size`` absorbing (built lazily);
- ``reverse``: the reversed adjacency (CSR, predecessors of each square),
  used by breadth-first propagation towards the goal.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    from .board import Board

__all__ = ["CompiledBoard", "compile_board"]


@dataclass(frozen=True, eq=False)
class CompiledBoard:
    """Arrays describing one board; see the module docstring.

    Attributes
    ----------
    size : int
        The goal square; states are ``0 .. size``.
    start : int
        The board's start square.
    faces, probs : ndarray
        The dice's faces and probabilities.
    succ : ndarray of intp, shape (size + 1, n_faces)
        Resting square after each face from each square.
    fired : ndarray of int32, shape (size + 1, n_faces)
        First jump fired by each throw, -1 for none.
    jump_src, jump_dst : ndarray of intp
        Jump sources (increasing) and destinations.
    jump_index : ndarray of int32, shape (size + 1,)
        Index of the jump starting on each square, -1 for none.
    chained : bool
        Whether jumps chain (``Board.chain``).
    """

    size: int
    start: int
    faces: np.ndarray
    probs: np.ndarray
    succ: np.ndarray
    fired: np.ndarray
    jump_src: np.ndarray
    jump_dst: np.ndarray
    jump_index: np.ndarray
    chained: bool

    @property
    def n_states(self) -> int:
        """Number of states, ``size + 1``."""
        return self.size + 1

    @cached_property
    def matrix(self) -> sp.csr_matrix:
        """Transition matrix ``P`` (CSR, sorted indices, duplicates summed)."""
        n, k = self.succ.shape
        rows = np.repeat(np.arange(n, dtype=self.succ.dtype), k)
        data = np.tile(self.probs, n)
        mat = sp.csr_matrix((data, (rows, self.succ.ravel())), shape=(n, n))
        mat.sum_duplicates()
        mat.sort_indices()
        return mat

    @cached_property
    def reverse(self) -> sp.csr_matrix:
        """Reversed adjacency: row ``y`` lists the squares with a throw to ``y``.

        Built straight from ``succ`` (a stable counting sort), without the
        probabilities; a square appears once per face that leads to ``y``.
        """
        n, k = self.succ.shape
        flat = self.succ.ravel()
        order = np.argsort(flat, kind="stable")
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(flat, minlength=n), out=indptr[1:])
        indices = (order // k).astype(self.succ.dtype, copy=False)
        data = np.ones(len(indices), dtype=np.int8)
        return sp.csr_matrix((data, indices, indptr), shape=(n, n))

    def chain(self, j: int) -> list[int]:
        """Every jump fired once jump ``j`` fires, in order (``[j]`` unless chained)."""
        members = [j]
        if self.chained:
            nxt = self.jump_index[self.jump_dst[j]]
            while nxt != -1:
                members.append(int(nxt))
                nxt = self.jump_index[self.jump_dst[nxt]]
        return members

    @cached_property
    def fire_matrix(self) -> sp.csr_matrix:
        """``A[x, j]``: probability that one throw from ``x`` fires jump ``j``."""
        rows, faces = np.nonzero(self.fired >= 0)
        first = self.fired[rows, faces]
        data = self.probs[faces]
        if self.chained:
            chains = [self.chain(int(j)) for j in range(len(self.jump_src))]
            lengths = np.array([len(c) for c in chains], dtype=np.intp)[first]
            rows, data = np.repeat(rows, lengths), np.repeat(data, lengths)
            first = np.concatenate([chains[j] for j in first]) if len(first) else first
        shape = (self.n_states, len(self.jump_src))
        return sp.csr_matrix((data, (rows, first)), shape=shape)

    def rest_of(self, j: int) -> int:
        """Where the token rests after jump ``j`` fires (the end of its chain)."""
        return int(self.jump_dst[self.chain(j)[-1]])


def compile_board(board: Board) -> CompiledBoard:
    """Build the successor table of ``board`` (vectorised, O(size * faces))."""
    size = board.size
    faces = board.dice.faces
    idx = np.intp
    src = np.fromiter(board.jumps.keys(), dtype=idx, count=len(board.jumps))
    dst = np.fromiter(board.jumps.values(), dtype=idx, count=len(board.jumps))

    pos = np.arange(size + 1, dtype=idx)[:, None]
    target = pos + faces[None, :].astype(idx)
    over = target > size
    if board.overshoot == "win":
        target[over] = size
    elif board.overshoot == "exact":
        target = np.where(over, pos, target)
    else:  # bounce
        target[over] = 2 * size - target[over]
    landed = ~over if board.overshoot == "exact" else np.ones_like(over)

    one_jump = np.arange(size + 1, dtype=idx)
    one_jump[src] = dst
    rest = one_jump.copy()
    if board.chain:  # pointer jumping to the end of every chain (no cycles: checked)
        while True:
            nxt = rest[rest]
            if np.array_equal(nxt, rest):
                break
            rest = nxt
    jump_index = np.full(size + 1, -1, dtype=np.int32)
    jump_index[src] = np.arange(len(src), dtype=np.int32)

    succ = np.where(landed, rest[target], target)
    fired = np.where(landed, jump_index[target], -1).astype(np.int32)
    succ[size, :] = size
    fired[size, :] = -1

    for arr in (succ, fired):
        arr.flags.writeable = False
    return CompiledBoard(size=size, start=board.start, faces=faces, probs=board.dice.probs,
                         succ=succ, fired=fired, jump_src=src, jump_dst=dst,
                         jump_index=jump_index, chained=board.chain)
