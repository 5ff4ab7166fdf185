"""Restarted GMRES on the capacitance system of the structured solver (private).

With ``A = P - R`` (:mod:`.blocks`), ``R = C E_D^T`` of rank ``k``, the solve
``x = P^-1 (b + C y)`` is exact when ``y`` solves the ``k x k`` system
``(I - E_D^T P^-1 C) y = (P^-1 b)[D]``; its operator costs one sweep of ``P^-1``.
:func:`gmres_kernel` runs GMRES on it inside one compiled call (the Arnoldi
step, the Givens rotations and the sweeps; its work arrays allocated once).
:func:`scipy.sparse.linalg.gmres` over a ``LinearOperator`` of the same sweep stops
only on a 2-norm and has no test for the sweeps' rounding floor; in the solver's place
it is slower by more than 1.5x on some family of boards whichever way it is stopped
(``benchmarks/bench_krylov.py``; docs: Performance, GMRES: ours or SciPy's).

Stopping. The residual of ``x`` in the full system is ``r = b - A x = C rho``
with ``rho`` the capacitance residual. So GMRES can stop on the criterion the
certificate uses (``max |r_i| / b_i``, see :mod:`.structured`), and one solve
certifies: at every step it knows ``||rho||_2``, which bounds ``|r_i|`` by
``||rho||_2`` times row ``i``'s sum of ``C``; once that bound is within
``sqrt(k)`` of the target it forms ``rho`` from the basis (``O(j k)``) and ``C rho``
from the entries of ``C`` (no sweep), and stops when ``max |r_i| / b_i`` is below
the target. Where the residual then formed from the answer misses it (the rounding
floor of the sweeps), it stops too: the refining round of :mod:`.structured` takes over.

Deflation. The capacitance operator has one eigenvalue near 0: the game's slow mode,
the chance of landing on one more target before the goal being near 1 from every
target. Its eigenvector is near the vector of ones, so :func:`gmres_kernel` deflates
``U = 1`` (``C U`` made once per solver, one sweep) and the first steps no longer stall.

The sweep of a step (:func:`landing_sweep_kernel`) reads a square's moves through
the *landing values* of the squares a face's step above it, through tables made with
the solver (:func:`landing_kernel`).
"""

from __future__ import annotations

import numpy as np

from ..numba_config import njit
from ..table import usual_steps
from .blocks import block_solve_t_kernel
from .greedy import greedy_solve
from .gth import gth_solve_jit

#: Below ``FLOOR`` (relative), stop after ``STALL`` steps that do not halve the residual:
#: the rounding floor of the sweeps, where refinement takes over. Sooner where the
#: residual stops moving: after ``FLAT_STEPS`` steps in a row that each take less than
#: ``1 - FLAT`` of it, once it has fallen below ``FLOOR`` within the cycle (a cycle's
#: first steps can barely move it, and a cycle that starts on an already small residual
#: is left to ``STALL``). At the floor the ratios run to 1 within a few steps; a slow die
#: converging steadily is stopped by it only as it reaches the floor.
STALL = 8
FLOOR = 1e-10
FLAT = 7 / 8
FLAT_STEPS = 2
#: Orthogonalise a new basis vector a second time when the first pass left less than
#: this fraction of its norm (it lost about ``u`` over that fraction of orthogonality;
#: Kahan's 0.7 would repeat nearly every pass here): modified Gram-Schmidt once is
#: GMRES's usual, backward stable choice.
REORTHOGONALISE = 2.0**-10


@njit()
def _dot(a, b):  # pragma: no cover - jitted
    """``a . b`` in four running sums (a single sum waits on every addition)."""
    s0 = s1 = s2 = s3 = 0.0
    m = a.shape[0] - a.shape[0] % 4
    for t in range(0, m, 4):
        s0 += a[t] * b[t]
        s1 += a[t + 1] * b[t + 1]
        s2 += a[t + 2] * b[t + 2]
        s3 += a[t + 3] * b[t + 3]
    for t in range(m, a.shape[0]):
        s0 += a[t] * b[t]
    return (s0 + s1) + (s2 + s3)


