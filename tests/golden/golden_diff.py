"""Where a case's result differs from MXNet's recorded one: shared by the test files that
compare golden cases of nested dicts and lists (numbers to float32 rounding)."""
import numpy as np


def differences(got, want, where, error_kinds_may_add=False):
    """The paths where ``got`` differs from MXNet's ``want``, with both values.

    With ``error_kinds_may_add``, an error record (``{'error': [builtin kinds]}``) matches
    when reflib's error is of every kind MXNet's is, and maybe more (reflib's errors are also
    ValueErrors or TypeErrors where MXNet raises a bare MXNetError)."""
    if isinstance(want, dict):
        if (error_kinds_may_add and set(want) == {'error'} and isinstance(got, dict)
                and set(got) == {'error'}):
            same = set(want['error']) <= set(got['error'])
            return [] if same else ['%s: %r, MXNet %r' % (where, got, want)]
        if not isinstance(got, dict) or sorted(got) != sorted(want):
            keys = sorted(got) if isinstance(got, dict) else got
            return ['%s: keys %s, MXNet %s' % (where, keys, sorted(want))]
        return [d for k in sorted(want)
                for d in differences(got[k], want[k], '%s.%s' % (where, k), error_kinds_may_add)]
    if isinstance(want, list):
        if not isinstance(got, (list, tuple)) or len(got) != len(want):
            return ['%s: %r, MXNet %r' % (where, got, want)]
        return [d for i, (g, w) in enumerate(zip(got, want))
                for d in differences(g, w, '%s[%d]' % (where, i), error_kinds_may_add)]
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        close = np.isclose(got, want, rtol=1e-5, atol=2e-5)
        return [] if close else ['%s: %r, MXNet %r' % (where, got, want)]
    return [] if got == want else ['%s: %r, MXNet %r' % (where, got, want)]
