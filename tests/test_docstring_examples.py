"""Every ``>>>`` example in reflib's docstrings runs and prints what it shows.

The API reference (api/) is made from these docstrings, so an example that drifted from
the code would mislead a reader there.  Each module's examples run in a fresh temporary
folder (several write small files), with ``mx`` (reflib) and ``np`` (numpy) at hand unless
the module defines a name of its own (``mx.metric.np`` is a function).
"""

import doctest
import importlib
import pkgutil
import warnings

import numpy as np
import pytest

import reflib as mx


def _modules():
    names = []
    for info in pkgutil.walk_packages(mx.__path__, 'reflib.'):
        module = importlib.import_module(info.name)
        if any(test.examples for test in doctest.DocTestFinder().find(module)):
            names.append(info.name)
    return names


MODULES = _modules()


def test_examples_are_found():
    # the walk itself is checked: the modules whose examples the API reference shows
    for name in ('reflib.io.image_record', 'reflib.io.mnist', 'reflib.io.csv_iter',
                 'reflib.feedforward', 'reflib.recordio', 'reflib.metric.custom'):
        assert name in MODULES


@pytest.mark.parametrize('name', MODULES)
def test_docstring_examples_run(name, tmp_path, monkeypatch):
    module = importlib.import_module(name)
    monkeypatch.chdir(tmp_path)
    extraglobs = {k: v for k, v in (('mx', mx), ('np', np)) if k not in vars(module)}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)    # FeedForward's, as MXNet's
        result = doctest.testmod(module, extraglobs=extraglobs, report=False,
                                 optionflags=doctest.ELLIPSIS)
    if result.failed:
        # run again, printing the failing examples into the test's output
        doctest.testmod(module, extraglobs=extraglobs, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, '%d of %d examples failed in %s' % (result.failed, result.attempted, name)
