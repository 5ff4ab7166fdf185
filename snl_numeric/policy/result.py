"""Results of the optimal-play questions, with their text forms."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from .._core.deprecation import deprecated
from .._core.equality import value_eq
from .._core.text import dice_text, grid_text, label, n_dice
from ..board import Board
from ..dice import Dice
from .evaluate import policy_table
from .problem import build_problem, resolve

if TYPE_CHECKING:
    from ..markov import Chain


@dataclass(frozen=True)
class Convergence:
    """How an optimal policy was found.

    Attributes
    ----------
    method : str
        ``"policy"`` (policy iteration) or ``"value"`` (value iteration).
    iterations : int
        Policy-improvement steps, or value-iteration sweeps.
    residual : float
        Bellman error ``max |T V - V|`` of the returned expected throws ``V``
        over the squares and jumps where they are finite.
    note : str
        Anything unusual (e.g. a fallback), empty otherwise.
    error : float
        Certified relative error of ``expected`` as the values of ``policy``.
    gap : float
        0 when no single switch of die or jump decision improves ``expected``
        anywhere by more than ``max(tol, error)`` relative (the decisions are
        optimal to that accuracy); else a bound on what one might gain (a
        ``RuntimeWarning`` says so).
    """

    method: str
    iterations: int
    residual: float
    note: str = ""
    error: float = 0.0
    gap: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict of Python numbers and strings."""
        return {"method": self.method, "iterations": self.iterations,
                "residual": self.residual, "error": self.error, "gap": self.gap,
                "note": self.note}


