"""A vocabulary: the two-way map between text tokens and the integers a network reads.

Index 0 always belongs to the unknown token, so that any token the vocabulary never saw
still gets a valid index (0).  Next come the reserved tokens (padding, begin/end of
sentence, ...) in the order given, and then the tokens of a counter, most frequent first,
ties broken by the tokens' own order, so that the same counter always gives the same
indices.
"""

import collections

from ...base import MXNetError

__all__ = ['Vocabulary', 'TextError', 'UNKNOWN_IDX']

# The index of the unknown token, in every vocabulary and every token embedding.
UNKNOWN_IDX = 0


class TextError(MXNetError, AssertionError, ValueError):
    """A wrong argument or input to ``mx.contrib.text``.

    Where MXNet 1.9.1 fails an ``assert`` this is an AssertionError, and where it raises
    ValueError this is one too, so code written to catch MXNet's errors catches these.
    """


class Vocabulary(object):
    """Indices for text tokens: the unknown token, reserved tokens and the keys of a counter.

    Parameters
    ----------
    counter : collections.Counter or None, default None
        Token frequencies; its keys are indexed, most frequent first, subject to
        ``most_freq_count`` and ``min_freq``.  Tokens of equal frequency are indexed in
        sorted order, so keys (and ``unknown_token`` and ``reserved_tokens``) must be of one
        comparable, hashable type: str, int, tuple...
    most_freq_count : int or None, default None
        At most this many keys of ``counter`` are indexed (reserved tokens and the unknown
        token do not count).  None: no limit.
    min_freq : int, default 1
        Keys of ``counter`` seen fewer times than this are not indexed.
    unknown_token : hashable, default '<unk>'
        The token standing for every token not in the vocabulary; its index is 0.
    reserved_tokens : list or None, default None
        Tokens always indexed, right after the unknown token, such as a padding token.  No
        duplicates, and not ``unknown_token``.

    Attributes
    ----------
    token_to_idx : dict
        Token -> index.
    idx_to_token : list
        Index -> token.
    unknown_token : hashable
        The token of index 0.
    reserved_tokens : list or None
        The reserved tokens, as given.
    """

    def __init__(self, counter=None, most_freq_count=None, min_freq=1, unknown_token='<unk>',
                 reserved_tokens=None):
        if not min_freq > 0:
            raise TextError('Vocabulary: min_freq must be positive, got %r' % (min_freq,))
        if reserved_tokens is not None:
            if unknown_token in reserved_tokens:
                raise TextError('Vocabulary: reserved_tokens %r must not contain the unknown token %r'
                                % (reserved_tokens, unknown_token))
            if len(set(reserved_tokens)) != len(reserved_tokens):
                raise TextError('Vocabulary: reserved_tokens %r has duplicates' % (reserved_tokens,))

        self._index_unknown_and_reserved_tokens(unknown_token, reserved_tokens)
        if counter is not None:
            self._index_counter_keys(counter, unknown_token, reserved_tokens, most_freq_count,
                                     min_freq)

    def _index_unknown_and_reserved_tokens(self, unknown_token, reserved_tokens):
        """Start the index: the unknown token at 0, then the reserved tokens in order."""
        self._unknown_token = unknown_token
        self._reserved_tokens = None if reserved_tokens is None else list(reserved_tokens)
        self._idx_to_token = [unknown_token] + (self._reserved_tokens or [])
        self._token_to_idx = {token: idx for idx, token in enumerate(self._idx_to_token)}

    def _index_counter_keys(self, counter, unknown_token, reserved_tokens, most_freq_count,
                            min_freq):
        """Append the keys of ``counter`` that pass the frequency thresholds."""
        if not isinstance(counter, collections.Counter):
            raise TextError('Vocabulary: counter must be a collections.Counter, got %s'
                            % type(counter).__name__)
        already_indexed = set(self._idx_to_token)

        # Most frequent first; among equal counts, in the tokens' sorted order (the first
        # sort by token survives the second, stable, sort by count).
        by_frequency = sorted(counter.items(), key=lambda item: item[0])
        by_frequency.sort(key=lambda item: item[1], reverse=True)

        # The cap counts the unknown and reserved tokens too, so that counter keys that
        # repeat them (and are skipped) do not use up ``most_freq_count``.  As in MXNet, the
        # loop stops when the index is exactly at the cap: a negative most_freq_count never
        # reaches it and so sets no limit.
        cap = len(already_indexed) + (len(counter) if most_freq_count is None else most_freq_count)
        for token, freq in by_frequency:
            if freq < min_freq or len(self._idx_to_token) == cap:
                break      # sorted by frequency: every later token is rarer still
            if token not in already_indexed:
                self._token_to_idx[token] = len(self._idx_to_token)
                self._idx_to_token.append(token)

    def __len__(self):
        return len(self._idx_to_token)

    @property
    def token_to_idx(self):
        """dict: token -> index."""
        return self._token_to_idx

    @property
    def idx_to_token(self):
        """list: index -> token (list positions are the indices)."""
        return self._idx_to_token

    @property
    def unknown_token(self):
        """The token of index 0, standing for every token not indexed."""
        return self._unknown_token

    @property
    def reserved_tokens(self):
        """list or None: the tokens indexed right after the unknown token."""
        return self._reserved_tokens

    def to_indices(self, tokens):
        """The index of a token, or the list of indices of a list of tokens.

        A token not in the vocabulary gets ``UNKNOWN_IDX`` (0).  Only a list counts as
        several tokens: a tuple is one (tuples can be tokens).
        """
        if not isinstance(tokens, list):
            return self._token_to_idx.get(tokens, UNKNOWN_IDX)
        return [self._token_to_idx.get(token, UNKNOWN_IDX) for token in tokens]

    def to_tokens(self, indices):
        """The token of an index, or the list of tokens of a list of indices.

        Raises ValueError (a TextError) for an index that is not an int or is past the end.
        A negative index counts from the end, as Python's lists do (and MXNet lets it).
        """
        single = not isinstance(indices, list)
        if single:
            indices = [indices]
        last = len(self._idx_to_token) - 1
        tokens = []
        for idx in indices:
            if not isinstance(idx, int) or idx > last:
                raise TextError('Vocabulary.to_tokens: %r is not a token index (the vocabulary has '
                                'indices 0 to %d)' % (idx, last))
            tokens.append(self._idx_to_token[idx])
        return tokens[0] if single else tokens
