"""The HTML report (issue 26): self-contained, complete, and shown by a real browser."""

from __future__ import annotations

import io
import math
import re

import numpy as np
import pytest
from browser import evaluate, open_page, print_pdf, screenshot

from snl_numeric import Board, analyze, boards, report, solver_report
from snl_numeric.cli import main

MB = boards.get("milton-bradley")


def sources(html: str) -> list[str]:
    return re.findall(r'(?:src|href)="([^"]*)"', html)


def test_report_is_self_contained_and_complete(tmp_path):
    path = tmp_path / "r.html"
    html = report(MB, path, actions=["1-3", "4-6"], race=True)
    assert path.read_text(encoding="utf-8") == html
    assert "<script" not in html.lower() and "<link" not in html.lower()
    assert all(s.startswith(("data:image/png;base64,", "url(#")) for s in sources(html))
    assert re.findall(r"https?://[^\"' ]+", html) == ["http://www.w3.org/2000/svg"] * html.count(
        'xmlns="http://www.w3.org/2000/svg"')
    for heading in ("Key numbers", "The board", "How long the game lasts", "Where the tokens go",
                    "Jump impact", "Adding one more jump", "Choosing a die", "A race of two"):
        assert heading in html
    a = analyze(MB)
    bound = a.mean * solver_report(MB).error_estimate
    assert f"{a.mean:.10g} ± {bound:.1g}" in html
    assert "80→100" in html and "@media print" in html and "@page { size: A4" in html
    assert 'name="viewport"' in html


def test_report_of_unusual_boards():
    endless = Board(10, {5: 9, 6: 10, 7: 10}, overshoot="exact", dice={2: 0.5, 3: 0.5})
    html = report(endless)
    assert "∞ (the goal is not reached with probability 1)" in html
    assert "Adding one more jump" not in html and "board of its own" in html
    assert "How sensitive" not in html  # no derivative of an infinite mean
    assert "The board has no jumps" in report(Board(12))
    big = report(Board(3000, {10: 2900, 2950: 5}))
    assert "Adding one more jump" not in big and "<rect" not in big.split("How long")[0]


def test_report_sensitivity_section_rates_match_finite_differences():
    """The dice rows of "How sensitive the game is": moving probability onto each face,
    checked against central differences of fresh expected throws and variances."""
    from snl_numeric import Dice, expected_throws, throws_variance

    board = boards.get("seed-30")
    html = report(board)
    i = html.index("How sensitive the game is")
    section = html[i:html.index("</section>", i)]
    assert "Elasticity of the expected throws per square" in section
    cells = re.findall(r"<td>([^<]*)</td>", section)
    faces, probs = board.dice.faces, board.dice.probs
    h = 1e-5
    for f in range(len(faces)):
        d = np.eye(len(probs))[f] - probs
        moved = [board.replace(dice=Dice(faces, probs + s * h * d)) for s in (1, -1)]
        mean_rate = (expected_throws(moved[0]) - expected_throws(moved[1])) / (2 * h)
        var_rate = (throws_variance(moved[0]) - throws_variance(moved[1])) / (2 * h)
        row = cells[5 * f: 5 * f + 5]
        assert row[0] == str(faces[f])
        assert float(row[3]) == pytest.approx(mean_rate, rel=1e-4, abs=1e-4)
        assert float(row[4]) == pytest.approx(var_rate, rel=1e-4, abs=1e-3)


def test_report_refuses_bad_input():
    with pytest.raises(TypeError, match="race must be True or False"):
        report(MB, race="yes")
    with pytest.raises(ValueError, match="actions must be a non-empty list"):
        report(MB, actions=[])
    for bad in ("1-3", 3):  # no list: a TypeError (the string was a ValueError)
        with pytest.raises(TypeError, match=f"^actions must be a list of dice, got {bad!r}$"):
            report(MB, actions=bad)
    with pytest.raises(ValueError, match="start"):
        report(MB, start=200)


