"""Block scopes and readable names for every node of a traced graph.

A traced Gluon graph names its nodes ``node_44`` / ``weight_65``; only parameters say which block
they belong to. The explorer needs a block path for *every* node (to fold parameter-free layers
and backward nodes into their block) and a readable name (``features.4.0.body.0 Convolution``).

Scopes come from, in order: the node's own recorded scope (``Node.scope``, when the graph layer
records one), the block of the parameters an op reads (``Source.block_paths``), the deepest block
its inputs share (a ReLU joins the BatchNorm before it; a residual add its residual block), the
forward node of a backward node, and else what its placed neighbours share.

Example
-------
>>> common_prefix([['a', 'a.b', 'a.b.c'], ['a', 'a.b']])
['a', 'a.b']
"""
__all__ = ["common_prefix", "derive_scopes", "display_names", "forward_name"]


def common_prefix(paths):
    """The longest block path every path in ``paths`` starts with."""
    paths = list(paths)
    if not paths:
        return []
    out = []
    for parts in zip(*paths):
        if any(p != parts[0] for p in parts):
            break
        out.append(parts[0])
    return out


def forward_name(name):
    """The forward node a backward node belongs to (``node_4_backward_...`` -> ``node_4``)."""
    return name.split("_backward")[0] if "_backward" in name else None


def _recorded_scope(node):
    """The block path recorded at trace time (``Node.scope``: ``(path, class name)`` pairs,
    outermost first), or None."""
    return [path for path, _ in node.scope] or None


def _placed(paths, nids):
    found = [paths[m] for m in nids if m in paths]
    return common_prefix(found) if found else []


def _joined(paths, nids):
    """Block of an op reading ``nids``: what they share; when they come from far-apart blocks
    (a residual add reading the previous stage's output), one level below that on the side of
    its newest input, so blocks do not leak up a chain of identity shortcuts."""
    shared = _placed(paths, nids)
    newest = paths[max(m for m in nids if m in paths)]
    if len(newest) > len(shared) + 2:
        return newest[:len(shared) + 1]
    return shared


def derive_scopes(graph, known):
    """``{node name: block path}`` for as many nodes of ``graph`` as can be placed; ``known``
    holds the paths already known (parameters and the ops that read them).

    In order: recorded or known paths; a forward op joins the deepest block its inputs share
    (a ReLU after a BatchNorm joins it, a residual add the residual block); an op with no
    placed input joins what its consumers share; a backward node its forward node; anything
    left (gradient sums) what its placed neighbours share.
    """
    idx = graph.indexed
    paths = {}
    for n in idx.nodes:
        path = _recorded_scope(n.node) or known.get(n.name)
        if path:
            paths[n.nid] = list(path)
    inputs = {n.nid: [idx.node_of_entry(e) for e in n.inputs] for n in idx.nodes}
    consumers = {n.nid: [] for n in idx.nodes}
    for n in idx.nodes:
        for m in inputs[n.nid]:
            consumers[m].append(n.nid)
    forward = [n for n in idx.nodes if not n.is_variable and forward_name(n.name) is None]
    for n in forward:                                   # topological: inputs placed first
        if n.nid not in paths and _placed(paths, inputs[n.nid]):
            paths[n.nid] = _joined(paths, inputs[n.nid])
    for n in reversed(forward):
        if n.nid not in paths and _placed(paths, consumers[n.nid]):
            paths[n.nid] = _placed(paths, consumers[n.nid])
    names = {n.name: n.nid for n in idx.nodes}
    for n in idx.nodes:
        back = names.get(forward_name(n.name))
        if n.nid not in paths and back in paths:
            paths[n.nid] = paths[back]
    for n in idx.nodes:
        if n.nid not in paths and not n.is_variable:
            near = _placed(paths, inputs[n.nid] + consumers[n.nid])
            if near:
                paths[n.nid] = near
    return {idx[nid].name: path for nid, path in paths.items()}


def display_names(graph, scopes, param_names):
    """``{node name: readable name}``: a parameter's structured name (``features.0.weight``);
    an op's block path (``features.4.0.body.0``, ``(grad)`` appended for a backward node);
    other nodes keep their name."""
    names = {}
    for n in graph.indexed.nodes:
        if n.name in param_names:
            names[n.name] = param_names[n.name]
            continue
        path = scopes.get(n.name)
        if n.is_variable or not path:
            continue
        suffix = " (grad)" if forward_name(n.name) else ""
        names[n.name] = path[-1] + suffix
    return names
