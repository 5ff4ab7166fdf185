"""Progress bars (issue 16, item 3): tqdm behind ``progress=``, silent in pipes unless asked."""

from __future__ import annotations

import io
import re
import time

import numpy as np
import pytest

from snl_numeric import (
    Board,
    analyze_many,
    boards,
    design_board,
    jump_candidates,
    jump_impact,
    length_distribution,
    options,
    simulate,
    win_probabilities,
)
from snl_numeric._core.progress import Progress, check_progress
from snl_numeric.batch import BoardBatch, data, random_batch
from snl_numeric.meet import meet_game


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def frames(text: str) -> list[str]:
    return [f for f in re.split(r"[\r\n]", text) if f.strip()]


def test_pipe_gets_nothing_unless_asked():
    pipe = io.StringIO()
    with Progress(100, "work", stream=pipe) as bar:
        bar.update(100)
    assert pipe.getvalue() == "" and not bar.enabled and bar.done == 100
    with Progress(100, "work", enabled="always", stream=pipe) as bar:
        bar.update(100)
    assert bar.done == 100 and "work: 100%" in pipe.getvalue()


def test_terminal_gets_a_bar_that_never_passes_its_total():
    term = FakeTerminal()
    with Progress(16_000, "simulate", stream=term) as bar:
        for _ in range(20):
            bar.update(1_000)  # 20k reported, 16k expected
    assert bar.done == 16_000
    text = term.getvalue()
    assert "16.0k/16.0k" in text and "16.1k" not in text and "nan" not in text
    assert text.count("100%") == 1  # one final line, not two
    assert text.endswith("\n")


def test_a_slow_last_step_draws_one_final_line():
    """tqdm redraws a step that comes later than its 0.1 s interval, and close() draws the
    end again: the last step is left to close(), so a pipe gets one 100% line."""
    pipe = io.StringIO()
    with Progress(100, "work", enabled="always", stream=pipe) as bar:
        bar.update(50)
        time.sleep(0.15)
        bar.update(50)
    text = pipe.getvalue()
    assert text.count("100%") == 1 and text.endswith("\n") and "100/100" in text


def test_unknown_total_counts():
    term = FakeTerminal()
    with Progress(0, "paths", stream=term) as bar:
        bar.update(5)
        bar.update(7)
    assert bar.done == 12 and "paths: 12" in frames(term.getvalue())[-1]


def test_disabled_writes_nothing_even_on_a_terminal():
    term = FakeTerminal()
    with Progress(10, "x", enabled=False, stream=term) as bar:
        bar.update(3)
    assert term.getvalue() == "" and bar.done == 3


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_bad_switch(bad):
    with pytest.raises(TypeError, match="progress must be True, False or 'always'"):
        check_progress(bad)
    with pytest.raises(TypeError, match="progress must be True, False or 'always'"):
        simulate(boards.get("seed-30"), 10, progress=bad)
    with pytest.raises(TypeError, match="progress must be True, False or 'always'"):
        jump_impact(boards.get("seed-30"), median=True, progress=bad)
    with pytest.raises(TypeError, match="progress must be True, False or 'always'"):
        jump_candidates(boards.get("seed-30"), progress=bad)
    with pytest.raises(TypeError, match="progress must be True, False or 'always'"):
        random_batch(2, 20, snakes=1, ladders=1, progress=bad)
    with pytest.raises(TypeError, match="progress must be True, False or 'always'"):
        length_distribution(boards.get("seed-30"), progress=bad)
    with pytest.raises(TypeError, match="progress must be True, False or 'always'"):
        win_probabilities(boards.get("seed-30"), exact=True, progress=bad)


def test_library_bars_in_a_pipe_write_nothing(capsys):
    mb = boards.get("milton-bradley")
    simulate(mb, 2_000, rng=1, progress=True)
    design_board(20, snakes=1, ladders=1, objective="max", iterations=20, chains=2, rng=1,
                 progress=True)
    analyze_many([mb], progress=True)
    jump_impact(mb, median=True, players=2, progress=True)
    jump_candidates(mb, progress=True)
    random_batch(100, 30, snakes=2, ladders=2, rng=1, progress=True)
    length_distribution(mb, progress=True)
    win_probabilities(mb.replace(capture="start"), 2, progress=True)
    assert capsys.readouterr().err == ""


