"""The built book in a real browser: every page opened in headless Chromium, as a reader would.

`make test` builds the HTML book when it is older than its sources, makes sure Debian's
`chromium` is installed, and sets REFLIB_BROWSER_TEST=1, so there these tests always run.
A plain `pytest tests` skips them when the book or the browser is missing.

Each page is opened at two widths, a desktop's 1280 px and a phone's 400 px, from a web
server on 127.0.0.1 (the book's own files only).  A page passes when

* it and everything it asks for (scripts, styles, fonts, MathJax, images) loads from the
  book itself, nothing from the network, and the browser's console shows no error;
* it has a title, and a chapter has every output and every picture its notebook stores;
* every formula was typeset by MathJax (none left as raw TeX);
* at 400 px nothing widens the page past the screen (code blocks scroll inside themselves);
* no piece of code in a table is broken across lines (a wide table scrolls in its box);
* at 1280 px every code block fits the column, no scrollbar hiding the ends of its lines;
* at 1280 px and at 400 px no text in a drawn graph is smaller than 9 px, and no plot is
  shrunk so much that its text would be (on a phone a figure keeps its desktop size and
  scrolls sideways in its own box).

A full-page screenshot of each is saved in _build/screenshots/ (NAME-WIDTH.png) to look at.
"""

import functools
import http.server
import json
import os
import re
import threading
from pathlib import Path

import pytest

import chromium

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / '_build' / 'html'
SCREENSHOTS = ROOT / '_build' / 'screenshots'
REQUIRED = os.environ.get('REFLIB_BROWSER_TEST') == '1'
WIDTHS = (1280, 400)
# the smallest text a drawn graph may show, on a desktop and on a phone
MIN_FIGURE_TEXT_PX = 9.0
# A plot is a PNG drawn at 100 dpi with no text under 7 pt (tests/test_book.py checks the
# chapters' font sizes), i.e. 9.7 px: shown at no less than 93% of its width, its text stays
# at 9 px or more.  So plots are drawn at the column's width (6.7 inches), not shrunk into it.
MIN_PLOT_SCALE = 0.93


def _missing(why):
    if REQUIRED:
        pytest.fail(why + ' (make test should have provided it)')
    pytest.skip(why + ': `make test` builds the book and installs chromium')


def _pages():
    if not HTML.is_dir():
        return []
    # index.html only redirects to intro.html
    return sorted(str(p.relative_to(HTML)) for p in HTML.rglob('*.html')
                  if p.name != 'index.html' and '_sources' not in p.parts and '_static' not in p.parts)


def _notebook_for(page):
    """The chapter notebook a page was built from, or None."""
    path = ROOT / Path(page).with_suffix('.ipynb')
    return path if path.parent.name == 'chapters' and path.exists() else None


def stored_outputs(notebook):
    """What the book must show of a notebook: how many code cells print something, and how
    many pictures (PNG or SVG) they draw, leaving out cells tagged to be removed."""
    nb = json.loads(notebook.read_text())
    printing = pictures = 0
    for cell in nb['cells']:
        tags = set(cell.get('metadata', {}).get('tags', []))
        if cell['cell_type'] != 'code' or tags & {'remove-cell', 'remove-output'}:
            continue
        outputs = cell.get('outputs', [])
        printing += bool(outputs)
        pictures += sum(1 for o in outputs
                        if {'image/png', 'image/svg+xml'} & set(o.get('data', {})))
    return printing, pictures


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope='module')
def server():
    if not (HTML / 'intro.html').exists():
        _missing(f'the book is not built ({HTML} has no intro.html)')
    handler = functools.partial(_QuietHandler, directory=str(HTML))
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f'http://127.0.0.1:{httpd.server_port}/'
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope='module')
def browser():
    with chromium.launched(_missing) as launched:
        yield launched


