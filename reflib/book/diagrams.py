"""The book's fixed illustrations: updating a bound weight in place or rebinding its name
(chapter 5), data against model parallelism (chapter 6), Module's
states and where its parameters live (chapter 8), BaseModule.fit's call sequence
(chapter 9), one KVStore round (chapter 11), a distributed job's key parts (chapter 12), an
unrolled recurrent cell in outline (chapter 15).

They draw what reflib's code does, not live objects; each chapter shows the code they
summarise next to them.
"""

from .drawing import DEVICE_COLOURS, GRADIENT_RED, WEIGHT_BLUE, digraph

_BOX = {'shape': 'box', 'style': 'rounded,filled', 'fillcolor': 'white'}


def in_place_vs_rebinding():
    """``w -= lr*g`` writes into the buffer the executor reads; ``w = w - lr*g`` only moves
    the Python name ``w`` to a new array that nobody reads."""
    dot = digraph(rankdir='LR', nodesep='0.3', edge={'arrowsize': '1'})
    dot.node('exe', 'executor\n(arg_arrays[1])', shape='box3d')
    dot.node('w', 'w', shape='plaintext', fontname='Courier')
    dot.node('h_old', 'NDArray fc1_weight', shape='box', style='rounded,filled', fillcolor='#dbe7f6')
    dot.node('b_old', 'bound buffer\nread by every forward', shape='box', style='filled', fillcolor='#f6e7d3')
    dot.node('h_new', 'NDArray (new)', shape='box', style='rounded,filled', fillcolor='#f6d3d3')
    dot.node('b_new', 'new buffer\nread by nobody', shape='box', style='filled', fillcolor='#f6d3d3')
    dot.edge('exe', 'h_old')
    dot.edge('h_old', 'b_old', label='w -= lr*g\nwrites here')
    dot.edge('w', 'h_old', label='before', style='dashed')
    dot.edge('w', 'h_new', label='after w = w - lr*g', color='red', fontcolor='red')
    dot.edge('h_new', 'b_new')
    return dot


def data_and_model_parallelism():
    """Split the batch (one copy of the model per device, gradients summed) next to split
    the model (one part of the model per device, activations and gradients crossing)."""
    dot = digraph(rankdir='LR', fontsize='12', nodesep='0.3', node=_BOX, edge={'color': '#666666'})
    crossing = {'color': GRADIENT_RED, 'penwidth': '2'}
    with dot.subgraph(name='cluster_data') as d:
        d.attr(label='split the batch (chapters 7-8)', style='rounded', color='#999999')
        d.node('db', 'batch\n8 rows', shape='note', fillcolor='#eeeeee')
        d.node('d0', 'layers 1-5\non cpu(0)', fillcolor=DEVICE_COLOURS[0])
        d.node('d1', 'layers 1-5\non cpu(1)', fillcolor=DEVICE_COLOURS[1])
        d.node('kv', 'sum the\ngradients', fillcolor=DEVICE_COLOURS[2])
        d.edge('db', 'd0', label='rows 0-3')
        d.edge('db', 'd1', label='rows 4-7')
        d.edge('d0', 'kv', **crossing)
        d.edge('d1', 'kv', **crossing)
    with dot.subgraph(name='cluster_model') as m:
        m.attr(label='split the model (this chapter)', style='rounded', color='#999999')
        m.node('mb', 'batch\n8 rows', shape='note', fillcolor='#eeeeee')
        m.node('m0', 'layers 1-2\non cpu(0)', fillcolor=DEVICE_COLOURS[0])
        m.node('m1', 'layers 3-5\non cpu(1)', fillcolor=DEVICE_COLOURS[1])
        m.edge('mb', 'm0', label='8 rows')
        m.edge('m0', 'm1', label='activations  →\n←  gradients', fontcolor=GRADIENT_RED, dir='both',
               **crossing)
    return dot


def module_states():
    """Module's state machine: what its three flags say, which calls each state allows, and
    the calls that move it from one state to the next."""
    dot = digraph(nodesep='0.45', ranksep='0.5', node={'shape': 'box', 'style': 'rounded,filled'},
                  edge={'arrowsize': '0.7'})

    def state(key, title, flags_on, allowed, colour):
        # one flag and one call per line: the boxes stay narrow, and each cell keeps its
        # lines apart (an underscore never touches the line below)
        rows = ''.join('<tr><td align="left">%s</td></tr>' % f for f in flags_on)
        calls = ''.join('<tr><td align="left"><font color="%s">%s</font></td></tr>'
                        % (WEIGHT_BLUE, c) for c in allowed)
        dot.node(key, '<<table border="0" cellspacing="0" cellpadding="1"><tr><td><b>%s</b></td></tr>%s'
                      '<tr><td align="left"><i>allows</i></td></tr>'
                      '%s</table>>' % (title, rows, calls), fillcolor=colour)

    state('created', 'created', ['all flags False'], ['bind', 'Module.load'], '#eeeeee')
    state('bound', 'bound', ['binded'], ['init_params', 'set_params', 'reshape', 'data_shapes'],
          DEVICE_COLOURS[0])
    state('params', 'parameters set', ['binded', 'params_initialized'],
          ['forward, backward', 'get_outputs', 'get_params', 'predict, score', 'save_checkpoint'],
          DEVICE_COLOURS[2])
    state('ready', 'ready to train', ['binded', 'params_initialized', 'optimizer_initialized'],
          ['update', 'save_optimizer_states', 'fit'], DEVICE_COLOURS[1])
    state('loaded', 'parameters, unbound', ['params_initialized', '(not binded)'], ['bind'],
          DEVICE_COLOURS[4])

    dot.edge('created', 'bound', label=' bind()')
    dot.edge('bound', 'params', label=' init_params()\\l set_params()\\l')
    dot.edge('params', 'ready', label=' init_optimizer()')
    dot.edge('created', 'loaded', label=' Module.load()', style='dashed')
    dot.edge('created:w', 'params:w', label='bind(\\lshared_module=...)\\l', style='dashed')
    # the two calls between "parameters set" and "parameters, unbound" run side by side
    dot.edge('loaded', 'params', label='bind()', style='dashed')
    dot.edge('params', 'loaded', label='bind(\\lforce_rebind=True)\\l', style='dashed',
             color='#888888', fontcolor='#666666')
    dot.edge('ready:e', 'ready:e', label='forward, backward,\\lupdate, update_metric\\l')
    with dot.subgraph() as row:
        row.attr(rank='same')
        row.node('params')
        row.node('loaded')
    return dot


def module_parameter_copies():
    """Where a Module's parameters live: the host copies, one copy per device in the executor
    group, the KVStore's own copy, and the calls that move values between them."""
    dot = digraph(nodesep='0.6', ranksep='1.6', node={'shape': 'box', 'style': 'rounded,filled', 'width': '1.9'},
                  edge={'arrowsize': '0.7'})
    dot.node('host', 'host copies\n_arg_params, _aux_params\n(CPU)', fillcolor='#eeeeee')
    with dot.subgraph(name='cluster_dev') as devs:
        devs.attr(label='executor group', style='rounded', color='#999999')
        devs.node('d0', 'device 0\nweights, gradients', fillcolor=DEVICE_COLOURS[0])
        devs.node('d1', 'device 1\nweights, gradients', fillcolor=DEVICE_COLOURS[1])
    dot.node('kv', 'KVStore\n(several devices only)\nits own copy of each weight', fillcolor=DEVICE_COLOURS[2])
    # host -> devices and back
    dot.edge('host', 'd1', label='init_params, set_params:\ncopy to every device')
    dot.edge('host', 'd0')
    dot.edge('d1', 'host', style='dashed', color='#7f6000')
    dot.edge('d0', 'host', label='get_params, only if _params_dirty:\naverage over the devices',
             style='dashed', color='#7f6000', fontcolor='#7f6000')
    # devices <-> store
    dot.edge('d0', 'kv', label='update: push gradients', color=GRADIENT_RED, fontcolor=GRADIENT_RED)
    dot.edge('d1', 'kv', color=GRADIENT_RED)
    dot.edge('kv', 'd1', label='update: pull new weights\n(or the summed gradients)', color=WEIGHT_BLUE,
             fontcolor=WEIGHT_BLUE)
    dot.edge('kv', 'd0', color=WEIGHT_BLUE)
    return dot


def fit_flowchart():
    """The call sequence of BaseModule.fit: set-up, the loop over batches, the end of an
    epoch; each box names the chapter that explains the call."""
    dot = digraph(nodesep='0.25', ranksep='0.22',
                  node={'shape': 'box', 'style': 'rounded,filled', 'fillcolor': '#eeeeee', 'width': '2.6'})
    setup = [('bind', 'bind(train_data.provide_data,\nprovide_label)   ch. 8'),
             ('init', 'init_params(initializer,\narg_params, aux_params)   ch. 8'),
             ('opt', 'init_optimizer(kvstore, optimizer)   ch. 8, 11')]
    batch = [('fb', 'forward_backward(data_batch)   ch. 5, 7', '#cfe0f5'),
             ('upd', 'update()   ch. 8, 11', '#cfe0f5'),
             ('met', 'update_metric(eval_metric,\ndata_batch.label)', '#f8dcc0'),
             ('next', 'next_data_batch = next(data_iter)\nprepare(next_data_batch)', '#f8dcc0'),
             ('bcb', 'batch_end_callback(BatchEndParam)', '#d4ecd4')]
    epoch = [('log', 'log Train-metric, Time cost', '#eeeeee'),
             ('sync', 'get_params() + set_params()\n(average over devices)', '#f8dcc0'),
             ('ecb', 'epoch_end_callback(epoch, symbol,\narg_params, aux_params)', '#d4ecd4'),
             ('score', 'score(eval_data, validation_metric)\n-> eval_end_callback', '#d4ecd4'),
             ('reset', 'train_data.reset()', '#eeeeee')]
    for name, label in setup:
        dot.node(name, label)
    dot.node('start', 'eval_metric.reset()\nfetch the first batch')
    for cluster, title, rows in (('cluster_batch', 'for each batch', batch),
                                 ('cluster_epoch', 'at the end of each epoch', epoch)):
        with dot.subgraph(name=cluster) as box:
            box.attr(label=title, style='rounded', color='#888888')
            for name, label, colour in rows:
                box.node(name, label, fillcolor=colour)
    chain = ['bind', 'init', 'opt', 'start'] + [b[0] for b in batch] + [e[0] for e in epoch]
    for a, b in zip(chain, chain[1:]):
        dot.edge(a, b)
    dot.edge('bcb', 'fb', label=' more batches', style='dashed', constraint='false')
    dot.edge('reset', 'start', label=' next epoch', style='dashed', constraint='false')
    return dot


