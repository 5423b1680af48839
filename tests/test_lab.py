"""A chapter opened in JupyterLab, as `make lab` opens it: its MyST markup must be rendered.

The chapters' markdown is MyST (admonitions, figures, math).  The book renders it with
Sphinx; JupyterLab renders it only with the jupyterlab-myst extension, which the `lab`
extra in pyproject.toml installs next to JupyterLab.  Without it a reader sees the raw
"```{admonition} Exercise 1" fences and every solution in plain view.

This test starts a real JupyterLab server from the repository root (as `make lab` does, but
headless: a free port on 127.0.0.1, a token, no browser), opens chapter 1 in headless
Chromium through playwright and checks that

* every markdown cell is rendered by jupyterlab-myst, and no directive is left as raw
  markup ("```{" or ":::{");
* each "```{admonition} Exercise N" is an admonition titled "Exercise N";
* each "```{admonition} Solution" with `:class: dropdown` is a closed dropdown: its text is
  not visible until its title is clicked.

The server is shut down (kernel included) whatever happens.  A screenshot of the exercises
is saved to _build/screenshots/lab_ch01_exercises.png to look at.

`make test` installs the `lab` extra first and sets REFLIB_BROWSER_TEST=1, so there this
test always runs (and fails when something is missing); a plain `pytest tests` skips it
when JupyterLab, jupyterlab-myst, playwright or chromium is missing.
"""

import importlib.util
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import chromium

ROOT = Path(__file__).resolve().parent.parent
CHAPTER = 'chapters/01_ndarray_context.ipynb'
SCREENSHOT = ROOT / '_build' / 'screenshots' / 'lab_ch01_exercises.png'
REQUIRED = os.environ.get('REFLIB_BROWSER_TEST') == '1'
# seconds: the server to answer, then the notebook to render (2 busy cores are slow)
SERVER_START_S = 45
RENDER_S = 60

# JupyterLab settings for the test's server only (its own user-settings folder): every cell
# rendered at once rather than as it scrolls into view, nothing ever saved back into
# chapters/, no "official Jupyter news?" pop-up over the page
LAB_SETTINGS = {
    '@jupyterlab/notebook-extension/tracker': {'windowingMode': 'none'},
    '@jupyterlab/docmanager-extension/plugin': {'autosave': False},
    '@jupyterlab/apputils-extension/notification': {'fetchNews': 'false', 'checkForUpdates': False},
}


def _missing(why):
    if REQUIRED:
        pytest.fail(why + ' (make test should have provided it)')
    pytest.skip(why + ": `make lab` and `make test` install the `lab` extra, `make test` also chromium")


def directives(notebook):
    """The exercise titles and the number of dropdown solutions in a notebook's markdown."""
    nb = json.loads((ROOT / notebook).read_text())
    text = '\n'.join(''.join(c['source']) for c in nb['cells'] if c['cell_type'] == 'markdown')
    exercises = re.findall(r'^`{3,}\{admonition\} (Exercise \d+)\s*$', text, re.M)
    solutions = re.findall(r'^`{3,}\{admonition\} Solution\s*\n:class: dropdown\s*$', text, re.M)
    return exercises, len(solutions)


def _free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def _shutdown(proc, url, token):
    """Stop the server the way its own shutdown button does, then harder if it hangs."""
    if proc.poll() is None:
        try:
            request = urllib.request.Request(url + 'api/shutdown', method='POST',
                                             headers={'Authorization': f'token {token}'})
            urllib.request.urlopen(request, timeout=10).close()
        except OSError:
            pass
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
    # the server runs in a process group of its own: whatever it started (the kernel) goes too
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


@pytest.fixture(scope='module')
def lab(tmp_path_factory):
    """(base URL, token) of a JupyterLab server on the repository root."""
    for module, name in (('jupyterlab', 'JupyterLab'), ('jupyterlab_myst', 'jupyterlab-myst')):
        if importlib.util.find_spec(module) is None:
            _missing(f'{name} is not installed')
    home = tmp_path_factory.mktemp('lab')
    settings = home / 'settings'
    for plugin, values in LAB_SETTINGS.items():
        path = settings / f'{plugin}.jupyterlab-settings'
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    port, token = _free_port(), secrets.token_hex(16)
    url = f'http://127.0.0.1:{port}/'
    # the user's Jupyter folders are left alone: config, runtime files, the notebook-signing
    # key and the checkpoints Lab takes when it opens a notebook all go to the temporary folder
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(home / 'config'),
               JUPYTER_RUNTIME_DIR=str(home / 'runtime'), JUPYTER_DATA_DIR=str(home / 'data'))
    command = [sys.executable, '-m', 'jupyterlab', '--no-browser', '--ip=127.0.0.1',
               f'--port={port}', '--ServerApp.port_retries=0', f'--IdentityProvider.token={token}',
               f'--LabApp.user_settings_dir={settings}', f'--LabApp.workspaces_dir={home / "workspaces"}',
               f'--FileCheckpoints.root_dir={home / "checkpoints"}']
    if os.geteuid() == 0:
        command.append('--allow-root')
    log_path = home / 'server.log'
    with open(log_path, 'w') as log:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f'JupyterLab exited with {proc.returncode}:\n{log_path.read_text()[-3000:]}')
            try:
                with urllib.request.urlopen(f'{url}api/status?token={token}', timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f'JupyterLab did not answer in {SERVER_START_S} s:\n{log_path.read_text()[-3000:]}')
            time.sleep(0.3)
        yield url, token
    finally:
        _shutdown(proc, url, token)


