"""Dice: finite distributions over positive integer faces.

A :class:`Dice` is the probability law of one throw. Faces are positive
integers, stored sorted and without zero-probability entries; probabilities
are non-negative and sum to 1 within ``1e-12`` (kept as given, not
renormalised). Faces are at most ``MAX_FACE`` (``2**31 - 1``).
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeAlias

import numpy as np

from ._core.memory import check_memory
from ._core.text import sum_of_dice
from ._core.validation import (
    MAX_FACE,
    few,
    find_dice_problem,
    int_array,
    positive_int,
    probability,
    problem_message,
    shown,
)

__all__ = ["Dice", "DiceLike", "as_dice", "parse_dice", "MAX_FACE"]

@dataclass(frozen=True, eq=False)
class Dice:
    """The distribution of one throw.

    Build one with :meth:`fair`, :meth:`spinner`, :meth:`sum_of` or
    :meth:`from_probs`; ``Dice(faces, probs)`` validates the same way.

    Attributes
    ----------
    faces : ndarray of int64
        Distinct positive faces, increasing.
    probs : ndarray of float64
        ``probs[i]`` is the probability of ``faces[i]``; all positive, sum 1.

    Examples
    --------
    >>> Dice.fair(6).mean
    3.5
    >>> Dice.sum_of(2, 6).faces.tolist()[:3]
    [2, 3, 4]
    >>> Dice.from_probs({1: 0.25, 2: 0.75})
    Dice({1: 0.25, 2: 0.75})
    """

    faces: np.ndarray
    probs: np.ndarray

    def __post_init__(self) -> None:
        faces, probs = _validate(self.faces, self.probs)
        object.__setattr__(self, "faces", faces)
        object.__setattr__(self, "probs", probs)

    # -- constructors -------------------------------------------------------
    @classmethod
    def fair(cls, sides: int = 6) -> Dice:
        """A fair die with faces ``1..sides``."""
        sides = positive_int(sides, "sides")
        return _uniform(1, sides)

    @classmethod
    def spinner(cls, k: int) -> Dice:
        """A fair spinner showing ``1..k`` (the same law as ``fair(k)``)."""
        return cls.fair(k)

    @classmethod
    def sum_of(cls, n: int, sides: int = 6) -> Dice:
        """The sum of ``n`` fair dice with ``sides`` faces each."""
        n = positive_int(n, "n")
        sides = positive_int(sides, "sides")
        if n * sides > MAX_FACE:
            raise ValueError(f"the sum of {n:,} dice with {sides:,} sides reaches {n * sides:,}; "
                             f"dice faces must be at most {MAX_FACE:,}")
        n_faces = n * (sides - 1) + 1
        check_memory(_BYTES_PER_FACE * n_faces,
                     f"the sum of {n:,} dice with {sides:,} sides ({n_faces:,} faces)")
        faces = np.arange(n, n * sides + 1)
        if n * math.log2(sides) < 52:  # integer counts, exact in float64; one rounding each
            counts = np.ones(1, dtype=np.float64)
            for _ in range(n):
                counts = np.convolve(counts, np.ones(sides))
            return cls(faces, counts / counts.sum())
        # counts beyond 2**52 (they would overflow to inf for 10**4 dice): convolve
        # probabilities by repeated squaring (FFT), renormalised at each product
        from scipy.signal import fftconvolve

        def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            c = np.clip(fftconvolve(a, b), 0.0, None)
            return c / math.fsum(c)

        one, m = np.full(sides, 1.0 / sides), n
        out: np.ndarray | None = None
        while m:
            if m & 1:
                out = one if out is None else product(out, one)
            m >>= 1
            if m:
                one = product(one, one)
        assert out is not None  # n >= 1
        return cls(faces, out)

    @classmethod
    def from_probs(cls, probs: Mapping[int, float]) -> Dice:
        """A die from a mapping ``face -> probability`` (a loaded die); a Dice is returned
        as it is.

        Examples
        --------
        >>> Dice.from_probs({1: 0.25, 3: 0.75}).faces.tolist()
        [1, 3]
        """
        if isinstance(probs, Dice):
            return probs
        if not isinstance(probs, Mapping):
            raise TypeError("Dice.from_probs takes a mapping face -> probability such as "
                            f"{{1: 0.5, 2: 0.5}}, got {type(probs).__name__} (for faces and "
                            "probabilities as two arrays: Dice(faces, probs))")
        if len(probs) == 0:
            raise ValueError("dice must have at least one face, got an empty mapping")
        faces = [face_value(f) for f in probs]
        values = [probability(p, f"probability of face {f}") for f, p in
                  zip(faces, probs.values(), strict=True)]
        return cls(np.array(faces, dtype=np.int64), np.array(values, dtype=np.float64))

    # -- properties ---------------------------------------------------------
    @property
    def max_face(self) -> int:
        """Largest face."""
        return int(self.faces[-1])

    @property
    def mean(self) -> float:
        """Expected face value."""
        return float(self.faces @ self.probs)

    def to_dict(self) -> dict[int, float]:
        """The mapping ``face -> probability``."""
        return {int(f): float(p) for f, p in zip(self.faces, self.probs, strict=False)}

    def is_fair(self) -> bool:
        """True for a fair die ``1..k``."""
        k = len(self.faces)
        return bool(
            self.faces[0] == 1 and self.faces[-1] == k and np.all(self.probs == 1.0 / k)
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Dice):
            return NotImplemented
        return np.array_equal(self.faces, other.faces) and np.array_equal(self.probs, other.probs)

    def __hash__(self) -> int:
        return hash((self.faces.tobytes(), self.probs.tobytes()))

    def __repr__(self) -> str:
        if self.is_fair():
            return f"Dice.fair({len(self.faces)})"
        n, sides = sum_of_dice(self.faces, self.probs)
        if n:
            return f"Dice.sum_of({n}, {sides})"
        return f"Dice({self.to_dict()})"


#: Bytes per face of building and checking a die (faces, probabilities and their copies).
_BYTES_PER_FACE = 64


def _uniform(lo: int, hi: int) -> Dice:
    """The fair die on ``lo..hi``; refused before allocating beyond ``MAX_FACE`` or memory."""
    if hi > MAX_FACE:
        raise ValueError(f"dice faces must be integers in 1..{MAX_FACE:,}, got faces up to {hi:,}")
    k = hi - lo + 1
    check_memory(_BYTES_PER_FACE * k, f"a fair die with {k:,} faces")
    return Dice(np.arange(lo, hi + 1), np.full(k, 1.0 / k))


#: What every function taking a die accepts: a :class:`Dice`, a mapping ``face ->
#: probability`` or a string read by :func:`parse_dice` (``"d6"``, ``"2d6"``, ``"1-3"``,
#: ``"1:0.5,2:0.5"``).
DiceLike: TypeAlias = Dice | Mapping[int, float] | str


def as_dice(dice: DiceLike | None) -> Dice:
    """Normalise ``None`` (a fair d6), a :class:`Dice`, a mapping or a string to a Dice.

    Examples
    --------
    >>> as_dice(None)
    Dice.fair(6)
    >>> as_dice({3: 1.0}).faces.tolist()
    [3]
    >>> as_dice("2d6") == Dice.sum_of(2, 6)
    True
    """
    if dice is None:
        return Dice.fair(6)
    if isinstance(dice, Dice):
        return dice
    if isinstance(dice, str):
        return parse_dice(dice)
    if not isinstance(dice, Mapping):
        raise TypeError("dice must be a Dice, a mapping face -> probability or a string such "
                        f"as '2d6' or '1-3', got {type(dice).__name__}")
    if any(k in dice for k in ("faces", "probs")):  # (a board file's form)
        raise TypeError("dice={'faces': [...], 'probs': [...]} is a board file's form "
                        "(Board.from_dict); here give Dice(faces, probs) or a mapping face -> "
                        "probability such as {1: 0.5, 2: 0.5}")
    return Dice.from_probs(dice)


def per_player(value: Any) -> bool:
    """Whether ``value`` gives one entry per player (boards, starts or dice): a sequence
    that is not a string, or a 1-d array.

    Examples
    --------
    >>> per_player([None, "2d6"]), per_player("2d6"), per_player(np.zeros((2, 2)))
    (True, False, False)
    """
    if isinstance(value, np.ndarray):
        return value.ndim == 1
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))


def check_player_dice(dice: Any) -> None:
    """``TypeError`` unless ``dice`` is None, one die (as :func:`as_dice` takes it) or a
    list of them, one per player (:func:`per_player`)."""
    if dice is not None and not (per_player(dice) or isinstance(dice, (Dice, Mapping, str))):
        raise TypeError("dice must be a Dice, a mapping face -> probability, a string such as "
                        f"'2d6' or a list of them (one per player), got {type(dice).__name__}")


# -- validation ----------------------------------------------------------------
def face_value(value: Any) -> int:
    """A face of a die: an integer in ``1 .. MAX_FACE``.

    Examples
    --------
    >>> face_value(2**70)
    Traceback (most recent call last):
    ...
    ValueError: dice faces must be integers in 1..2147483647, got 1180591620717411303424
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"dice faces must be integers, got {shown(value)}")
    if not 1 <= int(value) <= MAX_FACE:
        raise ValueError(f"dice faces must be integers in 1..{MAX_FACE}, got {shown(value)}")
    return int(value)


