"""The API calls MXNet 1.9.1's example scripts make, exercised on data made here.

Running example/image-classification/{train_imagenet,score}.py and example/module/*.py
unchanged on reflib (only ``import mxnet as mx`` swapped) found what these tests pin down:
the scripts' ImageRecordIter calls, the scoring loop over a saved checkpoint, and a quiet log
when a script sets the root logger to DEBUG.  The scripts themselves are not vendored; the
numbers here are computed independently with numpy.
"""

import json
import logging
import os
import sys
import zipfile

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError

GOLDEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden')
sys.path.insert(0, GOLDEN_DIR)
import graph_defs  # noqa: E402
from io_iters_cases import write_idx  # noqa: E402

RGB_MEAN = (123.68, 116.779, 103.939)      # common/data.py's default --rgb-mean


def _write_rec(tmp_path, n=10, size=32, seed=0):
    """n random RGB images (PNG) with labels i % 4; returns the path and the images (RGB)."""
    rng = np.random.RandomState(seed)
    rgb = rng.randint(0, 256, (n, size, size, 3)).astype(np.uint8)
    path = str(tmp_path / 'tiny.rec')
    writer = mx.recordio.MXRecordIO(path, 'w')
    for i in range(n):
        header = mx.recordio.IRHeader(0, float(i % 4), i, 0)
        writer.write(mx.recordio.pack_img(header, rgb[i][..., ::-1], img_fmt='.png'))   # pack_img takes BGR
    writer.close()
    return path, rgb


def _get_rec_iter_kwargs(path, batch_size, train):
    """The keyword arguments of example/image-classification/common/data.py's get_rec_iter, at
    augmentation level 1 (random crop and mirror; the script's level-3 extras set to 0)."""
    kw = dict(path_imgrec=path, path_imgidx='', label_width=1, mean_r=RGB_MEAN[0], mean_g=RGB_MEAN[1],
              mean_b=RGB_MEAN[2], data_name='data', label_name='softmax_label', data_shape=(3, 28, 28),
              batch_size=batch_size, preprocess_threads=1, num_parts=1, part_index=0)
    if train:
        kw.update(rand_crop=1, max_random_scale=1.0, pad=0, fill_value=127, min_random_scale=1.0,
                  max_aspect_ratio=0.0, random_h=0, random_s=0, random_l=0, max_rotate_angle=0,
                  max_shear_ratio=0.0, rand_mirror=1, shuffle=True)
    else:
        kw.update(rand_crop=False, rand_mirror=False)
    return kw


def test_get_rec_iter_validation_iterator_centre_crops_and_subtracts_the_mean(tmp_path):
    path, rgb = _write_rec(tmp_path)
    it = mx.io.ImageRecordIter(**_get_rec_iter_kwargs(path, 4, train=False))
    assert it.provide_data[0].name == 'data' and it.provide_data[0].shape == (4, 3, 28, 28)
    assert it.provide_label[0].name == 'softmax_label' and it.provide_label[0].shape == (4,)
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 2]           # 10 images, round_batch wraps the last
    order = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1]
    want = rgb[order][:, 2:30, 2:30].transpose(0, 3, 1, 2).astype(np.float32)
    want -= np.array(RGB_MEAN, np.float32)[None, :, None, None]
    got = np.concatenate([b.data[0].asnumpy() for b in batches])
    assert np.array_equal(got, want)
    assert np.concatenate([b.label[0].asnumpy() for b in batches]).tolist() == [i % 4 for i in order]


