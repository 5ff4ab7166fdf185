"""The documentation site (issue 27): it builds with warnings as errors, every public name
has a page, and the examples in the user guide run as printed."""

from __future__ import annotations

import doctest
import json
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import snl_numeric
from snl_numeric import Board
from snl_numeric import batch as batch_module

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS))

from api_pages import api_index, api_names  # noqa: E402

PAGES = sorted(DOCS.glob("*.md")) + sorted((DOCS / "user_guide").glob("*.md"))


def _examples(page: Path) -> str:
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)
    return "\n".join(b for b in blocks if b.lstrip().startswith(">>>"))


GUIDE = [p for p in PAGES if _examples(p)]


def test_api_names_cover_every_public_name():
    names = set(api_names())
    for name in snl_numeric.__all__:
        obj = getattr(snl_numeric, name)
        if isinstance(obj, types.ModuleType):
            assert {f"snl_numeric.{name}.{n}" for n in obj.__all__} <= names, name
        else:
            assert f"snl_numeric.{name}" in names


@pytest.mark.parametrize("module", ["batch", "plot", "maze", "policy", "race", "dice",
                                    "boards", "impact"])
def test_api_reference_lists_every_name_of_the_submodules(module):
    """Issue 55, item 3: each name of the module's ``__all__`` has its own entry in the
    module's section, or (the same object as a top-level name) a link to that page."""
    import importlib

    mod = importlib.import_module(f"snl_numeric.{module}")
    section = api_index().split(f"``snl_numeric.{module}``\n", 1)[1].split("\n-----", 1)[0]
    entries = set(re.findall(r"^   (\w+)$", section, flags=re.M))
    links = set(re.findall(r":obj:`~snl_numeric\.(\w+)`", section))
    for name in mod.__all__:
        if name in links:
            assert getattr(snl_numeric, name) is getattr(mod, name), name
        else:
            assert name in entries, f"snl_numeric.{module}.{name} is not in the API reference"
    assert entries | links == set(mod.__all__)


def test_version_policy_names_every_documented_submodule():
    """The API the version policy promises is the API reference's: every submodule
    whose ``__all__`` has pages there."""
    from api_pages import SUBMODULES

    policy = (DOCS / "version_policy.md").read_text(encoding="utf-8")
    promised = policy.split("**What counts as the API.**", 1)[1].split("**", 1)[0]
    assert set(re.findall(r"`snl_numeric\.([a-z]\w*)`", promised)) == set(SUBMODULES)


def test_cross_references_are_checked():
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert re.search(r"^nitpicky = True$", conf, flags=re.M)


@pytest.mark.slow
def test_every_public_name_has_a_page(tmp_path):
    """The reference part of the site, built as CI builds it (the tour not executed here:
    CI's full build does that)."""
    out = tmp_path / "html"
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html",
         "-D", "nb_execution_mode=off", str(DOCS), str(out)],
        capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name in api_names():
        page = out / "api" / "generated" / f"{name}.html"
        assert page.exists(), name
        short = name.rsplit(".", 1)[1]
        assert re.search(rf'id="{re.escape(name)}"', page.read_text(encoding="utf-8")), short
    index = (out / "api" / "index.html").read_text(encoding="utf-8")
    assert all(f"generated/{name}.html" in index for name in api_names())
    # guide pages have no sub-pages: no (empty) "Section Navigation" sidebar
    for page in ("install.html", "user_guide/rules.html", "user_guide/dask.html"):
        assert "Section Navigation" not in (out / page).read_text(encoding="utf-8"), page
    assert "Section Navigation" in index  # the reference keeps it: its pages are listed


def test_the_guide_has_examples():
    assert {p.name for p in GUIDE} >= {"index.md", "rules.md", "formats.md", "accuracy.md",
                                       "own_game.md"}


def test_every_python_block_of_the_guide_is_run():
    """A ```python block is a doctest (run by ``test_guide_examples_run``), but for the
    Dask page's, which starts a cluster of four workers on a million boards."""
    plain = {page.name for page in PAGES
             for block in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"),
                                     flags=re.S)
             if not block.lstrip().startswith(">>>")}
    assert plain == {"dask.md"}


@pytest.mark.parametrize("page", GUIDE, ids=lambda p: p.name)
def test_guide_examples_run(page):
    test = doctest.DocTestParser().get_doctest(_examples(page), {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0, f"{runner.failures} failing example(s) in {page.name}"


def test_board_format_example_is_a_valid_board():
    text = (DOCS / "user_guide" / "formats.md").read_text(encoding="utf-8")
    (example,) = [b for b in re.findall(r"```json\n(.*?)```", text, flags=re.S)
                  if '"format": "snl_numeric.board"' in b]
    board = Board.from_dict(json.loads(example))
    assert board.size == 100 and board.jumps == {1: 38, 16: 6} and board.overshoot == "exact"
    assert board.dice.faces.tolist() == [1, 2, 3, 4]


def test_documented_file_functions_exist():
    formats = (DOCS / "user_guide" / "formats.md").read_text(encoding="utf-8")
    for name in ("write_jsonl", "write_parquet", "read_boards", "read_results"):
        assert f"{name}(" in formats and callable(getattr(batch_module, name))
    install = (DOCS / "install.md").read_text(encoding="utf-8")
    assert "snl warmup" in install and "NUMBA_CACHE_DIR" in install


def test_first_call_compile_time_is_stated_in_one_place():
    """Issue 55, item 8: the performance page states how long first calls compile; every
    other page that speaks of compiling links there instead of giving its own numbers."""
    seconds = re.compile(r"\b\d+(\.\d+)?( ?- ?\d+(\.\d+)?)? ?s\b")
    home = DOCS / "user_guide" / "performance.md"
    pages = [ROOT / "README.md", *PAGES]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for para in re.split(r"\n\s*\n", text):
            if "compil" in para and page != home:
                assert not seconds.search(para), f"{page.name}: {para[:200]}"
    assert "(first-calls)=" in home.read_text(encoding="utf-8")
    assert "{ref}`first-calls`" in (DOCS / "install.md").read_text(encoding="utf-8")
    assert "performance.md#first-calls" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_install_page_says_how_to_install_from_a_clone():
    install = (DOCS / "install.md").read_text(encoding="utf-8")
    assert "From a clone of the repository" in install
    assert 'python -m pip install ".[plot]"' in install