def test_library_bars_when_asked(capsys):
    simulate(boards.get("milton-bradley"), 2_000, rng=1, progress="always")
    err = capsys.readouterr().err
    assert frames(err)[-1].startswith("simulate: 100%") and "2.00k/2.00k" in err


def test_jump_impact_counts_the_boards_it_solves_one_removal_at_a_time(capsys):
    mb = boards.get("milton-bradley")  # 19 jumps: a median and a race without each
    plain = jump_impact(mb, median=True, players=2)
    shown = jump_impact(mb, median=True, players=2, progress="always")
    err = capsys.readouterr().err
    assert frames(err)[-1].startswith("jump_impact: 100%") and "38.0/38.0" in err
    assert err.count("100%") == 1
    for field in ("mean_without", "std_without", "median_without", "win_probability_without"):
        assert np.array_equal(getattr(shown, field), getattr(plain, field), equal_nan=True)
    jump_impact(mb, progress="always")  # one factorisation, no board solved afresh: no bar
    assert capsys.readouterr().err == ""


def test_jump_impact_counts_both_passes_when_the_mean_is_infinite(capsys):
    from snl_numeric import Board

    board = Board(10, jumps={3: 8, 5: 9, 7: 2}, overshoot="exact", dice={3: 1.0})
    shown = jump_impact(board, progress="always")  # 3 + 6 + 9 from 0, 9 -> 10 never
    err = capsys.readouterr().err
    assert np.isnan(shown.probability).all() and "6.00/6.00" in err


def test_jump_candidates_counts_squares_block_by_block(capsys, monkeypatch):
    from snl_numeric.impact import compute

    mb = boards.get("milton-bradley")
    plain = jump_candidates(mb.replace())
    monkeypatch.setattr(compute, "BLOCK_BYTES", 8 * 101 * 10)  # ten squares a block
    assert len(compute._blocks(101, 101)) == 11
    shown = jump_candidates(mb.replace(), progress="always")
    err = capsys.readouterr().err
    assert frames(err)[-1].startswith("jump_candidates: 100%") and "101/101" in err
    assert err.count("100%") == 1 and "/101" in frames(err)[0]
    assert np.allclose(shown, plain, rtol=1e-13, atol=0.0, equal_nan=True)


def test_random_batch_counts_boards_chunk_by_chunk(capsys, monkeypatch):
    plain = random_batch(1_000, 30, snakes=3, ladders=3, rng=5)
    # 30 squares, 6 jumps: 31 * 10 + 64 * 6 = 694 bytes of work a board, 100 boards a chunk
    monkeypatch.setattr(data, "RANDOM_CHUNK_BYTES", 694 * 100)
    shown = random_batch(1_000, 30, snakes=3, ladders=3, rng=5, progress="always")
    err = capsys.readouterr().err
    assert frames(err)[-1].startswith("random_batch: 100%") and "1.00k/1.00k" in err
    assert err.count("100%") == 1 and "/1.00k" in frames(err)[0]
    # chunks draw from the generator in turn: ten calls of one chunk each, other boards
    gen = np.random.default_rng(5)
    parts = [random_batch(100, 30, snakes=3, ladders=3, rng=gen) for _ in range(10)]
    assert BoardBatch.concat(parts).fingerprint() == shown.fingerprint()
    assert shown.fingerprint() != plain.fingerprint()
    assert random_batch(1_000, 30, snakes=3, ladders=3, rng=5).fingerprint() == \
        shown.fingerprint()  # (the progress switch changes nothing)
    for i in (0, 99, 100, 999):
        board = shown[i]
        assert len(board.snakes) == 3 and len(board.ladders) == 3


@pytest.mark.parametrize("path", ["direct", "structured"])
def test_length_distribution_counts_the_throws_it_pushes(capsys, path):
    """No total is known before the tail falls below ``tail``: the bar counts throws, a
    block of them per product on ordinary boards, one per kernel call on large ones."""
    with options(path=path):  # (boards built inside: the path of large boards too)
        board = Board(100, {99: 2, 50: 1}, overshoot="exact")
        plain = length_distribution(board)
        shown = length_distribution(board, progress="always")
    err = capsys.readouterr().err
    throws = len(plain) - 1
    assert throws > 1000 and np.array_equal(shown, plain)
    assert frames(err)[0].startswith("length_distribution: 0.00it")  # no total
    assert frames(err)[-1].startswith(f"length_distribution: {throws / 1000:.2f}kit")
    assert err.count("length_distribution: 0.00it") == 1  # one bar