def test_get_rec_iter_training_iterator_crops_inside_the_image(tmp_path):
    path, rgb = _write_rec(tmp_path)
    it = mx.io.ImageRecordIter(**_get_rec_iter_kwargs(path, 5, train=True))
    mean = np.array(RGB_MEAN, np.float32)[:, None, None]
    seen = 0
    for batch in it:
        for img, label in zip(batch.data[0].asnumpy(), batch.label[0].asnumpy()):
            pixels = (img + mean).round().astype(np.uint8).transpose(1, 2, 0)
            # each crop is a 28 x 28 window of one of the images with that label, maybe mirrored
            found = any(np.array_equal(pixels, cand[y:y + 28, x:x + 28, :][:, ::flip])
                        for k, cand in enumerate(rgb) if k % 4 == label
                        for y in range(5) for x in range(5) for flip in (1, -1))
            assert found
            seen += 1
    assert seen == 10


def test_train_imagenet_level_3_augmentation_is_refused_by_name(tmp_path):
    # train_imagenet.py's defaults (set_data_aug_level(parser, 3)): MXNet rotates, shears and
    # changes aspect and HSL; reflib has none of those and says which setting to switch off
    path, _ = _write_rec(tmp_path)
    kw = _get_rec_iter_kwargs(path, 5, train=True)
    kw.update(max_rotate_angle=10, max_shear_ratio=0.1, max_aspect_ratio=0.25, random_h=36, random_s=50, random_l=50)
    with pytest.raises(MXNetError, match='max_rotate_angle=10 is not implemented'):
        mx.io.ImageRecordIter(**kw)


def test_png_records_decode_without_pil_debug_lines(tmp_path, caplog):
    # the scripts call logging.basicConfig(level=logging.DEBUG); Pillow's PNG reader would log two
    # DEBUG lines per image (IHDR, IDAT) where MXNet's OpenCV prints nothing
    path, _ = _write_rec(tmp_path)
    from reflib import image_codec
    png_log = logging.getLogger('PIL.PngImagePlugin')
    before = png_log.level
    png_log.setLevel(logging.NOTSET)
    image_codec._quiet_png_chunk_log.cache_clear()      # as in a fresh process: not yet decoded
    try:
        with caplog.at_level(logging.DEBUG):
            for _ in mx.io.ImageRecordIter(**_get_rec_iter_kwargs(path, 5, train=False)):
                pass
        assert not [r for r in caplog.records if r.name.startswith('PIL')]
        # a level someone chose is left alone
        png_log.setLevel(logging.DEBUG)
        reader = mx.recordio.MXRecordIO(path, 'r')
        mx.recordio.unpack_img(reader.read())
        reader.close()
        assert png_log.level == logging.DEBUG
    finally:
        png_log.setLevel(before)


def test_score_py_loop_over_a_saved_checkpoint(tmp_path):
    # score.py: load_checkpoint, Module(context=cpu()).bind(for_training=False) on the
    # iterator's provide_data/provide_label, set_params, forward + update_metric per batch
    path, rgb = _write_rec(tmp_path)
    data = mx.sym.Variable('data')
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Flatten(data), num_hidden=6, name='fc'), name='softmax')
    rng = np.random.RandomState(1)
    weight = rng.normal(0, 0.01, (6, 3 * 28 * 28)).astype(np.float32)
    bias = rng.normal(0, 1, 6).astype(np.float32)
    prefix = str(tmp_path / 'model' / 'net')
    (tmp_path / 'model').mkdir()
    mx.model.save_checkpoint(prefix, 0, net, {'fc_weight': mx.nd.array(weight), 'fc_bias': mx.nd.array(bias)}, {})

    it = mx.io.ImageRecordIter(path_imgrec=path, label_width=1, mean_r=RGB_MEAN[0], mean_g=RGB_MEAN[1],
                               mean_b=RGB_MEAN[2], preprocess_threads=1, batch_size=4, data_shape=(3, 28, 28),
                               rand_crop=False, rand_mirror=False)
    sym, arg_params, aux_params = mx.model.load_checkpoint(prefix, 0)
    mod = mx.mod.Module(symbol=sym, context=mx.cpu())
    mod.bind(for_training=False, data_shapes=it.provide_data, label_shapes=it.provide_label)
    mod.set_params(arg_params, aux_params)
    metrics = [mx.metric.create('acc'), mx.metric.create('top_k_accuracy', top_k=2)]
    for batch in it:
        mod.forward(batch, is_train=False)
        for m in metrics:
            mod.update_metric(m, batch.label)

    # the same by hand: 12 rows (the padded batch counts, as in MXNet's update_metric)
    order = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1]
    x = rgb[order][:, 2:30, 2:30].transpose(0, 3, 1, 2).astype(np.float32)
    x -= np.array(RGB_MEAN, np.float32)[None, :, None, None]
    scores = x.reshape(12, -1) @ weight.T + bias
    labels = np.array([i % 4 for i in order])
    top1 = (scores.argmax(1) == labels).mean()
    top2 = np.mean([lab in np.argsort(s)[-2:] for s, lab in zip(scores, labels)])
    assert metrics[0].get() == ('accuracy', pytest.approx(top1))
    assert metrics[1].get() == ('top_k_accuracy_2', pytest.approx(top2))