@njit()
def _orthogonalise(basis, j, w, h):  # pragma: no cover - jitted
    """One pass of modified Gram-Schmidt of ``w`` against ``basis[: j + 1]``, adding the
    coefficients to ``h``; returns ``||w||`` after it. Each vector's update and the next
    one's product with ``w`` share a pass over ``w``."""
    k = w.shape[0]
    m = k - k % 4
    s = _dot(basis[0], w)
    for i in range(j + 1):
        h[i] += s
        nxt = basis[i + 1] if i < j else w  # the last pass gives ||w||^2
        u = basis[i]
        s0 = s1 = s2 = s3 = 0.0
        for t in range(0, m, 4):
            w[t] -= s * u[t]
            w[t + 1] -= s * u[t + 1]
            w[t + 2] -= s * u[t + 2]
            w[t + 3] -= s * u[t + 3]
            s0 += nxt[t] * w[t]
            s1 += nxt[t + 1] * w[t + 1]
            s2 += nxt[t + 2] * w[t + 2]
            s3 += nxt[t + 3] * w[t + 3]
        for t in range(m, k):
            w[t] -= s * u[t]
            s0 += nxt[t] * w[t]
        s = (s0 + s1) + (s2 + s3)
    return np.sqrt(s)


@njit()
def flat_steps(res, last, start, flat):  # pragma: no cover - jitted
    """The steps in a row that barely moved GMRES's residual, ``flat`` before this one
    took it from ``last`` to ``res`` in a cycle that started at ``start`` (see
    :data:`FLAT`)."""
    return flat + 1 if res > FLAT * last and res < FLOOR * start else 0


@njit()
def _relative(rho, c_rows, c_cols, c_vals, b):  # pragma: no cover - jitted
    """``max |(C rho)_i| / b_i`` over the rows of ``C`` (entries with rows increasing)."""
    top = 0.0
    i = 0
    while i < c_rows.shape[0]:
        row = c_rows[i]
        acc = 0.0
        while i < c_rows.shape[0] and c_rows[i] == row:
            acc += c_vals[i] * rho[c_cols[i]]
            i += 1
        top = max(top, abs(acc) / b[row])
    return top


#: A sweep keeps the landing values of the squares just solved in a ring of this many
#: (a power of two): a die whose longest step reaches further takes the per-move reads.
RING = 64
_MASK = RING - 1


@njit()
def landing_kernel(succ, probs, pstride, active, block_start, piv, tcol, k
                   ):  # pragma: no cover - jitted
    """The tables of :func:`landing_sweep_kernel`: ``(step, code, copy, irregular, ref,
    slot)``.

    Most moves are a face's usual step ``step[f]`` followed by the jump of the square
    landed on, so a square's moves read the *landing values* of the squares ``step[f]``
    above it. ``code[y] = y`` for a square with no jump (its own value), else
    ``code[y] = -1 - c`` reads ``near[c]``: for a snake down to the target of column
    ``c < k`` (``c = k``, a zero, for a square with no column), and for a jump up to
    ``t``, the copy of ``t``'s value that the sweep writes to ``near[copy[t]]`` as it
    solves ``t``. The targets' copies take the places ``k + 1 .. 2 k`` from the highest
    target down, so that a sweep writes them in order (``slot[c]``: the place of column
    ``c``'s target; in the columns' order, the writes go all over ``near``, which at
    10^7 squares outgrows the second-level cache); the other squares jumped to take the
    next places in the order a sweep reads them, and the rest write to the last place of
    ``near``. A square is *regular* when it is a block of its own in the system, each face's move is ``code[x + step[f]]``'s read (checked
    against ``succ``; a snake too short for that read is not) and, with one die, its
    pivot is the die's. ``irregular`` lists the other blocks, highest first, ending with
    -1, and ``ref`` their rows' reads face by face, in that order (``>= 0`` the swept
    vector there, ``-1 - c`` ``near[c]``; a move inside the block reads the zero)."""
    n, nf = succ.shape
    span = n - 1 - RING if n - 1 > 2 * RING else n - 1  # (above it, overshoot rules)
    step = usual_steps(succ, min(span, 63), span)
    a = 0  # the first face of the shortest step
    for f in range(1, nf):
        a = f if step[f] < step[a] else a
    s0, smax = step[a], step.max()
    usable = s0 >= 1 and smax < RING
    die = 0.0  # the pivot of a regular square with one die (summed as its factor is)
    for f in range(nf):
        die += probs[0, f]
    code = np.empty(n, dtype=np.int32)
    copy = np.full(n, -1, dtype=np.int32)
    slot = np.empty(k, dtype=np.int32)
    place = k + 1
    for y in range(n - 1, -1, -1):
        if tcol[y] >= 0:
            copy[y] = slot[tcol[y]] = place
            place += 1
    for y in range(n):
        t = succ[y - s0, a] if usable and y >= s0 else y
        if t < y - smax:
            code[y] = -1 - (tcol[t] if tcol[t] >= 0 else k)
        elif t > y:
            if copy[t] < 0:
                copy[t] = place
                place += 1
            code[y] = -1 - copy[t]
        else:
            code[y] = y  # (or a short snake: no regular square reads it)
    for y in range(n):
        if copy[y] < 0:
            copy[y] = place  # the last place: written, never read
    nb = block_start.shape[0] - 1
    irregular = np.empty(nb + 1, dtype=np.int32)
    count = rows = 0
    for b in range(nb - 1, -1, -1):
        x, hi = block_start[b], block_start[b + 1]
        regular = usable and hi == x + 1 and active[x] and (pstride or piv[x] == die)
        for f in range(nf if regular else 0):
            y = x + step[f]
            if y >= n:
                regular = False
                break
            t = succ[y - s0, a]
            if succ[x, f] != t or y - smax <= t < y:
                regular = False
                break
        if not regular:
            irregular[count] = b
            count += 1
            rows += hi - x
    irregular[count] = -1
    ref = np.empty((rows, nf), dtype=np.int32)
    r = 0
    for i in range(count):
        lo, hi = block_start[irregular[i]], block_start[irregular[i] + 1]
        for x in range(lo, hi):
            for f in range(nf):
                y = succ[x, f]
                ref[r, f] = (y if y >= hi else -1 - tcol[y] if y < lo and tcol[y] >= 0
                             else -1 - k)
            r += 1
    return step, code, copy, irregular[: count + 1].copy(), ref, slot


