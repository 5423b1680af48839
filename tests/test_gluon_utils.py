"""gluon.utils against MXNet 1.9.1: split_data, split_and_load, clip_global_norm, the file
helpers (check_sha1, download, replace_file) and shape_is_known.

golden/gluon_utils.json holds MXNet's answers to the cases of golden/gen_gluon_utils.py;
this file imports that script, runs the same cases with reflib and compares them: values
to float32 precision, dtypes, shapes and contexts exactly, errors by the built-in classes
MXNet's derive from, except where reflib refuses on purpose with another class
(DIFFERENT_ERRORS).  The rest checks what the golden cases cannot: reflib's messages, that
``download`` never opens a connection, the dtypes MXNet's CPU code refuses, HookHandle.
"""
import collections
import hashlib
import json
import os
import pickle
import socket
import sys
import warnings

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError
from reflib.gluon import utils
from reflib.gluon.utils import DownloadError

GOLDEN_DIR = os.path.join(os.path.dirname(__file__), 'golden')
sys.path.insert(0, GOLDEN_DIR)
import gen_gluon_utils as cases  # noqa: E402

with open(os.path.join(GOLDEN_DIR, 'gluon_utils.json')) as f:
    GOLDEN = json.load(f)

# (case, key): the class reflib raises where MXNet raises another, on purpose
DIFFERENT_ERRORS = {
    ('split_data_errors', 'zero_slices'): ValueError,   # MXNet: ZeroDivisionError from its modulo
    ('split_and_load', 'no_context'): ValueError,       # MXNet: IndexError from ctx_list[0]
}


def same(got, want, where):
    """``got`` matches MXNet's ``want``: floats to float32 precision (NaNs equal), errors by
    their built-in classes, everything else exactly."""
    if isinstance(want, dict) and 'error' in want and 'builtin' in want:
        assert isinstance(got, dict) and 'error' in got, '%s: reflib gave %r, MXNet raised %s' % (where, got, want)
        # every built-in class MXNet's error derives from, reflib's derives from too
        assert set(want['builtin']) <= set(got['builtin']), '%s: reflib %s, MXNet %s' % (where, got, want)
    elif isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), '%s: keys %s, MXNet %s' % (
            where, sorted(got) if isinstance(got, dict) else got, sorted(want))
        for key in want:
            same(got[key], want[key], '%s[%r]' % (where, key))
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), '%s: %r, MXNet %r' % (where, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            same(g, w, '%s[%d]' % (where, i))
    elif isinstance(want, float) and not isinstance(got, bool):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, equal_nan=True, err_msg=where)
    else:
        assert got == want, '%s: reflib %r, MXNet %r' % (where, got, want)


def test_golden_has_every_case():
    assert set(GOLDEN) == set(cases.CASES)


@pytest.mark.parametrize('name', sorted(cases.CASES))
def test_same_as_mxnet(name):
    got = cases.run_case(mx, name)
    want = GOLDEN[name]
    for (case, key), error in DIFFERENT_ERRORS.items():
        if case == name:
            assert got[key]['error'] == error.__name__ or error.__name__ in got[key]['builtin'], (key, got[key])
            got, want = dict(got), dict(want)
            del got[key], want[key]
    if name == 'public_names':
        # reflib adds its DownloadError to MXNet's names
        assert set(want) <= set(got) and set(got) - set(want) == {'DownloadError'}
        return
    same(got, want, name)


# ------------------------------------------------------------------ split_data / split_and_load
def test_uneven_split_says_what_to_do():
    with pytest.raises(ValueError, match=r'shape \(5, 2\) has 5 items along axis 0.*3 slices.*even_split=False'):
        utils.split_data(mx.nd.zeros((5, 2)), 3)


@pytest.mark.parametrize('num_slice', [0, -2, 1.5, True])
def test_num_slice_must_be_a_positive_whole_number(num_slice):
    with pytest.raises(ValueError, match='num_slice'):
        utils.split_data(mx.nd.zeros((4, 2)), num_slice, even_split=False)


def test_split_and_load_refuses_an_empty_context_list():
    with pytest.raises(ValueError, match='ctx_list is empty'):
        utils.split_and_load(mx.nd.zeros((4, 2)), [])


def test_split_and_load_keeps_sparse_slices_sparse():
    # MXNet's test_split_and_load: a CSR batch split on one device stays CSR
    csr = mx.nd.array([[0, 1], [2, 0], [0, 0], [3, 0]]).tostype('csr')
    parts = utils.split_and_load(csr, (mx.cpu(0), mx.cpu(0)))
    assert [p.stype for p in parts] == ['csr', 'csr']
    assert [p.asnumpy().tolist() for p in parts] == [[[0, 1], [2, 0]], [[0, 0], [3, 0]]]


