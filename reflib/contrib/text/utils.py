"""Small helpers for turning raw text into token counts.

A vocabulary is built from a ``collections.Counter`` of tokens; ``count_tokens_from_str``
is the simplest way to get one from a string of text.
"""

import collections
import re

__all__ = ['count_tokens_from_str']


def count_tokens_from_str(source_str, token_delim=' ', seq_delim='\n', to_lower=False,
                          counter_to_update=None):
    """Count the tokens of ``source_str``.

    The text is cut wherever ``token_delim`` or ``seq_delim`` matches; both are regular
    expressions (escape special characters, e.g. ``'\\*'``).  Empty pieces, such as the
    ones between two delimiters in a row, are not tokens.

    Parameters
    ----------
    source_str : str
        The text to count tokens in.
    token_delim : str, default ' '
        Regular expression separating tokens.
    seq_delim : str, default '\\n'
        Regular expression separating sequences (sentences, lines).
    to_lower : bool, default False
        Whether to count tokens lower-cased, so that 'Life' and 'life' are one token.
    counter_to_update : collections.Counter or None
        A counter to add these counts to (and return); a new one when None.

    Returns
    -------
    collections.Counter
        Token -> number of occurrences.

    Examples
    --------
    >>> count_tokens_from_str(' Life is great ! \\n life is good . \\n', to_lower=True)
    Counter({'life': 2, 'is': 2, 'great': 1, '!': 1, 'good': 1, '.': 1})
    """
    # Sequences are only a second kind of separator here: counting does not need them apart.
    pieces = re.split(token_delim + '|' + seq_delim, source_str)
    tokens = [piece for piece in pieces if piece]
    if to_lower:
        tokens = [token.lower() for token in tokens]

    if counter_to_update is None:
        return collections.Counter(tokens)
    counter_to_update.update(tokens)
    return counter_to_update
