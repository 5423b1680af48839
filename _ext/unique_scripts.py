"""Each script tag once per page.

sphinx-thebe and sphinx-togglebutton register their inline configuration scripts once per
reading pass, and a Jupyter Book build runs more than one, so every page declared
``const THEBE_JS_URL`` twice and the browser's console reported "Identifier 'THEBE_JS_URL'
has already been declared".  This extension drops repeated script entries (same file, same
attributes, same inline body) before a page is written.
"""


def _key(script):
    attributes = getattr(script, 'attributes', None) or {}
    return getattr(script, 'filename', None) or '', tuple(sorted((k, str(v)) for k, v in attributes.items()))


def _unique(app, pagename, templatename, context, doctree):
    scripts = context.get('script_files')
    if not scripts:
        return
    seen, kept = set(), []
    for script in scripts:
        key = _key(script)
        if key not in seen:
            seen.add(key)
            kept.append(script)
    scripts[:] = kept


def setup(app):
    app.connect('html-page-context', _unique, priority=900)   # after everyone who adds scripts
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
