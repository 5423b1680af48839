#!/usr/bin/env python3
"""What the profiler's reporting sites cost while it is off, and what it costs when on.

    git worktree add /tmp/no-profiler f959b1b          # the last commit before reflib/profiler.py
    .venv/bin/python bench/profiler_overhead.py --baseline /tmp/no-profiler

Three tiny workloads, where a fixed per-call cost shows most: an imperative operator call
(``mx.nd.relu`` of one element), NDArray arithmetic (``x + 1``), and one forward + backward of
executor_overhead.py's four-operator graph.  Each runs in a fresh process for this checkout
with the profiler stopped, for the baseline checkout (no profiler at all), and for this
checkout with the profiler running (``profile_all``, aggregate statistics on).  Numbers are
microseconds per call, the median of ``--repeat`` timings of ``--calls`` calls, one thread.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CHILD = r'''
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
import reflib as mx
calls, repeat, profile = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == 'on'
if profile:
    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=os.devnull)
    mx.profiler.set_state('run')
x = mx.nd.ones((1,))
s_x, s_w = mx.sym.Variable('x'), mx.sym.Variable('w')
net = mx.sym.MakeLoss(mx.sym.sum(mx.sym.Activation(s_x * s_w, act_type='relu')))
ex = net.simple_bind(mx.cpu(), x=(1, 1), w=(1, 1))
def step():
    ex.forward(is_train=True)
    ex.backward()
work = {'nd.relu': lambda: mx.nd.relu(x), 'x + 1': lambda: x + 1, 'forward+backward': step}
out = {}
for name, fn in work.items():
    times = []
    for _ in range(repeat):
        tic = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - tic) / calls * 1e6)
        if profile:
            mx.profiler.dumps(reset=True)     # keep the statistics from growing without bound
    out[name] = sorted(times)[len(times) // 2]
print(json.dumps(out))
'''


def measure(root, calls, repeat, profile):
    env = dict(os.environ, OMP_NUM_THREADS='1', OPENBLAS_NUM_THREADS='1', MKL_NUM_THREADS='1')
    done = subprocess.run([sys.executable, '-c', CHILD, root, str(calls), str(repeat), profile],
                          capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--baseline', required=True, help='a checkout without reflib/profiler.py')
    parser.add_argument('--calls', type=int, default=3000)
    parser.add_argument('--repeat', type=int, default=9)
    parser.add_argument('--rounds', type=int, default=3, help='alternate the processes this many times')
    args = parser.parse_args()
    if os.path.exists(os.path.join(args.baseline, 'reflib', 'profiler.py')):
        sys.exit('--baseline %s has reflib/profiler.py: give a checkout from before it' % args.baseline)
    print('uptime:', os.popen('uptime').read().strip())
    runs = {'baseline (no profiler)': [], 'profiler off': [], 'profiler on': []}
    for _ in range(args.rounds):
        runs['baseline (no profiler)'].append(measure(args.baseline, args.calls, args.repeat, 'off'))
        runs['profiler off'].append(measure(ROOT, args.calls, args.repeat, 'off'))
        runs['profiler on'].append(measure(ROOT, args.calls, args.repeat, 'on'))
    best = {label: {name: min(r[name] for r in rs) for name in rs[0]} for label, rs in runs.items()}
    names = list(best['profiler off'])
    print('%-24s' % 'us per call' + ''.join('%18s' % n for n in names))
    for label, row in best.items():
        print('%-24s' % label + ''.join('%18.2f' % row[n] for n in names))
    base = best['baseline (no profiler)']
    print('%-24s' % 'off / baseline' + ''.join('%18.3f' % (best['profiler off'][n] / base[n]) for n in names))
    print('%-24s' % 'on / off' + ''.join('%18.2f' % (best['profiler on'][n] / best['profiler off'][n])
                                         for n in names))
    print(json.dumps(best))


if __name__ == '__main__':
    main()
