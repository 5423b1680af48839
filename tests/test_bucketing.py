"""BucketingModule: an LSTM language model over buckets of 3 and 5 steps, trained as MXNet
1.9.1 trains it (tests/golden/gen_bucketing.py), with one set of parameters and one optimizer
shared by every bucket's module."""

import os
import sys

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError

GOLDEN = os.path.join(os.path.dirname(__file__), 'golden')
sys.path.insert(0, GOLDEN)
import bucketing_cases as case  # noqa: E402


def test_training_over_buckets_matches_mxnet_step_by_step():
    record, keys = case.run(mx)
    golden = np.load(os.path.join(GOLDEN, 'bucketing.npz'))
    assert keys == list(golden['buckets'])
    assert sorted(record) == sorted(k for k in golden.files if k != 'buckets')
    for label, value in record.items():
        np.testing.assert_allclose(value, golden[label], rtol=1e-5, atol=1e-6, err_msg=label)


def _trained_module():
    mod = mx.mod.BucketingModule(case.sym_gen_for(mx), default_bucket_key=case.DEFAULT_KEY)
    mod.bind([('data', (case.BATCH, case.DEFAULT_KEY))], [('softmax_label', (case.BATCH, case.DEFAULT_KEY))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.1, 'momentum': 0.9})
    for batch in case.batches(mx):
        mod.forward_backward(batch)
        mod.update()
    return mod


def test_every_bucket_computes_with_the_default_buckets_parameter_and_gradient_arrays():
    mod = _trained_module()
    default, short = mod._buckets[5]._exec_group, mod._buckets[3]._exec_group
    assert default is not short
    for name in ('embed_weight', 'lstm_i2h_weight', 'pred_bias'):
        assert short.execs[0].arg_dict[name] is default.execs[0].arg_dict[name]
        assert short.execs[0].grad_dict[name] is default.execs[0].grad_dict[name]
    # one optimizer, one updater: the momentum of a weight is one array for all buckets
    assert mod._buckets[3]._updater is mod._buckets[5]._updater
    assert mod._buckets[3]._optimizer is mod._buckets[5]._optimizer


def test_a_bucket_is_bound_when_a_batch_first_needs_it():
    mod = mx.mod.BucketingModule(case.sym_gen_for(mx), default_bucket_key=5)
    mod.bind([('data', (case.BATCH, 5))], [('softmax_label', (case.BATCH, 5))])
    mod.init_params()
    assert sorted(mod._buckets) == [5]
    batch = case.batches(mx)[1]                       # a bucket of 3
    mod.prepare(batch)                                 # binds it, and comes back
    assert sorted(mod._buckets) == [3, 5] and mod._curr_bucket_key == 5
    mod.forward(batch, is_train=False)
    assert mod._curr_bucket_key == 3
    assert mod.get_outputs()[0].shape == (case.BATCH * 3, case.VOCAB)
    # the public view: the real modules, in a mapping of its own
    view = mod.buckets
    assert sorted(view) == [3, 5] and view[3] is mod._buckets[3]
    view.clear()
    assert sorted(mod._buckets) == [3, 5]


def test_checkpoint_round_trip_with_mxnets_files(tmp_path):
    mod = _trained_module()
    prefix = str(tmp_path / 'lm')
    mod.save_checkpoint(prefix, 2)
    assert sorted(f for f in os.listdir(str(tmp_path)) if not f.endswith('.checkpoint')) == \
        ['lm-0002.params', 'lm-3-symbol.json', 'lm-5-symbol.json', 'lm.buckets']
    loaded = mx.mod.BucketingModule.load(prefix, 2, sym_gen=case.sym_gen_for(mx), default_bucket_key=5)
    assert sorted(loaded._buckets) == [3, 5]
    made_by_load = loaded._buckets[5]
    loaded.bind([('data', (case.BATCH, 5))], [('softmax_label', (case.BATCH, 5))], for_training=False)
    # as MXNet's bind: the default bucket's module already there (the file's graph) is bound
    assert loaded._buckets[5] is made_by_load and loaded._curr_module is made_by_load
    for name, value in mod.get_params()[0].items():
        np.testing.assert_array_equal(loaded.get_params()[0][name].asnumpy(), value.asnumpy())
    batch = case.batches(mx)[1]
    mod.forward(batch, is_train=False)
    loaded.forward(batch, is_train=False)
    np.testing.assert_allclose(loaded.get_outputs()[0].asnumpy(), mod.get_outputs()[0].asnumpy(), rtol=1e-6)


def test_misuse_is_refused():
    with pytest.raises(MXNetError, match='default_bucket_key'):
        mx.mod.BucketingModule(case.sym_gen_for(mx))
    mod = mx.mod.BucketingModule(case.sym_gen_for(mx), default_bucket_key=5)
    with pytest.raises(mx.mod.ModuleStateError, match='forward: call bind'):
        mod.forward(case.batches(mx)[0])
    with pytest.raises(MXNetError, match='shared_module is not supported'):
        mod.bind([('data', (case.BATCH, 5))], [('softmax_label', (case.BATCH, 5))],
                 shared_module=mx.mod.Module(mx.sym.Variable('data'), label_names=None))


@pytest.mark.filterwarnings('ignore:BucketSentenceIter. discarded')
@pytest.mark.filterwarnings('ignore:FusedRNNCell. the NTC layout')
@pytest.mark.parametrize('cell_kind', ['lstm', 'gru', 'fused'])
def test_a_language_model_fits_with_mxnets_perplexity_epoch_by_epoch(cell_kind):
    # BucketSentenceIter + BucketingModule.fit + Perplexity, two stacked cells (or the two LSTM
    # layers as one fused RNN operator), three epochs
    import lm_fit_cases
    history, params = lm_fit_cases.run(mx, cell_kind)
    golden = np.load(os.path.join(GOLDEN, 'lm_fit.npz'))
    np.testing.assert_allclose(history['val'], golden['%s/val_perplexity' % cell_kind], rtol=1e-5)
    for name, value in params.items():
        np.testing.assert_allclose(value, golden['%s/param/%s' % (cell_kind, name)], rtol=1e-4, atol=1e-5,
                                   err_msg=name)


def test_a_monitor_follows_every_bucket():
    mod = mx.mod.BucketingModule(case.sym_gen_for(mx), default_bucket_key=5)
    mod.bind([('data', (case.BATCH, 5))], [('softmax_label', (case.BATCH, 5))])
    mod.init_params()
    seen = []
    mon = mx.monitor.Monitor(1, stat_func=lambda x: x, pattern='pred_output')
    mod.install_monitor(mon)
    for batch in case.batches(mx)[:2]:               # buckets 5, then 3 (bound now, with the monitor)
        mon.tic()
        mod.forward(batch, is_train=False)
        seen.append([name for _, name, _ in mon.toc()])
    assert seen == [['pred_output'], ['pred_output']]
