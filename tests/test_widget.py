"""``edit(board)``: the board editor in Jupyter (issue 52), driven through its controls."""

from __future__ import annotations

import re

import pytest

from snl_numeric import Board, boards, edit, expected_throws, win_probabilities

MB = boards.get("milton-bradley")


def shown(editor, key: str) -> str:
    m = re.search(rf'<td data-key="{re.escape(key)}">([^<]*)</td>', editor.numbers.value)
    assert m, editor.numbers.value
    return m.group(1)


def shown_mean(editor) -> float:
    text = shown(editor, "expected throws")
    return float("inf") if text == "∞" else float(text)


def test_the_editor_follows_its_controls():
    ed = edit(MB)
    assert ed.board == MB and len(ed.jump_rows) == len(MB.jumps)
    assert shown_mean(ed) == pytest.approx(expected_throws(MB), rel=1e-9)
    ed.overshoot.value = "bounce"
    ed.chain.value = True
    ed.dice.value = "2d6"
    ed.start.value = 1
    want = MB.replace(overshoot="bounce", chain=True, dice="2d6", start=1)
    assert ed.board.to_dict() | {"name": None} == want.to_dict() | {"name": None}
    assert shown_mean(ed) == pytest.approx(expected_throws(want), rel=1e-9)
    # retarget the first jump, move the second, delete the third, add one
    (s0, d0), (s1, d1), (s2, _) = list(MB.jumps.items())[:3]
    ed.jump_rows[0].children[1].value = 60
    ed.jump_rows[1].children[0].value = 3
    ed.jump_rows[2].children[2].click()
    ed.add_from.value, ed.add_to.value = 55, 99
    ed.add_button.click()
    jumps = {**MB.jumps, s0: 60}
    del jumps[s1], jumps[s2]
    jumps[3] = d1
    jumps[55] = 99
    want = Board(100, jumps, overshoot="bounce", chain=True, dice="2d6", start=1)
    assert ed.board == want
    assert shown_mean(ed) == pytest.approx(expected_throws(want), rel=1e-9)
    first = float(shown(ed, "two players: the first wins").split()[0])
    assert first == pytest.approx(win_probabilities(want, 2)[0], abs=1e-8)


def test_a_refused_edit_keeps_the_board():
    ed = edit(boards.get("seed-30"))
    before = ed.board
    ed.add_from.value, ed.add_to.value = 2, 5  # square 2 starts a ladder already
    ed.add_button.click()
    assert ed.board == before and "two jumps start on square 2" in ed.message.value
    ed.dice.value = "1:0.5,2:0.4"
    assert ed.board == before and "sum to 1" in ed.message.value
    assert ed.dice.value == "d6"  # the controls show the board as it is
    ed.overshoot.value = "win"  # the next good edit clears the message
    assert ed.message.value == "" and ed.board.overshoot == "win"


def test_an_edit_keeps_the_capture_rule():
    # the capture rule has no control: an edit used to drop it (and the race numbers with it)
    board = boards.get("seed-30").replace(capture="start", safe=[5])
    ed = edit(board)
    ed.overshoot.value = "win"
    want = board.replace(overshoot="win")
    assert ed.board.to_dict() | {"name": None} == want.to_dict() | {"name": None}
    assert (ed.board.capture, ed.board.safe) == ("start", (5,))
    first = float(shown(ed, "two players: the first wins").split()[0])
    assert first == pytest.approx(win_probabilities(want, 2)[0], abs=1e-8)
    assert abs(first - win_probabilities(want.replace(capture=None), 2)[0]) > 1e-4
    ed.size.value = 4  # a safe square off the board: refused, in the board's words
    assert ed.board.size == 29 and "safe" in ed.message.value


def test_an_endless_board_shows_infinity():
    ed = edit(Board(10, {5: 9, 6: 10, 7: 10}, overshoot="exact", dice={2: 0.5, 3: 0.5}))
    assert shown_mean(ed) == float("inf")
    assert "finish probability" in ed.numbers.value
    bundle = ed._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