# Runs in the page once it has loaded and MathJax has finished.
_INSPECT = """async () => {
  const images = [...document.images].map(i => ({
      src: i.getAttribute('src'), loaded: i.complete && i.naturalWidth > 0,
      natural: i.naturalWidth, shown: i.clientWidth, inFigure: !!i.closest('figure, .cell_output'),
      keepsSize: !!i.closest('figure, .cell_output'),
      // _assets/figures.js: a click opens the picture itself, full size
      opensFullSize: !!(i.closest('a') && i.closest('a').getAttribute('href') === i.getAttribute('src'))}));
  // sphinx.ext.graphviz embeds its SVG drawings (the landing page's map) as objects
  for (const o of document.querySelectorAll('object[type="image/svg+xml"]'))
    images.push({src: o.getAttribute('data'), loaded: !!(o.contentDocument && o.contentDocument.querySelector('svg')),
                 shown: o.clientWidth, inFigure: false, keepsSize: true});
  const mathLeft = [...document.querySelectorAll('.math')]
      .filter(e => !e.querySelector('mjx-container'))
      .map(e => e.textContent.slice(0, 60));
  return {
    h1: [...document.querySelectorAll('h1')].map(h => h.textContent.trim()).filter(t => t),
    outputs: document.querySelectorAll('div.cell_output').length,
    images,
    mathLeft,
    mathErrors: document.querySelectorAll('mjx-merror').length,
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    // code blocks whose lines do not fit the column (a scrollbar hides their ends)
    overflowingCode: [...document.querySelectorAll('article pre')]
        .filter(p => p.scrollWidth > p.clientWidth + 1)
        .map(p => p.textContent.split(String.fromCharCode(10))
                   .reduce((a, l) => l.length > a.length ? l : a, '').slice(0, 60)),
    // inline code in a table drawn on more than one line: an identifier broken mid-word
    brokenCode: [...document.querySelectorAll('article table code')]
        .filter(c => c.getClientRects().length > 1).map(c => c.textContent.slice(0, 40)),
  };
}"""

# MathJax 3 typesets the page once it has loaded; startup.promise settles when it is done
_MATHJAX_DONE = """() => window.MathJax && MathJax.startup ? MathJax.startup.promise.then(() => true) : true"""


def svg_text_scale(svg_text):
    """(smallest font size, viewBox width, scale of the drawing) of an SVG file's text."""
    sizes = [float(s) for s in re.findall(r'font-size="([\d.]+)"', svg_text)]
    view = re.search(r'viewBox="[\d.\-]+ [\d.\-]+ ([\d.]+) [\d.]+"', svg_text)
    scale = re.search(r'<g id="graph0"[^>]*transform="scale\(([\d.]+)', svg_text)
    if not sizes or not view:
        return None
    return min(sizes), float(view.group(1)), float(scale.group(1)) if scale else 1.0


def open_page(browser, url, width):
    """Open url at the given width; return (page, problems seen while loading it)."""
    context = browser.new_context(viewport={'width': width, 'height': 900})
    page = context.new_page()
    problems = []
    page.on('console', lambda m: m.type == 'error' and problems.append(
        f"console error: {m.text} ({m.location.get('url')})"))
    page.on('pageerror', lambda e: problems.append(f'script error: {e}'))
    page.on('requestfailed', lambda r: problems.append(f'failed to load {r.url}'))
    page.on('response', lambda r: r.status >= 400 and problems.append(f'HTTP {r.status} for {r.url}'))
    # the book is read offline: everything a page needs comes from the book itself
    own = url[:url.index('/', len('http://')) + 1]
    page.on('request', lambda r: r.url.startswith((own, 'data:', 'blob:', 'about:')) or problems.append(
        f'asks the network for {r.url}'))
    response = page.goto(url, wait_until='load')
    if response is None or response.status != 200:
        problems.append(f'HTTP {response.status if response else "no response"} for the page')
    page.evaluate(_MATHJAX_DONE)
    return page, problems


PAGES = _pages()


