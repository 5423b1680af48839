"""Record golden values for the assignment and encoding operators (reflib/operator/assign.py)
from real MXNet 1.9.1: _slice_assign (_crop_assign), _slice_assign_scalar
(_crop_assign_scalar), fill_element_0index and _onehot_encode.

Run with a Python that has ``mxnet==1.9.1`` (not needed by the tests):

    cd tests/golden && python gen_ops_assign.py

It writes tests/golden/ops_assign.npz.  MXNet registers no gradient for any of the four and
cannot compose the last two as symbols, so every case runs imperatively (``mx.nd``), in the
dtypes MXNet accepts; per case ``c<i>_in<j>`` and ``c<i>_out`` hold the inputs and MXNet's
result, and ``meta['cases']`` the call (the name used, the canonical operator, the
parameters as given and, for the range operators, as MXNet writes them into a symbol's JSON).
``meta`` also holds which calls MXNet refuses (``errors``), which front ends refuse a gradient
(``no_gradient``), shape and type inference of the range operators (``infer``), and the
NDArray calls of MXNet's own test_ndarray (``out_calls``: writing back with ``out=``).
"""

import json
import os
import re
import warnings

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'ops_assign.npz')

RNG = np.random.RandomState(7)


def values(shape, dtype):
    """Distinct-ish values that show where each element came from."""
    dtype = np.dtype(dtype)
    if dtype.kind in 'iu':
        low, high = (0, 250) if dtype.kind == 'u' else (-1000, 1000)
        return RNG.randint(low, high, size=shape).astype(dtype)
    return RNG.uniform(-5, 5, size=shape).astype(dtype)


def region_shape(shape, params):
    """The shape numpy's basic slicing gives: what MXNet's begin/end/step select."""
    step = params.get('step') or (None,) * len(params['begin'])
    index = tuple(slice(b, e, s) for b, e, s in zip(params['begin'], params['end'], step))
    return np.empty(shape)[index].shape


def jsonable(params):
    return {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}


# (name to call, lhs shape, dtype, params): rhs gets the selected region's shape
SLICE_ASSIGN = [
    ('_slice_assign', (2, 3, 4), 'float32', {'begin': (0, 0, 0), 'end': (2, 1, 3)}),
    ('_slice_assign', (2, 3, 4), 'float32', {'begin': (-1, -2), 'end': (None, None)}),
    ('_slice_assign', (2, 3, 4), 'float64', {'begin': (0, 0, 0), 'end': (2, 3, 4), 'step': (1, 2, 2)}),
    ('_crop_assign', (2, 3, 4), 'float32', {'begin': (1, None, None), 'end': (0, None, None), 'step': (-1, -2, -3)}),
    ('_slice_assign', (4, 3), 'int32', {'begin': (-5, 1), 'end': (10, 3), 'step': (2, None)}),
    ('_slice_assign', (2, 4), 'int32', {'begin': (0, -1), 'end': (None, -4), 'step': (1, -2)}),
    ('_crop_assign', (5,), 'float64', {'begin': (None,), 'end': (None,), 'step': (-1,)}),
    ('_slice_assign', (3, 4), 'float32', {'begin': (None, -7), 'end': (None, 2)}),
    ('_slice_assign', (2, 3, 4), 'float32', {'begin': (None, 10), 'end': (None, -10), 'step': (None, -1)}),
    ('_slice_assign', (2, 3), 'float32', {'begin': (), 'end': ()}),
    ('_slice_assign', (3, 5), 'int64', {'begin': (1, 1), 'end': (3, 5), 'step': (1, 3)}),
    ('_slice_assign', (3, 4), 'uint8', {'begin': (0,), 'end': (2,)}),
    ('_slice_assign', (2, 6), 'float16', {'begin': (1, 5), 'end': (None, 0), 'step': (None, -2)}),
]

