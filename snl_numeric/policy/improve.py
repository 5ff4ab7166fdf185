"""Policy iteration whose decisions are certified to their stated accuracy.

*Gains.* For a policy with expected throws ``V`` (certified by the solver to a relative
error ``e``), throwing die ``a`` on square ``x`` instead gains ``V(x) - Q(x, a)`` under
"min" (``Q(x, a) - V(x)`` under "max"), with ``Q(x, a) = 1 + sum_f P_a(f) W(landing)``
(each die's probabilities scaled to sum to 1, as the solver's chain); switching jump
``j`` gains the difference of its two options. Every gain comes with a bound on its
error: ``e`` times the values it is made of, plus the rounding of its sum.

*Iteration.* Every choice whose gain is certainly positive switches at once, the new
policy is evaluated exactly, and so on: each step truly improves, so it stops. Then
ties go to the smallest die index and to taking a jump (choices not certainly worse).

*Certificate.* If one switch gains at most ``g``, the expected throws from any square
``u`` improve by ``g N'(u, v)``, where the visits ``N'(u, v)`` to the switched node
under the switched policy are at most its throws ``V'(u) <= V(u) / (1 - g)``: at most
``g / (1 - g)`` relative. Every alternative whose gain's upper bound keeps that within
``tau = max(tol, e)`` is cleared. The others (near ties) get their gains again from
values refined by one correction solve, with the residual and the sums in error-free
arithmetic (about ``2**-100`` relative), and whatever is still open is evaluated as its
own policy, a few at most. A switch that improves is taken and the iteration goes on;
what cannot be cleared is the reported ``gap``, with a ``RuntimeWarning``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .evaluate import evaluate, face_sums, policy_table
from .problem import Problem, resolve

U = np.finfo(np.float64).eps / 2
#: At most this many open near-ties are evaluated as their own policies per certificate.
MAX_TRIALS = 16


@dataclass
class _Policy:
    """A policy and, once evaluated, its values, their error and its solver."""

    die: np.ndarray
    take: np.ndarray
    values: np.ndarray = field(default_factory=lambda: np.zeros(0))
    error: float = 0.0
    solver: Any = None


@dataclass(frozen=True)
class Improved:
    """Values of the final policy (``die``/``take`` are updated in place), their certified
    relative error, the improvement steps, the certified gap and the Bellman residual."""

    values: np.ndarray
    error: float
    steps: int
    gap: float
    residual: float


@dataclass(frozen=True)
class _Gains:
    sq: np.ndarray    # (A, n): gain of each alternative die (-inf: none or certainly worse)
    sq_d: np.ndarray  # its error bound
    jp: np.ndarray    # (m,): gain of switching each jump
    jp_d: np.ndarray
    residual: float


def _rel(g: np.ndarray) -> np.ndarray:
    """The relative improvement a switch gaining at most ``g`` can make (``inf`` at 1)."""
    g = np.maximum(g, 0.0)
    return np.divide(g, 1.0 - g, out=np.full(g.shape, np.inf), where=g < 1.0)


def improve(p: Problem, die: np.ndarray, take: np.ndarray, active: np.ndarray,
            jactive: np.ndarray, sense: float, tol: float, max_iter: int) -> Improved:
    """Policy iteration from a policy proper on ``active`` (changed in place), certified."""
    pol = _Policy(die, take)
    _evaluate(p, pol, active)
    jactive = jactive & p.optional
    steps, canonical = 0, False
    while True:
        tau = max(tol, pol.error)
        loose = _inflate(pol.error)
        g = _gains(p, pol, active, jactive, sense, loose)
        switched = _switch(g, pol, g.sq > g.sq_d, g.jp > g.jp_d, tau)
        if not switched:  # the values may be certified more tightly by their residual
            tight, residual = _residual_error(p, pol, active)
            if tight < loose:
                g = _gains(p, pol, active, jactive, sense, tight)
                switched = _switch(g, pol, g.sq > g.sq_d, g.jp > g.jp_d, tau)
        if switched:
            steps = _step(steps, max_iter)
            _evaluate(p, pol, active)
            continue
        # under "min", a policy whose every choice is at most 1 worse than V's (per throw,
        # with the jumps along a chain) finishes surely (a class it never leaves would have
        # to gain a throw per throw): near ties need no check then
        check = sense > 0 and (max(g.sq_d.max(initial=0.0), g.jp_d.max(initial=0.0))
                               * (1 + len(p.levels)) >= 0.5)
        if not canonical:  # ties: the smallest die index, and taking a jump
            canonical = True
            trial = _Policy(pol.die.copy(), pol.take.copy())
            tied = g.sq >= -g.sq_d
            tied[pol.die, np.arange(p.n)] = True
            trial.die[active] = np.argmax(tied, axis=0)[active]
            trial.take |= jactive & (g.jp >= -g.jp_d)
            if _differs(trial, pol) and _adopt(p, pol, trial, active, check):
                continue
        gap = _certify(p, pol, g, active, sense, tau, check, residual)
        if gap is None:  # a switch was taken
            steps = _step(steps, max_iter)
            continue
        return Improved(pol.values, pol.error, steps, gap, g.residual)


def _step(steps: int, max_iter: int) -> int:
    if steps >= max_iter:
        raise RuntimeError(f"policy iteration did not converge within max_iter={max_iter} "
                           "steps; raise max_iter or tol")
    return steps + 1


def _evaluate(p: Problem, pol: _Policy, active: np.ndarray) -> None:
    """Evaluate after certain improvements (which keep a policy proper)."""
    pol.values, pol.error, pol.solver = evaluate(p, pol.die, pol.take, active, check=False)
    if not np.all(np.isfinite(pol.values[active])):  # pragma: no cover - a certified step
        raise RuntimeError("optimal_policy: a policy step left the squares where play "
                           "surely finishes; please report this board")


def _differs(a: _Policy, b: _Policy) -> bool:
    return not (np.array_equal(a.die, b.die) and np.array_equal(a.take, b.take))


def _adopt(p: Problem, pol: _Policy, trial: _Policy, active: np.ndarray, check: bool
           ) -> bool:
    """Evaluate ``trial`` and take it when it finishes surely."""
    trial.values, trial.error, trial.solver = evaluate(p, trial.die, trial.take, active, check)
    if trial.solver is None or not np.all(np.isfinite(trial.values[active])):
        return False
    _take(pol, trial)
    return True


def _take(pol: _Policy, trial: _Policy) -> None:
    pol.die[:], pol.take[:] = trial.die, trial.take
    pol.values, pol.error, pol.solver = trial.values, trial.error, trial.solver


def _residual_error(p: Problem, pol: _Policy, active: np.ndarray
                    ) -> tuple[float, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """A relative error of the values (componentwise) from their residual: with
    ``A = diag(rowsum) - P`` and ``A V = rowsum``, ``|V - V^| = |A^-1 r|`` is at most
    ``max |r| / rowsum`` times ``V`` (``A^-1 >= 0``); the residual in error-free
    arithmetic (also returned with its error bound and the row sums, for :func:`_precise`)."""
    succ, prob = policy_table(p, pol.die, pol.take)
    v = np.where(active, pol.values, 0.0)
    rs = p.rowsum[pol.die]
    r, err = _exact_rows(rs, prob, v[succ], v)
    rho = float(np.max(np.where(active, (np.abs(r) + err) / rs, 0.0))) * (1 + 4 * U)
    return (rho / (1.0 - rho) if rho < 1.0 else np.inf), (r, err, rs)


def _gains(p: Problem, pol: _Policy, active: np.ndarray, jactive: np.ndarray,
           sense: float, e: float) -> _Gains:
    """Every alternative's gain, with an error bound from ``e``, the relative error of
    the values (as those of the true values)."""
    n, rows = p.n, np.arange(p.n)
    w = pol.values[resolve(p, pol.take)]
    q = face_sums(p, w)
    if np.any(p.rowsum != 1.0):
        q /= p.rowsum[:, None]
    ok = np.isfinite(q) & active
    q = np.where(ok, q, 0.0)
    v = np.where(active, pol.values[:n], 0.0)
    sq = np.where(ok, sense * (v - 1.0 - q), -np.inf)
    sq_d = e * (q + v) + (p.nxt.shape[2] + 4) * 2 * U * (1.0 + q + v)
    own = sq[pol.die, rows]
    sq[pol.die, rows] = -np.inf
    jp = np.full(len(p.src), -np.inf)
    jp_d = np.zeros(len(p.src))
    if jactive.any():
        cur = w[n:]
        alt = np.where(pol.take, pol.values[p.src], w[p.tgt])
        jok = jactive & np.isfinite(alt) & np.isfinite(cur)
        cur, alt = np.where(jok, cur, 0.0), np.where(jok, alt, 0.0)
        jp = np.where(jok, sense * (cur - alt), -np.inf)
        jp_d = e * (cur + alt)
    residual = max(np.abs(own[active]).max(initial=0.0), sq.max(initial=0.0),
                   jp.max(initial=0.0))
    return _Gains(sq, sq_d, jp, jp_d, float(residual))


def _switch(g: _Gains, pol: _Policy, sure: np.ndarray, jsure: np.ndarray, tau: float) -> int:
    """Switch every square to its best certainly better die, and every certainly better
    jump decision, where the gain can matter (above ``tau``); returns the count."""
    least = tau / (1.0 + tau)  # a switch gaining less improves by at most tau (relative)
    sure = sure & (g.sq + g.sq_d > least)
    squares = np.flatnonzero(sure.any(axis=0))
    if len(squares):
        pol.die[squares] = np.argmax(np.where(sure, g.sq, -np.inf), axis=0)[squares]
    jumps = np.flatnonzero(jsure & (g.jp + g.jp_d > least))
    pol.take[jumps] = ~pol.take[jumps]
    return len(squares) + len(jumps)


def _certify(p: Problem, pol: _Policy, g: _Gains, active: np.ndarray, sense: float,
             tau: float, check: bool, residual: tuple) -> float | None:
    """The gap no single switch is shown not to exceed (0 when every one is within
    ``tau``), or ``None`` after taking a switch that improves."""
    least = tau / (1.0 + tau)
    open_sq = g.sq + g.sq_d > least
    open_jp = g.jp + g.jp_d > least
    if not (open_sq.any() or open_jp.any()):
        return 0.0
    fine = _precise(p, pol, open_sq, open_jp, active, sense, *residual)
    if _switch(fine, pol, fine.sq > fine.sq_d, fine.jp > fine.jp_d, tau):
        _evaluate(p, pol, active)
        return None
    batch = _Policy(pol.die.copy(), pol.take.copy())  # every open switch that looks better
    if (_switch(fine, batch, fine.sq > 0, fine.jp > 0, tau)
            and _improves(p, pol, batch, active, sense, check)):
        _take(pol, batch)
        return None
    bound_sq = np.where(open_sq, _rel(fine.sq + fine.sq_d), 0.0)
    bound_jp = np.where(open_jp, _rel(fine.jp + fine.jp_d), 0.0)
    trials = [(b, 0, int(a), int(x)) for b, (a, x) in
              zip(bound_sq[bound_sq > tau], np.argwhere(bound_sq > tau), strict=True)]
    trials += [(b, 1, int(j), 0) for b, j in
               zip(bound_jp[bound_jp > tau], np.flatnonzero(bound_jp > tau), strict=True)]
    trials.sort(reverse=True)
    for _, is_jump, a, x in trials[:MAX_TRIALS]:
        trial = _Policy(pol.die.copy(), pol.take.copy())
        if is_jump:
            trial.take[a] = not trial.take[a]
            bound_jp[a] = 0.0
        else:
            trial.die[x] = a
            bound_sq[a, x] = 0.0
        if _improves(p, pol, trial, active, sense, check):
            _take(pol, trial)
            return None
    gap = max(bound_sq.max(initial=0.0), bound_jp.max(initial=0.0))
    return float(gap) if gap > tau else 0.0


def _improves(p: Problem, pol: _Policy, trial: _Policy, active: np.ndarray, sense: float,
              check: bool) -> bool:
    """Evaluate ``trial``: better than ``pol`` beyond both certified errors somewhere, and
    worse nowhere beyond them (a play that never finishes is no improvement)."""
    trial.values, trial.error, trial.solver = evaluate(p, trial.die, trial.take, active, check)
    if trial.solver is None:
        return False
    v, v2 = pol.values[active], trial.values[active]
    slack = (_inflate(pol.error) * v + _inflate(trial.error) * v2) * (1 + 8 * U)
    gain = sense * (v - v2)
    return bool(np.any(gain > slack) and np.all(gain >= -slack))


def _inflate(error: float) -> float:
    """A relative error of the computed value as one of the true value."""
    return error / (1.0 - error) if error < 1.0 else np.inf


# =============================================================================
# Gains from values refined in error-free arithmetic
# =============================================================================
def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = 134217729.0 * a  # 2**27 + 1 (Dekker)
    hi = t - (t - a)
    return hi, a - hi


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a * b == p + e`` exactly."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a + b == s + e`` exactly."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _exact_rows(scale: np.ndarray, probs: np.ndarray, after: np.ndarray, here: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """``scale + sum_f probs[:, f] after[:, f] - scale here`` per row, as ``hi + lo``
    (products exact, summed as Ogita, Rump and Oishi's Sum2), and a bound on its error."""
    ph, pl = _two_prod(probs, after)
    dh, dl = _two_prod(scale, here)
    s, lo = scale.copy(), -dl + pl.sum(axis=1)
    for f in range(probs.shape[1]):
        s, err = _two_sum(s, ph[:, f])
        lo += err
    s, err = _two_sum(s, -dh)
    lo += err
    k = probs.shape[1] + 2
    size = scale + np.abs(ph).sum(axis=1) + np.abs(dh)
    return s + lo, 2 * U * np.abs(s + lo) + 3 * (2 * k * U) ** 2 * size


def _precise(p: Problem, pol: _Policy, open_sq: np.ndarray, open_jp: np.ndarray,
             active: np.ndarray, sense: float, r: np.ndarray, r_err: np.ndarray,
             rs: np.ndarray) -> _Gains:
    """The gains of the open alternatives from values refined by one correction solve:
    ``V + c`` with ``(I - Q) c = r``, the residual of ``V`` in error-free arithmetic."""
    v = np.where(active, pol.values, 0.0)
    sol = pol.solver.solve(np.where(active, r / rs, 0.0))
    c = np.where(active, sol.x, 0.0)
    tmax = v.max() * (1.0 + _inflate(pol.error))
    e_c = (tmax * float(np.max(np.where(active, (4 * U * np.abs(r) + r_err) / rs, 0.0)))
           + _inflate(sol.error) * float(np.abs(c).max()))
    to = resolve(p, pol.take)
    w, wc = v[to], c[to]
    sq = np.full(open_sq.shape, -np.inf)
    sq_d = np.zeros(open_sq.shape)
    a, x = np.nonzero(open_sq)
    if len(a):
        pr, land, scale = p.probs[a], p.nxt[a, x], p.rowsum[a]
        hi, err = _exact_rows(scale, pr, w[land], v[x])
        corr = (pr * wc[land]).sum(axis=1) - scale * c[x]
        size = (pr * np.abs(wc[land])).sum(axis=1) + scale * np.abs(c[x])
        total = hi + corr
        err = (err + (pr.shape[1] + 2) * 2 * U * size + e_c * (pr.sum(axis=1) + scale)
               + 2 * U * np.abs(total))
        sq[a, x] = -sense * total / scale
        sq_d[a, x] = err / scale * (1 + 4 * U)
    jp = np.full(open_jp.shape, -np.inf)
    jp_d = np.zeros(open_jp.shape)
    js = np.flatnonzero(open_jp)
    if len(js):
        other = np.where(pol.take[js], p.src[js], p.tgt[js])
        d, dc = w[p.n + js] - w[other], wc[p.n + js] - wc[other]
        jp[js] = sense * (d + dc)
        jp_d[js] = 2 * U * (np.abs(d) + np.abs(dc)) + 2 * e_c
    return _Gains(sq, sq_d, jp, jp_d, 0.0)
