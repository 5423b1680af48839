"""Record golden values for the tensor families of reflib/operator (shape, reduce, broadcast, unary, ...) from real MXNet 1.9.1.

Run with a Python that has ``mxnet==1.9.1`` (not needed by the tests):

    python tests/golden/gen_ops_tensor.py

It writes tests/golden/ops_tensor.npz holding

* for every case in CASES: the inputs, MXNet's forward outputs (is_train=True),
  the fixed head gradients and the input gradients MXNet's backward gives
  (keys ``c<i>_in<j>``, ``c<i>_out<k>``, ``c<i>_head<k>``, ``c<i>_grad<j>``);
* ``meta``: a JSON text with, per case, the name used to build it, the
  canonical operator name and the parameter strings from ``tojson()``, the
  input and output names MXNet gives a node named ``node``; plus tables of
  reshape results (``NDArray.reshape``), partial shape inference results and
  shape errors.
"""

import json
import os
import warnings

import numpy as np
import mxnet as mx

import op_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'ops_tensor.npz')

# (name to call, params, input specs); an input spec is a shape or (shape, kind)
CASES = [
    ('Flatten', {}, [(2, 3, 4)]),
    ('flatten', {}, [(5,)]),
    ('Reshape', {'shape': (4, 0, 2)}, [(2, 3, 4)]),
    ('reshape', {'shape': (-1, 0)}, [(2, 3, 4)]),
    ('Reshape', {'shape': (-1, 0), 'reverse': True}, [(6, 5, 4)]),
    ('Reshape', {'shape': (-3, -2)}, [(2, 3, 4)]),
    ('Reshape', {'shape': (2, -4, -1, 3, -2)}, [(2, 3, 4)]),
    ('Reshape', {'shape': (-4, 1, 2, -1, 1)}, [(2, 3, 4)]),
    ('Reshape', {'target_shape': (0, 12)}, [(2, 3, 4)]),
    ('Reshape', {'target_shape': (5, 0), 'keep_highest': True}, [(2, 3, 4)]),
    ('Concat', {}, [(2, 3), (2, 4)]),
    ('concat', {'dim': 0}, [(1, 3), (2, 3), (3, 3)]),
    ('Concat', {'dim': -1}, [(2, 2, 1), (2, 2, 3)]),
    ('_rnn_param_concat', {'dim': 0}, [(6,), (4,), (4,)]),
    ('SliceChannel', {'num_outputs': 3}, [(2, 6, 2)]),
    ('split', {'num_outputs': 3, 'axis': 1, 'squeeze_axis': True}, [(2, 3, 4)]),
    ('split', {'num_outputs': 2, 'axis': -1}, [(2, 3, 4)]),
    ('reverse', {'axis': (1,)}, [(2, 3, 4)]),
    ('flip', {'axis': (0, 2)}, [(2, 3, 4)]),
    ('SwapAxis', {'dim1': 0, 'dim2': 2}, [(2, 3, 4)]),
    ('ones_like', {}, [(2, 3)]),
    ('zeros_like', {}, [(2, 3)]),
    ('where', {}, [((2, 3), 'ties'), (2, 3), (2, 3)]),
    ('SequenceMask', {'use_sequence_length': True}, [(3, 4, 2), ((4,), 'lengths3')]),
    ('SequenceMask', {'use_sequence_length': True, 'axis': 1, 'value': -1.0}, [(4, 3, 2), ((4,), 'lengths3')]),
    ('SequenceMask', {}, [(3, 4)]),
    ('SequenceLast', {'use_sequence_length': True}, [(3, 4, 2), ((4,), 'lengths3')]),
    ('SequenceLast', {'use_sequence_length': True, 'axis': 1}, [(4, 3, 2), ((4,), 'lengths3')]),
    ('SequenceLast', {}, [(3, 4, 2)]),
    ('SequenceReverse', {'use_sequence_length': True}, [(3, 4, 2), ((4,), 'lengths3')]),
    ('SequenceReverse', {}, [(3, 4)]),
    ('swapaxes', {'dim1': 1, 'dim2': -1}, [(2, 3, 4)]),
    ('transpose', {}, [(2, 3, 4)]),
    ('transpose', {'axes': (1, 0, 2)}, [(2, 3, 4)]),
    ('transpose', {'axes': (2, 0, 1)}, [(2, 3, 4)]),
    ('expand_dims', {'axis': 1}, [(2, 3)]),
    ('expand_dims', {'axis': -1}, [(2, 3)]),
    ('BlockGrad', {}, [(2, 3)]),
    ('stop_gradient', {}, [(2, 3)]),
    ('identity', {}, [(2, 3)]),
    ('sum', {}, [(2, 3, 4)]),
    ('sum', {'axis': 1}, [(2, 3, 4)]),
    ('sum', {'axis': -1, 'keepdims': True}, [(2, 3, 4)]),
    ('sum', {'axis': (2, 0)}, [(2, 3, 4)]),
    ('sum_axis', {'axis': 1, 'exclude': True}, [(2, 3, 4)]),
    ('sum', {'axis': (), 'keepdims': True}, [(2, 3)]),
    ('sum', {'axis': (0, 1), 'exclude': True}, [(2, 3)]),
    ('mean', {}, [(2, 3, 4)]),
    ('mean', {'axis': (0, 2), 'keepdims': True}, [(2, 3, 4)]),
    ('mean', {'axis': 0, 'exclude': True}, [(2, 3, 4)]),
    ('max', {'axis': 1}, [((3, 4), 'ties')]),
    ('max', {}, [((3, 4), 'ties')]),
    ('max_axis', {'axis': 0, 'keepdims': True}, [((3, 4), 'ties')]),
    ('min', {'axis': -1}, [((3, 4), 'ties')]),
    ('min_axis', {'axis': 1, 'exclude': True}, [((3, 4), 'ties')]),
    ('broadcast_add', {}, [(2, 3), (1, 3)]),
    ('broadcast_plus', {}, [(2, 1, 4), (3, 1)]),
    ('broadcast_sub', {}, [(3,), (2, 3)]),
    ('broadcast_minus', {}, [(2, 3), (2, 3)]),
    ('broadcast_mul', {}, [(2, 3, 1), (1, 3, 4)]),
    ('broadcast_div', {}, [(2, 3), ((2, 1), 'positive')]),
    ('broadcast_to', {'shape': (2, 3, 4)}, [(1, 3, 1)]),
    ('broadcast_to', {'shape': (0, 3, 4)}, [(2, 1, 1)]),
    ('broadcast_axis', {'axis': (0, 2), 'size': (2, 5)}, [(1, 3, 1)]),
    ('broadcast_axes', {'axis': 1, 'size': 3}, [(2, 1)]),
    ('exp', {}, [(2, 3)]),
    ('log', {}, [((2, 3), 'positive')]),
    ('sqrt', {}, [((2, 3), 'positive')]),
    ('square', {}, [(2, 3)]),
    ('abs', {}, [((2, 4), 'zeros')]),
    ('negative', {}, [(2, 3)]),
    ('reciprocal', {}, [((2, 3), 'positive')]),
    ('sign', {}, [((2, 4), 'zeros')]),
    ('relu', {}, [((2, 4), 'zeros')]),
    ('sigmoid', {}, [(2, 3)]),
    ('tanh', {}, [(2, 3)]),
    ('clip', {'a_min': -0.5, 'a_max': 0.5}, [((2, 4), 'bounds')]),
    ('clip', {'a_min': 0.5, 'a_max': -0.5}, [((2, 4), 'bounds')]),
]