@dataclass(frozen=True, eq=False)
class PolicyResult:
    """An optimal (or worst) stationary policy and the expected throws under it.

    Attributes
    ----------
    board : Board
        The board; its own dice are replaced by ``actions``.
    actions : tuple of Dice
        The dice to choose from, indexed as in ``policy``.
    objective : {"min", "max"}
        Fewest (best play) or most (worst play) expected throws.
    optional_jumps : bool
        Whether the player may decline jumps.
    policy : ndarray of int64, shape (size + 1,)
        Index of the die thrown on each square; -1 on the goal. Where the
        optimum is infinite it is a die that achieves it (under "min": the
        first die, as no play finishes surely from there).
    jumps : tuple of (int, int)
        The board's jumps ``(from, to)``, sorted by square.
    take : ndarray of bool, shape (n_jumps,)
        Whether the player follows each jump on landing (all True unless
        ``optional_jumps``).
    expected : ndarray of float64, shape (size + 1,)
        Expected throws from every square under the policy (``inf`` where the
        goal is not reached with probability 1).
    mean : float
        ``expected[board.start]``: the expected throws from the start (the
        name used by :class:`~snl_numeric.Analysis`; ``expected_start`` is
        deprecated).
    convergence : Convergence
        Method, iterations and the Bellman residual.
    """

    __eq__ = value_eq  # (value equality: see snl_numeric._core.equality)
    __hash__ = None  # type: ignore[assignment]

    board: Board
    actions: tuple[Dice, ...]
    objective: str
    optional_jumps: bool
    policy: np.ndarray = field(repr=False)
    jumps: tuple[tuple[int, int], ...] = field(repr=False)
    take: np.ndarray = field(repr=False)
    expected: np.ndarray = field(repr=False)
    mean: float
    convergence: Convergence

    @property
    @deprecated("PolicyResult.expected_start is now PolicyResult.mean; "
                "PolicyResult.expected_start will be removed in snl_numeric 0.2.0")
    def expected_start(self) -> float:
        """Deprecated: the old name of ``mean`` (removed in snl_numeric 0.2.0)."""
        return self.mean

    @property
    def declined(self) -> list[tuple[int, int]]:
        """The jumps ``(from, to)`` the player declines."""
        return [j for j, t in zip(self.jumps, self.take, strict=True) if not t]

    def transition_matrix(self) -> sp.csr_matrix:
        """The chain the policy induces: ``P[x, y]`` (CSR, goal absorbing).

        Examples
        --------
        >>> from snl_numeric import Board, optimal_policy
        >>> r = optimal_policy(Board(3), [{1: 1.0}, {3: 1.0}])
        >>> r.transition_matrix().toarray()[0].tolist()
        [0.0, 0.0, 0.0, 1.0]
        """
        p = build_problem(self.board, self.actions, self.optional_jumps)
        succ, prob = policy_table(p, self.policy, resolve(p, self.take))
        rows = np.repeat(np.arange(p.n), succ.shape[1])
        keep = prob.ravel() > 0
        rows = np.append(rows[keep], p.goal)
        cols = np.append(succ.ravel()[keep], p.goal)
        data = np.append(prob.ravel()[keep], 1.0)
        mat = sp.csr_matrix((data, (rows, cols)), shape=(p.n, p.n))
        mat.sum_duplicates()
        mat.sort_indices()
        return mat

    def induced_board(self) -> Board:
        """The plain board the policy plays: declined jumps removed, one die.

        Only defined when the policy throws the same die on every square
        (otherwise use :meth:`transition_matrix`).

        Examples
        --------
        >>> from snl_numeric import Board, expected_throws, optimal_policy
        >>> b = Board(10, {3: 1, 5: 9})
        >>> r = optimal_policy(b, [None], optional_jumps=True)
        >>> r.declined
        [(3, 1)]
        >>> expected_throws(r.induced_board()) == r.mean
        True
        """
        used = np.unique(self.policy[: self.board.size])
        if len(used) != 1:
            labels = ", ".join(label(i) for i in used.tolist())
            raise ValueError(
                f"the policy throws several dice ({labels}); a Board has one die: "
                "use transition_matrix() for the induced chain")
        jumps = [j for j, t in zip(self.jumps, self.take, strict=True) if t]
        return self.board.replace(jumps=jumps, dice=self.actions[int(used[0])])

    def to_frame(self, kind: str = "squares") -> Any:
        """A tidy pandas table.

        Parameters
        ----------
        kind : {"squares", "jumps"}
            One row per square (``action`` index, its ``label`` and ``dice``,
            ``expected`` throws from there) or per jump (``from``, ``to``,
            ``kind``, ``take``).

        Examples
        --------
        >>> from snl_numeric import boards, optimal_policy
        >>> r = optimal_policy(boards.get("milton-bradley"), ["1-3", "4-6"])
        >>> r.to_frame().loc[:2, ["square", "label", "dice"]].values.tolist()
        [[0, 'A', '1-3'], [1, 'A', '1-3'], [2, 'A', '1-3']]
        """
        from ..display.frames import policy_frame

        return policy_frame(self, kind)

    def to_dict(self) -> dict[str, Any]:
        """A summary of Python numbers and lists (``math.inf`` where the goal is not reached)."""
        return {
            "board": self.board.to_dict(),
            "actions": [{"label": label(i), "dice": dice_text(d)}
                        for i, d in enumerate(self.actions)],
            "objective": self.objective,
            "optional_jumps": self.optional_jumps,
            "start": self.board.start,
            "mean": self.mean,
            "policy": self.policy.tolist(),
            "jumps": [{"from": s, "to": d, "take": bool(t)}
                      for (s, d), t in zip(self.jumps, self.take, strict=True)],
            "expected": self.expected.tolist(),
            "convergence": self.convergence.to_dict(),
        }

    def _repr_html_(self) -> str:
        from ..display.html import policy_html

        return policy_html(self)

    def __str__(self) -> str:
        b = self.board
        what = "fewest" if self.objective == "min" else "most"
        c = self.convergence
        lines = [
            f"{'optimal' if self.objective == 'min' else 'worst'} play ({what} expected "
            f"throws) on {b.name or f'a board of size {b.size}'}: {n_dice(self.actions)}"
            + (", optional jumps" if self.optional_jumps else ""),
            "  dice              " + "  ".join(
                f"{label(i)} = {dice_text(d)}" for i, d in enumerate(self.actions)),
            f"  expected throws   {self.mean:.6f} from square {b.start}",
            f"  {'policy' if c.method == 'policy' else 'value'} iteration  {c.iterations} "
            f"{('step' if c.method == 'policy' else 'sweep') + ('' if c.iterations == 1 else 's')}"
            f", Bellman residual {c.residual:.2g}"
            + (f" ({c.note})" if c.note else ""),
        ]
        lines += _board_map(b, self.policy, self.jumps, self.take)
        if self.optional_jumps:
            dec = self.declined
            lines.append("  declined jumps    " + (
                " ".join(f"{s}->{d}" for s, d in dec) if dec else "none"))
        return "\n".join(lines)


