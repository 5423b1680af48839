"""The bucketing scenario gen_bucketing.py records in MXNet and tests/test_bucketing.py replays
in reflib: an LSTM language model (Embedding, LSTMCell unrolled, FullyConnected, SoftmaxOutput)
over buckets of 3 and 5 steps, trained step by step with SGD and momentum."""

import numpy as np

VOCAB, EMBED, HIDDEN, BATCH = 7, 5, 6, 4
DEFAULT_KEY = 5
SCHEDULE = [5, 3, 5, 3, 3, 5]          # the bucket of each training batch, in order


def sym_gen_for(mx):
    def sym_gen(seq_len):
        data = mx.sym.Variable('data')
        label = mx.sym.Variable('softmax_label')
        embed = mx.sym.Embedding(data=data, input_dim=VOCAB, output_dim=EMBED, name='embed')
        cell = mx.rnn.LSTMCell(HIDDEN, prefix='lstm_')
        outputs, _ = cell.unroll(seq_len, inputs=embed, merge_outputs=True)
        pred = mx.sym.Reshape(outputs, shape=(-1, HIDDEN))
        pred = mx.sym.FullyConnected(data=pred, num_hidden=VOCAB, name='pred')
        label = mx.sym.Reshape(label, shape=(-1,))
        return mx.sym.SoftmaxOutput(data=pred, label=label, name='softmax'), ('data',), ('softmax_label',)
    return sym_gen


def batches(mx):
    """The training batches: random word ids, the label being the next word."""
    rng = np.random.RandomState(3)
    out = []
    for key in SCHEDULE:
        words = rng.randint(0, VOCAB, (BATCH, key + 1))
        out.append(mx.io.DataBatch(
            [mx.nd.array(words[:, :-1])], [mx.nd.array(words[:, 1:])], bucket_key=key,
            provide_data=[mx.io.DataDesc('data', (BATCH, key))],
            provide_label=[mx.io.DataDesc('softmax_label', (BATCH, key))]))
    return out


def initial_params(shapes):
    rng = np.random.RandomState(11)
    return {name: rng.uniform(-0.3, 0.3, shape).astype(np.float32) for name, shape in sorted(shapes.items())}


def run(mx):
    """Train; return ({label: array}, bucket keys): each step's output and the final parameters."""
    mod = mx.mod.BucketingModule(sym_gen_for(mx), default_bucket_key=DEFAULT_KEY, context=mx.cpu())
    mod.bind([mx.io.DataDesc('data', (BATCH, DEFAULT_KEY))], [mx.io.DataDesc('softmax_label', (BATCH, DEFAULT_KEY))])
    shapes = dict(zip(mod.symbol.list_arguments(),
                      mod.symbol.infer_shape(data=(BATCH, DEFAULT_KEY), softmax_label=(BATCH, DEFAULT_KEY))[0]))
    shapes = {k: v for k, v in shapes.items() if k not in ('data', 'softmax_label')}
    mod.init_params(arg_params={k: mx.nd.array(v) for k, v in initial_params(shapes).items()})
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.5, 'momentum': 0.9})
    record = {}
    for step, batch in enumerate(batches(mx)):
        mod.forward(batch, is_train=True)
        record['step%d/output' % step] = mod.get_outputs()[0].asnumpy()
        mod.backward()
        mod.update()
    arg, _ = mod.get_params()
    for name, value in arg.items():
        record['final/%s' % name] = value.asnumpy()
    return record, sorted(mod._buckets)
