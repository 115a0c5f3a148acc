"""``mx.viz.plot_network`` and ``mx.viz.print_summary``: MXNet's visualization API.

Both read the symbol's MXNet JSON (``symbol.tojson()``), so node labels, colours and the summary
table match MXNet 1.9's ``mxnet.visualization`` output. Every string of the model (names, attribute
values, the title) enters the DOT text through :mod:`mxlab.markup` as a plain quoted string: never
an HTML-like label, never a Graphviz escape sequence.

Example
-------
>>> import mxlab as mx
>>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=8, name='fc1')
>>> dot = plot_network(net, shape={'data': (2, 4)})
>>> 'FullyConnected\\n8' in dot.source
True
"""
import json
import os
import re
import shutil
import warnings

from ..atomic_file import write_bytes
from ..base import MXNetRuntimeError, MXNetTypeError, MXNetValueError
from ..markup import dot_escape, dot_id
from .layout import LayoutError, graphviz_layout

__all__ = ["plot_network", "print_summary"]

#: MXNet's colour map (visualization.py ``cm``).
COLORS = ("#8dd3c7", "#fb8072", "#ffffb3", "#bebada", "#80b1d3", "#fdb462", "#b3de69",
          "#fccde5")
_WEIGHT_LIKE = ("_weight", "_bias", "_beta", "_gamma", "_moving_var", "_moving_mean",
                "_running_var", "_running_mean")


def _numbers(text):
    return re.findall(r"\d+", text)


def _check_symbol(symbol):
    from ..symbol import Symbol
    if not isinstance(symbol, Symbol):
        raise MXNetTypeError("symbol must be Symbol")


def _internal_dict(symbol, method, given, what):
    internals = symbol.get_internals()
    _, outs, _ = getattr(internals, method)(**given)
    if outs is None:
        raise MXNetValueError(f"Input {what} is incomplete")
    return dict(zip(internals.list_outputs(), outs))


def _x(values):
    return "x".join(str(v) for v in values)


def _conv_label(attrs):
    stride = _x(_numbers(attrs["stride"])) if "stride" in attrs else "1"
    return "Convolution", f"{_x(_numbers(attrs['kernel']))}/{stride}, {attrs['num_filter']}"


def _pool_label(attrs):
    kernel = _x(_numbers(attrs["kernel"])) if "kernel" in attrs else "[]"
    stride = _x(_numbers(attrs["stride"])) if "stride" in attrs else "1"
    return "Pooling", f"{attrs['pool_type']}, {kernel}/{stride}"


#: op -> (colour index, label builder (attrs -> label lines) or None for the node name).
_STYLES = {
    "Convolution": (1, _conv_label),
    "FullyConnected": (1, lambda a: ("FullyConnected", a["num_hidden"])),
    "BatchNorm": (3, None),
    "Activation": (2, lambda a: ("Activation", a["act_type"])),
    "LeakyReLU": (2, lambda a: ("LeakyReLU", a.get("act_type", "leaky"))),
    "Pooling": (4, _pool_label),
    "Concat": (5, None), "Flatten": (5, None), "Reshape": (5, None),
    "Softmax": (6, None),
}


def _node_style(node):
    """``(colour index, label lines)``; the lines are the model's strings, still unescaped."""
    op, attrs = node["op"], node.get("attrs", {})
    if op == "null":
        return 0, (node["name"],)
    color, label = _STYLES.get(op, (7, None))
    if op == "Custom":
        return 7, (attrs["op_type"],)
    return color, label(attrs) if label else (node["name"],)


def _dot(*lines):
    """A DOT label of the model's ``lines`` (MXNet's labels break lines with a newline); the
    graphviz package quotes it and, being ``nohtml``, never passes it on as an HTML label."""
    import graphviz
    return graphviz.nohtml("\n".join(dot_escape(line) for line in lines))


def _id(name):
    """A DOT ID of the model's ``name`` (quoted by the graphviz package, as :func:`_dot`)."""
    import graphviz
    return graphviz.nohtml(dot_id(name))


