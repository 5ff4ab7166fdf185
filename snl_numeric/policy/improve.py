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
``tau = max(tol, e)`` is cleared. With costs per step (problems from matrices) a switch's
gain counts per unit of its step's cost ``c``: the visits cost at most ``V'(u)``, so
``g / c`` takes the place of ``g`` (a step of cost 0 has no such bound: its near ties are
evaluated as their own policies). The others (near ties) get their gains again from
values refined by one correction solve, with the residual and the sums in error-free
arithmetic (about ``2**-100`` relative), and whatever is still open is evaluated as its
own policy, a few at most. A switch that improves is taken and the iteration goes on; one
that does not bounds its gain by what it changed on its own square plus the errors of the
two evaluations (it visits that square at least once): a bound, not a clearance, since
switches each within the errors may together improve a long game many times over. What
cannot be cleared is the reported ``gap``, with a ``RuntimeWarning``.

*Free steps.* Under "min" every policy is proper (finishes surely from every active
square): a switch whose gain is certainly positive keeps it so (a class the new policy
never leaves would have to gain on average what its steps cost, so nothing, on every
square of it), and each trial that may not is shown to finish first. A free loop whose
squares have equal values ties exactly with the play that leaves it, so the gains are those
of each die's row divided by its exact sum (:func:`~.evaluate.exact_rows`): the row sum in
floating point differs from it by an ulp, which once made a loop look a certain gain of
``1e-15``. The answer is the least expected cost over proper policies: the values of a
proper policy that no switch improves solve the Bellman equation, and are below those of
every play that finishes surely.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._core.sizes import DENSE_MAX
from .evaluate import DenseSystems, U, evaluate, exact_rows, face_sums, proper
from .problem import Problem, resolve

#: At most this many open near-ties are evaluated as their own policies per certificate.
MAX_TRIALS = 16


class Uncertified(RuntimeError):
    """A policy that finishes surely but whose values the solver cannot certify (steps far
    beyond what double precision resolves, as loops of free steps with tiny ways out)."""


@dataclass
class _Policy:
    """A policy and, once evaluated, the square each node leads to, its values (and
    those values with 0 off the active squares), their error and its solver."""

    die: np.ndarray
    take: np.ndarray
    to: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    values: np.ndarray = field(default_factory=lambda: np.zeros(0))
    v: np.ndarray = field(default_factory=lambda: np.zeros(0))
    error: float = 0.0
    solver: Any = None

    def copy(self) -> _Policy:
        return _Policy(self.die.copy(), self.take.copy())


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
    own: np.ndarray = field(default_factory=lambda: np.zeros(0))  # (n,): the Bellman error
    # of each square's own die (made by the gains, not their refinement)
    size: tuple = ()  # (sq's values summed, its rounding bound, jp's values summed)
    raw: np.ndarray | None = None  # with costs: sq before :func:`_per_cost`

    def bounded(self, e: float, cost: np.ndarray | None) -> _Gains:
        """The same gains, bounded for values of relative error ``e``."""
        sq_size, rounding, jp_size = self.size
        sq, sq_d = _per_cost(self.sq if self.raw is None else self.raw,
                             e * sq_size + rounding, cost)
        return _Gains(sq, sq_d, self.jp, e * jp_size, self.own, self.size, self.raw)


def _per_cost(sq: np.ndarray, sq_d: np.ndarray, cost: np.ndarray | None
              ) -> tuple[np.ndarray, np.ndarray]:
    """Gains per unit of the switched step's cost (and their error bounds): a switch on
    ``x`` gaining ``g`` changes the expected cost from ``u`` by ``g`` per visit to ``x``,
    and the visits cost at most the expected cost ``V'(u)`` over the step's cost ``c``
    (a step of cost 0: a gain certainly positive is ``inf``, one that may be positive is
    open with an infinite bound). ``cost`` None: one throw, nothing to do."""
    if cost is None:
        return sq, sq_d
    pos = cost > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        maybe = (sq <= sq_d) & (sq + sq_d > 0)
        out = np.where(pos, sq / cost, np.where(sq > sq_d, np.inf,
                                                np.where(maybe, 0.0, -np.inf)))
        out_d = np.where(pos, sq_d / cost * (1 + 2 * U), np.where(maybe, np.inf, 0.0))
    return out, out_d


def _rel(g: np.ndarray) -> np.ndarray:
    """The relative improvement a switch gaining at most ``g`` can make (``inf`` at 1)."""
    g = np.maximum(g, 0.0)
    return np.divide(g, 1.0 - g, out=np.full(g.shape, np.inf), where=g < 1.0)


