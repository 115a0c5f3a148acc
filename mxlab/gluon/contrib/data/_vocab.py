"""``mx.contrib.text.vocab.Vocabulary`` (tokens indexed by frequency) and
``mx.contrib.text.utils.count_tokens_from_str`` (MXNet 1.x).

They live here, below ``mx.contrib``, because ``gluon.contrib.data.text``'s datasets build their
vocabularies with them; ``mx.contrib.text.vocab`` and ``.utils`` re-export them.
"""
import collections
import re

from ....base import MXNetAssertionError, MXNetValueError

__all__ = ["Vocabulary", "UNKNOWN_IDX", "count_tokens_from_str"]

UNKNOWN_IDX = 0   # the unknown token's index, always


def _check(condition, message):
    if not condition:
        raise MXNetAssertionError(message)


class Vocabulary:
    """Index 0 is ``unknown_token``, then ``reserved_tokens`` in order, then the keys of
    ``counter`` by decreasing frequency (ties in sorted order), at least ``min_freq`` times
    seen and at most ``most_freq_count`` of them.
    """

    def __init__(self, counter=None, most_freq_count=None, min_freq=1, unknown_token="<unk>",
                 reserved_tokens=None):
        _check(min_freq > 0, "`min_freq` must be set to a positive value.")
        if reserved_tokens is not None:
            _check(unknown_token not in set(reserved_tokens),
                   "`reserved_token` cannot contain `unknown_token`.")
            _check(len(set(reserved_tokens)) == len(reserved_tokens),
                   "`reserved_tokens` cannot contain duplicate reserved tokens.")
        self._unknown_token = unknown_token
        self._reserved_tokens = None if reserved_tokens is None else list(reserved_tokens)
        self._idx_to_token = [unknown_token] + list(reserved_tokens or ())
        self._token_to_idx = {t: i for i, t in enumerate(self._idx_to_token)}
        if counter is not None:
            self._index_counter_keys(counter, most_freq_count, min_freq)

    def _index_counter_keys(self, counter, most_freq_count, min_freq):
        _check(isinstance(counter, collections.Counter),
               "`counter` must be an instance of collections.Counter.")
        special = set(self._idx_to_token)
        by_freq = sorted(sorted(counter.items(), key=lambda x: x[0]), key=lambda x: x[1],
                         reverse=True)
        cap = len(special) + (len(counter) if most_freq_count is None else most_freq_count)
        for token, freq in by_freq:
            if freq < min_freq or len(self._idx_to_token) == cap:
                break
            if token not in special:
                self._idx_to_token.append(token)
                self._token_to_idx[token] = len(self._idx_to_token) - 1

    def __len__(self):
        return len(self._idx_to_token)

    @property
    def token_to_idx(self):
        return self._token_to_idx

    @property
    def idx_to_token(self):
        return self._idx_to_token

    @property
    def unknown_token(self):
        return self._unknown_token

    @property
    def reserved_tokens(self):
        return self._reserved_tokens

    def to_indices(self, tokens):
        """Index (or indices, for a list) of ``tokens``; unknown tokens give 0."""
        if not isinstance(tokens, list):
            return self._token_to_idx.get(tokens, UNKNOWN_IDX)
        return [self._token_to_idx.get(t, UNKNOWN_IDX) for t in tokens]

    def to_tokens(self, indices):
        """Token (or tokens, for a list) at ``indices``."""
        single = not isinstance(indices, list)
        tokens = []
        for idx in [indices] if single else indices:
            if not isinstance(idx, int) or not 0 <= idx < len(self._idx_to_token):
                raise MXNetValueError(f"Token index {idx} in the provided `indices` is invalid.")
            tokens.append(self._idx_to_token[idx])
        return tokens[0] if single else tokens


def count_tokens_from_str(source_str, token_delim=" ", seq_delim="\n", to_lower=False,
                          counter_to_update=None):
    """A ``collections.Counter`` of the tokens of ``source_str``.

    ``token_delim`` and ``seq_delim`` are regular expressions splitting tokens and sequences
    (empty pieces are dropped); ``to_lower`` counts lower-cased tokens; ``counter_to_update`` is
    updated in place and returned when given.
    """
    tokens = [t for t in re.split(token_delim + "|" + seq_delim, source_str) if t]
    if to_lower:
        tokens = [t.lower() for t in tokens]
    if counter_to_update is None:
        return collections.Counter(tokens)
    counter_to_update.update(tokens)
    return counter_to_update
