"""One validator per rule, shared by every public function (private layer).

Python-level checks (types, integer ranges, options) raise our own
``TypeError``/``ValueError`` naming the value. The value rules of a board
(squares, jumps, dice) are checked by one function, :func:`board_problem`,
written in the subset of Python that Numba compiles: :class:`~snl_numeric.Board`
runs it through :func:`find_board_problem`, as plain Python for the boards
people type (no compile on a cold start) and compiled for large ones.
:func:`problem_message` words what it finds, so a bad board gets the same
message either way. Batch analysis runs it compiled on every row and words the
rows it flags as a ``Board`` would. Strict JSON text is :mod:`.jsontext`'s.
"""

from __future__ import annotations

import bisect
import math
import numbers
from typing import Any

import numpy as np
from .numba_config import intrinsic, njit, overload, register_jitable
from .sizes import PYTHON_RULES_MAX
from .words import choice, choice_message, shown

#: Default tail mass left out of game-length distributions.
DEFAULT_TAIL = 1e-12
#: Default cap on the number of throws followed (a distribution, or one simulated game).
DEFAULT_MAX_THROWS = 10_000_000
#: Dice probabilities must sum to 1 within this.
SUM_TOL = 1e-12
#: Largest face accepted (kernels add faces to squares in 64-bit integers).
MAX_FACE = 2**31 - 1
#: Integers must fit in a signed 64-bit integer.
INT64_MAX = 2**63 - 1
#: The overshoot rules, in the order of their kernel codes.
OVERSHOOT_RULES = ("win", "exact", "bounce")

_RNG_TYPES = "None, an integer seed, a SeedSequence or a Generator"

# -- scalars --------------------------------------------------------------------------
def integer(value: Any, name: str) -> int:
    """``value`` as a Python int: ``TypeError`` unless an integer (bools refused),
    ``ValueError`` outside the signed 64-bit range.

    Examples
    --------
    >>> integer(3, "size")
    3
    >>> integer(2**70, "size")
    Traceback (most recent call last):
    ...
    ValueError: size must fit in a 64-bit integer, got 1180591620717411303424
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {shown(value)}")
    value = int(value)
    if not -INT64_MAX - 1 <= value <= INT64_MAX:
        raise ValueError(f"{name} must fit in a 64-bit integer, got {shown(value)}")
    return value


def positive_int(value: Any, name: str, low: int = 1) -> int:
    """An integer at least ``low``."""
    value = integer(value, name)
    if value < low:
        raise ValueError(f"{name} must be at least {low}, got {value}")
    return value


def flag(value: Any, name: str) -> bool:
    """``True`` or ``False`` (NumPy bools accepted), else ``TypeError``."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {shown(value)}")
    return bool(value)


def optional_flag(value: Any, name: str) -> bool | None:
    """None, or :func:`flag`'s ``True``/``False``."""
    if value is not None and not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be None, True or False, got {shown(value)}")
    return None if value is None else bool(value)


