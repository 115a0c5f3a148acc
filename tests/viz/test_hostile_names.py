"""Names carrying DOT, HTML, SVG, script and mathtext payloads are drawn as text, never as markup.

A node, op, parameter or block name is whatever a model file says. Each fragment below is used
as a variable name, an op name, an attribute value and a Gluon block name; plot_network's DOT must
parse, and every SVG, HTML table and chart mxlab makes of it must hold no script, no event
handler, no link, and the name itself as plain (escaped) text.
"""
import base64
import html.parser
import io
import pathlib
import types
import xml.etree.ElementTree as ET

import pygraphviz
import pytest

import mxlab as mx
from mxlab.executor.planning import infer_graph, plan_graph
from mxlab.graph import Graph
from mxlab.markup import PLAIN_TEXT, dot_escape, html_text, visible
from mxlab.notebook import fallback, live
from mxlab.notebook.explorer import VIEWS, ExplorerModel
from mxlab.notebook.render import build_dot
from mxlab.notebook.sources import Source
from mxlab.op_cache import CacheInfo, OpStats

HOSTILE = [
    '<td HREF="javascript:alert(1)">x</td>',
    '<<table><tr><td HREF="javascript:window.__pwned=1">x</td></tr></table>>',
    '"><script>alert(1)</script>',
    "<img src=x onerror=alert(1)>",
    "<svg onload=alert(1)>",
    "]]>", "&amp;", "&lt;b&gt;", "{", "}", "|", '\\"', "\\", "end\\", "\\N\\G\\l",
    "line\nbreak", "$x^2$", "$", "<!--", "-->", "\u202eRLO", "a:b:c", "node", "edge", "strict",
    "nul\x00", "\ud800", "\u2028sep", "' onmouseover='alert(1)",
]
CORPUS = pathlib.Path(__file__).resolve().parents[1] / "hostile_files"
SHAPES = {h: (2, 3) for h in HOSTILE}
#: The HTML tags mxlab's own views use (anything else came from a name).
OWN_TAGS = {"div", "b", "br", "i", "span", "table", "tr", "th", "td", "style", "img", "p", "ul",
            "li"}


def hostile_symbol():
    """Every fragment as a variable (with the fragment as an attribute value) and as an op."""
    out = mx.sym.var(HOSTILE[0], attr={"note": HOSTILE[0]})
    for i, name in enumerate(HOSTILE[1:]):
        out = mx.sym.broadcast_add(out, mx.sym.var(name, attr={"note": name}),
                                   name=f"{name} op{i}")
    return out


def op_names():
    return [f"{name} op{i}" for i, name in enumerate(HOSTILE[1:])]


SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"


def inert_svg_texts(svg):
    """The texts (``<text>``, ``<title>``, tooltips) of ``svg`` after checking it is well-formed
    XML with no script, foreign object, event handler or link."""
    root = ET.fromstring(svg[svg.find("<svg"):].encode("utf-8"))
    texts = []
    for el in root.iter():
        assert el.tag.replace(SVG, "") not in ("script", "foreignObject", "iframe"), el.tag
        for key, value in el.attrib.items():
            name = key.replace(XLINK, "").lower()
            assert not name.startswith("on"), (key, value)
            # NOTE: mxlab links nothing; matplotlib's SVG refers to its own glyphs (#id)
            assert name != "href" or value.startswith("#"), (key, value)
            if name == "title":
                texts.append(value)
        if el.tag in (SVG + "text", SVG + "title"):
            texts.append(el.text or "")
    assert "javascript:" not in " ".join(k for el in root.iter() for k in el.attrib)
    return texts


class _Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.images = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "img":
            self.images.append(dict(attrs)["src"])


def inert_html(text):
    """Check ``text`` uses only mxlab's own tags, with no handler or link; check the SVG of every
    ``<img>`` it embeds; return the SVG texts."""
    parser = _Tags()
    parser.feed(text)
    texts = []
    for tag, attrs in parser.tags:
        assert tag in OWN_TAGS, (tag, attrs)
        assert not any(k.startswith("on") or k == "href" for k in attrs), (tag, attrs)
    for src in parser.images:
        head, _, data = src.partition(",")
        if head == "data:image/svg+xml;base64":
            texts += inert_svg_texts(base64.b64decode(data).decode("utf-8"))
        else:
            assert head == "data:image/png;base64", head
    return texts


def test_markup_helpers_escape_every_special_character():
    assert visible("a\u202eb\x00\n\ud800") == "a\\u202eb\\x00\\n\\ud800"
    assert visible("tab\tnl\n", keep_lines=True) == "tab\tnl\n"
    assert html_text("<a href='x'>&\"") == "&lt;a href=&#x27;x&#x27;&gt;&amp;&quot;"
    assert dot_escape('<b>"\\{|}&') == '\\<b\\>\\"\\\\\\{\\|\\}&amp;'
    assert PLAIN_TEXT == {"parse_math": False, "usetex": False}


def test_plot_network_dot_parses_and_its_svg_shows_every_name_as_text():
    dot = mx.viz.plot_network(hostile_symbol(), shape=SHAPES, title=HOSTILE[1])
    graph = pygraphviz.AGraph(string=dot.source)
    assert len(graph.nodes()) == 2 * len(HOSTILE) - 1
    assert len(graph.edges()) == 2 * (len(HOSTILE) - 1)
    texts = inert_svg_texts(dot.pipe("svg", encoding="utf-8"))
    for name in HOSTILE + op_names():
        assert visible(name) in texts, name
    assert "3" in texts                                   # the edge labels (shape minus batch)
    bundle = dot._repr_mimebundle_()
    assert bundle["text/html"].startswith("<img") and inert_html(bundle["text/html"])
    inert_svg_texts(bundle["image/svg+xml"])


