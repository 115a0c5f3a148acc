"""Block scopes and readable names for every node of a traced graph.

A traced Gluon graph names its nodes ``node_44`` / ``weight_65``; only parameters say which block
they belong to. The explorer needs a block path for *every* node (to fold parameter-free layers
and backward nodes into their block) and a readable name (``features.4.0.body.0 Convolution``).

Scopes come from, in order: the node's own recorded scope (``Node.scope``, when the graph layer
records one), the block of the parameters an op reads (``Source.block_paths``), the forward node
of a backward node, and else the deepest block shared by the node's already-scoped neighbours
(inputs and consumers), propagated until nothing changes: a ReLU between ``body.1`` and
``body.3`` lands in ``body``; a residual add in its residual block.

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
    scope = getattr(node, "scope", None)
    if not scope:
        return None
    parts = str(scope).split(".")
    return [".".join(parts[:i + 1]) for i in range(len(parts))]


def _neighbours(idx):
    """``{nid: [neighbour nids]}``: the producers of a node's inputs and its consumers."""
    near = {n.nid: [idx.node_of_entry(e) for e in n.inputs] for n in idx.nodes}
    for n in idx.nodes:
        for e in n.inputs:
            near[idx.node_of_entry(e)].append(n.nid)
    return near


def derive_scopes(graph, known):
    """``{node name: block path}`` for as many nodes of ``graph`` as can be placed; ``known``
    holds the paths already known (parameters and the ops that read them)."""
    idx = graph.indexed
    paths = {}
    for n in idx.nodes:
        path = _recorded_scope(n.node) or known.get(n.name)
        back = forward_name(n.name)
        if path is None and back is not None:
            path = known.get(back)
        if path:
            paths[n.nid] = list(path)
    near = _neighbours(idx)
    changed = True
    while changed:
        changed = False
        for n in idx.nodes:
            if n.nid in paths or n.is_variable:
                continue
            placed = [paths[m] for m in near[n.nid] if m in paths]
            back = forward_name(n.name)
            if back is not None:
                continue               # NOTE: placed with its forward node below
            prefix = common_prefix(placed) if placed else []
            if prefix:
                paths[n.nid] = prefix
                changed = True
    by_name = {idx[nid].name: path for nid, path in paths.items()}
    for n in idx.nodes:
        back = forward_name(n.name)
        if n.name not in by_name and back in by_name:
            by_name[n.name] = by_name[back]
    return by_name


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