def _validate(faces: Any, probs: Any) -> tuple[np.ndarray, np.ndarray]:
    """Types and shapes here; the value rules by the one shared check, ``dice_problem``."""
    faces_arr = int_array(faces, "dice faces") if not isinstance(faces, np.ndarray) else faces
    if probs is None:
        raise TypeError("dice probabilities must be a 1-d array of numbers, got None")
    try:
        probs_arr = np.asarray(probs) if not isinstance(probs, np.ndarray) else probs
    except (ValueError, TypeError, OverflowError):
        raise ValueError("dice probabilities must be a 1-d array of numbers (ragged rows?)"
                         ) from None
    if faces_arr.ndim != 1 or probs_arr.ndim != 1 or faces_arr.shape != probs_arr.shape:
        raise ValueError(
            "dice faces and probabilities must be 1-d arrays of equal length, "
            f"got shapes {faces_arr.shape} and {probs_arr.shape}"
        )
    faces_arr = int_array(faces_arr, "dice faces")
    if probs_arr.dtype == object and probs_arr.ndim == 1:
        probs_arr = np.array([probability(p, "dice probabilities") for p in probs_arr.tolist()])
    if probs_arr.size and (probs_arr.dtype == bool or not np.issubdtype(probs_arr.dtype,
                                                                        np.number)
                           or np.issubdtype(probs_arr.dtype, np.complexfloating)):
        raise TypeError(f"dice probabilities must be numbers, got {few(probs_arr)}")
    probs_arr = probs_arr.astype(np.float64)
    problem, i = find_dice_problem(faces_arr, probs_arr)
    if problem:
        raise ValueError(problem_message(problem, i, 0, size=0, start=0, code=0, src=faces_arr[:0],
                                         dst=faces_arr[:0], faces=faces_arr, probs=probs_arr))
    keep = probs_arr > 0
    faces_arr, probs_arr = faces_arr[keep], probs_arr[keep]
    order = np.argsort(faces_arr)
    faces_arr, probs_arr = faces_arr[order], probs_arr[order]
    faces_arr.flags.writeable = False
    probs_arr.flags.writeable = False
    return faces_arr, probs_arr


