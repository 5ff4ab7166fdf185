"""``snl warmup``: compile every kernel ahead of time (container images, CI, Dask workers)."""

from __future__ import annotations

import argparse
import signal
import threading

from ..warmup import GROUPS, cache_dir, warmup
from .common import add_command, print_json


def add_parser(sub) -> None:
    """Register ``snl warmup``."""
    p = add_command(
        sub, "warmup", help="compile every kernel now, into the cache directory",
        description="Compile every kernel of snl_numeric into the cache directory (in parallel "
                    "processes), so that later runs start at once: for container images, CI "
                    "jobs and Dask workers. The cache is $NUMBA_CACHE_DIR when set, else where "
                    "Numba keeps it (a __pycache__ beside the modules; printed).",
        examples=["snl warmup", "snl warmup simulate batch --processes 2",
                  "NUMBA_CACHE_DIR=/opt/kernels snl warmup --json"])
    p.add_argument("groups", nargs="*", metavar="GROUP", type=_group,
                   help=f"only these groups of entry points ({', '.join(GROUPS)}; default all)")
    p.add_argument("--processes", type=int, metavar="N",
                   help="worker processes (default: the number of cores)")
    p.add_argument("--json", action="store_true", help="print the timings as JSON")
    p.set_defaults(func=run)


def _group(name: str) -> str:
    """A GROUP argument (checked here: argparse would list an empty choice for ``nargs="*"``)."""
    if name not in GROUPS:
        raise argparse.ArgumentTypeError(
            f"invalid choice: {name!r} (choose from {', '.join(map(repr, GROUPS))})")
    return name


def _terminated(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def run(args: argparse.Namespace) -> int:
    # SIGTERM ends the command as Ctrl-C does: the worker processes are stopped on the way
    # out (and their queues released), not left to notice that their parent is gone
    main = threading.current_thread() is threading.main_thread()
    old = signal.signal(signal.SIGTERM, _terminated) if main else None
    try:
        times = warmup(args.groups or None, processes=args.processes)
    finally:
        if old is not None:
            signal.signal(signal.SIGTERM, old)
    if args.json:
        print_json({"cache_dir": cache_dir(), "seconds": times})
    else:
        for name, seconds in times.items():
            print(f"{name:<10} {seconds:7.2f} s")
        print(f"kernels cached in {cache_dir()}")
    return 0