# (name to call, data shape, dtype, params)
SLICE_ASSIGN_SCALAR = [
    ('_slice_assign_scalar', (2, 3, 4), 'float32', {'scalar': 5, 'begin': (0, 0, 0), 'end': (2, 1, 3)}),
    ('_crop_assign_scalar', (2, 3, 4), 'int32', {'scalar': 2.7, 'begin': (0, 0, 0), 'end': (2, 1, 3)}),
    ('_slice_assign_scalar', (2, 3, 4), 'int32', {'scalar': -2.7, 'begin': (0,), 'end': (1,)}),
    ('_slice_assign_scalar', (2, 3), 'float64', {'scalar': 3.5, 'begin': (None, -1), 'end': (None, None)}),
    ('_slice_assign_scalar', (2, 3), 'uint8', {'scalar': 300, 'begin': (0,), 'end': (1,)}),
    ('_slice_assign_scalar', (2, 3), 'uint8', {'scalar': -3, 'begin': (1,), 'end': (2,)}),
    ('_slice_assign_scalar', (2, 3), 'int64', {'scalar': 2 ** 40 + 0.5, 'begin': (0,), 'end': (1,)}),
    ('_slice_assign_scalar', (2, 3), 'float16', {'scalar': 0.1, 'begin': (0,), 'end': (1,)}),
    ('_slice_assign_scalar', (3, 4), 'float32', {'begin': (1,), 'end': (2,)}),         # scalar defaults to 0
    ('_slice_assign_scalar', (3, 4), 'float32', {'scalar': 1, 'begin': (5,), 'end': (6,)}),      # past the end
    ('_slice_assign_scalar', (3, 4), 'float32', {'scalar': 1, 'begin': (1,), 'end': (0,)}),      # empty
    ('_slice_assign_scalar', (3, 4), 'float32', {'scalar': 1, 'begin': (0,), 'end': (1,), 'step': (-1,)}),
    ('_crop_assign_scalar', (3, 5), 'float64', {'scalar': -1.25, 'begin': (None, 4), 'end': (None, 0),
                                                'step': (2, -2)}),
    ('_slice_assign_scalar', (3, 4), 'float32', {'scalar': 9, 'begin': (0,), 'end': (7,)}),      # clipped
]

NAN = float('nan')
# (lhs shape, mhs values or None for random, rhs (the indices) or an int: random indices < it)
FILL = [
    ((3, 4), None, [0, 3, 1]),
    ((3, 4), None, [0.7, 2.9, -0.5]),
    ((3, 4), None, [-1, 4, 100]),
    ((3, 4), None, [NAN, 1, 2]),
    ((3, 4), None, [-0.99, 3.99, -1.01]),
    ((1, 1), None, [0]),
    ((100, 20), None, 20),
]

# (indices, rows x width of the target)
ONEHOT = [
    ([0, 3, 1], (3, 4)),
    ([0.7, -1, 4], (3, 4)),
    ([-0.5, 3.9, NAN], (3, 4)),
    ([0], (1, 1)),
    (7, (5, 7)),
]


def sym_attrs(name, params, n_inputs):
    """The parameters as MXNet writes them into a symbol's JSON."""
    variables = [mx.sym.var('in%d' % j) for j in range(n_inputs)]
    node = json.loads(getattr(mx.sym._internal, name)(*variables, **params).tojson())['nodes'][-1]
    return node['op'], node.get('attrs', {})


