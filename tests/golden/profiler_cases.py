"""One short training script under the profiler, in MXNet 1.9.1 (gen_profiler.py records
profiler.json) and in reflib (test_profiler.py): which names each category of the trace and
of the aggregate table holds, timings aside."""

import json
import os

import numpy as np


def _script(mx):
    x = mx.nd.ones((8, 8))
    y = mx.nd.dot(x, x)
    z = (y + 1).sqrt()
    z = mx.nd.relu(z - 2)
    data = mx.sym.var('data')
    net = mx.sym.FullyConnected(data, num_hidden=4, name='fc1')
    net = mx.sym.Activation(net, act_type='tanh', name='act')
    net = mx.sym.SoftmaxOutput(net, name='sm')
    exe = net.simple_bind(mx.cpu(), data=(2, 8))
    exe.arg_dict['data'][:] = np.arange(16).reshape(2, 8) / 16.0
    exe.forward(is_train=True)
    exe.backward()
    kv = mx.kv.create('local')
    kv.init(3, mx.nd.ones((2,)))
    kv.push(3, mx.nd.ones((2,)))
    out = mx.nd.zeros((2,))
    kv.pull(3, out=out)
    w = mx.nd.ones((3,))
    w.attach_grad()
    with mx.autograd.record():
        loss = (w * 2).sum()
    loss.backward()
    domain = mx.profiler.Domain('Book')
    task = mx.profiler.Task(domain, 'step')
    task.start()
    task.stop()
    frame = mx.profiler.Frame(domain, 'batch')
    frame.start()
    frame.stop()
    event = mx.profiler.Event('load')
    event.start()
    event.stop()
    mx.profiler.Counter(domain, 'seen', 5).increment(3)
    mx.profiler.Marker(domain, 'epoch').mark('process')
    mx.nd.waitall()


def run(mx, folder):
    trace = os.path.join(folder, 'trace.json')
    mx.profiler.set_config(profile_all=True, filename=trace, aggregate_stats=True)
    mx.profiler.dumps(reset=True)
    mx.profiler.set_state('run')
    _script(mx)
    mx.profiler.set_state('stop')
    mx.profiler.dump()
    table = json.loads(mx.profiler.dumps(format='json', reset=True))
    with open(trace) as f:
        events = json.load(f)['traceEvents']
    named = {}
    for e in events:
        if e.get('ph') != 'M':
            named.setdefault(e['cat'], set()).add(e['name'])
    return {'trace': {cat: sorted(names) for cat, names in sorted(named.items())},
            'time table': {cat: sorted(rows) for cat, rows in sorted(table['Time'].items())},
            'memory table': sorted(table['Memory'])}
