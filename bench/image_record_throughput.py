"""ImageRecordIter throughput, reflib next to MXNet 1.9.1: images per second read from a .rec.

    .venv/bin/python bench/image_record_throughput.py                  # JPEG, 1 and all threads
    .venv/bin/python bench/image_record_throughput.py --format png --threads 1
    .venv/bin/python bench/image_record_throughput.py --size 64 --pool-min-bytes 0 --no-mxnet

The record file is written once by reflib (``mx.recordio.pack_img``; MXNet reads it
unchanged, tests/golden/check_reflib_recordio_in_mxnet.py): ``--images`` seeded RGB
images of ``--size`` (default 32x32: smooth gradients plus noise, so the codecs have some work), JPEG quality 90
or PNG.  Each (library, setting, threads) runs in its own worker process, as in
fit_throughput.py: reflib in this interpreter, MXNet in ``--mxnet-python`` (default
$MXNET_PYTHON or /tmp/mxv/bin/python).  A worker reads one untimed epoch, then
``--repeat`` timed epochs; the figure is images/s of the median epoch.  The consumer does
nothing with a batch but ``asnumpy()``, so this is the iterator's own speed.

Settings: ``plain`` (centre crop of 7/8 of the side, float32), ``augment`` (shuffle, rand_crop,
rand_mirror, mean/std), and for reflib also ``prefetch``: ``plain`` wrapped in
PrefetchingIter (one background thread).  Threads: OMP_NUM_THREADS and friends for both,
and MXNet's ``preprocess_threads``, which reflib's ImageRecordIter also honours (for records of 3 kB or more).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

DEFAULT_MXNET_PYTHON = '/tmp/mxv/bin/python'
SETTINGS = {
    'plain': dict(),
    'augment': dict(shuffle=True, rand_crop=True, rand_mirror=True,
                    mean_r=123.0, mean_g=117.0, mean_b=104.0, std_r=58.0, std_g=57.0, std_b=57.0),
}


def write_records(path, count, fmt, size=32, seed=0):
    import numpy as np
    import reflib as mx
    rng = np.random.RandomState(seed)
    yy, xx = np.mgrid[0:size, 0:size]
    writer = mx.recordio.MXIndexedRecordIO(path + '.idx', path + '.rec', 'w')
    for i in range(count):
        base = np.stack([yy * 255 // size, xx * 255 // size, (yy + xx) * 127 // size], axis=-1)
        base = base + rng.randint(-20, 21, (size, size, 3))
        img = np.clip(base, 0, 255).astype(np.uint8)
        header = mx.recordio.IRHeader(0, float(i % 10), i, 0)
        writer.write_idx(i, mx.recordio.pack_img(header, img, quality=90 if fmt == 'jpg' else 3,
                                                 img_fmt='.' + fmt))
    writer.close()


def run_worker(args):
    if args.lib == 'mxnet':
        import mxnet as mx
    else:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        import reflib as mx
        if args.pool_min_bytes is not None:
            from reflib.io import image_record
            image_record._POOL_MIN_RECORD_BYTES = args.pool_min_bytes
    kwargs = dict(SETTINGS['plain' if args.setting == 'prefetch' else args.setting])
    crop = args.size * 7 // 8
    kwargs.update(data_shape=(3, crop, crop), path_imgrec=args.rec + '.rec', path_imgidx=args.rec + '.idx', batch_size=args.batch,
                  preprocess_threads=args.threads)
    it = mx.io.ImageRecordIter(**kwargs)
    if args.setting == 'prefetch':
        it = mx.io.PrefetchingIter(it)
    times, count = [], 0
    for epoch in range(args.repeat + 1):
        it.reset()
        start, count = time.perf_counter(), 0
        for batch in it:
            batch.data[0].asnumpy()
            count += batch.data[0].shape[0] - batch.pad
        if epoch:                                  # the first epoch is a warm-up
            times.append(time.perf_counter() - start)
    with open(args.result, 'w') as f:
        json.dump({'images': count, 'seconds': times}, f)


def mxnet_python(explicit):
    path = explicit or os.environ.get('MXNET_PYTHON') or DEFAULT_MXNET_PYTHON
    if not os.path.exists(path):
        return None
    probe = subprocess.run([path, '-c', 'import mxnet'], capture_output=True)
    return path if probe.returncode == 0 else None


def run_one(python, lib, setting, threads, rec, args):
    env = dict(os.environ)
    for name in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS'):
        env[name] = str(threads)
    with tempfile.NamedTemporaryFile(suffix='.json', delete=False) as out:
        result = out.name
    cmd = [python, os.path.abspath(__file__), '--worker', '--lib', lib, '--setting', setting,
           '--threads', str(threads), '--size', str(args.size), '--rec', rec, '--batch', str(args.batch), '--repeat', str(args.repeat),
           '--result', result]
    if args.pool_min_bytes is not None:
        cmd += ['--pool-min-bytes', str(args.pool_min_bytes)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError('%s %s worker failed:\n%s' % (lib, setting, done.stderr[-2000:]))
    with open(result) as f:
        data = json.load(f)
    os.unlink(result)
    return data['images'] / statistics.median(data['seconds'])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--images', type=int, default=2000, help='records in the file (default 2000)')
    parser.add_argument('--size', type=int, default=32, help='image side (default 32; crop 7/8 of it)')
    parser.add_argument('--format', choices=('jpg', 'png'), default='jpg')
    parser.add_argument('--batch', type=int, default=64)
    parser.add_argument('--repeat', type=int, default=3, help='timed epochs per worker (default 3)')
    parser.add_argument('--threads', default='1,%d' % os.cpu_count(), help='comma-separated thread counts')
    parser.add_argument('--mxnet-python', default=None)
    parser.add_argument('--no-mxnet', action='store_true')
    parser.add_argument('--pool-min-bytes', type=int, default=None,
                        help="reflib's decoding pool from records of this size (default: reflib's 3000; "
                             '0 always pools, to find where threads start to pay)')
    parser.add_argument('--json', default=None, help='write the results to this file')
    parser.add_argument('--worker', action='store_true', help=argparse.SUPPRESS)
    parser.add_argument('--lib', help=argparse.SUPPRESS)
    parser.add_argument('--setting', help=argparse.SUPPRESS)
    parser.add_argument('--rec', help=argparse.SUPPRESS)
    parser.add_argument('--result', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        args.threads = int(args.threads)
        return run_worker(args)

    mx_python = None if args.no_mxnet else mxnet_python(args.mxnet_python)
    threads_list = [int(t) for t in args.threads.split(',')]
    if hasattr(os, 'getloadavg'):
        print('load average before: %.2f %.2f %.2f' % os.getloadavg())
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        rec = os.path.join(tmp, 'bench')
        write_records(rec, args.images, args.format, args.size)
        print('%d %s records of %dx%d, %.0f bytes each; batch %d, median of %d epochs'
              % (args.images, args.format.upper(), args.size, args.size, os.path.getsize(rec + '.rec') / args.images, args.batch,
                 args.repeat))
        for threads in threads_list:
            for setting in ('plain', 'augment', 'prefetch'):
                row = {'setting': setting, 'threads': threads,
                       'reflib': run_one(sys.executable, 'reflib', setting, threads, rec, args)}
                if mx_python and setting != 'prefetch':
                    row['mxnet'] = run_one(mx_python, 'mxnet', setting, threads, rec, args)
                results.append(row)
    print('\n| setting | threads | reflib images/s | MXNet images/s | reflib / MXNet |')
    print('| --- | ---: | ---: | ---: | ---: |')
    for row in results:
        mxnet = row.get('mxnet')
        print('| %s | %d | %.0f | %s | %s |' % (row['setting'], row['threads'], row['reflib'],
                                                '%.0f' % mxnet if mxnet else '-',
                                                '%.2f' % (row['reflib'] / mxnet) if mxnet else '-'))
    if hasattr(os, 'getloadavg'):
        print('load average after: %.2f %.2f %.2f' % os.getloadavg())
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(results, f, indent=1)


if __name__ == '__main__':
    sys.exit(main())
