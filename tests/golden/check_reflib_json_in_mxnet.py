"""Manual check: does real MXNet 1.9.1 load and run the symbol JSON that reflib writes?

Two steps, two interpreters (reflib's tests never need MXNet):

  1. with reflib's interpreter, from the repository root, write reflib's JSON files:
       python tests/golden/check_reflib_json_in_mxnet.py --write /tmp/reflib-json
  2. with the MXNet 1.9.1 interpreter, load them into MXNet and run them:
       /tmp/mxv/bin/python tests/golden/check_reflib_json_in_mxnet.py /tmp/reflib-json

Step 2 checks, for each graph of graph_defs.py: MXNet's mx.sym.load accepts the
file; the names agree with MXNet's own build of the graph; MXNet writes back the
same structure; and, for the MLP and the conv net, a bound forward/backward with
the golden parameters reproduces the golden numbers.  Extra *.json files in the
folder are loaded and their names and inferred shapes printed.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import graph_defs as G  # noqa: E402

CASES = {
    'mlp': G.mlp,
    'fc6': G.fc6,
    'c': G.two_a_plus_b,
    'alias': G.x_plus_one,
    'convnet': G.convnet,
    'typed_variable': G.typed_variable,
    'partial_group': G.partial_group,
    'scaled_fc': G.scaled_fc,
}


def write(folder):
    """Run under reflib: save every golden graph as <folder>/<case>-symbol.json."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
    import reflib as mx
    os.makedirs(folder, exist_ok=True)
    for case, build in CASES.items():
        path = os.path.join(folder, case + '-symbol.json')
        build(mx).save(path)
        print('wrote', path)


def structure(text):
    graph = json.loads(text)
    return ([(n['op'], n['name'], n.get('attrs', {}), [list(i[:2]) for i in n['inputs']])
             for n in graph['nodes']], graph['arg_nodes'], [list(h[:2]) for h in graph['heads']])


def check(folder):
    """Run under MXNet 1.9.1: load reflib's files and run them."""
    os.environ.setdefault('MXNET_SUBGRAPH_BACKEND', 'NONE')
    import numpy as np
    import mxnet as mx

    npz = np.load(os.path.join(HERE, 'graphs.npz'))
    with open(os.path.join(HERE, 'graphs.json')) as f:
        facts = json.load(f)
    failures = []

    def expect(ok, message):
        print(('  ok   ' if ok else '  FAIL ') + message)
        if not ok:
            failures.append(message)

    def close(actual, key, what):
        want = npz[key]
        got = actual.asnumpy()
        expect(got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-6),
               '%s matches golden %s' % (what, key))

    seen = set()
    for case, build in CASES.items():
        path = os.path.join(folder, case + '-symbol.json')
        if not os.path.exists(path):
            print('%s: no %s, skipped' % (case, path))
            continue
        seen.add(os.path.basename(path))
        print(case)
        try:
            sym = mx.sym.load(path)
        except Exception as err:  # noqa: BLE001  report and go on
            expect(False, 'mx.sym.load(%s): %s' % (path, err))
            continue
        ref = build(mx)
        for kind in ('arguments', 'outputs', 'auxiliary_states'):
            expect(getattr(sym, 'list_' + kind)() == getattr(ref, 'list_' + kind)(), kind + ' agree')
        with open(path) as f:
            expect(structure(sym.tojson()) == structure(ref.tojson()),
                   'MXNet re-serialises the same structure as its own build')
            expect(structure(f.read()) == structure(ref.tojson()),
                   "reflib's file has MXNet's structure")

        if case == 'mlp':
            params = {k: npz[v] for k, v in facts['mlp']['param_keys'].items()}
            batch = facts['mlp']['batches'][0]
            exe = sym.simple_bind(mx.cpu(), grad_req='write', data=G.MLP_DATA_SHAPE)
            for k, v in params.items():
                exe.arg_dict[k][:] = v
            exe.forward(is_train=True, data=npz[batch['data']],
                        softmax_label=npz[batch['softmax_label']])
            exe.backward()
            close(exe.outputs[0], facts['mlp']['write'][0]['output'], 'forward output')
            for k, key in facts['mlp']['write'][0]['grads'].items():
                close(exe.grad_dict[k], key, 'grad of ' + k)
        elif case == 'convnet':
            info = facts['convnet']
            steps = {s['step']: s for s in info['sequence']}
            exe = sym.simple_bind(mx.cpu(), grad_req='write', data=G.CONV_DATA_SHAPE)
            for k, v in info['param_keys'].items():
                exe.arg_dict[k][:] = npz[v]
            for k, v in info['aux_keys'].items():
                exe.aux_dict[k][:] = npz[v]
            feed = {'data': npz[info['data']], 'softmax_label': npz[info['softmax_label']]}
            exe.forward(is_train=False, **feed)
            close(exe.outputs[0], steps['eval_before']['output'], 'eval output')
            exe.forward(is_train=True, **feed)
            close(exe.outputs[0], steps['train_forward']['output'], 'train output')
            exe.backward()
            mx.nd.waitall()
            for k, key in steps['train_backward']['grads'].items():
                close(exe.grad_dict[k], key, 'grad of ' + k)

    for name in sorted(os.listdir(folder)):
        if name.endswith('.json') and name not in seen:
            print(name, '(extra file)')
            try:
                sym = mx.sym.load(os.path.join(folder, name))
                print('  arguments', sym.list_arguments())
                print('  outputs  ', sym.list_outputs())
                print('  aux      ', sym.list_auxiliary_states())
            except Exception as err:  # noqa: BLE001
                expect(False, 'mx.sym.load(%s): %s' % (name, err))

    print('%d failure(s)' % len(failures))
    return 1 if failures else 0


def main(argv):
    if len(argv) == 3 and argv[1] == '--write':
        write(argv[2])
        return 0
    if len(argv) == 2 and not argv[1].startswith('-'):
        return check(argv[1])
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
