"""What an entry point's cold first call compiles (issue 53): each kernel, its signature,
its compile time.

``python -m benchmarks.compile_report [--all] [NAME ...]`` runs entry points of
:data:`benchmarks.bench_coldstart.ENTRY_POINTS` (default: its A/B ones) each in a fresh
process with an empty Numba cache directory and a :mod:`numba.core.event` listener, and
prints every compilation, slowest first, in CPU seconds: *own* is a compilation less the
ones it triggered (a kernel's callees are compiled while it is typed), *total* includes
them. Then the kernels compiled for more than one signature: one idea compiled twice
because callers pass different types (int32 and int64, C and A layouts, a literal and a
variable). ``--all`` lists Numba's own helpers (``np.empty`` and the like) too; Numba
compiles those once per set of the calling kernel's options. With ``SNL_BENCH_BASE``
naming an older tree, that tree's report follows each one.
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter

from benchmarks._ab import HERE, label, run_in, tree
from benchmarks.bench_coldstart import AB_ENTRY_POINTS, ENTRY_POINTS

_CHILD = """
import json, time
from numba.core import event
rows, stack = [], []
class Recorder(event.Listener):
    def on_start(self, ev):
        fn = ev.data["dispatcher"].py_func
        stack.append([f"{{fn.__module__}}.{{fn.__qualname__}}",
                      ", ".join(map(str, ev.data["args"])), time.process_time(), 0.0])
    def on_end(self, ev):
        name, sig, t0, inner = stack.pop()
        total = time.process_time() - t0
        if stack:
            stack[-1][3] += total
        rows.append([name, sig, total - inner, total])
event.register("numba:compile", Recorder())
import snl_numeric
{setup}
t = time.process_time()
r = {call}
print(json.dumps({{"cpu": time.process_time() - t, "rows": rows}}))
"""


def compilations(name: str, path: str = HERE) -> dict:
    """``{"cpu": seconds of the first call, "rows": [[kernel, signature, own, total]]}``
    for entry point ``name`` in a fresh process importing ``snl_numeric`` from ``path``."""
    setup, call = ENTRY_POINTS[name]
    with tempfile.TemporaryDirectory(prefix="snl-cold-") as cache:
        return run_in(path, _CHILD.format(setup=setup, call=call),
                      env={"NUMBA_CACHE_DIR": cache, "SNL_QUIET": "1"})


def report(name: str, path: str = HERE, numba_helpers: bool = False) -> str:
    """:func:`compilations` as a table."""
    got = compilations(name, path)
    rows = sorted(got["rows"], key=lambda r: -r[2])
    ours = [r for r in rows if r[0].startswith("snl_numeric.")]
    lines = [f"{name} at {label(path)}: first call {got['cpu']:.2f} s CPU, {len(rows)} "
             f"compilations ({len(ours)} of the package's kernels, "
             f"{sum(r[2] for r in ours):.2f} s)",
             f"{'own s':>7} {'total s':>7}  kernel [signature]"]
    for kernel, sig, own, total in rows if numba_helpers else ours:
        lines.append(f"{own:7.2f} {total:7.2f}  {kernel.removeprefix('snl_numeric.')} [{sig}]")
    twice = {k: n for k, n in Counter(r[0] for r in ours).items() if n > 1}
    lines.append("kernels compiled for more than one signature: "
                 + (", ".join(f"{k} ({n})" for k, n in twice.items()) or "none"))
    return "\n".join(lines)


if __name__ == "__main__":
    names = [a for a in sys.argv[1:] if not a.startswith("--")] or list(AB_ENTRY_POINTS)
    base = tree("SNL_BENCH_BASE")
    for entry in names:
        for where in [HERE] + ([base] if base else []):
            print(report(entry, where, "--all" in sys.argv), "\n", flush=True)
