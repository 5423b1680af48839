"""Regenerate lm_fit.npz: MXNet 1.9.1's BucketingModule.fit on the language model of
lm_fit_cases.py (validation perplexity per epoch and final parameters: LSTM, GRU, and the
LSTM fused into one RNN operator).

    python tests/golden/gen_lm_fit.py      # with the real MXNet 1.9.1
"""

import os
import sys
import warnings

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from lm_fit_cases import run  # noqa: E402

warnings.simplefilter('ignore')

if __name__ == '__main__':
    arrays = {}
    for kind in ('lstm', 'gru', 'fused'):
        history, params = run(mx, kind)
        arrays['%s/val_perplexity' % kind] = np.array(history['val'])
        for name, value in params.items():
            arrays['%s/param/%s' % (kind, name)] = value
        print(kind, 'validation perplexity per epoch:', history['val'])
    np.savez_compressed(os.path.join(HERE, 'lm_fit.npz'), **arrays)
