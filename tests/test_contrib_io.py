"""mx.contrib.io.DataLoaderIter (reflib/contrib/io.py) against MXNet 1.9.1
(golden/contrib_io.json, from golden/gen_contrib_io.py over golden/contrib_io_cases.py), and a
Module trained from a Gluon DataLoader through it."""

import json
import os
import sys

import numpy as np

import reflib as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
import contrib_io_cases  # noqa: E402

with open(os.path.join(HERE, 'golden', 'contrib_io.json')) as _f:
    GOLDEN = json.load(_f)


def test_batches_as_mxnet_gives_them():
    assert json.loads(json.dumps(contrib_io_cases.run(mx))) == GOLDEN


def test_the_padding_rows_are_zeros():
    dataset = mx.gluon.data.ArrayDataset(np.ones((5, 2), np.float32), np.ones(5, np.float32))
    it = mx.contrib.io.DataLoaderIter(mx.gluon.data.DataLoader(dataset, 3, last_batch='keep'))
    last = list(it)[-1]
    assert last.pad == 1 and not last.data[0].asnumpy()[2:].any() and not last.label[0].asnumpy()[2:].any()


def test_module_fit_reads_a_gluon_dataloader():
    rs = np.random.RandomState(0)
    x = rs.normal(size=(64, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.float32)
    loader = mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(x, y), 16, shuffle=False)
    train = mx.contrib.io.DataLoaderIter(loader)
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2), name='softmax')
    mod = mx.mod.Module(net, context=mx.cpu())
    mx.random.seed(1)
    mod.fit(train, num_epoch=10, optimizer='sgd', optimizer_params={'learning_rate': 0.5},
            initializer=mx.init.Xavier())
    assert mod.score(train, 'acc')[0][1] > 0.9
