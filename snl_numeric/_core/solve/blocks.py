"""Cancellation-free kernels of the solver family (private; see :mod:`.solve`).

The system is ``A x = b`` with ``A = I - Q`` restricted to the ``active``
squares: ``Q[x, y]`` is the probability that a throw from ``x`` ends on
``y``, read from the successor table ``succ[x, f]`` and the probabilities
``probs[x * pstride, f]`` (``pstride`` 0: one die for every square; 1: one
row per square, as a policy has). A throw that ends outside ``active`` (the
goal, or a square that is not in the system) leaves the system. ``A`` is a
nonsingular M-matrix whose off-diagonal entries ``-Q[x, y]`` and row sums
(the probability of leaving in one throw) are known exactly, so every pivot
here is formed as a *sum* of what leaves a square, never as a difference
(Grassmann, Taksar and Heyman's idea): elimination and substitution only add
and multiply non-negative numbers and divide by such sums, and every entry
of a solution with a non-negative right-hand side keeps high relative
accuracy however large it is.

Divisions follow IEEE rules (``error_model="numpy"``): a pivot that underflows to 0 (an
expected number of throws beyond the largest double) gives ``inf``, which the solver
reports, instead of an exception inside a kernel.

Squares are grouped into *blocks*: consecutive squares tied together by
short backward moves (a snake of a few squares, a bounce). ``P`` is ``A``
without the backward moves that leave a block (``R``, of rank ``k``, the
number of distinct squares they land on); ``P`` is block upper triangular,
each diagonal block factorised densely by GTH elimination (:mod:`.gth`), so ``P^-1`` is one
sweep from the top block down and ``P^-T`` one sweep from the bottom up.
"""

from __future__ import annotations

import numpy as np
from ..numba_config import njit, register_jitable
from .gth import gth_factor_jit, gth_solve_jit

#: Most squares in one diagonal block. Runs of short snakes tie up to a few dozen squares
#: together; the snakes across a cut go to the low-rank part (at 10^6 squares, 20% of them
#: starting a snake of 1-7 squares: k = 2,632 cut every 16 squares, 41 every 32;
#: benchmarks/bench_families.py).
BLOCK_MAX = 32
#: Unit roundoff of a double.
UNIT_ROUNDOFF = np.finfo(float).eps / 2
#: The squares are taken rotated when that leaves this many times fewer moves backward.
ROTATE_GAIN = 4


