"""The worked tour, examples/tour.ipynb, runs from top to bottom without an error."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "examples" / "tour.ipynb"
#: Seconds a cell may run: with an empty kernel cache a cell compiles its kernels (the
#: design cell took 81 s on two cores shared by many processes); a hang still fails.
CELL_TIMEOUT = 600


def test_tour_notebook_runs(monkeypatch):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    assert all(not cell.get("outputs") for cell in nb.cells if cell.cell_type == "code"), (
        "commit the tour with its outputs cleared"
    )
    # the kernel inherits the environment: let it import the package from this checkout
    # (an installed package works as well; the checkout comes first)
    path = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT)] + ([path] if path else [])))
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT / "examples")}})
    client.execute()  # raises CellExecutionError on the first failing cell

    outputs = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs]
    assert not [out for out in outputs if out.output_type == "error"]
    stderr = [out.text for out in outputs
              if out.output_type == "stream" and out.name == "stderr"]
    assert not [text for text in stderr if "Warning" in text], stderr
    rich = [out for out in outputs if out.output_type in ("display_data", "execute_result")]
    assert any("image/png" in out.data for out in rich), "the plots should display"
    html = [out.data["text/html"] for out in rich if "text/html" in out.data]
    assert any("Board: milton-bradley" in h for h in html)
    for caption in ("Analysis of milton-bradley", "Simulation of milton-bradley",
                    "A race of 4 players", "Policy on milton-bradley", "Designed board",
                    "Race on milton-bradley"):
        assert any(caption in h for h in html), caption


def test_progress_bars_are_widgets_with_the_notebook_extra(monkeypatch):
    """The ``notebook`` extra (ipywidgets) turns progress bars into widgets (issue 27)."""
    from importlib.metadata import requires

    assert any(r.startswith("ipywidgets") and 'extra == "notebook"' in r
               for r in requires("snl_numeric") or [])
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "from snl_numeric import boards, simulate\n"
        "simulate(boards.get('seed-30'), 20_000, rng=1, progress=True).games")])
    path = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT)] + ([path] if path else [])))
    NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3").execute()
    outputs = nb.cells[0].outputs
    assert any("application/vnd.jupyter.widget-view+json" in out.get("data", {})
               for out in outputs), outputs
    assert outputs[-1]["data"]["text/plain"] == "20000"
