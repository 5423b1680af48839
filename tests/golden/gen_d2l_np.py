"""Regenerate d2l_np.json: MXNet 1.9.1 on the calls of d2l_np_cases.py.

    /tmp/mxv/bin/python tests/golden/gen_d2l_np.py
"""

import golden_json

if __name__ == '__main__':
    golden_json.write('d2l_np_cases', 'd2l_np.json')
