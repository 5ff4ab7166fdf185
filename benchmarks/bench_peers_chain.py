"""Absorbing-chain questions against the peers: PyDTMC, QuantEcon, plain SciPy.

The questions: from every transient state, the chance of ending in each absorbing state
(``B = N R``) and the expected steps to absorption (``t = N 1``), ``N = (I - Q)^-1``.
The chains, each handed over as a transition matrix:

- ``ruin 10``: gambler's ruin on 0..10, p = 0.4 (closed forms);
- ``milton-bradley``: ``boards.get("milton-bradley").to_chain()`` (101 states, one end;
  reference: the exact rational answer, ``expected_throws_all(board, exact=True)``);
- ``ruin 1,000`` and ``ruin 4,000``: gambler's ruin with a fair coin on 1,000 and 4,000
  states (closed forms ``B[i, N] = i / N``, ``t_i = i (N - i)``).

Contenders (each in its own process, under a timeout, with one BLAS thread):

- ours: ``Chain(P)``, ``absorption_probabilities(chain)`` and ``expected_throws_all(chain)``
  (the certified bounds beside them: ``probability_error`` and ``solver_report(chain)``);
  "ours, sparse P": the same given ``P`` as a CSR array (converted before the clock starts);
- PyDTMC: ``MarkovChain(P)``, ``absorption_probabilities()``,
  ``mean_absorption_times()`` (each built on its dense ``fundamental_matrix``, a full
  ``inv(I - Q)``);
- QuantEcon: ``quantecon.markov.MarkovChain(P).recurrent_classes`` to find the absorbing
  states, then what its users do for lack of an absorption API: ``np.linalg.solve`` on the
  dense ``I - Q`` with ``[R, 1]`` as right-hand sides (``gth_solve`` answers stationary
  distributions, not absorption);
- SciPy: ``spsolve`` on the sparse ``I - Q`` with the same right-hand sides.

R's markovchain (``absorptionProbabilities``, ``meanAbsorptionTime``,
``fundamentalMatrix``) is not timed: no R here.

A contender not installed is skipped. Usage: ``PYTHONPATH=. python -m
benchmarks.bench_peers_chain [--quick]`` prints the table the docs quote
(``--quick``: without the 4,000-state chain); ``python -m benchmarks --only peers_chain``
runs it in the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

import numpy as np

from ._util import row

CASES = ("ruin 10", "milton-bradley", "ruin 1,000", "ruin 4,000")
LIBS = ("ours", "ours, sparse P", "PyDTMC", "QuantEcon", "SciPy")
TIMEOUT_S = 120.0


def ruin_matrix(n: int, p: float) -> np.ndarray:
    """Gambler's ruin on ``0 .. n - 1`` (``n`` states), up with chance ``p``, absorbing at
    both ends, as a dense array."""
    P = np.zeros((n, n))
    P[0, 0] = P[n - 1, n - 1] = 1.0
    i = np.arange(1, n - 1)
    P[i, i + 1] = p
    P[i, i - 1] = 1.0 - p
    return P


def _ruin_reference(n: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """Closed forms over the transient states 1 .. n - 2: the chance of ending on n - 1 and
    the expected steps."""
    m = n - 1
    i = np.arange(1, m, dtype=float)
    if p == 0.5:
        return i / m, i * (m - i)
    r = (1 - p) / p
    win = (1 - r**i) / (1 - r**m)
    return win, i / (1 - 2 * p) - m / (1 - 2 * p) * win


def case(name: str) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """The dense matrix, the reference chance of ending on the last absorbing state from
    each transient state (None: one end) and the reference expected steps."""
    if name.startswith("ruin"):
        n, p = {"ruin 10": (11, 0.4), "ruin 1,000": (1000, 0.5),
                "ruin 4,000": (4000, 0.5)}[name]
        win, steps = _ruin_reference(n, p)
        return ruin_matrix(n, p), win, steps
    from snl_numeric import boards, expected_throws_all, transition_matrix

    mb = boards.get("milton-bradley")
    exact = np.array([float(x) for x in expected_throws_all(mb, exact=True)])
    return transition_matrix(mb).toarray(), None, exact[:-1]


def _ours(P: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
    from snl_numeric import Chain, absorption_probabilities, expected_throws_all, solver_report

    chain = Chain(P)
    a = absorption_probabilities(chain, visit_probability=False)
    t = expected_throws_all(chain)
    tr = ~chain.is_absorbing
    return (a.probabilities[tr][:, -1], t[tr], a.probability_error,
            solver_report(chain).error_estimate)


def _pydtmc(P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from pydtmc import MarkovChain

    mc = MarkovChain(P)
    ap = np.asarray(mc.absorption_probabilities())   # (absorbing, transient)
    return ap[-1], np.asarray(mc.mean_absorption_times())


def _split(P: np.ndarray, absorbing: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mask = np.zeros(len(P), dtype=bool)
    mask[absorbing] = True
    return P[np.ix_(~mask, ~mask)], P[np.ix_(~mask, mask)]


def _quantecon(P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    import quantecon as qe

    mc = qe.markov.MarkovChain(P)
    absorbing = np.array(sorted(c[0] for c in mc.recurrent_classes if len(c) == 1))
    Q, R = _split(P, absorbing)
    x = np.linalg.solve(np.eye(len(Q)) - Q, np.column_stack([R, np.ones(len(Q))]))
    return x[:, -2], x[:, -1]


def _scipy(P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    import scipy.sparse as sp
    from scipy.sparse.linalg import spsolve

    S = sp.csr_array(P)
    absorbing = np.flatnonzero(np.abs(S.diagonal() - 1.0) <= 1e-12)
    mask = np.zeros(S.shape[0], dtype=bool)
    mask[absorbing] = True
    Q, R = S[~mask][:, ~mask], S[~mask][:, mask]
    A = (sp.eye_array(Q.shape[0]) - Q).tocsc()
    x = spsolve(A, np.column_stack([R.toarray(), np.ones(Q.shape[0])]))
    return x[:, -2], x[:, -1]


def measure(lib: str, name: str, repeats: int) -> dict[str, Any]:
    """One contender on one chain: median wall time from the matrix to both answers, and
    their worst errors against the reference (absolute for probabilities, relative for
    steps)."""
    import importlib

    try:
        importlib.import_module({"ours": "snl_numeric", "ours, sparse P": "snl_numeric", "PyDTMC": "pydtmc",
                                 "QuantEcon": "quantecon", "SciPy": "scipy"}[lib])
    except ImportError:
        return {"skipped": "not installed"}
    P, win, steps = case(name)
    if lib == "ours, sparse P":
        import scipy.sparse as sp

        P = sp.csr_array(P)
    fn = {"ours": _ours, "ours, sparse P": _ours, "PyDTMC": _pydtmc, "QuantEcon": _quantecon, "SciPy": _scipy}[lib]
    fn(ruin_matrix(5, 0.5))  # (imports, first-call set-up)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(P)
        times.append(time.perf_counter() - t0)
    b, t = np.asarray(out[0], dtype=float), np.asarray(out[1], dtype=float).ravel()
    res = {"seconds": float(np.median(times)),
           "steps_error": float(np.max(np.abs(t - steps) / steps)),
           "prob_error": None if win is None else float(np.max(np.abs(b - win)))}
    if lib.startswith("ours"):
        res["prob_bound"], res["steps_bound"] = float(out[2]), float(out[3])
    return res


def _child(lib: str, name: str, repeats: int, timeout: float) -> dict[str, Any]:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join([root, env.get("PYTHONPATH", "")])
    code = ("import json, sys, warnings; warnings.simplefilter('ignore');"
            "from benchmarks.bench_peers_chain import measure;"
            f"print(json.dumps(measure({lib!r}, {name!r}, {repeats})))")
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=timeout, env=env, cwd=root)
    except subprocess.TimeoutExpired:
        return {"skipped": f"no answer within {timeout:.0f} s"}
    if proc.returncode:
        return {"skipped": "failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def compare(quick: bool = False, timeout: float = TIMEOUT_S) -> dict[str, dict[str, Any]]:
    """Every contender on every chain (``quick``: without the 4,000-state chain)."""
    out: dict[str, dict[str, Any]] = {}
    for name in CASES[:-1] if quick else CASES:
        repeats = 1 if name == "ruin 4,000" else 3 if name == "ruin 1,000" else 5
        # (PyDTMC once on the large chains: tens of seconds a call)
        out[name] = {lib: _child(lib, name, 1 if lib == "PyDTMC" and "," in name else repeats,
                                 timeout) for lib in LIBS}
    return out


def _fmt(r: dict[str, Any]) -> str:
    if "skipped" in r:
        return r["skipped"]
    s = r["seconds"]
    t = f"{s * 1e3:.3g} ms" if s < 1 else f"{s:.3g} s"
    p = "" if r["prob_error"] is None else f", P err {r['prob_error']:.1e}"
    bound = ""
    if "prob_bound" in r:
        bound = (f" (bounds: P {r['prob_bound']:.1e}, " if r["prob_error"] is not None
                 else " (bound: ") + f"steps {r['steps_bound']:.1e})"
    return f"{t}{p}, steps rel err {r['steps_error']:.1e}{bound}"


def table(results: dict[str, dict[str, Any]]) -> str:
    lines = ["| chain | " + " | ".join(LIBS) + " |", "|" + " --- |" * (len(LIBS) + 1)]
    for name, libs in results.items():
        lines.append(f"| {name} | " + " | ".join(_fmt(libs[lib]) for lib in LIBS) + " |")
    return "\n".join(lines)


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    rows = []
    for name, libs in compare(quick=True).items():
        ours = libs["ours"]
        for lib in LIBS[2:]:
            r = libs[lib]
            if "skipped" in r:
                continue
            rows.append(row(f"absorption B and t, {name}", ours["seconds"], lib,
                            r["seconds"], note=f"theirs: {_fmt(r)}"))
    return rows


if __name__ == "__main__":
    import platform

    quick = "--quick" in sys.argv[1:]
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, one BLAS thread, wall time (median)")
    res = compare(quick=quick)
    print(table(res))
    print(json.dumps(res, indent=1))
