"""Record MXNet 1.9.1's ImageRecordIter batches for the shuffled and randomly augmented
settings of image_record_cases.RANDOM_CASES, over imgrec.rec (written by gen_recordio.py).
Needs only MXNet (no OpenCV):

    /tmp/mxv/bin/python tests/golden/gen_image_record_iter.py
        ->  tests/golden/recordio/image_record_iter.npz  (about 15 KB)

MXNet's prefetch thread sometimes reports a stale ``pad`` (seen: 3 on a full batch after an
epoch that ended with borrowed images), so every case is run until two runs agree.
"""
import json
import os
import sys

import numpy as np
import mxnet as mx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import image_record_cases as cases  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'recordio')
EPOCHS = 4


def run(case):
    it = mx.io.ImageRecordIter(**cases.iter_kwargs(case, OUT))
    epochs, data = [], []
    for _ in range(EPOCHS):
        batches = list(it)
        epochs.append([[b.pad, b.label[0].asnumpy().tolist()] for b in batches])
        data.extend(b.data[0].asnumpy() for b in batches)
        it.reset()
    return epochs, np.stack(data)


def main():
    npz, summary = {}, {}
    for name, case in cases.RANDOM_CASES.items():
        previous = None
        for _ in range(10):
            epochs, data = run(case)
            if previous is not None and previous[0] == epochs and np.array_equal(previous[1], data):
                break
            previous = epochs, data
        else:
            raise RuntimeError('%s: MXNet gave different batches in every run' % name)
        summary[name] = epochs
        if name in cases.RANDOM_DATA_CASES:
            assert np.array_equal(data, data.astype(np.uint8))      # whole numbers 0..255
            npz['data_' + name] = data.astype(np.uint8)
    npz['batches'] = np.array(json.dumps(summary))
    np.savez_compressed(os.path.join(OUT, 'image_record_iter.npz'), **npz)


if __name__ == '__main__':
    main()