def test_plot_network_keeps_a_names_colons_and_record_fields_literal():
    net = mx.sym.relu(mx.sym.var('a:b:c" ] ; z [label=<<b>x</b>>] //'), name="{x|<p> y}")
    dot = mx.viz.plot_network(net, node_attrs={"shape": "record"})
    graph = pygraphviz.AGraph(string=dot.source)
    assert len(graph.nodes()) == 2 and len(graph.edges()) == 1
    texts = inert_svg_texts(dot.pipe("svg", encoding="utf-8"))
    assert "{x|<p> y}" in texts and 'a:b:c" ] ; z [label=<<b>x</b>>] //' in texts


def _explorer_checks(model, names, select=True):
    """Every view's drawing and HTML of ``model`` is inert and shows ``names`` as text; each
    node named so shows its name, escaped, in its details (``select``)."""
    for view in VIEWS:
        model.set_view(view)
        texts = inert_svg_texts(model.svg())
        shown = " ".join(texts)
        for name in names:
            assert visible(name) in shown, (view, name)
        inert_html(model.static_html())
    model.set_view("graph")
    for name in names if select else ():
        model.select(name)
        details = model.details_html()
        inert_html(details)
        assert html_text(name) in details


def test_explorer_views_tables_and_details_escape_a_symbols_names():
    model = ExplorerModel(Source(hostile_symbol(), shapes=SHAPES))
    _explorer_checks(model, HOSTILE[:8] + op_names()[:8] + HOSTILE[-6:])


def test_fallback_drawing_shows_the_same_text():
    graph = Graph(hostile_symbol()._outputs)
    svg = fallback.layered_svg(build_dot(graph), '"><script>alert(1)</script>')
    texts = inert_svg_texts(svg)
    for name in HOSTILE[1:]:
        assert visible(name)[:28] in texts, name
    assert any('"><script>alert(1)</script>' in t for t in texts)


def test_hybridized_gluon_block_with_hostile_block_names():
    net = mx.gluon.nn.HybridSequential()
    blocks = ['<td HREF="javascript:alert(1)">', "$x^2$|{}", "\u202eevil\\"]
    for name in blocks:
        net.register_child(mx.gluon.nn.Dense(3), name)
    net.initialize()
    net.hybridize()
    x = mx.np.ones((2, 4))
    with mx.autograd.record():
        y = net(x)
    y.backward()
    model = ExplorerModel(Source(net))
    params = [f"{b}.weight" for b in blocks]
    assert params[0] in net.collect_params()
    _explorer_checks(model, params, select=False)      # NOTE: nodes are named dense<k>_weight
    choices = [label for label, _ in model.node_choices()]
    assert all(any(label.startswith(p) for label in choices) for p in params)
    model.toggle_block(blocks[0])
    assert visible(blocks[0]) + ": Dense" in " ".join(inert_svg_texts(model.svg()))


def test_charts_draw_names_as_plain_text():
    graph = infer_graph(Graph(hostile_symbol()._outputs), SHAPES, {h: "float32" for h in SHAPES})
    plan = plan_graph(graph, "forward").memory_plan
    fig = mx.viz.charts.lifetime_chart(plan, title="$\\frac{a}{", max_labels=200)
    labels = [t for t in fig.axes[0].texts]
    # NOTE: the last op's output is the graph's (external, not in the pool: no bar)
    assert {t.get_text() for t in labels} >= {visible(n) for n in op_names()[:-1]}
    assert not any(t.get_parse_math() for t in labels + [fig.axes[0].title])
    assert inert_html(mx.viz.charts.figure_html(fig)) == []
    events = [types.SimpleNamespace(seq=i, name=name, thread=name, start=i * 1e-3,
                                    end=i * 1e-3 + 5e-4, error=None, reads=((1, i),),
                                    writes=((2, i + 1),))
              for i, name in enumerate(HOSTILE)]
    gantt = mx.viz.charts.gantt_chart(events)
    ticks = [t.get_text() for t in gantt.axes[0].get_yticklabels()]
    assert set(ticks) == {visible(n) for n in HOSTILE}
    svg = mx.viz.charts.figure_html(gantt)        # PNG: mathtext would raise on "$x^2$|{"
    assert svg.startswith("<img alt='engine ops per thread")
    buffer = io.StringIO()
    gantt.savefig(buffer, format="svg")
    inert_svg_texts(buffer.getvalue())


def test_engine_view_and_op_cache_tables_escape_names():
    class View(live.EngineView):
        def events(self):
            return [types.SimpleNamespace(seq=i, name=name, thread=f"t{name}", start=i * 1e-3,
                                          end=i * 1e-3 + 5e-4, error=None, reads=(), writes=())
                    for i, name in enumerate(HOSTILE[:10])]

    text = View().html
    inert_html(text)
    for name in HOSTILE[:10]:
        assert f"<td>{html_text(name)}</td>" in text
    info = CacheInfo({name: OpStats(hits=1) for name in HOSTILE}, True, None)
    table = info._repr_html_()
    inert_html(table)
    assert all(f"<td>{html_text(name)}</td>" in table for name in HOSTILE)


@pytest.mark.parametrize("path", sorted(CORPUS.glob("hostile_names-*.json")), ids=lambda p: p.name)
def test_corpus_graphs_load_and_draw_escaped(path):
    net = mx.sym.load(str(path))
    names = [n for n in net.list_arguments()]
    dot = mx.viz.plot_network(net)
    pygraphviz.AGraph(string=dot.source)
    texts = inert_svg_texts(dot.pipe("svg", encoding="utf-8"))
    assert all(visible(n) in texts for n in names)
    model = ExplorerModel(Source(net))
    inert_html(model.static_html())
    assert all(visible(n) in " ".join(inert_svg_texts(model.svg())) for n in names)
