"""NumPy shape semantics (``mx.np_shape()``) against legacy shapes: the same calls run under
MXNet 1.9.1 (gen_np_shape.py records np_shape.json) and under reflib (test_np_shape.py).

Each case gives a JSON-able value: shapes as lists, None for an unknown shape, and the string
'error' where the library raises.
"""

import json
import os
import tempfile
import warnings

import numpy as np


def _shapes(result):
    if result is None:
        return None
    if isinstance(result, tuple) and len(result) == 3 and all(r is None or isinstance(r, list) for r in result):
        return [None if group is None else [None if s is None else list(s) for s in group] for group in result]
    return list(result)


def _try(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return fn()
    except Exception:       # noqa: BLE001  (the case records only that the library refused)
        return 'error'


def _fc(mx):
    return mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=4, name='fc')


def _semantics_cases(mx, tag):
    fc = _fc(mx)
    unknown = -1 if tag == 'np' else 0
    batch_dot = mx.sym.batch_dot(mx.sym.var('a'), mx.sym.var('b'))
    return {
        'zeros (0, 3)': _try(lambda: list(mx.nd.zeros((0, 3)).shape)),
        'ones ()': _try(lambda: list(mx.nd.ones(()).shape)),
        'empty (2, 0)': _try(lambda: list(mx.nd.empty((2, 0)).shape)),
        'array of a 0-d array': _try(lambda: list(mx.nd.array(np.array(3.0)).shape)),
        'a[1] of a 1-d array': _try(lambda: list(mx.nd.arange(3)[1].shape)),
        'sum of everything': _try(lambda: list(mx.nd.ones((2, 3)).sum().shape)),
        'min of (5, 0)': _try(lambda: mx.nd.array(np.zeros((5, 0))).min().asnumpy().tolist()),
        'fc partial, batch unknown': _try(lambda: _shapes(fc.infer_shape_partial(x=(unknown, 5)))),
        'fc partial, nothing given': _try(lambda: _shapes(fc.infer_shape_partial())),
        'fc infer, batch unknown': _try(lambda: _shapes(fc.infer_shape(x=(unknown, 5)))),
        'fc infer, batch 0': _try(lambda: _shapes(fc.infer_shape(x=(0, 5)))),
        'sin infer, ()': _try(lambda: _shapes(mx.sym.sin(mx.sym.var('x')).infer_shape(x=()))),
        'batch_dot partial': _try(lambda: _shapes(batch_dot.infer_shape_partial(a=(unknown, 3, 4),
                                                                               b=(unknown, 4, 5)))),
        'simple_bind, batch 0': _try(lambda: list(fc.simple_bind(mx.cpu(), x=(0, 5)).outputs[0].shape)),
        'variable shape attr (-1, 3)': _try(lambda: mx.sym.var('v', shape=(-1, 3)).attr('__shape__')),
        'variable (-1, 3) partial': _try(lambda: _shapes(mx.sym.var('v', shape=(-1, 3)).infer_shape_partial())),
        'tojson marks np shape': _try(lambda: 'is_np_shape' in json.loads(fc.tojson())['attrs']),
    }


def _legacy_file_cases(mx):
    """A graph saved with legacy shapes (a weight declared (4, 0)), loaded in each semantics."""
    weight = mx.sym.var('w', shape=(4, 0))
    text = mx.sym.FullyConnected(mx.sym.var('data'), weight, num_hidden=4, name='fc').tojson()
    record = {}
    for tag, active in (('legacy', False), ('np', True)):
        with mx.np_shape(active):
            loaded = mx.sym.load_json(text)
            record['legacy file in %s: weight attr' % tag] = loaded.get_internals()['w'].attr('__shape__')
            record['legacy file in %s: infer' % tag] = _shapes(loaded.infer_shape(data=(2, 3)))
    return record


def _file_cases(mx):
    """nd.save in each semantics, nd.load in each: MXNet loads a file only in its own."""
    record, folder = {}, tempfile.mkdtemp()
    for tag, active in (('legacy', False), ('np', True)):
        with mx.np_shape(active):
            fname = os.path.join(folder, tag)
            mx.nd.save(fname, [mx.nd.array(np.arange(6).reshape(2, 3)), mx.nd.array(np.zeros((0, 4)))])
            with open(fname, 'rb') as f:
                record['record magic when saved in %s' % tag] = int(np.frombuffer(f.read()[24:28], '<u4')[0])
    for tag, active in (('legacy', False), ('np', True)):
        with mx.np_shape(active):
            for saved in ('legacy', 'np'):
                record['%s file loaded in %s' % (saved, tag)] = _try(
                    lambda: [list(a.shape) for a in mx.nd.load(os.path.join(folder, saved))])
    return record


def run(mx):
    record = {}
    for tag, active in (('legacy', False), ('np', True)):
        with mx.np_shape(active):
            record.update({'%s: %s' % (tag, k): v for k, v in _semantics_cases(mx, tag).items()})
    record.update(_legacy_file_cases(mx))
    record.update(_file_cases(mx))
    return record