def test_a_graph_built_in_code_and_loaded_from_mxnets_file_give_the_same_json():
    # common/fit.py, resuming with --load-epoch: assert sym.tojson() == network.tojson(), sym
    # loaded from the checkpoint's -symbol.json.  MXNet writes a node's attrs sorted by key, so
    # reflib must too, whatever order the script passed the parameters in.
    with open(os.path.join(GOLDEN_DIR, 'graphs.json')) as f:
        facts = json.load(f)
    for case, build in (('mlp', graph_defs.mlp), ('fc6', graph_defs.fc6), ('convnet', graph_defs.convnet)):
        mxnet_text = facts[case]['json']
        assert mx.sym.load_json(mxnet_text).tojson() == build(mx).tojson(), case
        got = [list(n.get('attrs', {})) for n in json.loads(build(mx).tojson())['nodes']]
        assert got == [list(n.get('attrs', {})) for n in json.loads(mxnet_text)['nodes']], case
    # symbols/lenet.py's call; MXNet 1.9.1 writes kernel, pool_type, stride
    pool = mx.sym.Pooling(data=mx.sym.Variable('x'), pool_type='max', kernel=(2, 2), stride=(2, 2))
    assert list(json.loads(pool.tojson())['nodes'][-1]['attrs']) == ['kernel', 'pool_type', 'stride']


def test_monitor_rows_as_mxnet_prints_them(caplog):
    # example/python-howto/monitor_weights.py: mx.mon.Monitor(100, norm_stat) given to fit.
    # MXNet 1.9.1 lists the arguments and then the auxiliary states, prints a one-element
    # statistic as a number ('0.5', not '[0.5]') and the name left-aligned in 30 columns.
    data = mx.sym.Variable('data')
    net = mx.sym.SoftmaxOutput(mx.sym.BatchNorm(mx.sym.FullyConnected(data, num_hidden=3, name='fc'), name='bn'),
                               name='softmax')
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.bind(data_shapes=[('data', (4, 5))], label_shapes=[('softmax_label', (4,))])
    mod.init_params(mx.init.Constant(0.5))
    mod.init_optimizer()
    batch = mx.io.DataBatch([mx.nd.array(np.arange(20, dtype=np.float32).reshape(4, 5) / 10)],
                            [mx.nd.array([0, 1, 2, 0])])
    mon = mx.mon.Monitor(1, pattern='fc_weight|bn_gamma|bn_moving_var')
    mod.install_monitor(mon)
    mon.tic()
    mod.forward(batch, is_train=False)
    assert [row[1] for row in mon.toc()] == ['fc_weight', 'bn_gamma', 'bn_moving_var']
    with caplog.at_level(logging.INFO):
        mon.tic()
        mod.forward(batch, is_train=False)
        mon.toc_print()
    assert [r.getMessage() for r in caplog.records][:2] == [
        'Batch: %7d %s %s\t' % (2, 'fc_weight'.ljust(30), '0.5'), 'Batch: %7d %s %s\t' % (2, 'bn_gamma'.ljust(30), '1.0')]
    # a statistic that is a list: each part, the one-element ones as numbers, the rest as arrays
    listing = mx.mon.Monitor(1, stat_func=lambda a: [a.sum(), a], pattern='fc_weight')
    mod.install_monitor(listing)
    listing.tic()
    mod.forward(batch, is_train=False)
    assert listing.toc() == [(1, 'fc_weight', '7.5\t' + str(np.full((3, 5), 0.5, np.float32)) + '\t')]