# -- blocks -----------------------------------------------------------------------------
@njit()
def structure_kernel(succ, probs, pstride, active, bmax, block_start, tcol,
                     cost):  # pragma: no cover - jitted
    """Cut the squares into blocks and number the squares ``R`` lands on.

    A backward move ``x -> y`` (both active) shorter than ``bmax`` ties ``y .. x``
    together; blocks are the runs between cuts that no such move crosses, cut
    again every ``bmax`` squares. ``block_start`` (length ``n + 1``) receives the
    first square of each block and ends with ``n``; ``tcol[y]`` receives the
    column of ``y`` among the targets of moves to lower blocks (numbered from the
    highest move down) or -1. Returns ``(blocks, targets, rows, cols, vals)``: the moves
    to lower blocks as the entries of ``C`` (``R = C E_D^T``; rows, squares increasing,
    columns ``tcol`` of the square landed on, probabilities).

    Unless ``cost`` (length ``n + 1``) is empty, ``cost[c]`` receives the moves that go
    backward when the squares are taken in the order ``c .. n-1, 0 .. c-1`` (``cost[0]``:
    in their own order): a move down from ``x`` to ``y`` goes forward in that order when
    ``y < c <= x``, a move up from ``x`` to ``y`` backward when ``x < c <= y`` (difference
    arrays). The same pass counts the moves down; the moves up, every throw of the die,
    take a second pass only when some order could leave :data:`ROTATE_GAIN` times fewer
    than ``cost[0]`` (the solver's test): otherwise ``cost[c]`` for ``c > 0`` is the
    moves down that stay backward, a lower bound that fails that test as well.
    """
    n, nf = succ.shape
    left = np.arange(n)
    rotations = cost.shape[0] > 0
    if rotations:
        cost[:] = 0
    total = 0  # the moves backward
    for x in range(n):
        if active[x]:
            for f in range(nf):
                y = succ[x, f]
                if y < x and active[y] and probs[x * pstride, f] != 0.0:
                    total += 1
                    if x - y < bmax and y < left[x]:
                        left[x] = y
                    if rotations:
                        cost[y + 1] -= 1
                        cost[x + 1] += 1
    below = False  # whether some c > 0 has ROTATE_GAIN cost[c] < total
    if rotations:  # cost from its difference array: prefix sums from total
        acc = total
        for c in range(cost.shape[0] - 1):
            acc += cost[c]
            cost[c] = acc
            below |= c > 0 and ROTATE_GAIN * acc < total
        cost[0] = total
    if below:
        up = np.zeros(n + 1, dtype=cost.dtype)
        for x in range(n):
            if active[x]:
                for f in range(nf):
                    y = succ[x, f]
                    if y > x and active[y] and probs[x * pstride, f] != 0.0:
                        up[x + 1] += 1
                        up[y + 1] -= 1
        acc = 0
        for c in range(n):
            acc += up[c]
            cost[c] += acc
    free = np.ones(n, dtype=np.bool_)  # no short backward move crosses the cut after t
    low = n
    for t in range(n - 1 if bmax > 1 else -1, -1, -1):
        free[t] = low > t
        if left[t] < low:
            low = left[t]
    nb = 0
    lo = 0
    for t in range(n):
        if free[t] or t == n - 1 or t - lo + 1 >= bmax:
            block_start[nb] = lo
            nb += 1
            lo = t + 1
    block_start[nb] = n
    k = down = 0
    tcol[:] = -1
    rows = np.empty(total, dtype=np.int64)  # the moves to lower blocks, rows decreasing
    cols = np.empty(total, dtype=np.int64)
    vals = np.empty(total)
    for b in range(nb - 1, -1, -1):
        lo = block_start[b]
        for x in range(block_start[b + 1] - 1, lo - 1, -1):
            if not active[x]:
                continue
            for f in range(nf):
                y = succ[x, f]
                if y < lo and active[y] and probs[x * pstride, f] != 0.0:
                    if tcol[y] < 0:
                        tcol[y] = k
                        k += 1
                    rows[down] = x
                    cols[down] = tcol[y]
                    vals[down] = probs[x * pstride, f]
                    down += 1
    return nb, k, rows[:down][::-1].copy(), cols[:down][::-1].copy(), vals[:down][::-1].copy()


@njit()
def levels_kernel(succ, probs, pstride, active, block_start):  # pragma: no cover - jitted
    """The longest chain of blocks linked by forward moves (for the a priori bound of a
    cancellation-free solve): a chain through every square, so a pass of its own, made
    only for the methods that use it."""
    n, nf = succ.shape
    level = np.empty(n, dtype=np.int64)  # the chain length of each square's block
    top = 0
    for b in range(block_start.shape[0] - 2, -1, -1):
        lo, hi = block_start[b], block_start[b + 1]
        lv = 0
        for x in range(hi - 1, lo - 1, -1):
            if not active[x]:
                continue
            for f in range(nf):
                y = succ[x, f]
                if y >= hi and active[y] and probs[x * pstride, f] != 0.0 and level[y] > lv:
                    lv = level[y]
        for x in range(lo, hi):
            level[x] = lv + 1
        top = max(top, lv + 1)
    return top


@njit(inline="always")
def _largest_block(block_start):  # pragma: no cover - jitted
    top = 0
    for b in range(block_start.shape[0] - 1):
        top = max(top, block_start[b + 1] - block_start[b])
    return top


