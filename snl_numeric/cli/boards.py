"""``snl boards``: the built-in boards and their sources."""

from __future__ import annotations

import argparse

from .. import boards
from .common import print_json


def add_parser(sub) -> None:
    """Register ``snl boards``."""
    p = sub.add_parser("boards", help="list the built-in boards")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.json:
        print_json({n: boards.describe(n) for n in boards.names()})
    else:
        for n in boards.names():
            print(f"{n:<20} {boards.describe(n)}")
    return 0
