"""The ``snl maze`` sub-command (wired into :mod:`snl_numeric.cli`).

``snl maze FILE [--start R C] [--goal R C] [--count | --shortest]
[--limit N] [--json]``

FILE holds one maze row per line, integers separated by whitespace and/or
commas (blank lines and ``#`` comments skipped), or a JSON list of lists.
Without ``--start`` the walker starts from each corner (seed 003); without
``--goal`` it heads for the middle cell ``(R // 2, C // 2)``, printed as
``MIDDLE``. Exit codes: 0 success, 1 no path, 2 bad input.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import sys
from pathlib import Path

import numpy as np

from .. import maze
from .._core.jsontext import parse_json
from .common import add_progress_arguments, print_json

__all__ = ["add_parser", "load_maze"]

_DESCRIPTION = """\
List the paths through a number maze (from a cell holding n, move exactly n
cells up, down, left or right), count them, or find the shortest.

FILE holds one maze row per line, integers separated by whitespace and/or
commas (blank lines and # comments skipped), or a JSON list of lists.
Without --start the walker starts from each corner in turn (seed 003);
without --goal it heads for the middle cell (R//2, C//2), printed as MIDDLE.
Exit codes: 0 success, 1 no path, 2 bad input.

examples:
  snl maze maze.txt                      every path from each corner to the middle
  snl maze maze.txt --count
  snl maze maze.txt --start 8 8 --goal 4 4 --shortest"""


def load_maze(path: str | Path) -> list[list[int]]:
    """Read a maze file: integer rows (whitespace/comma separated) or JSON.

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    list of list of int
        The rows, not yet validated (see :mod:`snl_numeric.maze`).

    Raises
    ------
    ValueError
        If a token is not an integer or the JSON is malformed.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    ...     _ = f.write("1, 2\\n# comment\\n3 0\\n")
    >>> load_maze(f.name)
    [[1, 2], [3, 0]]
    >>> os.remove(f.name)
    """
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise ValueError(f"maze file {os.fspath(path)!r} not found") from None
    if data.lstrip().startswith(b"["):
        try:
            return parse_json(data)  # strict, and never a RecursionError
        except ValueError as exc:
            raise ValueError(f"{path}: invalid JSON maze: "
                             f"{str(exc).removeprefix('invalid JSON: ')}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    rows = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        tokens = [t for t in re.split(r"[\s,]+", line.split("#", 1)[0]) if t]
        if not tokens:
            continue
        row = []
        for token in tokens:
            try:
                row.append(int(token))
            except ValueError:
                raise ValueError(
                    f"{path}, line {lineno}: {token!r} is not an integer"
                ) from None
        rows.append(row)
    return rows


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``maze`` sub-command to ``subparsers``; dispatch via ``args.func``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        From ``parser.add_subparsers(dest="command")``.

    Returns
    -------
    argparse.ArgumentParser
        The ``maze`` parser; ``args.func(args)`` returns the exit code.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="snl")
    >>> _ = add_parser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["maze", "m.txt", "--start", "0", "0", "--count"])
    >>> args.start, args.count, args.func.__name__
    ([0, 0], True, 'run')
    """
    p = subparsers.add_parser(
        "maze",
        help="paths through a number maze",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="maze file: integer rows, or a JSON list of lists")
    p.add_argument("--start", nargs=2, type=int, metavar=("R", "C"),
                   help="start cell (default: each corner in turn)")
    p.add_argument("--goal", nargs=2, type=int, metavar=("R", "C"),
                   help="goal cell (default: the middle, R//2 C//2)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--count", action="store_true",
                      help="count the paths instead of listing them")
    mode.add_argument("--shortest", action="store_true",
                      help="print one path with the fewest moves")
    p.add_argument("--limit", type=int, metavar="N",
                   help="list at most N paths (with --count: stop counting above N)")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_progress_arguments(p)
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    try:
        if args.limit is not None and args.limit < 0:
            raise ValueError(f"--limit must be at least 0, got {args.limit}")
        m = maze.as_maze(load_maze(args.file))
        rows, cols = m.shape
        mid = (rows // 2, cols // 2)
        goal = tuple(args.goal) if args.goal else mid
        if args.start:
            starts = [tuple(args.start)]
        else:
            starts = list(dict.fromkeys(
                [(0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1)]
            ))
        if args.count:
            return _print_count(m, starts, goal, args)
        if args.shortest:
            return _print_shortest(m, starts, goal, mid, args)
        return _print_paths(m, starts, goal, mid, args)
    except BrokenPipeError:  # the reader went away: main ends quietly
        raise
    except (OSError, ValueError, TypeError) as exc:
        message = str(exc)
        for name in ("start", "goal"):  # name the flag typed (only flags reach these)
            if message.startswith(f"{name} ("):
                message = "--" + message
        message = message.replace("iterate with iter_paths or count with count_paths instead",
                                  "drop --json to stream them, or count them with --count")
        print(" ".join(f"snl maze: error: {message}".split()), file=sys.stderr)
        return 2


def _print_count(m: np.ndarray, starts: list, goal: tuple, args: argparse.Namespace) -> int:
    total, steps, exceeded = 0, 0, False
    for start in starts:
        bound = None if args.limit is None else max(args.limit - total, 0)
        res = maze.count_paths(m, start, goal, bound=bound, progress=args.progress)
        total, steps = total + res.count, steps + res.steps
        if res.exceeded:
            exceeded = True
            break
    if args.json:
        print_json({"count": total, "exceeded": exceeded, "steps": steps})
    else:
        print(f"more than {args.limit}" if exceeded else total)
    return 0


def _print_shortest(
    m: np.ndarray, starts: list, goal: tuple, mid: tuple, args: argparse.Namespace
) -> int:
    best = None
    for start in starts:
        path = maze.shortest_path(m, start, goal)
        if path is not None and (best is None or len(path) < len(best)):
            best = path
    if args.json:
        print_json({"path": None if best is None else best.tolist()})
    elif best is None:
        print("no path")
    else:
        print(maze.format_path(best, goal_label="MIDDLE" if goal == mid else None))
    return 1 if best is None else 0


def _print_paths(
    m: np.ndarray, starts: list, goal: tuple, mid: tuple, args: argparse.Namespace
) -> int:
    if args.json:
        found: list[np.ndarray] = []
        for start in starts:
            remaining = None if args.limit is None else args.limit - len(found)
            try:
                found.extend(maze.paths(m, start, goal, limit=remaining))
            except ValueError as exc:
                if "MAX_PATHS" not in str(exc):
                    raise
                raise ValueError(f"more than {maze.MAX_PATHS:,} paths for --json; pass --limit "
                                 "N, count them with --count, or drop --json to stream them"
                                 ) from None
        print_json({"goal": list(goal), "paths": [p.tolist() for p in found]})
        return 1 if not found and args.limit != 0 else 0  # the text's exit code
    # text: each path printed as it is found (memory stays flat; `| head` and Ctrl-C stop it)
    label = "MIDDLE" if goal == mid else None
    left = args.limit
    printed = 0
    for start in starts:
        if left is not None and left <= 0:
            break
        for path in itertools.islice(maze.iter_paths(m, start, goal), left):
            print(maze.format_path(path, goal_label=label))
            printed += 1
            if left is not None:
                left -= 1
    if printed == 0 and args.limit != 0:
        where = "the corners" if len(starts) > 1 else str(starts[0])
        print(f"no path from {where} to {label or goal}")
        return 1
    return 0
