"""Numba kernels of batch analysis, one per job, each over the rows it is given.

- :func:`check_rows_kernel`: the rules of a board (:func:`board_problem`, the one
  definition) and the size limits;
- :func:`reach_rows_kernel`: successor table, fewest throws and whether the goal is
  sure;
- :func:`moments_rows_kernel`: the same, then the expected throws and variance (the
  per-board kernel of the solver family);
- :func:`quantile_rows_kernel`: the length distribution pushed until the quantiles
  (and mode) asked for are known.

A task takes a block of consecutive rows (:meth:`BoardRows.part`, with the same
rows of the outputs), so that threads never write into the same cache lines. The
batch's arrays travel as one :class:`BoardRows` tuple.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from .._core.numba_config import njit, register_jitable
from .._core.sizes import MAX_TABLE_ENTRIES, WOODBURY_BYTES
from .._core.solve import board_moments_kernel
from .._core.table import (
    QUANTILE_SLACK,
    moves_up_kernel,
    push_step_kernel,
    reach_kernel,
    succ_table_kernel,
)
from .._core.validation import board_problem, readonly
from .data import MAX_SIZE, BoardBatch

#: Problem codes: a board larger than :data:`MAX_SIZE` or needing more memory than a
#: thread may use; a board that breaks a rule (the caller finds which, with
#: ``find_board_problem``).
TOO_LARGE, BROKEN_RULE = 99, 98
#: ``status`` bits: the tail did not fall below ``tail`` within ``max_throws`` throws;
#: the board has more backward targets than the per-board kernel takes, or its work
#: arrays would not fit (the caller solves it with the single-board solver).
TAIL_NOT_REACHED, NEEDS_SOLVER = 1, 2
#: Probabilities of the length within this factor of each other are a tie for the mode
#: (the first wins): they differ by rounding only.
MODE_TIE = 1e-12
#: Most backward targets the per-board kernel takes (its capacitance elimination costs
#: ``k**3 / 3``).
KMAX = 512
#: Bytes per square of one board in :func:`moments_rows_kernel`, besides ``24 * faces``
#: (the successor table, the reversed one of the BFS and the moves the Woodbury columns
#: are made of) and the Woodbury columns: jump table, BFS arrays, target columns and
#: levels, pivots, moments, the fallback's residual and step variance.
ROW_BYTES = 256


class BoardRows(NamedTuple):
    """The arrays of a :class:`BoardBatch`, read-only, as the kernels take them."""

    sizes: np.ndarray
    starts: np.ndarray
    overshoot: np.ndarray
    chain: np.ndarray
    jump_ptr: np.ndarray
    jump_src: np.ndarray
    jump_dst: np.ndarray
    dice_ptr: np.ndarray
    faces: np.ndarray
    probs: np.ndarray

    def part(self, lo: int, hi: int) -> BoardRows:
        """Rows ``lo .. hi - 1`` (views: the jump and dice entries are shared, the row
        pointers still index them)."""
        return BoardRows(self.sizes[lo:hi], self.starts[lo:hi], self.overshoot[lo:hi],
                         self.chain[lo:hi], self.jump_ptr[lo:hi + 1], self.jump_src,
                         self.jump_dst, self.dice_ptr[lo:hi + 1], self.faces, self.probs)


def board_rows(batch: BoardBatch) -> BoardRows:
    """The kernels' view of ``batch``."""
    return BoardRows(*(readonly(np.ascontiguousarray(getattr(batch, name)))
                       for name in BoardRows._fields))


@register_jitable
def row_bytes(size, n_faces, k=0):
    """Bytes the kernels need for one board of ``size + 1`` squares and ``n_faces``
    faces with ``k`` backward targets (the Woodbury columns, solved in place: ``k + 2`` per
    square; the capacitance's factors and pivots, ``(k + 1) x k``, and its targets)."""
    return (size + 1) * (24 * n_faces + ROW_BYTES + 8 * (k + 2)) + 8 * (k + 1) * (k + 2)


@njit()
def check_rows_kernel(rows, tol, max_bytes, problem):  # pragma: no cover - jitted
    """``problem[b]``: ``BROKEN_RULE`` when board ``b`` breaks a rule of
    :func:`board_problem`, ``TOO_LARGE`` above ``MAX_SIZE``, past the Board's table
    limit (``MAX_TABLE_ENTRIES``) or when its table and search need more than
    ``max_bytes``; else 0."""
    for b in range(rows.sizes.shape[0]):
        j0, j1 = rows.jump_ptr[b], rows.jump_ptr[b + 1]
        d0, d1 = rows.dice_ptr[b], rows.dice_ptr[b + 1]
        size = rows.sizes[b]
        if board_problem(size, rows.starts[b], np.int64(rows.overshoot[b]), rows.chain[b],
                         rows.jump_src[j0:j1], rows.jump_dst[j0:j1], rows.faces[d0:d1],
                         rows.probs[d0:d1], tol)[0]:
            problem[b] = BROKEN_RULE
        elif (size > MAX_SIZE or (size + 1) * (d1 - d0) > MAX_TABLE_ENTRIES
              or row_bytes(size, d1 - d0) > max_bytes):
            problem[b] = TOO_LARGE