def probability(value: Any, name: str) -> float:
    """A real number as a float (its range is checked by the caller)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {shown(value)}")
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{name} is too large for a float, got {shown(value)}") from None


def check_tail(tail: Any, max_throws: Any = DEFAULT_MAX_THROWS) -> float:
    """Validate the ``tail`` and ``max_throws`` options of distribution calls."""
    tail = probability(tail, "tail")
    if not 0.0 < tail < 1.0:
        raise ValueError(f"tail must be a probability in (0, 1), got {shown(tail)}")
    positive_int(max_throws, "max_throws")
    return tail


def seed_sequence(rng: Any) -> np.random.SeedSequence:
    """Seed material as a :class:`numpy.random.SeedSequence`.

    An integer ``s`` means ``SeedSequence(s)``; a ``Generator`` (or bit
    generator) contributes 128 bits of fresh entropy; ``None`` draws entropy
    from the OS.
    """
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if isinstance(rng, (np.random.Generator, np.random.BitGenerator)):
        gen = np.random.default_rng(rng)
        return np.random.SeedSequence(int.from_bytes(gen.bytes(16), "little"))
    if isinstance(rng, bool):
        raise TypeError(f"rng must be {_RNG_TYPES}, got {shown(rng)}")
    if rng is None:
        return np.random.SeedSequence()
    if isinstance(rng, numbers.Integral):
        if rng < 0:
            raise ValueError(f"rng must be a non-negative integer seed, got {rng}")
        return np.random.SeedSequence(int(rng))
    raise TypeError(f"rng must be {_RNG_TYPES}, got {type(rng).__name__}")


def generator(rng: Any) -> np.random.Generator:
    """``numpy.random.default_rng(rng)``, what it cannot take refused in our words (and
    bools, which it would take as the seeds 0 and 1).

    Examples
    --------
    >>> generator(7).random() == np.random.default_rng(7).random()
    True
    >>> generator("x")
    Traceback (most recent call last):
    ...
    TypeError: rng must be None, an integer seed, a SeedSequence or a Generator, got 'x'
    """
    if isinstance(rng, (bool, np.bool_)):
        raise TypeError(f"rng must be {_RNG_TYPES}, got {shown(rng)}")
    if isinstance(rng, numbers.Integral) and rng < 0:
        raise ValueError(f"rng must be a non-negative integer seed, got {rng}")
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError) as err:
        raise TypeError(f"rng must be {_RNG_TYPES}, got {shown(rng)}") from err


def few(values: Any, k: int = 10) -> str:
    """A list for a message: at most ``k`` entries, then how many more."""
    items = list(values[:k]) if hasattr(values, "__getitem__") else list(values)[:k]
    items = [v.item() if isinstance(v, np.generic) else v for v in items]
    n = len(values)
    return str(items) if n <= k else str(items)[:-1] + f", ... ({n} in all)]"


# -- arrays ---------------------------------------------------------------------------
def int_array(values: Any, name: str) -> np.ndarray:
    """An int64 array: ``ValueError`` for ragged rows or integers beyond int64,
    ``TypeError`` for non-integers (whole floats are accepted) and for what is no array
    (None, a set, ...)."""
    try:
        arr = np.asarray(values)
    except (ValueError, OverflowError):
        raise ValueError(f"{name} must be a rectangular array of integers (ragged rows?)"
                         ) from None
    if arr.dtype == object:
        flat = arr.ravel().tolist()
        odd = [v for v in flat if isinstance(v, bool) or not isinstance(v, numbers.Integral)]
        if not odd:  # integers, some beyond int64
            for v in flat:
                integer(v, name)
        if arr.ndim == 0 or not all(isinstance(v, (list, tuple, np.ndarray)) for v in odd):
            raise TypeError(f"{name} must be an array of integers, got {shown(values)}")
        raise ValueError(f"{name} must be a rectangular array of integers (ragged rows?)")
    if arr.size == 0:
        return arr.astype(np.int64)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number) or \
            np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    out, bad = int64_values(arr)
    if bad.any():
        v = arr[bad].flat[0]
        if np.issubdtype(arr.dtype, np.integer) or (np.isfinite(v) and v == np.round(v)):
            raise ValueError(f"{name} must fit in a 64-bit integer, got {shown(v.item())}")
        raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    return out


def int_pairs(values: Any, name: str) -> np.ndarray:
    """An ``(L, 2)`` int64 array, such as a path of ``(row, col)`` cells: as
    :func:`int_array`, and ``ValueError`` for any other shape (an empty list is no pairs).

    Examples
    --------
    >>> int_pairs([(0, 0), (0, 1)], "path").tolist()
    [[0, 0], [0, 1]]
    >>> int_pairs([0, 1, 2], "path")
    Traceback (most recent call last):
    ...
    ValueError: path must be pairs of integers, shape (L, 2), got shape (3,)
    """
    arr = int_array(values, name)
    if arr.size == 0:
        return arr.reshape(0, 2)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must be pairs of integers, shape (L, 2), got shape {arr.shape}")
    return arr


def int64_values(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A numeric array as int64, and the mask of entries that are not integers of the
    signed 64-bit range (unsigned above it; NaN, infinite, fractional or huge floats);
    those come out as 0. Vectorised: one bad entry flags one row, never a whole file.

    Examples
    --------
    >>> vals, bad = int64_values(np.array([3.0, 2.5, 1e30]))
    >>> vals.tolist(), bad.tolist()
    ([3, 0, 0], [False, True, True])
    """
    if np.issubdtype(arr.dtype, np.signedinteger) or arr.dtype == bool:
        return arr.astype(np.int64), np.zeros(arr.shape, bool)
    if np.issubdtype(arr.dtype, np.unsignedinteger):
        bad = arr > INT64_MAX
    else:
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(arr) | (arr != np.round(arr)) | (np.abs(arr) >= 2.0**63)
    return np.where(bad, 0, arr).astype(np.int64), bad


