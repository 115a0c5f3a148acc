"""Graph / IndexedGraph numbering, printing, and the pass registry."""
import pytest

from mxlab.base import MXNetKeyError, MXNetValueError
from mxlab.graph.graph import Graph
from mxlab.graph.passes import apply_pass, get_pass, list_passes, register_pass
from mxlab.ops.registry import Op

from graph_helpers import apply, two_output_op, var


def _diamond():
    x = var("x")
    a = apply("tanh", x, name="a")
    b = apply("exp", x, name="b")
    return Graph([apply("broadcast_add", a, b, name="c")])


def test_topological_ids_and_entry_ids():
    x = var("x")
    s, d = apply(two_output_op(), x, x, name="sd")
    g = Graph([apply("broadcast_mul", s, d, name="m")])
    idx = g.indexed
    assert [n.name for n in idx.nodes] == ["x", "sd", "m"]
    assert idx.node_row_ptr == [0, 1, 3, 4]
    assert idx.entry_id(s) == 1 and idx.entry_id(d) == 2
    assert idx[2].inputs == [1, 2]
    assert idx.outputs == [3]
    assert idx.node_of_entry(2) == 1 and idx.node_of_entry(3) == 2
    assert idx.entry_name(2) == "sd_diff"
    assert idx.consumers[0] == [1, 1]


def test_input_nodes_and_consumers_on_a_diamond():
    idx = _diamond().indexed
    assert idx.input_nodes == [0]
    assert idx.consumers[0] == [1, 2]
    assert idx.num_nodes == 4 and idx.num_entries == 4


def test_mutable_input_nodes_are_variables_an_op_writes():
    mutating = Op(name="_test_update", compute=lambda xp, ins, attrs: ins[0] + ins[1], num_inputs=2,
                  input_names=("data", "state"), mutate_inputs=(1,))
    g = Graph([apply(mutating, var("data"), var("state"), name="u")])
    assert g.indexed.input_nodes == [0, 1]
    assert g.indexed.mutable_input_nodes == {1}


def test_text_printing_is_stable():
    text = repr(_diamond())
    assert text == ("#0 x = var\n#1 a = tanh(x[0])\n#2 b = exp(x[0])\n"
                    "#3 c = broadcast_add(a[0], b[0])\noutputs: c[0]")


def test_node_outside_the_graph_is_reported_by_name():
    g = _diamond()
    stranger = apply("tanh", var("y"), name="stranger")
    with pytest.raises(MXNetValueError, match="stranger"):
        g.indexed.entry_id(stranger)


def test_pass_registry_logs_runs_and_checks_requirements():
    @register_pass("_test_count_nodes", requires=("shape",), provides=("count",))
    def count_nodes(graph, bonus=0):
        """Count nodes."""
        return graph.copy(count=graph.indexed.num_nodes + bonus)

    assert "_test_count_nodes" in list_passes()
    assert get_pass("_test_count_nodes").provides == ("count",)
    g = _diamond()
    message = r"requires graph attributes \['shape'\].*infer_shape"
    with pytest.raises(MXNetValueError, match=message):
        apply_pass(g, "_test_count_nodes")
    g = apply_pass(g, "infer_shape", shapes={"x": (2,)})
    out = apply_pass(g, "_test_count_nodes", bonus=1)
    assert out.attrs["count"] == 5
    assert [r.name for r in out.pass_log] == ["infer_shape", "_test_count_nodes"]
    assert out.pass_log[-1].options == {"bonus": 1} and out.pass_log[-1].seconds >= 0
    assert [r.name for r in g.pass_log] == ["infer_shape"]
    with pytest.raises(MXNetValueError, match="already registered"):
        register_pass("_test_count_nodes")(count_nodes)
    with pytest.raises(MXNetKeyError, match="not registered"):
        apply_pass(g, "_no_such_pass")


def test_infer_passes_fill_lists_by_entry_id():
    g = apply_pass(_diamond(), "infer_shape", shapes={"x": (2, 3)})
    assert g.attrs["shape"] == [(2, 3)] * 4 and g.attrs["shape_num_unknown_nodes"] == 0
    g = apply_pass(g, "infer_type", dtypes=["float16"])
    assert g.attrs["dtype"] == ["float16"] * 4


def test_infer_shape_strict_names_the_unknown_input():
    x, w = var("x"), var("w")
    g = Graph([apply("broadcast_add", apply("tanh", x, name="t"), w, name="s")])
    loose = apply_pass(g, "infer_shape")
    assert loose.attrs["shape_num_unknown_nodes"] == 4
    with pytest.raises(MXNetValueError, match=r"cannot decide shapes .*\n.*x: \(\)"):
        apply_pass(g, "infer_shape", strict=True)