#: A die read from a string has at most this many faces (its count is read from the string
#: before anything is built); :meth:`Dice.fair` and :meth:`Dice.sum_of` build larger ones.
MAX_STRING_FACES = 1_000_000


def string_faces(text: str) -> int | None:
    """How many faces the die ``text`` describes, read from the string alone (None when it
    is not a dice description :func:`parse_dice` reads).

    Examples
    --------
    >>> string_faces("2d6"), string_faces("1-100000000"), string_faces("1:0.5,2:0.5")
    (11, 100000000, 2)
    """
    s = text.strip().lower()
    try:
        if ":" in s:
            return sum(1 for item in s.split(",") if item.strip())
        if "d" in s:
            n, _, sides = s.partition("d")
            count, width = (int(n) if n else 1), int(sides)
            return count * (width - 1) + 1 if count >= 1 and width >= 1 else None
        if "-" in s:
            lo, _, hi = s.partition("-")
            return int(hi) - int(lo) + 1 if 1 <= int(lo) <= int(hi) else None
        return int(s) if int(s) >= 1 else None
    except ValueError:
        return None


def parse_dice(text: str) -> Dice:
    """Parse a command-line dice description.

    Accepted forms: ``"d6"`` or ``"6"`` (a fair die), ``"1-3"`` (fair faces
    ``1..3``; ``"4-6"`` is fair over ``4..6``), ``"2d6"`` (two dice summed) and
    ``"1:0.5,2:0.5"`` (explicit probabilities).

    Examples
    --------
    >>> parse_dice("2d6").faces.tolist()[-1]
    12
    >>> parse_dice("4-6").to_dict()
    {4: 0.3333333333333333, 5: 0.3333333333333333, 6: 0.3333333333333333}

    A die of at most 1,000 faces (``SHARED_STRING_FACES``) is read once per string and
    shared (a :class:`Dice` is immutable), for loops that name their dice by strings:

    >>> parse_dice("1-3") is parse_dice("1-3")
    True
    """
    if not isinstance(text, str):
        raise TypeError(f"dice description must be a string, got {type(text).__name__}")
    count = string_faces(text)
    if count is not None and count <= SHARED_STRING_FACES:
        return _shared_parse(text, count)
    return _parse(text, count)


