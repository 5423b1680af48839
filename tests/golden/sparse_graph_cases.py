"""Sparse storage in bound graphs: the same programs under MXNet 1.9.1 (gen_sparse_graph.py
records sparse_graph.json) and under reflib (test_sparse_graph.py).  Each case gives a
JSON-able value, 'error' where the library refuses (the exception's type is not compared:
MXNet's are all MXNetError)."""

import json

import numpy as np


def _try(fn):
    try:
        return fn()
    except Exception:       # noqa: BLE001  (the case records only that the library refused)
        return 'error'


def _parts(arr):
    if arr is None:
        return None
    out = {'stype': arr.stype, 'shape': list(arr.shape), 'dtype': np.dtype(arr.dtype).name,
           'dense': np.round(arr.asnumpy().astype(np.float64), 5).tolist()}
    if arr.stype == 'row_sparse':
        out['indices'] = arr.indices.asnumpy().tolist()
        out['data'] = np.round(arr.data.asnumpy().astype(np.float64), 5).tolist()
    return out


def _stypes(table):
    return {k: (v.stype if v is not None else None) for k, v in sorted(table.items())}


def _embedding(mx, ids, weight_dtype='float32', twice=False, via_op=False):
    data, weight = mx.sym.var('data'), mx.sym.var('w')
    looked_up = mx.sym.Embedding(data, weight * 2 if via_op else weight, input_dim=7, output_dim=3,
                                 sparse_grad=True, dtype=weight_dtype, name='emb')
    loss = mx.sym.MakeLoss(mx.sym.sum(looked_up * mx.sym.var('scale')))
    shapes = {'data': np.array(ids).shape, 'scale': np.array(ids).shape + (3,), 'w': (7, 3)}
    reqs = {'data': 'null', 'w': 'write', 'scale': 'null'}
    if twice:
        other = mx.sym.FullyConnected(mx.sym.var('x'), weight=weight, num_hidden=7, no_bias=True, name='fc')
        loss = mx.sym.Group([loss, mx.sym.MakeLoss(mx.sym.sum(other))])
        shapes['x'], reqs['x'] = (2, 3), 'null'
    types = {'w': weight_dtype, 'data': 'float32', 'scale': weight_dtype, 'x': weight_dtype}
    exe = loss.simple_bind(mx.cpu(), grad_req=reqs, type_dict={k: types[k] for k in shapes}, **shapes)
    exe.arg_dict['w'][:] = np.arange(21).reshape(7, 3) / 10.0
    exe.arg_dict['data'][:] = np.array(ids)
    exe.arg_dict['scale'][:] = np.arange(np.prod(shapes['scale'])).reshape(shapes['scale']) % 5 + 1
    if twice:
        exe.arg_dict['x'][:] = 1
    record = {'arg stypes': _stypes(exe.arg_dict), 'grad stypes': _stypes(exe.grad_dict)}
    for step in range(2):        # a second batch replaces the rows, it does not add to them
        exe.arg_dict['data'][:] = (np.array(ids) + step) % 7
        exe.forward(is_train=True)
        exe.backward()
        record['output %d' % step] = np.round(exe.outputs[0].asnumpy().astype(np.float64), 4).tolist()
        record['grad %d' % step] = _parts(exe.grad_dict['w'])
    return record


CSR = np.array([[0, 1.5, 0, 0, 0], [0, 0, 0, 0, 0], [2, 0, 0, 3, 0], [0, 0, 0, 0, -1]], dtype=np.float32)


def _dot(mx, transpose_a=False, weight_stype='default', data_grad='null', weight_shape=(5, 2)):
    x = mx.sym.var('x', stype='csr')
    w = mx.sym.var('w', stype=weight_stype)
    out = mx.sym.dot(x, w, transpose_a=transpose_a, name='dot')
    loss = mx.sym.MakeLoss(mx.sym.sum(out * mx.sym.var('scale')))
    out_shape = (5 if transpose_a else 4, weight_shape[1])
    exe = loss.simple_bind(mx.cpu(), x=CSR.shape, w=weight_shape, scale=out_shape,
                           grad_req={'x': data_grad, 'w': 'write', 'scale': 'null'})
    mx.nd.array(CSR).tostype('csr').copyto(exe.arg_dict['x'])
    values = mx.nd.array(np.arange(np.prod(weight_shape)).reshape(weight_shape) / 4.0 - 1)
    if weight_stype == 'default':
        exe.arg_dict['w'][:] = values
    else:
        values.tostype(weight_stype).copyto(exe.arg_dict['w'])
    exe.arg_dict['scale'][:] = np.arange(np.prod(out_shape)).reshape(out_shape) % 3 + 1
    exe.forward(is_train=True)
    exe.backward()
    return {'arg stypes': _stypes(exe.arg_dict), 'grad stypes': _stypes(exe.grad_dict),
            'output': _parts(exe.outputs[0]), 
            'grad w': _parts(exe.grad_dict['w']), 'grad x': _parts(exe.grad_dict['x'])}


def _fallback(mx):
    """A CSR argument read by operators that have no sparse form: they see its dense values."""
    x = mx.sym.var('x', stype='csr')
    net = mx.sym.broadcast_add(mx.sym.sum(mx.sym.exp(x) * 2, axis=1), mx.sym.sum(x).reshape((1,)))
    exe = net.simple_bind(mx.cpu(), x=CSR.shape, grad_req='null')
    mx.nd.array(CSR).tostype('csr').copyto(exe.arg_dict['x'])
    return {'arg stypes': _stypes(exe.arg_dict), 'output': _parts(exe.forward()[0])}


