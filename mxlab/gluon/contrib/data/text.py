"""``mx.gluon.contrib.data.text``: MXNet 1.x's word-level language-model datasets (WikiText-2,
WikiText-103), read from local files.

Each sample is ``(data, label)``: ``seq_len`` int32 token indices and the same shifted by one
token; every non-empty line ends with ``<eos>``, and the tail that does not fill a sample is
dropped (as MXNet 1.9.1). The ``wiki.<segment>.tokens`` files are taken from ``root``, unpacked
from the release archive (``wikitext-2-v1.zip``) there when only that is present. Nothing is
downloaded: a missing file raises an error naming it (mxlab's rule for data sets).

Examples
--------
>>> import os, tempfile
>>> import mxlab as mx
>>> root = tempfile.mkdtemp()
>>> for seg in ("train", "valid", "test"):
...     with open(os.path.join(root, f"wiki.{seg}.tokens"), "w") as f:
...         _ = f.write(" a b c \\n\\n b c a \\n")
>>> train = mx.gluon.contrib.data.text.WikiText2(root, "train", seq_len=3)
>>> len(train), train.vocabulary.to_tokens(train[0][0].asnumpy().tolist())
(2, ['a', 'b', 'c'])
"""
import os
import shutil
import zipfile

import numpy as np

from ....atomic_file import atomic_write
from ....base import MXNetValueError, data_dir
from ....gluon.data.vision.datasets import _require
from ....ndarray import array as _nd_array
from ...data.dataset import Dataset
from ._vocab import Vocabulary, count_tokens_from_str

__all__ = ["WikiText2", "WikiText103"]

EOS_TOKEN = "<eos>"
_FILES = {"train": "wiki.train.tokens", "validation": "wiki.valid.tokens",
          "test": "wiki.test.tokens"}


class _WikiText(Dataset):
    _namespace = None
    _archive = None

    def __init__(self, root=None, segment="train", vocab=None, seq_len=35):
        if segment not in _FILES:
            raise MXNetValueError(f"{type(self).__name__}: segment must be one of "
                                  f"'train', 'validation', 'test', got {segment!r}")
        self._root = os.path.expanduser(root or os.path.join(data_dir(), "datasets",
                                                             self._namespace))
        self._segment, self._seq_len = segment, int(seq_len)
        self._vocab, self._counter = vocab, None
        self._data, self._label = self._load()

    @property
    def vocabulary(self):
        """The :class:`mx.contrib.text.vocab.Vocabulary` indexing the tokens."""
        return self._vocab

    @property
    def frequencies(self):
        """The token counter of this segment (``None`` when a ``vocab`` was given)."""
        return self._counter

    def _path(self):
        name = _FILES[self._segment]
        path = os.path.join(self._root, name)
        archive = os.path.join(self._root, self._archive)
        if not os.path.exists(path) and os.path.exists(archive):
            with zipfile.ZipFile(archive) as zf:      # MXNet flattens the archive's folders
                for member in zf.namelist():
                    base = os.path.basename(member)
                    if base:
                        with zf.open(member) as src, \
                                atomic_write(os.path.join(self._root, base)) as dst:
                            shutil.copyfileobj(src, dst)
        return _require(self._root, name, type(self).__name__,
                        f"the {self._namespace} token files or {self._archive}")

    def _load(self):
        with open(self._path(), encoding="utf8") as fin:
            content = fin.read()
        if self._vocab is None:
            self._counter = count_tokens_from_str(content)
            self._vocab = Vocabulary(counter=self._counter, reserved_tokens=[EOS_TOKEN])
        tokens = [tok for line in content.splitlines() if line.split()
                  for tok in line.split() + [EOS_TOKEN]]
        ids = np.asarray(self._vocab.to_indices(tokens), dtype=np.int32)
        usable = (len(ids) - 1) // self._seq_len * self._seq_len
        data = ids[:usable].reshape(-1, self._seq_len)
        label = ids[1:usable + 1].reshape(-1, self._seq_len)
        return (_nd_array(data, dtype=np.int32), _nd_array(label, dtype=np.int32))

    def __getitem__(self, idx):
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)


class WikiText2(_WikiText):
    """WikiText-2 (``root`` defaults to ``$MXNET_HOME/datasets/wikitext-2``)."""
    _namespace = "wikitext-2"
    _archive = "wikitext-2-v1.zip"


class WikiText103(_WikiText):
    """WikiText-103 (``root`` defaults to ``$MXNET_HOME/datasets/wikitext-103``)."""
    _namespace = "wikitext-103"
    _archive = "wikitext-103-v1.zip"
