r"""The one place user strings are escaped for the markup mxlab writes: DOT, HTML/SVG, matplotlib.

Node, op, parameter and block names, attribute values and event names come from models and files
anyone can write, so they reach the notebook's DOM only through these helpers:

* :func:`visible` first writes characters that would hide or disguise text (control characters,
  bidirectional overrides such as RLO, zero-width marks, line separators, lone surrogates, which
  XML cannot even hold) as ``\xNN``/``\uNNNN``, so every name shows as the text it is.
* :func:`dot_escape` / :func:`dot_string`: a DOT double-quoted escString (labels, tooltips).
  ``\`` and ``"`` are escaped, so Graphviz's ``\N``/``\G``/``\l`` sequences stay literal
  and no string can end the quotes; ``&`` becomes ``&amp;`` (Graphviz decodes entities in labels
  and keeps them in its SVG); ``{ } | < >`` are backslash-escaped (fields and ports of record
  shapes). A quoted string is never an HTML-like ``<...>`` label, whose ``HREF`` would become a
  live SVG link: mxlab writes no HTML-like labels at all. :func:`dot_id` is the same for IDs
  (node, graph and cluster names), where Graphviz keeps every backslash as written.
* :func:`html_text`: HTML text and quoted attribute values (``& < > " '`` as entities).
* :data:`PLAIN_TEXT` and :func:`chart_text`: matplotlib text that is never mathtext (``$x^2$``
  in a name would be parsed, or fail to) and never TeX (``usetex`` would run names through LaTeX).

Example
-------
>>> print(dot_string('a"b\\N&{x}'))
"a\"b\\N&amp;\{x\}"
>>> html_text('<td HREF="javascript:x">')
'&lt;td HREF=&quot;javascript:x&quot;&gt;'
>>> visible('fc\u202e1\n')
'fc\\u202e1\\n'
"""
import html
import re

__all__ = ["PLAIN_TEXT", "chart_text", "dot_escape", "dot_id", "dot_string", "html_text",
           "visible"]

# NOTE: C0/C1 controls and DEL, zero-width and bidi marks/overrides/isolates, line and paragraph
#   separators, the BOM, lone surrogates, and U+FFFE/U+FFFF (not characters in XML)
_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u206f"
                     "\ufeff\ud800-\udfff\ufffe\uffff]")
_HIDDEN_BUT_LINES = re.compile(_HIDDEN.pattern.replace("\x00-\x1f", "\x00-\x08\x0b-\x1f"))

#: Text properties for matplotlib text drawn from model strings: shown as typed.
PLAIN_TEXT = {"parse_math": False, "usetex": False}


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _code(match):
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def visible(text, keep_lines=False):
    """``str(text)`` with hidden or disguising characters written as ``\\xNN``/``\\uNNNN``
    (tab and newline kept when ``keep_lines``: HTML shows them as spaces)."""
    return (_HIDDEN_BUT_LINES if keep_lines else _HIDDEN).sub(_code, str(text))


_RECORD = re.compile(r"([{}|<>])")


def dot_id(text):
    """The inside of a DOT double-quoted ID naming ``text``."""
    return visible(text).replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;")


def dot_escape(text):
    """The inside of a DOT double-quoted escString (label, tooltip) showing ``text``
    literally."""
    return _RECORD.sub(r"\\\1", dot_id(text))


def dot_string(text):
    """``text`` as a DOT double-quoted string (an ID, a label, a tooltip)."""
    return f'"{dot_escape(text)}"'


def html_text(text):
    """``text`` for HTML/SVG text or a quoted attribute value."""
    return html.escape(visible(text, keep_lines=True), quote=True)


def chart_text(text):
    """``text`` for a matplotlib label drawn with :data:`PLAIN_TEXT` (one line, as typed)."""
    return visible(text)
