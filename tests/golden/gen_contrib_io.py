"""Regenerate contrib_io.json: MXNet 1.9.1 on the program of contrib_io_cases.py.

    /tmp/mxv/bin/python tests/golden/gen_contrib_io.py
"""

import golden_json

if __name__ == '__main__':
    golden_json.write('contrib_io_cases', 'contrib_io.json')
