"""``mx.rnn.io``: sentences to integer codes, and MXNet 1.x's bucketing iterator for language
models (``BucketSentenceIter``: each batch holds sentences padded to one bucket length, labelled
with the next token)."""
import bisect
import logging
import random

import numpy

from .. import ndarray
from ..base import MXNetKeyError, MXNetValueError
from ..io import DataBatch, DataDesc, DataIter

__all__ = ["encode_sentences", "BucketSentenceIter"]


def encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key="\n", start_label=0,
                     unknown_token=None):
    """``(codes, vocab)``: each sentence (a list of tokens) as a list of ints.

    Without ``vocab`` a new one is built (``invalid_key`` -> ``invalid_label``, then new tokens
    from ``start_label`` on, skipping ``invalid_label``); with one, an unknown token is added as
    ``unknown_token`` (a token not in ``vocab`` with no ``unknown_token`` is an error).
    """
    new_vocab = vocab is None
    vocab = {invalid_key: invalid_label} if new_vocab else vocab
    idx, result = start_label, []
    for sentence in sentences:
        coded = []
        for word in sentence:
            if word not in vocab:
                if not (new_vocab or unknown_token):
                    raise MXNetKeyError(f"Unknown token {word}")
                if idx == invalid_label:
                    idx += 1
                if unknown_token:
                    word = unknown_token
                vocab[word] = idx
                idx += 1
            coded.append(vocab[word])
        result.append(coded)
    return result, vocab


def _bucketed(sentences, buckets, invalid_label, dtype):
    """Sentences padded with ``invalid_label`` into the smallest bucket that fits; the used
    buckets, their arrays and how many sentences fit none."""
    data = [[] for _ in buckets]
    used = [False] * len(buckets)
    discarded = 0
    for sentence in sentences:
        buck = bisect.bisect_left(buckets, len(sentence))
        if buck == len(buckets):
            discarded += 1
            continue
        used[buck] = True
        row = numpy.full((buckets[buck],), invalid_label, dtype=dtype)
        row[:len(sentence)] = sentence
        data[buck].append(row)
    kept = [b for b, u in zip(buckets, used) if u]
    return kept, [numpy.asarray(d, dtype=dtype) for d in data if d], discarded


class BucketSentenceIter(DataIter):
    """Batches of encoded sentences grouped by length (``bucket_key``: the padded length).

    Parameters
    ----------
    sentences : list of list of int
    batch_size : int
    buckets : list of int, optional
        Bucket lengths; by default every length at least ``batch_size`` sentences have.
    invalid_label : int, default -1
        Padding, and the label after a sentence's last token.
    data_name, label_name : str
    dtype : str, default 'float32'
    layout : str, 'NT' (batch major, default) or 'TN'
    """

    def __init__(self, sentences, batch_size, buckets=None, invalid_label=-1, data_name="data",
                 label_name="softmax_label", dtype="float32", layout="NT"):
        super().__init__(batch_size)
        if not buckets:
            counts = numpy.bincount([len(s) for s in sentences])
            buckets = [i for i, j in enumerate(counts) if j >= batch_size]
        buckets = sorted(buckets)
        self.buckets, self.data, discarded = _bucketed(sentences, buckets, invalid_label, dtype)
        if not self.buckets:
            raise MXNetValueError("BucketSentenceIter: no sentence fits a bucket")
        logging.warning("discarded %d sentences longer than the largest bucket.", discarded)
        self.batch_size, self.data_name, self.label_name = batch_size, data_name, label_name
        self.dtype, self.invalid_label, self.layout = dtype, invalid_label, layout
        self.major_axis = layout.find("N")
        if layout not in ("NT", "TN"):
            raise MXNetValueError(f"Invalid layout {layout}: Must by NT (batch major) or TN "
                                  "(time major)")
        self.default_bucket_key = max(self.buckets)
        shape = (batch_size, self.default_bucket_key)
        shape = shape if self.major_axis == 0 else shape[::-1]
        self.provide_data = [DataDesc(name=data_name, shape=shape, layout=layout)]
        self.provide_label = [DataDesc(name=label_name, shape=shape, layout=layout)]
        self.idx = [(i, j) for i, buck in enumerate(self.data)
                    for j in range(0, len(buck) - batch_size + 1, batch_size)]
        self.curr_idx = 0
        self.nddata, self.ndlabel = [], []
        self.reset()

    def reset(self):
        """Shuffle the batches and the sentences within each bucket; start over."""
        self.curr_idx = 0
        random.shuffle(self.idx)
        for buck in self.data:
            numpy.random.shuffle(buck)
        self.nddata, self.ndlabel = [], []
        for buck in self.data:
            label = numpy.empty_like(buck)
            label[:, :-1] = buck[:, 1:]
            label[:, -1] = self.invalid_label
            self.nddata.append(ndarray.array(buck, dtype=self.dtype))
            self.ndlabel.append(ndarray.array(label, dtype=self.dtype))

    def next(self):
        """The next :class:`~mxlab.io.DataBatch` (``bucket_key`` its padded length)."""
        if self.curr_idx == len(self.idx):
            raise StopIteration
        i, j = self.idx[self.curr_idx]
        self.curr_idx += 1
        data = self.nddata[i][j:j + self.batch_size]
        label = self.ndlabel[i][j:j + self.batch_size]
        if self.major_axis == 1:
            data, label = data.T, label.T
        return DataBatch([data], [label], pad=0, bucket_key=self.buckets[i],
                         provide_data=[DataDesc(name=self.data_name, shape=data.shape,
                                                layout=self.layout)],
                         provide_label=[DataDesc(name=self.label_name, shape=label.shape,
                                                 layout=self.layout)])
