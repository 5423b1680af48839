"""reflib reads numbers in text files exactly as MXNet 1.9.1's CSVIter does
(reflib/io/text_numbers.py; MXNet's values recorded by tests/golden/gen_text_numbers.py)."""

import os

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError
from reflib.io.text_numbers import parse_floats, parse_ints

GOLDEN = np.load(os.path.join(os.path.dirname(__file__), 'golden', 'text_numbers.npz'))
TOKENS = [str(t) for t in GOLDEN['tokens']]
MXNET_BITS = GOLDEN['bits']


def test_every_recorded_number_has_mxnets_bits():
    ours = parse_floats(TOKENS).view(np.uint32)
    differ = [(t, hex(a), hex(b)) for t, a, b in zip(TOKENS, ours, MXNET_BITS) if a != b]
    assert not differ, differ[:10]


def test_mxnets_parser_is_not_the_nearest_float32():
    # what makes the parser worth reproducing: plain float32 rounding misses hundreds of them
    with np.errstate(over='ignore'):
        nearest = np.array([np.float32(float(t)) for t in TOKENS]).view(np.uint32)
    assert (nearest != MXNET_BITS).sum() > 200
    values = dict(zip(TOKENS, MXNET_BITS.view(np.float32)))
    assert values['1e39'] == np.float32(1e38) * np.float32(1.0000001)   # exponent clipped at 38
    assert values['0e-50'] == np.uint32(0x007fffff).view(np.float32)     # the largest subnormal
    assert values['0.001e-36'] == np.float32(1e-39)                       # a subnormal kept


def test_csv_iter_reads_the_same_bits(tmp_path):
    path = tmp_path / 'numbers.csv'
    path.write_text('\n'.join(TOKENS) + '\n')
    batch = mx.io.CSVIter(data_csv=str(path), data_shape=(1,), batch_size=len(TOKENS)).next()
    np.testing.assert_array_equal(batch.data[0].asnumpy().ravel().view(np.uint32), MXNET_BITS)


def test_integers_take_the_leading_integer():
    np.testing.assert_array_equal(parse_ints(['2.7', '-3.2', ' 12', '+4e5'], np.dtype('int32')), [2, -3, 12, 4])


def test_a_field_that_is_no_number_is_named(tmp_path):
    path = tmp_path / 'bad.csv'
    path.write_text('1,2,3\n4,x5,6\n')
    with pytest.raises(MXNetError, match=r"line 2: 'x5' is not a number"):
        mx.io.CSVIter(data_csv=str(path), data_shape=(3,), batch_size=1)
    with pytest.raises(ValueError) as err:
        parse_floats(['1', '2', '1-2'])
    assert err.value.args == (2,)