#: Dice read from a string with at most this many faces are kept (the last 64 strings).
SHARED_STRING_FACES = 1000


@functools.lru_cache(maxsize=64)
def _shared_parse(text: str, count: int) -> Dice:
    return _parse(text, count)


def _parse(text: str, count: int | None) -> Dice:
    """The die ``text`` describes, ``count`` its faces as :func:`string_faces` reads them."""
    s = text.strip().lower()
    if count is not None and count > MAX_STRING_FACES:
        raise ValueError(f"dice {shown(text)} would have {count:,} faces; a die read from a "
                         f"string has at most {MAX_STRING_FACES:,} (Dice.fair and Dice.sum_of "
                         "build larger ones)")
    try:
        if ":" in s:
            pairs = [item.split(":") for item in s.split(",") if item.strip()]
            faces = [int(f) for f, _ in pairs]
            probs = [float(Fraction(p.strip())) for _, p in pairs]
        elif "d" in s:
            n, _, sides = s.partition("d")
            return Dice.sum_of(int(n) if n else 1, int(sides))
        elif "-" in s:
            lo, _, hi = s.partition("-")
            lo_i, hi_i = int(lo), int(hi)
            if lo_i < 1:
                raise ValueError(f"cannot read dice {shown(text)}: the range starts at {lo_i}; "
                                 "faces are positive, the smallest is 1 (e.g. '1-3')")
            if lo_i > hi_i:
                raise ValueError(f"cannot read dice {shown(text)}: the range goes down; the "
                                 f"smaller face comes first ('{hi_i}-{lo_i}')")
            return _uniform(lo_i, hi_i)
        else:
            return Dice.fair(int(s))
    except (ValueError, TypeError, ZeroDivisionError, OverflowError) as exc:
        if isinstance(exc, ValueError) and ("dice" in str(exc) or "memory" in str(exc)):
            raise
        raise ValueError(
            f"cannot read dice {shown(text)}: expected 'd6', '6', '1-3', '2d6' or '1:0.5,2:0.5'"
        ) from None
    # read: a bad face or probability is Dice's to name (as two lists, not a mapping: a
    # face given twice is refused, not overwritten)
    return Dice(np.array([face_value(f) for f in faces], dtype=np.int64), np.array(probs))


@functools.lru_cache(maxsize=64)
def shared_dice(faces: tuple[int, ...], probs: tuple[float, ...]) -> Dice:
    """The die of these faces and probabilities, built and checked once for a loop that
    reads many boards of a few dice (a :class:`Dice` is immutable: shared).

    Examples
    --------
    >>> shared_dice((1, 2), (0.5, 0.5)) is shared_dice((1, 2), (0.5, 0.5))
    True
    """
    return Dice(np.array(faces, dtype=np.int64), np.array(probs, dtype=np.float64))
