"""Numbers in text read as MXNet 1.9.1's C++ text parsers (dmlc-core) read them.

Their float parser is not C's correctly rounded ``strtof``: it works in float32 as

    value = float32(integer digits)                    (as a uint64, so > 19 digits wrap)
    value = value + float32(double(first 19 fraction digits) / double(10**count))
    value = value * scale  or  value / scale           (exponent e, clipped to 38;
                                                        scale = 1e8**(e//8) * 10**(e%8) in float32)

and, when the exponent is -38 or less and the result falls below float32's smallest
normal number, the largest subnormal (0x007fffff), whatever the digits, 0e-50 included.
This gives a value one unit in the last place away from the nearest float32 for about
one decimal in eight with many digits (tests/golden/gen_text_numbers.py records MXNet's
values of 3000 random decimals and edge cases; reflib's are identical).  Integer dtypes read the leading integer of a field, as ``strtol``:
``2.7`` gives 2, ``-3.2`` gives -3.

>>> print(parse_floats(['0.1', '-2.5e3', '1.42060556987e-12', 'inf']))   # MXNet's values
[ 1.0000000e-01 -2.5000000e+03  1.4206055e-12            inf]
>>> np.float32(1.42060556987e-12)                                  # the nearest float32
np.float32(1.4206056e-12)
"""

import re

import numpy as np

__all__ = ['parse_floats', 'parse_ints']

_FLOAT = re.compile(r'\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?)(\d+))?\s*$')
_SPECIAL = re.compile(r'\s*([+-]?)(inf|infinity|nan)\s*$', re.IGNORECASE)
_INT = re.compile(r'\s*([+-]?\d+)')
_MAX_FRACTION_DIGITS = 19
_MAX_EXPONENT = 38
_U64 = 2 ** 64
_LARGEST_SUBNORMAL = np.uint32(0x007fffff).view(np.float32)


def _scales():
    """float32 scale for each exponent 0..38, multiplied up as dmlc-core does."""
    table = []
    for e in range(_MAX_EXPONENT + 1):
        scale = np.float32(1)
        while e >= 8:
            scale = np.float32(scale * np.float32(1e8))
            e -= 8
        while e > 0:
            scale = np.float32(scale * np.float32(10))
            e -= 1
        table.append(scale)
    return np.array(table, np.float32)


_SCALE = _scales()


_PLAIN_INTEGERS = re.compile(r'[^0-9,\s+-]')


def parse_floats(tokens):
    """float32 values of the strings ``tokens``; ValueError naming the first that is no number."""
    if max(map(len, tokens), default=0) <= 15 and not any(_PLAIN_INTEGERS.search(t) for t in tokens):
        # integers below 2**53: float64 holds them exactly, so one rounding to float32,
        # as the parser's own; much faster than the general path
        try:
            return np.array(tokens, np.float64).astype(np.float32)
        except ValueError:
            pass                                 # e.g. '1-2': the general path names it
    n = len(tokens)
    whole = np.zeros(n, np.uint64)
    frac_num = np.zeros(n, np.float64)
    frac_den = np.ones(n, np.float64)
    exponent = np.zeros(n, np.int64)            # signed: negative divides
    negative = np.zeros(n, bool)
    special = {}
    for i, tok in enumerate(tokens):
        m = _FLOAT.match(tok)
        if m is None or not (m.group(2) or m.group(3)):
            s = _SPECIAL.match(tok)
            if s is None:
                raise ValueError(i)
            value = np.float32('nan' if s.group(2).lower() == 'nan' else 'inf')
            special[i] = -value if s.group(1) == '-' else value
            continue
        sign, digits, fraction, exp_sign, exp_digits = m.groups()
        negative[i] = sign == '-'
        if digits:
            whole[i] = int(digits) % _U64
        if fraction:
            fraction = fraction[:_MAX_FRACTION_DIGITS]
            frac_num[i] = float(int(fraction))
            frac_den[i] = float(10 ** len(fraction))
        if exp_digits:
            e = min(int(exp_digits), _MAX_EXPONENT)
            exponent[i] = -e if exp_sign == '-' else e
    with np.errstate(over='ignore', under='ignore', invalid='ignore'):
        value = whole.astype(np.float32) + (frac_num / frac_den).astype(np.float32)
        scale = _SCALE[np.abs(exponent)]
        value = np.where(exponent < 0, value / scale, value * scale).astype(np.float32)
    # Below float32's smallest normal number: with an exponent of -38 or less (the clipped
    # case) MXNet gives the largest subnormal, 0x007fffff, even for 0e-50; with a smaller
    # exponent the subnormal quotient stays (0.001e-36 gives 1e-39).
    tiny = (exponent <= -_MAX_EXPONENT) & (value < np.finfo(np.float32).tiny)
    value = np.where(tiny, _LARGEST_SUBNORMAL, value)
    value = np.where(negative, -value, value)
    for i, v in special.items():
        value[i] = v
    return value


def parse_ints(tokens, dtype):
    """Leading integers of ``tokens`` as ``dtype``; ValueError naming the first without one."""
    values = []
    for i, tok in enumerate(tokens):
        m = _INT.match(tok)
        if m is None:
            raise ValueError(i)
        values.append(int(m.group(1)))
    info = np.iinfo(dtype)
    for i, v in enumerate(values):
        if not info.min <= v <= info.max:
            raise OverflowError(i)
    return np.array(values, dtype)
