"""Regenerate gluon_numpy_mode.json: MXNet 1.9.1 on the programs of gluon_numpy_mode_cases.py.

    /tmp/mxv/bin/python tests/golden/gen_gluon_numpy_mode.py
"""

import golden_json

if __name__ == '__main__':
    golden_json.write('gluon_numpy_mode_cases', 'gluon_numpy_mode.json')