def readonly(arr: np.ndarray) -> np.ndarray:
    """A read-only view of ``arr``: kernels get read-only inputs everywhere (as Board and
    Dice hold them), so each compiles once. Inside a kernel, ``arr`` itself typed
    read-only (:func:`_typed_readonly`): what a kernel builds reaches the kernels it shares
    with the single-board path typed as a Board's arrays (one compile for both).

    Examples
    --------
    >>> readonly(np.arange(3)).flags.writeable
    False
    """
    view = arr.view()
    view.flags.writeable = False
    return view


@intrinsic
def _typed_readonly(typingctx, arr):  # pragma: no cover - runs when a kernel compiles
    """``arr`` itself (one more reference to it), typed as a read-only array."""

    def codegen(context, builder, signature, args):
        context.nrt.incref(builder, signature.return_type, args[0])
        return args[0]

    return arr.copy(readonly=True)(arr), codegen


@overload(readonly)
def _readonly_overload(arr):  # pragma: no cover - runs when a kernel compiles
    return lambda arr: _typed_readonly(arr)


# -- the rules of a board ---------------------------------------------------------------
#: Problem codes of :func:`board_problem` (0: none).
SIZE, START, OVERSHOOT = 1, 2, 3
NO_FACE, FACE_RANGE, FACE_DUPLICATE, PROB_NAN, PROB_RANGE, PROB_SUM, BOUNCE_FACE = range(10, 17)
JUMP_GOAL, JUMP_SOURCE, JUMP_DEST, JUMP_NOWHERE, JUMP_DUPLICATE, JUMP_CYCLE = range(20, 26)


def stable_order(values):
    """Indices that sort ``values``, equal values in input order.

    Python's ``sorted`` when called from Python (on lists, as :func:`find_board_problem`
    passes them); inside compiled kernels (:func:`_merge_order`) an insertion sort up to
    32 values, a bottom-up merge sort above.
    """
    return sorted(range(len(values)), key=values.__getitem__)


def _merge_order(values):  # pragma: no cover - compiled as stable_order
    n = len(values)
    order = np.empty(n, dtype=np.int64)
    in_order = True
    for i in range(n):
        order[i] = i
        if i and values[i] < values[i - 1]:
            in_order = False
    if in_order:  # nothing to merge
        return order
    if n <= 32:  # few values (a board's jumps, in a batch): insertion, no second array
        for i in range(1, n):
            v = order[i]
            j = i
            while j > 0 and values[order[j - 1]] > values[v]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = v
        return order
    tmp = np.empty(n, dtype=np.int64)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if values[order[j]] < values[order[i]]:
                    tmp[k] = order[j]
                    j += 1
                else:
                    tmp[k] = order[i]
                    i += 1
                k += 1
            while i < mid:
                tmp[k] = order[i]
                i += 1
                k += 1
            while j < hi:
                tmp[k] = order[j]
                j += 1
                k += 1
        order, tmp = tmp, order
        width *= 2
    return order


def lower_bound(ordered, x):
    """The first index ``i`` with ``ordered[i] >= x`` (``np.searchsorted``, left):
    :func:`bisect.bisect_left` from Python, :func:`_bisect` compiled."""
    return bisect.bisect_left(ordered, x)


