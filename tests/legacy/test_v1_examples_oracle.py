"""Pieces of MXNet 1.9.1's ``example/`` scripts against real MXNet 1.9.1 (opt-in ``oracle``
tests): the same data pipeline gives the same arrays."""
import pathlib
import sys

import numpy
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "oracle"))
from mxnet_oracle import requires_mxnet, run_mxlab, run_mxnet  # noqa: E402

pytestmark = [pytest.mark.oracle, requires_mxnet]

# NOTE: MXNet re-fetches a file whose SHA-1 is not the release's; the fake files are taken as they
#   are by turning that check off on its side (mxlab never fetches).
_WIKITEXT = """
import importlib, os, tempfile
T = importlib.import_module(mx.__name__ + '.gluon.contrib.data.text')
if hasattr(T, 'check_sha1'):
    T.check_sha1 = lambda *a: True
root = tempfile.mkdtemp()
lines = [' = Title = ', '', ' the cat sat on the mat . ', ' a dog , the cat and a bird . ', '']
for name in ('train', 'valid', 'test'):
    with open(os.path.join(root, 'wiki.%s.tokens' % name), 'w') as f:
        f.write('\\n'.join(lines * (3 if name == 'train' else 1)) + '\\n')
train = T.WikiText2(root, 'train', seq_len=5)
val = T.WikiText2(root, 'validation', vocab=train.vocabulary, seq_len=4)
outputs['n'] = len(train)
outputs['data'] = train._data.asnumpy()
outputs['label'] = train._label.asnumpy()
outputs['val'] = val._data.asnumpy()
outputs['vocab'] = np.array(train.vocabulary.idx_to_token)
outputs['first'] = train[1][0].asnumpy()
"""


def test_wikitext2_matches_mxnet():
    theirs = run_mxnet(_WIKITEXT, {})
    ours = run_mxlab(_WIKITEXT, {})
    assert int(ours["n"]) == int(theirs["n"])
    for key in ("data", "label", "val", "vocab", "first"):
        numpy.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)
    assert ours["data"].dtype == theirs["data"].dtype
