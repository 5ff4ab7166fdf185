"""How a message shows a value, and the one check of a string option (private layer).

Below :mod:`.sizes` and :mod:`.validation`, which both check options with
:func:`choice`; :mod:`.validation` re-exports these names.
"""

from __future__ import annotations

import reprlib
from typing import Any

__all__ = ["choice", "choice_message", "shown"]

_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxlong, _SHOWN.maxstring, _SHOWN.maxother = 3, 40, 60, 60
_SHOWN.maxlist = _SHOWN.maxtuple = _SHOWN.maxdict = _SHOWN.maxset = 8


def shown(value: Any) -> str:
    """``repr(value)`` for a message, cut short: a 400-digit number, a long string or a
    list nested 5,000 deep is shown in a few dozen characters (never a RecursionError).

    Examples
    --------
    >>> shown(10**400)
    '100000000000000000...0000000000000000000'
    >>> shown([[[[[[1]]]]]])
    '[[[[...]]]]'
    """
    try:
        return _SHOWN.repr(value)
    except Exception:  # a broken __repr__: say what it is
        return f"<{type(value).__name__}>"


def choice(value: Any, name: str, options: tuple[str, ...]) -> str:
    """``value`` (as a plain ``str``: a NumPy string too) if it is one of the strings
    ``options``: else ``TypeError`` for what is no string, ``ValueError`` for another
    string, both naming the options.

    Examples
    --------
    >>> choice("jumps", "wrt", ("dice", "jumps"))
    'jumps'
    >>> choice(1, "wrt", ("dice", "jumps"))
    Traceback (most recent call last):
    ...
    TypeError: wrt must be one of 'dice', 'jumps', got 1
    """
    if not isinstance(value, str) or value not in options:
        kind = ValueError if isinstance(value, str) else TypeError
        raise kind(choice_message(name, options, shown(value)))
    return str(value)


def choice_message(name: str, options: tuple[str, ...], got: str) -> str:
    """:func:`choice`'s words, for a check that finds the bad value its own way (a
    column of a batch, a code); ``got`` is the value as shown."""
    return f"{name} must be one of {', '.join(map(repr, options))}, got {got}"
