"""Any absorbing Markov chain: :class:`Chain`, the model every question works from.

A chain has states ``0 .. n - 1`` and a transition matrix ``P`` (``P[i, j]``: the chance
that one step from ``i`` goes to ``j``; rows sum to 1). Its *absorbing* states end the
walk (``P[i, i] == 1``); the others are *transient*. With ``Q`` the transient-to-transient
block and ``R`` the transient-to-absorbing block, the fundamental matrix
``N = (I - Q)^-1`` gives

- the expected steps to absorption ``t = N 1`` and their variance
  ``(2 N - I) t - t * t``;
- the chance of ending in each absorbing state ``B = N R``;
- the expected steps conditioned on the end ``j`` reached ``N (B[:, j] * t)`` divided by
  ``B[:, j]`` (see :func:`absorption_probabilities`).

A board is such a chain (:meth:`Board.to_chain <snl_numeric.Board.to_chain>`), and every
analysis works from the chain: the single-board questions (:func:`~snl_numeric.expected_throws`,
:func:`~snl_numeric.throws_variance`, :func:`~snl_numeric.finish_probability`,
:func:`~snl_numeric.min_throws`, ...) accept a :class:`Chain` wherever they accept a
board, and count *steps* where a board counts throws.

A chain compiles (once, cached, thread-safe) to the same
:class:`~snl_numeric.compile.CompiledBoard` a board compiles to: the transient states in
the chain's own order (so a chain whose moves mostly go forward stays block-triangular
for the structured solver), every absorbing state merged into one goal after them, and
the rows as a successor table padded to the widest row (see
:func:`~snl_numeric.compile.compile_chain`).
"""

from __future__ import annotations

import hashlib
import numbers
import threading
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from ._core.memory import check_memory
from ._core.validation import shown

if TYPE_CHECKING:
    from .compile import CompiledBoard

__all__ = ["Chain", "ROW_SUM_TOLERANCE"]

#: Rows of ``P`` must sum to 1 within this times the number of entries in the row (as a
#: die's probabilities must sum to 1 within 1e-12).
ROW_SUM_TOLERANCE = 1e-12

_COMPILE_LOCK = threading.RLock()


def _few(items: Sequence[Any], limit: int = 5) -> str:
    """The first ``limit`` items, then how many more."""
    items = list(items)
    text = ", ".join(str(x) for x in items[:limit])
    return text + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _as_csr(P: Any) -> sp.csr_array:
    """``P`` (a SciPy sparse array or matrix, a dense array, or CSR arrays
    ``(data, indices, indptr)``) as a float64 CSR array of our own (a copy)."""
    if sp.issparse(P):
        if P.ndim != 2:
            raise ValueError(f"P must be a square matrix, got shape {P.shape}")
        mat = sp.csr_array(_real(P), copy=True)  # (complex: no silent cast to real)
    elif isinstance(P, tuple) and len(P) == 3:
        data, indices, indptr = (np.asarray(a) for a in P)
        for name, arr in (("indices", indices), ("indptr", indptr)):
            if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
                raise TypeError(f"CSR {name} must be a 1-d array of integers, got "
                                f"{arr.ndim}-d {arr.dtype}")
        if data.ndim != 1 or len(data) != len(indices):
            raise ValueError(f"CSR data and indices must be 1-d of one length, got shapes "
                             f"{data.shape} and {indices.shape}")
        n = len(indptr) - 1
        if n < 1:
            raise ValueError("CSR indptr must hold at least two entries (one row)")
        if indptr[0] != 0 or indptr[-1] != len(data) or np.any(np.diff(indptr) < 0):
            raise ValueError(f"CSR indptr must rise from 0 to len(data) = {len(data)}, got "
                             f"{shown(indptr)}")
        if len(indices) and (indices.min() < 0 or indices.max() >= n):
            bad = indices[(indices < 0) | (indices >= n)]
            raise ValueError(f"CSR indices must be states in 0..{n - 1}, got {_few(bad.tolist())}")
        data = _real(data)
        mat = sp.csr_array((data.astype(np.float64), indices.astype(np.int64),
                            indptr.astype(np.int64)), shape=(n, n))
        mat = sp.csr_array(mat, copy=True)
    else:
        if isinstance(P, tuple) and len(P) != 3:
            raise TypeError(f"CSR arrays must be a tuple (data, indices, indptr), got a tuple "
                            f"of {len(P)}")
        arr = np.asarray(P)
        if arr.ndim != 2:
            raise ValueError(f"P must be a square matrix, got shape {arr.shape}")
        mat = _dense_to_csr(_real(arr))
    if mat.shape[0] != mat.shape[1]:
        raise ValueError(f"P must be square, got shape {mat.shape}")
    if mat.shape[0] < 1:
        raise ValueError("P must have at least one state, got shape (0, 0)")
    mat = sp.csr_array(mat.astype(np.float64, copy=False))
    mat.sum_duplicates()
    mat.sort_indices()
    return mat


