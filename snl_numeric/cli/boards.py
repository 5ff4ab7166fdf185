"""``snl boards``: the built-in boards and their sources."""

from __future__ import annotations

import argparse
import json

from .. import boards


def add_parser(sub) -> None:
    """Register ``snl boards``."""
    p = sub.add_parser("boards", help="list the built-in boards")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps({n: boards.describe(n) for n in boards.names()}, indent=2))
    else:
        for n in boards.names():
            print(f"{n:<20} {boards.describe(n)}")
    return 0
