"""Batch analysis of many boards: stacked arrays, Numba kernels, Dask.

A :class:`BoardBatch` stores many boards (of any sizes and rules) as flat
arrays, CSR-style: the jumps of board ``b`` are
``jump_src[jump_ptr[b]:jump_ptr[b + 1]]`` -> ``jump_dst[...]`` and its dice
``faces[dice_ptr[b]:dice_ptr[b + 1]]`` with ``probs[...]`` (faces
increasing, as in :class:`~snl_numeric.Dice`).

:func:`analyze_many` answers the core questions for every board with Numba
kernels run on several threads (blocks of boards, each task writing its own rows),
one kernel per job (``batch.kernels``), only those the columns need:

1. the rules of :class:`~snl_numeric.Board`, checked by the same code
   (``_core.validation.board_problem``; a flagged row's broken rule is worded
   afterwards as ``Board`` words it), and the size limits;
2. the successor table (``_core.table.succ_table_kernel``, int32), the fewest throws
   and the *sure* squares (goal reached with probability 1)
   (``_core.table.reach_kernel``: when every square has a move up, all are sure
   and a search forward from the start gives the throws; else a breadth-first search
   from the goal over the reversed table);
3. ``(I - Q) t = 1`` and ``(I - Q) u = t`` by the single-board solver's Woodbury
   method in one per-board call (``_core.solve.board_moments_kernel``): one
   triangular sweep over the forward moves plus a
   low-rank correction for the squares that snakes (and bounces) lead back to,
   eliminated without cancellation. ``E[T] = t[start]``,
   ``Var T = 2 u - t - t**2`` (or, where that would cancel at the start, the
   variance of one step, solved); a board with more backward targets than the
   kernel takes, or whose work arrays would not fit, is handed to the single-board
   solver (its memory checked first);
4. only when a median, percentile or mode is asked for, the probability mass
   pushed over the successor table one throw at a time (exactly as
   :func:`~snl_numeric.length_distribution` does) until the requested
   quantiles are known; those ``max_throws`` throws do not decide are missing,
   as :func:`~snl_numeric.analyze` gives them None, and a ``RuntimeWarning`` names
   the rows.

Results agree with the single-board API, with pandas' convention for missing
values in the nullable integer columns: ``min_throws`` is missing (``<NA>``, where
:func:`~snl_numeric.min_throws` gives -1) for an unreachable goal, so
``df.min_throws.mean()`` skips it, as is a median that the distribution never
reaches; ``mean``/``variance``/``std`` are ``inf`` when the goal is not reached
with probability 1.

Input and output formats
------------------------
*JSON Lines*: one board per line as written by :meth:`Board.to_dict`
(blank lines are skipped; rows are numbered from 0 over the other lines).
The file may instead hold one JSON document: a board, or a list of boards
(indented or not, as ``snl design -o`` writes). It may be gzip-compressed
(``.jsonl.gz``; other compressions are refused) and start with a UTF-8 byte
order mark. Board files must be regular files (not pipes): they are read more
than once.

*Parquet* (boards): one row per board with the columns

============  ====================  =========================================
column        type                  meaning (missing column / null: default)
============  ====================  =========================================
size          int64                 the goal square (required)
start         int64                 start square (0)
overshoot     string                "win", "exact" or "bounce" ("win")
chain         bool                  follow chained jumps (false)
jump_src      list<int64>           jump sources (no jumps)
jump_dst      list<int64>           jump destinations, same lengths
jumps         list<list<int64>>     alternative to jump_src/jump_dst: pairs
dice_faces    list<int64>           dice faces (fair d6)
dice_probs    list<double>          their probabilities, same lengths
id, name      any                   labels, carried to the results as they are
============  ====================  =========================================

Other columns are ignored, but a board file key spelt otherwise here
(``snakes``, ``ladders``, ``dice``) refuses the file, and a near miss of a rule
column the file lacks (``overshot``, ``sizes``) is read past with a
``UserWarning`` naming it (its boards take the default rule).

*Parquet* (results): ``analyze_to_parquet`` writes a directory ``OUT`` of
part files ``part-000000.parquet``, ... (one per chunk, each written to a
temporary file then renamed) with a ``row`` column (the board's position in
the input), the input's ``id``/``name`` labels if it has any (a JSON Lines
board's ``name``, a Board's ``name``) and the requested columns, plus
``_manifest.json`` recording the input fingerprint, the settings and the
package versions. A rerun with the same input and settings skips the parts
already written (refusing parts of another package version unless
``allow_mixed_versions=True``). :func:`read_results` reads the
directory back in row order.

Examples
--------
>>> from snl_numeric import Board, boards
>>> from snl_numeric.batch import BoardBatch, analyze_many
>>> batch = BoardBatch.from_boards([boards.get("milton-bradley"), Board(10)])
>>> df = analyze_many(batch, columns=("min_throws", "mean", "median"))
>>> df["min_throws"].tolist(), df["median"].tolist()
([7, 2], [32, 3])
"""

from __future__ import annotations

from ..io.store import read_results
from .data import MAX_SIZE, BoardBatch, random_batch
from .files import read_boards, write_jsonl, write_parquet
from .run import COLUMNS, DEFAULT_COLUMNS, analyze_many
from .store import BatchRun, analyze_to_parquet

__all__ = [
    "BoardBatch",
    "BatchRun",
    "analyze_many",
    "analyze_to_parquet",
    "read_boards",
    "read_results",
    "write_jsonl",
    "write_parquet",
    "random_batch",
    "DEFAULT_COLUMNS",
    "COLUMNS",
    "MAX_SIZE",
]
