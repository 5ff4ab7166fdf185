"""Optimal play on matrices: one transition matrix per action over the same states.

Each matrix is validated and compiled as a :class:`~snl_numeric.Chain` (transient states
in their order, every absorbing state merged into one goal after them, rows as a
fixed-stride successor table with per-row probabilities); the actions' tables, padded to
one width, form the same decision problem a board's dice do
(:func:`~snl_numeric.policy.problem.table_problem`), with a cost per action and state.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..board import Board
from ..markov import Chain
from .problem import Problem, Words, table_problem
from .result import ChainPolicyResult, Convergence


def is_matrix_actions(x: Any) -> bool:
    """Whether ``optimal_policy``'s first argument is a sequence of matrices (or chains)."""
    if isinstance(x, Board):
        return False
    return isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.ndim == 3)


def check_not_single(x: Any) -> None:
    """``TypeError`` for one matrix or chain where a board or a list of them is expected."""
    if isinstance(x, Chain) or sp.issparse(x) or (isinstance(x, np.ndarray) and x.ndim == 2):
        raise TypeError(f"optimal_policy takes a Board, or a list of transition matrices "
                        f"(one per action); got a single {type(x).__name__}: wrap it in a "
                        "list")


@dataclass(frozen=True)
class MatrixProblem:
    """The decision problem of matrices, with what turns its answer into a result."""

    problem: Problem
    words: Words
    chains: tuple[Chain, ...]
    costs: np.ndarray  # (A, n) in the chains' state order
    states: np.ndarray  # each state's index in the problem
    start: int

    def result(self, objective: str, die: np.ndarray, values: np.ndarray,
               convergence: Convergence) -> ChainPolicyResult:
        policy = die[self.states].astype(np.int64)
        expected = values[self.states]
        for arr in (policy, expected):
            arr.flags.writeable = False
        return ChainPolicyResult(
            chains=self.chains, costs=self.costs, objective=objective, policy=policy,
            expected=expected, start=self.start, mean=float(expected[self.start]),
            labels=self.chains[0].labels, convergence=convergence)


def matrix_problem(matrices: Any, costs: Any, *, absorbing: Any, labels: Any,
                   start: Any) -> MatrixProblem:
    """Validate ``matrices`` (through :class:`~snl_numeric.Chain`) and ``costs``."""
    if len(matrices) == 0:
        raise ValueError("optimal_policy needs at least one action: got an empty list of "
                         "matrices")
    chains = [_chain(m, i, absorbing, labels, start) for i, m in enumerate(matrices)]
    n = chains[0].n_states
    for i, c in enumerate(chains[1:], 1):
        if c.n_states != n:
            raise ValueError(f"every action's matrix must be over the same states: action 0 "
                             f"has {n} states, action {i} has {c.n_states}")
    if absorbing is None:  # the states absorbing under every action
        mask = np.logical_and.reduce([c.is_absorbing for c in chains])
        if not mask.any():
            raise ValueError("no state is absorbing under every action (a row with "
                             "P[i, i] == 1 in every matrix): give absorbing=[...]")
        chains = [c if np.array_equal(c.is_absorbing, mask)
                  else Chain(c.P, absorbing=mask, labels=c.labels, start=c.start)
                  for c in chains]
    else:
        mask = chains[0].is_absorbing
        for i, c in enumerate(chains[1:], 1):
            if not np.array_equal(c.is_absorbing, mask):
                raise ValueError(f"every action must have the same absorbing states: action "
                                 f"{i}'s are {c.absorbing.tolist()}, action 0's "
                                 f"{chains[0].absorbing.tolist()}")
    first = chains[0]
    for i, c in enumerate(chains[1:], 1):
        if labels is None and c.labels != first.labels:
            raise ValueError(f"the chains name their states differently (action {i}'s "
                             "labels differ from action 0's): give labels=")
    if start is None:
        start = first.start
    cost = _costs(costs, len(chains), n)
    compiled = [c.compiled for c in chains]
    states = np.asarray(compiled[0].states)
    size = compiled[0].size
    internal = None
    if cost is not None:
        internal = np.zeros((len(chains), size + 1))
        transient = np.flatnonzero(~mask)
        internal[:, states[transient]] = cost[:, transient]
    p = table_problem([cb.succ for cb in compiled], [cb.probs for cb in compiled], internal)
    names = [""] * (size + 1)
    for x in np.flatnonzero(~mask).tolist():
        names[int(states[x])] = _name(first.labels[x])
    names[size] = "(absorbed)"
    words = Words(tuple(names), int(states[start]))
    table = np.ones((len(chains), n)) if cost is None else cost
    table.flags.writeable = False
    return MatrixProblem(p, words, tuple(chains), table, states, int(start))


def _name(label: Hashable) -> str:
    return repr(label) if isinstance(label, str) else str(label)


def _chain(m: Any, i: int, absorbing: Any, labels: Any, start: Any) -> Chain:
    if isinstance(m, Chain):
        if absorbing is None and labels is None and start is None:
            return m
        return Chain(m.P, absorbing=m.absorbing if absorbing is None else absorbing,
                     labels=m.labels if labels is None else labels,
                     start=m.start if start is None else start)
    if isinstance(m, (Board, str, numbers.Number)) or m is None:
        raise TypeError(f"action {i} must be a transition matrix (SciPy sparse, a dense array "
                        f"or a Chain), got {type(m).__name__}")
    try:
        return Chain(m, absorbing=absorbing, labels=labels,
                     start=0 if start is None else start)
    except (TypeError, ValueError) as err:
        raise type(err)(f"action {i}'s matrix: {err}") from None


def _costs(costs: Any, n_act: int, n: int) -> np.ndarray | None:
    """Costs of shape ``(A, n)`` from a number, one entry per action (a number or an array
    over the states) or an ``(A, n)`` array; None for 1 everywhere."""
    if costs is None:
        return None
    if isinstance(costs, (bool, np.bool_, str, bytes)):
        raise TypeError(f"costs must be numbers, got {costs!r}")
    if isinstance(costs, numbers.Real):
        out = np.full((n_act, n), float(costs))
    else:
        if not isinstance(costs, (Sequence, np.ndarray)):
            raise TypeError(f"costs must be a number or one entry per action, got "
                            f"{type(costs).__name__}")
        if len(costs) != n_act:
            raise ValueError(f"costs must have one entry per action ({n_act}), got "
                             f"{len(costs)}")
        out = np.empty((n_act, n))
        for a, c in enumerate(costs):
            if isinstance(c, (bool, np.bool_, str, bytes)):
                raise TypeError(f"costs[{a}] must be a number or an array, got {c!r}")
            arr = np.asarray(c)
            if arr.dtype.kind not in "iuf":
                raise TypeError(f"costs[{a}] must be a number or an array of numbers, got "
                                f"{c!r}")
            if arr.ndim == 1 and len(arr) != n:
                raise ValueError(f"costs[{a}] must have one cost per state ({n}), got "
                                 f"{len(arr)}")
            if arr.ndim > 1:
                raise ValueError(f"costs[{a}] must be a number or a 1-d array, got shape "
                                 f"{arr.shape}")
            out[a] = arr
    bad = ~np.isfinite(out) | (out < 0)
    if bad.any():
        a, x = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(f"costs must be finite and non-negative: action {a} on state {x} "
                         f"costs {float(out[a, x])!r}")
    if np.all(out == 1.0):
        return None
    return out
