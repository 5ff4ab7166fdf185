"""Analysing batches chunk by chunk: here or on a Dask cluster."""

from __future__ import annotations

import difflib
import itertools
import math
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

import numpy as np

from .._core import version
from .._core.deprecation import warn_renamed
from .._core.memory import available_memory, check_memory, format_bytes
from .._core.parallel import default_threads, run_tasks
from .._core.progress import Progress, check_progress
from .._core.sizes import check_table_entries
from .._core.solve import solver_bytes
from .._core.table import quantile_levels
from .._core.validation import (
    DEFAULT_MAX_THROWS,
    DEFAULT_TAIL,
    INT64_MAX,
    SUM_TOL,
    check_tail,
    choice,
    few,
    find_board_problem,
    flag,
    problem_message,
)
from .._core.warn import warn_user
from ..board import Board
from ..chain import finish_probability, moments
from ..compile import table_bytes
from ..io import require_pandas
from .data import DEFAULT_CHUNK_SIZE, MAX_SIZE, BoardBatch, segment_ids
from .files import Chunk, open_source, raise_for_row
from .kernels import (
    NEEDS_SOLVER,
    TAIL_NOT_REACHED,
    TOO_LARGE,
    board_rows,
    check_rows_kernel,
    moments_rows_kernel,
    quantile_rows_kernel,
    reach_rows_kernel,
    row_bytes,
)

if TYPE_CHECKING:
    import pandas as pd

#: What ``boards`` may be: a batch, a JSON Lines / JSON / Parquet file, or boards
#: (``Board`` objects or their ``to_dict()`` mappings) in a list or any iterable.
BoardsInput: TypeAlias = "BoardBatch | str | os.PathLike[str] | Iterable[Board | Mapping[str, Any]]"


