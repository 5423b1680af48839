"""The book's index pages, read from the chapters when the book is built (so they cannot drift):

``{figure-index}``   every numbered figure (a code cell with a ``mystnb.figure`` caption), as its
                     number -- a link to it -- and its caption, chapter by chapter;
``{exercise-index}`` every exercise (a ``{admonition} Exercise N`` block), as a link to its
                     chapter's exercises and the exercise's first sentence;

and, when an HTML build finishes, _static/reflib-chapters.zip: every chapter's notebook in one
download, which the landing page links.
"""

import json
import os
import re
import zipfile

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx import addnodes

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_EXERCISE = re.compile(r'`{3,4}\{admonition\} (Exercise \d+)\n(.*?)\n`{3,4}', re.S)


_LINK = re.compile(r'\[([^\]]+)\]\([^)]*\)')


def _without_links(text):
    """A markdown link's text only: its target is relative to the chapter, not to this page."""
    return _LINK.sub(r'\1', text)


def chapters(root=_ROOT):
    """[(file stem, title, notebook)] in the order of the file names (the chapters' numbers)."""
    folder = os.path.join(root, 'chapters')
    out = []
    for fname in sorted(os.listdir(folder)):
        if fname.endswith('.ipynb'):
            with open(os.path.join(folder, fname), encoding='utf-8') as f:
                nb = json.load(f)
            title = fname
            for cell in nb['cells']:
                found = re.search(r'^# (.+)$', ''.join(cell['source']), re.M)
                if cell['cell_type'] == 'markdown' and found:
                    title = found.group(1).strip()
                    break
            out.append((fname[:-len('.ipynb')], title, nb))
    return out


def figures(nb):
    """[(name, caption)] of a notebook's numbered figures, in order."""
    found = []
    for cell in nb['cells']:
        figure = cell.get('metadata', {}).get('mystnb', {}).get('figure')
        if cell['cell_type'] == 'code' and figure and figure.get('name'):
            found.append((figure['name'], _without_links(figure.get('caption', ''))))
    return found


def exercises(nb):
    """[(label, first sentence)] of a notebook's exercises, in order."""
    found = []
    for cell in nb['cells']:
        if cell['cell_type'] != 'markdown':
            continue
        for label, body in _EXERCISE.findall(''.join(cell['source'])):
            text = ' '.join(body.split('```')[0].split())     # the prose before any code block
            text = _without_links(text)
            end = text.find('. ')
            found.append((label, text if end < 0 else text[:end + 1]))
    return found


def _doc_link(stem, title):
    ref = addnodes.pending_xref('', refdomain='std', reftype='doc', reftarget='/chapters/' + stem,
                                refexplicit=True)
    ref += nodes.inline(text=title)
    return ref


class _ChapterIndex(Directive):
    """Chapter by chapter, a bullet list with one line per item the chapter has: a link to
    the item (``reference``), then its text (``text``, read as inline markup)."""
    has_content = False

    def items(self, nb):
        raise NotImplementedError

    def reference(self, stem, item):
        raise NotImplementedError

    def run(self):
        out = []
        for stem, title, nb in chapters():
            found = self.items(nb)
            if not found:
                continue
            para = nodes.paragraph()
            para += nodes.strong('', '', _doc_link(stem, title))
            out.append(para)
            items = nodes.bullet_list()
            for item_data in found:
                link, separator, text = self.reference(stem, item_data)
                line = nodes.paragraph()
                line += link
                line += nodes.Text(separator)
                inline, messages = self.state.inline_text(text, self.lineno)    # its `code`
                line += inline
                item = nodes.list_item()
                item += line
                item += messages
                items += item
            out.append(items)
        return out


class FigureIndex(_ChapterIndex):
    def items(self, nb):
        return figures(nb)

    def reference(self, stem, item):
        name, caption = item
        ref = addnodes.pending_xref('', refdomain='std', reftype='numref', reftarget=name,
                                    refexplicit=False, refwarn=True)     # "Fig. 11.3"
        ref += nodes.inline(text=name)
        return ref, ' ', caption


class ExerciseIndex(_ChapterIndex):
    def items(self, nb):
        return exercises(nb)

    def reference(self, stem, item):
        label, sentence = item
        # the chapter's "Exercises" section (its heading's anchor), where the exercise is
        ref = nodes.reference('', label, internal=True, refuri='chapters/%s.html#exercises' % stem)
        return ref, ': ', sentence


def setup(app):
    app.add_directive('figure-index', FigureIndex)
    app.add_directive('exercise-index', ExerciseIndex)
    app.connect('build-finished', _write_archive)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}


# ---------------------------------------------------------------- every chapter in one download
ARCHIVE = '_static/reflib-chapters.zip'
_ARCHIVE_README = """The chapters of the reflib book, as Jupyter notebooks with their outputs.

Each chapter needs only the reflib package and what it installs: from a checkout of the
book's repository, `pip install -e .` (or `make lab`, which also installs JupyterLab with
jupyterlab-myst, so that the exercises and their folded solutions render as in the book).
Open a chapter with `jupyter lab chapters/01_ndarray_context.ipynb`.
"""


def _write_archive(app, exception):
    """build-finished: every chapter notebook, zipped into the built book (a link on the
    landing page offers it)."""
    if exception is not None or app.builder.format != 'html':
        return
    target = os.path.join(app.outdir, ARCHIVE)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    folder = os.path.join(_ROOT, 'chapters')
    with zipfile.ZipFile(target, 'w', zipfile.ZIP_DEFLATED) as archive:
        archive.writestr('reflib-chapters/README.txt', _ARCHIVE_README)
        for fname in sorted(os.listdir(folder)):
            if fname.endswith('.ipynb'):
                archive.write(os.path.join(folder, fname), 'reflib-chapters/chapters/' + fname)
