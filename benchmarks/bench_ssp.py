"""Optimal play without discounting on 1,000 states, against pymdptoolbox and QuantEcon.

The problem (issue 50): a 1,000-square board (squares 0..999, 999 the goal, exact landing,
190 snakes and ladders drawn with seed 1: :func:`ssp_board`) where the player chooses a die
before every throw among d6, 1-3 and 4-6, handed over as three 1,000 x 1,000 transition
matrices (``transition_matrix`` of the board under each die). Minimise the expected
throws: an undiscounted stochastic shortest path with improper policies (4-6 near the goal
never finishes under exact landing).

- ours: ``optimal_policy([P_d6, P_13, P_46])``: policy iteration with exact, certified
  evaluation (``convergence.error``, ``convergence.gap``);
- pymdptoolbox ``ValueIteration(P, R, discount=1)`` (reward -1 a step): without a
  discount its iteration bound is not computed, it runs until ``max_iter`` (1000) sweeps
  or a span of change below ``epsilon`` (0.01), and on this problem stops at the cap
  with every value short of the answer;
- QuantEcon ``DiscreteDP(R, Q, beta)``: with ``beta=1`` its infinite-horizon methods are
  disabled (a warning on construction, an error from ``solve``); with ``beta`` = 0.99,
  0.999, 0.9999, 0.99999 its policy iteration solves the discounted problem, whose expected
  discounted throws approach ours as ``beta -> 1``.

Times are CPU time (``time.process_time``): ours the median of ``repeats`` calls, theirs
one call each.

Usage: ``python -m benchmarks --only ssp`` (``PYTHONPATH=. python -m benchmarks.bench_ssp``
prints the comparison the docs quote).
"""

from __future__ import annotations

import contextlib
import io
import sys
import time
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp

from snl_numeric import Board, optimal_policy, transition_matrix
from snl_numeric.dice import parse_dice

from ._util import row

DICE = ("d6", "1-3", "4-6")
BETAS = (0.99, 0.999, 0.9999, 0.99999)


def ssp_board(seed: int = 1) -> Board:
    """1,000 squares (0..999), exact landing, 150 snakes dropping 20..119 squares and 40
    ladders climbing 5..39, drawn with ``seed`` (jumps onto another jump's start dropped)."""
    rng = np.random.default_rng(seed)
    size = 999
    src = rng.choice(np.arange(10, size - 1), 190, replace=False)
    jumps = {int(s): int(max(0, s - rng.integers(20, 120))) for s in src[:150]}
    jumps.update({int(s): int(min(size - 1, s + rng.integers(5, 40))) for s in src[150:]})
    jumps = {s: d for s, d in jumps.items() if d not in jumps and d != s}
    return Board(size, jumps, overshoot="exact")


def ssp_matrices(board: Board | None = None) -> list[sp.csr_matrix]:
    board = ssp_board() if board is None else board
    return [transition_matrix(board.replace(dice=parse_dice(d))) for d in DICE]


def ours(mats: list) -> Any:
    return optimal_policy(mats)


