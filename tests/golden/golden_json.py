"""What the gen_<name>.py scripts over a <name>_cases.py program share: run the program's
``run(mx)`` under MXNet 1.9.1 and write what it returns as a JSON file here."""

import importlib
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def write(cases_module, json_name):
    """``<cases_module>.run(mxnet)`` into ``json_name`` (keys sorted, one trailing newline)."""
    import mxnet as mx        # only the generators import MXNet, never reflib's tests
    run = importlib.import_module(cases_module).run
    with open(os.path.join(HERE, json_name), 'w') as f:
        json.dump(run(mx), f, sort_keys=True)
        f.write('\n')
    print('wrote %s' % json_name)
