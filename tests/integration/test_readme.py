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
