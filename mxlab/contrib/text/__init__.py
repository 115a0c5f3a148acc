"""``mx.contrib.text``: MXNet 1.x's text utilities: token counting (``utils``), a frequency-
ordered ``vocab.Vocabulary`` and token embeddings loaded from local files (``embedding``).

Example
-------
>>> import collections
>>> import mxlab as mx
>>> counter = mx.contrib.text.utils.count_tokens_from_str('a b b\\nc b\\n')
>>> vocab = mx.contrib.text.vocab.Vocabulary(counter)
>>> vocab.idx_to_token, vocab.to_indices(['b', 'zzz'])
(['<unk>', 'b', 'a', 'c'], [1, 0])
"""
from . import embedding, utils, vocab  # noqa: F401
