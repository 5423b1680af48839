"""Python operators with sparse storage types: the same programs under MXNet 1.9.1
(gen_custom_sparse.py records custom_sparse.json) and under reflib (test_custom_op_sparse.py).

Each case gives a JSON-able value: the numbers the program computes, and what the operator's
own code was handed (``[class name, stype]`` for each array of each group, forward and
backward), or 'error' where the library refuses the program.
"""

X = [[0.0, 1.5, 0.0, -0.5], [2.0, 0.0, -1.0, 0.0], [0.0, 0.0, 0.0, 3.0]]
PROJ = [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]
ROWS = [[0.0, 0.0, 0.0], [2.0, 0.0, -1.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]


def _try(fn):
    try:
        return fn()
    except Exception:       # noqa: BLE001  (the case records only that the library refused)
        return 'error'


def _seen(arrays):
    return [[type(a).__name__, a.stype] for a in arrays]


def _define(mx, log):
    """Register the operators (names prefixed csp_), each logging what its code is handed."""

    class Sqr(mx.operator.CustomOp):
        """The square, on the stored values where the input is CSR (MXNet's test_custom_op)."""

        def forward(self, is_train, req, in_data, out_data, aux):
            log.append(['forward', _seen(in_data), _seen(out_data), _seen(aux),
                        isinstance(out_data[0], mx.nd.sparse.CSRNDArray)])
            if in_data[0].stype == 'default':
                aux[0][:] = 1
                self.assign(out_data[0], req[0], in_data[0] * in_data[0])
            else:
                inp = in_data[0]
                out = mx.nd.sparse.csr_matrix((inp.data * inp.data, inp.indices, inp.indptr),
                                              shape=inp.shape)
                self.assign(out_data[0], req[0], out)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            log.append(['backward', _seen(out_grad), _seen(in_data), _seen(out_data), _seen(in_grad),
                        _seen(aux)])
            self.assign(in_grad[0], req[0], 2 * mx.nd.sparse.elemwise_mul(in_data[0], out_grad[0]))

    @mx.operator.register('csp_sqr')
    class SqrProp(mx.operator.CustomOpProp):
        def __init__(self):
            super(SqrProp, self).__init__(need_top_grad=True)

        def list_auxiliary_states(self):
            return ['aux']

        def infer_shape(self, in_shape):
            return in_shape, [in_shape[0]], [in_shape[0]]

        def infer_storage_type(self, in_stype):
            if in_stype[0] == 'default':
                return ['default'], ['default'], ['default']
            return ['csr'], ['csr'], ['csr']

        def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype, aux_stype):
            log.append(['infer_storage_type_backward', ograd_stype, in_stype, out_stype, igrad_stype,
                        aux_stype])
            if in_stype[0] == 'default':
                return ['default'], ['default'], ['default'], ['default'], ['default']
            return ['default'], ['csr'], ['csr'], ['csr'], ['csr']

        def create_operator(self, ctx, shapes, dtypes):
            return Sqr()

    class Triple(mx.operator.CustomOp):
        """3 * x on the stored rows of a row_sparse input."""

        def forward(self, is_train, req, in_data, out_data, aux):
            log.append(['forward', _seen(in_data), _seen(out_data)])
            inp = in_data[0]
            self.assign(out_data[0], req[0],
                        mx.nd.sparse.row_sparse_array((inp.data * 3, inp.indices), shape=inp.shape))

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            log.append(['backward', _seen(out_grad), _seen(in_data), _seen(out_data), _seen(in_grad)])
            self.assign(in_grad[0], req[0], 3 * out_grad[0].tostype('row_sparse'))

    @mx.operator.register('csp_triple')
    class TripleProp(mx.operator.CustomOpProp):
        def infer_storage_type(self, in_stype):
            return ['row_sparse'], ['row_sparse'], []

        def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype, aux_stype):
            log.append(['infer_storage_type_backward', ograd_stype, in_stype, out_stype, igrad_stype,
                        aux_stype])
            return ograd_stype, ['row_sparse'], ['row_sparse'], ['row_sparse'], []

        def create_operator(self, ctx, shapes, dtypes):
            return Triple()

    class Double(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * 2)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], out_grad[0] * 2)

    @mx.operator.register('csp_plain')
    class PlainProp(mx.operator.CustomOpProp):
        """The default storage rules."""

        def create_operator(self, ctx, shapes, dtypes):
            return Double()


def _sqr_graph(mx):
    data = mx.sym.Variable('data', stype='csr')
    op = mx.sym.Custom(data=data, aux=mx.sym.Variable('aux'), name='sqr', op_type='csp_sqr')
    return mx.sym.make_loss(op * mx.sym.Variable('proj'))


