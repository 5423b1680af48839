"""Checking reflib's operators against the numbers MXNet 1.9.1 recorded (tests/golden/op_cases.py).

    GOLDEN = GoldenCases('ops_math.npz')

    @pytest.mark.parametrize('i', GOLDEN.indices(), ids=GOLDEN.ids())
    def test_golden_case(i):
        GOLDEN.check(i)

``check`` parses the parameter strings MXNet wrote into its JSON, compares the input
and output names, the inferred output shapes, the forward outputs (values and dtype)
and, where MXNet recorded them, the input gradients for the same head gradients.
"""

import json
import os

import numpy as np

from reflib.context import cpu
from reflib.operator import OpEnv
from device import get

GOLDEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden')


def load_flat_cases(filename):
    """A golden file whose cases are stored flattened (gen_ops_update.py, gen_multi_update.py):
    ``(meta, pieces)``, ``pieces(i)`` giving case ``i``'s arrays by key (``in0``, ``grad1_0``,
    ``s0_out1``, ...) as its ``layout`` lists them."""
    with np.load(os.path.join(GOLDEN_DIR, filename)) as npz:
        arrays = {k: npz[k] for k in npz.files}
    meta = json.loads(str(arrays['meta']))

    def pieces(i):
        flat, out, pos = arrays['c%d' % i], {}, 0
        for key, shape, dtype in meta['cases'][i]['layout']:
            n = int(np.prod(shape))
            out[key] = flat[pos:pos + n].reshape(shape).astype(dtype)
            pos += n
        return out
    return meta, pieces


def infer_shapes(op_name, params, in_shapes, out_shapes=None):
    """(input shapes, output shapes) after one operator's shape inference; None = unknown."""
    op = get(op_name)
    if op.key_var_num_args and op.key_var_num_args not in params:
        params = dict(params, **{op.key_var_num_args: len(in_shapes)})   # as the symbol layer does
    p = op.parse_params(params)
    if out_shapes is None:
        out_shapes = [None] * len(op.outputs(p))
    ins, outs, _ = op.infer_shape(p, list(in_shapes), list(out_shapes), [])
    return [None if s is None else tuple(s) for s in ins], [None if s is None else tuple(s) for s in outs]


class GoldenCases:
    """The cases of one ``tests/golden/*.npz`` file written by ``op_cases.record_cases``."""

    def __init__(self, filename, rtol=1e-5, atol=1e-6):
        with np.load(os.path.join(GOLDEN_DIR, filename)) as npz:
            self.arrays = {k: npz[k] for k in npz.files}
        self.meta = json.loads(str(self.arrays['meta']))
        self.cases = self.meta['cases']
        self.rtol, self.atol = rtol, atol

    def indices(self):
        return range(len(self.cases))

    def ids(self):
        return ['%d-%s%s' % (i, c['alias'], c['attrs']) for i, c in enumerate(self.cases)]

    def operator_names(self):
        return {c['op'] for c in self.cases}

    def inputs(self, i):
        return [self.arrays['c%d_in%d' % (i, j)] for j in range(self.cases[i]['n_in'])]

    def check(self, i, rtol=None, atol=None):
        """Assert that reflib gives case ``i``'s names, shapes, outputs and gradients."""
        rtol = self.rtol if rtol is None else rtol
        atol = self.atol if atol is None else atol
        case, arrays = self.cases[i], self.arrays
        op = get(case['alias'])
        assert op is get(case['op']) and op.name == case['op']
        p = op.parse_params(case['attrs'])            # the strings MXNet writes into its JSON
        if case['n_in']:
            assert op.inputs(p) == case['input_names']
        assert op.outputs(p)[:op.visible_outputs(p)] == case['output_names']
        xs = self.inputs(i)
        expected = [arrays['c%d_out%d' % (i, k)] for k in range(case['n_out'])]

        _, out_shapes = infer_shapes(case['alias'], case['attrs'], [x.shape for x in xs])
        assert out_shapes[:op.visible_outputs(p)] == [o.shape for o in expected]   # hidden ones aside

        env = OpEnv(cpu(), is_train=case.get('train', True))
        outs = op.forward(p, env, [x.copy() for x in xs], [])
        assert len(outs) >= case['n_out']
        for k, want in enumerate(expected):
            got = np.asarray(outs[k])
            assert got.dtype == want.dtype, 'output %d is %s, MXNet gives %s' % (k, got.dtype, want.dtype)
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg='output %d' % k)
        if not case.get('grad', True):
            return
        heads = [arrays['c%d_head%d' % (i, k)] for k in range(case['n_out'])]
        heads += [None] * (len(outs) - len(heads))
        grads = op.backward(p, env, heads, xs, outs, [])
        for j in range(case['n_in']):
            want = arrays['c%d_grad%d' % (i, j)]
            got = np.zeros_like(want) if grads[j] is None else np.asarray(grads[j])
            assert got.dtype == want.dtype, 'gradient %d is %s, MXNet gives %s' % (j, got.dtype, want.dtype)
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg='gradient of input %d' % j)
