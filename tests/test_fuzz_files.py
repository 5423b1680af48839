"""Fuzzing the loaders: a damaged file loads the right thing or raises an MXNetError, never
another exception and never a hang.

The seeds are real files: symbol JSON, ``.params`` and ``.states`` written by MXNet 1.9.1
(tests/golden/gen_*.py) and by reflib.  Hypothesis damages them twice over: as text or
bytes (flipped, cut, inserted bytes) and, for JSON, as structure (a value replaced by
another of any JSON type, a key deleted, a list element dropped or doubled), which reaches
the checks a byte flip rarely gets past the parser to.

The number of examples is bounded (``REFLIB_FUZZ_EXAMPLES``, default 150 per property), each
example fails after 20 s instead of hanging, and CI runs them derandomized, so a failure
there repeats here.
"""

import contextlib
import copy
import glob
import json
import os
import signal

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


@contextlib.contextmanager
def no_hang(seconds=20):
    """Fail, rather than wait for ever, if one example takes longer than ``seconds``."""
    def give_up(signum, frame):
        raise AssertionError('a loader ran for more than %d s on one damaged file' % seconds)
    previous = signal.signal(signal.SIGALRM, give_up)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


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
    with no_hang():
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


# ---------------------------------------------------------------------------- .params and .nd files


PARAMS_SEEDS = sorted(glob.glob(os.path.join(GOLDEN, '*.params')) + glob.glob(os.path.join(GOLDEN, 'mx_*.nd')))


@pytest.mark.parametrize('path', PARAMS_SEEDS, ids=os.path.basename)
def test_damaged_ndarray_files_load_or_raise_mxnet_error(path):
    @FUZZ
    @given(damaged_bytes(_read(path, 'rb')))
    def check(data):
        with no_hang():
            try:
                loaded = mx.nd.load_frombuffer(data)
            except MXNetError:
                return
            arrays = loaded.values() if isinstance(loaded, dict) else loaded
            for arr in arrays:
                # a sparse array's dense form may be huge and valid (a big embedding): read what it stores
                (arr.data if arr.stype != 'default' else arr).asnumpy()
    check()


# ---------------------------------------------------------------------------- .states files


STATES_SEEDS = sorted(glob.glob(os.path.join(GOLDEN, '*.states')))


@pytest.mark.parametrize('path', STATES_SEEDS, ids=os.path.basename)
def test_damaged_states_files_load_or_raise_mxnet_error(path):
    optimizer = 'adam' if 'adam' in path else 'sgd'

    @FUZZ
    @given(damaged_bytes(_read(path, 'rb')))
    def check(data):
        updater = mx.optimizer.get_updater(mx.optimizer.create(optimizer, momentum=0.9)
                                           if optimizer == 'sgd' else mx.optimizer.create(optimizer))
        with no_hang():
            try:
                updater.set_states(data)
            except MXNetError:
                return
            for index in list(updater.states)[:3]:
                weight = mx.nd.ones((7, 5))
                try:
                    updater(index, mx.nd.ones((7, 5)), weight)
                except MXNetError:
                    pass
    check()


def test_states_file_with_a_huge_memo_index_is_refused_at_once():
    # Found by the fuzzer: one zero byte inserted turns a string's length into the wrong
    # place and leaves LONG_BINPUT 1090817172; C's unpickler grew its memo table to that
    # size (37 s, gigabytes) before it failed.
    data = bytearray(_read(os.path.join(GOLDEN, 'reflib_states_v2_adam.states'), 'rb'))
    data[392:392] = b'\x00'
    updater = mx.optimizer.get_updater(mx.optimizer.create('adam'))
    with no_hang(2):
        with pytest.raises(MXNetError, match='memo index 1090817172'):
            updater.set_states(bytes(data))


# ---------------------------------------------------------------------------- checkpoint sets


