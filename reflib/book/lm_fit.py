"""A small LSTM language model trained with BucketingModule.fit on BucketSentenceIter, as MXNet's
example/rnn/bucketing/lstm_bucketing.py trains one (chapter 15).

MXNet 1.9.1 trained it once (tests/golden/gen_lm_fit.py) and its per-epoch validation
perplexity is stored (reflib/book/data/lm_fit.npz); chapter 15 and tests/test_bucketing.py
train it again in reflib.  Two stacked LSTM layers; a second run with GRU cells; a third
with the two LSTM layers as one fused RNN operator (FusedRNNCell).  The functions take the
library as ``mx`` and the file imports no reflib, so MXNet's interpreter loads it by path.
"""

import logging
import random

import numpy as np

__all__ = ['WORDS', 'sentences', 'sym_gen_for', 'run']

WORDS = ['the', 'cat', 'sat', 'on', 'a', 'mat', 'dog', 'ran', 'far', 'away', 'and', 'slept']


def sentences():
    """60 sentences of 2 to 11 words, seeded."""
    rng = np.random.RandomState(5)
    return [[WORDS[i] for i in rng.randint(0, len(WORDS), rng.randint(2, 12))] for _ in range(60)]


EMBED, HIDDEN, BATCH, BUCKETS, EPOCHS = 6, 8, 4, [4, 7, 10], 3


def sym_gen_for(mx, vocab_size, cell_kind):
    def sym_gen(seq_len):
        data = mx.sym.Variable('data')
        label = mx.sym.Variable('softmax_label')
        embed = mx.sym.Embedding(data=data, input_dim=vocab_size, output_dim=EMBED, name='embed')
        if cell_kind == 'fused':
            # batch-major data: the cell swaps it to time-major for the operator and back
            stack = mx.rnn.FusedRNNCell(HIDDEN, num_layers=2, mode='lstm', prefix='lstm_')
        else:
            stack = mx.rnn.SequentialRNNCell()
            for i in range(2):
                if cell_kind == 'lstm':
                    stack.add(mx.rnn.LSTMCell(num_hidden=HIDDEN, prefix='lstm_l%d_' % i))
                else:
                    stack.add(mx.rnn.GRUCell(num_hidden=HIDDEN, prefix='gru_l%d_' % i))
        stack.reset()
        outputs, _ = stack.unroll(seq_len, inputs=embed, merge_outputs=True)
        pred = mx.sym.Reshape(outputs, shape=(-1, HIDDEN))
        pred = mx.sym.FullyConnected(data=pred, num_hidden=vocab_size, name='pred')
        label = mx.sym.Reshape(label, shape=(-1,))
        pred = mx.sym.SoftmaxOutput(data=pred, label=label, name='softmax')
        return pred, ('data',), ('softmax_label',)
    return sym_gen


def run(mx, cell_kind):
    """Per-epoch training and validation perplexity, and the final parameters."""
    coded, vocab = mx.rnn.encode_sentences(sentences(), invalid_label=0, start_label=1)
    random.seed(4)
    np.random.seed(4)
    mx.random.seed(4)
    train = mx.rnn.BucketSentenceIter(coded[:48], BATCH, buckets=list(BUCKETS), invalid_label=0)
    val = mx.rnn.BucketSentenceIter(coded[48:], BATCH, buckets=list(BUCKETS), invalid_label=0)
    sym_gen = sym_gen_for(mx, len(vocab) + 1, cell_kind)
    model = mx.mod.BucketingModule(sym_gen=sym_gen, default_bucket_key=train.default_bucket_key,
                                   context=mx.cpu())
    # the libraries' random generators differ: the starting parameters come from numpy's
    net = sym_gen(train.default_bucket_key)[0]
    shapes = net.infer_shape(data=(BATCH, train.default_bucket_key),
                             softmax_label=(BATCH, train.default_bucket_key))[0]
    rng = np.random.RandomState(9)
    start = {name: mx.nd.array(rng.uniform(-0.2, 0.2, shape))
             for name, shape in zip(net.list_arguments(), shapes) if name not in ('data', 'softmax_label')}
    history = {'train': [], 'val': []}

    def record(kind):
        def callback(param):
            history[kind].append(dict(param.eval_metric.get_name_value())['perplexity'])
        return callback

    logging.getLogger().setLevel(logging.ERROR)
    model.fit(train_data=train, eval_data=val, eval_metric=mx.metric.Perplexity(0),
              kvstore='local', optimizer='sgd',
              optimizer_params={'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-5},
              arg_params=start, num_epoch=EPOCHS,
              epoch_end_callback=None, batch_end_callback=None, eval_end_callback=record('val'))
    arg, _ = model.get_params()
    return history, {k: v.asnumpy() for k, v in arg.items()}