def record_cases(arrays, meta):
    op_cases.record_cases(mx, CASES, arrays, meta)


def reshape_code_cases():
    """Hand-picked reshape codes plus a deterministic random sample."""
    picked = [
        ((2, 3, 4), (4, 0, 2), False), ((2, 3, 4), (2, 0, 0), False), ((2, 3, 4), (6, 1, -1), False),
        ((2, 3, 4), (3, -1, 8), False), ((2, 3, 4), (-1,), False), ((2, 3, 4), (-2,), False),
        ((2, 3, 4), (2, -2), False), ((2, 3, 4), (-2, 1, 1), False), ((2, 3, 4, 5), (-3, -3), False),
        ((2, 3, 4), (0, -3), False), ((2, 3, 4), (-3, -2), False), ((2, 3, 4), (-4, 1, 2, -2), False),
        ((2, 3, 4), (2, -4, -1, 3, -2), False), ((2, 3, 4), (-1, 0), False), ((10, 5, 4), (-1, 0), True),
        ((10, 5, 4), (-1, 0), False), ((2, 3, 4), (-2, 2, 2, -4), True), ((2, 3, 4), (-1, -2), True),
        ((2, 3, 4, 5), (0, -1, 0), True), ((2, 3, 4, 5), (-3, -1), True), ((2, 3, 4), (-2, -1), False),
        ((2, 3, 4), (-4, 1, 2, -1, 1), False), ((2, 3, 4), (-4, 1, 2, 1, -1), False),
        ((2, 3, 4), (-1, 1, -2), False), ((2, 3, 4), (5, -1), False), ((2, 3, 4), (-1, -1), False),
        ((2, 3, 4), (0, 0, 0, 0), False), ((2, 3, 4), (-3, -3), False), ((2, 3, 4), (-4, -1, -1, -2), False),
        ((2, 3, 4), (-4, 3, -1, -2), False), ((2, 3, 4), (-4, 2), False), ((2, 3, 4), (2, 3, 4, 1, 1), False),
        ((2, 3, 4), (1, -1, 1, 1, 1), False), ((4,), (-4, 2, -1), False), ((6,), (-4, 4, -1), False),
    ]
    rng = np.random.RandomState(7)
    sample = []
    while len(sample) < 250:
        src = tuple(int(d) for d in rng.randint(1, 5, size=rng.randint(1, 5)))
        codes = []
        for _ in range(rng.randint(1, 6)):
            c = int(rng.choice([1, 2, 3, 4, 6, 0, 0, -1, -1, -2, -3, -4]))
            codes.append(c)
            if c == -4:    # split sizes: positive or -1 (0 or other codes can crash MXNet 1.9.1)
                codes += [int(rng.choice([-1, 1, 2, 3])), int(rng.choice([-1, 1, 2, 3]))]
        sample.append((src, tuple(codes), bool(rng.randint(2))))
    return picked + sample