def mdptoolbox_vi(mats: list) -> tuple[Any, str]:
    """pymdptoolbox's undiscounted value iteration (reward -1 a step off the goal); what it
    prints (its warning that convergence cannot be assumed) beside it."""
    import mdptoolbox.mdp as mdp

    n = mats[0].shape[0]
    reward = np.repeat(np.where(np.arange(n) == n - 1, 0.0, -1.0)[:, None], len(mats), axis=1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        vi = mdp.ValueIteration([sp.csr_matrix(m) for m in mats], reward, 1.0)
        vi.run()
    return vi, out.getvalue().strip()


def quantecon_ddp(mats: list, beta: float) -> Any:
    """QuantEcon's ``DiscreteDP`` on state-action pairs (sparse ``Q``), reward -1 a step."""
    import quantecon as qe

    n, m = mats[0].shape[0], len(mats)
    s_idx = np.repeat(np.arange(n), m)
    a_idx = np.tile(np.arange(m), n)
    q = _pairs(mats)
    r = np.where(s_idx == n - 1, 0.0, -1.0)
    return qe.markov.DiscreteDP(r, q, beta, s_idx, a_idx)


def _pairs(mats: list) -> sp.csr_matrix:
    """The rows of every (state, action) pair, state-major, as one CSR matrix."""
    m = len(mats)
    stacked = sp.vstack([sp.csr_matrix(a) for a in mats]).tocsr()  # action-major
    n = mats[0].shape[0]
    order = (np.arange(m)[None, :] * n + np.arange(n)[:, None]).ravel()
    return stacked[order]


def policy_value(mats: list, policy: Any) -> float:
    """The expected throws from square 0 under a stationary ``policy`` (one action per
    state), solved and certified by our own evaluation (one matrix: nothing to choose)."""
    pick = np.asarray(policy)
    induced = sum(sp.diags_array((pick == a).astype(float)) @ sp.csr_array(m)
                  for a, m in enumerate(mats))
    return optimal_policy([sp.csr_array(induced)]).mean


def compare(quick: bool = False) -> dict[str, Any]:
    """Every number the docs quote, from one run."""
    mats = ssp_matrices()
    t = time.process_time()
    r = ours(mats)
    t_ours = time.process_time() - t
    out: dict[str, Any] = {
        "ours": {"mean": r.mean, "error": r.convergence.error, "gap": r.convergence.gap,
                 "steps": r.convergence.iterations, "cpu_s": t_ours,
                 "policy_counts": np.bincount(r.policy[r.policy >= 0], minlength=3).tolist()}}
    try:
        t = time.process_time()
        vi, printed = mdptoolbox_vi(mats)
        t_vi = time.process_time() - t
        v0 = -vi.V[0]
        out["mdptoolbox"] = {
            "value": v0, "iterations": vi.iter, "max_iter": vi.max_iter, "cpu_s": t_vi,
            "short_by": r.mean - v0, "printed": printed,
            "policy_differs_on": int(np.sum(np.array(vi.policy)[:-1] != r.policy[:-1])),
            "its_policy_plays": policy_value(mats, vi.policy),
            "worst_shortfall": float(np.max((r.expected - (-np.array(vi.V)))
                                            / np.maximum(r.expected, 1)))}
    except ImportError:  # pragma: no cover - the optional bench extra
        out["mdptoolbox"] = None
    try:
        import quantecon  # noqa: F401

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                ddp = quantecon_ddp(mats, 1.0)
            except ValueError as err:  # (QuantEcon before 0.5 refused beta=1 here)
                ddp, said = None, f"DiscreteDP(beta=1): ValueError: {err}"
        if ddp is not None:
            said = "; ".join(f"DiscreteDP(beta=1) warns: {w.message}" for w in caught)
            for how in ("policy_iteration", "value_iteration"):
                try:
                    ddp.solve(method=how)
                    said += f"; solve(method={how!r}) answered"
                except (NotImplementedError, ValueError) as err:
                    said += f"; solve(method={how!r}) raises {type(err).__name__}: {err}"
        out["quantecon_beta1"] = said
        rows = []
        for beta in BETAS[:2] if quick else BETAS:
            t = time.process_time()
            res = quantecon_ddp(mats, beta).solve(method="policy_iteration")
            rows.append({"beta": beta, "value": -float(res.v[0]),
                         "relative_to_ours": -float(res.v[0]) / r.mean - 1.0,
                         "policy_differs_on": int(np.sum(res.sigma[:-1] != r.policy[:-1])),
                         "its_policy_plays": policy_value(mats, res.sigma),
                         "cpu_s": time.process_time() - t})
        out["quantecon"] = rows
    except ImportError:  # pragma: no cover
        out["quantecon"] = None
    return out


def _cpu(fn: Any) -> float:
    """CPU time of one call (the baselines are timed so, once each: the host is shared)."""
    t = time.process_time()
    fn()
    return time.process_time() - t


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    mats = ssp_matrices()
    c = compare(quick)
    ours(mats)  # (warm)
    t = float(np.median([_cpu(lambda: ours(mats)) for _ in range(repeats)]))
    note = f"ours {c['ours']['mean']:.6f}, certified to {c['ours']['error']:.1g}"
    rows = [row("optimal_policy on 3 matrices, 1,000 states (undiscounted)", t, note=note)]
    if c["mdptoolbox"] is not None:
        m = c["mdptoolbox"]
        rows.append(row("  vs pymdptoolbox ValueIteration discount=1", t,
                        "pymdptoolbox ValueIteration", m["cpu_s"],
                        note=f"theirs stopped at {m['iterations']} sweeps: {m['value']:.6f}"))
    for q in c["quantecon"] or []:
        rows.append(row(f"  vs QuantEcon DiscreteDP beta={q['beta']}", t,
                        "QuantEcon DiscreteDP policy iteration", q["cpu_s"],
                        note=f"theirs {q['value']:.6f} ({q['relative_to_ours']:+.2%})"))
    return rows


if __name__ == "__main__":
    import json
    import platform

    print(platform.platform(), platform.processor() or platform.machine())
    print(json.dumps(compare(quick="--quick" in sys.argv), indent=1))