@njit(inline="always")
def _slot(j, others, probs, step):  # pragma: no cover - jitted
    """The ``j``-th face read from the ring: probability, step, mask and offset (a slot
    with no face reads the ring's zero at ``RING``)."""
    if j < others.shape[0]:
        f = others[j]
        return probs[0, f], step[f], _MASK, 0
    return 0.0, 0, 0, RING


@njit(error_model="numpy")
def landing_sweep_kernel(tables, probs, pstride, active, block_start, offsets, lu, piv, rhs,
                         near, out):  # pragma: no cover - jitted
    """``out = P^-1 (rhs + R E_D v)`` with ``near[:k] = v``, ``near[k] = 0`` (``rhs``
    empty: 0; ``near`` of length ``copy.max() + 1``): one sweep from the top block down,
    block by block as :func:`~.blocks.sweep_kernel` solves ``P^-1 rhs``, with the moves
    down to the targets (``R E_D v``, which that kernel does not take) read from
    ``near``, every move read through the tables of :func:`landing_kernel`.

    A regular square reads its moves' values from a ring of the landing values just
    solved, one die's probabilities held in registers (up to six faces), and the move of
    the shortest step (to the square just solved) enters last, as a product with the
    pivot's reciprocal: the chain from one square to the next is a multiply and an add.
    What a jump lands on is read from ``near`` (short, in cache), never from ``out``.
    Irregular blocks read face by face. Answers differ from a block-by-block solve of the
    same system (``tests/naive.block_sweep``) by roundings: the pivot's reciprocal, the
    order of the sums and the blocks' solves (a unit or two in the last place per
    square)."""
    step, code, copy, irregular, ref, _ = tables
    n = code.shape[0]
    nf = step.shape[0]
    use_rhs = rhs.shape[0] > 0
    ring = np.zeros(RING + 1)
    a = 0  # the first face of the shortest step
    for f in range(1, nf):
        a = f if step[f] < step[a] else a
    s0 = step[a]
    others = np.empty(nf - 1, dtype=np.int64)  # the other faces, the last one first
    j = 0
    for f in range(nf - 1, -1, -1):
        if f != a:
            others[j] = f
            j += 1
    fast = pstride == 0 and nf <= 6
    p1, s1, m1, o1 = _slot(0, others, probs, step)
    p2, s2, m2, o2 = _slot(1, others, probs, step)
    p3, s3, m3, o3 = _slot(2, others, probs, step)
    p4, s4, m4, o4 = _slot(3, others, probs, step)
    p5, s5, m5, o5 = _slot(4, others, probs, step)
    die = 0.0
    for f in range(nf):
        die += probs[0, f]
    rec = 1.0 / die  # every regular square's pivot with one die
    pa = probs[0, a] * rec
    prev = 0.0  # the landing value of the square just solved
    i = r = 0
    x = n - 1
    while x >= 0:
        b = irregular[i]
        top = block_start[b + 1] - 1 if b >= 0 else -1  # the next irregular block's
        # the regular squares down to it; what a jump lands on is loaded whichever value
        # is used, so that neither load waits in the chain from one square to the next
        if fast:
            while x > top:
                c = code[x]
                far = near[-1 - c if c < 0 else 0]
                acc = rhs[x] if use_rhs else 0.0
                acc += p1 * ring[((x + s1) & m1) | o1]
                acc += p2 * ring[((x + s2) & m2) | o2]
                acc += p3 * ring[((x + s3) & m3) | o3]
                acc += p4 * ring[((x + s4) & m4) | o4]
                acc += p5 * ring[((x + s5) & m5) | o5]
                v = acc * rec + pa * (prev if s0 == 1 else ring[(x + s0) & _MASK])
                out[x] = v
                near[copy[x]] = v
                prev = v if c == x else far
                ring[x & _MASK] = prev
                x -= 1
        else:
            while x > top:
                c = code[x]
                far = near[-1 - c if c < 0 else 0]
                acc = rhs[x] if use_rhs else 0.0
                row = x * pstride
                for j in range(nf - 1):
                    f = others[j]
                    acc += probs[row, f] * ring[(x + step[f]) & _MASK]
                rp = 1.0 / piv[x]
                v = acc * rp + (probs[row, a] * rp) * (prev if s0 == 1
                                                       else ring[(x + s0) & _MASK])
                out[x] = v
                near[copy[x]] = v
                prev = v if c == x else far
                ring[x & _MASK] = prev
                x -= 1
        if x < 0:
            break
        lo = block_start[b]  # an irregular block: its moves one by one
        for z in range(lo, x + 1):
            acc = rhs[z] if use_rhs else 0.0
            if active[z]:
                row = z * pstride
                for f in range(nf):
                    g = ref[r, f]
                    acc += probs[row, f] * (out[g] if g >= 0 else near[-1 - g])
                out[z] = acc if lo < x else acc / piv[z]
            else:
                out[z] = 0.0
            r += 1
        if lo < x:
            s = x + 1 - lo
            gth_solve_jit(lu[offsets[b]: offsets[b] + s * s].reshape((s, s)),
                          piv[lo: x + 1], out[lo: x + 1], np.bool_(False))
        for z in range(x, lo - 1, -1):
            near[copy[z]] = out[z]
            c = code[z]
            prev = out[z] if c == z else near[-1 - c]
            ring[z & _MASK] = prev
        i += 1
        x = lo - 1


