"""Block.save / Block.load (reflib/gluon/model_file.py) against MXNet 1.9.1: the files MXNet
wrote (golden/block_save/, from golden/gen_block_save.py) load into networks reflib builds
afresh -- other global names, children kept under keys made of those names -- and give
MXNet's outputs from the saved graphs; reflib's own files round-trip the same way and have
MXNet's layout."""

import json
import os
import shutil
import sys

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
from block_save_nets import NETS, batch, build, fill  # noqa: E402

with open(os.path.join(HERE, 'golden', 'block_save.json')) as _f:
    GOLDEN = json.load(_f)


@pytest.mark.parametrize('kind', NETS)
def test_mxnet_s_files_load_into_a_network_built_afresh(kind, tmp_path):
    build(mx, kind)                     # move the name counters on: other names than MXNet's
    net = build(mx, kind)
    for ext in ('-model.json', '-model.params'):
        shutil.copy(os.path.join(HERE, 'golden', 'block_save', kind + ext), tmp_path / (kind + ext))
    net.load(str(tmp_path / kind))
    np.testing.assert_allclose(net(mx.nd.array(batch())).asnumpy(), GOLDEN[kind], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('kind', NETS)
def test_a_saved_network_loads_back_with_its_graphs_and_mxnet_s_layout(kind, tmp_path):
    net = build(mx, kind)
    net.initialize()
    net.hybridize()
    x = mx.nd.array(batch())
    net(x)
    fill(mx, net)
    want = net(x).asnumpy()
    net.save(str(tmp_path / 'net'))
    with open(tmp_path / 'net-model.json') as f:
        mine = json.load(f)
    with open(os.path.join(HERE, 'golden', 'block_save', kind + '-model.json')) as f:
        theirs = json.load(f)

    def layout(entry):
        """The block keys, flags and formats, and how many children: not the names (the
        custom network's child keys are made of them) nor the graphs' JSON."""
        shown = {}
        for key, value in entry.items():
            if key == 'children':
                shown[key] = len(value)
            elif key in ('hybridized', 'in_format', 'out_format'):
                shown[key] = value
            elif isinstance(value, dict):
                shown[key] = layout(value)
            elif key != 'orig_name':
                shown[key] = type(value).__name__
        return shown
    assert layout(mine) == layout(theirs)

    again = build(mx, kind)
    again.load(str(tmp_path / 'net'))
    np.testing.assert_array_equal(again(x).asnumpy(), want)


def test_a_network_built_differently_is_refused_by_name(tmp_path):
    net = build(mx, 'sequential')
    net.initialize()
    net.hybridize()
    net(mx.nd.array(batch()))
    net.save(str(tmp_path / 'net'))
    other = build(mx, 'custom')
    with pytest.raises(MXNetError, match='has no entry'):
        other.load(str(tmp_path / 'net'))
    with pytest.raises(MXNetError, match='cannot read'):
        other.load(str(tmp_path / 'missing'))
