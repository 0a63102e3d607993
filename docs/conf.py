"""Sphinx configuration of the perceptrons documentation.

Build (from the repository's root, after ``pip install -e ".[docs]"``)::

    python -m sphinx -W -b html docs docs/_build/html

``-W`` turns every warning into an error. Neither the build nor the pages
need a network: no intersphinx inventories are fetched, the theme's assets
are bundled, and MathJax comes from the ``sphinx-mathjax-offline`` package
of the ``docs`` extra, copied into ``_static/mathjax`` and loaded from
there, so the formulas render offline. The gallery
(``examples/plot_*.py``) is executed during the build, and the API reference
is written from :mod:`perceptrons.registry` by ``_ext/registry_api.py``.
"""

import os
import sys
from pathlib import Path

# The gallery's scripts draw off-screen, whatever the environment says.
os.environ["MPLBACKEND"] = "Agg"

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

import perceptrons  # noqa: E402  (after the path set-up above)

# -- Project -----------------------------------------------------------------

project = "perceptrons"
author = "the perceptrons developers"
copyright = "the perceptrons developers, BSD-3-Clause"
release = perceptrons.__version__
version = ".".join(release.split(".")[:2])

# -- Extensions --------------------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax 3 served from _static, not a CDN
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "sphinxcontrib.bibtex",
    "myst_parser",
    "registry_api",  # _ext/registry_api.py: the API pages, from the registry
    "table_cells",  # _ext/table_cells.py: a figure breaks between its parts
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    # sphinx-gallery's own by-products, not documents
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
    "auto_examples/*.pickle",
]
templates_path = []
default_role = "literal"
add_module_names = False
pygments_style = "sphinx"

# -- autodoc / autosummary / numpydoc ---------------------------------------

# numpydoc's Parameters sections give the types; signatures stay short.
autodoc_typehints = "none"
autodoc_member_order = "groupwise"
autodoc_inherit_docstrings = True
# autosummary draws the summary tables only: registry_api writes the pages.
autosummary_generate = False

numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# -- Math --------------------------------------------------------------------

# MathJax renders the ``.. math::`` blocks in the browser, from the copy
# sphinx-mathjax-offline puts in _static/mathjax (its mathjax_path): a page
# read without a network shows formulas, not raw TeX.
mathjax3_config = {"tex": {"macros": {"sign": r"\operatorname{sign}"}}}

# -- Bibliography ------------------------------------------------------------

bibtex_bibfiles = ["references.bib"]
bibtex_default_style = "plain"
bibtex_reference_style = "author_year"

# -- MyST (the committed Markdown reports are included by the user guide) -----

myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
# Reports are included from their Markdown files part by part, below a
# heading of the including page: MyST's "headings start at H2, not H1" is
# about the fragment, not the page.
suppress_warnings = ["myst.header"]

# -- Gallery -----------------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],
    "gallery_dirs": ["auto_examples"],
    # every plot_*.py is executed during the build; a failing one fails it
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "plot_gallery": "True",
    "abort_on_example_error": False,
    "within_subsection_order": "FileNameSortKey",
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "remove_config_comments": True,
    "show_memory": False,
    # "Examples using X" on the API pages (minigallery directive)
    "doc_module": ("perceptrons",),
    "backreferences_dir": "api/generated/backreferences",
    "reference_url": {"perceptrons": None},
    "min_reported_time": 1,
}

# -- HTML --------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"perceptrons {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 5,
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
}
html_sidebars = {"index": [], "bibliography": []}
html_static_path = ["_static"]
# wide formulas and tables scroll inside their block (issue #41)
html_css_files = ["perceptrons.css"]
html_show_sourcelink = True
html_last_updated_fmt = None