@njit(error_model="numpy")
def capacitance_apply(trans, op, targets, v, work, work_t, w, pre, tmp
                      ):  # pragma: no cover - jitted
    """``w = S M^-1 v``, one sweep: the capacitance operator ``S v = v - (P^-1 R E_D v)[D]``
    after :mod:`.greedy`'s preconditioner ``M`` (tables ``pre``, ``M^-1 v`` into ``tmp``;
    ``tmp`` empty: none). ``op`` is ``P`` as the sweeps take it; ``work`` the tables of
    :func:`landing_kernel`, ``near`` (see :func:`landing_sweep_kernel`) and the swept
    vector (length ``n``). With ``trans``, ``w = S^T v = v - (R^T P^-T E_D v)[D]`` (no
    ``M``), ``work_t`` a vector left zero and two for the sweep, each of shape ``(n, 1)``.
    The work of the direction not taken may be empty."""
    if trans:
        full, out, back = work_t
        full[targets, 0] = v
        block_solve_t_kernel(*op, full, out, back)
        full[targets, 0] = 0.0
        for a in range(targets.shape[0]):
            w[a] = v[a] - back[targets[a], 0]
        return
    if tmp.shape[0]:
        greedy_solve(pre, v, tmp)
    x = tmp if tmp.shape[0] else v
    _, probs, pstride, active, block_start, offsets, lu, piv = op
    tables, near, out = work
    k = x.shape[0]
    near[:k] = x
    # no rhs: an empty view, not a module constant, which Numba types read-only (a second
    # signature of the kernel)
    landing_sweep_kernel(tables, probs, pstride, active, block_start, offsets, lu, piv,
                         out[:0], near, out)
    slot = tables[5]
    for a in range(k):  # the sweep's values at the targets
        w[a] = x[a] - near[slot[a]]


