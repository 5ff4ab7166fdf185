"""Run a snippet in a fresh Python process with a timeout.

For tests of failures that could crash the interpreter (a double free in a
kernel) or hang (a loop that never ends): the test fails with the child's
output instead of killing or stalling pytest.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

#: A prelude for snippets: ``compiled`` lists every package kernel Numba compiles from here on.
COMPILE_LISTENER = """
from numba.core import event
compiled = []
class _Count(event.Listener):
    def on_start(self, ev):
        fn = ev.data["dispatcher"].py_func
        if fn.__module__.startswith("snl_numeric"):
            compiled.append(fn.__module__ + "." + fn.__qualname__)
    def on_end(self, ev):
        pass
event.register("numba:compile", _Count())
"""


def run_python(code: str, *, timeout: float = 120, env: dict[str, str] | None = None,
               args: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """Run ``code`` (dedented) with this interpreter; ``pytest.fail`` on a timeout."""
    full_env = {**os.environ, **(env or {})}
    try:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args],
                              capture_output=True, text=True, timeout=timeout, env=full_env)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"did not finish within {timeout} s (a hang?); output so far:\n"
                    f"{exc.stdout}\n{exc.stderr}")


def run_ok(code: str, **kwargs) -> str:
    """Run ``code``; fail unless it exits 0; its standard output."""
    proc = run_python(code, **kwargs)
    if proc.returncode != 0:
        pytest.fail(f"exit status {proc.returncode}\nstdout:\n{proc.stdout}\n"
                    f"stderr:\n{proc.stderr}")
    return proc.stdout


def hear_ctrl_c() -> None:
    """``preexec_fn`` of a child that must stop on SIGINT as at a terminal: a runner
    started in the background (``cmd &`` in a script) ignores SIGINT, its children
    inherit that, and Python then installs no KeyboardInterrupt handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def slowdown(cpu_seconds: float = 0.2) -> float:
    """How many times slower than quiet this machine runs right now: the wall-clock time a
    busy loop needs for ``cpu_seconds`` of this thread's CPU time, over that CPU time (1 on
    an idle machine, about 4 on two cores shared by eight busy processes; never below 1).

    Wall-clock limits in tests are a quiet-machine time times this factor, so that a loaded
    machine passes and a hang still fails."""
    wall0, cpu0 = time.perf_counter(), time.thread_time()
    while time.thread_time() - cpu0 < cpu_seconds:
        sum(range(1000))
    return max(1.0, (time.perf_counter() - wall0) / (time.thread_time() - cpu0))
