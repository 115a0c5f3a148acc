"""The interpreter template: its specializations agree, its compiled form equals its run, the op
context reaches kernels, and the executors are built on it."""
import numpy

import mxlab as mx
from mxlab.graph.interpreter import (Interpreter, PlannedInterpreter, ValueInterpreter,
                                     run_graph, run_planned)
from mxlab.ops.context import PREDICT, TRAIN

from graph_helpers import Graph, apply, mlp, planned, random_inputs, var


def test_value_and_planned_interpreters_agree_with_poisoning_on():
    graph = planned(mlp(3, 4), {"data": (2, 5)})
    inputs = random_inputs(graph)
    for want, got in zip(run_graph(graph, inputs),
                         run_planned(graph, graph.attrs["memory_plan"], inputs, poison=True)):
        numpy.testing.assert_allclose(got, want, rtol=1e-12)


def test_compiled_walk_equals_the_interpreted_run():
    graph = planned(mlp(2, 3), {"data": (4, 3)})
    inputs = random_inputs(graph)
    want = PlannedInterpreter(graph, graph.attrs["memory_plan"], inputs).run()
    program = PlannedInterpreter(graph, graph.attrs["memory_plan"], inputs).compile()
    assert len(program) == graph.indexed.num_nodes
    first, second = program(), program()    # a compiled program runs again with the same result
    for w, a, b in zip(want, first, second):
        numpy.testing.assert_array_equal(a, w)
        numpy.testing.assert_array_equal(b, w)


def test_hooks_see_nodes_in_topological_order():
    class Trace(ValueInterpreter):
        def __init__(self, heads, variable):
            super().__init__(heads, variable)
            self.seen = []

        def after(self, node):
            self.seen.append(node.name)

    y = apply("tanh", apply("negative", var("x"), name="neg"), name="t")
    walk = Trace([y], lambda node: numpy.ones(2))
    (out,) = walk.run()
    assert walk.seen == ["x", "neg", "t"]
    numpy.testing.assert_allclose(out, numpy.tanh(-numpy.ones(2)))


def test_the_op_context_reaches_kernels():
    graph = Graph([apply("Dropout", var("x"), p=0.5)[0]])
    x = numpy.ones((64, 64), dtype="float32")
    numpy.testing.assert_array_equal(run_graph(graph, {"x": x}, ctx=PREDICT)[0], x)
    dropped = run_graph(graph, {"x": x}, ctx=TRAIN)[0]
    assert (dropped == 0).any() and set(numpy.unique(dropped)) <= {0.0, 2.0}


def test_a_template_without_an_order_names_the_missing_hook():
    import pytest
    with pytest.raises(NotImplementedError, match="Interpreter.order"):
        Interpreter().run()


def test_deferred_compute_evaluates_a_chain_once_through_the_template():
    a = mx.np.array([1.0, 2.0])
    mx.dc.set_variable(a, mx.sym.var("a"))
    with mx.dc.context():
        b = a * 2
        c = b + 1
        d = c * c
    numpy.testing.assert_allclose(d.asnumpy(), [9.0, 25.0])
    numpy.testing.assert_allclose(b.asnumpy(), [2.0, 4.0])   # computed on the way, kept


def test_graph_executor_and_symbol_eval_run_on_the_template():
    from mxlab.executor import graph_executor
    from mxlab.symbol import evaluate
    assert issubclass(graph_executor._EngineRun, Interpreter)
    assert issubclass(evaluate._ImperativeWalk, ValueInterpreter)
    x = mx.sym.var("x")
    ex = (x * 3).simple_bind(mx.cpu(), x=(2,))
    ex.arg_dict["x"][:] = 2
    numpy.testing.assert_allclose(ex.forward()[0].asnumpy(), [6.0, 6.0])
    numpy.testing.assert_allclose((x * 3).eval(x=mx.nd.ones(2))[0].asnumpy(), [3.0, 3.0])


def test_the_compiled_program_computes_what_run_planned_does_on_its_plan():
    x, w = mx.sym.var("x"), mx.sym.var("w")
    sym = mx.sym.tanh(mx.sym.dot(x, w)) * 2
    rng = numpy.random.default_rng(1)
    args = {"x": mx.nd.array(rng.standard_normal((2, 3))),
            "w": mx.nd.array(rng.standard_normal((3, 4)))}
    ex = sym.bind(mx.cpu(), args, args_grad={n: a.zeros_like() for n, a in args.items()})
    head = rng.standard_normal((2, 4)).astype("float32")
    ex.forward(is_train=True)
    ex.backward(mx.nd.array(head))
    graph = ex.graph
    idx = graph.indexed
    feed = {idx[n].name: (args[idx[n].name].asnumpy() if idx[n].name in args else head)
            for n in idx.input_nodes}
    out, grad_x, grad_w = run_planned(graph, ex.memory_plan, feed)
    numpy.testing.assert_allclose(ex.outputs[0].asnumpy(), out, rtol=1e-6)
    numpy.testing.assert_allclose(ex.grad_dict["x"].asnumpy(), grad_x, rtol=1e-5)
    numpy.testing.assert_allclose(ex.grad_dict["w"].asnumpy(), grad_w, rtol=1e-5)


def test_deferred_compute_evaluates_a_chain_deeper_than_the_recursion_limit():
    import sys
    a = mx.np.array([0.0])
    mx.dc.set_variable(a, mx.sym.var("a"))
    with mx.dc.context():
        b = a
        for _ in range(sys.getrecursionlimit() + 200):
            b = b + 1
    assert float(b.asnumpy()[0]) == sys.getrecursionlimit() + 200