def _dense_grad_for_sparse_embedding(mx):
    net = mx.sym.MakeLoss(mx.sym.sum(mx.sym.Embedding(mx.sym.var('data'), mx.sym.var('w'), input_dim=4,
                                                      output_dim=2, sparse_grad=True)))
    exe = net.bind(mx.cpu(), args={'data': mx.nd.array([1, 2]), 'w': mx.nd.ones((4, 2))},
                   args_grad={'w': mx.nd.zeros((4, 2))}, grad_req={'data': 'null', 'w': 'write'})
    exe.forward(is_train=True)
    exe.backward()
    return exe.grad_dict['w'].asnumpy().tolist()


def _embedding_of_stored_rows(mx):
    """A row_sparse weight that stores rows 1 and 4 only: a row it does not store reads as zeros."""
    data, weight = mx.sym.var('data'), mx.sym.var('w', stype='row_sparse')
    looked_up = mx.sym.Embedding(data, weight, input_dim=6, output_dim=2, sparse_grad=True, name='emb')
    net = mx.sym.Group([mx.sym.BlockGrad(looked_up), mx.sym.MakeLoss(mx.sym.sum(looked_up * mx.sym.var('k')))])
    exe = net.simple_bind(mx.cpu(), data=(3,), k=(3, 2), grad_req={'data': 'null', 'w': 'write', 'k': 'null'})
    mx.nd.sparse.row_sparse_array((np.array([[1, 2], [3, 4]], np.float32), np.array([1, 4])),
                                  shape=(6, 2)).copyto(exe.arg_dict['w'])
    exe.arg_dict['data'][:] = np.array([1, 2, 4])
    exe.arg_dict['k'][:] = np.array([[1, 1], [2, 2], [3, 3]])
    outputs = exe.forward(is_train=True)
    exe.backward()
    return {'arg stypes': _stypes(exe.arg_dict), 'grad stypes': _stypes(exe.grad_dict),
            'looked up': _parts(outputs[0]), 'loss': _parts(outputs[1]), 'grad w': _parts(exe.grad_dict['w'])}


def _json(mx):
    x, w = mx.sym.var('x', stype='csr'), mx.sym.var('w', stype='row_sparse')
    graph = json.loads(mx.sym.dot(x, w, name='dot').tojson())
    return [node['attrs'] for node in graph['nodes'] if node['op'] == 'null']


def _square_sum(mx, fm=False):
    """The factorization machine's pieces: _square_sum of a row_sparse parameter, its gradient
    row_sparse in the parameter's rows.  ``fm``: ``dot(csr, _square_sum(v, axis=1, keepdims))``
    with every row of v stored: the head comes row_sparse from dot, and only its rows get a
    gradient.  (The model squares the CSR data first; reflib's executor keeps no intermediate
    value sparse, so there the head would come dense and every row of v get one.)"""
    v = mx.sym.var('v', stype='row_sparse')
    if fm:
        x = mx.sym.var('x', stype='csr')
        out = mx.sym.dot(x, mx.sym._internal._square_sum(v, axis=1, keepdims=True))
        shapes, reqs = {'x': CSR.shape, 'v': (5, 2)}, {'x': 'null', 'v': 'write'}
    else:
        out = mx.sym._internal._square_sum(v, axis=0)
        shapes, reqs = {'v': (5, 2)}, {'v': 'write'}
    loss = mx.sym.MakeLoss(mx.sym.sum(out * mx.sym.var('scale')))
    exe = loss.simple_bind(mx.cpu(), grad_req=dict(reqs, scale='null'),
                           scale=(4, 1) if fm else (2,), **shapes)
    values = np.arange(10).reshape(5, 2) / 4.0 - 1
    if not fm:
        values[[1, 3]] = 0          # rows 1 and 3 not stored
    mx.nd.array(values).tostype('row_sparse').copyto(exe.arg_dict['v'])
    if fm:
        mx.nd.array(CSR).tostype('csr').copyto(exe.arg_dict['x'])
    exe.arg_dict['scale'][:] = np.arange(4).reshape(4, 1) + 1 if fm else [1, 2]
    exe.forward(is_train=True)
    exe.backward()
    return {'arg stypes': _stypes(exe.arg_dict), 'grad stypes': _stypes(exe.grad_dict),
            'output': np.round(exe.outputs[0].asnumpy().astype(np.float64), 5).tolist(),
            'grad': _parts(exe.grad_dict['v'])}


def run(mx):
    cases = {
        'embedding sparse_grad': lambda: _embedding(mx, [[1, 4], [1, 0]]),
        'embedding sparse_grad repeated and clipped ids': lambda: _embedding(mx, [[6, 6, 6], [-1, 9, 2]]),
        'embedding sparse_grad float64': lambda: _embedding(mx, [[3, 0]], weight_dtype='float64'),
        'embedding sparse_grad weight also read densely': lambda: _embedding(mx, [[1, 4], [1, 0]], twice=True),
        'embedding sparse_grad dense gradient array': lambda: _try(lambda: _dense_grad_for_sparse_embedding(mx)),
        'embedding of a row_sparse weight': lambda: _embedding_of_stored_rows(mx),
        'dot csr dense': lambda: _dot(mx),
        'dot csr dense, data gradient': lambda: _dot(mx, data_grad='write'),
        'dot csr row_sparse': lambda: _dot(mx, weight_stype='row_sparse'),
        'dot csr.T dense': lambda: _dot(mx, transpose_a=True, weight_shape=(4, 2)),
        'csr storage fallback': lambda: _fallback(mx),
        'variable stype json': lambda: _json(mx),
        '_square_sum of a row_sparse parameter': lambda: _square_sum(mx),
        'dot(csr, _square_sum(row_sparse)): a row_sparse head': lambda: _square_sum(mx, fm=True),
    }
    return {k: fn() for k, fn in cases.items()}