def record_cases(arrays):
    cases = []

    def add(call, op, params, attrs, inputs, out):
        i = len(cases)
        for j, x in enumerate(inputs):
            arrays['c%d_in%d' % (i, j)] = x
        arrays['c%d_out' % i] = out
        cases.append({'call': call, 'op': op, 'params': jsonable(params), 'attrs': attrs, 'n_in': len(inputs)})

    for call, shape, dtype, params in SLICE_ASSIGN:
        lhs, rhs = values(shape, dtype), values(region_shape(shape, params), dtype)
        out = getattr(mx.nd._internal, call)(mx.nd.array(lhs, dtype=dtype), mx.nd.array(rhs, dtype=dtype), **params)
        op, attrs = sym_attrs(call, params, 2)
        add(call, op, params, attrs, [lhs, rhs], out.asnumpy())
    for call, shape, dtype, params in SLICE_ASSIGN_SCALAR:
        data = values(shape, dtype)
        out = getattr(mx.nd._internal, call)(mx.nd.array(data, dtype=dtype), **params)
        op, attrs = sym_attrs(call, params, 1)
        add(call, op, params, attrs, [data], out.asnumpy())
    for shape, mhs, rhs in FILL:
        lhs = values(shape, 'float32')
        mhs = values(shape[:1], 'float32') if mhs is None else np.array(mhs, np.float32)
        rhs = (RNG.randint(0, rhs, size=shape[:1]) if isinstance(rhs, int) else np.array(rhs)).astype(np.float32)
        out = mx.nd.fill_element_0index(mx.nd.array(lhs), mx.nd.array(mhs), mx.nd.array(rhs))
        add('fill_element_0index', 'fill_element_0index', {}, {}, [lhs, mhs, rhs], out.asnumpy())
    for indices, shape in ONEHOT:
        idx = (RNG.randint(0, indices, size=shape[:1]) if isinstance(indices, int)
               else np.array(indices)).astype(np.float32)
        target = values(shape, 'float32')
        out = mx.nd._internal._onehot_encode(mx.nd.array(idx), mx.nd.array(target))
        add('_onehot_encode', '_onehot_encode', {}, {}, [idx, target], out.asnumpy())
    return cases


def refused(fn):
    """MXNet's error line where ``fn`` fails, else None."""
    try:
        result = fn()
        if isinstance(result, mx.nd.NDArray):
            result.wait_to_read()
        return None
    except (mx.base.MXNetError, RuntimeError) as err:      # simple_bind wraps its error in a RuntimeError
        lines = [line for line in str(err).splitlines() if 'Error' in line or 'Check failed' in line]
        line = (lines[-1] if lines else str(err).splitlines()[0]).strip()
        return re.sub(r'\[[\d:]+\] \S+:\d+: ', '', line)        # no time stamp or source line


