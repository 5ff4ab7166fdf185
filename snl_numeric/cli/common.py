"""What the ``snl`` subcommands share: loading a board, the rule-override flags."""

from __future__ import annotations

import argparse
import difflib
import math
import os
import re
import sys
from typing import Any

from .. import boards
from .._core.deprecation import REMOVED_IN
from .._core.jsontext import json_text
from .._core.validation import INT64_MAX, shown
from ..board import OVERSHOOT_RULES, Board
from ..dice import Dice, parse_dice

#: Library advice naming options the command line does not have (or spells otherwise),
#: and what ``snl`` says instead.
_CLI_WORDS = (
    (r"; raise max_throws or tail", ""),
    (r" \(Dice\.fair and Dice\.sum_of build larger ones\)", ""),
    (r"; raise max_iter or tol", ""),
    (r"within max_throws=(\d+) throws", r"within \1 throws"),
    (r"within max_iter=(\d+) (sweeps|steps)", r"within \1 \2"),
    (r"at max_throws=(\d+)", r"at --max-throws \1"),
    (r"overwrite=True", "--overwrite"),
    (r"allow_mixed_versions=True", "--allow-mixed-versions"),
    (r"iterate with iter_paths or count with count_paths instead",
     "drop --json to stream them, or count them with --count"),
    (r"race on board\.replace\(capture=None\), or ask win_probabilities for the game with "
     r"captures and fixed dice",
     "race with --capture none, or ask 'snl analyze --players K' for the game with captures "
     "and fixed dice"),
)


def cli_words(message: str) -> str:
    """``message`` without advice about options ``snl`` lacks (see :data:`_CLI_WORDS`).

    Examples
    --------
    >>> cli_words("the tail did not fall below 1e-12 within max_throws=10 throws; raise "
    ...           "max_throws or tail")
    'the tail did not fall below 1e-12 within 10 throws'
    """
    for library, cli in _CLI_WORDS:
        message = re.sub(library, cli, message)
    return message


def load_board(spec: str) -> Board:
    """A board from a registry name or the path of a JSON board file.

    Examples
    --------
    >>> load_board("seed-30").size
    29
    """
    if spec in boards.names():
        return boards.get(spec)
    if os.path.exists(spec):
        return Board.from_json(os.fspath(spec))
    if spec.lower().endswith(".json") or os.sep in spec or "/" in spec:
        raise ValueError(f"board file {spec!r} not found")
    near = boards.closest(spec)
    hint = f"; did you mean {near!r}?" if near else ""
    raise ValueError(f"board {spec!r} not found: no such file, nor a known board "
                     f"({', '.join(boards.names())}){hint}")


class _ExamplesFormatter(argparse.HelpFormatter):
    """Descriptions wrapped as usual; the examples after them kept line by line."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("examples:"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def add_command(sub: Any, name: str, *, help: str, description: str,
                examples: list[str]) -> argparse.ArgumentParser:
    """A subcommand's parser whose ``--help`` says what it does and shows ``examples``."""
    return sub.add_parser(name, help=help, description=description,
                          epilog="examples:\n" + "\n".join(f"  {e}" for e in examples),
                          formatter_class=_ExamplesFormatter)


def check_output_file(path: str, flag: str) -> None:
    """Refuse ``path`` up front (before any work) when its folder does not exist.

    Examples
    --------
    >>> check_output_file("no/such/folder/report.html", "-o")
    Traceback (most recent call last):
    ...
    ValueError: -o no/such/folder/report.html: the folder 'no/such/folder' does not exist
    """
    folder = os.path.dirname(path)
    if folder and not os.path.isdir(folder):
        raise ValueError(f"{flag} {path}: the folder {folder!r} does not exist")


