"""Record how MXNet 1.9.1's CSVIter reads numbers, for tests/test_text_numbers.py.

Run with the oracle:  /tmp/mxv/bin/python tests/golden/gen_text_numbers.py
    ->  tests/golden/text_numbers.npz  (the tokens and MXNet's float32 values, as bits)

The tokens: 3000 random decimals (fixed and scientific notation, many digits, long
integers) and the edge cases of the parser (exponents clipped at 38, subnormal results,
signs, infinities, more than 19 fraction digits).
"""

import os
import random
import tempfile

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'text_numbers.npz')

EDGE = ['0', '0.0', '-0', '-0e-3', '.5', '5.', '-.25', '+3', '1e5', '1E-3', '1e+0', '0e-0', '0.000001',
        '123456789.123456789123456789', '99999999999999999999', '18446744073709551617', 'inf', '-inf',
        'Infinity', '1e39', '-1e39', '3.4e38', '3.5e38', '1e-37', '1e-38', '1e-39', '1e-40', '1e-45',
        '5e-39', '1.1e-38', '1.2e-38', '2e-38', '0e-37', '0e-38', '0e-39', '0e-50', '-0e-50', '0e38', '0e50',
        '0.5e-50', '2e-50', '12e-50', '0.0001e-37', '0.001e-36', '0.1e-37', '0.00000001e-31',
        '0.00000000000000000000000000000000000000001', '0.000000000000000000001', '1.17549435e-38',
        ' 7.25', '7.25 ']


def tokens():
    rng = random.Random(5)
    out = list(EDGE)
    for _ in range(3000):
        kind = rng.random()
        if kind < 0.4:
            out.append('%.*f' % (rng.randint(1, 15), rng.uniform(-1000, 1000)))
        elif kind < 0.7:
            out.append('%.*e' % (rng.randint(1, 14), rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30)))
        elif kind < 0.85:
            out.append(str(rng.randint(-10 ** 12, 10 ** 12)))
        else:
            out.append('%.20f' % rng.random())
    return out


def main():
    toks = tokens()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'numbers.csv')
        with open(path, 'w') as f:
            f.write('\n'.join(toks) + '\n')
        it = mx.io.CSVIter(data_csv=path, data_shape=(1,), batch_size=len(toks))
        values = it.next().data[0].asnumpy().ravel()
    np.savez_compressed(OUT, tokens=np.array(toks), bits=values.view(np.uint32))
    print('%d tokens -> %s' % (len(toks), OUT))


if __name__ == '__main__':
    main()