def _save_two_checkpoints(folder):
    """A small module saved twice under one prefix and epoch; returns (prefix, first set's bytes)."""
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=3, name='fc'),
                               name='softmax')
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.bind([('data', (4, 5))], [('softmax_label', (4,))])
    mod.init_params()
    mod.init_optimizer(optimizer='sgd', optimizer_params={'momentum': 0.9})
    batch = mx.io.DataBatch([mx.nd.ones((4, 5))], [mx.nd.zeros(4)])
    prefix = os.path.join(folder, 'net')
    first = {}
    for round_ in range(2):
        mod.forward_backward(batch)
        mod.update()
        mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
        if round_ == 0:
            first = {name: _read(os.path.join(folder, name), 'rb') for name in os.listdir(folder)}
    return prefix, first


CHECKPOINT_FILES = ['net-symbol.json', 'net-0001.params', 'net-0001.states', 'net-0001.checkpoint']


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(CHECKPOINT_FILES), st.sampled_from(['older', 'damage', 'delete']),
                          st.binary(min_size=1, max_size=4), st.integers(0, 2 ** 31)), min_size=1, max_size=3))
def test_a_mixed_or_damaged_checkpoint_set_loads_whole_or_raises_mxnet_error(edits):
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        prefix, first = _save_two_checkpoints(folder)
        newest = {name: _read(os.path.join(folder, name), 'rb') for name in CHECKPOINT_FILES}
        for name, action, noise, where in edits:
            path = os.path.join(folder, name)
            if action == 'older':
                with open(path, 'wb') as f:
                    f.write(first[name])
            elif action == 'damage' and os.path.exists(path):
                data = bytearray(_read(path, 'rb'))
                pos = where % max(len(data), 1)
                data[pos:pos + len(noise)] = noise
                with open(path, 'wb') as f:
                    f.write(bytes(data))
            elif action == 'delete' and os.path.exists(path):
                os.unlink(path)
        try:
            with no_hang():
                mod = mx.mod.Module.load(prefix, 1, load_optimizer_states=True)
        except MXNetError:
            return
        if not os.path.exists(prefix + '-0001.checkpoint'):
            # no manifest: a checkpoint as MXNet writes it, loaded without the check, as MXNet
            # loads it (a damaged byte inside a name gives a parameter of another name)
            return
        assert sorted(mod._arg_params) == ['fc_bias', 'fc_weight']
        # it loaded, with its manifest: the parameters and states are one save's
        current = {name: _read(os.path.join(folder, name), 'rb') for name in CHECKPOINT_FILES[1:3]}
        assert current in ({n: newest[n] for n in current}, {n: first[n] for n in current}), \
            'a mixed set loaded after %s' % (edits,)


def test_a_sparse_array_whose_index_is_a_scalar_is_refused_by_name():
    """Found by the fuzzer above: a damaged .nd file whose row_sparse indices read as a 0-d
    array raised numpy's TypeError from check_format."""
    from reflib.ndarray.sparse import CSRNDArray, RowSparseNDArray
    rows = RowSparseNDArray(np.zeros((0, 2), np.float32), [np.array(3)], (4, 2), mx.cpu())
    with pytest.raises(MXNetError, match='row indices must be 1-d, got shape'):
        rows.check_format()
    csr = CSRNDArray(np.zeros(0, np.float32), [np.array(0), np.zeros(0, np.int64)], (1, 2), mx.cpu())
    with pytest.raises(MXNetError, match='indptr must be 1-d, got shape'):
        csr.check_format()


def test_states_file_whose_aggregate_num_is_damaged_is_refused():
    # Found by the fuzzer: one flipped bit turns the pickled optimizer's aggregate_num into
    # bytes, which the Updater compared with 0 (a TypeError from deep inside)
    data = bytearray(_read(os.path.join(GOLDEN, 'reflib_states_v2_adam.states'), 'rb'))
    data[662] ^= 1 << 3
    updater = mx.optimizer.get_updater(mx.optimizer.create('adam'))
    with pytest.raises(MXNetError, match=r"aggregate_num = b'': not a count"):
        updater.set_states(bytes(data))
