"""Board design: place snakes and ladders for a wanted expected game length.

Given ``snakes`` snakes and ``ladders`` ladders, :func:`design_board`
searches layouts whose expected number of throws ``E = t[start]`` (``t =
(I - Q)^-1 1``, the absorbing chain's fundamental system) is as large, as
small, or as close to a target as possible. Every candidate is evaluated
exactly by the core's per-board kernel (successor table, BFS + sure mask, a
triangular sweep with a low-rank correction for the snakes, eliminated without
cancellation): microseconds per 100-square board, so searches make hundreds
of thousands of exact evaluations. Candidates are scored by their mean; the
winner's variance is solved once at the end.
With ``objective="fair"`` it searches instead for the smallest first-player edge of
``players`` players (module ``snl_numeric.design.fair``: for identical independent
players it is never 0).

A layout is feasible when

- every jump starts on a square in ``1 .. size - 1`` other than ``start``
  and not in ``forbidden``;
- every destination is a square in ``0 .. size`` not in ``forbidden`` (it
  may be the start square, or the goal for a ladder);
- all ``2 * (snakes + ladders)`` endpoints are distinct squares: no two jumps
  share a start or an end, and no jump ends where another starts (so there
  are never chained jumps, whatever ``chain``);
- snakes go down and ladders go up, each with length ``|dst - src|`` in
  ``min_length .. max_length``;
- the expected length from ``start`` is finite. Layouts from which the goal
  may never be reached (``E = inf``, possible with exact landing, bounces or
  unusual dice) are evaluated and rejected, so they never "win" a ``"max"``
  search.

Two searches, both spending at most ``iterations * chains`` exact evaluations:

- ``method="anneal"``: ``chains`` independent simulated-annealing chains run
  in parallel (threads, a group of chains per round), each for ``iterations`` steps with a geometric
  temperature schedule. A step proposes one move (relocate a jump's start,
  relocate its end, shift the whole jump keeping its length, or swap the
  starts of two jumps, each keeping its kind: this links a snake and a
  ladder), drawn among the feasible ones, and accepts it by the Metropolis
  rule.
- ``method="local"``: iterated exact local search. The whole neighbourhood
  of the current layout (every feasible single move above) is enumerated,
  shuffled and evaluated in parallel batches; the best layout of the first
  batch that improves is taken. When no neighbour improves (an exact local
  optimum) the best layout is kicked by a few random moves and the descent
  goes on.

Randomness: the chains' streams are spawned from one
:class:`numpy.random.SeedSequence`; inside the kernels each chain draws from its own
xoshiro256** stream, the generator :func:`~snl_numeric.simulate` uses, so results depend
only on ``rng``, never on the number of threads or their scheduling.
"""

from __future__ import annotations

from .result import DesignResult
from .search import METHODS, design_board

__all__ = ["DesignResult", "design_board", "METHODS"]
