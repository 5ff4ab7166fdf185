"""Tidy tables (issue 16, item 5): ``to_frame()`` on results, HTML for the remaining ones."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from snl_numeric import (
    Board,
    analyze,
    boards,
    design_board,
    expected_game_length,
    finish_within,
    optimal_policy,
    simulate,
    solver_report,
)
from snl_numeric.boards import random_board

MB = boards.get("milton-bradley")


def test_analysis_frames():
    a = analyze(MB)
    t = a.to_frame()
    assert t.columns.tolist() == ["throws", "pmf", "cdf"]
    np.testing.assert_array_equal(t["pmf"], a.pmf)
    np.testing.assert_array_equal(t["cdf"], a.cdf)
    assert t["throws"].tolist() == list(range(len(a.pmf)))
    s = a.to_frame("summary")
    assert len(s) == 1 and s["mean"].item() == a.mean and s["median"].item() == a.median
    assert s["p90"].item() == a.percentiles[90]
    j = a.to_frame("jumps")
    assert len(j) == len(MB.jumps) == 19
    row = j[(j["from"] == 80) & (j["to"] == 100)]
    assert row["kind"].item() == "ladder"
    assert row["probability"].item() == a.jump_probability[(80, 100)]
    assert row["uses"].item() == a.jump_uses[(80, 100)]
    sq = a.to_frame("squares")
    np.testing.assert_array_equal(sq["expected_visits"], a.expected_visits)
    with pytest.raises(ValueError, match="^Analysis.to_frame: kind must be one of 'throws', "
                                         "'squares', 'jumps', 'summary', got 'bogus'$"):
        a.to_frame("bogus")
    with pytest.raises(TypeError, match="^Analysis.to_frame: kind must be one of .*, got 1$"):
        a.to_frame(1)


def test_comparing_variants_is_a_concat():
    rules = ("win", "exact", "bounce")
    df = pd.concat([analyze(MB.replace(overshoot=r)).to_frame().assign(rule=r) for r in rules])
    for r in rules:
        sub = df[df["rule"] == r]
        assert sub["pmf"].sum() == pytest.approx(1.0, abs=1e-11)
        assert (sub["throws"] * sub["pmf"]).sum() == pytest.approx(
            analyze(MB.replace(overshoot=r)).mean, rel=1e-9)


def test_simulation_frames():
    r = simulate(boards.get("seed-30"), 5000, rng=3, per_game=True)
    t = r.to_frame()
    assert int(t["games"].sum()) == r.finished == 5000
    assert (t["throws"] * t["games"]).sum() / 5000 == pytest.approx(r.mean, rel=1e-12)
    g = r.to_frame("games")
    np.testing.assert_array_equal(g["throws"], r.throws)
    assert g["finished"].all() and (g["final_square"] == 29).all()
    s = r.to_frame("summary")
    assert s[["mean", "stderr", "ci_low", "ci_high"]].iloc[0].tolist() == [r.mean, r.stderr,
                                                                          *r.ci]
    with pytest.raises(ValueError, match="per_game=True"):
        simulate(MB, 100, rng=1).to_frame("games")


def test_policy_and_finish_within_frames():
    r = optimal_policy(MB, ["1-3", "4-6"], optional_jumps=True)
    sq = r.to_frame()
    np.testing.assert_array_equal(sq["action"], r.policy)
    np.testing.assert_array_equal(sq["expected"], r.expected)
    assert pd.isna(sq.loc[100, "label"]) and sq.loc[0, "dice"] in ("1-3", "4-6")  # the goal
    j = r.to_frame("jumps")
    assert j["take"].tolist() == r.take.tolist()
    declined = j.loc[~j["take"]]
    assert sorted(zip(declined["from"], declined["to"], strict=True)) == sorted(r.declined)
    f = finish_within(MB, ["1-3", "4-6"], 10)
    first = f.to_frame()
    np.testing.assert_array_equal(first["probability"], f.probability)
    np.testing.assert_array_equal(first["action"], f.policy[0])
    steps = f.to_frame("steps")
    assert len(steps) == 10 * 101 and steps["throws_left"].max() == 10
    one_left = steps[steps["throws_left"] == 1]
    np.testing.assert_array_equal(one_left["action"], f.policy[9])
    np.testing.assert_array_equal(one_left["probability"], f.values[1])
    zero = finish_within(MB, ["d6"], 0).to_frame()
    assert zero["probability"].tolist() == [0.0] * 100 + [1.0]


def test_game_length_design_and_report_frames():
    g = expected_game_length(MB, 3)
    p = g.to_frame()
    assert p["player"].tolist() == [1, 2, 3]
    np.testing.assert_array_equal(p["win_probability"], g.win_probabilities)
    rounds = g.to_frame("rounds")
    np.testing.assert_array_equal(rounds["player_2"], g.win_pmf[1])
    assert rounds["pmf"].sum() == pytest.approx(1.0, abs=1e-10)
    d = design_board(30, snakes=2, ladders=1, objective="min", iterations=40, chains=2, rng=5)
    tr = d.to_frame()
    np.testing.assert_array_equal(tr["best"], d.trace)
    assert tr["best"].is_monotonic_decreasing and tr["best"].iloc[-1] == d.value
    jumps = d.to_frame("jumps")
    assert dict(zip(jumps["from"], jumps["to"], strict=True)) == dict(d.board.jumps)
    rep = solver_report(random_board(5000, 0.2, rng=1))
    row = rep.to_frame()
    assert row.columns.tolist() == ["method", "unknowns", "backward_targets", "iterations",
                                    "residual", "error_estimate", "condition", "blocks"]
    assert row.iloc[0].tolist() == [rep.method, rep.unknowns, rep.backward_targets,
                                    rep.iterations, rep.residual, rep.error_estimate,
                                    rep.condition, rep.blocks]


def test_html_of_finish_within_and_solver_report():
    f = finish_within(Board(4, overshoot="exact"), ["1-3", "4-6"], 2)
    html = f._repr_html_()
    # by hand: 4-6 first (a 4 lands on the goal, a 5 or 6 stays on 0), then 4-6 again:
    # 1/3 + 2/3 * 1/3 = 5/9; 1-3 first gives 1/3 (then exactly one face finishes)
    assert "Finishing within 2 on" in html and f"{5 / 9:.6f} to finish in time" in html
    assert "<script" not in html
    rep = solver_report(random_board(5000, 0.2, rng=1))
    html = rep._repr_html_()
    assert "gmres (GMRES on the correction, refined)" in html and f"{rep.unknowns:,}" in html
    assert f"{rep.error_estimate:.3g} (relative, every entry)" in html
