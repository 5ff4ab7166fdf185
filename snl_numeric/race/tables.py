"""The race's problem as the kernels read it (built once per call)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..policy.problem import Problem
from .kernels import diag_base_kernel, jump_options_kernel, moves_kernel


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


def make_tables(p: Problem) -> Tables:
    size = p.n - 1
    nodes = _nodes(p)
    m = len(p.src)
    ptr = np.zeros(m + 1, dtype=np.int64)
    jump_options_kernel(p.src, p.tgt, p.n, ptr, np.zeros(0, dtype=np.int64))
    rest = np.zeros(max(int(ptr[m]), 1), dtype=np.int64)
    jump_options_kernel(p.src, p.tgt, p.n, ptr, rest)
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
    base = np.zeros(2 * size - 1, dtype=np.int64)
    diag_base_kernel(size, base)
    return Tables(nodes, p.probs, (cnt, node, prob, move, stay), (p.src, p.tgt, ptr, rest),
                  p.order, base, size, p.optional)
