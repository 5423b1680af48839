"""Fuzzing the loaders: a damaged file loads the right thing or raises an MXNetError, never
another exception and never a hang.

The seeds are real files: symbol JSON, ``.params`` and ``.states`` written by MXNet 1.9.1
(tests/golden/gen_*.py) and by reflib.  Hypothesis damages them twice over: as text or
bytes (flipped, cut, inserted bytes) and, for JSON, as structure (a value replaced by
another of any JSON type, a key deleted, a list element dropped or doubled), which reaches
the checks a byte flip rarely gets past the parser to.

The number of examples is bounded (``REFLIB_FUZZ_EXAMPLES``, default 150 per property), and
CI runs them derandomized, so a failure there repeats here.
"""

import copy
import glob
import json
import os
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reflib as mx
from reflib.base import MXNetError

GOLDEN = os.path.join(os.path.dirname(__file__), 'golden')
EXAMPLES = int(os.environ.get('REFLIB_FUZZ_EXAMPLES', '150'))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _read(path, mode='r'):
    with open(path, mode) as f:
        return f.read()


SYMBOL_SEEDS = sorted(glob.glob(os.path.join(GOLDEN, '*-symbol.json')))


# ---------------------------------------------------------------------------- damage


def damaged_bytes(data):
    """Byte-level damage to ``data``: flips, cuts, inserts and overwrites, one to four of them."""
    def apply(edits):
        out = bytearray(data)
        for kind, where, value in edits:
            if not out:
                break
            pos = where % len(out)
            if kind == 0:
                out[pos] ^= 1 << (value % 8)
            elif kind == 1:
                del out[pos:]
            elif kind == 2:
                out[pos:pos] = bytes([value % 256]) * (1 + value % 3)
            else:
                out[pos] = value % 256
        return bytes(out)
    edit = st.tuples(st.integers(0, 3), st.integers(0, 2 ** 31), st.integers(0, 255))
    return st.lists(edit, min_size=1, max_size=4).map(apply)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 2 ** 40) | st.floats(allow_nan=False)
    | st.text(max_size=8) | st.sampled_from(['null', 'FullyConnected', 'None', '(2, 3)', '-1', '[0, 0, 0]']),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8)


def _paths(value, prefix=()):
    """Every path (tuple of keys and indices) into a JSON value."""
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, prefix + (key,))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _paths(child, prefix + (i,))


def _at(value, path):
    for key in path:
        value = value[key]
    return value


@st.composite
def damaged_json(draw, document):
    """``document`` (parsed JSON) with one to three structural edits."""
    doc = copy.deepcopy(document)
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(doc))
        path = paths[draw(st.integers(0, len(paths) - 1))]
        if not path:
            doc = draw(JSON_VALUES)
            continue
        parent, key = _at(doc, path[:-1]), path[-1]
        action = draw(st.sampled_from(['replace', 'delete', 'double']))
        if action == 'replace':
            parent[key] = draw(JSON_VALUES)
        elif action == 'delete':
            del parent[key]
        elif isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        else:
            parent[key] = [parent[key], parent[key]]
    return doc


# ---------------------------------------------------------------------------- symbol JSON


def _use(sym):
    """Everything a user does first with a loaded symbol; each may only raise an MXNetError."""
    sym.list_arguments()
    sym.list_outputs()
    sym.list_auxiliary_states()
    sym.attr_dict()
    sym.infer_shape_partial()
    mx.sym.load_json(sym.tojson()).tojson()


def _loads_or_refuses(text):
    try:
        sym = mx.sym.load_json(text)
    except MXNetError:
        return
    try:
        _use(sym)
    except MXNetError:
        pass


@pytest.mark.parametrize('path', SYMBOL_SEEDS, ids=os.path.basename)
def test_seed_symbol_files_load_and_round_trip(path):
    text = _read(path)
    sym = mx.sym.load_json(text)
    again = json.loads(sym.tojson())
    original = json.loads(text)
    assert [n['name'] for n in again['nodes']] == [n['name'] for n in original['nodes']]
    assert again['heads'] == [list(h) for h in original['heads']]


@pytest.mark.parametrize('path', SYMBOL_SEEDS, ids=os.path.basename)
def test_damaged_symbol_text_loads_or_raises_mxnet_error(path):
    @FUZZ
    @given(damaged_bytes(_read(path, 'rb')))
    def check(data):
        _loads_or_refuses(data)
    check()


@pytest.mark.parametrize('path', SYMBOL_SEEDS, ids=os.path.basename)
def test_damaged_symbol_structure_loads_or_raises_mxnet_error(path):
    @FUZZ
    @given(damaged_json(json.loads(_read(path))))
    def check(doc):
        _loads_or_refuses(json.dumps(doc))
    check()


def test_deeply_nested_json_is_refused_cleanly():
    with pytest.raises(MXNetError, match='nested too deeply|not valid JSON'):
        mx.sym.load_json('[' * 100000 + ']' * 100000)
