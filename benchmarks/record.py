"""JSON records of benchmark runs, kept under ``benchmarks/results/`` (the tracked history).

A record holds when and where the run happened (machine, cores, load, Python, NumPy,
Numba, the commit and whether the tree had changes) and the rows of the run; its
name is ``<UTC time>-<commit>-<host>.json``, so a listing sorts by time.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
from typing import Any

import numba
import numpy as np

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], capture_output=True, text=True, timeout=30,
                             cwd=os.path.dirname(RESULTS))
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def machine() -> dict[str, Any]:
    """Where the run happens: processor, cores, load, versions, commit."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            model = next((line.split(":", 1)[1].strip() for line in fh
                          if line.startswith("model name")), model)
    except OSError:
        pass
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {"processor": model, "cores": os.cpu_count(), "load_1min": load and load[0],
            "threads": numba.config.NUMBA_NUM_THREADS, "python": platform.python_version(),
            "numpy": np.__version__, "numba": numba.__version__, "host": platform.node(),
            "commit": _git("rev-parse", "HEAD"), "dirty": bool(_git("status", "--porcelain"))}


def write_record(rows: list[dict[str, Any]], *, quick: bool = False,
                 only: list[str] | None = None, directory: str = RESULTS) -> str:
    """Write one run's record and return its path."""
    info = machine()
    when = datetime.datetime.now(datetime.timezone.utc)
    name = (f"{when:%Y%m%dT%H%M%SZ}-{(info['commit'] or 'nogit')[:8]}-"
            f"{info['host'] or 'host'}.json")
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, name)
    with open(path, "w") as fh:
        json.dump({"time": when.isoformat(), "machine": info, "quick": quick, "only": only,
                   "rows": rows}, fh, indent=1)
        fh.write("\n")
    return path
