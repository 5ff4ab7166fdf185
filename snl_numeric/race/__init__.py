r"""Racing to win: two players alternate, each choosing a die before every throw.

Seed 004 (section 6.1) gives the pair recursion for two players racing on one
board: ``P[i][j]``, the chance that the player about to throw, on square ``i``,
wins against an opponent on square ``j``. When players choose between dice
(section 6.3: a small die 1-3 or a big die 4-6) the race is a zero-sum
stochastic game with perfect information, and the right die depends on where
the opponent stands: behind, gamble; ahead, play safe. :func:`optimal_race`
solves it exactly; :func:`race_value` scores two given ways of playing.

**The game.** A position is ``(i, j)``, ``0 <= i, j < size`` (whoever reaches
the goal ``size`` first wins; both start on the board's start square). The
mover picks a die ``a``; a throw lands on ``r`` (the board's overshoot rule,
jumps compulsory or, with ``optional_jumps``, each jump of a chain taken or
declined by the mover, knowing the opponent's square), and the opponent moves
next from ``(j, r)``. With ``W`` the chance to win::

    W(i, j) = max_a  sum_f P_a(f) * max_{rest r} [ 1 if r == size else 1 - K(j, r) ]

where ``K(j, r)`` is the opponent's chance not to lose. When somebody surely
wins eventually, ``K = W`` and this is the Bellman equation ``W = T W`` of
seed 004 with a max over the dice. ``T`` is order-reversing (a better position
for the opponent is a worse one for the mover), so plain value iteration from
``W = 0`` alternates: even iterates rise to the answer from below, odd ones
fall to it from above, and two consecutive iterates bracket it.

**The scheme.** First an estimate: in-place Gauss-Seidel sweeps of one array
``W`` over the anti-diagonals ``i + j`` from the last to the first
(``kernels.value_sweep_kernel``): a throw moves the mover forward, so every
forward move reads a value already updated in the same sweep; a position and its
mirror are updated together, and where lost throws (the "exact" rule) couple them
their two-state game is solved. Then the certificate: two bounds per position, a
lower bound on the chance to win and an upper bound on the chance not to lose,
swept together (``lower <- T(upper)``, ``upper <- T(lower)``, each moved outwards by
its rounding; a lost throw's two-state game solved exactly, ``max_a min_b`` over the
stationary choices) from a box ``tol / 4`` around the estimate: once a few sweeps
land inside the box, the box held the values (``bounds.py`` says why), and the
bracket, the largest gap between the bounds over all positions, is below ``tol``
(1e-12): a certificate, not a stopping rule. On Milton Bradley with dice 1-3 / 4-6
this takes 27 estimate sweeps and one bracket sweep where plain value iteration
needs 178 iterations (``benchmarks/bench_race.py`` times both). If no box closes,
the bounds are swept from ``(0, 1)`` instead (plain value iteration from below for
the chance to win, always valid), skipping positions whose bracket is already well
below ``tol``.

**Nobody may win.** If some positions can be played forever without a winner
(tokens stranded under the "exact" rule, or loops), the bounds converge to two
different values: the chance to win and the chance not to lose. They are
bracketed separately by a second pair of bounds started from above and below
(nobody wins where no throw reaches the goal): when both players follow fixed
choices (:func:`race_value`, or a single die) the brackets close; when choices
can keep a loop going they may stay apart, and the result reports the limits
of the iteration with the (wider) bracket, a note and a ``RuntimeWarning``. The chance that nobody
wins is reported (``no_winner``), never folded into a win. Under such loops
``value`` is the chance the mover can make sure of against an opponent who
plays to stop it; with one die it is exactly
:func:`~snl_numeric.win_probabilities` ``(board, 2)[0]``.

**Fixed opponents.** ``optimal_race(..., opponent=...)`` fixes the second
player's choices (a :class:`~snl_numeric.PolicyResult`, a :class:`RaceResult`
or die indices): the first player's best response is a Markov decision problem
over the same pair states, solved exactly by policy iteration with exact
evaluations (``response.py``); :func:`race_value` fixes both players (a Markov
chain, swept, or solved as a linear system when it mixes slowly: ``linear.py``).

``readout.py``: the policy is read off so that it attains its value (the attractor
of the goal). ``graph.py``: which positions can still reach the goal, or be kept
from it.
"""

from __future__ import annotations

from .result import RaceConvergence, RaceResult
from .solve import optimal_race, race_value

__all__ = ["RaceConvergence", "RaceResult", "optimal_race", "race_value"]
