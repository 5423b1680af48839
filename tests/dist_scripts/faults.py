"""A distributed job that goes wrong on purpose: ``python faults.py MODE`` under reflib.launch.

Modes (what worker 1 does after the store is set up; worker 0 keeps training):

* ``raise``    raises an exception
* ``kill``     kills itself with SIGKILL
* ``exit``     ends its script early, after one push fewer than worker 0 makes
* ``shape``    pushes an array of the wrong shape (an error on worker 1 only, caught and printed)
* ``unknown``  pulls a key nobody initialised (likewise)
* ``barrier``  ends its script at once, while worker 0 waits at a barrier
"""

import os
import signal
import sys

import reflib as mx

mode = sys.argv[1]
kv = mx.kv.create('dist_sync')
shape = (2, 3)
kv.init('w', mx.nd.ones(shape))
out = mx.nd.zeros(shape)
steps = 5
if mode == 'barrier':
    if kv.rank == 0:
        kv._barrier()                # worker 1 never comes: before, this waited for ever
    sys.exit(0)
for step in range(steps):
    if kv.rank == 1 and step == 2:
        if mode == 'raise':
            raise RuntimeError('worker 1 fails on purpose')
        if mode == 'kill':
            os.kill(os.getpid(), signal.SIGKILL)
        if mode == 'exit':
            sys.exit(0)
        if mode in ('shape', 'unknown'):
            try:
                if mode == 'shape':
                    kv.push('w', mx.nd.ones((3, 2)))
                else:
                    kv.pull('nobody', out=out)
            except mx.base.MXNetError as err:
                print('worker 1 caught: %s' % err, flush=True)
    kv.push('w', mx.nd.ones(shape))
    kv.pull('w', out=out)
print('worker %d finished: w = %s' % (kv.rank, out.asnumpy()[0, 0]), flush=True)