@pytest.mark.parametrize('width', WIDTHS)
@pytest.mark.parametrize('name', PAGES or ['(book not built)'])
def test_page_in_the_browser(server, browser, name, width):
    if not PAGES:
        _missing('the book is not built')
    page, problems = open_page(browser, server + name, width)
    try:
        seen = page.evaluate(_INSPECT)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shot = SCREENSHOTS / f"{name.replace('/', '_').removesuffix('.html')}-{width}.png"
        page.screenshot(path=str(shot), full_page=True)

        if not seen['h1']:
            problems.append('no title (h1)')
        problems += [f"image did not load: {i['src']}" for i in seen['images'] if not i['loaded']]
        problems += [f'formula left as raw TeX: {m!r}' for m in seen['mathLeft']]
        if seen['mathErrors']:
            problems.append(f"{seen['mathErrors']} formulas MathJax could not typeset")

        notebook = _notebook_for(name)
        if notebook is not None:
            printing, pictures = stored_outputs(notebook)
            number = re.match(r'(\d+)_', notebook.name).group(1).lstrip('0')
            if not any(title.startswith(f'{number}. ') for title in seen['h1']):
                problems.append(f"title {seen['h1'][:1]} does not carry the chapter number {number}")
            if seen['outputs'] < printing:
                problems.append(f"{seen['outputs']} cell outputs shown, the notebook stores {printing}")
            shown = sum(1 for i in seen['images'] if i['inFigure'])
            problems += [f"a click on {i['src']} does not open it full size" for i in seen['images']
                         if i['inFigure'] and not i['opensFullSize']]
            if shown < pictures:
                problems.append(f'{shown} pictures shown, the notebook stores {pictures}')

        problems += [f'code broken across lines in a table: {c!r}' for c in seen['brokenCode']]
        if width <= 400 and seen['scrollWidth'] > seen['innerWidth']:
            problems.append(f"the page is {seen['scrollWidth']} px wide on a {seen['innerWidth']} px screen")

        if width >= 1280:
            problems += [f'a code block wider than the column: {line!r}...' for line in seen['overflowingCode']]
        # figures: at both widths (on a phone a figure keeps its desktop size and scrolls
        # sideways in its own box, _assets/figures.js)
        for image in seen['images']:
            if width < 1280 and not image['keepsSize']:
                continue        # (only figures and drawn maps keep their desktop size on a phone)
            if (image['src'] or '').endswith('.png') and image['shown'] < MIN_PLOT_SCALE * image['natural']:
                problems.append(f"{image['src']}: a {image['natural']} px wide plot shrunk to "
                                f"{image['shown']} px, its text under 9 px")
            if not (image['src'] or '').endswith('.svg') or not image['shown']:
                continue
            svg = page.evaluate('src => fetch(src).then(r => r.text())', image['src'])
            scale = svg_text_scale(svg)
            if scale is None:
                continue
            smallest, view_width, drawing_scale = scale
            px = smallest * drawing_scale * image['shown'] / view_width
            if px < MIN_FIGURE_TEXT_PX:
                problems.append(f"{image['src']}: its smallest text is {px:.1f} px "
                                f"(shown {image['shown']} px wide, drawn {view_width:.0f} wide)")
    finally:
        page.context.close()
    assert not problems, f'{name} at {width} px:\n  ' + '\n  '.join(problems)


def test_the_landing_page_offers_every_chapter_in_one_download():
    # _ext/book_indexes.py zips the chapters when the book is built; intro.md links the zip
    archive = HTML / '_static' / 'reflib-chapters.zip'
    if not archive.is_file():
        _missing('no built book with its chapters archive at %s' % archive)
    import zipfile      # (this test alone reads a zip)
    with zipfile.ZipFile(archive) as z:
        names = sorted(n.rsplit('/', 1)[-1] for n in z.namelist() if n.endswith('.ipynb'))
        assert 'reflib-chapters/README.txt' in z.namelist()
    assert names == sorted(p.name for p in (ROOT / 'chapters').glob('*.ipynb'))
    assert '_static/reflib-chapters.zip' in (HTML / 'intro.html').read_text(encoding='utf-8')