@njit(error_model="numpy")
def block_factor_kernel(succ, probs, pstride, active, block_start, offsets,
                        piv):  # pragma: no cover - jitted
    """Factorise ``P``'s diagonal blocks: a block of ``s >= 2`` squares by GTH elimination
    into ``lu[offsets[b] : offsets[b] + s * s]`` (row-major, packed as :mod:`.gth` leaves
    it), a single square by its pivot, the sum of its probabilities of moving; inactive
    squares get an identity row. Each square's pivot goes into ``piv``. Fills
    ``offsets`` (one per block) and returns ``(lu, blocks of two squares or more)``."""
    n, nf = succ.shape
    nb = block_start.shape[0] - 1
    size = 0
    blocks = 0
    for b in range(nb):
        offsets[b] = size
        s = block_start[b + 1] - block_start[b]
        if s >= 2:
            size += s * s
            blocks += 1
    lu = np.empty(size)
    for b in range(nb):
        lo, hi = block_start[b], block_start[b + 1]
        s = hi - lo
        if s == 1:
            d = 1.0
            if active[lo]:
                d = 0.0
                for f in range(nf):
                    if succ[lo, f] != lo:
                        d += probs[lo * pstride, f]
            piv[lo] = d
            continue
        a = lu[offsets[b]: offsets[b] + s * s].reshape((s, s))
        slack = np.empty(s)
        for i in range(s):
            slack[i] = 0.0
            for j in range(s):
                a[i, j] = 0.0
        for i in range(s):
            x = lo + i
            if not active[x]:
                slack[i] = 1.0
                continue
            for f in range(nf):
                p = probs[x * pstride, f]
                y = succ[x, f]
                if p == 0.0 or y == x:
                    continue
                if lo <= y < hi and active[y]:
                    a[i, y - lo] -= p
                else:
                    slack[i] += p
        gth_factor_jit(a, slack, piv[lo:hi])
    return lu, blocks


@njit(error_model="numpy")
def sweep_kernel(succ, probs, pstride, active, block_start, offsets, lu, piv, rhs,
                 out):  # pragma: no cover - jitted
    """``out = P^-1 rhs`` for one column: one sweep from the top block down, starting at
    the block of the highest non-zero of ``rhs`` (``out`` is 0 above it and off the
    system). Single squares, the common case, take the short path: their moves up are
    known."""
    n, nf = succ.shape
    b = block_start.shape[0] - 2
    x = n - 1
    while x >= 0 and (rhs[x] == 0.0 or not active[x]):
        out[x] = 0.0
        x -= 1
    while b > 0 and block_start[b] > x:
        b -= 1
    for z in range(x + 1, block_start[b + 1]):
        out[z] = 0.0
    x = block_start[b + 1] - 1
    while x >= 0:
        lo = block_start[b]
        if lo == x:
            if active[x]:
                acc = rhs[x]
                row = x * pstride
                # the last face first: the usual move to x + 1, solved just before,
                # enters last, so the chain from one square to the next is short
                for f in range(nf - 1, -1, -1):
                    y = succ[x, f]
                    if y > x:
                        acc += probs[row, f] * out[y]
                out[x] = acc / piv[x]
            else:
                out[x] = 0.0
        else:
            hi = x + 1
            for z in range(lo, hi):
                if not active[z]:
                    out[z] = 0.0
                    continue
                acc = rhs[z]
                row = z * pstride
                for f in range(nf):
                    y = succ[z, f]
                    if y >= hi:
                        acc += probs[row, f] * out[y]
                out[z] = acc
            s = hi - lo
            gth_solve_jit(lu[offsets[b]: offsets[b] + s * s].reshape((s, s)), piv[lo:hi],
                          out[lo:hi], np.bool_(False))
        x = lo - 1
        b -= 1


@njit(error_model="numpy")
def _block_columns(a, piv, out, lo, cols, col, trans):  # pragma: no cover - jitted
    """Rows ``lo .. lo + s - 1`` of the first ``cols`` columns of ``out`` solved in place by
    one diagonal block's GTH factors ``a`` (``s x s``) and pivots ``piv`` (``trans``: by its
    transpose), each column through ``col`` (contiguous, at least ``s`` long)."""
    s = a.shape[0]
    for j in range(cols):
        for i in range(s):
            col[i] = out[lo + i, j]
        gth_solve_jit(a, piv, col[:s], trans)
        for i in range(s):
            out[lo + i, j] = col[i]


@njit()
def column_tops_kernel(rhs, active, first):  # pragma: no cover - jitted
    """``tops[j]``: the highest first row of columns ``j .. m-1`` of ``rhs`` (-1: none),
    ``first[j]`` being column ``j``'s highest non-zero row among the active squares, or
    found by a scan of ``rhs`` when ``first`` is empty (see :func:`block_solve_kernel`)."""
    n, m = rhs.shape
    tops = np.empty(m, dtype=np.int64)
    top = -1
    for j in range(m - 1, -1, -1):
        if first.shape[0]:
            top = max(top, first[j])
        else:
            x = n - 1
            while x > top and not (active[x] and rhs[x, j] != 0.0):
                x -= 1
            top = max(top, x)
        tops[j] = top
    return tops


