"""Text, HTML and tables of the jump questions (:class:`~snl_numeric.JumpImpact`,
:class:`~snl_numeric.JumpCandidates`)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._core.optional import require_pandas
from .html import fmt, kv_table, row_table, rules_text, side_by_side
from .text import line, plural, rules_line, table, title, value

__all__ = ["impact_text", "impact_html", "impact_frame", "impact_rows", "candidates_text",
           "candidates_html", "candidates_frame", "signed"]

#: Jumps listed in the text of a jump impact before "and k more".
MAX_IMPACT_LINES = 40
#: Candidates listed each way (lengthen, shorten) in their text and HTML.
TOP_CANDIDATES = 5


def signed(x: float, digits: int = 4) -> str:
    """A change for people: ``+1.2345``, ``-0.5``, ``+inf``, ``-`` when undefined.

    Examples
    --------
    >>> signed(4.06123), signed(-0.5, 2), signed(math.inf), signed(math.nan)
    ('+4.0612', '-0.50', '+inf', '-')
    """
    if math.isnan(x):
        return "-"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.{digits}f}"


def _columns(r: Any) -> list[tuple[str, str, int]]:
    """``(field, title, digits)`` of each measure the impact holds (``field_without`` and
    ``field_change`` are its attributes)."""
    out = [("mean", "mean", 4), ("std", "std", 4)]
    if r.median_without is not None:
        out.append(("median", "median", 0))
    if r.win_probability_without is not None:
        out.append(("win_probability", f"P(1st of {r.players} wins)", 4))
    return out


def impact_rows(r: Any, limit: int | None = None) -> tuple[list[str], list[list[str]]]:
    """Header and rows (most effect first) of an impact table."""
    header = ["jump", "kind", "P(used)"]
    cols = []
    for key, name, digits in _columns(r):
        header += [f"{name} without", "change"]
        cols.append((getattr(r, f"{key}_without"), getattr(r, f"{key}_change"), digits))
    kinds = r.kind
    rows = []
    for j in r.order()[:limit].tolist():
        row = [f"{r.source[j]}->{r.destination[j]}", kinds[j], value(float(r.probability[j]), 4)]
        for without, change, digits in cols:
            row += [value(float(without[j]), digits) if digits else value_int(without[j]),
                    signed(float(change[j]), digits)]
        rows.append(row)
    return header, rows


def value_int(x: Any) -> str:
    """A median: an integer, ``inf``, ``-`` when undefined."""
    x = float(x)
    return "-" if math.isnan(x) else value(x) if math.isinf(x) else str(int(x))


def impact_text(r: Any) -> str:
    """The report of a :class:`~snl_numeric.JumpImpact`."""
    b = r.board
    lines = [f"Jump impact on {title(b)}", line("rules", rules_line(b, r.start)),
             line("expected throws", f"{value(r.mean)}   (std deviation {value(r.std)})")]
    if r.median_without is not None:
        lines.append(line("median", value(r.median)))
    if r.win_probability is not None:
        lines.append(line("first player wins", f"{value(r.win_probability)}   "
                                               f"(race of {r.players})"))
    if len(r.source):
        header, rows = impact_rows(r, MAX_IMPACT_LINES)
        lines += table(header, rows, right=[False, False] + [True] * (len(header) - 2))
        if len(r.source) > MAX_IMPACT_LINES:
            lines.append(f"  ... and {len(r.source) - MAX_IMPACT_LINES} more (.to_frame())")
        lines.append("  (each jump removed alone, largest change of expected throws first; "
                     "inf: the goal would no longer be reached with probability 1)")
    else:
        lines.append(line("jumps", "none"))
    if r.note:
        lines.append(line("note", r.note))
    return "\n".join(lines)


def impact_html(r: Any) -> str:
    """The HTML display of a :class:`~snl_numeric.JumpImpact`."""
    b = r.board
    rows = [("board", f"{title(b)}"), ("rules", f"{rules_text(b)}; start {r.start}"),
            ("expected throws", f"{fmt(r.mean)} (std deviation {fmt(r.std)})")]
    if r.note:
        rows.append(("note", r.note))
    header, body = impact_rows(r, MAX_IMPACT_LINES)
    jumps = row_table(header, body, caption="Each jump removed alone (largest change first)")
    return side_by_side(kv_table(rows, caption="Jump impact"), jumps if len(r.source) else "")


def impact_frame(r: Any) -> Any:
    """One row per jump (see :meth:`JumpImpact.to_frame`)."""
    data: dict[str, Any] = {"source": r.source, "destination": r.destination, "kind": list(r.kind),
                            "probability": r.probability}
    for key, _, _ in _columns(r):
        data[f"{key}_without"] = getattr(r, f"{key}_without")
        data[f"{key}_change"] = getattr(r, f"{key}_change")
    return require_pandas().DataFrame(data)


# -- candidates --------------------------------------------------------------------------
_KIND_WORDS = {"both": "snakes and ladders", "snake": "snakes", "ladder": "ladders"}


def _candidate_rows(c: Any, longer: bool) -> list[list[str]]:
    return [[f"{a}->{b}", "ladder" if b > a else "snake", signed(x)]
            for a, b, x in c.top(TOP_CANDIDATES, longer=longer)]


def _counts(c: Any) -> str:
    allowed = int(np.count_nonzero(~np.isnan(c.change)))
    endless = int(np.count_nonzero(np.isposinf(c.change)))
    text = f"{allowed:,} {_KIND_WORDS[c.kind]} one could add"
    return text + (f", {endless:,} of them endless" if endless else "")


def candidates_text(c: Any) -> str:
    """The report of a :class:`~snl_numeric.JumpCandidates`."""
    b = c.board
    lines = [f"Jump candidates on {title(b)}", line("rules", rules_line(b, c.start)),
             line("expected throws", f"{value(c.mean)} as it is; {_counts(c)}")]
    for longer, what in ((True, "lengthen"), (False, "shorten")):
        rows = _candidate_rows(c, longer)
        if rows:
            lines.append(f"  {plural(len(rows), 'jump')} that {what} the game most:")
            lines += table(["jump", "kind", "change"], rows, right=[False, False, True])
    lines.append("  (change: of expected throws with the new jump; inf: the goal would no "
                 "longer be reached with probability 1)")
    return "\n".join(lines)


def candidates_html(c: Any) -> str:
    """The HTML display of a :class:`~snl_numeric.JumpCandidates`."""
    b = c.board
    rows = [("board", title(b)), ("rules", f"{rules_text(b)}; start {c.start}"),
            ("expected throws", f"{fmt(c.mean)} as it is"), ("candidates", _counts(c))]
    tables = [row_table(["jump", "kind", "change"], _candidate_rows(c, longer),
                        caption=f"Lengthen most (top {TOP_CANDIDATES})" if longer
                        else f"Shorten most (top {TOP_CANDIDATES})")
              for longer in (True, False)]
    return side_by_side(kv_table(rows, caption="Jump candidates"), *tables)


def candidates_frame(c: Any) -> Any:
    """One row per allowed jump (see :meth:`JumpCandidates.to_frame`)."""
    a, b = np.nonzero(~np.isnan(c.change))
    change = c.change[a, b]
    return require_pandas().DataFrame({
        "source": a, "destination": b, "kind": np.where(b > a, "ladder", "snake"), "change": change,
        "mean": c.mean + change})