def test_snl_report_writes_the_page(tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["report", "milton-bradley", "-o", str(out), "--action", "1-3",
                 "--action", "4-6"]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {out} (")
    assert "Choosing a die" in out.read_text(encoding="utf-8")
    assert main(["report", "seed-30", "-o", str(out), "--action", "0-2"]) == 2
    assert "--action" in capsys.readouterr().err


def not_blank(png: bytes) -> tuple[float, int]:
    """Share of pixels that are not white, and how many distinct colours there are."""
    from matplotlib.image import imread

    rgb = (imread(io.BytesIO(png), format="png")[..., :3] * 255).astype(np.uint8)
    flat = rgb.reshape(-1, 3)
    return float((flat.min(axis=1) < 235).mean()), len(np.unique(flat[::7], axis=0))


def test_report_in_a_real_browser(tmp_path, browser):
    path = tmp_path / "report.html"
    report(MB, path, actions=["1-3", "4-6"], race=True)
    for width, height, mobile in ((1024, 900, False), (390, 844, True)):
        session, problems = open_page(browser, str(path), width=width, height=height,
                                      mobile=mobile)
        assert problems == []
        assert evaluate(browser, session, "document.images.length") == 2  # the two heat maps
        assert evaluate(browser, session, "document.querySelectorAll('svg').length") >= 5
        # nothing sticks out sideways: wide tables scroll inside their own box
        assert evaluate(browser, session, "document.documentElement.scrollWidth") <= width
        ink, colours = not_blank(screenshot(browser, session))
        assert ink > 0.15 and colours > 50, (width, ink, colours)
    pdf = print_pdf(browser, session)
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert pdf.startswith(b"%PDF") and 3 <= pages <= 20, pages


def test_a_broken_page_is_caught(tmp_path, browser):
    """The browser check itself: a broken image, a script error and a fetch are all seen."""
    path = tmp_path / "broken.html"
    path.write_text('<!DOCTYPE html><html><body><img alt="gone" src="data:image/png;base64,AAAA">'
                    '<img alt="far" src="http://127.0.0.1:9/x.png">'
                    "<script>console.error('boom'); undefinedFunction();</script></body></html>",
                    encoding="utf-8")
    _, problems = open_page(browser, str(path), width=800, height=600)
    text = "\n".join(problems)
    for seen in ("broken image: 'gone'", "broken image: 'far'", "console error", "exception",
                 "request to http://127.0.0.1:9/x.png"):
        assert seen in text, text


def test_snl_report_needs_no_matplotlib(tmp_path):
    """A plain install (no ``plot`` extra) writes the whole page: matplotlib is blocked."""
    import subprocess
    import sys

    out = tmp_path / "r.html"
    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "from snl_numeric.cli import main\n"
            f"sys.exit(main(['report', 'milton-bradley', '-o', {str(out)!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert "Jump impact" in out.read_text(encoding="utf-8")


def players_part(html: str) -> str:
    return html.split('<section id="players">', 1)[1].split("</section>", 1)[0]


@pytest.mark.parametrize(("board", "k"), [
    (MB, 3),
    (MB.replace(capture="start"), 2),
    (Board(20, {3: 11, 17: 4}, overshoot="exact", capture=2, safe=[5]), 3),
])
def test_report_players_shows_the_exact_race(board, k):
    from snl_numeric import expected_game_length, first_player_advantage, win_probabilities

    part = players_part(report(board, players=k))
    wins = win_probabilities(board, k)  # fresh calls, each its own computation
    game = expected_game_length(board, k)
    assert len(wins) == k and abs(wins.sum() - 1.0) < 1e-10
    for i, w in enumerate(wins.tolist()):
        assert f"<tr><td>{i + 1}</td><td>{board.start}</td><td>{w:.12f}</td></tr>" in part
    edge = first_player_advantage(board, k)
    assert edge == wins[0] - 1.0 / k
    assert f"{edge:+.12f} (player 1&#x27;s win chance − 1/{k})" in part
    assert f"<th>expected rounds</th><td>{game.mean_rounds:.10g}</td>" in part
    assert f"<th>expected throws</th><td>{game.mean_throws:.10g}</td>" in part
    rule = ("capture to the start" if board.capture == "start"
            else f"capture back {board.capture} (safe 5)" if board.capture
            else "none: the players never interact")
    assert rule in part
    assert f"{k} players" in part and "<svg" in part and "rounds" in part
    # the bars are the rounds distribution: one bar per round with positive chance shown
    shown = int(re.search(r"shown up to (\d+) rounds?", part).group(1))
    cdf = np.cumsum(game.rounds_pmf)
    assert cdf[shown] >= 0.999 - 1e-9 and (shown <= 1 or cdf[shown - 1] < 0.999)
    assert part.count('fill="#4c78a8"') == np.count_nonzero(game.rounds_pmf[: shown + 1] > 0)


def test_report_players_where_nobody_may_win():
    from snl_numeric import expected_game_length

    endless = Board(10, {5: 9, 6: 10, 7: 10}, overshoot="exact", dice={2: 0.5, 3: 0.5})
    part = players_part(report(endless, players=2))
    game = expected_game_length(endless, 2)
    assert game.no_winner > 0 and math.isinf(game.mean_rounds)
    assert f"<th>nobody wins</th><td>{game.no_winner:.12f}</td>" in part
    assert "<th>expected rounds</th><td>∞</td>" in part and "games someone wins" in part


def test_report_players_where_nobody_can_win():
    """Every start stuck in a loop (a d1 from 9 runs 10-14 and back by the snake 14 -> 5):
    no round ends the game, so no distribution is drawn or captioned."""
    from snl_numeric import expected_game_length

    stuck = Board(18, {2: 15, 8: 12, 14: 5, 17: 12}, start=9, overshoot="exact", dice={1: 1.0})
    assert expected_game_length(stuck, 2).no_winner == 1.0
    part = players_part(report(stuck, players=2))
    assert "<th>nobody wins</th><td>1.000000000000</td>" in part
    assert "Nobody can win from these starts" in part
    assert "<svg" not in part and "shown up to" not in part


def test_report_players_refused_where_it_cannot_be_answered():
    from snl_numeric import Chain

    with pytest.raises(ValueError, match="players must be at least 2, got 1"):
        report(MB, players=1)
    with pytest.raises(TypeError, match="players must be an integer|players"):
        report(MB, players="2")
    P = np.array([[0.5, 0.5], [0.0, 1.0]])
    with pytest.raises(TypeError, match=r"report\(players=...\) needs a Board .* a Chain has "
                                        "none: leave players out"):
        report(Chain(P), players=2)
    assert "players racing" not in report(MB)


def test_snl_report_players(tmp_path, capsys):
    out = tmp_path / "p.html"
    assert main(["report", "seed-30", "-o", str(out), "--players", "3", "--capture",
                 "start"]) == 0
    from snl_numeric import win_probabilities

    html = out.read_text(encoding="utf-8")
    wins = win_probabilities(boards.get("seed-30").replace(capture="start"), 3)
    assert "3 players racing" in html and "capture to the start" in html
    assert all(f"{w:.12f}" in players_part(html) for w in wins.tolist())
    capsys.readouterr()
    assert main(["report", "seed-30", "-o", str(out), "--players", "1"]) == 2
    assert "--players must be at least 2" in capsys.readouterr().err