class DaskClient(Protocol):
    """What the batch functions use of a ``dask.distributed.Client``."""

    def submit(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run ``func(*args)`` as a task; a future."""

    def nthreads(self) -> Any:
        """Worker address -> its number of threads."""


#: Tasks per Dask worker thread when ``chunk_size`` is not given (room to balance them).
TASKS_PER_THREAD = 4
#: The smallest chunk chosen for Dask: smaller tasks cost more to schedule than to run.
MIN_DASK_CHUNK = 100

#: Columns computed when ``columns`` is not given.
DEFAULT_COLUMNS = ("min_throws", "mean", "variance", "std")
#: Blocks of rows per worker thread in one chunk (see :func:`blocks`).
BLOCKS_PER_THREAD = 8
#: The column names (the attribute names of :class:`~snl_numeric.Analysis`), with ``"p90"``
#: standing for every ``"p<q>"``, 0 < q < 100 (e.g. ``"p10"``, ``"p99.9"``): a percentile.
COLUMNS = ("min_throws", "mean", "variance", "std", "finish_probability", "median", "mode",
           "p90", "size", "start", "n_snakes", "n_ladders", "n_faces")
#: Old column names still accepted for one release (with a ``DeprecationWarning``); the
#: column keeps the name asked for.
DEPRECATED_COLUMNS = {"expected_throws": "mean"}

def _percentile_value(name: str) -> float | None:
    if name == "median":
        return 50.0
    if name.startswith("p") and len(name) > 1:
        try:
            q = float(name[1:])
        except ValueError:
            return None
        return q if math.isfinite(q) else None
    return None


def _check_columns(columns: Any) -> tuple[str, ...]:
    if isinstance(columns, str):
        columns = (columns,)
    try:
        cols = tuple(columns)
    except TypeError:
        raise TypeError(f"columns must be a sequence of names, got {columns!r}") from None
    if not cols:
        raise ValueError("columns must name at least one column")
    for c in cols:
        if not isinstance(c, str):
            raise TypeError(f"column names must be strings, got {c!r}")
        if c in COLUMNS:
            continue
        if c in DEPRECATED_COLUMNS:
            warn_renamed(f"column {c!r}", f"{DEPRECATED_COLUMNS[c]!r} (as on Analysis)")
            continue
        q = _percentile_value(c)
        if q is None:
            close = difflib.get_close_matches(c, COLUMNS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ValueError(f"unknown column {c!r}{hint} (expected one of {COLUMNS} or "
                             "'p<q>' such as 'p90')")
        if not 0 < q < 100:
            raise ValueError(f"percentile column {c!r} must name q in (0, 100) "
                             "(the distribution's tail is cut at the tolerance)")
    if len({DEPRECATED_COLUMNS.get(c, c) for c in cols}) != len(cols):
        raise ValueError(f"columns must be distinct, got {list(cols)}")
    return cols


def quantity(column: str) -> str:
    """The current name of a column (an old spelling mapped to the new one)."""
    return DEPRECATED_COLUMNS.get(column, column)


@dataclass(frozen=True)
class Settings:
    columns: tuple[str, ...]
    errors: str
    tail: float
    max_throws: int

    def to_json(self) -> dict[str, Any]:
        return {"columns": list(self.columns), "errors": self.errors, "tail": self.tail,
                "max_throws": self.max_throws}


def _problem_message(batch: BoardBatch, b: int, problem: int) -> str:
    """The words of the Board's own error for a row the kernel flagged."""
    if problem == TOO_LARGE:
        size, n_faces = int(batch.sizes[b]), int(batch.dice_ptr[b + 1] - batch.dice_ptr[b])
        if size > MAX_SIZE:
            return f"size {size} is too large for batch analysis (at most {MAX_SIZE})"
        try:
            check_table_entries(size, n_faces)  # (what a Board of the row would say)
        except ValueError as exc:
            return str(exc)
        need = format_bytes(row_bytes(size, n_faces))
        return (f"size {size} needs about {need} of memory for batch analysis, more than "
                f"{format_bytes(_row_budget())} per thread here")
    j0, j1 = batch.jump_ptr[b], batch.jump_ptr[b + 1]
    d0, d1 = batch.dice_ptr[b], batch.dice_ptr[b + 1]
    size, start, code = int(batch.sizes[b]), int(batch.starts[b]), int(batch.overshoot[b])
    src, dst = batch.jump_src[j0:j1], batch.jump_dst[j0:j1]
    faces, probs = batch.faces[d0:d1], batch.probs[d0:d1]
    # the kernel only knows that a rule is broken: which one, as a Board finds it
    problem, i, j = find_board_problem(size, start, code, bool(batch.chain[b]), src, dst,
                                       faces, probs)
    return problem_message(problem, i, j, size=size, start=start, code=code, src=src,
                           dst=dst, faces=faces, probs=probs)


@dataclass
class _Out:
    problem: np.ndarray
    min_throws: np.ndarray
    sure: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    q: np.ndarray
    mode: np.ndarray
    status: np.ndarray
    targets: np.ndarray


def _row_budget() -> int:
    """Bytes one board may use in the kernels: what is available, per thread."""
    avail = available_memory()
    return INT64_MAX if avail is None else avail // default_threads()


def blocks(sizes: np.ndarray, threads: int) -> list[tuple[int, int]]:
    """Blocks of consecutive rows ``(lo, hi)`` for ``threads`` workers, largest work first.

    About :data:`BLOCKS_PER_THREAD` blocks per thread, taken in this order by each thread
    as it comes free, so a thread that the machine slows down takes fewer of them; the
    largest (by squares) go first, so that the last to finish is a small one. One thread
    takes every row at once (one call of each kernel).

    Examples
    --------
    >>> blocks(np.array([10, 10, 10, 1000, 10]), 2)
    [(3, 4), (0, 1), (1, 2), (2, 3), (4, 5)]
    >>> blocks(np.array([10, 10, 10, 1000, 10]), 1)
    [(0, 5)]
    """
    n = len(sizes)
    count = min(n, BLOCKS_PER_THREAD * threads) if threads > 1 else 1
    if count <= 1:
        return [(0, n)] if n else []
    edges = np.linspace(0, n, count + 1).astype(np.int64)
    work = np.add.reduceat(np.maximum(sizes, 1).astype(np.float64), edges[:-1])
    order = np.argsort(-work, kind="stable")
    return [(int(edges[i]), int(edges[i + 1])) for i in order]


def _run_kernel(batch: BoardBatch, settings: Settings) -> _Out:
    """The job kernels the columns need, block by block of rows: each of ``threads``
    workers takes the next block as it comes free, checks it, then analyses it."""
    cols = [quantity(c) for c in settings.columns]
    levels = quantile_levels([q / 100.0 for q in map(_percentile_value, cols) if q is not None])
    want_mode = "mode" in cols
    want_quantiles = bool(len(levels)) or want_mode
    want_var = any(c in cols for c in ("variance", "std"))
    want_moments = want_var or "mean" in cols
    want_reach = any(c in cols for c in ("min_throws", "finish_probability"))
    n = len(batch)
    out = _Out(np.zeros(n, np.int8), np.full(n, -1, np.int64),
               np.zeros(n, np.bool_), np.full(n, np.nan),
               np.full(n, np.nan), np.full((n, len(levels)), -1, np.int64),
               np.full(n, -1, np.int64), np.zeros(n, np.int8), np.zeros(n, np.int64))
    if not n:
        return out
    rows = board_rows(batch)
    max_bytes = _row_budget()
    threads = default_threads()
    parts = blocks(batch.sizes, threads)
    taken = itertools.count()  # the next block to take (next() is atomic under the GIL)

    def worker(_: int) -> None:
        while (i := next(taken)) < len(parts):
            block(*parts[i])

    def block(lo: int, hi: int) -> None:
        part, problem, status = rows.part(lo, hi), out.problem[lo:hi], out.status[lo:hi]
        check_rows_kernel(part, SUM_TOL, max_bytes, problem)
        most = int((part.sizes[problem == 0] + 1).max(initial=0))  # squares of the largest
        if want_moments:
            moments_rows_kernel(part, problem, most, want_var, max_bytes, out.min_throws[lo:hi],
                                out.sure[lo:hi], out.mean[lo:hi], out.var[lo:hi],
                                out.targets[lo:hi], status)
        elif want_reach:
            reach_rows_kernel(part, problem, most, out.min_throws[lo:hi], out.sure[lo:hi])
        if want_quantiles:
            quantile_rows_kernel(part, problem, most, levels, want_mode, float(settings.tail),
                                 int(settings.max_throws), out.q[lo:hi], out.mode[lo:hi],
                                 status)

    run_tasks(worker, min(threads, len(parts)))
    return out


def compile_kernels(settings: Settings) -> None:
    """Compile (or load) the batch kernels on a one-board batch: compilation happens before
    a progress bar starts, never inside its rate."""
    one = BoardBatch.from_arrays(np.array([1], np.int64))
    _run_kernel(one, settings)


def analyze_chunk(chunk: Chunk, settings: Settings) -> pd.DataFrame:
    """Result rows of one chunk: a DataFrame with a ``row`` column."""
    pd = require_pandas()
    batch, cols = chunk.batch, settings.columns
    n = len(batch)
    out = _run_kernel(batch, settings)
    error = np.zeros(n, bool)
    messages: dict[int, str] = {}
    for i, msg in chunk.parse_errors.items():
        error[i] = True
        messages[i] = msg
    for i in np.flatnonzero((out.problem != 0) & ~error).tolist():
        error[i] = True
        messages[i] = _problem_message(batch, i, int(out.problem[i]))
    for i in np.flatnonzero((out.status & NEEDS_SOLVER).astype(bool) & ~error).tolist():
        # too many backward targets for the per-board kernel: the single-board solver
        try:
            board = batch[i]
            faces = len(board.dice.faces)
            check_memory(max(table_bytes(board.size, faces),
                             table_bytes(board.size, faces, kept=True)
                             + solver_bytes(board.size + 1, faces, int(out.targets[i]))),
                         f"board {chunk.offset + i} ({board.size + 1:,} squares)")
            mean, var = moments(board.compiled)
        except MemoryError as exc:
            error[i] = True
            messages[i] = str(exc)
            continue
        out.mean[i], out.var[i] = mean[board.start], var[board.start]
    # as analyze: the quantiles (and mode) that max_throws throws do not decide are missing
    undecided = ((out.status & TAIL_NOT_REACHED).astype(bool) & ~error
                 & ((out.q < 0).any(axis=1) | ((out.mode < 0) & ("mode" in cols))))
    if undecided.any():
        rows = (np.flatnonzero(undecided) + chunk.offset).tolist()
        warn_user(f"rows {few(rows)}: some distribution columns are missing: the throws "
                  f"they need are beyond max_throws={settings.max_throws} (the tail did not "
                  f"fall below {settings.tail:g}); raise max_throws or tail")
    if chunk.lines is not None:  # rows of a JSON Lines file: name the line too
        messages = {i: msg + chunk.line_note(i) for i, msg in messages.items()}
    if error.any() and settings.errors == "raise":
        i = int(np.flatnonzero(error)[0])
        raise_for_row(chunk.offset + i, messages[i])
    ok = ~error
    q_cols = [c for c in cols if _percentile_value(c) is not None]
    q_values = {c: out.q[:, j] for j, c in enumerate(q_cols)}
    min_out, mean_out, var_out, mode = out.min_throws, out.mean, out.var, out.mode

    def int_col(values: np.ndarray, missing: np.ndarray | None = None) -> Any:
        mask = ~ok if missing is None else (~ok | missing)
        return pd.arrays.IntegerArray(values.astype(np.int64), mask)

    def float_col(values: np.ndarray) -> np.ndarray:
        return np.where(ok, values, np.nan)

    data: dict[str, Any] = {"row": np.arange(chunk.offset, chunk.offset + n, dtype=np.int64)}
    for label, values in chunk.labels.items():  # the input's own id / name, as they were
        data[label] = pd.Series(values, dtype=object)  # (object: one dtype in every chunk)
    jl = np.diff(batch.jump_ptr)
    owner = segment_ids(batch.jump_ptr)
    for c in cols:
        what = quantity(c)
        if what == "min_throws":
            data[c] = int_col(min_out, min_out < 0)  # unreachable: missing, as pandas has it
        elif what == "mean":
            data[c] = float_col(mean_out)
        elif what == "finish_probability":
            data[c] = float_col(_finish_probability(batch, out))
        elif c == "variance":
            data[c] = float_col(var_out)
        elif c == "std":
            with np.errstate(invalid="ignore"):
                data[c] = float_col(np.sqrt(var_out))
        elif c == "mode":
            data[c] = int_col(mode, mode < 0)
        elif c in q_values:
            data[c] = int_col(q_values[c], q_values[c] < 0)
        elif c == "size":
            data[c] = int_col(batch.sizes)
        elif c == "start":
            data[c] = int_col(batch.starts)
        elif c == "n_snakes":
            down = batch.jump_dst < batch.jump_src
            data[c] = int_col(np.bincount(owner[down], minlength=n) if n else jl)
        elif c == "n_ladders":
            up = batch.jump_dst > batch.jump_src
            data[c] = int_col(np.bincount(owner[up], minlength=n) if n else jl)
        elif c == "n_faces":
            used = batch.probs > 0
            data[c] = int_col(np.bincount(segment_ids(batch.dice_ptr)[used], minlength=n))
    if settings.errors == "coerce":
        err = np.full(n, None, dtype=object)
        for i, msg in messages.items():
            err[i] = msg
        data["error"] = err
    return pd.DataFrame(data)


def _finish_probability(batch: BoardBatch, out: _Out) -> np.ndarray:
    """1 where the goal is sure, 0 where it is unreachable, else the exact absorption
    probability of :func:`~snl_numeric.finish_probability` (rare rows: one solve each)."""
    prob = np.where(out.sure, 1.0, np.where(out.min_throws < 0, 0.0, np.nan))
    for i in np.flatnonzero(np.isnan(prob) & (out.problem == 0)).tolist():
        prob[i] = finish_probability(batch[i])
    return prob


def versioned_chunk(chunk: Chunk, settings: Settings) -> tuple[str, pd.DataFrame]:
    """:func:`analyze_chunk` with the version of the package that ran it (a Dask task)."""
    return version.VERSION, analyze_chunk(chunk, settings)


def default_chunk_size(boards: Any, client: DaskClient | None) -> int:
    """``DEFAULT_CHUNK_SIZE`` here (or for an iterator, whose length is unknown); on Dask,
    the boards split into ``TASKS_PER_THREAD`` tasks per worker thread of the cluster,
    ``MIN_DASK_CHUNK`` to ``DEFAULT_CHUNK_SIZE`` boards each.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> default_chunk_size([Board(10)] * 50_000, None)
    20000
    >>> class TwoWorkers:  # a Client's nthreads(): 2 workers of 2 threads
    ...     def nthreads(self): return {"tcp://a": 2, "tcp://b": 2}
    >>> default_chunk_size([Board(10)] * 10_000, TwoWorkers())  # 16 tasks
    625
    """
    if client is None:
        return DEFAULT_CHUNK_SIZE
    if isinstance(boards, (str, os.PathLike)):
        total = open_source(boards, DEFAULT_CHUNK_SIZE).total  # its rows, counted
    elif isinstance(boards, (BoardBatch, list, tuple)):
        total = len(boards)
    else:
        return DEFAULT_CHUNK_SIZE  # an iterator: read once, its length unknown
    threads = sum(client.nthreads().values()) or 1
    per_task = -(-total // (TASKS_PER_THREAD * threads))
    return int(min(DEFAULT_CHUNK_SIZE, max(MIN_DASK_CHUNK, per_task)))


def check_client(client: Any, allow_mixed_versions: Any) -> bool:
    """Check the ``client`` and ``allow_mixed_versions`` arguments; the latter as a bool."""
    if client is not None and not callable(getattr(client, "submit", None)):
        raise TypeError(f"client must be a dask.distributed Client or None, got {client!r}")
    return flag(allow_mixed_versions, "allow_mixed_versions")


def execute(chunks: Iterable[Chunk], settings: Settings, client: Any,
            allow_mixed_versions: bool = False
            ) -> Iterator[tuple[Chunk, pd.DataFrame, str]]:
    """Results of ``chunks`` in order, with the package version that computed each: here,
    or as Dask tasks keyed by chunk index (a worker running another version than this
    process is refused unless ``allow_mixed_versions``)."""
    if client is None:
        for chunk in chunks:
            yield chunk, analyze_chunk(chunk, settings), version.VERSION
        return
    import collections
    import uuid

    token = uuid.uuid4().hex[:12]
    threads = sum(client.nthreads().values()) or 1
    window = max(2 * threads, 4)
    inflight: collections.deque = collections.deque()

    def done() -> tuple[Chunk, pd.DataFrame, str]:
        c, f = inflight.popleft()
        worker, frame = f.result()
        f.release()
        if worker != version.VERSION and not allow_mixed_versions:
            raise ValueError(f"a Dask worker runs snl_numeric {worker} and this process "
                             f"{version.VERSION}: the results would mix versions; install one "
                             "version everywhere, or pass allow_mixed_versions=True")
        return c, frame, worker

    for chunk in chunks:
        # the key names the chunk: a chunk is one task, whatever retries happen
        fut = client.submit(versioned_chunk, chunk, settings,
                            key=f"snl-batch-{token}-{chunk.index:09d}")
        inflight.append((chunk, fut))
        if len(inflight) >= window:
            yield done()
    while inflight:
        yield done()


def make_settings(columns: Any, errors: str, tail: float, max_throws: int,
              chunk_size: int) -> Settings:
    cols = _check_columns(DEFAULT_COLUMNS if columns is None else columns)
    errors = choice(errors, "errors", ("raise", "coerce"))
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)):
        raise TypeError(f"chunk_size must be an integer, got {chunk_size!r}")
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
    check_tail(tail, max_throws)
    return Settings(cols, errors, float(tail), int(max_throws))


