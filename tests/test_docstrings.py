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
import importlib.util
import inspect
import os
import pkgutil

import pytest

import reflib


def _skipped(name):
    return name.startswith('reflib.book') or (name.startswith('reflib.operator.') and name != 'reflib.operator')


def _modules():
    return sorted(info.name for info in pkgutil.walk_packages(reflib.__path__, 'reflib.')
                  if not _skipped(info.name)) + ['reflib']


def _load_api_summary():
    # the API pages' summary tables list the same names: one definition of "public", theirs
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), '_ext', 'api_summary.py')
    spec = importlib.util.spec_from_file_location('api_summary', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# (name, class or function) of a module's public names: its __all__, or what it defines
_public = _load_api_summary().public_names


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