def _entry_key(node):
    """The internals output name of a node's last output (MXNet's plot_network rule)."""
    if node["op"] == "null":
        return node["name"]
    key = node["name"] + "_output"
    if "num_outputs" in node.get("attrs", {}):
        key += str(int(node["attrs"]["num_outputs"]) - 1)
    return key


def _warn_repeated(nodes):
    seen, repeated = set(), set()
    for node in nodes:
        (repeated if node["name"] in seen else seen).add(node["name"])
    if repeated:
        warnings.warn("There are multiple variables with the same name in your graph, this may "
                      "result in cyclic graph. Repeated names: " + ",".join(sorted(repeated)),
                      RuntimeWarning, stacklevel=3)


def _digraph_class():
    import graphviz

    class Digraph(graphviz.Digraph):
        """A ``graphviz.Digraph`` laid out in a Graphviz worker process (never in the
        caller's, where a Graphviz abort would end the kernel), shown in notebooks as SVG plus
        an HTML ``<img>`` of it (what untrusted notebooks and static renderers show).

        An edge end is one whole node name (the package would read ``a:b`` as node ``a``, port
        ``b``, and write a third ``:`` part unquoted)."""

        _quote_edge = staticmethod(graphviz.quoting.quote)

        def pipe(self, format=None, *args, **kwargs):
            try:
                data = graphviz_layout(self.source, format or self.format)
            except LayoutError as exc:
                raise MXNetRuntimeError(f"plot_network: {exc}") from None
            encoding = kwargs.get("encoding")
            return data.decode(encoding) if encoding else data

        def _repr_mimebundle_(self, include=None, exclude=None, **_):
            from .charts import svg_img
            svg = self.pipe("svg", encoding="utf-8")
            svg = svg[svg.find("<svg"):]
            return {"image/svg+xml": svg, "text/html": svg_img(svg),
                    "text/plain": f"<plot_network: {self.name or 'graph'}>"}

        def render(self, filename=None, directory=None, view=False, cleanup=False,
                   format=None, **kwargs):
            if shutil.which("dot"):
                return super().render(filename, directory, view, cleanup, format, **kwargs)
            path = os.path.join(directory or self.directory or "",
                                f"{filename or self.filename}.{format or self.format}")
            write_bytes(path, self.pipe(format or self.format))
            return path

    return Digraph


def plot_network(symbol, title="plot", save_format="pdf", shape=None, dtype=None,
                 node_attrs={}, hide_weights=True):  # noqa: B006  (MXNet's signature)
    """A ``graphviz.Digraph`` of ``symbol`` (MXNet's ``mx.viz.plot_network``).

    Parameters
    ----------
    symbol : Symbol
    title : str
    save_format : str
        The Digraph's format (``render()`` writes it; in-notebook display uses SVG).
    shape, dtype : dict, optional
        Input shapes / dtypes by name: edges are labelled with the shapes (minus batch axis)
        and dtypes that flow along them.
    node_attrs : dict
        Graphviz node attributes overriding the defaults.
    hide_weights : bool
        Hide ``*_weight``, ``*_bias``, ... variables.

    Returns
    -------
    graphviz.Digraph
    """
    Digraph = _digraph_class()
    _check_symbol(symbol)
    shapes = _internal_dict(symbol, "infer_shape", shape, "shape") if shape is not None else None
    types = _internal_dict(symbol, "infer_type", dtype, "type") if dtype is not None else None
    nodes = json.loads(symbol.tojson())["nodes"]
    _warn_repeated(nodes)
    attr = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034",
            "style": "filled"}
    attr.update(node_attrs)
    dot = Digraph(name=_id(title), format=save_format)
    hidden = set()
    for node in nodes:
        if node["op"] == "null" and node["name"].endswith(_WEIGHT_LIKE):
            if hide_weights:
                hidden.add(node["name"])
            continue
        color, label = _node_style(node)
        node_attr = dict(attr, fillcolor=COLORS[color])
        if node["op"] == "null":
            node_attr["shape"] = "oval"
        dot.node(name=_id(node["name"]), label=_dot(*label), **node_attr)
    for node in nodes:
        if node["op"] == "null":
            continue
        for item in node["inputs"]:
            source = nodes[item[0]]
            if source["name"] in hidden:
                continue
            edge = {"dir": "back", "arrowtail": "open", "label": ""}
            key = _entry_key(source)
            if shapes is not None:
                edge["label"] = _x(shapes[key][1:])
            if types is not None:
                edge["label"] += "(" + types[key].__name__ + ")"
            edge["label"] = _dot(edge["label"])
            dot.edge(tail_name=_id(node["name"]), head_name=_id(source["name"]), **edge)
    return dot


