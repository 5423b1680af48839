"""Manual check: does real MXNet 1.9.1 load a FeedForward checkpoint that reflib saved, and
predict what reflib predicts?  (The other direction, reflib loading MXNet's files, is in
tests/test_feedforward.py with the feedforward_mlp-* files gen_feedforward.py wrote.)

Two steps, two interpreters (reflib's tests never need MXNet):

  1. with reflib's interpreter, from the repository root: train gen_feedforward.py's
     ``numpy_fit`` model, save it with FeedForward.save and record its predictions:
       .venv/bin/python tests/golden/check_feedforward_in_mxnet.py --write /tmp/reflib-ff
  2. with the MXNet 1.9.1 interpreter: FeedForward.load the files, predict, train one
     more epoch from them in both libraries' footsteps (MXNet here, reflib's numbers
     from step 1) and compare:
       /tmp/mxv/bin/python tests/golden/check_feedforward_in_mxnet.py /tmp/reflib-ff

Step 2 prints the largest differences and ends with OK or FAILED.
"""

import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_feedforward as gen  # noqa: E402


def resume(mx, prefix):
    """Load the checkpoint at epoch 3, predict, train a fourth epoch, return both."""
    X, y = gen.data(0, gen.N_TRAIN)
    Xv, _ = gen.data(1, gen.N_VAL)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        model = mx.model.FeedForward.load(prefix, 3, num_epoch=4, numpy_batch_size=8,
                                          learning_rate=0.1, momentum=0.9, wd=0.001)
    out = {'predict': model.predict(Xv)}
    np.random.seed(5)
    model.fit(X, y)
    out.update({'resumed/' + k: v.asnumpy() for k, v in model.arg_params.items()})
    return out


def write(folder):
    import reflib as mx
    os.makedirs(folder, exist_ok=True)
    prefix = os.path.join(folder, 'ff')
    gen.numpy_fit(mx, save_prefix=prefix)
    np.savez(os.path.join(folder, 'reflib.npz'), **resume(mx, prefix))
    print('wrote', folder)


def check(folder):
    import mxnet as mx
    expected = np.load(os.path.join(folder, 'reflib.npz'))
    got = resume(mx, os.path.join(folder, 'ff'))
    worst = 0.0
    for key in sorted(got):
        diff = float(np.abs(got[key] - expected[key]).max())
        worst = max(worst, diff)
        print('%-24s max |MXNet - reflib| = %.3g' % (key, diff))
    print('OK' if worst < 1e-5 else 'FAILED')
    return worst < 1e-5


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == '--write':
        write(sys.argv[2])
    elif len(sys.argv) == 2:
        sys.exit(0 if check(sys.argv[1]) else 1)
    else:
        sys.exit(__doc__)
