"""The worked tour, examples/tour.ipynb, runs from top to bottom without an error."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "examples" / "tour.ipynb"


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
    client = NotebookClient(nb, timeout=120, kernel_name="python3",
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