def _bisect(ordered, x):  # pragma: no cover - compiled as lower_bound
    lo, hi = 0, len(ordered)
    while lo < hi:
        mid = (lo + hi) // 2
        if ordered[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@overload(stable_order)
def _stable_order_overload(values):  # pragma: no cover - runs when a kernel compiles
    return _merge_order


@overload(lower_bound)
def _lower_bound_overload(ordered, x):  # pragma: no cover - runs when a kernel compiles
    return _bisect


@register_jitable
def compensated_sum(values):
    """Neumaier's compensated sum: the test of a dice sum then depends on neither the
    number nor the order of the faces.

    Examples
    --------
    >>> compensated_sum([1e16, 1.0, -1e16]), sum([1e16, 1.0, -1e16])
    (1.0, 0.0)
    """
    total = 0.0
    comp = 0.0
    for i in range(len(values)):
        p = values[i]
        t = total + p
        if abs(total) >= abs(p):
            comp += (total - t) + p
        else:
            comp += (p - t) + total
        total = t
    return total + comp


@register_jitable
def increasing(values):
    """Whether ``values`` rise strictly (then no two are equal, and no sort is needed to
    tell: the faces of a Dice and the jumps of a Board are stored so)."""
    for i in range(1, len(values)):
        if not values[i - 1] < values[i]:
            return False
    return True


@register_jitable
def dice_problem(faces, probs, tol):
    """``(code, index)`` of the first broken dice rule, ``(0, 0)`` if none.

    Faces in ``1 .. MAX_FACE`` and distinct (in any order); probabilities not
    NaN, finite, non-negative, summing to 1 within ``tol`` (a compensated sum,
    so the test does not depend on the number or order of the faces).
    """
    n = len(faces)
    if n == 0:
        return NO_FACE, 0
    for f in range(n):
        if faces[f] < 1 or faces[f] > MAX_FACE:
            return FACE_RANGE, f
    if not increasing(faces):
        order = stable_order(faces)
        for t in range(1, n):
            if faces[order[t]] == faces[order[t - 1]]:
                return FACE_DUPLICATE, order[t]
    for f in range(n):
        if probs[f] != probs[f]:
            return PROB_NAN, f
    for f in range(n):
        if probs[f] < 0.0 or probs[f] == np.inf:
            return PROB_RANGE, f
    if abs(compensated_sum(probs) - 1.0) > tol:
        return PROB_SUM, 0
    return 0, 0


@register_jitable
def board_problem(size, start, code, chain, src, dst, faces, probs, tol):
    """``(problem, i, j)``: the first rule of a board that ``(size, start, code, chain,
    src -> dst, faces, probs)`` breaks, with the jump (or face) indices concerned.

    Memory is O(jumps + faces), whatever ``size``: the cycle test under
    ``chain=True`` follows jumps through a sorted index, not a square table.
    """
    if size < 1:
        return SIZE, 0, 0
    if start < 0 or start > size:
        return START, 0, 0
    if code < 0 or code > 2:
        return OVERSHOOT, 0, 0
    problem, f = dice_problem(faces, probs, tol)
    if problem:
        return problem, f, 0
    if code == 2:
        top = 0
        for f in range(len(faces)):
            if probs[f] > 0.0 and faces[f] > faces[top]:
                top = f
        if faces[top] - 1 > size:  # from size - 1 it would bounce below square 0
            # (written so that size + 1 cannot overflow for size = 2**63 - 1)
            return BOUNCE_FACE, top, 0
    k = len(src)
    for i in range(k):
        if src[i] == size:
            return JUMP_GOAL, i, 0
    for i in range(k):
        if src[i] < 0 or src[i] >= size:
            return JUMP_SOURCE, i, 0
    for i in range(k):
        if dst[i] < 0 or dst[i] > size:
            return JUMP_DEST, i, 0
    for i in range(k):
        if src[i] == dst[i]:
            return JUMP_NOWHERE, i, 0
    if not increasing(src):
        order = stable_order(src)
        for t in range(1, k):
            if src[order[t]] == src[order[t - 1]]:
                return JUMP_DUPLICATE, order[t - 1], order[t]
    if chain and k:
        order = stable_order(src)
        ordered = np.empty(k, dtype=np.int64)
        for t in range(k):
            ordered[t] = src[order[t]]
        nxt = np.empty(k, dtype=np.int64)
        state = np.empty(k, dtype=np.int64)  # 1: on the current walk, 2: done
        for i in range(k):
            nxt[i] = -1
            state[i] = 0
            pos = lower_bound(ordered, dst[i])
            if pos < k and ordered[pos] == dst[i]:
                nxt[i] = order[pos]
        walk = np.empty(k, dtype=np.int64)
        for t in range(k):
            j = order[t]
            n = 0
            while j >= 0 and state[j] == 0:
                state[j] = 1
                walk[n] = j
                n += 1
                j = nxt[j]
            if j >= 0 and state[j] == 1:
                return JUMP_CYCLE, j, 0
            for w in range(n):
                state[walk[w]] = 2
    return 0, 0, 0


@njit()
def _board_problem_kernel(size, start, code, chain, src, dst, faces, probs,
                          tol):  # pragma: no cover - jitted
    """:func:`board_problem` compiled, for calls from Python: through its registered twin,
    as the batch kernel calls it, so that the rules' helpers (:func:`stable_order` inside
    :func:`dice_problem` and :func:`board_problem`) are compiled under one set of options,
    once a process (compiled as a kernel itself, the sort compiled again for it)."""
    return board_problem(size, start, code, chain, src, dst, faces, probs, tol)


_NO_JUMP = readonly(np.empty(0, dtype=np.int64))


def find_dice_problem(faces: np.ndarray, probs: np.ndarray, tol: float = SUM_TOL
                      ) -> tuple[int, int]:
    """:func:`dice_problem` of 1-d int64 ``faces`` and float64 ``probs``: plain Python for
    a few faces (nothing to compile on a cold start), compiled for many."""
    if len(faces) <= PYTHON_RULES_MAX:
        return dice_problem(faces.tolist(), probs.tolist(), tol)
    # the dice of a board of one square without jumps: the board kernel checks the dice
    # first, with the one body of the rules
    problem, f, _ = _board_problem_kernel(1, 0, 0, False, _NO_JUMP, _NO_JUMP, readonly(faces),
                                          readonly(probs), tol)
    return problem, f


def find_board_problem(size: int, start: int, code: int, chain: bool, src: np.ndarray,
                       dst: np.ndarray, faces: np.ndarray, probs: np.ndarray,
                       tol: float = SUM_TOL) -> tuple[int, int, int]:
    """:func:`board_problem`, run as :func:`find_dice_problem` runs its rules.

    Examples
    --------
    >>> import numpy as np
    >>> i64 = lambda *v: np.array(v, dtype=np.int64)
    >>> find_board_problem(10, 0, 0, False, i64(3), i64(7), i64(1, 2), np.array([0.5, 0.5]))
    (0, 0, 0)
    >>> find_board_problem(10, 0, 0, True, i64(3, 7), i64(7, 3), i64(1), np.array([1.0]))[0]
    25
    """
    if len(src) + len(faces) <= PYTHON_RULES_MAX:
        return board_problem(size, start, code, chain, src.tolist(), dst.tolist(),
                             faces.tolist(), probs.tolist(), tol)
    return _board_problem_kernel(size, start, code, chain, readonly(src), readonly(dst),
                                 readonly(faces), readonly(probs), tol)


def problem_message(problem: int, i: int, j: int, *, size: int, start: int, code: int,
                    src: np.ndarray, dst: np.ndarray, faces: np.ndarray,
                    probs: np.ndarray) -> str:
    """The words for a problem found by :func:`board_problem` or :func:`dice_problem`."""
    if problem == SIZE:
        return f"size must be at least 1, got {size}"
    if problem == START:
        return f"start must be a square in 0..{size}, got {start}"
    if problem == OVERSHOOT:
        return choice_message("overshoot", OVERSHOOT_RULES, f"code {code}")
    if problem == NO_FACE:
        return "dice must have at least one face"
    if problem == FACE_RANGE:
        return f"dice faces must be integers in 1..{MAX_FACE}, got {few(faces)}"
    if problem == FACE_DUPLICATE:
        return f"dice faces must be distinct, got {few(faces)} (face {int(faces[i])} twice)"
    if problem in (PROB_NAN, PROB_RANGE):
        p = float(probs[i])
        why = "non-negative" if p < 0 else "finite"
        return f"probability of face {int(faces[i])} must be {why}, got {p}"
    if problem == PROB_SUM:
        return f"dice probabilities must sum to 1 (within {SUM_TOL:g}), got {math.fsum(probs)!r}"
    if problem == BOUNCE_FACE:
        return (f"face {int(faces[i])} is too large for a bounce on a board of size {size}: "
                f"it could carry the token below square 0 (faces must be <= {size + 1})")
    s, d = int(src[i]), int(dst[i])
    if problem == JUMP_GOAL:
        return f"jump {s}->{d} leaves the goal {size}; no jump may leave it"
    if problem == JUMP_SOURCE:
        return f"jump {s}->{d} starts outside the board 0..{size}"
    if problem == JUMP_DEST:
        return f"jump {s}->{d} ends outside the board 0..{size}"
    if problem == JUMP_NOWHERE:
        return f"jump {s}->{d} goes nowhere"
    if problem == JUMP_DUPLICATE:
        return f"two jumps start on square {s} ({s}->{d} and {s}->{int(dst[j])})"
    if problem == JUMP_CYCLE:
        table = dict(zip(src.tolist(), dst.tolist(), strict=True))
        cycle = [s]
        node = table[s]
        while node != s:
            cycle.append(node)
            node = table[node]
        return "jump cycle under chain=True: " + "->".join(map(str, cycle + [s]))
    raise AssertionError(f"unknown board problem {problem}")  # pragma: no cover
