"""The jitted kernels run as plain Python (``NUMBA_DISABLE_JIT=1``) give the same numbers.

This covers the kernels' code as Python (so coverage tools see it) and guards
against a kernel that only works when compiled.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import nojit_check

HERE = Path(__file__).resolve().parents[1]  # tests/: the helper scripts


def _close(a, b, path="") -> list[str]:
    if isinstance(a, dict):
        assert set(a) == set(b), path
        return [e for k in a for e in _close(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}: lengths {len(a)} != {len(b)}"]
        return [e for i, (x, y) in enumerate(zip(a, b, strict=True))
                for e in _close(x, y, f"{path}[{i}]")]
    if isinstance(a, float) and isinstance(b, float):
        if math.isinf(a) or math.isinf(b) or math.isnan(a):
            return [] if a == b or (math.isnan(a) and math.isnan(b)) else [f"{path}: {a} != {b}"]
        return [] if abs(a - b) <= 1e-12 * max(1.0, abs(a)) else [f"{path}: {a} != {b}"]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def test_kernels_as_python_match_jitted():
    jitted = json.loads(json.dumps(nojit_check._plain(nojit_check.results())))
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run([sys.executable, str(HERE / "nojit_check.py")], env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    python = json.loads(proc.stdout)
    problems = _close(jitted, python)
    assert not problems, problems[:10]