def test_win_probabilities_counts_each_distinct_push(capsys):
    mb = boards.get("milton-bradley")
    one = len(length_distribution(mb)) - 1
    d3 = len(length_distribution(mb.replace(dice="1-3"))) - 1
    plain = win_probabilities([mb, mb.replace(dice="1-3"), mb])
    shown = win_probabilities([mb, mb.replace(dice="1-3"), mb], progress="always")
    err = capsys.readouterr().err
    assert np.array_equal(shown, plain)
    # players 0 and 2 share one distribution: pushed once
    assert frames(err)[-1].startswith(f"win_probabilities: {(one + d3) / 1000:.2f}kit")
    # under a capture rule: the joint chain, a throw at a time
    capture = mb.replace(capture="start")
    assert np.array_equal(win_probabilities(capture, 2, progress="always"),
                          win_probabilities(capture, 2))
    last = frames(capsys.readouterr().err)[-1]
    throws = int(last.split()[1].removesuffix("it"))
    ends = meet_game([capture, capture], [0, 0], 1e-12, 10**7).ends  # (padded to rounds)
    assert last.startswith("win_probabilities: ") and len(ends) - 3 < throws <= len(ends) - 1


def test_optimal_race_counts_its_sweeps(capsys):
    """No total is known before the bracket closes: the bar counts the sweeps, as the
    result's convergence does; the answer is the same with the bar."""
    from snl_numeric import optimal_race, race_value

    mb, dice = boards.get("milton-bradley"), ["1-3", "4-6"]
    plain = optimal_race(mb, dice)
    shown = optimal_race(mb, dice, progress="always")
    err = capsys.readouterr().err
    sweeps = shown.convergence.sweeps
    assert sweeps > 10 and frames(err)[0].startswith("optimal_race: 0.00it")
    assert frames(err)[-1].startswith(f"optimal_race: {sweeps:.1f}it")
    assert err.count("optimal_race: 0.00it") == 1  # one bar
    for field in ("value", "opponent_wins", "policy", "take"):
        assert np.array_equal(getattr(shown, field), getattr(plain, field))
    assert shown.convergence == plain.convergence
    # against a fixed opponent: policy iteration, its sweeps and evaluations
    fixed = optimal_race(mb, dice, opponent=plain, progress="always")
    assert frames(capsys.readouterr().err)[-1].startswith("optimal_race: ")
    assert np.array_equal(fixed.value, optimal_race(mb, dice, opponent=plain).value)
    # both players fixed: the chain's sweeps
    value = race_value(mb, dice, plain, plain, progress="always")
    last = frames(capsys.readouterr().err)[-1]
    assert last.startswith("race_value: ") and int(float(last.split()[1][:-2])) > 10
    assert value == race_value(mb, dice, plain, plain)
    with pytest.raises(TypeError, match="progress must be True, False or 'always'"):
        optimal_race(mb, dice, progress="yes")


@pytest.mark.parametrize("push", ["dense", "sparse"])
def test_sensitivity_of_the_win_counts_throws_forward_then_back(capsys, monkeypatch, push):
    import importlib

    from snl_numeric import sensitivity as sensitivity_fn

    module = importlib.import_module("snl_numeric.sensitivity")
    pushed = []
    forward = module._forward

    def counted(*args):
        out = forward(*args)
        pushed.append(len(out[0]) - 1)  # pmf[0 .. N]: N throws pushed forward
        return out

    monkeypatch.setattr(module, "_forward", counted)
    done = []

    class Counted(Progress):
        def close(self) -> None:
            done.append(self.done)
            super().close()

    monkeypatch.setattr(module, "Progress", Counted)
    board = Board(60, {59: 2, 30: 1, 7: 40}, overshoot="exact")
    with options(push=push):
        for wrt in ("dice", "transitions"):
            plain = sensitivity_fn(board, of="win", wrt=wrt)
            shown = sensitivity_fn(board, of="win", wrt=wrt, progress="always")
            err = capsys.readouterr().err
            grad = shown.gradient if wrt == "dice" else shown.gradient.toarray()
            assert shown.value == plain.value
            assert np.array_equal(grad, plain.gradient if wrt == "dice"
                                  else plain.gradient.toarray())
            n = pushed[-1]
            assert n > 200 and done[-1] == 2 * n  # every throw forward, then back
            assert frames(err)[0].startswith("sensitivity: 0.00it")
            assert err.count("sensitivity: 0.00it") == 1


