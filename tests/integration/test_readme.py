"""The README's examples are valid as printed (issue 16, item 6; issue 27: they run as
doctests, and the README stays a front door of at most 300 lines)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import matplotlib

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def test_readme_is_a_front_door():
    assert len(README.splitlines()) <= 300
    assert README.count("| what | ours |") == 1  # one performance table
    assert "docs/index.md" in README and "sphinx-build -W docs" in README


def test_readme_examples_run_as_doctests(tmp_path, monkeypatch):
    examples = [b for b in _blocks("python") if b.lstrip().startswith(">>>")]
    assert len(examples) >= 8 and len(examples) == len(_blocks("python"))
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)  # where the report example writes its page
    test = doctest.DocTestParser().get_doctest("\n".join(examples), {}, "README.md",
                                               "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.tries >= 30 and runner.failures == 0


def _printed(call: str) -> str:
    """The line the README prints after the example line ending in ``call``."""
    lines = README.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(">>> ") and call in line)
    return lines[at + 1]


def test_readme_numbers_are_those_of_the_naive_twins():
    """The tour's median, 90th percentile and standard deviation on the Milton Bradley board,
    and the two snakes whose adding lengthens its game most, as printed: those the slow
    references of tests/naive.py find (masses moved throw by throw; a dense solve; every
    snake added and the board solved again), not the library's own answers."""
    import numpy as np

    from snl_numeric import boards
    from tests import naive

    mb = boards.get("milton-bradley")
    cdf = np.cumsum(naive.naive_distribution(mb, throws=200))
    median, p90 = (int(np.argmax(cdf >= q)) for q in (0.5, 0.9))
    for k, q in ((median, 0.5), (p90, 0.9)):  # far from a tie that rounding could decide
        assert cdf[k - 1] < q - 1e-6 and cdf[k] > q + 1e-6
    _, var = naive.naive_expected_dense(mb)
    std = float(np.sqrt(var[mb.start]))
    assert _printed("a.median, a.percentiles[90], round(a.std, 3)") == \
        f"({median}, {p90}, {round(std, 3)})"
    ranked = naive.ranked_candidates(mb, kind="snake")
    assert ranked[1][2] - ranked[2][2] > 1e-6  # the two best, clear of the third
    assert _printed("top_candidates(jump_candidates(mb, kind=\"snake\"), 2)") == \
        str([(a, b) for a, b, _ in ranked[:2]])