@dataclass(frozen=True, eq=False)
class ChainPolicyResult:
    """An optimal (or worst) stationary policy on matrices and its expected costs:
    :func:`~snl_numeric.optimal_policy` on one transition matrix per action, the
    undiscounted stochastic shortest path (a :class:`PolicyResult` for chains: states and
    actions in place of squares and dice, no jumps).

    Attributes
    ----------
    chains : tuple of Chain
        One chain per action (the matrices as validated), over the same states.
    costs : ndarray of float64, shape (n_actions, n_states)
        The cost of a step of each action from each state (1: the expected steps).
    objective : {"min", "max"}
        Least (best play) or largest (worst play) expected cost.
    policy : ndarray of int64, shape (n_states,)
        The action taken on each state; -1 on the absorbing states. Where the optimum
        is infinite, an action that achieves it (under "min": the first).
    expected : ndarray of float64, shape (n_states,)
        The expected cost to absorption from every state under the policy (0 on the
        absorbing states, ``inf`` where absorption is not sure under any play, "min").
    start : int
        The state ``mean`` is read at.
    mean : float
        ``expected[start]``.
    labels : tuple
        The states' names.
    convergence : Convergence
        Method, iterations, Bellman residual, the certified relative error of
        ``expected`` and the certified optimality ``gap``.
    """

    __eq__ = value_eq  # (value equality: see snl_numeric._core.equality)
    __hash__ = None  # type: ignore[assignment]

    chains: tuple[Chain, ...] = field(repr=False)
    costs: np.ndarray = field(repr=False)
    objective: str
    policy: np.ndarray = field(repr=False)
    expected: np.ndarray = field(repr=False)
    start: int
    mean: float
    labels: tuple[Hashable, ...] = field(repr=False)
    convergence: Convergence

    def transition_matrix(self) -> sp.csr_array:
        """The chain the policy induces: row ``x`` of the matrix of the action taken on
        ``x`` (absorbing rows as they are), CSR.

        Examples
        --------
        >>> import numpy as np
        >>> from snl_numeric import optimal_policy
        >>> A = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 1.0]])
        >>> B = np.array([[0, 0, 1], [0, 0, 1], [0, 0, 1.0]])
        >>> optimal_policy([A, B], [1.0, 1.5]).transition_matrix().toarray().tolist()
        [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]
        """
        n = len(self.policy)
        pick = np.where(self.policy < 0, 0, self.policy)
        out = sp.csr_array((n, n))
        for a, c in enumerate(self.chains):
            rows = sp.diags_array((pick == a).astype(np.float64))
            out = out + sp.csr_array(rows @ c.P)
        out = sp.csr_array(out)
        out.sort_indices()
        return out

    def to_dict(self) -> dict[str, Any]:
        """A summary of Python numbers and lists (``math.inf`` where absorption is not
        sure)."""
        return {
            "objective": self.objective,
            "states": [x if isinstance(x, (int, str)) else repr(x) for x in self.labels],
            "start": self.start,
            "mean": self.mean,
            "policy": self.policy.tolist(),
            "expected": self.expected.tolist(),
            "costs": self.costs.tolist(),
            "convergence": self.convergence.to_dict(),
        }

    def __str__(self) -> str:
        c = self.convergence
        n_act, n = self.costs.shape
        unit = bool(np.all(self.costs == 1.0))
        what = "steps" if unit else "cost"
        lines = [
            f"{'optimal' if self.objective == 'min' else 'worst'} play "
            f"({'least' if self.objective == 'min' else 'largest'} expected {what}) on a "
            f"chain of {n} states: {n_act} action{'s' * (n_act != 1)}",
            f"  expected {what:<8}  {self.mean:.6f} from state {self.labels[self.start]!r}",
            f"  certified to      {c.error:.1g} relative"
            + ("" if c.gap == 0 else f", optimality gap {c.gap:.1g}"),
            f"  {'policy' if c.method == 'policy' else 'value'} iteration  {c.iterations} "
            f"{('step' if c.method == 'policy' else 'sweep') + ('' if c.iterations == 1 else 's')}"
            f", Bellman residual {c.residual:.2g}" + (f" ({c.note})" if c.note else ""),
        ]
        counts = np.bincount(self.policy[self.policy >= 0], minlength=n_act)
        lines.append("  states per action " + "  ".join(
            f"{a}: {int(k)}" for a, k in enumerate(counts.tolist())))
        return "\n".join(lines)