def test_sensitivity_to_jump_moves_counts_the_moved_boards(capsys):
    from snl_numeric import sensitivity

    mb = boards.get("milton-bradley")  # 19 jumps, 2 ends, 4 moves each way
    plain = sensitivity(mb, of="win", wrt="jumps", shift=2)
    shown = sensitivity(mb, of="win", wrt="jumps", shift=2, progress="always")
    err = capsys.readouterr().err
    assert frames(err)[-1].startswith("sensitivity (jumps): 100%") and "152/152" in err
    assert err.count("100%") == 1
    assert np.array_equal(shown.gradient, plain.gradient, equal_nan=True)
    sensitivity(mb, of="mean", progress="always")  # two solves: no bar
    assert capsys.readouterr().err == ""


def test_snl_race_shows_its_bar_when_asked(capsys):
    from snl_numeric.cli import main

    args = ["race", "milton-bradley", "--action", "1-3", "--action", "4-6", "--json"]
    assert main(args) == 0  # stderr is a pipe here: no bar by default
    quiet = capsys.readouterr()
    assert quiet.err == ""
    assert main([*args, "--progress"]) == 0
    shown = capsys.readouterr()
    assert shown.out == quiet.out and frames(shown.err)[-1].startswith("optimal_race: 28.0it")
    assert main([*args, "--no-progress"]) == 0 and capsys.readouterr().err == ""


def test_choosing_the_bar_swaps_no_warning_filters(monkeypatch):
    """``warnings.catch_warnings`` saves and restores the process-wide filters: a filter
    another thread sets meanwhile is lost. A bar is chosen without it."""
    import warnings

    entered = []

    class Spy(warnings.catch_warnings):
        def __enter__(self):
            entered.append(self)
            return super().__enter__()

    monkeypatch.setattr(warnings, "catch_warnings", Spy)
    with Progress(3, "work", enabled="always", stream=io.StringIO()) as bar:
        bar.update(3)
    assert entered == [] and bar.done == 3


def _fake_kernel(monkeypatch):
    """A Jupyter kernel as :func:`in_notebook` sees it (IPython's shell with a kernel)."""
    import sys
    import types

    class ZMQInteractiveShell:
        kernel = object()

    fake = types.ModuleType("IPython")
    fake.get_ipython = ZMQInteractiveShell
    monkeypatch.setitem(sys.modules, "IPython", fake)
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))


def test_a_notebook_gets_the_widget_bar_when_it_can_show_one(monkeypatch):
    """As ``tqdm.auto`` chooses: widgets with ipywidgets, else the text bar (also in a Qt
    console or Spyder, which show no widgets)."""
    import importlib

    import tqdm.notebook
    import tqdm.std

    progress = importlib.import_module("snl_numeric._core.progress")
    assert progress._tqdm_class() is tqdm.std.tqdm  # not in a notebook
    _fake_kernel(monkeypatch)
    assert progress.in_notebook()
    assert progress._tqdm_class() is tqdm.notebook.tqdm
    monkeypatch.setenv("QT_API", "pyqt5")
    assert progress._tqdm_class() is tqdm.std.tqdm
    monkeypatch.delenv("QT_API")
    monkeypatch.setattr(progress, "find_spec", lambda name: None)  # no ipywidgets
    assert progress._tqdm_class() is tqdm.std.tqdm


def test_a_notebook_whose_ipywidgets_cannot_load_gets_the_text_bar(monkeypatch):
    """ipywidgets installed but not importable (a missing dependency, an old version):
    tqdm's widget bar then raises ImportError when made, so ``tqdm.autonotebook`` falls
    back to the text bar; so does ours, and a bar is made."""
    import importlib

    import tqdm.notebook
    import tqdm.std

    progress = importlib.import_module("snl_numeric._core.progress")
    _fake_kernel(monkeypatch)
    monkeypatch.setattr(tqdm.notebook, "IProgress", None)  # as tqdm leaves it then
    assert progress._tqdm_class() is tqdm.std.tqdm
    with Progress(3, "work", enabled="always", stream=io.StringIO()) as bar:
        bar.update(3)
    assert bar.done == 3
