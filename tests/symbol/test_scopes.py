"""mx.AttrScope (mx.attribute) and mx.name.NameManager / Prefix applied to symbol creation."""
import pytest

import mxlab as mx


def test_attr_scope_applies_to_variables_and_nests():
    with mx.AttrScope(group="4", data="great"):
        data = mx.sym.var("data", attr={"group": "1"})
        other = mx.sym.var("other")
        with mx.AttrScope(group="7"):
            inner = mx.sym.var("inner")
    assert (data.attr("group"), other.attr("group"), other.attr("data")) == ("1", "4", "great")
    assert (inner.attr("group"), inner.attr("data")) == ("7", "great")
    assert mx.sym.var("after").attr("group") is None


def test_attr_scope_values_must_be_strings():
    with pytest.raises(ValueError, match="string"):
        mx.AttrScope(group=4)


def test_hidden_attributes_reach_the_op_and_its_new_variables():
    data = mx.sym.var("data")
    with mx.AttrScope(__mood__="so so"):
        conv = mx.sym.Convolution(data, name="conv", kernel=(1, 1), num_filter=1, lr_mult=1)
    attrs = conv.attr_dict()
    assert attrs["conv"]["__mood__"] == "so so" and attrs["conv"]["__lr_mult__"] == "1"
    assert attrs["conv_weight"]["__mood__"] == "so so" and "__mood__" not in attrs.get("data", {})


def test_prefix_names_ops_created_inside():
    data = mx.sym.var("data")
    with mx.name.Prefix("pre_"):
        first = mx.sym.exp(data)
        named = mx.sym.exp(data, name="kept")
    assert first.name.startswith("pre_exp") and named.name == "pre_kept"
    assert not mx.sym.exp(data).name.startswith("pre_")


def test_name_manager_counts_per_hint():
    manager = mx.name.NameManager()
    assert [manager.get(None, "fc") for _ in range(2)] == ["fc0", "fc1"]
    assert manager.get("given", "fc") == "given"


def test_default_name_manager_counts_its_hints():
    manager = mx.name.current()
    manager.get(None, "counted_hint")
    assert "counted_hint" in manager._counter


def test_block_scope_prefixes_names_per_thread():
    import threading

    from mxlab.gluon.block import _block_scope

    class MyBlock:
        pass

    names = []

    def run():
        block = MyBlock()
        with _block_scope(block):
            names.append(mx.name.current().get(None, "hello"))
            with _block_scope(block):
                names.append(mx.name.current().get(None, "x"))

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert names == ["myblock_hello0", "myblock_myblock0_x0"]
    assert not isinstance(mx.name.current(), mx.name.Prefix)