def add_board_arguments(parser: argparse.ArgumentParser, *, dice: bool = True) -> None:
    """The BOARD argument and the rule-override flags, shared by commands.

    ``dice=False`` leaves out ``--dice`` for commands that use it otherwise.
    """
    parser.add_argument("board", metavar="BOARD",
                        help="a registry name (see 'snl boards') or a JSON board file")
    parser.add_argument("--overshoot", choices=OVERSHOOT_RULES, help="override the overshoot rule")
    chain = parser.add_mutually_exclusive_group()
    chain.add_argument("--chain", dest="chain", action="store_true", default=None,
                       help="follow chained jumps")
    chain.add_argument("--no-chain", dest="chain", action="store_false",
                       help="follow at most one jump per throw")
    parser.add_argument("--start", type=int, help="override the start square")
    parser.add_argument("--capture", metavar="start|K", type=capture_flag,
                        help="players who meet: 'start' sends a captured token to its start, "
                             "K sends it back K squares ('none': no capture)")
    parser.add_argument("--safe", metavar="SQUARES", type=squares_flag,
                        help="squares where nobody is captured, e.g. '10,20' (with --capture)")
    if dice:
        parser.add_argument("--dice", dest="dice_spec", metavar="DICE",
                            help="dice: 'd6', '1-3', '2d6' or '1:0.5,2:0.5'")


def check_flag(value: Any, flag: str, *, low: float | None = None,
               high: float | None = INT64_MAX, what: str = "") -> Any:
    """``value`` of the option ``flag`` (None passes), with the range check worded with the
    flag the user typed (``--seed``, not ``rng``).

    Examples
    --------
    >>> check_flag(5, "--games", low=1)
    5
    >>> check_flag(-1, "--seed", low=0)
    Traceback (most recent call last):
    ...
    ValueError: --seed must be at least 0, got -1
    """
    if value is None:
        return None
    if value != value or (low is not None and value < low) or (high is not None and
                                                               value > high):
        if what:
            raise ValueError(f"{flag} must be {what}, got {shown(value)}")
        if low is not None and not value >= low:
            raise ValueError(f"{flag} must be at least {low}, got {shown(value)}")
        raise ValueError(f"{flag} must be at most {high:,}, got {shown(value)}")
    return value


def whole_number(text: str) -> int:
    """An argparse ``type`` for counts: ``1000000``, ``1_000_000``, ``1,000,000`` or ``1e6``.

    Examples
    --------
    >>> whole_number("1e6"), whole_number("1,000"), whole_number("250")
    (1000000, 1000, 250)
    """
    clean = text.strip().replace(",", "").replace("_", "")
    try:
        return int(clean)
    except ValueError:
        pass
    try:
        value = float(clean)
    except ValueError:
        value = math.nan
    if not value.is_integer():
        raise argparse.ArgumentTypeError(
            f"expected a whole number such as 1000000 or 1e6, got {text!r}")
    return int(value)


def capture_flag(text: str) -> str | int:
    """An argparse ``type`` for ``--capture``: ``start``, ``none`` or a whole number K >= 1.

    Examples
    --------
    >>> capture_flag("start"), capture_flag("3"), capture_flag("none")
    ('start', 3, 'none')
    """
    clean = text.strip().lower()
    if clean in ("start", "none"):
        return clean
    if clean.isdigit() and clean.isascii() and len(clean) < 19 and int(clean) >= 1:
        return int(clean)
    raise argparse.ArgumentTypeError(f"expected 'start', 'none' or a number of squares K >= 1, "
                                     f"got {text!r}")


def squares_flag(text: str) -> tuple[int, ...]:
    """An argparse ``type`` for a list of squares: ``10,20,30`` (empty: none).

    Examples
    --------
    >>> squares_flag("10, 20"), squares_flag("")
    ((10, 20), ())
    """
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not all(p.isdigit() and p.isascii() and len(p) < 19 for p in parts):
        raise argparse.ArgumentTypeError(f"expected squares such as '10,20', got {text!r}")
    return tuple(int(p) for p in parts)