def improve(p: Problem, die: np.ndarray, take: np.ndarray, active: np.ndarray,
            jactive: np.ndarray, sense: float, tol: float, max_iter: int) -> Improved:
    """Policy iteration from a policy proper on ``active`` (changed in place), certified."""
    return _Iteration(p, active, jactive & p.optional, sense, tol).run(
        _Policy(die, take), max_iter)


class _Iteration:
    """Policy iteration on one problem: where it is played, the objective, the accuracy."""

    def __init__(self, p: Problem, active: np.ndarray, jactive: np.ndarray, sense: float,
                 tol: float) -> None:
        self.p, self.active, self.jactive, self.sense, self.tol = p, active, jactive, sense, tol
        self.jumps = bool(jactive.any())
        self.rows = np.arange(p.n)
        self.states = np.flatnonzero(active)
        self.everywhere = len(self.states) == p.n - 1
        self.no_jumps = (np.full(len(p.src), -np.inf), np.zeros(len(p.src)))
        self.dense: dict[bytes, DenseSystems] = {}
        self.root: tuple[np.ndarray, Any, np.ndarray] | None = None  # the jump decisions,
        # solver and dice of the last policy factorised
        self.scaled = bool(np.any(p.rowsum != 1.0))
        self.rounding = (p.nxt.shape[2] + 4) * 2 * U  # of a one-step sum and its gain

    def run(self, pol: _Policy, max_iter: int) -> Improved:
        # jump decisions that never switch lead every node to the same square throughout
        self.to = None if self.jumps else resolve(self.p, pol.take)
        self.evaluate(pol)
        steps, canonical = 0, False
        while True:
            tau = max(self.tol, pol.error)
            least = tau / (1.0 + tau)  # a switch gaining less improves by at most tau
            loose = _inflate(pol.error)
            g = self.gains(pol, loose)
            before = pol.die.copy()
            switched = self.switch(g, pol, g.sq > g.sq_d, g.jp > g.jp_d, least)
            if switched and not canonical and not self.check(g):
                self.ties(g, pol, before)  # (evaluated with the switches: the last step's
                # ties often make the canonical trial below the same policy, not one more)
            if not switched:  # the values may be certified more tightly by their residual
                tight, residual = self.residual_error(pol)
                if tight < loose:
                    g = g.bounded(tight, self.p.cost)
                    switched = self.switch(g, pol, g.sq > g.sq_d, g.jp > g.jp_d, least)
            if switched:
                steps = _step(steps, max_iter)
                self.evaluate(pol)
                continue
            if not canonical:  # ties: the smallest die index, and taking a jump
                canonical = True
                tied = g.sq >= -g.sq_d
                tied[pol.die, self.rows] = True
                trial = pol.copy()
                trial.die[self.active] = np.argmax(tied, axis=0)[self.active]
                if self.jumps:
                    trial.take |= self.jactive & (g.jp >= -g.jp_d)
                if _differs(trial, pol) and self.adopt(pol, trial, self.check(g)):
                    continue
            gap = self.certify(pol, g, least, tau, residual)
            if gap is None:  # a switch was taken
                steps = _step(steps, max_iter)
                continue
            bellman = max(np.abs(g.own[self.active]).max(initial=0.0), g.sq.max(initial=0.0),
                          g.jp.max(initial=0.0))
            return Improved(pol.values, pol.error, steps, gap, float(bellman))

    def ties(self, g: _Gains, pol: _Policy, before: np.ndarray) -> None:
        """On the squares a step does not switch, the smallest die index not certainly
        worse than the die held (``before``), as the canonical trial at the end would
        choose (a step that improves may change ties on the way: its values are not
        final; under "min" with small errors, :meth:`check` False, the step stays
        proper)."""
        tied = g.sq >= -g.sq_d
        tied[before, self.rows] = True
        kept = self.active & (pol.die == before)
        pol.die[kept] = np.argmax(tied, axis=0)[kept]

    def systems(self, pol: _Policy) -> DenseSystems | None:
        """The dense systems of small problems, one for each set of jump decisions met."""
        if not 0 < len(self.states) <= DENSE_MAX:
            return None
        key = pol.take.tobytes()
        if key not in self.dense:
            self.dense[key] = DenseSystems(self.p, pol.to, self.states)
        return self.dense[key]

    def check(self, g: _Gains) -> bool:
        """Whether a trial policy must be shown to finish surely: under "min", one whose
        every choice is at most 1 worse than V's (per throw, with the jumps along a chain)
        does (a class it never leaves would have to gain a throw per throw); with costs, at
        most half the least cost (always shown when a step may cost nothing)."""
        return self.sense > 0 and (max(g.sq_d.max(initial=0.0), g.jp_d.max(initial=0.0))
                                   * (1 + len(self.p.levels)) >= 0.5 * self.p.least_cost)

    def evaluate(self, pol: _Policy, check: bool | None = None) -> None:
        """Evaluate ``pol``: after certain improvements (``check`` None: they keep a policy
        proper), or as a trial (shown first to finish surely when ``check``)."""
        pol.to = resolve(self.p, pol.take) if self.to is None else self.to
        root = self.root if self.root and np.array_equal(self.root[0], pol.take) else None
        pol.values, pol.error, pol.solver, factorised = evaluate(
            self.p, pol.die, pol.to, self.active, bool(check), self.systems(pol),
            root and root[1:])
        if factorised:  # (the next policies a few squares away update its factors)
            self.root = (pol.take.copy(), pol.solver, pol.die.copy())
        pol.v = np.where(self.active, pol.values, 0.0)
        if check is None and not pol.error < np.inf:  # (an infinite value has no error)
            if not proper(self.p, pol.die, pol.take, self.active):
                raise RuntimeError(  # pragma: no cover - a certified step
                    "optimal_policy: a policy step left the squares where play surely "
                    "finishes; please report this board")
            raise Uncertified(
                "optimal_policy: the expected costs of a policy on the way could not be "
                "certified: it finishes surely, but after so many steps (a loop of free "
                "steps with a tiny way out) that they exceed what double precision "
                "resolves")

    def adopt(self, pol: _Policy, trial: _Policy, check: bool) -> bool:
        """Evaluate ``trial`` and take it when it finishes surely."""
        self.evaluate(trial, check)
        if trial.solver is None or not np.isfinite(trial.v).all():
            return False
        _take(pol, trial)
        return True

    def residual_error(self, pol: _Policy) -> tuple[float, tuple[np.ndarray, np.ndarray]]:
        """A relative error of the values (componentwise) from their residual: with
        ``A = diag(S) - P`` (``S`` each row's exact sum, :func:`~.evaluate.exact_rows`) and
        ``A V = S`` (``S`` times the costs), ``|V - V^| = |A^-1 r|`` is at most
        ``max |r| / S`` times ``V`` (``A^-1 >= 0``; ``S`` within ``(faces - 1) u`` of the
        row sums); the residual over the active squares in error-free arithmetic (also
        returned with its error bound divided by the row sums, for :meth:`precise`)."""
        p, states = self.p, self.states
        dies = pol.die[states]
        rs = p.rowsum_at(dies, states)
        cost = p.cost_at(dies, states)
        r, err = exact_rows(rs, p.rowsum_lo_at(dies, states), p.face_probs(dies, states),
                            pol.v[pol.to[p.nxt[dies, states]]], pol.v[states], cost)
        sums = (2 * p.nxt.shape[2] + 4) * U  # (rs for the exact sums, A's diagonal)
        if p.cost is None:
            rho = float(np.max((np.abs(r) + err) / rs, initial=0.0)) * (1 + sums)
        else:  # relative to the right-hand side rs * cost (none where a step costs 0)
            rhs, big = rs * cost * (1 - sums), np.abs(r) + err
            with np.errstate(divide="ignore", invalid="ignore"):
                rel = np.where(rhs > 0, big / rhs, np.where(big > 0, np.inf, 0.0))
            rho = float(np.max(rel, initial=0.0)) * (1 + 4 * U)
        return (rho / (1.0 - rho) if rho < 1.0 else np.inf), (r / rs, err / rs)

    def gains(self, pol: _Policy, e: float) -> _Gains:
        """Every alternative's gain, with an error bound from ``e``, the relative error of
        the values (as those of the true values)."""
        p, n = self.p, self.p.n
        w = pol.values[pol.to]
        q = face_sums(p, w)
        if self.scaled:
            q /= p.rowsums
        if self.everywhere:  # every value finite
            ok = self.active
        else:
            ok = np.isfinite(q) & self.active
            q = np.where(ok, q, 0.0)
        sq = np.where(ok, self.sense * (pol.v - p.costs - q), -np.inf)
        size = q + pol.v
        rounding = self.rounding * (p.costs + size)
        own = sq[pol.die, self.rows]
        sq[pol.die, self.rows] = -np.inf
        raw, (sq, sq_d) = sq, _per_cost(sq, e * size + rounding, p.cost)
        jp, jsize = self.no_jumps
        if self.jumps:
            cur = w[n:]
            alt = np.where(pol.take, pol.values[p.src], w[p.tgt])
            jok = self.jactive & np.isfinite(alt) & np.isfinite(cur)
            cur, alt = np.where(jok, cur, 0.0), np.where(jok, alt, 0.0)
            jp = np.where(jok, self.sense * (cur - alt), -np.inf)
            jsize = cur + alt
        return _Gains(sq, sq_d, jp, e * jsize, own, (size, rounding, jsize),
                      None if p.cost is None else raw)

    def switch(self, g: _Gains, pol: _Policy, sure: np.ndarray, jsure: np.ndarray,
               least: float) -> int:
        """Switch every square to its best certainly better die, and every certainly better
        jump decision, where the gain can matter (above ``least``); returns the count."""
        sure &= g.sq + g.sq_d > least
        squares = np.flatnonzero(sure.any(axis=0))
        if len(squares):
            pol.die[squares] = np.argmax(np.where(sure, g.sq, -np.inf), axis=0)[squares]
        if not self.jumps:
            return len(squares)
        jumps = np.flatnonzero(jsure & (g.jp + g.jp_d > least))
        pol.take[jumps] = ~pol.take[jumps]
        return len(squares) + len(jumps)

    def certify(self, pol: _Policy, g: _Gains, least: float, tau: float, residual: tuple
                ) -> float | None:
        """The gap no single switch is shown not to exceed (0 when every one is within
        ``tau``), or ``None`` after taking a switch that improves."""
        open_sq = g.sq + g.sq_d > least
        open_jp = (g.jp + g.jp_d > least) if self.jumps else self.no_jumps[1] > 0
        if not (open_sq.any() or open_jp.any()):
            return 0.0
        fine = self.precise(pol, open_sq, open_jp, *residual)
        if not (np.any(fine.sq + fine.sq_d > least) or np.any(fine.jp + fine.jp_d > least)):
            return 0.0  # every open switch is settled: none can gain ``least``
        if self.switch(fine, pol, fine.sq > fine.sq_d, fine.jp > fine.jp_d, least):
            self.evaluate(pol)
            return None
        check = self.check(g)
        batch = pol.copy()  # every open switch that looks better
        if (self.switch(fine, batch, fine.sq > 0, fine.jp > 0, least)
                and self.improves(pol, batch, check)):
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
            trial = pol.copy()
            if is_jump:
                trial.take[a] = not trial.take[a]
            else:
                trial.die[x] = a
            if self.improves(pol, trial, check):
                _take(pol, trial)
                return None
            if trial.solver is None or not np.isfinite(trial.v).all():  # (strands play)
                if is_jump:
                    bound_jp[a] = 0.0
                else:
                    bound_sq[a, x] = 0.0
            elif not is_jump:  # its gain g is at most what the trial gained on x
                bound_sq[a, x] = min(bound_sq[a, x], self.trial_bound(pol, trial, a, x, tau))
            # (a jump's trial bounds no visit count: its bound stays)
        gap = max(bound_sq.max(initial=0.0), bound_jp.max(initial=0.0))
        return float(gap) if gap > tau else 0.0

    def trial_bound(self, pol: _Policy, trial: _Policy, a: int, x: int, tau: float
                    ) -> float:
        """The relative bound (as :func:`_rel`) on the gain of die ``a`` on square ``x``
        that ``trial`` (``pol`` so switched, evaluated, no improvement) shows: the switch
        changes the values by ``N'(u, x) g`` (``N'`` the trial's visits), and ``N'(x, x) >= 1``,
        so ``g`` is at most the change on ``x`` and its error. (A trial that changes the
        values within their errors does not clear its switch: a few such switches together,
        each within the errors of values of 1e17 throws, can lengthen the worst play a
        million times.) A bound within both evaluations' errors and ``tau`` is 0: a gain
        the errors of values of about one throw hide, as ties among moves that all finish."""
        v, v2 = pol.values[x], trial.values[x]
        errors = _inflate(pol.error) + _inflate(trial.error)
        slack = (_inflate(pol.error) * v + _inflate(trial.error) * v2) * (1 + 8 * U)
        g = max(self.sense * (v - v2) + slack, 0.0)
        cost = float(self.p.cost_at(a, x))
        if cost <= 0.0:  # (no visit bound from a free step: cleared by its trial, as before)
            return 0.0
        bound = float(_rel(np.array(g / cost * (1 + 2 * U))))
        # (an evaluation without a certified error, inf, hides nothing: no clearance)
        return 0.0 if errors < np.inf and bound <= (errors + tau) * (1 + 16 * U) else bound

    def improves(self, pol: _Policy, trial: _Policy, check: bool) -> bool:
        """Evaluate ``trial``: better than ``pol`` beyond both certified errors somewhere,
        and worse nowhere beyond them (a play that never finishes is no improvement)."""
        self.evaluate(trial, check)
        if trial.solver is None:
            return False
        v, v2 = pol.values[self.active], trial.values[self.active]
        slack = (_inflate(pol.error) * v + _inflate(trial.error) * v2) * (1 + 8 * U)
        gain = self.sense * (v - v2)
        return bool(np.any(gain > slack) and np.all(gain >= -slack))

    def precise(self, pol: _Policy, open_sq: np.ndarray, open_jp: np.ndarray,
                r: np.ndarray, r_err: np.ndarray) -> _Gains:
        """The gains of the open alternatives from values refined by one correction solve:
        ``V + c`` with ``(I - Q) c = r`` (``r`` the residual of ``V`` in error-free
        arithmetic, divided by the row sums, over the active squares). A correction the
        solver cannot certify (a play of astronomically many free steps) corrects nothing
        and bounds nothing: every gain stays open, for its trial."""
        p, v = self.p, pol.v
        b = np.zeros(p.n)
        b[self.states] = r
        sol = pol.solver.solve(b)
        if sol.error < np.inf:
            c = np.where(self.active, sol.x, 0.0)
            tmax = v.max() * (1.0 + _inflate(pol.error))
            e_c = (tmax * float(np.max(6 * U * np.abs(r) + r_err, initial=0.0))
                   + _inflate(sol.error) * float(np.abs(c).max()))
        else:  # (its x may hold inf or NaN: never a gain of NaN, which no test opens)
            c, e_c = np.zeros(p.n), np.inf
        w, wc = v[pol.to], c[pol.to]
        sq = np.full(open_sq.shape, -np.inf)
        sq_d = np.zeros(open_sq.shape)
        a, x = np.nonzero(open_sq)
        if len(a):
            pr, land, scale = p.face_probs(a, x), p.nxt[a, x], p.rowsum_at(a, x)
            hi, err = exact_rows(scale, p.rowsum_lo_at(a, x), pr, w[land], v[x],
                                 p.cost_at(a, x))
            corr = (pr * wc[land]).sum(axis=1) - scale * c[x]
            size = (pr * np.abs(wc[land])).sum(axis=1) + scale * np.abs(c[x])
            total = hi + corr  # (over scale, not the exact row sum: a relative error)
            err = (err + (pr.shape[1] + 2) * 2 * U * size + e_c * (pr.sum(axis=1) + scale)
                   + 2 * (pr.shape[1] + 1) * U * np.abs(total))
            sq[a, x] = -self.sense * total / scale
            sq_d[a, x] = err / scale * (1 + 4 * U)
            sq, sq_d = _per_cost(sq, sq_d, p.cost)
        jp, jp_d = self.no_jumps
        js = np.flatnonzero(open_jp) if self.jumps else np.zeros(0, dtype=np.intp)
        if len(js):
            jp, jp_d = jp.copy(), jp_d.copy()
            other = np.where(pol.take[js], p.src[js], p.tgt[js])
            d, dc = w[p.n + js] - w[other], wc[p.n + js] - wc[other]
            jp[js] = self.sense * (d + dc)
            jp_d[js] = 2 * U * (np.abs(d) + np.abs(dc)) + 2 * e_c
        return _Gains(sq, sq_d, jp, jp_d)


def _step(steps: int, max_iter: int) -> int:
    if steps >= max_iter:
        raise RuntimeError(f"policy iteration did not converge within max_iter={max_iter} "
                           "steps; raise max_iter or tol")
    return steps + 1


def _differs(a: _Policy, b: _Policy) -> bool:
    return not (np.array_equal(a.die, b.die) and np.array_equal(a.take, b.take))


def _take(pol: _Policy, trial: _Policy) -> None:
    pol.die[:], pol.take[:] = trial.die, trial.take
    pol.to, pol.values, pol.v = trial.to, trial.values, trial.v
    pol.error, pol.solver = trial.error, trial.solver


def _inflate(error: float) -> float:
    """A relative error of the computed value as one of the true value."""
    return error / (1.0 - error) if error < 1.0 else np.inf