def record_errors():
    """(label, MXNet's message or None): calls MXNet refuses, and two it accepts."""
    nd, internal = mx.nd, mx.nd._internal
    x = nd.array(np.arange(24).reshape(2, 3, 4))
    table = {
        'rhs_wrong_shape': lambda: internal._slice_assign(x, nd.zeros((2, 2, 3)), begin=(0, 0, 0), end=(2, 1, 3)),
        'rhs_not_broadcast': lambda: internal._slice_assign(x, nd.zeros((1, 1, 1)), begin=(0, 0), end=(2, 3)),
        'rhs_fewer_dims': lambda: internal._slice_assign(x, nd.zeros((2, 3)), begin=(0, 0), end=(2, 3)),
        'region_clipped': lambda: internal._slice_assign(x, nd.zeros((2, 1, 3)), begin=(0, 0, 0), end=(2, 1, 7)),
        'region_past_end': lambda: internal._slice_assign(x, nd.zeros((2, 1, 4)), begin=(0, 5), end=(2, 6)),
        'begin_after_end': lambda: internal._slice_assign(x, nd.zeros((2, 1, 4)), begin=(0, 2), end=(2, 1)),
        'too_many_axes': lambda: internal._slice_assign(x, nd.zeros((2, 1, 3)), begin=(0, 0, 0, 0), end=(2, 1, 3, 1)),
        'begin_end_lengths': lambda: internal._slice_assign(x, nd.zeros((2, 1, 4)), begin=(0, 0, 0), end=(2, 1)),
        'step_length': lambda: internal._slice_assign(x, nd.zeros((2, 1, 4)), begin=(0, 0), end=(2, 1), step=(1,)),
        'step_zero': lambda: internal._slice_assign(x, nd.zeros((2, 1, 3)), begin=(0, 0, 0), end=(2, 1, 3),
                                                    step=(1, 0, 1)),
        'rhs_other_dtype': lambda: internal._slice_assign(x, nd.zeros((2, 1, 3), dtype='float64'), begin=(0, 0, 0),
                                                          end=(2, 1, 3)),
        'scalar_step_zero': lambda: internal._slice_assign_scalar(x, scalar=1, begin=(0,), end=(1,), step=(0,)),
        'scalar_too_many_axes': lambda: internal._slice_assign_scalar(x, scalar=1, begin=(0, 0, 0, 0),
                                                                      end=(1, 1, 1, 1)),
        'scalar_past_end_accepted': lambda: internal._slice_assign_scalar(x, scalar=1, begin=(5,), end=(6,)),
    }
    L, v, i = nd.array(np.arange(12).reshape(3, 4)), nd.array([-1, -2, -3]), nd.array([0, 3, 1])
    table.update({
        'fill_mhs_2d': lambda: nd.fill_element_0index(L, nd.array([[-1, -2, -3]]), i),
        'fill_lhs_1d': lambda: nd.fill_element_0index(nd.array([1, 2, 3]), v, i),
        'fill_lhs_3d': lambda: nd.fill_element_0index(nd.ones((3, 2, 2)), v, nd.array([0, 1, 1])),
        'fill_rhs_short': lambda: nd.fill_element_0index(L, v, nd.array([0, 3])),
        'fill_mhs_short': lambda: nd.fill_element_0index(L, nd.array([-1, -2]), i),
        'fill_float64': lambda: nd.fill_element_0index(L.astype('float64'), v.astype('float64'),
                                                       i.astype('float64')),
        'fill_int32_index': lambda: nd.fill_element_0index(L, v, i.astype('int32')),
        'fill_out_float64': lambda: nd.fill_element_0index(L, v, i, out=nd.zeros((3, 4), dtype='float64')),
        'fill_out_wrong_shape': lambda: nd.fill_element_0index(L, v, i, out=nd.zeros((3, 5))),
        'onehot_float64_index': lambda: internal._onehot_encode(i.astype('float64'), nd.ones((3, 4))),
        'onehot_float64_target': lambda: internal._onehot_encode(i, nd.ones((3, 4), dtype='float64')),
        'onehot_int32_index': lambda: internal._onehot_encode(i.astype('int32'), nd.ones((3, 4))),
        'onehot_short': lambda: internal._onehot_encode(nd.array([0, 3]), nd.ones((3, 4))),
        'onehot_2d_index': lambda: internal._onehot_encode(nd.array([[0, 3, 1]]), nd.ones((3, 4))),
        'onehot_3d_target': lambda: internal._onehot_encode(nd.array([0, 1, 1]), nd.ones((3, 2, 2))),
        'onehot_1d_target': lambda: internal._onehot_encode(nd.array([0, 1, 1]), nd.ones((3,))),
    })
    return {label: refused(fn) for label, fn in table.items()}


def record_no_gradient():
    """Where MXNet refuses a gradient: binding (the range operators; the other two cannot be
    composed as symbols at all) and autograd's backward (all four)."""
    found = {}
    lhs, rhs, data = mx.sym.var('lhs'), mx.sym.var('rhs'), mx.sym.var('data')
    graphs = {
        '_slice_assign': (mx.sym._internal._slice_assign(lhs, rhs, begin=(0,), end=(1,)),
                          {'lhs': (2, 3), 'rhs': (1, 3)}),
        '_slice_assign_scalar': (mx.sym._internal._slice_assign_scalar(data, scalar=1, begin=(0,), end=(1,)),
                                 {'data': (2, 3)}),
    }
    for name, (sym, shapes) in graphs.items():
        found['bind_' + name] = refused(lambda: sym.simple_bind(mx.cpu(), **shapes))
        exe = sym.simple_bind(mx.cpu(), grad_req='null', **shapes)
        found['bind_null_' + name] = exe.forward()[0].shape == (2, 3)
    found['compose_fill_element_0index'] = refused(
        lambda: mx.sym.fill_element_0index(mx.sym.var('a'), mx.sym.var('b'), mx.sym.var('c')))
    found['compose__onehot_encode'] = refused(lambda: mx.sym._internal._onehot_encode(mx.sym.var('a'), mx.sym.var('b')))

    def through(fn):
        a = mx.nd.ones((3, 4))
        a.attach_grad()
        with mx.autograd.record():
            y = fn(a)
        return refused(lambda: y.backward())
    idx, vals = mx.nd.array([0, 3, 1]), mx.nd.array([5, 6, 7])
    found['autograd__slice_assign'] = through(
        lambda a: mx.nd._internal._slice_assign(a, mx.nd.zeros((1, 4)), begin=(0,), end=(1,)))
    found['autograd__slice_assign_scalar'] = through(
        lambda a: mx.nd._internal._slice_assign_scalar(a, scalar=2, begin=(0,), end=(1,)))
    found['autograd_fill_element_0index'] = through(lambda a: mx.nd.fill_element_0index(a, vals, idx))
    found['autograd__onehot_encode'] = through(lambda a: mx.nd._internal._onehot_encode(idx, a))
    return found