@dataclass(frozen=True, eq=False)
class FinishWithinResult:
    """The play that maximises the chance to finish within ``horizon`` throws.

    Attributes
    ----------
    board : Board
    actions : tuple of Dice
    optional_jumps : bool
    horizon : int
        ``K``, the number of throws allowed.
    policy : ndarray of int64, shape (K, size + 1)
        ``policy[i, x]``: the die for throw ``i`` (0-based, ``K - i`` throws
        left) on square ``x``; -1 on the goal.
    take : ndarray of bool, shape (K, n_jumps)
        ``take[i, j]``: follow jump ``j`` on landing after throw ``i``.
    jumps : tuple of (int, int)
    values : ndarray of float64, shape (K + 1, size + 1)
        ``values[k, x]``: the best chance to finish within ``k`` throws from ``x``.
    probability : ndarray of float64, shape (size + 1,)
        ``values[K]``.
    probability_start : float
        ``probability[board.start]``.
    """

    __eq__ = value_eq  # (value equality: see snl_numeric._core.equality)
    __hash__ = None  # type: ignore[assignment]

    board: Board
    actions: tuple[Dice, ...]
    optional_jumps: bool
    horizon: int
    policy: np.ndarray = field(repr=False)
    take: np.ndarray = field(repr=False)
    jumps: tuple[tuple[int, int], ...] = field(repr=False)
    values: np.ndarray = field(repr=False)
    probability: np.ndarray = field(repr=False)
    probability_start: float

    def to_frame(self, kind: str = "squares") -> Any:
        """A tidy pandas table.

        Parameters
        ----------
        kind : {"squares", "steps"}
            One row per square for the first throw (``horizon`` throws left:
            the ``action`` to take and the ``probability`` of finishing in
            time), or one row per square and number of throws left.

        Examples
        --------
        >>> from snl_numeric import Board, finish_within
        >>> r = finish_within(Board(4, overshoot="exact"), ["1-3", "4-6"], 2)
        >>> first = r.to_frame()
        >>> first["label"].tolist()[:2], first["probability"].round(4).tolist()[:2]
        (['B', 'A'], [0.5556, 0.5556])
        >>> len(r.to_frame("steps"))
        10
        """
        from ..display.frames import finish_within_frame

        return finish_within_frame(self, kind)

    def _repr_html_(self) -> str:
        from ..display.html import finish_within_html

        return finish_within_html(self)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (arrays as nested lists)."""
        return {
            "board": self.board.to_dict(),
            "actions": [{"label": label(i), "dice": dice_text(d)}
                        for i, d in enumerate(self.actions)],
            "optional_jumps": self.optional_jumps,
            "horizon": self.horizon,
            "start": self.board.start,
            "probability_start": self.probability_start,
            "policy": self.policy.tolist(),
            "jumps": [list(j) for j in self.jumps],
            "take": self.take.tolist(),
            "probability": self.probability.tolist(),
        }

    def __str__(self) -> str:
        b = self.board
        lines = [
            f"best chance to finish within {self.horizon} throws on "
            f"{b.name or f'a board of size {b.size}'}: {n_dice(self.actions)}"
            + (", optional jumps" if self.optional_jumps else ""),
            "  dice              " + "  ".join(
                f"{label(i)} = {dice_text(d)}" for i, d in enumerate(self.actions)),
            f"  chance            {self.probability_start:.6f} from square {b.start}",
        ]
        if self.horizon:
            lines.append(f"  first throw ({self.horizon} left); the choice depends on "
                         "the throws left:")
            lines += _board_map(b, self.policy[0], self.jumps, self.take[0])
        return "\n".join(lines)


def _board_map(board: Board, policy: np.ndarray, jumps: Sequence[tuple[int, int]],
               take: np.ndarray) -> list[str]:
    """The policy as a grid: each cell ``square die mark`` (^ ladder, v snake, x declined)."""
    mark = {}
    for (s, d), t in zip(jumps, take, strict=True):
        mark[s] = ("^" if d > s else "v") if t else "x"
    w = len(str(board.size))
    labw = max([len(label(int(a))) for a in policy if a >= 0] or [1])

    def cell(x: int) -> str:
        lab = "" if policy[x] < 0 else label(int(policy[x]))
        return f"{x:>{w}} {lab:<{labw}}{mark.get(x, ' ')}"

    lines = [f"  square 0 (off the board): die {label(int(policy[0]))}; square 1 is bottom left"]
    lines += grid_text(board.size, cell)
    lines.append("  (cell: square, die; ^ ladder, v snake, x jump declined)")
    return lines
