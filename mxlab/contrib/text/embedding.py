"""``mx.contrib.text.embedding``: token embeddings (MXNet 1.x), a :class:`Vocabulary` whose
tokens map to rows of ``idx_to_vec``.

``CustomEmbedding`` loads a local file of lines ``token<delim>v1<delim>v2...``;
``CompositeEmbedding`` concatenates embeddings for a vocabulary's tokens. ``GloVe`` and
``FastText`` read their files from ``embedding_root`` when already there (mxlab downloads
nothing); ``register``/``create`` keep MXNet's registry of embedding classes.
"""
import logging
import os
import warnings

import numpy

from ... import ndarray as nd
from ...base import MXNetAssertionError, MXNetKeyError, MXNetNotImplementedError, MXNetValueError
from . import vocab
from .vocab import UNKNOWN_IDX

__all__ = ["register", "create", "get_pretrained_file_names", "GloVe", "FastText",
           "CustomEmbedding", "CompositeEmbedding"]

_REGISTRY = {}


def register(embedding_cls):
    """Register a token embedding class under its lower-case name (for :func:`create`)."""
    _REGISTRY[embedding_cls.__name__.lower()] = embedding_cls
    return embedding_cls


def create(embedding_name, **kwargs):
    """An instance of the registered embedding class ``embedding_name``."""
    name = embedding_name.lower()
    if name not in _REGISTRY:
        raise MXNetKeyError(f"Cannot find token embedding {embedding_name}; registered: "
                            f"{sorted(_REGISTRY)}")
    return _REGISTRY[name](**kwargs)


def get_pretrained_file_names(embedding_name=None):
    """The pre-trained file names a registered embedding knows (all of them by name when
    ``embedding_name`` is None)."""
    if embedding_name is None:
        return {name: list(cls.pretrained_file_name_sha1) for name, cls in _REGISTRY.items()}
    if embedding_name not in _REGISTRY:
        raise MXNetKeyError(f"Cannot find `embedding_name` {embedding_name}. Use "
                            "`get_pretrained_file_names(embedding_name=None).keys()` to get all "
                            "the valid embedding names.")
    return list(_REGISTRY[embedding_name].pretrained_file_name_sha1)


def _parse_line(line, elem_delim, line_num, path):
    elems = line.rstrip().split(elem_delim)
    if len(elems) <= 1:
        raise MXNetAssertionError(f"At line {line_num} of the pre-trained text embedding file: "
                                  f"the data format of the pre-trained token embedding file "
                                  f"{path} is unexpected.")
    return elems[0], [float(v) for v in elems[1:]]


