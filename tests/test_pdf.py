"""`make pdf` builds the book as one PDF with every chapter, in order, and every figure.

The PDF is built into a scratch folder with the Makefile's own target, so what is tested is
what a reader runs.  It is read back three ways: LaTeX's table of contents (the chapters'
numbers, titles and pages), the LaTeX source (one image for each figure a chapter stores:
SVG figures are converted, not dropped) and the text of the PDF itself (pdftotext), which
must hold each chapter's opening words.  The build takes about a minute and a half; under
`make test` (REFLIB_BROWSER_TEST=1) a missing XeLaTeX fails the test instead of skipping it.
"""
import json
import os
import re
import shutil
import subprocess

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REQUIRED = os.environ.get('REFLIB_BROWSER_TEST') == '1'


def _chapters():
    """(notebook path, its title) in the table of contents' order."""
    with open(os.path.join(ROOT, '_toc.yml')) as f:
        toc = yaml.safe_load(f)
    numbered = next(part for part in toc['parts'] if part.get('numbered'))
    found = []
    for entry in numbered['chapters']:
        path = os.path.join(ROOT, entry['file'] + '.ipynb')
        with open(path) as f:
            first = ''.join(json.load(f)['cells'][0]['source'])
        found.append((path, re.match(r'# (.+)', first).group(1).strip()))
    return found


def _plain(title):
    """A heading as LaTeX's table of contents and pdftotext give it: no markup."""
    return title.replace('`', '').replace('\\_', '_')


def _stored_figures(path):
    with open(path) as f:
        cells = json.load(f)['cells']
    return sum(1 for cell in cells for out in cell.get('outputs', [])
               if {'image/png', 'image/svg+xml'} & set(out.get('data', {})))


@pytest.fixture(scope='module')
def pdf(tmp_path_factory):
    missing = [tool for tool in ('xelatex', 'latexmk', 'pdftotext') if shutil.which(tool) is None]
    if missing:
        if REQUIRED:
            pytest.fail('make pdf needs %s (make test installs them with apt-get)' % ', '.join(missing))
        pytest.skip('no %s: run `make pdf` once to install the TeX packages' % ', '.join(missing))
    out = tmp_path_factory.mktemp('pdf')
    run = subprocess.run(['make', '-s', 'pdf', 'PDF_OUT=%s' % out], cwd=ROOT, capture_output=True,
                         text=True, timeout=900)
    assert run.returncode == 0, 'make pdf failed:\n' + (run.stdout + run.stderr)[-4000:]
    latex = out / '_build' / 'latex'
    text = subprocess.run(['pdftotext', '-layout', str(latex / 'reflib.pdf'), '-'], capture_output=True,
                          text=True, check=True).stdout
    return {'toc': (latex / 'reflib.toc').read_text(), 'tex': (latex / 'reflib.tex').read_text(),
            'log': (latex / 'reflib.log').read_text(errors='replace'), 'text': text}


def test_every_chapter_is_in_the_pdf_in_order_with_its_number(pdf):
    listed = re.findall(r'\\contentsline \{chapter\}\{\\numberline \{(\d+)\}(.*?)\}\{(\d+)\}', pdf['toc'])
    chapters = _chapters()
    assert len(chapters) >= 15
    assert [int(n) for n, _, _ in listed[:len(chapters)]] == list(range(1, len(chapters) + 1))
    for (path, title), (_, in_toc, _) in zip(chapters, listed):
        assert _plain(in_toc) == _plain(title), (os.path.basename(path), in_toc)
    pages = [int(page) for _, _, page in listed[:len(chapters)]]
    assert pages == sorted(pages) and len(set(pages)) == len(pages)
    # the landing page's own headings are not chapters before chapter 1 (toctree_only)
    assert pages[0] == 1


def test_each_chapter_s_text_is_in_the_pdf(pdf):
    # letters and digits only: LaTeX hyphenates at line ends ("ma- chinery"), pdftotext keeps it
    letters = re.sub(r'[^a-z0-9]', '', pdf['text'].lower())
    for path, _ in _chapters():
        with open(path) as f:
            cells = json.load(f)['cells']
        # the chapter's first sentence of prose, as plain words
        prose = next(''.join(c['source']) for c in cells[1:] if c['cell_type'] == 'markdown')
        first = re.sub(r'[`*_\[\]]|\(http[^)]*\)|\([^)]*\.ipynb[^)]*\)', '', prose.split('\n\n')[0])
        probe = ' '.join(first.split()[:8])
        assert re.sub(r'[^a-z0-9]', '', probe.lower()) in letters, \
            '%s: %r not found in the PDF' % (os.path.basename(path), probe)


def test_every_stored_figure_is_an_image_in_the_pdf(pdf):
    stored = sum(_stored_figures(path) for path, _ in _chapters())
    included = len(re.findall(r'\\sphinxincludegraphics', pdf['tex']))
    assert included == stored, 'the chapters store %d figures, the PDF has %d' % (stored, included)


def test_no_character_is_missing_from_the_fonts(pdf):
    assert 'Missing character' not in pdf['log']
