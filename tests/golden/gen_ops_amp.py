"""Record golden values for amp_cast and amp_multicast (reflib/operator/amp.py) from real
MXNet 1.9.1.

Run with MXNet's interpreter (not needed by the tests):

    cd tests/golden && /tmp/mxv/bin/python gen_ops_amp.py

It runs MXNet with its oneDNN (MKLDNN) kernels off (MXNET_MKLDNN_ENABLED=0): its plain CPU
kernels, which reflib follows.  With oneDNN on, amp_multicast fails on every float16 input
and amp_cast from float32 to an integer dtype rounds and saturates (see amp.py); the float
casts are the same either way.

It writes tests/golden/ops_amp.npz:

* ``cast<i>_*``: amp_cast cases (input dtype, ``dtype``): input, output, head, gradient;
* ``multi<i>_*``: amp_multicast cases (input dtypes, shapes, ``cast_narrow``): inputs,
  outputs, heads, gradients;
* ``meta``: the cases; the output dtypes MXNet infers for every pair of input dtypes
  (``cast_types``, ``multicast_types``), for some triples and for partly known inputs;
  names; get_operator_arguments; errors.
"""

import json
import os
import re

os.environ['MXNET_MKLDNN_ENABLED'] = '0'          # before mxnet is imported

import numpy as np          # noqa: E402
import mxnet as mx          # noqa: E402
from mxnet.operator import get_operator_arguments     # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'ops_amp.npz')

DTYPES = ['float16', 'float32', 'float64', 'int32', 'int8', 'uint8', 'int64']

# values a cast can get wrong: halves, negatives, beyond float16 and the small integers, NaN, inf
EDGES = np.array([-2.7, -0.5, 0.5, 1.5, 2.5, 70000.0, 1e-8, np.nan, np.inf, -np.inf, 300.7, -129.5,
                  65504.0, 65520.0, 3.14159265, -1e-3], dtype=np.float64)

CAST_CASES = [(ind, dt) for ind in ('float32', 'float16') for dt in DTYPES] + \
             [('float64', 'float16'), ('float64', 'int32'), ('int32', 'float16'), ('uint8', 'float32'),
              ('int64', 'float16')]

MULTI_CASES = [
    (['float16', 'float32', 'float16'], [(2, 3), (3,), (1, 2)], False),
    (['float16', 'float32', 'float16'], [(2, 3), (3,), (1, 2)], True),
    (['float32', 'float64'], [(4,), (4,)], False),
    (['float32', 'float64'], [(4,), (4,)], True),
    (['int32', 'float16'], [(3,), (2, 2)], False),
    (['float16', 'int32'], [(3,), (2, 2)], False),
    (['float64', 'float16'], [(5,), (5,)], False),
    (['float16', 'float16'], [(2, 2), (3,)], False),
    (['float32'], [(6,)], True),
]


def values(dtype, shape, rng):
    """Edge values where they fit the dtype, else random ones."""
    size = int(np.prod(shape))
    dt = np.dtype(dtype)
    if dt.kind == 'f':
        x = np.resize(EDGES, size) if size >= 8 else rng.uniform(-3, 3, size)
        return x.reshape(shape).astype(dt)
    info = np.iinfo(dt)
    return rng.randint(max(info.min, -100), min(info.max, 100), size=shape).astype(dt)


def head_for(dtype, shape, rng):
    dt = np.dtype(dtype)
    if dt.kind == 'f':
        return rng.normal(size=shape).astype(dt)
    return rng.randint(-5, 6, size=shape).astype(dt)


def record_cast(i, ind, dt, rng, arrays):
    x = values(ind, (4, 4), rng)
    sym = mx.sym.amp_cast(mx.sym.Variable('x'), dtype=dt)
    exe = sym.simple_bind(mx.cpu(), x=x.shape, type_dict={'x': ind})
    exe.arg_dict['x'][:] = x
    out = exe.forward(is_train=True)[0].asnumpy()
    head = head_for(out.dtype, out.shape, rng)
    exe.backward([mx.nd.array(head, dtype=head.dtype)])
    arrays.update({'cast%d_in' % i: x, 'cast%d_out' % i: out, 'cast%d_head' % i: head,
                   'cast%d_grad' % i: exe.grad_dict['x'].asnumpy()})


def record_multi(i, dtypes, shapes, narrow, rng, arrays):
    names = ['x%d' % k for k in range(len(dtypes))]
    sym = mx.sym.amp_multicast(*[mx.sym.Variable(n) for n in names], num_outputs=len(names),
                               cast_narrow=narrow)
    exe = sym.simple_bind(mx.cpu(), type_dict=dict(zip(names, dtypes)), **dict(zip(names, shapes)))
    for k, (n, dt, shape) in enumerate(zip(names, dtypes, shapes)):
        x = values(dt, shape, rng)
        exe.arg_dict[n][:] = x
        arrays['multi%d_in%d' % (i, k)] = x
    outs = [o.asnumpy() for o in exe.forward(is_train=True)]
    heads = [head_for(o.dtype, o.shape, rng) for o in outs]
    exe.backward([mx.nd.array(h, dtype=h.dtype) for h in heads])
    for k, (o, h, n) in enumerate(zip(outs, heads, names)):
        arrays['multi%d_out%d' % (i, k)] = o
        arrays['multi%d_head%d' % (i, k)] = h
        arrays['multi%d_grad%d' % (i, k)] = exe.grad_dict[n].asnumpy()