def dice_from_flag(spec: str, flag: str = "--dice") -> Dice:
    """``parse_dice(spec)``, its errors prefixed with the flag."""
    try:
        return parse_dice(spec)
    except ValueError as exc:
        raise type(exc)(f"{flag}: {exc}") from None


def board_from_args(args: argparse.Namespace) -> Board:
    """Load ``args.board`` and apply the rule overrides."""
    board = load_board(args.board)
    changes: dict[str, Any] = {}
    if args.overshoot is not None:
        changes["overshoot"] = args.overshoot
    if args.chain is not None:
        changes["chain"] = args.chain
    if args.start is not None:
        changes["start"] = check_flag(args.start, "--start", low=0, high=board.size,
                                      what=f"a square in 0..{board.size}")
    capture = getattr(args, "capture", None)
    if capture is not None:
        changes["capture"] = None if capture == "none" else capture
    if getattr(args, "safe", None) is not None:
        changes["safe"] = args.safe
    if getattr(args, "dice_spec", None) is not None:  # ('' is refused, not ignored)
        changes["dice"] = dice_from_flag(args.dice_spec)
    return board.replace(**changes) if changes else board


def add_progress_arguments(parser: argparse.ArgumentParser) -> None:
    """``--progress`` / ``--no-progress``: the bar on standard error.

    By default the bar shows only when standard error is a terminal (a pipe
    or a log file gets nothing); ``--progress`` shows it anyway.
    """
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--progress", dest="progress", action="store_const", const="always",
                       default=True,
                       help="show the progress bar even when stderr is not a terminal")
    group.add_argument("--no-progress", dest="progress", action="store_false",
                       help="never show the progress bar")


def print_json(data: Any) -> None:
    """The one JSON style of every subcommand: indented by 2, strict (``inf``/``nan`` are
    the strings ``"inf"``/``"nan"``, never bare literals; see ``json_text``)."""
    print(json_text(data, indent=2))


class DeprecatedFlag(argparse.Action):
    """Store like ``action="append"`` and say on stderr which flag replaces this one, once
    per command line however often the flag is repeated."""

    def __init__(self, option_strings, dest, new: str = "", **kwargs) -> None:
        self.new = new
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        said: set[str] = getattr(namespace, "_deprecated_said", set())
        if option_string not in said:  # (the namespace is this command line's own)
            print(f"{parser.prog}: {option_string} is deprecated here and will be removed in "
                  f"snl_numeric {REMOVED_IN}; use {self.new}", file=sys.stderr)
            namespace._deprecated_said = said | {option_string}
        items = list(getattr(namespace, self.dest) or [])
        setattr(namespace, self.dest, [*items, values])


class OneLineParser(argparse.ArgumentParser):
    """A parser whose usage errors are one line on standard error (``PROG: error: WHY (see
    'PROG --help')``) and exit status 2, as every other failure of ``snl``."""

    def _hints(self) -> list[str]:
        return []

    def error(self, message: str):  # type: ignore[override]
        why = "; ".join([message, *self._hints()])
        self.exit(2, " ".join(f"{self.prog}: error: {why} (see '{self.prog} --help')".split())
                  + "\n")


class CommandParser(OneLineParser):
    """A subcommand's parser: an unknown flag is reported with *this* command's name (not
    the top-level one), with the closest known flag, even when another error comes first."""

    _tokens: list[str] = []

    def _hints(self) -> list[str]:
        flags = [o for a in self._actions for o in a.option_strings]
        hints = []
        for token in self._tokens:
            name = token.split("=")[0]
            if not name.startswith("--") or any(f.startswith(name) for f in flags):
                continue
            close = difflib.get_close_matches(name, flags, n=1)
            hints.append(f"unknown flag {name}" + (f": did you mean {close[0]}?" if close else ""))
        return hints

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        self._tokens = list(sys.argv[1:] if args is None else args)
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras
