"""mx.viz: plot_network and print_summary, against what MXNet 1.9.1 draws and prints.

Every expected text below was produced by real MXNet 1.9.1 (``mx.viz``) on the same
graphs, built from tests/golden/graph_defs.py.
"""

import os
import shutil
import sys

import numpy as np
import pytest

import reflib
import reflib as mx

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden')
sys.path.insert(0, GOLDEN)
import graph_defs as G  # noqa: E402

graphviz = pytest.importorskip('graphviz')

needs_conv = pytest.mark.skipif(
    not {'Convolution', 'BatchNorm', 'Pooling', 'Flatten'} <= set(reflib.operator.list_operators()),
    reason='the conv net needs Convolution, BatchNorm, Pooling and Flatten')


def lines(text):
    """Non-empty lines, stripped: graphviz releases differ in indentation and the final newline."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def statements(text):
    """The dot statements of a source, one string each (a label's line break kept)."""
    out = []
    for line in lines(text):
        if out and (out[-1].count('"') - out[-1].count('\\"')) % 2 == 1:
            out[-1] += '\n' + line  # still inside a quoted label
        else:
            out.append(line)
    return out


def node_statement(text, name):
    return [st for st in statements(text) if st.startswith(name + ' [')][0]


# MXNet 1.9.1: mx.viz.plot_network(mlp, shape={'data': (4, 20)}).source
MLP_SOURCE = '''
digraph plot {
	data [label=data fillcolor="#8dd3c7" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	fc1 [label="FullyConnected
128" fillcolor="#fb8072" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	relu1 [label="Activation
relu" fillcolor="#ffffb3" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	fc2 [label="FullyConnected
64" fillcolor="#fb8072" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	relu2 [label="Activation
relu" fillcolor="#ffffb3" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	fc3 [label="FullyConnected
10" fillcolor="#fb8072" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	softmax_label [label=softmax_label fillcolor="#8dd3c7" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	softmax [label=softmax fillcolor="#fccde5" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	fc1 -> data [label=20 arrowtail=open dir=back]
	relu1 -> fc1 [label=128 arrowtail=open dir=back]
	fc2 -> relu1 [label=128 arrowtail=open dir=back]
	relu2 -> fc2 [label=64 arrowtail=open dir=back]
	fc3 -> relu2 [label=64 arrowtail=open dir=back]
	softmax -> fc3 [label=10 arrowtail=open dir=back]
	softmax -> softmax_label [label="" arrowtail=open dir=back]
}
'''

# MXNet 1.9.1: mx.viz.print_summary(mlp, shape={'data': (4, 20)}), trailing blanks stripped
MLP_SUMMARY = '''
________________________________________________________________________________________________________________________
Layer (type)                                        Output Shape            Param #     Previous Layer
========================================================================================================================
data(null)                                          20                      0
________________________________________________________________________________________________________________________
fc1(FullyConnected)                                 128                     2688        data
________________________________________________________________________________________________________________________
relu1(Activation)                                   128                     0           fc1
________________________________________________________________________________________________________________________
fc2(FullyConnected)                                 64                      8256        relu1
________________________________________________________________________________________________________________________
relu2(Activation)                                   64                      0           fc2
________________________________________________________________________________________________________________________
fc3(FullyConnected)                                 10                      650         relu2
________________________________________________________________________________________________________________________
softmax(SoftmaxOutput)                              10                      0           fc3
========================================================================================================================
Total params: 11594
________________________________________________________________________________________________________________________
'''

# MXNet 1.9.1: the same without shapes: no shape column, and FullyConnected counts only
# its bias (its input width is unknown)
MLP_SUMMARY_NO_SHAPE_PARAMS = ['0', '128', '0', '64', '0', '10', '0']
MLP_SUMMARY_NO_SHAPE_TOTAL = 'Total params: 202'

# MXNet 1.9.1: mx.viz.print_summary(convnet, shape={'data': (2, 3, 8, 8)}, line_length=80)
CONV_SUMMARY = '''
________________________________________________________________________________
Layer (type)                       Output Shape    Param # Previous Layer
================================================================================
data(null)                         3x8x8           0
________________________________________________________________________________
conv1(Convolution)                 4x8x8           112     data
________________________________________________________________________________
bn1(BatchNorm)                     4x8x8           8       conv1
________________________________________________________________________________
activation0(Activation)            4x8x8           0       bn1
________________________________________________________________________________
pool1(Pooling)                     4x4x4           0       activation0
________________________________________________________________________________
flatten0(Flatten)                  64              0       pool1
________________________________________________________________________________
fc(FullyConnected)                 5               325     flatten0
________________________________________________________________________________
softmax(SoftmaxOutput)             5               0       fc
================================================================================
Total params: 445
________________________________________________________________________________
'''


def summary_lines(capsys):
    out = capsys.readouterr().out
    return out, [line.rstrip() for line in out.splitlines()]


# ------------------------------------------------------------------ the module
def test_viz_is_the_visualization_module():
    assert mx.viz is mx.visualization
    assert callable(mx.viz.plot_network) and callable(mx.viz.print_summary)


# ---------------------------------------------------------------- plot_network
def test_mlp_source_matches_mxnet():
    dot = mx.viz.plot_network(G.mlp(mx), shape={'data': G.MLP_DATA_SHAPE})
    assert isinstance(dot, graphviz.Digraph)
    assert lines(dot.source) == lines(MLP_SOURCE)


def test_mlp_labels_and_hidden_weights():
    dot = mx.viz.plot_network(G.mlp(mx))
    src = dot.source
    assert dot.name == 'plot' and dot.format == 'pdf'
    assert 'label="FullyConnected\n128"' in src
    assert 'label="Activation\nrelu"' in src
    assert 'data [label=data fillcolor="#8dd3c7"' in src and 'shape=oval' in src
    assert '_weight' not in src and '_bias' not in src
    # without shapes every edge label is empty, and edges point back from user to input
    assert 'fc1 -> data [label="" arrowtail=open dir=back]' in src
    assert 'label=20' not in src


def test_shown_weights_get_edges_but_no_declared_node():
    src = mx.viz.plot_network(G.mlp(mx), shape={'data': G.MLP_DATA_SHAPE}, hide_weights=False).source
    # MXNet labels an edge with the tensor's shape minus its first dimension, weights included
    assert 'fc1 -> fc1_weight [label=20 arrowtail=open dir=back]' in lines(src)
    assert 'fc1 -> fc1_bias [label="" arrowtail=open dir=back]' in lines(src)
    assert not any(line.startswith('fc1_weight [') for line in lines(src))


def test_title_format_and_node_attrs():
    dot = mx.viz.plot_network(G.mlp(mx), title='mlp', save_format='svg',
                              node_attrs={'shape': 'ellipse', 'fixedsize': 'false'})
    assert dot.name == 'mlp' and dot.format == 'svg'
    assert lines(dot.source)[0] == 'digraph mlp {'
    assert node_statement(dot.source, 'fc1') == (
        'fc1 [label="FullyConnected\n128" fillcolor="#fb8072" fixedsize=false height=0.8034 '
        'shape=ellipse style=filled width=1.3]')
    # variables stay ovals whatever node_attrs says
    assert 'shape=oval' in node_statement(dot.source, 'data')


def test_dtype_labels():
    src = mx.viz.plot_network(G.mlp(mx), shape={'data': G.MLP_DATA_SHAPE},
                              dtype={'data': np.float32}).source
    assert 'fc1 -> data [label="20(float32)" arrowtail=open dir=back]' in lines(src)
    src = mx.viz.plot_network(G.mlp(mx), dtype={'data': np.float16}).source
    assert 'fc1 -> data [label="(float16)" arrowtail=open dir=back]' in lines(src)


def test_generic_operators_are_labelled_with_the_node_name():
    # MXNet 1.9.1 draws c = 2 * a + b like this
    src = mx.viz.plot_network(G.two_a_plus_b(mx), shape={'a': (2, 3), 'b': (2, 3)}).source
    assert lines(src) == lines('''
        digraph plot {
        a [label=a fillcolor="#8dd3c7" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
        _mulscalar0 [label=_mulscalar0 fillcolor="#fccde5" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
        b [label=b fillcolor="#8dd3c7" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
        _plus0 [label=_plus0 fillcolor="#fccde5" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
        _mulscalar0 -> a [label=3 arrowtail=open dir=back]
        _plus0 -> _mulscalar0 [label=3 arrowtail=open dir=back]
        _plus0 -> b [label=3 arrowtail=open dir=back]
        }''')


def test_every_registered_operator_name_can_be_drawn():
    # a node of each kind gets a box; ops without a special label show the node's name
    a = mx.sym.Variable('a')
    net = mx.sym.Group([mx.sym.sum(a, name='s'), mx.sym.transpose(a, name='t'),
                        mx.sym.dot(a, a, name='d')])
    src = lines(mx.viz.plot_network(net, shape={'a': (3, 3)}).source)
    for name in ('s', 't', 'd'):
        assert '%s [label=%s fillcolor="#fccde5" fixedsize=true height=0.8034 shape=box ' \
               'style=filled width=1.3]' % (name, name) in src
    assert 'd -> a [label=3 arrowtail=open dir=back]' in src
    assert src.count('d -> a [label=3 arrowtail=open dir=back]') == 2


def test_incomplete_shapes_raise():
    with pytest.warns(UserWarning):
        with pytest.raises(ValueError, match='Input shape is incomplete'):
            mx.viz.plot_network(G.partial_group(mx), shape={'data': (2, 3)})


def test_not_a_symbol():
    with pytest.raises(TypeError):
        mx.viz.plot_network('data')


@needs_conv
def test_convnet_labels_and_shapes():
    net = G.convnet(mx)
    source = mx.viz.plot_network(net, shape={'data': G.CONV_DATA_SHAPE}).source
    style = ' fixedsize=true height=0.8034 shape=box style=filled width=1.3]'
    # MXNet 1.9.1: a stride left at its default shows as "1"; BatchNorm and Flatten show names
    assert node_statement(source, 'conv1') == \
        'conv1 [label="Convolution\n3x3/1, 4" fillcolor="#fb8072"' + style
    assert node_statement(source, 'pool1') == \
        'pool1 [label="Pooling\nmax, 2x2/2x2" fillcolor="#80b1d3"' + style
    assert node_statement(source, 'bn1') == 'bn1 [label=bn1 fillcolor="#bebada"' + style
    assert node_statement(source, 'flatten0') == 'flatten0 [label=flatten0 fillcolor="#fdb462"' + style
    edges = [line for line in lines(source) if '->' in line]
    assert edges == [
        'conv1 -> data [label="3x8x8" arrowtail=open dir=back]',
        'bn1 -> conv1 [label="4x8x8" arrowtail=open dir=back]',
        'activation0 -> bn1 [label="4x8x8" arrowtail=open dir=back]',
        'pool1 -> activation0 [label="4x8x8" arrowtail=open dir=back]',
        'flatten0 -> pool1 [label="4x4x4" arrowtail=open dir=back]',
        'fc -> flatten0 [label=64 arrowtail=open dir=back]',
        'softmax -> fc [label=5 arrowtail=open dir=back]',
        'softmax -> softmax_label [label="" arrowtail=open dir=back]',
    ]
    src = mx.viz.plot_network(net).source
    assert 'label="Convolution\n3x3/1, 4"' in src and 'label="Pooling\nmax, 2x2/2x2"' in src
    assert 'moving' not in src and 'gamma' not in src
    src = mx.viz.plot_network(net, hide_weights=False).source
    assert 'bn1 -> bn1_moving_var [label="" arrowtail=open dir=back]' in lines(src)


@pytest.mark.skipif(shutil.which('dot') is None, reason="graphviz's dot program is not installed")
@pytest.mark.parametrize('build', [G.mlp, G.two_a_plus_b,
                                   pytest.param(G.convnet, marks=needs_conv)])
def test_source_renders_with_dot(build, tmp_path):
    net = build(mx)
    shapes = {'data': (2, 3, 8, 8)} if build is G.convnet else \
        {'a': (2, 3), 'b': (2, 3)} if build is G.two_a_plus_b else {'data': G.MLP_DATA_SHAPE}
    dot = mx.viz.plot_network(net, shape=shapes, save_format='svg', hide_weights=False)
    path = dot.render(filename='net', directory=str(tmp_path), cleanup=True)
    assert os.path.exists(path) and path.endswith('.svg')
    with open(path) as f:
        svg = f.read()
    assert '<svg' in svg
    if build is G.mlp:
        # the label's line break became two text lines
        assert '>FullyConnected</text>' in svg and '>128</text>' in svg


# --------------------------------------------------------------- print_summary
def test_mlp_summary_matches_mxnet(capsys):
    mx.viz.print_summary(G.mlp(mx), shape={'data': G.MLP_DATA_SHAPE})
    out, got = summary_lines(capsys)
    assert got == MLP_SUMMARY.strip('\n').splitlines()
    # every rule and row is padded to the full line length, as in MXNet
    assert all(len(line) == 120 for line in out.splitlines() if not line.startswith('Total'))


def test_mlp_summary_without_shapes(capsys):
    mx.viz.print_summary(G.mlp(mx))
    _, got = summary_lines(capsys)
    rows = [line for line in got if '(' in line][1:]  # the layers, not the header
    assert [row[:52].rstrip() for row in rows] == [
        'data(null)', 'fc1(FullyConnected)', 'relu1(Activation)', 'fc2(FullyConnected)',
        'relu2(Activation)', 'fc3(FullyConnected)', 'softmax(SoftmaxOutput)']
    assert all(row[52:76].strip() == '' for row in rows)
    assert [row[76:88].strip() for row in rows] == MLP_SUMMARY_NO_SHAPE_PARAMS
    assert MLP_SUMMARY_NO_SHAPE_TOTAL in got


def test_summary_layout_options(capsys):
    # MXNet 1.9.1: fields are cut at their column's end; absolute positions when the last > 1
    mx.viz.print_summary(G.fc6(mx), shape={'data': G.FC6_DATA_SHAPE}, line_length=30)
    _, got = summary_lines(capsys)
    assert got[1] == 'Layer (type) OutputParPrevious'
    assert got[5] == 'fc(FullyConne6     30 data'
    mx.viz.print_summary(G.fc6(mx), shape={'data': G.FC6_DATA_SHAPE}, line_length=60,
                         positions=[20, 30, 40, 60])
    _, got = summary_lines(capsys)
    assert got[1] == 'Layer (type)        Output ShaParam #   Previous Layer'


def test_summary_lists_several_previous_layers_and_skips_other_inputs(capsys):
    # MXNet 1.9.1: only the graph's first input is a layer; c = 2 * a + b lists b nowhere
    mx.viz.print_summary(G.two_a_plus_b(mx), shape={'a': (2, 3), 'b': (2, 3)}, line_length=60)
    _, got = summary_lines(capsys)
    assert got == [
        '_' * 60,
        'Layer (type)              Output ShapeParam Previous Layer',
        '=' * 60,
        'a(null)                   3           0',
        '_' * 60,
        '_mulscalar0(_mul_scalar)  3           0     a',
        '_' * 60,
        '_plus0(elemwise_add)      3           0     _mulscalar0',
        '=' * 60,
        'Total params: 0',
        '_' * 60,
    ]
    # ... and a FullyConnected fed by such an input counts its bias only (MXNet: 22)
    mx.viz.print_summary(G.partial_group(mx), shape={'data': (2, 3), 'other': (2, 4)})
    _, got = summary_lines(capsys)
    assert 'Total params: 22' in got
    a = mx.sym.Variable('a')
    mx.viz.print_summary(mx.sym.elemwise_add(mx.sym.relu(a, name='r'), mx.sym.exp(a, name='e'),
                                             name='add'), shape={'a': (2, 3)})
    _, got = summary_lines(capsys)
    add = got.index('add(elemwise_add)                                   3                       0'
                    '           r')
    assert got[add + 1] == ' ' * 88 + 'e'


def test_summary_incomplete_shape_raises():
    with pytest.warns(UserWarning):
        with pytest.raises(ValueError, match='Input shape is incomplete'):
            mx.viz.print_summary(G.partial_group(mx), shape={'data': (2, 3)})


@needs_conv
def test_convnet_summary_matches_mxnet(capsys):
    # BatchNorm counts gamma and beta (2 x 4), not its moving mean and variance
    mx.viz.print_summary(G.convnet(mx), shape={'data': G.CONV_DATA_SHAPE}, line_length=80)
    _, got = summary_lines(capsys)
    assert got == CONV_SUMMARY.strip('\n').splitlines()


@pytest.mark.skipif('Convolution' not in reflib.operator.list_operators(), reason='needs Convolution')
def test_param_counting_rules(capsys):
    # MXNet 1.9.1 counts: grouped convolution in*out/groups*k*k (+ out for the bias),
    # FullyConnected from the first non-batch dimension of its input only (16 + 1) * 7
    data = mx.sym.Variable('data')
    c = mx.sym.Convolution(data, kernel=(3, 3), num_filter=16, num_group=2, no_bias=True, name='c')
    fc = mx.sym.FullyConnected(c, num_hidden=7, name='fc')
    mx.viz.print_summary(fc, shape={'data': (1, 32, 9, 9)})
    _, got = summary_lines(capsys)
    counts = {line.split('(')[0]: line[76:88].strip() for line in got[3:] if '(' in line}
    assert counts == {'data': '0', 'c': '2304', 'fc': '119'}
    assert 'Total params: 2423' in got


def test_the_casts_of_mixed_precision_are_not_drawn_as_mxnet_does_not_draw_them():
    """MXNet 1.9.1's plot_network draws what tojson() writes: without amp_cast nodes."""
    from reflib.contrib import amp
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=3, name='fc'),
                               name='softmax')
    half = amp.convert_symbol(net, target_dtype='float16')
    assert 'amp_cast' in half.tojson(remove_amp_cast=False)
    source = mx.viz.plot_network(half, shape={'data': (2, 4)}).source
    assert 'amp_cast' not in source
    assert source == mx.viz.plot_network(net, shape={'data': (2, 4)}).source