# ------------------------------------------------------------------ clip_global_norm
def test_clip_warns_once_per_call_only_when_the_norm_is_not_finite():
    # MXNet's test_global_norm_clip counts the warnings: one with the check, none without,
    # and numpy's own invalid-value warnings must not add to them
    for check in (True, False):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            utils.clip_global_norm([mx.nd.ones((3, 3)), mx.nd.array([1.0, float('inf')])], 2.0,
                                   check_isfinite=check)
        assert len(caught) == int(check), [str(w.message) for w in caught]
    with pytest.warns(UserWarning, match='NaN or infinite') as caught:
        utils.clip_global_norm([mx.nd.array([float('nan')])], 1.0)
    assert caught[0].filename == __file__     # the caller's line, not reflib's


def test_clip_takes_float16_and_float64_which_mxnet_cpu_refuses():
    half, double = mx.nd.array([3, 4], dtype='float16'), mx.nd.array([12], dtype='float64')
    norm = utils.clip_global_norm([half, double], 1.0)
    assert norm == np.float32(13) and isinstance(norm, np.float32)
    assert (half.dtype, double.dtype) == (np.float16, np.float64)
    np.testing.assert_allclose(half.asnumpy(), [3 / 13, 4 / 13], rtol=1e-3)
    np.testing.assert_allclose(double.asnumpy(), [12 / 13], rtol=1e-6)
    # float16 squares add up in float32: 300**2 * 2 is past float16's largest value
    big = mx.nd.array([300, 300], dtype='float16')
    assert np.isclose(utils.clip_global_norm([big], 1e6), np.sqrt(2) * 300)


def test_clip_refuses_integer_arrays():
    with pytest.raises(MXNetError, match='floating-point.*int32'):
        utils.clip_global_norm([mx.nd.ones((2,), dtype='int32')], 1.0)


def test_clip_refuses_an_empty_list():
    with pytest.raises(AssertionError, match='at least one array'):
        utils.clip_global_norm([], 1.0)


# ------------------------------------------------------------------ download and the files
URL = 'https://example.com/data/file.bin'


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError('download opened a network connection')
    monkeypatch.setattr(socket, 'socket', refuse)
    monkeypatch.setattr(socket, 'create_connection', refuse)


def test_download_names_the_url_and_the_file_it_would_write(tmp_path, no_network):
    target = tmp_path / 'file.bin'
    with pytest.raises(DownloadError) as info:
        utils.download(URL, path=str(tmp_path))
    message = str(info.value)
    assert URL in message and str(target) in message and 'does not download' in message
    assert isinstance(info.value, OSError) and isinstance(info.value, MXNetError)
    assert not target.exists()


def test_download_returns_the_file_on_disk_and_checks_its_sha1(tmp_path, no_network):
    target = tmp_path / 'file.bin'
    target.write_bytes(b'local copy')
    assert utils.download(URL, path=str(tmp_path)) == str(target)
    assert utils.download(URL, path=str(target), sha1_hash=hashlib.sha1(b'local copy').hexdigest()) == str(target)
    with pytest.raises(DownloadError, match='SHA-1 is not 0000'):
        utils.download(URL, path=str(tmp_path), sha1_hash='0' * 40)
    with pytest.raises(DownloadError, match='overwrite=True'):
        utils.download(URL, path=str(tmp_path), overwrite=True)
    assert target.read_bytes() == b'local copy'


def test_download_does_not_warn_about_ssl_it_never_uses(tmp_path):
    (tmp_path / 'file.bin').write_bytes(b'x')
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        utils.download(URL, path=str(tmp_path), verify_ssl=False)


def test_replace_file_failure_names_both_files_and_removes_the_source(tmp_path):
    src = tmp_path / 'new.tmp'
    src.write_bytes(b'x')
    dst = tmp_path / 'missing_folder' / 'target'
    with pytest.raises(OSError, match='new.tmp to .*target'):
        utils.replace_file(str(src), str(dst))
    assert not src.exists()


# ------------------------------------------------------------------ HookHandle
def test_hook_handle_attaches_and_detaches():
    hooks = collections.OrderedDict()
    handle = utils.HookHandle()
    handle.attach(hooks, print)
    assert list(hooks.values()) == [print]
    with pytest.raises(AssertionError, match='attached already'):
        handle.attach(hooks, len)
    with handle:
        pass
    assert not hooks
    handle.detach()    # a second detach changes nothing


def test_hook_handle_pickles_with_its_dictionary():
    hooks = collections.OrderedDict()
    handle = utils.HookHandle()
    handle.attach(hooks, len)
    hooks2, handle2 = pickle.loads(pickle.dumps((hooks, handle)))
    handle2.detach()
    assert not hooks2 and len(hooks) == 1
    lonely = pickle.loads(pickle.dumps(handle))   # its dictionary is not pickled with it
    lonely.detach()
    assert len(hooks) == 1
