"""mx.runtime.Features: MXNet's build-feature query, answered for mxlab."""
import importlib.util

import pytest

import mxlab as mx


def test_features_is_a_singleton_with_mxnet_names():
    features = mx.runtime.Features()
    assert features is mx.runtime.Features()
    assert "CUDA" in features and "CUDNN" in features and len(features) >= 20


def test_enabled_features_follow_the_environment():
    features = mx.runtime.Features()
    assert features.is_enabled("cuda") == (importlib.util.find_spec("cupy") is not None)
    assert features.is_enabled("INT64_TENSOR_SIZE") and not features.is_enabled("CUDNN")
    for name, feature in features.items():
        assert features.is_enabled(name) == feature.enabled


def test_unknown_feature_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="this girl is on fire"):
        mx.runtime.Features().is_enabled("this girl is on fire")


def test_cxx11_abi_is_unknown():
    assert mx.library.compiled_with_gcc_cxx11_abi() == -1
