"""The ``fastgen-floors`` directive: the package's floors, as docs/architecture.rst declares them.

Each content line names one floor, top floor first: the module prefixes on it, a ``|``,
and what the floor is for. The directive draws them as a table with the files and lines
under each prefix, measured from the tree as the site is built. The same lines are the
specification ``tests/test_layout.py`` holds the code to: no module imports from a floor
above its own.
"""

from __future__ import annotations

from docutils import nodes
from floors_spec import files_under, parse_floors
from sphinx.util.docutils import SphinxDirective


class FloorsDirective(SphinxDirective):
    has_content = True

    def run(self):
        floors = parse_floors(self.content)
        table = nodes.table()
        group = nodes.tgroup(cols=3)
        table += group
        for width in (8, 42, 50):
            group += nodes.colspec(colwidth=width)
        head, body = nodes.thead(), nodes.tbody()
        group += head
        group += body

        def row(cells, parent):
            r = nodes.row()
            for cell in cells:
                entry = nodes.entry()
                entry += cell
                r += entry
            parent += r

        row([nodes.paragraph(text=t) for t in ("floor", "modules (files, lines)", "what it is for")], head)
        for number, (names, what) in reversed(list(enumerate(floors))):
            cell = nodes.paragraph()
            for i, name in enumerate(names):
                files = files_under(name)
                for f in files:
                    self.env.note_dependency(str(f))
                lines = sum(len(f.read_text(encoding="utf-8").splitlines()) for f in files)
                if i:
                    cell += nodes.Text(", ")
                cell += nodes.literal(text=name)
                cell += nodes.Text(f" ({len(files)}, {lines:,})")
            text_nodes, messages = self.state.inline_text(what, self.lineno)
            row([nodes.paragraph(text=str(number)), cell, nodes.paragraph("", "", *text_nodes, *messages)], body)
        return [table]


def setup(app):
    app.add_directive("fastgen-floors", FloorsDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
