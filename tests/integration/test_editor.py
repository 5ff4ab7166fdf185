"""The editable report (issue 52): the page's own solver is the library's twin.

A real headless chromium (see ``browser.py``) loads the editable report and the test edits
the board through the page's controls (inputs set and their ``change`` events fired,
buttons clicked), 1,000 random edits of Milton Bradley and of random 30-200-square boards
over every rule and dice strings, all in one page session; after each the page's expected
throws, standard deviation and first 200 probabilities are compared with the library's.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import urllib.parse

import numpy as np
import pytest
from browser import evaluate, open_page, page_problems, screenshot

from snl_numeric import (
    Board,
    boards,
    expected_throws,
    jump_impact,
    length_distribution,
    report,
    throws_variance,
    win_probabilities,
)
from snl_numeric.cli import main

MB = boards.get("milton-bradley")
DICE = ["d6", "4", "1-3", "2d6", "3d4", "1:0.5,2:0.5", "1:1/3,2:1/3,4:1/3", "2:0.25,3:0.75",
        "5-8", "d10", "1:0.1,2:0.2,3:0.3,4:0.4", "2-7", "1:0.9,6:0.1"]
RULES = ["win", "exact", "bounce"]
#: How the test fires an edit: the same inputs and buttons a reader uses.
DRIVER = """
function fire(el, value) { el.value = String(value); el.dispatchEvent(new Event('change', {bubbles: true})); }
function q(sel) { return document.querySelector(sel); }
function apply(e) {
  var op = e[0];
  if (op === 'add') {
    q('#snl-add-from').value = String(e[1]); q('#snl-add-to').value = String(e[2]);
    q('#snl-add').click();
  }
  else if (op === 'move') fire(q('input[data-jump="' + e[1] + '"][data-end="from"]'), e[2]);
  else if (op === 'retarget') fire(q('input[data-jump="' + e[1] + '"][data-end="to"]'), e[2]);
  else if (op === 'delete') q('button[data-delete="' + e[1] + '"]').click();
  else if (op === 'overshoot') fire(q('#snl-overshoot'), e[1]);
  else if (op === 'chain') { if (q('#snl-chain').checked !== e[1]) q('#snl-chain').click(); }
  else if (op === 'start') fire(q('#snl-start'), e[1]);
  else if (op === 'size') fire(q('#snl-size'), e[1]);
  else if (op === 'dice') fire(q('#snl-dice'), e[1]);
}
function run(sessions) {
  var out = [];
  sessions.forEach(function (s) {
    snlEditor.load(s.board);
    var rows = [];
    s.edits.forEach(function (e) {
      apply(e);
      var r = JSON.parse(snlEditor.result()), ms = r.ms;
      r.best_ms = ms;
      r.mean_shown = q('td[data-key="expected throws"]').textContent;
      r.json = decodeURIComponent(q('#snl-download').getAttribute('href').split(',').slice(1).join(','));
      r.fragment = q('#snl-share').getAttribute('href');
      rows.push(r);
    });
    out.push(rows);
  });
  return JSON.stringify(out);
}
"""


# -- the edits, mirrored in Python -----------------------------------------------------------
def make(state: dict) -> Board | None:
    try:
        return Board(state["size"], [tuple(j) for j in state["jumps"]], start=state["start"],
                     overshoot=state["overshoot"], chain=state["chain"], dice=state["dice"])
    except ValueError:
        return None


def applied(state: dict, edit: list) -> dict:
    new = {**state, "jumps": [list(j) for j in state["jumps"]]}
    op = edit[0]
    if op == "add":
        new["jumps"].append([edit[1], edit[2]])
    elif op == "move":
        new["jumps"][edit[1]][0] = edit[2]
    elif op == "retarget":
        new["jumps"][edit[1]][1] = edit[2]
    elif op == "delete":
        del new["jumps"][edit[1]]
    else:
        new[op] = edit[1]
    return new


def random_edit(rng: random.Random, state: dict) -> list:
    size, jumps = state["size"], state["jumps"]
    kinds = ["add"] * 3 + ["move", "retarget", "delete"] * 2 * bool(jumps) + [
        "overshoot", "chain", "start", "dice", "size"]
    op = rng.choice(kinds)
    square = lambda: rng.randrange(1, size)  # noqa: E731
    if op == "add":
        return ["add", square(), rng.randrange(0, size + 1)]
    if op in ("move", "retarget", "delete"):
        i = rng.randrange(len(jumps))
        if op == "delete":
            return ["delete", i]
        return [op, i, square() if op == "move" else rng.randrange(0, size + 1)]
    if op == "overshoot":
        return ["overshoot", rng.choice(RULES)]
    if op == "chain":
        return ["chain", not state["chain"]]
    if op == "start":
        return ["start", rng.choice([0, 0, 1, square()])]
    if op == "dice":
        return ["dice", rng.choice(DICE)]
    top = max([s for s, _ in jumps] + [d for _, d in jumps] + [12])
    return ["size", rng.randrange(max(top + 1, size - 10), size + 11)]


def random_board(rng: random.Random) -> dict:
    size = rng.randrange(30, 201)
    state = {"size": size, "jumps": [], "start": 0, "overshoot": rng.choice(RULES),
             "chain": rng.random() < 0.3, "dice": rng.choice(DICE)}
    used: set[int] = set()
    for _ in range(rng.randrange(0, size // 5 + 1)):
        s = rng.randrange(1, size)
        if s not in used:
            used.add(s)
            d = rng.randrange(0, size + 1)
            if d != s and make({**state, "jumps": [*state["jumps"], [s, d]]}) is not None:
                state["jumps"].append([s, d])
    return state


def sessions(seed: int, n_edits: int) -> list[dict]:
    """Milton Bradley, then random boards, with random edits each (a few the rules refuse)."""
    rng = random.Random(seed)
    mb = {"size": 100, "jumps": [list(j) for j in MB.jumps.items()], "start": 0,
          "overshoot": "exact", "chain": False, "dice": "d6"}
    out, left, first = [], n_edits, True
    while left > 0:
        state = mb if first else random_board(rng)
        board = make(state)
        assert board is not None
        state = {**state, "jumps": board.to_dict()["jumps"]}  # the page lists them so
        sess = {"board": board.to_dict(), "edits": [], "states": []}
        for _ in range(min(left, 300 if first else rng.randrange(20, 60))):
            edit = random_edit(rng, state)
            new = applied(state, edit)
            ok = make(new) is not None
            if not ok and rng.random() < 0.8:
                continue  # mostly edits the rules allow; the others must be refused
            sess["edits"].append(edit)
            sess["states"].append(new if ok else None)
            state = new if ok else state
            left -= 1
        out.append(sess)
        first = False
    return out


def close(page: float, lib: float, rtol: float = 1e-9) -> bool:
    if math.isinf(lib) or math.isinf(page):
        return page == lib
    return abs(page - lib) <= rtol * abs(lib)


def number(text: str) -> float:
    return {"Infinity": math.inf, "NaN": math.nan}.get(text, None) or float(text)


def test_page_solver_is_the_library_twin(tmp_path, browser):
    path = tmp_path / "edit.html"
    report(MB, path, editable=True)
    session, problems = open_page(browser, str(path), width=1100, height=900)
    assert problems == []
    plan = sessions(seed=52, n_edits=1000)
    evaluate(browser, session, DRIVER + "window.__run = run; 0")
    got = []
    for s in plan:  # one call a board: each well within the DevTools timeout
        payload = json.dumps([{"board": s["board"], "edits": s["edits"]}])
        got += json.loads(evaluate(browser, session, f"__run({payload})"))
    times, refused, checked, endless = [], 0, 0, 0
    for sess, rows in zip(plan, got, strict=True):
        last = make_from_dict(sess["board"])
        for edit, state, row in zip(sess["edits"], sess["states"], rows, strict=True):
            if state is None:  # refused: an error is shown, the board is as it was
                refused += 1
                assert row["error"], edit
                assert Board.from_dict(json.loads(row["json"])) == last
                continue
            assert row["error"] is None, (edit, row["error"])
            board = make(state)
            assert board is not None
            last = board
            times.append(row["best_ms"])
            mean, std = number(row["mean"]), number(row["std"])
            lib_mean = expected_throws(board)
            assert close(mean, lib_mean), (edit, state, mean, lib_mean)
            if math.isfinite(lib_mean):
                assert close(std, math.sqrt(throws_variance(board))), (edit, state)
                assert row["mean_shown"] == f"{float(f'{mean:.10g}')!r}".removesuffix(".0")
            else:
                endless += 1
                assert row["mean_shown"] == "∞"
            pmf = length_distribution(board)[:200]
            page_pmf = np.array(row["pmf"])
            n = min(len(pmf), len(page_pmf))
            assert np.all(np.abs(page_pmf[:n] - pmf[:n]) <= 1e-9 * pmf[:n] + 1e-300), (edit, state)
            assert np.all(page_pmf[n:] <= 1e-11) and np.all(pmf[n:] <= 1e-11)
            if row["tail"] < 1e-12:  # (else the page says which games it left out)
                assert abs(row["edge"] - (win_probabilities(board, 2)[0] - 0.5)) <= 1e-9
            again = Board.from_json(row["json"])  # the download link reloads in the library
            assert again == board
            frag = json.loads(urllib.parse.unquote(row["fragment"].removeprefix("#board=")))
            assert Board.from_dict(frag) == board
            checked += 1
    assert checked + refused == 1000 and refused >= 10 and endless >= 1, (checked, refused, endless)
    # each update (solve and redraw) timed by the page itself; how long it takes is for
    # benchmarks/bench_editor.py (no timed unit tests on a shared machine)
    assert all(0 < t < 10_000 for t in times)
    assert page_problems(browser, session) == []


def make_from_dict(data: dict) -> Board:
    return Board.from_dict(data)


def test_jump_impact_in_the_page(tmp_path, browser):
    board = Board(60, {3: 22, 9: 2, 17: 40, 33: 8, 41: 59, 50: 12, 55: 30}, overshoot="bounce",
                  chain=True, dice="2d4")
    path = tmp_path / "impact.html"
    report(board, path, editable=True)
    session, problems = open_page(browser, str(path), width=900, height=900)
    assert problems == []
    got = json.loads(evaluate(browser, session, "snlEditor.result()"))
    imp = jump_impact(board)
    lib = {(int(s), int(d)): float(c) for s, d, c in
           zip(imp.source, imp.destination, imp.mean_change, strict=True)}
    page = {(s, d): number(c) for s, d, c in got["impact"]}
    assert page.keys() == lib.keys()
    for key, change in lib.items():
        assert close(page[key], change, 1e-8), (key, page[key], change)


def test_the_link_shares_the_board(tmp_path, browser):
    path = tmp_path / "share.html"
    report(MB, path, editable=True)
    edited = Board(50, {2: 30, 45: 3}, overshoot="bounce", dice="2d4", start=1)
    url = "file://" + os.path.abspath(path) + "#board=" + urllib.parse.quote(edited.to_json())
    session, problems = open_page(browser, str(path), width=900, height=900)
    evaluate(browser, session, f"location.href = {json.dumps(url)}; location.reload(); 0")
    browser.wait_for("Page.loadEventFired", session)
    got = json.loads(evaluate(browser, session, "snlEditor.result()"))
    assert close(number(got["mean"]), expected_throws(edited))
    assert Board.from_dict(json.loads(evaluate(browser, session,
                                               "JSON.stringify(snlEditor.board())"))) == edited
    # the report's own sections describe Milton Bradley: hidden while the board differs
    assert evaluate(browser, session, "document.getElementById('visits').hidden") is True
    assert problems == []


@pytest.mark.parametrize("name", ["<!--<script>", "a</script><!--<script>b", "&lt;\u2028'\""])
def test_a_board_name_cannot_break_the_editor(tmp_path, browser, name):
    # the name is user text inside the page's JSON <script>: "<!--<script>" there put the
    # HTML parser in its "double escaped" state, the block's own </script> no longer ended it
    # and the editor's script was swallowed as data (the page showed no editor)
    board = Board(20, {3: 15, 17: 4}, name=name)
    path = tmp_path / "name.html"
    report(board, path, editable=True)
    session, problems = open_page(browser, str(path), width=900, height=900)
    assert problems == []
    assert Board.from_dict(json.loads(evaluate(browser, session,
                                               "JSON.stringify(snlEditor.board())"))) == board
    got = json.loads(evaluate(browser, session, "snlEditor.result()"))
    assert close(number(got["mean"]), expected_throws(board))


def test_keyboard_edits_and_screenshots(tmp_path, browser):
    """Focus and keys only: type a new jump, press Enter; the numbers follow. The screenshots
    are those of the docs page (written to $SNL_EDITOR_SHOTS when it is set)."""
    path = tmp_path / "kb.html"
    report(MB, path, editable=True)
    session, problems = open_page(browser, str(path), width=1100, height=1400)
    assert problems == []
    evaluate(browser, session, "document.getElementById('snl-add-from').focus(); 0")
    type_keys(browser, session, ("5", "0", "Tab", "9", "9", "Enter"))
    added = MB.replace(jumps={**MB.jumps, 50: 99})
    got = json.loads(evaluate(browser, session, "snlEditor.result()"))
    assert got["error"] is None
    assert close(number(got["mean"]), expected_throws(added))
    # retarget the first ladder from the keyboard: the field keeps the focus
    evaluate(browser, session, "var f = document.querySelector('input[data-jump=\"0\"][data-end=\"to\"]');"
                               "f.value = ''; f.focus(); 0")
    type_keys(browser, session, ("4", "0", "Enter"))
    got = json.loads(evaluate(browser, session, "snlEditor.result()"))
    assert close(number(got["mean"]), expected_throws(added.replace(jumps={**added.jumps, 1: 40})))
    assert evaluate(browser, session, "document.activeElement.getAttribute('data-jump')") == "0"
    shots = os.environ.get("SNL_EDITOR_SHOTS")
    png = screenshot(browser, session)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    if shots:
        with open(os.path.join(shots, "editor.png"), "wb") as fh:
            fh.write(png)


def type_keys(browser, session, keys) -> None:
    for key in keys:
        params = ({"key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9} if key == "Tab" else
                  {"key": key, "text": key, "windowsVirtualKeyCode": 13 if key == "Enter" else
                   ord(key), "code": "Enter" if key == "Enter" else f"Digit{key}"})
        if key == "Enter":
            params["text"] = "\r"
        browser.call("Input.dispatchKeyEvent", session, type="keyDown", **params)
        browser.call("Input.dispatchKeyEvent", session, type="keyUp",
                     **{k: v for k, v in params.items() if k != "text"})


def test_editable_report_size_and_plain_report_unchanged(tmp_path):
    html = report(MB, editable=True)
    assert len(html.encode("utf-8")) <= 300_000
    plain = report(MB)
    assert "<script" not in plain and "snl-editor" not in plain
    # the plain page is the editable one without what the editor adds, byte for byte
    from snl_numeric.display.editor import EDITOR_CSS

    stripped = re.sub(r' data-(live|static)', "", html)
    stripped = re.sub(r'<section id="editor">.*?</script>', "", stripped, count=1, flags=re.S)
    stripped = re.sub(r"<script>.*</script></body>", "</body>", stripped, count=1, flags=re.S)
    stripped = stripped.replace(EDITOR_CSS, "", 1).replace("<title>Editor: ", "<title>Report: ")
    assert stripped == plain
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "").replace(
        '"http://www.w3.org/2000/svg"', "")


def test_snl_report_edit_flag(tmp_path, capsys):
    out = tmp_path / "e.html"
    assert main(["report", "seed-30", "-o", str(out), "--edit"]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {out} (")
    assert 'id="snl-editor"' in out.read_text(encoding="utf-8")
    with pytest.raises(TypeError, match="editable must be True or False"):
        report(MB, editable="yes")
