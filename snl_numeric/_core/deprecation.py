"""Old spellings kept for one release (issue 16: one name per quantity).

Every renamed attribute, keyword, batch column and command-line flag still works for one
release and says, with a :class:`DeprecationWarning` (or a line on stderr for the command
line), what it is now called.
"""

from __future__ import annotations

import warnings
from typing import Any


def warn_renamed(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn that ``old`` is now ``new`` and goes away in the next release."""
    warnings.warn(f"{old} is now {new}; {old} will be removed in the next release",
                  DeprecationWarning, stacklevel=stacklevel)


def renamed_attribute(owner: str, old: str, new: str) -> property:
    """A read-only property ``old`` that warns and returns attribute ``new``.

    Examples
    --------
    >>> class R:
    ...     mean = 1.5
    ...     expected = renamed_attribute("R", "expected", "mean")
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value = R().expected
    >>> value, str(caught[0].message).split(";")[0]
    (1.5, 'R.expected is now R.mean')
    """

    def get(self: Any) -> Any:
        warn_renamed(f"{owner}.{old}", f"{owner}.{new}")
        return getattr(self, new)

    get.__doc__ = f"Deprecated: the old name of :attr:`{new}` (removed in the next release)."
    return property(get)
