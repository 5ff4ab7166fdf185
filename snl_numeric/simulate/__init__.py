"""Monte Carlo simulation of single-player games, and of races of several players
(``players=k``, :mod:`snl_numeric.simulate.multi`).

Games are played on the compiled successor table (``board.compiled.succ``):
one throw is one table look-up, so every rule variant (overshoot, chained
jumps, any dice) costs the same. The kernel is a Numba loop over blocks of
games, several threads each taking a share of the blocks; inside a block four
games run interleaved (independent dependency chains keep the CPU busy), two
fair throws per 64-bit word. The blocks advance in rounds of a fraction of a
second (a block saves its state and resumes exactly), so a long run shows
progress and stops on Ctrl-C. Memory does not grow with the number of games
unless ``per_game=True``.

Reproducibility
    The games are split into a fixed number of blocks (:data:`BLOCKS`,
    independent of the thread count). Block ``b`` draws from its own
    xoshiro256** stream, seeded with four 64-bit words from the
    ``numpy.random.SeedSequence`` child with spawn key ``spawn_key + (b,)``
    (the child ``SeedSequence.spawn`` would create, built without mutating
    the parent). Each thread counts into its own row of the histogram and
    the rows are summed afterwards, so the result is bit-identical for a
    given seed whatever ``threads``, ``NUMBA_NUM_THREADS`` or
    ``numba.set_num_threads``, and whatever the length of the rounds.

Sampling a face
    A face is drawn with Walker's alias table: a column ``i`` uniform over
    the ``k`` faces (Lemire's multiply-shift on 32 random bits, with the
    rejection step that makes it exactly uniform), then, unless every
    column is full (a fair die), a 64-bit uniform compared with the
    column's threshold ``floor(q_i * 2**64)`` (its top 32 bits come from
    the same word; a fresh word breaks the rare tie). Probabilities are
    thus reproduced to within ``2**-64`` of the alias table's ``q_i``.

Statistics
    ``T`` is the number of throws of a game. Games that do not finish are
    *censored*: either they used ``max_throws`` throws, or they landed on a
    square from which the goal cannot be reached at all (*stranded*: they
    would certainly hit the cap, so they stop at once). Censored games are
    counted, never dropped silently, and excluded from the mean, variance,
    histogram, min and max, which then describe ``T`` given that the game
    finished within the cap; a ``RuntimeWarning`` says so. The standard
    error is ``s / sqrt(n)`` with ``s`` the sample standard deviation
    (``ddof=1``) of the ``n`` finished games, and the confidence interval
    is the normal (Wald) interval ``mean +/- z * se`` with
    ``z = Phi^-1((1 + confidence) / 2)``, valid by the central limit theorem
    since ``T`` has finite variance on a board that finishes surely.
"""

from __future__ import annotations

from .result import GameSimulationResult, SimulationResult
from .run import BLOCKS, DEFAULT_MAX_THROWS, simulate

__all__ = ["SimulationResult", "GameSimulationResult", "simulate", "BLOCKS",
           "DEFAULT_MAX_THROWS"]
