"""``{api-summary} <module> [<module> ...]``: a table at the top of an API page with one row per
public name of those modules -- the name (a link to its entry below), its signature on one
line, and the first sentence of its docstring -- so that a reader sees the whole page at once.

The names are the modules' ``__all__`` (or, without one, the functions and classes each defines),
the same set tests/test_docstrings.py holds to having a docstring.
"""

import importlib
import inspect
import os
import sys

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx import addnodes

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def public_names(module):
    names = getattr(module, '__all__', None)
    if names is None:
        names = [n for n, v in vars(module).items()
                 if not n.startswith('_') and (inspect.isfunction(v) or inspect.isclass(v))
                 and getattr(v, '__module__', None) == module.__name__]
    out = []
    for name in names:
        obj = getattr(module, name, None)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            out.append((name, obj))
    return out


def signature_parts(obj, width=60):
    """The parameters as strings (``a``, ``b=1``, ``*args``), cut with ``...`` past ``width``
    characters in all; None where there is no signature to show."""
    if inspect.isclass(obj) and issubclass(obj, BaseException) and not any(
            '__init__' in vars(k) for k in obj.__mro__ if k.__module__ != 'builtins'):
        return None         # an error class made like any exception: its message
    try:
        target = obj.__init__ if inspect.isclass(obj) else obj
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return None
    parts, length = [], 2
    for p in sig.parameters.values():
        if p.name == 'self':
            continue
        if p.kind is p.VAR_POSITIONAL:
            text = '*' + p.name
        elif p.kind is p.VAR_KEYWORD:
            text = '**' + p.name
        elif p.default is p.empty:
            text = p.name
        else:
            default = repr(p.default)
            text = '%s=%s' % (p.name, default if len(default) <= 12 else '...')
        if length + len(text) > width and parts:
            parts.append('...')
            break
        parts.append(text)
        length += len(text) + 2
    return parts


def one_line_signature(obj, width=60):
    """``(a, b=1, ...)``: the parameters on one line, cut with '...' past ``width`` characters."""
    parts = signature_parts(obj, width)
    return '' if parts is None else '(' + ', '.join(parts) + ')'


def first_sentence(obj):
    doc = inspect.getdoc(obj) or ''
    para = doc.strip().split('\n\n')[0].replace('\n', ' ')
    end = para.find('. ')
    return para if end < 0 else para[:end + 1]


class ApiSummary(Directive):
    required_arguments = 1
    optional_arguments = 20

    def run(self):
        if _ROOT not in sys.path:
            sys.path.insert(0, _ROOT)
        table = nodes.table(classes=['api-summary'])
        group = nodes.tgroup(cols=1)
        table += group
        group += nodes.colspec(colwidth=100)
        body = nodes.tbody()
        group += body
        for module_name in self.arguments:
            try:
                module = importlib.import_module(module_name)
            except ImportError as err:
                raise self.error('api-summary: cannot import %s: %s' % (module_name, err))
            for name, obj in public_names(module):
                # one cell per name: the name and its signature on the first line, what it
                # does under it (two columns squeezed the sentence out of sight on a phone)
                row = nodes.row()
                entry = nodes.entry()
                para = nodes.paragraph()
                role = 'class' if inspect.isclass(obj) else 'func'
                ref = addnodes.pending_xref('', refdomain='py', reftype=role,
                                            reftarget='%s.%s' % (module_name, name), refexplicit=True)
                ref += nodes.literal(text=name)
                para += ref
                parts = signature_parts(obj)
                if parts is not None:
                    # one piece of code per parameter: a line may break between two, never
                    # inside one (the rule of every table of the book, tests/test_browser.py)
                    para += nodes.Text(' (')
                    for k, part in enumerate(parts):
                        if k:
                            para += nodes.Text(', ')
                        para += nodes.literal(text=part, classes=['api-signature'])
                    para += nodes.Text(')')
                entry += para
                purpose = nodes.paragraph(classes=['api-purpose'])
                # the sentence's own markup (``code``, :class:`...`) rendered as in the entry below
                inline, messages = self.state.inline_text(first_sentence(obj), self.lineno)
                purpose += inline
                entry += purpose
                entry += messages
                row += entry
                body += row
        return [table]


def setup(app):
    app.add_directive('api-summary', ApiSummary)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
