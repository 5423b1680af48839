#!/usr/bin/env python3
"""The measurements chapter 14 shows, gathered into reflib/book/data/perf_results.json.

    .venv/bin/python bench/book_results.py              # runs every benchmark (about 15 min)
    .venv/bin/python bench/book_results.py --from DIR   # only gathers DIR's JSON files

It runs, each writing JSON: ``memory_plan.py`` at batch 64 and 256 (mem64.json,
mem256.json), ``executor_overhead.py`` (overhead.json), ``fit_throughput.py --quick`` on an
idle machine (fit_idle.json) and next to one busy process (``--load 1``, fit_load.json).
The chapter reads the gathered file, so that its MXNet columns need no MXNet: they are what
was measured here, on the date the file records.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'reflib', 'book', 'data', 'perf_results.json')
RUNS = [('mem64.json', ['memory_plan.py', '--batch', '64']),
        ('mem256.json', ['memory_plan.py', '--batch', '256']),
        ('overhead.json', ['executor_overhead.py']),
        ('fit_idle.json', ['fit_throughput.py', '--quick']),
        ('fit_load.json', ['fit_throughput.py', '--quick', '--load', '1'])]


def fit_table(data):
    """One row per (model, batch, threads, configuration): the median and the noise check."""
    rows = []
    for r in data['results']:
        rows.append({'model': r['model'], 'batch': r['batch_size'], 'threads': r['threads'],
                     'config': r['config'], 'samples_per_s': round(r['median_samples_per_s'], 1),
                     'others_load': round(r['others_load'], 3), 'peak_rss_mib': round(r['peak_rss_mib'], 1)})
    return {'date': data['meta']['date'], 'command': data['meta']['command'], 'rows': rows}


def cpu_model():
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gather(folder):
    def load(name):
        with open(os.path.join(folder, name)) as f:
            return json.load(f)
    fit_idle = load('fit_idle.json')
    reflib = next(r for r in fit_idle['results'] if r['lib'] == 'reflib')
    mxnet = next((r for r in fit_idle['results'] if r['lib'] == 'mxnet'), {})
    return {
        'machine': {'platform': fit_idle['meta']['platform'], 'cpus': fit_idle['meta']['cpu_count'],
                    'processor': cpu_model(),
                    'python': reflib['python'], 'numpy': reflib['numpy'], 'mxnet': mxnet.get('version')},
        'memory': {'64': load('mem64.json')['results'], '256': load('mem256.json')['results']},
        'overhead_us': {lib: round(v['us_per_step'], 1) for lib, v in load('overhead.json').items()
                        if isinstance(v, dict)},
        'fit_idle': fit_table(fit_idle),
        'fit_load': fit_table(load('fit_load.json')),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--from', dest='folder', help='gather the JSON files already in this folder')
    parser.add_argument('--out', default=OUT)
    args = parser.parse_args(argv)
    folder = args.folder
    if folder is None:
        folder = tempfile.mkdtemp(prefix='reflib-bench-')
        for name, command in RUNS:
            print('running', ' '.join(command), flush=True)
            subprocess.run([sys.executable, os.path.join(HERE, command[0])] + command[1:]
                           + ['--json', os.path.join(folder, name)], check=True)
    with open(args.out, 'w') as f:
        json.dump(gather(folder), f, indent=1)
        f.write('\n')
    print('wrote', os.path.abspath(args.out))
    return 0


if __name__ == '__main__':
    sys.exit(main())
