"""``mx.contrib.text.vocab.Vocabulary``: tokens indexed by frequency (MXNet 1.x); defined in
``mxlab.gluon.contrib.data._vocab``, which ``gluon.contrib.data.text``'s datasets use too."""
from ...gluon.contrib.data._vocab import UNKNOWN_IDX, Vocabulary

__all__ = ["Vocabulary", "UNKNOWN_IDX"]
