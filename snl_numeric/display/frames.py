"""Tidy pandas tables of results (the ``to_frame()`` of every result).

One row per throw count, square, jump, player, game or search step, as fits
the result, with the column names of the package's vocabulary (``mean``,
``variance``, ``pmf``, ...). Each builder takes the result object and a
``kind``; the results' ``to_frame`` methods call down into these functions,
which import only the private layer (and pandas, when called).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.optional import require_pandas
from .._core.text import dice_text, label
from .._core.validation import choice

__all__ = ["analysis_frame", "design_frame", "finish_within_frame", "game_length_frame",
           "policy_frame", "record_frame", "simulation_frame"]


def _pick(kind: str, builders: dict[str, Callable[[], dict[str, Any]]], owner: str) -> Any:
    kind = choice(kind, f"{owner}.to_frame: kind", tuple(builders))
    return require_pandas().DataFrame(builders[kind]())


def _jump_columns(pairs: list[tuple[int, int]]) -> dict[str, Any]:
    return {"from": [s for s, _ in pairs], "to": [d for _, d in pairs],
            "kind": ["ladder" if d > s else "snake" for s, d in pairs]}


def analysis_frame(a: Any, kind: str) -> Any:
    """``throws`` (the distribution), ``squares``, ``jumps`` or a one-row ``summary``."""
    def throws() -> dict[str, Any]:
        return {"throws": np.arange(len(a.pmf)), "pmf": a.pmf, "cdf": a.cdf}

    chain = hasattr(a.board, "absorbing")  # (a Chain: states by label, no jumps)

    def squares() -> dict[str, Any]:
        n = a.board.n_states if chain else a.board.size + 1
        visits = a.expected_visits if a.expected_visits is not None else np.full(n, np.nan)
        if chain:
            return {"state": np.arange(n), "label": list(a.board.labels),
                    "expected_visits": visits}
        return {"square": np.arange(n), "expected_visits": visits}

    def jumps() -> dict[str, Any]:
        if chain:
            raise ValueError("Analysis.to_frame('jumps') is for boards: a Chain has no jumps")
        pairs = sorted(a.board.jumps.items())
        uses, prob = a.jump_uses or {}, a.jump_probability or {}
        return {**_jump_columns(pairs), "uses": [uses.get(p, np.nan) for p in pairs],
                "probability": [prob.get(p, np.nan) for p in pairs]}

    def summary() -> dict[str, Any]:
        row = {"start": a.start, "min_throws": a.min_throws, "mean": a.mean,
               "variance": a.variance, "std": a.std,
               "finish_probability": a.finish_probability, "median": a.median,
               "mode": a.mode}
        row.update({f"p{q:g}": v for q, v in a.percentiles.items()})
        return {k: [v] for k, v in row.items()}

    return _pick(kind, {"throws": throws, "squares": squares, "jumps": jumps,
                        "summary": summary}, "Analysis")


def simulation_frame(r: Any, kind: str) -> Any:
    """``throws`` (the histogram), ``games`` (with ``per_game=True``) or ``summary``."""
    def throws() -> dict[str, Any]:
        return {"throws": np.arange(len(r.histogram)), "games": r.histogram, "pmf": r.pmf}

    def games() -> dict[str, Any]:
        if r.throws is None:
            raise ValueError("SimulationResult.to_frame('games') needs simulate(..., "
                             "per_game=True)")
        if hasattr(r.board, "absorbing"):  # a chain: absorbed (-1: one of several ends)
            done = (r.final_square < 0) | np.isin(r.final_square, r.board.absorbing)
        else:
            done = r.final_square == r.board.size
        return {"game": np.arange(len(r.throws)), "throws": r.throws,
                "final_square": r.final_square, "finished": done}

    def summary() -> dict[str, Any]:
        row = {"start": r.start, "games": r.games, "finished": r.finished,
               "censored": r.censored, "mean": r.mean, "variance": r.variance, "std": r.std,
               "stderr": r.stderr, "ci_low": r.ci[0], "ci_high": r.ci[1], "min": r.min,
               "max": r.max}
        return {k: [v] for k, v in row.items()}

    return _pick(kind, {"throws": throws, "games": games, "summary": summary},
                 "SimulationResult")


def policy_frame(r: Any, kind: str) -> Any:
    """``squares`` (the die and the expected throws on each square) or ``jumps``."""
    def squares() -> dict[str, Any]:
        n = r.board.size + 1
        return {"square": np.arange(n), "action": r.policy,
                "label": [label(int(a)) if a >= 0 else None for a in r.policy],
                "dice": [dice_text(r.actions[a]) if a >= 0 else None for a in r.policy],
                "expected": r.expected}

    def jumps() -> dict[str, Any]:
        return {**_jump_columns(list(r.jumps)), "take": np.asarray(r.take, dtype=bool)}

    return _pick(kind, {"squares": squares, "jumps": jumps}, "PolicyResult")


def finish_within_frame(r: Any, kind: str) -> Any:
    """``squares`` (the first decision, ``horizon`` throws left) or ``steps`` (every one)."""
    n = r.board.size + 1

    def rows(left: np.ndarray) -> dict[str, Any]:
        sq = np.tile(np.arange(n), len(left))
        lft = np.repeat(left, n)
        act = r.policy[r.horizon - lft, sq] if len(left) else np.empty(0, np.int64)
        return {"throws_left": lft, "square": sq, "action": act,
                "label": [label(int(a)) if a >= 0 else None for a in act],
                "probability": r.values[lft, sq]}

    def squares() -> dict[str, Any]:
        if r.horizon == 0:
            return {"throws_left": np.zeros(n, np.int64), "square": np.arange(n),
                    "action": np.full(n, -1), "label": [None] * n, "probability": r.values[0]}
        return rows(np.array([r.horizon]))

    def steps() -> dict[str, Any]:
        return rows(np.arange(r.horizon, 0, -1))

    return _pick(kind, {"squares": squares, "steps": steps}, "FinishWithinResult")


def game_length_frame(g: Any, kind: str) -> Any:
    """``players`` (start and chance to win) or ``rounds`` (when the race ends)."""
    def players() -> dict[str, Any]:
        starts = list(g.starts) if len(g.starts) == g.players else [None] * g.players
        return {"player": np.arange(1, g.players + 1), "start": starts,
                "win_probability": g.win_probabilities}

    def rounds() -> dict[str, Any]:
        out = {"round": np.arange(len(g.rounds_pmf)), "pmf": g.rounds_pmf}
        for i in range(g.players):
            out[f"player_{i + 1}"] = g.win_pmf[i]
        return out

    return _pick(kind, {"players": players, "rounds": rounds}, "GameLength")


def design_frame(d: Any, kind: str) -> Any:
    """``trace`` (the best value as the search went) or ``jumps`` (the layout found)."""
    def trace() -> dict[str, Any]:
        return {"step": np.arange(len(d.trace)), "evaluations": d.trace_evaluations,
                "best": d.trace}

    def jumps() -> dict[str, Any]:
        return _jump_columns(sorted(d.board.jumps.items()))

    return _pick(kind, {"trace": trace, "jumps": jumps}, "DesignResult")


def record_frame(obj: Any) -> Any:
    """A dataclass as a one-row table of its fields (e.g. a ``SolveReport``)."""
    return require_pandas().DataFrame(
        {f.name: [getattr(obj, f.name)] for f in dataclasses.fields(obj)})