class _TokenEmbedding(vocab.Vocabulary):
    """Base of the embeddings: a vocabulary plus ``idx_to_vec`` (one row per index)."""

    pretrained_file_name_sha1 = {}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._vec_len, self._idx_to_vec = None, None

    def _load_embedding(self, path, elem_delim, init_unknown_vec, encoding="utf8"):
        """Index every token of the file (the first line of a repeated token wins; a line with
        one value is taken for a header and skipped); row 0 is the file's unknown token or
        ``init_unknown_vec(shape=vec_len)``."""
        path = os.path.expanduser(path)
        if not os.path.isfile(path):
            raise MXNetValueError("`pretrained_file_path` must be a valid path to the "
                                  f"pre-trained token embedding file, got {path}")
        logging.info("Loading pre-trained token embedding vectors from %s", path)
        rows, seen, unknown_vec = [], set(), None
        with open(path, "r", encoding=encoding) as f:
            for line_num, line in enumerate(f, 1):
                token, elems = _parse_line(line, elem_delim, line_num, path)
                if token == self.unknown_token and unknown_vec is None:
                    unknown_vec = elems
                    seen.add(token)
                elif token in seen:
                    warnings.warn(f"At line {line_num} of the pre-trained token embedding file: "
                                  f"a duplicate embedding for token {token} is skipped.")
                elif len(elems) == 1:
                    warnings.warn(f"At line {line_num} of the pre-trained text embedding file: "
                                  f"token {token} with 1-dimensional vector {elems} is likely a "
                                  "header and is skipped.")
                else:
                    if rows and len(elems) != len(rows[0]):
                        raise MXNetAssertionError(
                            f"At line {line_num} of the pre-trained token embedding file: the "
                            f"dimension of token {token} is {len(elems)} but the dimension of "
                            f"previous tokens is {len(rows[0])}. Dimensions of all the tokens "
                            "must be the same.")
                    rows.append(elems)
                    self._idx_to_token.append(token)
                    self._token_to_idx[token] = len(self._idx_to_token) - 1
                    seen.add(token)
        self._vec_len = len(rows[0]) if rows else len(unknown_vec or ())
        if unknown_vec is None:
            unknown_vec = init_unknown_vec(shape=self._vec_len).asnumpy()
        self._idx_to_vec = nd.array(numpy.array([unknown_vec] + rows, dtype=numpy.float32))

    def _index_tokens_from_vocabulary(self, vocabulary):
        self._token_to_idx = dict(vocabulary.token_to_idx)
        self._idx_to_token = list(vocabulary.idx_to_token)
        self._unknown_token = vocabulary.unknown_token
        self._reserved_tokens = (None if vocabulary.reserved_tokens is None
                                 else list(vocabulary.reserved_tokens))

    def _set_idx_to_vec_by_embeddings(self, token_embeddings, vocab_len, vocab_idx_to_token):
        """Rows for ``vocab_idx_to_token``: each embedding's vectors side by side (row 0: each
        embedding's own unknown vector)."""
        blocks = []
        for embed in token_embeddings:
            block = numpy.zeros((vocab_len, embed.vec_len), dtype=numpy.float32)
            block[0] = embed.idx_to_vec[0].asnumpy()
            if vocab_len > 1:
                block[1:] = embed.get_vecs_by_tokens(list(vocab_idx_to_token[1:])).asnumpy()
            blocks.append(block)
        self._vec_len = sum(e.vec_len for e in token_embeddings)
        self._idx_to_vec = nd.array(numpy.concatenate(blocks, axis=1))

    def _build_embedding_for_vocabulary(self, vocabulary):
        if vocabulary is None:
            return
        if not isinstance(vocabulary, vocab.Vocabulary):
            raise MXNetAssertionError("The argument `vocabulary` must be an instance of "
                                      "mxnet.contrib.text.vocab.Vocabulary.")
        self._set_idx_to_vec_by_embeddings([self], len(vocabulary), vocabulary.idx_to_token)
        self._index_tokens_from_vocabulary(vocabulary)

    @property
    def vec_len(self):
        return self._vec_len

    @property
    def idx_to_vec(self):
        return self._idx_to_vec

    def get_vecs_by_tokens(self, tokens, lower_case_backup=False):
        """The vector of a token (1-D) or of a list of tokens (2-D); unknown tokens get row 0.
        With ``lower_case_backup`` a token not found is looked up again in lower case."""
        single = not isinstance(tokens, list)
        find = self._token_to_idx
        indices = [find[t] if t in find else
                   (find.get(t.lower(), UNKNOWN_IDX) if lower_case_backup else UNKNOWN_IDX)
                   for t in ([tokens] if single else tokens)]
        vecs = nd.Embedding(nd.array(indices), self._idx_to_vec, input_dim=len(self._idx_to_vec),
                            output_dim=self._vec_len)
        return vecs[0] if single else vecs

    def update_token_vectors(self, tokens, new_vectors):
        """Overwrite the vectors of known ``tokens`` (the unknown token by its name)."""
        if self._idx_to_vec is None:
            raise MXNetAssertionError("The property `idx_to_vec` has not been properly set.")
        tokens = tokens if isinstance(tokens, list) else [tokens]
        if not isinstance(new_vectors, nd.NDArray):
            raise MXNetAssertionError("`new_vectors` must be an NDArray")
        values = new_vectors.asnumpy()
        values = values[None] if values.ndim == 1 and len(tokens) == 1 else values
        if values.shape != (len(tokens), self._vec_len):
            raise MXNetAssertionError("The length of new_vectors must be equal to the number of "
                                      "tokens and the width of new_vectors must be equal to the "
                                      "dimension of embeddings of the glossary.")
        unknown = [t for t in tokens if t not in self._token_to_idx]
        if unknown:
            raise MXNetValueError(f"Token {unknown[0]} is unknown. To update the embedding vector "
                                  "for an unknown token, please specify it explicitly as the "
                                  f"`unknown_token` {self._idx_to_token[UNKNOWN_IDX]} in "
                                  "`tokens`. This is to avoid unintended updates.")
        host = self._idx_to_vec.asnumpy()
        host[[self._token_to_idx[t] for t in tokens]] = values
        self._idx_to_vec[:] = host


