"""mx.contrib.text: token counts, the frequency-ordered vocabulary, embeddings from local files."""
import collections

import numpy as np
import pytest

import mxlab as mx

text = mx.contrib.text


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def test_vocabulary_orders_by_frequency_then_token():
    counter = text.utils.count_tokens_from_str("b a c\nb c\nc\n")
    assert counter == collections.Counter({"c": 3, "b": 2, "a": 1})
    v = text.vocab.Vocabulary(counter, most_freq_count=2, reserved_tokens=["<pad>"])
    assert v.idx_to_token == ["<unk>", "<pad>", "c", "b"]
    assert v.to_indices(["b", "a"]) == [3, 0] and v.to_tokens(2) == "c"
    with pytest.raises(ValueError, match="invalid"):
        v.to_tokens(9)
    with pytest.raises(AssertionError, match="unknown_token"):
        text.vocab.Vocabulary(counter, reserved_tokens=["<unk>"])


def test_custom_embedding_loads_a_file_and_maps_unknowns(tmp_path):
    path = _write(tmp_path / "e.txt", ["a 1 2", "b 3 4", "a 9 9", "<unk> 7 7"])
    with pytest.warns(UserWarning, match="duplicate"):
        embed = text.embedding.CustomEmbedding(path)
    assert embed.idx_to_token == ["<unk>", "a", "b"] and embed.vec_len == 2
    np.testing.assert_array_equal(embed.get_vecs_by_tokens(["b", "zz"]).asnumpy(),
                                  [[3, 4], [7, 7]])
    np.testing.assert_array_equal(embed.get_vecs_by_tokens("A", lower_case_backup=True)
                                  .asnumpy(), [1, 2])
    embed.update_token_vectors("a", mx.nd.array([5, 6]))
    np.testing.assert_array_equal(embed.idx_to_vec[1].asnumpy(), [5, 6])
    with pytest.raises(ValueError, match="unknown"):
        embed.update_token_vectors("zz", mx.nd.array([5, 6]))
    bad = _write(tmp_path / "bad.txt", ["a 1 2", "b 3 4 5"])
    with pytest.raises(AssertionError, match="dimension"):
        text.embedding.CustomEmbedding(bad)


def test_composite_embedding_concatenates_for_a_vocabulary(tmp_path):
    one = text.embedding.CustomEmbedding(_write(tmp_path / "1.txt", ["a 1 1", "b 2 2"]))
    two = text.embedding.CustomEmbedding(_write(tmp_path / "2.txt", ["b 5 5 5"]),
                                         init_unknown_vec=mx.nd.ones)
    vocab = text.vocab.Vocabulary(collections.Counter(["b", "b", "c"]))
    both = text.embedding.CompositeEmbedding(vocab, [one, two])
    assert both.vec_len == 5 and both.idx_to_token == ["<unk>", "b", "c"]
    np.testing.assert_array_equal(both.idx_to_vec.asnumpy(),
                                  [[0, 0, 1, 1, 1], [2, 2, 5, 5, 5], [0, 0, 1, 1, 1]])
    with pytest.raises(NotImplementedError, match="downloading"):
        text.embedding.create("glove", embedding_root=str(tmp_path))
