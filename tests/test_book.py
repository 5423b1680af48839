"""The stored chapters as a reader meets them: code that fits the column, helpers written once,
words the reader was given.  (nbval re-executes the chapters; this checks what they look like.)"""

import glob
import json
import os
import re

import pytest

CHAPTERS = sorted(glob.glob(os.path.join(os.path.dirname(__file__), '..', 'chapters', '*.ipynb')))
# the book's text column holds about 80 monospace characters at the default desktop width
COLUMN = 80


def cells(path, kind):
    with open(path) as f:
        nb = json.load(f)
    return [(i, ''.join(c['source'])) for i, c in enumerate(nb['cells']) if c['cell_type'] == kind]


@pytest.mark.parametrize('path', CHAPTERS, ids=os.path.basename)
def test_every_code_line_fits_the_column(path):
    long = [(i, line) for i, source in cells(path, 'code') for line in source.splitlines() if len(line) > COLUMN]
    assert not long, long[:3]


@pytest.mark.parametrize('path', CHAPTERS, ids=os.path.basename)
def test_source_helpers_come_from_reflib_book(path):
    # printing reflib's source is reflib.book.excerpt / source_lines, written once
    defined = [name for _, source in cells(path, 'code')
               for name in re.findall(r'^def (excerpt|show_source|show_lines|source_lines)\(', source, re.M)]
    assert not defined, defined


@pytest.mark.parametrize('path', CHAPTERS + [os.path.join(os.path.dirname(__file__), '..', 'intro.md')],
                         ids=os.path.basename)
def test_the_prose_speaks_of_readers_notes_not_seeds(path):
    if path.endswith('.md'):
        with open(path) as f:
            texts = [(0, f.read())]
    else:
        texts = cells(path, 'markdown')
    # (random seeds are fine: mx.random.seed is MXNet's word)
    words = r"\bseed(?:'s|s)?\s+(?:notes?|questions?|network|mlp|regression|example)|\bthe seed's\b"
    found = [(i, m.group(0)) for i, text in texts for m in re.finditer(words, text, re.I)]
    assert not found, found


@pytest.mark.parametrize('path', CHAPTERS, ids=os.path.basename)
def test_remember_comes_before_the_exercises_and_solutions_stay_folded(path):
    with open(path) as f:
        nb = json.load(f)
    order, after_exercises = [], False
    for c in nb['cells']:
        source = ''.join(c['source'])
        if c['cell_type'] == 'markdown':
            found = re.findall(r'^## (What to remember|Exercises)', source, re.M)
            order += found
            after_exercises = after_exercises or 'Exercises' in found
        elif after_exercises and c.get('outputs'):
            # a solution's output must not print under the question: the whole cell is folded
            assert 'hide-cell' in c.get('metadata', {}).get('tags', []), source[:80]
    assert order == ['What to remember', 'Exercises']


# an exercise admonition ("Exercise 2" or "Exercise 2: a title"), or a solution's with its first option
# line (fenced by 3 or more backticks)
ADMONITION = re.compile(r'^(`{3,})\{admonition\} (Exercise (\d+)(?::[^\n]*)?|Solution)[ \t]*\n(:class:[^\n]*)?',
                        re.M)


@pytest.mark.parametrize('path', CHAPTERS, ids=os.path.basename)
def test_at_least_three_exercises_each_with_a_folded_solution(path):
    # every "Exercise N" admonition, numbered 1, 2, 3, ..., is followed by its Solution
    # admonition, folded (":class: dropdown") before the next exercise begins
    found = [(m.group(3), m.group(4)) for _, text in cells(path, 'markdown')
             for m in ADMONITION.finditer(text)]
    numbers = [int(number) for number, _ in found if number]
    assert len(numbers) >= 3, 'only %d exercises' % len(numbers)
    assert numbers == list(range(1, len(numbers) + 1)), numbers
    for i, (number, _) in enumerate(found):
        if number:
            following = found[i + 1] if i + 1 < len(found) else ('end', None)
            assert not following[0], 'exercise %s has no solution' % number
            assert (following[1] or '').split() == [':class:', 'dropdown'], \
                'the solution of exercise %s is not folded (:class: dropdown)' % number
    solutions = [option for number, option in found if not number]
    assert len(solutions) == len(numbers), 'a solution without its exercise'


@pytest.mark.parametrize('path', CHAPTERS, ids=os.path.basename)
def test_pictures_are_drawn_by_reflib_book(path):
    # drawing code is written once, in reflib.book (d2l's pattern); a chapter calls it and
    # shows the result with book.svg, so no chapter builds a graph or wraps SVG itself
    drawn_here = [i for i, source in cells(path, 'code')
                  if re.search(r'graphviz\.(Di)?[Gg]raph\(|\bSVG\(', source)]
    assert not drawn_here, drawn_here


@pytest.mark.parametrize('path', CHAPTERS + glob.glob(os.path.join(os.path.dirname(__file__), '..', 'reflib',
                                                                  'book', '*.py')), ids=os.path.basename)
