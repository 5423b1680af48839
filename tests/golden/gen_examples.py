"""Regenerate examples.json: what MXNet 1.9.1's example scripts (shortened copies in
tests/examples/) print and write under MXNet, summarized by ``summarize`` below, which
tests/test_mxnet_examples.py applies to the same scripts run under reflib.

Run with a Python that has the real MXNet 1.9.1:

    python tests/golden/gen_examples.py
"""

import collections
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), 'examples')

# script -> what it is: 'deterministic' (its printed numbers are compared), 'training' (it draws
# random numbers: its log's structure and trends are compared), 'profile' (the trace file it
# leaves, named here, is compared)
SCRIPTS = {
    'weighted_logistic_regression': {'kind': 'deterministic'},
    'numpy_softmax': {'kind': 'training'},
    'custom_softmax': {'kind': 'training'},
    'example_api_train': {'kind': 'training'},
    'profiler_matmul': {'kind': 'profile', 'file': 'profile_matmul_20iter.json'},
    'profiler_executor': {'kind': 'profile', 'file': 'profile_executor_5iter.json'},
    'profiler_ndarray': {'kind': 'profile', 'file': 'profile_ndarray.json'},
}

_NUMBER = re.compile(r'[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?')
_METRIC = re.compile(r'Epoch\[(\d+)\] (Train|Validation)[- ](\w+)=([-+0-9.eE]+|nan|inf)')


def run_script(argv_prefix, name, cwd, pythonpath=None, timeout=300):
    """Run tests/examples/<name>.py with ``argv_prefix`` (a Python, maybe a runner) in ``cwd``,
    ``pythonpath`` put first on PYTHONPATH; (return code, stdout, stderr)."""
    env = dict(os.environ, OMP_NUM_THREADS='1', OPENBLAS_NUM_THREADS='1', MKL_NUM_THREADS='1',
               PYTHONWARNINGS='ignore')
    if pythonpath:
        env['PYTHONPATH'] = os.pathsep.join([pythonpath] + ([env['PYTHONPATH']] if env.get('PYTHONPATH') else []))
    proc = subprocess.run(list(argv_prefix) + [os.path.join(EXAMPLES, name + '.py')], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def _operator_counts(path):
    """How many times each operator ran in a trace: MXNet names a bulked segment of a graph
    '[op,op,...]' (cut at 128 characters: a cut last name is dropped)."""
    with open(path) as f:
        text = f.read()
    # MXNet appends a second trace when it dumps again at exit: read the first
    trace, _ = json.JSONDecoder().raw_decode(text)
    counts = collections.Counter()
    for event in trace['traceEvents']:
        if event.get('ph') != 'B' or event.get('cat') != 'operator':
            continue
        name = event['name']
        if name.startswith('['):
            pieces = name[1:].split(',')
            if pieces[-1].endswith(']'):
                pieces[-1] = pieces[-1][:-1]
            else:
                pieces = pieces[:-1]
            counts.update(pieces)
        else:
            counts[name] += 1
    return dict(sorted(counts.items()))


def summarize(name, rc, stdout, stderr, cwd):
    """What can be compared of one run."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    summary = {
        'rc': rc,
        # stdout's lines with every number as '#': the structure of what the script prints
        'printed': [_NUMBER.sub('#', line) for line in lines],
        'numbers': [float(x) for line in lines for x in _NUMBER.findall(line)],
        'metrics': [[int(m.group(1)), m.group(2), m.group(3), float(m.group(4))]
                    for m in _METRIC.finditer(stdout + '\n' + stderr)],
    }
    spec = SCRIPTS[name]
    if spec['kind'] == 'profile':
        path = os.path.join(cwd, spec['file'])
        summary['profile'] = _operator_counts(path) if os.path.exists(path) else None
    return summary


if __name__ == '__main__':
    record = {}
    for script in SCRIPTS:
        with tempfile.TemporaryDirectory() as cwd:
            rc, out, err = run_script([sys.executable], script, cwd)
            if rc:
                sys.stderr.write(err)
            record[script] = summarize(script, rc, out, err, cwd)
            print('%s: rc=%d' % (script, rc))
    with open(os.path.join(HERE, 'examples.json'), 'w') as f:     # one script a line
        f.write('{\n%s\n}\n' % ',\n'.join('%s: %s' % (json.dumps(k), json.dumps(record[k]))
                                          for k in sorted(record)))
    print('wrote examples.json: %d scripts' % len(record))