@register_jitable
def _table_work(rows, problem, most):
    """Work arrays of :func:`_board_table`, allocated once for the boards without a problem
    (``most``: the most squares of one): a jump table, the successor table's entries,
    the faces of positive probability and those probabilities, an empty landing table."""
    faces = 0
    for b in range(rows.sizes.shape[0]):
        if not problem[b]:
            faces = max(faces, rows.dice_ptr[b + 1] - rows.dice_ptr[b])
    return (np.empty(most, dtype=np.int64), np.empty(most * faces, dtype=np.int32),
            np.empty(faces, dtype=np.int64), np.empty(faces), np.empty((0, 0), dtype=np.int32))


@njit()
def _board_table(rows, b, work):  # pragma: no cover - jitted
    """The successor table of valid board ``b`` over its faces of positive probability,
    and those probabilities as one row ``(1, faces)``: views of ``work``
    (:func:`_table_work`), valid until the next board's, typed read-only as a compiled
    Board's (the kernels that read them then compile once for both)."""
    jump_to, table, face_buf, prob_buf, no_landed = work
    size = rows.sizes[b]
    j0, j1 = rows.jump_ptr[b], rows.jump_ptr[b + 1]
    d0, d1 = rows.dice_ptr[b], rows.dice_ptr[b + 1]
    jump_to = jump_to[: size + 1]
    jump_to[:] = -1
    for j in range(j0, j1):
        jump_to[rows.jump_src[j]] = rows.jump_dst[j]
    m = 0
    for d in range(d0, d1):
        if rows.probs[d] > 0.0:
            face_buf[m] = rows.faces[d]
            prob_buf[m] = rows.probs[d]
            m += 1
    succ = table[: (size + 1) * m].reshape((size + 1, m))  # int32, as CompiledBoard's
    succ_table_kernel(size, jump_to, np.int64(rows.overshoot[b]), rows.chain[b], face_buf[:m],
                      succ, no_landed)
    return readonly(succ), readonly(prob_buf[:m].reshape((1, m)))


@njit()
def reach_rows_kernel(rows, problem, most, min_out, sure_out):  # pragma: no cover
    """Fewest throws and whether the goal is sure from each board's start (rows with a
    problem are skipped; ``most``: the most squares of a board among the others, the
    length of the work arrays they share)."""
    work = _table_work(rows, problem, most)
    dist = np.empty(most, dtype=np.int64)
    sure = np.empty(most, dtype=np.bool_)
    for b in range(rows.sizes.shape[0]):
        if problem[b]:
            continue
        succ, _ = _board_table(rows, b, work)
        n = succ.shape[0]
        min_out[b] = reach_kernel(succ, rows.starts[b], dist[:n], sure[:n])
        sure_out[b] = sure[rows.starts[b]]


