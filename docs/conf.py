"""Sphinx configuration of the snl_numeric documentation.

The API reference is generated: ``api/index.rst`` is written at every build from the
public names (``snl_numeric.__all__`` and the ``__all__`` of the submodules listed in
``api_pages.SUBMODULES``), so a name added there gets its page without touching the docs;
the build fails if one has none. Cross-references are checked (``nitpicky``). The tour notebook (``examples/tour.ipynb``) is executed and
rendered with its figures.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS))  # the api_pages helper beside this file

from api_pages import api_names, write_api_index  # noqa: E402

import snl_numeric  # noqa: E402

project = "snl_numeric"
author = "the snl_numeric developers"
copyright = "2026, the snl_numeric developers"
release = snl_numeric.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "api_pages.py"]
templates_path = ["_templates"]

# Every cross-reference must resolve, but for these deliberate exceptions:
nitpicky = True
nitpick_ignore = [
    # no intersphinx (the build runs offline): NumPy's names stay code
    ("py:class", "numpy.random.SeedSequence"),
    # internal modules whose docstrings hold the method; named, not rendered
    ("py:mod", "snl_numeric.design"),
    ("py:mod", "snl_numeric.impact.compute"),
    # internal limits named in docstrings (their values are stated beside them)
    ("py:data", "GROUPS"),
    ("py:data", "CANDIDATES_MAX_SIZE"),
]

# -- API reference -------------------------------------------------------------------
autosummary_generate = True
autodoc_typehints = "none"  # numpydoc's Parameters sections say it, once
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# -- the tour notebook ---------------------------------------------------------------
nb_execution_mode = "force"  # executed at every build: the figures are always current
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "colon_fence"]

# -- HTML ----------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"snl_numeric {release}"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}
html_static_path: list[str] = []
# no primary sidebar on pages without sub-pages (it would show an empty "Section
# Navigation"); the API reference keeps it to list its generated pages
html_sidebars = {page: [] for page in ("index", "install", "tour", "version_policy", "changelog",
                                       "user_guide/*")}


# generated before Sphinx reads anything (autosummary reads api/index.rst when the builder
# starts): the API index from __all__, and the tour from examples/
write_api_index(DOCS / "api" / "index.rst")
shutil.copyfile(ROOT / "examples" / "tour.ipynb", DOCS / "tour.ipynb")


def _check_pages(app, exception) -> None:  # noqa: ANN001
    """Fail the build when a public name got no page."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir) / "api" / "generated"
    missing = [name for name in api_names() if not (out / f"{name}.html").exists()]
    if missing:
        raise RuntimeError(f"public names without an API page: {missing}")


def setup(app) -> None:  # noqa: ANN001
    app.connect("build-finished", _check_pages)