def record_reshapes(meta):
    table = []
    for src, codes, reverse in reshape_code_cases():
        x = mx.nd.zeros(src)
        try:
            result = list(x.reshape(codes, reverse=reverse).shape)
        except (mx.base.MXNetError, ValueError):
            result = None
        table.append([list(src), list(codes), reverse, result])
    meta['reshape'] = table


# partial inference: (name, params, {input: shape} with 0 = unknown, output shape known from elsewhere)
PARTIAL = [
    ('Reshape', {'shape': (-1, 12)}, {'in0': (0, 3, 4)}, (5, 12)),
    ('Reshape', {'shape': (5, 12)}, {'in0': (0, 3, 4)}, None),
    ('Reshape', {'shape': (-1,)}, {'in0': (0, 3, 4)}, (24,)),
    ('Reshape', {'shape': (-4, 2, -1, -2)}, {'in0': (0, 3, 4)}, None),
    ('Reshape', {'shape': (-3, -2)}, {'in0': (2, 0, 4)}, None),
    ('Reshape', {'shape': (0, 0, -1)}, {'in0': (2, 0, 4)}, None),
    ('transpose', {'axes': (1, 0, 2)}, {}, (2, 3, 4)),
    ('transpose', {'axes': (1, 0, 2)}, {'in0': (0, 3, 4)}, None),
    ('expand_dims', {'axis': 1}, {}, (2, 1, 4)),
    ('sum', {'axis': 1}, {'in0': (0, 3, 4)}, None),
    ('sum', {'axis': (0, 2), 'keepdims': True}, {'in0': (2, 0, 4)}, None),
    ('mean', {'axis': 0}, {'in0': (0, 3, 4)}, None),
    ('split', {'num_outputs': 2, 'axis': 1}, {'in0': (0, 4, 4)}, None),
    ('Concat', {}, {'in0': (2, 3), 'in1': (0, 4)}, None),
    ('broadcast_add', {}, {'in0': (0, 3), 'in1': (2, 1)}, None),
    ('Flatten', {}, {'in0': (5,)}, None),
]