def type_names(types):
    return [None if t is None else np.dtype(t).name for t in types]


def inferred_types():
    x, y, z = (mx.sym.Variable(n) for n in 'xyz')
    cast = {'%s->%s' % (ind, dt): type_names(mx.sym.amp_cast(x, dtype=dt).infer_type(x=ind)[1])[0]
            for ind in DTYPES for dt in DTYPES}
    multi = {}
    for narrow in (False, True):
        sym = mx.sym.amp_multicast(x, y, num_outputs=2, cast_narrow=narrow)
        for a in DTYPES:
            for b in DTYPES:
                multi['%s,%s,%s' % (a, b, narrow)] = type_names(sym.infer_type(x=a, y=b)[1])
    triples = {}
    for narrow in (False, True):
        sym = mx.sym.amp_multicast(x, y, z, num_outputs=3, cast_narrow=narrow)
        for a, b, c in [('float16', 'float32', 'float64'), ('float16', 'int32', 'float16'),
                        ('int8', 'float16', 'float32'), ('float64', 'float16', 'float16'),
                        ('uint8', 'float16', 'float16')]:
            triples['%s,%s,%s,%s' % (a, b, c, narrow)] = type_names(sym.infer_type(x=a, y=b, z=c)[1])
    partial = {}
    for narrow in (False, True):
        sym = mx.sym.amp_multicast(x, y, z, num_outputs=3, cast_narrow=narrow)
        for known in [{'x': 'float16'}, {'y': 'float16'}, {'x': 'float16', 'y': 'float32'},
                      {'y': 'float32', 'z': 'float16'}, {'x': 'int32', 'z': 'float16'}]:
            key = ','.join('%s=%s' % kv for kv in sorted(known.items())) + ',%s' % narrow
            partial[key] = type_names(sym.infer_type_partial(**known)[1])
    return cast, multi, triples, partial


def first_error_line(err):
    lines = [line for line in str(err).splitlines() if 'Check failed' in line or 'Error' in line]
    line = lines[-1].strip() if lines else str(err).splitlines()[0]
    return re.sub(r'\[\d\d:\d\d:\d\d\] ', '', line)        # no time of day


def errors():
    found = {}
    a, b = mx.nd.ones((2,), dtype='float16'), mx.nd.ones((2,))
    for label, call in [('cast_no_dtype', lambda: mx.nd.amp_cast(b)),
                        ('cast_bad_dtype', lambda: mx.nd.amp_cast(b, dtype='bool')),
                        ('multi_no_num_outputs', lambda: mx.nd.amp_multicast(a, b)),
                        ('multi_wrong_num_outputs', lambda: mx.nd.amp_multicast(a, b, num_outputs=3)),
                        ('cast_zero_size', lambda: mx.nd.amp_cast(mx.nd.array(np.zeros((2, 0))), dtype='float16'))]:
        try:
            call()
            mx.nd.waitall()
            found[label] = None
        except (mx.base.MXNetError, TypeError, ValueError) as err:
            found[label] = first_error_line(err)
    return found


def main():
    rng = np.random.RandomState(17)
    arrays = {}
    for i, (ind, dt) in enumerate(CAST_CASES):
        record_cast(i, ind, dt, rng, arrays)
    for i, (dtypes, shapes, narrow) in enumerate(MULTI_CASES):
        record_multi(i, dtypes, shapes, narrow, rng, arrays)
    cast, multi, triples, partial = inferred_types()
    x, y = mx.sym.Variable('x'), mx.sym.Variable('y')
    meta = {
        'cast_cases': CAST_CASES,
        'multi_cases': [[d, [list(s) for s in shapes], n] for d, shapes, n in MULTI_CASES],
        'cast_types': cast, 'multicast_types': multi, 'multicast_triples': triples,
        'multicast_partial': partial,
        'cast_names': {'arguments': mx.sym.amp_cast(name='c', dtype='float16').list_arguments(),
                       'outputs': mx.sym.amp_cast(x, name='c', dtype='float16').list_outputs()},
        'multicast_names': {'arguments': mx.sym.amp_multicast(name='m', num_outputs=2).list_arguments(),
                            'outputs': mx.sym.amp_multicast(x, y, name='m', num_outputs=2).list_outputs(),
                            'attrs': json.loads(mx.sym.amp_multicast(x, y, num_outputs=2).tojson())
                            ['nodes'][-1]['attrs']},
        'operator_arguments': {name: {'names': list(args.names), 'types': list(args.types)}
                               for name, args in ((n, get_operator_arguments(n))
                                                  for n in ('amp_cast', 'amp_multicast'))},
        'errors': errors(),
    }
    arrays['meta'] = np.array(json.dumps(meta))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d + %d cases, %d bytes' % (OUT, len(CAST_CASES), len(MULTI_CASES), os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
