"""``attempt``: run a call that may be refused, and print what happened, one line per call."""

from ..base import MXNetError

__all__ = ['attempt']


def attempt(what, call, width=28):
    """Run ``call()``; print ``what`` and ``ok``, or the reflib error it raised (its class and
    message).  Any other exception is a bug in the cell and goes through."""
    try:
        call()
        print('%-*s ok' % (width, what))
    except MXNetError as err:
        print('%-*s %s: %s' % (width, what, type(err).__name__, err))