def _empty_frame(settings: Settings) -> pd.DataFrame:
    return analyze_chunk(Chunk(0, 0, BoardBatch.from_arrays(np.empty(0, np.int64)), {}),
                          settings)


def analyze_many(
    boards: BoardsInput,
    *,
    columns: Sequence[str] | None = None,
    errors: str = "raise",
    chunk_size: int | None = None,
    client: DaskClient | None = None,
    progress: bool | str = False,
    tail: float = DEFAULT_TAIL,
    max_throws: int = DEFAULT_MAX_THROWS,
    allow_mixed_versions: bool = False,
) -> pd.DataFrame:
    """The core numbers of every board in a batch, as a table.

    Parameters
    ----------
    boards : BoardBatch, list of Board, path, or iterable
        A :class:`BoardBatch`; a list of :class:`~snl_numeric.Board`; the
        path of a JSON Lines or Parquet board file; or any iterable of
        Boards, ``Board.to_dict`` dicts or BoardBatches (streamed in chunks).
    columns : sequence of str, optional
        Any of ``min_throws``, ``mean``, ``variance``, ``std``,
        ``finish_probability``, ``median``, ``mode`` (the names of
        :class:`~snl_numeric.Analysis`), ``p<q>`` (e.g. ``p90``: the
        smallest ``k`` with ``P(T <= k) >= q / 100``), ``size``, ``start``,
        ``n_snakes``, ``n_ladders``, ``n_faces``. Default
        :data:`~snl_numeric.batch.DEFAULT_COLUMNS`. The distribution is computed only for
        ``median``/``mode``/``p<q>``. ``expected_throws`` is the old name
        of ``mean`` (deprecated).
    errors : {"raise", "coerce"}
        ``"raise"``: a bad board raises ``ValueError("board <row>: <why>")``
        with the :class:`~snl_numeric.Board` message. ``"coerce"``: an
        ``error`` column holds the message (missing for good rows) and the
        bad rows' values are missing.
    chunk_size : int, optional
        Boards per chunk (the unit of streaming, of Dask tasks and of
        progress). Default: 20,000 here; with ``client``, the boards split
        into 4 tasks per worker thread of the cluster (100 to 20,000 boards
        each; 20,000 for an iterator, whose length is unknown).
    client : dask.distributed.Client, optional
        Run the chunks as tasks on this Dask cluster (one task per chunk,
        keyed by its index; results gathered in order). Default: here.
    progress : bool or "always", default False
        A progress bar on standard error (a widget in Jupyter): True shows it
        on a terminal or in a notebook only, ``"always"`` in pipes and files too.
    tail, max_throws : float, int
        As in :func:`~snl_numeric.length_distribution` (quantile columns).
    allow_mixed_versions : bool, default False
        Accept results from Dask workers running another version of the package
        than this process (refused by default: their numbers may differ).

    Returns
    -------
    pandas.DataFrame
        One row per board, indexed by its position in the input (``row``),
        with the input's own ``id`` and ``name`` columns first when it has
        them (board names, or those columns of a Parquet file).
        Integer columns are nullable (``Int64``) and follow pandas' convention
        for missing values: ``min_throws`` is ``<NA>`` for an unreachable goal
        (where :func:`~snl_numeric.min_throws` returns -1), so ``mean()`` and
        the other reductions skip it, as is a quantile the distribution never
        reaches; ``mean``/``variance``/``std`` are ``inf`` when the goal is not
        reached with probability 1 (a true value, not a missing one).

    Examples
    --------
    >>> from snl_numeric import Board
    >>> df = analyze_many([Board(10), Board(10, {9: 0}, overshoot="exact")],
    ...                   columns=["min_throws", "mean", "p90"])
    >>> df.round(3).to_dict("list")
    {'min_throws': [2, 2], 'mean': [3.324, 9.301], 'p90': [4, 19]}
    >>> bad = {"size": 10, "jumps": [[10, 2]]}
    >>> analyze_many([{"size": 10}, bad], errors="coerce")["error"].tolist()[1]
    'jump 10->2 leaves the goal 10; no jump may leave it'
    """
    pd = require_pandas()
    allow_mixed_versions = check_client(client, allow_mixed_versions)
    progress = check_progress(progress)  # (before it is tested for truth)
    if chunk_size is None:
        chunk_size = default_chunk_size(boards, client)
    settings = make_settings(columns, errors, tail, max_throws, chunk_size)
    source = open_source(boards, int(chunk_size))
    frames = []
    if progress and client is None:
        compile_kernels(settings)
    with Progress(source.total, "batch", enabled=progress) as bar:
        for chunk, frame, _ in execute(source.chunks, settings, client, allow_mixed_versions):
            frames.append(frame)
            bar.update(len(chunk.batch))
    if len(frames) == 1:  # (a fresh frame: no copy)
        df = frames[0]
    else:
        df = pd.concat(frames, ignore_index=True) if frames else _empty_frame(settings)
    df.index = pd.Index(df.pop("row").to_numpy(), name="row")
    return df
