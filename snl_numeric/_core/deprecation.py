"""Old spellings kept for one release (see the version policy in the docs).

Every renamed attribute, keyword, batch column and command-line flag still works until
:data:`REMOVED_IN` and says, with a :class:`DeprecationWarning` pointing at the caller's
line (or a line on stderr for the command line), what it is now called. Renamed
attributes are marked with :func:`deprecated` (PEP 702), so type checkers flag them too.
"""

from __future__ import annotations

import sys

from .warn import warn_user

if sys.version_info >= (3, 13):
    from warnings import deprecated
else:
    from typing_extensions import deprecated

__all__ = ["REMOVED_IN", "deprecated", "removal_note", "warn_renamed"]

#: The release in which the deprecated spellings of 0.1 go away.
REMOVED_IN = "0.2.0"


def removal_note(old: str, new: str) -> str:
    """The one wording of a deprecation.

    Examples
    --------
    >>> removal_note("k", "horizon")
    'k is now horizon; k will be removed in snl_numeric 0.2.0'
    """
    return f"{old} is now {new}; {old} will be removed in snl_numeric {REMOVED_IN}"


def warn_renamed(old: str, new: str) -> None:
    """A :class:`DeprecationWarning` that ``old`` is now ``new``, at the caller's line."""
    warn_user(removal_note(old, new), DeprecationWarning)
