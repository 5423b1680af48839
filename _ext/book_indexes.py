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
            found.append((figure['name'], figure.get('caption', '')))
    return found


def exercises(nb):
    """[(label, first sentence)] of a notebook's exercises, in order."""
    found = []
    for cell in nb['cells']:
        if cell['cell_type'] != 'markdown':
            continue
        for label, body in _EXERCISE.findall(''.join(cell['source'])):
            text = ' '.join(body.split('```')[0].split())     # the prose before any code block
            text = re.sub(r'\[([^\]]+)\]\([^)]*\)', r'\1', text)   # a link's text: its target is the chapter's
            end = text.find('. ')
            found.append((label, text if end < 0 else text[:end + 1]))
    return found


def _doc_link(stem, title):
    ref = addnodes.pending_xref('', refdomain='std', reftype='doc', reftarget='/chapters/' + stem,
                                refexplicit=True)
    ref += nodes.inline(text=title)
    return ref


class FigureIndex(Directive):
    has_content = False

    def run(self):
        out = []
        for stem, title, nb in chapters():
            found = figures(nb)
            if not found:
                continue
            para = nodes.paragraph()
            para += nodes.strong('', '', _doc_link(stem, title))
            out.append(para)
            items = nodes.bullet_list()
            for name, caption in found:
                item = nodes.list_item()
                line = nodes.paragraph()
                ref = addnodes.pending_xref('', refdomain='std', reftype='numref', reftarget=name,
                                            refexplicit=False, refwarn=True)
                ref += nodes.inline(text=name)
                line += ref
                line += nodes.Text(' ')
                caption = re.sub(r'\[([^\]]+)\]\([^)]*\)', r'\1', caption)       # a link's text
                inline, messages = self.state.inline_text(caption, self.lineno)   # its `code`
                line += inline
                item += line
                item += messages
                items += item
            out.append(items)
        return out


class ExerciseIndex(Directive):
    has_content = False

    def run(self):
        out = []
        for stem, title, nb in chapters():
            found = exercises(nb)
            if not found:
                continue
            para = nodes.paragraph()
            para += nodes.strong('', '', _doc_link(stem, title))
            out.append(para)
            items = nodes.bullet_list()
            for label, sentence in found:
                item = nodes.list_item()
                line = nodes.paragraph()
                # the chapter's "Exercises" section (its heading's anchor), where the exercise is
                line += nodes.reference('', label, internal=True,
                                        refuri='chapters/%s.html#exercises' % stem)
                line += nodes.Text(': ')
                inline, messages = self.state.inline_text(sentence, self.lineno)
                line += inline
                item += line
                item += messages
                items += item
            out.append(items)
        return out


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
