"""Per-board Numba kernels of batch analysis: validate, compile, BFS, moments, quantiles."""

from __future__ import annotations

import numpy as np

from .._core.numba_config import njit
from .._core.solve import moments_kernel
from .._core.table import push_step_kernel, reach_kernel, succ_table_kernel
from .._core.validation import rules_hold
from .data import MAX_SIZE

#: Problem codes of :func:`batch_kernel`: a board larger than :data:`MAX_SIZE`, or needing
#: more memory than a thread may use; a board that breaks a rule (the caller finds which,
#: with ``find_board_problem``).
TOO_LARGE, BROKEN_RULE = 99, 98
#: ``status`` bits: the tail did not fall below ``tail`` within ``max_throws`` throws;
#: the board has too many backward targets for the per-board kernel (the caller solves it).
TAIL_NOT_REACHED, NEEDS_SOLVER = 1, 2
#: Most backward targets the per-board kernel takes.
KMAX = 512
#: Bytes per square of one board in :func:`batch_kernel`, besides 8 per face: the jump
#: index, BFS distances and flags, moments, the mass pushed and its next step.
ROW_BYTES = 80


def row_bytes(size, n_faces):
    """Bytes :func:`batch_kernel` needs for one board (the successor table and the rest)."""
    return (size + 1) * (8 * n_faces + ROW_BYTES)


@njit(inline="always")
def _table_one(size, code, chain, jump_to, faces, probs):  # pragma: no cover - jitted
    """The successor table of a valid board (``jump_to``: each square's jump destination,
    or -1) over the faces of positive probability, and those probabilities."""
    used = 0
    for f in range(faces.shape[0]):
        if probs[f] > 0.0:
            used += 1
    fc = np.empty(used, dtype=np.int64)
    pc = np.empty(used)
    u = 0
    for f in range(faces.shape[0]):
        if probs[f] > 0.0:
            fc[u] = faces[f]
            pc[u] = probs[f]
            u += 1
    succ = np.empty((size + 1, used), dtype=np.int64)
    succ_table_kernel(size, jump_to, code, chain, fc, succ, np.empty((0, 0), dtype=np.int64))
    return succ, pc


@njit(inline="always")
def _quantiles_one(succ, probs, dist, start, levels, want_mode, tail, max_throws,
                   q_row):  # pragma: no cover - jitted
    """Quantiles (into ``q_row``) and mode of the number of throws: ``(mode, status)``.

    Pushes mass with ``chain._push_step``, as :func:`length_distribution` does, so ``q_row[i]`` is
    the smallest ``k`` with ``cdf[k] >= levels[i]`` over the pmf that
    :func:`length_distribution` returns (-1 when never reached) and ``mode``
    its first argmax (-1 when the pmf is all zero). Stops as soon as the
    answers cannot change; ``status`` is 1 when ``max_throws`` was exceeded.
    """
    n, nf = succ.shape
    goal = n - 1
    nq = levels.shape[0]
    for i in range(nq):
        q_row[i] = -1
    if start == goal:  # pmf = [1.0]
        for i in range(nq):
            q_row[i] = 0
        return 0, 0
    unresolved = 0
    for i in range(nq):
        if levels[i] <= 0.0:
            q_row[i] = 0
        else:
            unresolved += 1
    if dist[start] <= 0:  # pmf = [0.0]
        return -1, 0
    mass = np.empty(n)
    nxt = np.empty(n)
    live = np.empty(n, dtype=np.bool_)  # loops, not array expressions: less to compile
    for x in range(n):
        mass[x] = 0.0
        nxt[x] = 0.0
        live[x] = dist[x] > 0
    mass[start] = 1.0
    band = np.empty(2, dtype=np.int64)
    band[0] = start
    band[1] = start
    cum = 0.0
    best = 0.0
    mode = 0
    k = 0
    while True:
        k += 1
        if k > max_throws:
            return -1, 1
        p, remaining = push_step_kernel(succ, probs, mass, nxt, live, goal, band)
        cum += p
        if p > best:
            best = p
            mode = k
        for i in range(nq):
            if q_row[i] < 0 and cum >= levels[i]:
                q_row[i] = k
                unresolved -= 1
        if remaining < tail:
            break
        if unresolved == 0 and (not want_mode or remaining * (1.0 + 1e-9) < best):
            break
    return (mode if best > 0.0 else -1), 0


@njit()
def batch_kernel(first, step, sizes, starts, overshoot, chain, jump_ptr, jump_src, jump_dst,
                 dice_ptr, faces, probs, sum_tol, max_bytes, moments, want_var, quantiles,
                 levels, want_mode, tail, max_throws, problem, min_out, sure_out, mean_out,
                 var_out, q_out, mode_out, status):  # pragma: no cover - jitted
    """Boards ``first, first + step, ...``: validate, compile, BFS, moments, quantiles.

    One thread's share of a batch (the threads take interleaved rows, so boards
    of mixed sizes spread evenly); each board writes only its own rows.
    ``problem[b]`` receives board ``b``'s problem code: ``BROKEN_RULE`` when it breaks
    a rule of ``board_problem``, ``TOO_LARGE`` above ``MAX_SIZE`` or when it needs more
    than ``max_bytes`` (checked before allocating); ``sure_out[b]`` whether the goal is
    reached with probability 1.
    """
    for b in range(first, sizes.shape[0], step):
        j0, j1 = jump_ptr[b], jump_ptr[b + 1]
        d0, d1 = dice_ptr[b], dice_ptr[b + 1]
        code = np.int64(overshoot[b])
        size = sizes[b]
        if size > MAX_SIZE or (size >= 1 and (size + 1) * (8 * (d1 - d0) + ROW_BYTES)
                                > max_bytes):  # (size < 1 is a broken rule, not a size)
            problem[b] = TOO_LARGE
            continue
        jump_to = np.empty(max(size + 1, 1), dtype=np.int64)
        dist = np.empty(max(size + 1, 1), dtype=np.int64)  # also rules_hold's scratch
        if not rules_hold(size, starts[b], code, chain[b], jump_src[j0:j1], jump_dst[j0:j1],
                          faces[d0:d1], probs[d0:d1], sum_tol, jump_to, dist):
            problem[b] = BROKEN_RULE
            continue
        succ, pr = _table_one(size, code, chain[b], jump_to, faces[d0:d1], probs[d0:d1])
        n = succ.shape[0]
        sure = np.empty(n, dtype=np.bool_)
        reach_kernel(succ, dist, sure)
        start = starts[b]
        min_out[b] = dist[start]
        sure_out[b] = sure[start]
        if moments:
            mean = np.empty(n)
            var = np.empty(n)
            kmax = min(KMAX, max(64, (1 << 24) // n))
            if moments_kernel(succ, pr.reshape((1, pr.shape[0])), 0, sure, mean, var, kmax,
                              want_var):
                status[b] |= NEEDS_SOLVER
            else:
                mean_out[b] = mean[start]
                var_out[b] = var[start]
        if quantiles:
            mode_out[b], tail_status = _quantiles_one(succ, pr, dist, start, levels,
                                                      want_mode, tail, max_throws, q_out[b])
            status[b] |= tail_status
