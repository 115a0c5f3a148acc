"""Token counting for ``mx.contrib.text`` (defined in ``mxlab.gluon.contrib.data._vocab``)."""
from ...gluon.contrib.data._vocab import count_tokens_from_str

__all__ = ["count_tokens_from_str"]
