"""Optimal play: which die to throw on each square, and which jumps to take.

A player owns several dice (``actions``) and picks one before every throw,
knowing the square the token is on. With ``optional_jumps=True`` the player
also decides, after the token lands on the start of a snake or ladder,
whether to follow it (under ``chain=True``: each jump of a chain in turn).
This is a stochastic shortest-path Markov decision problem over

- *square* states ``x = 0 .. size`` (the goal ``size`` absorbing), where the
  player chooses a die ``a`` and pays one throw, and
- *jump* states ``j`` (landing on the start of jump ``j``), where the player
  chooses, for free, between resting on ``src_j`` and following the jump.

The optimal expected throws ``V`` solve the Bellman equation (``objective``
"min"; "max" swaps min for max)::

    V(x) = min_a  1 + sum_f P_a(f) W(land(x, a, f))       V(size) = 0
    W(j) = min(V(src_j), W(dst_j))                        (jump states)

with ``W(y) = V(y)`` for a square ``y``. The answer is a stationary policy:
one die per square and one take/decline decision per jump.

**Policy iteration** (default) evaluates a policy ``pi`` exactly by solving
``(I - Q_pi) t = 1`` with the core's solver (``_core.solve.system_solver``), then
switches every square and jump whose gain is certainly positive given the
certified error of ``t``, until none is; the decisions are then certified
(:mod:`.improve`): no single switch improves any expected throws by more than
their certified error, or a ``RuntimeWarning`` gives the gap. **Value
iteration** sweeps until no value moves by more than ``tol`` (relative), reads
off the greedy policy, and certifies it the same way. Both return the policy
with the smallest die index among tied choices, and the take decision where
taking and declining tie.

*Improper policies.* Under "min" a policy may never finish from some square
(e.g. a die 4-6 on square 98 under the exact-landing rule). The squares from
which *some* policy finishes with probability 1 are found first (iterated
backward reachability: the almost-sure attractor of the goal); elsewhere the
optimum is ``inf``. Policy iteration starts from a proper policy read off the
attractor's layers and only accepts strict improvements, so every iterate is
proper. Where the direct solver evaluates the policies, that start is first replaced by the
greedy play after a few Jacobi sweeps of the Bellman equation from the layers (ten and one
per ten squares, at most 100: :func:`~snl_numeric._core.sizes.policy_warm_sweeps`) when its
values show it proper (they descend from every square to the goal) or a search does: a board
of a few hundred squares then starts at the optimum or a step from it. A step that changes
the dice of a few squares (:data:`~snl_numeric._core.sizes.POLICY_UPDATE_ROWS`), and each
trial of the certificate, is evaluated by updating the last factorisation of the system
(Sherman-Morrison-Woodbury: :mod:`snl_numeric._core.solve.update`), not by a new one, on
systems SuperLU factorises. Under "max" the worst
play is infinite as soon as a player can keep
the token away from the goal forever with positive probability: the largest
set of squares with a choice that never leaves it (a goal-avoiding end
component) is found, and if the start can reach it a ``ValueError`` names
the square and the die.

*Matrices.* ``optimal_policy([P_0, P_1, ...], costs)`` is the same problem without
jumps on any states: each action's matrix is compiled as a :class:`~snl_numeric.Chain`
(transient states in order, the absorbing ones merged into the goal) to a fixed-stride
table with probabilities per row, a step of action ``a`` from ``x`` costs ``c_a(x) >= 0``
(1 by default), and ``1`` becomes ``c_a(x)`` in the Bellman equation above. The gains of
the certificate are then read per unit of the switched step's cost (the visits to a state
cost at most the expected cost); a step of cost 0 still counts for termination, so only
plays that end surely compete. These problems take the NumPy path at every size.

:func:`finish_within` maximises instead the chance to finish within ``K``
throws by backward induction: ``P_0 = 1[goal]``,
``P_k(x) = max_a sum_f P_a(f) W_{k-1}(land(x, a, f))``; the optimal policy
depends on the number of throws left.

Boards up to ``POLICY_KERNEL_SQUARES`` (20,000, in :mod:`snl_numeric._core.sizes`)
squares are answered with NumPy and SciPy only, with nothing to compile; larger ones
use Numba kernels for the steps that loop (value iteration, backward induction, the improvement sums
and the worst-play traps).
"""

from __future__ import annotations

from .horizon import finish_within
from .result import ChainPolicyResult, Convergence, FinishWithinResult, PolicyResult
from .solve import METHODS, OBJECTIVES, optimal_policy

__all__ = [
    "METHODS",
    "OBJECTIVES",
    "ChainPolicyResult",
    "Convergence",
    "PolicyResult",
    "FinishWithinResult",
    "optimal_policy",
    "finish_within",
]