def n_inputs(name):
    return 2 if name in ('Concat', 'broadcast_add') else 1


def record_partial(meta):
    table = []
    for name, params, given, out in PARTIAL:
        variables = [mx.sym.Variable('in%d' % j) for j in range(n_inputs(name))]
        sym = getattr(mx.sym, name)(*variables, **params)
        head = sym[0] if len(sym.list_outputs()) > 1 else sym
        if out is not None:
            head = head + mx.sym.Variable('known')
            given = dict(given, known=out)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            arg_shapes, out_shapes, _ = head.infer_shape_partial(**given)
        args = dict(zip(head.list_arguments(), arg_shapes))
        if out is None:
            _, out_shapes, _ = sym.infer_shape_partial(**given)
        table.append({'op': name, 'params': params, 'given': {k: list(v) for k, v in given.items()},
                      'inputs': [list(args['in%d' % j]) for j in range(len(variables))],
                      'outputs': [list(s) for s in out_shapes]})
    meta['partial'] = table


# shape errors MXNet raises
ERRORS = [
    ('Concat', {}, [(2, 3), (3, 3)]),
    ('Concat', {'dim': 0}, [(2, 3), (2,)]),
    ('Concat', {'dim': 2}, [(2, 3), (2, 5)]),
    ('split', {'num_outputs': 2, 'axis': 1}, [(2, 3, 4)]),
    ('split', {'num_outputs': 2, 'axis': 1, 'squeeze_axis': True}, [(2, 4, 4)]),
    ('transpose', {'axes': (0, 1)}, [(2, 3, 4)]),
    ('expand_dims', {'axis': 4}, [(2, 3, 4)]),
    ('expand_dims', {'axis': -5}, [(2, 3, 4)]),
    ('sum', {'axis': (1, 1)}, [(2, 3, 4)]),
    ('sum', {'axis': (0, -3)}, [(2, 3, 4)]),
    ('sum', {'axis': 3}, [(2, 3, 4)]),
    ('mean', {'axis': -4}, [(2, 3, 4)]),
    ('broadcast_add', {}, [(2, 3), (2, 4)]),
    ('broadcast_to', {'shape': (2, 3, 4)}, [(2, 2, 1)]),
    ('broadcast_to', {'shape': (2, 3, 4)}, [(3, 1)]),
    ('broadcast_axis', {'axis': 1, 'size': 5}, [(1, 3, 1)]),
    ('Reshape', {'shape': (-1, -1)}, [(2, 3, 4)]),
    ('Reshape', {'shape': (0, 0, 0, 0)}, [(2, 3, 4)]),
    ('Reshape', {'shape': (-4, 3, -1, -2)}, [(2, 3, 4)]),
]


def record_errors(meta):
    table = []
    for name, params, shapes in ERRORS:
        variables = [mx.sym.Variable('in%d' % j) for j in range(len(shapes))]
        sym = getattr(mx.sym, name)(*variables, **params)
        try:
            sym.infer_shape(**{'in%d' % j: s for j, s in enumerate(shapes)})
        except mx.base.MXNetError as err:
            message = str(err).split('\n')[0]
        else:
            raise AssertionError('MXNet accepted %s %s %s' % (name, params, shapes))
        table.append({'op': name, 'params': params, 'shapes': [list(s) for s in shapes],
                      'mxnet_message': message[-300:]})
    meta['errors'] = table


def main():
    assert mx.__version__ == '1.9.1', mx.__version__
    arrays, meta = {}, {'mxnet_version': mx.__version__}
    record_cases(arrays, meta)
    record_reshapes(meta)
    record_partial(meta)
    record_errors(meta)
    arrays['meta'] = np.array(json.dumps(meta, sort_keys=True))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d cases, %d reshapes, %d partial, %d errors, %d bytes'
          % (OUT, len(meta['cases']), len(meta['reshape']), len(meta['partial']), len(meta['errors']),
             os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
