"""notebook/ and viz/ read mxlab's core objects through public names only, and write none.

A private name of the core is one the rest of the package defines: an attribute set on ``self``,
a method, a module-level function or variable. notebook/ and viz/ may use such a name only on
``self`` / ``cls`` (their own objects); IPython's ``_repr_*_`` protocol is public.
"""
import ast
import pathlib

import pytest

import mxlab

PACKAGES = ("notebook", "viz")
ROOT = pathlib.Path(mxlab.__file__).parent


def _modules():
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def _core_modules():
    inspected = {ROOT / pkg for pkg in PACKAGES}
    return sorted(p for p in ROOT.rglob("*.py") if not inspected & set(p.parents))


def _private_names(trees):
    """Private names defined in ``trees``: functions, methods, classes, attributes set on self,
    module variables."""
    names = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and \
                    isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return {n for n in names if n.startswith("_")}


def _accessed(node):
    """``(object expression, attribute name)`` for ``obj.name`` and ``getattr(obj, "name")``
    (also hasattr/setattr); None for other nodes."""
    if isinstance(node, ast.Attribute):
        return node.value, node.attr
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) >= 2 and \
            isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
        return node.args[0], node.args[1].value
    return None


def _private_accesses(path, tree, core):
    found = []
    for node in ast.walk(tree):
        access = _accessed(node)
        if access is None or not access[1].startswith("_"):
            continue
        obj, name = access
        if name.startswith("__") or (name.startswith("_repr_") and name.endswith("_")):
            continue
        if isinstance(obj, ast.Name) and obj.id in ("self", "cls"):
            continue
        if name in core:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{name}")
    return found


def _stores_on_core_objects(path, tree):
    """Writes into attributes or items of objects the packages did not make (``x.attrs[k] =``)."""
    found = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            base = target.value if isinstance(target, ast.Subscript) else None
            if isinstance(base, ast.Attribute) and base.attr in ("attrs", "extra"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: writes .{base.attr}[...]")
    return found


def _root(node):
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _attribute_writes(path, tree):
    """Attribute writes (``x.a = ``, ``setattr``/``delattr``) on objects other than the packages'
    own: ``self``/``cls`` chains (their widgets) and functions the module defines."""
    own = {"self", "cls"} | {n.name for n in ast.walk(tree)
                             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            target = node
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in ("setattr", "delattr") and node.args:
            target = node.args[0]
        else:
            continue
        if _root(target) not in own:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: writes {ast.unparse(target)}")
    return found


def test_notebook_and_viz_read_only_public_names():
    trees = {path: ast.parse(path.read_text()) for path in _modules()}
    assert len(trees) >= 6
    core = _private_names(ast.parse(p.read_text()) for p in _core_modules())
    assert {"_outputs", "_plans", "_cached_op", "_data"} <= core
    bad = [hit for path, tree in trees.items() for hit in _private_accesses(path, tree, core)]
    assert bad == []


def test_notebook_and_viz_never_write_graph_or_node_attributes():
    bad = [hit for path in _modules()
           for hit in _stores_on_core_objects(path, ast.parse(path.read_text()))]
    assert bad == []


def test_notebook_and_viz_set_attributes_only_on_their_own_objects():
    bad = [hit for path in _modules()
           for hit in _attribute_writes(path, ast.parse(path.read_text()))]
    assert bad == []


def test_the_checker_catches_a_private_read_and_an_attrs_write():
    source = "def f(op, g):\n    g.attrs['_x'] = op._plans\n    return getattr(op, '_graph')\n"
    tree = ast.parse(source)
    path = ROOT / "notebook" / "fake.py"
    assert _private_accesses(path, tree, {"_plans", "_graph"}) == [
        "notebook/fake.py:2: ._plans", "notebook/fake.py:3: ._graph"]
    assert _stores_on_core_objects(path, tree) == ["notebook/fake.py:2: writes .attrs[...]"]
    writes = ("def f(block, node):\n    node.scope = ()\n    setattr(block, 'x', 1)\n"
              "    self.view.value = 1\n    f.cached = 2\n")
    assert _attribute_writes(path, ast.parse(writes)) == [
        "notebook/fake.py:2: writes node.scope", "notebook/fake.py:3: writes block"]


# -- the inspection API those packages read -------------------------------------------------------
def _traced_net():
    from mxlab.gluon import nn
    net = nn.HybridSequential()
    inner = nn.HybridSequential()
    inner.add(nn.Dense(3, activation="relu"), nn.Dense(2))
    net.add(inner, nn.Dense(1))
    net.initialize()
    net.hybridize()
    return net


def test_node_scope_is_the_block_path_recorded_at_trace_time():
    net = _traced_net()
    assert net.cached_op is None and net.traced_symbol is None
    net(mxlab.np.ones((4, 5)))
    nodes = [n.node for n in net.cached_op.symbol.graph.indexed.nodes if not n.is_variable]
    scopes = {n.scope for n in nodes}
    assert (("0", "HybridSequential"), ("0.0", "Dense")) in scopes
    assert (("0", "HybridSequential"), ("0.1", "Dense")) in scopes
    assert (("1", "Dense"),) in scopes
    relu = [n for n in nodes if n.op.name == "Activation"]
    assert [n.scope[-2:] for n in relu] == [(("0.0", "Dense"), ("0.0.act", "Activation"))]
    # NOTE: the paths are those of the parameters' structured names.
    prefixes = {key.rsplit(".", 1)[0] for key in net.collect_params()}
    assert prefixes == {n.scope[-1][0] for n in nodes if n.op.name == "FullyConnected"}
    assert net.traced_symbol.list_outputs() == net.cached_op.symbol.list_outputs()


def test_scope_is_empty_outside_a_trace_and_survives_copies():
    from mxlab.symbol.compose import copy_graph
    dc = mxlab._deferred_compute
    a = mxlab.np.ones((2,))
    dc.set_variable(a, mxlab.sym.var("a"))
    with dc.context():
        b = a * 2
    assert dc.get_symbol(b).graph.outputs[0].node.scope == ()
    net = _traced_net()
    net(mxlab.np.ones((1, 5)))
    heads = net.cached_op.symbol.graph.outputs
    assert [e.node.scope for e in copy_graph(heads)] == [e.node.scope for e in heads]


def test_cached_op_plans_and_executor_plans_are_read_only_views():
    x = mxlab.sym.var("x")
    ex = mxlab.sym.tanh(x).simple_bind(mxlab.cpu(), x=(2,))
    assert list(ex.plans) == ["joint"] and ex.plans["joint"].graph is ex.graph
    assert ex.symbol.list_arguments() == ["x"]
    net = _traced_net()
    net(mxlab.np.ones((1, 5)))
    plans = net.cached_op.plans
    assert list(plans) == ["forward"]
    with pytest.raises(TypeError):
        plans["forward"] = None
