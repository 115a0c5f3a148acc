"""Token counting for ``mx.contrib.text``."""
import collections
import re

__all__ = ["count_tokens_from_str"]


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