def test_test_utils_mnist_helpers_read_what_mxnet_would_have_downloaded(tmp_path, monkeypatch, capsys):
    # monitor_weights.py: from mxnet.test_utils import get_mnist_iterator; files in ./data
    import gzip
    monkeypatch.chdir(tmp_path)
    rng = np.random.RandomState(4)
    images, labels = rng.randint(0, 256, (30, 28, 28)), rng.randint(0, 10, 30)
    with pytest.raises(MXNetError, match=r"mnist.zip.*reflib downloads nothing.*'data/mnist.zip'"):
        mx.test_utils.get_mnist_iterator(batch_size=10, input_shape=(784,))
    for split in ('train', 't10k'):
        write_idx('data/%s-images-idx3-ubyte' % split, images)
        write_idx('data/%s-labels-idx1-ubyte' % split, labels)
    train, val = mx.test_utils.get_mnist_iterator(batch_size=10, input_shape=(784,))
    assert capsys.readouterr().err.count('MNISTIter: load 30 images, shuffle=1, shape=(10,784)') == 2
    order = [b.label[0].asnumpy() for b in mx.io.MNISTIter(image='data/train-images-idx3-ubyte',
                                                            label='data/train-labels-idx1-ubyte',
                                                            batch_size=10, flat=True, silent=True)]
    for it in (train, val):                       # both shuffled with MNISTIter's default seed
        got = list(it)
        assert got[0].data[0].shape == (10, 784)
        assert all(np.array_equal(b.label[0].asnumpy(), want) for b, want in zip(got, order))
    _, val4 = mx.test_utils.get_mnist_iterator(batch_size=10, input_shape=(1, 28, 28))
    assert val4.provide_data[0].shape == (10, 1, 28, 28)

    # get_mnist: the .gz files in the working folder, images / 255 as float32 (N, 1, 28, 28)
    with pytest.raises(MXNetError, match="train-labels-idx1-ubyte.gz"):
        mx.test_utils.get_mnist()
    for split in ('train', 't10k'):
        write_idx('%s-images-idx3-ubyte.gz' % split, images, gzip.open)
        write_idx('%s-labels-idx1-ubyte.gz' % split, labels, gzip.open)
    mnist = mx.test_utils.get_mnist()
    assert sorted(mnist) == ['test_data', 'test_label', 'train_data', 'train_label']
    assert mnist['train_data'].dtype == np.float32 and mnist['train_data'].shape == (30, 1, 28, 28)
    assert np.array_equal(mnist['test_data'][:, 0], images.astype(np.float32) / 255)
    assert mnist['train_label'].dtype == np.int8 and mnist['train_label'].tolist() == labels.tolist()
    assert mx.test_utils.download('http://x/y/train-images-idx3-ubyte.gz') == 'train-images-idx3-ubyte.gz'


def test_get_cifar10_reads_what_mxnet_would_have_downloaded(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(mx.MXNetError, match=r"cifar10.zip.*put that file at 'data/cifar10.zip'"):
        mx.test_utils.get_cifar10()
    with zipfile.ZipFile(tmp_path / 'data' / 'cifar10.zip', 'w') as zf:
        for name in ('train.rec', 'test.rec', 'train.lst', 'test.lst'):
            zf.writestr('cifar/' + name, name)
    mx.test_utils.get_cifar10()
    assert (tmp_path / 'data' / 'cifar' / 'test.lst').read_text() == 'test.lst'
