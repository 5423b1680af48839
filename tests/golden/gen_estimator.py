"""Regenerate estimator.json: MXNet 1.9.1 on the programs of estimator_cases.py.

    /tmp/mxv/bin/python tests/golden/gen_estimator.py
"""

import golden_json

if __name__ == '__main__':
    golden_json.write('estimator_cases', 'estimator.json')
