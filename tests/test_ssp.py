"""Tests of optimal_policy on matrices: the undiscounted stochastic shortest path (issue 50)."""

from __future__ import annotations

import json
import math
import pickle
import warnings

import naive
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from snl_numeric import Board, Chain, boards, optimal_policy, transition_matrix
from snl_numeric.dice import parse_dice
from snl_numeric.policy import ChainPolicyResult

D13, D46, D6 = parse_dice("1-3"), parse_dice("4-6"), parse_dice("d6")
MB = boards.get("milton-bradley")


def _die_matrices(board, dice):
    """The board's chain under each die alone: the matrices of the board's decision."""
    return [transition_matrix(board.replace(dice=d)) for d in dice]


def _close(got, want, rel):
    assert np.array_equal(np.isinf(got), np.isinf(want)), (got, want)
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=rel, atol=0)


# --- a board's per-die chains are the board's decision ---------------------------------
@pytest.mark.parametrize("board", [MB, MB.replace(overshoot="win"),
                                   MB.replace(overshoot="bounce")])
@pytest.mark.parametrize("method", ["policy", "value"])
def test_board_dice_as_matrices_give_the_board_answer_bitwise(board, method):
    dice = [D13, D46, D6]
    want = optimal_policy(board, dice, method=method)
    got = optimal_policy(_die_matrices(board, dice), start=board.start, method=method)
    assert isinstance(got, ChainPolicyResult)
    assert got.policy.tolist() == want.policy.tolist()
    assert np.array_equal(got.expected, want.expected)  # the same problem, bit for bit
    assert got.mean == want.mean and got.convergence.error == want.convergence.error


@settings(deadline=None, max_examples=30)
@given(st.integers(5, 60), st.integers(0, 2**32 - 1), st.sampled_from(["win", "exact",
                                                                          "bounce"]),
       st.booleans(), st.sampled_from(["min", "max"]),
       st.lists(st.sampled_from([D13, D46, D6, parse_dice("1-2"),
                                 parse_dice("1:0.3,3:0.7")]), min_size=1, max_size=3))
def test_random_boards_as_matrices(size, seed, overshoot, chain, objective, dice):
    b = boards.random_board(size, 0.2, rng=seed, overshoot=overshoot, chain=chain)
    if overshoot == "bounce":
        dice = [d for d in dice if d.max_face <= size + 1] or [parse_dice("1-2")]
    mats = _die_matrices(b, dice)
    # (the goal ends the game; a square that no die moves from is a trap, not an end)
    kw = {"objective": objective, "start": b.start, "absorbing": [b.size]}
    try:
        want = optimal_policy(b, dice, objective=objective)
    except ValueError as err:
        with pytest.raises(ValueError, match="infinite"):
            optimal_policy(mats, **kw)
        assert "infinite" in str(err)
        return
    got = optimal_policy(mats, **kw)
    assert got.policy.tolist() == want.policy.tolist()
    _close(got.expected, want.expected,
           (got.convergence.error + want.convergence.error) * 1.01 + 1e-15)


# --- tiny problems against brute force over every policy -------------------------------
@st.composite
def _tiny_ssp(draw):
    n_tr = draw(st.integers(1, 4))
    n_abs = draw(st.integers(1, 2))
    n = n_tr + n_abs
    n_act = draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    mats = []
    for _ in range(n_act):
        m = np.zeros((n, n))
        for x in range(n_tr):
            k = int(rng.integers(1, n + 1))
            to = rng.choice(n, size=k, replace=False)
            w = rng.random(k) + 0.05
            m[x, to] = w / w.sum()
        for x in range(n_tr, n):
            m[x, x] = 1.0
        mats.append(m)
    order = rng.permutation(n)  # absorbing states anywhere, not only last
    mats = [m[np.ix_(order, order)] for m in mats]
    kind = draw(st.sampled_from(["none", "positive", "zeros"]))
    costs = None
    if kind != "none":
        costs = rng.choice([0.5, 1.0, 2.0, 3.25], size=(n_act, n))
        if kind == "zeros":
            costs[rng.random((n_act, n)) < 0.3] = 0.0
    return mats, costs


@settings(deadline=None, max_examples=120)
@given(_tiny_ssp(), st.sampled_from(["min", "max"]), st.sampled_from(["policy", "value"]),
       st.integers(0, 5))
