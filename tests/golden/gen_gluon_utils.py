"""Record what MXNet 1.9.1's gluon.utils gives: slices, norms, scaled arrays, files, errors.

    /tmp/mxv/bin/python tests/golden/gen_gluon_utils.py   ->  tests/golden/gluon_utils.json

Each case in CASES is a function of the module ``mx`` (mxnet or reflib) and a scratch
folder, returning a JSON-ready answer (NDArrays with their dtype, shape, context and
values, through gen_gluon_data's ``encode``).  tests/test_gluon_utils.py imports this file
and runs the same cases under reflib.  A call that raises records the exception's class
and the built-in classes it derives from, and a call that warns the warnings' classes.

MXNet fetches missing files from the web; here its ``requests.get`` is replaced by one that
fails at once, so that the cases where reflib refuses (a missing file, a wrong SHA-1,
``overwrite=True``) record what MXNet raises when it cannot connect.
"""
import hashlib
import json
import os
import sys
import tempfile
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_gluon_data import encode, error  # noqa: E402

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'gluon_utils.json')


def _raises(fn):
    try:
        fn()
    except Exception as err:   # noqa: BLE001  (recording what MXNet raises)
        return error(err)
    return 'no error'


def _with_warnings(fn):
    """``fn()``'s result and the classes of the warnings it gave (numpy's and MXNet's
    deprecation notices left out: they are about the library, not the call)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        result = fn()
    return result, [w.category.__name__ for w in caught if not issubclass(w.category, DeprecationWarning)]


# ------------------------------------------------------------------ split_data, split_and_load
BATCH = np.arange(60, dtype=np.float32).reshape(6, 5, 2) / 4


def _split(mx, data, *args, **kwargs):
    return encode(mx.gluon.utils.split_data(data, *args, **kwargs), mx)


def case_split_data(mx, folder):
    x = mx.nd.array(BATCH)
    return {'even_axis0': _split(mx, x, 3),
            'one_slice': _split(mx, x, 1),
            'even_axis1': _split(mx, x, 5, batch_axis=1),
            'uneven_axis0': _split(mx, x, 4, even_split=False),
            'uneven_axis1': _split(mx, x, 3, batch_axis=1, even_split=False),
            'more_slices_than_items': _split(mx, x, 8, even_split=False),
            'negative_axis': _split(mx, x, 2, batch_axis=-1),
            'int32': _split(mx, mx.nd.array(BATCH, dtype='int32'), 2),
            'numpy': _split(mx, BATCH, 2),
            'on_cpu1': _split(mx, mx.nd.array(BATCH, ctx=mx.cpu(1)), 2, batch_axis=2)}


def case_split_data_memory(mx, folder):
    """Axis-0 slices are views of the batch; slices along another axis are copies."""
    x = mx.nd.array(BATCH)
    first = mx.gluon.utils.split_data(x, 2)[0]
    first[:] = -1
    y = mx.nd.array(BATCH)
    other = mx.gluon.utils.split_data(y, 5, batch_axis=1)[0]
    other[:] = -1
    return {'axis0': encode(x, mx), 'axis1': encode(y, mx)}


def case_split_data_errors(mx, folder):
    x = mx.nd.array(BATCH)
    split = mx.gluon.utils.split_data
    return {'uneven': _raises(lambda: split(x, 4)),
            'uneven_axis1': _raises(lambda: split(x, 2, batch_axis=1)),
            'axis_out_of_range': _raises(lambda: split(x, 2, batch_axis=3)),
            'zero_slices': _raises(lambda: split(x, 0))}


def case_split_and_load(mx, folder):
    load = mx.gluon.utils.split_and_load
    two = [mx.cpu(0), mx.cpu(1)]
    return {'numpy_int64': encode(load(np.arange(12).reshape(4, 3), two), mx),
            'numpy_float64': encode(load(BATCH.astype(np.float64), (mx.cpu(2), mx.cpu(0), mx.cpu(1))), mx),
            'list': encode(load([[1, 2], [3, 4]], two), mx),
            'one_context': encode(load(mx.nd.array(BATCH[:3], ctx=mx.cpu(2)), [mx.cpu(1)]), mx),
            'one_context_numpy': encode(load(np.array([1.5, 2.5]), [mx.cpu(3)]), mx),
            'int32_ndarray': encode(load(mx.nd.array(BATCH, dtype='int32', ctx=mx.cpu(3)), two, batch_axis=2), mx),
            'uneven': encode(load(mx.nd.array(BATCH), [mx.cpu(0)] * 4, even_split=False), mx),
            'uneven_refused': _raises(lambda: load(mx.nd.array(BATCH), [mx.cpu(0)] * 4)),
            'no_context': _raises(lambda: load(BATCH, []))}


# ------------------------------------------------------------------ clip_global_norm
def _clip(mx, arrays, max_norm, **kwargs):
    norm, warned = _with_warnings(lambda: mx.gluon.utils.clip_global_norm(arrays, max_norm, **kwargs))
    return {'norm': encode(norm, mx), 'arrays': encode(list(arrays), mx), 'stypes': [a.stype for a in arrays],
            'warnings': warned}


def case_clip_global_norm(mx, folder):
    nd = mx.nd
    grads = np.sin(np.arange(30, dtype=np.float32)).reshape(5, 6) * 3
    return {'ones': _clip(mx, [nd.ones((3, 3)), nd.ones((4, 4))], 1.0),
            'within_bound': _clip(mx, [nd.ones((3, 3)) * 0.1], 1.0),
            'sines': _clip(mx, [nd.array(grads), nd.array(grads[:2] * -0.5)], 2.5),
            'integer_bound': _clip(mx, [nd.array(grads)], 3),
            'negative_bound': _clip(mx, [nd.ones((2,)) * 3], -1.0),
            'no_check': _clip(mx, [nd.ones((3, 3)), nd.ones((4, 4))], 1.0, check_isfinite=False),
            'zeros': _clip(mx, [nd.zeros((2, 2))], 1.0),
            'tuple': _clip(mx, (nd.array(grads[0]),), 0.5),
            'contexts': _clip(mx, [nd.array(grads[1], ctx=mx.cpu(1)), nd.array(grads[2], ctx=mx.cpu(0))], 1.0),
            'nan': _clip(mx, [nd.ones((3, 3)), nd.array([1.0, 2.0, float('nan')])], 2.0),
            'nan_no_check': _clip(mx, [nd.ones((3, 3)), nd.array([1.0, 2.0, float('nan')])], 2.0,
                                  check_isfinite=False),
            'inf': _clip(mx, [nd.array([1.0, 2.0, float('inf')])], 1.0),
            'row_sparse': _clip(mx, [nd.array([[0, 0], [3, 4], [0, 0]]).tostype('row_sparse'), nd.ones((2,))], 1.0),
            'csr': _clip(mx, [nd.array([[0, 2], [1, 0]]).tostype('csr'), nd.array(grads[3])], 1.5),
            'empty_list': _raises(lambda: mx.gluon.utils.clip_global_norm([], 1.0))}


# ------------------------------------------------------------------ files
PAYLOAD = bytes(range(256)) * 5
PAYLOAD_SHA1 = hashlib.sha1(PAYLOAD).hexdigest()


def _write(path, data=PAYLOAD):
    with open(path, 'wb') as f:
        f.write(data)
    return path


def case_check_sha1(mx, folder):
    path = _write(os.path.join(folder, 'payload.bin'))
    empty = _write(os.path.join(folder, 'empty.bin'), b'')
    check = mx.gluon.utils.check_sha1
    return {'right': check(path, PAYLOAD_SHA1), 'wrong': check(path, PAYLOAD_SHA1[::-1]),
            'upper_case': check(path, PAYLOAD_SHA1.upper()),
            'empty': check(empty, 'da39a3ee5e6b4b0d3255bfef95601890afd80709'),
            'missing': _raises(lambda: check(os.path.join(folder, 'nothing.bin'), PAYLOAD_SHA1))}


def _relative(path, folder):
    return os.path.relpath(path, folder) if os.path.isabs(path) else path


def case_download_existing(mx, folder):
    """Files already on disk are returned without a request (as MXNet does)."""
    download = mx.gluon.utils.download
    url = 'https://example.com/files/payload.bin'
    _write(os.path.join(folder, 'payload.bin'))
    os.makedirs(os.path.join(folder, 'sub'))
    _write(os.path.join(folder, 'sub', 'named.dat'))
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        no_path = download(url)
    finally:
        os.chdir(cwd)
    return {'folder': _relative(download(url, path=folder), folder),
            'file': _relative(download(url, path=os.path.join(folder, 'sub', 'named.dat')), folder),
            'sha1': _relative(download(url, path=folder, sha1_hash=PAYLOAD_SHA1), folder),
            'no_path': no_path,
            'no_retries': _relative(download(url, path=folder, retries=0), folder)}


def case_download_refused(mx, folder):
    """Where MXNet would go to the network (it cannot connect here), and argument errors."""
    download = mx.gluon.utils.download
    url = 'https://example.com/files/payload.bin'
    _write(os.path.join(folder, 'payload.bin'))
    return {'missing': _raises(lambda: download('https://example.com/files/other.bin', path=folder)),
            'wrong_sha1': _raises(lambda: download(url, path=folder, sha1_hash='0' * 40)),
            'overwrite': _raises(lambda: download(url, path=folder, overwrite=True)),
            'no_file_name': _raises(lambda: download('https://example.com/files/')),
            'negative_retries': _raises(lambda: download(url, path=folder, retries=-1))}


def case_replace_file(mx, folder):
    src, dst = os.path.join(folder, 'new.tmp'), os.path.join(folder, 'target.bin')
    _write(src, b'new')
    _write(dst, b'old')
    result = mx.gluon.utils.replace_file(src, dst)
    with open(dst, 'rb') as f:
        moved = f.read().decode()
    return {'result': result, 'target': moved, 'source_left': os.path.exists(src),
            'missing_source': _raises(lambda: mx.gluon.utils.replace_file(os.path.join(folder, 'none'), dst))}


# ------------------------------------------------------------------ shape_is_known, names
def case_shape_is_known(mx, folder):
    known = mx.gluon.utils.shape_is_known
    legacy = {str(s): known(s) for s in [(2, 3), (0, 3), (), None, (1,), [4, 5]]}
    legacy['negative'] = _raises(lambda: known((2, -1)))
    with mx.np_shape(True):
        numpy_shapes = {str(s): known(s) for s in [(2, 3), (0, 3), (), None, (2, -1)]}
        numpy_shapes['below_minus_one'] = _raises(lambda: known((-2,)))
    return {'legacy': legacy, 'numpy': numpy_shapes}


def case_public_names(mx, folder):
    return sorted(mx.gluon.utils.__all__)


CASES = {name[len('case_'):]: fn for name, fn in sorted(globals().items()) if name.startswith('case_')}


def run_case(mx, name):
    with tempfile.TemporaryDirectory() as folder:
        return json.loads(json.dumps(CASES[name](mx, folder)))


def _no_network():
    """MXNet's download goes through ``requests.get``: make it fail at once, as offline."""
    import requests

    def refuse(*args, **kwargs):
        raise requests.exceptions.ConnectionError('no network while recording golden values')
    requests.get = refuse


def main():
    import mxnet as mx
    assert mx.__version__ == '1.9.1', mx.__version__
    _no_network()
    golden = {name: run_case(mx, name) for name in CASES}
    with open(GOLDEN, 'w') as f:
        json.dump(golden, f, indent=None, sort_keys=True)
        f.write('\n')
    print('wrote %s (%d cases, %d bytes)' % (GOLDEN, len(golden), os.path.getsize(GOLDEN)))


if __name__ == '__main__':
    sys.exit(main())