def run(mx):
    log = []
    _define(mx, log)
    out = {}

    def taken():
        got = list(log)
        del log[:]
        return got

    def unique(entries):
        """Each distinct entry once, in first-seen order (how often a library asks differs)."""
        seen = []
        for e in entries:
            if e not in seen:
                seen.append(e)
        return seen

    # a bound graph: csr data (and aux) into the csr op; gradient of data
    def bound_csr():
        ex = _sqr_graph(mx).simple_bind(mx.cpu(), data=(3, 4), proj=(3, 4),
                                        grad_req={'data': 'write', 'proj': 'null'})
        mx.nd.array(X).tostype('csr').copyto(ex.arg_dict['data'])
        ex.arg_dict['proj'][:] = mx.nd.array(PROJ)
        fwd = ex.forward(is_train=True)[0].asnumpy().tolist()
        ex.backward()
        return {'forward': fwd, 'grad': ex.grad_dict['data'].asnumpy().tolist(),
                'arg_stype': ex.arg_dict['data'].stype, 'aux_stype': ex.aux_dict['aux'].stype}
    del log[:]
    out['bound_csr'] = _try(bound_csr)
    out['bound_csr_seen'] = unique(taken())

    # the same graph bound twice in a row: the Op keeps working batch after batch
    def bound_csr_twice():
        ex = _sqr_graph(mx).simple_bind(mx.cpu(), data=(3, 4), proj=(3, 4),
                                        grad_req={'data': 'write', 'proj': 'null'})
        ex.arg_dict['proj'][:] = mx.nd.array(PROJ)
        results = []
        for scale in (1.0, -2.0):
            (mx.nd.array(X) * scale).tostype('csr').copyto(ex.arg_dict['data'])
            results.append(ex.forward(is_train=True)[0].asnumpy().tolist())
            ex.backward()
            results.append(ex.grad_dict['data'].asnumpy().tolist())
        return results
    out['bound_csr_twice'] = _try(bound_csr_twice)
    taken()

    # imperative, not recorded
    def imperative():
        x = mx.nd.array(X).tostype('csr')
        y = mx.nd.Custom(x, mx.nd.zeros((3, 4)).tostype('csr'), op_type='csp_sqr')
        return y.asnumpy().tolist()
    out['imperative_csr'] = _try(imperative)
    out['imperative_csr_seen'] = unique(taken())

    # imperative under autograd (MXNet's test_custom_op)
    def recorded():
        x = mx.nd.array(X).tostype('csr')
        x.attach_grad()
        with mx.autograd.record():
            y = mx.nd.Custom(x, mx.nd.zeros((3, 4)).tostype('csr'), op_type='csp_sqr')
        y.backward(mx.nd.array(PROJ))
        return {'forward': y.asnumpy().tolist(), 'grad': x.grad.asnumpy().tolist(),
                'grad_class': type(x.grad).__name__, 'grad_stype': x.grad.stype}
    out['recorded_csr'] = _try(recorded)
    out['recorded_csr_seen'] = unique(taken())

    # dense input to the same op: its Prop says dense everywhere
    def dense():
        x = mx.nd.array(X)
        x.attach_grad()
        aux = mx.nd.zeros((3, 4))
        with mx.autograd.record():
            y = mx.nd.Custom(x, aux, op_type='csp_sqr')
        y.backward(mx.nd.array(PROJ))
        return {'forward': y.asnumpy().tolist(), 'grad': x.grad.asnumpy().tolist()}
    out['dense_input'] = _try(dense)
    out['dense_input_seen'] = unique(taken())

    # row_sparse: bound with a row_sparse gradient, and under autograd
    def bound_rsp():
        data = mx.sym.Variable('data', stype='row_sparse')
        loss = mx.sym.make_loss(mx.sym.Custom(data, op_type='csp_triple') * mx.sym.Variable('proj'))
        ex = loss.simple_bind(mx.cpu(), data=(4, 3), proj=(4, 3), grad_req={'data': 'write', 'proj': 'null'})
        mx.nd.array(ROWS).tostype('row_sparse').copyto(ex.arg_dict['data'])
        ex.arg_dict['proj'][:] = mx.nd.arange(12).reshape((4, 3))
        fwd = ex.forward(is_train=True)[0].asnumpy().tolist()
        ex.backward()
        g = ex.grad_dict['data']
        return {'forward': fwd, 'grad': g.asnumpy().tolist(), 'grad_class': type(g).__name__}
    out['bound_rsp'] = _try(bound_rsp)
    out['bound_rsp_seen'] = unique(taken())

    def recorded_rsp():
        x = mx.nd.array(ROWS).tostype('row_sparse')
        x.attach_grad()
        with mx.autograd.record():
            y = mx.nd.Custom(x, op_type='csp_triple')
        y.backward(mx.nd.arange(12).reshape((4, 3)))
        return {'forward': y.asnumpy().tolist(), 'grad': x.grad.asnumpy().tolist(),
                'grad_class': type(x.grad).__name__}
    out['recorded_rsp'] = _try(recorded_rsp)
    out['recorded_rsp_seen'] = unique(taken())

    # the default rules refuse a sparse input; a dense one works as ever
    out['default_prop_csr_imperative'] = _try(
        lambda: mx.nd.Custom(mx.nd.array(X).tostype('csr'), op_type='csp_plain').asnumpy().tolist())
    out['default_prop_csr_bound'] = _try(
        lambda: mx.sym.Custom(mx.sym.Variable('d', stype='csr'), op_type='csp_plain').bind(
            mx.cpu(), {'d': mx.nd.array(X).tostype('csr')}).forward()[0].asnumpy().tolist())
    out['default_prop_dense'] = _try(
        lambda: mx.nd.Custom(mx.nd.array(X), op_type='csp_plain').asnumpy().tolist())
    # the default Prop's own answers
    prop = mx.operator.CustomOpProp()
    out['default_infer_storage_type'] = _try(lambda: [list(r) for r in prop.infer_storage_type(['default'])])
    out['default_infer_storage_type_csr'] = _try(lambda: prop.infer_storage_type(['csr']))
    out['default_infer_storage_type_backward'] = _try(lambda: [
        list(r) for r in prop.infer_storage_type_backward(['default'], ['csr'], ['row_sparse'],
                                                          ['undefined'], [])])
    out['default_infer_storage_type_backward_csr_grad'] = _try(lambda: prop.infer_storage_type_backward(
        ['default'], ['default'], ['default'], ['csr'], []))
    taken()
    return out