@njit(error_model="numpy")
def gmres_kernel(trans, op, targets, work, work_t, rhs, tol2, c_rows, c_cols, c_vals, b,
                 tol_rel, restart, maxiter, defl_u, defl_q, make, pre, y
                 ):  # pragma: no cover - jitted
    """Solve the capacitance system (:func:`capacitance_apply` with ``op``, ``targets`` and
    ``work``; with ``trans``, the transposed one with ``work_t``) for ``rhs`` into ``y``
    from ``y = 0``; returns the sweeps taken. The work arrays are made once; those of the
    other direction may be empty. (The operator is chosen by a flag, not passed as a
    function: a kernel taking a function cannot be loaded from Numba's cache.)

    Preconditioned on the right by ``M`` (:mod:`.greedy`'s tables ``pre``; empty tables
    or ``trans``: none): GMRES solves ``S M^-1 z = rhs``, and ``y = M^-1 z``. The residual
    is the same, and the last sweep of the operator swept ``y`` (see :mod:`.structured`).
    The deflation space is in ``z``: made from ``M 1``, whose image is ``S 1``.

    Stops when the residual's 2-norm is at most ``tol2`` or, with ``tol_rel > 0``, when
    ``max |(C rho)_i| / b_i <= tol_rel`` (``C`` given by its entries ``c_rows``,
    ``c_cols``, ``c_vals``, rows increasing); after ``maxiter`` sweeps; or once
    ``STALL`` steps pass without halving the residual below ``FLOOR`` (relative to
    ``rhs``), or ``FLAT_STEPS`` steps barely move it (see :data:`FLAT`); or when the
    residual formed after a cycle misses the ``tol_rel`` its estimate met (the sweeps'
    rounding floor: another cycle would not reach it, a refining round will).

    Deflated (GCRO-DR with a fixed space) by ``U = defl_u`` (rows), ``C U = defl_q``
    orthonormal: each cycle starts from ``y + U Q^T r`` and its Arnoldi steps run on
    ``(I - Q Q^T) C``. With ``make``, the kernel first makes them from ``U = 1``, one
    sweep (``defl_u``, ``defl_q`` of one row; see the module docstring).
    """
    k = rhs.shape[0]
    tmp = np.empty(k if not trans and pre[0].shape[0] > 0 else 0)  # M^-1 v (empty: no M)
    # |(C rho)_i| / b_i <= ||rho||_2 * gamma (C >= 0): look at rho itself below `near`
    gamma = _relative(np.ones(k), c_rows, c_cols, c_vals, b)
    near = tol_rel / gamma * np.sqrt(k) if gamma > 0 else np.inf
    basis = np.empty((restart + 1, k))
    hess = np.zeros((restart + 1, restart))
    cs = np.zeros(restart)
    sn = np.zeros(restart)
    g = np.zeros(restart + 1)
    h = np.empty(restart + 1)
    u = np.empty(restart + 1)
    rho = np.empty(k)
    coef = np.empty(restart)
    w = np.empty(k)
    r = rhs.copy()
    y[:] = 0.0
    bnorm = np.sqrt(_dot(r, r))
    steps = 0
    best = bnorm
    best_steps = 0
    nd = defl_q.shape[0]
    coupling = np.zeros((nd, restart))  # Q^T C V
    start = np.zeros(nd)  # Q^T r at the cycle's start
    estimated = False  # the last cycle stopped on its estimate of max |r_i| / b_i
    while True:
        if np.sqrt(_dot(r, r)) <= tol2 or steps >= maxiter or (
                tol_rel > 0 and _relative(r, c_rows, c_cols, c_vals, b) <= tol_rel):
            break
        if estimated:  # the residual formed from the answer misses what its estimate met:
            break  # the sweeps' rounding floor, where refinement takes over
        if make:  # U = 1, C U = Q R
            defl_u[0, :] = 1.0
            if tmp.shape[0]:  # M 1 = 1 - w on the targets with a path: its image is S 1
                phi, pw = pre[0], pre[1]
                for t in range(k):
                    if phi[t] >= 0:
                        defl_u[0, t] = 1.0 - pw[t]
            capacitance_apply(trans, op, targets, defl_u[0], work, work_t, w, pre, tmp)
            steps += 1
            scale = np.sqrt(_dot(w, w))
            for t in range(k):
                defl_u[0, t] = defl_u[0, t] / scale if scale > 0 else 0.0
                defl_q[0, t] = w[t] / scale if scale > 0 else 0.0
            make = False
        for a in range(nd):
            start[a] = _dot(defl_q[a], r)
            for t in range(k):
                r[t] -= start[a] * defl_q[a, t]
        beta = np.sqrt(_dot(r, r))
        for t in range(k):
            basis[0, t] = r[t] / beta if beta > 0 else 0.0
        hess[:] = 0.0
        g[:] = 0.0
        g[0] = beta
        j = np.int64(0)  # not literals: one compile of _orthogonalise and flat_steps
        flat, last = np.int64(0), beta
        estimated = beta == 0.0  # the deflated space holds the answer: no step to take
        while j < restart and beta > 0:
            capacitance_apply(trans, op, targets, basis[j], work, work_t, w, pre, tmp)
            steps += 1
            for a in range(nd):  # (I - Q Q^T) C
                coupling[a, j] = _dot(defl_q[a], w)
                for t in range(k):
                    w[t] -= coupling[a, j] * defl_q[a, t]
            # modified Gram-Schmidt, again when it cancelled (see REORTHOGONALISE)
            h[: j + 1] = 0.0
            before = np.sqrt(_dot(w, w))
            hn = _orthogonalise(basis, j, w, h)
            if hn < REORTHOGONALISE * before:
                hn = _orthogonalise(basis, j, w, h)
            h[j + 1] = hn
            for i in range(j):  # the earlier Givens rotations
                a, c = h[i], h[i + 1]
                h[i], h[i + 1] = cs[i] * a + sn[i] * c, -sn[i] * a + cs[i] * c
            nrm = np.hypot(h[j], h[j + 1])
            if nrm > 0:
                cs[j], sn[j] = h[j] / nrm, h[j + 1] / nrm
            else:
                cs[j], sn[j] = 1.0, 0.0
            h[j], h[j + 1] = nrm, 0.0
            hess[: j + 2, j] = h[: j + 2]
            g[j], g[j + 1] = cs[j] * g[j], -sn[j] * g[j]
            j += 1
            res = abs(g[j])
            flat, last = flat_steps(res, last, beta, flat), res
            if res < 0.5 * best:
                best, best_steps = res, steps
            elif (steps - best_steps >= STALL and best < FLOOR * bnorm) or flat >= FLAT_STEPS:
                maxiter = steps
            if hn == 0.0 or res <= tol2 or steps >= maxiter:
                break
            for t in range(k):
                basis[j, t] = w[t] / hn
            if res <= near:
                # rho = V_{j+1} G_0^T ... G_{j-1}^T (0, .., 0, g_j): the rotations
                # undone on the last entry of g
                u[: j + 1] = 0.0
                u[j] = g[j]
                for i in range(j - 1, -1, -1):
                    a, c = u[i], u[i + 1]
                    u[i], u[i + 1] = cs[i] * a - sn[i] * c, sn[i] * a + cs[i] * c
                for t in range(k):
                    acc = 0.0
                    for i in range(j + 1):
                        acc += u[i] * basis[i, t]
                    rho[t] = acc
                if _relative(rho, c_rows, c_cols, c_vals, b) <= tol_rel:
                    estimated = True
                    break
        for i in range(j - 1, -1, -1):  # the triangular least-squares solve
            acc = g[i]
            for c in range(i + 1, j):
                acc -= hess[i, c] * coef[c]
            coef[i] = acc / hess[i, i]
        for i in range(j):
            for t in range(k):
                y[t] += coef[i] * basis[i, t]
        for a in range(nd):  # y += U (Q^T r - Q^T C V coef)
            acc = start[a]
            for i in range(j):
                acc -= coupling[a, i] * coef[i]
            for t in range(k):
                y[t] += acc * defl_u[a, t]
        capacitance_apply(trans, op, targets, y, work, work_t, w, pre, tmp)
        steps += 1
        for t in range(k):
            r[t] = rhs[t] - w[t]
    if tmp.shape[0]:  # y = M^-1 z
        greedy_solve(pre, y, tmp)
        y[:] = tmp
    return steps
