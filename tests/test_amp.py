"""mx.contrib.amp (reflib/contrib/amp) against MXNet 1.9.1 (golden/amp.json, from
golden/gen_amp.py): convert_symbol's graph node for node (casts, their names, the params'
__dtype__), convert_model's parameter dtypes and numbers, convert_hybrid_block,
convert_bucketing_module, the dynamic loss scaler, and amp.init's patched operator functions
-- NDArray and Symbol arithmetic included -- with scale_loss training (in a fresh process:
amp.init patches mx.nd and mx.sym for good).

MXNet 1.9.1 has no float16 FullyConnected or Convolution on the CPU, so where a converted
model runs, its golden value is 'error' and reflib's numbers are held to MXNet's float32
ones within float16 accuracy."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import reflib as mx
from reflib.contrib import amp
from reflib.base import MXNetError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
import amp_cases  # noqa: E402

with open(os.path.join(HERE, 'golden', 'amp.json')) as _f:
    GOLDEN = json.load(_f)


@pytest.fixture(scope='module')
def results():
    return amp_cases.run(mx, amp)


def _close(got, want, rtol, atol):
    return np.allclose(np.array(got, dtype=np.float64), np.array(want, dtype=np.float64), rtol=rtol, atol=atol)


# float16 has 11 significant bits: about 3 decimal digits, through a few layers
F16 = dict(rtol=2e-2, atol=2e-2)
F32 = dict(rtol=1e-5, atol=2e-3)      # the cases round to 3 decimals


@pytest.mark.parametrize('case', sorted(k for k in GOLDEN if k.startswith(('convert_symbol_', 'tojson_without_casts_'))))
def test_convert_symbol_graph_is_mxnets(results, case):
    assert results[case] == GOLDEN[case]


@pytest.mark.parametrize('case', sorted(k for k in GOLDEN if k.startswith('convert_model_')))
def test_convert_model(results, case):
    got, want = results[case], GOLDEN[case]
    assert got['arg_dtypes'] == want['arg_dtypes']
    assert got['aux_dtypes'] == want['aux_dtypes']
    assert _close(got['float32_outputs'], want['float32_outputs'], **F32)
    assert want['outputs'] == 'error'       # MXNet: float16 FullyConnected/Convolution need CuDNN
    assert got['outputs']['dtypes'] == ['float32'] * len(want['float32_outputs'])   # heads are cast back
    for out, ref in zip(got['outputs']['values'], want['float32_outputs']):
        assert _close(out, ref, **F16)


@pytest.mark.parametrize('case', ['convert_hybrid_block', 'convert_hybrid_block_cast_optional'])
def test_convert_hybrid_block(results, case):
    got, want = results[case], GOLDEN[case]
    assert got['param_dtypes'] == want['param_dtypes']
    assert got['graph'] == want['graph']
    assert _close(got['float32_output'], want['float32_output'], **F32)
    assert want['output'] == 'error'
    assert got['output']['dtype'] == 'float32'
    assert _close(got['output']['values'], want['float32_output'], **F16)


BUCKETING_CASES = ['convert_bucketing', 'convert_bucketing_cast_optional', 'convert_bucketing_excluded']


@pytest.mark.parametrize('case', BUCKETING_CASES)
def test_convert_bucketing_module(results, case):
    """Every bucket's graph converted, sym_gen kept, the parameters converted in place; bound,
    the new module runs the converted graphs (float16 layers: 'error' on MXNet's CPU)."""
    got, want = dict(results[case]), dict(GOLDEN[case])
    assert want['outputs'] == 'error'
    got_outputs, got_float32 = got.pop('outputs'), got.pop('float32_outputs')
    want.pop('outputs')
    want_float32 = want.pop('float32_outputs')
    assert got == want
    for key, ref in want_float32.items():
        assert _close(got_float32[key], ref, **F32)
        assert got_outputs[key]['dtype'] == 'float32'
        assert _close(got_outputs[key]['values'], ref, **F16)


@pytest.mark.parametrize('case', ['convert_bucketing_after_training', 'convert_bucketing_errors'])
def test_convert_bucketing_module_params_and_errors(results, case):
    assert results[case] == GOLDEN[case]


def test_loss_scaler_sequence(results):
    assert results['loss_scaler'] == GOLDEN['loss_scaler']


def test_lists(results):
    assert results['lists'] == GOLDEN['lists']


def test_loss_scaler_doubles_after_2000_clean_steps_up_to_2_24():
    scaler = amp.loss_scaler.LossScaler()
    seen = []
    for _ in range(9 * 2000 + 1):
        scaler.update(False)
        seen.append(scaler._next_loss_scale)
    assert seen[1998] == 2. ** 16 and seen[1999] == 2. ** 17
    assert max(seen) == 2. ** 24 and seen[-1] == 2. ** 24


def test_init_in_a_fresh_process():
    """amp.init patches mx.nd/mx.sym for the rest of the process: run it in its own."""
    # this checkout's reflib, installed or not (a GPU machine runs the tests from a copy)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.path.dirname(HERE),
                                                                   os.environ.get('PYTHONPATH')])))
    proc = subprocess.run([sys.executable, os.path.join(HERE, 'golden', 'amp_cases.py'), 'reflib'],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got, want = json.loads(proc.stdout.strip().splitlines()[-1]), GOLDEN['init']
    assert want['nd_fc']['value'] == 'error'      # MXNet: no float16 FullyConnected on the CPU
    # x @ w.T + b, computed in float16
    assert _close(got['nd_fc']['value'], [[0.35], [1.1]], rtol=1e-3, atol=1e-3)
    got['nd_fc']['value'] = want['nd_fc']['value']
    assert got == want


def test_this_process_is_not_patched():
    x = mx.nd.ones((2, 3))
    y = mx.nd.FullyConnected(x, mx.nd.ones((1, 3)), mx.nd.zeros((1,)), num_hidden=1)
    assert y.dtype == np.float32


# ------------------------------------------------------------------ reflib's own checks
def test_both_import_paths():
    from reflib.contrib.amp import amp as inner
    assert inner.convert_symbol is amp.convert_symbol
    assert set(amp.__all__) >= {'init', 'init_trainer', 'scale_loss', 'unscale', 'convert_symbol',
                                'convert_model', 'convert_hybrid_block'}
    # MXNet 1.9.1 has it only as amp.amp.convert_bucketing_module; reflib offers both
    assert amp.convert_bucketing_module is inner.convert_bucketing_module


def test_convert_bucketing_module_errors_name_the_culprit():
    with pytest.raises(AssertionError, match='BucketingModule.*Module'):
        amp.convert_bucketing_module(mx.mod.Module(amp_cases.bucket_sym_gen(mx)(4)[0]))
    with pytest.raises(MXNetError, match='no buckets.*bind'):
        amp.convert_bucketing_module(amp_cases._bucketing_module(mx, bind=False, params=False))
    with pytest.raises(MXNetError, match='not initialized.*init_params'):
        amp.convert_bucketing_module(amp_cases._bucketing_module(mx, params=False))
    with pytest.raises(MXNetError, match='excluded_sym_names'):
        amp.convert_bucketing_module(amp_cases._bucketing_module(mx), excluded_sym_names='fc1')
    with pytest.raises(MXNetError, match='float32'):
        amp.convert_bucketing_module(amp_cases._bucketing_module(mx), target_dtype='float32')


def test_a_converted_bucketing_module_switches_to_a_new_bucket_in_float32():
    """A bucket the old module never made comes from the kept sym_gen: float32, no casts."""
    new = amp.convert_bucketing_module(amp_cases._bucketing_module(mx))
    new.bind([('data', (2, 4, 3))], [('softmax_label', (2,))], for_training=False)
    new.forward(amp_cases._bucket_batch(mx, 3, 3), is_train=False)
    assert sorted(new._buckets) == [2, 3, 4]
    assert amp_cases._amp_nodes(new._buckets[3].symbol) == 0
    assert amp_cases._amp_nodes(new._buckets[4].symbol) == 8
    assert new.get_outputs()[0].dtype == np.float32


def test_the_original_symbol_is_left_alone():
    sym = amp_cases.cnn(mx)
    before = sym.tojson()
    amp.convert_symbol(sym, data_names=['data'], cast_optional_params=True)
    assert sym.tojson() == before


def test_the_converted_symbol_round_trips_through_json():
    conv = amp.convert_symbol(amp_cases.mixed(mx))
    again = mx.sym.load_json(conv.tojson())
    assert again.tojson() == conv.tojson()


def test_a_converted_model_trains_its_float16_layers():
    """The casts have gradients: backward through a converted MLP gives float32 gradients
    for the float32 parameters, close to the unconverted model's."""
    sym = amp_cases.mlp(mx).get_internals()['fc2_output']
    args, _ = amp_cases._params(mx, sym, {'data': (3, 5)}, 0)
    conv = amp.convert_symbol(sym)
    x = mx.nd.array(np.random.RandomState(3).uniform(-1, 1, (3, 5)))
    grads = []
    for s in (sym, conv):
        exe = s.simple_bind(mx.cpu(), data=(3, 5))
        for name, value in args.items():
            exe.arg_dict[name][:] = value
        exe.arg_dict['data'][:] = x
        exe.forward(is_train=True)
        exe.backward(mx.nd.ones(exe.outputs[0].shape))
        grads.append(exe.grad_dict['fc1_weight'])
    assert grads[1].dtype == np.float32
    assert _close(grads[1].asnumpy(), grads[0].asnumpy(), **F16)


def test_errors_name_the_culprit():
    sym = amp_cases.mlp(mx)
    with pytest.raises(MXNetError, match='no_such_op'):
        amp.convert_symbol(sym, fp32_ops=['no_such_op'])
    with pytest.raises(AssertionError, match='FullyConnected'):
        amp.convert_symbol(sym, target_dtype_ops=['FullyConnected'], fp32_ops=['FullyConnected'])
    with pytest.raises(MXNetError, match='bfloat16'):
        amp.convert_symbol(sym, target_dtype='bfloat16')
    with pytest.raises(MXNetError, match='excluded_sym_names'):
        amp.convert_symbol(sym, excluded_sym_names='fc1')
    with pytest.raises(MXNetError, match='Symbol'):
        amp.convert_symbol('not a symbol')


def test_trainer_needs_init_then_init_trainer():
    w = mx.gluon.Parameter('w', shape=(1,))
    w.initialize(ctx=mx.cpu())
    trainer = mx.gluon.Trainer([w], 'sgd')
    with pytest.raises(MXNetError, match='init_trainer'):
        with amp.scale_loss(mx.nd.ones((1,)), trainer):
            pass
    if not amp.amp._amp_initialized:
        with pytest.raises(MXNetError, match=r'amp\.init'):
            amp.init_trainer(trainer)
