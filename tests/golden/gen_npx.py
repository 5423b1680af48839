"""Regenerate npx.json: MXNet 1.9.1 on the calls of npx_cases.py.

    /tmp/mxv/bin/python tests/golden/gen_npx.py
"""

import golden_json

if __name__ == '__main__':
    golden_json.write('npx_cases', 'npx.json')
