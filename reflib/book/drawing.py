"""What every picture in the book shares: graphviz with one font, shown as SVG.

Each drawing function in this package returns a ``graphviz.Digraph``; a chapter shows it
with ``svg``.  The colours name the same things throughout the book: one per device or
executor (``DEVICE_COLOURS``), red for data crossing devices or gradients on their way to
the KVStore, blue for weights coming back.
"""

from html import escape

FONT = {'fontname': 'Helvetica', 'fontsize': '10'}
DEVICE_COLOURS = ['#cfe2f3', '#fce5cd', '#d9ead3', '#ead1dc', '#fff2cc']
GRADIENT_RED, WEIGHT_BLUE = '#cc0000', '#1f4e79'


def digraph(node=None, edge=None, **graph):
    """A ``graphviz.Digraph`` in the book's font, top to bottom unless ``rankdir`` says
    otherwise; ``node`` and ``edge`` are the default node and edge attributes."""
    import graphviz  # on first drawing: importing reflib.book stays cheap
    return graphviz.Digraph(graph_attr={**FONT, 'rankdir': 'TB', **graph},
                            node_attr={**FONT, **(node or {})},
                            edge_attr={**FONT, 'arrowsize': '0.6', **(edge or {})})


def svg(digraph):
    """A graphviz.Digraph as an SVG picture for the page (the picture, not the object's repr);
    ``quiet`` keeps dot's layout remarks off the page."""
    from IPython.display import SVG  # only inside a notebook
    return SVG(digraph.pipe(format='svg', encoding='utf-8', quiet=True))


def lines(*rows, bold_first=False):
    """A node label of several lines as an HTML-like table, one cell per line.

    Plain ``'a\\nb'`` labels set their lines so close that an underscore on one line
    (``fc1_weight``) touches the text under it in the browser's font; cells keep a gap.
    ``bold_first`` sets the first line in bold (a title)."""
    cells = []
    for k, row in enumerate(rows):
        text = escape(str(row), quote=False)
        if bold_first and k == 0:
            text = '<b>%s</b>' % text
        cells.append('<tr><td>%s</td></tr>' % text)
    return '<<table border="0" cellborder="0" cellspacing="0" cellpadding="1">%s</table>>' % ''.join(cells)