@njit(error_model="numpy")
def unit_columns_kernel(succ, probs, pstride, active, block_start, b, piv, rhs, tops, cols,
                        out):  # pragma: no cover - jitted
    """Blocks ``b, b - 1, ...`` of ``out = P^-1 rhs`` for the columns of ``rhs`` at once
    (the rows above solved) while each is a single square, ``piv`` its pivot: the moves up
    of a square are all it is solved from (the sweep of a board whose blocks are all single
    squares). The first ``cols`` columns are not zero above, and a column ``j`` joins them
    at row ``tops[j]`` (:func:`column_tops_kernel`). Returns the first block left (-1:
    none) and the columns not zero from there up."""
    nf = succ.shape[1]
    m = rhs.shape[1]
    x = block_start[b + 1] - 1 if b >= 0 else -1  # (x: arithmetic, not a load, below)
    while b >= 0 and block_start[b] == x:
        while cols < m and tops[cols] >= x:
            cols += 1
        for j in range(cols, m):
            out[x, j] = 0.0
        if active[x]:
            for j in range(cols):
                out[x, j] = rhs[x, j]
            for f in range(nf):  # squares off the system hold 0 in out
                y = succ[x, f]
                if y > x:
                    p = probs[x * pstride, f]
                    for j in range(cols):
                        out[x, j] += p * out[y, j]
            d = piv[x]
            for j in range(cols):
                out[x, j] /= d
        else:
            for j in range(cols):
                out[x, j] = 0.0
        x -= 1
        b -= 1
    return b, cols


@njit(error_model="numpy")
def block_solve_kernel(succ, probs, pstride, active, block_start, offsets, lu, piv, rhs, first,
                       out):  # pragma: no cover - jitted
    """``out = P^-1 rhs`` for the ``m`` columns of ``rhs`` at once (see :func:`sweep_kernel`).

    A column is zero above its highest non-zero right-hand side, so the sweep skips it
    there (put the columns that start highest first): ``first[j]`` is that row of column
    ``j`` among the active squares (-1: none), as the caller knows it from building the
    columns, or ``first`` is empty and the rows are found here, by a scan of ``rhs``.
    Runs of single squares are solved by :func:`unit_columns_kernel`.
    """
    nf = succ.shape[1]
    m = rhs.shape[1]
    tops = column_tops_kernel(rhs, active, first)
    # a block's column, contiguous (one compiled GTH solve for all), allocated at the first
    # block of two squares or more (until then an empty view, not an allocation)
    col = out[0, :0]
    cols = np.int64(0)  # the columns not zero from the block up (int64, not a literal)
    b = block_start.shape[0] - 2
    while b >= 0:
        if block_start[b + 1] - block_start[b] == 1:  # a run of single squares
            b, cols = unit_columns_kernel(succ, probs, pstride, active, block_start, b, piv,
                                          rhs, tops, cols, out)
            if b < 0:
                break
        lo, hi = block_start[b], block_start[b + 1]
        while cols < m and tops[cols] >= lo:
            cols += 1
        for x in range(lo, hi):
            for j in range(cols, m):
                out[x, j] = 0.0
            if not active[x]:
                for j in range(cols):
                    out[x, j] = 0.0
                continue
            for j in range(cols):
                out[x, j] = rhs[x, j]
            for f in range(nf):  # squares off the system hold 0 in out
                y = succ[x, f]
                if y >= hi:
                    p = probs[x * pstride, f]
                    for j in range(cols):
                        out[x, j] += p * out[y, j]
        if cols:
            s = hi - lo
            if col.shape[0] < s:
                col = np.empty(_largest_block(block_start))
            _block_columns(lu[offsets[b]: offsets[b] + s * s].reshape((s, s)), piv[lo:hi],
                           out, lo, cols, col, np.bool_(False))
        b -= 1


