"""Refuse before allocating: estimate the memory a request needs, compare it with what the
machine has, and say how much would be needed.

:func:`available_memory` reads ``MemAvailable`` from ``/proc/meminfo`` (and the
cgroup limit of a container, and what the process's own limits ``RLIMIT_AS`` and
``RLIMIT_DATA`` (``ulimit -v`` / ``-d``) leave beside its address space and data in
use, when lower), else ``os.sysconf``; where none is known it returns None and
nothing is refused. The environment variable
``SNL_NUMERIC_MAX_MEMORY`` (bytes, or a number with a ``K``/``M``/``G``/``T``
suffix, powers of 1024) caps it, for shared machines and tests.
"""

from __future__ import annotations

import os

__all__ = ["SMALL_REQUEST", "MemoryLimitError", "available_memory", "check_memory", "format_bytes"]

#: Environment variable capping the memory one request may use.
MAX_MEMORY_ENV = "SNL_NUMERIC_MAX_MEMORY"
_UNITS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


class MemoryLimitError(ValueError, MemoryError):
    """A request that would need more memory than the machine has (refused up front).

    Both a ``ValueError`` (the request is too large) and a ``MemoryError``.
    """


def format_bytes(n: float) -> str:
    """``n`` bytes in words.

    Examples
    --------
    >>> format_bytes(3 * 2**30), format_bytes(1536), format_bytes(2.5e15)
    ('3.0 GiB', '1.5 KiB', '2.2 PiB')
    """
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024:
            return f"{n:.0f} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PiB" if n < 1e4 else f"{n:.3g} PiB"


def _env_limit() -> int | None:
    text = os.environ.get(MAX_MEMORY_ENV, "").strip().upper().removesuffix("IB").removesuffix("B")
    if not text:
        return None
    unit = text[-1] if text[-1] in _UNITS else ""
    try:
        return int(float(text[: len(text) - len(unit)]) * _UNITS[unit])
    except ValueError:
        return None


def _meminfo() -> int | None:
    try:
        with open("/proc/meminfo", "rb") as fh:
            for line in fh:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cgroup() -> int | None:
    """What the container's memory limit leaves (cgroup v2, then v1), if any."""
    for limit_file, usage_file in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        try:
            with open(limit_file) as fh:
                limit = fh.read().strip()
            if limit == "max" or int(limit) >= 1 << 60:
                continue
            with open(usage_file) as fh:
                usage = int(fh.read().strip())
            return max(int(limit) - usage, 0)
        except (OSError, ValueError):
            continue
    return None


def _status() -> dict[bytes, int]:
    """``VmSize`` and ``VmData`` of this process in bytes (empty where unknown)."""
    out: dict[bytes, int] = {}
    try:
        with open("/proc/self/status", "rb") as fh:
            for line in fh:
                key = line.split(b":", 1)[0]
                if key in (b"VmSize", b"VmData"):
                    out[key] = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return out


def _rlimits() -> int | None:
    """What this process's limits on its address space (``RLIMIT_AS``, ``ulimit -v``) and
    its data (``RLIMIT_DATA``) leave beside what it uses already, if either is set."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return None
    left = []
    used = None
    for name, key in (("RLIMIT_AS", b"VmSize"), ("RLIMIT_DATA", b"VmData")):
        which = getattr(resource, name, None)
        if which is None:
            continue
        try:
            soft = resource.getrlimit(which)[0]
        except (OSError, ValueError):  # pragma: no cover
            continue
        if soft == resource.RLIM_INFINITY or soft < 0:
            continue
        if used is None:
            used = _status()
        left.append(max(soft - used.get(key, 0), 0))
    return min(left) if left else None


def _sysconf() -> int | None:
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def available_memory() -> int | None:
    """Bytes a request may still allocate here (None: unknown, nothing is refused)."""
    known = [v for v in (_meminfo() if os.path.exists("/proc/meminfo") else _sysconf(),
                         _cgroup(), _rlimits(), _env_limit()) if v is not None]
    return min(known) if known else None


#: Requests below this are not checked against the system: reading what is available
#: costs as much as a whole small call it would guard.
SMALL_REQUEST = 8 * 2**20


def check_memory(nbytes: float, what: str) -> None:
    """Raise :class:`MemoryLimitError` if ``what`` needs more than :func:`available_memory`.

    Examples
    --------
    >>> check_memory(1024, "a small table")
    >>> try:
    ...     check_memory(2.0**60, "a successor table of 10**17 squares")
    ... except MemoryError as exc:
    ...     print(str(exc).split(";")[0])
    a successor table of 10**17 squares needs about 1024.0 PiB of memory
    """
    if nbytes < SMALL_REQUEST:
        return
    avail = available_memory()
    if avail is not None and nbytes > avail:
        raise MemoryLimitError(f"{what} needs about {format_bytes(nbytes)} of memory; "
                               f"{format_bytes(avail)} is available")
