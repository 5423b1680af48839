"""One search button per page, in the sidebar.

pydata-sphinx-theme 0.17 puts a search button in a header bar of its own unless the theme
options name what that bar holds ("navbar_persistent").  sphinx-book-theme already has one
in the sidebar, so every page showed two.  Jupyter Book writes html_theme_options itself
from _config.yml's `html:` section, and a `sphinx.config.html_theme_options` entry would
replace all of them; this extension adds the one missing option instead.
"""


def _no_header_search(app, config):
    config.html_theme_options.setdefault('navbar_persistent', [])


def setup(app):
    app.connect('config-inited', _no_header_search)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
