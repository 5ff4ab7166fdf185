"""The race's problem as the kernels read it (built once per call)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..policy.problem import Problem
from .kernels import moves_kernel


@dataclass(frozen=True, eq=False)
class Tables:
    """Per-die resting nodes (jumps followed unless optional) and their probabilities,
    the moving throws (:func:`~.kernels.moves_kernel`: ``cnt, node, prob, move, stay``),
    the jumps with the squares a deciding player may rest on (``src, tgt, ptr, rest``),
    the order in which chained jumps are decided, and the diagonal layout ``base``."""

    nodes: np.ndarray
    probs: np.ndarray
    moves: tuple[np.ndarray, ...]
    jumps: tuple[np.ndarray, ...]
    order: np.ndarray
    base: np.ndarray
    n_sq: int
    optional: bool

    @property
    def n_jumps(self) -> int:
        return len(self.jumps[0])


def _nodes(p: Problem) -> np.ndarray:
    """Per-die successor nodes; with compulsory jumps every jump node is followed to its
    resting square, so the kernels only see squares."""
    if p.optional or len(p.src) == 0:
        return p.nxt
    rest = np.arange(p.n + len(p.src))
    for j in p.order.tolist():  # chained jumps come first
        rest[p.n + j] = rest[p.tgt[j]]
    return rest[p.nxt]


def _jump_options(src: np.ndarray, tgt: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(ptr, rest)``: where a player who decides jumps may rest after landing on jump
    ``k`` (node ``n + k``), ``rest[ptr[k]:ptr[k + 1]]``: the square of any jump of the chain
    it starts (declining there) or its end."""
    src_l, tgt_l = src.tolist(), tgt.tolist()
    ptr, rest = [0], []
    for k in range(len(src_l)):
        v = n + k
        while v >= n:
            rest.append(src_l[v - n])
            v = tgt_l[v - n]
        rest.append(v)
        ptr.append(len(rest))
    return np.array(ptr, dtype=np.int64), np.array(rest or [0], dtype=np.int64)


def diag_base(size: int) -> np.ndarray:
    """``base[s]``: pair state ``(p, s - p)`` (``p, q < N = size``) is at ``base[s] + p`` in
    the diagonal layout (``2 N - 1`` diagonals, each in order of ``p``).

    Examples
    --------
    >>> diag_base(3).tolist()
    [0, 1, 3, 5, 6]
    """
    s = np.arange(2 * size - 1, dtype=np.int64)
    lo = np.maximum(s - size + 1, 0)
    length = np.minimum(s, size - 1) - lo + 1
    start = np.zeros(len(s), dtype=np.int64)
    np.cumsum(length[:-1], out=start[1:])
    return start - lo


@functools.lru_cache(maxsize=1)
def _diag_index(size: int) -> np.ndarray:
    """``index[p, q]``: where pair state ``(p, q)`` is in the diagonal layout (read-only,
    kept for the last size asked)."""
    r = np.arange(size)
    index = diag_base(size)[r[:, None] + r] + r[:, None]
    index.flags.writeable = False
    return index


def to_diag(table: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Row-major ``table[p, q]`` (``p, q < N``) into the diagonal layout ``out``.

    Examples
    --------
    >>> to_diag(np.arange(9).reshape(3, 3), np.empty(9, int)).tolist()
    [0, 1, 3, 2, 4, 6, 5, 7, 8]
    """
    out[_diag_index(table.shape[0])] = table
    return out


def from_diag(diag: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The diagonal layout ``diag`` back into ``out[p, q]`` (``p, q < N``).

    Examples
    --------
    >>> table = np.arange(9).reshape(3, 3)
    >>> bool((from_diag(to_diag(table, np.empty(9, int)), np.empty((3, 3), int)) == table).all())
    True
    """
    out[...] = diag[_diag_index(out.shape[0])]
    return out


def make_tables(p: Problem) -> Tables:
    size = p.n - 1
    nodes = _nodes(p)
    m = len(p.src)
    ptr, rest = _jump_options(p.src, p.tgt, p.n)
    n_act, n, width = nodes.shape
    cnt = np.empty((n_act, n), dtype=np.int64)
    node = np.empty((n_act, n, width), dtype=np.int64)
    prob = np.empty((n_act, n, width))
    move = np.empty((n_act, n))
    stay = np.empty((n_act, n))
    moves_kernel(nodes, p.probs, n + m, cnt, node, prob, move, stay)
    # as wide as the most distinct moves (a die of many faces lands on few squares): the
    # sweeps' rounding allowances count these terms
    k = max(int(cnt.max(initial=0)), 1)
    node, prob = np.ascontiguousarray(node[:, :, :k]), np.ascontiguousarray(prob[:, :, :k])
    return Tables(nodes, p.probs, (cnt, node, prob, move, stay), (p.src, p.tgt, ptr, rest),
                  p.order, diag_base(size), size, p.optional)