def kvstore_round(devices=3):
    """One KVStore round for one key: every device pushes its gradient, the store merges them,
    its updater changes the one stored weight in place, every device pulls it back."""
    dot = digraph(nodesep='0.25', ranksep='0.45', node=_BOX)
    colours = [DEVICE_COLOURS[0], DEVICE_COLOURS[1], '#d9d2e9']
    for d in range(devices):
        dot.node('g%d' % d, 'device %d\ngrad g%d' % (d, d), fillcolor=colours[d % 3])
        dot.node('w%d' % d, 'device %d\nweight w' % d, fillcolor=colours[d % 3])
    with dot.subgraph(name='cluster_store') as s:
        s.attr(label="KVStore  (key 'fc1_weight')", style='rounded', color='#999999')
        s.node('merge', 'merge\n%s' % ' + '.join('g%d' % d for d in range(devices)), fillcolor=DEVICE_COLOURS[2])
        s.node('update', 'updater(key, merged, stored)\nw  <-  w - lr * rescale * merged', fillcolor='#fff2cc')
        s.node('stored', 'stored weight w\n(one copy)', shape='cylinder', fillcolor='#eeeeee')
        s.edge('merge', 'update')
        s.edge('update', 'stored', label='in place')
    for d in range(devices):
        dot.edge('g%d' % d, 'merge', label='push' if d == 1 else '', color=GRADIENT_RED)
        dot.edge('stored', 'w%d' % d, label='pull' if d == 1 else '', color='#1155cc')
    return dot


def distributed_job(parts, workers=2, servers=2):
    """A dist_sync job: workers on the left, servers on the right listing the parts of each
    key they hold; ``parts`` maps a key's name to its (server, start, stop) parts."""
    dot = digraph(rankdir='LR', nodesep='0.3', node={'fontsize': '11'}, edge={'fontsize': '11'})
    for w in range(workers):
        dot.node('w%d' % w, 'worker %d\n(rank %d)' % (w, w), shape='box', style='filled', fillcolor='#dbe9f6')
    for s in range(servers):
        held = ['%s [%d:%d]' % (name, a, b) for name, places in parts.items() for (t, a, b) in places if t == s]
        dot.node('s%d' % s, '{server %d (rank %d)|%s}' % (s, workers + s, '\\l'.join(held) + '\\l'),
                 shape='record', style='filled', fillcolor='#fde9d0')
        for w in range(workers):
            dot.edge('w%d' % w, 's%d' % s, label='push / pull' if w == s == 0 else '', dir='both',
                     color='#777777')
    return dot


def unrolled_steps(steps=3):
    """A recurrent cell unrolled over ``steps`` steps, in outline: one box per copy of the
    step, the states ``h`` and ``c`` passed from each copy to the next, every copy reading
    its own slice of the data and the same four parameters."""
    dot = digraph(rankdir='LR', nodesep='0.35', ranksep='0.5', node=_BOX, edge={'color': '#666666'})
    dot.node('begin', 'begin states\n(zeros)', shape='plaintext')
    dot.node('weights', 'i2h, h2h\nweights and biases', fillcolor='#dbe7f6')
    previous = 'begin'
    for t in range(steps):
        dot.node('x%d' % t, 'data[:, %d]' % t, shape='plaintext', fontname='Courier')
        dot.node('s%d' % t, 'step %d\n14 operators' % t, fillcolor='#fdd9a8')
        dot.node('h%d' % t, 'h%d' % t, shape='plaintext', fontname='Courier')
        dot.edge('x%d' % t, 's%d' % t)
        dot.edge(previous, 's%d' % t, label='h, c', fontname='Courier', penwidth='2')
        dot.edge('weights', 's%d' % t, style='dashed', color=WEIGHT_BLUE)
        dot.edge('s%d' % t, 'h%d' % t)
        previous = 's%d' % t
    return dot