def _print_row(fields, positions):
    line = ""
    for field, stop in zip(fields, positions):
        line += str(field)
        line = line[:stop]
        line += " " * (stop - len(line))
    print(line)


def _param_count(node, pre_filter, shapes):
    op, attrs = node["op"], node.get("attrs", {})
    no_bias = attrs.get("no_bias") == "True"
    if op == "Convolution":
        count = pre_filter * int(attrs["num_filter"]) // int(attrs.get("num_group", "1"))
        for k in _numbers(attrs["kernel"]):
            count *= int(k)
        return count + (0 if no_bias else int(attrs["num_filter"]))
    if op == "FullyConnected":
        return (pre_filter + (0 if no_bias else 1)) * int(attrs["num_hidden"])
    if op == "BatchNorm":
        return int(shapes[node["name"] + "_output"][1]) * 2 if shapes is not None else 0
    if op == "Embedding":
        return int(attrs["input_dim"]) * int(attrs["output_dim"])
    return 0


def _previous(node, nodes, heads, shapes):
    """(names of the layers feeding ``node``, sum of their channel counts)."""
    names, pre_filter = [], 0
    if node["op"] == "null":
        return names, pre_filter
    for item in node["inputs"]:
        source = nodes[item[0]]
        if source["op"] == "null" and item[0] not in heads:
            continue
        names.append(source["name"])
        key = source["name"] + ("_output" if source["op"] != "null" else "")
        if shapes is not None and key in shapes:
            pre_filter += int(shapes[key][1:][0])
    return names, pre_filter


def print_summary(symbol, shape=None, line_length=120,
                  positions=[.44, .64, .74, 1.]):  # noqa: B006  (MXNet's signature)
    """Print a layer table of ``symbol`` (MXNet's ``mx.viz.print_summary``).

    Parameters
    ----------
    symbol : Symbol
    shape : dict, optional
        Input shapes by name; adds output shapes and shape-dependent parameter counts.
    line_length : int
    positions : list of float or int
        Column ends, relative (<= 1) or absolute.
    """
    _check_symbol(symbol)
    shapes = _internal_dict(symbol, "infer_shape", shape, "shape") if shape is not None else None
    conf = json.loads(symbol.tojson())
    # NOTE: MXNet takes the set of the first head's [node, index, version] triple, so node 0 (the
    #   data input) usually counts as a "head" and is listed as a previous layer; kept as is.
    nodes, heads = conf["nodes"], set(conf["heads"][0])
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    print("_" * line_length)
    _print_row(["Layer (type)", "Output Shape", "Param #", "Previous Layer"], positions)
    print("=" * line_length)
    total = 0
    for i, node in enumerate(nodes):
        if node["op"] == "null" and i > 0:
            continue
        out_shape = []
        key = node["name"] + ("_output" if node["op"] != "null" else "")
        if shapes is not None and (node["op"] != "null" or i in heads) and key in shapes:
            out_shape = shapes[key][1:]
        previous, pre_filter = _previous(node, nodes, heads, shapes)
        params = _param_count(node, pre_filter, shapes)
        total += params
        _print_row([f"{node['name']}({node['op']})", _x(out_shape), params,
                    previous[0] if previous else ""], positions)
        for name in previous[1:]:
            _print_row(["", "", "", name], positions)
        print(("=" if i == len(nodes) - 1 else "_") * line_length)
    print(f"Total params: {total}")
    print("_" * line_length)
