"""Which jump matters, and every jump one could add.

- :func:`jump_impact`: for each snake and ladder, the chance it is used and the game
  without it (expected throws, standard deviation; optionally the median and a race);
- :func:`jump_candidates`: the change of expected throws for every single jump one
  could add, as an ``n x n`` array.

Both come from one factorisation of the board plus rank-one (Sherman-Morrison) updates;
see :mod:`snl_numeric.impact.compute` for the maths.
"""

from __future__ import annotations

from .compute import jump_candidates, jump_impact
from .result import JumpCandidates, JumpImpact

__all__ = ["JumpCandidates", "JumpImpact", "jump_candidates", "jump_impact"]