def test_plot_text_is_at_least_7_points(path):
    # plots are 100-dpi PNGs at the column's width (tests/test_browser.py): 7 pt is 9.7 px
    with open(path) as f:
        text = f.read()
    small = [int(size) for size in re.findall(r"fontsize=['\"]?(\d+)", text) if int(size) < 7]
    assert not small, small


@pytest.mark.parametrize('path', CHAPTERS, ids=os.path.basename)
def test_every_chapter_mentioned_in_the_prose_is_a_link(path):
    # "chapter 7", "chapters 4 and 5": each number links to its chapter
    unlinked = []
    for i, text in cells(path, 'markdown'):
        text = re.sub(r'\[[^\]]*\]\([^)]*\)|`[^`]*`', '', text)       # links and code go
        text = re.sub(r'^#.*$', '', text, flags=re.M)                   # so do headings
        unlinked += [(i, m.group(0)) for m in re.finditer(r'\b[Cc]hapters? \d+', text)]
    assert not unlinked, unlinked


def test_every_reflib_book_drawing_renders():
    import graphviz
    import reflib as mx
    from reflib import book
    net = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=3, name='fc')
    exe = net.simple_bind(mx.cpu(), data=(2, 4))
    drawings = [book.draw_handles(x=mx.nd.ones((2, 3)), row=mx.nd.ones((2, 3))[0:1]),
                book.draw_executor(exe, caller={'w': exe.arg_dict['fc_weight']}),
                book.draw_shapes(net, data=(2, 4)), book.draw_plan(exe),
                book.draw_placement(net, {}),
                book.distributed_job({'fc_weight': [(0, 0, 6), (1, 6, 12)]})]
    drawings += [getattr(book, name)() for name in ('in_place_vs_rebinding', 'data_and_model_parallelism',
                                                     'module_states', 'module_parameter_copies',
                                                     'fit_flowchart', 'kvstore_round')]
    for dot in drawings:
        assert isinstance(dot, graphviz.Digraph)
        picture = book.svg(dot).data
        assert picture.lstrip().startswith('<svg') and '<text' in picture


@pytest.mark.parametrize('path', CHAPTERS, ids=os.path.basename)
def test_every_figure_has_a_caption_and_a_name(path):
    # mystnb turns the metadata into a numbered figure ("Fig. 5.2") that prose can {numref}
    with open(path) as f:
        nb = json.load(f)
    bare = []
    for i, c in enumerate(nb['cells']):
        pictures = [o for o in c.get('outputs', []) if {'image/png', 'image/svg+xml'} & set(o.get('data', {}))]
        figure = c.get('metadata', {}).get('mystnb', {}).get('figure', {})
        if pictures and not (figure.get('caption') and figure.get('name', '').startswith('fig-')):
            bare.append(i)
    assert not bare, bare


# ---------------------------------------------------------------- a chapter on its own
def test_a_chapter_needs_only_its_notebook_and_reflib():
    """A reader who downloads one notebook runs it with reflib installed: no chapter reaches
    outside its folder (``..``), edits sys.path, or opens a file it did not write itself;
    what chapters read ships in reflib/book (stored.py)."""
    for path in CHAPTERS:
        with open(path) as f:
            nb = json.load(f)
        for i, cell in enumerate(nb['cells']):
            if cell['cell_type'] != 'code':
                continue
            source = ''.join(cell['source'])
            for bad in (r"'\.\.'", r'\.\./', r'sys\.path', r"open\('[\w.-]+\.(json|py|npz)'\)",
                        r'tests/golden', r"'bench'"):
                assert not re.search(bad, source), '%s cell %d: %s' % (os.path.basename(path), i, bad)


def test_the_books_copies_of_mxnet_files_match_the_golden_ones():
    from reflib import book
    for name in ('mlp-symbol.json', 'lm_fit.npz'):
        with open(book.data_path(name), 'rb') as ours, open(os.path.join(os.path.dirname(__file__), 'golden', name), 'rb') as golden:
            assert ours.read() == golden.read(), name


def test_multi_line_labels_keep_their_lines_apart():
    # book.drawing.lines: one table cell per line (an underscore never touches the line
    # below it), the text escaped for graphviz's HTML-like labels
    from reflib.book.drawing import lines
    label = lines('fc1_weight', '(128, 20) <&>', bold_first=True)
    assert label.startswith('<<table') and label.endswith('</table>>')
    assert label.count('<tr>') == 2
    assert '<b>fc1_weight</b>' in label and '(128, 20) &lt;&amp;&gt;' in label


def test_every_glossary_term_is_linked_from_a_chapter():
    # reference/glossary.md defines the terms; a chapter links each where it first uses it
    with open(os.path.join(os.path.dirname(__file__), '..', 'reference', 'glossary.md'), encoding='utf-8') as f:
        block = f.read().split('```{glossary}')[1].split('```')[0]
    terms = [line.strip() for line in block.splitlines() if line.strip() and not line.startswith(' ')]
    assert len(terms) >= 15
    linked = set()
    for path in CHAPTERS:
        for _, source in cells(path, 'markdown'):
            for role in re.findall(r'\{term\}`([^`]+)`', source):
                linked.add(role.split('<')[-1].rstrip('>').strip())
    assert sorted(set(terms) - linked) == [], 'glossary terms no chapter links'