def record_infer():
    """Shape and type inference of the range operators, partial shapes included."""
    lhs, rhs, data = mx.sym.var('lhs'), mx.sym.var('rhs'), mx.sym.var('data')
    assign = mx.sym._internal._slice_assign(lhs, rhs, begin=(0, 1), end=(2, None), step=(1, 2))
    scalar = mx.sym._internal._slice_assign_scalar(data, scalar=3.5, begin=(None, -1), end=(None, None))
    y = mx.sym.var('y')
    shapes = {
        'lhs': assign.infer_shape_partial(lhs=(2, 3, 4)),
        'rhs_only': assign.infer_shape_partial(rhs=(2, 1, 4)),
        'lhs_batch_unknown': assign.infer_shape_partial(lhs=(0, 3, 4)),
        'lhs_sliced_axis_unknown': assign.infer_shape_partial(lhs=(2, 0, 4)),
        'from_output': (assign + y).infer_shape_partial(y=(2, 3)),
        'scalar': scalar.infer_shape_partial(data=(2, 3)),
        'scalar_from_output': (scalar + y).infer_shape_partial(y=(2, 3)),
    }
    shapes = {k: [[list(s) for s in group] for group in v] for k, v in shapes.items()}
    types = {
        'lhs_float64': assign.infer_type(lhs='float64'),
        'rhs_int32': assign.infer_type(rhs='int32'),
        'scalar_int32': scalar.infer_type(data='int32'),
    }
    types = {k: [[np.dtype(t).name for t in group] for group in v] for k, v in types.items()}
    types['mixed_refused'] = refused(lambda: assign.infer_type(lhs='float16', rhs='float32'))
    return {'shapes': shapes, 'types': types}


def record_out_calls():
    """MXNet's own test_ndarray calls: the result written back into the input with out=."""
    found = {}
    x = mx.nd.ones((2, 3, 4))
    mx.nd._internal._crop_assign(x, mx.nd.zeros((2, 1, 3)), begin=(0, 0, 0), end=(2, 1, 3), out=x)
    found['crop_assign'] = x.asnumpy().tolist()
    x = mx.nd.ones((2, 3, 4))
    mx.nd._internal._crop_assign_scalar(x, scalar=5, begin=(0, 0, 0), end=(2, 1, 3), out=x)
    found['crop_assign_scalar'] = x.asnumpy().tolist()
    target = mx.nd.ones((3, 4)) * 9
    returned = mx.nd.onehot_encode(mx.nd.array([2, 0, 3]), target)
    found['onehot_encode'] = target.asnumpy().tolist()
    found['onehot_encode_returns_out'] = returned is target
    lhs = mx.nd.array(np.arange(12).reshape(3, 4))
    mx.nd.fill_element_0index(lhs, mx.nd.array([5, 6, 7]), mx.nd.array([0, 0, 3]), out=lhs)
    found['fill_into_lhs'] = lhs.asnumpy().tolist()
    other = mx.nd.zeros((3, 4))
    mx.nd.fill_element_0index(lhs, mx.nd.array([-5, -6, -7]), mx.nd.array([1, 1, 1]), out=other)
    found['fill_into_other'] = other.asnumpy().tolist()
    return found


def main():
    arrays = {}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        meta = {'cases': record_cases(arrays), 'errors': record_errors(), 'no_gradient': record_no_gradient(),
                'infer': record_infer(), 'out_calls': record_out_calls()}
    arrays['meta'] = np.array(json.dumps(meta))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d cases, %d arrays, %d bytes' % (OUT, len(meta['cases']), len(arrays), os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