def test_tiny_problems_match_brute_force(problem, objective, method, start):
    mats, costs = problem
    n = mats[0].shape[0]
    start = start % n
    want = naive.ssp_brute_force(mats, costs, objective=objective)
    if want[start] is None and objective == "max":
        with pytest.raises(ValueError, match="infinite"):
            optimal_policy(mats, costs, objective=objective, start=start, method=method)
        return
    r = optimal_policy(mats, costs, objective=objective, start=start, method=method)
    exp = np.array([math.inf if want[x] is None else float(want[x]) for x in range(n)])
    _close(r.expected, exp, 1e-12)
    # the policy achieves its values: evaluated exactly by the brute force on its own
    pick = [np.where(r.policy[:, None] == a, m, 0.0) for a, m in enumerate(mats)]
    absorbing = [x for x in range(n) if r.policy[x] < 0]
    own = sum(pick) + np.diag([1.0 if x in absorbing else 0.0 for x in range(n)])
    c = None if costs is None else [[costs[int(max(r.policy[x], 0)), x] for x in range(n)]]
    mine = naive.ssp_brute_force([own], c, objective=objective, absorbing=absorbing)
    for x in range(n):
        if np.isfinite(exp[x]):
            assert float(mine[x]) == pytest.approx(exp[x], rel=1e-12)


# --- costs, maximising, hand-derived --------------------------------------------------
def test_walk_or_ride_closed_form():
    """On 0..N (N absorbing), walking moves up one with probability p (else stays) at cost
    1; riding to N costs c: V(x) = min(c, (N - x) / p), ride exactly where that is c (the
    worst play walks as long as a walk's 1 / p beats the ride)."""
    n, p, c = 12, 0.4, 9.0
    walk, ride = np.zeros((n + 1, n + 1)), np.zeros((n + 1, n + 1))
    for x in range(n):
        walk[x, x + 1], walk[x, x] = p, 1 - p
        ride[x, n] = 1.0
    walk[n, n] = ride[n, n] = 1.0
    r = optimal_policy([sp.csr_array(walk), ride], [1.0, c])
    want = [min(c, (n - x) / p) for x in range(n)] + [0.0]
    np.testing.assert_allclose(r.expected, want, rtol=1e-14)
    assert r.policy.tolist() == [1 if c < (n - x) / p else 0 for x in range(n)] + [-1]
    worst = optimal_policy([walk, ride], [1.0, c], objective="max")
    most = [0.0] * (n + 1)  # the worst: V(x) = max(c, 1 / p + V(x + 1))
    for x in range(n - 1, -1, -1):
        most[x] = max(c, 1 / p + most[x + 1])
    np.testing.assert_allclose(worst.expected, most, rtol=1e-14)
    per_state = np.array([np.ones(n + 1), np.full(n + 1, c)])
    assert optimal_policy([walk, ride], per_state).expected.tolist() == r.expected.tolist()


def test_max_prefers_the_slow_action():
    """From 0: A ends with probability 1/2 a step (2 steps), B with 1/4 (4 steps)."""
    a = np.array([[0.5, 0.5], [0.0, 1.0]])
    b = np.array([[0.75, 0.25], [0.0, 1.0]])
    lo, hi = optimal_policy([a, b]), optimal_policy([a, b], objective="max")
    assert (lo.mean, lo.policy.tolist()) == (2.0, [0, -1])
    assert (hi.mean, hi.policy.tolist()) == (4.0, [1, -1])


# --- improper policies ------------------------------------------------------------------
LOOP = np.array([[0, 1.0, 0], [0, 1.0, 0], [0, 0, 1.0]])    # 0 -> 1, then 1 forever
GO = np.array([[0, 0.5, 0.5], [0, 0.5, 0.5], [0, 0, 1.0]])  # ends with 1/2 a step


def test_min_avoids_an_action_that_never_ends():
    r = optimal_policy([LOOP, GO])
    assert r.policy.tolist() == [1, 1, -1] and r.expected.tolist() == [2.0, 2.0, 0.0]


def test_max_with_a_loop_names_the_state_and_action():
    with pytest.raises(ValueError, match=r"from state 'a' is infinite.*in state 'b', "
                                         r"action 0 never leaves it"):
        optimal_policy([LOOP, GO], objective="max", labels=["a", "b", "end"])


def test_max_infinite_elsewhere_but_finite_from_the_start():
    # state 1 loops under action 0; from state 0 both actions end at once
    end = np.array([[0, 0, 1.0], [0, 1.0, 0], [0, 0, 1.0]])
    r = optimal_policy([end, GO.copy() * 0 + end], objective="max", start=0,
                       absorbing=[2])
    assert r.mean == 1.0 and math.isinf(r.expected[1])


def test_min_is_infinite_where_no_action_ends():
    trap = np.array([[0.5, 0.5, 0], [0, 1.0, 0], [0, 0, 1.0]])
    r = optimal_policy([trap, trap], absorbing=[2])
    assert math.isinf(r.mean) and r.expected.tolist()[2] == 0.0