@njit(error_model="numpy")
def block_solve_t_kernel(succ, probs, pstride, active, block_start, offsets, lu, piv, rhs, out,
                         back_out):  # pragma: no cover - jitted
    """``out = P^-T rhs``: one sweep from the bottom block up; ``back_out`` (``(n, m)`` or
    ``(n, 0)``) receives ``R^T out`` (what the moves to lower blocks carry back)."""
    n, nf = succ.shape
    m = rhs.shape[1]
    nb = block_start.shape[0] - 1
    use_back = back_out.shape[1] > 0
    out[:] = rhs
    back_out[:] = 0.0
    col = np.empty(_largest_block(block_start))  # contiguous: one compiled GTH solve for all
    for b in range(nb):
        lo, hi = block_start[b], block_start[b + 1]
        s = hi - lo
        if s == 1:
            if active[lo]:
                d = piv[lo]
                for j in range(m):
                    out[lo, j] /= d
        else:
            _block_columns(lu[offsets[b]: offsets[b] + s * s].reshape((s, s)), piv[lo:hi],
                           out, lo, m, col, np.bool_(True))
        for x in range(lo, hi):
            if not active[x]:
                for j in range(m):
                    out[x, j] = 0.0
                continue
            for f in range(nf):
                y = succ[x, f]
                p = probs[x * pstride, f]
                if p == 0.0 or not active[y]:
                    continue
                if y >= hi:
                    for j in range(m):
                        out[y, j] += p * out[x, j]
                elif y < lo and use_back:
                    for j in range(m):
                        back_out[y, j] += p * out[x, j]


@njit()
def backward_columns_kernel(succ, probs, pstride, active, block_start, tcol, col0,
                            out):  # pragma: no cover - jitted
    """The columns of ``[e | C]`` into ``out[:, col0 - 1 : col0 + k]`` (zero on entry):
    ``out[x, col0 - 1]`` the probability that a throw from ``x`` leaves the system and
    ``out[x, col0 + tcol[y]] += p`` for every move ``x -> y`` to a lower block
    (``R = C E_D^T``)."""
    nf = succ.shape[1]
    nb = block_start.shape[0] - 1
    for b in range(nb):
        lo = block_start[b]
        for x in range(lo, block_start[b + 1]):
            if not active[x]:
                continue
            for f in range(nf):
                p = probs[x * pstride, f]
                y = succ[x, f]
                if p == 0.0:
                    continue
                if not active[y]:
                    out[x, col0 - 1] += p
                elif y < lo:
                    out[x, col0 + tcol[y]] += p


# -- the Woodbury correction ---------------------------------------------------------
@njit(error_model="numpy")
def capacitance_kernel(z, col0, targets, cap, cap_piv):  # pragma: no cover - jitted
    """Factorise the capacitance matrix ``I - W[D]`` by GTH into ``cap`` and ``cap_piv``.

    ``z[:, col0 - 1 : col0 + k] = P^-1 [e | C]``: ``h = P^-1 e`` then ``W = P^-1 C``. The
    off-diagonal part is ``W[D]`` and the row sums ``h[D]``: ``(I - W[D]) 1 = h[D]``.
    """
    k = targets.shape[0]
    slack = np.empty(k)
    for a in range(k):
        for c in range(k):
            cap[a, c] = -z[targets[a], col0 + c]
        slack[a] = z[targets[a], col0 - 1]
    gth_factor_jit(cap, slack, cap_piv)


@njit(error_model="numpy")
def correction_kernel(z, col0, targets, cap, cap_piv, x, rows):  # pragma: no cover - jitted
    """``x <- x + W (I - W[D])^-1 x[D]`` in place: ``A^-1 b`` from ``x = P^-1 b`` (``z``,
    ``cap`` and ``cap_piv`` as :func:`capacitance_kernel` takes and leaves them), on the
    rows where the mask ``rows`` is True (``rows`` empty: every row)."""
    k = targets.shape[0]
    if k == 0:
        return
    y = x[targets]
    gth_solve_jit(cap, cap_piv, y, np.bool_(False))
    every = rows.shape[0] == 0
    for i in range(x.shape[0]):
        if not (every or rows[i]):
            continue
        acc = x[i]
        for a in range(k):
            acc += z[i, col0 + a] * y[a]
        x[i] = acc


@register_jitable
def a_priori_bound(levels, faces, k, bmax):
    """The a priori relative error of a cancellation-free solve (triangular or Woodbury):
    a few units in the last place per operation along the longest chain of dependent
    operations, ``levels`` blocks linked by forward moves of ``faces`` terms each, then
    the capacitance elimination of ``k`` unknowns and a block of ``bmax`` squares."""
    return UNIT_ROUNDOFF * (levels * (2 * faces + 6) + 6 * (k + bmax) + 10)