@pytest.fixture(scope='module')
def browser():
    with chromium.launched(_missing) as launched:
        yield launched


# what jupyterlab-myst made of the notebook's markdown cells
_INSPECT = """() => {
  const cells = [...document.querySelectorAll('.jp-Notebook .jp-MarkdownCell')];
  const rendered = cells.map(c => c.querySelector('.myst')).filter(m => m);
  return {
    cells: cells.length,
    rendered: rendered.length,
    // raw directive fences left in what a reader sees (the hidden editors do not count)
    raw: rendered.map(m => m.innerText).join('\\n').split('\\n')
        .filter(l => /^\\s*(`{3,}|:{3,})\\{/.test(l)).map(l => l.trim().slice(0, 60)),
    admonitions: [...document.querySelectorAll('.jp-MarkdownCell .myst-admonition')].map(a => ({
        tag: a.tagName.toLowerCase(),
        title: (a.querySelector('.myst-admonition-header') || {innerText: ''}).innerText.trim(),
        dropdown: a.classList.contains('dropdown'),
        open: !!a.open})),
  };
}"""


def test_chapter_renders_myst_in_lab(lab, browser):
    url, token = lab
    exercises, solutions = directives(CHAPTER)
    assert exercises and solutions, f'{CHAPTER} has no exercises with dropdown solutions to check'

    context = browser.new_context(viewport={'width': 1280, 'height': 900})
    page = context.new_page()
    try:
        page.goto(f'{url}lab/tree/{CHAPTER}?token={token}', wait_until='load')
        # rendered: every exercise the notebook has shows up as a jupyterlab-myst admonition
        page.wait_for_function(
            """n => document.querySelectorAll('.jp-MarkdownCell .myst-admonition').length >= n""",
            arg=len(exercises) + solutions, timeout=RENDER_S * 1000)
        seen = page.evaluate(_INSPECT)

        assert seen['cells'] and seen['rendered'] == seen['cells'], (
            f"{seen['rendered']} of {seen['cells']} markdown cells rendered by jupyterlab-myst")
        assert not seen['raw'], f"directives left as raw markup in Lab: {seen['raw']}"

        titles = [a['title'] for a in seen['admonitions']]
        for title in exercises:
            assert title in titles, f'no admonition titled {title!r} in Lab (admonitions: {titles})'
            assert page.locator('.myst-admonition-header-text', has_text=re.compile(f'^{title}$')).first.is_visible()

        dropdowns = [a for a in seen['admonitions'] if a['title'] == 'Solution']
        assert len(dropdowns) == solutions, f'{len(dropdowns)} Solution admonitions, the notebook has {solutions}'
        assert all(a['dropdown'] and a['tag'] == 'details' for a in dropdowns), (
            f'a Solution is not a dropdown: {dropdowns}')
        assert not any(a['open'] for a in dropdowns), 'a Solution dropdown starts open'

        # the first solution: hidden under its title until the reader clicks it
        solution = page.locator('.jp-MarkdownCell details.myst-admonition.dropdown').first
        body = solution.locator('.myst-admonition-body')
        summary = solution.locator('summary')
        # the screenshot: the first exercise at the top, its solution folded under it
        page.locator('.myst-admonition-header-text', has_text=re.compile(f'^{exercises[0]}$')).first \
            .evaluate("e => e.closest('.myst-admonition').scrollIntoView({block: 'start'})")
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT))
        assert summary.is_visible(), 'the Solution title is not visible'
        assert body.count() == 1 and not body.is_visible(), 'the Solution text shows before a click'
        summary.click()
        body.wait_for(state='visible', timeout=5000)
        assert solution.evaluate('d => d.open')
    finally:
        context.close()