@njit()
def moments_rows_kernel(rows, problem, most, want_var, max_bytes, min_out, sure_out,
                        mean_out, var_out, k_out, status):  # pragma: no cover - jitted
    """Fewest throws, whether the goal is sure, expected throws and (``want_var``)
    variance from each board's start; ``k_out[b]``: its backward targets.
    Rows with a problem are skipped. A board whose work arrays (:func:`row_bytes` of its
    backward targets) would take more than ``max_bytes``, whose Woodbury columns would take
    more than ``WOODBURY_BYTES`` (beyond, the single-board solver's GMRES is faster), or
    with more than ``KMAX`` backward targets, gets ``NEEDS_SOLVER``.
    The per-square arrays of the boards are allocated once, for the largest (``most``
    squares)."""
    work = _table_work(rows, problem, most)
    dist = np.empty(most, dtype=np.int64)
    sure = np.empty(most, dtype=np.bool_)
    mean = np.empty(most)
    var = np.empty(most)
    report = np.zeros(most, dtype=np.bool_)
    for b in range(rows.sizes.shape[0]):
        if problem[b]:
            continue
        succ, probs = _board_table(rows, b, work)
        n, nf = succ.shape
        start = rows.starts[b]
        min_out[b] = reach_kernel(succ, start, dist[:n], sure[:n])
        sure_out[b] = sure[start]
        # the most backward targets whose Woodbury columns fit in WOODBURY_BYTES and whose
        # work arrays (row_bytes: the k x k capacitance too) in max_bytes
        kmax = min(KMAX, WOODBURY_BYTES // (8 * n) - 2)
        while kmax > 0 and row_bytes(n - 1, nf, kmax) > max_bytes:
            kmax -= 1
        report[start] = True
        k_out[b] = board_moments_kernel(succ, probs, sure[:n], report[:n], kmax, want_var,
                                        mean[:n], var[:n])
        report[start] = False
        if k_out[b] > kmax:
            status[b] |= NEEDS_SOLVER
            continue
        mean_out[b] = mean[start]
        var_out[b] = var[start]


@njit()
def quantile_rows_kernel(rows, problem, most, levels, want_mode, tail, max_throws,
                         q_out, mode_out, status):  # pragma: no cover - jitted
    """Quantiles at ``levels`` and (``want_mode``) the mode of each board's length from its
    start (``most`` as for :func:`reach_rows_kernel`).

    The length's mass is pushed with :func:`push_step_kernel`, as
    :func:`length_distribution` does, over the squares but the goal that can reach it, so
    ``q_out[b, i]`` is the smallest ``k`` with ``cdf[k] >= levels[i]`` (-1 when not
    reached) and ``mode_out[b]`` the first ``k`` whose probability is the largest, to
    within :data:`MODE_TIE` (-1 when the pmf is all zero). The push stops as soon as the
    answers cannot change: a later throw finishes with at most the live mass left (the cut
    at ``tail`` does not stop it before, as :func:`~snl_numeric.analyze` pushes on). After
    ``max_throws`` throws the answers not known yet stay -1 and the status gets
    ``TAIL_NOT_REACHED`` (as :func:`~snl_numeric.analyze` gives them None).
    """
    work = _table_work(rows, problem, most)
    dist = np.empty(most, dtype=np.int64)
    sure = np.empty(most, dtype=np.bool_)
    live = np.empty(most, dtype=np.bool_)
    mass = np.zeros(most)
    nxt = np.zeros(most)  # (push_step_kernel leaves it zeroed)
    band = np.zeros(2, dtype=np.int64)
    for b in range(rows.sizes.shape[0]):
        if problem[b]:
            continue
        succ, probs = _board_table(rows, b, work)
        n = succ.shape[0]
        # the squares that can reach the goal: every one when each has a move up (no
        # search: reach_kernel's own test, after which it searches for the fewest throws
        # only) or when every one is sure, else those of dist >= 0
        every = moves_up_kernel(succ)
        if not every:
            reach_kernel(succ, rows.starts[b], dist[:n], sure[:n])
            every = sure[:n].all()
        for x in range(n):
            live[x] = every or dist[x] >= 0
        live[n - 1] = False
        # the length's distribution pushed throw by throw (push_step_kernel, as
        # length_distribution does) until the answers cannot change
        start, goal, q_row = rows.starts[b], n - 1, q_out[b]
        q_row[:] = -1
        if start == goal:  # pmf = [1.0]
            q_row[:] = 0
            mode_out[b] = 0
            continue
        unresolved = 0
        for i in range(levels.shape[0]):
            if levels[i] <= 0.0:
                q_row[i] = 0
            else:
                unresolved += 1
        if not live[start]:  # pmf = [0.0]
            mode_out[b] = -1
            continue
        mass[:n] = 0.0
        mass[start] = 1.0
        band[0], band[1] = start, start
        cum = 0.0
        best = 0.0
        remaining = 1.0
        mode = 0
        k = 0
        while True:
            k += 1
            if k > max_throws:
                status[b] |= TAIL_NOT_REACHED
                break
            p, remaining = push_step_kernel(succ, probs[0], mass, nxt, live, goal, band)
            cum += p
            if p > best:
                if p > best * (1.0 + MODE_TIE):  # not a tie within rounding
                    mode = k
                best = p
            for i in range(levels.shape[0]):
                if q_row[i] < 0 and cum >= levels[i]:
                    q_row[i] = k
                    unresolved -= 1
            if remaining < tail or unresolved == 0:
                # a level is still reached while the live mass covers it (known to the
                # quantile rule's slack), the mode once the live mass is below the largest
                # probability
                known = not want_mode or remaining * (1.0 + 1e-9) < best or remaining <= 0.0
                for i in range(levels.shape[0]):
                    if (q_row[i] < 0 and levels[i] <= cum + remaining
                            and remaining >= QUANTILE_SLACK * levels[i]):
                        known = False
                if known:
                    break
        if k > max_throws:
            mode_out[b] = mode if want_mode and best > remaining * (1.0 + 1e-9) else -1
        else:
            mode_out[b] = mode if best > 0.0 else -1
