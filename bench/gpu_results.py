#!/usr/bin/env python3
"""Chapter 14's GPU figures: the stored bench/gpu_check.py runs, gathered into reflib/book/data/gpu_results.json.

    .venv/bin/python bench/gpu_results.py            # after adding a run to bench/results/

bench/gpu_check.py runs on a lent GPU machine and writes gpu_check.json there; each run
worth keeping is copied into bench/results/ as ``<device>_<date>_<n>_<label>.json`` and
listed in RUNS below with what the code was at the time.  This script keeps what the
chapter shows (the machine, the test counts and failures, the speed rows) so that the
chapter needs no GPU: CI has none.
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, 'results')
OUT = os.path.join(HERE, '..', 'reflib', 'book', 'data', 'gpu_results.json')

# (file in bench/results, what the code was)
RUNS = [
    ('h200_2026-11-27_1_first.json', 'first run: the code as prepared on the CPU (73f9e5e)'),
    ('h200_2026-11-27_2_fixed.json', 'the 12 failures fixed (c07a4b6)'),
    ('h200_2026-11-27_3_fused.json', 'fused kernels, direct copies (88859f0)'),
    ('h200_2026-11-27_4_fused_speed_again.json', 'the same code, speed measured again'),
]


def summary(path, label):
    with open(os.path.join(RESULTS, path)) as f:
        run = json.load(f)
    tests = run.get('tests') or {}
    speed = run.get('speed') or {}
    keep = ('model', 'batch', 'ratio', 'fraction_of_peak', 'torch_fraction_of_peak', 'reflib_tflops')
    rows = []
    for row in speed.get('rows', []):
        kept = {k: row[k] for k in keep if k in row}
        kept['reflib'] = row['reflib']['samples_per_s']
        kept['torch'] = row['torch']['samples_per_s']
        rows.append(kept)
    return {'file': path, 'code': label, 'started': run['started'], 'machine': run['machine'],
            'tests': {k: tests[k] for k in ('passed', 'failed', 'skipped', 'seconds') if k in tests},
            'failures': sorted(f['test'] for f in tests.get('failures', [])),
            'gemm_peak_flops': speed.get('gemm_peak_flops'), 'speed': rows}


def main():
    runs = [summary(path, label) for path, label in RUNS]
    with open(OUT, 'w') as f:
        json.dump({'runs': runs}, f, indent=1, sort_keys=True)
        f.write('\n')
    print('wrote %s (%d runs)' % (os.path.relpath(OUT), len(runs)))


if __name__ == '__main__':
    main()
