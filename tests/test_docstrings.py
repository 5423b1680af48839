"""Every public name of reflib has a docstring: the API reference (api/) is made from them,
and autodoc silently leaves a member without one out of the page.

Public: the names in a module's ``__all__``; in a module without one, the functions and
classes it defines whose names do not start with ``_``; and of each public class, the
methods and properties it defines (a method that overrides a documented one inherits its
docstring, as the reference shows it).  Not checked: ``reflib.book`` (the book's helpers,
read in the chapters) and the operator implementations under ``reflib.operator`` other than
its package (the operator reference is made from the registry's parameter docs instead).
"""

import importlib
import inspect
import pkgutil

import pytest

import reflib


def _skipped(name):
    return name.startswith('reflib.book') or (name.startswith('reflib.operator.') and name != 'reflib.operator')


def _modules():
    return sorted(info.name for info in pkgutil.walk_packages(reflib.__path__, 'reflib.')
                  if not _skipped(info.name)) + ['reflib']


def _public(module):
    names = getattr(module, '__all__', None)
    if names is None:
        names = [n for n, v in vars(module).items()
                 if not n.startswith('_') and (inspect.isfunction(v) or inspect.isclass(v))
                 and getattr(v, '__module__', None) == module.__name__]
    return [(n, getattr(module, n)) for n in names if hasattr(module, n)]


def _property_doc(cls, name):
    for klass in cls.__mro__:
        attr = vars(klass).get(name)
        if isinstance(attr, property) and attr.fget is not None and (attr.fget.__doc__ or '').strip():
            return attr.fget.__doc__
    return None


def undocumented(module):
    """The public names of ``module`` (and of its public classes) without a docstring."""
    missing = []
    for name, obj in _public(module):
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if getattr(obj, '__module__', module.__name__) != module.__name__ and module.__name__ != 'reflib':
            continue                # re-exported: checked where it is defined
        if not (inspect.getdoc(obj) or '').strip():
            missing.append(name)
        if not inspect.isclass(obj):
            continue
        for member, attr in vars(obj).items():
            if member.startswith('_'):
                continue
            if isinstance(attr, property):
                if not (_property_doc(obj, member) or '').strip():
                    missing.append('%s.%s' % (name, member))
            elif inspect.isfunction(attr) or isinstance(attr, (staticmethod, classmethod)):
                if not (inspect.getdoc(getattr(obj, member)) or '').strip():
                    missing.append('%s.%s' % (name, member))
    return missing


@pytest.mark.parametrize('name', _modules())
def test_every_public_name_has_a_docstring(name):
    module = importlib.import_module(name)
    missing = undocumented(module)
    assert not missing, '%s: no docstring for %s' % (name, ', '.join(missing))