def _dense_to_csr(arr: np.ndarray) -> sp.csr_array:
    """A dense square-or-not 2-d array as a float64 CSR array, in one pass: the non-zero
    entries found once (``np.flatnonzero`` of ``arr != 0``, NaN kept for the checks), in
    row order, so that the CSR arrays are built directly, without a float64 copy of the
    whole array or SciPy's COO detour."""
    rows, cols = arr.shape
    flat = np.flatnonzero(arr != 0)
    indptr = np.zeros(rows + 1, dtype=np.int64)
    if rows:
        np.cumsum(np.bincount(flat // max(cols, 1), minlength=rows), out=indptr[1:])
    data = arr.reshape(-1).take(flat).astype(np.float64)
    return sp.csr_array((data, (flat % max(cols, 1)).astype(np.int64), indptr),
                        shape=(rows, cols))


def _real(arr: Any) -> Any:
    """``arr`` (an array or a SciPy sparse array or matrix) if it holds real numbers:
    booleans are no probabilities (``TypeError``, as a maze refuses them for cells)."""
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"P must hold real numbers, got dtype {arr.dtype}")
    return arr


def _check_entries(mat: sp.csr_array) -> sp.csr_array:
    """Finite, non-negative entries and rows summing to 1 (:data:`ROW_SUM_TOLERANCE`)."""
    rows = np.repeat(np.arange(mat.shape[0]), np.diff(mat.indptr))
    for bad, what in ((~np.isfinite(mat.data), "non-finite"), (mat.data < 0, "negative")):
        if bad.any():
            at = np.flatnonzero(bad)
            shown_at = [f"P[{rows[k]}, {mat.indices[k]}] = {float(mat.data[k])!r}" for k in at]
            raise ValueError(f"P must hold finite, non-negative probabilities; {what} "
                             f"entries in rows {_few(np.unique(rows[at]).tolist())}: "
                             f"{_few(shown_at, 3)}")
    sums = np.bincount(rows, weights=mat.data, minlength=mat.shape[0])
    tol = ROW_SUM_TOLERANCE * np.maximum(np.diff(mat.indptr), 1)
    mat.eliminate_zeros()
    off = np.flatnonzero(~(np.abs(sums - 1.0) <= tol))
    if len(off):
        raise ValueError(
            "rows of P must sum to 1 (within 1e-12 times the row's entries); "
            + _few([f"row {i} sums to {float(sums[i])!r}" for i in off.tolist()], 3))
    return mat


def _check_absorbing(mat: sp.csr_array, absorbing: Any) -> np.ndarray:
    """The absorbing states as a boolean mask."""
    n = mat.shape[0]
    diag = mat.diagonal()
    # P[i, i] == 1 within the row tolerance: the diagonal is the row's only entry (the
    # rows already sum to 1; a board's goal row sums its faces to 1 - 2**-53, say)
    alone = (np.diff(mat.indptr) == 1) & (diag > 0.0)
    if absorbing is None:
        mask = alone
        if not mask.any():
            raise ValueError("the chain has no absorbing state (no row with P[i, i] == 1); "
                             "give absorbing=[...] or make a row absorbing")
        return mask
    if isinstance(absorbing, (str, bytes)) or not isinstance(absorbing, (Sequence, np.ndarray)):
        raise TypeError(f"absorbing must be a sequence of states or a boolean mask, got "
                        f"{shown(absorbing)}")
    arr = np.asarray(absorbing)
    if arr.ndim != 1:
        raise ValueError(f"absorbing must be 1-d, got shape {arr.shape}")
    if arr.dtype.kind == "b":
        if len(arr) != n:
            raise ValueError(f"an absorbing mask must have one entry per state ({n}), got "
                             f"{len(arr)}")
        mask = arr.copy()
    else:
        if arr.size and arr.dtype.kind not in "iu":
            if not all(isinstance(x, numbers.Integral) for x in arr.tolist()):
                raise TypeError(f"absorbing states must be integers, got {shown(absorbing)}")
        arr = arr.astype(np.int64)
        out = arr[(arr < 0) | (arr >= n)]
        if len(out):
            raise ValueError(f"absorbing states must be in 0..{n - 1}, got {_few(out.tolist())}")
        if len(np.unique(arr)) != len(arr):
            raise ValueError(f"absorbing states must be distinct, got {shown(absorbing)}")
        mask = np.zeros(n, dtype=np.bool_)
        mask[arr] = True
    if not mask.any():
        raise ValueError("the chain needs at least one absorbing state, got none")
    leaky = np.flatnonzero(mask & ~alone)
    if len(leaky):
        raise ValueError(
            "an absorbing state's row must be P[i, i] = 1 and nothing else (it never "
            "leaves); " + _few([f"state {i} has P[{i}, {i}] = {float(diag[i])!r}"
                                for i in leaky.tolist()], 3))
    return mask


def _check_labels(labels: Any, n: int) -> tuple[Hashable, ...]:
    if labels is None:
        return tuple(range(n))
    if isinstance(labels, (str, bytes)) or not isinstance(labels, (Sequence, np.ndarray)):
        raise TypeError(f"labels must be a sequence of {n} distinct hashable values, got "
                        f"{shown(labels)}")
    labels = tuple(labels.tolist() if isinstance(labels, np.ndarray) else labels)
    if len(labels) != n:
        raise ValueError(f"labels must name each of the {n} states, got {len(labels)} labels")
    for x in labels:
        if not isinstance(x, Hashable):
            raise TypeError(f"labels must be hashable, got {shown(x)}")
    if len(set(labels)) != n:
        seen: set[Hashable] = set()
        dup = [x for x in labels if x in seen or seen.add(x)]  # type: ignore[func-returns-value]
        raise ValueError(f"labels must be distinct, got repeated {_few(dup)}")
    return labels


def _check_state(state: Any, n: int, what: str = "start") -> int:
    if isinstance(state, (bool, np.bool_)) or not isinstance(state, numbers.Integral):
        raise TypeError(f"{what} must be a state index (an integer), got {shown(state)}")
    state = int(state)
    if not 0 <= state < n:
        raise ValueError(f"{what} must be a state in 0..{n - 1}, got {state}")
    return state


class Chain:
    """An absorbing Markov chain: a transition matrix with its absorbing states.

    Parameters
    ----------
    P : sparse array or matrix, array_like, or tuple (data, indices, indptr)
        The ``n x n`` transition matrix: ``P[i, j]`` the chance that one step from state
        ``i`` goes to ``j``. A SciPy sparse array/matrix, a dense array, or CSR arrays.
        Entries must be finite and non-negative and each row must sum to 1 within
        ``1e-12`` times its number of non-zero entries (``ROW_SUM_TOLERANCE``). The
        answers solved from ``I - Q`` (means, variances, absorption, visits) are those of
        the rows scaled to sum to exactly 1; the step distributions
        (:func:`~snl_numeric.length_distribution`, the median and percentiles) step the
        rows as given, so what a row lacks is lost mass. ``P`` itself is kept as given.
    absorbing : sequence of int or boolean mask, optional
        The states that end the walk. By default the rows with ``P[i, i] == 1`` (within the
        row tolerance: the diagonal is the row's only entry). Each absorbing state's row
        must be such a row; at least one is needed. A state
        with ``P[i, i] == 1`` left out of an explicit ``absorbing`` is a trap that never
        ends: like a board's squares that cannot finish, its answers are ``inf`` (and
        :func:`~snl_numeric.finish_probability` below 1 from states that may fall in).
    labels : sequence of hashable, optional
        A distinct name for each state (default ``0 .. n - 1``), carried into results
        and tables.
    start : int, default 0
        The state the questions start from by default.

    Attributes
    ----------
    P : scipy.sparse.csr_array
        The transition matrix (read-only, float64, sorted indices, no stored zeros).
    absorbing : ndarray of intp
        The absorbing states, increasing (read-only).
    labels : tuple
        The states' names.
    start : int
        The default start.
    n_states : int
        ``n``.

    Notes
    -----
    A chain is immutable and hashable, equal to another of the same matrix, absorbing
    states, labels and start, and safe to share between threads. Compiling it
    (``compiled``) keeps the transient states in their order and merges the
    absorbing ones into one goal after them. States whose steps may never end (from which
    no absorbing state is reached with probability 1) get ``inf`` expected steps, as a
    board's squares that cannot finish do.

    Examples
    --------
    Gambler's ruin on 0..4 with a fair coin, absorbing at 0 and 4:

    >>> import numpy as np
    >>> from snl_numeric import Chain, expected_throws_all
    >>> P = np.zeros((5, 5))
    >>> P[0, 0] = P[4, 4] = 1.0
    >>> for i in range(1, 4):
    ...     P[i, i - 1] = P[i, i + 1] = 0.5
    >>> ruin = Chain(P, start=2)
    >>> ruin.absorbing.tolist()
    [0, 4]
    >>> expected_throws_all(ruin).round(12).tolist()          # i * (4 - i) steps
    [0.0, 3.0, 4.0, 3.0, 0.0]
    >>> Chain(P, labels=list("abcde")) == Chain(P)
    False
    """

    __slots__ = ("P", "absorbing", "labels", "start", "_mask", "_compiled", "_hash", "_uneven")

    P: sp.csr_array
    absorbing: np.ndarray
    labels: tuple[Hashable, ...]
    start: int
    _mask: np.ndarray
    _compiled: CompiledBoard | None
    _hash: int | None
    _uneven: bool | None

    def __init__(self, P: Any, *, absorbing: Any = None, labels: Any = None,
                 start: int = 0) -> None:
        mat = _check_entries(_as_csr(P))
        n = mat.shape[0]
        mask = _check_absorbing(mat, absorbing)
        labels = _check_labels(labels, n)
        start = _check_state(start, n)
        index = np.int32 if mat.nnz < 2**31 and n < 2**31 else np.int64
        mat = sp.csr_array((mat.data, mat.indices.astype(index, copy=False),
                            mat.indptr.astype(index, copy=False)), shape=(n, n))
        for arr in (mat.data, mat.indices, mat.indptr, mask):
            arr.flags.writeable = False
        setattr_ = object.__setattr__
        setattr_(self, "P", mat)
        setattr_(self, "_mask", mask)
        absorbing_ = np.flatnonzero(mask)
        absorbing_.flags.writeable = False
        setattr_(self, "absorbing", absorbing_)
        setattr_(self, "labels", labels)
        setattr_(self, "start", start)
        setattr_(self, "_compiled", None)
        setattr_(self, "_hash", None)
        setattr_(self, "_uneven", None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Chain is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Chain is immutable: cannot delete {name!r}")

    @property
    def n_states(self) -> int:
        """The number of states ``n``."""
        return self.P.shape[0]

    @property
    def is_absorbing(self) -> np.ndarray:
        """Boolean mask of the absorbing states (read-only)."""
        return self._mask

    @property
    def compiled(self) -> CompiledBoard:
        """The chain as a successor table (``snl_numeric.compile.compile_chain``): the
        transient states in order, the absorbing ones merged into one goal after them;
        built once (thread-safe) and cached."""
        compiled = self._compiled
        if compiled is None:
            from .compile import compile_chain

            with _COMPILE_LOCK:
                compiled = self._compiled
                if compiled is None:
                    compiled = compile_chain(self.P, self._mask, self.start)
                    object.__setattr__(self, "_compiled", compiled)
        return compiled

    @property
    def uneven(self) -> bool:
        """Whether the chain's rows are too uneven for a successor table
        (``snl_numeric.compile.uneven``: a hub row far wider than the others): then
        ``compiled`` refuses it and the moments are solved from its CSR rows
        (``snl_numeric.uneven``). Checked once.

        Examples
        --------
        >>> Chain([[1, 0], [0.5, 0.5]]).uneven
        False
        """
        value = self._uneven
        if value is None:
            from .compile import uneven

            value = bool(uneven(self.P.indptr, self._mask))
            object.__setattr__(self, "_uneven", value)
        return value

    def compiled_index(self, state: Any = None) -> int:
        """The index of ``state`` (default: the chain's ``start``) in ``compiled``: its place
        among the transient states, or the merged goal for an absorbing state.

        Examples
        --------
        >>> c = Chain([[1, 0, 0], [0.5, 0, 0.5], [0, 0, 1]], start=1)
        >>> c.compiled_index(), c.compiled_index(0), c.compiled_index(2)
        (0, 1, 1)
        """
        state = self.start if state is None else _check_state(state, self.n_states)
        states = self.compiled.states
        assert states is not None  # (a chain's compiled table maps its states)
        return int(states[state])

    @classmethod
    def from_rule(cls, n_states: int, faces: Sequence[Any], probs: Sequence[float],
                  step: Callable[[np.ndarray, Any], Any], *, absorbing: Any = None,
                  labels: Any = None, start: int = 0) -> Chain:
        """The chain of a game given by a rule: one step throws a face and moves by ``step``.

        Parameters
        ----------
        n_states : int
            States ``0 .. n_states - 1``.
        faces : sequence
            The faces a step draws from (any values ``step`` understands).
        probs : sequence of float
            Their probabilities (non-negative, summing to 1 within 1e-12).
        step : callable
            ``step(states, face) -> next_states``, vectorised: called once per face with
            ``states = np.arange(n_states)``, it returns where each state goes on that face
            (an integer array of ``n_states`` states). An absorbing state goes to itself.
        absorbing, labels, start
            As :class:`Chain` (absorbing by default: the states every face leaves in
            place).

        Returns
        -------
        Chain

        Examples
        --------
        A race to square 10 with a coin (1 or 2 squares), a trap on 6 that sends the token
        back 3 and overshoot allowed:

        >>> import numpy as np
        >>> from snl_numeric import Board, Chain, expected_throws
        >>> def step(x, face):
        ...     y = np.minimum(x + face, 10)
        ...     y = np.where(y == 6, 3, y)
        ...     return np.where(x == 10, 10, y)
        >>> chain = Chain.from_rule(11, [1, 2], [0.5, 0.5], step)
        >>> board = Board(10, {6: 3}, dice={1: 0.5, 2: 0.5})
        >>> bool(abs(expected_throws(chain) - expected_throws(board)) < 1e-12)
        True
        """
        if isinstance(n_states, (bool, np.bool_)) or not isinstance(n_states, numbers.Integral):
            raise TypeError(f"n_states must be an integer, got {shown(n_states)}")
        n = int(n_states)
        if n < 1:
            raise ValueError(f"n_states must be at least 1, got {n}")
        if not callable(step):
            raise TypeError(f"step must be a function step(states, face), got {shown(step)}")
        try:  # (were Python's and NumPy's words: "'float' object is not iterable", ...)
            faces = list(faces)
        except TypeError:
            raise TypeError(f"faces must be a list of faces, got {shown(faces)}") from None
        try:
            p = np.asarray(probs, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"probs must be numbers, got {shown(probs)}") from None
        if p.ndim != 1 or len(p) != len(faces) or not len(faces):
            raise ValueError(f"probs must give one probability per face ({len(faces)}), got "
                             f"{shown(probs)}")
        if not np.all(np.isfinite(p) & (p >= 0)) or not abs(p.sum() - 1.0) <= 1e-12 * len(p):
            raise ValueError(f"probs must be non-negative and sum to 1, got {shown(probs)}")
        # the states, one column per face, rows, data and the sparse build (was NumPy's error)
        check_memory(8.0 * n * (2 + 8 * len(faces)),
                     f"a chain of {n:,} states x {len(faces):,} faces")
        states = np.arange(n)
        cols = []
        for face in faces:
            to = np.asarray(step(states.copy(), face))
            if to.shape != (n,) or (to.size and to.dtype.kind not in "iu"):
                raise ValueError(f"step(states, {face!r}) must return {n} integer states "
                                 f"(one per state), got {to.dtype} of shape {to.shape}")
            bad = np.flatnonzero((to < 0) | (to >= n))
            if len(bad):
                raise ValueError(f"step(states, {face!r}) leads outside 0..{n - 1}: "
                                 + _few([f"{i} -> {to[i]}" for i in bad.tolist()], 3))
            cols.append(to)
        rows = np.tile(states, len(faces))
        data = np.repeat(p, n)
        mat = sp.csr_array((data, (rows, np.concatenate(cols))), shape=(n, n))
        return cls(mat, absorbing=absorbing, labels=labels, start=start)

    # -- dunder -------------------------------------------------------------
    def _digest(self) -> bytes:
        h = hashlib.blake2b(digest_size=16)
        for arr in (self.P.indptr.astype(np.int64), self.P.indices.astype(np.int64),
                    self.P.data, self.absorbing.astype(np.int64)):
            h.update(np.ascontiguousarray(arr).tobytes())
            h.update(b"|")
        return h.digest()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Chain):
            return NotImplemented
        if self is other:
            return True
        return (self.n_states == other.n_states and self.start == other.start
                and self.labels == other.labels
                and np.array_equal(self.absorbing, other.absorbing)
                and np.array_equal(self.P.indptr, other.P.indptr)
                and np.array_equal(self.P.indices, other.P.indices)
                and np.array_equal(self.P.data, other.P.data))

    def __hash__(self) -> int:
        value = self._hash
        if value is None:
            value = hash((self._digest(), self.labels, self.start))
            object.__setattr__(self, "_hash", value)
        return value

    def __repr__(self) -> str:
        return (f"Chain(states={self.n_states}, absorbing={len(self.absorbing)}, "
                f"transitions={self.P.nnz}, start={self.start})")

    def __reduce__(self):
        return (_rebuild, (self.P.data, self.P.indices, self.P.indptr, self.absorbing,
                           self.labels, self.start))


def _rebuild(data, indices, indptr, absorbing, labels, start) -> Chain:
    return Chain((data, indices, indptr), absorbing=absorbing, labels=labels, start=start)
