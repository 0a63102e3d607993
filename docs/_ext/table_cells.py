"""A figure in a table cell breaks only between its parts.

At a 1280 px window the text column is about 620 px wide, and the reports'
tables of results broke a cell such as "96.7 / 96.8 ✗" (ours / the paper's,
Khardon & Wachman's Table 3) at every space, onto three or four lines:
"96.7", "/", "96.8", "✗". In a short cell holding a digit, every space
becomes a non-breaking one except after a slash or a comma, so the cell
breaks at most between its figures ("96.7 /" above "96.8 ✗") and a number
never leaves its sign, unit, ± or mark. A table still too wide for the
column scrolls inside the theme's container (``_static/perceptrons.css``).
"""

import re

from docutils import nodes

#: The longest cell text treated as figures ("97.2 ± 1.6 / 96.9 ± 2.0 ✗");
#: longer cells are prose, and wrap as prose.
MAX_CHARS = 32

# A space that may stay a line break: after "/" or ",".
_SPACE = re.compile(r"(?<![/,]) ")


def keep_figures_together(app, doctree):
    """``doctree-read``: the non-breaking spaces of every short cell with a
    digit (its code literals aside), in tables sized by their content.

    A table with declared column widths (a reST ``list-table``, prose) is
    laid out to them, and its cells wrap as prose.
    """
    for table in doctree.findall(nodes.table):
        if "colwidths-given" in table["classes"]:
            continue
        for entry in table.findall(nodes.entry):
            text = entry.astext().strip()
            if len(text) > MAX_CHARS or not any(c.isdigit() for c in text):
                continue
            for node in list(entry.findall(nodes.Text)):
                if not isinstance(node.parent, nodes.literal):
                    node.parent.replace(node, nodes.Text(
                        _SPACE.sub("\N{NO-BREAK SPACE}", str(node))))


def setup(app):
    app.connect("doctree-read", keep_figures_together)
    return {"version": "1", "parallel_read_safe": True,
            "parallel_write_safe": True}
