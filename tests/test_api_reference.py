"""The API reference (api/) leaves nothing out: every module that defines public names is on a
page (or listed below as internal, with the reason), and every registered operator is on exactly
one of the operator pages that _ext/operator_reference.py makes from the registry."""

import glob
import importlib
import importlib.util
import os
import re

import pytest

import reflib
from reflib.operator import registry

import test_docstrings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# modules with public names of their own that the reference leaves out, and why
INTERNAL = {
    'reflib.symbol': "its functions are the operators (mx.sym.<name>), on the operator pages",
    'reflib.ndarray.op_functions': 'how mx.nd.<name> calls an operator: the operator pages',
    'reflib.symbol.positional': 'how a call\'s arguments become an operator\'s inputs (internal)',
    'reflib.symbol.storage': 'storage-type inference for bind (internal)',
    'reflib.executor.sparse_storage': 'how the executor moves sparse arrays (internal)',
    'reflib.shapes': 'shape arithmetic the layers share (internal)',
    'reflib.registry': 'the name -> class table behind optimizers, initializers, metrics (internal)',
    'reflib.fluent': "builds NDArray's and Symbol's operator methods (internal)",
    'reflib.generators': 'the random generators behind mx.random (internal)',
    'reflib.image_codec': 'image decoding behind mx.image (internal)',
    'reflib.io.image_augment': "ImageRecordIter's augmentation steps (internal)",
    'reflib.io.image_resize': "ImageRecordIter's resizing (internal)",
    'reflib.io.std_shuffle': "the shuffle order MXNet's C++ iterators use (internal)",
    'reflib.io.text_numbers': "CSVIter's and LibSVMIter's number parsing (internal)",
    'reflib.rank_guard': 'the per-process wrapper launch.py starts (internal)',
    'reflib.feedforward_train': "FeedForward.fit's loop (internal)",
}


def _operator_reference():
    spec = importlib.util.spec_from_file_location('operator_reference', os.path.join(ROOT, '_ext',
                                                                                    'operator_reference.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _documented_modules():
    found = set()
    for path in glob.glob(os.path.join(ROOT, 'api', '*.md')):
        with open(path, encoding='utf-8') as f:
            found |= set(re.findall(r'automodule:: (\S+)', f.read()))
    return found


def _defines_public_names(name):
    module = importlib.import_module(name)
    return any(getattr(obj, '__module__', None) == name
               for _, obj in test_docstrings._public(module))


@pytest.mark.parametrize('name', test_docstrings._modules())
def test_every_module_with_public_names_is_on_a_page(name):
    if name in INTERNAL or not _defines_public_names(name):
        return
    assert name in _documented_modules(), '%s defines public names but no api/ page shows it' % name


def test_the_internal_list_names_real_modules_that_no_page_shows():
    pages = _documented_modules()
    for name in INTERNAL:
        importlib.import_module(name)
        assert name not in pages


def test_every_operator_is_on_exactly_one_page():
    ref = _operator_reference()
    modules = [m for _, (_, mods) in ref.GROUPS.items() for m in mods]
    assert len(modules) == len(set(modules)), 'an operator module is on two pages'
    for op in registry.canonical_operators():
        assert ref.group_of(op) is not None, '%s (%s) is on no operator page' % (op.name, type(op).__module__)
    for key in ref.GROUPS:
        assert os.path.exists(os.path.join(ROOT, 'api', 'operators', key + '.md'))


def test_an_operator_entry_says_inputs_outputs_and_where_the_book_uses_it():
    ref = _operator_reference()
    conv = registry.get('Convolution')
    assert ref.signature(conv) == (['data', 'weight', 'bias'], ['output'], [])
    bn = registry.get('BatchNorm')
    assert ref.signature(bn)[2] == ['moving_mean', 'moving_var']
    calls = ref.chapter_calls()
    assert '05_executor' in [stem for stem, _ in calls['FullyConnected']]
    assert reflib.__name__ == 'reflib'
