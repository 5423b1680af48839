"""bench/gpu_check.py, the one command run on a lent GPU, dry-run here: with no CUDA device it
must skip the GPU parts cleanly and still write its JSON report and its log."""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_gpu_check_dry_runs_without_a_gpu(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != 'REFLIB_TEST_DEVICE'}
    proc = subprocess.run([sys.executable, os.path.join(ROOT, 'bench', 'gpu_check.py'), '--out', str(tmp_path),
                           '--workers', '1', '--epochs', '1'],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    with open(tmp_path / 'gpu_check.json') as f:
        report = json.load(f)
    assert report['on_gpu'] is False and report['machine']['gpus'] == 0
    tests = report['tests']
    assert tests['mode'] == 'strict' and tests['failed'] == 0 and tests['passed'] >= 8
    rows = {row['model']: row for row in report['speed']['rows']}
    assert set(rows) == {'mlp', 'lenet', 'gemm'}
    for row in rows.values():
        assert 'error' not in row, row.get('error')
        assert row['reflib']['samples_per_s'] > 0
    assert sum(line.startswith('speed ') for line in (tmp_path / 'gpu_check.log').read_text().splitlines()) == 3
    assert (tmp_path / 'gpu_tests.xml').exists()