def test_free_steps_must_still_end():
    """Two states that bounce between them for free, or end at cost 1: the free loop never
    ends, so the least expected cost is 1, not 0."""
    bounce = np.array([[0, 1.0, 0], [1.0, 0, 0], [0, 0, 1.0]])
    end = np.array([[0, 0, 1.0], [0, 0, 1.0], [0, 0, 1.0]])
    r = optimal_policy([bounce, end], [0.0, 1.0])
    assert r.expected.tolist() == [1.0, 1.0, 0.0]
    assert r.policy.tolist() in ([1, 1, -1], [0, 1, -1], [1, 0, -1])
    with pytest.raises(ValueError, match="infinite"):
        optimal_policy([bounce, end], [0.0, 1.0], objective="max")



# --- free steps: the least over plays that finish surely --------------------------------
def test_a_free_loop_tied_in_rounding_is_no_way_out():
    """State 1 may loop for free back to 0 (which moves to 1 for free) with probabilities
    whose float sum is 1 but whose exact sum is ``1 - 2**-54``; or pay 2 for a throw that
    ends with 0.3067. Both values are equal (0 moves to 1 for free), so the loop's gain is
    exactly 0: its rounding once looked like a certain gain, and policy iteration stepped
    into the loop ("please report this board")."""
    free = np.array([[0, 1.0, 0], [0.5826472688254647, 0.41735273117453525, 0], [0, 0, 1.0]])
    out = np.array([[0, 1.0, 0], [0.3907208086832789, 0.30260414943838493,
                                  0.30667504187833616], [0, 0, 1.0]])
    for method in ("policy", "value"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = optimal_policy([free, out], [[0.0, 0.0, 0.0], [1.0, 2.0, 0.0]], method=method)
        assert r.policy.tolist()[1:] == [1, -1]
        assert r.expected[:2] == pytest.approx([2 / 0.30667504187833616] * 2, rel=1e-15)


@st.composite
def _free_loops(draw, most=4):
    """Chains whose actions are often free and never end (rows among the transient states
    only, or leaking ``eps`` to the goal), beside ordinary ones; the goal last."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_tr = draw(st.integers(2, most))
    n_act = draw(st.integers(2, 3))
    eps = draw(st.sampled_from([0.0, 0.0, 1e-3]))
    n = n_tr + 1
    costs = rng.choice([0.5, 1.0, 2.0], size=(n_act, n))
    mats = []
    for a in range(n_act):
        m = np.zeros((n, n))
        for x in range(n_tr):
            if rng.random() < 0.6:
                to = rng.choice(n_tr, size=int(rng.integers(1, min(4, n_tr) + 1)),
                                replace=False)
                w = rng.random(len(to)) + 0.05
                m[x, to] = w / w.sum() * (1 - eps)
                m[x, n_tr] += eps
                costs[a, x] = 0.0
            else:
                to = rng.choice(n, size=int(rng.integers(1, min(4, n) + 1)), replace=False)
                w = rng.random(len(to)) + 0.05
                m[x, to] = w / w.sum()
        m[n_tr, n_tr] = 1.0
        mats.append(m)
    return mats, costs


def _finishes_surely(r, mats):
    fin = np.isfinite(r.expected)
    return naive.ssp_is_proper(mats, r.policy, np.flatnonzero(fin & (r.policy >= 0)))


@settings(deadline=None, max_examples=60)
@given(_free_loops(), st.sampled_from(["policy", "value"]))
def test_free_loops_match_brute_force(problem, method):
    mats, costs = problem
    want = naive.ssp_brute_force(mats, costs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no warning: every answer certified)
        r = optimal_policy(mats, costs, method=method)
    exp = np.array([math.inf if w is None else float(w) for _, w in sorted(want.items())])
    _close(r.expected, exp, 1e-12)
    assert _finishes_surely(r, mats)


@settings(deadline=None, max_examples=25)
@given(_free_loops(most=9), st.sampled_from(["policy", "value"]))
def test_free_loops_least_over_proper_plays(problem, method):
    """Against value iteration from above over the plays that finish surely: each of its
    sweeps is above the answer (never the free loops' 0 that iteration from 0 finds), and
    the answer is the value of a play that finishes surely."""
    mats, costs = problem
    want, _ = naive.ssp_proper_values(mats, costs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = optimal_policy(mats, costs, method=method)
    assert np.array_equal(np.isfinite(r.expected), np.isfinite(want))
    fin = np.isfinite(want)
    assert np.all(r.expected[fin] <= want[fin] * (1 + 1e-12) + 1e-12)  # (0: rounding)
    np.testing.assert_allclose(r.expected[fin], want[fin], rtol=1e-8, atol=1e-9)
    assert _finishes_surely(r, mats)

# --- inputs -----------------------------------------------------------------------------
def test_sparse_dense_and_chains_agree():
    mats = _die_matrices(MB, [D13, D46])
    want = optimal_policy(mats)
    for form in ([m.toarray() for m in mats], [Chain(m) for m in mats],
                 [sp.csr_matrix(m) for m in mats], np.stack([m.toarray() for m in mats])):
        got = optimal_policy(form)
        assert np.array_equal(got.expected, want.expected)


def test_result_forms():
    r = optimal_policy([LOOP, GO], labels=["a", "b", "end"])
    assert json.loads(json.dumps(r.to_dict()))["policy"] == [1, 1, -1]
    assert "least expected steps" in str(r) and "'a'" in str(r)
    assert r.transition_matrix().toarray().tolist() == GO.tolist()
    assert r.costs.tolist() == np.ones((2, 3)).tolist()
    assert r == pickle.loads(pickle.dumps(r)) and r != optimal_policy([LOOP, GO], [1, 2])
    with pytest.raises(ValueError, match="read-only"):
        r.expected[0] = 0.0


@pytest.mark.parametrize("args, kwargs, exc, match", [
    (([],), {}, ValueError, "at least one action"),
    (([np.eye(3), np.eye(4)],), {}, ValueError, "same states: action 0 has 3 states, "
                                                "action 1 has 4"),
    (([GO, np.array([[0.5, 0.6, 0], [0, 1, 0], [0, 0, 1]])],), {}, ValueError,
     "action 1's matrix: rows of P must sum to 1"),
    (([GO, "d6"],), {}, TypeError, "action 1 must be a transition matrix"),
    (([GO, LOOP], [1.0, -1.0]), {}, ValueError, "action 1 on state 0 costs -1.0"),
    (([GO, LOOP], [1.0, np.array([1.0, np.nan, 1.0])]), {}, ValueError,
     "action 1 on state 1 costs nan"),
    (([GO, LOOP], [1.0]), {}, ValueError, "one entry per action \\(2\\), got 1"),
    (([GO], [np.ones(2)]), {}, ValueError, "one cost per state \\(3\\), got 2"),
    (([GO], "1"), {}, TypeError, "costs must be numbers"),
    (([GO], [1.0]), {"costs": [1.0]}, TypeError, "give the costs once"),
    (([GO],), {"optional_jumps": True}, TypeError, "no jumps"),
    (([np.array([[1.0, 0], [1.0, 0]]), np.array([[0, 1.0], [0, 1.0]])],), {}, ValueError,
     "no state is absorbing under every action"),
    (([GO, LOOP],), {"objective": "most"}, ValueError, "objective must be one of"),
    (([GO],), {"start": 7}, ValueError, "start must be a state in 0..2"),
    ((Board(10), [D6]), {"costs": 2.0}, TypeError, "costs= is for a problem given as "
                                                     "matrices"),
    ((Board(10),), {}, TypeError, "missing the dice"),
    ((GO, [D6]), {}, TypeError, "got a single ndarray: wrap it in a list"),
    ((Chain(GO),), {}, TypeError, "got a single Chain: wrap it in a list"),
    ((sp.csr_array(GO),), {}, TypeError, "got a single csr_array"),
])
def test_bad_input_is_named(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        optimal_policy(*args, **kwargs)


# --- the large-problem path ---------------------------------------------------------------
@settings(deadline=None, max_examples=15)
@given(st.integers(5, 80), st.integers(0, 2**32 - 1), st.sampled_from(["win", "exact"]),
       st.sampled_from(["min", "max"]), st.sampled_from(["policy", "value"]))
def test_matrices_on_the_large_path_agree_with_the_board(size, seed, overshoot, objective,
                                                         method):
    """Forced onto the large-board path (structured solver; the board's Numba kernels, the
    matrices' NumPy sums, the traps' kernel for both), matrices still give the board's
    answer."""
    from snl_numeric import options

    b = boards.random_board(size, 0.2, rng=seed, overshoot=overshoot)
    dice = [D13, D46, D6]
    mats = _die_matrices(b, dice)
    with options(path="structured"):
        try:
            want = optimal_policy(b, dice, objective=objective, method=method)
        except ValueError:
            with pytest.raises(ValueError, match="infinite"):
                optimal_policy(mats, objective=objective, start=b.start, method=method,
                               absorbing=[b.size])
            return
        got = optimal_policy(mats, objective=objective, start=b.start, method=method,
                             absorbing=[b.size])
    assert got.policy.tolist() == want.policy.tolist()
    _close(got.expected, want.expected,
           (got.convergence.error + want.convergence.error) * 1.01 + 1e-15)