class _Pretrained(_TokenEmbedding):
    """An embedding read from ``<embedding_root>/<class name>/<file>`` if it is already there."""

    def __init__(self, pretrained_file_name, embedding_root, init_unknown_vec, vocabulary,
                 **kwargs):
        super().__init__(**kwargs)
        path = os.path.join(os.path.expanduser(embedding_root), type(self).__name__.lower(),
                            pretrained_file_name)
        if not os.path.isfile(path):
            raise MXNetNotImplementedError(
                f"{type(self).__name__}: downloading pre-trained embeddings is not built in "
                f"mxlab; place {pretrained_file_name} at {path}")
        self._load_embedding(path, " ", init_unknown_vec)
        self._build_embedding_for_vocabulary(vocabulary)


def _default_root():
    return os.path.join(os.environ.get("MXNET_HOME", os.path.join("~", ".mxnet")), "embeddings")


@register
class GloVe(_Pretrained):
    """GloVe vectors (Pennington et al. 2014) from a local copy of the file."""

    def __init__(self, pretrained_file_name="glove.840B.300d.txt", embedding_root=None,
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        super().__init__(pretrained_file_name, embedding_root or _default_root(),
                         init_unknown_vec, vocabulary, **kwargs)


@register
class FastText(_Pretrained):
    """fastText vectors (Bojanowski et al. 2016) from a local copy of the file."""

    def __init__(self, pretrained_file_name="wiki.simple.vec", embedding_root=None,
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        super().__init__(pretrained_file_name, embedding_root or _default_root(),
                         init_unknown_vec, vocabulary, **kwargs)


class CustomEmbedding(_TokenEmbedding):
    """Vectors from a local file of ``token<elem_delim>v1<elem_delim>v2...`` lines, indexed as
    the file lists them, or as ``vocabulary`` does when given."""

    def __init__(self, pretrained_file_path, elem_delim=" ", encoding="utf8",
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        super().__init__(**kwargs)
        self._load_embedding(pretrained_file_path, elem_delim, init_unknown_vec, encoding)
        self._build_embedding_for_vocabulary(vocabulary)


class CompositeEmbedding(_TokenEmbedding):
    """``vocabulary``'s tokens with the vectors of ``token_embeddings`` concatenated."""

    def __init__(self, vocabulary, token_embeddings):
        if not isinstance(vocabulary, vocab.Vocabulary):
            raise MXNetAssertionError("The argument `vocabulary` must be an instance of "
                                      "mxnet.contrib.text.vocab.Vocabulary.")
        embeds = token_embeddings if isinstance(token_embeddings, list) else [token_embeddings]
        if not all(isinstance(e, _TokenEmbedding) for e in embeds):
            raise MXNetAssertionError("The argument `token_embeddings` must be an instance or a "
                                      "list of instances of token embeddings.")
        super().__init__()
        self._index_tokens_from_vocabulary(vocabulary)
        self._set_idx_to_vec_by_embeddings(embeds, len(self), self.idx_to_token)
