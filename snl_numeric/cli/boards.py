"""``snl boards``: the built-in boards and their sources."""

from __future__ import annotations

import argparse

from .. import boards
from .common import add_command, print_json


def add_parser(sub) -> None:
    """Register ``snl boards``."""
    p = add_command(
        sub, "boards", help="list the built-in boards",
        description="List the built-in boards with their sources and rules; each name works "
                    "wherever a command takes BOARD (and in snl_numeric.boards.get).",
        examples=["snl boards", "snl boards --json"])
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.json:
        print_json({n: boards.describe(n) for n in boards.names()})
    else:
        for n in boards.names():
            print(f"{n:<20} {boards.describe(n)}")
    return 0
