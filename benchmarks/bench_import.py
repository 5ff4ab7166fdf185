"""Start-up cost (issue 53): ``import snl_numeric``, the first call and the ``snl`` command,
in CPU time of fresh processes.

Each row runs one snippet in a new Python process and takes the child's CPU time (user +
system, from ``os.wait4``), so that the parent's threads and the machine's other load
do not count; a round runs every row once, in an order rotating from round to round,
and the report gives medians over the rounds. The children keep compiled bytecode as an
installed package does (``PYTHONPYCACHEPREFIX``, a first round uncounted writes it):
without it, compiling the package's sources would cost more than importing them. The baseline is what any SciPy user's
script pays, ``import numpy, scipy.sparse``; the goal: ``import snl_numeric`` within
0.1 s of it.

Rows (the kernel cache is the caller's ``NUMBA_CACHE_DIR``; none of them compiles):

- ``import snl_numeric``;
- ``expected_throws`` and ``analyze`` of Milton Bradley, the import and the board's
  construction included (a script's first call);
- ``snl --help`` and ``snl analyze milton-bradley`` (``snl_numeric.cli.main``, what the
  ``snl`` script runs).

``python -m benchmarks.bench_import [--rounds 15] [--tree /work/main ...]`` prints the
table, with a column per other tree (``PYTHONPATH`` set to it, the trees alternating
within each round) for a same-run A/B.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

from benchmarks._ab import HERE, label
from benchmarks._util import row

#: The baseline: what a SciPy user's script pays before its first line of work.
BASELINE = "import numpy, scipy.sparse"
_CLI = "import sys; from snl_numeric.cli import main; sys.exit(main())"
#: Row -> the arguments of ``python`` in a fresh process.
ROWS: dict[str, list[str]] = {
    "import snl_numeric": ["-c", "import snl_numeric"],
    "first expected_throws": [
        "-c", "from snl_numeric import boards, expected_throws\n"
              "expected_throws(boards.get('milton-bradley'))"],
    "first analyze": [
        "-c", "from snl_numeric import analyze, boards\nanalyze(boards.get('milton-bradley'))"],
    "snl --help": ["-c", _CLI, "--help"],
    "snl analyze milton-bradley": ["-c", _CLI, "analyze", "milton-bradley"],
}
#: The goal of the ``import snl_numeric`` row: at most this much CPU over the baseline.
GOAL_S = 0.1


#: Where the children keep their compiled bytecode (``PYTHONPYCACHEPREFIX``): as an
#: installed package has it, without writing into the trees timed.
_PYCACHE = os.path.join(tempfile.gettempdir(), f"snl-bench-import-pycache-{os.getuid()}")


def child_cpu(args: list[str], tree: str | None = None) -> float:
    """CPU seconds (user + system) of ``python *args`` in a fresh process, importing
    ``snl_numeric`` from ``tree`` when given (run from the home folder, so that the current
    folder's checkout is not imported instead), with bytecode kept (in :data:`_PYCACHE`)."""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": _PYCACHE}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if tree is not None:
        env["PYTHONPATH"] = tree
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, *args], env=env, cwd=os.path.expanduser("~"),
                                stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        if proc.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"python {' '.join(args)} failed: {err.read().decode()[-2000:]}")
    return usage.ru_utime + usage.ru_stime


def measure(rounds: int, trees: list[str], names: list[str] | None = None,
            ) -> dict[str, dict[str, float]]:
    """``{tree: {row: median CPU seconds}}`` (the baseline under ``"baseline"`` in every
    tree's dict), over ``rounds`` rounds of fresh processes."""
    names = names or list(ROWS)
    jobs = [("baseline", t) for t in trees[:1]] + [(n, t) for t in trees for n in names]
    times: dict[tuple[str, str], list[float]] = {job: [] for job in jobs}
    for r in range(-1, rounds):  # round -1 writes the bytecode, uncounted
        shift = r % len(jobs)
        for name, tree in jobs[shift:] + jobs[:shift]:
            args = ["-c", BASELINE] if name == "baseline" else ROWS[name]
            spent = child_cpu(args, tree)
            if r >= 0:
                times[(name, tree)].append(spent)
    base = statistics.median(times[("baseline", trees[0])])
    return {t: {"baseline": base, **{n: statistics.median(times[(n, t)]) for n in names}}
            for t in trees}


def run(repeats: int = 15, quick: bool = False) -> list[dict]:
    """The suite's rows: each of :data:`ROWS` against the baseline, CPU time."""
    med = measure(5 if quick else repeats, [HERE])[HERE]
    rows = []
    for name in ROWS:
        note = (f"goal: at most {GOAL_S} s over the baseline; over by "
                f"{med[name] - med['baseline']:+.3f} s" if name == "import snl_numeric"
                else "a fresh process; the import included")
        rows.append(row(f"start-up: {name}", med[name], BASELINE, med["baseline"], note,
                        ours_cpu_s=med[name], baseline_cpu_s=med["baseline"],
                        method=f"child CPU (os.wait4 rusage) of python {' '.join(ROWS[name])!r}"
                               f" vs python -c {BASELINE!r}; medians of "
                               f"{5 if quick else repeats} interleaved rounds"))
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", action="append", default=[], help="another tree to time")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("rows", nargs="*", help=f"rows to run (default all): {', '.join(ROWS)}")
    args = ap.parse_args(argv)
    trees = [HERE, *map(os.path.abspath, args.tree)]
    med = measure(args.rounds, trees, args.rows or None)
    heads = ["ours"] + [label(t) for t in trees[1:]]
    print(f"child CPU seconds, median of {args.rounds} interleaved rounds of fresh processes")
    print(f"{'row':28s}" + "".join(f"{h:>10s}" for h in heads))
    print(f"{BASELINE:28s}{med[HERE]['baseline']:10.3f}")
    for name in args.rows or ROWS:
        print(f"{name:28s}" + "".join(f"{med[t][name]:10.3f}" for t in trees))


if __name__ == "__main__":
    main()
