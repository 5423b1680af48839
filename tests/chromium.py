"""Headless Chromium for the tests that look at pages (test_browser.py, test_lab.py): one way
to start it, and one place that says what is missing when it cannot start."""

import contextlib
import shutil


@contextlib.contextmanager
def launched(missing):
    """Chromium through Playwright, closed at the end; ``missing(why)`` skips or fails the
    test (each test file decides which) when Playwright or Chromium is not there."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing('playwright is not installed')
    chromium = shutil.which('chromium') or shutil.which('chromium-browser')
    if chromium is None:
        missing('no chromium on PATH')
    with sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
        browser = playwright.chromium.launch(executable_path=chromium, args=['--no-sandbox'])
        try:
            yield browser
        finally:
            browser.close()
